/* The checkpoint-policy table (src/work/policy.h): its names are the
 * parser's, and workload_build does what each row says. */
#include <stdlib.h>
#include <string.h>

#include "../src/core/arena.h"
#include "../src/core/units.h"
#include "../src/scenario/scenario.h"
#include "../src/topo/topo.h"
#include "../src/work/policy.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

/* Every row's name selects that row through the parser, and the parser
 * knows no other: its list of choices is the table's, in order. */
static void policy_names_are_the_parsers(void)
{
    uint32_t n = policy_count();
    CHECK(n >= 6);
    char want[512] = "checkpoint.policy: expected one of ";
    for (uint32_t i = 0; i < n; i++) {
        const struct policy_row *row = policy_get((int)i);
        struct scenario sc;
        struct err e = {""};
        char set[96];
        scenario_defaults(&sc);
        snprintf(set, sizeof set, "checkpoint.policy=%s", row->name);
        CHECKF(scenario_set(&sc, set, &e) == 0, "%s: %s", set, e.msg);
        CHECKF(sc.checkpoint.policy == (int)i, "%s parses to %d", set, sc.checkpoint.policy);
        CHECK(policy_find(row->name) == row);
        strcat(want, row->name);
        strcat(want, i + 1 < n ? ", " : ", got \"nope\"");
    }
    CHECK(policy_find("nope") == NULL);
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "checkpoint.policy=nope", &e) != 0);
    CHECKF(strstr(e.msg, want) != NULL, "parser says %s, table says %s", e.msg, want);
}

struct keyset {
    const char *names[1024];
    uint32_t n;
};

static void add_key(void *ud, const char *key, const char *type, const char *def,
                    const char *min, const char *max, const char *doc)
{
    (void)type, (void)def, (void)min, (void)max, (void)doc;
    struct keyset *k = ud;
    if (k->n < 1024)
        k->names[k->n++] = key;
}

static int is_key(const struct keyset *k, const char *s, size_t len)
{
    for (uint32_t i = 0; i < k->n; i++)
        if (strlen(k->names[i]) == len && !strncmp(k->names[i], s, len))
            return 1;
    return 0;
}

/* The keys a row blames are scenario keys; a row's check refuses the
 * defaults with a message that starts with a key and names the policy,
 * and a row without one builds them. */
static void policy_rows_name_keys(void)
{
    struct keyset *k = calloc(1, sizeof *k);
    CHECK(k != NULL);
    if (!k)
        return;
    scenario_keys(add_key, k);
    for (uint32_t i = 0; i < policy_count(); i++) {
        const struct policy_row *row = policy_get((int)i);
        const char *keys[] = {row->start_key, row->cap_key, row->node_cap_key};
        for (int j = 0; j < 3; j++)
            CHECKF(!keys[j] || is_key(k, keys[j], strlen(keys[j])), "%s: %s", row->name,
                   keys[j]);
        CHECKF(!row->node_cap_key == !row->node_cap, "%s", row->name);
        CHECKF(!row->cap_key == !row->writer_cap, "%s", row->name);
        struct scenario sc;
        struct err e = {""};
        struct test_built b;
        scenario_defaults(&sc);
        sc.cluster.nodes = 16;
        sc.checkpoint.policy = (int)i;
        int rc = test_build(&b, &sc, &e);
        arena_release(&b.a);
        if (!row->check) {
            CHECKF(rc == 0, "%s: %s", row->name, e.msg);
            continue;
        }
        const char *colon = strchr(e.msg, ':');
        CHECKF(rc < 0 && colon && is_key(k, e.msg, (size_t)(colon - e.msg))
                   && strstr(e.msg, row->name),
               "%s: %s", row->name, e.msg);
    }
    free(k);
}

/* A policy value past the table (a library caller's) is refused with the
 * key, not read past the table's end. */
static void policy_out_of_range(void)
{
    int bad[] = {(int)policy_count(), -1};
    for (int j = 0; j < 2; j++) {
        struct scenario sc;
        struct err e = {""};
        struct test_built b;
        scenario_defaults(&sc);
        sc.cluster.nodes = 16;
        sc.checkpoint.policy = bad[j];
        int rc = test_build(&b, &sc, &e);
        arena_release(&b.a);
        CHECKF(rc < 0 && !strncmp(e.msg, "checkpoint.policy: ", 19), "%d: %s", bad[j], e.msg);
    }
}

/* Each row's hooks, end to end: 16 writers with every policy's inputs
 * set, the report's policy and stall, the starts and the rate caps. */
