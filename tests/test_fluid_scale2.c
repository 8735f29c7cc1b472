/* The fluid engine at scale, round two (issue 30, item 4): what a run keeps
 * per transfer outside the engine, and spray on three tiers. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/api.h"
#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/fluid/fluid.h"
#include "../src/stats/bound.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

/* scenarios/cluster-100k.yaml at a fiftieth: 2,000 nodes x 8 GPUs, three
 * tiers of 64-port switches, 16,000 transfers. */
static void mid_size(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=2000");
    test_set(sc, "cluster.gpus_per_node=8");
    test_set(sc, "storage.nodes=40");
    test_set(sc, "fabric.switch=CX764QD-N");
    test_set(sc, "fabric.tiers=auto");
    test_set(sc, "fabric.storage_per_leaf=20");
    test_set(sc, "model.name=dense-1t");
    test_set(sc, "parallelism.tp=8");
    test_set(sc, "parallelism.pp=20");
    test_set(sc, "checkpoint.writer_rule=dcp");
    test_set(sc, "engine=fluid");
}

/* The workload keeps its transfers (24 bytes each) and each writer's rank;
 * the plan, per-rank and per-file arrays of the build are released when it
 * ends. Measured by the counter of an arena of its own (the topology's
 * block would hold it: the arena counts whole 1 MB blocks): 66 bytes a
 * transfer; before, the build's scratch stayed in the run's arena, 3.5x
 * that, and this fails. */
static void fluid_scale2_workload_bytes_per_transfer(void)
{
    struct scenario sc, fab;
    mid_size(&sc);
    struct scenario eff = sc;
    struct err e = {""};
    CHECK(scenario_resolve(&eff, &e) == 0);
    workload_fabric(&eff, &fab);
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct workload w;
    memset(&w, 0, sizeof w);
    struct arena wa;
    arena_init(&wa);
    int ok = topo_build(&t, &fab, &a, &e) == 0;
    ok = ok && workload_build(&w, &eff, &t, &wa, &e) == 0;
    CHECKF(ok, "%s", e.msg);
    CHECKF(w.n >= 10000, "%u transfers", w.n);
    double per = w.n ? (double)wa.total / w.n : 0;
    CHECKF(per >= (double)sizeof(struct transfer) && per < 100,
           "%.1f bytes a transfer (%u transfers)", per, w.n);
    /* what it keeps is whole: every writer's rank, every transfer */
    for (uint32_t i = 0; ok && i < w.n; i++)
        if (w.xfers[i].writer >= w.n_writers || !w.xfers[i].bytes) {
            CHECKF(0, "transfer %u: writer %u of %u, %llu bytes", i, w.xfers[i].writer,
                   w.n_writers, (unsigned long long)w.xfers[i].bytes);
            break;
        }
    for (uint32_t k = 0; ok && k < w.n_writers; k++)
        CHECK(workload_writer_rank(&w, k) < w.n_writers * 8u);
    arena_release(&wa);
    arena_release(&a);
}

/* Spray on three tiers: the split each leaf pair's transfers share gives
 * every transfer the very links and shares (bit for bit) its own split
 * gives, so the solver's input and every rate are the same. A small
 * three-tier fabric (600 nodes, 32-port switches), whole and with 6 failed
 * links (unequal splits), and several transfers per leaf pair. */
static void fluid_scale2_grouped_spray_equals_per_transfer(void)
{
    static const char *const fails[] = {"0", "6"};
    for (int k = 0; k < 2; k++) {
        struct scenario sc;
        test_spray3(&sc);
        test_set(&sc, "fabric.failed_links=%s", fails[k]);
        struct test_prep p;
        int ok = test_prepare(&p, &sc) == 0;
        CHECKF(ok, "%s", p.e.msg);
        if (ok) {
            CHECKF(p.t.tiers == 3, "%u tiers", p.t.tiers);
            uint64_t entries = 0;
            uint32_t bad = fluid_grouped_mismatches(&p.eff, &p.t, &p.w, &entries);
            CHECKF(bad == 0, "failed links %s: %u of %u transfers differ", fails[k], bad, p.w.n);
            /* a split over many paths, not one path a transfer */
            CHECKF(p.w.n >= 400 && entries > 10 * (uint64_t)p.w.n,
                   "%u transfers, %llu entries", p.w.n, (unsigned long long)entries);
            CHECK(fluid_run(&p.eff, &p.t, &p.w, &p.r, &p.e) == 0 && p.r.ok);
        }
        test_prep_release(&p);
    }
}

/* Whether two runs' results agree to the bit: completion, every writer's
 * time, the percentiles, what finished and was sent. */
