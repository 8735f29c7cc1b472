/* The fluid engine's event loop: flow starts and completions, rates from the
 * incremental max-min solver, storage back ends, per-link accounting,
 * invariants. */
#include "fluid.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/arena.h"
#include "../core/units.h"
#include "../scenario/lbscheme.h"
#include "../stats/bound.h"
#include "../stats/invariants.h"
#include "../stats/training.h"
#include "../work/protect.h"
#include "../work/request.h"
#include "../work/train.h"
#include "fsample.h"
#include "cq.h"
#include "maxmin.h"
#include "scrap.h"

#define BITS_PS 8e12 /* bytes * BITS_PS / bps = ps */
#define FULL_TOL 1e-9

/* A transfer's state, 16 bytes and a state byte (fnet.fst: 0 waiting, 1
 * sending, 2 done, 3 sent but never written): its wire bytes follow from
 * its payload, its finish is its key in the heap and its path latency is
 * computed when it finishes. */
struct fflow {
    double rem;       /* wire bytes still to send, as of t */
    uint64_t t;       /* sending: when rem was; done: last byte received
                       * (and written, with a back end) */
};

struct flink {
    double bytes;     /* wire bytes carried, integrated up to t_upd */
    uint64_t t_upd, busy_ps, full_ps;
};

/* A storage node's ingest buffer ahead of its back end (storage.drain_rate):
 * it fills at the payload rate arriving minus the drain rate; when a finite
 * buffer is full the node admits only what drains (the packet engine pauses
 * the fabric with PFC), modelled as a link of that capacity on its flows. */
struct fstore {
    double level;     /* payload bytes buffered, as of t_upd */
    uint64_t t_upd;
    double in_bps;    /* payload arriving, bits/s */
    double drain_bps; /* 0: stuck */
    double ratio;     /* payload / wire bytes of the flows to it */
    uint32_t vlink;   /* its back-end link in the solver; UINT32_MAX = none */
    uint32_t nic_lid; /* its NIC's leaf port's solver link; UINT32_MAX = none */
    int buffered;     /* has a back end that can fall behind (else keeps up) */
    int full;
};

struct fnet {
    const struct scenario *sc;
    const struct topo *t;
    const struct workload *w;
    struct arena arena;
    struct mm mm;
    struct fflow *fl;        /* in flmem: the ends are written over it (durable_ends) */
    struct arena flmem;
    uint8_t *fst;            /* per flow its state (struct fflow, FST_STATE; in flmem); a
                              * transfer's kind above it while the loop runs
                              * (FST_KIND, struct heads) */
    struct wire_fmt wf;      /* wire bytes of a payload */
    struct heads *hd;        /* for the latency of a finishing transfer */
    uint64_t *tlat;          /* training flow k: its path latency */
    double *twire_done;      /* training flow k: wire bytes of its finished steps */
    struct flink *lk;        /* per solver link */
    /* Solver links are the ports some flow crosses, in port order, then the
     * back ends' virtual links: about half a fabric's ports carry nothing
     * (no checkpoint byte goes down to a writer or up from a storage node). */
    uint32_t *lid_port;      /* per solver link: its port, or UINT32_MAX (virtual);
                              * the other way round only in set-up (what the loop
                              * needs of it: fstore.nic_lid) */
    uint32_t nu;             /* solver links that are ports */
    struct fstore *st;       /* per storage node; NULL without a back end */
    uint32_t *order, next;   /* flows by (start, id), NULL when in id order; next to start */
    /* flow completions and buffers filling, on (time, id): flow, then
     * n_flows + storage index (buffer full), then training flows (heap_of) */
    struct cq q;
    uint64_t now, events;
    uint64_t onto_failed;    /* transfers whose path leads onto a failed link */
    uint64_t time_limit;     /* sim.time_limit (or its default): the run stops here */
    const struct ckpt_progress *progress; /* the caller's hook, or NULL */
    uint64_t delivered;      /* payload of completed transfers, for progress */
    int interrupted;         /* progress->stop was set: stopped at now */
    int time_limit_hit;
    int time_went_back;
    uint64_t flows_done;
    struct fsample fs;       /* time series */
    /* training traffic (train.h): flow nf + k is training flow k, restarted
     * every step; its heap id is nf + ns + k. Under isolation none it shares
     * mm with the checkpoint (one class: max-min over both); under logical
     * it has its own solver tm, and the class with precedence (`first`)
     * takes its rates before the other gets what is left on each link. */
    const struct training *tr;
    struct train_clock tc;
    uint32_t nt, ns;
    int two;                 /* training in tm */
    struct mm tm;
    struct mm *first, *second;
    double share;            /* DWRR: first's share where the second has flows; 1 = strict */
    double *cap0;            /* link capacities (two classes; else NULL) */
    uint32_t *moved, n_moved; /* second's flows started or stopped at this time */
    uint32_t *relaxed, n_relaxed; /* DWRR: links where first took what second left */
    uint32_t *rmark;         /* per link: 1 = in relaxed */
    uint32_t *prev, n_prev;  /* relaxed links reset at this time: pass 3 looks again */
    uint64_t ckpt_end;       /* latest checkpoint completion */
    int grouped;             /* spray's leaf pairs as solver groups (mm_init_groups) */
    int own_path;            /* a transfer's solver path starts with its route's
                              * ports (one path, not weighted): ckpt_latency reads it */
    uint64_t train_at;       /* the next step's communication starts; UINT64_MAX = none pending */
};

/* Training flow index (into fl) to solver, solver id and heap id. */
static struct mm *solver_of(struct fnet *n, uint32_t fi)
{
    return fi >= n->w->n && n->two ? &n->tm : &n->mm;
}
static uint32_t sid_of(const struct fnet *n, uint32_t fi)
{
    return fi >= n->w->n && n->two ? fi - n->w->n : fi;
}
static uint32_t fl_of(const struct fnet *n, const struct mm *m, uint32_t sid)
{
    return m == &n->tm ? n->w->n + sid : sid;
}
static uint32_t heap_of(const struct fnet *n, uint32_t fi)
{
    return fi < n->w->n ? fi : fi + n->ns;
}

/* now + the time to move `bytes` at `bps`, rounded up; UINT64_MAX = never. */
static uint64_t after(uint64_t now, double bytes, double bps)
{
    double d = bytes > 0 ? ceil(bytes * BITS_PS / bps) : 0;
    return d < (double)(UINT64_MAX - now) / 2 ? now + (uint64_t)d : UINT64_MAX;
}

/* ---- set-up ------------------------------------------------------------- */

/* Time from the last byte leaving the source to its arrival, for a flow paced
 * at rate bps: per hop propagation and switch latency, and the last packet's
 * serialisation on every later hop, where it may wait behind the packet
 * before it (store and forward, as in the packet engine). Exact for a flow
 * alone whose first hop is its bottleneck. */
static uint64_t flow_latency_ps(const struct topo *t, const struct scenario *sc,
                                const uint32_t *path, uint32_t np, uint64_t bytes,
                                uint64_t bps)
{
    struct wire_fmt w = scenario_wire(sc);
    uint32_t mtu = w.payload;
    uint64_t q = (bytes % mtu ? bytes % mtu : mtu) + w.overhead;
    uint64_t p = bytes > mtu ? wire_frame(w) : 0;
    /* departures from the current hop, counted from the previous packet's */
    uint64_t dp = 0, dq = units_ser_ps(q, bps), gap = dq;
    uint64_t sbps = 0, sp = 0, sq = 0; /* the last hop speed's serialisations */
    for (uint32_t k = 1; k < np; k++) {
        const struct tport *pk = &t->ports[path[k]];
        /* the switch this hop leaves: the packet engine's per-kind latency */
        uint64_t lat = pk->node >= t->first_spine ? sc->fabric.spine_latency_ps
                                                  : sc->fabric.leaf_latency_ps;
        uint64_t hop = topo_delay(t, &t->ports[path[k - 1]]) + lat;
        uint64_t arrive = dq + hop;
        if (pk->bps != sbps) { /* hops mostly share a speed: divide once */
            sbps = pk->bps;
            sp = units_ser_ps(p, sbps);
            sq = units_ser_ps(q, sbps);
        }
        dp += hop + sp;
        dq = (p && dp > arrive ? dp : arrive) + sq;
    }
    return dq - gap + topo_delay(t, &t->ports[path[np - 1]]);
}

/* fst: the state (0 not started, 1 sending, 2 done, 3 not finished) in
 * the low bits, the transfer's kind (its bound memo slot) above them */
#define FST_STATE 3u
#define FST_KIND 2
_Static_assert(BOUND_MEMO_SLOTS <= 256 >> FST_KIND && BOUND_MEMO_SLOTS <= 64,
               "a kind fits fst's bits above the state and kind_set's bits");

/* The latest a first packet can reach each resource the bound (bound.h)
 * counts, over the transfers through it: so a flow's latency, added when
 * its last byte leaves, keeps every resource's bound (set-up only). */
struct heads {
    uint64_t *up;     /* [2 x leaf index]: its uplinks out, its links in */
    uint64_t *pod;    /* [2 x pod] (topo n_pods): its spines' links up, down */
    uint64_t *dst;    /* [endpoint]: its leaf's port down to it */
    uint64_t *store;  /* [endpoint]: the first arrival at it */
    struct bound_memo *memo; /* bound_path of each kind of transfer, once */
    /* A kind (a memo slot: size, cap, hops' speeds, delays and tiers) fixes
     * a transfer's path latency and the bound's alone term; only the heads
     * depend on where it runs. So a finish reads them by the kind set-up
     * found (fst) rather than its route's ports: kinds 1 while every
     * transfer's kind is in fst and its finish reads the path set-up gave
     * the heads; kind[s] once a finish of kind s worked it out. */
    int kinds;
    uint64_t kind_set; /* bit s: kind[s] filled */
    struct {
        uint64_t lat, alone; /* flow_latency_ps; the alone term less its bytes' time */
    } kind[BOUND_MEMO_SLOTS];
};

static int heads_init(struct heads *hd, const struct topo *t)
{
    hd->up = calloc(2 * (size_t)t->n_leaves, sizeof *hd->up);
    hd->dst = calloc(t->first_cleaf, sizeof *hd->dst);
    hd->store = calloc(t->first_cleaf, sizeof *hd->store);
    hd->pod = calloc(2 * (size_t)t->n_pods + 1, sizeof *hd->pod); /* no pods: none */
    hd->memo = calloc(1, sizeof *hd->memo);
    if (!hd->memo || !hd->up || !hd->dst || !hd->store || !hd->pod)
        return -1;
    return 0;
}

#define HEADS_FIND (-2) /* heads_kind looks the kind up */

/* Whether w hands on the kinds of the bound's pass (ckpt_prepare) over
 * the routes set-up's heads take, in the order they take them, for this
 * scenario and fabric: its memo ends as the heads' would, and no kind is
 * looked up twice. */
static int kinds_handed(const struct workload *w, const struct scenario *sc,
                        const struct topo *t)
{
    return w->kind && w->kind_memo && w->kind_of == w->xfers && w->kind_sc == sc &&
           w->kind_t == t;
}

/* Transfer i's kind as handed on, for heads_kind (-1: none). */
static int handed_kind(const struct workload *w, uint32_t i)
{
    return (int)w->kind[i] - 1;
}

/* Transfer x's bound_path on path[0..np) (workload_path's) and into *kind
 * its kind (the memo slot); NULL when it adds nothing to the heads.
 * given: its kind as the bound's pass over the same routes found it (-1
 * none; the memo is then that pass's, copied), or HEADS_FIND. */
static const struct bound_path *heads_kind(struct heads *hd, const struct topo *t,
                                           const struct scenario *sc, const struct transfer *x,
                                           uint64_t rate, const uint32_t *path, uint32_t np,
                                           int given, struct bound_path *scratch, int *kind)
{
    if (!x->bytes || np < 2 || given == -1)
        return NULL;
    const struct bound_path *bp;
    if (given == HEADS_FIND) {
        bp = bound_path_find(hd->memo, t, sc, x, rate, path, np, scratch);
        *kind = (int)hd->memo->last;
    } else {
        /* the slot as the pass left it; filled again since: worked out */
        bp = bound_memo_slot(hd->memo, (uint32_t)given);
        if (!bp) {
            bound_path(t, sc, x, rate, path, np, scratch);
            bp = scratch;
        }
        *kind = given;
    }
    return bp->np < 2 ? NULL : bp;
}

/* Transfer x's first packet, on path[0..np), into the heads: set-up adds
 * each while it reads the transfer's path anyway. Returns its kind, or -1
 * when it adds nothing. */
static int heads_add(struct heads *hd, const struct topo *t, const struct scenario *sc,
                     const struct transfer *x, uint64_t rate, const uint32_t *path, uint32_t np,
                     int given)
{
    struct bound_path scratch;
    int kind = -1;
    const struct bound_path *bp = heads_kind(hd, t, sc, x, rate, path, np, given, &scratch, &kind);
    if (!bp)
        return -1;
    uint32_t k = np - 1, sl = topo_leaf_index(t, t->nodes[x->src].leaf);
    uint32_t dl = topo_leaf_index(t, t->nodes[x->dst].leaf);
    if (bp->head[1] > hd->up[2 * sl])
        hd->up[2 * sl] = bp->head[1];
    if (bp->head[k - 1] > hd->up[2 * dl + 1])
        hd->up[2 * dl + 1] = bp->head[k - 1];
    if (k >= 4) { /* three tiers, between pods */
        uint32_t sp = t->nodes[t->nodes[x->src].leaf].pod;
        uint32_t dp = t->nodes[t->nodes[x->dst].leaf].pod;
        if (bp->head[2] > hd->pod[2 * sp])
            hd->pod[2 * sp] = bp->head[2];
        if (bp->head[k - 2] > hd->pod[2 * dp + 1])
            hd->pod[2 * dp + 1] = bp->head[k - 2];
    }
    if (bp->head[k] > hd->dst[x->dst])
        hd->dst[x->dst] = bp->head[k];
    if (bp->arrive > hd->store[x->dst])
        hd->store[x->dst] = bp->arrive;
    return kind;
}

static void heads_release(struct heads *hd)
{
    free(hd->up);
    free(hd->dst);
    free(hd->store);
    free(hd->pod);
    free(hd->memo);
}

static uint32_t u64_differ(const uint64_t *a, const uint64_t *b, size_t n)
{
    uint32_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += a[i] != b[i];
    return d;
}

/* Whether two bound_paths agree (the hops past np are not theirs). */
static int same_path(const struct bound_path *p, const struct bound_path *q)
{
    int same = p->np == q->np && p->alone_hop == q->alone_hop && p->arrive == q->arrive &&
               p->alone == q->alone;
    for (uint32_t j = 0; same && j < p->np && j < TOPO_MAX_HOPS; j++)
        same = p->head[j] == q->head[j] && p->tail[j] == q->tail[j];
    return same;
}

