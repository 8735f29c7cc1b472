/* Endurance counts the bytes storage.protection adds: the drives take the
 * parity fragments (ec) and the forwarded copies (replica, chain) too. */
#include <math.h>
#include <string.h>

#include "../src/cost/storage_use.h"
#include "harness.h"
#include "support.h"

/* one fluid run with the endurance keys and the given protection; then the
 * figures again at 96 checkpoints a day, so that runs whose stalls differ
 * compare at the same count */
static int endurance_run(const char *p1, const char *p2, const char *p3, struct results *r)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    test_set(&sc, "storage.nodes=10");
    test_set(&sc, "storage.drives=12");
    test_set(&sc, "storage.drive_write_rate=3800MB/s");
    test_set(&sc, "storage.drive_capacity=7680GB");
    test_set(&sc, "storage.drive_dwpd=1");
    test_set(&sc, "storage.capacity=900TB");
    test_set(&sc, "storage.retention=2");
    test_set(&sc, "%s", p1);
    if (p2)
        test_set(&sc, "%s", p2);
    if (p3)
        test_set(&sc, "%s", p3);
    memset(r, 0, sizeof *r);
    int rc = test_run(&sc, r);
    CHECKF(rc == 0 && r->finished && r->endurance.on, "%s: rc %d", p1, rc);
    if (rc == 0) {
        r->cost.checkpoints_per_day = 96;
        endurance_compute(r, &sc);
    }
    return rc;
}

/* daily bytes, kept bytes, drive writes per day: replica 3 exactly 3x and
 * ec 8+2 exactly 1.25x the unprotected run's; fewer checkpoints fit the
 * rating by the same factor */
static void endurance_counts_protection(void)
{
    struct results n, r3, ec;
    int rn = endurance_run("storage.protection=none", NULL, NULL, &n);
    int rr = endurance_run("storage.protection=replica", "storage.replicas=3", NULL, &r3);
    int re = endurance_run("storage.protection=ec", "storage.ec_data=8", "storage.ec_parity=2",
                           &ec);
    if (rn == 0 && rr == 0 && re == 0) {
        const struct endurance_figures *a = &n.endurance, *b = &r3.endurance, *c = &ec.endurance;
        /* the unprotected run writes the checkpoint's own bytes only */
        CHECK(n.plan.protect_bytes == 0 && n.plan.bytes > 0);
        CHECK(a->bytes_per_day == n.plan.bytes * 96);
        CHECKF(b->bytes_per_day == 3 * a->bytes_per_day, "%llu against 3 x %llu",
               (unsigned long long)b->bytes_per_day, (unsigned long long)a->bytes_per_day);
        CHECKF(b->retained_bytes == 3 * a->retained_bytes, "%llu against 3 x %llu",
               (unsigned long long)b->retained_bytes, (unsigned long long)a->retained_bytes);
        CHECKF(fabs(b->dwpd / a->dwpd - 3.0) < 1e-12, "%.17g", b->dwpd / a->dwpd);
        CHECKF(fabs(b->capacity_used / a->capacity_used - 3.0) < 1e-12, "%.17g",
               b->capacity_used / a->capacity_used);
        CHECKF(fabs(a->max_checkpoints_per_day / b->max_checkpoints_per_day - 3.0) < 1e-12,
               "%.17g", a->max_checkpoints_per_day / b->max_checkpoints_per_day);
        /* 4 x ec: 5x the own bytes, an integer either way */
        CHECKF(4 * c->bytes_per_day == 5 * a->bytes_per_day, "%llu against 1.25 x %llu",
               (unsigned long long)c->bytes_per_day, (unsigned long long)a->bytes_per_day);
        CHECKF(4 * c->retained_bytes == 5 * a->retained_bytes, "%llu against 1.25 x %llu",
               (unsigned long long)c->retained_bytes, (unsigned long long)a->retained_bytes);
        CHECKF(fabs(c->dwpd / a->dwpd - 1.25) < 1e-12, "%.17g", c->dwpd / a->dwpd);
        CHECKF(fabs(a->max_checkpoints_per_day / c->max_checkpoints_per_day - 1.25) < 1e-12,
               "%.17g", a->max_checkpoints_per_day / c->max_checkpoints_per_day);
    }
    results_release(&n);
    results_release(&r3);
    results_release(&ec);
}

SUITE(suite_endur2) = {
    {"endurance_counts_protection", endurance_counts_protection},
    {NULL, NULL},
};
