/* Results: one struct that every engine fills and every report reads.
 * Times are seconds (double) at this edge; counters are integers. */
#ifndef CKPT_RESULTS_H
#define CKPT_RESULTS_H

#include <signal.h>
#include <stdint.h>

#include "../core/arena.h"
#include "../scenario/tpscheme.h"
#include "../work/plan.h"
#include "series.h"


/* What checkpoints and failures cost (src/cost, docs/checkpoint.md).
 * Intervals are training time between checkpoints; 0 = not applicable. */
/* bill items: 3 switch tiers, TOPO_BOM_SPEEDS optic speeds */
#define COST_MAX_UNPRICED (3 + TOPO_BOM_SPEEDS)
/* cost.compare_policies: sync, async, hierarchical and the run's own if another */
#define COST_MAX_POLICIES 4
struct cost_figures {
    double end_s;              /* trigger -> last byte received */
    double stall_s;            /* GPU stall per checkpoint (policy) */
    int drain_late;            /* async/hierarchical: drain outlasts the interval */
    double interval_s;
    double checkpoints_per_day;
    double gpu_hours_per_day, money_per_day, mfu_points_lost;
    double job_mtbf_s;         /* 0 = no failures */
    double failures_per_day;
    double young_s, daly_s;    /* optimal intervals (at least one step) */
    double goodput, goodput_at_optimal;
    /* async, hierarchical: the drain's end after the stall's, when the
     * checkpoint becomes durable; a failure before it loses one more
     * interval (cost_goodput_lag). 0 for sync */
    double durability_lag_s;
    double goodput_mc, mc_days; /* Monte Carlo; mc_days 0 = not run */
    uint64_t mc_failures;
    double lost_gpu_hours_per_day, lost_money_per_day; /* all waste: 1 - goodput */
    /* training steps slowed by the drain (async, hierarchical: GPUs train
     * while it runs; docs/training.md): per checkpoint, and per day */
    double training_lost_s;
    double training_slowdown_gpu_hours_per_day, training_slowdown_money_per_day;
    /* host contention of the drain (cluster.host_rate, checkpoint.drain_slowdown):
     * training runs drain_slowdown slower for drain_s, losing contention_s per
     * checkpoint (part of training_lost_s); 0 without */
    int contention_on;         /* either key given */
    double drain_s, drain_slowdown, contention_s;
    double contention_gpu_hours_per_day, contention_money_per_day;
    /* what the durability lag costs: goodput without it less with it */
    double lag_gpu_hours_per_day, lag_money_per_day;
    /* cost.compare_policies: the full daily cost of each policy on this
     * scenario, one run each (src/api/policies.c) */
    uint32_t n_policies;
    struct policy_cost {
        int policy;            /* enum ckpt_policy */
        int chosen;            /* the run's own policy */
        int ok;                /* its run finished; else why */
        char why[160];
        double stall_s, end_s, lag_s, contention_s;
        double stall_money, contention_money, lag_money, rework_money; /* per day */
        double lost_money, capital_per_day, total_per_day;
        double wear_money;     /* drive wear beyond its amortisation (endurance) */
        double goodput;
        int storage;           /* -1 no endurance keys, 0 within, 1 exceeds */
    } policies[COST_MAX_POLICIES];
    /* recovery time: failures.recovery_time, or auto from the restore */
    double recovery_s;
    const char *recovery_from; /* "configured", "simulated restore", "restore bound" */
    /* GPU-hours/day one_replica_broadcast saves against every_replica at the
     * configured interval (recovery auto; negative: it costs more) */
    double bcast_saves_gpu_hours_per_day;
    /* capital cost of the bill of materials at cost.prices (src/cost;
     * priced 0: no prices given, the figures are 0). Switches and optics
     * without a price are listed in unpriced and left out of capital. */
    int priced;
    double capital, capital_switches, capital_optics, capital_per_day;
    double capital_cables, capital_storage; /* DACs and fibre; storage nodes */
    double capital_training; /* fabric.isolation physical: the training fabric */
    double amortisation_years;
    uint32_t n_unpriced;
    char unpriced[COST_MAX_UNPRICED][80]; /* "16 spines (CX764QD-N)" */
};

/* Training traffic beside the checkpoint (src/work/train.h,
 * docs/training.md). Steps run from the checkpoint's trigger; a step is
 * slowed when it took more than TRAIN_SLOWED x the baseline longer. */
