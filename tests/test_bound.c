/* Tests of the correctness pass (bound): each names the defect it guards. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/rng.h"
#include "../src/core/units.h"
#include "../src/fluid/fluid.h"
#include "../src/stats/bound.h"
#include "../src/stats/segments.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

/* Apply "key=value" to sc; 0 or -1 (the message goes to *e). */
static int setf(struct scenario *sc, struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int setf(struct scenario *sc, struct err *e, const char *fmt, ...)
{
    char a[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a, sizeof a, fmt, ap);
    va_end(ap);
    return scenario_set(sc, a, e);
}

static const uint64_t gbps[] = {10, 25, 100, 200, 400, 800};
/* switch latencies 500, 560 and 600 ns: leaves and spines differ */
static const char *const profiles[] = {"CX732Q-N", "CX764QH-N", "generic-51.2T"};

/* A random small fabric and checkpoint; single = one writer, one storage
 * node, one transfer. Returns 0, or -1 when a key was refused. */
static int random_scenario(struct scenario *sc, struct rng *g, int single)
{
    struct err e;
    int rc = 0;
    scenario_defaults(sc);
    sc->fabric.allow_oversize = 1; /* speeds past the profiles' ports */
    uint32_t hosts = single ? 1 : 1 + (uint32_t)rng_below(g, 6);
    uint32_t storage = single ? 1 : 1 + (uint32_t)rng_below(g, 4);
    rc |= setf(sc, &e, "seed=%llu", (unsigned long long)rng_below(g, 1000) + 1);
    rc |= setf(sc, &e, "cluster.nodes=%u", hosts);
    rc |= setf(sc, &e, "fabric.hosts_per_leaf=%u", 1 + (unsigned)rng_below(g, 4));
    rc |= setf(sc, &e, "storage.nodes=%u", storage);
    rc |= setf(sc, &e, "fabric.storage_per_leaf=%u", 1 + (unsigned)rng_below(g, 3));
    rc |= setf(sc, &e, "fabric.spines=%u", 1 + (unsigned)rng_below(g, 3));
    rc |= setf(sc, &e, "fabric.links_per_spine=%u", 1 + (unsigned)rng_below(g, 2));
    rc |= setf(sc, &e, "cluster.nic_speed=%lluGbps", (unsigned long long)gbps[rng_below(g, 6)]);
    rc |= setf(sc, &e, "storage.nic_speed=%lluGbps", (unsigned long long)gbps[rng_below(g, 6)]);
    rc |= setf(sc, &e, "fabric.uplink_speed=%lluGbps", (unsigned long long)gbps[rng_below(g, 6)]);
    rc |= setf(sc, &e, "fabric.link_delay=%lluns", (unsigned long long)rng_below(g, 2001));
    rc |= setf(sc, &e, "fabric.leaf_switch=%s", profiles[rng_below(g, 3)]);
    rc |= setf(sc, &e, "fabric.spine_switch=%s", profiles[rng_below(g, 3)]);
    if (rng_below(g, 4) == 0)
        rc |= setf(sc, &e, "fabric.switch_latency=%lluns", (unsigned long long)rng_below(g, 1001));
    rc |= setf(sc, &e, "fabric.mtu=%lluB", (unsigned long long)(256 + rng_below(g, 8745)));
    rc |= setf(sc, &e, "workload.bytes_per_writer=%lluB",
               (unsigned long long)(1 + rng_below(g, single ? 300000 : 120000)));
    if (rng_below(g, 2) == 0)
        rc |= setf(sc, &e, "storage.drain_rate=%lluGbps",
                   (unsigned long long)gbps[rng_below(g, 5)]);
    switch (rng_below(g, 5)) {
    case 0:
        rc |= setf(sc, &e, "checkpoint.policy=rate_limit");
        rc |= setf(sc, &e, "checkpoint.rate_limit=%lluMbps",
                   (unsigned long long)(5000 + rng_below(g, 400000)));
        break;
    case 1:
        rc |= setf(sc, &e, "cluster.d2h_rate=%lluMbps",
                   (unsigned long long)(1000 + rng_below(g, 60000)));
        break;
    default:
        break;
    }
    if (!single) {
        if (rng_below(g, 3) == 0)
            rc |= setf(sc, &e, "workload.start_jitter=%lluns",
                       (unsigned long long)rng_below(g, 20000));
        rc |= setf(sc, &e, "storage.stripe_count=%u", 1 + (unsigned)rng_below(g, storage));
        rc |= setf(sc, &e, "storage.stripe_size=%lluB", (unsigned long long)(4096 + rng_below(g, 60000)));
        rc |= setf(sc, &e, "transport.qps_per_writer=%u", 1 + (unsigned)rng_below(g, 2));
        static const char *const lb[] = {"ecmp", "wcmp", "spray"};
        uint64_t k = rng_below(g, 3);
        rc |= setf(sc, &e, "fabric.load_balancing=%s", lb[k]);
        if (k == 2)
            rc |= setf(sc, &e, "transport.receiver=ooo");
        if (rng_below(g, 4) == 0)
            rc |= setf(sc, &e, "fabric.failed_links=1");
        /* durability: an fsync per file, a metadata service for all */
        if (rng_below(g, 4) == 0)
            rc |= setf(sc, &e, "storage.fsync_cost=%lluns", (unsigned long long)rng_below(g, 50000));
        if (rng_below(g, 4) == 0)
            rc |= setf(sc, &e, "storage.metadata_ops_per_s=%llu",
                       (unsigned long long)(10000 + rng_below(g, 1000000)));
        /* rails: two NICs per compute node on two leaves (whole rail groups) */
        if (hosts % sc->fabric.hosts_per_leaf == 0 && rng_below(g, 4) == 0) {
            rc |= setf(sc, &e, "cluster.nics_per_node=2");
            rc |= setf(sc, &e, "fabric.rails=2");
        }
        /* multi-homed storage: two NICs per node sharing its back end */
        if (rng_below(g, 3) == 0)
            rc |= setf(sc, &e, "storage.nics_per_node=2");
        if (rng_below(g, 3) == 0) { /* three tiers: pods of one or two leaves */
            rc |= setf(sc, &e, "fabric.tiers=3");
            rc |= setf(sc, &e, "fabric.leaves_per_pod=%u", 1 + (unsigned)rng_below(g, 2));
            rc |= setf(sc, &e, "fabric.superspines=%u", 1 + (unsigned)rng_below(g, 2));
            rc |= setf(sc, &e, "fabric.spine_uplink_speed=%lluGbps",
                       (unsigned long long)gbps[rng_below(g, 6)]);
            if (rng_below(g, 2))
                rc |= setf(sc, &e, "fabric.storage_pods=spread");
        }
    }
    /* the restore too: its own run, its own bound */
    if (rng_below(g, 3) == 0) {
        rc |= setf(sc, &e, "checkpoint.phase=both");
        if (rng_below(g, 2) == 0)
            rc |= setf(sc, &e, "restore.read_rate=%lluGbps",
                       (unsigned long long)gbps[rng_below(g, 5)]);
    }
    if (rc == 0 && (scenario_resolve(sc, &e) < 0 || scenario_validate(sc, &e) < 0))
        rc = -1;
    return rc;
}

/* The keys a failing case set, for its message. */
static void echo_set(void *ud, const char *key, const char *value, int kind)
{
    (void)kind;
    if (scenario_is_set(ud, key))
        fprintf(stderr, " --set %s=%s", key, value);
}

static void dump(const struct scenario *sc)
{
    fprintf(stderr, "   ");
    scenario_echo(sc, echo_set, (void *)sc);
    fprintf(stderr, "\n");
}

/* The time of one full packet at the slowest of links, rate cap and back end. */
static uint64_t packet_time_ps(const struct scenario *sc)
{
    uint64_t s = sc->cluster.nic_bps;
    s = sc->storage.nic_bps < s ? sc->storage.nic_bps : s;
    s = sc->fabric.uplink_bps < s ? sc->fabric.uplink_bps : s;
    uint64_t t = units_ser_ps(sc->fabric.mtu + ROCE_OVERHEAD, s);
    /* a rate cap spaces packets wider */
    uint64_t cap = sc->checkpoint.policy == POLICY_RATE_LIMIT ? sc->checkpoint.rate_limit_bps : 0;
    if (sc->cluster.d2h_bps && (!cap || sc->cluster.d2h_bps * sc->cluster.gpus_per_node < cap))
        cap = sc->cluster.d2h_bps * sc->cluster.gpus_per_node;
    if (cap && cap < s)
        t = units_ser_ps(sc->fabric.mtu + ROCE_OVERHEAD, cap);
    /* or the back end, the slowest of all */
    uint64_t d = sc->storage.drain_bps ? units_ser_ps(sc->fabric.mtu, sc->storage.drain_bps) : 0;
    return d > t ? d : t;
}

/* Defect: the bound used one switch latency for leaves and spines, counted
 * the last packet's serialisation on the bottleneck hop (already in its
 * bytes) and left the first hop out, so it passed the simulated completion
 * (by ~250 ns with a storage NIC slower than the writer's). Over a few
 * hundred random small fabrics no run, in either engine, beats the bound,
 * and one flow alone (packet engine) ends within one packet time of it. */
static void bound_is_a_lower_bound(void)
{
    struct rng g;
    rng_init(&g, 42, 99);
    int runs = 0, refused = 0, below[2] = {0, 0}, single_far = 0, restores = 0, over = 0, multi = 0, railed = 0;
    double worst_single = 0;
    for (int i = 0; i < 320; i++) {
        int single = i % 4 == 0;
        struct scenario sc;
        if (random_scenario(&sc, &g, single) < 0) {
            refused++;
            continue;
        }
        double read_min = INFINITY; /* the simulated restores' fastest */
        for (int fluid = 0; fluid < 2; fluid++) {
            sc.engine = fluid ? ENGINE_FLUID : ENGINE_PACKET;
            struct results r;
            struct err e = {{0}};
            if (ckpt_run(&sc, &r, &e) < 0) {
                refused++; /* e.g. a failed link cutting a leaf off */
                continue;
            }
            runs++;
            multi += sc.storage.nics_per_node > 1;
            railed += sc.fabric.rails > 1;
            CHECKF(r.ok, "case %d %s: %s", i, names_of(&names_engine, r.engine), r.violation);
            if (r.completion_s < r.bound_s && below[fluid]++ < 3)
                CHECKF(0, "case %d %s: completion %.12g s < bound %.12g s (%s)", i, names_of(&names_engine, r.engine),
                       r.completion_s, r.bound_s, path_seg_label(r.bound_limit));
            if (r.completion_s < r.bound_s && below[fluid] <= 3)
                dump(&sc);
            if (r.restore.ran && r.restore.completion_s < r.restore.bound_s && below[fluid]++ < 3) {
                CHECKF(0, "case %d %s restore: completion %.12g s < bound %.12g s (%s)", i,
                       names_of(&names_engine, r.engine), r.restore.completion_s, r.restore.bound_s,
                       path_seg_label(r.restore.bound_limit));
                dump(&sc);
            }
            if (r.restore.ran && !r.restore.estimated) {
                restores++;
                read_min = fmin(read_min, r.restore.completion_s);
            }
            if (single && !fluid) {
                double slack = (r.completion_s - r.bound_s) * 1e12 / (double)packet_time_ps(&sc);
                worst_single = slack > worst_single ? slack : worst_single;
                if (slack > 1 && single_far++ < 5)
                    CHECKF(0, "case %d single flow: completion %.12g s, bound %.12g s: %.2f packet "
                              "times over", i, r.completion_s, r.bound_s, slack);
                if (slack > 1 && single_far <= 5)
                    dump(&sc);
            }
            results_release(&r);
        }
        /* phase save estimates the read (recovery_time auto) below any
         * simulated one */
        if (read_min < INFINITY) {
            struct results r;
            struct err e = {{0}};
            sc.checkpoint.phase = PHASE_SAVE;
            sc.engine = ENGINE_FLUID;
            if (ckpt_run(&sc, &r, &e) == 0) {
                if (!(r.restore.estimated && r.restore.completion_s <= read_min) && over++ < 3) {
                    CHECKF(0, "case %d: restore estimate %.12g s above the simulated %.12g s", i,
                           r.restore.completion_s, read_min);
                    dump(&sc);
                }
                results_release(&r);
            }
        }
    }
    CHECKF(below[0] + below[1] == 0, "%d packet and %d fluid runs beat the bound", below[0],
           below[1]);
    CHECKF(single_far == 0, "%d single flows over one packet time", single_far);
    CHECKF(runs > 500, "only %d runs (%d refused)", runs, refused);
    CHECKF(restores > 100, "only %d restores", restores);
    CHECKF(multi > 50, "only %d runs with multi-homed storage", multi);
    CHECKF(railed > 30, "only %d runs with rails", railed);
    CHECKF(over == 0, "%d restore estimates above the simulated restore", over);
    printf("  %d runs (%d with 2 storage NICs, %d with 2 rails), %d refused, single flow at "
           "most %.3f packet times over the bound\n", runs, multi, railed, refused, worst_single);
}

/* A scenario from defaults and NULL-terminated "key=value" overrides must
 * be refused before the run, by describe and run alike, with a message
 * that starts with want. */
static void refused(const char *want, ...)
{
    struct scenario sc;
    struct err e = {{0}};
    va_list ap;
    scenario_defaults(&sc);
    va_start(ap, want);
    for (const char *a; (a = va_arg(ap, const char *));)
        CHECKF(scenario_set(&sc, a, &e) == 0, "%s", e.msg);
    va_end(ap);
    CHECKF(scenario_resolve(&sc, &e) == 0 && scenario_validate(&sc, &e) == 0, "%s", e.msg);
    struct ckpt_description d;
    e.msg[0] = '\0';
    CHECKF(ckpt_describe(&sc, &d, &e) < 0, "describe took it (%s)", want);
    CHECKF(!strncmp(e.msg, want, strlen(want)) && strstr(e.msg, "clock allows (4611686 s)"),
           "describe: %s", e.msg);
    struct results r;
    e.msg[0] = '\0';
    sc.engine = ENGINE_FLUID; /* would run in seconds and report nonsense */
    CHECKF(ckpt_run(&sc, &r, &e) < 0, "run took it (%s)", want);
    CHECKF(!strncmp(e.msg, want, strlen(want)), "run: %s", e.msg);
}

/* Defect: the clock check at validation ignored the uplinks, the storage
 * NICs one by one and the back end, so a slow uplink ran for hours (packet)
 * or reported "completion 0 ns" (fluid); a bound term past the clock also
 * wrapped. Every bound term past the clock is refused, naming its key. */
static void bound_terms_past_the_clock_refused(void)
{
    refused("fabric.uplink_speed: writing the checkpoint through the compute-leaf uplinks",
            "fabric.uplink_speed=1bps", NULL);
    refused("storage.drain_rate: writing the checkpoint through the storage back end",
            "storage.drain_rate=1bps", NULL);
    /* one writer, 4 storage nodes: validation counts all four NICs */
    refused("storage.nic_speed: writing the checkpoint through the storage NIC",
            "cluster.nodes=1", "storage.nodes=4", "storage.nic_speed=1bps",
            "workload.bytes_per_writer=1MB", NULL);
    /* the bytes fit at the NIC speed, not with 4 x 1000 s of links after */
    refused("cluster.nic_speed: writing the checkpoint through the writer NIC",
            "cluster.nodes=1", "cluster.nic_speed=1Kbps", "workload.bytes_per_writer=576MB",
            "storage.nic_speed=1Mbps", "fabric.link_delay=1000s",
            "fabric.pfc.enabled=false", NULL); /* no headroom for 1000 s cables */
    refused("checkpoint.rate_limit: writing the checkpoint through the writer NIC",
            "cluster.nodes=1", "checkpoint.policy=rate_limit", "checkpoint.rate_limit=1Kbps",
            "workload.bytes_per_writer=576MB", "storage.nic_speed=1Mbps",
            "fabric.link_delay=1000s", "fabric.pfc.enabled=false", NULL);
}

/* A policy's node cap past the clock is blamed on its key (the row's
 * node_cap_key: hierarchical's trickle), by the bound's clock check
 * (describe) and by the workload's (run) alike; both named
 * workload.bytes_per_writer before. */
static void bound_node_cap_past_the_clock_named(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=1");
    test_set(&sc, "checkpoint.policy=hierarchical");
    test_set(&sc, "cluster.local_nvme_rate=10GB/s");
    test_set(&sc, "checkpoint.trickle_rate=1bps");
    CHECKF(scenario_resolve(&sc, &e) == 0 && scenario_validate(&sc, &e) == 0, "%s", e.msg);
    struct ckpt_description d;
    e.msg[0] = '\0';
    CHECK(ckpt_describe(&sc, &d, &e) < 0);
    CHECKF(strstr(e.msg, "checkpoint.trickle_rate: ") && strstr(e.msg, "clock allows"),
           "describe: %s", e.msg);
    struct results r;
    e.msg[0] = '\0';
    sc.engine = ENGINE_FLUID;
    CHECK(ckpt_run(&sc, &r, &e) < 0);
    CHECKF(strstr(e.msg, "checkpoint.trickle_rate: ") && strstr(e.msg, "clock allows"),
           "run: %s", e.msg);
}

/* Defect: with the bound past ~3.7e5 s the default time limit (50 x bound
 * + 10 ms) wrapped to about 10 ms and a valid run was reported as a pause
 * storm. The default limit past the clock is refused before the run; set,
 * the limit is honoured; the computation saturates. */
static void default_time_limit_past_the_clock(void)
{
    /* bound 1.04e6 s: under the clock, 50 x it is not */
    refused("sim.time_limit: the default, 50 x the bound", "fabric.uplink_speed=1Kbps", NULL);
    struct scenario sc;
    struct err e;
    scenario_defaults(&sc);
    CHECK(bound_time_limit_ps(&sc, 4e5) == UINT64_MAX);
    CHECK(bound_time_limit_ps(&sc, 1e300) == UINT64_MAX);
    CHECK(bound_time_limit_ps(&sc, 1e-3) == 50 * UINT64_C(1000000000) + 10 * UINT64_C(1000000000));
    CHECK(scenario_set(&sc, "sim.time_limit=2s", &e) == 0);
    CHECK(bound_time_limit_ps(&sc, 4e5) == 2 * PS_PER_S);
    /* a slow but fitting run with its limit set gets described */
    CHECK(scenario_set(&sc, "fabric.uplink_speed=1Kbps", &e) == 0);
    struct ckpt_description d;
    CHECKF(ckpt_describe(&sc, &d, &e) == 0, "%s", e.msg);
}

/* Multi-homed storage (storage.nics_per_node): 2 x 400G per storage node
 * doubles the storage-NIC term of the bound, and a symmetric burst (spray,
 * out-of-order receiver) follows it within 2% in both engines, writing and
 * restoring. Guards the NIC spread: were a node's transfers all on one of
 * its NICs, the term would not halve and the run would take twice as long. */
/* Defaults, the overrides in set and storage.nics_per_node = nics, run in
 * one engine. 0, or -1 after a failed check. */
static int run_storage_nics(const char *const *set, size_t n_set, int nics, int fluid,
                            struct results *r)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    for (size_t i = 0; i < n_set; i++)
        CHECKF(scenario_set(&sc, set[i], &e) == 0, "%s", e.msg);
    CHECKF(setf(&sc, &e, "storage.nics_per_node=%d", nics) == 0, "%s", e.msg);
    sc.engine = fluid ? ENGINE_FLUID : ENGINE_PACKET;
    if (ckpt_run(&sc, r, &e) < 0) {
        CHECKF(0, "%d NICs: %s", nics, e.msg);
        return -1;
    }
    return 0;
}

