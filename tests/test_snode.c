/* Staged storage nodes (docs/storage.md): NIC -> host -> write cache ->
 * media, profiles, the stage named as the bottleneck, the restore's read
 * path, in both engines and against the bound. */
#include <math.h>
#include <string.h>

#include "../src/scenario/catalog.h"
#include "harness.h"
#include "support.h"

#define G400 UINT64_C(400000000000)

/* 16 writers of `mb` MB into one storage node with one 400G NIC whose
 * back end is 4 drives x 2 GB/s (64 Gbps) behind a write cache. */
static void cache_node(struct scenario *sc, const char *cache, unsigned mb)
{
    scenario_defaults(sc);
    sc->fabric.allow_oversize = 1;
    sc->cluster.nodes = 16;
    sc->fabric.hosts_per_leaf = 16;
    sc->storage.nodes = 1;
    sc->fabric.spines = 2;
    sc->cluster.nic_bps = sc->storage.nic_bps = sc->fabric.uplink_bps = G400;
    sc->workload.bytes_per_writer = (uint64_t)mb * 1000000;
    test_set(sc, "storage.cache_size=%s", cache);
    test_set(sc, "storage.drives=4");
    test_set(sc, "storage.drive_write_rate=2GB/s");
}

static int run(struct scenario *sc, int engine, struct results *r)
{
    sc->engine = engine;
    int rc = test_run(sc, r);
    CHECKF(rc == 0 && r->ok && r->finished, "engine %d: %s", engine, r->violation);
    CHECKF(r->completion_s >= r->bound_s * (1 - 1e-9), "engine %d: %.9g below its bound %.9g",
           engine, r->completion_s, r->bound_s);
    return rc;
}

/* A burst smaller than the cache: it goes at the NICs' speed (32 MB at
 * 400G is 0.65 ms; the media alone would take 4 ms), the NIC named. */
static void snode_burst_under_cache_at_nic_speed(void)
{
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++) {
        struct scenario sc;
        struct results r;
        cache_node(&sc, "1GB", 2);
        if (run(&sc, eng, &r))
            continue;
        double nic = 32e6 * 8 / 400e9;
        CHECKF(r.completion_s < nic * 1.15, "engine %d: %.9g s, NIC alone %.9g s", eng,
               r.completion_s, nic);
        CHECKF(r.bottleneck.seg == PATH_STORAGE_NIC && r.bottleneck.stage == STAGE_NIC,
               "engine %d: bottleneck %d stage %d", eng, r.bottleneck.seg, r.bottleneck.stage);
        CHECK(r.bottleneck.backend_stage == STAGE_CACHE);
        results_release(&r);
    }
}

/* A burst larger than the cache: the cache fills at 400G - 64G, then the
 * media set the pace: (256 MB - 16 MB) / 8 GB/s = 30 ms; both engines
 * within 5% of each other and of that figure, the media named. */
static void snode_burst_over_cache_at_media_speed(void)
{
    struct results r[2];
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++) {
        struct scenario sc;
        cache_node(&sc, "16MB", 16);
        if (run(&sc, eng, &r[eng - ENGINE_PACKET]))
            return;
        const struct results *x = &r[eng - ENGINE_PACKET];
        double media = (256e6 - 16e6) / 8e9;
        CHECKF(x->completion_s > media && x->completion_s < media * 1.05,
               "engine %d: %.9g s, media after the cache %.9g s", eng, x->completion_s, media);
        CHECKF(x->bottleneck.seg == PATH_BACKEND && x->bottleneck.stage == STAGE_MEDIA,
               "engine %d: bottleneck %d stage %d", eng, x->bottleneck.seg, x->bottleneck.stage);
        /* the bound counts the cache: tight, not the pre-cache rate's 0.65 ms */
        CHECKF(x->bound_s > media, "engine %d: bound %.9g", eng, x->bound_s);
    }
    CHECKF(fabs(r[1].completion_s - r[0].completion_s) <= 0.05 * r[0].completion_s,
           "fluid %.9g packet %.9g", r[1].completion_s, r[0].completion_s);
    /* the fluid engine says how it took the cache */
    int listed = 0;
    for (uint32_t i = 0; i < r[1].n_unmodelled; i++)
        listed |= !strcmp(r[1].unmodelled[i].key, "storage.cache_size");
    CHECK(listed);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* No cache, a host cap below the drives: the host is named. */
