/* Storage nodes priced by their profile (cost.prices storage_<profile> and
 * drive_<TB>tb; docs/size.md, Reference prices): by hand, in size's BOM and
 * in run's capital. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/cost/design_cost.h"
#include "harness.h"
#include "support.h"

/* The storage capital of n nodes of sc's profile at prices. */
static double storage_capital(const char *profile, const char *extra, const char *prices,
                              uint64_t n, struct design_price *o)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "storage.profile=%s", profile);
    if (extra)
        test_set(&sc, "%s", extra);
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np = 0;
    struct err e = {""};
    CHECKF(cost_prices_parse(prices, pr, &np, &e) == 0, "%s", e.msg);
    struct storage_bill b;
    cost_storage_bill(&b, &sc, pr, np);
    memset(o, 0, sizeof *o);
    cost_price_storage(o, pr, np, &b, n);
    return o->storage;
}

/* Reference prices, 4 nodes each:
 *   yanrong-f9000x: 30000 + 16 drives x 450 (drive_3.84tb)  = 37200 a node, 148800
 *   ubipower-18000: 30000 + 16 drives x 1600 (drive_15.36tb) = 55600 a node, 222400
 *   ddn-ai400x2:   150000 + 24 drives x 850 (drive_7.68tb)  = 170400 a node, 681600
 * same chassis price for the first two: the drives' capacity class tells
 * them apart. */
static void sprice_profiles_by_hand(void)
{
    struct design_price o;
    double a = storage_capital("yanrong-f9000x", NULL, "reference", 4, &o);
    CHECKF(a == 148800 && o.n_unpriced == 0, "yanrong %g", a);
    CHECKF(fabs(o.watts - 4 * (1000 + 16 * 15)) < 1e-9, "%g W", o.watts);
    double b = storage_capital("ubipower-18000", NULL, "reference", 4, &o);
    CHECKF(b == 222400 && o.n_unpriced == 0, "ubipower %g", b);
    double c = storage_capital("ddn-ai400x2", NULL, "reference", 4, &o);
    CHECKF(c == 681600, "ddn %g", c);
    /* no profile: storage_node, 4 x 60000 */
    double d = storage_capital("none", NULL, "reference", 4, &o);
    CHECKF(d == 240000, "none %g", d);
    /* every profile has a priced node and drive class in the reference list */
    for (const struct storage_profile *p = storage_catalog; p->name; p++) {
        double v = storage_capital(p->name, NULL, "reference", 1, &o);
        CHECKF(v > 0 && o.n_unpriced == 0, "%s: %g, %u unpriced", p->name, v, o.n_unpriced);
    }
}

/* Overrides, storage.drives, and the fallbacks. */
static void sprice_overrides_and_fallbacks(void)
{
    struct design_price o;
    /* drive override: 30000 + 16 x 500 = 38000 */
    CHECK(storage_capital("yanrong-f9000x", NULL, "reference,drive_3.84tb=500", 1, &o) == 38000);
    /* node override: 20000 + 16 x 450 = 27200 */
    CHECK(storage_capital("yanrong-f9000x", NULL, "reference,storage_yanrong-f9000x=20000", 1,
                          &o) == 27200);
    /* storage.drives replaces the profile's 16: 30000 + 8 x 450 = 33600 */
    CHECK(storage_capital("yanrong-f9000x", "storage.drives=8", "reference", 1, &o) == 33600);
    /* a list naming storage_node only keeps pricing nodes so: 2 x 60000 */
    CHECK(storage_capital("yanrong-f9000x", NULL, "storage_node=60000", 2, &o) == 120000);
    /* node priced, drives not: the drives are listed unpriced */
    CHECK(storage_capital("yanrong-f9000x", NULL, "storage_yanrong-f9000x=30000", 2, &o) ==
          60000);
    CHECKF(o.n_unpriced == 1 && !strcmp(o.unpriced[0], "32 storage drives (drive_3.84tb)"),
           "%u: %s", o.n_unpriced, o.unpriced[0]);
    /* unknown names are refused with a hint */
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np;
    struct err e = {""};
    CHECK(cost_prices_parse("storage_yanrong=1", pr, &np, &e) < 0 &&
          strstr(e.msg, "unknown name") && strstr(e.msg, "storage_<profile>"));
    CHECK(cost_prices_parse("drive_9tb=1", pr, &np, &e) < 0 && strstr(e.msg, "unknown name"));
}

/* Run's capital with a profile: the default scenario's 4 storage nodes as
 * yanrong-f9000x at the reference prices, 4 x 37200 = 148800. */
static void sprice_run_capital(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "storage.profile=yanrong-f9000x");
    test_set(&sc, "cost.prices=reference");
    struct ckpt_description desc;
    struct err e = {""};
    CHECKF(ckpt_describe(&sc, &desc, &e) == 0, "%s", e.msg);
    CHECKF(desc.r.cost.capital_storage == 4 * 37200.0, "run's storage capital %g",
           desc.r.cost.capital_storage);
}

SUITE(suite_sprice) = {
    {"sprice_profiles_by_hand", sprice_profiles_by_hand},
    {"sprice_overrides_and_fallbacks", sprice_overrides_and_fallbacks},
    {"sprice_run_capital", sprice_run_capital},
    {0, 0},
};
