/* Cost model: Young and Daly, the exact failure model against its Monte
 * Carlo, the optimal interval against simulated waste, per-day figures. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/cost/cost.h"
#include "harness.h"

#define H 3600.0

static void cost_young_daly_formulas(void)
{
    /* docs/checkpoint.md: M = 3.1 h, delta = 30 s -> about 14 min */
    double y = cost_young(30, 3.1 * H);
    CHECK(fabs(y * y - 2 * 30 * 3.1 * H) < 1e-6 * y * y);
    CHECKF(y > 13 * 60 && y < 14.5 * 60, "Young %.1f s", y);
    /* Daly's higher-order terms, by hand for delta/2M = 1/4 */
    double d = cost_daly(1000, 2000);
    double want = sqrt(2.0 * 1000 * 2000) * (1 + 0.5 / 3 + 0.25 / 9) - 1000;
    CHECK(fabs(d - want) < 1e-9 * want);
    CHECK(cost_daly(5000, 2000) == 2000); /* delta >= 2M: M */
    CHECK(cost_young(30, 0) == 0 && cost_daly(30, 0) == 0);
    /* both approach the exact optimum as delta/M shrinks; Daly faster */
    static const double ratio[] = {1e-2, 1e-3, 1e-4};
    double prev_y = 1, prev_d = 1;
    for (int i = 0; i < 3; i++) {
        double M = 3.1 * H, delta = ratio[i] * M;
        double opt = cost_optimal_numeric(delta, M);
        double ey = fabs(cost_young(delta, M) / opt - 1);
        double ed = fabs(cost_daly(delta, M) / opt - 1);
        CHECKF(ed < ey, "delta/M %g: Daly off %.3g%%, Young %.3g%%", ratio[i], 100 * ed, 100 * ey);
        CHECK(ey < prev_y && ed < prev_d);
        prev_y = ey;
        prev_d = ed;
    }
    CHECKF(prev_d < 1e-4, "Daly %.3g%% off the exact optimum at delta/M = 1e-4", 100 * prev_d);
    /* the exact model: no failures -> tau + delta; M = tau, no delta, R = 0
     * -> M (e - 1) */
    CHECK(cost_segment_time(100, 5, 0, 60) == 105);
    CHECK(fabs(cost_segment_time(1000, 0, 1000, 0) - 1000 * (exp(1) - 1)) < 1e-9);
    /* goodput falls with a longer restart */
    CHECK(cost_goodput(1800, 30, 3.1 * H, 600) < cost_goodput(1800, 30, 3.1 * H, 60));
}

static void cost_monte_carlo_matches_analytic(void)
{
    const double tau = 1800, delta = 60, M = 3.1 * H, R = 600;
    struct mc_result mc;
    cost_monte_carlo(&mc, tau, delta, M, R, 5000 * 86400.0, UINT64_C(100000000), 1);
    double g = cost_goodput(tau, delta, M, R);
    CHECKF(fabs(mc.goodput / g - 1) < 0.01, "Monte Carlo %.5f vs analytic %.5f", mc.goodput, g);
    CHECK(mc.failures > 30000); /* long enough to mean something */
    CHECK(fabs(mc.work_s - tau * mc.checkpoints) < 1e-3 * mc.work_s);
    /* the comparison can fail: a restart twice as long is far outside 1% */
    CHECK(fabs(mc.goodput / cost_goodput(tau, delta, M, 2 * R) - 1) > 0.01);
    /* no failures: every interval completes */
    cost_monte_carlo(&mc, tau, delta, 0, R, 100 * 86400.0, UINT64_C(100000000), 1);
    CHECK(mc.failures == 0 && fabs(mc.goodput - tau / (tau + delta)) < 1e-12);
    /* the segment cap stops a run whose intervals are tiny */
    cost_monte_carlo(&mc, 1e-6, 0, M, R, 1000 * 86400.0, 1000, 1);
    CHECK(mc.checkpoints + mc.failures <= 1000);
}

static void cost_optimal_minimises_simulated_waste(void)
{
    const double delta = 30, M = 3.1 * H, R = 600;
    double opt = cost_daly(delta, M);
    static const double grid[] = {0.5, 0.7, 1.0, 1.4, 2.0};
    double waste[5];
    for (int i = 0; i < 5; i++) {
        struct mc_result mc;
        cost_monte_carlo(&mc, grid[i] * opt, delta, M, R, 5000 * 86400.0,
                         UINT64_C(100000000), 7);
        waste[i] = 1 - mc.goodput;
    }
    for (int i = 0; i < 5; i++)
        CHECKF(i == 2 || waste[2] < waste[i], "waste at %.1f x Daly %.5f <= at optimum %.5f",
               grid[i], waste[i], waste[2]);
}