static void snode_host_bound(void)
{
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++) {
        struct scenario sc;
        struct results r;
        cache_node(&sc, "0", 4);
        test_set(&sc, "storage.drive_write_rate=7GB/s"); /* 224 Gbps of media */
        test_set(&sc, "storage.host_rate=100Gbps");
        if (run(&sc, eng, &r))
            continue;
        double host = 64e6 * 8 / 100e9;
        CHECKF(r.completion_s > host && r.completion_s < host * 1.05, "engine %d: %.9g vs %.9g",
               eng, r.completion_s, host);
        CHECKF(r.bottleneck.seg == PATH_BACKEND && r.bottleneck.stage == STAGE_HOST,
               "engine %d: bottleneck %d stage %d", eng, r.bottleneck.seg, r.bottleneck.stage);
        results_release(&r);
    }
}

/* Write amplification divides the drives' write rate. */
static void snode_write_amplification(void)
{
    struct scenario sc;
    struct err e;
    cache_node(&sc, "0", 4);
    test_set(&sc, "storage.write_amplification=2");
    CHECK(scenario_resolve(&sc, &e) == 0);
    CHECKF(sc.storage.drain_bps == UINT64_C(32000000000), "%llu",
           (unsigned long long)sc.storage.drain_bps);
}

/* A profile fills the NICs and drives left unset; a key given wins. */
static void snode_profile_fills_unset_keys(void)
{
    struct scenario sc;
    struct err e;
    scenario_defaults(&sc);
    test_set(&sc, "storage.profile=aistore-oci-e5");
    test_set(&sc, "storage.drives=10");
    CHECKF(scenario_resolve(&sc, &e) == 0, "%s", e.msg);
    const struct storage_profile *p = storage_profile_find("aistore-oci-e5");
    CHECK(p && p->nics == 1 && p->drives == 12);
    CHECK(sc.storage.nics_per_node == 1 && sc.storage.nic_bps == UINT64_C(100000000000));
    CHECK(sc.storage.drives == 10);
    CHECK(sc.storage.drain_bps == 10 * p->drive_w_bps);
    /* the restore reads the media: 10 drives at the read rate */
    CHECK(sc.restore.read_bps == 10 * p->drive_r_bps);
    /* a figure and its source; drives only with both rates (a profile may
     * give NICs alone where no drive rate is published) */
    for (const struct storage_profile *q = storage_catalog; q->name; q++)
        CHECKF(q->source && q->source[0] && (q->nics || q->drives)
                   && !q->drives == !(q->drive_w_bps && q->drive_r_bps),
               "profile %s lacks a figure or its source", q->name);
}

static void refused(const char *const *sets, const char *want)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    for (; *sets; sets++)
        test_set(&sc, "%s", *sets);
    CHECK(scenario_validate(&sc, &e) < 0);
    CHECKF(strstr(e.msg, want) != NULL, "got \"%s\", want \"%s\"", e.msg, want);
}

static void snode_bad_input_named(void)
{
    refused((const char *const[]){"storage.profile=nope", NULL},
            "storage.profile: unknown storage profile \"nope\"");
    refused((const char *const[]){"storage.drives=4", NULL},
            "storage.drive_write_rate: needed with storage.drives (4)");
    refused((const char *const[]){"storage.drain_rate=100Gbps", "storage.host_rate=50Gbps", NULL},
            "storage.drain_rate: is the simple form");
}

/* The restore reads at the drives' read rate: bound and completion follow
 * it, and the read side's stage is the media (restore.read_rate was
 * unlimited before). */
static void snode_restore_reads_media(void)
{
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++) {
        struct scenario sc;
        struct results r;
        cache_node(&sc, "0", 4);
        test_set(&sc, "storage.drive_read_rate=1GB/s"); /* 32 Gbps */
        sc.checkpoint.phase = PHASE_RESTORE;
        sc.restore.mode = RESTORE_OWN_FILES;
        sc.engine = eng;
        if (test_run(&sc, &r))
            continue;
        CHECKF(r.ok && r.finished, "engine %d: %s", eng, r.violation);
        double media = 64e6 * 8 / 32e9;
        CHECKF(r.completion_s > media && r.completion_s < media * 1.05, "engine %d: %.9g vs %.9g",
               eng, r.completion_s, media);
        CHECKF(r.bottleneck.seg == PATH_BACKEND && r.bottleneck.stage == STAGE_MEDIA,
               "engine %d: bottleneck %d stage %d", eng, r.bottleneck.seg, r.bottleneck.stage);
        results_release(&r);
    }
}

SUITE(suite_snode) = {
    {"snode_burst_under_cache_at_nic_speed", snode_burst_under_cache_at_nic_speed},
    {"snode_burst_over_cache_at_media_speed", snode_burst_over_cache_at_media_speed},
    {"snode_host_bound", snode_host_bound},
    {"snode_write_amplification", snode_write_amplification},
    {"snode_profile_fills_unset_keys", snode_profile_fills_unset_keys},
    {"snode_bad_input_named", snode_bad_input_named},
    {"snode_restore_reads_media", snode_restore_reads_media},
    {0, 0},
};
