/* Cost: checkpoint stall, money, failures, optimal interval, goodput. */
#include "cost.h"
#include "design_cost.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../core/text.h"
#include "../core/units.h"
#include "../scenario/catalog.h"

#define DAY_S 86400.0

double cost_young(double delta, double mtbf)
{
    return mtbf > 0 && delta > 0 ? sqrt(2.0 * delta * mtbf) : 0.0;
}

double cost_daly(double delta, double mtbf)
{
    if (!(mtbf > 0) || !(delta > 0))
        return 0.0;
    if (delta >= 2.0 * mtbf)
        return mtbf;
    double x = delta / (2.0 * mtbf);
    return sqrt(2.0 * delta * mtbf) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta;
}

double cost_segment_time(double tau, double delta, double mtbf, double restart)
{
    if (!(mtbf > 0))
        return tau + delta;
    /* expm1 keeps precision when (tau + delta) << M */
    return mtbf * exp(restart / mtbf) * expm1((tau + delta) / mtbf);
}

double cost_goodput(double tau, double delta, double mtbf, double restart)
{
    double t = cost_segment_time(tau, delta, mtbf, restart);
    return t > 0 && isfinite(t) ? tau / t : 0.0;
}

static double clamp_lag(double tau, double delta, double lag)
{
    return lag > 0 ? fmin(lag, tau + delta) : 0.0;
}

double cost_segment_time_lag(double tau, double delta, double lag, double mtbf,
                             double restart)
{
    double t = cost_segment_time(tau, delta, mtbf, restart);
    return mtbf > 0 ? t * exp(clamp_lag(tau, delta, lag) / mtbf) : t;
}

double cost_goodput_lag(double tau, double delta, double lag, double mtbf, double restart)
{
    double t = cost_segment_time_lag(tau, delta, lag, mtbf, restart);
    return t > 0 && isfinite(t) ? tau / t : 0.0;
}

double cost_optimal_numeric(double delta, double mtbf)
{
    if (!(mtbf > 0) || !(delta > 0))
        return 0.0;
    /* goodput is unimodal in tau; R only scales it, so R = 0 here */
    double lo = 1e-9 * mtbf, hi = 20.0 * mtbf + delta;
    const double g = (sqrt(5.0) - 1.0) / 2.0;
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    double fa = cost_goodput(a, delta, mtbf, 0), fb = cost_goodput(b, delta, mtbf, 0);
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        if (fa < fb) {
            lo = a;
            a = b;
            fa = fb;
            b = lo + g * (hi - lo);
            fb = cost_goodput(b, delta, mtbf, 0);
        } else {
            hi = b;
            b = a;
            fb = fa;
            a = hi - g * (hi - lo);
            fa = cost_goodput(a, delta, mtbf, 0);
        }
    }
    return (lo + hi) / 2.0;
}

/* Time to the next failure. */
static double next_failure(struct rng *r, double mtbf)
{
    return -mtbf * log1p(-rng_double(r));
}

void cost_monte_carlo(struct mc_result *out, double tau, double delta,
                      double mtbf, double restart, double horizon_s,
                      uint64_t max_segments, uint64_t seed)
{
    cost_monte_carlo_lag(out, tau, delta, 0.0, mtbf, restart, horizon_s, max_segments, seed);
}

void cost_monte_carlo_lag(struct mc_result *out, double tau, double delta, double lag,
                          double mtbf, double restart, double horizon_s,
                          uint64_t max_segments, uint64_t seed)
{
    struct rng r;
    rng_init(&r, seed, RNG_FAILURE);
    double wall = 0, work = 0;
    uint64_t fails = 0, ckpts = 0;
    const double seg = tau + delta;
    lag = clamp_lag(tau, delta, lag);
    int pending = 0; /* the last checkpoint is still draining */
    while (wall < horizon_s && ckpts + fails < max_segments) {
        double x = mtbf > 0 ? next_failure(&r, mtbf) : INFINITY;
        if (x >= seg) { /* the interval and its checkpoint complete */
            wall += seg;
            work += tau;
            ckpts++;
            pending = lag > 0;
            continue;
        }
        /* failure: the partial interval is lost, and the one before it
         * when its checkpoint was not yet durable; restart (from a durable
         * checkpoint), which can fail too */
        if (pending && x < lag)
            work -= tau;
        pending = 0;
        wall += x;
        fails++;
        for (;;) {
            double y = next_failure(&r, mtbf);
            if (y >= restart) {
                wall += restart;
                break;
            }
            wall += y;
            fails++;
        }
    }
    out->work_s = work;
    out->wall_s = wall;
    out->goodput = wall > 0 ? work / wall : 0.0;
    out->failures = fails;
    out->checkpoints = ckpts;
}

