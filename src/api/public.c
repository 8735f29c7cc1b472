/* The public API (include/ckptnet.h) over the internal one (ckpt.h): opaque
 * handles that own an internal scenario or results, errors copied into the
 * caller's struct ckpt_err. */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/ckptnet.h"
#include "ckpt.h"

_Static_assert(sizeof(((struct ckpt_err *)0)->msg) == sizeof(((struct err *)0)->msg),
               "struct ckpt_err holds every message of struct err");

struct ckpt_scenario {
    struct scenario sc;
};

struct ckpt_results {
    struct scenario sc;        /* what ran, resolved: the reports echo it */
    struct results r;
    json_t *doc;               /* report_json's document: ckpt_result_* read it */
};

static int fail(struct ckpt_err *pe, const struct err *e)
{
    if (pe)
        memcpy(pe->msg, e->msg, sizeof pe->msg);
    return -1;
}

/* An internal call with its own struct err (e_): on failure its message goes
 * to pe (which may be NULL) and the function returns -1. */
#define PUB(pe, call)                                                                      \
    do {                                                                                   \
        struct err e_ = {{0}};                                                             \
        if ((call) < 0)                                                                    \
            return fail((pe), &e_);                                                        \
    } while (0)

struct ckpt_scenario *ckpt_scenario_new(void)
{
    struct ckpt_scenario *s = malloc(sizeof *s);
    if (s)
        scenario_defaults(&s->sc);
    return s;
}

void ckpt_scenario_free(struct ckpt_scenario *sc)
{
    free(sc);
}

int ckpt_scenario_load(struct ckpt_scenario *sc, const char *path, struct ckpt_err *pe)
{
    PUB(pe, scenario_load_file(&sc->sc, path, &e_));
    return 0;
}

int ckpt_scenario_load_string(struct ckpt_scenario *sc, const char *yaml, const char *name,
                              struct ckpt_err *pe)
{
    PUB(pe, scenario_load_string(&sc->sc, yaml, name, &e_));
    return 0;
}

int ckpt_scenario_set(struct ckpt_scenario *sc, const char *assignment, struct ckpt_err *pe)
{
    PUB(pe, scenario_set(&sc->sc, assignment, &e_));
    return 0;
}

/* Resolved and validated copy of user in *out (heap: a scenario is large),
 * as the CLI resolves and validates before it runs. */
static struct scenario *resolved(const struct ckpt_scenario *user, struct err *e)
{
    struct scenario *s = malloc(sizeof *s);
    if (!s) {
        err_set(e, "out of memory (scenario)");
        return NULL;
    }
    *s = user->sc;
    if (scenario_resolve(s, e) < 0 || scenario_validate(s, e) < 0) {
        free(s);
        return NULL;
    }
    return s;
}

int ckpt_scenario_validate(const struct ckpt_scenario *sc, struct ckpt_err *pe)
{
    struct err e = {{0}};
    struct scenario *s = resolved(sc, &e);
    /* the fabric's checks come with building it: describe builds, runs nothing */
    struct ckpt_description *d = s ? malloc(sizeof *d) : NULL;
    if (s && !d)
        err_set(&e, "out of memory (description)");
    int rc = d ? ckpt_describe(s, d, &e) : -1;
    free(d);
    free(s);
    return rc < 0 ? fail(pe, &e) : 0;
}

int ckpt_scenario_describe(FILE *out, const struct ckpt_scenario *sc, struct ckpt_err *pe)
{
    struct err e = {{0}};
    struct scenario *s = resolved(sc, &e);
    struct ckpt_description *d = s ? malloc(sizeof *d) : NULL;
    if (s && !d)
        err_set(&e, "out of memory (description)");
    int rc = d ? ckpt_describe(s, d, &e) : -1;
    if (rc == 0)
        report_describe(out, s, d);
    free(d);
    free(s);
    return rc < 0 ? fail(pe, &e) : 0;
}

