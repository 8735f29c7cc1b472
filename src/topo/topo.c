#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../core/units.h"
#include "internal.h"

uint64_t topo_flow_hash(uint64_t seed, uint32_t src, uint32_t dst,
                        uint16_t sport, uint16_t dport)
{
    /* proto is always UDP (17) for RoCEv2; folded into the constant. */
    uint64_t h = mix64(seed ^ ((uint64_t)src << 32 | dst));
    return mix64(h ^ ((uint64_t)sport << 32 | (uint64_t)dport << 16 | 17));
}

/* Connect port a (on node na) and port b (on node nb) as one link. */
void topo__link(struct topo *t, uint32_t a, uint32_t na, uint32_t b,
                       uint32_t nb, uint64_t bps, uint32_t delay_id,
                       enum path_seg seg_ab, enum path_seg seg_ba)
{
    t->ports[a] = (struct tport){na, b, bps, delay_id, (uint8_t)seg_ab, 0};
    t->ports[b] = (struct tport){nb, a, bps, delay_id, (uint8_t)seg_ba, 0};
}

int topo__one_delay(struct topo *t, const struct scenario *sc, struct arena *a)
{
    t->delays = arena_alloc(a, sizeof *t->delays);
    if (!t->delays)
        return -1;
    t->delays[0] = sc->fabric.link_delay_ps;
    t->n_delays = 1;
    return 0;
}

int topo__is_switch(const struct topo *t, uint32_t n)
{
    return n >= t->first_cleaf;
}

uint32_t topo__lay_edge(struct topo *t, const struct scenario *sc, uint32_t hpl, uint32_t spl,
                        uint32_t up_ports)
{
    uint32_t p = 0;
    for (uint32_t n = 0; n < t->first_cleaf; n++) {
        struct tnode *nd = &t->nodes[n];
        nd->kind = n < t->first_storage ? NODE_HOST : NODE_STORAGE;
        nd->storage_side = nd->kind == NODE_STORAGE;
        nd->first_port = p++;
        nd->nports = 1;
    }
    for (uint32_t l = 0; l < t->n_leaves; l++) {
        uint32_t n = t->first_cleaf + l;
        struct tnode *nd = &t->nodes[n];
        int storage = l >= t->n_cleaves;
        uint32_t per = storage ? spl : hpl;
        uint32_t first = storage ? t->first_storage + (l - t->n_cleaves) * spl : l * hpl;
        uint32_t end = storage ? t->first_cleaf : t->first_storage;
        uint32_t down = end - first < per ? end - first : per;
        nd->kind = NODE_LEAF;
        nd->storage_side = storage;
        nd->leaf = n;
        nd->first_port = p;
        nd->nports = down + up_ports;
        for (uint32_t i = 0; i < down; i++) {
            uint32_t h = first + i;
            struct tnode *hn = &t->nodes[h];
            hn->leaf = n;
            hn->leaf_port = p + i;
            topo__link(t, hn->first_port, h, p + i, n,
                       storage ? sc->storage.nic_bps : sc->cluster.nic_bps,
                       0, storage ? PATH_REVERSE : PATH_WRITER_NIC,
                       storage ? PATH_STORAGE_NIC : PATH_REVERSE);
        }
        p += nd->nports;
    }
    return p;
}

/* Append ports[0..n) to the growing next-hop array, or reuse the set of the
 * switch's previous route when identical: a leaf's set toward every other
 * leaf is the same uplinks, so the table stays O(switches x ports), not
 * O(switches x ports x leaves). Returns the offset, or UINT32_MAX. */
static uint32_t *nh_region(struct arena *a, size_t cap)
{
    return cap <= SIZE_MAX / 12 ? arena_calloc(a, 3 * cap, sizeof(uint32_t)) : NULL;
}

int topo__nh_reserve(struct nh_buf *b, struct arena *a, size_t n)
{
    n = n ? n : 1;
    uint32_t *r = nh_region(a, n);
    if (!r)
        return -1;
    b->nh = r;
    b->nw = r + n;
    b->next = r + 2 * n;
    b->len = 0;
    b->cap = n;
    return 0;
}