/* <prefix><N>g<suffix> with N a whole number of Gb/s in 1..100000: its
 * rate, else 0. */
static uint64_t rate_name(const char *name, const char *prefix, const char *suffix)
{
    size_t lp = strlen(prefix);
    if (strncmp(name, prefix, lp) != 0)
        return 0;
    const char *p = name + lp;
    uint64_t g = 0;
    if (*p < '1' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9' && g <= 100000)
        g = g * 10 + (uint64_t)(*p++ - '0');
    if (*p++ != 'g' || strcmp(p, suffix) != 0 || g > 100000)
        return 0;
    return g * UINT64_C(1000000000);
}

/* What a price name names: its kind and speed; -1 for no known name. */
static int price_name(const char *name, enum price_kind *kind, uint64_t *bps)
{
    static const struct {
        const char *prefix, *suffix;
        enum price_kind kind;
    } rated[] = {{"optic_", "", PK_OPTIC}, {"optic_", "_sr", PK_OPTIC_SR},
                 {"optic_", "_dr", PK_OPTIC_DR}, {"dac_", "", PK_DAC},
                 {"dac_", "_2x", PK_DAC}, {"dac_", "_4x", PK_DAC},
                 {"aoc_", "_2x", PK_DAC}, {"aoc_", "_4x", PK_DAC}};
    static const char *const other[] = {"fiber_mmf", "fiber_smf", "storage_node", "kwh"};
    *bps = 0;
    if (switch_profile_find(name)) {
        *kind = PK_SWITCH;
        return 0;
    }
    for (size_t i = 0; i < sizeof rated / sizeof rated[0]; i++)
        if ((*bps = rate_name(name, rated[i].prefix, rated[i].suffix)) != 0) {
            *kind = rated[i].kind;
            return 0;
        }
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (!strcmp(name, other[i])) {
            *kind = PK_OTHER;
            return 0;
        }
    /* a storage profile's node, and drives by the capacity classes listed */
    if ((!strncmp(name, "storage_", 8) && storage_profile_find(name + 8)) ||
        (!strncmp(name, "drive_", 6) && price_ref_find(name))) {
        *kind = PK_OTHER;
        return 0;
    }
    return -1;
}

/* " (did you mean X?)" among the profiles and the usual names, or "". */
static void price_hint(const char *name, char *out, size_t len)
{
    static const char *const usual[] = {
        "optic_100g", "optic_200g", "optic_400g", "optic_800g", "optic_1600g",
        "optic_400g_sr", "optic_400g_dr", "optic_800g_sr", "optic_800g_dr", "dac_400g",
        "dac_800g", "fiber_mmf", "fiber_smf", "storage_node", "kwh", "reference",
        "drive_3.84tb", "drive_7.68tb", "drive_15.36tb"};
    const char *cands[128];
    size_t n = 0;
    for (const struct switch_profile *q = switch_catalog; q->name && n < 64; q++)
        cands[n++] = q->name;
    for (size_t i = 0; i < sizeof usual / sizeof usual[0]; i++)
        cands[n++] = usual[i];
    char sname[24][48];
    for (size_t i = 0; i < 24 && storage_catalog[i].name; i++) {
        snprintf(sname[i], sizeof sname[i], "storage_%s", storage_catalog[i].name);
        cands[n++] = sname[i];
    }
    const char *near = text_nearest(name, cands, n, 3);
    if (near)
        snprintf(out, len, " (did you mean %s?)", near);
    else if (len)
        out[0] = '\0';
}

const struct cost_price *cost_price_find(const struct cost_price *pr, uint32_t n,
                                         const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(pr[i].name, name))
            return &pr[i];
    return NULL;
}

