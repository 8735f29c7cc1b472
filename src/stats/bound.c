#include "bound.h"

#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../core/units.h"
#include "../scenario/lbscheme.h"
#include "../work/request.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Serialisation time rounded down: a port carries the sub-picosecond
 * remainder from packet to packet, so a train takes at least the floor of
 * its exact time (units_ser_ps rounds up). Saturates; bps > 0. */
static uint64_t ser_floor(uint64_t bytes, uint64_t bps)
{
    __extension__ typedef unsigned __int128 u128;
    if (bytes <= UINT64_MAX / (8u * PS_PER_S)) /* a 64-bit division */
        return bytes * 8u * PS_PER_S / bps;
    u128 q = (u128)bytes * 8u * PS_PER_S / bps;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* Wire bytes of a transfer's last packet, its smallest. */
static uint64_t last_packet(uint64_t bytes, struct wire_fmt w)
{
    return (bytes % w.payload ? bytes % w.payload : w.payload) + w.overhead;
}

/* a * b, saturated. */
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The transfer alone on its path, packet by packet as a tandem of store and
 * forward hops: packet k leaves hop i no earlier than it reached it and the
 * packet before it left it. Its n - 1 full packets and the last one q make
 * the longest chain through that grid a walk down the hops with the first
 * packet to hop j1, along the full packets there, down with packet n - 1
 * to hop j2, over to q and down with it. At the writer NIC a rate cap
 * spaces the packets (each gap rounded up, as the NIC does). O(hops^2).
 * Sets *hop to the j1 of the longest chain: the hop that holds it up. */
static uint64_t alone_ps(const struct topo *t, uint64_t rate, const uint32_t *path, uint32_t np,
                         const uint64_t *lat, uint64_t p, uint64_t q, uint64_t n,
                         const uint64_t *tail, uint32_t *hop)
{
    uint64_t ap[TOPO_MAX_HOPS]; /* the first packet's end of serialisation on hop i */
    for (uint32_t i = 0; i < np; i++) {
        uint64_t s = ser_floor(p, t->ports[path[i]].bps);
        ap[i] = i == 0 ? s
                       : sat_add(ap[i - 1],
                                 sat_add(sat_add(topo_delay(t, &t->ports[path[i - 1]]), lat[i]), s));
    }
    uint64_t line = t->ports[path[0]].bps;
    uint64_t gap = rate && rate < line ? units_ser_ps(p, rate) : 0;
    uint64_t best = 0;
    *hop = 0;
    for (uint32_t j1 = 0; j1 < np; j1++) {
        uint64_t sp = ser_floor(p, t->ports[path[j1]].bps);
        uint64_t along = j1 == 0 && gap > sp ? gap : sp; /* from one full packet to the next */
        uint64_t v1 = sat_add(ap[j1], sat_mul(n - 2, along));
        for (uint32_t j2 = j1; j2 < np; j2++) {
            uint64_t sq = ser_floor(q, t->ports[path[j2]].bps);
            uint64_t to_q = sq; /* from the last full packet to q */
            if (j2 == 0 && gap > ser_floor(p, line))
                to_q = sat_add(gap - ser_floor(p, line), sq);
            uint64_t v = sat_add(sat_add(v1, ap[j2] - ap[j1]), sat_add(to_q, tail[j2]));
            if (v > best) {
                best = v;
                *hop = j1;
            }
        }
    }
    return best;
}

uint32_t bound_path(const struct topo *t, const struct scenario *sc, const struct transfer *x,
                    uint64_t rate, const uint32_t *path, uint32_t np, struct bound_path *bp)
{
    struct wire_fmt w = scenario_wire(sc);
    uint64_t q = last_packet(x->bytes, w);                /* the smallest */
    uint64_t p = x->bytes > w.payload ? wire_frame(w) : q; /* the first */
    uint64_t lat[TOPO_MAX_HOPS]; /* switch latency ahead of hop i (i >= 1) */
    uint64_t hp = 0, hq = 0; /* the first and the last packet's way in */
    np = np < TOPO_MAX_HOPS ? np : TOPO_MAX_HOPS;
    bp->np = np;
    for (uint32_t i = 1; i < np; i++)
        lat[i] = t->ports[path[i]].node >= t->first_spine ? sc->fabric.spine_latency_ps
                                                          : sc->fabric.leaf_latency_ps;
    /* the only packet smaller than the first is the last, n - 1 full
     * packets (each at least its serialisation or the cap's gap) behind */
    uint64_t n = (x->bytes + w.payload - 1) / w.payload, line = t->ports[path[0]].bps;
    uint64_t gap = rate && rate < line ? units_ser_ps(p, rate) : 0;
    uint64_t sp0 = ser_floor(p, line);
    uint64_t behind = p == q ? 0 : sat_mul(n - 1, gap > sp0 ? gap : sp0);
    int one_path = lb_grain(sc) == LB_PER_FLOW;
    for (uint32_t i = 0; i < np; i++) {
        const struct tport *pt = &t->ports[path[i]];
        if (i > 0) {
            const struct tport *prev = &t->ports[path[i - 1]];
            uint64_t hop = sat_add(topo_delay(t, prev), lat[i]);
            hp = sat_add(hp, sat_add(ser_floor(p, prev->bps), hop));
            hq = sat_add(hq, sat_add(ser_floor(q, prev->bps), hop));
        }
        /* one path keeps them in order: the first is first everywhere */
        uint64_t later = one_path ? UINT64_MAX : sat_add(behind, hq);
        bp->head[i] = hp < later ? hp : later;
        if (i + 1 == np) {
            uint64_t ap = sat_add(hp, ser_floor(p, pt->bps));
            uint64_t aq = one_path ? UINT64_MAX : sat_add(later, ser_floor(q, pt->bps));
            bp->arrive = sat_add(ap < aq ? ap : aq, topo_delay(t, pt));
        }
    }
    /* a storage back end writes the last packet's payload after it arrives */
    uint64_t drain = x->dst >= t->first_storage && x->dst < t->first_cleaf ? sc->storage.drain_bps : 0;
    uint64_t write = drain ? ser_floor(q - w.overhead, drain) : 0;
    for (uint32_t i = np; i > 0;) {
        i--;
        const struct tport *pt = &t->ports[path[i]];
        bp->tail[i] = i + 1 == np
                          ? sat_add(topo_delay(t, pt), write)
                          : sat_add(topo_delay(t, pt),
                                    sat_add(lat[i + 1],
                                            sat_add(ser_floor(q, t->ports[path[i + 1]].bps),
                                                    bp->tail[i + 1])));
    }
    /* one path per flow (ecmp, wcmp): its packets keep their order */
    bp->alone = 0;
    bp->alone_hop = 0;
    if (one_path) {
        bp->alone = n < 2 ? sat_add(bp->arrive, write)
                          : alone_ps(t, rate, path, np, lat, p, q, n, bp->tail, &bp->alone_hop);
    }
    return np;
}

_Static_assert(BOUND_MEMO_SLOTS <= 64, "a slot a bit of bound_memo's evicted");

/* FNV-1a over the key's words, then one mix: cheap, and the slot uses all
 * the bits. */
static CKPT_WRAPS uint64_t memo_hash(const uint64_t *key, uint32_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ key[i]) * 0x100000001b3u;
    return mix64(h);
}