#define TRAIN_SLOWED 0.01
struct train_figures {
    int on;                    /* training.traffic collectives */
    int on_fabric;             /* 0: isolation physical, the baseline steps */
    int isolation;             /* fabric.isolation: enum isolation_kind */
    uint32_t priority;         /* its priority on this fabric */
    uint32_t steps, slowed;
    double baseline_step_s, compute_s, comm0_s; /* comm0: uncongested, analytic */
    double step_p50_s, step_p99_s, step_max_s;
    double comm_p50_s, comm_p99_s, comm_max_s;
    double during_step_s;      /* mean of the steps that began before the checkpoint ended */
    double slowdown;           /* during_step_s / baseline - 1 */
    double lost_s;             /* sum over steps of the time beyond the baseline */
    double ckpt_end_s;         /* trigger -> the checkpoint's last byte */
    double victim_paused_s;    /* packet engine: training held by PFC on links not toward storage */
    uint64_t bytes, bytes_per_step;
    uint64_t seg_bytes[PATH_SETS]; /* packet engine: training wire bytes per link set */
    uint32_t flows_per_step, dp, dp_nodes;
    double *begin_s, *step_s, *comm_s; /* [steps], owned */
};

/* Progress of a running engine, for a caller's progress line: called every
 * 65536 events; must not touch the run (results stay identical). */
struct ckpt_progress_info {
    double sim_s;              /* simulated time done */
    uint64_t delivered, total; /* payload bytes */
    uint64_t events;
};
struct ckpt_progress {
    void (*fn)(void *ud, const struct ckpt_progress_info *p);
    void *ud;
    /* when non-NULL and set (a caller's SIGINT handler), the engine stops
     * at its next progress call: results are partial, finished = 0 and
     * interrupted = 1; NULL: never */
    const volatile sig_atomic_t *stop;
};

/* The restore (checkpoint.phase restore|both; docs/checkpoint.md, Restore):
 * the read back, simulated as its own run over the mirrored fabric. */
struct restore_figures {
    int ran;                   /* 0: phase save */
    int ok;                    /* the restore run's invariants held */
    int finished;
    const char *mode;          /* restore.mode */
    const char *engine;        /* the engine that ran it, or "none (bound)" */
    double completion_s;       /* first byte sent -> last reader done (broadcast incl.) */
    double bound_s;            /* its own lower bound */
    int bound_limit;           /* enum path_seg that sets it */
    int bottleneck;            /* enum path_seg (attribution); -1 none */
    double bottleneck_util;
    uint64_t bytes_read;       /* from the storage nodes */
    double amplification;      /* bytes read / checkpoint bytes */
    uint32_t readers, transfers;
    double broadcast_s;        /* one_replica_broadcast: longest group broadcast */
    double restart_s;          /* restore.restart_overhead */
    double recovery_s;         /* restart + restore completion */
    int estimated;             /* 1: the read's bound, not simulated (phase save) */
    double other_recovery_s;   /* the same in the other restore.mode */
    int other_finished;
    /* the read's own hybrid run (hybrid.* is the save's under phase both) */
    int hybrid_on;
    uint32_t hybrid_jumps;
    double hybrid_fraction, hybrid_skipped_s, hybrid_error_s;
    char violation[256];
};

/* checkpoint.mlperf: the figures MLPerf Storage reports (docs/storage.md).
 * DLIO's save time is rank 0's own duration (no barrier before its end
 * stamp); the next checkpoint waits for every rank. GiB/s as DLIO prints. */
struct mlperf_figures {
    int on;
    const char *workload;      /* checkpoint.mlperf */
    double dlio_gib;           /* the size DLIO reports */
    double ckpt_gib;           /* this run's checkpoint */
    double save_rank0_s, save_all_s;
    double save_rank0_gibps, save_all_gibps;
    double load_s, load_gibps; /* the read back (restore ran and finished) */
    uint32_t writes, reads;
    double gap_s;              /* emulated compute before each */
    double run_s;              /* the benchmark's writes and reads, gaps included */
};

/* storage.protocol's requests (docs/storage.md, Requests): counted and
 * timed in the packet engine; the fluid engine counts them and estimates
 * their latency by Little's law (estimated = 1). */
struct request_figures {
    int on, estimated;
    const char *protocol;      /* storage.protocol */
    uint64_t count;            /* requests completed */
    double mean_s, max_s;      /* first byte sent to complete (server latency in) */
};

/* Capacity and endurance (storage.capacity, storage.retention,
 * storage.drive_*; docs/storage.md): what the policy writes per day
 * against what the storage holds and its drives are rated for. */
