/* Max-min fair rates over links shared by flows on fixed paths, kept up to
 * date incrementally as flows start and stop.
 *
 * The allocation is the one progressive filling gives: raise every flow's
 * rate together; a flow freezes when a link on its path is full (its
 * bottleneck) or it reaches its own cap. It is the unique feasible allocation
 * in which every flow has a bottleneck: a full link on which no flow has a
 * higher rate, or its cap.
 *
 * Incremental update (mm_update): only an affected set A of flows is refilled,
 * over the capacity the other (fixed) flows leave; A starts from the flows
 * that started and the flows bottlenecked on a link where a flow started or
 * stopped. Then the fixed flows are checked against the bottleneck condition
 * where A's new rates could break it: on links where A froze, nobody may have
 * more; on the bottleneck links of fixed flows, the link must stay full and
 * they the fastest. A flow that fails joins A and A is refilled. When nothing
 * fails, every flow has a bottleneck, so the allocation is the max-min one.
 * A never leaves the connected component of the change; when it reaches half
 * the active flows everything is refilled.
 *
 * The checks need no scan of a link's fixed flows: the flows bottlenecked on
 * a link share one rate (blevel), kept per link with a list of them, and an
 * upper bound on the other flows' rates (maxr) says when a scan is needed.
 * So an update costs about (flows in A) x (path length) x log(links in A).
 *
 * A flow may use a link for only part of its rate (weight w in (0, 1]: a
 * transfer sprayed evenly over k paths puts rate / k on each): the link then
 * carries w x rate of it, and progressive filling still raises rates, not
 * weighted rates, together.
 *
 * Rates and capacities are doubles in any one unit (the fluid engine uses
 * bits/s). All memory comes from the arena given to mm_init; updates do not
 * allocate. Ids are dense: links [0, nl), flows [0, nf).
 */
#ifndef CKPT_MAXMIN_H
#define CKPT_MAXMIN_H

#include <math.h>
#include <stdint.h>

#include "../core/arena.h"
#include "cq.h"

#define MM_CAP UINT32_MAX /* bottleneck: the flow's own cap */
#define MM_NONE (UINT32_MAX - 1)
#define MM_NIL UINT32_MAX /* end of a bottleneck list */

/* 64 bytes, one line on a 64-byte boundary: what lasts from one update to
 * the next. What an update works with (mm_scr) lives apart, so the memory
 * it takes is as large as the largest update since the first burst, not
 * one more line a link. */
struct mm_link {
    uint32_t off, n;        /* active flows: mm.lflow[off .. off + n) */
    uint32_t snap;          /* update that prev_load belongs to */
    uint32_t tix;           /* while in T (mm.tin), a packed update's: its scratch */
    double load;            /* sum of its active flows' rates, kept incrementally */
    double cap;
    double prev_load;       /* load before the last update (links in tl) */
    double blevel;          /* rate of the flows bottlenecked here (within 1e-10) */
    double maxr;            /* >= the rate of every other flow here */
    uint32_t bhead, nbott;  /* flows bottlenecked here: list through mm_flow.bnext */
};
_Static_assert(sizeof(struct mm_link) == 64, "a link record is one cache line");

/* A link's scratch during one update, for the links in T: a burst's (and
 * a grouped one's, which refill everything) by link id, any other's
 * packed (mm_link.tix, mm.n_scr), so after the first burst only as many
 * records are written as the most links with flows of A in one update.
 * 64 bytes: what freeze writes a path entry on one line. */
struct mm_scr {
    double rem;             /* capacity left for the unfrozen flows of A */
    double wun;             /* the unfrozen ones' weights here */
    double acc, amax;       /* A's new rates here: sum, max */
    double amax_other;      /* max of A's new rates here, flows bottlenecked elsewhere */
    double aprev;           /* A's rates here before the update */
    double level;           /* rate at which A's flows froze here, < 0 none */
    uint32_t unfrozen;      /* flows of A here not yet frozen */
    uint32_t na;            /* flows of A here */
};
_Static_assert(sizeof(struct mm_scr) == 64, "a link's scratch is one cache line");

/* Per link, beside its record: counters an update reads once a link. */
struct mm_lside {
    uint32_t froze;         /* scratch: flows frozen here this fill */
    uint32_t since_sum;     /* updates since load was last summed exactly */
};