int ckpt_scenario_topology_out(const struct ckpt_scenario *sc, const char *path,
                               struct ckpt_err *pe)
{
    struct err e = {{0}};
    struct scenario *s = resolved(sc, &e);
    int rc = s ? ckpt_topology_out(s, path, &e) : -1;
    free(s);
    return rc < 0 ? fail(pe, &e) : 0;
}

/* The JSON document of r, parsed (jansson), or NULL with e set. */
static json_t *document(const struct ckpt_results *res, struct err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        err_set(e, "out of memory (results document)");
        return NULL;
    }
    int rc = report_json(f, &res->sc, &res->r, 1, e);
    if (fclose(f) != 0 && rc == 0)
        rc = err_set(e, "out of memory (results document)");
    json_t *doc = NULL;
    if (rc == 0) {
        json_error_t je;
        doc = json_loadb(buf, len, 0, &je);
        if (!doc)
            err_set(e, "results document: %s", je.text);
    }
    free(buf);
    return doc;
}

/* The caller's progress function behind the internal one: its nonzero
 * return raises the flag the engine reads at its next progress call. */
struct relay {
    ckpt_progress_fn *fn;
    void *ud;
    volatile sig_atomic_t stop;
};

static void relay_progress(void *ud, const struct ckpt_progress_info *p)
{
    struct relay *rl = ud;
    if (rl->fn(rl->ud, p->sim_s, (double)p->delivered, (double)p->total, (double)p->events))
        rl->stop = 1;
}

struct ckpt_results *ckpt_scenario_run_progress(const struct ckpt_scenario *sc,
                                                ckpt_progress_fn *fn, void *ud,
                                                struct ckpt_err *pe)
{
    struct err e = {{0}};
    struct relay rl = {fn, ud, 0};
    struct ckpt_progress pr = {relay_progress, &rl, &rl.stop};
    struct ckpt_results *res = calloc(1, sizeof *res);
    struct scenario *s = res ? resolved(sc, &e) : NULL;
    if (!res)
        err_set(&e, "out of memory (results)");
    int rc = s ? ckpt_run_progress(s, &res->r, fn ? &pr : NULL, &e) : -1;
    if (rc == 0) {
        res->sc = *s;
        res->doc = document(res, &e);
        rc = res->doc ? 0 : -1;
    }
    free(s);
    if (rc < 0) {
        ckpt_results_free(res); /* a failed run may hold buffers */
        fail(pe, &e);
        return NULL;
    }
    return res;
}

struct ckpt_results *ckpt_scenario_run(const struct ckpt_scenario *sc, struct ckpt_err *pe)
{
    return ckpt_scenario_run_progress(sc, NULL, NULL, pe);
}

void ckpt_results_free(struct ckpt_results *r)
{
    if (!r)
        return;
    results_release(&r->r);
    json_decref(r->doc);
    free(r);
}

int ckpt_results_ok(const struct ckpt_results *r)
{
    return r->r.ok && r->r.finished;
}

/* The value at a dotted name ("a.b.0"), or NULL. */
static json_t *lookup(const struct ckpt_results *r, const char *name)
{
    json_t *v = r->doc;
    for (const char *p = name; v && *p;) {
        size_t l = strcspn(p, ".");
        char seg[128];
        if (l == 0 || l >= sizeof seg)
            return NULL;
        memcpy(seg, p, l);
        seg[l] = '\0';
        if (json_is_object(v)) {
            v = json_object_get(v, seg);
        } else if (json_is_array(v) && strspn(seg, "0123456789") == l && l < 10) {
            v = json_array_get(v, strtoul(seg, NULL, 10));
        } else {
            return NULL;
        }
        p += l;
        if (*p == '.' && !*++p)
            return NULL; /* a trailing dot names nothing */
    }
    return v;
}

