/* Scenario: the typed, validated description of one run.
 *
 * A scenario starts from the defaults table (scenario_defaults), then YAML
 * files and --set overrides are applied on top, then scenario_validate runs
 * the cross-field checks. Every key lives in one table in keys.c with its
 * type, default, limits and one-line doc (loading: load.c, the checks:
 * validate.c); docs/scenario.md documents the same keys. Unknown keys and bad values are errors of the form
 *   file:line:col: key: message
 */
#ifndef CKPT_SCENARIO_H
#define CKPT_SCENARIO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/err.h"
#include "lbscheme.h" /* enum lb_kind */
#include "../core/wire.h" /* struct wire_fmt */
#include "tpscheme.h" /* enum cc_kind, enum receiver_kind, protocols */
#include "names.h"

#define SCENARIO_TEXT 64 /* longest text value + 1 */
#define SCENARIO_LONG_TEXT 512 /* a text key whose field is this large: lists (cost.prices) */
#define SCENARIO_LIST_TEXT 65536 /* fabric.failed_link_names: a list of any length a file holds */
/* Input caps: a larger or deeper scenario text is refused before it is
 * parsed into a document. */
#define SCENARIO_MAX_BYTES (16 << 20) /* 16 MiB */
#define SCENARIO_MAX_DEPTH 64         /* nested mappings and sequences */
#define SCENARIO_MAX_NODES 10000      /* scalars, mappings, sequences, aliases */
#define SCENARIO_MAX_KEYS 320         /* rows of the keys table, at most */

/* Where a key was given: line and column (1-based) in the file named by
 * scenario.source; line 0 = by --set; SCENARIO_EARLIER_FILE = by a file
 * loaded before the last one. */
struct scenario_pos {
    uint32_t line, col;
};
#define SCENARIO_EARLIER_FILE UINT32_MAX

/* The packet engine's event order (src/pkt/sched.c); both give the same
 * results. ORDER_WINDOW_REVERSE runs each window's partitions in reverse
 * (tests of that claim; no scenario key selects it). */
#define EVENT_ORDERS(X) \
    X(ORDER_WINDOW, "window") \
    X(ORDER_TIME, "time")
enum event_order { EVENT_ORDERS(NAMES_ENUM) ORDER_WINDOW_REVERSE };

/* sim.threads > 1: each thread runs its share of every window (SPLIT), or
 * one runs every share while the others sleep (SOLO); the same results
 * either way. TEAM_ADAPT (the default) measures both in turn and keeps the
 * faster; TEAM_ALTERNATE switches at every meeting (tests). */
enum team_mode { TEAM_ADAPT, TEAM_SPLIT, TEAM_SOLO, TEAM_ALTERNATE };

#define ENGINE_KINDS(X) \
    X(ENGINE_PACKET, "packet") \
    X(ENGINE_FLUID, "fluid") \
    X(ENGINE_AUTO, "auto") \
    X(ENGINE_HYBRID, "hybrid")
enum engine_kind { ENGINE_KINDS(NAMES_ENUM) };
#define SCHED_KINDS(X) \
    X(SCHED_STRICT, "strict") \
    X(SCHED_DWRR, "dwrr")
enum sched_kind { SCHED_KINDS(NAMES_ENUM) };
/* How CNPs reach their sender: hop by hop through the fabric's queues, or
 * after the reverse path's unloaded latency (packet engine) */
#define CNP_PATHS(X) \
    X(CNP_FABRIC, "fabric") \
    X(CNP_DIRECT, "direct") \
    X(CNP_AUTO, "auto")
enum cnp_path { CNP_PATHS(NAMES_ENUM) };
/* How a receiver's ACKs and NACKs reach their sender (transport.ack_path):
 * as packets through the fabric, or after the reverse path's unloaded
 * latency (packet engine) */
#define ACK_PATHS(X) \
    X(ACK_FABRIC, "fabric") \
    X(ACK_DIRECT, "direct") \
    X(ACK_AUTO, "auto")
enum ack_path { ACK_PATHS(NAMES_ENUM) };

/* transport.rto: the retransmission timer, the receiver kind's timer as
 * set (fixed) or from the queue pair's round trips (adaptive) */
#define RTO_MODES(X) \
    X(RTO_FIXED, "fixed") \
    X(RTO_ADAPTIVE, "adaptive")
enum rto_mode { RTO_MODES(NAMES_ENUM) };
#define DCQCN_PRESETS(X) \
    X(DCQCN_NVIDIA, "nvidia") \
    X(DCQCN_PAPER, "paper")
enum dcqcn_preset { DCQCN_PRESETS(NAMES_ENUM) };
/* transport.uec.lb: how a uec sender picks each packet's entropy value */
#define UEC_LBS(X) \
    X(UEC_LB_OBLIVIOUS, "oblivious") \
    X(UEC_LB_REPS, "reps")
enum uec_lb { UEC_LBS(NAMES_ENUM) };
/* transport.nscc.decrease: NSCC's multiplicative decrease at most once per
 * base RTT (htsim) or on every marked, delayed ACK scaled by its bytes */
