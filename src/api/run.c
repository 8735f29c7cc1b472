/* ckpt_run: the pipeline from a validated scenario to results. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ckpt.h"
#include "../core/arena.h"
#include "../core/machine.h"
#include "../core/units.h"
#include "../cost/cost.h"
#include "../cost/storage_use.h"
#include "../cost/policy_cost.h"
#include "../fluid/fluid.h"
#include "../pkt/capture.h"
#include "../pkt/engine.h"
#include "../core/wire.h" /* NPRIO: what the engine reserves */
#include "../scenario/catalog.h"
#include "../stats/bound.h"
#include "../stats/invariants.h"
#include "../stats/segments.h"
#include "../stats/training.h"
#include "api.h"
#include "../topo/topo.h"
#include "../work/policy.h"
#include "../work/protect.h"
#include "../work/train.h"
#include "../work/work.h"

/* Where the fabric asks more of a switch than its profile has (with
 * fabric.breakout): more ports, or faster links than its ports run. Refused
 * with the tier, the need and the profile; fabric.allow_oversize: true
 * makes it a warning and the run goes on. */
static int fabric_radix(struct results *r, const struct topo *t, const struct scenario *sc,
                        struct err *e)
{
    struct {
        const char *tier, *key, *profile;
        uint32_t need, ports;
        uint64_t fastest, lane;
    } tier[PATH_MAX_LEVELS] = {
        {"leaf", "fabric.leaf_switch", sc->fabric.leaf_switch, 0, sc->fabric.leaf_ports, 0,
         sc->fabric.leaf_port_bps},
        {"spine", "fabric.spine_switch", sc->fabric.spine_switch, 0, sc->fabric.spine_ports, 0,
         sc->fabric.spine_port_bps},
        {"super-spine", "fabric.superspine_switch", sc->fabric.superspine_switch, 0,
         sc->fabric.super_ports, 0, sc->fabric.super_port_bps},
    };
    /* a leaf of two breakouts (fabric.leaf_down_breakout, leaf_up_breakout):
     * its physical ports, host side and uplinks each at its own lanes */
    uint32_t bd = sc->fabric.bo_down ? sc->fabric.bo_down : 1;
    uint32_t bu = sc->fabric.bo_up ? sc->fabric.bo_up : 1;
    int mixed = bd != bu;
    uint32_t leaf_phys = sc->fabric.leaf_ports / (bd > bu ? bd : bu), mh = 0, mu = 0;
    uint64_t fast_down = 0, fast_up = 0;
    for (uint32_t i = 0; i < t->tiers; i++) {
        const struct topo_level *L = &t->level[i];
        for (uint32_t n = L->first; n < L->first + L->n; n++) {
            const struct tnode *nd = &t->nodes[n];
            uint32_t h = 0;
            for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
                uint64_t bps = t->ports[p].bps;
                tier[i].fastest = bps > tier[i].fastest ? bps : tier[i].fastest;
                int host = t->nodes[t->ports[t->ports[p].peer].node].kind <= NODE_STORAGE;
                h += host;
                if (i == 0 && host)
                    fast_down = bps > fast_down ? bps : fast_down;
                else if (i == 0)
                    fast_up = bps > fast_up ? bps : fast_up;
            }
            uint32_t need = nd->nports;
            if (i == 0 && mixed) { /* physical ports */
                need = (h + bd - 1) / bd + (nd->nports - h + bu - 1) / bu;
                if (need > tier[0].need) {
                    mh = h;
                    mu = nd->nports - h;
                }
            }
            tier[i].need = need > tier[i].need ? need : tier[i].need;
        }
    }
    if (mixed) {
        tier[0].ports = leaf_phys;
        /* each side against its own lanes */
        int down = fast_down > sc->fabric.leaf_down_bps;
        tier[0].fastest = down ? fast_down : fast_up;
        tier[0].lane = down ? sc->fabric.leaf_down_bps : sc->fabric.leaf_up_bps;
    }
    char leaf_detail[96] = "";
    if (mixed)
        snprintf(leaf_detail, sizeof leaf_detail, " (%u host ports %u to a port, %u uplinks %u "
                 "to a port)", mh, bd, mu, bu);
    if (!sc->fabric.allow_oversize) {
        for (int i = 0; i < PATH_MAX_LEVELS; i++) {
            const char *bo = sc->fabric.breakout > 1 ? " (with fabric.breakout)" : "";
            if (tier[i].need > tier[i].ports) {
                /* only what would work: auto when it plans this cluster on
                 * these profiles, more breakout when its lanes still carry
                 * the links */
                char alt[200] = "";
                if (!sc->fabric.tiers_auto && scenario_auto_plans(sc))
                    snprintf(alt, sizeof alt, "fabric.tiers: auto (it plans leaves, spines and "
                                              "pods for the profiles), ");
                /* leaf-spine links follow the lanes unless their speed is set */
                uint32_t bo2 = sc->fabric.breakout * 2;
                int follow = i > 0 && !scenario_is_set(sc, "fabric.uplink_speed") &&
                             !scenario_is_set(sc, "fabric.spine_uplink_speed");
                if (bo2 <= 4 && !mixed && tier[i].need <= tier[i].ports * 2 &&
                    (follow || tier[i].fastest <= tier[i].lane / 2))
                    snprintf(alt + strlen(alt), sizeof alt - strlen(alt),
                             "fabric.breakout: %u, ", bo2);
                for (const struct switch_profile *p = switch_catalog; p->name; p++)
                    if ((uint64_t)p->ports * sc->fabric.breakout >= tier[i].need &&
                        p->port_bps / sc->fabric.breakout >= tier[i].fastest) {
                        snprintf(alt + strlen(alt), sizeof alt - strlen(alt),
                                 "a larger profile (%s), ", p->name);
                        break;
                    }
                return err_set(e, "%s: a %s needs %u ports%s, %s has %u%s; use %s%s"
                                  "fabric.allow_oversize: true to run it anyway",
                               tier[i].key, tier[i].tier, tier[i].need, i ? "" : leaf_detail,
                               tier[i].profile, tier[i].ports, bo, alt, alt[0] ? "or " : "");
            }
            if (tier[i].fastest > tier[i].lane)
                return err_set(e, "%s: a %s needs %llu Gbps ports, %s runs %llu Gbps%s; use a "
                                  "profile with faster ports or slower links, or "
                                  "fabric.allow_oversize: true to run it anyway", tier[i].key,
                               tier[i].tier, (unsigned long long)(tier[i].fastest / 1000000000),
                               tier[i].profile, (unsigned long long)(tier[i].lane / 1000000000),
                               bo);
        }
    }
    /* links slower than their ports' lanes run, said (not refused): a 400G
     * NIC on an 800G port, or a set uplink_speed below the lanes */
    size_t pn = 0;
    char s1[32], s2[32];
    r->port_notes[0] = '\0';
    uint64_t down_lane = sc->fabric.leaf_down_bps ? sc->fabric.leaf_down_bps
                                                  : sc->fabric.leaf_port_bps;
    uint64_t up_lane = sc->fabric.leaf_up_bps ? sc->fabric.leaf_up_bps : sc->fabric.leaf_port_bps;
    uint64_t slow_down = UINT64_MAX, slow_up = UINT64_MAX;
    for (uint32_t n = t->first_cleaf; n < t->n_nodes; n++) {
        const struct tnode *nd = &t->nodes[n];
        if (nd->kind != NODE_LEAF)
            continue;
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
            int host = t->nodes[t->ports[t->ports[p].peer].node].kind <= NODE_STORAGE;
            uint64_t *slow = host ? &slow_down : &slow_up;
            *slow = t->ports[p].bps < *slow ? t->ports[p].bps : *slow;
        }
    }
    /* a breakout that would fit them: 2 or 4 lanes of their speed a port */
    uint64_t fit = slow_down < down_lane && down_lane % slow_down == 0 ? down_lane / slow_down : 0;
    if ((fit == 2 || fit == 4) && sc->fabric.bo_down * fit <= 4)
        pn += (size_t)snprintf(r->port_notes, sizeof r->port_notes,
                               "host links run at %s on %s leaf ports (fabric.leaf_down_breakout: "
                               "%llu puts %llu on a port)",
                               units_fmt_rate(slow_down, s1, sizeof s1),
                               units_fmt_rate(down_lane, s2, sizeof s2),
                               (unsigned long long)(down_lane / slow_down * sc->fabric.bo_down),
                               (unsigned long long)(down_lane / slow_down));
    else if (slow_down < down_lane)
        pn += (size_t)snprintf(r->port_notes, sizeof r->port_notes,
                               "host links run at %s on %s leaf ports",
                               units_fmt_rate(slow_down, s1, sizeof s1),
                               units_fmt_rate(down_lane, s2, sizeof s2));
    if (slow_up < up_lane && pn < sizeof r->port_notes)
        snprintf(r->port_notes + pn, sizeof r->port_notes - pn,
                 "%sleaf uplinks run at %s on %s ports (fabric.uplink_speed)", pn ? "; " : "",
                 units_fmt_rate(slow_up, s1, sizeof s1), units_fmt_rate(up_lane, s2, sizeof s2));
    size_t len = 0, cap = sizeof r->warnings;
    r->warnings[0] = '\0';
    for (int i = 0; i < 3 && len < cap; i++)
        if (tier[i].need > tier[i].ports)
            len += (size_t)snprintf(r->warnings + len, cap - len, "%sa %s needs %u ports, %s has %u",
                                    len ? "; " : "", tier[i].tier, tier[i].need, tier[i].profile,
                                    tier[i].ports);
    if (len < cap && (tier[0].fastest > tier[0].lane || tier[1].fastest > tier[1].lane ||
                      tier[2].fastest > tier[2].lane))
        snprintf(r->warnings + len, cap - len,
                 "%slinks faster than the profiles' ports (leaf %llu Gbps, spine %llu Gbps)",
                 len ? "; " : "", (unsigned long long)(sc->fabric.leaf_port_bps / 1000000000),
                 (unsigned long long)(sc->fabric.spine_port_bps / 1000000000));
    return 0;
}