static int same_runs(const struct results *a, const struct results *b, const char *what)
{
    int same = a->ok == b->ok && a->completion_s == b->completion_s &&
               a->first_byte_s == b->first_byte_s && a->writer_p50_s == b->writer_p50_s &&
               a->writer_p99_s == b->writer_p99_s && a->writer_max_s == b->writer_max_s &&
               a->flows_done == b->flows_done && a->bytes_sent == b->bytes_sent &&
               a->n_writer_s == b->n_writer_s && a->n_writer_s > 0;
    uint32_t bad = 0;
    for (uint32_t i = 0; a->n_writer_s == b->n_writer_s && i < a->n_writer_s; i++)
        bad += memcmp(&a->writer_s[i], &b->writer_s[i], sizeof a->writer_s[i]) != 0;
    CHECKF(same && !bad, "%s: completion %.15g / %.15g, max %.15g / %.15g, %u of %u writers differ",
           what, a->completion_s, b->completion_s, a->writer_max_s, b->writer_max_s, bad,
           a->n_writer_s);
    return same && !bad;
}

/* The kinds cases: the defaults with keys set (fluid), 3-tier spray, a
 * mid-size fabric with jitter. */
static const char *const kind_cases[] = {
    "seed=1",
    "workload.start_jitter=2ms",
    "storage.drain_rate=100Gbps storage.ingest_buffer=64MB workload.start_jitter=1ms",
    "checkpoint.rate_limit=150Gbps workload.start_jitter=500us",
    "checkpoint.writer_rule=dcp model.name=llama3-70b parallelism.tp=8 parallelism.pp=4",
    "fabric.load_balancing=wcmp fabric.failed_links=3",
    "spray3",
    "mid",
};

static void kind_case(struct scenario *sc, const char *c)
{
    if (!strcmp(c, "spray3")) {
        test_spray3(sc);
    } else if (!strcmp(c, "mid")) {
        mid_size(sc);
        test_set(sc, "workload.start_jitter=1ms");
    } else {
        scenario_defaults(sc);
        char buf[300];
        snprintf(buf, sizeof buf, "%s", c);
        for (char *k = strtok(buf, " "); k; k = strtok(NULL, " "))
            test_set(sc, "%s", k);
        test_set(sc, "engine=fluid");
    }
}

/* A finishing transfer's latency read by its kind (the bound memo slot
 * set-up found) is what its route's ports give at each finish, to the
 * bit: whole runs both ways (fluid_run_kinds), every writer's time, over
 * two and three tiers, staggered starts, a back end that fills (the
 * buffered term), caps (the alone term), mixed transfer sizes, WCMP
 * (kinds off: its finish takes another route than the heads) and spray
 * grouped (no solver path to read). */
static void fluid_scale2_kinds_as_ports(void)
{
    const char *const *cases = kind_cases;
    for (size_t c = 0; c < sizeof kind_cases / sizeof kind_cases[0]; c++) {
        struct scenario sc;
        kind_case(&sc, cases[c]);
        struct test_prep p;
        struct results by_port;
        int ok = test_prepare(&p, &sc) == 0;
        CHECKF(ok, "%s: %s", cases[c], p.e.msg);
        if (!ok) {
            test_prep_release(&p);
            continue;
        }
        by_port = p.r; /* the prepared figures, for both runs */
        int grouped = !strcmp(cases[c], "spray3");
        ok = fluid_run_kinds(&p.eff, &p.t, &p.w, grouped, 0, &by_port, &p.e) == 0;
        ok = ok && fluid_run_kinds(&p.eff, &p.t, &p.w, grouped, 1, &p.r, &p.e) == 0;
        CHECKF(ok && p.r.ok, "%s: %s %s", cases[c], p.e.msg, p.r.violation);
        if (ok)
            same_runs(&by_port, &p.r, cases[c]);
        results_release(&by_port);
        test_prep_release(&p);
    }
}

/* Set-up takes each transfer's kind from the bound's pass over the same
 * routes (struct workload's kind) instead of looking it up again: the
 * heads, kinds and memo it makes so are those it finds itself, and whole
 * runs both ways agree to the bit, over the cases above, some with more
 * kinds than the memo has slots (a slot filled again: its transfers'
 * figures worked out anew). */
