/* Three-tier Clos: pods of leaves and spines under super-spine planes
 * (topo.h), its wiring, failed links and up-down routes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "internal.h"

/* Tier of switch index s: 0 leaf, 1 spine, 2 super-spine. */
static int sw_tier(const struct topo *t, uint32_t s)
{
    return s < t->n_leaves ? 0 : s < t->n_leaves + t->n_spines ? 1 : 2;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void topo__nh_buf_free(struct nh_buf *b)
{
    if (!b->next) { /* else in the arena */
        free(b->nh);
        free(b->nw);
    }
    free(b->adj_off);
    free(b->adj);
}

/* b->adj: built once a fabric, so that each leaf's routes scan only the
 * links they can use (in port order: next hops keep their order). */
static int updown_adj(const struct topo *t, struct nh_buf *b)
{
    uint32_t nsw = t->n_switches;
    size_t np = 0, k = 0;
    for (uint32_t s = 0; s < nsw; s++)
        np += t->nodes[t->first_cleaf + s].nports;
    b->adj_off = malloc((2 * (size_t)nsw + 1) * sizeof *b->adj_off);
    b->adj = malloc((2 * np + 1) * sizeof *b->adj);
    if (!b->adj_off || !b->adj)
        return -1;
    for (uint32_t s = 0; s < nsw; s++) {
        const struct tnode *n = &t->nodes[t->first_cleaf + s];
        int tier = sw_tier(t, s);
        for (int dir = 1; dir >= -1; dir -= 2) { /* up, then down */
            b->adj_off[2 * s + (dir < 0)] = (uint32_t)(k / 2);
            for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++) {
                uint32_t peer = t->ports[t->ports[p].peer].node;
                if (!topo__is_switch(t, peer) || t->ports[p].failed ||
                    sw_tier(t, peer - t->first_cleaf) != tier + dir)
                    continue;
                b->adj[k++] = p;
                b->adj[k++] = peer - t->first_cleaf;
            }
        }
    }
    b->adj_off[2 * nsw] = (uint32_t)(k / 2);
    return 0;
}

/* Up-down routes toward leaf index l from every switch, into l's column of
 * leaf_route. dd: hops down to l over working down links only; du: the
 * shortest way up and then down. A switch goes down when that is its
 * shortest way, else up to parents one step closer: no valleys. WCMP
 * weighs a next hop by the link or, when less, the capacity the next switch
 * has toward l. Leaves that cannot reach l are an error. */
