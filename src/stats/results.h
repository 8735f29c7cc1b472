/* Results: one struct that every engine fills and every report reads.
 * Times are seconds (double) at this edge; counters are integers. */
#ifndef CKPT_RESULTS_H
#define CKPT_RESULTS_H

#include <stdint.h>

enum bound_limit {
    LIMIT_WRITER_NIC,
    LIMIT_CLEAF_UP,
    LIMIT_SLEAF_UP,
    LIMIT_STORAGE_NIC,
    LIMIT_COUNT
};

const char *bound_limit_name(enum bound_limit l);

struct results {
    const char *engine;

    /* checkpoint */
    uint64_t ckpt_bytes;
    uint32_t writers;
    double completion_s;       /* first byte sent -> last byte received */
    double writer_p50_s, writer_p99_s, writer_max_s; /* per writer, own start */

    /* analytic max-flow lower bound */
    double bound_s;
    enum bound_limit bound_limit;
    double bound_term_s[LIMIT_COUNT]; /* each term without base latency */
    double base_latency_s;

    /* fabric */
    double oversub_compute, oversub_storage;
    uint32_t switches, links;

    /* network counters */
    uint64_t drops;
    uint64_t pause_frames, resume_frames;
    double paused_s;           /* sum over ports of time spent paused */
    double max_port_paused_s;
    uint64_t max_queue_bytes;  /* largest egress queue seen */
    uint64_t max_buffer_bytes; /* largest switch buffer occupancy seen */
    uint64_t packets_delivered;

    /* invariants */
    int ok;
    char violation[512];
    uint64_t bytes_sent, bytes_delivered, bytes_dropped, bytes_in_flight;
    uint32_t flows_done;
    int time_monotone;

    /* performance of the run itself */
    uint64_t events;
    uint64_t max_pending_events;
    uint64_t mem_bytes;        /* arena + event queue + packet slabs */
    double wall_s;
};

/* Nearest-rank percentile of v[0..n) (sorts v in place). q in [0, 1]. */
double results_percentile(double *v, uint32_t n, double q);

#endif