struct endurance_figures {
    int on;
    uint64_t bytes_per_day;    /* checkpoint bytes (protection's in) x checkpoints per day */
    uint64_t retained_bytes;   /* (retention + 1) x checkpoint bytes, protection's in */
    uint64_t capacity_bytes;   /* storage.capacity; 0 = not given */
    double capacity_used;      /* retained / capacity */
    uint64_t raw_bytes;        /* drives x drive capacity over the nodes; 0 = not given */
    double dwpd;               /* drive writes per day of the policy */
    double dwpd_rating;        /* storage.drive_dwpd; 0 = not given */
    double max_checkpoints_per_day; /* within the rating; 0 = no rating */
    int over_capacity, over_endurance;
    /* drive wear in money (docs/storage.md, Drive wear): the drives' price
     * x the share of their rated writes (dwpd_rating x raw bytes x
     * storage.drive_rating_years) a day uses, against their straight-line
     * amortisation; the excess is a cost beyond capital. wear_priced 0:
     * no rating or no price for the drives (drive_name), the money is 0 */
    int wear_priced, wear_limited;
    char drive_name[32];
    uint64_t drives;           /* storage.nodes x storage.drives */
    double rating_years;
    double drives_price;       /* every drive at cost.prices */
    double wear_per_day, drives_amortisation_per_day;
    double wear_cost_per_day;  /* max(0, wear - amortisation) */
};

/* Which way an effect the fluid engine ignores moves its completion against
 * the packet engine's: optimistic = the fluid figure is shorter. */
enum unmodelled_dir { UNMOD_OPTIMISTIC, UNMOD_PESSIMISTIC, UNMOD_UNKNOWN };

struct results {
    int engine;                /* enum engine_kind: the engine that ran (packet or fluid) */
    char engine_reason[512];   /* why it ran (engine: auto explains its pick) */
    int has_packet_stats;      /* 0: drops, PFC, queues, packets unknown (fluid) */
    /* what the fluid engine's figure ignores in this scenario
     * (fluid_unmodelled, src/fluid/fluid.h): each a key, its value and the
     * effect the packet engine would show, and which way ignoring it moves
     * the fluid completion (enum unmodelled_dir; fluid_direction gives the
     * whole list's). Filled by fluid runs (and auto's pick of fluid); key
     * and effect are static strings. */
    uint32_t n_unmodelled;
    int unmodelled_done;       /* the list above is filled: the engine choice and the run share it */
    /* whether a queue can build, from ckpt_prepare's walk (fluid_load_end):
     * known, the verdict, TCP round trips that differ on a full port */
    int load_known, load_congest, load_rtt_spread;
    struct unmodelled {
        const char *key;
        char value[24];
        const char *effect;
        int dir;               /* enum unmodelled_dir */
    } unmodelled[8];

    /* checkpoint */
    uint64_t ckpt_bytes;
    uint32_t writers;
    double completion_s;       /* first byte sent -> last byte received */
    int interrupted;           /* stopped on request (ckpt_progress.stop) */
    int finished;              /* every transfer completed; else completion_s,
                                * utilisations and costs mean nothing */
    uint32_t transfers;        /* transfers planned (flows_done of them ended) */
    double writer_p50_s, writer_p99_s, writer_max_s; /* per writer, own start */
    double first_byte_s;       /* when the first byte was sent (completion's start) */

    /* analytic max-flow lower bound */
    double bound_s;
    enum path_seg bound_limit;
    double bound_term_s[PATH_COUNT]; /* each term without base latency */
    double base_latency_s;
    double bound_unprotected_s; /* storage.protection: the bound without its bytes */
    /* metadata and durability: every file's fsync cost follows its last
     * byte (added to the bound); the metadata service's own term, and 1
     * when it sets the bound (bound_limit is then the data's limit) */
    double bound_fsync_s, bound_meta_s;
    int bound_by_meta;