static void cost_figures_from_a_run(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    struct results r;
    memset(&r, 0, sizeof r);
    r.plan.gpus = 1024;
    r.plan.stall_measured = 1;
    r.plan.first_start_ps = 2000000000000ull; /* 2 s of file creates */
    r.completion_s = 28;
    sc.training.interval_ps = 1770ull * 1000000000000ull;
    sc.training.gpu_hour_cost = 3;
    sc.training.mfu = 0.5;
    sc.failures.mtbf_gpu_h = 1024 * 2.0; /* job MTBF 2 h */
    cost_compute(&r, &sc);
    const struct cost_figures *c = &r.cost;
    CHECK(fabs(c->stall_s - 30) < 1e-9);
    CHECK(fabs(c->checkpoints_per_day - 48) < 1e-9);
    CHECK(fabs(c->gpu_hours_per_day - 48 * 30 * 1024 / 3600.0) < 1e-9);
    CHECK(fabs(c->money_per_day - 3 * c->gpu_hours_per_day) < 1e-9);
    CHECK(fabs(c->mfu_points_lost - 100 * 0.5 * 30 / 1800) < 1e-12);
    CHECK(fabs(c->job_mtbf_s - 7200) < 1e-9);
    CHECK(fabs(c->young_s - sqrt(2 * 30 * 7200.0)) < 1e-9);
    CHECK(c->goodput_at_optimal > c->goodput);
    CHECK(c->mc_days > 999 && fabs(c->goodput_mc / c->goodput - 1) < 0.01);
    /* per node: 128 nodes of 8 GPUs at 256 h each -> the same job MTBF */
    sc.failures.mtbf_gpu_h = 0;
    sc.failures.mtbf_node_h = 256;
    cost_compute(&r, &sc);
    CHECK(fabs(c->job_mtbf_s - 7200) < 1e-9);
    struct err e = {""};
    sc.failures.mtbf_gpu_h = 5;
    CHECK(cost_check(&sc, &e) == -1 && strncmp(e.msg, "failures.mtbf_per_node:", 23) == 0);
    /* no failures: no optimum, goodput = tau / (tau + delta), no Monte Carlo */
    sc.failures.mtbf_gpu_h = sc.failures.mtbf_node_h = 0;
    cost_compute(&r, &sc);
    CHECK(c->job_mtbf_s == 0 && c->young_s == 0 && c->mc_days == 0);
    CHECK(fabs(c->goodput - 1770.0 / 1800) < 1e-12);
    /* two-phase: the stall is the staging; the optimum never outruns the
     * drain, nor goes below one step */
    sc.failures.mtbf_gpu_h = 1024 * 2.0;
    r.plan.stall_measured = 0;
    r.plan.stall_ps = 1000000000; /* 1 ms */
    r.plan.first_start_ps = 0;
    r.completion_s = 400;
    cost_compute(&r, &sc);
    CHECK(fabs(c->stall_s - 1e-3) < 1e-15);
    CHECK(c->daly_s >= 400 - 1e-3 && c->young_s >= 400 - 1e-3);
    CHECK(!c->drain_late);
    r.completion_s = 1800;
    cost_compute(&r, &sc);
    CHECK(c->drain_late);
}

/* The JSON carries the answer under the keys the issue names. */
static void cost_json_keys(void)
{
    static const char *const keys[] = {
        "checkpoint.bytes", "checkpoint.files", "checkpoint.writers", "checkpoint.shard_skew",
        "cost.stall_s_per_checkpoint", "cost.gpu_hours_per_day", "cost.money_per_day",
        "cost.mfu_points_lost", "failures.job_mtbf_s", "cost.optimal_interval_s",
        "cost.optimal_interval_daly_s", "cost.goodput", "cost.goodput_at_optimal",
        "cost.goodput_monte_carlo", "model.name", "model.params", "model.bytes_per_param",
    };
    struct scenario sc;
    scenario_defaults(&sc);
    sc.model.name = MODEL_LLAMA3_8B;
    sc.cluster.nodes = 2;
    sc.parallelism.zero_stage = 3;
    struct results r;
    struct err e = {""};
    if (scenario_set(&sc, "engine=fluid", &e) < 0) /* 112 GB: the flow engine */
        fprintf(stderr, "  %s\n", e.msg);
    CHECKF(ckpt_run(&sc, &r, &e) == 0, "%s", e.msg);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_json(f, &sc, &r, 0, &e);
    fclose(f);
    json_error_t je;
    json_t *root = json_loads(buf, 0, &je);
    CHECK(root != NULL);
    for (size_t i = 0; root && i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = root;
        char path[128];
        snprintf(path, sizeof path, "%s", keys[i]);
        for (char *tok = strtok(path, "."); tok && v; tok = strtok(NULL, "."))
            v = json_object_get(v, tok);
        CHECKF(v != NULL && !json_is_null(v), "missing %s", keys[i]);
    }
    if (root) {
        json_t *ck = json_object_get(root, "checkpoint");
        CHECK(json_integer_value(json_object_get(ck, "bytes")) == 8030261248ll * 14);
        CHECK(json_integer_value(json_object_get(ck, "files")) == 16);
        CHECK(!strcmp(json_string_value(json_object_get(json_object_get(root, "model"), "name")),
                      "llama3-8b"));
    }
    json_decref(root);
    free(buf);
    results_release(&r);
}