static void fluid_scale2_kinds_handed_as_found(void)
{
    const char *const *cases = kind_cases;
    uint32_t refilled = 0;
    for (size_t c = 0; c < sizeof kind_cases / sizeof kind_cases[0]; c++) {
        struct scenario sc;
        kind_case(&sc, cases[c]);
        struct test_prep p;
        int ok = test_prepare(&p, &sc) == 0;
        CHECKF(ok, "%s: %s", cases[c], p.e.msg);
        if (!ok) {
            test_prep_release(&p);
            continue;
        }
        CHECKF(p.w.kind && p.w.kind_memo, "%s: no kinds handed on", cases[c]);
        refilled += p.w.kind_memo && p.w.kind_memo->evicted != 0;
        int64_t bad = fluid_heads_mismatches(&p.eff, &p.t, &p.w);
        CHECKF(bad == 0, "%s: %lld kinds, heads or memo slots differ", cases[c], (long long)bad);
        struct workload own = p.w; /* set-up finds them itself */
        own.kind = NULL;
        struct results found = p.r;
        int grouped = !strcmp(cases[c], "spray3");
        ok = fluid_run_kinds(&p.eff, &p.t, &own, grouped, 1, &found, &p.e) == 0;
        ok = ok && fluid_run_kinds(&p.eff, &p.t, &p.w, grouped, 1, &p.r, &p.e) == 0;
        CHECKF(ok && p.r.ok, "%s: %s %s", cases[c], p.e.msg, p.r.violation);
        if (ok)
            same_runs(&found, &p.r, cases[c]);
        results_release(&found);
        test_prep_release(&p);
    }
    CHECKF(refilled > 0, "no case fills a memo slot again");
}

/* A route-cache hook: counts its calls and zeroes every transfer's route
 * length and kind, keeping them (as a reader after it would find them). */
struct hook_seen {
    const struct workload *w;
    int calls;
};

static void routes_zeroed(void *ctx)
{
    struct hook_seen *h = ctx;
    h->calls++;
    if (h->w->path)
        memset((void *)(uintptr_t)h->w->path_n, 0, h->w->n);
    if (h->w->kind)
        memset((void *)(uintptr_t)h->w->kind, 0, h->w->n);
}

/* fluid_run_routes_done calls its hook once, after set-up, when each
 * transfer's route leads its solver path (the defaults, three tiers,
 * staggered starts, back ends, caps), and nothing reads the routes or
 * kinds after it: the run is fluid_run's to the bit with them zeroed by
 * the hook. Where the loop routes again at each finish (WCMP, spray
 * grouped) it is not called. workload_drop_paths leaves no routes, and
 * workload_path then routes each transfer as the cache had it. */
static void fluid_scale2_routes_dropped_after_setup(void)
{
    static const int called[] = {1, 1, 1, 1, 1, 0, 0, 1};
    for (size_t c = 0; c < sizeof kind_cases / sizeof kind_cases[0]; c++) {
        struct scenario sc;
        kind_case(&sc, kind_cases[c]);
        struct test_prep p;
        int ok = test_prepare(&p, &sc) == 0;
        CHECKF(ok && p.w.path, "%s: %s", kind_cases[c], p.e.msg);
        if (!ok || !p.w.path) {
            test_prep_release(&p);
            continue;
        }
        struct results plain = p.r;
        ok = fluid_run(&p.eff, &p.t, &p.w, &plain, &p.e) == 0 && plain.ok;
        struct hook_seen h = {&p.w, 0};
        ok = ok && fluid_run_routes_done(&p.eff, &p.t, &p.w, routes_zeroed, &h, &p.r, &p.e) == 0;
        CHECKF(ok, "%s: %s %s", kind_cases[c], p.e.msg, plain.violation);
        CHECKF(h.calls == called[c], "%s: hook called %d times", kind_cases[c], h.calls);
        if (ok)
            same_runs(&plain, &p.r, kind_cases[c]);
        results_release(&plain);
        test_prep_release(&p);
    }
    struct scenario sc;
    kind_case(&sc, kind_cases[0]);
    struct test_prep p;
    int ok = test_prepare(&p, &sc) == 0 && p.w.path && p.w.kind;
    CHECKF(ok, "%s", p.e.msg);
    uint32_t *cached = ok ? calloc((size_t)p.w.n * TOPO_MAX_HOPS, sizeof *cached) : NULL;
    uint8_t *len = ok ? calloc(p.w.n, 1) : NULL;
    for (uint32_t i = 0; cached && len && i < p.w.n; i++)
        len[i] = (uint8_t)workload_path(&p.w, &p.t, i, cached + (size_t)i * TOPO_MAX_HOPS);
    if (ok)
        workload_drop_paths(&p.w, &p.a);
    CHECK(!p.w.path && !p.w.path_n && !p.w.kind);
    uint32_t bad = 0, got[TOPO_MAX_HOPS];
    for (uint32_t i = 0; cached && len && i < p.w.n; i++) {
        uint32_t n = workload_path(&p.w, &p.t, i, got);
        bad += n != len[i] || memcmp(got, cached + (size_t)i * TOPO_MAX_HOPS, n * sizeof *got);
    }
    CHECKF(ok && cached && len && bad == 0, "%u of %u routes differ after the drop", bad, p.w.n);
    free(cached);
    free(len);
    test_prep_release(&p);
}

