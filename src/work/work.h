/* Workload: the checkpoint burst as a list of transfers, engine-agnostic.
 *
 * From the plan (src/work/plan.h: who writes how many bytes in which files)
 * to transfers: each file is striped over storage.stripe_count storage
 * nodes (one transfer per stripe); a rank sends from its node's NIC; the
 * policy sets start offsets and rate caps; a storage node creates files one
 * at a time (storage.file_open_cost), and a file's transfers start when it
 * exists. A writer's completion is the end of its last transfer.
 * docs/checkpoint.md has the rules.
 *
 * Simple form (model.name: none): writer i = compute node i writes one
 * file to storage node i mod M, starting at a uniform offset in
 * [0, start_jitter]; the default scenario is exactly this.
 */
#ifndef CKPT_WORK_H
#define CKPT_WORK_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../topo/topo.h"
#include "plan.h"

struct transfer {
    uint32_t src, dst;   /* topology node ids */
    uint32_t writer;     /* the writer (rank) it belongs to, < n_writers */
    uint64_t bytes;      /* payload */
    uint64_t start_ps;
    uint64_t rate_bps;   /* sending-rate cap of its queue pair; 0 = line rate */
    uint16_t sport;      /* UDP source port of its queue pair */
    uint8_t prio;        /* 0 = transport.data_priority, else 802.1p priority + 1 */
};

struct training;

struct workload {
    struct transfer *xfers;
    uint32_t n;
    uint32_t n_writers;  /* a writer may own several transfers (stripes) */
    uint64_t total_bytes;
    struct plan_summary sum; /* sizes, skew, policy stall (for reports, cost) */
    /* the training job's traffic beside it (train.h); NULL = none. Set by
     * ckpt_prepare after workload_build. */
    const struct training *train;
};

/* The scenario the topology is built from: every NIC of a compute node is
 * its own host port (cluster.nodes x nics_per_node hosts, hosts_per_leaf x
 * nics_per_node ports per compute leaf). Identity for one NIC per node. */
void workload_fabric(const struct scenario *sc, struct scenario *fab);

/* Topology host of NIC `nic` of compute node `node`. */
static inline uint32_t workload_nic_host(const struct scenario *sc,
                                         uint32_t node, uint32_t nic)
{
    return node * sc->cluster.nics_per_node + nic;
}

/* Build the transfers of one checkpoint. t must come from
 * workload_fabric(sc). Fails with a message naming the key on inputs the
 * model cannot honour (async without cluster.d2h_rate, ...). */
int workload_build(struct workload *w, const struct scenario *sc,
                   const struct topo *t, struct arena *a, struct err *e);

#endif