uint32_t topo__nh_intern(struct nh_buf *b, const uint32_t *ports, const uint32_t *weights,
                         uint32_t n, const struct route *prev)
{
    if (n == 0)
        return (uint32_t)b->len; /* an empty set needs no storage */
    if (prev && prev->cnt == n && !memcmp(b->nh + prev->off, ports, n * sizeof *ports) &&
        !memcmp(b->nw + prev->off, weights, n * sizeof *weights))
        return prev->off;
    if (b->len + n > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 1024;
        while (c < b->len + n)
            c *= 2;
        if (c > UINT32_MAX)
            return UINT32_MAX;
        if (b->next) { /* out of the arena's array */
            uint32_t *g = malloc(c * sizeof *g), *w = malloc(c * sizeof *w);
            if (!g || !w) {
                free(g);
                free(w);
                return UINT32_MAX;
            }
            memcpy(g, b->nh, b->len * sizeof *g);
            memcpy(w, b->nw, b->len * sizeof *w);
            b->nh = g;
            b->nw = w;
            b->next = NULL;
        } else {
            uint32_t *g = realloc(b->nh, c * sizeof *g);
            if (!g)
                return UINT32_MAX; /* the caller frees b->nh */
            b->nh = g;
            uint32_t *w = realloc(b->nw, c * sizeof *w);
            if (!w)
                return UINT32_MAX;
            b->nw = w;
        }
        b->cap = c;
    }
    memcpy(b->nh + b->len, ports, n * sizeof *ports);
    memcpy(b->nw + b->len, weights, n * sizeof *weights);
    b->len += n;
    return (uint32_t)(b->len - n);
}

/* Up-down shortest paths toward leaf l by BFS over the switch graph: the
 * next hops of switch s are the ports whose peer is one step closer,
 * weighted by the link or its share of what the next switch has into l
 * when that is less (Mbps; two tiers). Fills the rows of l through
 * row(s) (NULL: s needs none). For leaves with a failed link only: toward
 * the others the plain up-down routes hold. */
int topo__bfs_routes(struct topo *t, uint32_t l, struct nh_buf *b, uint32_t *dist,
                      uint32_t *queue, uint32_t *cand, uint32_t *wgt, uint64_t *down,
                      uint32_t *into, int plain, struct err *e)
{
    uint32_t nsw = t->n_switches;
    for (uint32_t s = 0; s < nsw; s++)
        dist[s] = UINT32_MAX;
    uint32_t qh = 0, qt = 0;
    dist[l] = 0;
    queue[qt++] = l;
    while (qh < qt) {
        uint32_t s = queue[qh++];
        const struct tnode *n = &t->nodes[t->first_cleaf + s];
        for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++) {
            uint32_t peer = t->ports[t->ports[p].peer].node;
            if (!topo__is_switch(t, peer) || t->ports[p].failed)
                continue;
            uint32_t ps = peer - t->first_cleaf;
            if (dist[ps] == UINT32_MAX) {
                dist[ps] = dist[s] + 1;
                queue[qt++] = ps;
            }
        }
    }
    /* WCMP: the capacity each switch one hop from l has into it */
    for (uint32_t s = 0; s < nsw; s++) {
        const struct tnode *n = &t->nodes[t->first_cleaf + s];
        down[s] = 0;
        for (uint32_t p = n->first_port; dist[s] == 1 && p < n->first_port + n->nports; p++)
            if (!t->ports[p].failed && t->ports[t->ports[p].peer].node == t->first_cleaf + l)
                down[s] += t->ports[p].bps;
    }
    for (uint32_t s = 0; s < nsw; s++) {
        if (s == l)
            continue; /* local delivery through the host's leaf port */
        if (dist[s] == UINT32_MAX)
            return err_set(e, "fabric: leaf %u unreachable from switch %u", l, s);
        struct route *r = s >= t->n_leaves
                              ? &t->spine_route[(size_t)(s - t->n_leaves) * t->n_leaves + l]
                              : &t->leaf_route[(size_t)s * t->n_affected + t->affected[l]];
        uint32_t cnt = 0;
        const struct tnode *n = &t->nodes[t->first_cleaf + s];
        for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++) {
            uint32_t peer = t->ports[t->ports[p].peer].node;
            if (topo__is_switch(t, peer) && !t->ports[p].failed &&
                dist[peer - t->first_cleaf] + 1 == dist[s])
                cand[cnt++] = p;
        }
        for (uint32_t i = 0; i < cnt; i++)
            into[t->ports[t->ports[cand[i]].peer].node - t->first_cleaf]++;
        for (uint32_t i = 0; i < cnt; i++) {
            uint32_t nx = t->ports[t->ports[cand[i]].peer].node - t->first_cleaf;
            uint64_t w = t->ports[cand[i]].bps;
            if (!plain && nx != l && down[nx] / into[nx] < w)
                w = down[nx] / into[nx];
            wgt[i] = topo__mbps(w);
        }
        for (uint32_t i = 0; i < cnt; i++)
            into[t->ports[t->ports[cand[i]].peer].node - t->first_cleaf] = 0;
        /* a leaf's set toward the previous affected leaf is mostly the same */
        const struct route *prev = s < t->n_leaves && t->affected[l] ? r - 1 : NULL;
        r->off = topo__nh_intern(b, cand, wgt, cnt, prev);
        r->cnt = cnt;
        if (r->off == UINT32_MAX)
            return err_set(e, "out of memory building routes");
    }
    return 0;
}

