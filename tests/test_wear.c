/* Drive wear in the cost per day (src/cost/storage_use.c, endurance_wear;
 * docs/storage.md, Drive wear): the drives' price times the share of their
 * rated writes a day uses, beyond their straight-line amortisation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cost/policy_cost.h"
#include "../src/cost/storage_use.h"
#include "harness.h"
#include "support.h"

/* A finished save of bytes at per_day checkpoints a day, results only. */
static void saved(struct results *r, double bytes, double per_day)
{
    memset(r, 0, sizeof *r);
    r->finished = 1;
    r->phase = PHASE_SAVE;
    r->ckpt_bytes = (uint64_t)bytes;
    r->cost.checkpoints_per_day = per_day;
}

/* By hand: 1 TB a checkpoint, 100 a day = 1e14 B/day on 4 nodes x 12 x
 * 7.68 TB = 3.6864e14 B raw: 0.27126736 drive writes a day. At 0.25 DWPD
 * over 5 years the 48 drives (reference drive_7.68tb, 850 USD: 40,800 USD)
 * wear 40800 x 0.27126736 / (0.25 x 5 x 365.25) = 24.2413872 USD/day
 * against 40800 / (5 x 365.25) = 22.3408624 amortised: 1.9005248 USD/day
 * beyond the capital. At 0.3 DWPD they wear 20.20 a day, under the
 * amortisation: nothing more. */
static void wear_by_hand(void)
{
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    test_set(&sc, "storage.drives=12");
    test_set(&sc, "storage.drive_capacity=7.68TB");
    test_set(&sc, "storage.drive_dwpd=0.25");
    test_set(&sc, "cost.prices=reference");
    saved(&r, 1e12, 100);
    endurance_compute(&r, &sc);
    const struct endurance_figures *f = &r.endurance;
    CHECK(f->on && f->raw_bytes == UINT64_C(368640000000000) && f->drives == 48);
    CHECKF(fabs(f->dwpd - 0.2712673611111111) < 1e-12, "%.12f DWPD", f->dwpd);
    CHECK(f->wear_priced && !strcmp(f->drive_name, "drive_7.68tb") && f->drives_price == 40800);
    CHECKF(fabs(f->wear_per_day - 24.241387177732147) < 1e-9, "%.9f a day", f->wear_per_day);
    CHECKF(fabs(f->drives_amortisation_per_day - 22.340862422997947) < 1e-9, "%.9f",
           f->drives_amortisation_per_day);
    CHECKF(f->wear_limited && fabs(f->wear_cost_per_day - 1.9005247547341995) < 1e-9, "%.9f",
           f->wear_cost_per_day);
    /* the policy's full cost carries it */
    r.cost.lost_money_per_day = 100;
    struct policy_cost row;
    cost_policy_row(&row, POLICY_SYNC, &r);
    CHECK(row.wear_money == f->wear_cost_per_day &&
          row.total_per_day == row.lost_money + row.capital_per_day + row.wear_money);

    test_set(&sc, "storage.drive_dwpd=0.3");
    endurance_compute(&r, &sc);
    CHECKF(fabs(f->wear_per_day - 40800 * 0.2712673611111111 / (0.3 * 5 * 365.25)) < 1e-9,
           "%.9f", f->wear_per_day);
    CHECK(f->wear_priced && !f->wear_limited && f->wear_cost_per_day == 0);

    /* a longer rating period spreads the same writes thinner */
    test_set(&sc, "storage.drive_dwpd=0.25");
    test_set(&sc, "storage.drive_rating_years=10");
    endurance_compute(&r, &sc);
    CHECK(fabs(f->wear_per_day - 24.241387177732147 / 2) < 1e-9 && !f->wear_limited);

    /* a profile's drives are priced as the capital prices them: 4 x 16 x
     * drive_3.84tb at 450 = 28,800 USD */
    test_set(&sc, "storage.drive_rating_years=5");
    test_set(&sc, "storage.profile=yanrong-f9000x");
    test_set(&sc, "storage.drives=16");
    test_set(&sc, "storage.drive_capacity=3.84TB");
    endurance_compute(&r, &sc);
    CHECK(!strcmp(f->drive_name, "drive_3.84tb") && f->drives == 64 && f->drives_price == 28800);
    /* an override moves it */
    test_set(&sc, "cost.prices=reference,drive_3.84tb=900");
    endurance_compute(&r, &sc);
    CHECK(f->drives_price == 57600);

    /* no price for the drives: the flag stays, the money is not made up */
    test_set(&sc, "cost.prices=none");
    endurance_compute(&r, &sc);
    CHECK(f->on && f->over_endurance && !f->wear_priced && f->wear_cost_per_day == 0);
    cost_policy_row(&row, POLICY_SYNC, &r);
    CHECK(row.wear_money == 0);
}

