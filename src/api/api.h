/* Internal to src/api: the engine choice shared by run and describe. */
#ifndef CKPT_API_H
#define CKPT_API_H

#include "../core/arena.h"
#include "../scenario/scenario.h"
#include "../stats/results.h"
#include "../topo/topo.h"
#include "../work/work.h"

/* The pipeline up to the engine, shared by run and describe: resolve the
 * scenario into *eff, build topology and transfers in the arena (which the
 * caller initialised and releases), fill r's checkpoint, fabric and bound
 * figures. Returns 0 or -1 with e set. */
int ckpt_prepare(const struct scenario *user, struct scenario *eff, struct arena *a,
                 struct topo *t, struct workload *w, struct results *r, struct err *e);

/* The read of the checkpoint the save workload s placed, in restore.mode
 * mode, set up as a run reads it: the read's scenario *rs (nothing of the
 * write side), topology *v and transfers *w in a, and rr zeroed then given
 * the read's plan, fabric, bound (phase restore) and rr->restore's mode,
 * bytes, readers and bound. Returns 0 or -1 with e set. */
int ckpt_restore_prepare(const struct scenario *sc, const struct topo *t,
                         const struct workload *s, int mode, struct scenario *rs,
                         struct topo *v, struct workload *w, struct arena *a,
                         struct results *rr, struct err *e);

/* Where the transport's own settings keep every transfer together under
 * the bound's pace before anything queues (Swift's target delay under the
 * path's unloaded round trip, NSCC's or HPCC's window under its BDP),
 * r->transport_warning says so and by how much, and r->reach_s gives the
 * write's time at that pace; else both are empty. */
void transport_reach(struct results *r, const struct topo *t, const struct workload *w,
                     const struct scenario *sc);

/* engine: packet, fluid, hybrid, or auto's pick by estimated packet events
 * (packet up to CKPT_AUTO_PACKET_S, hybrid up to CKPT_AUTO_HYBRID_S where
 * fluid would ignore something, else fluid); writes why into
 * r->engine_reason, and what the fluid figure ignores (r->unmodelled,
 * fluid_unmodelled) when the pick is fluid or hybrid stands in for it.
 * Returns enum engine_kind (never ENGINE_AUTO). */
int ckpt_choose_engine(const struct scenario *sc, const struct topo *t,
                       const struct workload *w, struct results *r);

/* sim.threads auto's ceiling on t: the leaves (a leaf and its hosts run on
 * one thread), at most 8; 1 with a storage.protocol. Hybrid takes the same
 * (two threads with the other core busy within 1.04x of one, idle
 * 1.10-1.68x faster: BENCHMARKS.md, session 29). */
unsigned ckpt_threads_cap(const struct scenario *sc, const struct topo *t);

/* The packet engine's speed on this project's machine: the 1024-writer burst
 * on one thread (BENCHMARKS.md, issue 15, session 7: 16,248,254 events in
 * 0.80-0.95 s at load 0.3-1, about 19 M events/s; the default scenario is
 * faster). Every wall-time figure of run and describe uses it. */
#define CKPT_PKT_EVENTS_PER_S 19e6
/* sim.threads: 2 (or more) in window order: the same burst 1.4-1.9x faster than on one
 * thread, by how busy the machine's other core is (session 7) */
#define CKPT_PKT_TWO_THREADS 1.5
/* engine: auto runs the packet engine when it would take at most this long
 * at CKPT_PKT_EVENTS_PER_S, so the threshold moves with the measured speed */
#define CKPT_AUTO_PACKET_S 8.0
#define CKPT_AUTO_EVENT_LIMIT (CKPT_AUTO_PACKET_S * CKPT_PKT_EVENTS_PER_S)
/* Past CKPT_AUTO_PACKET_S, auto runs hybrid instead of fluid up to this long
 * (and CKPT_PACKET_EVENT_LIMIT events) where the fluid figure would ignore
 * an effect and hybrid can fast-forward: hybrid costs about what the packet
 * engine does on the bursts measured (docs/engine.md, "Hybrid: validation"),
 * so the ceiling is a packet-engine run one would wait for. */
#define CKPT_AUTO_HYBRID_S 60.0

/* The packet engine's events per data packet for sc, as on the 1024-writer
 * burst: 8 (a serialisation end and a wire arrival on each of 4 links; 8.1
 * measured with PFC), 1.44x that with DCQCN (CNPs hop by hop, pacing
 * wake-ups, timers: 23.34 M against 16.25 M events), 1.17x with its CNPs
 * sent direct (19.08 M; BENCHMARKS.md, session 8); smaller bursts spend
 * less. auto counts it; describe's range tops out at 1.25x it. */
double ckpt_pkt_events_per_packet(const struct scenario *sc, const struct topo *t);
/* The least a data packet spends: a serialisation end and a wire arrival on
 * each link of its path, 8 on two tiers, 12 on three (measured 8.07-8.15
 * and 12.27-12.39 on BENCHMARKS.md's bench set, PFC only). t NULL: the
 * tiers sc was resolved to. */