static void policy_rows_honoured(void)
{
    for (uint32_t i = 0; i < policy_count(); i++) {
        const struct policy_row *row = policy_get((int)i);
        struct scenario sc;
        struct err e = {""};
        struct test_built b;
        scenario_defaults(&sc);
        sc.cluster.nodes = 16;
        sc.cluster.d2h_bps = 100000000000ull;       /* 100Gbps */
        sc.cluster.local_nvme_bps = 50000000000ull; /* 50Gbps */
        sc.checkpoint.rate_limit_bps = 40000000000ull;
        sc.checkpoint.trickle_bps = 30000000000ull;
        sc.checkpoint.offset_ps = 5000000; /* 5 us */
        sc.checkpoint.policy = (int)i;
        if (test_build(&b, &sc, &e) < 0) {
            CHECKF(0, "%s: %s", row->name, e.msg);
            arena_release(&b.a);
            continue;
        }
        const struct workload *w = &b.w;
        CHECK(w->sum.policy == row->name);
        CHECK(w->sum.stall_measured == !row->node_ready);
        uint64_t lo = UINT64_MAX, hi = 0, cap_max = 0, cap_min = UINT64_MAX;
        for (uint32_t x = 0; x < w->n; x++) {
            uint64_t s = workload_start(w, x), c = workload_rate(w, x);
            lo = s < lo ? s : lo;
            hi = s > hi ? s : hi;
            cap_max = c > cap_max ? c : cap_max;
            cap_min = c < cap_min ? c : cap_min;
        }
        if (row->node_ready) {
            /* every node alike: all drain once staged, the stall */
            uint64_t staged = units_ser_ps(sc.workload.bytes_per_writer
                                               / w->sum.gpus_per_rank, sc.cluster.d2h_bps);
            uint64_t want = row->node_ready(&sc, staged, sc.workload.bytes_per_writer);
            CHECKF(w->sum.stall_ps == want && want > 0, "%s: stall %llu, want %llu",
                   row->name, (unsigned long long)w->sum.stall_ps, (unsigned long long)want);
            CHECKF(lo == want && hi == want, "%s: starts %llu..%llu", row->name,
                   (unsigned long long)lo, (unsigned long long)hi);
        } else {
            CHECK(w->sum.stall_ps == 0);
        }
        if (row->start) /* spread over at most the offset's groups or range */
            CHECKF(hi > lo && hi <= 4 * sc.checkpoint.offset_ps, "%s: starts %llu..%llu",
                   row->name, (unsigned long long)lo, (unsigned long long)hi);
        else if (!row->node_ready)
            CHECKF(hi == 0, "%s: starts up to %llu", row->name, (unsigned long long)hi);
        /* caps: the row's, else the device-to-host copy's unless staged */
        uint64_t d2h = sc.cluster.d2h_bps * w->sum.gpus_per_rank;
        if (row->writer_cap)
            CHECKF(cap_min > 0 && cap_max <= row->writer_cap(&sc), "%s: caps %llu..%llu",
                   row->name, (unsigned long long)cap_min, (unsigned long long)cap_max);
        else if (row->node_cap)
            CHECKF(cap_min > 0 && cap_max <= row->node_cap(&sc), "%s: caps %llu..%llu",
                   row->name, (unsigned long long)cap_min, (unsigned long long)cap_max);
        else if (row->node_ready)
            CHECKF(cap_max == 0, "%s: a staged drain capped at %llu", row->name,
                   (unsigned long long)cap_max);
        else
            CHECKF(cap_min > 0 && cap_max <= d2h, "%s: caps %llu..%llu", row->name,
                   (unsigned long long)cap_min, (unsigned long long)cap_max);
        arena_release(&b.a);
    }
}

/* The two-phase hooks: async drains after the copy to host memory,
 * hierarchical after that or the write to local NVMe, whichever is later. */
static void policy_node_ready(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    sc.cluster.local_nvme_bps = 8000000000ull; /* 1 GB/s */
    const struct policy_row *as = policy_get(POLICY_ASYNC), *hi = policy_get(POLICY_HIERARCHICAL);
    CHECK(as->node_ready && as->node_ready(&sc, 123, 1000000000) == 123);
    CHECK(hi->node_ready(&sc, 123, 1000000) == units_ser_ps(1000000, 8000000000ull));
    CHECK(hi->node_ready(&sc, UINT64_C(5000000000000), 1000) == UINT64_C(5000000000000));
    CHECK(!policy_get(POLICY_SYNC)->node_ready && !policy_get(POLICY_JITTER)->node_ready);
}

SUITE(suite_policy) = {
    {"policy_names_are_the_parsers", policy_names_are_the_parsers},
    {"policy_rows_name_keys", policy_rows_name_keys},
    {"policy_rows_honoured", policy_rows_honoured},
    {"policy_node_ready", policy_node_ready},
    {"policy_out_of_range", policy_out_of_range},
    {NULL, NULL},
};