/* Whether a slot's stored key is key[0..nk): key[2] carries the hop count, so a
 * shorter or longer stored key differs there first. */
static int memo_same(const uint64_t *stored, const uint64_t *key, uint32_t nk)
{
    for (uint32_t i = 0; i < nk; i++)
        if (stored[i] != key[i])
            return 0;
    return 1;
}

/* Whether slot s holds x's key on path[0..np) (np at most TOPO_MAX_HOPS),
 * compared as the hops are read rather than built first: a stored key is
 * zero past its words, and its word 2 has its hop count. */
static int memo_holds(const struct bound_memo *m, uint32_t s, const struct topo *t,
                      const struct transfer *x, uint64_t rate, const uint32_t *path, uint32_t np)
{
    const uint64_t *k = m->e[s].key;
    if (!m->e[s].ret || k[0] != x->bytes || k[1] != rate)
        return 0;
    uint64_t spine = 0;
    for (uint32_t i = 0; i < np; i++) {
        const struct tport *pt = &t->ports[path[i]];
        if (k[3 + 2 * i] != pt->bps || k[4 + 2 * i] != topo_delay(t, pt))
            return 0;
        spine |= (uint64_t)(pt->node >= t->first_spine) << i;
    }
    return k[2] == (np | spine << 8 |
                    (uint64_t)(x->dst >= t->first_storage && x->dst < t->first_cleaf) << 32);
}