int64_t fluid_heads_mismatches(const struct scenario *sc, const struct topo *t,
                               const struct workload *w)
{
    if (!kinds_handed(w, sc, t))
        return -1;
    struct heads a = {0}, b = {0};
    int64_t bad = -1;
    if (heads_init(&a, t) == 0 && heads_init(&b, t) == 0) {
        *a.memo = *w->kind_memo;
        bad = 0;
        for (uint32_t i = 0; i < w->n; i++) {
            const struct transfer *x = &w->xfers[i];
            uint32_t path[TOPO_MAX_HOPS], k = x->bytes ? workload_path(w, t, i, path) : 0;
            struct bound_path sa, sb;
            int ka = -1, kb = -1;
            uint64_t rate = workload_rate(w, i);
            const struct bound_path *pa = heads_kind(&a, t, sc, x, rate, path, k,
                                                     handed_kind(w, i), &sa, &ka);
            const struct bound_path *pb = heads_kind(&b, t, sc, x, rate, path, k, HEADS_FIND,
                                                     &sb, &kb);
            bad += ka != kb || !pa != !pb || (pa && !same_path(pa, pb));
            /* the heads, each side from its kinds */
            heads_add(&a, t, sc, x, rate, path, k, handed_kind(w, i));
            heads_add(&b, t, sc, x, rate, path, k, kb);
        }
        bad += u64_differ(a.up, b.up, 2 * (size_t)t->n_leaves) +
               u64_differ(a.pod, b.pod, 2 * (size_t)t->n_pods) +
               u64_differ(a.dst, b.dst, t->first_cleaf) +
               u64_differ(a.store, b.store, t->first_cleaf);
        /* the memo as set-up leaves it: what the finishes read by kind */
        bad += a.memo->last != b.memo->last || a.memo->evicted != b.memo->evicted;
        for (uint32_t s = 0; s < BOUND_MEMO_SLOTS; s++)
            bad += a.memo->e[s].ret != b.memo->e[s].ret ||
                   memcmp(a.memo->e[s].key, b.memo->e[s].key, sizeof a.memo->e[s].key) ||
                   !same_path(&a.memo->e[s].bp, &b.memo->e[s].bp);
    }
    heads_release(&a);
    heads_release(&b);
    return bad;
}

/* No less than the bound allows once the last byte has left: a flow's
 * bytes reach a later resource no earlier than the first packet's way in
 * (the latest of its flows': in a fluid they flow at once) and its last
 * packet has the way on; one alone has its packet-by-packet time, less its
 * bytes' time at its pace (alone, alone_less). bp: x's bound_path. */
static inline uint64_t u64_max(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t bound_latency_ps(const struct topo *t, const struct heads *hd,
                                 const struct transfer *x, const struct bound_path *bp,
                                 uint64_t alone, int buffered)
{
    uint32_t k = bp->np - 1, sl = topo_leaf_index(t, t->nodes[x->src].leaf);
    uint32_t dl = topo_leaf_index(t, t->nodes[x->dst].leaf);
    /* the latest of the terms, taken as they come (no array to scan) */
    uint64_t m = bp->tail[0];
    m = u64_max(m, hd->dst[x->dst] + bp->tail[k]);
    if (sl != dl) {
        m = u64_max(m, hd->up[2 * sl] + bp->tail[1]);
        m = u64_max(m, hd->up[2 * dl + 1] + bp->tail[k - 1]);
    }
    if (k >= 4) { /* three tiers, between pods: the pods' links to the super-spines */
        m = u64_max(m, hd->pod[2 * t->nodes[t->nodes[x->src].leaf].pod] + bp->tail[2]);
        m = u64_max(m, hd->pod[2 * t->nodes[t->nodes[x->dst].leaf].pod + 1] + bp->tail[k - 2]);
    }
    if (buffered)
        m = u64_max(m, hd->store[x->dst]);
    m = u64_max(m, alone);
    return m;
}

/* The alone term of bp less a flow's wire bytes' time at pace. */
static uint64_t alone_less(const struct bound_path *bp, uint64_t wire, uint64_t pace)
{
    uint64_t moved = units_ser_ps(wire, pace) - 1; /* at least: after() rounds up */
    return bp->alone > moved ? bp->alone - moved : 0;
}

/* The links of a flow with the share of its rate on each, grown as needed
 * (set-up only). */
struct lset {
    uint32_t *link;
    double *w;
    uint32_t n, cap;
    int in_arena;           /* link is the engine arena's: the solver keeps it */
    /* spread()'s scratch, allocated at its first use (lset_free) */
    uint32_t *slot;         /* [nodes]: index in the next frontier, or UINT32_MAX */
    uint32_t *fnode[2];     /* frontiers: switches reached at this hop and the next */
    double *fshare[2];
};

static void lset_free(struct lset *s)
{
    free(s->link);
    free(s->w);
    free(s->slot);
    for (int i = 0; i < 2; i++) {
        free(s->fnode[i]);
        free(s->fshare[i]);
    }
}

/* Weights stay unallocated while all are 1 (one path per flow): the whole
 * run's list is then half the memory. */
static double lset_w(const struct lset *s, uint32_t i)
{
    return s->w ? s->w[i] : 1.0;
}

static int lset_weights(struct lset *s)
{
    if (s->w)
        return 0;
    s->w = malloc((s->cap ? s->cap : 1) * sizeof *s->w);
    if (!s->w)
        return -1;
    for (uint32_t i = 0; i < s->n; i++)
        s->w[i] = 1.0;
    return 0;
}

/* Room for cap entries (no less than now): lset_push doubles; the whole
 * run's list takes its size at once, else every doubling would copy it. */
static int lset_reserve(struct lset *s, uint32_t cap)
{
    if (cap <= s->cap)
        return 0;
    uint32_t *l = realloc(s->in_arena ? NULL : s->link, cap * sizeof *l);
    if (!l)
        return -1;
    if (s->in_arena) /* outgrew its room: the solver copies it after all */
        memcpy(l, s->link, s->n * sizeof *l);
    s->in_arena = 0;
    s->link = l;
    if (s->w) {
        double *w2 = realloc(s->w, cap * sizeof *w2);
        if (!w2)
            return -1;
        s->w = w2;
    }
    s->cap = cap;
    return 0;
}

/* lset_push when the arrays are full or weights are new. */
static int lset_push_slow(struct lset *s, uint32_t link, double w, uint32_t first_cap)
{
    if (s->n == s->cap && lset_reserve(s, s->cap ? 2 * s->cap : first_cap) < 0)
        return -1;
    if (w != 1.0 && lset_weights(s) < 0)
        return -1;
    s->link[s->n] = link;
    if (s->w)
        s->w[s->n] = w;
    s->n++;
    return 0;
}

/* Append (link, w), growing the arrays from first_cap entries. Inline for
 * the common case (room, all weights 1): set-up and can_congest push
 * every transfer's links, millions at scale. */
static inline int lset_push(struct lset *s, uint32_t link, double w, uint32_t first_cap)
{
    if (s->n == s->cap || (w != 1.0 && !s->w))
        return lset_push_slow(s, link, w, first_cap);
    s->link[s->n] = link;
    if (s->w)
        s->w[s->n] = w;
    s->n++;
    return 0;
}

static inline int lset_add(struct lset *s, uint32_t link, double w)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->link[i] == link) {
            if (lset_weights(s) < 0)
                return -1;
            s->w[i] += w;
            return 0;
        }
    return lset_push(s, link, w, 64);
}

/* Append without looking for duplicates (the whole run's list). */
static int lset_add_new(struct lset *s, uint32_t link, double w)
{
    return lset_push(s, link, w, 1024);
}

/* Every equal-cost path from switch `node` on, each taking an equal share.
 * Hop by hop: the shares of the paths through a switch are summed before it
 * splits them, so the cost is the edges of the up-down graph, not its paths
 * (which multiply with every tier). Each edge is reached once: its port is
 * new to s. */
static int spread(const struct topo *t, uint32_t node, uint32_t dst, struct lset *s)
{
    uint32_t dleaf = t->nodes[dst].leaf, nn = t->n_nodes;
    if (!s->slot) {
        s->slot = malloc((size_t)nn * sizeof *s->slot);
        for (int i = 0; i < 2; i++) {
            s->fnode[i] = malloc((size_t)nn * sizeof *s->fnode[i]);
            s->fshare[i] = malloc((size_t)nn * sizeof *s->fshare[i]);
        }
        if (!s->slot || !s->fnode[0] || !s->fnode[1] || !s->fshare[0] || !s->fshare[1])
            return -1;
        for (uint32_t i = 0; i < nn; i++)
            s->slot[i] = UINT32_MAX;
    }
    uint32_t *cur = s->fnode[0], *nxt = s->fnode[1], ncur = 1, nnxt;
    double *cs = s->fshare[0], *ns = s->fshare[1];
    cur[0] = node;
    cs[0] = 1.0;
    for (int depth = 0; ncur; depth++) {
        if (depth > TOPO_MAX_HOPS)
            return -1;
        nnxt = 0;
        for (uint32_t k = 0; k < ncur; k++) {
            uint32_t v = cur[k];
            if (v == dleaf) { /* every path ends here at the same hop */
                if (lset_add(s, t->nodes[dst].leaf_port, cs[k]) < 0)
                    return -1;
                continue;
            }
            const struct route *r = topo_route(t, v, dleaf);
            if (r->cnt == 0)
                return -1;
            double sh = cs[k] / r->cnt;
            for (uint32_t i = 0; i < r->cnt; i++) {
                uint32_t p = t->nh_ports[r->off + i], u = t->ports[p].peer;
                u = t->ports[u].node;
                if (lset_add_new(s, p, sh) < 0)
                    return -1;
                if (s->slot[u] == UINT32_MAX) {
                    s->slot[u] = nnxt;
                    nxt[nnxt] = u;
                    ns[nnxt++] = 0;
                }
                ns[s->slot[u]] += sh;
            }
        }
        for (uint32_t k = 0; k < nnxt; k++)
            s->slot[nxt[k]] = UINT32_MAX;
        uint32_t *tn = cur;
        double *ts = cs;
        cur = nxt;
        cs = ns;
        nxt = tn;
        ns = ts;
        ncur = nnxt;
    }
    return 0;
}

/* WCMP: the packet engine's choice, the flow hash over next hops weighted by
 * the capacity behind them (topo nh_weight). */
static uint32_t wcmp_path(const struct topo *t, const struct transfer *x, uint32_t *ports)
{
    uint32_t n = 0, dleaf = t->nodes[x->dst].leaf;
    ports[n++] = t->nodes[x->src].first_port;
    uint32_t node = t->ports[t->ports[ports[0]].peer].node;
    while (n < TOPO_MAX_HOPS) {
        if (node == dleaf) {
            ports[n++] = t->nodes[x->dst].leaf_port;
            return n;
        }
        const struct route *r = topo_route(t, node, dleaf);
        if (r->cnt == 0)
            return 0;
        uint32_t pick = 0;
        if (r->cnt > 1) {
            uint64_t h = topo_flow_hash(t->ecmp_seed[topo_switch_index(t, node)], x->src,
                                        x->dst, x->sport, ROCE_UDP_PORT);
            uint64_t total = 0;
            for (uint32_t i = 0; t->nh_weight && i < r->cnt; i++)
                total += t->nh_weight[r->off + i];
            if (!total) {
                pick = (uint32_t)(h % r->cnt);
            } else {
                uint64_t v = h % total;
                for (pick = 0; pick + 1 < r->cnt && v >= t->nh_weight[r->off + pick]; pick++)
                    v -= t->nh_weight[r->off + pick];
            }
        }
        ports[n++] = t->nh_ports[r->off + pick];
        node = t->ports[t->ports[ports[n - 1]].peer].node;
    }
    return 0;
}

/* The spread of each (source leaf, destination leaf) pair, computed once:
 * every transfer between the two leaves splits the same way, its own
 * entries being its NIC's uplink and the destination leaf's port down to
 * its endpoint (the spread's last entry, where every path ends). */
struct spread_cache {
    uint32_t *key;      /* [cap] source leaf, destination leaf, pairs; UINT32_MAX empty */
    uint32_t *off;      /* [cap] its entries in pool; UINT32_MAX = no route */
    uint32_t *len;
    uint32_t *gid;      /* [cap] its group (grouped solver), MM_NIL: none */
    uint32_t cap, n;
    uint32_t *gslot, ng, gcap; /* per group: its slot */
    struct lset pool;   /* every pair's spread, as spread() left it */
    struct lset tmp;    /* spread()'s output and scratch */
};

static void spread_cache_free(struct spread_cache *c)
{
    if (!c)
        return;
    free(c->key);
    free(c->off);
    free(c->len);
    free(c->gid);
    free(c->gslot);
    free(c->pool.link);
    free(c->pool.w);
    lset_free(&c->tmp);
    memset(c, 0, sizeof *c);
}

static uint32_t pair_slot(const struct spread_cache *c, uint32_t sl, uint32_t dl)
{
    /* the pair modulo a prime: mixes both ids without wrapping */
    uint64_t h = ((uint64_t)sl << 32 | dl) % UINT64_C(4294967291);
    uint32_t i = (uint32_t)h & (c->cap - 1);
    while (c->key[2 * i] != UINT32_MAX && (c->key[2 * i] != sl || c->key[2 * i + 1] != dl))
        i = (i + 1) & (c->cap - 1);
    return i;
}

static int spread_cache_grow(struct spread_cache *c)
{
    struct spread_cache o = *c;
    uint32_t cap = o.cap ? 2 * o.cap : 64;
    c->key = malloc((size_t)cap * 2 * sizeof *c->key);
    c->off = malloc((size_t)cap * sizeof *c->off);
    c->len = malloc((size_t)cap * sizeof *c->len);
    c->gid = malloc((size_t)cap * sizeof *c->gid);
    if (!c->key || !c->off || !c->len || !c->gid) {
        free(c->key);
        free(c->off);
        free(c->len);
        free(c->gid);
        c->key = o.key, c->off = o.off, c->len = o.len, c->gid = o.gid;
        return -1;
    }
    c->cap = cap;
    for (uint32_t i = 0; i < 2 * cap; i++)
        c->key[i] = UINT32_MAX;
    for (uint32_t i = 0; i < o.cap; i++)
        if (o.key[2 * i] != UINT32_MAX) {
            uint32_t j = pair_slot(c, o.key[2 * i], o.key[2 * i + 1]);
            c->key[2 * j] = o.key[2 * i];
            c->key[2 * j + 1] = o.key[2 * i + 1];
            c->off[j] = o.off[i];
            c->len[j] = o.len[i];
            c->gid[j] = o.gid[i];
            if (o.gid[i] != MM_NIL)
                c->gslot[o.gid[i]] = j;
        }
    free(o.key);
    free(o.off);
    free(o.len);
    free(o.gid);
    return 0;
}

/* The slot of the pair (switch `node`, dst's leaf), its spread computed
 * when new; a pair with links between the leaves is a group (gid). */
static int pair_get(const struct topo *t, uint32_t node, uint32_t dst, struct spread_cache *c,
                    uint32_t *slot)
{
    uint32_t dl = t->nodes[dst].leaf;
    if (2 * (c->n + 1) > c->cap && spread_cache_grow(c) < 0)
        return -1;
    uint32_t i = pair_slot(c, node, dl);
    if (c->key[2 * i] == UINT32_MAX) {
        c->tmp.n = 0;
        int ok = spread(t, node, dst, &c->tmp) == 0 && c->tmp.n > 0;
        c->key[2 * i] = node;
        c->key[2 * i + 1] = dl;
        c->off[i] = ok ? c->pool.n : UINT32_MAX;
        c->len[i] = ok ? c->tmp.n : 0;
        c->gid[i] = MM_NIL;
        c->n++;
        for (uint32_t j = 0; ok && j < c->tmp.n; j++)
            if (lset_push(&c->pool, c->tmp.link[j], lset_w(&c->tmp, j), 1024) < 0)
                return -1;
        if (ok && c->tmp.n > 1) {
            if (c->ng == c->gcap) {
                uint32_t gcap = c->gcap ? 2 * c->gcap : 64;
                uint32_t *g = realloc(c->gslot, gcap * sizeof *g);
                if (!g)
                    return -1;
                c->gslot = g;
                c->gcap = gcap;
            }
            c->gslot[c->ng] = i;
            c->gid[i] = c->ng++;
        }
    }
    *slot = i;
    return c->off[i] == UINT32_MAX ? -1 : 0;
}

