/* Tests of the run-end invariants both engines share (src/stats/invariants.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/rng.h"

#include "../src/stats/invariants.h"
#include "harness.h"
#include "support.h"

/* A clean slate after a failed run's leftovers. */
static void inv_begin_clears(void)
{
    struct results r;
    memset(&r, 0, sizeof r);
    results_violate(&r, "left over");
    CHECK(!r.ok);
    invariants_begin(&r);
    CHECK(r.ok && r.violation[0] == '\0');
}

/* Unfinished transfers break the run unless it was interrupted, which
 * r->interrupted records either way. */
static void inv_transfers_interrupted(void)
{
    struct results r;
    memset(&r, 0, sizeof r);
    invariants_begin(&r);
    invariants_transfers(&r, 0, 10, 0);
    CHECK(r.ok && !r.interrupted);
    invariants_transfers(&r, 3, 10, 1);
    CHECKF(r.ok && r.interrupted == 1, "%s", r.violation);
    invariants_transfers(&r, 3, 10, 0);
    CHECKF(!r.ok && r.interrupted == 0 &&
               !strcmp(r.violation, "3 of 10 transfers did not complete"),
           "%s", r.violation);
}

/* Time, the time limit and training's steps: each message as written, in
 * the order called ("; " between). */
static void inv_messages_in_order(void)
{
    struct results r;
    memset(&r, 0, sizeof r);
    invariants_begin(&r);
    invariants_time_monotone(&r, 0);
    invariants_time_limit(&r, 0, 20000000, NULL);
    struct train_clock tc;
    memset(&tc, 0, sizeof tc);
    tc.next_ps = UINT64_MAX;
    invariants_training_steps(&r, &tc, 0, 0);
    CHECKF(r.ok, "%s", r.violation);
    tc.step = 7;
    tc.left = 2;
    invariants_training_steps(&r, &tc, 1, 0); /* interrupted: partial */
    invariants_training_steps(&r, &tc, 0, 1); /* the time limit says it */
    CHECKF(r.ok, "%s", r.violation);
    invariants_time_monotone(&r, 1);
    invariants_time_limit(&r, 1, 20000000, NULL);
    invariants_training_steps(&r, &tc, 0, 0);
    CHECKF(!r.ok && !strcmp(r.violation,
                            "time went backwards; stopped at the time limit (2e-05 s simulated; "
                            "sim.time_limit) with transfers unfinished: a pause storm, a stuck "
                            "receiver or a deadlock; training stopped at step 7 of its run (time "
                            "limit or a stuck step)"),
           "%s", r.violation);
}

/* The same broken invariant reads the same from either engine: a run cut
 * by sim.time_limit. */
static void inv_engines_say_the_same(void)
{
    char msg[2][512];
    static const char *const engines[] = {"packet", "fluid"};
    for (int k = 0; k < 2; k++) {
        struct scenario sc;
        test_small_clos(&sc);
        test_set(&sc, "engine=%s", engines[k]);
        test_set(&sc, "sim.time_limit=20us");
        struct results r;
        msg[k][0] = '\0';
        if (test_run(&sc, &r) != 0) {
            CHECKF(0, "%s did not run", engines[k]);
            continue;
        }
        const char *ran = names_of(&names_engine, r.engine);
        CHECKF(!r.ok && !strcmp(ran, engines[k]), "%s: %s", ran, r.violation);
        snprintf(msg[k], sizeof msg[k], "%s", r.violation);
        results_release(&r);
    }
    const char *lim = "stopped at the time limit (2e-05 s simulated; sim.time_limit) with "
                      "transfers still delivering: ";
    const char *why = "; a longer sim.time_limit lets it finish";
    const char *undone = "of 16 transfers did not complete";
    for (int k = 0; k < 2; k++)
        CHECKF(strstr(msg[k], lim) && strstr(msg[k], why) && strstr(msg[k], undone), "%s: %s",
               engines[k], msg[k]);
}

/* A stop at the time limit says whether the transfers were still moving
 * and at what pace against the bound's: cut short, crawling (a transport
 * far under its links), or stuck (nothing sent in the run's last tenth). */