#define NSCC_DECREASES(X) \
    X(NSCC_DEC_RTT, "rtt") \
    X(NSCC_DEC_ACK, "ack")
enum nscc_decrease { NSCC_DECREASES(NAMES_ENUM) };
/* checkpoint model enums: the order of each key's choices */
#define MODEL_NAMES(X) \
    X(MODEL_NONE, "none") \
    X(MODEL_LLAMA3_8B, "llama3-8b") \
    X(MODEL_LLAMA3_70B, "llama3-70b") \
    X(MODEL_LLAMA3_405B, "llama3-405b") \
    X(MODEL_GPT3_175B, "gpt3-175b") \
    X(MODEL_DEEPSEEK_V3, "deepseek-v3") \
    X(MODEL_DENSE_1T, "dense-1t") \
    X(MODEL_LLAMA3_1T, "llama3-1t") \
    X(MODEL_CUSTOM, "custom")
enum model_name { MODEL_NAMES(NAMES_ENUM) };
#define DTYPES(X) \
    X(DTYPE_AUTO, "auto") \
    X(DTYPE_NONE, "none") \
    X(DTYPE_FP32, "fp32") \
    X(DTYPE_BF16, "bf16") \
    X(DTYPE_FP16, "fp16") \
    X(DTYPE_FP8, "fp8")
enum dtype { DTYPES(NAMES_ENUM) };
#define OPTIMIZER_KINDS(X) \
    X(OPT_ADAM, "adam") \
    X(OPT_SGD, "sgd")
enum optimizer_kind { OPTIMIZER_KINDS(NAMES_ENUM) };
#define WRITER_RULES(X) \
    X(RULE_DCP, "dcp") \
    X(RULE_MEGATRON, "megatron") \
    X(RULE_DEEPSPEED, "deepspeed")
enum writer_rule { WRITER_RULES(NAMES_ENUM) };
/* fabric.tiers: its choice's index ("2|3|auto"); the code asks
 * scenario_levels for the count, never compares with a choice but auto */
enum fabric_tiers { TIERS_AUTO = 2 };
#define STORAGE_PODS(X) \
    X(SPODS_POD, "pod") \
    X(SPODS_SPREAD, "spread")
enum storage_pods { STORAGE_PODS(NAMES_ENUM) }; /* fabric.storage_pods */
#define CKPT_POLICIES(X) \
    X(POLICY_SYNC, "sync") \
    X(POLICY_JITTER, "jitter") \
    X(POLICY_STAGGER, "stagger") \
    X(POLICY_RATE_LIMIT, "rate_limit") \
    X(POLICY_ASYNC, "async") \
    X(POLICY_HIERARCHICAL, "hierarchical")
enum ckpt_policy { CKPT_POLICIES(NAMES_ENUM) };
#define JITTER_DISTS(X) \
    X(JITTER_UNIFORM, "uniform") \
    X(JITTER_EXPONENTIAL, "exponential")
enum jitter_dist { JITTER_DISTS(NAMES_ENUM) };
/* storage.placement, storage.stripe_start (docs/checkpoint.md, Placement) */
#define PLACEMENTS(X) \
    X(PLACE_ROUND_ROBIN, "round_robin") \
    X(PLACE_HASH, "hash") \
    X(PLACE_FILE_MOD, "file_mod")
enum placement { PLACEMENTS(NAMES_ENUM) };
/* storage.protocol: the request model (docs/storage.md, Requests) */
#define STORAGE_PROTOCOLS(X) \
    X(SPROTO_NONE, "none") \
    X(SPROTO_RDMA, "rdma") \
    X(SPROTO_NFS, "nfs") \
    X(SPROTO_S3, "s3")
enum storage_protocol { STORAGE_PROTOCOLS(NAMES_ENUM) };
#define STRIPE_STARTS(X) \
    X(START_ROUND_ROBIN, "round_robin") \
    X(START_RANDOM, "random")
enum stripe_start { STRIPE_STARTS(NAMES_ENUM) };
/* storage.protection (docs/storage.md, Data protection) */
#define PROTECTIONS(X) \
    X(PROTECT_NONE, "none") \
    X(PROTECT_EC, "ec") \
    X(PROTECT_REPLICA, "replica") \
    X(PROTECT_CHAIN, "chain")
enum protection { PROTECTIONS(NAMES_ENUM) };
#define CKPT_PHASES(X) \
    X(PHASE_SAVE, "save") \
    X(PHASE_RESTORE, "restore") \
    X(PHASE_BOTH, "both")
enum ckpt_phase { CKPT_PHASES(NAMES_ENUM) };
/* checkpoint.mlperf: the MLPerf Storage checkpoint workloads (mlperf.c) */
#define MLPERF_WORKLOADS(X) \
    X(MLPERF_NONE, "none") \
    X(MLPERF_LLAMA3_8B, "llama3-8b") \
    X(MLPERF_LLAMA3_70B, "llama3-70b") \
    X(MLPERF_LLAMA3_405B, "llama3-405b") \
    X(MLPERF_LLAMA3_1T, "llama3-1t")
