/* Sizing, what the policy costs: the durability lag of the two-phase
 * policies (async, hierarchical) in the closed form and the Monte Carlo
 * model, and in a run's cost figures. */
#include <math.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/cost/cost.h"
#include "harness.h"

#define H 3600.0
#define DAY 86400.0

/* Frequent failures (job MTBF 1 h), a 60 s stall, a 1200 s drain: async
 * loses one more interval in 1200 of every M seconds after a checkpoint,
 * so its goodput falls below sync's at the same stall, by the factor
 * e^(-lag/M) of the closed form, and the Monte Carlo model agrees. */
static void size2_durability_lag_monte_carlo(void)
{
    const double tau = 1500, stall = 60, lag = 1200, M = 1 * H, R = 300;
    struct mc_result sync, async, plain;
    cost_monte_carlo_lag(&sync, tau, stall, 0, M, R, 2000 * DAY, UINT64_C(100000000), 3);
    cost_monte_carlo_lag(&async, tau, stall, lag, M, R, 2000 * DAY, UINT64_C(100000000), 3);
    double g_sync = cost_goodput(tau, stall, M, R);
    double g_async = cost_goodput_lag(tau, stall, lag, M, R);
    CHECKF(fabs(g_async / g_sync - exp(-lag / M)) < 1e-12, "closed form %.6f / %.6f", g_async,
           g_sync);
    CHECK(sync.failures > 40000 && async.failures > 40000);
    CHECKF(fabs(sync.goodput / g_sync - 1) < 0.01, "sync: MC %.5f, closed form %.5f",
           sync.goodput, g_sync);
    CHECKF(fabs(async.goodput / g_async - 1) < 0.01, "async: MC %.5f, closed form %.5f",
           async.goodput, g_async);
    /* the difference is far outside the noise: 1 - e^(-1/3) = 28% */
    CHECKF(async.goodput < 0.8 * sync.goodput, "async %.5f, sync %.5f", async.goodput,
           sync.goodput);
    /* lag 0 is the model without it, draw for draw */
    cost_monte_carlo(&plain, tau, stall, M, R, 2000 * DAY, UINT64_C(100000000), 3);
    CHECK(plain.goodput == sync.goodput && plain.failures == sync.failures);
    CHECK(cost_goodput_lag(tau, stall, 0, M, R) == g_sync);
    /* a lag past the next checkpoint counts as the whole segment */
    CHECK(cost_goodput_lag(tau, stall, 1e9, M, R) == cost_goodput_lag(tau, stall, tau + stall, M, R));
    /* no failures: no lag matters */
    CHECK(cost_goodput_lag(tau, stall, lag, 0, R) == tau / (tau + stall));
}

/* A run's figures: async's goodput carries the drain after its stall. */
static void size2_durability_lag_in_cost_figures(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    struct results r;
    memset(&r, 0, sizeof r);
    r.plan.gpus = 1024;
    sc.training.interval_ps = 1800ull * 1000000000000ull;
    sc.failures.mtbf_gpu_h = 1024 * 2.0; /* job MTBF 2 h */
    sc.failures.mc_days = 0;
    /* sync: a 30 s write that stalls the GPUs throughout */
    r.plan.stall_measured = 1;
    r.completion_s = 30;
    cost_compute(&r, &sc);
    double g_sync = r.cost.goodput, opt_sync = r.cost.goodput_at_optimal;
    CHECK(r.cost.durability_lag_s == 0);
    /* async: the same 30 s stall, the drain ends 600 s after the trigger */
    r.plan.stall_measured = 0;
    r.plan.stall_ps = 30ull * 1000000000000ull;
    r.completion_s = 600;
    cost_compute(&r, &sc);
    CHECKF(fabs(r.cost.durability_lag_s - 570) < 1e-9, "lag %.3f", r.cost.durability_lag_s);
    CHECKF(fabs(r.cost.goodput / g_sync - exp(-570 / 7200.0)) < 1e-9, "goodput %.6f vs sync %.6f",
           r.cost.goodput, g_sync);
    CHECK(r.cost.goodput_at_optimal < opt_sync);
}

SUITE(suite_size2) = {
    {"size2_durability_lag_monte_carlo", size2_durability_lag_monte_carlo},
    {"size2_durability_lag_in_cost_figures", size2_durability_lag_in_cost_figures},
    {0, 0},
};
