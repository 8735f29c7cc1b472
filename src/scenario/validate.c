/* Scenario validation: the checks of one key against another and of the
 * fabric the keys describe, with messages that name the key and where the
 * user gave it. */
#include "internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "lbscheme.h"
#include "../core/wire.h" /* NPRIO, ROCE_OVERHEAD, headroom: what the engine reserves */

/* sim.hybrid.period's floor when set: a 400G link's 4 KB packet takes 82 ns */
#define HYBRID_PERIOD_MIN_PS UINT64_C(100000)

/* "WHERE: " for key k: its file:line:col or "--set" when the user gave it,
 * else the file the scenario came from, else nothing. */
static void where_of(const struct scenario *sc, const struct key *k, char *buf, size_t len)
{
    size_t i = (size_t)(k - scn_keys);
    int from_file = strcmp(sc->source, "default") != 0;
    if (!scn_bit(sc->set_mask, i))
        snprintf(buf, len, "%s%s", from_file ? sc->source : "", from_file ? ": " : "");
    else if (sc->pos[i].line == 0)
        snprintf(buf, len, "--set: ");
    else if (sc->pos[i].line == SCENARIO_EARLIER_FILE)
        snprintf(buf, len, "an earlier file: ");
    else
        snprintf(buf, len, "%s:%" PRIu32 ":%" PRIu32 ": ", sc->source, sc->pos[i].line,
                 sc->pos[i].col);
}

const char *scenario_hybrid_blocked(const struct scenario *sc)
{
    /* what a jump cannot carry: credits, per-packet side state (the other
     * ccs), request windows, a second workload's timing,
     * a filling cache, pause timers, PSN rings */
    if (sc->transport.uec.rccc)
        return "transport.uec.rccc: hybrid does not carry receiver credits";
    if (cc_scheme(sc->transport.cc)->no_hybrid)
        return cc_scheme(sc->transport.cc)->no_hybrid;
    if (sc->storage.max_outstanding)
        return "storage.max_outstanding sets a request window";
    if (sc->training.traffic != TRAFFIC_NONE && sc->training.isolation != ISO_PHYSICAL)
        return "training traffic shares the fabric";
    if (sc->storage.cache_bytes && sc->storage.media_bps)
        return "a storage write cache fills over the run";
    if (sc->fabric.pfc_watchdog)
        return "the PFC watchdog times pauses";
    /* a path that moves under a transfer (flowlets, per-packet choices)
     * reorders its packets, and go-back-N discards past the gap and
     * resends: four writers over flowlets resent 1.6 GB of 256 MB, and a
     * jump, which credits no resends, lost count of bytes */
    if (lb_grain(sc) != LB_PER_FLOW && !rx_scheme(sc->transport.receiver)->keeps_out_of_order)
        return "fabric.load_balancing reorders packets and go-back-N resends past a gap";
    /* lossless, none and dcqcn (no ACKs) keep out-of-order packets only
     * under REPS, whose echoes carry the cumulative PSN */
    if (sc->transport.uec.lb == UEC_LB_REPS && sc->transport.uec.entropies &&
        rx_scheme(sc->transport.receiver)->keeps_out_of_order)
        return "out-of-order receivers hold PSN rings";

    return NULL;
}

int scenario_fail(const struct scenario *sc, struct err *e, const char *key,
                  const char *fmt, ...)
{
    char msg[400], where[300] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const struct key *k = scn_key_find(key, strlen(key));
    if (k && scn_by_option(sc, k)) /* "--engine: ..." */
        return err_set(e, "%s: %s", scn_option_of(key), msg);
    if (k)
        where_of(sc, k, where, sizeof where);
    return err_set(e, "%s%s: %s", where, key, msg);
}

void scenario_locate(const struct scenario *sc, struct err *e)
{
    const char *colon = strstr(e->msg, ": ");
    const struct key *k = colon ? scn_key_find(e->msg, (size_t)(colon - e->msg)) : NULL;
    if (!k)
        return;
    char where[300], msg[sizeof e->msg];
    if (scn_by_option(sc, k)) { /* "--engine: ..." for "engine: ..." */
        snprintf(msg, sizeof msg, "%s", colon + 2);
        err_set(e, "%s: %s", scn_option_of(k->name), msg);
        return;
    }
    where_of(sc, k, where, sizeof where);
    snprintf(msg, sizeof msg, "%s", e->msg);
    err_set(e, "%s%s", where, msg);
}