enum mlperf_workload { MLPERF_WORKLOADS(NAMES_ENUM) };
#define SCENARIO_AUTO_TIME UINT64_MAX /* a time key given as "auto" */
#define RESTORE_MODES(X) \
    X(RESTORE_EVERY_REPLICA, "every_replica") \
    X(RESTORE_ONE_BROADCAST, "one_replica_broadcast") \
    X(RESTORE_OWN_FILES, "own_files")
enum restore_mode { RESTORE_MODES(NAMES_ENUM) };
/* The mode the broadcast is compared with (cost: what it saves). */
static inline int restore_other_mode(int mode)
{
    return mode == RESTORE_ONE_BROADCAST ? RESTORE_EVERY_REPLICA : RESTORE_ONE_BROADCAST;
}
/* training traffic on the fabric (src/work/train.h, docs/training.md) */
#define TRAIN_TRAFFICS(X) \
    X(TRAFFIC_NONE, "none") \
    X(TRAFFIC_COLLECTIVES, "collectives")
enum train_traffic { TRAIN_TRAFFICS(NAMES_ENUM) };
#define TRAIN_COLLECTIVES(X) \
    X(COLL_RING, "ring") \
    X(COLL_HIERARCHICAL, "hierarchical")
enum train_collective { TRAIN_COLLECTIVES(NAMES_ENUM) };
#define ISOLATION_KINDS(X) \
    X(ISO_NONE, "none") \
    X(ISO_LOGICAL, "logical") \
    X(ISO_PHYSICAL, "physical")
enum isolation_kind { ISOLATION_KINDS(NAMES_ENUM) };
/* telemetry.pcap.filter: every frame, or PFC and CNP frames only */
#define PCAP_FILTERS(X) \
    X(PCAP_ALL, "all") \
    X(PCAP_CONTROL, "control")
enum pcap_filter { PCAP_FILTERS(NAMES_ENUM) };
/* fabric.mmu.pools: one shared pool, or one per lossless priority + lossy */
#define MMU_POOLS(X) \
    X(POOLS_SHARED, "shared") \
    X(POOLS_PER_CLASS, "per_class")
enum mmu_pools { MMU_POOLS(NAMES_ENUM) };

/* The names of each enumerated key's values (names.h), in enum order:
 * the parser's choices and what every writer prints. */
extern const struct names names_event_order; /* enum event_order */
extern const struct names names_engine; /* enum engine_kind */
extern const struct names names_sched; /* enum sched_kind */
extern const struct names names_cnp_path; /* enum cnp_path */
extern const struct names names_ack_path; /* enum ack_path */
extern const struct names names_rto_mode; /* enum rto_mode */
extern const struct names names_dcqcn_preset; /* enum dcqcn_preset */
extern const struct names names_uec_lb;       /* enum uec_lb */
extern const struct names names_nscc_decrease; /* enum nscc_decrease */
extern const struct names names_model; /* enum model_name */
extern const struct names names_dtype; /* enum dtype */
extern const struct names names_optimizer; /* enum optimizer_kind */
extern const struct names names_writer_rule; /* enum writer_rule */
extern const struct names names_tiers; /* enum fabric_tiers */
extern const struct names names_storage_pods; /* enum storage_pods */
extern const struct names names_policy; /* enum ckpt_policy */
extern const struct names names_jitter_dist; /* enum jitter_dist */
extern const struct names names_placement; /* enum placement */
extern const struct names names_storage_protocol; /* enum storage_protocol */
extern const struct names names_stripe_start; /* enum stripe_start */
extern const struct names names_protection; /* enum protection */
extern const struct names names_phase; /* enum ckpt_phase */
extern const struct names names_mlperf; /* enum mlperf_workload */
extern const struct names names_restore_mode; /* enum restore_mode */
extern const struct names names_traffic; /* enum train_traffic */
extern const struct names names_collective; /* enum train_collective */
extern const struct names names_isolation; /* enum isolation_kind */
extern const struct names names_pcap_filter; /* enum pcap_filter */
extern const struct names names_mmu_pools; /* enum mmu_pools */

