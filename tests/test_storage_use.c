/* checkpoint.mlperf (the MLPerf Storage workloads) and the storage's
 * capacity and endurance (src/cost/storage_use.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/err.h"
#include "../src/cost/storage_use.h"
#include "../src/report/report.h"
#include "../src/scenario/mlperf.h"
#include "../src/work/model.h"
#include "harness.h"
#include "support.h"

#define GIB 1073741824.0

/* the workload fills what DLIO fixes, and the rest stays the user's */
static void mlperf_fills_the_workload(void)
{
    struct scenario sc;
    struct err e = {0};
    scenario_defaults(&sc);
    test_set(&sc, "checkpoint.mlperf=llama3-405b");
    test_set(&sc, "cluster.nodes=64");
    test_set(&sc, "checkpoint.phase=save");
    CHECKF(scenario_resolve(&sc, &e) == 0, "%s", e.msg);
    CHECK(sc.model.name == MODEL_LLAMA3_405B);
    CHECK(sc.parallelism.tp == 8 && sc.parallelism.pp == 32 && sc.parallelism.dp == 2);
    CHECK(sc.parallelism.zero_stage == 1);
    CHECK(sc.checkpoint.writer_rule == RULE_DEEPSPEED);
    CHECK(sc.restore.mode == RESTORE_OWN_FILES);
    CHECK(sc.checkpoint.phase == PHASE_SAVE); /* the user's choice stands */
    CHECKF(scenario_resolve(&sc, &e) == 0, "second resolve: %s", e.msg);
}

/* a cluster that is not the workload's ranks, or another model, is refused
 * by the key that asked for the workload */
static void mlperf_refuses_what_is_not_the_benchmark(void)
{
    struct scenario sc;
    struct err e = {0};
    scenario_defaults(&sc);
    test_set(&sc, "checkpoint.mlperf=llama3-1t");
    test_set(&sc, "cluster.nodes=8");
    CHECK(scenario_resolve(&sc, &e) < 0);
    CHECKF(strstr(e.msg, "checkpoint.mlperf") && strstr(e.msg, "1024 ranks") &&
               strstr(e.msg, "gives 64"),
           "%s", e.msg);

    scenario_defaults(&sc);
    memset(&e, 0, sizeof e);
    test_set(&sc, "checkpoint.mlperf=llama3-8b");
    test_set(&sc, "cluster.nodes=1");
    test_set(&sc, "model.name=llama3-70b");
    CHECK(scenario_resolve(&sc, &e) < 0);
    CHECKF(strstr(e.msg, "checkpoint.mlperf") && strstr(e.msg, "llama3-70b"), "%s", e.msg);

    scenario_defaults(&sc);
    memset(&e, 0, sizeof e);
    test_set(&sc, "checkpoint.mlperf=llama3-8b");
    test_set(&sc, "cluster.nodes=1");
    test_set(&sc, "checkpoint.writer_rule=dcp");
    CHECK(scenario_resolve(&sc, &e) < 0);
    CHECKF(strstr(e.msg, "DeepSpeed"), "%s", e.msg);
}

/* llama3-1t from DLIO's shape: its 14 B per parameter within 0.01% of the
 * 15,426.6 GiB every v3.0 submission reports */
static void mlperf_llama3_1t_size(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "model.name=llama3-1t");
    double gib = (double)model_params(&sc) * 14.0 / GIB;
    const struct mlperf_spec *m = mlperf_lookup(MLPERF_LLAMA3_1T);
    CHECK(m != NULL);
    if (m)
        CHECKF(fabs(gib / m->dlio_gib - 1.0) < 1e-4, "%.1f GiB against %.1f", gib, m->dlio_gib);
}

/* MLPerf's save time is rank 0's own duration; the benchmark's length
 * waits for every rank */
static void mlperf_rank0_against_all_ranks(void)
{
    struct scenario sc;
    struct results r;
    double ws[2] = {1.0, 2.0};
    scenario_defaults(&sc);
    test_set(&sc, "checkpoint.mlperf=llama3-8b");
    memset(&r, 0, sizeof r);
    r.phase = PHASE_BOTH;
    r.finished = 1;
    r.ckpt_bytes = UINT64_C(4) << 30;
    r.completion_s = 2.0;
    r.writer_s = ws;
    r.n_writer_s = 2;
    r.restore.ran = r.restore.finished = 1;
    r.restore.completion_s = 0.5;
    r.restore.bytes_read = UINT64_C(4) << 30;
    mlperf_compute(&r, &sc);
    CHECK(r.mlperf.on);
    CHECK(r.mlperf.save_rank0_s == 1.0 && r.mlperf.save_all_s == 2.0);
    CHECK(fabs(r.mlperf.save_rank0_gibps - 4.0) < 1e-12);
    CHECK(fabs(r.mlperf.save_all_gibps - 2.0) < 1e-12);
    CHECK(fabs(r.mlperf.load_gibps - 8.0) < 1e-12);
    /* 10 x (5 + 2) + 10 x (5 + 0.5) */
    CHECKF(fabs(r.mlperf.run_s - 125.0) < 1e-9, "%g", r.mlperf.run_s);

    /* a whole run: rank 0's figure is writer 0's, in DLIO's binary units */
    scenario_defaults(&sc);
    test_set(&sc, "checkpoint.mlperf=llama3-8b");
    test_set(&sc, "cluster.nodes=1");
    test_set(&sc, "engine=fluid");
    test_set(&sc, "checkpoint.straggler_fraction=0.5");
    test_set(&sc, "checkpoint.straggler_slowdown=4");
    memset(&r, 0, sizeof r);
    int rc = test_run(&sc, &r);
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK(r.mlperf.on && r.n_writer_s == 8);
        CHECK(r.mlperf.save_rank0_s == r.writer_s[0]);
        CHECK(r.mlperf.save_all_s == r.completion_s);
        CHECK(fabs(r.mlperf.save_rank0_gibps * r.mlperf.save_rank0_s -
                   (double)r.ckpt_bytes / GIB) < 1e-6);
        CHECK(r.mlperf.load_s > 0 && r.mlperf.load_s == r.restore.completion_s);
    }
    results_release(&r);
}