/* The first of keys a, b the user set, else a: the key a cross-field
 * message should name. */
static const char *blame(const struct scenario *sc, const char *a, const char *b)
{
    return !scenario_is_set(sc, a) && scenario_is_set(sc, b) ? b : a;
}

/* "key: must differ from other (v)" for two keys of equal value v, naming
 * the one the user set. */
static int must_differ(const struct scenario *sc, struct err *e, const char *a, const char *b,
                       uint32_t v)
{
    const char *k = blame(sc, a, b);
    return scenario_fail(sc, e, k, "must differ from %s (%" PRIu32 ")", k == a ? b : a, v);
}

uint64_t scenario_headroom(const struct scenario *sc, uint64_t bps, uint64_t delay_ps)
{
    return wire_headroom(bps, delay_ps, sc->fabric.cable_length_m, wire_frame(scenario_wire(sc)));
}

int scenario_prio_mask(const char *s)
{
    int mask = 0;
    for (;;) {
        if (*s < '0' || *s > '7')
            return -1;
        mask |= 1 << (*s++ - '0');
        if (!*s)
            return mask;
        if (*s++ != ',')
            return -1;
    }
}

/* Eight weights 1-1000 separated by commas, as the engine reads them
 * (strtol: blanks before a number allowed). */
static int weights_ok(const char *s)
{
    for (int i = 0; i < 8; i++) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1000 || (i < 7 ? *end != ',' : *end != '\0'))
            return 0;
        s = end + 1;
    }
    return 1;
}

/* The shared buffer a switch with n_host ports at host_bps and n_up ports
 * at up_bps needs (as the packet engine's MMU reserves it, src/pkt/mmu.c):
 * per port, a reserve per priority, PFC headroom per lossless priority and
 * two MTUs. Also sets *reserved (without the two MTUs). */
static uint64_t switch_need(const struct scenario *sc, unsigned lossless, uint64_t n_host,
                            uint64_t host_bps, uint64_t n_up, uint64_t up_bps,
                            uint64_t *reserved)
{
    uint64_t d = sc->fabric.link_delay_ps, wire = wire_frame(scenario_wire(sc));
    uint64_t r = (n_host + n_up) * NPRIO * sc->fabric.mmu_reserve +
                 lossless * (n_host * scenario_headroom(sc, host_bps, d) +
                             n_up * scenario_headroom(sc, up_bps, d));
    *reserved = r;
    return r + (n_host + n_up) * 2 * wire;
}