/* Routes of the 2-tier leaf-spine. Toward a leaf none of whose links
 * failed, every spine goes down its links to it and every other leaf up
 * all its working uplinks (each spine reaches it directly): a spine row
 * is a slice of the spine's own ports, a leaf's a set shared by all such
 * leaves, so the tables grow with the ports, not with leaves squared. Only
 * toward leaves with a failed link does a BFS find the routes. */
uint32_t topo__node_ports(const struct topo *t, uint32_t node, struct nh_buf *b, uint32_t *cand,
                          uint32_t *wgt)
{
    const struct tnode *n = &t->nodes[node];
    for (uint32_t i = 0; i < n->nports; i++) {
        cand[i] = n->first_port + i;
        wgt[i] = topo__mbps(t->ports[cand[i]].bps);
    }
    return topo__nh_intern(b, cand, wgt, n->nports, NULL);
}

int topo__leaf_defaults(struct topo *t, struct nh_buf *b, uint32_t *cand, uint32_t *wgt,
                        struct err *e)
{
    for (uint32_t l = 0; l < t->n_leaves; l++) {
        const struct tnode *n = &t->nodes[t->first_cleaf + l];
        uint32_t cnt = 0;
        for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++)
            if (topo__is_switch(t, t->ports[t->ports[p].peer].node) && !t->ports[p].failed) {
                wgt[cnt] = topo__mbps(t->ports[p].bps);
                cand[cnt++] = p;
            }
        if (!cnt)
            return err_set(e, "fabric: leaf %u has no working uplink (failed links)", l);
        struct route *r = &t->leaf_default[l];
        r->off = topo__nh_intern(b, cand, wgt, cnt, NULL);
        r->cnt = cnt;
        if (r->off == UINT32_MAX)
            return err_set(e, "out of memory building routes");
    }
    return 0;
}

int topo__leaf_spine_routes(struct topo *t, struct arena *a, struct err *e)
{
    uint32_t nsw = t->n_switches, nl = t->n_leaves, k = t->links_per_spine;
    t->affected = arena_calloc(a, nl, sizeof *t->affected);
    t->n_affected = 0;
    for (uint32_t l = 0; t->affected && l < nl; l++) {
        const struct tnode *n = &t->nodes[t->first_cleaf + l];
        t->affected[l] = UINT32_MAX;
        for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++)
            if (t->ports[p].failed) {
                t->affected[l] = t->n_affected++;
                break;
            }
    }
    /* the tables and, without failed links, the next-hop arrays in one
     * block of the arena (as clos.c): every port of a spine, a leaf's
     * uplinks */
    size_t nh = 0;
    if (!t->n_affected)
        nh = (size_t)nl * t->n_spines * k + topo__ports_from(t, nl);
    size_t rows = t->n_affected ? (size_t)nl * t->n_affected : 1;
    size_t bytes = arena_size((size_t)t->n_spines * nl * sizeof *t->spine_route) +
                   arena_size(nl * sizeof *t->leaf_default) +
                   arena_size(rows * sizeof *t->leaf_route) + arena_size(3 * nh * sizeof(uint32_t));
    struct nh_buf b = {0};
    if (!t->affected || arena_reserve(a, bytes) < 0 || (nh && topo__nh_reserve(&b, a, nh) < 0))
        return err_set(e, "out of memory building routes");
    t->spine_route = arena_calloc(a, (size_t)t->n_spines * nl, sizeof *t->spine_route);
    t->leaf_default = arena_calloc(a, nl, sizeof *t->leaf_default);
    t->leaf_route = arena_calloc(a, rows, sizeof *t->leaf_route);
    uint32_t *dist = malloc(nsw * sizeof *dist);
    uint32_t *queue = malloc(nsw * sizeof *queue);
    uint32_t maxp = 1;
    for (uint32_t s = 0; s < nsw; s++)
        if (t->nodes[t->first_cleaf + s].nports > maxp)
            maxp = t->nodes[t->first_cleaf + s].nports;
    uint32_t *cand = malloc(maxp * sizeof *cand);
    uint32_t *wgt = malloc(maxp * sizeof *wgt);
    uint64_t *down = calloc(nsw, sizeof *down);   /* capacity into leaf l */
    uint32_t *into = calloc(nsw, sizeof *into);   /* candidates of s into a switch */
    int rc = 0;
    if (!t->affected || !t->spine_route || !t->leaf_default || !t->leaf_route || !dist ||
        !queue || !cand || !wgt || !down || !into) {
        rc = err_set(e, "out of memory building routes");
        goto out;
    }
    /* spines: all their ports in order, leaf by leaf (k each) */
    for (uint32_t s = 0; s < t->n_spines && rc == 0; s++) {
        uint32_t off = topo__node_ports(t, t->first_spine + s, &b, cand, wgt);
        if (off == UINT32_MAX)
            rc = err_set(e, "out of memory building routes");
        for (uint32_t l = 0; rc == 0 && l < nl; l++)
            if (t->affected[l] == UINT32_MAX)
                t->spine_route[(size_t)s * nl + l] = (struct route){off + l * k, k};
    }
    if (rc == 0)
        rc = topo__leaf_defaults(t, &b, cand, wgt, e);
    for (uint32_t l = 0; l < nl && rc == 0; l++)
        if (t->affected[l] != UINT32_MAX)
            rc = topo__bfs_routes(t, l, &b, dist, queue, cand, wgt, down, into, 0, e);
    if (rc == 0)
        rc = topo__routes_finish(t, &b, a, e);