/* Append to s the spread from switch `node` to dst, as spread(t, node, dst,
 * s) would: the pair's entries, the last one's port dst's own. */
static int spread_grouped(const struct topo *t, uint32_t node, uint32_t dst,
                          struct spread_cache *c, struct lset *s)
{
    uint32_t i;
    if (pair_get(t, node, dst, c, &i) < 0)
        return -1;
    for (uint32_t j = 0; j < c->len[i]; j++) {
        uint32_t k = c->off[i] + j;
        uint32_t port = j + 1 == c->len[i] ? t->nodes[dst].leaf_port : c->pool.link[k];
        /* as spread() adds them: the last one merged with a duplicate */
        if ((j + 1 == c->len[i] ? lset_add(s, port, lset_w(&c->pool, k))
                                : lset_add_new(s, port, lset_w(&c->pool, k))) < 0)
            return -1;
    }
    return 0;
}

/* Whether a transfer is spread evenly over every equal-cost path. */
static int flow_split(const struct scenario *sc)
{
    return lb_grain(sc) == LB_PER_PACKET;
}

/* The links transfer x loads and its share on each: the one path the packet
 * engine's switches pick for ecmp, flowlet (its first flowlet; a flow at line
 * rate has no gaps) and wcmp; an even split over all equal-cost paths for
 * spray and per-packet adaptive routing, which balance every link. Adaptive
 * routing per flowlet places a flow once, on the least loaded port at its
 * start: a placement per flow, here the ECMP one. path[0..np) is one of the
 * paths, for the latency. Returns 0, or -1 when there is no path (or no
 * memory). */
static int flow_links(const struct topo *t, const struct scenario *sc,
                      const struct workload *w, uint32_t xi, const struct transfer *x,
                      struct spread_cache *c, struct lset *s, uint32_t *path, uint32_t *np)
{
    int split = flow_split(sc);
    int weighted = lb_scheme(sc->fabric.load_balancing)->fluid_path == LB_FLUID_WEIGHTED;
    *np = weighted ? wcmp_path(t, x, path)
          : w      ? workload_path(w, t, xi, path)
                   : topo_path(t, x->src, x->dst, x->sport, path, TOPO_MAX_HOPS);
    if (*np == 0)
        return -1;
    s->n = 0;
    if (!split) {
        /* a route's ports are distinct: its tables are per destination and
         * its hash per switch, so a walk back at a switch would go round
         * for ever and yield no route; no duplicate scan */
        for (uint32_t i = 0; i < *np; i++)
            if (lset_push(s, path[i], 1.0, 64) < 0)
                return -1;
        return 0;
    }
    uint32_t nic = t->nodes[x->src].first_port;
    if (lset_add(s, nic, 1.0) < 0)
        return -1;
    uint32_t leaf = t->ports[t->ports[nic].peer].node;
    return c ? spread_grouped(t, leaf, x->dst, c, s) : spread(t, leaf, x->dst, s);
}

/* The grouped solver's view of a sprayed transfer: into s its own links
 * (its NIC, its destination's leaf port with the spread's share there), and
 * its leaf pair's group (MM_NIL on one leaf), whose links c holds once. */
static int flow_own_links(const struct topo *t, const struct transfer *x,
                          struct spread_cache *c, struct lset *s, uint32_t *gid)
{
    uint32_t nic = t->nodes[x->src].first_port, i;
    s->n = 0;
    if (lset_add(s, nic, 1.0) < 0 ||
        pair_get(t, t->ports[t->ports[nic].peer].node, x->dst, c, &i) < 0)
        return -1;
    *gid = c->gid[i];
    return lset_add(s, t->nodes[x->dst].leaf_port, lset_w(&c->pool, c->off[i] + c->len[i] - 1));
}

static void sort_keys(void *keys, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Whether fluid_run holds spray's leaf pairs as solver groups: three tiers,
 * and no training flows beside the checkpoint in its solver (setup). */
static int groups_on(const struct scenario *sc, const struct topo *t, const struct workload *w)
{
    const struct training *tr = w->train;
    return t->tiers >= 3 && flow_split(sc) && !(tr && tr->on && tr->on_fabric && tr->n);
}

struct pair_key {
    uint64_t pair; /* source leaf << 32 | destination leaf */
    uint32_t dst;
};

static int cmp_pair(const void *a, const void *b)
{
    const struct pair_key *x = a, *y = b;
    return x->pair < y->pair ? -1 : x->pair > y->pair;
}

/* The grouped solver's entries: each transfer's own two (its NIC, its
 * destination's port) and, once a leaf pair, the pair's middle links: the
 * distinct pairs times the mean over up to 64 of them spaced through the
 * list. Returns the own entries, *group the pairs'; -1 without memory. */
static double grouped_entries(const struct topo *t, const struct workload *w, double *group)
{
    struct pair_key *k = malloc((w->n ? w->n : 1) * sizeof *k);
    if (!k)
        return -1;
    uint32_t n = 0, u = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        const struct transfer *x = &w->xfers[i];
        uint32_t nic = t->nodes[x->src].first_port;
        if (x->bytes)
            k[n++] = (struct pair_key){(uint64_t)t->ports[t->ports[nic].peer].node << 32 |
                                           t->nodes[x->dst].leaf, x->dst};
    }
    sort_keys(k, n, sizeof *k, cmp_pair);
    for (uint32_t i = 0; i < n; i++)
        if (!u || k[i].pair != k[u - 1].pair)
            k[u++] = k[i];
    struct lset one = {0};
    uint32_t step = u > 64 ? u / 64 : 1, m = 0;
    double sum = 0;
    for (uint32_t i = 0; i < u; i += step, m++) {
        one.n = 0;
        if (spread(t, (uint32_t)(k[i].pair >> 32), k[i].dst, &one) == 0 && one.n > 1)
            sum += one.n - 1; /* the last is the destination's port: a member's own */
    }
    lset_free(&one);
    free(k);
    *group = m ? sum / m * u : 0;
    return 2.0 * n;
}

/* Path entries (link, share) the engine will hold for w's transfers: each
 * path's length for one path a flow; for flows split over every equal-cost
 * path (spray), the mean over up to 64 transfers spaced through the list,
 * times their number, or with the solver's leaf-pair groups each
 * transfer's own and its pair's once (describe's estimate of memory and
 * time). */
double fluid_path_entries(const struct scenario *sc, const struct topo *t,
                          const struct workload *w, double *group)
{
    int split = flow_split(sc);
    *group = 0;
    if (split && groups_on(sc, t, w)) {
        double own = grouped_entries(t, w, group);
        if (own >= 0)
            return own;
        *group = 0; /* no memory to count pairs: every transfer's split */
    }
    uint32_t n = w->n, step = split && n > 64 ? n / 64 : 1, k = 0;
    struct lset one = {0};
    double sum = 0;
    for (uint32_t i = 0; i < n; i += step) {
        uint32_t path[TOPO_MAX_HOPS], np;
        if (!w->xfers[i].bytes)
            continue;
        if (split ? flow_links(t, sc, w, i, &w->xfers[i], NULL, &one, path, &np) == 0
                  : (np = workload_path(w, t, i, path)) > 0) {
            sum += split ? one.n : np;
            k++;
        }
    }
    lset_free(&one);
    return k ? sum / k * n : 0;
}

uint32_t fluid_grouped_mismatches(const struct scenario *sc, const struct topo *t,
                                  const struct workload *w, uint64_t *entries)
{
    struct lset a = {0}, b = {0};
    struct spread_cache pairs = {0};
    uint32_t bad = 0;
    *entries = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t pa[TOPO_MAX_HOPS], pb[TOPO_MAX_HOPS], na, nb;
        int ra = flow_links(t, sc, w, i, &w->xfers[i], NULL, &a, pa, &na);
        int rb = flow_links(t, sc, w, i, &w->xfers[i], &pairs, &b, pb, &nb);
        int same = ra == rb && (ra < 0 || a.n == b.n);
        for (uint32_t j = 0; same && ra == 0 && j < a.n; j++)
            same = a.link[j] == b.link[j] && lset_w(&a, j) == lset_w(&b, j);
        bad += !same;
        *entries += ra == 0 ? a.n : 0;
    }
    lset_free(&a);
    lset_free(&b);
    spread_cache_free(&pairs);
    return bad;
}

/* ---- what the fluid figure ignores -------------------------------------- */

/* qsort unless already in order (the workload mostly lists transfers by
 * source and start): the keys are distinct, so the order is the same. */
static void sort_keys(void *keys, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    const char *k = keys;
    for (size_t i = 1; i < n; i++)
        if (cmp(k + (i - 1) * size, k + i * size) > 0) {
            qsort(keys, n, size, cmp);
            return;
        }
}

struct src_key {
    uint32_t src, id;
};

