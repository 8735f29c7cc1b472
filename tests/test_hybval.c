/* engine: auto's choice of hybrid (src/api/estimate.c): the scenario-level
 * reasons hybrid cannot fast-forward are the run's, and auto picks
 * packet, hybrid or fluid by the packet engine's cost and what fluid ignores. */
#include <stdio.h>
#include <string.h>

#include "../src/api/api.h"
#include "../src/api/ckpt.h"
#include "harness.h"
#include "support.h"

/* 4 writers of 1 MB into one storage node: a short incast */
static void small(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=4");
    test_set(sc, "storage.nodes=1");
    test_set(sc, "fabric.buffer=8MB");
    test_set(sc, "workload.bytes_per_writer=1MB");
}

/* Each setting hybrid cannot carry over a jump, and none: the scenario's
 * reason (scenario_hybrid_blocked, what auto decides by) is the one the
 * run reports, word for word, and the built net agrees (the run says
 * "internal: ..." where it holds state the scenario's reasons missed). */
static void hybval_blocked_matches_run(void)
{
    static const struct {
        const char *sets[7];
        const char *why; /* byte for byte: goldens and engine_reason carry it */
    } cases[] = {
        {{NULL}, NULL},
        {{"transport.cc=dcqcn", NULL}, NULL},
        {{"transport.cc=hpcc", NULL}, NULL},
        {{"transport.cc=nscc", NULL}, NULL},
        {{"transport.cc=dctcp", NULL}, NULL},
        /* every row carries loss recovery (until the run's first drop) */
        {{"fabric.pfc.enabled=false", NULL}, NULL},
        {{"transport.cc=dcqcn", "fabric.pfc.enabled=false", NULL}, NULL},
        {{"transport.cc=cubic", "fabric.pfc.enabled=false", NULL}, NULL},
        {{"storage.max_outstanding=4", NULL}, "storage.max_outstanding sets a request window"},
        {{"fabric.pfc.watchdog=true", NULL}, "the PFC watchdog times pauses"},
        {{"storage.cache_size=1MB", "storage.host_rate=100Gbps", NULL},
         "a storage write cache fills over the run"},
        {{"training.traffic=collectives", "training.grad_bytes=256KB",
          "training.step_time=200us", "fabric.pfc.priorities=3,4", NULL},
         "training traffic shares the fabric"},
        {{"transport.protocol=uec", "transport.cc=none", "transport.receiver=uec",
          "transport.uec.lb=reps", "fabric.trim.enabled=false", "fabric.pfc.enabled=true", NULL},
         "out-of-order receivers hold PSN rings"},
        {{"fabric.load_balancing=flowlet", NULL},
         "fabric.load_balancing reorders packets and go-back-N resends past a gap"},
        {{"fabric.load_balancing=spray", "transport.receiver=ooo", NULL}, NULL},
        /* a window transport over out-of-order receivers: their PSN rings
         * move with a jump (the run said "internal: ..." before) */
        {{"transport.cc=swift", "fabric.load_balancing=spray", "transport.receiver=ooo", NULL},
         NULL},
        {{"transport.protocol=uec", "transport.cc=nscc", "transport.receiver=uec",
          "fabric.trim.enabled=false", "fabric.pfc.enabled=true", NULL},
         NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct scenario sc;
        struct results r;
        small(&sc);
        for (int k = 0; k < 7 && cases[i].sets[k]; k++)
            test_set(&sc, "%s", cases[i].sets[k]);
        sc.engine = ENGINE_HYBRID;
        struct scenario eff = sc; /* auto decides on the resolved scenario */
        struct err e = {0};
        CHECKF(scenario_resolve(&eff, &e) == 0, "case %zu: %s", i, e.msg);
        const char *want = scenario_hybrid_blocked(&eff);
        CHECKF(!want == !cases[i].why && (!want || !strcmp(want, cases[i].why)),
               "case %zu: \"%s\"", i, want ? want : "NULL");
        if (test_run(&sc, &r) != 0) {
            CHECKF(0, "case %zu: the run failed", i);
            continue;
        }
        CHECKF(r.engine == ENGINE_HYBRID && r.hybrid.on, "case %zu", i);
        if (want)
            CHECKF(strstr(r.hybrid.why, want) != NULL, "case %zu (%s): run says \"%s\"", i,
                   cases[i].sets[0], r.hybrid.why);
        else
            CHECKF(!r.hybrid.why[0], "case %zu (%s): run says \"%s\", auto nothing", i,
                   cases[i].sets[0] ? cases[i].sets[0] : "none", r.hybrid.why);
        results_release(&r);
    }
    /* RCCC: validation refuses hybrid, so auto never picks it */
    struct scenario sc;
    small(&sc);
    test_set(&sc, "transport.protocol=uec");
    test_set(&sc, "transport.receiver=uec");
    test_set(&sc, "transport.uec.rccc=true");
    const char *why = scenario_hybrid_blocked(&sc);
    CHECKF(why && !strcmp(why, "transport.uec.rccc: hybrid does not carry receiver credits"),
           "%s", why ? why : "NULL");
}

static int describe_engine(struct scenario *sc, struct ckpt_description *d)
{
    struct err e = {0};
    sc->engine = ENGINE_AUTO;
    int rc = ckpt_describe(sc, d, &e);
    CHECKF(rc == 0, "%s", e.msg);
    return rc == 0 ? d->engine : -1;
}

/* The three picks, by size: packet under CKPT_AUTO_PACKET_S, hybrid past
 * it where fluid ignores the pauses, fluid past CKPT_AUTO_HYBRID_S or where
 * hybrid would not jump (the PFC watchdog) or fluid ignores nothing. */
static void hybval_auto_picks_by_cost_and_effects(void)
{
    struct scenario sc;
    struct ckpt_description d;
    small(&sc);
    CHECK(describe_engine(&sc, &d) == ENGINE_PACKET);
    /* 4 x 20 GB: ~2e7 packets, 1.6e8 events: 8-60 s of packet engine */
    test_set(&sc, "workload.bytes_per_writer=20GB");
    CHECKF(describe_engine(&sc, &d) == ENGINE_HYBRID, "%s", d.r.engine_reason);
    CHECKF(strstr(d.r.engine_reason, "fabric.pfc.enabled=true") &&
           strstr(d.r.engine_reason, "so hybrid: ~1.6e+08 events <= "),
           "%s", d.r.engine_reason);
    /* DCQCN jumps too */
    test_set(&sc, "transport.cc=dcqcn");
    CHECKF(describe_engine(&sc, &d) == ENGINE_HYBRID, "%s", d.r.engine_reason);
    test_set(&sc, "transport.cc=none");
    /* lossy: every transport's jump row carries loss recovery, and fluid
     * ignores the drops */
    test_set(&sc, "fabric.pfc.enabled=false");
    CHECKF(describe_engine(&sc, &d) == ENGINE_HYBRID, "%s", d.r.engine_reason);
    CHECKF(strstr(d.r.engine_reason, "tail drops") && strstr(d.r.engine_reason, "so hybrid: "),
           "%s", d.r.engine_reason);
    test_set(&sc, "fabric.pfc.enabled=true");
    /* 4 x 200 GB: 1.6e9 events, past the packet engine's limit */
    test_set(&sc, "workload.bytes_per_writer=200GB");
    CHECKF(describe_engine(&sc, &d) == ENGINE_FLUID, "%s", d.r.engine_reason);
    char over[48];
    snprintf(over, sizeof over, "not hybrid: ~1.6e+09 events > %.2g", CKPT_PACKET_EVENT_LIMIT);
    CHECKF(strstr(d.r.engine_reason, over), "%s", d.r.engine_reason);
    /* the 8-GPU MLPerf save: one node's NIC is the limit, no queue builds,
     * fluid ignores nothing and runs */
    struct err e = {0};
    scenario_defaults(&sc);
    CHECKF(scenario_load_file(&sc, "scenarios/mlperf-llama3-8b.yaml", &e) == 0, "%s", e.msg);
    CHECKF(describe_engine(&sc, &d) == ENGINE_FLUID && d.r.n_unmodelled == 0, "%s",
           d.r.engine_reason);
    CHECKF(!strstr(d.r.engine_reason, "hybrid"), "%s", d.r.engine_reason);
}

/* engine: hybrid past the packet engine's event limit: refused up front,
 * saying it costs the packet engine's events less what it skips, or why it
 * would skip nothing; --force runs it (cli.sh). */
static void hybval_refusal_says_hybrid(void)
{
    struct scenario sc;
    struct results r;
    struct err e = {{0}};
    small(&sc);
    test_set(&sc, "workload.bytes_per_writer=200GB"); /* ~1.6e9 events */
    sc.engine = ENGINE_HYBRID;
    CHECK(ckpt_run(&sc, &r, &e) < 0);
    CHECKF(strstr(e.msg, "engine: hybrid would take the packet engine's events less the steady "
                         "states it skips (none to 99% of the time on the runs measured), up "
                         "to ~1.56e+09 events (limit 1e9)") &&
           strstr(e.msg, "use --engine fluid, or --force (sim.force) to run it anyway"),
           "%s", e.msg);
    test_set(&sc, "fabric.pfc.watchdog=true");
    CHECK(ckpt_run(&sc, &r, &e) < 0);
    CHECKF(strstr(e.msg, "engine: hybrid would not fast-forward (the PFC watchdog times "
                         "pauses): as the packet engine, it would take ~1.56e+09 events"),
           "%s", e.msg);
    /* the packet engine's own words stay */
    sc.engine = ENGINE_PACKET;
    CHECK(ckpt_run(&sc, &r, &e) < 0);
    CHECKF(strstr(e.msg, "engine: the packet engine would take ~1.56e+09 events (limit 1e9)"),
           "%s", e.msg);
}

SUITE(suite_hybval) = {
    {"hybval_blocked_matches_run", hybval_blocked_matches_run},
    {"hybval_auto_picks_by_cost_and_effects", hybval_auto_picks_by_cost_and_effects},
    {"hybval_refusal_says_hybrid", hybval_refusal_says_hybrid},
    {NULL, NULL},
};