/* The key to blame for a bound term past the clock: the speed of the
 * resource, or for the writer NIC the rate cap that spaces its packets. */
static const char *limit_key(enum path_seg l, const struct bound_ps *b,
                             const struct scenario *sc)
{
    const struct policy_row *pr = policy_get(sc->checkpoint.policy);
    switch (l) {
    case PATH_WRITER_NIC:
        if (!b->writer_capped)
            return "cluster.nic_speed";
        if (pr->cap_key && pr->writer_cap && pr->writer_cap(sc))
            return pr->cap_key; /* the policy's own cap */
        if (pr->node_cap_key && pr->node_cap && pr->node_cap(sc))
            return pr->node_cap_key;
        if (sc->checkpoint.straggler_slowdown > 1.0)
            return "checkpoint.straggler_slowdown";
        return "cluster.d2h_rate";
    case PATH_CLEAF_UP:
    case PATH_SPINE_DOWN:
        return "fabric.uplink_speed";
    case PATH_SPINE_UP:
    case PATH_SUPER_DOWN:
        return sc->fabric.spine_uplink_bps ? "fabric.spine_uplink_speed" : "fabric.uplink_speed";
    case PATH_STORAGE_NIC:
        return "storage.nic_speed";
    default:
        return "storage.drain_rate";
    }
}

/* The run must fit the simulator clock: every bound term, and the default
 * time limit (50 x the bound + 10 ms) the packet engine stops at. */
static int clock_check(const struct bound_ps *b, enum path_seg best,
                       const struct scenario *sc, struct err *e)
{
    if (!b->ok)
        return err_set(e, "out of memory computing the bound");
    for (int l = 0; l < PATH_COUNT; l++)
        if (b->limit_ps[l] > CLOCK_LIMIT_PS)
            return err_set(e, "%s: writing the checkpoint through the %s takes at least %.4g s, "
                              "longer than the simulator clock allows (%llu s)",
                           limit_key((enum path_seg)l, b, sc),
                           path_seg_label((enum path_seg)l),
                           (double)b->limit_ps[l] / (double)PS_PER_S,
                           (unsigned long long)(CLOCK_LIMIT_PS / PS_PER_S));
    if (!sc->sim.time_limit_ps &&
        (b->best_ps > (CLOCK_LIMIT_PS - BOUND_SLACK_PS) / 50))
        return err_set(e, "sim.time_limit: the default, 50 x the bound (%.4g s, %s) + 10 ms, "
                          "is longer than the simulator clock allows (%llu s); set a time limit "
                          "or raise %s",
                       (double)b->best_ps / (double)PS_PER_S, path_seg_label(best),
                       (unsigned long long)(CLOCK_LIMIT_PS / PS_PER_S),
                       limit_key(best, b, sc));
    return 0;
}