static int cmp_src(const void *a, const void *b)
{
    const struct src_key *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The verdict from what each port is offered (and its round trips' span,
 * rmin and rmax, for *rtt_spread when not NULL). */
static int congest_of(const struct scenario *sc, const struct topo *t, const double *offered,
                      const uint64_t *rmin, const uint64_t *rmax, int *rtt_spread)
{
    int congest = 0;
    for (uint32_t l = 0; rtt_spread && rmin && rmax && l < t->n_ports; l++)
        if (!t->ports[l].failed && offered[l] > (double)t->ports[l].bps * (1 + FULL_TOL) &&
            (double)rmax[l] > 1.1 * (double)rmin[l])
            *rtt_spread = 1;
    for (uint32_t l = 0; !congest && l < t->n_ports; l++)
        congest = !t->ports[l].failed && offered[l] > (double)t->ports[l].bps * (1 + FULL_TOL);
    /* a node's back end: what all its NICs offer */
    uint32_t sk = sc->storage.nics_per_node > 1 ? sc->storage.nics_per_node : 1;
    for (uint32_t j = 0; !congest && sc->storage.ingest_buffer && j < t->n_storage; j += sk) {
        double in = 0;
        for (uint32_t q = j; q < j + sk && q < t->n_storage; q++)
            in += offered[t->nodes[t->first_storage + q].leaf_port];
        congest = in > 0 && (j / sk < sc->storage.stuck_nodes ||
                             (sc->storage.drain_bps && in > (double)sc->storage.drain_bps));
    }
    return congest;
}

static int can_congest_into(const struct scenario *sc, const struct topo *t,
                            const struct workload *w, int *rtt_spread, double **keep,
                            uint64_t **keep_rmin, uint64_t **keep_rmax);

/* Whether some queue can build: a link offered more than it carries, with
 * every transfer sending at once at its rate (NIC, or its queue pair's cap)
 * over the links this engine routes it on, a source's sum on a link at most
 * its NIC (time ignored: "can"); or a storage node that pushes back (a finite
 * ingest buffer ahead of a stuck back end, or of one slower than what can
 * arrive). 1 when memory runs out: the caution errs on the safe side.
 * With rtt_spread: whether flows whose base round trips differ by more than
 * a tenth share a link offered more than it carries (TCP's shares there
 * follow 1 / RTT, not max-min). */
static int can_congest(const struct scenario *sc, const struct topo *t,
                       const struct workload *w, int *rtt_spread)
{
    return can_congest_into(sc, t, w, rtt_spread, NULL, NULL, NULL);
}

/* can_congest, handing its offered loads (and round trips) to the caller
 * in *keep (*keep_rmin, *keep_rmax) when not NULL (tests). */
static int can_congest_into(const struct scenario *sc, const struct topo *t,
                            const struct workload *w, int *rtt_spread, double **keep,
                            uint64_t **keep_rmin, uint64_t **keep_rmax)
{
    double *offered = calloc(t->n_ports, sizeof *offered);
    double *mine = calloc(t->n_ports, sizeof *mine);
    struct src_key *keys = malloc((w->n ? w->n : 1) * sizeof *keys);
    struct lset one = {0}, touched = {0};
    struct spread_cache pairs = {0};
    uint64_t *rmin = rtt_spread ? malloc((t->n_ports ? t->n_ports : 1) * sizeof *rmin) : NULL;
    uint64_t *rmax = rtt_spread ? calloc(t->n_ports ? t->n_ports : 1, sizeof *rmax) : NULL;
    int congest = !offered || !mine || !keys || (rtt_spread && (!rmin || !rmax));
    for (uint32_t l = 0; rmin && l < t->n_ports; l++)
        rmin[l] = UINT64_MAX;
    uint32_t nk = 0;
    int split = flow_split(sc);
    for (uint32_t i = 0; !congest && i < w->n; i++)
        if (w->xfers[i].bytes)
            keys[nk++] = (struct src_key){w->xfers[i].src, i};
    if (!congest)
        sort_keys(keys, nk, sizeof *keys, cmp_src);
    for (uint32_t k = 0; !congest && k < nk; k++) {
        const struct transfer *x = &w->xfers[keys[k].id];
        uint32_t path[TOPO_MAX_HOPS], np;
        double nic = (double)t->ports[t->nodes[x->src].first_port].bps;
        double cap = (double)workload_rate(w, keys[k].id);
        double rate = cap && cap < nic ? cap : nic;
        /* split: the pair's middle links read where the cache keeps them,
         * not copied a transfer (thousands on three tiers) */
        uint32_t own = 0, mid = 0, mlen = 0;
        if (split) {
            np = workload_path(w, t, keys[k].id, path);
            if (!np || flow_own_links(t, x, &pairs, &one, &own) < 0)
                continue; /* no path: the run reports it */
            uint32_t sl = pair_slot(&pairs, t->ports[t->ports[one.link[0]].peer].node,
                                    t->nodes[x->dst].leaf);
            mid = pairs.off[sl];
            mlen = pairs.len[sl] - 1;
        } else if (flow_links(t, sc, w, keys[k].id, x, &pairs, &one, path, &np) < 0) {
            continue; /* no path: the run reports it */
        }
        if (rmin) { /* base round trip: each hop's cable and switch, twice */
            uint64_t rtt = 0;
            for (uint32_t j = 0; j < np; j++)
                rtt += 2 * (topo_delay(t, &t->ports[path[j]]) +
                            (j ? (t->ports[path[j]].node >= t->first_spine
                                      ? sc->fabric.spine_latency_ps
                                      : sc->fabric.leaf_latency_ps)
                               : 0));
            for (uint32_t j = 0; j < one.n + mlen; j++) {
                uint32_t l = j < one.n ? one.link[j] : pairs.pool.link[mid + j - one.n];
                rmin[l] = rtt < rmin[l] ? rtt : rmin[l];
                rmax[l] = rtt > rmax[l] ? rtt : rmax[l];
            }
        }
        for (uint32_t j = 0; j < one.n; j++) {
            if (mine[one.link[j]] == 0 && lset_push(&touched, one.link[j], 0, 64) < 0) {
                congest = 1;
                break;
            }
            mine[one.link[j]] += lset_w(&one, j) * rate;
        }
        for (uint32_t j = mid; !congest && j < mid + mlen; j++) { /* the pair's middle links */
            uint32_t l = pairs.pool.link[j];
            if (mine[l] == 0 && lset_push(&touched, l, 0, 64) < 0)
                congest = 1;
            mine[l] += lset_w(&pairs.pool, j) * rate;
        }
        if (k + 1 < nk && keys[k + 1].src == x->src)
            continue;
        for (uint32_t j = 0; j < touched.n; j++) { /* the source's last transfer */
            uint32_t l = touched.link[j];
            offered[l] += mine[l] < nic ? mine[l] : nic;
            mine[l] = 0;
        }
        touched.n = 0;
    }
    if (!congest)
        congest = congest_of(sc, t, offered, rmin, rmax, rtt_spread);
    if (keep) {
        *keep = offered;
        *keep_rmin = rmin;
        *keep_rmax = rmax;
        offered = NULL;
        rmin = rmax = NULL;
    }
    free(offered);
    free(mine);
    free(keys);
    free(rmin);
    free(rmax);
    lset_free(&one);
    spread_cache_free(&pairs);
    free(touched.link);
    free(touched.w);
    return congest;
}

int fluid_load_begin(struct fluid_load *f, const struct scenario *sc, const struct topo *t)
{
    memset(f, 0, sizeof *f);
    f->sc = sc;
    f->t = t;
    f->src = 0;
    /* spray splits a transfer and WCMP routes it otherwise than the cache:
     * can_congest's own walk */
    if (flow_split(sc) || lb_scheme(sc->fabric.load_balancing)->fluid_path == LB_FLUID_WEIGHTED)
        return 0;
    size_t np = t->n_ports ? t->n_ports : 1;
    struct arena *a = &f->mem;
    arena_init(a);
    f->offered = arena_calloc(a, np, sizeof *f->offered);
    f->mine = arena_calloc(a, np, sizeof *f->mine);
    f->touched = arena_calloc(a, np, sizeof *f->touched);
    int tcp = cc_scheme(sc->transport.cc)->tcp;
    f->rmin = tcp ? arena_calloc(a, np, sizeof *f->rmin) : NULL;
    f->rmax = tcp ? arena_calloc(a, np, sizeof *f->rmax) : NULL;
    f->on = f->offered && f->mine && f->touched && (!tcp || (f->rmin && f->rmax));
    for (uint32_t l = 0; f->on && f->rmin && l < t->n_ports; l++)
        f->rmin[l] = UINT64_MAX;
    if (!f->on)
        fluid_load_end(f, NULL);
    return f->on;
}

/* The source summed so far onto the ports, at most its NIC on each. */
static void load_flush(struct fluid_load *f)
{
    for (uint32_t j = 0; j < f->nt; j++) {
        uint32_t l = f->touched[j];
        f->offered[l] += f->mine[l] < f->nic ? f->mine[l] : f->nic;
        f->mine[l] = 0;
    }
    f->nt = 0;
}

void fluid_load_add(struct fluid_load *f, const struct transfer *x, uint64_t cap,
                    const uint32_t *path, uint32_t np)
{
    const struct topo *t = f->t;
    if (!f->on || !x->bytes)
        return;
    if (!np || (f->seen && x->src < f->src)) {
        f->on = 0; /* can_congest's own walk: its order, its skips */
        return;
    }
    if (!f->seen || x->src != f->src) {
        load_flush(f);
        f->src = x->src;
        f->seen = 1;
        f->nic = (double)t->ports[t->nodes[x->src].first_port].bps;
    }
    double rate = cap && (double)cap < f->nic ? (double)cap : f->nic;
    uint64_t rtt = 0;
    /* base round trip: each hop's cable and switch, twice */
    for (uint32_t j = 0; f->rmin && j < np; j++)
        rtt += 2 * (topo_delay(t, &t->ports[path[j]]) +
                    (j ? (t->ports[path[j]].node >= t->first_spine ? f->sc->fabric.spine_latency_ps
                                                                   : f->sc->fabric.leaf_latency_ps)
                       : 0));
    /* a route's ports are distinct (flow_links): each one share */
    for (uint32_t j = 0; j < np; j++) {
        uint32_t l = path[j];
        if (f->rmin) {
            f->rmin[l] = rtt < f->rmin[l] ? rtt : f->rmin[l];
            f->rmax[l] = rtt > f->rmax[l] ? rtt : f->rmax[l];
        }
        if (f->mine[l] == 0 && f->nt == f->t->n_ports) {
            f->on = 0; /* zero rates listed again and again: can_congest's own walk */
            return;
        }
        if (f->mine[l] == 0)
            f->touched[f->nt++] = l;
        f->mine[l] += rate;
    }
}

void fluid_load_end(struct fluid_load *f, struct results *r)
{
    if (f->on && r) {
        load_flush(f);
        r->load_rtt_spread = 0;
        r->load_congest = congest_of(f->sc, f->t, f->offered, f->rmin, f->rmax,
                                     f->rmin ? &r->load_rtt_spread : NULL);
        r->load_known = 1;
    }
    arena_release(&f->mem);
    f->offered = f->mine = NULL;
    f->touched = NULL;
    f->rmin = f->rmax = NULL;
    f->on = 0;
}

uint32_t fluid_load_mismatches(const struct scenario *sc, const struct topo *t,
                               const struct workload *w, int *kept)
{
    struct fluid_load f;
    double *want = NULL;
    uint64_t *wmin = NULL, *wmax = NULL;
    int tcp = cc_scheme(sc->transport.cc)->tcp, spread = 0;
    *kept = fluid_load_begin(&f, sc, t);
    for (uint32_t i = 0; f.on && i < w->n; i++) {
        uint32_t path[TOPO_MAX_HOPS];
        uint32_t np = w->xfers[i].bytes ? workload_path(w, t, i, path) : 0;
        fluid_load_add(&f, &w->xfers[i], workload_rate(w, i), path, np);
    }
    *kept = f.on;
    if (f.on)
        load_flush(&f);
    can_congest_into(sc, t, w, tcp ? &spread : NULL, &want, &wmin, &wmax);
    uint32_t bad = 0;
    for (uint32_t l = 0; f.on && want && l < t->n_ports; l++)
        bad += memcmp(&want[l], &f.offered[l], sizeof want[l]) != 0 ||
               (tcp && wmin && wmax && (wmin[l] != f.rmin[l] || wmax[l] != f.rmax[l]));
    free(want);
    free(wmin);
    free(wmax);
    fluid_load_end(&f, NULL);
    return bad;
}

/* A write cache that the busiest node's payload (bytes) overflows: 1 when
 * the back end ends at its media's pace (bytes 0: whether any can). */
static int store_cache_fills(const struct scenario *sc, uint64_t bytes)
{
    double k = (double)sc->storage.cache_bytes, f = (double)sc->storage.drain_bps;
    double m = (double)sc->storage.media_bps;
    return k > 0 && m > 0 && m < f && (!bytes || (double)bytes > k * f / (f - m));
}

static void unmodelled_add(struct results *r, const char *key, const char *value,
                           const char *effect, int dir)
{
    if (r->n_unmodelled >= sizeof r->unmodelled / sizeof r->unmodelled[0])
        return;
    struct unmodelled *u = &r->unmodelled[r->n_unmodelled++];
    u->key = key;
    snprintf(u->value, sizeof u->value, "%s", value);
    u->effect = effect;
    u->dir = dir;
}

uint32_t fluid_unmodelled(const struct scenario *sc, const struct topo *t,
                          const struct workload *w, struct results *r)
{
    if (r->unmodelled_done) /* ckpt_choose_engine listed it for this run */
        return r->n_unmodelled;
    r->unmodelled_done = 1;
    const struct lb_scheme *lb = lb_scheme(sc->fabric.load_balancing);
    int per_packet = lb_grain(sc) == LB_PER_PACKET;
    int per_flowlet = lb_grain(sc) == LB_PER_FLOWLET;
    const struct cc_scheme *cc = cc_scheme(sc->transport.cc);
    const struct rx_scheme *rx = rx_scheme(sc->transport.receiver);
    int rtt_spread = 0;
    /* ckpt_prepare's walk gave it (fluid_load_end) */
    int congest = r->load_known ? r->load_congest
                                : can_congest(sc, t, w, cc->tcp ? &rtt_spread : NULL);
    if (r->load_known)
        rtt_spread = r->load_rtt_spread;
    /* a flowlet moves after a gap: a pause, a drop, or a rate cut */
    int moves = per_flowlet && (congest || cc->rate_control);
    char v[24];
    r->n_unmodelled = 0;
    if (congest)
        unmodelled_add(r, "fabric.pfc.enabled", sc->fabric.pfc ? "true" : "false",
                       sc->fabric.pfc ? "PFC pauses and head-of-line blocking"
                                      : "tail drops, timeouts and resends",
                       UNMOD_OPTIMISTIC);
    /* TCP flows of different round trips through one full link: their
     * shares follow 1 / RTT (DCTCP), less so for CUBIC; the last byte may
     * land earlier or later than max-min's */
    if (cc->fluid_leaves && rtt_spread && cc->fluid_rtt)
        unmodelled_add(r, "transport.cc", cc->name, cc->fluid_rtt, UNMOD_UNKNOWN);
    else if (cc->fluid_leaves)
        unmodelled_add(r, "transport.cc", cc->name, cc->fluid_leaves, UNMOD_OPTIMISTIC);
    if (moves)
        unmodelled_add(r, "fabric.load_balancing", lb->name,
                       lb->fluid_moves ? lb->fluid_moves : "flowlets move",
                       UNMOD_UNKNOWN); /* off a hot link, or onto one */
    if (lb->random_knob && sc->fabric.spray_random)
        unmodelled_add(r, "fabric.lb.spray_random", "true", "uneven per-packet choices",
                       UNMOD_OPTIMISTIC);
    /* Ultra Ethernet: trims cost the bottleneck their headers and the
     * senders their resends; hashed entropies split paths unevenly */
    if (congest && sc->fabric.trim && !sc->fabric.pfc)
        unmodelled_add(r, "fabric.trim.enabled", "true",
                       "trimmed packets, their NACKs and selective resends", UNMOD_OPTIMISTIC);
    if (per_packet && sc->transport.uec.entropies) {
        snprintf(v, sizeof v, "%u", sc->transport.uec.entropies);
        unmodelled_add(r, "transport.uec.entropies", v, "uneven hashed entropy choices",
                       UNMOD_OPTIMISTIC);
    }
    /* REPS steers packets off slow or marked paths; the even split does not */
    if (per_packet && sc->transport.uec.lb == UEC_LB_REPS)
        unmodelled_add(r, "transport.uec.lb", "reps", "entropies recycled off congested paths",
                       UNMOD_PESSIMISTIC);
    /* RCCC: its steady state is the fair share of each receiver's line
     * that the even split already gives; its grants run at rccc_rate of
     * the line, and a first RTT of uncredited data may trim */
    if (sc->transport.uec.rccc)
        unmodelled_add(r, "transport.uec.rccc", "true",
                       "receiver credits: grants at rccc_rate of the line, the first RTT "
                       "uncredited", UNMOD_OPTIMISTIC);
    if ((per_packet || moves) && rx->fluid_reorder)
        unmodelled_add(r, "transport.receiver", rx->name, rx->fluid_reorder, UNMOD_OPTIMISTIC);
    if (sc->storage.max_outstanding) {
        snprintf(v, sizeof v, "%u", sc->storage.max_outstanding);
        unmodelled_add(r, "storage.max_outstanding", v, "request window", UNMOD_OPTIMISTIC);
    }
    if (request_on(w, sc))
        unmodelled_add(r, "storage.protocol", names_of(&names_storage_protocol, sc->storage.protocol),
                       "a rank's requests as a rate cap, rounds of N at the NIC's line rate with "
                       "the latency between them: requests slowed by the fabric not timed",
                       UNMOD_OPTIMISTIC);
    if (sc->storage.protection == PROTECT_REPLICA && sc->storage.replicas > 1)
        unmodelled_add(r, "storage.protection", "replica",
                       "forwards start with their primary and are not held to the bytes it "
                       "has received", UNMOD_OPTIMISTIC);
    if (sc->storage.protection == PROTECT_CHAIN && sc->storage.replicas > 1)
        unmodelled_add(r, "storage.protection", "chain",
                       "each hop starts with the head's transfer and is not held to the bytes "
                       "the node before it has received", UNMOD_OPTIMISTIC);
    if (store_cache_fills(sc, w->sum.node_max_bytes))
        unmodelled_add(r, "storage.cache_size", "filled",
                       "the write cache as one mean rate a node, not a step when it fills; "
                       "the last byte exact while arrivals outpace the media",
                       UNMOD_PESSIMISTIC);
    /* training beside the checkpoint (docs/training.md): classes share
     * links by rates, not queues */
    if (sc->training.traffic == TRAFFIC_COLLECTIVES && sc->training.isolation != ISO_PHYSICAL)
        unmodelled_add(r, "fabric.isolation",
                       sc->training.isolation == ISO_NONE ? "none" : "logical",
                       sc->training.isolation == ISO_NONE
                           ? "training's PFC victim pauses behind the checkpoint"
                       : sc->fabric.scheduling == SCHED_STRICT
                           ? "per-class queues and buffers; no buffer holds the checkpoint's "
                             "bytes while training has priority"
                           : "per-class queues and buffers (DWRR as rate shares)",
                       /* strict: the packet checkpoint queues its bytes in
                        * switch buffers during a training burst and sends
                        * them after; the fluid one waits (docs/training.md) */
                       sc->training.isolation == ISO_LOGICAL &&
                               sc->fabric.scheduling == SCHED_STRICT
                           ? UNMOD_PESSIMISTIC : UNMOD_UNKNOWN);
    /* no buffers, so no pools to split (fabric.mmu.pools) */
    if (sc->fabric.mmu_pools != POOLS_SHARED)
        unmodelled_add(r, "fabric.mmu.pools", "per_class", "per-class buffer pools",
                       UNMOD_UNKNOWN);
    return r->n_unmodelled;
}

size_t fluid_unmodelled_text(const struct results *r, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    for (uint32_t i = 0; i < r->n_unmodelled && len < cap; i++) {
        const struct unmodelled *u = &r->unmodelled[i];
        int n = snprintf(buf + len, cap - len, "%s%s=%s (%s: %s)", i ? ", " : "", u->key,
                         u->value, u->effect, fluid_direction_name(u->dir));
        len += n > 0 ? (size_t)n : 0;
    }
    return len < cap ? len : cap ? cap - 1 : 0;
}

int fluid_direction(const struct results *r)
{
    if (!r->n_unmodelled)
        return -1;
    int d = r->unmodelled[0].dir;
    for (uint32_t i = 1; i < r->n_unmodelled; i++)
        if (r->unmodelled[i].dir != d)
            return UNMOD_UNKNOWN; /* they pull both ways, or one is unknown */
    return d;
}

const char *fluid_direction_name(int dir)
{
    return dir == UNMOD_OPTIMISTIC ? "optimistic"
         : dir == UNMOD_PESSIMISTIC ? "pessimistic" : "unknown";
}

const char *fluid_direction_words(int dir)
{
    return dir == UNMOD_OPTIMISTIC ? "is optimistic"
         : dir == UNMOD_PESSIMISTIC ? "is pessimistic"
         : "may be optimistic or pessimistic (the effects pull different ways, or which "
           "way is unknown)";
}

struct start_key {
    uint64_t t;
    uint32_t id;
};

static int cmp_start(const void *a, const void *b)
{
    const struct start_key *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* A node's write cache as one rate over its payload P: a cache of K bytes
 * absorbing at F over media at M takes P in max(P / F, (P - K) / M) while
 * arrivals outpace the media (bound.c); the step when it fills is not
 * timed (fluid.unmodelled says so). */
static void cache_mean_rates(struct fnet *n)
{
    const struct scenario *sc = n->sc;
    const struct topo *t = n->t;
    double k = (double)sc->storage.cache_bytes, f = (double)sc->storage.drain_bps;
    double m = (double)sc->storage.media_bps;
    double *pay = calloc(t->n_storage ? t->n_storage : 1, sizeof *pay);
    if (!pay)
        return; /* the pre-cache rate: the run is optimistic, not wrong in kind */
    for (uint32_t i = 0; i < n->w->n; i++) {
        uint32_t d = n->w->xfers[i].dst;
        if (d >= t->first_storage && d < t->first_cleaf)
            pay[workload_store_owner(t, sc, d) - t->first_storage] += (double)n->w->xfers[i].bytes;
    }
    for (uint32_t j = 0; j < t->n_storage; j++) {
        struct fstore *s = &n->st[j];
        double p = pay[j] * 8, need = fmax(p / f, (p - 8 * k) / m);
        if (s->drain_bps > 0 && p > 0 && need > 0)
            s->drain_bps = p / need;
    }
    free(pay);
}

/* Storage back ends, when storage.drain_rate or stuck nodes ask for them.
 * Returns the number of back-end links the solver needs (finite buffers). */
static int setup_stores(struct fnet *n, uint32_t *nv, struct err *e)
{
    const struct scenario *sc = n->sc;
    const struct topo *t = n->t;
    *nv = 0;
    if (!sc->storage.drain_bps && !sc->storage.stuck_nodes)
        return 0;
    /* scenario_validate refused stuck nodes without an ingest buffer */
    n->st = arena_calloc(&n->arena, t->n_storage, sizeof *n->st);
    if (!n->st)
        return err_set(e, "out of memory setting up the fluid engine");
    /* one back end a storage node: the entry of its first NIC's endpoint
     * (workload_store_owner); the others stay unused */
    uint32_t k = sc->storage.nics_per_node > 1 ? sc->storage.nics_per_node : 1;
    for (uint32_t j = 0; j < t->n_storage; j += k) {
        struct fstore *s = &n->st[j];
        int stuck = j / k < sc->storage.stuck_nodes;
        s->drain_bps = stuck ? 0 : (double)sc->storage.drain_bps;
        s->buffered = stuck || sc->storage.drain_bps;
        s->vlink = s->buffered && sc->storage.ingest_buffer ? t->n_ports + (*nv)++ : UINT32_MAX;
    }
    if (store_cache_fills(sc, 0))
        cache_mean_rates(n);
    return 0;
}

/* Weight of priority prio in "w0,w1,...,w7" (validated). */
static double dwrr_weight(const char *s, int prio)
{
    for (int i = 0; i < prio && s; i++) {
        s = strchr(s, ',');
        s = s ? s + 1 : NULL;
    }
    double v = s ? strtod(s, NULL) : 1;
    return v > 0 ? v : 1;
}

/* Virtual link v (numbered n_ports + k before compaction) as a solver link. */
static uint32_t virt_lid(const struct fnet *n, uint32_t v)
{
    return n->nu + (v - n->t->n_ports);
}

/* Number the solver's links: the ports on some flow's list in port order,
 * then the virtual ones in theirs (so every tie the solver breaks by link
 * id goes as before), and rewrite the lists. *nl: links before, after.
 * The port to link map is set-up's (tmp): the loop holds only lid_port
 * and each back end's NIC link (at 800k transfers 5 MB less resident). */
static int compact_links(struct fnet *n, struct arena *tmp, struct lset *all, struct lset *tall,
                         struct lset *grp, uint32_t *nl)
{
    const struct topo *t = n->t;
    uint32_t np = t->n_ports, nv = *nl - np;
    uint32_t *port_lid = arena_calloc(tmp, (size_t)np + 1, sizeof *port_lid);
    if (!port_lid)
        return -1;
    struct lset *ls[3] = {all, tall, grp};
    for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; i < ls[k]->n; i++)
            if (ls[k]->link[i] < np)
                port_lid[ls[k]->link[i]] = 1;
    uint32_t nu = 0;
    for (uint32_t p = 0; p < np; p++)
        port_lid[p] = port_lid[p] ? nu++ : UINT32_MAX;
    n->nu = nu;
    n->lid_port = arena_calloc(&n->arena, (size_t)nu + nv + 1, sizeof *n->lid_port);
    if (!n->lid_port)
        return -1;
    for (uint32_t p = 0; p < np; p++)
        if (port_lid[p] != UINT32_MAX)
            n->lid_port[port_lid[p]] = p;
    for (uint32_t v = 0; v < nv; v++)
        n->lid_port[nu + v] = UINT32_MAX;
    for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; i < ls[k]->n; i++) {
            uint32_t l = ls[k]->link[i];
            ls[k]->link[i] = l < np ? port_lid[l] : nu + (l - np);
        }
    for (uint32_t j = 0; n->st && j < t->n_storage; j++)
        n->st[j].nic_lid = port_lid[t->nodes[t->first_storage + j].leaf_port];
    *nl = nu + nv;
    return 0;
}