out:
    free(dist);
    free(queue);
    free(cand);
    free(wgt);
    free(down);
    free(into);
    topo__nh_buf_free(&b);
    return rc;
}

/* Leaf-side port of the j-th link between leaf index l and spine s. */
static uint32_t uplink_port(const struct topo *t, uint32_t l, uint32_t s, uint32_t j)
{
    const struct tnode *ln = &t->nodes[t->first_cleaf + l];
    uint32_t k = t->links_per_spine;
    return ln->first_port + ln->nports - t->n_spines * k + s * k + j;
}

void topo__fail(struct topo *t, uint32_t p, const char *name)
{
    if (t->ports[p].failed)
        return;
    t->ports[p].failed = t->ports[t->ports[p].peer].failed = 1;
    t->n_failed++;
    size_t len = strlen(t->failed_names);
    char item[80];
    snprintf(item, sizeof item, "%s%s", len ? ", " : "", name);
    if (len + strlen(item) + 4 < sizeof t->failed_names)
        memcpy(t->failed_names + len, item, strlen(item) + 1);
    else if (len + 4 < sizeof t->failed_names)
        memcpy(t->failed_names + len, "...", 4);
}

static void fail_port(struct topo *t, uint32_t p, uint32_t l, uint32_t s, uint32_t j)
{
    char name[64];
    int cleaf = l < t->n_cleaves;
    if (t->links_per_spine > 1)
        snprintf(name, sizeof name, "%s%u-spine%u#%u", cleaf ? "cleaf" : "sleaf",
                 cleaf ? l : l - t->n_cleaves, s, j);
    else
        snprintf(name, sizeof name, "%s%u-spine%u", cleaf ? "cleaf" : "sleaf",
                 cleaf ? l : l - t->n_cleaves, s);
    topo__fail(t, p, name);
}

/* fabric.failed_link_names ("cleafI-spineJ[#K]", comma separated), then
 * fabric.failed_links more links chosen with the seed. */
static int fail_links(struct topo *t, const struct scenario *sc, struct err *e)
{
    const char *s = sc->fabric.failed_link_names;
    while (strcmp(s, "none") && *s) {
        char kind[8] = "";
        unsigned li, si, j = 0;
        int used = 0;
        if (sscanf(s, "%5[a-z]%u-spine%u%n", kind, &li, &si, &used) < 3)
            used = 0;
        if (used && s[used] == '#' && sscanf(s + used, "#%u%n", &j, &used) == 1)
            used = (int)(strchr(s, '#') - s) + used;
        int cleaf = !strcmp(kind, "cleaf");
        uint32_t l = cleaf ? li : t->n_cleaves + li;
        if (!used || (!cleaf && strcmp(kind, "sleaf")) ||
            (cleaf ? li >= t->n_cleaves : li >= t->n_sleaves) || si >= t->n_spines ||
            j >= t->links_per_spine || (s[used] && s[used] != ','))
            return err_set(e, "fabric.failed_link_names: no such link at \"%.40s\" "
                              "(expected cleafI-spineJ or sleafI-spineJ, #K for a parallel "
                              "link, comma separated)", s);
        fail_port(t, uplink_port(t, l, si, j), l, si, j);
        s += used + (s[used] == ',');
    }
    uint64_t total = (uint64_t)t->n_leaves * t->n_spines * t->links_per_spine;
    if (sc->fabric.failed_links > total - t->n_failed)
        return err_set(e, "fabric.failed_links: %u links cannot fail, the fabric has %llu "
                          "leaf-spine links (%u already down)", sc->fabric.failed_links,
                       (unsigned long long)total, t->n_failed);
    struct rng r;
    rng_init(&r, sc->seed, RNG_FAIL);
    for (uint32_t done = 0; done < sc->fabric.failed_links;) {
        uint64_t x = rng_below(&r, total);
        uint32_t j = (uint32_t)(x % t->links_per_spine);
        uint32_t si = (uint32_t)(x / t->links_per_spine % t->n_spines);
        uint32_t l = (uint32_t)(x / t->links_per_spine / t->n_spines);
        uint32_t p = uplink_port(t, l, si, j);
        if (t->ports[p].failed)
            continue;
        fail_port(t, p, l, si, j);
        done++;
    }
    return 0;
}