    /* fabric */
    double oversub_compute, oversub_storage;
    uint32_t switches, links;
    uint32_t failed_links;
    char failed_link_names[256];
    char warnings[512];        /* the fabric needs more than its switch profiles offer */
    char port_notes[256];      /* links slower than the ports they run on */
    char transport_warning[512]; /* the transport cannot carry the bound's pace (transport_reach) */
    /* keys transport.protocol brings that the scenario set otherwise
     * (scenario_protocol_kept) */
    char protocol_kept[256];
    double reach_s;            /* ... and the write's time at the pace it expects (0: none) */
    /* switch levels (path.h names them); pods and the rest 0 without a
     * level above the spines, and outputs leave them out */
    unsigned fabric_tiers;
    uint32_t pods, spines_per_pod, superspines; /* super-spines in all */
    double oversub_spine;      /* a compute pod's spines: down / up */
    int fabric_auto;           /* fabric.tiers auto built it */
    double auto_oversub;       /* its fabric.oversubscription */
    uint32_t hosts_per_leaf, storage_per_leaf, spines, links_per_spine, links_per_super;
    uint32_t leaves_per_pod;
    /* nodes on the emptiest leaf of each side (the figures above are the
     * fullest): less only for an uneven topology file */
    uint32_t hosts_per_leaf_min, storage_per_leaf_min;
    int fabric_imported;       /* wired by fabric.topology_file */
    /* bill of materials of the built fabric (topo_bom): switches per tier
     * (leaves, spines, super-spines; profiles in the scenario), links by
     * speed, fastest first */
    uint32_t bom_switches[3];
    uint32_t bom_n_speeds;
    uint64_t bom_speed_bps[TOPO_BOM_SPEEDS];
    uint32_t bom_links[TOPO_BOM_SPEEDS];
    /* the links again by class (topo_bom_classes), as cost_capital prices
     * them: in the rack copper, further optics by reach */
    uint32_t bom_class_n[TOPO_LINK_CLASSES];
    uint64_t bom_class_bps[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS];
    uint64_t bom_class_links[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS];
    uint32_t bom_storage_nodes;
    /* broken-out switch ports by class and end (topo_bom_breakout) */
    uint64_t bom_bo_ports[TOPO_LINK_CLASSES][2];
    /* fabric.isolation physical: training's own fabric, priced as a copy of
     * this one's compute side (topo_bom_compute) */
    int bom_train_on;
    struct topo_side_bom bom_train;

    /* network counters */
    uint64_t drops;
    uint64_t pause_frames, resume_frames;
    double paused_s;           /* sum over ports of time spent paused */
    double max_port_paused_s;
    uint64_t max_queue_bytes;  /* largest egress queue seen */
    uint64_t max_buffer_bytes; /* largest switch buffer occupancy seen */
    uint64_t packets_delivered;

