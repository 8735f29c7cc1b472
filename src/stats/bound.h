/* Analytic lower bound on checkpoint completion (max-flow bound). For each
 * shared resource (a writer NIC, a compute leaf's uplinks, a storage leaf's
 * links from the spines, a storage NIC, a storage back end): the earliest a
 * first packet can reach it, plus all its bytes at its rate, plus the
 * shortest way on of a last packet (propagation, per-tier switch latency and
 * the packet's serialisation on each later hop); the bound is the largest.
 * Serialisation rounds down and sums saturate, so it never exceeds what a
 * run can achieve and never wraps. */
#ifndef CKPT_BOUND_H
#define CKPT_BOUND_H

#include "../core/arena.h"
#include "../core/wire.h" /* wire_bytes, for its callers */
#include "../topo/topo.h"
#include "../work/work.h"
#include "results.h"

/* The default time limit: 50 x the bound + this (10 ms). */
#define BOUND_SLACK_PS (10 * UINT64_C(1000000000))

/* Load balance from the bytes each port carried: the worst compute leaf's
 * max/mean over its uplinks and max/mean over spines toward storage. */
void balance_compute(struct results *r, const struct topo *t, const double *port_bytes);

/* The bound in picoseconds, saturated at UINT64_MAX. */
struct bound_ps {
    uint64_t limit_ps[PATH_COUNT]; /* each limit's bound (0: carries nothing) */
    uint64_t best_ps;               /* the bound: the largest */
    int writer_capped;              /* the writer term is a rate-capped transfer's */
    int ok;                         /* 0: out of memory, the figures are partial */
};

/* Fill r->bound_* and r->base_latency_s (the shortest way of a last packet
 * from its writer NIC; bound_term_s[l] is limit l's bound less it), and
 * *out when out is not NULL. The scenario must be resolved (per-tier switch
 * latencies). */
void bound_compute(struct results *r, const struct topo *t,
                   const struct workload *w, const struct scenario *sc,
                   struct bound_ps *out);

/* The fastest way of transfer x's packets along path[0..np) (its writer
 * NIC first; any equal-cost path: each tier's links share speed and delay),
 * store and forward, in ps from its start, saturated:
 *   head[i]     to the earliest start of any of its packets on hop i (the
 *               first; with several paths (spray, adaptive, flowlet) also a
 *               later, smaller one that started behind it)
 *   tail[i]     from the end of its last (smallest) packet on hop i to its
 *               arrival: propagation, per-tier switch latency and that
 *               packet's serialisation on every later hop
 *               (and the back end's write of its payload)
 *   arrive      to the earliest arrival of any of its packets at x->dst
 *   alone       to its last byte received (and written) when it has the
 *               path to itself; 0 unless its packets share one path (ecmp,
 *               wcmp); alone_hop the hop that holds it up most
 * rate: x's sending-rate cap (workload_rate; 0 = line rate).
 * Returns the hops filled (np, at most TOPO_MAX_HOPS). x->bytes > 0. */
struct bound_path {
    uint32_t np, alone_hop;
    uint64_t head[TOPO_MAX_HOPS], tail[TOPO_MAX_HOPS];
    uint64_t arrive, alone;
};
uint32_t bound_path(const struct topo *t, const struct scenario *sc, const struct transfer *x,
                    uint64_t rate, const uint32_t *path, uint32_t np, struct bound_path *bp);

/* bound_path is a pure function of the transfer's size and cap and its hops'
 * speeds, delays and switch kinds; a fabric has few such combinations, so
 * a large workload computes each once. One memo serves one (topology,
 * scenario) pair; zero it (calloc) before use. */
#define BOUND_MEMO_SLOTS 64
#define BOUND_MEMO_KEY (3 + 2 * TOPO_MAX_HOPS)
struct bound_memo {
    struct {
        uint64_t key[BOUND_MEMO_KEY];
        struct bound_path bp;
        uint32_t ret;
    } e[BOUND_MEMO_SLOTS];
    uint64_t hits, misses;
    uint32_t last;    /* the slot the last call found or filled */
    uint64_t evicted; /* bit s: slot s, once filled, was filled again */
};
/* bound_path through memo m (NULL: no memo). */
uint32_t bound_path_memo(struct bound_memo *m, const struct topo *t, const struct scenario *sc,
                         const struct transfer *x, uint64_t rate, const uint32_t *path,
                         uint32_t np, struct bound_path *bp);
/* bound_path_memo without the copy: the memo's entry (until the next call
 * on m), or bp filled; m->last is its slot as after bound_path_memo. */
const struct bound_path *bound_path_find(struct bound_memo *m, const struct topo *t,
                                         const struct scenario *sc, const struct transfer *x,
                                         uint64_t rate, const uint32_t *path, uint32_t np,
                                         struct bound_path *bp);
/* The bound_path of slot s (a call's m->last) while it holds what it was
 * first filled with: what bound_path_memo gives every transfer and path
 * that found or filled it, without their key. NULL when s holds nothing or
 * was filled again (another key hashed to it). */
const struct bound_path *bound_memo_slot(const struct bound_memo *m, uint32_t s);

/* bound_compute in steps, so a pass that routes every transfer anyway
 * (ckpt_prepare's path cache) adds each while its route is at hand:
 * bound_begin (-1: out of memory, the figures will be partial, as
 * bound_compute's), bound_add for each transfer with bytes, in index order,
 * with its route (workload_path's: path[0..np)), then bound_end, which
 * fills what bound_compute does and frees the rest; bound_end with r NULL
 * only frees. */
struct bound_res {
    uint64_t bytes, head, tail; /* through it; the earliest first packet; the shortest way on */
};
struct bound_acc {
    const struct topo *t;
    const struct workload *w;
    const struct scenario *sc;
    struct bound_res *nic;   /* [endpoint] */
    struct bound_res *drain; /* [storage endpoint]: a node's back end, payload */
    struct bound_res *fout;  /* [storage endpoint]: its sending side on a write */
    struct bound_res *up;    /* [2 x leaf index]: out, in */
    struct bound_res *pod;   /* [2 x pod]: its spines' links up, down */
    struct bound_memo *memo;
    /* optional, [w->n]: bound_add sets each transfer's memo slot + 1 there
     * (0: it adds nothing), see struct workload's kind */
    uint8_t *kind;
    /* the arrays above: the large ones mapped on huge pages (fewer faults) */
    struct arena mem;
    uint64_t lim[PATH_COUNT], start0, base;
    int capped, ok;
    struct wire_fmt wf;
    struct {
        uint64_t bytes, rate, line, wb, end; /* the last transfer's size, cap, line; wire, alone */
    } one;
};
int bound_begin(struct bound_acc *b, const struct topo *t, const struct workload *w,
                const struct scenario *sc);
void bound_add(struct bound_acc *b, uint32_t i, const uint32_t *path, uint32_t np);
void bound_end(struct bound_acc *b, struct results *r, struct bound_ps *out);

/* The time limit of a run: sim.time_limit, or 50 x bound_s + 10 ms,
 * saturated at UINT64_MAX. */
uint64_t bound_time_limit_ps(const struct scenario *sc, double bound_s);

#endif