/* Per flow only what every update reads (24 bytes): where its path starts
 * (mm_poff), its cap, its flags (mm.fbits: frozen, in A) and its rate
 * before an update (mm.aff_rate, per slot of A) live apart, the path's
 * start in no array at all when every path has one length. */
struct mm_flow {
    double rate;            /* now */
    uint32_t bott;          /* link it froze on, MM_CAP or MM_NONE */
    uint32_t bnext, bprev;  /* neighbours in its bottleneck link's list */
    uint32_t apos;          /* index in mm.active, UINT32_MAX when inactive */
};
_Static_assert(sizeof(struct mm_flow) == 24, "a flow record, 24 bytes");

/* mm.fbits per flow */
#define MM_FROZEN 1u /* frozen in this fill (scratch of one fill) */
#define MM_IN_A 2u   /* in A, the update's affected set (cleared when it ends) */

struct mm {
    uint32_t nl, nf;
    struct mm_link *links;  /* 64-byte aligned */
    /* the update's link scratch (nl + 1 records, 64-byte aligned): by
     * link id while sdirect (a burst's is given back to the system when it
     * ends), else by mm_link.tix: the links of T with flows of A take
     * scr[0 .. n_scr), in the order affect reaches them; the others (only
     * a stopped flow's, or a shrunk capacity's) share scr[nl], which reads
     * as a link with none of A: na, acc, amax, aprev 0, level -1 */
    struct mm_scr *scr;
    int sdirect;
    uint32_t n_scr;
    struct arena *arena;
    uint64_t *tin;          /* per link a bit: in T, the update's touched set */
    struct mm_lside *lside;
    struct mm_flow *flows;
    double *fcap;           /* per flow its own cap; NULL: none has one */
    uint8_t *fbits;         /* per flow MM_FROZEN, MM_IN_A */
    uint32_t *path;         /* link ids of every flow's path (CSR) */
    uint32_t *poff;         /* nf + 1: flow f's path is path[poff[f] .. poff[f + 1]);
                             * NULL with plen (then it starts at f x plen) */
    double *pw;             /* the weight of each path entry; NULL: all 1 */
    /* per path entry where the flow sits in that link's lflow list: 16
     * bits while no link's list can reach 65,536 (a third of the entries'
     * memory less), else 32 (pslot16 NULL) */
    uint32_t *pslot;
    uint16_t *pslot16;
    /* the slots of every active flow unwritten (with lmul: started since
     * none was active, none stopped since): written from the lists before
     * a stop or after the update, so a burst's fill runs without them */
    int slots_lazy;
    uint32_t *lflow;        /* per link: its active flows (mm_lflow), as flow ids,
                             * or with lmul their path entries naming the link */
    uint32_t plen;          /* with lmul: P (flow f's path starts at entry f x P,
                             * no poff); 0: paths of several lengths, or weights */
    uint64_t lmul;          /* every path one length P (unit weights): an entry's
                             * flow is entry x lmul >> 38 (= entry / P), and a
                             * moved flow's entry needs no lookup; 0: flow ids */
    uint32_t *lpe;          /* beside lflow, the path entry naming the link, for
                             * its weight; NULL with pw (unit weights: a moved
                             * flow's entry is found on its path) */
    uint32_t *alist;        /* per link in T: its flows of A (scratch); NULL with
                             * unit weights (found on lflow by mark) */
    uint32_t *aoff;         /* with alist, per link: its flows of A are
                             * alist[aoff[2l] .. + na), aoff[2l + 1] filled */
    uint32_t *active, n_active;
    /* pending changes since the last update */
    uint32_t *dirty, n_dirty;   /* links of flows started or stopped */
    uint32_t *added, n_added;   /* flows started: while no flow has stopped since
                                 * the last update they are active's tail from
                                 * add_from (add_tail), and added is not written
                                 * (a burst's 800,000 starts); else in aff's array
                                 * (an update reads it before aff overtakes it) */
    uint32_t add_from;
    int add_tail;
    uint32_t *shrunk, n_shrunk; /* links whose capacity went down */
    uint32_t dmark_epoch;
    int starts_only;            /* no stop or capacity change since the last update */
    uint32_t *dmark;            /* per link: == dmark_epoch when in dirty */
    /* result of the last update (valid until the next one) */
    uint32_t *aff, n_aff;   /* flows whose rate was recomputed (A): after a burst
                             * active's array, valid until the next start or stop */
    /* aff[k]'s rate before the update (mm_prev_rate): per slot of A, not
     * per flow, so only as much is written as the largest update after
     * the first burst reaches; aff[0 .. n_aff_zero) had none (a burst's
     * flows have just started: not written) */
    double *aff_rate;
    uint32_t n_aff_zero;
    uint32_t *tl, n_tl;     /* links whose load was recomputed */
    uint32_t epoch;
    /* water-filling queue over constraint ids: links, then nl + flow (caps),
     * keyed by heap_key_of(level); a burst's fill puts its links in the
     * queue's sorted run (cq.h): most come out with no flow left to freeze,
     * a read each rather than a heap pop */
    struct cq heap;
    /* leaf-pair groups (mm_init_groups; ng 0: none): see there */
    uint32_t ng;
    uint32_t *fgroup;        /* per flow: its group, or MM_NIL */
    uint32_t *goff, *gpath;  /* group g's links: gpath[goff[g] .. goff[g + 1]) */
    double *gw;              /* their weights */
    uint32_t *lgoff, *lgrp;  /* per link: the groups crossing it, lgrp[lgoff[l] ..) */
    uint32_t *gact;          /* per group: its active members */
    /* scratch of one grouped fill */
    uint32_t *gun, *gdu;     /* per group: members unfrozen; frozen since the flush */
    double *gdr;             /* the rates of those frozen since the flush */
    uint32_t *gmoff, *gmem;  /* active members by group */
    uint32_t *gdirty, n_gdirty;
    /* counters */
    uint64_t updates, rounds, refilled, full_refills, scans;
    uint64_t over_capacity;  /* link loads found above cap * (1 + 1e-9) */
    double worst_excess;     /* largest load / cap - 1 seen */
};