static void multihomed_storage_doubles_nic_term(void)
{
    double term[2] = {0, 0};
    for (int n = 1; n <= 2; n++)
        for (int fluid = 0; fluid < 2; fluid++) {
            static const char *const set[] = {"cluster.nodes=32", "storage.nodes=4",
                                              "workload.bytes_per_writer=16MiB",
                                              "fabric.load_balancing=spray",
                                              "transport.receiver=ooo", "checkpoint.phase=both"};
            struct results r;
            if (run_storage_nics(set, sizeof set / sizeof *set, n, fluid, &r) < 0)
                continue;
            CHECKF(r.ok, "%d NICs %s: %s", n, names_of(&names_engine, r.engine), r.violation);
            CHECKF(r.bound_limit == PATH_STORAGE_NIC, "%d NICs %s: bound set by %s", n,
                   names_of(&names_engine, r.engine), path_seg_label(r.bound_limit));
            term[n - 1] = r.bound_term_s[PATH_STORAGE_NIC];
            CHECKF(r.completion_s >= r.bound_s && r.completion_s <= 1.02 * r.bound_s,
                   "%d NICs %s: completion %.6g s, bound %.6g s", n, names_of(&names_engine, r.engine),
                   r.completion_s, r.bound_s);
            CHECKF(r.restore.ran && !r.restore.estimated &&
                       r.restore.completion_s <= 1.02 * r.restore.bound_s &&
                       r.restore.completion_s >= r.restore.bound_s,
                   "%d NICs %s: restore %.6g s, bound %.6g s", n, names_of(&names_engine, r.engine),
                   r.restore.completion_s, r.restore.bound_s);
            results_release(&r);
        }
    CHECKF(term[0] > 0 && fabs(term[0] / term[1] - 2) < 1e-3,
           "storage-NIC term %.6g s with 1 NIC, %.6g s with 2", term[0], term[1]);
}