/* One ECMP hash seed per switch from the ecmp stream, in switch order: both
 * engines hash with these, so a flow takes the same path in either. */
int topo__ecmp_seeds(struct topo *t, uint64_t seed, struct arena *a,
                           struct err *e)
{
    t->ecmp_seed = arena_calloc(a, t->n_switches, sizeof *t->ecmp_seed);
    if (!t->ecmp_seed)
        return err_set(e, "out of memory building the fabric");
    struct rng r;
    rng_init(&r, seed, RNG_ECMP);
    for (uint32_t s = 0; s < t->n_switches; s++)
        t->ecmp_seed[s] = rng_u64(&r);
    return 0;
}

int topo__routes_finish(struct topo *t, const struct nh_buf *b, struct arena *a, struct err *e)
{
    if (b->next) { /* built in place */
        t->nh_ports = b->nh;
        t->nh_weight = b->nw;
        t->nh_next = b->next;
        for (size_t i = 0; i < b->len; i++)
            t->nh_next[i] = t->ports[t->ports[t->nh_ports[i]].peer].node;
        return 0;
    }
    t->nh_ports = arena_calloc(a, b->len ? b->len : 1, sizeof *t->nh_ports);
    t->nh_weight = arena_calloc(a, b->len ? b->len : 1, sizeof *t->nh_weight);
    if (!t->nh_ports || !t->nh_weight)
        return err_set(e, "out of memory building routes");
    if (b->len) {
        memcpy(t->nh_ports, b->nh, b->len * sizeof *b->nh);
        memcpy(t->nh_weight, b->nw, b->len * sizeof *b->nw);
    }
    return topo__next_nodes(t, b->len, a, e);
}

int topo__next_nodes(struct topo *t, size_t len, struct arena *a, struct err *e)
{
    t->nh_next = arena_calloc(a, len ? len : 1, sizeof *t->nh_next);
    if (!t->nh_next)
        return err_set(e, "out of memory building routes");
    for (size_t i = 0; i < len; i++)
        t->nh_next[i] = t->ports[t->ports[t->nh_ports[i]].peer].node;
    return 0;
}

uint32_t topo_path(const struct topo *t, uint32_t src, uint32_t dst,
                   uint16_t sport, uint32_t *ports, uint32_t max)
{
    /* an endpoint's leaf and the next hops' nodes from the node and
     * next-hop arrays, not through each port's peer: at 1e5 nodes a path
     * is cache misses, and this is most of a fluid run's set-up */
    uint32_t n = 0, dleaf = t->nodes[dst].leaf;
    if (max == 0)
        return 0;
    ports[n++] = t->nodes[src].first_port;
    uint32_t node = t->nodes[src].leaf;
    while (n < max) {
        if (node == dleaf) {
            ports[n++] = t->nodes[dst].leaf_port;
            return n;
        }
        const struct route *r = topo_route(t, node, dleaf);
        if (r->cnt == 0)
            return 0;
        uint32_t i = r->off;
        if (r->cnt > 1)
            i += (uint32_t)(topo_flow_hash(t->ecmp_seed[topo_switch_index(t, node)], src, dst,
                                           sport, ROCE_UDP_PORT) % r->cnt);
        ports[n++] = t->nh_ports[i];
        node = t->nh_next[i];
    }
    return 0;
}

/* Next hops of routes r[0..n) that lead onto a failed link. */
static uint32_t failed_hops(const struct topo *t, const struct route *r, size_t n)
{
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < r[i].cnt; k++)
            bad += t->ports[t->nh_ports[r[i].off + k]].failed != 0;
    return bad;
}

uint32_t topo_failed_routes(const struct topo *t)
{
    /* every table topo_route reads, once; a builder leaves the others NULL.
     * With pods every switch has a row toward each affected leaf. */
    size_t rows = t->n_pods ? t->n_switches : t->n_leaves;
    return failed_hops(t, t->spine_route, t->spine_route ? (size_t)t->n_spines * t->n_leaves : 0) +
           failed_hops(t, t->spine_route_pod,
                       t->spine_route_pod ? (size_t)t->n_spines * (t->pod_width + 1) : 0) +
           failed_hops(t, t->super_route, t->super_route ? (size_t)t->n_supers * t->n_pods : 0) +
           failed_hops(t, t->leaf_default, t->n_leaves) +
           failed_hops(t, t->leaf_route, rows * t->n_affected);
}