/* The checks the packet engine's fabric model needs (on a resolved sc). */
static int validate_fabric(const struct scenario *sc, struct err *e)
{
    int mask = scenario_prio_mask(sc->fabric.pfc_priorities);
    uint32_t dp = sc->transport.data_priority, cp = sc->transport.cnp_priority;
    if (mask < 0)
        return scenario_fail(sc, e, "fabric.pfc.priorities",
                             "expected priorities 0-7 separated by commas, got \"%s\"",
                             sc->fabric.pfc_priorities);
    if (!weights_ok(sc->fabric.dwrr_weights))
        return scenario_fail(sc, e, "fabric.dwrr_weights",
                             "expected 8 weights 1-1000 separated by commas, got \"%s\"",
                             sc->fabric.dwrr_weights);
    if (cp == dp)
        return must_differ(sc, e, "transport.cnp_priority", "transport.data_priority", cp);
    if ((mask >> cp) & 1)
        return scenario_fail(sc, e, blame(sc, "fabric.pfc.priorities", "transport.cnp_priority"),
                             "the CNP priority %" PRIu32 " must not be lossless "
                             "(fabric.pfc.priorities \"%s\")", cp, sc->fabric.pfc_priorities);
    if (sc->transport.cnp_dscp == sc->transport.data_dscp)
        return must_differ(sc, e, "transport.cnp_dscp", "transport.data_dscp",
                           sc->transport.cnp_dscp);
    /* a RoCE receiver would take a trimmed packet for data it never got */
    if (sc->fabric.trim && sc->transport.receiver != RX_UEC)
        return scenario_fail(sc, e, blame(sc, "fabric.trim.enabled", "transport.receiver"),
                             "packet trimming needs a receiver that NACKs trimmed packets: "
                             "transport.receiver: uec (got %s)",
                             rx_scheme(sc->transport.receiver)->name);
    /* REPS: the entropy rides in 8 bits of the packet, the uec receiver's
     * ACKs echo it, and only entropy spraying reads it */
    if (sc->transport.uec.lb == UEC_LB_REPS) {
        if (sc->transport.receiver != RX_UEC)
            return scenario_fail(sc, e, blame(sc, "transport.uec.lb", "transport.receiver"),
                                 "reps needs transport.receiver: uec, whose "
                                 "ACKs echo each packet's entropy (got %s)",
                                 rx_scheme(sc->transport.receiver)->name);
        if (sc->transport.uec.entropies < 1 || sc->transport.uec.entropies > 256)
            return scenario_fail(sc, e, blame(sc, "transport.uec.lb", "transport.uec.entropies"),
                                 "reps recycles 1 to 256 entropy values "
                                 "(transport.uec.entropies, got %u)",
                                 sc->transport.uec.entropies);
        if (sc->fabric.load_balancing != LB_SPRAY)
            return scenario_fail(sc, e, blame(sc, "transport.uec.lb", "fabric.load_balancing"),
                                 "reps steers sprayed packets: "
                                 "fabric.load_balancing: spray (got %s)",
                                 lb_scheme(sc->fabric.load_balancing)->name);
    }
    /* RCCC: the uec receiver grants credit and counts its NACKs against it */
    if (sc->transport.uec.rccc && sc->transport.protocol != PROTO_UEC)
        return scenario_fail(sc, e, blame(sc, "transport.uec.rccc", "transport.protocol"),
                             "receiver credits (RCCC) are Ultra Ethernet's: "
                             "transport.protocol: uec (got %s)",
                             proto_scheme(sc->transport.protocol)->name);
    if (sc->transport.uec.rccc && sc->transport.receiver != RX_UEC)
        return scenario_fail(sc, e, blame(sc, "transport.uec.rccc", "transport.receiver"),
                             "receiver credits (RCCC) need transport.receiver: uec, "
                             "which grants them (got %s)",
                             rx_scheme(sc->transport.receiver)->name);
    /* hybrid's jumps move every sender by its share of its receiver's
     * bytes, which is not what the receiver's credits granted */
    if (sc->transport.uec.rccc && sc->engine == ENGINE_HYBRID)
        return scenario_fail(sc, e, blame(sc, "engine", "transport.uec.rccc"),
                             "hybrid does not carry receiver credits "
                             "(transport.uec.rccc) over a fast-forward: run them under "
                             "engine: packet");
    if ((sc->transport.protocol == PROTO_TCP) != (cc_scheme(sc->transport.cc)->tcp != 0))
        return scenario_fail(sc, e, blame(sc, "transport.protocol", "transport.cc"),
                             "transport.protocol tcp runs a TCP congestion control "
                             "(transport.cc dctcp or cubic) and they run over it; got protocol "
                             "%s, cc %s", proto_scheme(sc->transport.protocol)->name,
                             cc_scheme(sc->transport.cc)->name);
    if ((sc->transport.receiver == RX_TCP) != (cc_scheme(sc->transport.cc)->tcp != 0))
        return scenario_fail(sc, e, blame(sc, "transport.receiver", "transport.cc"),
                             "transport.receiver tcp goes with a TCP congestion control "
                             "(transport.cc dctcp or cubic) and they with it; got receiver %s, "
                             "cc %s", rx_scheme(sc->transport.receiver)->name,
                             cc_scheme(sc->transport.cc)->name);
    if (sc->fabric.ecn && sc->fabric.ecn_kmin && sc->fabric.ecn_kmax &&
        sc->fabric.ecn_kmax <= sc->fabric.ecn_kmin)
    {
        const char *k = blame(sc, "fabric.ecn.kmax", "fabric.ecn.kmin");
        char a[32], b[32];
        units_fmt_size(sc->fabric.ecn_kmin, a, sizeof a);
        units_fmt_size(sc->fabric.ecn_kmax, b, sizeof b);
        return scenario_fail(sc, e, k, "fabric.ecn.kmax (%s) must be larger than "
                             "fabric.ecn.kmin (%s)", b, a);
    }

    /* Switch buffers against their reserves and headroom; the largest leaf
     * of each side and the spine (topo_build's layout, workload_fabric's
     * one host port per NIC). Limits keep these within uint64. */
    unsigned lossless = sc->fabric.pfc ? (unsigned)__builtin_popcount((unsigned)mask) : 0;
    uint64_t nics = sc->cluster.nics_per_node, k = sc->fabric.links_per_spine;
    uint64_t hosts = sc->cluster.nodes * nics;
    uint64_t hpl = sc->fabric.hosts_per_leaf * nics / sc->fabric.rails; /* workload_fabric */
    uint64_t snics = sc->storage.nics_per_node;
    uint64_t st = sc->storage.nodes * snics, spl = sc->fabric.storage_per_leaf * snics;
    uint64_t up = sc->fabric.spines * k;
    uint64_t leaves = (hosts + hpl - 1) / hpl + (st + spl - 1) / spl;
    /* three tiers (topo/clos.c's layout): a spine has its pod's leaves
     * below and its plane's super-spines above; a super-spine every pod */
    uint64_t sdown = leaves * k, sup = 0, sup_pods = 0, k2 = sc->fabric.links_per_super;
    uint64_t up2_bps = sc->fabric.spine_uplink_bps ? sc->fabric.spine_uplink_bps
                                                   : sc->fabric.uplink_bps;
    if (scenario_levels(sc) > 2) { /* super-spines */
        uint64_t lc = (hosts + hpl - 1) / hpl, ls = (st + spl - 1) / spl;
        uint64_t lpp = sc->fabric.leaves_per_pod;
        if (!lpp && sc->fabric.pods)
            lpp = (lc + sc->fabric.pods - 1) / sc->fabric.pods;
        lpp = lpp ? lpp : 1;
        uint64_t cpods = (lc + lpp - 1) / lpp, cw = lc < lpp ? lc : lpp;
        int spread = sc->fabric.storage_pods == SPODS_SPREAD;
        sup_pods = spread ? cpods : cpods + (ls + lpp - 1) / lpp;
        sdown = (spread ? lpp + (ls + cpods - 1) / cpods : lpp) * k;
        uint64_t s = sc->fabric.superspines;
        if (!s)
            s = (cw * k * sc->fabric.uplink_bps + k2 * up2_bps - 1) / (k2 * up2_bps);
        sup = s * k2;
        up = (sc->fabric.spines_per_pod ? sc->fabric.spines_per_pod : sc->fabric.spines) * k;
    }
    struct {
        const char *what;
        uint64_t buffer, n_host, host_bps, n_up, up_bps;
        const char *profile;
    } sw[4] = {
        {"compute leaf", sc->fabric.leaf_buffer, hosts < hpl ? hosts : hpl, sc->cluster.nic_bps,
         up, sc->fabric.uplink_bps, sc->fabric.leaf_switch},
        {"storage leaf", sc->fabric.leaf_buffer, st < spl ? st : spl, sc->storage.nic_bps, up,
         sc->fabric.uplink_bps, sc->fabric.leaf_switch},
        {"spine", sc->fabric.spine_buffer, sup ? sdown : 0, sc->fabric.uplink_bps,
         sup ? sup : sdown, sup ? up2_bps : sc->fabric.uplink_bps, sc->fabric.spine_switch},
        {"super-spine", sc->fabric.spine_buffer, 0, 0, sup_pods * k2, up2_bps,
         sc->fabric.spine_switch},
    };
    /* a topology file's switches: checked on its wiring (api/run.c wiring_check) */
    int imported = strcmp(sc->fabric.topology_file, "none") != 0;
    for (int i = 0; i < 4 && !imported; i++) {
        uint64_t reserved;
        if (!sw[i].n_host && !sw[i].n_up)
            continue; /* two tiers: no super-spines */
        uint64_t need = switch_need(sc, lossless, sw[i].n_host, sw[i].host_bps, sw[i].n_up,
                                    sw[i].up_bps, &reserved);
        if (sw[i].buffer < need) {
            char b[32], from[100] = "";
            if (!scenario_is_set(sc, "fabric.buffer"))
                snprintf(from, sizeof from, " (switch profile %s)", sw[i].profile);
            return scenario_fail(sc, e, "fabric.buffer",
                                 "%s%s is too small for a %s with %" PRIu64 " ports: its "
                                 "reserves%s take %.3g MB, at least %.3g MB needed",
                                 units_fmt_size(sw[i].buffer, b, sizeof b), from, sw[i].what,
                                 sw[i].n_host + sw[i].n_up,
                                 lossless ? " and PFC headroom" : "", (double)reserved / 1e6,
                                 (double)need / 1e6);
        }
        /* per_class: each pool (an equal share, src/pkt/mmu.c) holds its
         * own priorities' reserves and headroom plus two MTUs a port */
        if (sc->fabric.mmu_pools == POOLS_PER_CLASS && lossless) {
            uint64_t d = sc->fabric.link_delay_ps, ports = sw[i].n_host + sw[i].n_up;
            uint64_t share = sw[i].buffer / (lossless + 1);
            uint64_t two = 2 * wire_frame(scenario_wire(sc));
            uint64_t pool_ll = ports * (sc->fabric.mmu_reserve + two) +
                               sw[i].n_host * scenario_headroom(sc, sw[i].host_bps, d) +
                               sw[i].n_up * scenario_headroom(sc, sw[i].up_bps, d);
            uint64_t pool_ly = ports * ((NPRIO - lossless) * sc->fabric.mmu_reserve + two);
            uint64_t worst = pool_ll > pool_ly ? pool_ll : pool_ly;
            if (share < worst) {
                char b[32];
                return scenario_fail(sc, e, "fabric.mmu.pools",
                                     "per_class splits the %s buffer of a %s into %u pools "
                                     "of %.3g MB; a %s pool's reserves%s need %.3g MB: "
                                     "use shared or a larger fabric.buffer",
                                     units_fmt_size(sw[i].buffer, b, sizeof b), sw[i].what,
                                     lossless + 1, (double)share / 1e6,
                                     pool_ll >= pool_ly ? "lossless" : "lossy",
                                     pool_ll >= pool_ly ? " and PFC headroom" : "",
                                     (double)worst / 1e6);
            }
        }
    }

    /* storage nodes */
    uint64_t cap = sc->storage.ingest_buffer, wire = wire_frame(scenario_wire(sc));
    uint64_t window = (uint64_t)sc->storage.max_outstanding * sc->storage.request_size;
    if (sc->storage.max_outstanding && sc->storage.request_size > UINT32_MAX)
        return scenario_fail(sc, e, "storage.request_size",
                             "at most 4GB with storage.max_outstanding");
    if (window && window < scenario_wire(sc).payload)
        return scenario_fail(sc, e, "storage.max_outstanding",
                             "the window (%" PRIu64 " B) must hold one packet (fabric.mtu)",
                             window);
    if (sc->storage.protocol != SPROTO_NONE) {
        if (sc->storage.request_size > UINT32_MAX)
            return scenario_fail(sc, e, "storage.request_size",
                                 "at most 4GB with storage.protocol %s",
                                 names_of(&names_storage_protocol, sc->storage.protocol));
        if (sc->storage.request_size < scenario_wire(sc).payload)
            return scenario_fail(sc, e, "storage.request_size",
                                 "%" PRIu64 " B is less than a packet's payload (%" PRIu64
                                 " B): a request is at least one packet",
                                 sc->storage.request_size, (uint64_t)scenario_wire(sc).payload);
        if (!sc->storage.req_inflight)
            return scenario_fail(sc, e, "storage.requests_in_flight",
                                 "must be at least 1 with storage.protocol %s",
                                 names_of(&names_storage_protocol, sc->storage.protocol));
        if (sc->storage.protection == PROTECT_REPLICA || sc->storage.protection == PROTECT_CHAIN)
            return scenario_fail(sc, e, "storage.protocol",
                                 "with storage.protection %s is not modelled yet (a "
                                 "node's forwards would take its writer's request slots)",
                                 names_of(&names_protection, sc->storage.protection));
        if (sc->sim.threads > 1)
            return scenario_fail(sc, e, "storage.protocol",
                                 "runs on one thread: set sim.threads 1 (a rank's request "
                                 "slots are shared by its transfers)");
        /* one size for both: the protocol's default would silently resize
         * the window's requests (s3: 16 MiB) */
        if (sc->storage.max_outstanding && !scenario_is_set(sc, "storage.request_size"))
            return scenario_fail(sc, e, blame(sc, "storage.max_outstanding", "storage.protocol"),
                                 "storage.max_outstanding and storage.protocol %s both use "
                                 "storage.request_size: set it (the protocol's default is "
                                 "%" PRIu64 " B, the window's alone 1 MiB)",
                                 names_of(&names_storage_protocol, sc->storage.protocol),
                                 sc->storage.request_size);
    }
    if (sc->storage.stuck_nodes > sc->storage.nodes)
        return scenario_fail(sc, e, "storage.stuck_nodes",
                             "%" PRIu32 " is more than the %" PRIu32 " storage nodes",
                             sc->storage.stuck_nodes, sc->storage.nodes);
    if (sc->storage.stuck_nodes && !cap)
        return scenario_fail(sc, e, "storage.stuck_nodes",
                             "needs storage.ingest_buffer (a stuck node with an unlimited "
                             "buffer never pushes back)");
    /* rails: whole rail groups of hosts_per_leaf nodes (workload_nic_host) */
    if (sc->fabric.rails > 1) {
        if (sc->cluster.nics_per_node % sc->fabric.rails)
            return scenario_fail(sc, e, "fabric.rails", "%" PRIu32 " rails must divide "
                                 "cluster.nics_per_node (%" PRIu32 ")", sc->fabric.rails,
                                 sc->cluster.nics_per_node);
        /* tiers auto picks hosts_per_leaf to divide the nodes */
        if (!sc->fabric.tiers_auto && sc->cluster.nodes % sc->fabric.hosts_per_leaf)
            return scenario_fail(sc, e, "fabric.rails", "rail groups need cluster.nodes (%"
                                 PRIu32 ") a multiple of fabric.hosts_per_leaf (%" PRIu32 ")",
                                 sc->cluster.nodes, sc->fabric.hosts_per_leaf);
    }
    if (cap && (sc->storage.stuck_nodes || sc->storage.drain_bps) && !imported) {
        /* one buffer a node: what is on the wire of each of its NICs */
        uint64_t h = scenario_headroom(sc, sc->storage.nic_bps, sc->fabric.link_delay_ps) *
                     (sc->storage.nics_per_node ? sc->storage.nics_per_node : 1);
        if (cap < h + 2 * wire)
            return scenario_fail(sc, e, "storage.ingest_buffer",
                                 "must hold the PFC headroom of its links plus two MTUs, "
                                 "at least %" PRIu64 " B", h + 2 * wire);
    }
    return 0;
}