/* A storage node's back end is one per node, whatever its NICs: with two
 * NICs the storage-NIC term halves and the back end's stays; the write
 * (and the read, restore.read_rate) then ends at the back end's bound in
 * both engines, and a full ingest buffer pauses both NICs. */
static void multihomed_storage_shares_backend(void)
{
    double nic_term[2] = {0, 0}, be_term[2] = {0, 0}, rd_term[2] = {0, 0};
    for (int n = 1; n <= 2; n++)
        for (int fluid = 0; fluid < 2; fluid++) {
            static const char *const set[] = {
                "cluster.nodes=32",           "storage.nodes=2",
                "workload.bytes_per_writer=8MB", "storage.drain_rate=600Gbps",
                "storage.ingest_buffer=16MB", "restore.read_rate=600Gbps",
                "checkpoint.phase=both"};
            struct results r;
            if (run_storage_nics(set, sizeof set / sizeof *set, n, fluid, &r) < 0)
                continue;
            CHECKF(r.ok && r.restore.ok, "%d NICs %s: %s %s", n, names_of(&names_engine, r.engine), r.violation,
                   r.restore.violation);
            nic_term[n - 1] = r.bound_term_s[PATH_STORAGE_NIC];
            be_term[n - 1] = r.bound_term_s[PATH_BACKEND];
            rd_term[n - 1] = r.restore.bound_s;
            CHECKF(n == 1 || (r.bound_limit == PATH_BACKEND &&
                              r.restore.bound_limit == PATH_BACKEND),
                   "%d NICs %s: bound by %s", n, names_of(&names_engine, r.engine), path_seg_label(r.bound_limit));
            CHECKF(r.completion_s >= r.bound_s && r.completion_s <= 1.02 * r.bound_s &&
                       r.restore.completion_s >= r.restore.bound_s &&
                       r.restore.completion_s <= 1.02 * r.restore.bound_s,
                   "%d NICs %s: write %.6g s (bound %.6g), read %.6g s (bound %.6g)", n,
                   names_of(&names_engine, r.engine), r.completion_s, r.bound_s, r.restore.completion_s,
                   r.restore.bound_s);
            CHECKF(r.segs[PATH_BACKEND].elements == 2, "%d NICs: %u back ends", n,
                   r.segs[PATH_BACKEND].elements);
            /* 32 writers at 400G into 600G a node: the buffer fills, and
             * every NIC of the node is paused (two NICs: twice the frames) */
            if (!fluid)
                CHECKF(r.pause_frames >= (uint64_t)(2 * n), "%d NICs: %llu pause frames", n,
                       (unsigned long long)r.pause_frames);
            results_release(&r);
        }
    CHECKF(nic_term[0] > 0 && fabs(nic_term[0] / nic_term[1] - 2) < 1e-3 &&
               be_term[0] > 0 && fabs(be_term[0] / be_term[1] - 1) < 1e-6 &&
               fabs(rd_term[1] - be_term[1]) < 1e-2 * be_term[1],
           "storage NIC %.6g -> %.6g s, back end %.6g -> %.6g s, read bound %.6g s",
           nic_term[0], nic_term[1], be_term[0], be_term[1], rd_term[1]);
}