/* Nodes on the fullest and the emptiest leaf of a side, counted on the wiring
 * (a node's NICs on one leaf count once): a topology file may load its
 * leaves unevenly whatever the shape keys say. seen: 2 x n_leaves scratch. */
static void leaf_nodes(const struct topo *t, const struct scenario *sc, int storage,
                       uint32_t *seen, uint32_t *lo, uint32_t *hi)
{
    uint32_t nodes = storage ? sc->storage.nodes : sc->cluster.nodes;
    uint32_t k = storage ? sc->storage.nics_per_node : sc->cluster.nics_per_node;
    uint32_t first = storage ? t->n_cleaves : 0, n = storage ? t->n_sleaves : t->n_cleaves;
    k = k ? k : 1;
    uint32_t *cnt = seen + t->n_leaves; /* [n_leaves] counts after the marks */
    for (uint32_t l = 0; l < t->n_leaves; l++)
        seen[l] = UINT32_MAX, cnt[l] = 0;
    for (uint32_t i = 0; i < nodes; i++)
        for (uint32_t j = 0; j < k; j++) {
            uint32_t h = storage ? t->first_storage + i * k + j : workload_nic_host(sc, i, j);
            uint32_t l = topo_leaf_index(t, t->nodes[h].leaf);
            if (seen[l] != i) /* nodes come in order: one mark a leaf */
                seen[l] = i, cnt[l]++;
        }
    *lo = UINT32_MAX, *hi = 0;
    for (uint32_t l = first; l < first + n; l++) {
        *lo = cnt[l] < *lo ? cnt[l] : *lo;
        *hi = cnt[l] > *hi ? cnt[l] : *hi;
    }
    *lo = *lo > *hi ? *hi : *lo;
    /* the keys' layout (full leaves, the remainder on the last) is one
     * figure, as for a built fabric; anything else is a range */
    uint32_t key = storage ? sc->fabric.storage_per_leaf : sc->fabric.hosts_per_leaf;
    int as_keys = *hi == key;
    for (uint32_t l = first; as_keys && l + 1 < first + n; l++)
        as_keys = cnt[l] == key;
    if (as_keys)
        *lo = *hi;
}

/* A topology file's switch buffers and storage ingest buffers against the
 * reserves and PFC headroom of the ports it wires, as the packet engine
 * sets them (mmu_setup, nic.c). scenario_validate checks a built fabric
 * from the shape keys; a file's leaves, speeds and delays are its own. */
static int wiring_check(const struct scenario *sc, const struct topo *t, struct err *e)
{
    int mask = scenario_prio_mask(sc->fabric.pfc_priorities);
    unsigned lossless = sc->fabric.pfc && mask > 0 ? (unsigned)__builtin_popcount((unsigned)mask) : 0;
    uint64_t wire = wire_frame(scenario_wire(sc)), rsv = sc->fabric.mmu_reserve;
    int split = sc->fabric.mmu_pools == POOLS_PER_CLASS && lossless;
    char name[64], b[32];
    for (uint32_t n = t->first_cleaf; n < t->n_nodes; n++) {
        const struct tnode *nd = &t->nodes[n];
        int leaf = nd->kind == NODE_LEAF;
        uint64_t buffer = leaf ? sc->fabric.leaf_buffer : sc->fabric.spine_buffer, head = 0;
        for (uint32_t q = nd->first_port; q < nd->first_port + nd->nports; q++)
            head += scenario_headroom(sc, t->ports[q].bps, topo_delay(t, &t->ports[q]));
        uint64_t ports = nd->nports, reserved = ports * NPRIO * rsv + lossless * head;
        topo_node_name(t, n, name, sizeof name);
        if (buffer < reserved + ports * 2 * wire) {
            char from[100] = "";
            if (!scenario_is_set(sc, "fabric.buffer"))
                snprintf(from, sizeof from, " (switch profile %s)",
                         leaf ? sc->fabric.leaf_switch : sc->fabric.spine_switch);
            return err_set(e, "fabric.buffer: %s%s is too small for switch \"%s\" of the "
                              "topology file with %u ports: its reserves%s take %.3g MB, at "
                              "least %.3g MB needed", units_fmt_size(buffer, b, sizeof b), from,
                           name, nd->nports, lossless ? " and PFC headroom" : "",
                           (double)reserved / 1e6, (double)(reserved + ports * 2 * wire) / 1e6);
        }
        /* per_class: equal shares, each its priorities' reserves and two MTUs a port */
        uint64_t share = split ? buffer / (lossless + 1) : 0;
        uint64_t ll = ports * (rsv + 2 * wire) + head, ly = ports * ((NPRIO - lossless) * rsv + 2 * wire);
        if (split && share < (ll > ly ? ll : ly))
            return err_set(e, "fabric.mmu.pools: per_class splits the %s buffer of switch \"%s\" "
                              "of the topology file into %u pools of %.3g MB; a %s pool's "
                              "reserves%s need %.3g MB: use shared or a larger fabric.buffer",
                           units_fmt_size(buffer, b, sizeof b), name, lossless + 1,
                           (double)share / 1e6, ll >= ly ? "lossless" : "lossy",
                           ll >= ly ? " and PFC headroom" : "", (double)(ll > ly ? ll : ly) / 1e6);
    }
    uint64_t cap = sc->storage.ingest_buffer;
    uint32_t k = sc->storage.nics_per_node > 1 ? sc->storage.nics_per_node : 1;
    if (!cap || !(sc->storage.stuck_nodes || sc->storage.drain_bps))
        return 0;
    for (uint32_t i = t->first_storage; i + k <= t->first_cleaf; i += k) {
        uint64_t h = 0; /* one buffer a node: what is on the wire of each of its NICs */
        for (uint32_t q = i; q < i + k; q++) {
            const struct tport *p = &t->ports[t->nodes[q].first_port];
            h += scenario_headroom(sc, p->bps, topo_delay(t, p));
        }
        if (cap < h + 2 * wire)
            return err_set(e, "storage.ingest_buffer: must hold the PFC headroom of its links "
                              "plus two MTUs, at least %" PRIu64 " B for storage node \"%s\" "
                              "of the topology file", h + 2 * wire,
                           topo_node_name(t, i, name, sizeof name));
    }
    return 0;
}