struct scenario {
    uint64_t seed;
    int engine;                 /* enum engine_kind */
    struct {
        uint32_t nodes;         /* compute nodes, one writer each */
        uint64_t nic_bps;
        uint32_t gpus_per_node, nics_per_node;
        uint64_t d2h_bps;       /* device-to-host copy per GPU; 0 = no limit */
        uint64_t local_nvme_bps; /* node-local NVMe write (hierarchical) */
        uint64_t host_bps;      /* host bandwidth a drain shares with training; 0 = none */
    } cluster;
    struct {
        uint32_t nodes;
        uint64_t nic_bps;
        uint32_t nics_per_node; /* NIC ports per storage node (multi-homed) */
        uint32_t stripe_count;
        uint64_t stripe_size;
        int placement;          /* enum placement */
        int stripe_start;       /* enum stripe_start (round_robin placement) */
        uint64_t file_open_ps;  /* per file, serial per storage node */
        uint64_t fsync_ps;      /* per file, after its last byte */
        double metadata_ops;    /* metadata service ops/s; 0 = unlimited */
        uint64_t drain_bps;     /* back end per node; 0 = keeps up */
        uint64_t ingest_buffer; /* per node; 0 = unlimited */
        uint32_t stuck_nodes;   /* the first N never drain (fault) */
        uint32_t max_outstanding; /* requests per client; 0 = unlimited */
        uint64_t request_size;
        /* the request model (src/work/request.c): each rank's file as
         * requests of request_size, req_inflight at a time per rank, each
         * done req_latency_ps after its last byte arrived */
        int protocol;           /* enum storage_protocol; SPROTO_NONE = off */
        uint64_t req_latency_ps;
        uint32_t req_inflight;
        /* capacity and endurance (src/cost/storage_use.c) */
        uint64_t capacity;      /* usable, all nodes; 0 = not checked */
        uint32_t retention;     /* checkpoints kept */
        uint64_t drive_capacity;
        double drive_dwpd;      /* rating; 0 = not checked */
        double drive_rating_years; /* the period drive_dwpd is rated over */
        /* the staged node (docs/storage.md): NICs -> host -> write cache
         * -> media; storage.profile fills what is left unset */
        char profile[SCENARIO_TEXT]; /* catalog name or "none" */
        uint64_t host_bps;      /* per node, both directions; 0 = no cap */
        uint64_t cache_bytes;   /* write cache per node; 0 = none */
        uint64_t cache_bps;     /* its absorb rate; 0 = what arrives */
        uint32_t drives;        /* per node; 0 = no media stage */
        uint64_t drive_w_bps, drive_r_bps; /* sequential, per drive */
        double write_amp;       /* media bytes per byte written */
        /* resolved (scenario_resolve): the rate once the cache is full
         * (drain_bps holds the rate before), the stage each rate is set
         * by (enum storage_stage) and whether any stage key applies */
        uint64_t media_bps;
        int fast_stage, slow_stage, read_stage, staged;
        /* data protection across the fabric (src/work/protect.c) */
        int protection;         /* enum protection */
        uint32_t ec_data, ec_parity; /* ec: k data + m parity fragments */
        uint32_t replicas;      /* replica: copies, the primary's included */
    } storage;
    struct {
        uint32_t hosts_per_leaf;
        uint32_t rails;         /* leaves a compute node's NICs spread over */
        uint32_t storage_per_leaf;
        uint32_t spines;
        uint64_t uplink_bps;
        uint64_t link_delay_ps;
        uint64_t switch_latency_ps;
        uint64_t buffer_bytes;  /* per switch */
        uint32_t mtu;           /* RoCE payload bytes per packet */
        int pfc;                /* 1 = PFC on (lossless), 0 = tail drop */
        char switch_profile[SCENARIO_TEXT]; /* catalog name */
        char leaf_switch[SCENARIO_TEXT], spine_switch[SCENARIO_TEXT];
        double cable_length_m;  /* 0 = from link_delay */
        char pfc_priorities[SCENARIO_TEXT]; /* lossless priorities, "3" */
        uint32_t pfc_quanta;
        int pfc_watchdog;
        uint64_t watchdog_detect_ps, watchdog_restore_ps;
        uint64_t mmu_reserve;   /* per (ingress port, priority group) */
        double mmu_alpha, mmu_lossy_alpha;
        int mmu_pools;          /* enum mmu_pools */
        int ecn;
        uint64_t ecn_kmin, ecn_kmax; /* 0 = per link speed */
        double ecn_pmax;
        int scheduling;         /* enum sched_kind */
        char dwrr_weights[SCENARIO_TEXT];
        int load_balancing;     /* enum lb_kind */
        uint32_t links_per_spine;
        uint32_t failed_links;  /* that many random leaf-spine links are down */
        char failed_link_names[SCENARIO_LIST_TEXT];
        uint64_t flowlet_timeout_ps;
        uint32_t flowlet_table;
        int adaptive_per_packet, spray_random;
        uint64_t lb_queue_step, lb_load_window_ps;
        /* packet trimming (UEC): a lossy data packet the MMU would drop
         * goes on cut to its headers; trim_threshold > 0 trims earlier */
        int trim;
        uint64_t trim_threshold;
        /* three-tier Clos (topo.h): pods of leaves and spines under
         * super-spine planes; 0 = derived */
        int tiers;              /* enum fabric_tiers */
        uint32_t pods, leaves_per_pod, spines_per_pod, superspines;
        uint64_t spine_uplink_bps; /* 0 = uplink_bps */
        int storage_pods;       /* enum storage_pods */
        /* radix-true switches (catalog.c: scenario_resolve plans tiers auto) */
        uint32_t links_per_super;  /* parallel spine-super-spine links */
        uint32_t breakout;      /* 1, 2 or 4 lanes per switch port */
        uint32_t leaf_down_breakout, leaf_up_breakout, spine_breakout; /* 0 = breakout */
        uint32_t bo_down, bo_up, bo_spine; /* resolved per-tier breakouts */
        uint64_t leaf_down_bps, leaf_up_bps; /* resolved lane speeds of a leaf's two sides */
        int allow_oversize;     /* a switch past its profile: warn, not refuse */
        double oversubscription; /* tiers auto: at the compute leaves */
        char superspine_switch[SCENARIO_TEXT];
        int tiers_auto;         /* resolved: auto chose fabric.tiers */
        uint32_t super_ports;   /* resolved, with breakout */
        uint64_t super_port_bps;
        /* resolved from the switch profiles (scenario_resolve) */
        uint64_t leaf_buffer, spine_buffer;
        uint64_t leaf_latency_ps, spine_latency_ps;
        uint32_t leaf_ports, spine_ports;
        uint64_t leaf_port_bps, spine_port_bps;
        /* imported fabric (src/topo/import.c): "none" = built from the keys */
        char topology_file[SCENARIO_LONG_TEXT];
    } fabric;
    struct {
        int protocol;           /* enum protocol */
        int cc;                 /* enum cc_kind */
        int receiver;           /* enum receiver_kind */
        uint32_t qps_per_writer;
        uint64_t nak_interval_ps;
        /* loss recovery (a class that can drop): go-back-N's local ACK
         * timeout exponent (4.096 us x 2^n) and retries; ooo's selective
         * repeat timeout and window (packets held past the cumulative PSN) */
        uint32_t ack_timeout, retry_count;
        uint64_t sack_timeout_ps;
        int rto_mode;           /* enum rto_mode */
        uint32_t sack_window;
        uint32_t data_priority, cnp_priority, data_dscp, cnp_dscp;
        int ack_path;           /* enum ack_path */
        struct dcqcn_params {
            int preset;         /* enum dcqcn_preset */
            double g, initial_alpha;
            uint64_t alpha_period_ps, timer_ps, decrease_period_ps, cnp_interval_ps;
            uint64_t byte_counter;  /* 0 = no byte counter */
            uint32_t f;
            uint64_t rai_bps, rhai_bps, rmin_bps;
            int clamp_target;   /* RT <- RC at every cut (paper) or only after a timer increase */
            int cnp_path;       /* enum cnp_path */
        } dcqcn;
        /* Ultra Ethernet's sender: entropy values it sprays over (0 = the
         * PSN round robin of fabric.load_balancing spray) */
        struct uec_params {
            uint32_t entropies;
            uint64_t ack_bytes;   /* a cumulative ACK per this much in order */
            int lb;               /* enum uec_lb */
            uint32_t reps_buffer; /* reps: entropies a sender keeps to recycle */
            int sack;             /* the sender skips what ACKs reported held */
            /* RCCC (src/pkt/rccc.c): receiver credits on, packets of
             * credit per grant, the receiver's grant rate (share of its
             * line), each sender's initial credit (bytes; 0 = one BDP) */
            int rccc;
            uint32_t rccc_pull;
            double rccc_rate;
            uint64_t rccc_initial;
        } uec;
        struct hpcc_params {
            double eta;             /* target utilisation */
            uint32_t max_stage;     /* additive steps before a multiplicative one */
            uint64_t rai_bps;       /* W_AI = rai x T; 0 = 10 Mbps per 25 Gbps of line */
            uint64_t rmin_bps;      /* the window never below rmin x T */
            uint64_t base_rtt_ps;   /* T; 0 = the flow's unloaded RTT */
            uint32_t ack_interval;  /* data packets per ACK */
        } hpcc;
        /* UEC NSCC (src/pkt/nscc.c; docs/engine.md) */
        struct nscc_params {
            uint64_t target_ps;     /* queueing delay target; UINT64_MAX = auto (base RTT) */
            uint64_t base_rtt_ps;   /* UINT64_MAX = auto (each flow's unloaded path RTT) */
            uint64_t initial_window; /* bytes; 0 = the maximum window */
            double gamma, delay_alpha, max_bdp;
            uint32_t ack_every, qa_gate;
            int quick_adapt;
            int decrease;           /* enum nscc_decrease */
        } nscc;
        struct swift_params {   /* transport.swift.* (src/pkt/swift.c) */
            uint64_t base_target_ps, hop_scale_ps, fs_range_ps, endpoint_target_ps;
            double fs_min_cwnd, fs_max_cwnd; /* packets */
            double ai, beta, max_mdf;
            double init_cwnd, min_cwnd, max_cwnd; /* packets */
            uint32_t ack_ratio; /* data packets per ACK */
        } swift;
        /* TCP (transport.cc dctcp or cubic; src/pkt/tcp.c) */
        struct tcp_params {
            uint32_t init_cwnd;     /* segments */
            uint32_t delack_segments, dupack_threshold;
            uint64_t rto_min_ps, delack_ps;
            double pacing; /* congestion avoidance's pacing ratio; 0 = none */
        } tcp;
        struct {
            double g, initial_alpha;
        } dctcp;
        struct {
            double c, beta;
            int fast_convergence;
        } cubic;
    } transport;
    struct {
        uint64_t interval_ps;   /* 0 = no time series */
        int ports;              /* keep per-port counters in the results */
        uint32_t hot_ports;     /* queue time series of the K hottest ports */
        int flows;              /* sample every transfer's rate and bytes */
        char pcap_ports[SCENARIO_TEXT]; /* ports --pcap captures, "a-b,c-d" */
        uint32_t pcap_max_packets;      /* frames per capture file */
        int pcap_filter;                /* enum pcap_filter */
        uint64_t pcap_start_ps, pcap_stop_ps; /* capture window; stop 0 = run's end */
    } telemetry;
    struct {
        uint64_t time_limit_ps; /* 0 = 50 x the analytic bound + 10 ms */
        int force;              /* run the packet engine past its estimate limits */
        int event_order;        /* enum event_order */
        uint32_t threads;       /* window order on this many threads (1 or 2) */
        int team_mode;          /* enum team_mode: how a team shares the cores
                                 * (tests; no scenario key selects it) */
        /* engine: hybrid (src/pkt/hybrid.c): the observation period (0 =
         * auto), periods per window, the tolerance of a steady window */
        uint64_t hybrid_period_ps;
        uint32_t hybrid_window;
        double hybrid_tolerance;
        double hybrid_error;    /* its error estimate's budget, of simulated time */
        int hybrid_young_off;   /* no young-baseline rule (tests; no scenario key) */
    } sim;
    struct {
        uint64_t bytes_per_writer;
        uint64_t start_jitter_ps; /* writer start uniform in [0, jitter] */
    } workload;
    /* checkpoint workload model (src/work) and cost (src/cost) */
    struct {
        int name;               /* enum model_name; MODEL_NONE = simple form */
        uint64_t params;        /* custom only */
        int weights_dtype, master_dtype, optimizer_dtype; /* enum dtype */
        int optimizer;          /* enum optimizer_kind */
    } model;
    struct {
        uint32_t tp, pp, dp;    /* dp 0 = GPUs / (tp x pp) */
        uint32_t zero_stage;
    } parallelism;
    struct {
        int writer_rule;        /* enum writer_rule */
        int policy;             /* enum ckpt_policy */
        uint32_t groups;        /* stagger */
        uint64_t offset_ps;     /* stagger: between groups (0 = auto); jitter: spread */
        int jitter_dist;        /* enum jitter_dist */
        uint64_t rate_limit_bps; /* rate_limit: per writer */
        uint64_t trickle_bps;   /* hierarchical: per node, 0 = no cap */
        uint64_t rank_state_bytes; /* per-rank small-state file */
        uint32_t rank_state_files; /* ... split into this many files */
        int phase;              /* enum ckpt_phase */
        double straggler_fraction;
        uint64_t straggler_delay_ps;
        double straggler_slowdown;
        int mlperf;             /* enum mlperf_workload */
        double drain_slowdown;  /* training throughput lost while a drain runs */
    } checkpoint;
    struct {
        int mode;               /* enum restore_mode */
        uint64_t read_bps;      /* back-end read per storage node; 0 = no cap */
        uint64_t broadcast_bps; /* one_replica_broadcast */
        uint64_t restart_ps;    /* before the read */
    } restore;
    struct {
        uint64_t step_ps;
        double mfu;
        double gpu_hour_cost;
        char currency[SCENARIO_TEXT]; /* printed beside every money figure */
        uint64_t interval_ps;   /* training time between checkpoints */
        /* its traffic on this fabric (src/work/train.h) */
        int traffic;            /* enum train_traffic */
        int collective;         /* enum train_collective */
        uint64_t compute_ps;    /* 0 = step_time less the uncongested communication */
        double overlap;         /* fraction of communication hidden behind compute */
        uint64_t grad_bytes;    /* per GPU per step; 0 = from the model */
        uint64_t activation_bytes, alltoall_bytes; /* per GPU per step */
        uint32_t steps;         /* 0 = until the checkpoint is done, then one more */
        uint32_t priority, dscp; /* its class under isolation logical */
        int isolation;          /* fabric.isolation: enum isolation_kind */
    } training;
    struct {
        double mtbf_node_h, mtbf_gpu_h; /* hours; at most one > 0 */
        uint64_t recovery_ps;   /* SCENARIO_AUTO_TIME: from the restore */
        double mc_days;         /* Monte Carlo horizon; 0 = skip */
    } failures;
    struct {
        char prices[SCENARIO_LONG_TEXT]; /* "NAME=PRICE,...", "none"; src/cost */
        double amortisation_years;
        int compare_policies;   /* also run sync, async, hierarchical (src/api/policies.c) */
    } cost;
    uint64_t set_mask[SCENARIO_MAX_KEYS / 64]; /* keys given by the user, by table index */
    uint64_t opt_mask[SCENARIO_MAX_KEYS / 64]; /* ... by their own option (--engine) */
    uint8_t rate_unit[SCENARIO_MAX_KEYS]; /* rate keys: unit written (units_parse_rate_unit) */
    struct scenario_pos pos[SCENARIO_MAX_KEYS]; /* where each key in set_mask was given */
    char source[256];           /* file the scenario came from, or "default" */
};

