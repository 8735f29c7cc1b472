/* Checkpoint policies as rows of one table (src/work/policy.c): what a
 * policy decides about a burst, as hooks workload_build calls at fixed
 * points. A row left NULL takes the plain rule (no check, no staging, the
 * given checkpoint.offset, start at 0, no cap). The row of enum ckpt_policy
 * value v is policies[v]; its name is the checkpoint.policy text.
 * docs/architecture.md (Checkpoint policies) says how to add one. */
#ifndef CKPT_POLICY_H
#define CKPT_POLICY_H

#include <stdint.h>

#include "../core/err.h"
#include "../core/rng.h"
#include "../scenario/scenario.h"

/* What the start hooks see. */
struct policy_ctx {
    const struct scenario *sc;
    uint64_t total_bytes;    /* the checkpoint's payload */
    uint64_t max_node_bytes; /* the busiest compute node's */
    uint32_t writers, storage_nodes;
    uint64_t offset;         /* the spread hook's answer */
    struct rng *rng;         /* RNG_POLICY, drawn in writer order */
};

struct policy_row {
    const char *name;        /* checkpoint.policy */
    /* refuse inputs the policy cannot run without, naming the key */
    int (*check)(const struct scenario *sc, struct err *e);
    /* Two-phase: when a compute node's drain to storage may start, which
     * is also its GPUs' stall, from its slowest GPU's copy to host memory
     * (staged_ps, 0 without cluster.d2h_rate) and its bytes. Non-NULL
     * makes the policy two-phase: the GPUs wait only for this (the report's
     * stall is this, not measured), each writer starts after its node's,
     * and the drain is not capped at cluster.d2h_rate. */
    uint64_t (*node_ready)(const struct scenario *sc, uint64_t staged_ps,
                           uint64_t node_bytes);
    /* the spread the start hook uses; NULL = checkpoint.offset */
    uint64_t (*spread)(const struct policy_ctx *c);
    /* writer i's start offset (before workload.start_jitter, stragglers) */
    uint64_t (*start)(struct policy_ctx *c, uint32_t i);
    /* every writer's sending-rate cap, bits/s; NULL or 0 = none */
    uint64_t (*writer_cap)(const struct scenario *sc);
    /* a compute node's cap on its drain, split over its transfers by
     * bytes; NULL or 0 = none */
    uint64_t (*node_cap)(const struct scenario *sc);
    /* the keys to blame: for starts past the clock, for writer_cap, for
     * node_cap; NULL = the policy sets none */
    const char *start_key, *cap_key, *node_cap_key;
};

/* The row of enum ckpt_policy value v (v < policy_count()). */
const struct policy_row *policy_get(int v);
/* The row named `name`, NULL when none is. */
const struct policy_row *policy_find(const char *name);
uint32_t policy_count(void);

#endif