int topo__updown_routes(struct topo *t, uint32_t l, struct nh_buf *b, uint32_t *dd,
                        uint32_t *du, uint64_t *cap, uint32_t *cand, uint32_t *wgt,
                        int plain, uint32_t *cut, struct err *e)
{
    const uint32_t nsw = t->n_switches, inf = UINT32_MAX;
    if (!b->adj && updown_adj(t, b) < 0)
        return err_set(e, "out of memory building routes");
    const uint32_t *off = b->adj_off, *adj = b->adj;
    for (uint32_t s = 0; s < nsw; s++) {
        dd[s] = du[s] = inf;
        cap[s] = 0;
    }
    dd[l] = 0;
    /* down: the spines with a working link to l at 1, the super-spines
     * with one to those at 2; found from l up (links join adjacent tiers
     * only), not by scanning every switch */
    const struct tnode *ln = &t->nodes[t->first_cleaf + l];
    for (uint32_t p = ln->first_port; p < ln->first_port + ln->nports; p++) {
        uint32_t peer = t->ports[t->ports[p].peer].node;
        if (!topo__is_switch(t, peer) || t->ports[p].failed || dd[peer - t->first_cleaf] != inf)
            continue;
        uint32_t g = peer - t->first_cleaf;
        dd[g] = 1;
        const struct tnode *gn = &t->nodes[peer];
        for (uint32_t q = gn->first_port; q < gn->first_port + gn->nports; q++) {
            uint32_t u = t->ports[t->ports[q].peer].node - t->first_cleaf;
            if (!t->ports[q].failed && sw_tier(t, u) == 2)
                dd[u] = 2;
        }
    }
    /* up and down: from the top (switches are numbered tier by tier) */
    for (uint32_t j = 0; j < nsw; j++) {
        uint32_t s = nsw - 1 - j;
        du[s] = dd[s];
        for (uint32_t i = off[2 * s]; i < off[2 * s + 1]; i++) {
            uint32_t ps = adj[2 * i + 1];
            if (du[ps] != inf && du[ps] + 1 < du[s])
                du[s] = du[ps] + 1;
        }
    }
    /* next hops, nearest switches first so their capacity is known */
    for (uint32_t d = 1; d <= 4; d++)
        for (uint32_t s = 0; s < nsw; s++) {
            if (du[s] != d)
                continue;
            int down = dd[s] == d;
            const uint32_t *dist = down ? dd : du;
            uint32_t cnt = 0;
            uint64_t c = 0;
            for (uint32_t i = off[2 * s + down]; i < off[2 * s + down + 1]; i++) {
                uint32_t p = adj[2 * i], ps = adj[2 * i + 1];
                if (dist[ps] != d - 1)
                    continue;
                uint64_t w = t->ports[p].bps;
                if (!plain && ps != l && cap[ps] < w)
                    w = cap[ps];
                c = sat_add(c, w);
                wgt[cnt] = topo__mbps(w);
                cand[cnt++] = p;
            }
            cap[s] = c;
            struct route *r = &t->leaf_route[(size_t)s * t->n_affected + t->affected[l]];
            /* the switch's set toward the previous affected leaf is often the
             * same (a leaf's uplinks, a super-spine's links to a pod) */
            r->off = topo__nh_intern(b, cand, wgt, cnt, t->affected[l] ? r - 1 : NULL);
            r->cnt = cnt;
            if (r->off == UINT32_MAX)
                return err_set(e, "out of memory building routes");
        }
    for (uint32_t s = 0; s < t->n_leaves; s++)
        if (s != l && du[s] == inf) {
            if (cut)
                *cut = s;
            return err_set(e, "fabric: leaf %u cannot reach leaf %u up and down over the "
                              "working links (failed links cut it off)", s, l);
        }
    return 0;
}

int topo__pods_hit(const struct topo *t, uint8_t *hit)
{
    int all = 0;
    for (uint32_t g = 0; t->n_pods && g < t->n_spines; g++) {
        const struct tnode *n = &t->nodes[t->first_spine + g];
        uint32_t up = 0, working = 0;
        for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++)
            if (t->ports[t->ports[p].peer].node >= t->first_super) {
                up++;
                working += !t->ports[p].failed;
            }
        hit[n->pod] |= working < up;
        all |= !working && t->n_pods > 1;
    }
    return all;
}

/* The leaves whose routes a failed link changes: a leaf with a failed
 * uplink; every leaf of a pod one of whose spines lost an uplink (its
 * super-spine cannot come down there); every leaf when a spine lost all its
 * uplinks (its pod's leaves must not go up through it). */
static int mark_affected(struct topo *t, struct arena *a, struct err *e)
{
    uint32_t nl = t->n_leaves;
    uint8_t *pod_hit = calloc(t->n_pods ? t->n_pods : 1, 1);
    t->affected = arena_calloc(a, nl, sizeof *t->affected);
    if (!pod_hit || !t->affected) {
        free(pod_hit);
        return err_set(e, "out of memory building routes");
    }
    int all = topo__pods_hit(t, pod_hit);
    t->n_affected = 0;
    for (uint32_t l = 0; l < nl; l++) {
        const struct tnode *n = &t->nodes[t->first_cleaf + l];
        int hit = all || pod_hit[n->pod];
        for (uint32_t p = n->first_port; !hit && p < n->first_port + n->nports; p++)
            hit = t->ports[p].failed;
        t->affected[l] = hit ? t->n_affected++ : UINT32_MAX;
    }
    free(pod_hit);
    return 0;
}

/* Routes: the hierarchical defaults (topo.h), then per-switch tables toward
 * the affected leaves. Default entries toward affected leaves stay empty. */