/* Where flow f's path starts in mm.path, its length, and its cap. */
static inline uint32_t mm_poff(const struct mm *m, uint32_t f)
{
    return m->plen ? f * m->plen : m->poff[f];
}
static inline uint32_t mm_np(const struct mm *m, uint32_t f)
{
    return m->plen ? m->plen : m->poff[f + 1] - m->poff[f];
}
static inline double mm_cap(const struct mm *m, uint32_t f)
{
    return m->fcap ? m->fcap[f] : (double)INFINITY;
}
/* The rate aff[k] had before the last update. */
static inline double mm_prev_rate(const struct mm *m, uint32_t k)
{
    return k < m->n_aff_zero ? 0.0 : m->aff_rate[k];
}
/* The flow of link list entry k (mm.lflow index). */
static inline uint32_t mm_lflow(const struct mm *m, uint32_t k)
{
    return m->lmul ? (uint32_t)(m->lflow[k] * m->lmul >> 38) : m->lflow[k];
}
/* Link l's scratch in the update under way (l in T). */
static inline struct mm_scr *mm_scr_of(const struct mm *m, uint32_t l)
{
    return &m->scr[m->sdirect ? l : m->links[l].tix];
}
/* The rate at which the last update's A froze on link tl[k] (< 0: none),
 * until the next update; after a burst its scratch is given back (reads 0
 * where the arena had mapped it). For tests. */
static inline double mm_level(const struct mm *m, uint32_t k)
{
    return mm_scr_of(m, m->tl[k])->level;
}
/* Weight of path entry pe (mm.path index). */
static inline double mm_w(const struct mm *m, uint32_t pe)
{
    return m->pw ? m->pw[pe] : 1.0;
}
/* Set up nl links with capacities cap[] and nf flows; flow f crosses links
 * path[path_off[f] .. path_off[f+1]) (distinct, at least one) with weights
 * path_w[...] (NULL: all 1) and is capped at flow_cap[f] (INFINITY = none;
 * flow_cap may be NULL). Every flow starts inactive. Returns 0, or -1 when
 * the arena runs out. */
