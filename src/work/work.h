/* Workload: the checkpoint burst as a list of transfers, engine-agnostic.
 * A writer's completion is the end of its last transfer.
 * Writer i (compute node i) writes its shard to storage node i mod M,
 * starting at a uniform offset in [0, start_jitter]. */
#ifndef CKPT_WORK_H
#define CKPT_WORK_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../topo/topo.h"

struct transfer {
    uint32_t src, dst;   /* topology node ids */
    uint32_t writer;     /* the writer (rank) it belongs to, < n_writers */
    uint64_t bytes;      /* payload */
    uint64_t start_ps;
    uint64_t rate_bps;   /* sending-rate cap of its queue pair; 0 = line rate */
    uint16_t sport;      /* UDP source port of its queue pair */
};

struct workload {
    struct transfer *xfers;
    uint32_t n;
    uint32_t n_writers;  /* a writer may own several transfers (stripes) */
    uint64_t total_bytes;
};

int workload_build(struct workload *w, const struct scenario *sc,
                   const struct topo *t, struct arena *a, struct err *e);

#endif
