/* The public API (include/ckptnet.h, src/api/public.c) against the internal
 * one: the same scenario run both ways gives the same figures, documents
 * and messages. tests/header.sh checks the header itself and a program
 * built against it alone. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/ckptnet.h"
#include "../src/api/ckpt.h"
#include "harness.h"
#include "support.h"

static const char *const small[] = {"cluster.nodes=16", "fabric.spines=4", "seed=5"};

/* The internal run of small plus extra (NULL: none), as the CLI makes it. */
static int internal_run(struct scenario *sc, struct results *r, const char *extra)
{
    struct err e = {{0}};
    scenario_defaults(sc);
    for (size_t i = 0; i < sizeof small / sizeof *small; i++)
        test_set(sc, "%s", small[i]);
    if (extra)
        test_set(sc, "%s", extra);
    CHECK(scenario_resolve(sc, &e) == 0 && scenario_validate(sc, &e) == 0);
    return test_run(sc, r);
}

static struct ckpt_results *public_run(const char *extra)
{
    struct ckpt_err e = {{0}};
    struct ckpt_scenario *sc = ckpt_scenario_new();
    CHECK(sc != NULL);
    if (!sc)
        return NULL;
    for (size_t i = 0; i < sizeof small / sizeof *small; i++)
        CHECK(ckpt_scenario_set(sc, small[i], &e) == 0);
    if (extra)
        CHECK(ckpt_scenario_set(sc, extra, &e) == 0);
    struct ckpt_results *r = ckpt_scenario_run(sc, &e);
    CHECKF(r != NULL, "%s", e.msg);
    ckpt_scenario_free(sc);
    return r;
}

/* What a writer prints for r, as a malloc'd string. */
static char *public_text(const struct ckpt_results *r, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    if (json)
        CHECK(ckpt_report_json(f, r, 0, NULL) == 0);
    else
        ckpt_report_summary(f, r);
    fclose(f);
    return buf;
}


/* s without its "  perf" line (wall time differs from run to run). */
static char *drop_perf(char *s)
{
    char *p = s ? strstr(s, "\n  perf ") : NULL;
    if (p) {
        char *nl = strchr(p + 1, '\n');
        memmove(p, nl ? nl : p + strlen(p), strlen(nl ? nl : p + strlen(p)) + 1);
    }
    return s;
}

/* Both engines: figures by name equal the internal results' (to the JSON's
 * printed digits), the JSON document and the summary (but its wall time) byte for byte. */
static void public_equals_internal(void)
{
    for (int fluid = 0; fluid < 2; fluid++) {
        const char *extra = fluid ? "engine=fluid" : NULL;
        struct scenario *sc = malloc(sizeof *sc);
        struct results r;
        CHECK(sc != NULL);
        if (!sc || internal_run(sc, &r, extra) != 0) {
            free(sc);
            continue;
        }
        struct ckpt_results *pr = public_run(extra);
        if (pr) {
            struct {
                const char *name;
                double want;
            } fig[] = {
                {"checkpoint.completion_s", r.completion_s},
                {"checkpoint.bytes", (double)r.ckpt_bytes},
                {"checkpoint.writers", r.writers},
                {"checkpoint.writer_completion_s.p99", r.writer_p99_s},
                {"bound.completion_s", r.bound_s},
                {"checkpoint.finished", r.finished},
            };
            for (size_t i = 0; i < sizeof fig / sizeof *fig; i++) {
                double v = -1;
                CHECKF(ckpt_result_number(pr, fig[i].name, &v) == 0, "%s", fig[i].name);
                CHECKF(fabs(v - fig[i].want) <= 1e-9 * fabs(fig[i].want), "%s: %.17g != %.17g",
                       fig[i].name, v, fig[i].want);
            }
            const char *engine = NULL;
            CHECK(ckpt_result_text(pr, "engine", &engine) == 0 && engine &&
                  !strcmp(engine, names_of(&names_engine, r.engine)));
            CHECK(ckpt_results_ok(pr) == (r.ok && r.finished));
            char *ij = test_json(sc, &r), *pj = public_text(pr, 1);
            CHECK(ij && pj && !strcmp(ij, pj));
            char *is = test_summary(sc, &r), *ps = public_text(pr, 0);
            CHECK(is && ps && strstr(is, "\n  perf ") && !strcmp(drop_perf(is), drop_perf(ps)));
            free(ij);
            free(pj);
            free(is);
            free(ps);
            ckpt_results_free(pr);
        }
        results_release(&r);
        free(sc);
    }
}