/* Fill every field from the defaults table. */
void scenario_defaults(struct scenario *sc);

/* Apply a YAML file / string on top of *sc. `name` is used in messages.
 * Returns 0, or -1 with e->msg = "name:line:col: key: message". All or
 * nothing: on error *sc is left as it was. On success sc->source is set to
 * the path (file) or name (string). */
int scenario_load_file(struct scenario *sc, const char *path, struct err *e);
int scenario_load_string(struct scenario *sc, const char *yaml,
                         const char *name, struct err *e);
/* The same for len bytes that need not end in a NUL (a NUL inside is a
 * YAML error). */
int scenario_load_buffer(struct scenario *sc, const char *yaml, size_t len,
                         const char *name, struct err *e);

/* Apply one "key.path=value" override. Errors read
 * "--set: key: message" (or "--set: expected key=value, got ..."). */
int scenario_set(struct scenario *sc, const char *assignment, struct err *e);

/* Record that key, just set by scenario_set, came from its own command-line
 * option (engine: --engine, checkpoint.phase: --phase, sim.force: --force),
 * so that messages name the option instead of --set. */
void scenario_mark_option(struct scenario *sc, const char *key);

/* Forget that key was given (derived values may fill it again). */
void scenario_unset(struct scenario *sc, const char *key);

