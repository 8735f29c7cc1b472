/* MLPerf Storage checkpoint workloads (checkpoint.mlperf).
 *
 * Each is DLIO's workload as the rules fix it (mlcommons/storage,
 * configs/dlio/workload/llama3_*.yaml): a Llama 3 model, TP x PP x DP and
 * the ZeRO stage, written the DeepSpeed way (each rank its files, fsync at
 * the end), 10 writes then 10 reads with 5 s of emulated compute before
 * each. dlio_gib is the checkpoint size DLIO reports (binary GiB), as every
 * MLPerf Storage v3.0 submission prints it (docs/storage.md).
 */
#ifndef CKPT_MLPERF_H
#define CKPT_MLPERF_H

#include <stdint.h>

#include "../core/err.h"
#include "scenario.h"

struct mlperf_spec {
    int workload;        /* enum mlperf_workload */
    int model;           /* enum model_name */
    uint32_t tp, pp, dp, zero_stage;
    double dlio_gib;     /* DLIO's checkpoint_size_GB (GiB) */
    uint32_t writes, reads;
    double gap_s;        /* time_between_checkpoints */
};

/* The row of an enum mlperf_workload; NULL for MLPERF_NONE. Static. */
const struct mlperf_spec *mlperf_lookup(int workload);

/* checkpoint.mlperf set: fill model.name, parallelism.* and
 * checkpoint.writer_rule, checkpoint.phase and restore.mode where the user
 * left them unset; refuse a model or layout that differs from the
 * workload's, and a GPU count that is not its ranks (errors name
 * checkpoint.mlperf). Idempotent; a no-op for none. */
int mlperf_apply(struct scenario *sc, struct err *e);

#endif