/* failures.recovery_time auto (the default) with checkpoint.phase both:
 * the recovery time is the restart overhead + the simulated restore, and
 * Young, Daly, the goodput, its optimum, the Monte Carlo and the broadcast's
 * saving are the formulas by hand with it; a configured time is used as is.
 * Both engines. */
static void cost_recovery_auto_from_restore(void)
{
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++) {
        struct scenario sc;
        struct results r;
        struct err e = {""};
        scenario_defaults(&sc);
        sc.engine = eng;
        sc.model.name = MODEL_CUSTOM;
        sc.model.params = 2000000;
        sc.cluster.nodes = 4;
        sc.cluster.gpus_per_node = 4;
        sc.parallelism.tp = 4;
        sc.fabric.hosts_per_leaf = 2;
        sc.checkpoint.phase = PHASE_BOTH;
        sc.restore.restart_ps = 20000000000000ull; /* 20 s */
        sc.failures.mtbf_gpu_h = 100;               /* 16 GPUs: M = 6.25 h */
        sc.failures.mc_days = 50;
        CHECK(sc.failures.recovery_ps == SCENARIO_AUTO_TIME); /* the default */
        if (ckpt_run(&sc, &r, &e) < 0) {
            CHECKF(0, "%s", e.msg);
            return;
        }
        const struct cost_figures *c = &r.cost;
        const struct restore_figures *f = &r.restore;
        CHECKF(r.ok && f->ran && !f->estimated && f->finished, "%s", r.violation);
        double R = 20 + f->completion_s, M = 100 * H / 16, d = c->stall_s, tau = 1800;
        CHECKF(fabs(c->recovery_s - R) < 1e-12 && !strcmp(c->recovery_from, "simulated restore"),
               "engine %d: recovery %.12g, want %.12g (%s)", eng, c->recovery_s, R,
               c->recovery_from);
        CHECK(fabs(c->job_mtbf_s - M) < 1e-9);
        CHECK(fabs(c->young_s - fmax(sqrt(2 * d * M), 10)) < 1e-9 * c->young_s);
        double x = d / (2 * M);
        double daly = fmax(sqrt(2 * d * M) * (1 + sqrt(x) / 3 + x / 9) - d, 10);
        CHECK(fabs(c->daly_s - daly) < 1e-9 * daly);
        /* goodput = tau / (M e^(R/M) (e^((tau+d)/M) - 1)) */
        double g = tau / (M * exp(R / M) * expm1((tau + d) / M));
        CHECKF(fabs(c->goodput - g) < 1e-12, "engine %d: goodput %.15g, by hand %.15g", eng,
               c->goodput, g);
        double go = daly / (M * exp(R / M) * expm1((daly + d) / M));
        CHECK(fabs(c->goodput_at_optimal - go) < 1e-12);
        struct mc_result mc;
        cost_monte_carlo(&mc, tau, d, M, R, 50 * 86400.0, UINT64_C(10000000), sc.seed);
        CHECK(c->goodput_mc == mc.goodput);
        /* the broadcast's saving: goodput with the other mode's recovery */
        double Rb = f->other_recovery_s;
        double gb = tau / (M * exp(Rb / M) * expm1((tau + d) / M));
        CHECK(Rb > 20 && Rb != R);
        CHECKF(fabs(c->bcast_saves_gpu_hours_per_day - (gb - g) * 24 * 16) < 1e-9,
               "%.12g vs %.12g", c->bcast_saves_gpu_hours_per_day, (gb - g) * 24 * 16);
        results_release(&r);
        /* configured: as given, whatever the restore */
        sc.failures.recovery_ps = 600000000000000ull;
        if (ckpt_run(&sc, &r, &e) == 0) {
            CHECK(r.cost.recovery_s == 600 && !strcmp(r.cost.recovery_from, "configured"));
            results_release(&r);
        }
        /* phase save: the read's bound, below the simulated one */
        sc.failures.recovery_ps = SCENARIO_AUTO_TIME;
        sc.checkpoint.phase = PHASE_SAVE;
        if (ckpt_run(&sc, &r, &e) == 0) {
            CHECKF(r.restore.estimated && r.cost.recovery_s <= R && r.cost.recovery_s > 20 &&
                       !strcmp(r.cost.recovery_from, "restore bound"),
                   "engine %d: %.12g s (%s), simulated %.12g s", eng, r.cost.recovery_s,
                   r.cost.recovery_from, R);
            results_release(&r);
        }
    }
}