/* Capacity and endurance against hand-computed figures: 1 TB checkpoints,
 * 3 nodes x 12 drives x 7.68 TB rated 1 DWPD = 276.48 TB a day */
static void endurance_figures_and_flags(void)
{
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    test_set(&sc, "storage.nodes=3");
    test_set(&sc, "storage.drives=12");
    test_set(&sc, "storage.drive_capacity=7680GB");
    test_set(&sc, "storage.drive_dwpd=1");
    test_set(&sc, "storage.capacity=2TB");
    test_set(&sc, "storage.retention=2");
    memset(&r, 0, sizeof r);
    r.finished = 1;
    r.ckpt_bytes = UINT64_C(1000000000000);
    r.cost.checkpoints_per_day = 96; /* every 15 min */
    endurance_compute(&r, &sc);
    CHECK(r.endurance.on);
    CHECK(r.endurance.bytes_per_day == UINT64_C(96000000000000));
    CHECK(r.endurance.raw_bytes == UINT64_C(276480000000000));
    CHECKF(fabs(r.endurance.dwpd - 96.0 / 276.48) < 1e-12, "%g", r.endurance.dwpd);
    CHECK(!r.endurance.over_endurance);
    CHECKF(fabs(r.endurance.max_checkpoints_per_day - 276.48) < 1e-9, "%g",
           r.endurance.max_checkpoints_per_day);
    /* two kept and the next being written: 3 TB on 2 TB */
    CHECK(r.endurance.retained_bytes == UINT64_C(3000000000000));
    CHECK(r.endurance.over_capacity && fabs(r.endurance.capacity_used - 1.5) < 1e-12);

    r.cost.checkpoints_per_day = 5760; /* async every 15 s */
    endurance_compute(&r, &sc);
    CHECK(r.endurance.over_endurance && fabs(r.endurance.dwpd - 5760.0 / 276.48) < 1e-9);

    /* none of the keys: nothing computed, nothing printed */
    scenario_defaults(&sc);
    endurance_compute(&r, &sc);
    CHECK(!r.endurance.on);
}

/* the summary flags an async policy every 15 s that wears the drives out */
static void endurance_flagged_in_summary(void)
{
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    test_set(&sc, "checkpoint.policy=async");
    test_set(&sc, "cluster.d2h_rate=422Gbps");
    test_set(&sc, "training.checkpoint_interval=15s");
    test_set(&sc, "workload.bytes_per_writer=1GB"); /* 128 GB every 15 s */
    test_set(&sc, "storage.drives=12");
    test_set(&sc, "storage.drive_write_rate=3800MB/s"); /* PM1733 data sheet */
    test_set(&sc, "storage.drive_capacity=7680GB");
    test_set(&sc, "storage.drive_dwpd=1");
    memset(&r, 0, sizeof r);
    int rc = test_run(&sc, &r);
    CHECK(rc == 0);
    if (rc == 0) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f) {
            report_summary(f, &sc, &r);
            fclose(f);
        }
        CHECKF(buf && strstr(buf, "EXCEEDS storage.drive_dwpd") &&
                   strstr(buf, "within the rating: at most"),
               "%s", buf ? buf : "(none)");
        free(buf);
    }
    results_release(&r);
}

/* MLPerf's save throughput is the checkpoint's own bytes over the time: a
 * replica's copies are on the wire and the drives, not in the figure */
static void mlperf_save_excludes_protection(void)
{
    struct scenario sc;
    struct results r;
    double ws[1] = {2.0};
    scenario_defaults(&sc);
    test_set(&sc, "checkpoint.mlperf=llama3-8b");
    memset(&r, 0, sizeof r);
    r.phase = PHASE_SAVE;
    r.finished = 1;
    r.plan.bytes = UINT64_C(4) << 30;
    r.plan.protect_bytes = UINT64_C(8) << 30; /* replica 3 */
    r.ckpt_bytes = r.plan.bytes + r.plan.protect_bytes;
    r.completion_s = 2.0;
    r.writer_s = ws;
    r.n_writer_s = 1;
    mlperf_compute(&r, &sc);
    CHECKF(fabs(r.mlperf.ckpt_gib - 4.0) < 1e-12, "%g", r.mlperf.ckpt_gib);
    CHECKF(fabs(r.mlperf.save_all_gibps - 2.0) < 1e-12, "%g", r.mlperf.save_all_gibps);
    CHECK(fabs(r.mlperf.save_rank0_gibps - 2.0) < 1e-12);
}

SUITE(suite_storage_use) = {
    {"mlperf_fills_the_workload", mlperf_fills_the_workload},
    {"mlperf_refuses_what_is_not_the_benchmark", mlperf_refuses_what_is_not_the_benchmark},
    {"mlperf_llama3_1t_size", mlperf_llama3_1t_size},
    {"mlperf_rank0_against_all_ranks", mlperf_rank0_against_all_ranks},
    {"mlperf_save_excludes_protection", mlperf_save_excludes_protection},
    {"endurance_figures_and_flags", endurance_figures_and_flags},
    {"endurance_flagged_in_summary", endurance_flagged_in_summary},
    {NULL, NULL},
};