    /* lossless fabric, ECN and congestion control (packet engine) */
    enum cc_kind cc;           /* its name: cc_scheme(cc)->name */
    uint64_t drops_lossless, drops_lossy, drops_watchdog;
    uint64_t refresh_frames, pause_frames_rx, pfc_storms;
    uint64_t ecn_marked, data_packets;
    /* an ECN-driven transport with nothing marked: the largest switch
     * queue and the kmin of its port (ecn_unreached: it stayed under) */
    int ecn_unreached;
    uint64_t ecn_top_queue, ecn_top_kmin;
    uint64_t cnps_sent, cnps_received, rate_decreases;
    double min_rate_bps;       /* lowest rate any queue pair was cut to */
    /* buffer pools (fabric.mmu.pools; packet engine): 1 when shared;
     * per pool its priorities, the peak shared bytes at any switch and
     * the peak as a fraction of that switch's pool */
    uint32_t n_buffer_pools;
    struct {
        uint8_t prio_mask;
        uint64_t max_used;
        double max_fraction;
    } buffer_pool[8];
    /* load balancing and receivers */
    int lb;                    /* enum lb_kind */
    uint64_t retx_bytes;       /* go-back-N resends (not goodput) */
    uint64_t discarded_bytes;  /* data receivers threw away (out of order) */
    uint64_t reordered, naks;  /* packets arriving behind a later one; NAKs sent */
    /* loss recovery (a class the transport uses can drop): retransmission
     * timeouts, packets resent, the connection's ACKs, ooo's selective NAKs
     * (among naks), transfers failed after retry_count timeouts */
    int loss_recovery;
    uint64_t timeouts, retx_packets, rc_acks, sack_naks, qp_errors;
    /* resent copies that reached a receiver holding their PSN already */
    uint64_t dup_packets;
    /* its timer (transport.rto) and the longest one armed */
    int rto_mode;
    uint64_t rto_max_ps;
    /* Ultra Ethernet (transport.receiver uec): trimming on, packets the
     * switches trimmed and the payload cut, the receivers' NACKs of them,
     * the senders' entropy values */
    int uec, trimming;
    uint64_t trims, trimmed_bytes, trim_naks;
    /* selective ACKs (transport.uec.sack; 0: off or no loss recovery) and
     * the packets past a timeout's cumulative ACK they kept from a resend */
    int uec_sack;
    uint64_t sack_skipped;
    uint32_t entropies;
    /* transport.uec.lb: reps on; entropies recycled and explored (reps);
     * resends sent on the entropy that failed (a NACK names it) */
    int reps;
    uint64_t ev_recycled, ev_explored, ev_resend_same;
    /* transport.uec.rccc: on; packets of credit receivers granted (bytes
     * of payload they allow) and the credit packets that carried them */
    int rccc;
    uint64_t credits_granted, credit_packets;
    /* TCP (dctcp, cubic): fast retransmits, duplicate ACKs heard, window cuts */
    uint64_t tcp_fast_retx, tcp_dupacks, tcp_cuts;
    uint64_t acks, window_stalls;  /* storage.max_outstanding: request ACKs, sends held back */
    uint64_t packets_allocated;    /* packet structs the run needed at most (slabs) */
    double lb_uplink_imbalance;  /* worst compute leaf: max/mean bytes over its uplinks */
    double lb_spine_imbalance;   /* max/mean bytes over spines (toward storage) */
    double lb_paths_mean;        /* uplinks a flow used, mean over flows */
    uint32_t lb_paths_max;
    uint64_t max_headroom_bytes;   /* largest PFC headroom use of a (port, PG) */
    uint64_t max_shared_pg_bytes;  /* largest shared-pool use of a (port, PG) */
    /* per link set (enum path_seg, src/topo/path.h): largest egress queue,
     * time-weighted p99 of busy ports, time paused */
    uint64_t seg_queue_max[PATH_SETS], seg_queue_p99[PATH_SETS];
    double seg_paused_s[PATH_SETS];
    /* per port, owned (results_release frees) */
    uint32_t n_ports;
    struct port_result {
        uint32_t node, peer, seg;   /* seg: its link set (enum path_seg) */
        uint64_t tx_bytes, max_queue, max_headroom, max_shared;
        uint64_t pause_tx, pause_rx, ecn_marked, drops;
        double paused_s;
        double xoff_shared;    /* mean shared use of its PG when XOFF was sent */
        double active_s;       /* first packet start to last packet end */
        double active_paused_s; /* paused time up to the last packet's end */
    } *ports;
    /* samples every telemetry.interval, owned; with telemetry.flows (else
     * n_sample_flows = 0): rate[i * n_sample_flows + f] is flow f's sending
     * rate (bps), delivered[...] its bytes received (packet engine) */
    uint32_t n_samples, n_sample_flows;
    double *sample_t, *sample_rate;
    uint64_t *sample_delivered;
    uint64_t *sample_max_queue;    /* largest switch egress queue at each sample;
                                    * NULL: none (fluid) */
    uint8_t *sample_ff;            /* 1 where a hybrid jump carried the sample (its
                                    * state the jump's); NULL: none (fluid) */
    /* per writer completion (s; -1 = incomplete), with telemetry.ports, owned */
    uint32_t n_writer_s;
    double *writer_s;
    struct arena writer_mem; /* writer_s's (writer_acc's start array, reused) */

    /* per forward link set, its busiest link (has_link_stats): carried wire
     * bytes / (capacity x completion), time carrying traffic, time at
     * capacity; indexed by enum path_seg */
    int has_link_stats;
    double link_util_max[PATH_SETS];
    double link_busy_max_s[PATH_SETS];
    double link_full_max_s[PATH_SETS];

    /* wire bytes sent on each link set's ports (has_packet_stats) */
    uint64_t seg_tx_bytes[PATH_SETS];
    /* telemetry time series (series.h; queues and pauses: packet engine), owned */
    struct series series;
    /* bottleneck attribution by path segment (src/stats/segments.c) */
    struct seg_figures segs[PATH_COUNT];
    struct bottleneck bottleneck;
    /* input, not a result: the progress hook of ckpt_run_progress */
    const struct ckpt_progress *progress;

    /* the checkpoint as planned (src/work) and what it costs (src/cost) */
    struct plan_summary plan;
    struct cost_figures cost;
    struct train_figures training;

    /* the restore, when simulated (phase restore: the run above is it) */
    int phase;                 /* enum ckpt_phase */
    struct restore_figures restore;
    struct mlperf_figures mlperf;
    struct endurance_figures endurance;
    struct request_figures requests;

    /* invariants */
    int ok;
    char violation[512];
    uint64_t bytes_sent, bytes_delivered, bytes_dropped, bytes_in_flight;
    uint32_t flows_done;
    int time_monotone;