/* The leaf-spine of the scenario (two tiers). */
static int build_leaf_spine(struct topo *t, const struct scenario *sc, struct arena *a, struct err *e)
{
    t->tiers = 2;
    uint32_t hpl = sc->fabric.hosts_per_leaf, spl = sc->fabric.storage_per_leaf;
    t->n_hosts = sc->cluster.nodes;
    t->n_storage = sc->storage.nodes;
    t->n_spines = sc->fabric.spines;
    t->n_cleaves = (t->n_hosts + hpl - 1) / hpl;
    t->n_sleaves = (t->n_storage + spl - 1) / spl;
    t->n_leaves = t->n_cleaves + t->n_sleaves;
    t->n_switches = t->n_leaves + t->n_spines;
    t->first_storage = t->n_hosts;
    t->first_cleaf = t->first_storage + t->n_storage;
    t->first_sleaf = t->first_cleaf + t->n_cleaves;
    t->first_spine = t->first_sleaf + t->n_sleaves;
    t->n_nodes = t->first_spine + t->n_spines;
    if (!t->n_hosts || !t->n_storage || !t->n_spines)
        return err_set(e, "fabric: needs at least one host, storage node and spine");

    uint64_t nports = (uint64_t)t->n_hosts + t->n_storage; /* endpoint side */
    nports += nports;                                      /* leaf side */
    uint32_t k = sc->fabric.links_per_spine ? sc->fabric.links_per_spine : 1;
    t->links_per_spine = k;
    nports += 2ull * t->n_leaves * t->n_spines * k;        /* leaf <-> spine */
    if (nports > UINT32_MAX)
        return err_set(e, "fabric: too many ports (%llu)", (unsigned long long)nports);
    t->n_ports = (uint32_t)nports;
    t->nodes = arena_calloc(a, t->n_nodes, sizeof *t->nodes);
    t->ports = arena_calloc(a, t->n_ports, sizeof *t->ports);
    if (!t->nodes || !t->ports || topo__one_delay(t, sc, a) < 0)
        return err_set(e, "out of memory building the fabric");

    /* Lay out ports: endpoints, then each leaf (down ports, then up), then spines. */
    uint32_t p = topo__lay_edge(t, sc, hpl, spl, t->n_spines * k);
    for (uint32_t s = 0; s < t->n_spines; s++) {
        struct tnode *nd = &t->nodes[t->first_spine + s];
        nd->kind = NODE_SPINE;
        nd->first_port = p;
        nd->nports = t->n_leaves * k;
        p += t->n_leaves * k;
    }
    for (uint32_t l = 0; l < t->n_leaves; l++) {
        const struct tnode *ln = &t->nodes[t->first_cleaf + l];
        uint32_t up0 = ln->first_port + ln->nports - t->n_spines * k;
        for (uint32_t s = 0; s < t->n_spines * k; s++) {
            const struct tnode *sn = &t->nodes[t->first_spine + s / k];
            int storage = ln->storage_side;
            topo__link(t, up0 + s, t->first_cleaf + l, sn->first_port + l * k + s % k,
                       t->first_spine + s / k, sc->fabric.uplink_bps, 0,
                       storage ? PATH_REVERSE : PATH_CLEAF_UP,
                       storage ? PATH_SPINE_DOWN : PATH_REVERSE);
        }
    }
    if (fail_links(t, sc, e) < 0)
        return -1;
    topo__leaf_oversub(t, sc, hpl, spl, (double)t->n_spines * k * (double)sc->fabric.uplink_bps);
    if (topo__ecmp_seeds(t, sc->seed, a, e) < 0 || topo__leaf_spine_routes(t, a, e) < 0)
        return -1;
    return topo__routes_sound(t, e);
}

void topo__leaf_oversub(struct topo *t, const struct scenario *sc, uint32_t hpl, uint32_t spl,
                        double up)
{
    uint32_t hmax = hpl < t->n_hosts ? hpl : t->n_hosts;
    uint32_t smax = spl < t->n_storage ? spl : t->n_storage;
    t->oversub_compute = (double)hmax * (double)sc->cluster.nic_bps / up;
    t->oversub_storage = (double)smax * (double)sc->storage.nic_bps / up;
}

int topo__routes_sound(const struct topo *t, struct err *e)
{
    /* a failed link carries nothing: no route may lead onto one */
    uint32_t bad = t->n_failed ? topo_failed_routes(t) : 0;
    if (bad)
        return err_set(e, "fabric.failed_links: %u next hops lead onto failed links "
                          "(route building is broken)", bad);
    return 0;
}