/* Training traffic (src/work/train.h): gradient bytes to move, and under
 * logical isolation a class of its own. */
/* Swift's windows: flow scaling needs fs_min_cwnd below fs_max_cwnd (its
 * curve divides by their difference), and the first window lies between
 * the smallest and the largest. */
static int validate_swift(const struct scenario *sc, struct err *e)
{
    const struct swift_params *p = &sc->transport.swift;
    if (sc->transport.cc != CC_SWIFT)
        return 0;
    if (p->fs_min_cwnd >= p->fs_max_cwnd)
        return scenario_fail(sc, e, blame(sc, "transport.swift.fs_min_cwnd",
                                          "transport.swift.fs_max_cwnd"),
                             "transport.swift.fs_min_cwnd (%g) must be below "
                             "transport.swift.fs_max_cwnd (%g)", p->fs_min_cwnd, p->fs_max_cwnd);
    if (p->min_cwnd > p->max_cwnd)
        return scenario_fail(sc, e, blame(sc, "transport.swift.min_cwnd",
                                          "transport.swift.max_cwnd"),
                             "transport.swift.min_cwnd (%g) must not exceed "
                             "transport.swift.max_cwnd (%g)", p->min_cwnd, p->max_cwnd);
    if (p->init_cwnd < p->min_cwnd || p->init_cwnd > p->max_cwnd)
        return scenario_fail(sc, e, "transport.swift.init_cwnd",
                             "must lie within transport.swift.min_cwnd (%g) and max_cwnd (%g), "
                             "got %g", p->min_cwnd, p->max_cwnd, p->init_cwnd);
    return 0;
}

