/* Telemetry time series and bottleneck attribution: the parts of the
 * results that reports turn into tables, CSV and plots.
 *
 * Time series (struct series) are sampled every telemetry.interval: per
 * sample, cumulative wire bytes sent on each path segment, payload bytes
 * still to write, active transfers and the storage back ends' levels and
 * written bytes (both engines); with port_state
 * (packet engine only), ports paused per segment and the ports whose queue
 * or pause state changed since the previous sample (a port keeps its last
 * recorded state until it has an entry; all start empty and unpaused). A
 * packet sample costs O(ports + flows) time and at most one entry per port,
 * nothing per packet; a fluid sample O(segments) (src/fluid/fsample.h).
 *
 * Path segments (enum path_seg) are the checkpoint path in the order of the
 * product's table: host path, writer NIC, compute-leaf uplinks, spine ->
 * storage leaf, storage NIC, storage back end. src/stats/segments.c fills
 * struct seg_figures for each and the verdict (struct bottleneck).
 */
#ifndef CKPT_SERIES_H
#define CKPT_SERIES_H

#include <stdint.h>

#include "../topo/path.h"



/* One segment of the checkpoint path, over the whole run. Rates are bits/s,
 * bytes are wire bytes (payload for the host path and the back end). */
struct seg_figures {
    int applies;           /* 0: nothing limits here (no cap, no drain rate) */
    uint32_t elements;     /* links, capped transfers or storage nodes */
    double elem_bps;       /* capacity of its busiest element */
    double cap_bps;        /* summed over its elements */
    double bytes;          /* carried */
    double util;           /* bytes / (cap_bps x completion) */
    double max_util;       /* the busiest element, same */
    double saturated_s;    /* the busiest element's time at capacity */
    double imbalance;      /* busiest element's bytes / mean (ECMP hot spots) */
    double need_s;         /* its busiest element's bytes at capacity */
    double bound_s;        /* completion this segment alone allows: start
                            * offsets + need_s + base latency */
    double paused_s;       /* PFC pause summed over its ports (packet engine) */
};

/* Which segment set the completion time, and what changing it would buy
 * (estimates from the bounds: see docs/report.md). */
struct bottleneck {
    int seg;               /* enum path_seg; -1 before segments_compute */
    int next_seg;          /* the segment with the next-highest bound */
    double util;           /* its max_util: share of the completion at capacity */
    double excess;         /* completion / its bound - 1 */
    double start_spread_s; /* last transfer start - first (policy, jitter) */
    double removed_s;      /* completion bound with seg unlimited */
    double doubled_s;      /* completion estimate with seg's capacity doubled */
    int stage;             /* staged storage nodes: the stage that limits
                            * (enum storage_stage: the NIC, or the back end's
                            * host, cache or media); STAGE_NONE otherwise */
    int backend_stage;     /* the same for the back end's segment */
    double resent;         /* go-back-N resent bytes / checkpoint bytes; from
                            * RESENT_CAUSE up the verdict names the resends */
};
#define RESENT_CAUSE 0.1

#define SERIES_SEGS PATH_SETS /* indexed by enum path_seg (link sets) */
#define SERIES_MAX_HOT 64

/* A port's new state at a sample: queue bytes (switch ports; saturated at
 * UINT32_MAX), priorities paused by its peer. 8 bytes: ports < 2^24. */
struct series_ent {
    uint32_t port : 24;
    uint32_t paused : 8;
    uint32_t q_bytes;
};

struct hot_port {
    uint32_t port, node, peer, seg; /* peer: the node at the other end */
    uint64_t max_queue;    /* peak egress queue, wire bytes */
    double paused_s;
};

struct series {
    uint32_t n, cap;       /* samples (the time axis is results.sample_t) */
    int full;              /* out of memory: sampling stopped at n */
    int port_state;        /* queues and pauses sampled (packet engine); 0:
                            * seg_paused, off and ent absent (NULL) */
    uint64_t *seg_bytes;   /* [n][SERIES_SEGS] wire bytes sent so far */
    uint32_t *seg_paused;  /* [n][SERIES_SEGS] ports with a paused priority */
    uint64_t *remaining;   /* [n] payload bytes not yet written: not yet
                            * delivered, or with back ends (n_store) not yet
                            * written by them */
    uint32_t *active;      /* [n] transfers started and not complete */
    uint64_t *off;         /* [n + 1]: sample i's changes are ent[off[i] .. off[i+1]),
                            * sorted by port */
    struct series_ent *ent;
    uint64_t *cur;         /* [n_ports] while sampling: state last recorded */
    uint64_t n_ent, ent_cap;
    /* storage back ends (storage.drain_rate or stuck nodes, a checkpoint's
     * write; both engines): seg_bytes[..][PATH_BACKEND] is the payload they
     * wrote so far, ingest[n][n_store] each one's ingest buffer (payload
     * bytes); n_store 0: none. Set n_store and store_node before the first
     * series_reserve. */
    uint32_t n_store;
    uint32_t *store_node;  /* [n_store] the storage node of each, owned */
    uint64_t *ingest;
    /* with a write cache (storage.cache_size; packet engine): cache[n][n_store]
     * each node's cache level (payload bytes); set has_cache with n_store */
    int has_cache;
    uint64_t *cache;
    /* topology facts the reports need to name ports */
    uint32_t n_ports;
    uint32_t first_storage, first_cleaf, first_sleaf, first_spine;
    uint32_t first_super;  /* three tiers; 0 = none */
    uint32_t *port_node, *port_peer; /* [n_ports] with samples: the nodes at
                                      * each end of the port's link, owned */
    /* an imported fabric's node names (fabric.topology_file), owned; NULL:
     * names by kind and index */
    char *names;
    uint32_t *name_off, n_names;
    uint8_t *port_seg;
    /* the hottest ports by peak queue, hottest first */
    uint32_t n_hot;
    struct hot_port hot[SERIES_MAX_HOT];
};

/* Make room for one more sample of up to max_ents ports (port_state: set
 * it before the first call; without it only seg_bytes, remaining and active
 * grow). 0 or -1 (out of memory: the sample is skipped, nothing is lost). */
int series_reserve(struct series *s, uint64_t max_ents);

/* Free the arrays and zero the struct. */
void series_release(struct series *s);

/* Bytes a sample takes in the arrays series_reserve grows, without the
 * port entries (each a struct series_ent): what describe's memory
 * estimate counts per sample. */
double series_sample_bytes(int port_state);

/* Every maximal run of consecutive samples [first, last] in which a port
 * had a paused priority, in order of the sample that ends it (then port).
 * O(entries). Returns 0, or -1 when out of memory. */
typedef void series_run_fn(void *ud, uint32_t port, uint32_t first, uint32_t last);
int series_pause_runs(const struct series *s, series_run_fn *fn, void *ud);

/* Longest node name (an imported fabric's are 1 to 200 characters) and
 * link label ("a->b"), each with its terminator. */
#define SERIES_NAME_MAX 201
#define SERIES_LINK_MAX (2 * SERIES_NAME_MAX + 2)

/* Copy t's node names (none for a built fabric). 0, or -1 out of memory. */
struct topo;
int series_names(struct series *s, const struct topo *t);
/* "cleaf3", "spine0", "host12", "stor2" for a node id, or its name in an
 * imported fabric. */
const char *series_node_name(const struct series *s, uint32_t node, char *buf,
                             unsigned len);
/* "cleaf3->spine0": the link from node to peer. */
const char *series_link_label(const struct series *s, uint32_t node, uint32_t peer,
                              char *buf, unsigned len);

#endif