/* 1 when key was given by a file or --set (not a default). */
int scenario_is_set(const struct scenario *sc, const char *key);
/* Where key was given (struct scenario_pos); {0, 0} by --set or not at all. */
struct scenario_pos scenario_key_pos(const struct scenario *sc, const char *key);

/* 1 when key holds value (parsed as user input), 0 when it holds another,
 * -1 for an unknown key or a value it refuses. */
int scenario_value_is(const struct scenario *sc, const char *key, const char *value);

/* The keys transport.protocol brings that the user set otherwise, each
 * with where it was set and the protocol's own value ("transport.cc
 * (default.yaml:36) over uec's nscc; ..."), into buf; its length, 0
 * when none. */
size_t scenario_protocol_kept(const struct scenario *sc, char *buf, size_t len);

/* Store value into key unless the user set it: how profiles and presets
 * fill in what the user left open. Errors name the key. */
int scenario_set_default(struct scenario *sc, const char *key, const char *value,
                         struct err *e);

/* Why transport.dcqcn.cnp_path auto sends CNPs through the fabric: what
 * else crosses the reverse paths or must see them. NULL: only ACKs, NAKs
 * and CNPs do, which real NICs send on a class served before data, so the
 * unloaded latency is what a CNP sees. */
static inline const char *scenario_cnp_fabric_why(const struct scenario *sc)
{
    if (sc->training.traffic == TRAFFIC_COLLECTIVES && sc->training.isolation != ISO_PHYSICAL)
        return "training traffic shares the reverse paths";
    if (sc->telemetry.pcap_ports[0] && strcmp(sc->telemetry.pcap_ports, "none") != 0)
        return "telemetry.pcap.ports captures ports the CNPs must cross";
    return NULL;
}

