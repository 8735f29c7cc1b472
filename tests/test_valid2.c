/* The wider validation pack (docs/storage.md, Validation): a storage
 * node's NICs shared by bytes. */
#include "harness.h"
#include "support.h"

/* One storage node with 2 NICs takes llama3-70b's 128 files, a rank's two
 * of unequal size (model and optimizer shards): taken in turn by count,
 * every large file landed on one NIC (busiest 1.71x the mean, the write
 * 71% slower than the two NICs allow); taken by bytes, the two NICs carry
 * the same within a file and the write ends at their pace. */
static void valid2_storage_nics_share_bytes(void)
{
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    test_set(&sc, "checkpoint.mlperf=llama3-70b");
    test_set(&sc, "cluster.nodes=8");
    test_set(&sc, "cluster.gpus_per_node=8");
    test_set(&sc, "cluster.nic_speed=400Gbps");
    test_set(&sc, "fabric.hosts_per_leaf=8");
    test_set(&sc, "fabric.spines=8");
    test_set(&sc, "fabric.load_balancing=spray");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "storage.nics_per_node=2");
    test_set(&sc, "storage.nic_speed=400Gbps");
    sc.engine = ENGINE_FLUID; /* 64 ranks x 15 GB take minutes in the packet engine */
    if (test_run(&sc, &r))
        return;
    CHECKF(r.ok && r.finished, "%s", r.violation);
    const struct seg_figures *s = &r.segs[PATH_STORAGE_NIC];
    CHECKF(s->imbalance < 1.01, "storage NICs: busiest %.4g x the mean", s->imbalance);
    /* the write at the two NICs' pace: their wire bytes over 800 Gbps */
    double pace = s->bytes * 8 / 800e9;
    CHECKF(r.completion_s < pace * 1.03, "%.6g s, the two NICs allow %.6g s", r.completion_s,
           pace);
    CHECK(r.bottleneck.seg == PATH_STORAGE_NIC);
    results_release(&r);
}

const struct test suite_valid2[] = {
    {"valid2_storage_nics_share_bytes", valid2_storage_nics_share_bytes},
    {0, 0},
};