/* Capital cost of a bill of materials by hand, at the designer's rule
 * (cost_price_links): 8 CX764QD-N leaves at 32000, 4 CX732Q-N spines at
 * 18000; 64 host and 4 storage links at 400G are DACs (150 each, no
 * optics); 32 leaf-spine links at 800G carry two transceivers each
 * (optic_800g, the any-reach price, 1400) and a fibre (fiber_mmf, 40);
 * 2 storage nodes at 60000. Switches 256000 + 72000 = 328000, optics
 * 64 x 1400 = 89600, cables 68 x 150 + 32 x 40 = 11480, storage 120000:
 * 549080 over 4 years of 365.25 days. An item without a price is listed,
 * never priced at 0. */
static void cost_capital_by_hand(void)
{
    struct scenario sc;
    struct results r;
    struct err e = {""};
    scenario_defaults(&sc);
    memset(&r, 0, sizeof r);
    snprintf(sc.fabric.leaf_switch, sizeof sc.fabric.leaf_switch, "CX764QD-N");
    snprintf(sc.fabric.spine_switch, sizeof sc.fabric.spine_switch, "CX732Q-N");
    r.bom_switches[0] = 8;
    r.bom_switches[1] = 4;
    r.bom_class_n[0] = r.bom_class_n[1] = r.bom_class_n[2] = 1;
    r.bom_class_bps[0][0] = r.bom_class_bps[1][0] = 400000000000ull;
    r.bom_class_links[0][0] = 64;
    r.bom_class_links[1][0] = 4;
    r.bom_class_bps[2][0] = 800000000000ull;
    r.bom_class_links[2][0] = 32;
    r.bom_storage_nodes = 2;
    sc.cost.amortisation_years = 4;
    CHECK(scenario_set(&sc, "cost.prices=CX764QD-N=32000, CX732Q-N=18000,optic_400g=900,"
                            "optic_800g = 1400,dac_400g=150,fiber_mmf=40,storage_node=60000",
                       &e) == 0);
    CHECKF(cost_check(&sc, &e) == 0, "%s", e.msg);
    cost_capital(&r, &sc);
    const struct cost_figures *c = &r.cost;
    CHECKF(c->priced && c->n_unpriced == 0, "%u unpriced: %s", c->n_unpriced, c->unpriced[0]);
    CHECKF(c->capital_switches == 328000 && c->capital_optics == 89600 &&
               c->capital_cables == 11480 && c->capital_storage == 120000 &&
               c->capital == 549080,
           "%g + %g + %g + %g = %g", c->capital_switches, c->capital_optics, c->capital_cables,
           c->capital_storage, c->capital);
    CHECK(fabs(c->capital_per_day - 549080 / (4 * 365.25)) < 1e-9);
    /* no 800G, cable, storage or spine price: each listed, the total without them */
    CHECK(scenario_set(&sc, "cost.prices=CX764QD-N=32000,optic_400g=900", &e) == 0);
    cost_capital(&r, &sc);
    CHECKF(c->capital == 256000 && c->n_unpriced == 6, "%g, %u unpriced", c->capital,
           c->n_unpriced);
    CHECK(c->n_unpriced == 6 && !strcmp(c->unpriced[0], "4 spines (CX732Q-N)") &&
          !strcmp(c->unpriced[1], "64 host links (dac_400g)") &&
          !strcmp(c->unpriced[2], "4 storage links (dac_400g)") &&
          !strcmp(c->unpriced[3], "64 transceivers (optic_800g_sr)") &&
          !strcmp(c->unpriced[4], "32 leaf-spine links (fiber_mmf)") &&
          !strcmp(c->unpriced[5], "2 storage nodes (storage_node)"));
    /* none: nothing priced, nothing claimed */
    CHECK(scenario_set(&sc, "cost.prices=none", &e) == 0);
    cost_capital(&r, &sc);
    CHECK(!c->priced && c->capital == 0);
}