/* Swift's fabric target delay (ps) for a window of w packets over `hops`
 * switches (the paper's flow scaling; src/pkt/swift.c), and its inverse:
 * the largest window whose target is at least d ps (HUGE_VAL: every
 * window; 0: none). tpscheme.c. */
double swift_target_ps(const struct swift_params *p, uint32_t hops, double w);
double swift_window_at(const struct swift_params *p, uint32_t hops, double d);

/* NSCC's largest window, bytes: max_window x line x base RTT, within an
 * MSS and NSCC_MAX_PACKETS of them (the packets the engine keeps in flight;
 * src/pkt/nscc.c). tpscheme.c. */
#define NSCC_MAX_PACKETS 256u
double nscc_max_window(const struct nscc_params *p, double line_bps, double base_ps, double mss);
/* HPCC's window for a rate over its base RTT T: bps x T, bytes (line x T is
 * W_init and the most it keeps; src/pkt/hpcc.c). tpscheme.c. */
double hpcc_window(double bps, uint64_t t_ps);

/* DCQCN with its CNPs sent direct (transport.dcqcn.cnp_path: the packet
 * engine delivers them after their path's unloaded latency). */
/* The packets' framing under transport.protocol: payload per full packet
 * (fabric.mtu less the protocol's headers inside it) and wire overhead. */
static inline struct wire_fmt scenario_wire(const struct scenario *sc)
{
    const struct proto_scheme *p = proto_scheme(sc->transport.protocol);
    struct wire_fmt w = {sc->fabric.mtu > p->mtu_headers ? sc->fabric.mtu - p->mtu_headers : 1,
                         p->overhead};
    return w;
}

static inline int scenario_cnp_direct(const struct scenario *sc)
{
    if (!cc_scheme(sc->transport.cc)->sends_cnps)
        return 0;
    if (sc->transport.dcqcn.cnp_path == CNP_AUTO)
        return scenario_cnp_fabric_why(sc) == NULL;
    return sc->transport.dcqcn.cnp_path == CNP_DIRECT;
}