    /* performance of the run itself */
    uint64_t events;
    int event_order;           /* packet engine: enum event_order (window or time) */
    uint32_t threads;          /* packet engine: threads that ran the windows; 0: no
                                * event order (fluid) */
    int threads_auto;          /* sim.threads auto chose them */
    double threads_solo;       /* of their windows, the share one thread ran
                                * alone (the others' cores were taken) */
    uint64_t max_pending_events;
    uint64_t mem_bytes;        /* arena + event queue + packet slabs */
    uint64_t rate_updates;     /* fluid: max-min updates (one per event time) */
    uint64_t rates_recomputed; /* fluid: flow rates recomputed, summed over them */
    double wall_s;             /* the engine's loop */
    double cores_idle;         /* packet engine: cores no other process held at
                                * its end, its own included (-1 unknown or a
                                * run under 1 s; machine_idle_cores), for the
                                * threads hint */
    double total_s;            /* the whole run: scenario, topology and routes,
                                * plan, bound, engine, attribution and cost */
    /* engine: hybrid (src/pkt/hybrid.c): the fast-forward of steady states */
    struct hybrid_figures {
        int on;                /* the hybrid engine ran */
        uint32_t jumps;        /* fast-forwards made */
        uint64_t ends;         /* transfers' ends they passed */
        uint32_t ends_max;     /* the most one passed */
        double period_s;       /* the observation period */
        double skipped_s;      /* simulated time fast-forwarded */
        double fraction;       /* skipped_s of the simulated time up to the last
                                * transfer's end */
        uint64_t observations; /* periods observed (none after the last end) */
        double error_s;        /* completion-time error estimate: the spread of the
                                * transfers' rates over the skipped time */
        double paused_error_s; /* paused-time error estimate: the drift no fit rules
                                * out x the state's lag, over the paused time */
        double paused_error_fraction; /* paused_error_s of the run's paused time */
        double pause_frames_error; /* XOFFs' (and XONs') error estimate, frames: their
                                    * rate's drift x the state's lag */
        double pause_frames_error_fraction;   /* of the run's XOFFs */
        double refresh_frames_error;          /* the refreshes', the same way */
        double refresh_frames_error_fraction; /* of the run's refreshes */
        char why[112];         /* why it could not fast-forward, or "" */
        char estimated[384];   /* the counters the jumps credited and how */
    } hybrid;
};

/* Writer completions, shared by the engines: each writer runs from its
 * first transfer's start to its last transfer's end; the checkpoint from the
 * first byte sent to the last byte written. Add every completed transfer,
 * then finish: fills completion_s, writers, writer_{p50,p99,max}_s and
 * writer_s (-1 for a writer with nothing completed), and frees the rest. */
struct writer_acc {
    uint64_t *start, *end;
    uint32_t n;
    uint64_t first, last;
    /* huge pages when large: start, which finish turns into writer_s in
     * place (no fresh pages for it), in out; end and finish's scratch in mem */
    struct arena out, mem;
};
int writer_acc_init(struct writer_acc *a, uint32_t n_writers);
void writer_acc_add(struct writer_acc *a, uint32_t writer, uint64_t start_ps,
                    uint64_t first_byte_ps, uint64_t done_ps);
void writer_acc_finish(struct writer_acc *a, struct results *r);

/* Record a violated invariant: r->ok = 0 and the message joins
 * r->violation ("; " between; the first ones win when space runs out). */
void results_violate(struct results *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Free what a run allocated inside r (per-port stats, samples). */
void results_release(struct results *r);

/* Nearest-rank percentile of v[0..n) (sorts v in place). q in [0, 1]. */
double results_percentile(double *v, uint32_t n, double q);

/* The same nearest-rank percentiles q[0..m) of v[0..n) into out[0..m), q in
 * descending order, by selection instead of a sort (O(n) for a few
 * percentiles): v is reordered, not sorted. */
void results_percentiles(double *v, uint32_t n, const double *q, double *out, uint32_t m);

/* Transceivers of r's BOM at bps (every speed: bps 0): two a link beyond
 * the rack (leaf-spine, spine-super-spine); host and storage links are DACs. */
static inline uint64_t results_bom_optics(const struct results *r, uint64_t bps)
{
    uint64_t n = 0;
    for (int c = 2; c < TOPO_LINK_CLASSES; c++)
        for (uint32_t i = 0; i < r->bom_class_n[c]; i++)
            if (!bps || r->bom_class_bps[c][i] == bps)
                n += 2 * r->bom_class_links[c][i];
    return n;
}

#endif