/* The levels of a built fabric from its counts (every builder's last step). */
static void shape(struct topo *t)
{
    const uint32_t first[] = {t->first_cleaf, t->first_spine, t->first_super};
    const uint32_t n[] = {t->n_leaves, t->n_spines, t->n_supers};
    /* a pod's spines and a plane's super-spines are each one group */
    const uint32_t group[] = {t->n_leaves, t->n_pods ? t->spines_per_pod : t->n_spines,
                              t->supers_per_plane};
    for (uint32_t k = 0; k < t->tiers && k < PATH_MAX_LEVELS; k++)
        /* two tiers have balanced the spines' bytes toward storage leaves
         * only; kept so that results stay as they were */
        t->level[k] = (struct topo_level){first[k], n[k], group[k],
                                          k == 0         ? PATH_CLEAF_UP
                                          : t->tiers < 3 ? PATH_SPINE_DOWN
                                                         : PATH_SETS};
}

int topo_build(struct topo *t, const struct scenario *sc, struct arena *a, struct err *e)
{
    memset(t, 0, sizeof *t);
    int rc = strcmp(sc->fabric.topology_file, "none") ? topo__import(t, sc, a, e)
             : scenario_levels(sc) > 2                 ? topo__build_clos(t, sc, a, e)
                                                       : build_leaf_spine(t, sc, a, e);
    if (rc == 0)
        shape(t);
    return rc;
}

void topo_bom(const struct topo *t, uint32_t sw[PATH_MAX_LEVELS], uint64_t *speeds,
              uint32_t *links, uint32_t *n)
{
    for (uint32_t k = 0; k < PATH_MAX_LEVELS; k++)
        sw[k] = k < t->tiers ? t->level[k].n : 0;
    *n = 0;
    for (uint32_t p = 0; p < t->n_ports; p++) {
        if (t->ports[p].peer < p)
            continue; /* each link once */
        uint64_t b = t->ports[p].bps;
        uint32_t i = 0;
        while (i < *n && speeds[i] > b)
            i++;
        if (i < *n && speeds[i] == b) {
            links[i]++;
            continue;
        }
        if (*n == TOPO_BOM_SPEEDS) { /* slower than the kept ones: the last */
            links[*n - 1]++;
            continue;
        }
        memmove(speeds + i + 1, speeds + i, (*n - i) * sizeof *speeds);
        memmove(links + i + 1, links + i, (*n - i) * sizeof *links);
        speeds[i] = b;
        links[i] = 1;
        (*n)++;
    }
}

/* Adds a link at b to the speeds kept (fastest first; slower than the
 * TOPO_BOM_SPEEDS kept: the last). */
static void bom_put(uint64_t *speeds, uint64_t *links, uint32_t *n, uint64_t b)
{
    uint32_t i = 0;
    while (i < *n && speeds[i] > b)
        i++;
    if (i < *n && speeds[i] == b) {
        links[i]++;
        return;
    }
    if (*n == TOPO_BOM_SPEEDS) {
        links[*n - 1]++;
        return;
    }
    memmove(speeds + i + 1, speeds + i, (*n - i) * sizeof *speeds);
    memmove(links + i + 1, links + i, (*n - i) * sizeof *links);
    speeds[i] = b;
    links[i] = 1;
    (*n)++;
}

void topo_bom_classes(const struct topo *t, uint32_t n[TOPO_LINK_CLASSES],
                      uint64_t bps[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS],
                      uint64_t links[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS])
{
    memset(n, 0, TOPO_LINK_CLASSES * sizeof *n);
    for (uint32_t p = 0; p < t->n_ports; p++) {
        if (t->ports[p].peer < p)
            continue; /* each link once */
        enum node_kind a = t->nodes[t->ports[p].node].kind;
        enum node_kind b = t->nodes[t->ports[t->ports[p].peer].node].kind;
        int c = a == NODE_HOST || b == NODE_HOST         ? 0
                : a == NODE_STORAGE || b == NODE_STORAGE ? 1
                : a == NODE_SUPER || b == NODE_SUPER     ? 3
                                                         : 2;
        bom_put(bps[c], links[c], &n[c], t->ports[p].bps);
    }
}