int ckpt_result_number(const struct ckpt_results *r, const char *name, double *v)
{
    const json_t *j = lookup(r, name);
    if (json_is_number(j))
        *v = json_number_value(j);
    else if (json_is_boolean(j))
        *v = json_is_true(j);
    else
        return -1;
    return 0;
}

int ckpt_result_text(const struct ckpt_results *r, const char *name, const char **s)
{
    const json_t *j = lookup(r, name);
    if (!json_is_string(j))
        return -1;
    *s = json_string_value(j);
    return 0;
}

void ckpt_report_summary(FILE *out, const struct ckpt_results *r)
{
    report_summary(out, &r->sc, &r->r);
}

void ckpt_report_segments(FILE *out, const struct ckpt_results *r)
{
    report_segments(out, &r->sc, &r->r);
}

int ckpt_report_json(FILE *out, const struct ckpt_results *r, int perf, struct ckpt_err *pe)
{
    PUB(pe, report_json(out, &r->sc, &r->r, perf, &e_));
    return 0;
}

int ckpt_report_json_line(FILE *out, const struct ckpt_results *r, int perf,
                          struct ckpt_err *pe)
{
    PUB(pe, report_json_line(out, &r->sc, &r->r, perf, &e_));
    return 0;
}

int ckpt_report_csv(const char *dir, const struct ckpt_results *r, struct ckpt_err *pe)
{
    PUB(pe, report_csv(dir, &r->sc, &r->r, &e_));
    return 0;
}

int ckpt_report_html(const char *path, const struct ckpt_results *r, struct ckpt_err *pe)
{
    PUB(pe, report_html(path, &r->sc, &r->r, &e_));
    return 0;
}

int ckpt_report_html_dir(const char *dir, const struct ckpt_results *r, struct ckpt_err *pe)
{
    PUB(pe, report_html_dir(dir, &r->sc, &r->r, &e_));
    return 0;
}

void ckpt_report_metrics(FILE *out, const struct ckpt_results *r)
{
    report_metrics(out, &r->sc, &r->r);
}

void ckpt_report_catalog(FILE *out)
{
    report_catalog(out);
}

/* The compare writers take runs as arrays of values: shallow copies of
 * each run's scenario and results (the reports only read them). */
static int gather(int n, const struct ckpt_results *const *rs, struct scenario **scs,
                  struct results **res, struct err *e)
{
    *scs = n > 0 ? calloc((size_t)n, sizeof **scs) : NULL;
    *res = n > 0 ? calloc((size_t)n, sizeof **res) : NULL;
    if (n < 0 || (n > 0 && (!*scs || !*res))) {
        free(*scs);
        free(*res);
        return err_set(e, n < 0 ? "compare: %d runs" : "out of memory (compare of %d runs)", n);
    }
    for (int i = 0; i < n; i++) {
        (*scs)[i] = rs[i]->sc;
        (*res)[i] = rs[i]->r;
    }
    return 0;
}

/* The compare table (json 0) or its JSON document (json 1) of rs. */
static int compare_out(FILE *out, int n, const char *const *names,
                       const struct ckpt_results *const *rs, int json, struct ckpt_err *pe)
{
    struct err e = {{0}};
    struct scenario *scs;
    struct results *res;
    if (gather(n, rs, &scs, &res, &e) < 0)
        return fail(pe, &e);
    int rc = 0;
    if (json)
        rc = report_compare_json(out, n, names, scs, res, &e);
    else
        report_compare(out, n, names, scs, res);
    free(scs);
    free(res);
    return rc < 0 ? fail(pe, &e) : 0;
}

int ckpt_report_compare(FILE *out, int n, const char *const *names,
                        const struct ckpt_results *const *rs, struct ckpt_err *pe)
{
    return compare_out(out, n, names, rs, 0, pe);
}

int ckpt_report_compare_json(FILE *out, int n, const char *const *names,
                             const struct ckpt_results *const *rs, struct ckpt_err *pe)
{
    return compare_out(out, n, names, rs, 1, pe);
}