/* What the results say of the fabric built (save and restore alike). */
static void fabric_facts(struct results *r, const struct topo *t, const struct scenario *eff,
                         struct arena *a)
{
    r->oversub_compute = t->oversub_compute;
    r->oversub_storage = t->oversub_storage;
    r->switches = t->n_switches;
    r->fabric_tiers = t->tiers;
    r->pods = t->n_pods;
    r->spines_per_pod = t->spines_per_pod;
    r->superspines = t->n_supers;
    r->oversub_spine = t->oversub_spine;
    r->fabric_auto = eff->fabric.tiers_auto;
    r->fabric_imported = strcmp(eff->fabric.topology_file, "none") != 0;
    r->auto_oversub = eff->fabric.oversubscription;
    uint32_t *seen = arena_alloc(a, 2 * (size_t)t->n_leaves * sizeof *seen);
    if (seen) {
        leaf_nodes(t, eff, 0, seen, &r->hosts_per_leaf_min, &r->hosts_per_leaf);
        leaf_nodes(t, eff, 1, seen, &r->storage_per_leaf_min, &r->storage_per_leaf);
    } else { /* the keys, as built */
        r->hosts_per_leaf = r->hosts_per_leaf_min = eff->fabric.hosts_per_leaf;
        r->storage_per_leaf = r->storage_per_leaf_min = eff->fabric.storage_per_leaf;
    }
    r->spines = t->n_spines;
    r->links_per_spine = t->links_per_spine;
    r->links_per_super = t->links_per_super;
    r->leaves_per_pod = t->pod_width;
    topo_bom(t, r->bom_switches, r->bom_speed_bps, r->bom_links, &r->bom_n_speeds);
    topo_bom_classes(t, r->bom_class_n, r->bom_class_bps, r->bom_class_links);
    topo_bom_breakout(t, eff->fabric.bo_down, eff->fabric.bo_up, eff->fabric.bo_spine,
                      r->bom_bo_ports);
    r->bom_train_on = eff->training.isolation == ISO_PHYSICAL &&
                      topo_bom_compute(t, eff->fabric.bo_down, eff->fabric.bo_up,
                                       eff->fabric.bo_spine, &r->bom_train) == 0;
    /* storage nodes, not their NICs (each NIC is a host port of the fabric) */
    uint32_t snics = eff->storage.nics_per_node ? eff->storage.nics_per_node : 1;
    r->bom_storage_nodes = t->n_storage / snics;
    r->links = t->n_ports / 2;
    r->failed_links = t->n_failed;
    memcpy(r->failed_link_names, t->failed_names, sizeof r->failed_link_names);
    cost_capital(r, eff); /* the BOM at cost.prices, for describe and runs */
}

/* Route every transfer once: the bound, the engine choice and the fluid
 * engine each walk every path (about 5 walks a transfer otherwise). A
 * route keeps only its inner ports (its ends follow from the transfer's,
 * workload_path) in an up-down path's room: 4 on three tiers, 2 on two,
 * not TOPO_MAX_HOPS; a fabric whose routes are longer is cached again.
 * The bound (b, begun) and the offered load per port (fl, begun: the
 * engine choice's "can congest") take each route as it is found, not in
 * passes of their own; they are begun again when the routes are. */
static int cache_paths(struct workload *w, const struct topo *t, struct arena *a,
                       struct bound_acc *b, struct fluid_load *fl, const struct scenario *sc)
{
    uint32_t max = topo_path_links(t->tiers);
    max = max >= 2 && max < TOPO_MAX_HOPS ? max : TOPO_MAX_HOPS;
    for (;;) {
        uint32_t stride = max - 2;
        /* each transfer's hop count and kind behind the routes, a byte
         * each: in their block (mapped on huge pages), not 4 KB pages of
         * their own (at 800k transfers 400 faults) */
        size_t nkw = ((size_t)w->n + 3) / 4;
        uint32_t *path = arena_calloc(a, workload_path_words(w->n, stride), sizeof *path);
        if (!path)
            return -1;
        uint8_t *kind = (uint8_t *)(path + (size_t)w->n * stride + 1);
        uint8_t *np = kind + 4 * nkw;
        b->kind = kind;
        uint32_t i = 0, buf[2][TOPO_MAX_HOPS];
        for (; i < w->n; i++) {
            const struct transfer *x = &w->xfers[i];
            uint32_t *cur = buf[i & 1];
            np[i] = (uint8_t)topo_path(t, x->src, x->dst, x->sport, cur, max);
            if (np[i] >= 2) {
                memcpy(path + (size_t)i * stride, cur + 1, (np[i] - 2u) * sizeof *cur);
                /* the bound reads its hops' port records, the load their
                 * sums: fetched while the next transfer is routed, then added */
                for (uint32_t k = 0; k < np[i]; k++) {
                    __builtin_prefetch(&t->ports[cur[k]]);
                    if (fl->on)
                        __builtin_prefetch(&fl->mine[cur[k]], 1);
                }
            } else if (max < TOPO_MAX_HOPS &&
                       topo_path(t, x->src, x->dst, x->sport, cur, TOPO_MAX_HOPS)) {
                break; /* longer than up and down */
            }
            if (i && w->xfers[i - 1].bytes) {
                bound_add(b, i - 1, buf[(i - 1) & 1], np[i - 1]);
                fluid_load_add(fl, &w->xfers[i - 1], workload_rate(w, i - 1), buf[(i - 1) & 1],
                               np[i - 1]);
            }
        }
        if (i == w->n && i && w->xfers[i - 1].bytes) {
            bound_add(b, i - 1, buf[(i - 1) & 1], np[i - 1]);
            fluid_load_add(fl, &w->xfers[i - 1], workload_rate(w, i - 1), buf[(i - 1) & 1],
                           np[i - 1]);
        }
        if (i == w->n) {
            w->path = path;
            w->path_n = np;
            w->path_stride = stride;
            /* the fluid set-up's heads take each transfer's kind from here
             * rather than looking it up again (bound_path_find) */
            struct bound_memo *km = b->ok && b->memo ? arena_alloc(a, sizeof *km) : NULL;
            if (km) {
                *km = *b->memo;
                w->kind = kind;
                w->kind_memo = km;
                w->kind_of = w->xfers;
                w->kind_sc = sc;
                w->kind_t = t;
            }
            b->kind = NULL;
            return 0;
        }
        max = TOPO_MAX_HOPS;
        bound_end(b, NULL, NULL);
        bound_begin(b, t, w, sc);
        fluid_load_end(fl, NULL);
        fluid_load_begin(fl, sc, t);
    }
}