const struct bound_path *bound_path_find(struct bound_memo *m, const struct topo *t,
                                         const struct scenario *sc, const struct transfer *x,
                                         uint64_t rate, const uint32_t *path, uint32_t np,
                                         struct bound_path *bp)
{
    uint32_t n = np < TOPO_MAX_HOPS ? np : TOPO_MAX_HOPS;
    if (m && memo_holds(m, m->last, t, x, rate, path, n)) {
        m->hits++;
        return &m->e[m->last].bp;
    }
    bound_path_memo(m, t, sc, x, rate, path, np, bp);
    return bp;
}

uint32_t bound_path_memo(struct bound_memo *m, const struct topo *t, const struct scenario *sc,
                         const struct transfer *x, uint64_t rate, const uint32_t *path,
                         uint32_t np, struct bound_path *bp)
{
    if (!m)
        return bound_path(t, sc, x, rate, path, np, bp);
    np = np < TOPO_MAX_HOPS ? np : TOPO_MAX_HOPS;
    uint64_t key[BOUND_MEMO_KEY];
    uint32_t nk = 3 + 2 * np;
    uint64_t spine = 0;
    for (uint32_t i = 0; i < np; i++) {
        const struct tport *pt = &t->ports[path[i]];
        key[3 + 2 * i] = pt->bps;
        key[4 + 2 * i] = topo_delay(t, pt);
        spine |= (uint64_t)(pt->node >= t->first_spine) << i;
    }
    key[0] = x->bytes;
    key[1] = rate;
    key[2] = np | spine << 8 | (uint64_t)(x->dst >= t->first_storage && x->dst < t->first_cleaf) << 32;
    /* a workload repeats one kind of transfer for long runs: the last slot
     * found first, without hashing */
    uint32_t s = m->last;
    if (!m->e[s].ret || !memo_same(m->e[s].key, key, nk)) {
        s = (uint32_t)(memo_hash(key, nk) % BOUND_MEMO_SLOTS);
        if (!m->e[s].ret || !memo_same(m->e[s].key, key, nk)) {
            m->misses++;
            m->evicted |= (uint64_t)(m->e[s].ret != 0) << s;
            uint32_t r = bound_path(t, sc, x, rate, path, np, bp);
            memcpy(m->e[s].key, key, nk * sizeof *key);
            memset(m->e[s].key + nk, 0, (BOUND_MEMO_KEY - nk) * sizeof *key);
            m->e[s].bp = *bp;
            m->e[s].ret = r;
            m->last = s;
            return r;
        }
    }
    m->hits++;
    m->last = s;
    *bp = m->e[s].bp;
    return m->e[s].ret;
}

const struct bound_path *bound_memo_slot(const struct bound_memo *m, uint32_t s)
{
    return m && s < BOUND_MEMO_SLOTS && m->e[s].ret && !(m->evicted >> s & 1) ? &m->e[s].bp
                                                                                : NULL;
}

static void res_add(struct bound_res *r, uint64_t bytes, uint64_t head, uint64_t tail)
{
    r->bytes = sat_add(r->bytes, bytes);
    r->head = head < r->head ? head : r->head;
    r->tail = tail < r->tail ? tail : r->tail;
}

/* The resource's lower bound: it serves nothing before the first byte
 * reaches it and then needs all of its bytes' time; the last of them still
 * has the way on. 0 when it carries nothing. */