/* Append one price (or override a reference one); 0 or -1 with e set. */
static int price_put(struct cost_price *out, uint32_t *n, const char *name, double v,
                     int from_ref, uint32_t k, struct err *e)
{
    enum price_kind kind;
    uint64_t bps;
    if (price_name(name, &kind, &bps) < 0)
        return err_set(e, "cost.prices: reference: unknown name %s", name); /* catalog bug */
    for (uint32_t i = 0; i < *n; i++)
        if (!strcmp(out[i].name, name)) {
            if (!out[i].from_ref)
                return err_set(e, "cost.prices: item %u: %s is priced twice", k, name);
            out[i].price = v;
            out[i].from_ref = 0;
            return 0;
        }
    if (*n == COST_MAX_PRICES)
        return err_set(e, "cost.prices: more than %d prices", COST_MAX_PRICES);
    memcpy(out[*n].name, name, strlen(name) + 1); /* fits: checked by the caller */
    out[*n].optic_bps = kind == PK_OPTIC ? bps : 0;
    out[*n].price = v;
    out[*n].kind = kind;
    out[*n].bps = bps;
    out[*n].from_ref = from_ref;
    (*n)++;
    return 0;
}

int cost_prices_parse(const char *text, struct cost_price *out, uint32_t *n, struct err *e)
{
    *n = 0;
    if (!strcmp(text, "none"))
        return 0;
    const char *p = text;
    for (uint32_t k = 1;; k++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[SCENARIO_LONG_TEXT], name[SCENARIO_LONG_TEXT], hint[96];
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        const char *eq = strchr(item, '=');
        const char *a = item, *b = eq ? eq : item + strlen(item);
        while (*a == ' ')
            a++;
        while (b > a && b[-1] == ' ')
            b--;
        snprintf(name, sizeof name, "%.*s", (int)(b - a), a);
        if (!eq && !strcmp(name, "reference")) {
            if (k != 1)
                return err_set(e, "cost.prices: item %u: reference must be the first item "
                                  "(the items after it override its prices)", k);
            for (const struct price_ref *r = price_reference; r->name; r++)
                if (price_put(out, n, r->name, r->price, 1, k, e) < 0)
                    return -1;
            if (!end)
                return 0;
            p = end + 1;
            continue;
        }
        if (!eq)
            return err_set(e, "cost.prices: item %u \"%.60s\": expected NAME=PRICE "
                              "(e.g. CX732Q-N=18000 or optic_400g=900) or reference first", k,
                           item);
        enum price_kind kind;
        uint64_t bps;
        if (price_name(name, &kind, &bps) < 0) {
            price_hint(name, hint, sizeof hint);
            return err_set(e, "cost.prices: item %u \"%.60s\": unknown name \"%.60s\"%s; "
                              "names are switch profiles (ckptnet switches), "
                              "optic_<Gb/s>g[_sr|_dr], dac_<Gb/s>g[_2x|_4x], "
                              "aoc_<Gb/s>g_2x|_4x, fiber_mmf, "
                              "fiber_smf, "
                              "storage_node, storage_<profile> (ckptnet catalog), "
                              "drive_<TB>tb and kwh", k, item, name, hint);
        }
        if (strlen(name) >= sizeof out->name)
            return err_set(e, "cost.prices: item %u: name too long", k);
        char *rest;
        double v = strtod(eq + 1, &rest);
        while (*rest == ' ')
            rest++;
        if (rest == eq + 1 || *rest || !isfinite(v) || v < 0 || v > 1e12)
            return err_set(e, "cost.prices: item %u \"%.60s\": expected a price from 0 "
                              "to 1e12 after '=', got \"%.40s\"", k, item, eq + 1);
        if (price_put(out, n, name, v, 0, k, e) < 0)
            return -1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

void cost_storage_bill(struct storage_bill *b, const struct scenario *sc,
                       const struct cost_price *pr, uint32_t np)
{
    memset(b, 0, sizeof *b);
    snprintf(b->node, sizeof b->node, "storage_node");
    const struct storage_price *sp = storage_price_find(sc->storage.profile);
    if (!sp)
        return;
    char node[sizeof b->node];
    snprintf(node, sizeof node, "storage_%s", sp->profile);
    /* a list that prices storage_node alone keeps pricing every node so */
    if (!cost_price_find(pr, np, node) && cost_price_find(pr, np, "storage_node"))
        return;
    memcpy(b->node, node, sizeof node);
    snprintf(b->drive, sizeof b->drive, "%s", sp->drive);
    b->drives = scenario_is_set(sc, "storage.drives") ? sc->storage.drives : sp->drives;
}

_Static_assert(TOPO_LINK_CLASSES == DL_N, "topo's link classes are the designer's");

/* The designer's rule (cost_price_links), so that size's BOM of a design
 * and run's capital of the fabric it builds agree. */
/* The switches sw, links by class and speed and broken-out ports of a
 * built fabric (the whole, or training's copy of its compute side) into o. */
static void price_built(struct design_price *o, const struct scenario *sc,
                        const uint32_t sw[3], const uint32_t cn[TOPO_LINK_CLASSES],
                        const uint64_t cbps[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS],
                        const uint64_t clinks[TOPO_LINK_CLASSES][TOPO_BOM_SPEEDS],
                        const uint64_t bp[TOPO_LINK_CLASSES][2], const struct cost_price *pr,
                        uint32_t np)
{
    static const char *const tier[3] = {"leaves", "spines", "super-spines"};
    const char *prof[3] = {sc->fabric.leaf_switch, sc->fabric.spine_switch,
                           sc->fabric.superspine_switch};
    for (int i = 0; i < 3; i++)
        cost_price_add(o, &o->switches, pr, np, prof[i], sw[i], tier[i]);
    /* the ends' breakouts (fabric.*breakout) and their ports' speeds */
    const struct switch_profile *lp = switch_profile_find(sc->fabric.leaf_switch);
    const struct switch_profile *sp = switch_profile_find(sc->fabric.spine_switch);
    const struct switch_profile *up = switch_profile_find(sc->fabric.superspine_switch);
    uint32_t bd = sc->fabric.bo_down ? sc->fabric.bo_down : 1;
    uint32_t bu = sc->fabric.bo_up ? sc->fabric.bo_up : 1;
    uint32_t bs = sc->fabric.bo_spine ? sc->fabric.bo_spine : 1;
    uint64_t lb = lp ? lp->port_bps : 0, sb = sp ? sp->port_bps : 0, ub = up ? up->port_bps : 0;
    const struct design_end ends[DL_N][2] = {
        {{1, 0, 0}, {bd, lb, bp[0][1]}}, {{1, 0, 0}, {bd, lb, bp[1][1]}},
        {{bu, lb, bp[2][0]}, {bs, sb, bp[2][1]}}, {{bs, sb, bp[3][0]}, {bs, ub, bp[3][1]}}};
    for (int k = 0; k < DL_N; k++) {
        /* broken out: the class's links at once (one lane speed) */
        if (cn[k] && (ends[k][0].b > 1 || ends[k][1].b > 1)) {
            uint64_t links = 0;
            for (uint32_t i = 0; i < cn[k]; i++)
                links += clinks[k][i];
            cost_price_links_bo(o, k, links, cbps[k][0], ends[k], pr, np);
            continue;
        }
        for (uint32_t i = 0; i < cn[k]; i++)
            cost_price_links(o, k, clinks[k][i], cbps[k][i], pr, np);
    }
}

void cost_capital(struct results *r, const struct scenario *sc)
{
    struct cost_figures *c = &r->cost;
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np = 0;
    struct err e;
    c->priced = 0;
    c->capital = c->capital_switches = c->capital_optics = c->capital_per_day = 0;
    c->capital_cables = c->capital_storage = c->capital_training = 0;
    c->n_unpriced = 0;
    c->amortisation_years = sc->cost.amortisation_years;
    if (cost_prices_parse(sc->cost.prices, pr, &np, &e) < 0 || np == 0)
        return;
    c->priced = 1;
    struct design_price o;
    memset(&o, 0, sizeof o);
    price_built(&o, sc, r->bom_switches, r->bom_class_n,
                (const uint64_t(*)[TOPO_BOM_SPEEDS])r->bom_class_bps,
                (const uint64_t(*)[TOPO_BOM_SPEEDS])r->bom_class_links,
                (const uint64_t(*)[2])r->bom_bo_ports, pr, np);
    struct storage_bill node;
    cost_storage_bill(&node, sc, pr, np);
    cost_price_storage(&o, pr, np, &node, r->bom_storage_nodes);
    if (r->bom_train_on) { /* training's own fabric: its parts, apart */
        struct design_price t;
        memset(&t, 0, sizeof t);
        const struct topo_side_bom *b = &r->bom_train;
        price_built(&t, sc, b->sw, b->n, b->bps, b->links, b->ports, pr, np);
        o.training = t.switches + t.optics + t.cables;
        for (uint32_t i = 0; i < t.n_unpriced && o.n_unpriced < 8; i++)
            snprintf(o.unpriced[o.n_unpriced++], sizeof o.unpriced[0], "training fabric: %.50s",
                     t.unpriced[i]);
    }
    c->capital_switches = o.switches;
    c->capital_optics = o.optics;
    c->capital_cables = o.cables;
    c->capital_storage = o.storage;
    c->capital_training = o.training;
    c->capital = o.switches + o.optics + o.cables + o.storage + o.training;
    c->capital_per_day = c->capital / (sc->cost.amortisation_years * 365.25);
    for (uint32_t i = 0; i < o.n_unpriced && c->n_unpriced < COST_MAX_UNPRICED; i++)
        snprintf(c->unpriced[c->n_unpriced++], sizeof c->unpriced[0], "%s", o.unpriced[i]);
}

int cost_check(const struct scenario *sc, struct err *e)
{
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np;
    if (cost_prices_parse(sc->cost.prices, pr, &np, e) < 0)
        return -1;
    if (sc->checkpoint.drain_slowdown > 0 && sc->cluster.host_bps > 0)
        return err_set(e, "checkpoint.drain_slowdown: give checkpoint.drain_slowdown or "
                          "cluster.host_rate (which derives it), not both (set the other to 0)");
    if (sc->failures.mtbf_node_h > 0 && sc->failures.mtbf_gpu_h > 0)
        return err_set(e, "failures.mtbf_per_node: give failures.mtbf_per_node or "
                          "failures.mtbf_per_gpu, not both (set the other to 0)");
    return 0;
}

/* Job MTBF in seconds: every node (or GPU) fails independently. */
static double job_mtbf(const struct scenario *sc, uint32_t gpus)
{
    if (sc->failures.mtbf_node_h > 0)
        return sc->failures.mtbf_node_h * 3600.0 / sc->cluster.nodes;
    if (sc->failures.mtbf_gpu_h > 0)
        return sc->failures.mtbf_gpu_h * 3600.0 / gpus;
    return 0.0;
}

double cost_drain_slowdown(const struct scenario *sc, uint64_t bytes, double drain_s)
{
    if (sc->checkpoint.drain_slowdown > 0)
        return sc->checkpoint.drain_slowdown;
    if (!sc->cluster.host_bps || !(drain_s > 0) || !sc->cluster.nodes)
        return 0.0;
    /* a node's mean drain rate in bits/s against its host budget */
    double rate = 8.0 * (double)bytes / sc->cluster.nodes / drain_s;
    return fmin(1.0, rate / (double)sc->cluster.host_bps);
}

/* The drain runs from the stall's end to the write's end; training loses
 * its slowdown's fraction of that time. Sync has no drain. */
static void cost_contention(struct cost_figures *c, const struct scenario *sc,
                            const struct plan_summary *p)
{
    c->drain_s = c->drain_slowdown = c->contention_s = 0.0;
    c->contention_on = sc->checkpoint.drain_slowdown > 0 || sc->cluster.host_bps > 0;
    if (p->stall_measured || !(c->end_s > c->stall_s))
        return;
    double drain = c->end_s - c->stall_s;
    double s = cost_drain_slowdown(sc, p->bytes, drain);
    if (!(s > 0))
        return;
    c->drain_s = drain;
    c->drain_slowdown = s;
    c->contention_s = drain * s;
}

void cost_compute(struct results *r, const struct scenario *sc)
{
    struct cost_figures *c = &r->cost;
    const struct plan_summary *p = &r->plan;
    double ps = (double)PS_PER_S;
    double gpus = p->gpus;
    double step = (double)sc->training.step_ps / ps;
    double tau = (double)sc->training.interval_ps / ps;
    /* recovery: as configured, or auto: restart overhead + the restore
     * (simulated with phase both, its bound with phase save; run.c) */
    const struct restore_figures *rf = &r->restore;
    double R = (double)sc->failures.recovery_ps / ps, R_other = R;
    c->recovery_from = "configured";
    if (sc->failures.recovery_ps == SCENARIO_AUTO_TIME) {
        int have = rf->ran && rf->finished && rf->ok;
        R = have ? rf->recovery_s : (double)sc->restore.restart_ps / ps;
        R_other = have && rf->other_finished ? rf->other_recovery_s : R;
        c->recovery_from = !have            ? "restart overhead only (the restore did not finish)"
                           : rf->estimated ? "restore bound"
                                           : "simulated restore";
    }
    c->recovery_s = R;

    /* the engine measures from the first byte sent (the earliest transfer
     * start); the GPUs wait from the trigger */
    c->end_s = (double)p->first_start_ps / ps + r->completion_s;
    c->stall_s = p->stall_measured ? c->end_s : (double)p->stall_ps / ps;
    /* training steps the drain slowed: every GPU waits for the slowest DP
     * group, so the job loses that time on top of the stall. Only when the
     * GPUs train during the write (the stall is not the whole write) */
    double fabric_lost = r->training.on && !p->stall_measured ? r->training.lost_s : 0.0;
    cost_contention(c, sc, p);
    c->training_lost_s = fabric_lost + c->contention_s;
    double d = c->stall_s + c->training_lost_s; /* time per checkpoint without progress */
    c->drain_late = !p->stall_measured && c->end_s > c->stall_s + tau;
    c->interval_s = tau;
    c->checkpoints_per_day = DAY_S / (tau + d);
    c->gpu_hours_per_day = c->checkpoints_per_day * c->stall_s * gpus / 3600.0;
    c->money_per_day = c->gpu_hours_per_day * sc->training.gpu_hour_cost;
    c->training_slowdown_gpu_hours_per_day =
        c->checkpoints_per_day * fabric_lost * gpus / 3600.0;
    c->training_slowdown_money_per_day =
        c->training_slowdown_gpu_hours_per_day * sc->training.gpu_hour_cost;
    c->contention_gpu_hours_per_day = c->checkpoints_per_day * c->contention_s * gpus / 3600.0;
    c->contention_money_per_day = c->contention_gpu_hours_per_day * sc->training.gpu_hour_cost;
    c->mfu_points_lost = 100.0 * sc->training.mfu * d / (tau + d);

    double M = job_mtbf(sc, p->gpus);
    c->job_mtbf_s = M;
    c->failures_per_day = M > 0 ? DAY_S / M : 0.0;
    /* an interval is whole steps, and a two-phase drain must end before
     * the next checkpoint starts */
    double floor_s = step;
    if (!p->stall_measured && c->end_s - c->stall_s > floor_s)
        floor_s = c->end_s - c->stall_s;
    c->young_s = M > 0 ? fmax(cost_young(d, M), floor_s) : 0.0;
    c->daly_s = M > 0 ? fmax(cost_daly(d, M), floor_s) : 0.0;
    /* the lag does not move the optimum: its factor e^(lag/M) is the same
     * for every interval the drain fits in (floor_s) */
    double lag = p->stall_measured ? 0.0 : fmax(0.0, c->end_s - d);
    c->durability_lag_s = lag;
    c->goodput = cost_goodput_lag(tau, d, lag, M, R);
    c->goodput_at_optimal = M > 0 ? cost_goodput_lag(c->daly_s, d, lag, M, R) : c->goodput;
    c->lost_gpu_hours_per_day = (1.0 - c->goodput) * 24.0 * gpus;
    c->lost_money_per_day = c->lost_gpu_hours_per_day * sc->training.gpu_hour_cost;
    c->lag_gpu_hours_per_day = (cost_goodput(tau, d, M, R) - c->goodput) * 24.0 * gpus;
    c->lag_money_per_day = c->lag_gpu_hours_per_day * sc->training.gpu_hour_cost;
    /* the broadcast's saving: goodput with its recovery less with every
     * replica reading, over the job's GPUs */
    int bcast = sc->restore.mode == RESTORE_ONE_BROADCAST;
    c->bcast_saves_gpu_hours_per_day = (cost_goodput_lag(tau, d, lag, M, bcast ? R : R_other) -
                                        cost_goodput_lag(tau, d, lag, M, bcast ? R_other : R)) *
                                       24.0 * gpus;

    c->goodput_mc = 0;
    c->mc_days = 0;
    c->mc_failures = 0;
    if (M > 0 && sc->failures.mc_days > 0) {
        struct mc_result mc;
        /* at most 1e7 intervals: a few hundred ms even for tiny intervals */
        cost_monte_carlo_lag(&mc, tau, d, lag, M, R, sc->failures.mc_days * DAY_S,
                         UINT64_C(10000000), sc->seed);
        c->goodput_mc = mc.goodput;
        c->mc_days = mc.wall_s / DAY_S;
        c->mc_failures = mc.failures;
    }
}