int topo__clos_routes(struct topo *t, struct arena *a, struct err *e)
{
    uint32_t nsw = t->n_switches, nl = t->n_leaves, k = t->links_per_spine;
    uint32_t k2 = t->links_per_super, w1 = t->pod_width + 1;
    if (mark_affected(t, a, e) < 0)
        return -1;
    /* the tables and, without failed links, the next-hop arrays in one
     * block of the arena (huge pages at 100k nodes, not ~2,500 4 KB faults
     * of growing copies): every port of a spine and a super-spine, a
     * leaf's uplinks. Routes toward affected leaves grow past any count
     * worth reserving: malloc'd, copied at the end. */
    size_t nh = 0;
    if (!t->n_affected)
        nh = (size_t)nl * t->spines_per_pod * k + topo__ports_from(t, nl);
    size_t rows = t->n_affected ? (size_t)nsw * t->n_affected : 1;
    size_t bytes = arena_size(nl * sizeof *t->leaf_default) +
                   arena_size((size_t)t->n_spines * w1 * sizeof *t->spine_route_pod) +
                   arena_size((size_t)t->n_supers * t->n_pods * sizeof *t->super_route) +
                   arena_size(rows * sizeof *t->leaf_route) + arena_size(3 * nh * sizeof(uint32_t));
    struct nh_buf b = {0};
    if (arena_reserve(a, bytes) < 0 || (nh && topo__nh_reserve(&b, a, nh) < 0))
        return err_set(e, "out of memory building routes");
    t->leaf_default = arena_calloc(a, nl, sizeof *t->leaf_default);
    t->spine_route_pod = arena_calloc(a, (size_t)t->n_spines * w1, sizeof *t->spine_route_pod);
    t->super_route = arena_calloc(a, (size_t)t->n_supers * t->n_pods, sizeof *t->super_route);
    t->leaf_route = arena_calloc(a, rows, sizeof *t->leaf_route);
    uint32_t maxp = 1;
    for (uint32_t s = 0; s < nsw; s++)
        if (t->nodes[t->first_cleaf + s].nports > maxp)
            maxp = t->nodes[t->first_cleaf + s].nports;
    uint32_t *cand = malloc(maxp * sizeof *cand), *wgt = malloc(maxp * sizeof *wgt);
    uint32_t *dd = malloc(nsw * sizeof *dd), *du = malloc(nsw * sizeof *du);
    uint64_t *cap = malloc(nsw * sizeof *cap);
    uint8_t *pod_down = calloc(t->n_pods, 1); /* a spine of the pod lost an uplink */
    int rc = 0;
    if (!t->leaf_default || !t->spine_route_pod || !t->super_route || !t->leaf_route || !cand ||
        !wgt || !dd || !du || !cap || !pod_down) {
        rc = err_set(e, "out of memory building routes");
        goto out;
    }
    rc = topo__leaf_defaults(t, &b, cand, wgt, e);
    /* spines: all their ports in order; down slices of k, then the working uplinks */
    for (uint32_t g = 0; g < t->n_spines && rc == 0; g++) {
        const struct tnode *n = &t->nodes[t->first_spine + g];
        uint32_t down = 0, cnt = 0;
        for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++)
            down += t->ports[t->ports[p].peer].node < t->first_spine;
        uint32_t off = topo__node_ports(t, t->first_spine + g, &b, cand, wgt);
        if (off == UINT32_MAX) {
            rc = err_set(e, "out of memory building routes");
            break;
        }
        struct route *row = &t->spine_route_pod[(size_t)g * w1];
        for (uint32_t i = 0; i < down; i++) {
            uint32_t leaf = t->ports[t->ports[n->first_port + i].peer].node;
            uint32_t pos = t->nodes[leaf].pod_pos;
            if (i % k == 0 && t->affected[leaf - t->first_cleaf] == UINT32_MAX)
                row[pos] = (struct route){off + i, k};
        }
        for (uint32_t i = down; i < n->nports; i++)
            if (!t->ports[n->first_port + i].failed) {
                wgt[cnt] = topo__mbps(t->ports[n->first_port + i].bps);
                cand[cnt++] = n->first_port + i;
            }
        if (cnt < n->nports - down) {
            pod_down[n->pod] = 1;
            row[t->pod_width].off = topo__nh_intern(&b, cand, wgt, cnt, NULL);
            if (row[t->pod_width].off == UINT32_MAX)
                rc = err_set(e, "out of memory building routes");
        } else {
            row[t->pod_width].off = off + down;
        }
        row[t->pod_width].cnt = cnt;
    }
    /* super-spines: k2 ports down to each pod, in pod order */
    for (uint32_t u = 0; u < t->n_supers && rc == 0; u++) {
        uint32_t off = topo__node_ports(t, t->first_super + u, &b, cand, wgt);
        if (off == UINT32_MAX) {
            rc = err_set(e, "out of memory building routes");
            break;
        }
        for (uint32_t q = 0; q < t->n_pods; q++)
            if (!pod_down[q])
                t->super_route[(size_t)u * t->n_pods + q] = (struct route){off + q * k2, k2};
    }
    for (uint32_t l = 0; l < nl && rc == 0; l++)
        if (t->affected[l] != UINT32_MAX)
            rc = topo__updown_routes(t, l, &b, dd, du, cap, cand, wgt, 0, NULL, e);
    if (rc == 0)
        rc = topo__routes_finish(t, &b, a, e);