static uint64_t res_bound(const struct bound_res *r, uint64_t bps)
{
    if (!r->bytes || !bps)
        return 0;
    return sat_add(r->head, sat_add(ser_floor(r->bytes, bps), r->tail));
}

/* A write cache of K bytes absorbing at F over media at M: in time T the
 * back end takes at most min(F T, K + M T) (the media may drain from the
 * first byte on), so P bytes need max(P / F, (P - K) / M). */
static uint64_t cache_bound(const struct bound_res *r, const struct scenario *sc, uint64_t at_fast)
{
    uint64_t k = sc->storage.cache_bytes, m = sc->storage.media_bps;
    if (!k || !m || m >= sc->storage.drain_bps || r->bytes <= k)
        return at_fast;
    uint64_t slow = sat_add(r->head, sat_add(ser_floor(r->bytes - k, m), r->tail));
    return slow > at_fast ? slow : at_fast;
}

int bound_begin(struct bound_acc *b, const struct topo *t, const struct workload *w,
                const struct scenario *sc)
{
    memset(b, 0, sizeof *b);
    b->t = t;
    b->w = w;
    b->sc = sc;
    uint32_t ne = t->first_cleaf, ns = t->n_storage; /* endpoints; of them storage */
    struct arena *a = &b->mem;
    arena_init(a);
    b->nic = arena_calloc(a, ne ? ne : 1, sizeof *b->nic);
    /* a storage node's back end and a storage NIC's sending side on a
     * write (replica forwards): storage endpoints only, the others' would
     * never be read */
    b->drain = arena_calloc(a, ns ? ns : 1, sizeof *b->drain);
    b->fout = arena_calloc(a, ns ? ns : 1, sizeof *b->fout);
    b->up = arena_calloc(a, 2 * (size_t)t->n_leaves + 1, sizeof *b->up); /* out, in */
    /* a pod's spines' links to the level above, out and in (no pods: none) */
    b->pod = arena_calloc(a, 2 * (size_t)t->n_pods + 1, sizeof *b->pod);
    b->memo = calloc(1, sizeof *b->memo); /* NULL: computed each time */
    b->start0 = b->base = UINT64_MAX;
    for (uint32_t i = 0; i < w->n; i++)
        b->start0 = workload_start(w, i) < b->start0 ? workload_start(w, i) : b->start0;
    b->ok = b->nic && b->drain && b->up && b->pod && b->fout;
    const struct bound_res none = {0, UINT64_MAX, UINT64_MAX};
    for (uint32_t i = 0; b->ok && i < ne; i++)
        b->nic[i] = none;
    for (uint32_t i = 0; b->ok && i < ns; i++)
        b->drain[i] = b->fout[i] = none;
    for (uint32_t i = 0; b->ok && i < 2 * t->n_leaves; i++)
        b->up[i] = none;
    for (uint32_t i = 0; b->ok && i < 2 * t->n_pods; i++)
        b->pod[i] = none;
    b->wf = scenario_wire(sc);
    return b->ok ? 0 : -1;
}