/* telemetry.ports from the solver's links (the engine holds no port to
 * link map past set-up, a back end its NICs' links): no completion below
 * the bound, which a back end filling sets; every port named as the
 * topology has it, bytes
 * on exactly the ports some transfer's route crosses, and on each of them
 * at least the payload of every transfer crossing it; the spread over
 * uplinks from the same figures. Two and three tiers, two NICs a storage
 * node (their back end fed through both). */
static void fluid_scale2_port_figures_on_routes(void)
{
    static const char *const cases[] = {"seed=1", "mid"};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct scenario sc;
        kind_case(&sc, cases[c]);
        test_set(&sc, "telemetry.ports=true");
        if (c == 0) {
            test_set(&sc, "storage.nics_per_node=2");
            test_set(&sc, "storage.drain_rate=100Gbps");
            test_set(&sc, "storage.ingest_buffer=1MB");
        }
        struct test_prep p;
        int ok = test_prepare(&p, &sc) == 0;
        ok = ok && fluid_run(&p.eff, &p.t, &p.w, &p.r, &p.e) == 0 && p.r.ok;
        CHECKF(ok && p.r.n_ports == p.t.n_ports, "%s: %s %s, %u ports", cases[c], p.e.msg,
               p.r.violation, p.r.n_ports);
        /* the first: its back ends fill (the NICs bring what they drain) */
        CHECKF(p.r.completion_s >= p.r.bound_s * (1 - 1e-9) &&
                   (c || p.r.bound_limit == PATH_BACKEND),
               "%s: completion %.9g s, bound %.9g s (limit %d)", cases[c], p.r.completion_s,
               p.r.bound_s, (int)p.r.bound_limit);
        uint64_t *least = ok ? calloc(p.t.n_ports, sizeof *least) : NULL;
        uint32_t path[TOPO_MAX_HOPS], bad_name = 0, bad_bytes = 0, crossed = 0;
        for (uint32_t i = 0; least && i < p.w.n; i++) {
            uint32_t np = p.w.xfers[i].bytes ? workload_path(&p.w, &p.t, i, path) : 0;
            for (uint32_t k = 0; k < np; k++)
                least[path[k]] += p.w.xfers[i].bytes;
        }
        for (uint32_t q = 0; least && p.r.n_ports == p.t.n_ports && q < p.t.n_ports; q++) {
            const struct port_result *pr = &p.r.ports[q];
            bad_name += pr->node != p.t.ports[q].node || pr->peer != p.t.ports[q].peer ||
                        pr->seg != p.t.ports[q].seg;
            bad_bytes += least[q] ? pr->tx_bytes < least[q] || pr->active_s <= 0
                                  : pr->tx_bytes != 0 || pr->active_s != 0;
            crossed += least[q] != 0;
        }
        CHECKF(least && bad_name == 0 && bad_bytes == 0 && crossed > 100,
               "%s: %u ports misnamed, %u with wrong bytes, %u crossed", cases[c], bad_name,
               bad_bytes, crossed);
        /* the spread over uplinks and spines: balance_compute's on the
         * ports' bytes (rounded to whole bytes there: within 1e-9) */
        struct results *b = calloc(1, sizeof *b);
        double *bytes = calloc(p.t.n_ports, sizeof *bytes);
        for (uint32_t q = 0; b && bytes && p.r.n_ports == p.t.n_ports && q < p.t.n_ports; q++)
            bytes[q] = (double)p.r.ports[q].tx_bytes;
        if (b && bytes)
            balance_compute(b, &p.t, bytes);
        CHECKF(b && bytes && p.r.lb_uplink_imbalance > 1 && p.r.lb_spine_imbalance > 0 &&
                   fabs(b->lb_uplink_imbalance - p.r.lb_uplink_imbalance) < 1e-9 &&
                   fabs(b->lb_spine_imbalance - p.r.lb_spine_imbalance) < 1e-9,
               "%s: imbalance %.12g / %.12g, spines %.12g / %.12g", cases[c],
               p.r.lb_uplink_imbalance, b ? b->lb_uplink_imbalance : 0, p.r.lb_spine_imbalance,
               b ? b->lb_spine_imbalance : 0);
        free(b);
        free(bytes);
        free(least);
        test_prep_release(&p);
    }
}

SUITE(suite_fluid_scale2) = {
    {"fluid_scale2_kinds_handed_as_found", fluid_scale2_kinds_handed_as_found},
    {"fluid_scale2_kinds_as_ports", fluid_scale2_kinds_as_ports},
    {"fluid_scale2_routes_dropped_after_setup", fluid_scale2_routes_dropped_after_setup},
    {"fluid_scale2_port_figures_on_routes", fluid_scale2_port_figures_on_routes},
    {"fluid_scale2_workload_bytes_per_transfer", fluid_scale2_workload_bytes_per_transfer},
    {"fluid_scale2_grouped_spray_equals_per_transfer",
     fluid_scale2_grouped_spray_equals_per_transfer},
    {0, 0},
};
