/* The flow-level (fluid) engine: every transfer is a flow on the packet
 * engine's path (ECMP or WCMP hash; spray and per-packet adaptive routing:
 * an even split over all equal-cost paths) carrying wire bytes at its
 * max-min fair rate (maxmin.h) over every link capacity it crosses, its own
 * rate cap and the storage back end (drain rate, ingest buffer). Rates change
 * only when a flow starts or drains or an ingest buffer fills, so those are
 * the events. A flow is done one path latency after its last byte leaves the
 * source (propagation, switch latency and the last packet's store-and-forward
 * serialisation on every later hop, as in the packet engine; never less than
 * the analytic bound's way in and out of each resource it crosses, bound.h),
 * plus, with a back end, the time to write what is buffered ahead of it.
 *
 * It knows nothing of packets: drops, PFC, queues and ECN are left unset and
 * r->has_packet_stats = 0. With telemetry.interval it fills the time series
 * that have meaning for a fluid (fsample.h): throughput per segment, bytes
 * still to deliver, active transfers; with telemetry.ports, r->ports with
 * the bytes each link carried. A failed link has no capacity: a transfer
 * routed onto one is a violated invariant.
 *
 * What it does not model (fluid_unmodelled lists it per scenario, each
 * with the way it moves the completion; docs/fluid.md): PFC pauses and
 * head-of-line blocking, or tail drops, wherever a queue can build; DCQCN;
 * flowlets and adaptive flowlets moving after gaps; reordering under
 * go-back-N receivers; random spraying; the storage request window;
 * training's per-class queues and buffers. */
#ifndef CKPT_FLUID_H
#define CKPT_FLUID_H

#include "../core/arena.h"
#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../stats/results.h"
#include "../topo/topo.h"
#include "../work/work.h"

/* Run the transfers of w on t; fill the engine's part of r (completion,
 * writers, link figures, invariants, perf). Returns 0, or -1 with e set. */
/* Path entries (link, share) the engine would hold for w: about 28 bytes and
 * a share of the solver's work each. With spray's leaf pairs held once
 * (three tiers), *group: the pairs' links (16 bytes each), else 0. */
double fluid_path_entries(const struct scenario *sc, const struct topo *t,
                          const struct workload *w, double *group);

/* Spray: transfers between the same two leaves share one split, computed
 * once per leaf pair. For tests: the transfers of w whose grouped links or
 * shares differ in any bit from their own split's (0 when grouping is
 * exact); *entries: the (link, share) entries compared. */
uint32_t fluid_grouped_mismatches(const struct scenario *sc, const struct topo *t,
                                  const struct workload *w, uint64_t *entries);

int fluid_run(const struct scenario *sc, const struct topo *t,
              const struct workload *w, struct results *r, struct err *e);

/* fluid_run, calling done(ctx) once set-up has taken what it reads of w's
 * routes (w->path, w->kind) when the loop and results read them no more
 * (each transfer's route leads its solver path): the caller, which owns w,
 * may then release them before the loop's peak. Not called otherwise. */
int fluid_run_routes_done(const struct scenario *sc, const struct topo *t,
                          const struct workload *w, void (*done)(void *ctx), void *ctx,
                          struct results *r, struct err *e);

/* fluid_run with spray's (and per-packet adaptive's) leaf pairs held once
 * in the solver as groups (grouped 1; fluid_run does so on three tiers,
 * without training traffic) or every transfer holding its whole split
 * (0). The rates agree to round-off (tests/test_fluid_group.c). */
int fluid_run_grouped(const struct scenario *sc, const struct topo *t,
                      const struct workload *w, int grouped, struct results *r,
                      struct err *e);

/* Whether a queue can build (fluid_unmodelled's "can congest") from the
 * routes a walk over every transfer has at hand (ckpt_prepare's path
 * cache): begin; add each transfer in index order with its route
 * (workload_path's; np 0: none); end fills r->load_known, load_congest and
 * load_rtt_spread, which fluid_unmodelled then takes rather than walking
 * the routes again. Off (begin returns 0, end fills nothing) under spray
 * and WCMP, and off once a transfer has no route or a source comes after
 * a later one (can_congest sums by source); end with r NULL only frees. */
struct fluid_load {
    const struct scenario *sc;
    const struct topo *t;
    /* the per-port arrays: mapped on huge pages when large (a 4 KB page
     * fault costs ~10 us on a VM: 2,500 of them at 800k transfers) */
    struct arena mem;
    double *offered, *mine;  /* per port: all sources'; this source's */
    uint64_t *rmin, *rmax;   /* per port: base round trips (TCP only) */
    uint32_t *touched, nt;   /* this source's ports */
    uint32_t src;
    double nic;
    int on, seen;
};
int fluid_load_begin(struct fluid_load *f, const struct scenario *sc, const struct topo *t);
void fluid_load_add(struct fluid_load *f, const struct transfer *x, uint64_t cap,
                    const uint32_t *path, uint32_t np);
void fluid_load_end(struct fluid_load *f, struct results *r);
/* For tests: the ports whose offered load (or round trips) the walk over
 * workload_path's routes gives otherwise than can_congest, in any bit;
 * *kept: whether the walk stayed on. */
uint32_t fluid_load_mismatches(const struct scenario *sc, const struct topo *t,
                               const struct workload *w, int *kept);

/* For tests: set-up's heads (each resource's latest first packet), kinds
 * and bound memo, made with the kinds w hands on (struct workload's kind)
 * and found afresh: the transfers whose kind differs plus the entries and
 * memo slots that differ; -1 when w hands none on or memory runs out. */
int64_t fluid_heads_mismatches(const struct scenario *sc, const struct topo *t,
                               const struct workload *w);

/* Each transfer's end (UINT64_MAX when its state in fst is not done, 2)
 * written over the engine's flow records fl (n of them, two 8-byte words
 * each, the end second) in place: end i in the 8 bytes at 8 i. Returns fl
 * as the ends, NULL when fl is. The results take the records' memory
 * rather than a fresh array (tests/test_fluid.c). */
uint64_t *fluid_ends_over_flows(void *fl, const uint8_t *fst, uint32_t n);

/* fluid_run_grouped with each finishing transfer's latency read by its
 * kind (the bound memo's slot set-up found for it; kinds 1, as
 * fluid_run_grouped does) or worked out from its route's ports at each
 * finish (0). The same results to the bit (tests/test_fluid_scale2.c). */
int fluid_run_kinds(const struct scenario *sc, const struct topo *t,
                    const struct workload *w, int grouped, int kinds, struct results *r,
                    struct err *e);

/* Fill r->unmodelled with what this engine ignores in sc (on t and w) that
 * the packet engine would show: each entry a key, its value and the effect.
 * The one place that decides it: runs, auto's reason and reports read it.
 * Returns r->n_unmodelled. */
uint32_t fluid_unmodelled(const struct scenario *sc, const struct topo *t,
                          const struct workload *w, struct results *r);

/* "key=value (effect: direction), ..." of r->unmodelled into buf (cap
 * bytes, always terminated when cap > 0); returns its length. */
size_t fluid_unmodelled_text(const struct results *r, char *buf, size_t cap);

/* The way the whole list moves the fluid completion: optimistic or
 * pessimistic when every entry says so, else unknown; -1 for an empty list. */
int fluid_direction(const struct results *r);
/* "optimistic", "pessimistic", "unknown" */
const char *fluid_direction_name(int dir);
/* The summary's words for fluid_direction: "is optimistic", "is
 * pessimistic", "may be optimistic or pessimistic (...)" */
const char *fluid_direction_words(int dir);

#endif