static int setup(struct fnet *n, const struct scenario *sc, const struct topo *t,
                 const struct workload *w, int grouped, int kinds, struct err *e)
{
    memset(n, 0, sizeof *n);
    n->sc = sc;
    n->t = t;
    n->w = w;
    arena_init(&n->arena);
    struct arena *a = &n->arena;
    uint32_t nf = w->n, nv;
    n->tr = w->train && w->train->on && w->train->on_fabric ? w->train : NULL;
    n->nt = n->tr ? n->tr->n : 0;
    n->two = n->nt && n->tr->isolation == ISO_LOGICAL;
    /* a checkpoint alone (no training flows in the solver) */
    n->grouped = grouped && flow_split(sc) && !n->nt;
    int weighted = lb_scheme(sc->fabric.load_balancing)->fluid_path == LB_FLUID_WEIGHTED;
    n->own_path = !flow_split(sc) && !weighted && w->path;
    train_clock_init(&n->tc, n->tr);
    n->train_at = n->tc.next_ps;
    if (!nf)
        train_clock_ckpt_end(&n->tc, 0); /* no checkpoint (tests) */
    if (setup_stores(n, &nv, e) < 0)
        return -1;
    /* restore.read_rate: a link per storage node for its back end's reads */
    uint32_t rd = w->restore && sc->restore.read_bps ? t->n_ports + nv : UINT32_MAX;
    if (rd != UINT32_MAX)
        nv += t->n_storage;
    /* links are numbered as ports then virtual ones until compact_links */
    uint32_t nl = t->n_ports + nv, ns = n->st ? t->n_storage : 0, nt = n->nt;
    uint32_t nm = n->two ? nf : nf + nt; /* flows in mm */
    n->ns = ns;
    double *rd_pay = rd != UINT32_MAX ? calloc(t->n_storage, sizeof *rd_pay) : NULL;
    double *rd_wire = rd != UINT32_MAX ? calloc(t->n_storage, sizeof *rd_wire) : NULL;
    n->wf = scenario_wire(sc);
    /* From 2 MB of them, the flow records, their states and room for
     * durable_ends' bits in one block of their own (on huge pages), which
     * the results take at the end; the engine's small arrays then lose the
     * records' block and go on 2 MB pages too (the solver's frozen flags:
     * 0.8 MB at 800,000 transfers; a 4 KB page fault costs ~10 us on a VM).
     * Smaller, a block of their own would add to the run's memory. */
    arena_init(&n->flmem);
    size_t nfl = (size_t)nf + nt + 1;
    struct arena *fa = a;
    if (nfl * sizeof *n->fl >= ((size_t)2 << 20)) {
        n->arena.huge = 1;
        fa = arena_reserve(&n->flmem, arena_size(nfl * sizeof *n->fl) + arena_size(nfl) +
                                          arena_size(((size_t)nf / 64 + 1) * sizeof(uint64_t))) == 0
                 ? &n->flmem
                 : NULL;
    }
    n->fl = fa ? arena_calloc(fa, nfl, sizeof *n->fl) : NULL;
    n->fst = fa ? arena_calloc(fa, nfl, sizeof *n->fst) : NULL;
    n->tlat = arena_calloc(a, (size_t)nt + 1, sizeof *n->tlat);
    n->twire_done = arena_calloc(a, (size_t)nt + 1, sizeof *n->twire_done);
    /* the workload mostly lists transfers by start already */
    int in_order = 1;
    for (uint32_t i = 1; i < nf && in_order; i++)
        in_order = workload_start(w, i - 1) <= workload_start(w, i);
    /* a queue pair's cap on some transfer, or storage.protocol's requests */
    int capped = request_on(w, sc);
    for (uint32_t i = 0; i < nf && !capped; i++)
        capped = workload_rate(w, i) != 0;
    /* the queue, the solver's path (one each: its size at most a link more
     * to a back end, from 1 MB in the arena) and the link numbering in one
     * block when large: in blocks of their own each rounds up to 2 MB
     * pages, the last touched whole */
    uint64_t plen_all = 0;
    int path_own = w->path && !flow_split(sc);
    if (path_own) {
        plen_all = (uint64_t)(ns || rd != UINT32_MAX ? 2 : 0) * nf;
        for (uint32_t i = 0; i < nf; i++)
            plen_all += w->path_n[i];
    }
    int path_big = path_own && plen_all < UINT32_MAX && plen_all * sizeof(uint32_t) >= (1u << 20);
    size_t hb = cq_bytes((size_t)nf + ns + nt + 1);
    size_t big = hb + (path_big ? arena_size((plen_all + 1) * sizeof(uint32_t)) : 0) +
                 arena_size(((size_t)nl + 1) * sizeof(uint32_t));
    int heap_bad = hb && big >= ((size_t)16 << 20) && arena_reserve(a, big) < 0;
    heap_bad = heap_bad || cq_init(&n->q, a, (size_t)nf + ns + nt + 1) < 0;
    /* the two-class bookkeeping only when training has its own solver */
    size_t nmv = n->two ? (size_t)nf + nt + 1 : 1;
    n->moved = arena_calloc(a, nmv, 2 * sizeof *n->moved);
    /* set-up's own (mm_init copies what it keeps), the large ones mapped
     * on huge pages: a 4 KB page fault costs ~10 us on a VM */
    struct arena tmp;
    arena_init(&tmp);
    uint32_t *path_off = arena_calloc(&tmp, (size_t)nf + nt + 1, sizeof *path_off);
    uint32_t *toff = calloc((size_t)nt + 1, sizeof *toff);
    struct lset all = {0}, one = {0}, tall = {0}; /* every flow's links; this flow's; tm's */
    uint32_t *fgroup = n->grouped ? calloc((size_t)nf + 1, sizeof *fgroup) : NULL;
    uint32_t *goff = NULL;
    uint8_t *gfail = NULL;                          /* per group: a failed link */
    uint32_t gcap = 0;
    struct spread_cache pairs = {0};
    double *cap = NULL;
    double *fcap = capped ? arena_calloc(&tmp, (size_t)nf + nt + 1, sizeof *fcap) : NULL;
    double *wire_to = ns ? arena_calloc(a, ns, sizeof *wire_to) : NULL;
    struct start_key *keys = in_order ? NULL : arena_calloc(&tmp, nf ? nf : 1, sizeof *keys);
    n->order = in_order ? NULL : arena_calloc(a, nf ? nf : 1, sizeof *n->order);
    /* storage.protocol: each rank's request slots split over its transfers */
    uint32_t *req_share = request_on(w, sc)
                              ? arena_calloc(a, w->n_writers ? w->n_writers : 1, sizeof *req_share)
                              : NULL;
    if (req_share)
        request_writer_shares(w, req_share);
    struct heads *hd = calloc(1, sizeof *hd);
    n->hd = hd;
    /* weighted: a finish takes wcmp_path, the heads the cached route */
    if (hd)
        hd->kinds = kinds && !weighted;
    int rc = -1;
    if (!hd || heads_init(hd, t) < 0 || !n->fl || !n->fst || !n->tlat ||
        !n->twire_done || (!in_order && (!n->order || !keys)) || heap_bad ||
        !path_off || (capped && !fcap) || (ns && !wire_to) || !n->moved || !toff ||
        (rd != UINT32_MAX && (!rd_pay || !rd_wire)) || (request_on(w, sc) && !req_share) ||
        (n->grouped && !fgroup)) {
        err_set(e, "out of memory setting up the fluid engine");
        goto out;
    }
    int handed = kinds_handed(w, sc, t);
    if (handed)
        *hd->memo = *w->kind_memo;
    if (path_own) {
        /* a large list straight in the arena, where the solver keeps it
         * (mm_init_path) rather than a copy. From 1 MB: below, the arena
         * would give it a block of its own and leave its current block's
         * room unused (copied, as before) */
        uint64_t len = plen_all;
        if (path_big) {
            all.link = arena_calloc(a, len + 1, sizeof *all.link);
            if (!all.link)
                goto oom;
            all.cap = (uint32_t)len;
            all.in_arena = 1;
        } else if (len < UINT32_MAX && lset_reserve(&all, (uint32_t)len) < 0) {
            goto oom;
        }
    }
    for (uint32_t i = 0; i < nf; i++) {
        const struct transfer *x = &w->xfers[i];
        uint32_t path[TOPO_MAX_HOPS], k, gid = MM_NIL, ng0 = pairs.ng;
        if (n->grouped ? flow_own_links(t, x, &pairs, &one, &gid) < 0
                       : flow_links(t, sc, w, i, x, &pairs, &one, path, &k) < 0) {
            err_set(e, "transfer %u: no path from node %u to node %u", i, x->src, x->dst);
            goto out;
        }
        /* the heads take the cached path: flow_links' is it unless weighted */
        if (n->grouped || weighted)
            k = x->bytes ? workload_path(w, t, i, path) : 0;
        int kind = heads_add(hd, t, sc, x, workload_rate(w, i), path, k,
                             handed ? handed_kind(w, i) : HEADS_FIND);
        if (kind >= 0)
            n->fst[i] = (uint8_t)(kind << FST_KIND);
        else if (x->bytes)
            hd->kinds = 0; /* no kind to read: each finish works its latency out */
        if (fgroup)
            fgroup[i] = gid;
        if (pairs.ng > ng0 && n->grouped) { /* a new group: whether it crosses a failed link */
            uint32_t sl = pairs.gslot[gid], o = pairs.off[sl];
            if (gid + 2 > gcap) {
                gcap = 2 * (gid + 2);
                uint32_t *g2 = realloc(goff, gcap * sizeof *goff);
                goff = g2 ? g2 : goff;
                uint8_t *f2 = g2 ? realloc(gfail, gcap) : NULL;
                gfail = f2 ? f2 : gfail;
                if (!f2)
                    goto oom;
            }
            gfail[gid] = 0;
            for (uint32_t j = o; j + 1 < o + pairs.len[sl]; j++)
                gfail[gid] |= t->ports[pairs.pool.link[j]].failed;
        }
        path_off[i] = all.n;
        int failed = gid != MM_NIL && gfail[gid];
        /* no failed link in the fabric (topo__fail counts each): no port read */
        for (uint32_t j = 0; t->n_failed && j < one.n && !failed; j++)
            failed = one.link[j] < t->n_ports && t->ports[one.link[j]].failed;
        n->onto_failed += failed;
        uint64_t wire = wire_bytes(x->bytes, n->wf);
        int to_store = x->dst >= t->first_storage && x->dst < t->first_cleaf;
        uint32_t sj = to_store ? workload_store_owner(t, sc, x->dst) - t->first_storage : 0;
        if (ns && to_store) {
            struct fstore *s = &n->st[sj];
            s->ratio += (double)x->bytes; /* payload now, divided below */
            wire_to[sj] += (double)wire;
            if (s->vlink != UINT32_MAX && lset_add(&one, s->vlink, 1.0) < 0)
                goto oom;
        }
        if (rd != UINT32_MAX && x->src >= t->first_storage && x->src < t->first_cleaf) {
            uint32_t j = workload_store_owner(t, sc, x->src) - t->first_storage;
            rd_pay[j] += (double)x->bytes;
            rd_wire[j] += (double)wire;
            if (lset_add(&one, rd + j, 1.0) < 0)
                goto oom;
        }
        for (uint32_t j = 0; j < one.n; j++)
            if (lset_add_new(&all, one.link[j], lset_w(&one, j)) < 0)
                goto oom;
        /* the queue pair's cap paces what it puts on the wire */
        if (fcap)
            fcap[i] = workload_rate(w, i) ? (double)workload_rate(w, i) : INFINITY;
        if (req_share) /* storage.protocol: its rank's request pipeline */
            fcap[i] = fmin(fcap[i], request_cap_bps(sc, x->bytes, wire, req_share[x->writer],
                                                    (double)sc->cluster.nic_bps));
        if (keys)
            keys[i] = (struct start_key){workload_start(w, i), i};
    }
    path_off[nf] = all.n;
    /* training flows: in mm after the checkpoint's (none), or in tm (logical) */
    for (uint32_t k = 0; k < nt; k++) {
        const struct train_flow *y = &n->tr->flows[k];
        struct transfer x = {.src = y->src, .dst = y->dst, .bytes = y->bytes, .sport = y->sport};
        uint32_t path[TOPO_MAX_HOPS], np;
        if (flow_links(t, sc, NULL, 0, &x, &pairs, &one, path, &np) < 0) {
            err_set(e, "training flow %u: no path from node %u to node %u", k, x.src, x.dst);
            goto out;
        }
        uint64_t pace = UINT64_MAX;
        for (uint32_t j = 0; j < np; j++)
            if (t->ports[path[j]].bps < pace)
                pace = t->ports[path[j]].bps;
        n->tlat[k] = flow_latency_ps(t, sc, path, np, x.bytes, pace);
        n->fst[nf + k] = 2; /* until its first step */
        struct lset *dst = n->two ? &tall : &all;
        if (n->two)
            toff[k] = tall.n;
        for (uint32_t j = 0; j < one.n; j++)
            if (lset_add_new(dst, one.link[j], lset_w(&one, j)) < 0)
                goto oom;
        if (fcap)
            fcap[nf + k] = INFINITY;
        if (!n->two)
            path_off[nf + k + 1] = all.n;
    }
    toff[nt] = tall.n;
    /* the groups' links, group by group: the pool less each pair's last
     * entry (its destination's port, a member's own), moved down in place */
    uint32_t gn = 0;
    for (uint32_t g = 0; n->grouped && g < pairs.ng; g++) {
        uint32_t sl = pairs.gslot[g], o = pairs.off[sl];
        goff[g] = gn;
        for (uint32_t j = o; j + 1 < o + pairs.len[sl]; j++, gn++) {
            pairs.pool.link[gn] = pairs.pool.link[j];
            if (pairs.pool.w)
                pairs.pool.w[gn] = pairs.pool.w[j];
        }
    }
    if (goff)
        goff[pairs.ng] = gn;
    struct lset grp = {0};
    if (n->grouped) {
        pairs.pool.n = gn;
        if (gn && lset_weights(&pairs.pool) < 0)
            goto oom;
        grp = pairs.pool;
    }
    if (compact_links(n, &tmp, &all, &tall, &grp, &nl) < 0)
        goto oom;
    if (rd != UINT32_MAX)
        rd = virt_lid(n, rd);
    for (uint32_t j = 0; j < ns; j++) /* a node's other NICs' entries stay unused (0) */
        if (n->st[j].vlink != UINT32_MAX && n->st[j].vlink >= t->n_ports)
            n->st[j].vlink = virt_lid(n, n->st[j].vlink);
    n->lk = arena_calloc(a, nl, sizeof *n->lk);
    /* the capacities stay beside the solver's copy only for two classes */
    cap = arena_calloc(n->two ? a : &tmp, nl ? nl : 1, sizeof *cap);
    n->cap0 = n->two ? cap : NULL;
    uint32_t nrl = n->two ? nl : 1;
    n->relaxed = arena_calloc(a, nrl, sizeof *n->relaxed);
    n->rmark = arena_calloc(a, nrl, sizeof *n->rmark);
    n->prev = arena_calloc(a, nrl, sizeof *n->prev);
    if (!n->lk || !cap || !n->relaxed || !n->rmark || !n->prev)
        goto oom;
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t p = n->lid_port[l];
        /* down: carries nothing; a back end admits everything until its
         * buffer fills */
        cap[l] = p == UINT32_MAX ? INFINITY : t->ports[p].failed ? 0 : (double)t->ports[p].bps;
    }
    for (uint32_t j = 0; rd != UINT32_MAX && j < t->n_storage; j++)
        /* the read rate is payload; the solver's rates are wire */
        cap[rd + j] = rd_pay[j] > 0 ? (double)sc->restore.read_bps * rd_wire[j] / rd_pay[j]
                                    : INFINITY;
    for (uint32_t j = 0; j < ns; j++)
        n->st[j].ratio = wire_to[j] > 0 ? n->st[j].ratio / wire_to[j] : 1;
    if ((all.in_arena ? mm_init_path(&n->mm, a, nl, cap, nm, path_off, all.link, all.w, fcap)
                      : mm_init(&n->mm, a, nl, cap, nm, path_off, all.link, all.w, fcap)) < 0)
        goto oom;
    if (n->grouped) {
        uint32_t zero = 0;
        if (mm_init_groups(&n->mm, a, pairs.ng, goff ? goff : &zero, grp.link, grp.w, fgroup) < 0)
            goto oom;
    }
    if (n->two) {
        if (mm_init(&n->tm, a, nl, cap, nt, toff, tall.link, tall.w, NULL) < 0)
            goto oom;
        /* strict: the higher priority first; DWRR: training first, held to
         * its weight's share where checkpoint flows share the link */
        int tfirst = n->tr->prio > sc->transport.data_priority;
        n->share = 1;
        if (sc->fabric.scheduling == SCHED_DWRR) {
            double wt = dwrr_weight(sc->fabric.dwrr_weights, n->tr->prio);
            double wd = dwrr_weight(sc->fabric.dwrr_weights, (int)sc->transport.data_priority);
            n->share = wt / (wt + wd);
            tfirst = 1;
        }
        n->first = tfirst ? &n->tm : &n->mm;
        n->second = tfirst ? &n->mm : &n->tm;
    }
    if (keys)
        sort_keys(keys, nf, sizeof *keys, cmp_start);
    for (uint32_t i = 0; keys && i < nf; i++)
        n->order[i] = keys[i].id;
    rc = 0;
    goto out;