void topo_bom_breakout(const struct topo *t, uint32_t bd, uint32_t bu, uint32_t bs,
                       uint64_t ports[TOPO_LINK_CLASSES][2])
{
    memset(ports, 0, TOPO_LINK_CLASSES * sizeof *ports);
    if (bd <= 1 && bu <= 1 && bs <= 1)
        return;
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        const struct tnode *nd = &t->nodes[n];
        if (nd->kind < NODE_LEAF)
            continue;
        uint64_t cnt[TOPO_LINK_CLASSES][2] = {{0}};
        uint32_t b[TOPO_LINK_CLASSES][2] = {{0}};
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
            enum node_kind m = t->nodes[t->ports[t->ports[p].peer].node].kind;
            int c, end;
            uint32_t bo;
            if (m == NODE_HOST || m == NODE_STORAGE) {
                c = m == NODE_HOST ? 0 : 1, end = 1, bo = bd;
            } else if (nd->kind == NODE_SUPER || m == NODE_SUPER) {
                c = 3, end = nd->kind == NODE_SUPER, bo = bs;
            } else {
                c = 2, end = nd->kind != NODE_LEAF, bo = nd->kind == NODE_LEAF ? bu : bs;
            }
            cnt[c][end]++;
            b[c][end] = bo;
        }
        for (int c = 0; c < TOPO_LINK_CLASSES; c++)
            for (int e = 0; e < 2; e++)
                if (b[c][e] > 1)
                    ports[c][e] += (cnt[c][e] + b[c][e] - 1) / b[c][e];
    }
}

int topo_bom_compute(const struct topo *t, uint32_t bd, uint32_t bu, uint32_t bs,
                     struct topo_side_bom *b)
{
    memset(b, 0, sizeof *b);
    uint8_t *in = calloc(t->n_nodes ? t->n_nodes : 1, 1);
    if (!in)
        return -1;
    /* tier by tier: hosts, their leaves, the spines above, the super-spines */
    for (int kind = NODE_HOST; kind <= NODE_SUPER; kind++) {
        if (kind == NODE_STORAGE)
            continue;
        for (uint32_t n = 0; n < t->n_nodes; n++) {
            const struct tnode *nd = &t->nodes[n];
            if ((int)nd->kind != kind)
                continue;
            int below = kind == NODE_HOST;
            for (uint32_t p = nd->first_port; !below && p < nd->first_port + nd->nports; p++) {
                uint32_t m = t->ports[t->ports[p].peer].node;
                below = in[m] && t->nodes[m].kind < nd->kind;
            }
            in[n] = (uint8_t)below;
            if (below && kind >= NODE_LEAF)
                b->sw[kind - NODE_LEAF]++;
        }
    }
    for (uint32_t p = 0; p < t->n_ports; p++) {
        uint32_t q = t->ports[p].peer, u = t->ports[p].node, v = t->ports[q].node;
        if (q < p || !in[u] || !in[v])
            continue;
        enum node_kind a = t->nodes[u].kind, c2 = t->nodes[v].kind;
        int c = a == NODE_HOST || c2 == NODE_HOST ? 0 : a == NODE_SUPER || c2 == NODE_SUPER ? 3 : 2;
        bom_put(b->bps[c], b->links[c], &b->n[c], t->ports[p].bps);
    }
    if (bd > 1 || bu > 1 || bs > 1)
        for (uint32_t n = 0; n < t->n_nodes; n++) {
            const struct tnode *nd = &t->nodes[n];
            if (nd->kind < NODE_LEAF || !in[n])
                continue;
            uint64_t cnt[TOPO_LINK_CLASSES][2] = {{0}};
            uint32_t bo[TOPO_LINK_CLASSES][2] = {{0}};
            for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
                uint32_t m = t->ports[t->ports[p].peer].node;
                if (!in[m])
                    continue;
                enum node_kind mk = t->nodes[m].kind;
                int c = mk == NODE_HOST ? 0 : nd->kind == NODE_SUPER || mk == NODE_SUPER ? 3 : 2;
                int end = c == 0 ? 1 : c == 3 ? nd->kind == NODE_SUPER : nd->kind != NODE_LEAF;
                cnt[c][end]++;
                bo[c][end] = c == 0 ? bd : c == 2 && nd->kind == NODE_LEAF ? bu : bs;
            }
            for (int c = 0; c < TOPO_LINK_CLASSES; c++)
                for (int e = 0; e < 2; e++)
                    if (bo[c][e] > 1)
                        b->ports[c][e] += (cnt[c][e] + bo[c][e] - 1) / bo[c][e];
        }
    free(in);
    return 0;
}

uint64_t topo_round_trip_ps(const struct topo *t, const struct scenario *sc, const uint32_t *path,
                            uint32_t hops, uint64_t data, uint64_t ack)
{
    uint64_t rtt = 0;
    for (uint32_t k = 0; k < hops; k++) {
        const struct tport *fw = &t->ports[path[k]], *bk = &t->ports[fw->peer];
        rtt += units_ser_ps(data, fw->bps) + topo_delay(t, fw);
        rtt += units_ser_ps(ack, bk->bps) + topo_delay(t, bk);
        if (k)
            rtt += 2 * (fw->node >= t->first_spine ? sc->fabric.spine_latency_ps
                                                   : sc->fabric.leaf_latency_ps);
    }
    return rtt;
}
