/* A policy's full cost: host contention of the drain (cluster.host_rate,
 * checkpoint.drain_slowdown) in the closed form, the Monte Carlo model and
 * a run's figures, and the comparison of cost.compare_policies, each row of
 * which is the run `--set checkpoint.policy=X` gives. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cost/cost.h"
#include "../src/cost/policy_cost.h"
#include "harness.h"
#include "support.h"

#define PS 1000000000000ull

/* An async checkpoint of results only: stall and the drain's end after the
 * trigger, 1024 GPUs on 128 nodes. */
static void async_results(struct results *r, double stall_s, double end_s)
{
    memset(r, 0, sizeof *r);
    r->finished = 1;
    r->plan.gpus = 1024;
    r->plan.nodes = 128;
    r->plan.stall_measured = 0;
    r->plan.stall_ps = (uint64_t)(stall_s * (double)PS);
    r->completion_s = end_s;
}

/* Contention adds drain x slowdown to the time per checkpoint without
 * progress: without failures the overhead per unit of training time
 * (1 / goodput - 1) rises by exactly drain x slowdown / interval, the GPU
 * time lost per day is that time per checkpoint, and with failures the
 * goodput is the durability-lag closed form at that larger stall. Fails
 * before the contention existed: the goodput did not move. */
static void policy_cost_contention_closed_form(void)
{
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    sc.training.interval_ps = 1800 * PS;
    sc.failures.mtbf_gpu_h = 0;
    sc.failures.mc_days = 0;
    const double tau = 1800, stall = 30, end = 600, drain = end - stall;
    async_results(&r, stall, end);
    cost_compute(&r, &sc);
    double over0 = 1 / r.cost.goodput - 1;
    CHECK(r.cost.contention_s == 0 && !r.cost.contention_on);
    sc.checkpoint.drain_slowdown = 0.25;
    cost_compute(&r, &sc);
    CHECK(r.cost.contention_on);
    CHECKF(r.cost.drain_s == drain && r.cost.contention_s == drain * 0.25, "drain %.9g, lost %.9g",
           r.cost.drain_s, r.cost.contention_s);
    double over1 = 1 / r.cost.goodput - 1;
    CHECKF(fabs((over1 - over0) - drain * 0.25 / tau) < 1e-12, "overhead %.12f -> %.12f",
           over0, over1);
    CHECKF(fabs(r.cost.contention_gpu_hours_per_day -
                r.cost.checkpoints_per_day * drain * 0.25 * 1024 / 3600) < 1e-9,
           "%.9g GPU-h/day", r.cost.contention_gpu_hours_per_day);
    CHECK(r.cost.contention_money_per_day ==
          r.cost.contention_gpu_hours_per_day * sc.training.gpu_hour_cost);
    CHECK(r.cost.checkpoints_per_day == 86400 / (tau + stall + drain * 0.25));
    /* with failures: the lag counts from the end of the time lost, so the
     * checkpoint is still durable at the drain's end after the trigger */
    sc.failures.mtbf_gpu_h = 1024 * 2.0;
    cost_compute(&r, &sc);
    double d = stall + drain * 0.25, M = 7200, R = r.cost.recovery_s;
    CHECK(r.cost.durability_lag_s == end - d);
    CHECKF(fabs(r.cost.goodput - cost_goodput_lag(tau, d, end - d, M, R)) < 1e-15, "%.12f",
           r.cost.goodput);
    /* sync has no drain: the keys change nothing */
    r.plan.stall_measured = 1;
    cost_compute(&r, &sc);
    CHECK(r.cost.contention_s == 0 && r.cost.drain_s == 0);
}

/* cluster.host_rate derives the slowdown: a node's mean drain rate over the
 * host's budget, at most 1. */