oom:
    err_set(e, "out of memory setting up the fluid engine");
out:
    arena_release(&tmp);
    free(toff);
    free(rd_pay);
    free(rd_wire);
    if (!all.in_arena)
        free(all.link);
    free(all.w);
    lset_free(&one);
    spread_cache_free(&pairs);
    free(tall.link);
    free(tall.w);
    free(fgroup);
    free(goff);
    free(gfail);
    return rc;
}

/* ---- storage back ends -------------------------------------------------- */

/* Bring store s's buffer level up to now at its current arrival rate. */
static void store_settle(struct fnet *n, struct fstore *s)
{
    double dt = (double)(n->now - s->t_upd);
    s->t_upd = n->now;
    if (!s->buffered)
        return; /* keeps up: nothing waits */
    s->level += (s->in_bps - s->drain_bps) * dt / BITS_PS;
    if (s->level < 0)
        s->level = 0; /* it drained dry and now keeps up */
    double cap = (double)n->sc->storage.ingest_buffer;
    if (cap && s->level > cap)
        s->level = cap;
}

/* After a rate update touched store j's NIC: new arrival rate, and when the
 * buffer will be full; a full buffer that now keeps up stops limiting. */
static void store_rates(struct fnet *n, uint32_t j, double nic_load)
{
    struct fstore *s = &n->st[j];
    uint32_t id = n->w->n + j;
    store_settle(n, s);
    s->in_bps = nic_load * s->ratio;
    uint32_t k = n->sc->storage.nics_per_node > 1 ? n->sc->storage.nics_per_node : 1;
    fsample_ingest(&n->fs, j / k, s->in_bps);
    double cap = (double)n->sc->storage.ingest_buffer;
    if (s->vlink == UINT32_MAX)
        return;
    if (s->full) {
        if (n->mm.links[s->vlink].load < n->mm.links[s->vlink].cap * (1 - FULL_TOL)) {
            s->full = 0; /* demand fell below the drain: the level falls */
            mm_set_cap(&n->mm, s->vlink, INFINITY);
        }
        cq_remove(&n->q, id);
    } else if (s->in_bps > s->drain_bps) {
        uint64_t t = after(n->now, cap - s->level, s->in_bps - s->drain_bps);
        if (t != UINT64_MAX)
            cq_put(&n->q, id, t);
        else
            cq_remove(&n->q, id);
    } else {
        cq_remove(&n->q, id);
    }
}

static void store_full(struct fnet *n, uint32_t j)
{
    struct fstore *s = &n->st[j];
    store_settle(n, s);
    s->level = (double)n->sc->storage.ingest_buffer;
    s->full = 1;
    /* from now on it admits what drains, in wire bits */
    mm_set_cap(&n->mm, s->vlink, s->ratio > 0 ? s->drain_bps / s->ratio : 0);
}

/* ---- flows -------------------------------------------------------------- */

/* Training: record a start or stop of the second class's flow sid. */
static void note_moved(struct fnet *n, struct mm *m, uint32_t sid)
{
    if (n->two && m == n->second && n->share < 1)
        n->moved[n->n_moved++] = sid;
}

/* Wire bytes of flow fi: a transfer, or training flow fi - w->n. */
static uint64_t flow_wire(const struct fnet *n, uint32_t fi)
{
    return wire_bytes(fi < n->w->n ? n->w->xfers[fi].bytes : n->tr->flows[fi - n->w->n].bytes,
                      n->wf);
}

/* Time from transfer i's last byte leaving to its arrival: the packet
 * engine's per-hop latency on its path, no less than the bound's way in
 * and out (bound_latency_ps). */
static uint64_t ckpt_latency(const struct fnet *n, uint32_t i)
{
    const struct topo *t = n->t;
    const struct scenario *sc = n->sc;
    const struct transfer *x = &n->w->xfers[i];
    struct heads *hd = n->hd;
    int to_store = x->dst >= t->first_storage && x->dst < t->first_cleaf;
    int buffered = n->st && to_store &&
                   n->st[workload_store_owner(t, sc, x->dst) - t->first_storage].buffered;
    uint32_t s = n->fst[i] >> FST_KIND;
    const struct bound_path *kb = hd->kinds && x->bytes ? bound_memo_slot(hd->memo, s) : NULL;
    if (kb && (hd->kind_set >> s & 1)) {
        uint64_t bl = bound_latency_ps(t, hd, x, kb, hd->kind[s].alone, buffered);
        return bl > hd->kind[s].lat ? bl : hd->kind[s].lat;
    }
    uint32_t path[TOPO_MAX_HOPS], k = 0;
    if (n->own_path) {
        /* its route's ports lead its solver path, which the stop just read */
        const struct mm *m = &n->mm;
        for (uint32_t pe = mm_poff(m, i), np = mm_np(m, i);
             k < np && k < TOPO_MAX_HOPS && n->lid_port[m->path[pe + k]] != UINT32_MAX; k++)
            path[k] = n->lid_port[m->path[pe + k]];
    } else {
        int weighted = lb_scheme(sc->fabric.load_balancing)->fluid_path == LB_FLUID_WEIGHTED;
        k = weighted ? wcmp_path(t, x, path) : workload_path(n->w, t, i, path);
    }
    if (!k)
        return 0; /* set-up refused a transfer without a path */
    uint64_t cap = workload_rate(n->w, i), pace = cap ? cap : UINT64_MAX;
    for (uint32_t j = 0; j < k; j++)
        if (t->ports[path[j]].bps < pace)
            pace = t->ports[path[j]].bps;
    uint64_t lat = flow_latency_ps(t, sc, path, k, x->bytes, pace), bl = 0;
    struct bound_path bp;
    if (x->bytes && k >= 2 && bound_path_memo(hd->memo, t, sc, x, cap, path, k, &bp) >= 2) {
        uint64_t alone = alone_less(&bp, flow_wire(n, i), pace);
        bl = bound_latency_ps(t, hd, x, &bp, alone, buffered);
        if (kb && hd->memo->last == s) { /* the kind set-up found: the next finish reads it */
            hd->kind[s].lat = lat;
            hd->kind[s].alone = alone;
            hd->kind_set |= UINT64_C(1) << s;
        }
    }
    return bl > lat ? bl : lat;
}

static void flow_done(struct fnet *n, uint32_t i)
{
    struct fflow *f = &n->fl[i];
    const struct transfer *x = &n->w->xfers[i];
    f->rem = 0;
    f->t = n->now + ckpt_latency(n, i);
    if (n->st && x->dst >= n->t->first_storage && x->dst < n->t->first_cleaf) {
        /* a FIFO back end writes its last byte once all before it are */
        struct fstore *s = &n->st[workload_store_owner(n->t, n->sc, x->dst) - n->t->first_storage];
        store_settle(n, s);
        uint64_t wait = !s->buffered ? 0
                      : s->drain_bps > 0 ? after(0, s->level, s->drain_bps) : UINT64_MAX;
        if (wait == UINT64_MAX) {
            n->fst[i] = (uint8_t)((n->fst[i] & ~FST_STATE) | 3);
            return;
        }
        f->t += wait;
    }
    n->fst[i] = (uint8_t)((n->fst[i] & ~FST_STATE) | 2);
    n->flows_done++;
    n->ckpt_end = f->t > n->ckpt_end ? f->t : n->ckpt_end;
    if (n->flows_done == n->w->n)
        train_clock_ckpt_end(&n->tc, n->ckpt_end);
}

static void flow_start(struct fnet *n, uint32_t i)
{
    struct fflow *f = &n->fl[i];
    n->fst[i] = (uint8_t)((n->fst[i] & ~FST_STATE) | 1);
    f->t = n->now;
    f->rem = (double)flow_wire(n, i);
    if (f->rem == 0) {
        flow_done(n, i); /* an empty transfer takes no capacity */
    } else {
        mm_start(&n->mm, i);
        note_moved(n, &n->mm, i);
        fsample_flow_start(&n->fs);
    }
}

/* Payload bytes per wire byte of flow i (wire > 0). */
static double payload_ratio(const struct fnet *n, uint32_t i)
{
    return (double)n->w->xfers[i].bytes / (double)flow_wire(n, i);
}

/* After mm_update: bring the flows whose rate changed up to now at their old
 * rate and reschedule them; integrate the touched links' old load. */