out:
    free(cand);
    free(wgt);
    free(dd);
    free(du);
    free(cap);
    free(pod_down);
    topo__nh_buf_free(&b);
    return rc;
}

/* Leaf-side port of the j-th link between leaf index l and its pod's spine i. */
static uint32_t leaf_up_port(const struct topo *t, uint32_t l, uint32_t i, uint32_t j)
{
    const struct tnode *n = &t->nodes[t->first_cleaf + l];
    uint32_t k = t->links_per_spine;
    return n->first_port + n->nports - t->spines_per_pod * k + i * k + j;
}

/* Spine-side port of the j-th link between spine g and super-spine u of its plane. */
static uint32_t spine_up_port(const struct topo *t, uint32_t g, uint32_t u, uint32_t j)
{
    const struct tnode *n = &t->nodes[t->first_spine + g];
    uint32_t k2 = t->links_per_super;
    return n->first_port + n->nports - t->supers_per_plane * k2 + (u % t->supers_per_plane) * k2 + j;
}

static void fail_leaf_link(struct topo *t, uint32_t l, uint32_t g, uint32_t j)
{
    char name[64];
    int cleaf = l < t->n_cleaves;
    int n = snprintf(name, sizeof name, "%s%u-spine%u", cleaf ? "cleaf" : "sleaf",
                     cleaf ? l : l - t->n_cleaves, g);
    if (t->links_per_spine > 1 && n > 0)
        snprintf(name + n, sizeof name - (size_t)n, "#%u", j);
    topo__fail(t, leaf_up_port(t, l, g % t->spines_per_pod, j), name);
}

static void fail_spine_link(struct topo *t, uint32_t g, uint32_t u, uint32_t j)
{
    char name[64];
    int n = snprintf(name, sizeof name, "spine%u-super%u", g, u);
    if (t->links_per_super > 1 && n > 0)
        snprintf(name + n, sizeof name - (size_t)n, "#%u", j);
    topo__fail(t, spine_up_port(t, g, u, j), name);
}

/* fabric.failed_link_names (cleafI-spineJ, sleafI-spineJ, spineJ-superK;
 * #L a parallel link; spines and super-spines by their global number),
 * then fabric.failed_links more links chosen with the seed over all of them. */