int mm_init(struct mm *m, struct arena *a, uint32_t nl, const double *cap,
            uint32_t nf, const uint32_t *path_off, const uint32_t *path,
            const double *path_w, const double *flow_cap);

/* mm_init keeping path itself, not a copy: it must hold path_off[nf] + 1
 * entries and live as long as m (memory of a). The fluid engine builds
 * its flows' paths in the arena: a copy would touch as much memory again. */
int mm_init_path(struct mm *m, struct arena *a, uint32_t nl, const double *cap,
                 uint32_t nf, const uint32_t *path_off, uint32_t *path,
                 const double *path_w, const double *flow_cap);

/* Leaf-pair groups (spray on three tiers): the transfers between two leaves
 * split their rates the same way over the same middle links, so each link of
 * group g (gpath[goff[g] .. goff[g + 1]), weight gw[...]) carries w x the sum
 * of its members' rates, and a member's own path (mm_init's) holds only its
 * own links (its NIC, its destination's port). group[f] is flow f's group or
 * MM_NIL; a flow's own links must not be among its group's. With groups,
 * every update refills every active flow: progressive filling that counts a
 * group's unfrozen members on its links and freezes them together where one
 * fills, the same allocation as each member holding the group's links (to
 * round-off; tests/test_fluid_scale2.c) with a group's links held once.
 * Call right after mm_init. Returns 0, or -1 when the arena runs out. */
int mm_init_groups(struct mm *m, struct arena *a, uint32_t ng, const uint32_t *goff,
                   const uint32_t *gpath, const double *gw, const uint32_t *group);

/* A hint for a coming mm_stop of active flow f, results unchanged: stage
 * 0 fetches its record and path, 1 its links, 2 the last entries of their
 * lists (which the stop moves into its holes). Called a few flows ahead,
 * stage by stage, the stop finds them in cache. */
static inline void mm_stop_prefetch(const struct mm *m, uint32_t f, int stage)
{
    if (stage == 0) {
        __builtin_prefetch(&m->flows[f]);
        __builtin_prefetch(&m->path[mm_poff(m, f)]);
        return;
    }
    for (uint32_t pe = mm_poff(m, f), end = pe + mm_np(m, f); pe < end; pe++) {
        const struct mm_link *l = &m->links[m->path[pe]];
        if (stage == 1)
            __builtin_prefetch(l);
        else if (l->n)
            __builtin_prefetch(&m->lflow[l->off + l->n - 1]);
        /* a loop of prefetches alone has no effect the compiler must keep */
        __asm__ __volatile__("");
    }
}

/* A hint for a coming mm_start of flow f (or a pass over its links), results
 * unchanged: its link records, fetched while earlier flows start. */
static inline void mm_links_prefetch(const struct mm *m, uint32_t f)
{
    for (uint32_t pe = mm_poff(m, f), end = pe + mm_np(m, f); pe < end; pe++) {
        __builtin_prefetch(&m->links[m->path[pe]], 1);
        __asm__ __volatile__(""); /* kept: see mm_stop_prefetch */
    }
}

/* Start / stop flow f; the rates change at the next mm_update. A stopped
 * flow's rate is 0 at once. */
void mm_start(struct mm *m, uint32_t f);
void mm_stop(struct mm *m, uint32_t f);

/* Change link l's capacity (INFINITY allowed); the rates follow at the next
 * mm_update. */
void mm_set_cap(struct mm *m, uint32_t l, double cap);

/* Recompute the rates the pending changes affect. Afterwards aff[0..n_aff)
 * lists every flow whose rate may have changed (mm_prev_rate(m, k): aff[k]'s
 * rate before), tl[0..n_tl) every link whose load may have changed (with
 * prev_load); every other active flow and link kept its rate and load. */
void mm_update(struct mm *m);

/* Check the allocation from scratch: feasible (load <= cap (1 + tol) on every
 * link, loads weighted), and every active flow has a bottleneck (a link loaded to within tol
 * of its cap where no flow has a rate above the flow's by more than tol, or
 * its own cap). Rates are read from m->flows[].rate. Returns 0 or the id + 1
 * of a flow or link that fails, and writes a description to msg. For tests:
 * it scans every link of every flow. */
int mm_check(const struct mm *m, double tol, char *msg, unsigned len);

#endif