static void apply_rates(struct fnet *n, struct mm *m)
{
    const struct topo *t = n->t;
    /* a large batch keyed at once (the first burst) goes to the sorted run */
    int coll = cq_collect_begin(&n->q, m->n_aff);
    for (uint32_t k = 0; k < m->n_aff; k++) {
        uint32_t fi = fl_of(n, m, m->aff[k]), i = heap_of(n, fi);
        const struct mm_flow *mf = &m->flows[m->aff[k]];
        double prev = mm_prev_rate(m, k);
        struct fflow *f = &n->fl[fi];
        if (mf->rate == prev && cq_has(&n->q, i))
            continue; /* same rate: same finish, no round-off drift */
        if (fi < n->w->n) /* the checkpoint's bytes to write */
            fsample_payload(&n->fs, (mf->rate - prev) * payload_ratio(n, fi));
        f->rem -= prev * (double)(n->now - f->t) / BITS_PS;
        if (f->rem < 0)
            f->rem = 0;
        f->t = n->now;
        uint64_t finish = mf->rate > 0 ? after(n->now, f->rem, mf->rate) : UINT64_MAX;
        if (finish == UINT64_MAX)
            cq_remove(&n->q, i); /* no progress: left incomplete, reported */
        else if (coll && !cq_has(&n->q, i))
            cq_collect(&n->q, i, finish);
        else
            cq_put(&n->q, i, finish);
    }
    if (coll) {
        cq_collect_close(&n->q);
        for (uint32_t k = 0; k < m->n_aff; k++)
            cq_settle(&n->q, heap_of(n, fl_of(n, m, m->aff[k])));
        cq_collect_end(&n->q);
    }
    if (m == &n->tm)
        return; /* link figures are the checkpoint solver's (docs/training.md) */
    for (uint32_t k = 0; k < m->n_tl; k++) {
        uint32_t l = m->tl[k];
        struct flink *lk = &n->lk[l];
        uint64_t dt = n->now - lk->t_upd;
        double load = m->links[l].prev_load;
        lk->bytes += load * (double)dt / BITS_PS;
        if (load > 0)
            lk->busy_ps += dt;
        if (load >= m->links[l].cap * (1 - FULL_TOL))
            lk->full_ps += dt;
        lk->t_upd = n->now;
        uint32_t p = n->lid_port[l];
        if (p != UINT32_MAX)
            fsample_seg(&n->fs, t->ports[p].seg, m->links[l].load - load);
        if (n->st && p != UINT32_MAX && t->ports[p].seg == PATH_STORAGE_NIC) {
            uint32_t node = t->ports[t->ports[p].peer].node;
            if (node >= t->first_storage && node < t->first_cleaf) {
                /* its node's back end takes what all the node's NICs bring */
                uint32_t o = workload_store_owner(t, n->sc, node);
                uint32_t nk = n->sc->storage.nics_per_node > 1 ? n->sc->storage.nics_per_node : 1;
                double in = 0;
                for (uint32_t q = o; q < o + nk && q < t->first_cleaf; q++) {
                    uint32_t lq = n->st[q - t->first_storage].nic_lid;
                    in += lq != UINT32_MAX ? m->links[lq].load : 0;
                }
                store_rates(n, o - t->first_storage, in);
            }
        }
    }
}

/* The current step's communication starts: every training flow again. */
static void train_start(struct fnet *n)
{
    n->train_at = UINT64_MAX;
    if (!train_clock_start(&n->tc, n->now)) {
        n->train_at = n->tc.next_ps; /* nothing leaves a node: the next step */
        return;
    }
    for (uint32_t k = 0; k < n->nt; k++) {
        uint32_t fi = n->w->n + k;
        struct fflow *f = &n->fl[fi];
        struct mm *m = solver_of(n, fi);
        n->fst[fi] = 1;
        f->t = n->now;
        f->rem = (double)flow_wire(n, fi);
        mm_start(m, sid_of(n, fi));
        note_moved(n, m, sid_of(n, fi));
        n->events++;
    }
}

static void train_done(struct fnet *n, uint32_t fi)
{
    struct fflow *f = &n->fl[fi];
    struct mm *m = solver_of(n, fi);
    mm_stop(m, sid_of(n, fi));
    note_moved(n, m, sid_of(n, fi));
    f->rem = 0;
    n->twire_done[fi - n->w->n] += (double)flow_wire(n, fi);
    n->fst[fi] = 2;
    f->t = n->now + n->tlat[fi - n->w->n];
    if (train_clock_done(&n->tc, f->t))
        n->train_at = n->tc.next_ps;
    n->events++;
}

/* New rates after this time's starts and stops: one solver, or the class
 * with precedence first and the other on what it leaves. */
static void update(struct fnet *n)
{
    if (!n->two) {
        mm_update(&n->mm);
        apply_rates(n, &n->mm);
        return;
    }
    struct mm *a = n->first, *b = n->second;
    /* DWRR, in three passes: (1) the first class (training) gets its
     * weight's share where the other has flows, all of a link where it has
     * none; (2) the other takes what it leaves; (3) the first takes what
     * the other leaves in turn. Each class gets at least its share where it
     * wants it, and no link idles while a class could use it. */
    for (uint32_t k = 0; k < n->n_relaxed; k++) {
        uint32_t l = n->relaxed[k];
        double want = b->links[l].n ? n->share * n->cap0[l] : n->cap0[l];
        n->rmark[l] = 0;
        n->prev[k] = l;
        if (a->links[l].cap != want)
            mm_set_cap(a, l, want);
    }
    n->n_prev = n->n_relaxed;
    n->n_relaxed = 0;
    for (uint32_t k = 0; k < n->n_moved; k++) {
        uint32_t p0 = mm_poff(b, n->moved[k]);
        for (uint32_t j = 0, np = mm_np(b, n->moved[k]); j < np; j++) {
            uint32_t l = b->path[p0 + j];
            double want = b->links[l].n ? n->share * n->cap0[l] : n->cap0[l];
            if (n->lid_port[l] != UINT32_MAX && a->links[l].cap != want)
                mm_set_cap(a, l, want);
        }
    }
    n->n_moved = 0;
    mm_update(a);
    apply_rates(n, a);
    for (uint32_t k = 0; k < a->n_tl; k++) {
        uint32_t l = a->tl[k];
        if (n->lid_port[l] == UINT32_MAX)
            continue; /* a storage back end: the checkpoint's alone */
        double room = n->cap0[l] - a->links[l].load;
        room = room > 0 ? room : 0;
        if (b->links[l].cap != room)
            mm_set_cap(b, l, room);
    }
    mm_update(b);
    apply_rates(n, b);
    if (n->share >= 1)
        return;
    for (uint32_t k = 0; k < b->n_tl + n->n_prev; k++) {
        uint32_t l = k < b->n_tl ? b->tl[k] : n->prev[k - b->n_tl];
        if (n->lid_port[l] == UINT32_MAX || !b->links[l].n || !a->links[l].n)
            continue;
        double room = n->cap0[l] - b->links[l].load;
        if (room > a->links[l].cap * (1 + 1e-12)) {
            mm_set_cap(a, l, room);
            if (!n->rmark[l]) {
                n->rmark[l] = 1;
                n->relaxed[n->n_relaxed++] = l;
            }
        }
    }
    mm_update(a);
    apply_rates(n, a);
}

/* The k-th transfer to start. */
static uint32_t order_at(const struct fnet *n, uint32_t k)
{
    return n->order ? n->order[k] : k;
}

static void loop(struct fnet *n)
{
    const struct workload *w = n->w;
    uint32_t nf = w->n;
    uint64_t iter = 0;
    for (;;) {
        uint64_t t = UINT64_MAX;
        if (n->next < nf)
            t = workload_start(w, order_at(n, n->next));
        const struct heap_entry *top = cq_top(&n->q);
        if (top && top->key < t)
            t = top->key;
        if (n->train_at < t)
            t = n->train_at;
        if (t == UINT64_MAX)
            break;
        if (t > n->time_limit) {
            n->time_limit_hit = 1;
            fsample_to(&n->fs, n->time_limit);
            n->now = n->time_limit;
            break;
        }
        if (t < n->now)
            n->time_went_back = 1;
        fsample_to(&n->fs, t);
        n->now = t;
        /* every completion, full buffer and start at this picosecond, then
         * one update */
        while ((top = cq_top(&n->q)) && top->key == t) {
            uint32_t id = top->id;
            if (n->q.top_run && !n->two) {
                /* the run says what ends next: its stops' records fetched
                 * ahead, stage by stage (misses, not instructions, cost a stop) */
                static const uint32_t ahead[3] = {32, 16, 8}; /* run entries, stage by stage */
                for (int s = 0; s < 3; s++) {
                    uint32_t j = cq_run_ahead(&n->q, ahead[s]);
                    if (j < nf)
                        mm_stop_prefetch(&n->mm, j, s);
                }
            }
            cq_pop(&n->q);
            if (id >= nf + n->ns) {
                train_done(n, nf + (id - nf - n->ns));
                continue;
            }
            if (id >= nf) {
                store_full(n, id - nf);
                continue;
            }
            n->delivered += w->xfers[id].bytes;
            fsample_payload(&n->fs, -n->mm.flows[id].rate * payload_ratio(n, id));
            mm_stop(&n->mm, id);
            note_moved(n, &n->mm, id);
            flow_done(n, id);
            fsample_flow_sent(&n->fs, w->xfers[id].bytes);
            n->events++;
        }
        while (n->next < nf && workload_start(w, order_at(n, n->next)) == t) {
            if (n->next + 8 < nf) /* a burst's link records, 8 starts ahead */
                mm_links_prefetch(&n->mm, order_at(n, n->next + 8));
            flow_start(n, order_at(n, n->next++));
            n->events++;
        }
        if (n->train_at == t)
            train_start(n);
        update(n);
        if (n->progress && !(++iter & 0xfff)) {
            struct ckpt_progress_info info = {(double)n->now / (double)PS_PER_S, n->delivered,
                                              w->total_bytes, n->events};
            n->progress->fn(n->progress->ud, &info);
            if (n->progress->stop && *n->progress->stop) {
                n->interrupted = 1; /* transfers not done by now did not finish */
                n->time_limit = n->now;
                break;
            }
        }
    }
}

/* A transfer whose last byte lands after the time limit did not complete
 * (the packet engine never gets to that event). */
static void time_limit_cut(struct fnet *n)
{
    for (uint32_t i = 0; i < n->w->n; i++) {
        if (n->fst[i] == 2 && n->fl[i].t > n->time_limit) {
            n->fst[i] = 3;
            n->flows_done--;
            n->time_limit_hit = !n->interrupted;
        }
    }
}

/* ---- results ------------------------------------------------------------ */

static double ps_to_s(uint64_t ps)
{
    return (double)ps / (double)PS_PER_S;
}

/* Each transfer's end once its file is durable (fsync, metadata service,
 * a protection chain's ack) and whether it completed: the writers' figures
 * are made from them once the engine's memory is gone (writer_figures). */
struct fdone {
    uint64_t *done;   /* per transfer */
    uint64_t *ok;     /* bit i: transfer i completed */
    struct arena mem; /* theirs: huge pages when large, not 1,600 page faults */
};

uint64_t *fluid_ends_over_flows(void *fl, const uint8_t *fst, uint32_t n)
{
    _Static_assert(sizeof(struct fflow) == 16 && offsetof(struct fflow, t) == 8,
                   "two 8-byte words a flow, its end second");
    unsigned char *b = fl;
    if (!b)
        return NULL;
    /* end i lands on bytes [8i, 8i + 8), at or below record i's t, which
     * is read first: in ascending order nothing is overwritten unread */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t t = UINT64_MAX;
        if ((fst[i] & FST_STATE) == 2)
            memcpy(&t, b + 16 * (size_t)i + 8, sizeof t);
        memcpy(b + 8 * (size_t)i, &t, sizeof t);
    }
    return (uint64_t *)fl;
}

/* Fill d and, from it, the completion and first byte (as writer_acc_finish
 * gives them), which the link figures need now. */
static void durable_ends(struct fnet *n, struct fdone *d, struct results *r)
{
    const struct workload *w = n->w;
    /* from 2 MB of records (setup), the ends over them, their block the
     * results': no fresh 6.4 MB at 800,000 transfers while the engine's
     * memory is held */
    d->mem = n->flmem;
    arena_init(&n->flmem);
    if (d->mem.head) {
        d->done = fluid_ends_over_flows(n->fl, n->fst, w->n);
        n->fl = NULL;
    } else {
        d->done = arena_calloc(&d->mem, w->n ? w->n : 1, sizeof *d->done);
        for (uint32_t i = 0; d->done && i < w->n; i++)
            d->done[i] = n->fst[i] == 2 ? n->fl[i].t : UINT64_MAX;
    }
    d->ok = arena_calloc(&d->mem, (size_t)w->n / 64 + 1, sizeof *d->ok);
    uint64_t first = UINT64_MAX, last = 0;
    if (d->done && d->ok) {
        for (uint32_t i = 0; i < w->n; i++)
            d->ok[i / 64] |= (uint64_t)(n->fst[i] == 2) << (i % 64);
        /* storage.protection chain: the tail's ack back to the head */
        protect_commit(w, n->sc, n->t, d->done);
    }
    if (!d->done || !d->ok || workload_durable(w, n->sc, d->done) < 0) {
        arena_release(&d->mem);
        d->done = NULL;
        d->ok = NULL;
    }
    for (uint32_t i = 0; d->done && i < w->n; i++) {
        if (!(d->ok[i / 64] >> (i % 64) & 1))
            continue;
        first = workload_start(w, i) < first ? workload_start(w, i) : first;
        last = d->done[i] > last ? d->done[i] : last;
    }
    const double ps = 1e12;
    r->completion_s = last > first && first != UINT64_MAX ? (double)(last - first) / ps : 0;
    r->first_byte_s = first != UINT64_MAX ? (double)first / ps : 0;
}

/* The writers' figures from d (durable_ends), which it frees. */
static void writer_figures(const struct workload *w, const struct scenario *sc, struct fdone *d,
                           struct results *r)
{
    struct writer_acc acc;
    writer_acc_init(&acc, w->n_writers);
    if (!d->done)
        results_violate(r, "out of memory completing the files");
    for (uint32_t i = 0; d->done && i < w->n; i++) {
        const struct transfer *x = &w->xfers[i];
        if (d->ok[i / 64] >> (i % 64) & 1)
            writer_acc_add(&acc, x->writer, workload_start(w, i), workload_start(w, i),
                           d->done[i]);
    }
    arena_release(&d->mem);
    d->done = NULL;
    d->ok = NULL;
    writer_acc_finish(&acc, r);
    if (request_on(w, sc)) { /* storage.protocol: counted, latency estimated */
        r->requests.on = r->requests.estimated = 1;
        r->requests.protocol = names_of(&names_storage_protocol, sc->storage.protocol);
        request_estimate(w, sc, r->writer_s, r->n_writer_s, &r->requests.count,
                         &r->requests.mean_s, &r->requests.max_s);
    }
}

static int is_uplink(const struct fnet *n, uint32_t l)
{
    return n->lid_port[l] != UINT32_MAX && n->t->ports[n->lid_port[l]].seg == PATH_CLEAF_UP;
}

/* Spread of the bytes over uplinks and spines, and uplinks per flow, as the
 * packet engine reports them (from bytes carried, not sent). */