/* bound_path_memo returns what bound_path does: its key must hold every
 * input (size, cap, each hop's speed, delay and switch kind, a back end at
 * the end). Transfers of random fabrics (port delays drawn per port), saves
 * and restores, with sizes and caps from small sets so that keys collide
 * on all but one input; more kinds than the memo has slots. */
static void bound_memo_matches_direct(void)
{
    static const uint64_t sizes[] = {1, 4096, 70001};
    struct rng g;
    rng_init(&g, 7, 3);
    uint64_t hits = 0, compared = 0, found_hits = 0;
    for (int i = 0; i < 80; i++) {
        struct scenario sc;
        if (random_scenario(&sc, &g, 0) < 0)
            continue;
        struct arena a;
        struct topo t;
        struct workload w[2];
        struct err e = {{0}};
        arena_init(&a);
        struct bound_memo *m = calloc(1, sizeof *m), *mf = calloc(1, sizeof *mf);
        int nw = 0;
        if (m && mf && topo_build(&t, &sc, &a, &e) == 0 &&
            workload_build(&w[0], &sc, &t, &a, &e) == 0)
            nw = 1 + (workload_build_restore(&w[1], &w[0], &sc, &t, &a, &e) == 0);
        static uint64_t delays[] = {1000, 2000, 3000};
        t.delays = delays;
        t.n_delays = 3;
        for (uint32_t p = 0; nw && p < t.n_ports; p++) {
            t.ports[p].delay_id = (uint32_t)rng_below(&g, 2);
            t.ports[p].bps = 100000000000ull * (1 + rng_below(&g, 2));
        }
        int bad = 0;
        for (int v = 0; v < nw; v++)
            for (uint32_t k = 0; k < 4 * w[v].n; k++) {
                struct transfer x = w[v].xfers[k % w[v].n];
                uint32_t path[TOPO_MAX_HOPS];
                uint32_t np = x.bytes ? workload_path(&w[v], &t, k % w[v].n, path) : 0;
                if (np < 2)
                    continue;
                x.bytes = sizes[rng_below(&g, 3)];
                uint64_t rate = rng_below(&g, 2) ? 0 : 10000000000ull;
                struct bound_path want, got;
                memset(&want, 0, sizeof want);
                memset(&got, 0, sizeof got);
                uint32_t rw = bound_path(&t, &sc, &x, rate, path, np, &want);
                uint32_t rg = bound_path_memo(m, &t, &sc, &x, rate, path, np, &got);
                /* and without the copy, through a memo of its own */
                struct bound_path scratch;
                const struct bound_path *f =
                    bound_path_find(mf, &t, &sc, &x, rate, path, np, &scratch);
                int found = f->np == want.np && f->alone_hop == want.alone_hop &&
                            f->arrive == want.arrive && f->alone == want.alone;
                for (uint32_t h = 0; found && h < want.np; h++)
                    found = f->head[h] == want.head[h] && f->tail[h] == want.tail[h];
                compared++;
                if ((rw != rg || memcmp(&want, &got, sizeof want) || !found) && !bad++)
                    CHECKF(0, "case %d %s transfer %u: memo differs%s", i, v ? "restore" : "save",
                           k, found ? "" : " (bound_path_find)");
            }
        if (m && mf) {
            hits += m->hits;
            found_hits += mf->hits;
        }
        free(m);
        free(mf);
        arena_release(&a);
    }
    CHECKF(compared > 1000 && hits > compared / 4 && found_hits > compared / 4,
           "%llu compared, %llu memo hits, %llu by bound_path_find", (unsigned long long)compared,
           (unsigned long long)hits, (unsigned long long)found_hits);
}

