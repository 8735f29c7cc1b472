/* storage.protocol's request model (docs/storage.md, Requests): requests
 * counted and timed, the rank's slots gating its writes, the latency-bound
 * floor, rank 0 against all ranks, and the keys' refusals. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "support.h"

#define G400 UINT64_C(400000000000)

/* `writers` writers of `bytes` each into one storage node, 400G all over;
 * requests of `size`, `inflight` per rank, `lat` each. */
static void req_case(struct scenario *sc, unsigned writers, const char *bytes, const char *size,
                     unsigned inflight, const char *lat)
{
    scenario_defaults(sc);
    sc->cluster.nodes = writers;
    sc->fabric.hosts_per_leaf = writers;
    sc->storage.nodes = 1;
    sc->fabric.storage_per_leaf = 1;
    sc->fabric.spines = 2;
    sc->cluster.nic_bps = sc->storage.nic_bps = sc->fabric.uplink_bps = G400;
    test_set(sc, "workload.bytes_per_writer=%s", bytes);
    test_set(sc, "storage.protocol=s3");
    test_set(sc, "storage.request_size=%s", size);
    test_set(sc, "storage.requests_in_flight=%u", inflight);
    test_set(sc, "storage.request_latency=%s", lat);
}

/* One writer, 4 MiB as 1 MiB requests one at a time, 1 ms each: 4
 * requests, each its 1 MiB at 400G (~22 us) plus the path and the 1 ms;
 * all four alike, so the largest is the mean. The write takes the three
 * latencies between requests, the last one's and the commit's: >= 5 ms. */
static void request_count_and_latency_exact(void)
{
    struct scenario sc;
    struct results r;
    req_case(&sc, 1, "4MiB", "1MiB", 1, "1ms");
    sc.engine = ENGINE_PACKET;
    if (test_run(&sc, &r))
        return;
    CHECKF(r.ok && r.finished, "%s", r.violation);
    CHECK(r.requests.on && !r.requests.estimated);
    CHECKF(r.requests.count == 4, "%llu requests", (unsigned long long)r.requests.count);
    CHECKF(r.requests.mean_s > 1e-3 && r.requests.mean_s < 1e-3 + 40e-6, "mean %.9g",
           r.requests.mean_s);
    CHECKF(fabs(r.requests.max_s - r.requests.mean_s) < 1e-9, "max %.12g mean %.12g",
           r.requests.max_s, r.requests.mean_s);
    CHECKF(r.completion_s >= 5e-3 && r.completion_s < 5e-3 + 4 * 40e-6, "completion %.9g",
           r.completion_s);
    CHECKF(r.bound_s >= 2e-3, "bound %.9g has the last request's latency and the commit's",
           r.bound_s);
    results_release(&r);
    /* the fluid engine counts the same requests */
    sc.engine = ENGINE_FLUID;
    if (test_run(&sc, &r))
        return;
    CHECK(r.requests.on && r.requests.estimated);
    CHECKF(r.requests.count == 4, "fluid: %llu requests", (unsigned long long)r.requests.count);
    CHECKF(r.completion_s >= 5e-3 && r.completion_s < 5e-3 + 4 * 40e-6, "fluid: %.9g",
           r.completion_s);
    results_release(&r);
}

/* Latency-bound: 8 writers x 64 requests of 64 KiB, 4 in flight per rank,
 * 100 us each: a rank needs 16 rounds, so at least 64 / 4 x 100 us =
 * 1.6 ms, where the bytes alone (32 MiB at 400G) take 0.7 ms; both
 * engines, and within 10% of each other. */
static void request_latency_bound(void)
{
    double t[2] = {0, 0};
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++) {
        struct scenario sc;
        struct results r;
        req_case(&sc, 8, "4MiB", "64KiB", 4, "100us");
        sc.engine = eng;
        if (test_run(&sc, &r))
            return;
        CHECKF(r.ok && r.finished, "engine %d: %s", eng, r.violation);
        CHECKF(r.requests.count == 8 * 64, "engine %d: %llu", eng,
               (unsigned long long)r.requests.count);
        CHECKF(r.completion_s >= 64 / 4 * 100e-6, "engine %d: %.9g s under 1.6 ms", eng,
               r.completion_s);
        t[eng - ENGINE_PACKET] = r.completion_s;
        if (eng == ENGINE_PACKET)
            CHECKF(r.requests.mean_s >= 100e-6, "mean %.9g", r.requests.mean_s);
        results_release(&r);
    }
    CHECKF(fabs(t[1] - t[0]) <= 0.10 * t[0], "packet %.9g fluid %.9g", t[0], t[1]);
}

/* More slots than requests: the write is the bytes' time plus the tail,
 * the same as without the model plus 2 latencies (packet engine). */