/* storage.protection: the bound without the protection's transfers (the
 * summary says what the protection costs). */
static int unprotected_bound(struct results *r, const struct topo *t, const struct workload *w,
                             const struct scenario *sc, struct arena *a)
{
    if (!w->protect_bytes)
        return 0;
    struct workload d;
    struct results *tmp = calloc(1, sizeof *tmp);
    if (!tmp || protect_data_only(w, &d, a) < 0) {
        free(tmp);
        return -1;
    }
    bound_compute(tmp, t, &d, sc, NULL);
    r->bound_unprotected_s = tmp->bound_s;
    free(tmp);
    return 0;
}

int ckpt_prepare(const struct scenario *user, struct scenario *eff, struct arena *a,
                 struct topo *t, struct workload *w, struct results *r, struct err *e)
{
    r->bottleneck.seg = r->bottleneck.next_seg = -1;
    /* the same checks for describe and both engines */
    if (scenario_validate(user, e) < 0)
        return -1;
    /* profiles and presets fill what the user left open (idempotent) */
    *eff = *user;
    if (scenario_resolve(eff, e) < 0)
        return -1;
    struct scenario fab; /* every NIC of a node is its own host port */
    workload_fabric(eff, &fab);
    struct training *tr = arena_calloc(a, 1, sizeof *tr);
    if (!tr)
        return err_set(e, "out of memory");
    int imported = strcmp(eff->fabric.topology_file, "none") != 0;
    if (topo_build(t, &fab, a, e) < 0 || (imported && wiring_check(eff, t, e) < 0) ||
        capture_check(eff, t, e) < 0 ||
        cost_check(eff, e) < 0 || workload_build(w, eff, t, a, e) < 0 ||
        train_build(tr, eff, t, w, a, e) < 0) {
        scenario_locate(eff, e); /* "key: ..." gets where the key was given */
        return -1;
    }
    w->train = tr->on ? tr : NULL;
    struct bound_acc acc;
    struct fluid_load fl;
    bound_begin(&acc, t, w, eff); /* out of memory: partial, clock_check says so */
    fluid_load_begin(&fl, eff, t); /* off (out of memory): the engine choice walks again */
    r->load_known = 0;
    if (cache_paths(w, t, a, &acc, &fl, eff) < 0) {
        bound_end(&acc, NULL, NULL);
        fluid_load_end(&fl, NULL);
        return err_set(e, "out of memory");
    }
    fluid_load_end(&fl, r);
    r->ckpt_bytes = w->total_bytes;
    r->plan = w->sum;
    r->writers = w->n_writers;
    fabric_facts(r, t, eff, a);
    struct bound_ps b;
    bound_end(&acc, r, &b);
    if (unprotected_bound(r, t, w, eff, a) < 0)
        return err_set(e, "out of memory");
    if (clock_check(&b, r->bound_limit, eff, e) < 0)
        return -1;
    if (fabric_radix(r, t, eff, e) < 0) {
        scenario_locate(eff, e);
        return -1;
    }
    transport_reach(r, t, w, eff);
    scenario_protocol_kept(eff, r->protocol_kept, sizeof r->protocol_kept);
    return 0;
}

/* The restore's scenario: the same fabric and transport; nothing of the
 * write side (back-end ingest, stuck nodes, client window, fsync, creates)
 * applies to a read. */
static void restore_scenario(const struct scenario *sc, struct scenario *rs)
{
    *rs = *sc;
    rs->storage.drain_bps = 0;
    rs->storage.cache_bytes = 0;
    rs->storage.media_bps = 0;
    rs->storage.stuck_nodes = 0;
    rs->storage.ingest_buffer = 0;
    rs->storage.max_outstanding = 0;
    rs->storage.fsync_ps = 0;
    rs->storage.metadata_ops = 0;
}

int ckpt_restore_prepare(const struct scenario *sc, const struct topo *t,
                         const struct workload *s, int mode, struct scenario *rs,
                         struct topo *v, struct workload *w, struct arena *a,
                         struct results *rr, struct err *e)
{
    restore_scenario(sc, rs);
    rs->restore.mode = mode;
    memset(rr, 0, sizeof *rr);
    rr->bottleneck.seg = rr->bottleneck.next_seg = -1;
    rr->phase = PHASE_RESTORE;
    if (workload_restore_topo(t, v, a, e) < 0 || workload_build_restore(w, s, rs, v, a, e) < 0)
        return -1;
    rr->ckpt_bytes = w->total_bytes;
    rr->plan = w->sum;
    rr->writers = w->n_writers;
    fabric_facts(rr, t, rs, a);
    struct bound_ps b;
    bound_compute(rr, v, w, rs, &b);
    if (clock_check(&b, rr->bound_limit, rs, e) < 0)
        return -1;
    struct restore_figures *f = &rr->restore;
    f->mode = names_of(&names_restore_mode, mode);
    f->bytes_read = w->total_bytes;
    /* against the checkpoint's own bytes (protection is not read) */
    uint64_t own = s->total_bytes - s->protect_bytes;
    f->amplification = own ? (double)w->total_bytes / (double)own : 0;
    f->readers = w->readers;
    f->transfers = w->n;
    f->bound_s = rr->bound_s;
    f->bound_limit = rr->bound_limit;
    transport_reach(rr, v, w, rs);
    return 0;
}