/* bound_memo_slot(m, s), for the slot s a call found or filled (m->last),
 * gives that call's bound_path later, after many calls of other kinds,
 * until another key fills s again; then NULL. Random fabrics with random
 * port speeds and delays, sizes and caps: some slots are filled again. */
static void bound_memo_slot_keeps_its_kind(void)
{
    static const uint64_t sizes[] = {1, 4096, 70001, 9000, 123457};
    enum { KEEP = 512 };
    struct rng g;
    rng_init(&g, 11, 5);
    uint64_t kept = 0, refilled = 0, bad = 0;
    for (int i = 0; i < 40; i++) {
        struct scenario sc;
        if (random_scenario(&sc, &g, 0) < 0)
            continue;
        struct arena a;
        struct topo t;
        struct workload w;
        struct err e = {{0}};
        arena_init(&a);
        struct bound_memo *m = calloc(1, sizeof *m);
        struct {
            uint32_t slot;
            struct bound_path bp;
        } *rec = calloc(KEEP, sizeof *rec);
        uint32_t nrec = 0;
        int ok = m && rec && topo_build(&t, &sc, &a, &e) == 0 &&
                 workload_build(&w, &sc, &t, &a, &e) == 0;
        static uint64_t delays[] = {1000, 2000, 3000};
        t.delays = delays;
        t.n_delays = 3;
        for (uint32_t p = 0; ok && p < t.n_ports; p++) {
            t.ports[p].delay_id = (uint32_t)rng_below(&g, 3);
            t.ports[p].bps = 100000000000ull * (1 + rng_below(&g, 3));
        }
        for (uint32_t k = 0; ok && k < 6 * w.n; k++) {
            struct transfer x = w.xfers[k % w.n];
            uint32_t path[TOPO_MAX_HOPS];
            uint32_t np = x.bytes ? workload_path(&w, &t, k % w.n, path) : 0;
            if (np < 2)
                continue;
            x.bytes = sizes[rng_below(&g, 5)];
            uint64_t rate = rng_below(&g, 2) ? 0 : 10000000000ull * (1 + rng_below(&g, 3));
            uint32_t r = KEEP > nrec ? nrec++ : (uint32_t)rng_below(&g, KEEP);
            bound_path(&t, &sc, &x, rate, path, np, &rec[r].bp);
            struct bound_path got;
            bound_path_memo(m, &t, &sc, &x, rate, path, np, &got);
            rec[r].slot = m->last;
        }
        for (uint32_t r = 0; r < nrec; r++) {
            const struct bound_path *bp = bound_memo_slot(m, rec[r].slot);
            if (!bp) {
                refilled++;
                bad += !(m->evicted >> rec[r].slot & 1); /* NULL only when filled again */
            } else {
                kept++;
                const struct bound_path *want = &rec[r].bp;
                int same = bp->np == want->np && bp->alone_hop == want->alone_hop &&
                           bp->arrive == want->arrive && bp->alone == want->alone;
                for (uint32_t h = 0; same && h < want->np; h++)
                    same = bp->head[h] == want->head[h] && bp->tail[h] == want->tail[h];
                bad += !same;
            }
        }
        free(rec);
        free(m);
        arena_release(&a);
    }
    CHECKF(bad == 0 && kept > 200 && refilled > 100, "%llu kept, %llu filled again, %llu wrong",
           (unsigned long long)kept, (unsigned long long)refilled, (unsigned long long)bad);
}