static void balance(const struct fnet *n, struct results *r, struct scrap *s)
{
    const struct topo *t = n->t;
    const struct mm *m = &n->mm;
    double paths = 0;
    uint32_t maxp = 0, cnt = 0;
    int bheap, uheap;
    double *bytes = scrap_get(s, (size_t)t->n_ports * sizeof *bytes, &bheap);
    for (uint32_t p = 0; bytes && p < t->n_ports; p++)
        bytes[p] = 0;
    for (uint32_t l = 0; bytes && l < n->nu; l++) /* the ports' links */
        bytes[n->lid_port[l]] = n->lk[l].bytes;
    if (bytes)
        balance_compute(r, t, bytes);
    scrap_put(bytes, bheap);
    /* each link's answer once, in link order (its port's record read in
     * order): the flows' paths then read a byte a link, not a port record */
    uint8_t *up = scrap_get(s, m->nl ? m->nl : 1, &uheap);
    for (uint32_t l = 0; up && l < m->nl; l++)
        up[l] = (uint8_t)is_uplink(n, l);
    for (uint32_t i = 0; i < m->nf; i++) {
        uint32_t c = 0, g = m->ng ? m->fgroup[i] : MM_NIL, p0 = mm_poff(m, i);
        for (uint32_t j = 0, np = mm_np(m, i); j < np; j++) {
            uint32_t l = m->path[p0 + j];
            c += up ? up[l] : (uint32_t)is_uplink(n, l);
        }
        for (uint32_t j = g != MM_NIL ? m->goff[g] : 0; g != MM_NIL && j < m->goff[g + 1]; j++)
            c += up ? up[m->gpath[j]] : (uint32_t)is_uplink(n, m->gpath[j]);
        if (!c)
            continue;
        paths += c;
        maxp = c > maxp ? c : maxp;
        cnt++;
    }
    scrap_put(up, uheap);
    r->lb = n->sc->fabric.load_balancing;
    r->lb_paths_mean = cnt ? paths / cnt : 0;
    r->lb_paths_max = maxp;
}

/* The samples up to the last completion, and active transfers in each. */
static void sample_finish(struct fnet *n)
{
    uint32_t nf = n->w->n;
    if (!n->fs.iv)
        return;
    uint64_t *start = malloc((nf ? nf : 1) * sizeof *start);
    uint64_t *done = malloc((nf ? nf : 1) * sizeof *done);
    uint64_t t_end = n->now;
    for (uint32_t i = 0; start && done && i < nf; i++) {
        const struct fflow *f = &n->fl[i];
        start[i] = workload_start(n->w, i);
        done[i] = n->fst[i] == 2 ? f->t : UINT64_MAX;
        if (n->fst[i] == 2 && f->t > t_end)
            t_end = f->t;
    }
    if (start && done)
        fsample_finish(&n->fs, t_end, nf, start, done);
    else
        n->fs.r->series.full = 1; /* out of memory: the samples so far stand */
    free(start);
    free(done);
}

/* Training's figures: its steps, and its wire bytes per link set from each
 * flow's finished steps on its path. */
static void collect_training(struct fnet *n, struct results *r)
{
    if (!n->tr)
        return; /* physical isolation: ckpt_run fills the baseline steps */
    uint64_t end = n->flows_done == n->w->n ? n->ckpt_end : n->now;
    train_results(r, n->tr, &n->tc, end);
    for (uint32_t k = 0; k < n->nt; k++) {
        uint32_t fi = n->w->n + k;
        const struct mm *m = solver_of(n, fi);
        uint32_t p0 = mm_poff(m, sid_of(n, fi));
        for (uint32_t j = 0, np = mm_np(m, sid_of(n, fi)); j < np; j++) {
            uint32_t p = n->lid_port[m->path[p0 + j]];
            if (p != UINT32_MAX)
                r->training.seg_bytes[n->t->ports[p].seg] +=
                    (uint64_t)(mm_w(m, p0 + j) * n->twire_done[k] + 0.5);
        }
    }
    invariants_training_steps(r, &n->tc, n->interrupted, n->time_limit_hit);
    if (n->two && n->tm.over_capacity)
        results_violate(r, "%llu training link loads above capacity",
                        (unsigned long long)n->tm.over_capacity);
}

/* Port p's telemetry figures from its link's. */
static void port_figures(struct results *r, const struct topo *t, uint32_t p,
                         const struct flink *lk)
{
    r->ports[p] = (struct port_result){.node = t->ports[p].node,
                                       .peer = t->ports[p].peer,
                                       .seg = t->ports[p].seg,
                                       .tx_bytes = (uint64_t)(lk->bytes + 0.5),
                                       .active_s = ps_to_s(lk->busy_ps)};
}

static void collect(struct fnet *n, struct results *r, struct fdone *d)
{
    const struct topo *t = n->t;
    const struct workload *w = n->w;
    const struct mm *m = &n->mm;
    r->engine = ENGINE_FLUID;
    r->has_packet_stats = 0;
    r->writers = w->n_writers;
    struct scrap sp = {0};
    scrap_add(&sp, &n->q);
    scrap_add(&sp, &n->mm.heap);
    if (n->two)
        scrap_add(&sp, &n->tm.heap);
    /* the solver's link lists and slots: written by every start, read by
     * nothing after the loop */
    scrap_add_mem(&sp, m->pslot16 ? (void *)m->pslot16 : (void *)m->pslot,
                  (size_t)(m->nf ? mm_poff(m, m->nf - 1) + mm_np(m, m->nf - 1) : 0) *
                      (m->pslot16 ? sizeof *m->pslot16 : sizeof *m->pslot));
    scrap_add_mem(&sp, m->lflow,
                  (size_t)(m->nf ? mm_poff(m, m->nf - 1) + mm_np(m, m->nf - 1) : 0) *
                      sizeof *m->lflow);
    int eheap;

    /* what each flow sent (stalled ones: part), and so what each link must
     * have carried; a fluid has nothing in flight and drops nothing */
    double *expect = scrap_get(&sp, (size_t)m->nl * sizeof *expect, &eheap);
    double *gwire = m->ng ? calloc(m->ng, sizeof *gwire) : NULL; /* per group: its members' */
    uint64_t sent = 0, bad_flows = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        struct fflow *f = &n->fl[i];
        const struct mm_flow *mf = &m->flows[i];
        if (n->fst[i] == 0)
            continue;
        if (n->fst[i] == 1) {
            f->rem -= mf->rate * (double)(n->now - f->t) / BITS_PS;
            f->rem = f->rem < 0 ? 0 : f->rem;
            f->t = n->now;
        }
        uint64_t fw = flow_wire(n, i);
        double wire = (double)fw - f->rem;
        sent += fw ? (uint64_t)((double)w->xfers[i].bytes * wire / (double)fw + 0.5) : 0;
        for (uint32_t j = 0, np = mm_np(m, i), p0 = mm_poff(m, i); expect && j < np; j++)
            expect[m->path[p0 + j]] += mm_w(m, p0 + j) * wire;
        if (gwire && m->fgroup[i] != MM_NIL)
            gwire[m->fgroup[i]] += wire;
        bad_flows += n->fst[i] != 2;
    }
    for (uint32_t g = 0; expect && g < m->ng; g++)
        for (uint32_t j = gwire ? m->goff[g] : 0; gwire && j < m->goff[g + 1]; j++)
            expect[m->gpath[j]] += m->gw[j] * gwire[g];
    if (m->ng && !gwire) { /* out of memory: no check rather than a wrong one */
        scrap_put(expect, eheap);
        expect = NULL;
    }
    free(gwire);
    /* training under isolation none loads mm's links too: all its steps */
    for (uint32_t i = w->n; !n->two && i < w->n + n->nt; i++) {
        struct fflow *f = &n->fl[i];
        const struct mm_flow *mf = &m->flows[i];
        if (n->fst[i] == 1) {
            f->rem -= mf->rate * (double)(n->now - f->t) / BITS_PS;
            f->rem = f->rem < 0 ? 0 : f->rem;
            f->t = n->now;
        }
        double wire = n->twire_done[i - w->n] +
                      (n->fst[i] == 1 ? (double)flow_wire(n, i) - f->rem : 0);
        for (uint32_t j = 0, np = mm_np(m, i), p0 = mm_poff(m, i); expect && j < np; j++)
            expect[m->path[p0 + j]] += mm_w(m, p0 + j) * wire;
    }
    /* the records read for the last time above; the link figures need the
     * completion */
    size_t flmem = n->flmem.total;
    durable_ends(n, d, r);
    uint64_t worst_link = UINT32_MAX;
    double worst_err = 0;
    r->has_link_stats = 1;
    for (uint32_t l = 0; l < m->nl; l++) {
        struct flink *lk = &n->lk[l];
        double load = m->links[l].load; /* only stalled flows still run */
        lk->bytes += load * (double)(n->now - lk->t_upd) / BITS_PS;
        lk->t_upd = n->now;
        double want = expect ? expect[l] : lk->bytes;
        double err = fabs(lk->bytes - want);
        if (err > 1e-6 * want + 1 && err > worst_err) {
            worst_err = err;
            worst_link = l;
        }
        uint32_t p = n->lid_port[l];
        if (p == UINT32_MAX || !path_is_fwd_link(t->ports[p].seg) || lk->bytes <= 0)
            continue;
        enum path_seg s = t->ports[p].seg;
        double span = r->completion_s * (double)PS_PER_S;
        double util = span > 0 ? lk->bytes * BITS_PS / (double)t->ports[p].bps / span : 0;
        if (util > r->link_util_max[s])
            r->link_util_max[s] = util;
        if (ps_to_s(lk->busy_ps) > r->link_busy_max_s[s])
            r->link_busy_max_s[s] = ps_to_s(lk->busy_ps);
        if (ps_to_s(lk->full_ps) > r->link_full_max_s[s])
            r->link_full_max_s[s] = ps_to_s(lk->full_ps);
    }

    balance(n, r, &sp);
    if (n->sc->telemetry.ports) {
        /* what each link carried (the packet engine's other counters have
         * no fluid meaning) */
        r->ports = calloc(t->n_ports, sizeof *r->ports);
        r->n_ports = r->ports ? t->n_ports : 0;
        static const struct flink none; /* a port no flow crossed */
        for (uint32_t p = 0; p < r->n_ports; p++)
            port_figures(r, t, p, &none);
        for (uint32_t l = 0; r->n_ports && l < n->nu; l++) /* the ports' links */
            port_figures(r, t, n->lid_port[l], &n->lk[l]);
    }
    r->bytes_sent = r->bytes_delivered = sent;
    r->bytes_dropped = r->bytes_in_flight = 0;
    r->flows_done = (uint32_t)n->flows_done;
    r->time_monotone = !n->time_went_back;
    r->events = n->events;
    r->max_pending_events = n->q.max_n;
    r->rate_updates = m->updates;
    r->rates_recomputed = m->refilled;
    r->mem_bytes = n->arena.total + flmem;

    invariants_begin(r);
    if (!expect)
        results_violate(r, "out of memory checking link byte counts");
    if (worst_link != UINT32_MAX) /* named by its port, or past the ports when virtual */
        results_violate(r, "link %llu carried %.0f wire bytes, its flows sent %.0f",
                        (unsigned long long)(n->lid_port[worst_link] != UINT32_MAX
                                                 ? n->lid_port[worst_link]
                                                 : t->n_ports + (worst_link - n->nu)),
                        n->lk[worst_link].bytes, expect[worst_link]);
    invariants_transfers(r, bad_flows, w->n, n->interrupted);
    invariants_time_monotone(r, n->time_went_back);
    if (n->onto_failed)
        results_violate(r, "%llu transfers routed onto failed links",
                        (unsigned long long)n->onto_failed);
    /* a fluid transfer moves at its share until it ends: never stuck */
    struct stop_progress stp = {sent, w->total_bytes, n->time_limit};
    invariants_time_limit(r, n->time_limit_hit, n->time_limit, &stp);
    if (m->over_capacity)
        results_violate(r, "%llu link loads above capacity (worst by %.3g)",
                (unsigned long long)m->over_capacity, m->worst_excess);
    scrap_put(expect, eheap);
    collect_training(n, r);
}

/* A write into back ends that can fall behind: the series samples them
 * (one a storage node, at its first NIC's entry; setup_stores). */
static void sample_backends(struct fnet *n)
{
    const struct topo *t = n->t;
    uint32_t k = n->sc->storage.nics_per_node > 1 ? n->sc->storage.nics_per_node : 1;
    uint32_t m = (t->n_storage + k - 1) / k;
    if (!n->st || n->w->restore || !n->fs.iv)
        return;
    /* what names them (the reports' "stor3"); the other kinds stay unnamed */
    struct series *se = &n->fs.r->series;
    se->first_storage = t->first_storage;
    se->first_cleaf = t->first_cleaf;
    if (!se->names)
        series_names(se, t); /* out of memory: names by kind and index */
    uint32_t *node = malloc(m * sizeof *node);
    double *drain = malloc(m * sizeof *drain);
    int *buf = malloc(m * sizeof *buf);
    for (uint32_t i = 0; node && drain && buf && i < m; i++) {
        const struct fstore *s = &n->st[i * k];
        node[i] = t->first_storage + i * k;
        drain[i] = s->drain_bps;
        buf[i] = s->buffered;
    }
    if (!node || !drain || !buf ||
        fsample_backends(&n->fs, m, node, drain, buf, (double)n->sc->storage.ingest_buffer) < 0)
        n->fs.r->series.full = 1; /* out of memory: no samples rather than wrong ones */
    free(node);
    free(drain);
    free(buf);
}

int fluid_run(const struct scenario *sc, const struct topo *t,
              const struct workload *w, struct results *r, struct err *e)
{
    /* three tiers multiply a sprayed transfer's links (thousands): hold
     * each leaf pair's once */
    return fluid_run_grouped(sc, t, w, groups_on(sc, t, w), r, e);
}

/* The kinds leave fst with the loop: the results read the state alone. */
static void kinds_clear(struct fnet *n)
{
    for (uint32_t i = 0; i < n->w->n; i++)
        n->fst[i] &= FST_STATE;
}

int fluid_run_grouped(const struct scenario *sc, const struct topo *t,
                      const struct workload *w, int grouped, struct results *r,
                      struct err *e)
{
    return fluid_run_kinds(sc, t, w, grouped, 1, r, e);
}

static int run_all(const struct scenario *sc, const struct topo *t, const struct workload *w,
                   int grouped, int kinds, void (*done)(void *), void *ctx, struct results *r,
                   struct err *e);

int fluid_run_kinds(const struct scenario *sc, const struct topo *t,
                    const struct workload *w, int grouped, int kinds, struct results *r,
                    struct err *e)
{
    return run_all(sc, t, w, grouped, kinds, NULL, NULL, r, e);
}

int fluid_run_routes_done(const struct scenario *sc, const struct topo *t,
                          const struct workload *w, void (*done)(void *ctx), void *ctx,
                          struct results *r, struct err *e)
{
    return run_all(sc, t, w, groups_on(sc, t, w), 1, done, ctx, r, e);
}

static int run_all(const struct scenario *sc, const struct topo *t, const struct workload *w,
                   int grouped, int kinds, void (*done)(void *), void *ctx, struct results *r,
                   struct err *e)
{
    struct fnet *n = malloc(sizeof *n);
    if (!n)
        return err_set(e, "out of memory");
    struct timespec t0, t1;
    struct fdone d = {0};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = setup(n, sc, t, w, grouped, kinds, e);
    if (rc == 0 && done && n->own_path) {
        /* ckpt_latency reads the solver's paths, heads_kind ran in set-up */
        done(ctx);
    }
    if (rc == 0) {
        fluid_unmodelled(sc, t, w, r);
        fsample_init(&n->fs, r, sc->telemetry.interval_ps);
        sample_backends(n);
        n->time_limit = train_time_limit(w->train, sc, bound_time_limit_ps(sc, r->bound_s));
        n->progress = r->progress;
        loop(n);
        kinds_clear(n);
        time_limit_cut(n);
        sample_finish(n);
        fsample_release(&n->fs);
        collect(n, r, &d);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    train_clock_release(&n->tc);
    if (n->hd)
        heads_release(n->hd);
    free(n->hd);
    arena_release(&n->arena);
    arena_release(&n->flmem); /* set-up failed: durable_ends did not take it */
    free(n);
    if (rc == 0) /* per-writer arrays: not while the engine's memory is held */
        writer_figures(w, sc, &d, r);
    return rc;
}
