/* The result fields table (src/report/fields.h): the JSON document, the
 * Prometheus metrics and the sweep columns iterate its rows, so a row's
 * name is unique, every row that applies is in the document with the value
 * the table gives, and every row with a metric is in the metrics. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/report/fields.h"
#include "harness.h"
#include "support.h"

/* Names: present, unique, found by name; metric rows have a help. */
static void fields_names_unique(void)
{
    CHECK(n_result_fields >= 50);
    for (size_t i = 0; i < n_result_fields; i++) {
        const struct result_field *f = &result_fields[i];
        CHECKF(f->name && *f->name, "row %zu has no name", i);
        if (!f->name)
            continue;
        CHECKF(field_find(f->name) == f, "%s: named twice", f->name);
        CHECKF(!f->metric || (f->help && *f->help), "%s: metric without help", f->name);
        CHECKF(f->kind != FK_CUSTOM || f->json || (f->no_json && f->number),
               "%s: custom without a writer", f->name);
        CHECKF(!f->no_json || f->metric || f->sweep, "%s: not in the JSON, nor a metric "
               "or sweep column", f->name);
        CHECKF(!f->metric || (f->mseq >= 1 && f->mseq <= FIELD_MSEQ_MAX),
               "%s: metric %s without its place (mseq)", f->name, f->metric);
        CHECKF(f->kind != FK_ENUM || f->names, "%s: enum without names", f->name);
        for (size_t j = 0; f->metric && j < i; j++) {
            const struct result_field *g = &result_fields[j];
            CHECKF(!g->metric || strcmp(g->metric, f->metric), "metric %s twice", f->metric);
            CHECKF(!g->metric || g->mpart != f->mpart || g->mseq != f->mseq,
                   "metrics %s and %s in one place", g->metric, f->metric);
        }
    }
    CHECK(field_find("no.such.field") == NULL);
}

/* Equal as the document prints them: reals to 12 significant digits. */
static int same(json_t *got, json_t *want)
{
    if (got && json_is_number(got) && json_is_real(want)) {
        double a = json_number_value(got), b = json_real_value(want);
        return fabs(a - b) <= 1e-11 * fabs(b);
    }
    if (got && json_is_object(got) && json_is_object(want)) { /* member by member */
        const char *k;
        json_t *v;
        if (json_object_size(got) != json_object_size(want))
            return 0;
        json_object_foreach(want, k, v)
            if (!same(json_object_get(got, k), v))
                return 0;
        return 1;
    }
    return got && json_equal(got, want);
}

/* The metrics, or (json) the JSON document with its perf section. */
static char *output_of(const struct scenario *sc, const struct results *r, int json)
{
    char *buf = NULL;
    size_t len = 0;
    struct err e = {{0}};
    FILE *m = open_memstream(&buf, &len);
    if (json)
        CHECKF(report_json(m, sc, r, 1, &e) == 0, "%s", e.msg);
    else
        report_metrics(m, sc, r);
    fclose(m);
    return buf;
}

/* One run, finished or stopped by its time limit: each row is in the JSON
 * document exactly when it applies, with the table's value; each row with
 * a metric that has a value is a gauge of the metrics with that value. */
static void check_run(const char *what, const char *engine, const char *limit)
{
    struct scenario sc;
    struct results r;
    struct err e = {{0}};
    scenario_defaults(&sc);
    test_set(&sc, "engine=%s", engine);
    test_set(&sc, "cluster.nodes=8");
    test_set(&sc, "workload.bytes_per_writer=1MB");
    test_set(&sc, "training.traffic=collectives");
    test_set(&sc, "training.grad_bytes=1MB");
    if (limit)
        test_set(&sc, "%s", limit);
    CHECKF(ckpt_run(&sc, &r, &e) == 0, "%s: %s", what, e.msg);
    CHECKF(r.finished == !limit, "%s: finished %d", what, r.finished);
    char *js = output_of(&sc, &r, 1), *prom = output_of(&sc, &r, 0);
    json_error_t je;
    json_t *root = js ? json_loads(js, 0, &je) : NULL;
    CHECKF(root != NULL, "%s: JSON does not parse", what);
    int metrics = 0;
    for (size_t i = 0; root && prom && i < n_result_fields; i++) {
        const struct result_field *f = &result_fields[i];
        json_t *got = test_json_at(root, f->name);
        if (f->no_json) {
            CHECKF(!got, "%s: metric-only %s in the JSON", what, f->name);
        } else {
            json_t *want = field_json(f, &sc, &r);
            if (field_applies(f, &r))
                CHECKF(same(got, want), "%s: %s differs or is missing", what, f->name);
            else
                CHECKF(!got, "%s: %s printed though it does not apply", what, f->name);
            json_decref(want);
        }
        double v = field_number(f, &r);
        if (!f->metric || isnan(v) || (f->mpart == MP_FINISHED && !r.finished))
            continue; /* an unfinished run has none of a finished run's figures */
        char type[128], sample[160];
        snprintf(type, sizeof type, "# TYPE ckptnet_%s %s\n", f->metric,
                 f->mtype == MT_COUNTER ? "counter" : "gauge");
        snprintf(sample, sizeof sample, "\nckptnet_%s", f->metric);
        const char *s = strstr(prom, sample);
        CHECKF(strstr(prom, type) && s, "%s: metric %s (%s) missing", what, f->metric, f->name);
        if (s) {
            const char *sp = strchr(s + 1, ' ');
            double m = sp ? strtod(sp + 1, NULL) : NAN;
            double want_v = f->metric_scale ? v * f->metric_scale : v;
            CHECKF(m == want_v, "%s: %s = %.17g, table %.17g", what, f->metric, m, want_v);
        }
        metrics++;
    }
    CHECKF(limit || metrics >= 6, "%s: %d metrics from the table", what, metrics);
    /* and nothing else: each family but run_info and the per-port ones is a row's */
    int families = 0;
    for (const char *t = prom; t && (t = strstr(t, "# TYPE ckptnet_")); t++)
        if (strncmp(t + 15, "run_info ", 9) && strncmp(t + 15, "port_", 5))
            families++;
    CHECKF(families == metrics, "%s: %d metric families, %d from the table", what, families,
           metrics);
    json_decref(root);
    free(js);
    free(prom);
    results_release(&r);
}

static void fields_json_and_metrics_follow_rows(void)
{
    check_run("finished", "fluid", NULL);
    check_run("unfinished", "fluid", "sim.time_limit=1us");
    check_run("packet", "packet", NULL); /* network.* and perf.threads apply */
}

SUITE(suite_fields) = {
    {"fields_names_unique", fields_names_unique},
    {"fields_json_and_metrics_follow_rows", fields_json_and_metrics_follow_rows},
    {NULL, NULL},
};