/* ckpt_prepare adds each transfer to the bound as the path cache routes it
 * (bound_add), with no pass of its own: the figures must be bound_compute's
 * over the same transfers routed again (no cache), bit for bit: random
 * fabrics (two and three tiers, failed links, multi-homed storage, rails),
 * with replica forwards (storage endpoints that send) on some. */
static void bound_while_routing_is_bound_compute(void)
{
    struct rng g;
    rng_init(&g, 19, 4);
    uint32_t cases = 0, bad = 0, forwards = 0;
    for (int i = 0; i < 120; i++) {
        struct scenario sc;
        struct err e;
        if (random_scenario(&sc, &g, 0) < 0)
            continue;
        if (rng_below(&g, 3) == 0 &&
            (setf(&sc, &e, "storage.protection=replica") < 0 ||
             setf(&sc, &e, "storage.replicas=2") < 0))
            continue;
        struct test_prep p;
        if (test_prepare(&p, &sc) < 0) { /* a refused mix of keys: not this test's */
            test_prep_release(&p);
            continue;
        }
        struct workload routed = p.w;
        routed.path = NULL;
        routed.path_n = NULL;
        struct results *r = calloc(1, sizeof *r);
        struct bound_ps b;
        if (r) {
            bound_compute(r, &p.t, &routed, &p.eff, &b);
            int same = r->bound_s == p.r.bound_s && r->bound_limit == p.r.bound_limit &&
                       r->base_latency_s == p.r.base_latency_s &&
                       r->bound_fsync_s == p.r.bound_fsync_s &&
                       r->bound_meta_s == p.r.bound_meta_s &&
                       r->bound_by_meta == p.r.bound_by_meta &&
                       !memcmp(r->bound_term_s, p.r.bound_term_s, sizeof r->bound_term_s);
            if (!same && !bad++)
                CHECKF(0, "case %d: bound %.15g s (%d) while routing, %.15g s (%d) after", i,
                       p.r.bound_s, (int)p.r.bound_limit, r->bound_s, (int)r->bound_limit);
            cases++;
            for (uint32_t k = 0; k < p.w.n; k++)
                forwards += p.w.xfers[k].src >= p.t.first_storage &&
                            p.w.xfers[k].src < p.t.first_cleaf;
        }
        free(r);
        test_prep_release(&p);
    }
    CHECKF(cases >= 60 && forwards > 0 && !bad, "%u cases (%u forwards), %u differ", cases,
           forwards, bad);
}

