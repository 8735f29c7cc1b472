/* Checkpoint plan: who writes how many bytes in which files.
 *
 * Two forms, chosen by model.name:
 *  - none (the simple form): each compute node is one writer and writes
 *    workload.bytes_per_writer, as one file per NIC;
 *  - a model: ranks = cluster.nodes x cluster.gpus_per_node GPUs laid out
 *    tp fastest, then dp, then pp (Megatron's order); the writer rule
 *    (checkpoint.writer_rule) decides each rank's bytes and files.
 * The rules are in docs/checkpoint.md; every rule conserves the bytes of
 * the model state exactly (integer shares, remainders to the first ranks).
 */
#ifndef CKPT_PLAN_H
#define CKPT_PLAN_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../scenario/scenario.h"

struct plan_file {
    uint32_t rank;
    uint64_t bytes;
};

struct plan {
    int model_form;          /* 0 = simple form */
    uint32_t ranks;          /* model form: GPUs; simple form: nodes */
    uint32_t gpus;           /* cluster.nodes x cluster.gpus_per_node */
    uint32_t gpus_per_rank;  /* GPUs that stage one rank's bytes */
    uint32_t tp, pp, dp;
    uint64_t params;
    uint32_t weights_bpp, optimizer_bpp; /* bytes per parameter */
    uint64_t state_bytes;    /* model state: params x bytes per param */
    uint64_t *rank_bytes;    /* [ranks] */
    struct plan_file *files; /* [n_files], grouped by rank, rank order */
    uint32_t n_files;
    uint32_t writers;        /* ranks with at least one file */
    uint64_t total_bytes;    /* sum of file bytes */
};

/* Build the plan of the scenario in arena memory. Checks the model keys
 * (parallelism against the GPU count, custom params, dtypes) and fails
 * with a message naming the key. */
int plan_build(struct plan *p, const struct scenario *sc, struct arena *a,
               struct err *e);

/* Node of a rank. */
static inline uint32_t plan_node(const struct plan *p, const struct scenario *sc,
                                 uint32_t rank)
{
    return p->model_form ? rank / sc->cluster.gpus_per_node : rank;
}

/* Storage nodes whose bytes the results list one by one (8 KB); larger
 * clusters get the max, mean and skew only. */
#define PLAN_NODES_LISTED 1024

/* What the workload model made of the scenario; copied into the results
 * for the reports and the cost model. */
struct plan_summary {
    const char *model;       /* model.name; "none" for the simple form */
    uint64_t params;
    uint32_t weights_bpp, optimizer_bpp;
    uint32_t gpus, nodes, tp, pp, dp, zero_stage;
    const char *writer_rule, *policy;
    uint64_t bytes;          /* the checkpoint's own (no protection) */
    uint64_t protect_bytes;  /* storage.protection: parity or copies on top */
    uint32_t files, writers, transfers, stragglers;
    uint32_t gpus_per_rank;  /* GPUs whose bytes one writer stages (d2h cap) */
    uint64_t max_gpu_bytes;  /* largest per-GPU shard */
    double mean_gpu_bytes;   /* over all GPUs */
    double skew;             /* max / mean per-GPU shard */
    uint64_t first_start_ps; /* earliest transfer start after the trigger */
    uint64_t stall_ps;       /* async, hierarchical: the GPU stall */
    int stall_measured;      /* 1: the stall is the measured end of the write */
    uint64_t max_open_wait_ps; /* longest wait of a file for its create */
    /* placement (docs/checkpoint.md, Placement): bytes per storage node */
    const char *placement, *stripe_start; /* storage.placement, .stripe_start */
    int random_start; /* round robin from a random node per writer */
    uint32_t storage_nodes;  /* M */
    uint32_t nodes_listed;   /* node_bytes[0..M) filled: M, or 0 when M > the cap */
    uint64_t node_max_bytes; /* the busiest storage node's payload bytes */
    double node_mean_bytes;  /* total / M */
    double node_skew;        /* max / mean */
    /* what the skew costs: the storage NIC / back-end term (bytes at rate)
     * of the busiest node less the same term with total / M on every node */
    uint64_t skew_cost_ps;
    double skew_cost_pct;    /* against the even spread's term */
    uint64_t node_bytes[PLAN_NODES_LISTED];
};

#endif