/* Every refusal carries the internal API's message, whole. */
static void public_errors_are_internal_messages(void)
{
    struct scenario *sc = malloc(sizeof *sc);
    struct ckpt_scenario *ps = ckpt_scenario_new();
    CHECK(sc && ps);
    if (sc && ps) {
        struct err ie = {{0}};
        struct ckpt_err pe = {{0}};
        scenario_defaults(sc);
        CHECK(scenario_load_file(sc, "tests/no-such.yaml", &ie) == -1);
        CHECK(ckpt_scenario_load(ps, "tests/no-such.yaml", &pe) == -1);
        CHECKF(!strcmp(ie.msg, pe.msg), "%s | %s", ie.msg, pe.msg);
        CHECK(scenario_set(sc, "fabric.spines=0", &ie) == -1);
        CHECK(ckpt_scenario_set(ps, "fabric.spines=0", &pe) == -1);
        CHECKF(!strcmp(ie.msg, pe.msg), "%s | %s", ie.msg, pe.msg);
        /* a fabric too wide for its leaves: refused by validate and run */
        CHECK(ckpt_scenario_set(ps, "fabric.spines=64", &pe) == 0);
        CHECK(ckpt_scenario_validate(ps, &pe) == -1 && strstr(pe.msg, "fabric.leaf_switch"));
        CHECK(ckpt_scenario_run(ps, &pe) == NULL && strstr(pe.msg, "fabric.leaf_switch"));
        CHECK(ckpt_scenario_describe(stderr, ps, &pe) == -1);
    }
    free(sc);
    ckpt_scenario_free(ps);
}

/* Names that are not figures: -1, the value untouched. */
static void public_result_names(void)
{
    struct ckpt_results *r = public_run("engine=fluid");
    if (!r)
        return;
    double v = 7;
    const char *s = "x";
    const char *bad[] = {"", ".", "checkpoint", "checkpoint.", ".checkpoint.bytes",
                         "checkpoint..bytes", "checkpoint.bytes.0", "no_such", "engine",
                         "storage.node_bytes.x", "storage.node_bytes.4294967296"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECKF(ckpt_result_number(r, bad[i], &v) == -1 && v == 7, "\"%s\"", bad[i]);
    CHECK(ckpt_result_text(r, "checkpoint.bytes", &s) == -1 && !strcmp(s, "x"));
    CHECK(ckpt_result_number(r, "storage.node_bytes.3", &v) == 0 && v > 0);
    CHECK(ckpt_result_number(r, "storage.node_bytes.4", &v) == -1);
    ckpt_results_free(r);
}

static int count_calls(void *ud, double sim_s, double delivered, double total, double events)
{
    (void)sim_s, (void)delivered, (void)total, (void)events;
    ++*(int *)ud;
    return 0;
}

/* A progress function is called and changes nothing in the document. */
static void public_progress_changes_nothing(void)
{
    struct ckpt_scenario *sc = ckpt_scenario_new();
    CHECK(sc && ckpt_scenario_set(sc, "cluster.nodes=16", NULL) == 0 &&
          ckpt_scenario_set(sc, "fabric.spines=4", NULL) == 0);
    int calls = 0;
    struct ckpt_results *a = sc ? ckpt_scenario_run(sc, NULL) : NULL;
    struct ckpt_results *b = sc ? ckpt_scenario_run_progress(sc, count_calls, &calls, NULL) : NULL;
    CHECK(a && b && calls > 0);
    if (a && b) {
        char *ja = public_text(a, 1), *jb = public_text(b, 1);
        CHECK(ja && jb && !strcmp(ja, jb));
        free(ja);
        free(jb);
    }
    ckpt_results_free(a);
    ckpt_results_free(b);
    ckpt_scenario_free(sc);
}

SUITE(suite_public) = {
    {"public_progress_changes_nothing", public_progress_changes_nothing},
    {"public_equals_internal", public_equals_internal},
    {"public_errors_are_internal_messages", public_errors_are_internal_messages},
    {"public_result_names", public_result_names},
    {NULL, NULL},
};