void bound_add(struct bound_acc *b, uint32_t i, const uint32_t *path, uint32_t np)
{
    const struct topo *t = b->t;
    const struct workload *w = b->w;
    const struct scenario *sc = b->sc;
    const struct transfer *x = &w->xfers[i];
    uint64_t rate = workload_rate(w, i);
    struct bound_path scratch;
    uint64_t *lim = b->lim;
    if (!b->ok || np < 2)
        return; /* nothing to send (the engines refuse a missing path) */
    const struct bound_path *pp = bound_path_find(b->memo, t, sc, x, rate, path, np, &scratch);
    if (pp->np < 2)
        return;
    if (b->kind && b->memo)
        b->kind[i] = (uint8_t)(b->memo->last + 1);
    uint32_t k = np - 1, fs = t->first_storage;
    uint64_t off = workload_start(w, i) - b->start0;
    uint64_t line = t->ports[path[0]].bps; /* the source's NIC */
    if (x->bytes != b->one.bytes || rate != b->one.rate || line != b->one.line) {
        /* the transfer alone; a capped queue pair spaces its packets at the
         * cap (each gap rounded up), the last one then leaves at line rate;
         * a workload repeats one size and cap for long runs: once for them */
        uint64_t m = last_packet(x->bytes, b->wf);
        b->one.bytes = x->bytes;
        b->one.rate = rate;
        b->one.line = line;
        b->one.wb = wire_bytes(x->bytes, b->wf);
        b->one.end = ser_floor(b->one.wb, line);
        if (rate && rate < line)
            b->one.end = sat_add(units_ser_ps(b->one.wb - m, rate), ser_floor(m, line));
    }
    uint64_t wb = b->one.wb;
    uint64_t end = sat_add(sat_add(off, b->one.end), pp->tail[0]);
    /* one back end a storage node, whichever of its NICs a byte takes */
    int to_store = x->dst >= fs && x->dst < t->first_cleaf;
    int from_store = x->src >= fs && x->src < t->first_cleaf;
    /* a write's transfer from a storage node: a replica forward */
    int fwd = !w->restore && from_store;
    if (fwd) {
        lim[PATH_STORAGE_NIC] = end > lim[PATH_STORAGE_NIC] ? end : lim[PATH_STORAGE_NIC];
    } else if (end > lim[PATH_WRITER_NIC]) {
        lim[PATH_WRITER_NIC] = end;
        b->capped = rate && rate < line;
    }
    if (pp->alone) {
        /* the transfer alone, charged to the hop that holds it up (its
         * port's segment; a restore's topology names them mirrored) */
        enum path_seg l = pp->alone_hop == 0       ? PATH_WRITER_NIC
                             : pp->alone_hop == k     ? PATH_STORAGE_NIC
                             : pp->alone_hop == 1     ? PATH_CLEAF_UP
                             : pp->alone_hop == k - 1 ? PATH_SPINE_DOWN
                             : pp->alone_hop == 2     ? PATH_SPINE_UP
                                                     : PATH_SUPER_DOWN;
        if (w->restore && t->ports[path[pp->alone_hop]].seg < PATH_COUNT)
            l = t->ports[path[pp->alone_hop]].seg;
        if (fwd && l == PATH_WRITER_NIC)
            l = PATH_STORAGE_NIC;
        uint64_t v = sat_add(off, pp->alone);
        lim[l] = v > lim[l] ? v : lim[l];
    }
    b->base = pp->tail[0] < b->base ? pp->tail[0] : b->base;
    res_add(fwd ? &b->fout[x->src - fs] : &b->nic[x->src], wb, off, pp->tail[0]);
    res_add(&b->nic[x->dst], wb, sat_add(off, pp->head[k]), pp->tail[k]);
    if (to_store)
        res_add(&b->drain[workload_store_owner(t, sc, x->dst) - fs], x->bytes,
                sat_add(off, pp->arrive), 0);
    /* restore: the source's back end reads every byte before it leaves
     * (a forward sends what arrives: no read) */
    if (!fwd && from_store)
        res_add(&b->drain[workload_store_owner(t, sc, x->src) - fs], x->bytes, off, pp->tail[0]);
    uint32_t sleaf = t->nodes[x->src].leaf, dleaf = t->nodes[x->dst].leaf;
    if (sleaf != dleaf) {
        uint32_t sl = topo_leaf_index(t, sleaf), dl = topo_leaf_index(t, dleaf);
        res_add(&b->up[2 * sl], wb, sat_add(off, pp->head[1]), pp->tail[1]);
        res_add(&b->up[2 * dl + 1], wb, sat_add(off, pp->head[k - 1]), pp->tail[k - 1]);
        uint32_t sp = t->nodes[sleaf].pod, dp = t->nodes[dleaf].pod;
        if (t->n_pods && sp != dp && k >= 4) { /* up to a super-spine and down */
            res_add(&b->pod[2 * sp], wb, sat_add(off, pp->head[2]), pp->tail[2]);
            res_add(&b->pod[2 * dp + 1], wb, sat_add(off, pp->head[k - 2]), pp->tail[k - 2]);
        }
    }
}