/* A scenario whose drives wear: the default cluster's 2.048 GB checkpoint
 * on 4 nvme-gen4-12 nodes (48 x 7.68 TB) rated 0.01 DWPD. */
static void wearing(struct scenario *sc, const char *engine, const char *interval)
{
    scenario_defaults(sc);
    test_set(sc, "engine=%s", engine);
    test_set(sc, "checkpoint.policy=sync");
    test_set(sc, "storage.profile=nvme-gen4-12");
    test_set(sc, "storage.drive_capacity=7.68TB");
    test_set(sc, "storage.drive_dwpd=0.01");
    test_set(sc, "cost.prices=reference");
    test_set(sc, "training.checkpoint_interval=%s", interval);
}

/* Sync every 15 s writes 11.8 TB a day, 0.032 drive writes against 0.01:
 * the drives wear out in a third of their rating, wear-limited. Every 30
 * min it writes 98 GB, within the amortisation. Both engines say so (bytes
 * alone set it), and the policy comparison adds it to the total. */
static void wear_sync_short_interval_is_wear_limited(void)
{
    struct scenario sc;
    struct results *r = malloc(sizeof *r);
    wearing(&sc, "fluid", "30min");
    CHECK(test_run(&sc, r) == 0);
    const struct endurance_figures *f = &r->endurance;
    CHECK(f->wear_priced && f->wear_per_day > 0 && !f->wear_limited &&
          f->wear_cost_per_day == 0 && !f->over_endurance);
    double slow = f->wear_per_day;
    results_release(r);

    wearing(&sc, "fluid", "15s");
    test_set(&sc, "cost.compare_policies=true");
    test_set(&sc, "cluster.d2h_rate=200Gbps");
    CHECK(test_run(&sc, r) == 0);
    CHECKF(f->wear_limited && f->over_endurance && f->wear_per_day > 100 * slow, "%.6g, %.6g",
           f->wear_per_day, slow);
    CHECKF(fabs(f->wear_cost_per_day - (f->wear_per_day - f->drives_amortisation_per_day)) <
               1e-9,
           "%.9g", f->wear_cost_per_day);
    const struct cost_figures *c = &r->cost;
    CHECK(c->n_policies == 3 && c->policies[0].chosen && c->policies[0].ok);
    const struct policy_cost *p = &c->policies[0];
    CHECK(p->wear_money == f->wear_cost_per_day && p->wear_money > 0 &&
          p->total_per_day == p->lost_money + p->capital_per_day + p->wear_money);
    CHECK(c->policies[1].ok && c->policies[1].wear_money > 0); /* async writes as much */
    double fluid = f->wear_cost_per_day;
    results_release(r);

    wearing(&sc, "packet", "15s");
    CHECK(test_run(&sc, r) == 0);
    CHECKF(f->wear_limited && fabs(f->wear_cost_per_day / fluid - 1) < 0.01, "%.9g, fluid %.9g",
           f->wear_cost_per_day, fluid);
    results_release(r);
    free(r);
}

SUITE(suite_wear) = {
    {"wear_by_hand", wear_by_hand},
    {"wear_sync_short_interval_is_wear_limited", wear_sync_short_interval_is_wear_limited},
    {0, 0},
};