double ckpt_pkt_events_floor(const struct scenario *sc, const struct topo *t);

/* The packet engine's cost of an event on sc's fabric with packets data
 * packets: CKPT_PKT_NS_PER_EVENT while what every event touches (the
 * packets in flight, at most every buffer full, and the ports) fits in
 * CKPT_PKT_WS_FREE_MB, CKPT_PKT_NS_PER_MB more per MB past it (cache and
 * TLB misses; BENCHMARKS.md, issue 25). */
double ckpt_pkt_ns_per_event(const struct scenario *sc, const struct topo *t, double packets);
#define CKPT_PKT_NS_PER_EVENT (1e9 / CKPT_PKT_EVENTS_PER_S)
#define CKPT_PKT_WS_FREE_MB 38.0
#define CKPT_PKT_NS_PER_MB 0.56
/* The working set's bytes a port and a packet in flight, as the fit above
 * counted them (struct port 1152 B; 512 B chunks of 21 packets): the
 * fit's figures, not today's sizeof, so that a field added to a struct
 * moves no estimate (nor the engine reasons built on it) until the cost
 * per event is measured again. */
#define CKPT_PKT_WS_PORT_BYTES 1152.0
#define CKPT_PKT_WS_PACKET_BYTES (512.0 / 21)

/* The packet engine's events per second for sc: 1 / ckpt_pkt_ns_per_event;
 * two threads count only in window order without training traffic on the
 * fabric (which runs in time order, on one thread). */
double ckpt_pkt_rate(const struct scenario *sc, const struct topo *t, const struct workload *w,
                     double packets);

/* What a run would cost, from the prepared topology and workload (a is the
 * arena that holds them; bound_s the analytic bound): data packets (packet engine), events, an upper
 * estimate of memory, and wall time at CKPT_PKT_EVENTS_PER_S. Events and
 * wall time are a range [events, events_max]: the packet engine spends 8-10
 * events per packet (more with DCQCN); where packets can reorder under
 * go-back-N receivers (fluid_unmodelled lists transport.receiver) the
 * resends are unknown ahead: events is then a lower bound (resends = 1) and
 * events_max what the engine would spend busy up to sim.time_limit. */
struct ckpt_estimate {
    double packets, events, mem_bytes, wall_s;
    double events_max, wall_max_s;
    int resends;               /* go-back-N may resend: events is a lower bound */
    uint32_t ports;            /* the fabric's ports (the packet engine's limit) */
    int engine;                /* the engine estimated (hybrid: as packet, skipping nothing) */
};
void ckpt_estimate(const struct scenario *sc, const struct topo *t, const struct workload *w,
                   const struct arena *a, int engine, double bound_s,
                   struct ckpt_estimate *est);

/* A packet run past these is refused unless sim.force: more events than
 * CKPT_PACKET_EVENT_LIMIT (~80 s here; the lower estimate), or more memory than phys_bytes (the
 * machine's, ckpt_phys_bytes). Returns 0, or -1 with e naming the estimate
 * and the ways out (--engine fluid, --force). A hybrid run (est->engine)
 * meets the same limits: what it skips is not known before it runs (none to
 * 99% of the time measured), so the refusal says that, or why it would
 * skip nothing (scenario_hybrid_blocked). */
#define CKPT_PACKET_EVENT_LIMIT 1e9
int ckpt_packet_limits(const struct scenario *sc, const struct ckpt_estimate *est,
                       double phys_bytes, struct err *e);
/* Physical memory of this machine in bytes (0 when unknown: no limit). */
double ckpt_phys_bytes(void);

/* The memory a run may take: the least of the machine's physical memory,
 * the process's address-space limit (RLIMIT_AS, ulimit -v) less what the
 * process has mapped besides the arena already counted in an estimate, and
 * the cgroup's memory limit (v2 memory.max, v1 memory.limit_in_bytes).
 * bytes 0: no limit known. */
struct ckpt_mem_limit {
    double bytes;
    char what[96];             /* which, after "more than": "this machine's", "the cgroup's
                                * memory limit, 2 GB", ... */
};
/* cgroup_dir: where the limit is read (NULL: /sys/fs/cgroup, the process's
 * own v2 cgroup below it from /proc/self/cgroup, and /sys/fs/cgroup/memory);
 * arena_bytes: the arena's size, already in the estimate's memory. */
void ckpt_mem_limit_of(struct ckpt_mem_limit *lim, const char *cgroup_dir, double arena_bytes);
/* ckpt_packet_limits against lim (bytes 0: no memory limit). */
int ckpt_packet_limits_mem(const struct scenario *sc, const struct ckpt_estimate *est,
                           const struct ckpt_mem_limit *lim, struct err *e);

#endif