static void request_slots_unused_add_tail_only(void)
{
    struct scenario sc;
    struct results r0, r1;
    req_case(&sc, 4, "4MiB", "1MiB", 64, "10us");
    test_set(&sc, "storage.protocol=none");
    sc.engine = ENGINE_PACKET;
    if (test_run(&sc, &r0))
        return;
    CHECK(!r0.requests.on);
    test_set(&sc, "storage.protocol=rdma");
    if (test_run(&sc, &r1)) {
        results_release(&r0);
        return;
    }
    CHECKF(r1.requests.count == 16, "%llu", (unsigned long long)r1.requests.count);
    double want = r0.completion_s + 20e-6;
    CHECKF(fabs(r1.completion_s - want) < 0.02 * want, "with %.9g, without %.9g + 20 us",
           r1.completion_s, r0.completion_s);
    results_release(&r0);
    results_release(&r1);
}

/* MLPerf's save time is rank 0's: never more than every rank's. */
static void request_rank0_not_after_all(void)
{
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    test_set(&sc, "checkpoint.mlperf=llama3-8b");
    test_set(&sc, "cluster.nodes=1");
    test_set(&sc, "cluster.gpus_per_node=8");
    test_set(&sc, "storage.nodes=3");
    test_set(&sc, "storage.protocol=s3");
    sc.engine = ENGINE_FLUID;
    if (test_run(&sc, &r))
        return;
    CHECKF(r.ok && r.finished, "%s", r.violation);
    CHECK(r.mlperf.on && r.requests.on);
    CHECKF(r.mlperf.save_rank0_s > 0 && r.mlperf.save_rank0_s <= r.mlperf.save_all_s,
           "rank 0 %.9g all %.9g", r.mlperf.save_rank0_s, r.mlperf.save_all_s);
    results_release(&r);
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

/* The protocol's defaults fill what is unset (s3: 16 MiB parts, 16 in
 * flight, 100 ms), and bad values are refused by key. */
static void request_defaults_and_refusals(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    test_set(&sc, "storage.protocol=s3");
    CHECKF(scenario_resolve(&sc, &e) == 0 && scenario_validate(&sc, &e) == 0, "%s", e.msg);
    CHECK(sc.storage.request_size == UINT64_C(16) << 20);
    CHECK(sc.storage.req_inflight == 16);
    CHECK(sc.storage.req_latency_ps == UINT64_C(100000000000));
    refused((const char *const[]){"storage.protocol=nfs", "storage.request_size=1KB", NULL},
            "storage.request_size: 1000 B is less than a packet's payload");
    refused((const char *const[]){"storage.protocol=nfs", "storage.requests_in_flight=0", NULL},
            "storage.requests_in_flight: must be at least 1");
    refused((const char *const[]){"storage.protocol=rdma", "sim.threads=2", NULL},
            "storage.protocol: runs on one thread");
}

/* A rank's file striped over 2 storage nodes, one of them stuck, on a
 * lossy class with one timeout allowed: the transfer to the stuck node
 * fails, and the other one (same rank, same slots) goes on (done at
 * 90 us). Before, the failed transfer kept its request slot: the other
 * never sent again and the run ended with 0 of 2 transfers done. */
static void request_failed_transfer_frees_slots(void)
{
    struct scenario sc;
    struct results r;
    req_case(&sc, 1, "4MiB", "1MiB", 1, "10us");
    test_set(&sc, "storage.nodes=2");
    test_set(&sc, "fabric.storage_per_leaf=2");
    test_set(&sc, "storage.stripe_count=2");
    test_set(&sc, "storage.stuck_nodes=1");
    test_set(&sc, "storage.ingest_buffer=256KiB");
    test_set(&sc, "fabric.pfc.enabled=false");
    test_set(&sc, "transport.receiver=gbn");
    test_set(&sc, "transport.ack_timeout=4"); /* 65.5 us */
    test_set(&sc, "transport.retry_count=0");
    test_set(&sc, "sim.time_limit=1s");
    sc.engine = ENGINE_PACKET;
    if (test_run(&sc, &r))
        return;
    CHECKF(r.qp_errors == 1, "%llu transfers failed", (unsigned long long)r.qp_errors);
    CHECKF(r.flows_done == 1, "%u transfers done", r.flows_done);
    CHECKF(strstr(r.violation, "time limit") == NULL, "%s", r.violation);
    CHECKF(r.completion_s < 10e-3, "completion %.9g", r.completion_s);
    results_release(&r);
}

SUITE(suite_request) = {
    {"request_count_and_latency_exact", request_count_and_latency_exact},
    {"request_latency_bound", request_latency_bound},
    {"request_slots_unused_add_tail_only", request_slots_unused_add_tail_only},
    {"request_rank0_not_after_all", request_rank0_not_after_all},
    {"request_defaults_and_refusals", request_defaults_and_refusals},
    {"request_failed_transfer_frees_slots", request_failed_transfer_frees_slots},
    {0, 0},
};