/* ACKs and NACKs sent direct (transport.ack_path: the packet engine
 * delivers each after its reverse path's unloaded latency). auto: for a
 * window transport (its row's window flag), whose ACKs are most of the
 * reverse paths' packets, where nothing but control packets crosses those
 * paths (scenario_cnp_fabric_why's rule); through the fabric otherwise,
 * so runs without a window keep every control packet on the ports. RCCC's
 * credits (transport.uec.rccc) count as such a transport's ACKs. */
static inline int scenario_ack_direct(const struct scenario *sc)
{
    if (sc->transport.ack_path == ACK_AUTO)
        return (cc_scheme(sc->transport.cc)->window || sc->transport.uec.rccc) &&
               scenario_cnp_fabric_why(sc) == NULL;
    return sc->transport.ack_path == ACK_DIRECT;
}

/* Fill what the user left open from the switch catalog and the DCQCN
 * preset (idempotent; ckpt_run calls it on its own copy too). */
int scenario_resolve(struct scenario *sc, struct err *e);

/* The storage stages (storage.c): storage.profile fills what the user left
 * unset; the stages set storage.drain_rate (before the write cache fills),
 * media_bps (after) and restore.read_rate when left unset. */
int storage_resolve(struct scenario *sc, struct err *e);

/* Switch levels fabric.tiers asks for (2: leaf-spine, 3: pods under
 * super-spines); auto before scenario_resolve plans it: 2, the fewest. */
unsigned scenario_levels(const struct scenario *sc);
/* Set fabric.tiers to `levels` switch levels (catalog.c's auto planner);
 * -1 when no choice has that many. */
int scenario_set_levels(struct scenario *sc, unsigned levels);

/* 1 when fabric.tiers: auto plans sc's cluster on its switch profiles (the
 * planned keys left to it): what a refusal may suggest. */
int scenario_auto_plans(const struct scenario *sc);

/* Cross-field checks (run after all loading; ckpt_run and ckpt_describe
 * run them too, so both engines and describe refuse the same inputs). They
 * include what only the packet engine uses (PFC priorities, DWRR weights,
 * CNP class, switch buffer against PFC headroom, storage ingest buffers),
 * checked on a resolved copy of sc. Errors read "WHERE: key: message" with
 * WHERE the file:line:col or "--set" where the key was given, or the file
 * name when the key kept its default (no WHERE without a file). */
int scenario_validate(const struct scenario *sc, struct err *e);

/* Why engine: hybrid would run sc (resolved) as the packet engine, never
 * fast-forwarding, or why validation refuses hybrid with it; NULL when it
 * can fast-forward. The one list of such reasons: auto decides by it
 * (src/api/estimate.c) and the run reports it (src/pkt/hybrid.c, which adds
 * only what a run's options add, --pcap). */
const char *scenario_hybrid_blocked(const struct scenario *sc);

/* err_set with the "WHERE: key: " prefix of scenario_validate. */
int scenario_fail(const struct scenario *sc, struct err *e, const char *key,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* When e->msg starts with "key: " for a known key (the errors of topology,
 * workload and cost checks), prefix where that key was given, as above. */
void scenario_locate(const struct scenario *sc, struct err *e);

/* The effective scenario, one call per key in table order:
 * key is dotted ("fabric.spines"), value is canonical text ("400Gbps",
 * "128", "true", "0.5"); kind says how to type it in JSON: SCN_INT for a
 * plain integer, SCN_REAL for a real number, SCN_TEXT otherwise (bools are
 * SCN_TEXT "true"/"false"). The kind depends on the key, never the value. */
enum { SCN_TEXT = 0, SCN_INT = 1, SCN_REAL = 2 };
typedef void scenario_emit_fn(void *ud, const char *key, const char *value,
                              int kind);
void scenario_echo(const struct scenario *sc, scenario_emit_fn *emit,
                   void *ud);

/* The keys table itself, for help text and doc checks: one call per key in
 * table order. type is "uint", "count", "rate", "size", "time", "bool",
 * "real", "enum" (def and doc name the choices) or "text";
 * def, min and max are texts in the key's own syntax, min/max NULL when the
 * key has no such limit (limits are inclusive). All strings are static. */
typedef void scenario_key_fn(void *ud, const char *key, const char *type,
                             const char *def, const char *min,
                             const char *max, const char *doc);
void scenario_keys(scenario_key_fn *fn, void *ud);

/* The names table of an enumerated key (names.h); NULL for another key. */
const struct names *scenario_key_names(const char *key);

/* "3,4" -> bit mask of priorities 0-7; -1 when malformed or empty. */
int scenario_prio_mask(const char *s);

/* PFC headroom of a lossless (port, PG) on a link of bps and delay_ps under
 * this scenario's MTU and cable length (wire_headroom, src/core/wire.h). */
uint64_t scenario_headroom(const struct scenario *sc, uint64_t bps, uint64_t delay_ps);

#endif