void bound_end(struct bound_acc *b, struct results *r, struct bound_ps *out)
{
    const struct topo *t = b->t;
    const struct workload *w = b->w;
    const struct scenario *sc = b->sc;
    uint64_t *lim = b->lim, base = b->base;
    int ok = b->ok;
    uint32_t ne = t->first_cleaf, fs = t->first_storage, npod = t->n_pods;
    for (uint32_t i = 0; r && ok && i < ne; i++) {
        const struct tnode *nd = &t->nodes[i];
        int storage = nd->kind == NODE_STORAGE;
        /* a writer's NIC is its port up; a storage node's its leaf's port down */
        uint64_t v = res_bound(&b->nic[i], t->ports[storage ? nd->leaf_port : nd->first_port].bps);
        enum path_seg l = storage ? PATH_STORAGE_NIC : PATH_WRITER_NIC;
        lim[l] = v > lim[l] ? v : lim[l];
        if (!storage)
            continue;
        v = res_bound(&b->fout[i - fs], t->ports[nd->first_port].bps);
        lim[l] = v > lim[l] ? v : lim[l];
        uint64_t d = res_bound(&b->drain[i - fs], w->restore ? sc->restore.read_bps
                                                             : sc->storage.drain_bps);
        if (!w->restore && d)
            d = cache_bound(&b->drain[i - fs], sc, d);
        lim[PATH_BACKEND] = d > lim[PATH_BACKEND] ? d : lim[PATH_BACKEND];
    }
    for (uint32_t l = 0; r && ok && l < t->n_leaves; l++) {
        const struct tnode *n = &t->nodes[t->first_cleaf + l];
        uint64_t cap = 0; /* the leaf's working links to spines */
        for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++)
            if (t->ports[t->ports[p].peer].node >= t->first_spine && !t->ports[p].failed)
                cap += t->ports[p].bps;
        enum path_seg k = n->storage_side ? PATH_SPINE_DOWN : PATH_CLEAF_UP;
        /* toward storage on writes; the other way on a restore */
        uint64_t v = res_bound(&b->up[2 * l + (n->storage_side ^ (w->restore != 0))], cap);
        lim[k] = v > lim[k] ? v : lim[k];
    }
    /* pods: a group of spines (level 1) and its links to the level above */
    const struct topo_level *sp = &t->level[1], *above = &t->level[2];
    for (uint32_t q = 0; r && ok && q < npod; q++) {
        uint64_t cap[2] = {0, 0}; /* the pod's working links up, down */
        for (uint32_t g = sp->first + q * sp->group; g < sp->first + (q + 1) * sp->group; g++) {
            const struct tnode *n = &t->nodes[g];
            for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++)
                if (t->ports[t->ports[p].peer].node >= above->first && !t->ports[p].failed) {
                    cap[0] += t->ports[p].bps;
                    cap[1] += t->ports[t->ports[p].peer].bps;
                }
        }
        for (int d = 0; d < 2; d++) {
            /* a restore climbs out of the storage pod: the mirror names */
            enum path_seg k = (d != 0) ^ (w->restore != 0) ? path_level_down(2) : path_level_up(2);
            uint64_t v = res_bound(&b->pod[2 * q + (uint32_t)d], cap[d]);
            lim[k] = v > lim[k] ? v : lim[k];
        }
    }
    free(b->memo);
    arena_release(&b->mem);
    b->memo = NULL;
    b->nic = b->drain = b->fout = b->up = b->pod = NULL;
    if (!r)
        return;
    if (base == UINT64_MAX)
        base = 0;
    r->bound_limit = PATH_WRITER_NIC;
    uint64_t best = lim[PATH_WRITER_NIC];
    for (int l = 0; l < PATH_COUNT; l++) {
        /* what the limit adds to the base latency */
        r->bound_term_s[l] = (double)(lim[l] > base ? lim[l] - base : 0) / (double)PS_PER_S;
        if (lim[l] > best) {
            best = lim[l];
            r->bound_limit = (enum path_seg)l;
        }
    }
    /* a file is complete once its fsync returned (after its last byte), and
     * once the metadata service has served it */
    if (!w->restore) {
        best = sat_add(best, sc->storage.fsync_ps);
        /* storage.protocol: the last request's latency and the commit's */
        best = sat_add(best, request_tail_ps(w, sc));
    } else {
        /* storage.protocol: the last read request's latency */
        best = sat_add(best, request_tail_ps(w, sc));
        /* the group of the last byte still broadcasts; any group's
         * broadcast follows its read */
        best = sat_add(best, w->bcast_min_ps);
        best = w->bcast_max_ps > best ? w->bcast_max_ps : best;
    }
    uint64_t meta = workload_meta_bound_ps(w, sc);
    r->bound_fsync_s = w->restore ? 0 : (double)sc->storage.fsync_ps / (double)PS_PER_S;
    r->bound_meta_s = (double)meta / (double)PS_PER_S;
    r->bound_by_meta = meta > best;
    best = meta > best ? meta : best;
    r->bound_s = (double)best / (double)PS_PER_S;
    r->base_latency_s = (double)base / (double)PS_PER_S;
    if (out) {
        for (int l = 0; l < PATH_COUNT; l++)
            out->limit_ps[l] = lim[l];
        out->best_ps = best;
        out->writer_capped = b->capped;
        out->ok = ok;
    }
}