static void inv_time_limit_slow_or_stuck(void)
{
    static const struct {
        uint64_t got, last_ps;
        const char *says;
    } cases[] = {
        {900, 10000000, "90% of the data at 0.72 Gbps, 90% of the bound's pace; lowest sending "
                        "rate 0.05 Gbps: the limit is shorter than the write"},
        {10, 9500000, "1% of the data at 0.008 Gbps, 1% of the bound's pace; lowest sending "
                      "rate 0.05 Gbps: slower than the fabric allows (a transport held under its "
                      "links"},
        {10, 8000000, "with transfers unfinished, no packet sent since 8e-06 s: a pause storm, a "
                      "stuck receiver or a deadlock"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct results r;
        memset(&r, 0, sizeof r);
        invariants_begin(&r);
        r.bound_s = 1e-5; /* 1000 B in 10 us: 0.8 Gbps */
        r.min_rate_bps = 5e7;
        struct stop_progress p = {cases[i].got, 1000, cases[i].last_ps};
        invariants_time_limit(&r, 1, 10000000, &p);
        CHECKF(!r.ok && strstr(r.violation, cases[i].says), "case %zu: %s", i, r.violation);
    }
}

/* A finished run below its bound is violated; at it, or unfinished, not. */
static void inv_bound_is_a_floor(void)
{
    struct results r;
    memset(&r, 0, sizeof r);
    invariants_begin(&r);
    r.finished = 1;
    r.bound_s = 1.0;
    r.completion_s = 1.0;
    invariants_bound(&r, "the checkpoint's");
    CHECKF(r.ok, "%s", r.violation);
    r.finished = 0;
    r.completion_s = 0.5;
    invariants_bound(&r, "the checkpoint's");
    CHECKF(r.ok, "%s", r.violation);
    r.finished = 1;
    r.completion_s = 1.0 - 1e-6;
    invariants_bound(&r, "the restore's");
    CHECKF(!r.ok && strstr(r.violation, "the restore's completion 0.999999 s is below its lower "
                                        "bound 1 s"),
           "%s", r.violation);
}

/* The writers' percentiles by selection (results_percentiles) are the
 * sorted array's nearest ranks (results_percentile): arrays of every size
 * to 300, values from ranges so narrow that most repeat, or distinct, in
 * random, ascending and descending order; ranks from the largest down,
 * one asked twice. */
static void percentiles_by_selection_match_sort(void)
{
    static const double q[] = {1.0, 0.999, 0.99, 0.99, 0.9, 0.5, 0.25, 0.01, 0.0};
    enum { NQ = sizeof q / sizeof q[0], MAXN = 300 };
    struct rng g;
    rng_init(&g, 11, 1);
    double a[MAXN], b[MAXN], out[NQ];
    uint32_t cases = 0, bad = 0;
    for (uint32_t n = 0; n <= MAXN; n++)
        for (int shape = 0; shape < 4; shape++) {
            uint64_t span = shape == 0 ? 3 : shape == 1 ? 40 : 1u << 30;
            for (uint32_t i = 0; i < n; i++)
                a[i] = (double)rng_below(&g, span) * 0.125;
            if (shape == 3) /* sorted ascending, then reversed on odd n */
                for (uint32_t i = 0; i < n; i++)
                    a[i] = n % 2 ? (double)(n - i) : (double)i;
            memcpy(b, a, n * sizeof *a);
            results_percentiles(b, n, q, out, NQ);
            for (uint32_t j = 0; j < NQ; j++) {
                memcpy(b, a, n * sizeof *a);
                double want = results_percentile(b, n, q[j]);
                if (out[j] != want && !bad++)
                    CHECKF(0, "n %u shape %d q %g: %.17g, sorted %.17g", n, shape, q[j],
                           out[j], want);
            }
            cases++;
        }
    CHECKF(cases == 4 * (MAXN + 1) && !bad, "%u cases, %u wrong", cases, bad);
}

SUITE(suite_invariants) = {
    {"inv_begin_clears", inv_begin_clears},
    {"inv_transfers_interrupted", inv_transfers_interrupted},
    {"inv_messages_in_order", inv_messages_in_order},
    {"inv_engines_say_the_same", inv_engines_say_the_same},
    {"inv_bound_is_a_floor", inv_bound_is_a_floor},
    {"inv_time_limit_slow_or_stuck", inv_time_limit_slow_or_stuck},
    {"percentiles_by_selection_match_sort", percentiles_by_selection_match_sort},
    {NULL, NULL},
};