/* Samples cut short by an allocation that failed: out of memory (exit 2),
 * as any other, never a silent truncation nor a violated invariant (the
 * simulation itself was right): where they stop and how to take fewer. */
static int telemetry_cut(const struct scenario *sc, struct results *r, struct err *e)
{
    const struct series *s = &r->series;
    if (!s->full)
        return 0;
    double iv = (double)sc->telemetry.interval_ps / (double)PS_PER_S;
    uint32_t k = s->n < r->n_samples ? s->n : r->n_samples; /* the first incomplete one */
    double at = k < r->n_samples ? r->sample_t[k]
                : r->n_samples   ? r->sample_t[r->n_samples - 1] + iv
                                 : 0;
    return err_set(e, "out of memory for telemetry: the %s stop at %.6g s, sample %u "
                      "(a longer telemetry.interval%s takes less)",
                   s->n < r->n_samples ? "queue and pause series" : "time series", at, k,
                   sc->telemetry.flows ? " or telemetry.flows: false" : "");
}

unsigned ckpt_threads_cap(const struct scenario *sc, const struct topo *t)
{
    /* a rank's request slots are shared by its transfers: one thread */
    if (sc->storage.protocol != SPROTO_NONE)
        return 1;
    return t->level[0].n < 8 ? t->level[0].n : 8;
}

/* sim.threads auto (docs/scenario.md): one thread for a run estimated
 * under a second (a meeting per window costs more than a second core
 * saves there), else the idle cores this process may use, at most
 * ckpt_threads_cap. */
static void resolve_threads(struct scenario *sc, const struct topo *t,
                            const struct ckpt_estimate *est, struct results *r)
{
    if (sc->sim.threads)
        return;
    r->threads_auto = 1;
    sc->sim.threads = est->wall_s < 1.0
                          ? 1
                          : machine_auto_threads(machine_idle_cores(), machine_usable_cores(),
                                                 ckpt_threads_cap(sc, t));
}

/* The restore of the checkpoint the save workload s placed, in restore.mode
 * `mode`, into rr (zeroed here; the caller releases it): simulated, or with
 * simulate 0 its bound only (rr->restore.estimated). engine: the save's
 * engine, or ENGINE_AUTO to choose for the read. */
static int restore_run(const struct scenario *sc, const struct topo *t, const struct workload *s,
                       int engine, int mode, int simulate, struct arena *a, struct results *rr,
                       const struct ckpt_progress *progress, struct err *e)
{
    struct scenario rs;
    struct topo v;
    struct workload w;
    if (ckpt_restore_prepare(sc, t, s, mode, &rs, &v, &w, a, rr, e) < 0)
        return -1;
    rr->progress = progress;
    struct restore_figures *f = &rr->restore;
    rr->transfers = w.n;
    if (!simulate) {
        /* phase save: what the read takes at least, without running it */
        rr->ok = rr->finished = 1;
        rr->completion_s = rr->bound_s;
        rr->bottleneck.seg = (int)rr->bound_limit;
        rr->bottleneck.util = 1;
        f->engine = "none (bound)";
        f->estimated = 1;
    } else {
        if (engine == ENGINE_AUTO || rs.engine == ENGINE_AUTO) {
            rs.engine = ENGINE_AUTO;
            engine = ckpt_choose_engine(&rs, &v, &w, rr);
            rs.engine = engine; /* the packet engine runs hybrid by it */
        } else
            snprintf(rr->engine_reason, sizeof rr->engine_reason, "as the save (engine: %s)",
                     names_of(&names_engine, engine));
        int rc = 0;
        if (engine == ENGINE_PACKET || engine == ENGINE_HYBRID) {
            struct ckpt_estimate est;
            ckpt_estimate(&rs, &v, &w, a, engine, rr->bound_s, &est);
            struct ckpt_mem_limit lim;
            ckpt_mem_limit_of(&lim, NULL, (double)a->total);
            rc = ckpt_packet_limits_mem(&rs, &est, &lim, e);
            resolve_threads(&rs, &v, &est, rr);
            if (rc == 0)
                rc = pkt_run(&rs, &v, &w, rr, e);
        } else {
            rc = fluid_run(&rs, &v, &w, rr, e);
        }
        if (rc < 0 || telemetry_cut(&rs, rr, e) < 0)
            return -1;
        rr->finished = rr->flows_done == w.n;
        /* every read starts at the restore's trigger (time 0): its
         * completion counts from there, not from the first byte a back
         * end had read */
        if (rr->completion_s > 0)
            rr->completion_s += rr->first_byte_s;
        invariants_bound(rr, "the restore's");
        segments_compute(rr, &v, &w, &rs);
    }
    f->ran = 1;
    f->ok = rr->ok;
    f->finished = rr->finished;
    if (simulate)
        f->engine = names_of(&names_engine, rr->engine);
    if (simulate && rr->hybrid.on) {
        f->hybrid_on = 1;
        f->hybrid_jumps = rr->hybrid.jumps;
        f->hybrid_fraction = rr->hybrid.fraction;
        f->hybrid_skipped_s = rr->hybrid.skipped_s;
        f->hybrid_error_s = rr->hybrid.error_s;
    }
    f->completion_s = rr->completion_s;
    f->bottleneck = rr->bottleneck.seg;
    f->bottleneck_util = rr->bottleneck.util;
    f->broadcast_s = (double)w.bcast_max_ps / (double)PS_PER_S;
    f->restart_s = (double)sc->restore.restart_ps / (double)PS_PER_S;
    f->recovery_s = f->restart_s + f->completion_s;
    snprintf(f->violation, sizeof f->violation, "%.*s", (int)sizeof f->violation - 1,
             rr->violation);
    return 0;
}

/* phase save, failures.recovery_time auto: the read's lower bound in
 * closed form for both modes (work.h: cheap at any size), not simulated. */
