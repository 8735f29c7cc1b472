/* The load-balancing registry (src/scenario/lbscheme.h): every row's name
 * goes through the parser, the JSON and the summary, and what the engines,
 * the bound and the advice read comes from the row. Iterates the table, so a
 * row added without its parser choice or report name fails here. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/pkt/pnet.h"
#include "../src/scenario/lbscheme.h"
#include "harness.h"
#include "support.h"

/* A small fluid run: its results carry the scheme to the reports. */
static int small_run(struct scenario *sc, struct results *r)
{
    scenario_defaults(sc);
    test_set(sc, "engine=fluid");
    test_set(sc, "cluster.nodes=16");
    test_set(sc, "storage.nodes=8");
    test_set(sc, "transport.receiver=ooo");
    return test_run(sc, r);
}

static const char *json_at(json_t *root, const char *dotted)
{
    json_t *v = test_json_at(root, dotted);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Names: present, distinct, and exactly the parser's choices in order. */
static void lbtable_names_are_the_choices(void)
{
    CHECKF(names_lb.n == LB_COUNT, "names_lb has %d names, the table %d", names_lb.n, LB_COUNT);
    /* the parser's list of choices is the table's, in order */
    char want[256] = "expected one of ";
    for (int i = 0; i < LB_COUNT; i++) {
        CHECK(names_of(&names_lb, i) == lb_schemes[i].name);
        strcat(want, lb_schemes[i].name);
        strcat(want, i + 1 < LB_COUNT ? ", " : "");
    }
    {
        struct scenario sc;
        struct err e = {{0}};
        scenario_defaults(&sc);
        CHECK(scenario_set(&sc, "fabric.load_balancing=none_such", &e) != 0);
        CHECKF(strstr(e.msg, want) != NULL, "parser: %s; table: %s", e.msg, want);
    }
    for (int i = 0; i < LB_COUNT; i++) {
        const char *name = lb_schemes[i].name;
        CHECKF(name && *name, "row %d has no name", i);
        if (!name)
            continue;
        for (int j = 0; j < i; j++)
            CHECKF(!lb_schemes[j].name || strcmp(lb_schemes[j].name, name), "rows %d and %d: %s",
                   j, i, name);
        struct scenario sc;
        struct err e = {{0}};
        scenario_defaults(&sc);
        CHECKF(scenario_set(&sc, "fabric.load_balancing=none_such", &e) != 0, "accepted");
        char kv[96];
        snprintf(kv, sizeof kv, "fabric.load_balancing=%s", name);
        CHECKF(scenario_set(&sc, kv, &e) == 0, "%s: %s", kv, e.msg);
        CHECKF(sc.fabric.load_balancing == i, "%s parsed as %d", name, sc.fabric.load_balancing);
        CHECK(lb_scheme(i) == &lb_schemes[i]);
    }
    CHECK(lb_scheme(-1) == &lb_schemes[0] && lb_scheme(LB_COUNT) == &lb_schemes[0]);
}

/* Each row's name in the JSON (network.lb.scheme) and the summary's balance
 * line, from one run's results relabelled row by row. */
static void lbtable_name_round_trips_reports(void)
{
    struct scenario sc;
    struct results r;
    if (small_run(&sc, &r) != 0) {
        CHECK(!"run");
        return;
    }
    for (int i = 0; i < LB_COUNT; i++) {
        const char *name = lb_schemes[i].name;
        char kv[96];
        snprintf(kv, sizeof kv, "fabric.load_balancing=%s", name);
        test_set(&sc, "%s", kv);
        r.lb = sc.fabric.load_balancing;
        char *js = test_json(&sc, &r);
        json_error_t je;
        json_t *root = js ? json_loads(js, 0, &je) : NULL;
        const char *got = root ? json_at(root, "network.lb.scheme") : NULL;
        CHECKF(got && !strcmp(got, name), "%s: JSON says %s", name, got ? got : "(none)");
        json_decref(root);
        free(js);

        char *buf = NULL, want[64];
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f) {
            CHECK(!"memstream");
            break;
        }
        report_summary(f, &sc, &r);
        fclose(f);
        snprintf(want, sizeof want, "balance     %s:", name);
        CHECKF(buf && strstr(buf, want), "%s: no \"%s\" in the summary", name, want);
        free(buf);
    }
    results_release(&r);
}

/* What the readers take from a row: granularity with the per-packet knob,
 * the verdict's per-flow advice, the fluid engine's unmodelled line. */
static void lbtable_rows_drive_readers(void)
{
    char buf[256];
    lb_names_with(LB_PER_FLOW, buf, sizeof buf);
    for (int i = 0; i < LB_COUNT; i++) {
        const struct lb_scheme *s = &lb_schemes[i];
        CHECKF(!strstr(buf, s->name) == (s->grain != LB_PER_FLOW), "%s in \"%s\"", s->name, buf);
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "fabric.load_balancing=%s", s->name);
        CHECK(lb_grain(&sc) == s->grain);
        test_set(&sc, "fabric.lb.adaptive_per_packet=true");
        CHECK(lb_grain(&sc) == (s->per_packet_knob ? LB_PER_PACKET : s->grain));
        /* a row whose flowlets move says what the fluid engine leaves out */
        CHECK((s->grain == LB_PER_FLOWLET) == (s->fluid_moves != NULL));
        /* the packet engine's port-load tracking and per-flow memo follow
         * the row, not a comparison with one enum value */
        struct pnet n;
        pnet_bare(&n, &sc);
        CHECKF(n.lb_adaptive == s->tracks_load && n.lb_ecmp == s->hash_only, "%s", s->name);
    }
}

SUITE(suite_lbtable) = {
    {"lbtable_names_are_the_choices", lbtable_names_are_the_choices},
    {"lbtable_name_round_trips_reports", lbtable_name_round_trips_reports},
    {"lbtable_rows_drive_readers", lbtable_rows_drive_readers},
    {NULL, NULL},
};