static void policy_cost_slowdown_from_host_rate(void)
{
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    sc.failures.mtbf_gpu_h = 0;
    sc.failures.mc_days = 0;
    sc.cluster.nodes = 128;
    async_results(&r, 1, 11);
    /* 128 nodes x 1.25 GB in 10 s: 1 Gb/s a node */
    r.plan.bytes = 128ull * 1250000000ull;
    sc.cluster.host_bps = 4000000000ull;
    cost_compute(&r, &sc);
    CHECKF(fabs(r.cost.drain_slowdown - 0.25) < 1e-15, "%.17g", r.cost.drain_slowdown);
    CHECK(fabs(r.cost.contention_s - 2.5) < 1e-12);
    CHECK(cost_drain_slowdown(&sc, r.plan.bytes, 10) == r.cost.drain_slowdown);
    sc.cluster.host_bps = 500000000ull; /* the drain alone needs twice the budget */
    cost_compute(&r, &sc);
    CHECK(r.cost.drain_slowdown == 1 && r.cost.contention_s == 10);
    /* both keys: refused, naming one */
    struct err e = {""};
    sc.checkpoint.drain_slowdown = 0.1;
    CHECK(cost_check(&sc, &e) < 0);
    CHECKF(strstr(e.msg, "checkpoint.drain_slowdown") && strstr(e.msg, "cluster.host_rate"),
           "%s", e.msg);
    sc.cluster.host_bps = 0;
    CHECK(cost_check(&sc, &e) == 0);
}

/* The Monte Carlo model charges the same: with frequent failures (job MTBF
 * 1 h) its goodput matches the closed form at the larger stall within 1%,
 * and contention lowers it far outside that. */
static void policy_cost_contention_monte_carlo(void)
{
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    sc.training.interval_ps = 1500 * PS;
    sc.failures.mtbf_gpu_h = 1024 * 1.0;
    sc.failures.recovery_ps = 300 * PS;
    sc.failures.mc_days = 2000;
    async_results(&r, 60, 660);
    cost_compute(&r, &sc);
    double g0 = r.cost.goodput_mc;
    sc.checkpoint.drain_slowdown = 0.5;
    cost_compute(&r, &sc);
    CHECK(r.cost.contention_s == 300);
    CHECKF(fabs(r.cost.goodput_mc / r.cost.goodput - 1) < 0.01, "MC %.5f, closed form %.5f",
           r.cost.goodput_mc, r.cost.goodput);
    CHECK(r.cost.mc_failures > 40000);
    CHECKF(r.cost.goodput_mc < g0 - 0.05, "MC %.5f with, %.5f without", r.cost.goodput_mc, g0);
}

/* The default fabric (fluid): 16 MB a node, d2h 200 Gb/s a GPU. */
static void small_async(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "engine=fluid");
    test_set(sc, "cluster.d2h_rate=200Gbps");
    test_set(sc, "cluster.local_nvme_rate=50Gbps");
}

/* Async with heavy contention (all training throughput lost while it
 * drains) costs more than sync: it stalls for the staging and then loses
 * the whole drain; without contention it costs less. */
static void policy_cost_async_contention_costs_more_than_sync(void)
{
    struct scenario sc;
    struct results *r = malloc(sizeof *r);
    small_async(&sc);
    CHECK(test_run(&sc, r) == 0);
    double sync = r->cost.lost_money_per_day, sync_end = r->cost.end_s;
    results_release(r);
    test_set(&sc, "checkpoint.policy=async");
    CHECK(test_run(&sc, r) == 0);
    double async = r->cost.lost_money_per_day;
    CHECK(r->cost.end_s > sync_end); /* staging first, then the same write */
    results_release(r);
    test_set(&sc, "checkpoint.drain_slowdown=1");
    CHECK(test_run(&sc, r) == 0);
    double heavy = r->cost.lost_money_per_day;
    CHECKF(async < sync && heavy > sync, "sync %.9g, async %.9g, heavy %.9g", sync, async,
           heavy);
    results_release(r);
    free(r);
}

static int same_row(const struct policy_cost *a, const struct policy_cost *b)
{
    return a->policy == b->policy && a->ok == b->ok && a->stall_s == b->stall_s &&
           a->end_s == b->end_s && a->lag_s == b->lag_s && a->contention_s == b->contention_s &&
           a->stall_money == b->stall_money && a->contention_money == b->contention_money &&
           a->lag_money == b->lag_money && a->rework_money == b->rework_money &&
           a->lost_money == b->lost_money && a->capital_per_day == b->capital_per_day &&
           a->total_per_day == b->total_per_day && a->goodput == b->goodput &&
           a->storage == b->storage && a->wear_money == b->wear_money;
}

/* cost.compare_policies: sync, async, hierarchical; the chosen row is the
 * run's own figures; every row is what a run with that policy gives, to
 * the bit; JSON cost.policies[] holds them. */