/* ckpt_prepare's walk sums what each port is offered as it routes
 * (fluid_load_add): the same loads, to the bit, and round trips as
 * can_congest's own walk, and so the same list of what the fluid figure
 * ignores; random two-tier fabrics, with DCTCP (round trips), ingest
 * buffers, replica forwards, WCMP and spray (the walk off). */
static void fluid_load_while_routing_is_can_congest(void)
{
    struct rng g;
    rng_init(&g, 29, 6);
    uint32_t kept = 0, congest[2] = {0, 0}, tcp = 0, bad = 0, cases = 0;
    static const char *const extra[] = {"", "transport.cc=dctcp", "storage.ingest_buffer=1MB",
                                        "storage.protection=replica storage.replicas=2",
                                        "fabric.load_balancing=wcmp",
                                        "fabric.load_balancing=spray transport.receiver=ooo",
                                        "transport.cc=cubic fabric.link_delay=3us"};
    for (int i = 0; i < 140; i++) {
        struct scenario sc;
        struct err e;
        if (random_scenario(&sc, &g, 0) < 0)
            continue;
        char buf[120];
        const char *x = extra[rng_below(&g, 7)];
        snprintf(buf, sizeof buf, "%s", x);
        int rc = rng_below(&g, 4) ? setf(&sc, &e, "fabric.load_balancing=ecmp") : 0;
        for (char *k = strtok(buf, " "); k; k = strtok(NULL, " "))
            rc |= setf(&sc, &e, "%s", k);
        struct test_prep p;
        if (rc < 0 || test_prepare(&p, &sc) < 0) { /* a refused mix of keys: not this test's */
            test_prep_release(&p);
            continue;
        }
        cases++;
        int on = 0;
        uint32_t ports = fluid_load_mismatches(&p.eff, &p.t, &p.w, &on);
        struct results *r = calloc(1, sizeof *r);
        int same = ports == 0 && p.r.load_known == on;
        if (r && same) {
            /* the list from the walk's verdict against can_congest's */
            fluid_unmodelled(&p.eff, &p.t, &p.w, r);
            fluid_unmodelled(&p.eff, &p.t, &p.w, &p.r);
            same = r->n_unmodelled == p.r.n_unmodelled;
            for (uint32_t k = 0; same && k < r->n_unmodelled; k++)
                same = !strcmp(r->unmodelled[k].key, p.r.unmodelled[k].key) &&
                       !strcmp(r->unmodelled[k].value, p.r.unmodelled[k].value) &&
                       r->unmodelled[k].dir == p.r.unmodelled[k].dir;
        }
        if (!same && !bad++)
            CHECKF(0, "case %d: %u ports differ, walk %s (prepared %d)", i, ports,
                   on ? "on" : "off", p.r.load_known);
        kept += on;
        if (on) {
            congest[p.r.load_congest]++;
            tcp += strstr(x, "transport.cc=") != NULL; /* round trips compared too */
        }
        free(r);
        test_prep_release(&p);
    }
    CHECKF(!bad && kept >= 40 && kept < cases && congest[0] >= 5 && congest[1] >= 5 && tcp >= 5,
           "%u cases, %u walked (%u can congest, %u not, %u TCP), %u differ", cases, kept,
           congest[1], congest[0], tcp, bad);
}