static int clos_fail_links(struct topo *t, const struct scenario *sc, struct err *e)
{
    const char *s = sc->fabric.failed_link_names;
    uint32_t k = t->links_per_spine, k2 = t->links_per_super, spp = t->spines_per_pod;
    while (strcmp(s, "none") && *s) {
        char kind[8] = "", kind2[8] = "";
        unsigned x = 0, y = 0, j = 0;
        int used = 0, more = 0, ok = 0;
        if (sscanf(s, "%5[a-z]%u-%5[a-z]%u%n", kind, &x, kind2, &y, &used) < 4)
            used = 0;
        if (used && s[used] == '#' && sscanf(s + used, "#%u%n", &j, &more) == 1)
            used += more;
        if (used && (!s[used] || s[used] == ',')) {
            int c = !strcmp(kind, "cleaf"), st = !strcmp(kind, "sleaf");
            if (!strcmp(kind, "spine") && !strcmp(kind2, "super")) {
                ok = x < t->n_spines && y < t->n_supers &&
                     y / t->supers_per_plane == x % spp && j < k2;
                if (ok)
                    fail_spine_link(t, x, y, j);
            } else if ((c || st) && !strcmp(kind2, "spine")) {
                uint32_t l = c ? x : t->n_cleaves + x;
                ok = (c ? x < t->n_cleaves : x < t->n_sleaves) && y < t->n_spines &&
                     y / spp == t->nodes[t->first_cleaf + l].pod && j < k;
                if (ok)
                    fail_leaf_link(t, l, y, j);
            }
        }
        if (!ok)
            return err_set(e, "fabric.failed_link_names: no such link at \"%.40s\" (expected "
                              "cleafI-spineJ, sleafI-spineJ (J a spine of the leaf's pod) or "
                              "spineJ-superK (K a super-spine of spine J's plane), #L for a "
                              "parallel link, comma separated)", s);
        s += used + (s[used] == ',');
    }
    uint64_t lower = (uint64_t)t->n_leaves * spp * k;
    uint64_t total = lower + (uint64_t)t->n_spines * t->supers_per_plane * k2;
    if (sc->fabric.failed_links > total - t->n_failed)
        return err_set(e, "fabric.failed_links: %u links cannot fail, the fabric has %llu "
                          "leaf-spine and spine-super-spine links (%u already down)",
                       sc->fabric.failed_links, (unsigned long long)total, t->n_failed);
    struct rng r;
    rng_init(&r, sc->seed, RNG_FAIL);
    for (uint32_t done = 0; done < sc->fabric.failed_links;) {
        uint64_t x = rng_below(&r, total);
        uint32_t before = t->n_failed;
        if (x < lower) {
            uint32_t l = (uint32_t)(x / k / spp);
            uint32_t g = t->nodes[t->first_cleaf + l].pod * spp + (uint32_t)(x / k % spp);
            fail_leaf_link(t, l, g, (uint32_t)(x % k));
        } else {
            x -= lower;
            uint32_t g = (uint32_t)(x / k2 / t->supers_per_plane);
            uint32_t u = (g % spp) * t->supers_per_plane + (uint32_t)(x / k2 % t->supers_per_plane);
            fail_spine_link(t, g, u, (uint32_t)(x % k2));
        }
        done += t->n_failed > before;
    }
    return 0;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

int topo__build_clos(struct topo *t, const struct scenario *sc, struct arena *a, struct err *e)
{
    const struct {
        uint32_t hpl, spl, k, k2;
    } v = {sc->fabric.hosts_per_leaf, sc->fabric.storage_per_leaf,
           sc->fabric.links_per_spine ? sc->fabric.links_per_spine : 1,
           sc->fabric.links_per_super ? sc->fabric.links_per_super : 1};
    uint64_t up_bps = sc->fabric.uplink_bps;
    uint64_t up2_bps = sc->fabric.spine_uplink_bps ? sc->fabric.spine_uplink_bps : up_bps;
    t->tiers = 3;
    t->n_hosts = sc->cluster.nodes;
    t->n_storage = sc->storage.nodes;
    t->links_per_spine = v.k;
    t->links_per_super = v.k2;
    t->spines_per_pod = sc->fabric.spines_per_pod ? sc->fabric.spines_per_pod : sc->fabric.spines;
    if (!t->n_hosts || !t->n_storage || !t->spines_per_pod)
        return err_set(e, "fabric: needs at least one host, storage node and spine");
    t->n_cleaves = (uint32_t)ceil_div(t->n_hosts, v.hpl);
    t->n_sleaves = (uint32_t)ceil_div(t->n_storage, v.spl);
    uint32_t lpp = sc->fabric.leaves_per_pod, pods = sc->fabric.pods;
    if (!lpp && !pods)
        return err_set(e, "fabric.pods: three tiers need fabric.pods or fabric.leaves_per_pod");
    if (!lpp)
        lpp = (uint32_t)ceil_div(t->n_cleaves, pods);
    if (pods && (uint64_t)pods * lpp < t->n_cleaves)
        return err_set(e, "fabric.pods: %u pods of %u leaves hold %llu compute leaves, the "
                          "cluster needs %u", pods, lpp, (unsigned long long)pods * lpp,
                       t->n_cleaves);
    t->n_cpods = (uint32_t)ceil_div(t->n_cleaves, lpp);
    int spread = sc->fabric.storage_pods == SPODS_SPREAD;
    uint64_t n_pods = spread ? t->n_cpods : t->n_cpods + ceil_div(t->n_sleaves, lpp);
    /* a compute pod's spine: k links to each of its leaves down, as much up */
    uint32_t cwidth = t->n_cleaves < lpp ? t->n_cleaves : lpp;
    uint64_t spine_down_bps = (uint64_t)cwidth * v.k * up_bps;
    uint64_t spp_planes = sc->fabric.superspines ? sc->fabric.superspines
                                                 : ceil_div(spine_down_bps, (uint64_t)v.k2 * up2_bps);
    if (n_pods > 65536 || spp_planes > 65536)
        return err_set(e, "fabric: %llu pods and %llu super-spines per plane are too many",
                       (unsigned long long)n_pods, (unsigned long long)spp_planes);
    t->n_pods = (uint32_t)n_pods;
    t->supers_per_plane = (uint32_t)spp_planes;
    t->n_leaves = t->n_cleaves + t->n_sleaves;
    uint64_t n_spines = (uint64_t)t->n_pods * t->spines_per_pod;
    uint64_t n_supers = (uint64_t)t->spines_per_pod * t->supers_per_plane;
    if (n_spines + n_supers + t->n_leaves > UINT32_MAX / 2)
        return err_set(e, "fabric: too many switches");
    t->n_spines = (uint32_t)n_spines;
    t->n_supers = (uint32_t)n_supers;
    t->n_switches = t->n_leaves + t->n_spines + t->n_supers;
    t->first_storage = t->n_hosts;
    t->first_cleaf = t->first_storage + t->n_storage;
    t->first_sleaf = t->first_cleaf + t->n_cleaves;
    t->first_spine = t->first_sleaf + t->n_sleaves;
    t->first_super = t->first_spine + t->n_spines;
    t->n_nodes = t->first_super + t->n_supers;

    /* pods of the leaves: compute leaves lpp by lpp; storage leaves in pods
     * of their own, or dealt over the compute pods after their leaves */
    uint32_t *pod_n = calloc(t->n_pods, sizeof *pod_n); /* leaves per pod */
    t->nodes = arena_calloc(a, t->n_nodes, sizeof *t->nodes);
    if (!pod_n || !t->nodes) {
        free(pod_n);
        return err_set(e, "out of memory building the fabric");
    }
    for (uint32_t l = 0; l < t->n_leaves; l++) {
        struct tnode *nd = &t->nodes[t->first_cleaf + l];
        uint32_t j = l < t->n_cleaves ? 0 : l - t->n_cleaves; /* storage leaf j */
        nd->pod = l < t->n_cleaves ? l / lpp : spread ? j % t->n_cpods : t->n_cpods + j / lpp;
        nd->pod_pos = pod_n[nd->pod]++;
    }
    t->pod_width = 0;
    for (uint32_t q = 0; q < t->n_pods; q++)
        t->pod_width = pod_n[q] > t->pod_width ? pod_n[q] : t->pod_width;

    uint64_t nports = 2 * ((uint64_t)t->n_hosts + t->n_storage);
    nports += 2ull * t->n_leaves * t->spines_per_pod * v.k;
    nports += 2ull * t->n_spines * t->supers_per_plane * v.k2;
    if (nports > UINT32_MAX) {
        free(pod_n);
        return err_set(e, "fabric: too many ports (%llu)", (unsigned long long)nports);
    }
    t->n_ports = (uint32_t)nports;
    t->ports = arena_calloc(a, t->n_ports, sizeof *t->ports);
    /* which pods hold compute and storage leaves: the segments of their spines' uplinks */
    uint8_t *pod_st = calloc(t->n_pods, 1), *pod_cp = calloc(t->n_pods, 1);
    if (!t->ports || !pod_st || !pod_cp || topo__one_delay(t, sc, a) < 0) {
        free(pod_n);
        free(pod_st);
        free(pod_cp);
        return err_set(e, "out of memory building the fabric");
    }
    for (uint32_t l = 0; l < t->n_leaves; l++)
        (l < t->n_cleaves ? pod_cp : pod_st)[t->nodes[t->first_cleaf + l].pod] = 1;

    /* ports: endpoints, leaves (down, then up), spines (down, then up), super-spines */
    uint32_t k = v.k, k2 = v.k2, spp = t->spines_per_pod, S = t->supers_per_plane;
    uint32_t p = topo__lay_edge(t, sc, v.hpl, v.spl, spp * k);
    for (uint32_t g = 0; g < t->n_spines; g++) {
        struct tnode *nd = &t->nodes[t->first_spine + g];
        nd->kind = NODE_SPINE;
        nd->pod = g / spp;
        nd->first_port = p;
        nd->nports = pod_n[nd->pod] * k + S * k2;
        p += nd->nports;
    }
    for (uint32_t u = 0; u < t->n_supers; u++) {
        struct tnode *nd = &t->nodes[t->first_super + u];
        nd->kind = NODE_SUPER;
        nd->pod = u / S; /* its plane */
        nd->first_port = p;
        nd->nports = t->n_pods * k2;
        p += nd->nports;
    }
    /* leaf i-th uplink group to its pod's spine i, at the spine's port of the leaf's place */
    for (uint32_t l = 0; l < t->n_leaves; l++) {
        const struct tnode *ln = &t->nodes[t->first_cleaf + l];
        int storage = ln->storage_side;
        for (uint32_t i = 0; i < spp; i++) {
            uint32_t g = ln->pod * spp + i;
            const struct tnode *sn = &t->nodes[t->first_spine + g];
            for (uint32_t j = 0; j < k; j++)
                topo__link(t, leaf_up_port(t, l, i, j), t->first_cleaf + l,
                           sn->first_port + ln->pod_pos * k + j, t->first_spine + g, up_bps,
                           0, storage ? PATH_REVERSE : PATH_CLEAF_UP,
                           storage ? PATH_SPINE_DOWN : PATH_REVERSE);
        }
    }
    /* spine g (plane g mod spp) to every super-spine of its plane */
    for (uint32_t g = 0; g < t->n_spines; g++) {
        uint32_t q = g / spp, plane = g % spp;
        for (uint32_t s = 0; s < S; s++) {
            uint32_t u = plane * S + s;
            const struct tnode *un = &t->nodes[t->first_super + u];
            for (uint32_t j = 0; j < k2; j++)
                topo__link(t, spine_up_port(t, g, u, j), t->first_spine + g,
                           un->first_port + q * k2 + j, t->first_super + u, up2_bps,
                           0, pod_cp[q] ? PATH_SPINE_UP : PATH_REVERSE,
                           pod_st[q] ? PATH_SUPER_DOWN : PATH_REVERSE);
        }
    }
    free(pod_n);
    free(pod_st);
    free(pod_cp);
    if (clos_fail_links(t, sc, e) < 0)
        return -1;
    topo__leaf_oversub(t, sc, v.hpl, v.spl, (double)spp * k * (double)up_bps);
    t->oversub_spine = (double)spine_down_bps / ((double)S * k2 * (double)up2_bps);
    if (topo__ecmp_seeds(t, sc->seed, a, e) < 0 || topo__clos_routes(t, a, e) < 0)
        return -1;
    return topo__routes_sound(t, e);
}