static void policy_cost_rows_reproduce(void)
{
    struct scenario sc, one;
    struct results *r = malloc(sizeof *r), *x = malloc(sizeof *x);
    small_async(&sc);
    test_set(&sc, "checkpoint.policy=async");
    test_set(&sc, "cluster.host_rate=100Gbps");
    test_set(&sc, "cost.prices=reference");
    test_set(&sc, "storage.capacity=100GB");
    test_set(&sc, "cost.compare_policies=true");
    CHECK(test_run(&sc, r) == 0);
    const struct cost_figures *c = &r->cost;
    CHECK(c->n_policies == 3);
    static const int want[3] = {POLICY_SYNC, POLICY_ASYNC, POLICY_HIERARCHICAL};
    for (uint32_t i = 0; i < c->n_policies && i < 3; i++) {
        const struct policy_cost *p = &c->policies[i];
        CHECK(p->policy == want[i] && p->ok && p->chosen == (want[i] == POLICY_ASYNC));
        CHECK(p->total_per_day == p->lost_money + p->capital_per_day + p->wear_money);
        CHECK(p->capital_per_day == c->capital_per_day && c->capital_per_day > 0);
        CHECK(p->storage == 0);
        one = sc;
        test_set(&one, "checkpoint.policy=%s", names_of(&names_policy, want[i]));
        test_set(&one, "cost.compare_policies=false");
        CHECK(test_run(&one, x) == 0);
        struct policy_cost alone;
        cost_policy_row(&alone, want[i], x);
        CHECKF(same_row(p, &alone), "%s: total %.17g, alone %.17g",
               names_of(&names_policy, want[i]), p->total_per_day, alone.total_per_day);
        CHECK(x->cost.n_policies == 0);
        results_release(x);
    }
    /* the chosen row is the run's own */
    const struct policy_cost *a = &c->policies[1];
    CHECK(a->stall_s == c->stall_s && a->lag_s == c->durability_lag_s &&
          a->contention_s == c->contention_s && a->contention_s > 0 &&
          a->contention_money == c->contention_money_per_day &&
          a->lag_money == c->lag_money_per_day && a->lost_money == c->lost_money_per_day);
    CHECK(c->policies[0].contention_s == 0 && c->policies[0].lag_s == 0);
    /* the parts add up to the loss */
    CHECK(fabs(a->stall_money + a->contention_money + a->lag_money + a->rework_money -
               a->lost_money) < 1e-9 * a->lost_money);
    char *doc = test_json(&sc, r);
    json_t *root = doc ? json_loads(doc, 0, NULL) : NULL;
    json_t *arr = root ? test_json_at(root, "cost.policies") : NULL;
    CHECK(arr && json_array_size(arr) == 3);
    json_t *o = arr ? json_array_get(arr, 1) : NULL;
    CHECK(o && json_is_true(json_object_get(o, "chosen")) &&
          !strcmp(json_string_value(json_object_get(o, "policy")), "async") &&
          fabs(json_real_value(json_object_get(o, "total_per_day")) / a->total_per_day - 1) <
              1e-11); /* the document prints 12 digits */
    json_decref(root);
    free(doc);
    results_release(r);
    /* another policy: its own row after the three, and a policy that
     * cannot run says why */
    test_set(&sc, "checkpoint.policy=stagger");
    test_set(&sc, "cluster.local_nvme_rate=0");
    CHECK(test_run(&sc, r) == 0);
    CHECK(c->n_policies == 4 && c->policies[3].policy == POLICY_STAGGER &&
          c->policies[3].chosen && !c->policies[0].chosen);
    CHECK(!c->policies[2].ok && strstr(c->policies[2].why, "cluster.local_nvme_rate"));
    results_release(r);
    free(r);
    free(x);
}

SUITE(suite_policy_cost) = {
    {"policy_cost_contention_closed_form", policy_cost_contention_closed_form},
    {"policy_cost_slowdown_from_host_rate", policy_cost_slowdown_from_host_rate},
    {"policy_cost_contention_monte_carlo", policy_cost_contention_monte_carlo},
    {"policy_cost_async_contention_costs_more_than_sync",
     policy_cost_async_contention_costs_more_than_sync},
    {"policy_cost_rows_reproduce", policy_cost_rows_reproduce},
    {0, 0},
};