/* The segment table's link figures (one pass over the ports for every
 * segment): each shown segment's element count, capacity and fastest link
 * are those of exactly the ports of its link set, and the back end's bytes
 * every transfer's payload; random fabrics on two and three tiers. */
static void segments_count_their_own_ports(void)
{
    struct rng g;
    rng_init(&g, 23, 5);
    uint32_t cases = 0, bad = 0, three = 0;
    for (int i = 0; i < 60; i++) {
        struct scenario sc;
        if (random_scenario(&sc, &g, 0) < 0)
            continue;
        struct test_prep p;
        if (test_prepare(&p, &sc) < 0) {
            test_prep_release(&p);
            continue;
        }
        segments_compute(&p.r, &p.t, &p.w, &p.eff);
        three += p.t.tiers == 3;
        for (int s = PATH_WRITER_NIC; s <= PATH_STORAGE_NIC; s++) {
            const struct seg_figures *f = &p.r.segs[s];
            if (!f->applies)
                continue;
            uint32_t n = 0;
            double cap = 0, top = 0;
            for (uint32_t q = 0; q < p.t.n_ports; q++)
                if (p.t.ports[q].seg == (enum path_seg)s) {
                    n++;
                    cap += (double)p.t.ports[q].bps;
                    top = (double)p.t.ports[q].bps > top ? (double)p.t.ports[q].bps : top;
                }
            if ((f->elements != n || f->cap_bps != cap || f->elem_bps != top || !n) && !bad++)
                CHECKF(0, "case %d segment %d: %u links %.6g bps (top %.6g), ports say %u %.6g "
                          "(%.6g)", i, s, f->elements, f->cap_bps, f->elem_bps, n, cap, top);
        }
        const struct seg_figures *b = &p.r.segs[PATH_BACKEND];
        double payload = 0;
        for (uint32_t k = 0; k < p.w.n; k++)
            payload += (double)p.w.xfers[k].bytes;
        if (b->applies && b->bytes != payload && !bad++)
            CHECKF(0, "case %d: back end %.17g B, payload %.17g B", i, b->bytes, payload);
        cases++;
        test_prep_release(&p);
    }
    CHECKF(cases >= 30 && three > 0 && !bad, "%u cases (%u three tiers), %u wrong", cases, three,
           bad);
}

/* Phase save estimates the read in both restore modes (recovery_time
 * auto); without model replicas (the simple form) the modes read the same
 * bytes from the same nodes, so the run estimates once: both figures must
 * still be each mode's own estimate, and with a model's replicas (their
 * broadcast) the other mode's differs. */
static void restore_estimate_of_both_modes(void)
{
    for (int model = 0; model < 2; model++) {
        struct scenario sc;
        struct err e = {{0}};
        scenario_defaults(&sc);
        sc.restore.restart_ps = 20000000000000ull; /* 20 s */
        if (model) {
            sc.model.name = MODEL_CUSTOM;
            sc.model.params = 2000000;
            sc.cluster.nodes = 4;
            sc.cluster.gpus_per_node = 4;
            sc.parallelism.tp = 4;
            sc.fabric.hosts_per_leaf = 2;
        }
        CHECK(sc.checkpoint.phase == PHASE_SAVE &&
              sc.failures.recovery_ps == SCENARIO_AUTO_TIME);
        struct results *r = calloc(1, sizeof *r);
        struct test_prep p;
        if (!r || ckpt_run(&sc, r, &e) < 0 || test_prepare(&p, &sc) < 0) {
            CHECKF(0, "%s", e.msg);
            free(r);
            return;
        }
        struct restore_estimate est[2];
        for (int k = 0; k < 2; k++) {
            int mode = k ? restore_other_mode(p.eff.restore.mode) : p.eff.restore.mode;
            CHECK(workload_restore_estimate(&p.w, &p.eff, &p.t, mode, &est[k], &e) == 0);
        }
        const struct restore_figures *f = &r->restore;
        double own = 20 + (double)est[0].ps / 1e12, other = 20 + (double)est[1].ps / 1e12;
        CHECKF(f->estimated && f->recovery_s == own && f->other_recovery_s == other &&
                   f->other_recovery_s > 20 && (model ? other != own : other == own),
               "model %d: recovery %.15g s (estimate %.15g), other mode %.15g s (%.15g)", model,
               f->recovery_s, own, f->other_recovery_s, other);
        results_release(r);
        free(r);
        test_prep_release(&p);
    }
}

SUITE(suite_bound) = {
    {"restore_estimate_of_both_modes", restore_estimate_of_both_modes},
    {"segments_count_their_own_ports", segments_count_their_own_ports},
    {"bound_while_routing_is_bound_compute", bound_while_routing_is_bound_compute},
    {"bound_memo_matches_direct", bound_memo_matches_direct},
    {"bound_memo_slot_keeps_its_kind", bound_memo_slot_keeps_its_kind},
    {"fluid_load_while_routing_is_can_congest", fluid_load_while_routing_is_can_congest},
    {"multihomed_storage_doubles_nic_term", multihomed_storage_doubles_nic_term},
    {"multihomed_storage_shares_backend", multihomed_storage_shares_backend},
    {"bound_is_a_lower_bound", bound_is_a_lower_bound},
    {"bound_terms_past_the_clock_refused", bound_terms_past_the_clock_refused},
    {"bound_node_cap_past_the_clock_named", bound_node_cap_past_the_clock_named},
    {"default_time_limit_past_the_clock", default_time_limit_past_the_clock},
    {NULL, NULL},
};