static int validate_training(const struct scenario *sc, struct err *e)
{
    if (sc->training.traffic == TRAFFIC_NONE)
        return 0;
    if (sc->model.name == MODEL_NONE && !sc->training.grad_bytes)
        return scenario_fail(sc, e, "training.grad_bytes",
                             "training.traffic collectives without a model (model.name none) "
                             "needs the gradient bytes each GPU all-reduces per step");
    if (sc->training.isolation != ISO_LOGICAL)
        return 0;
    uint32_t p = sc->training.priority, d = sc->training.dscp;
    if (p == sc->transport.data_priority || p == sc->transport.cnp_priority)
        return scenario_fail(sc, e, "training.priority",
                             "fabric.isolation logical needs a class of its own: priority %" PRIu32
                             " is the %s priority; choose another or fabric.isolation none",
                             p, p == sc->transport.cnp_priority ? "CNP" : "checkpoint (data)");
    if (d == sc->transport.data_dscp || d == sc->transport.cnp_dscp)
        return scenario_fail(sc, e, "training.dscp",
                             "fabric.isolation logical needs a DSCP of its own: %" PRIu32
                             " is the %s DSCP", d,
                             d == sc->transport.cnp_dscp ? "CNP" : "checkpoint (data)");
    /* RoCE collectives need a lossless class: lossy, the engine would drop
     * them (it models no retransmission timeout) */
    int mask = scenario_prio_mask(sc->fabric.pfc_priorities);
    if (sc->fabric.pfc && mask >= 0 && !((mask >> p) & 1))
        return scenario_fail(sc, e, blame(sc, "fabric.pfc.priorities", "training.priority"),
                             "training's priority %" PRIu32 " is not lossless: add it to "
                             "fabric.pfc.priorities (\"%s,%" PRIu32 "\") for RoCE collectives, "
                             "or use fabric.isolation none", p, sc->fabric.pfc_priorities, p);
    return 0;
}

