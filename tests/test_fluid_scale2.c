/* The fluid engine at scale, round two (issue 30, item 4): what a run keeps
 * per transfer outside the engine, and spray on three tiers. */
#include <stdio.h>
#include <string.h>

#include "../src/api/api.h"
#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/fluid/fluid.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

/* scenarios/cluster-100k.yaml at a fiftieth: 2,000 nodes x 8 GPUs, three
 * tiers of 64-port switches, 16,000 transfers. */
static void mid_size(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=2000");
    test_set(sc, "cluster.gpus_per_node=8");
    test_set(sc, "storage.nodes=40");
    test_set(sc, "fabric.switch=CX764QD-N");
    test_set(sc, "fabric.tiers=auto");
    test_set(sc, "fabric.storage_per_leaf=20");
    test_set(sc, "model.name=dense-1t");
    test_set(sc, "parallelism.tp=8");
    test_set(sc, "parallelism.pp=20");
    test_set(sc, "checkpoint.writer_rule=dcp");
    test_set(sc, "engine=fluid");
}

/* The workload keeps its transfers (48 bytes each) and each writer's rank;
 * the plan, per-rank and per-file arrays of the build are released when it
 * ends. Measured by the arena's counter across workload_build: 66 bytes a
 * transfer (the arena counts whole 1 MB blocks); before, the build's scratch
 * stayed in the run's arena, 3.5x that, and this fails. */
static void fluid_scale2_workload_bytes_per_transfer(void)
{
    struct scenario sc, fab;
    mid_size(&sc);
    struct scenario eff = sc;
    struct err e = {""};
    CHECK(scenario_resolve(&eff, &e) == 0);
    workload_fabric(&eff, &fab);
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct workload w;
    memset(&w, 0, sizeof w);
    int ok = topo_build(&t, &fab, &a, &e) == 0;
    size_t before = a.total;
    ok = ok && workload_build(&w, &eff, &t, &a, &e) == 0;
    CHECKF(ok, "%s", e.msg);
    CHECKF(w.n >= 10000, "%u transfers", w.n);
    double per = w.n ? (double)(a.total - before) / w.n : 0;
    CHECKF(per >= (double)sizeof(struct transfer) && per < 100,
           "%.1f bytes a transfer (%u transfers)", per, w.n);
    /* what it keeps is whole: every writer's rank, every transfer */
    for (uint32_t i = 0; ok && i < w.n; i++)
        if (w.xfers[i].writer >= w.n_writers || !w.xfers[i].bytes) {
            CHECKF(0, "transfer %u: writer %u of %u, %llu bytes", i, w.xfers[i].writer,
                   w.n_writers, (unsigned long long)w.xfers[i].bytes);
            break;
        }
    for (uint32_t k = 0; ok && k < w.n_writers; k++)
        CHECK(w.writer_rank[k] < w.n_writers * 8u);
    arena_release(&a);
}

/* Spray on three tiers: the split each leaf pair's transfers share gives
 * every transfer the very links and shares (bit for bit) its own split
 * gives, so the solver's input and every rate are the same. A small
 * three-tier fabric (600 nodes, 32-port switches), whole and with 6 failed
 * links (unequal splits), and several transfers per leaf pair. */
static void fluid_scale2_grouped_spray_equals_per_transfer(void)
{
    static const char *const fails[] = {"0", "6"};
    for (int k = 0; k < 2; k++) {
        struct scenario sc;
        test_spray3(&sc);
        test_set(&sc, "fabric.failed_links=%s", fails[k]);
        struct test_prep p;
        int ok = test_prepare(&p, &sc) == 0;
        CHECKF(ok, "%s", p.e.msg);
        if (ok) {
            CHECKF(p.t.tiers == 3, "%u tiers", p.t.tiers);
            uint64_t entries = 0;
            uint32_t bad = fluid_grouped_mismatches(&p.eff, &p.t, &p.w, &entries);
            CHECKF(bad == 0, "failed links %s: %u of %u transfers differ", fails[k], bad, p.w.n);
            /* a split over many paths, not one path a transfer */
            CHECKF(p.w.n >= 400 && entries > 10 * (uint64_t)p.w.n,
                   "%u transfers, %llu entries", p.w.n, (unsigned long long)entries);
            CHECK(fluid_run(&p.eff, &p.t, &p.w, &p.r, &p.e) == 0 && p.r.ok);
        }
        test_prep_release(&p);
    }
}

SUITE(suite_fluid_scale2) = {
    {"fluid_scale2_workload_bytes_per_transfer", fluid_scale2_workload_bytes_per_transfer},
    {"fluid_scale2_grouped_spray_equals_per_transfer",
     fluid_scale2_grouped_spray_equals_per_transfer},
    {0, 0},
};