/* cost.prices refuses what it cannot price: each message names the item. */
static void cost_prices_refused(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"CX73Q-N=1", "unknown name \"CX73Q-N\" (did you mean CX732Q-N?)"},
        {"optics_400g=1", "(did you mean optic_400g?)"},
        {"optic_400=1", "(did you mean optic_400g?)"},
        {"CX732Q-N=-5", "item 1 \"CX732Q-N=-5\": expected a price from 0"},
        {"CX732Q-N=12k", "expected a price"},
        {"CX732Q-N=nan", "expected a price"},
        {"CX732Q-N=1e13", "expected a price"},
        {"CX732Q-N=", "expected a price"},
        {"CX732Q-N=1,optic_400g", "item 2 \"optic_400g\": expected NAME=PRICE"},
        {"CX732Q-N=1,CX732Q-N=2", "CX732Q-N is priced twice"},
        {"CX732Q-N=1,", "item 2 \"\": expected NAME=PRICE"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cost_price pr[COST_MAX_PRICES];
        uint32_t n;
        struct err e = {""};
        CHECKF(cost_prices_parse(bad[i].text, pr, &n, &e) == -1 && strstr(e.msg, bad[i].want) &&
                   !strncmp(e.msg, "cost.prices: ", 13),
               "%s: %s", bad[i].text, e.msg);
    }
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t n;
    struct err e = {""};
    CHECK(cost_prices_parse("optic_1600g=3000,generic-51.2T=0", pr, &n, &e) == 0 && n == 2 &&
          pr[0].optic_bps == 1600000000000ull && pr[1].optic_bps == 0 && pr[1].price == 0);
}

/* A run prices the fabric it built: the default 2-tier fabric is 9 leaves
 * (8 compute of 16 nodes, 1 storage of 4) and 16 spines of CX732Q-N, and
 * 128 + 4 + 9 x 16 = 276 links at 400G, with 4 storage nodes. The host
 * and storage links are DACs (132 x 150), the leaf-spine ones two optics
 * and a fibre each (288 x 900 + 144 x 40): 25 x 18000 + 259200 + 19800 +
 * 5760 + 4 x 60000 = 974760, as size's BOM of the same fabric prices it.
 * The JSON carries it under cost.capital. */
static void cost_capital_of_a_run(void)
{
    struct scenario sc;
    struct results r;
    struct err e = {""};
    scenario_defaults(&sc);
    sc.engine = ENGINE_FLUID;
    CHECK(scenario_set(&sc, "cost.prices=CX732Q-N=18000,optic_400g=900,dac_400g=150,"
                            "fiber_mmf=40,storage_node=60000",
                       &e) == 0);
    CHECKF(ckpt_run(&sc, &r, &e) == 0, "%s", e.msg);
    CHECKF(r.cost.priced && r.cost.capital == 974760 && r.cost.n_unpriced == 0, "%g",
           r.cost.capital);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_json(f, &sc, &r, 0, &e);
    fclose(f);
    json_error_t je;
    json_t *root = json_loads(buf, 0, &je);
    json_t *cost = json_object_get(root, "cost");
    CHECK(json_real_value(json_object_get(cost, "capital")) == 974760);
    CHECK(json_real_value(json_object_get(cost, "capital_cables")) == 25560);
    CHECK(fabs(json_real_value(json_object_get(cost, "capital_per_day")) - 974760 / (5 * 365.25)) <
          1e-9);
    CHECK(json_array_size(json_object_get(cost, "unpriced")) == 0);
    json_decref(root);
    free(buf);
    results_release(&r);
}

SUITE(suite_cost) = {
    {"cost_young_daly_formulas", cost_young_daly_formulas},
    {"cost_monte_carlo_matches_analytic", cost_monte_carlo_matches_analytic},
    {"cost_optimal_minimises_simulated_waste", cost_optimal_minimises_simulated_waste},
    {"cost_figures_from_a_run", cost_figures_from_a_run},
    {"cost_json_keys", cost_json_keys},
    {"cost_recovery_auto_from_restore", cost_recovery_auto_from_restore},
    {"cost_capital_by_hand", cost_capital_by_hand},
    {"cost_prices_refused", cost_prices_refused},
    {"cost_capital_of_a_run", cost_capital_of_a_run},
    {0, 0},
};