void bound_compute(struct results *r, const struct topo *t, const struct workload *w,
                   const struct scenario *sc, struct bound_ps *out)
{
    struct bound_acc b;
    bound_begin(&b, t, w, sc);
    for (uint32_t i = 0; b.ok && i < w->n; i++) {
        uint32_t path[TOPO_MAX_HOPS];
        if (w->xfers[i].bytes)
            bound_add(&b, i, path, workload_path(w, t, i, path));
    }
    bound_end(&b, r, out);
}

uint64_t bound_time_limit_ps(const struct scenario *sc, double bound_s)
{
    if (sc->sim.time_limit_ps)
        return sc->sim.time_limit_ps;
    double b = bound_s * (double)PS_PER_S;
    if (!(b < 1.8e19 / 50)) /* also NaN */
        return UINT64_MAX;
    return sat_add((uint64_t)b * 50, BOUND_SLACK_PS);
}

void balance_compute(struct results *r, const struct topo *t, const double *port_bytes)
{
    /* every leaf: a restore's (mirrored sets) climbs the storage leaves */
    double worst_leaf = 0;
    for (uint32_t l = t->level[0].first; l < t->level[0].first + t->level[0].n; l++) {
        const struct tnode *nd = &t->nodes[l];
        double sum = 0, mx = 0;
        uint32_t k = 0;
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
            if (t->ports[p].seg != t->level[0].load)
                continue;
            sum += port_bytes[p];
            mx = port_bytes[p] > mx ? port_bytes[p] : mx;
            k++;
        }
        if (sum > 0 && mx * k / sum > worst_leaf)
            worst_leaf = mx * k / sum;
    }
    /* above the leaves, each level's groups of equal-cost switches (all
     * spines, a pod's spines, a plane's super-spines): the worst group's
     * max/mean of the bytes each forwards */
    double worst = 0;
    for (uint32_t lv = 1; lv < t->tiers; lv++) {
        const struct topo_level *L = &t->level[lv];
        uint32_t end = L->first + L->n, per = L->group;
        for (uint32_t g = L->first; per && g < end; g += per) {
            double sum = 0, mx = 0;
            for (uint32_t s = g; s < g + per && s < end; s++) {
                const struct tnode *nd = &t->nodes[s];
                double b = 0;
                for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++)
                    if (L->load == PATH_SETS || t->ports[p].seg == L->load)
                        b += port_bytes[p];
                sum += b;
                mx = b > mx ? b : mx;
            }
            if (sum > 0 && mx * per / sum > worst)
                worst = mx * per / sum;
        }
    }
    r->lb_uplink_imbalance = worst_leaf;
    r->lb_spine_imbalance = worst;
}