static int restore_estimate(const struct scenario *sc, const struct topo *t,
                            const struct workload *w, struct results *r, struct err *e)
{
    struct restore_figures *f = &r->restore;
    struct restore_estimate est[2];
    if (!w->model_form) { /* no replicas: both modes read the same */
        if (workload_restore_estimate(w, sc, t, sc->restore.mode, &est[0], e) < 0)
            return -1;
        est[1] = est[0];
    } else if (workload_restore_estimate_both(w, sc, t, sc->restore.mode,
                                              restore_other_mode(sc->restore.mode), est, e) < 0) {
        return -1;
    }
    double ps = (double)PS_PER_S;
    memset(f, 0, sizeof *f);
    f->ran = f->ok = f->finished = f->estimated = 1;
    f->mode = names_of(&names_restore_mode, sc->restore.mode);
    f->engine = "none (bound)";
    f->completion_s = f->bound_s = (double)est[0].ps / ps;
    f->bound_limit = f->bottleneck = est[0].limit;
    f->bottleneck_util = 1;
    f->bytes_read = est[0].bytes_read;
    uint64_t own = w->total_bytes - w->protect_bytes;
    f->amplification = own ? (double)est[0].bytes_read / (double)own : 0;
    f->readers = est[0].readers;
    f->broadcast_s = (double)est[0].bcast_ps / ps;
    f->restart_s = (double)sc->restore.restart_ps / ps;
    f->recovery_s = f->restart_s + f->completion_s;
    f->other_recovery_s = f->restart_s + (double)est[1].ps / ps;
    f->other_finished = 1;
    return 0;
}

/* The restore beside a run: simulated (phase both) or its bound (phase
 * save), in restore.mode into r->restore, and in the other mode for what
 * the broadcast saves (r->restore.other_recovery_s). A simulated read's
 * violations join the run's ("restore: "). */
static int restore_beside(const struct scenario *sc, const struct topo *t,
                          const struct workload *w, int engine, int simulate, struct arena *a,
                          struct results *r, struct err *e)
{
    if (!simulate)
        return restore_estimate(sc, t, w, r, e);
    struct results *rr = malloc(sizeof *rr);
    if (!rr)
        return err_set(e, "out of memory");
    int rc = 0;
    for (int k = 0; rc == 0 && k < 2; k++) {
        int mode = k == 0 ? sc->restore.mode : restore_other_mode(sc->restore.mode);
        if (k == 1 && !w->model_form) {
            /* no replicas: both modes read the same */
            r->restore.other_recovery_s = r->restore.recovery_s;
            r->restore.other_finished = r->restore.finished && r->restore.ok;
            break;
        }
        /* engine auto (ENGINE_AUTO here) chooses again for the read (its
         * size differs) */
        rc = restore_run(sc, t, w, engine, mode, simulate, a, rr, r->progress, e);
        if (rc < 0) {
            scenario_locate(sc, e);
        } else if (k == 0) {
            r->restore = rr->restore;
            if (!rr->ok)
                results_violate(r, "restore: %s", rr->violation);
        } else {
            r->restore.other_recovery_s = rr->restore.recovery_s;
            r->restore.other_finished = rr->restore.finished && rr->ok;
        }
        results_release(rr);
    }
    free(rr);
    return rc;
}

/* cost.compare_policies: the run's scenario once per policy (sync, async,
 * hierarchical), each an ordinary run, so every row is what `run --set
 * checkpoint.policy=X` gives; the run's own policy is r itself, and another
 * (jitter, stagger, rate_limit) comes last. */
static const int compared[] = {POLICY_SYNC, POLICY_ASYNC, POLICY_HIERARCHICAL};

/* One policy's run on a copy of user; a refusal or failure is the row's why. */
static void run_policy(const struct scenario *user, int policy, struct policy_cost *row)
{
    struct scenario *s = malloc(sizeof *s);
    struct results *r = malloc(sizeof *r);
    struct err e;
    char set[64];
    row->policy = policy;
    row->ok = 0;
    row->storage = -1;
    if (!s || !r) {
        snprintf(row->why, sizeof row->why, "out of memory");
        free(s);
        free(r);
        return;
    }
    memset(r, 0, sizeof *r);
    *s = *user;
    snprintf(set, sizeof set, "checkpoint.policy=%s", names_of(&names_policy, policy));
    int rc = scenario_set(s, set, &e);
    if (rc == 0)
        rc = scenario_set(s, "cost.compare_policies=false", &e);
    if (rc == 0)
        rc = ckpt_run(s, r, &e);
    if (rc == 0)
        cost_policy_row(row, policy, r);
    else
        snprintf(row->why, sizeof row->why, "%.*s", (int)sizeof row->why - 1, e.msg);
    results_release(r);
    free(r);
    free(s);
}

static void policy_costs(const struct scenario *user, int own, struct results *r)
{
    struct cost_figures *c = &r->cost;
    c->n_policies = 0;
    int seen = 0;
    for (size_t i = 0; i < sizeof compared / sizeof compared[0]; i++) {
        struct policy_cost *row = &c->policies[c->n_policies++];
        if (compared[i] == own) {
            cost_policy_row(row, own, r);
            row->chosen = seen = 1;
        } else {
            run_policy(user, compared[i], row);
        }
    }
    if (!seen) { /* jitter, stagger, rate_limit: its own row last */
        struct policy_cost *row = &c->policies[c->n_policies++];
        cost_policy_row(row, own, r);
        row->chosen = 1;
    }
}

int ckpt_run(const struct scenario *user, struct results *r, struct err *e)
{
    return ckpt_run_progress(user, r, NULL, e);
}

int ckpt_run_progress(const struct scenario *user, struct results *r,
                      const struct ckpt_progress *progress, struct err *e)
{
    return ckpt_run_capture(user, r, progress, NULL, e);
}

/* The run's route cache, once the fluid engine holds its own paths: its
 * pages returned before the loop's peak (nothing after reads it). */
struct paths_of {
    struct workload *w;
    struct arena *a;
};

static void drop_paths(void *ctx)
{
    struct paths_of *p = ctx;
    workload_drop_paths(p->w, p->a);
}

/* Everything after ckpt_prepare: the engine, the restore, the costs, on
 * the prepared eff, t and w in a (ckpt_run and ckpt_prepared_run alike). */
