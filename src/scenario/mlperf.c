/* MLPerf Storage checkpoint workloads (mlperf.h). */
#include "mlperf.h"

#include <stdio.h>

#include "names.h"

/* Sizes: summary.json metric checkpoint_size_GB of the v3.0 results
 * (mlcommons/storage_results_v3.0, e.g. closed/NVIDIA/results/aistore-3n-
 * oci-bm-denseio-e5-128-8client-405b-1t/checkpointing/llama3-1t/
 * 20260721_051722/summary.json: 15426.589 for 1t); the layouts and the
 * 10 + 10 checkpoints 5 s apart from the DLIO workload files. */
static const struct mlperf_spec specs[] = {
    {MLPERF_LLAMA3_8B, MODEL_LLAMA3_8B, 1, 1, 8, 3, 104.70452117919922, 10, 10, 5.0},
    {MLPERF_LLAMA3_70B, MODEL_LLAMA3_70B, 8, 1, 8, 3, 911.2121276855469, 10, 10, 5.0},
    {MLPERF_LLAMA3_405B, MODEL_LLAMA3_405B, 8, 32, 2, 1, 5292.248718261719, 10, 10, 5.0},
    {MLPERF_LLAMA3_1T, MODEL_LLAMA3_1T, 8, 64, 2, 1, 15426.589264154434, 10, 10, 5.0},
};

const struct mlperf_spec *mlperf_lookup(int workload)
{
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (specs[i].workload == workload)
            return &specs[i];
    return NULL;
}

static int put(struct scenario *sc, const char *key, const char *value, struct err *e)
{
    return scenario_set_default(sc, key, value, e);
}

int mlperf_apply(struct scenario *sc, struct err *e)
{
    const struct mlperf_spec *m = mlperf_lookup(sc->checkpoint.mlperf);
    if (!m)
        return 0;
    const char *wl = names_of(&names_mlperf, m->workload);
    char v[4][16];
    snprintf(v[0], sizeof v[0], "%u", m->tp);
    snprintf(v[1], sizeof v[1], "%u", m->pp);
    snprintf(v[2], sizeof v[2], "%u", m->dp);
    snprintf(v[3], sizeof v[3], "%u", m->zero_stage);
    if (put(sc, "model.name", names_of(&names_model, m->model), e) < 0 ||
        put(sc, "parallelism.tp", v[0], e) < 0 || put(sc, "parallelism.pp", v[1], e) < 0 ||
        put(sc, "parallelism.dp", v[2], e) < 0 ||
        put(sc, "parallelism.zero_stage", v[3], e) < 0 ||
        put(sc, "checkpoint.writer_rule", "deepspeed", e) < 0 ||
        put(sc, "checkpoint.phase", "both", e) < 0 ||
        put(sc, "restore.mode", "own_files", e) < 0)
        return -1;
    /* what DLIO writes is fixed by the workload: a different model or
     * layout would no longer be the benchmark */
    if (sc->model.name != m->model)
        return scenario_fail(sc, e, "checkpoint.mlperf", "%s writes model %s, but model.name is %s",
                             wl, names_of(&names_model, m->model),
                             names_of(&names_model, sc->model.name));
    if (sc->parallelism.tp != m->tp || sc->parallelism.pp != m->pp ||
        sc->parallelism.dp != m->dp || sc->parallelism.zero_stage != m->zero_stage)
        return scenario_fail(sc, e, "checkpoint.mlperf",
                             "%s is TP %u x PP %u x DP %u with ZeRO %u, but parallelism.* "
                             "give TP %u x PP %u x DP %u with ZeRO %u",
                             wl, m->tp, m->pp, m->dp, m->zero_stage, sc->parallelism.tp,
                             sc->parallelism.pp, sc->parallelism.dp, sc->parallelism.zero_stage);
    if (sc->checkpoint.writer_rule != RULE_DEEPSPEED)
        return scenario_fail(sc, e, "checkpoint.mlperf",
                             "DLIO writes the DeepSpeed way; checkpoint.writer_rule is %s",
                             names_of(&names_writer_rule, sc->checkpoint.writer_rule));
    uint64_t ranks = (uint64_t)m->tp * m->pp * m->dp;
    uint64_t gpus = (uint64_t)sc->cluster.nodes * sc->cluster.gpus_per_node;
    if (gpus != ranks)
        return scenario_fail(sc, e, "checkpoint.mlperf",
                             "%s runs %llu ranks (TP %u x PP %u x DP %u); cluster.nodes x "
                             "cluster.gpus_per_node gives %llu",
                             wl, (unsigned long long)ranks, m->tp, m->pp, m->dp,
                             (unsigned long long)gpus);
    return 0;
}
