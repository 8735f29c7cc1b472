/* The wider validation pack (docs/storage.md, Validation): the storage
 * profiles its systems need, and a storage node's NICs shared by bytes. */
#include <math.h>
#include <string.h>

#include "../src/scenario/catalog.h"
#include "harness.h"
#include "support.h"

#define GB_S(x) ((uint64_t)((x) * 8e9))

/* Each new row holds the published figures of its system description. */
static void valid2_profile_rows(void)
{
    static const struct {
        const char *name;
        uint32_t nics;
        uint64_t nic_bps;
        uint32_t drives;
        uint64_t w, r;
        const char *source; /* a part of its source: the submitter's tree */
    } rows[] = {
        {"yanrong-f9000x", 4, UINT64_C(400000000000), 16, GB_S(10.5), GB_S(14.5),
         "closed/YanRongTech"},
        {"turingdata-f9200", 4, UINT64_C(400000000000), 16, GB_S(10.5), GB_S(14.5),
         "closed/TuringData"},
        {"inspur-as13000g7", 8, UINT64_C(400000000000), 0, 0, 0, "closed/InspurData"},
        {"aws-i3en-12xlarge", 1, UINT64_C(50000000000), 0, 0, 0, "i3en.12xlarge: 50 Gigabit"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct storage_profile *p = storage_profile_find(rows[i].name);
        CHECKF(p != NULL, "profile %s missing", rows[i].name);
        if (!p)
            continue;
        CHECKF(p->nics == rows[i].nics && p->nic_bps == rows[i].nic_bps, "%s: %u x %llu",
               rows[i].name, p->nics, (unsigned long long)p->nic_bps);
        CHECKF(p->drives == rows[i].drives && p->drive_w_bps == rows[i].w
                   && p->drive_r_bps == rows[i].r,
               "%s: %u drives %llu / %llu", rows[i].name, p->drives,
               (unsigned long long)p->drive_w_bps, (unsigned long long)p->drive_r_bps);
        CHECKF(p->source && strstr(p->source, rows[i].source), "%s: source \"%s\"",
               rows[i].name, p->source ? p->source : "(none)");
        /* resolved into a scenario: the node's NICs, and its media stage only
         * where the drives' rates are published */
        struct scenario sc;
        struct err e;
        scenario_defaults(&sc);
        test_set(&sc, "storage.profile=%s", rows[i].name);
        CHECKF(scenario_resolve(&sc, &e) == 0, "%s: %s", rows[i].name, e.msg);
        CHECK(sc.storage.nics_per_node == rows[i].nics && sc.storage.nic_bps == rows[i].nic_bps);
        if (rows[i].drives) {
            CHECKF(sc.storage.staged && sc.storage.drain_bps == rows[i].drives * rows[i].w
                       && sc.restore.read_bps == rows[i].drives * rows[i].r,
                   "%s: drain %llu read %llu", rows[i].name,
                   (unsigned long long)sc.storage.drain_bps,
                   (unsigned long long)sc.restore.read_bps);
        } else {
            CHECKF(!sc.storage.staged && sc.storage.drain_bps == 0 && sc.restore.read_bps == 0,
                   "%s: a media stage from no figure (drain %llu)", rows[i].name,
                   (unsigned long long)sc.storage.drain_bps);
        }
    }
}

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
    {"valid2_profile_rows", valid2_profile_rows},
    {"valid2_storage_nics_share_bytes", valid2_storage_nics_share_bytes},
    {0, 0},
};