static int run_after_prepare(const struct scenario *user, struct scenario *eff, struct arena *a,
                             struct topo *t, struct workload *w, struct results *r,
                             struct ckpt_capture *cap, struct err *e)
{
    const struct scenario *sc = eff;
    int rc = 0;
    if (sc->checkpoint.phase == PHASE_RESTORE) {
        /* the read only: the results are the restore run's */
        if (cap)
            rc = err_set(e, "--pcap: checkpoint.phase restore captures nothing; use save");
        struct results *rr = rc == 0 ? malloc(sizeof *rr) : NULL;
        if (rc == 0 && !rr)
            rc = err_set(e, "out of memory");
        if (rc == 0) {
            rc = restore_run(sc, t, w, sc->engine, sc->restore.mode, 1, a, rr, r->progress, e);
            *r = *rr;
            r->phase = PHASE_RESTORE;
            mlperf_compute(r, sc);
            r->mem_bytes += a->total;
            if (rc < 0)
                scenario_locate(sc, e);
        }
        free(rr);
        return rc;
    }
    int was_auto = sc->engine == ENGINE_AUTO;
    int engine = ckpt_choose_engine(sc, t, w, r);
    if (engine == ENGINE_HYBRID) /* auto's pick: the packet engine runs hybrid by it */
        eff->engine = ENGINE_HYBRID;
    struct ckpt_estimate est;
    struct paths_of dp = {w, a};
    if (engine == ENGINE_PACKET || engine == ENGINE_HYBRID) { /* refused up front when too large */
        ckpt_estimate(sc, t, w, a, engine, r->bound_s, &est);
        struct ckpt_mem_limit lim;
        ckpt_mem_limit_of(&lim, NULL, (double)a->total);
        rc = ckpt_packet_limits_mem(sc, &est, &lim, e);
        resolve_threads(eff, t, &est, r);
    }
    if (rc == 0 && cap && sc->transport.dcqcn.cnp_path == CNP_DIRECT && scenario_cnp_direct(sc))
        rc = err_set(e, "--pcap: transport.dcqcn.cnp_path direct sends CNPs past the "
                        "ports, the captures would lack them; use fabric");
    else if (rc == 0 && cap && sc->transport.ack_path == ACK_DIRECT)
        rc = err_set(e, "--pcap: transport.ack_path direct sends ACKs and NACKs past the "
                        "ports, the captures would lack them; use fabric");
    else if (rc == 0 && engine == ENGINE_FLUID)
        rc = cap ? err_set(e, "--pcap: the fluid engine moves no packets to capture "
                              "(%s); use engine: packet", r->engine_reason)
                 : fluid_run_routes_done(sc, t, w, drop_paths, &dp, r, e);
    else if (rc == 0)
        rc = pkt_run_capture(sc, t, w, r, cap, e);
    if (rc == 0)
        rc = telemetry_cut(sc, r, e);
    if (rc == 0) {
        r->transfers = w->n;
        r->finished = r->flows_done == w->n;
        invariants_bound(r, "the checkpoint's");
        if (w->train && !r->training.on) /* physical: not on this fabric */
            train_results(r, w->train, NULL,
                          r->plan.first_start_ps +
                              (uint64_t)(r->completion_s * (double)PS_PER_S));
        segments_compute(r, t, w, sc);
        r->phase = sc->checkpoint.phase;
        /* phase save needs the read's bound only for recovery_time auto */
        if (sc->checkpoint.phase == PHASE_BOTH || sc->failures.recovery_ps == SCENARIO_AUTO_TIME)
            rc = restore_beside(sc, t, w, was_auto ? ENGINE_AUTO : engine,
                                sc->checkpoint.phase == PHASE_BOTH, a, r, e);
        if (rc == 0) {
            cost_compute(r, sc);
            endurance_compute(r, sc);
            mlperf_compute(r, sc);
            if (sc->cost.compare_policies && r->finished)
                policy_costs(user, sc->checkpoint.policy, r);
        }
    }
    r->mem_bytes += a->total;
    return rc;
}

static double since_s(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) * 1e-9;
}

int ckpt_run_capture(const struct scenario *user, struct results *r,
                     const struct ckpt_progress *progress, struct ckpt_capture *cap,
                     struct err *e)
{
    struct arena a;
    struct topo t;
    struct workload w;
    struct scenario eff;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(r, 0, sizeof *r);
    r->progress = progress && progress->fn ? progress : NULL;
    arena_init(&a);
    int rc = ckpt_prepare(user, &eff, &a, &t, &w, r, e);
    if (rc == 0)
        rc = run_after_prepare(user, &eff, &a, &t, &w, r, cap, e);
    arena_release(&a);
    r->progress = NULL;
    r->total_s = since_s(&t0);
    return rc;
}

/* ---- a scenario prepared once, run later (ckpt.h) ------------------------------- */

struct ckpt_prepared {
    struct arena a;
    struct topo t;
    struct workload w;
    struct scenario user, eff;
    struct results r;  /* what ckpt_prepare filled */
    double prep_s;
    int ready;         /* prepared and not yet run */
};

struct ckpt_prepared *ckpt_prepared_new(void)
{
    struct ckpt_prepared *p = malloc(sizeof *p);
    if (p) {
        arena_init(&p->a);
        p->ready = 0;
    }
    return p;
}

void ckpt_prepared_free(struct ckpt_prepared *p)
{
    if (!p)
        return;
    arena_release(&p->a);
    free(p);
}

int ckpt_prepared_set(struct ckpt_prepared *p, const struct scenario *user, struct results *r,
                      struct err *e)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    p->ready = 0;
    arena_reset(&p->a); /* the last scenario's memory, mapped and faulted in already */
    p->user = *user;
    memset(&p->r, 0, sizeof p->r);
    int rc = ckpt_prepare(&p->user, &p->eff, &p->a, &p->t, &p->w, &p->r, e);
    p->prep_s = since_s(&t0);
    p->ready = rc == 0;
    if (r)
        *r = p->r;
    return rc;
}

int ckpt_prepared_run(struct ckpt_prepared *p, struct results *r, struct err *e)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(r, 0, sizeof *r);
    if (!p->ready)
        return err_set(e, "ckpt_prepared_run: nothing prepared (ckpt_prepared_set first, "
                          "once a run)");
    p->ready = 0; /* the run may change eff (threads): once a preparation */
    *r = p->r;
    r->progress = NULL;
    int rc = run_after_prepare(&p->user, &p->eff, &p->a, &p->t, &p->w, r, NULL, e);
    r->total_s = p->prep_s + since_s(&t0);
    return rc;
}