int scenario_validate(const struct scenario *user, struct err *e)
{
    char a[32], b[32];
    struct scenario res = *user; /* switch profiles fill the buffers */
    const struct scenario *sc = &res;
    if (scenario_resolve(&res, e) < 0)
        return -1;
    if (sc->fabric.mtu >= sc->fabric.buffer_bytes) {
        units_fmt_size(sc->fabric.mtu, a, sizeof a);
        units_fmt_size(sc->fabric.buffer_bytes, b, sizeof b);
        if (blame(sc, "fabric.buffer", "fabric.mtu")[7] == 'b')
            return scenario_fail(sc, e, "fabric.buffer",
                                 "must be larger than fabric.mtu (%s), got %s", a, b);
        return scenario_fail(sc, e, "fabric.mtu", "must be smaller than fabric.buffer (%s), got %s",
                             b, a);
    }

    /* Shortest possible run: each writer at its NIC speed, and all bytes
     * through the storage NICs together. Limits keep the products within
     * uint64 (1e6 * 1TB, 1e5 * 100Tbps). */
    uint64_t t1 = units_ser_ps(sc->workload.bytes_per_writer,
                               sc->cluster.nic_bps);
    uint64_t t2 = units_ser_ps(sc->workload.bytes_per_writer * sc->cluster.nodes,
                               sc->storage.nic_bps * sc->storage.nodes) /
                  sc->storage.nics_per_node;
    uint64_t t = t1 > t2 ? t1 : t2;
    if (t > CLOCK_LIMIT_PS - sc->workload.start_jitter_ps)
        return scenario_fail(sc, e, "workload.bytes_per_writer",
                             "writing %s per writer at these speeds takes longer than the "
                             "simulator clock allows (%" PRIu64 " s)",
                             units_fmt_size(sc->workload.bytes_per_writer, a, sizeof a),
                             CLOCK_LIMIT_PS / PS_PER_S);
    if (validate_training(sc, e) < 0)
        return -1;
    if (validate_swift(sc, e) < 0)
        return -1;
    /* a period shorter than a packet's serialisation sees no steady state
     * and observes the fabric between events: 1 ps ran for minutes and
     * polled no Ctrl-C (0 is auto) */
    if (sc->sim.hybrid_period_ps && sc->sim.hybrid_period_ps < HYBRID_PERIOD_MIN_PS)
        return scenario_fail(sc, e, "sim.hybrid.period",
                             "must be 0 (auto) or at least 100ns, got %s",
                             units_fmt_time(sc->sim.hybrid_period_ps, a, sizeof a));
    if (sc->telemetry.pcap_stop_ps && sc->telemetry.pcap_stop_ps <= sc->telemetry.pcap_start_ps)
        return scenario_fail(sc, e, blame(sc, "telemetry.pcap.stop", "telemetry.pcap.start"),
                             "the capture window is empty: telemetry.pcap.stop (%s) must be "
                             "after telemetry.pcap.start (%s), or 0 for the run's end",
                             units_fmt_time(sc->telemetry.pcap_stop_ps, a, sizeof a),
                             units_fmt_time(sc->telemetry.pcap_start_ps, b, sizeof b));
    return validate_fabric(sc, e);
}
