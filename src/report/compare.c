/* Side-by-side table of the headline figures of several runs. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "internal.h"

int report_compare_header(FILE *out, int n, const char *const *names)
{
    int w = 8;
    for (int i = 0; i < n; i++)
        if ((int)strlen(names[i]) > w)
            w = (int)strlen(names[i]);
    fprintf(out, "%-*s  %-6s  %10s  %10s  %7s  %-21s  %10s  %11s  %8s  %10s  %10s  %s\n", w,
            "scenario", "engine", "completion", "bound", "of bound", "bottleneck", "GPU stall",
            "GPU-h/day", "goodput", "max queue", "PFC paused", "invariants");
    return w;
}

void report_compare_row(FILE *out, int w, const char *name, const struct results *r)
{
    char a[32], b[32], c[32], d[32], e[32], f[32], pb[16], gp[16];
    int fin = r->finished;
    snprintf(pb, sizeof pb, "%.1f%%", r->bound_s > 0 ? 100 * r->completion_s / r->bound_s : 0.0);
    snprintf(gp, sizeof gp, "%.2f%%", 100 * r->cost.goodput);
    char tr[160] = "";
    const struct train_figures *g = &r->training;
    if (g->on) { /* training beside the checkpoint: its steps, after the columns */
        char s1[32], s2[32], s3[32];
        int k = snprintf(tr, sizeof tr, "  training %s %+.1f%%: step %s vs %s, %u of %u slowed",
                         names_of(&names_isolation, g->isolation), 100 * g->slowdown, fmt_secs(g->during_step_s, s1, sizeof s1),
                         fmt_secs(g->baseline_step_s, s2, sizeof s2), g->slowed, g->steps);
        if (r->has_packet_stats && g->on_fabric && k > 0 && (size_t)k < sizeof tr)
            snprintf(tr + k, sizeof tr - (size_t)k, ", PFC victim %s",
                     fmt_secs(g->victim_paused_s, s3, sizeof s3));
    }
    fprintf(out, "%-*s  %-6s  %10s  %10s  %7s  %-21s  %10s  %11s  %8s  %10s  %10s  %s%s\n", w,
            name, names_of(&names_engine, r->engine),
            fin ? fmt_secs(r->completion_s, a, sizeof a)
                : r->interrupted ? "interrupted" : "unfinished",
            fmt_secs(r->bound_s, b, sizeof b), fin ? pb : "-",
            fin ? seg_label(r, r->bottleneck.seg) : "-",
            fin ? fmt_secs(r->cost.stall_s, c, sizeof c) : "-",
            fin ? fmt_num(r->cost.gpu_hours_per_day, d, sizeof d) : "-", fin ? gp : "-",
            r->has_packet_stats ? fmt_bytes((double)r->max_queue_bytes, e, sizeof e) : "-",
            r->has_packet_stats ? fmt_secs(r->paused_s, f, sizeof f) : "-",
            r->ok ? "ok" : "VIOLATED", tr);
}

void report_compare(FILE *out, int n, const char *const *names,
                    const struct scenario *scs, const struct results *rs)
{
    (void)scs;
    int w = report_compare_header(out, n, names);
    for (int i = 0; i < n; i++)
        report_compare_row(out, w, names[i], &rs[i]);
}

/* {"name": name, "result": <report_json>} */
static json_t *run_object(const char *name, const struct scenario *sc, const struct results *r,
                          struct err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int rc = m ? report_json(m, sc, r, 1, e) : err_set(e, "out of memory");
    if (m)
        fclose(m);
    json_t *one = rc == 0 ? json_loadb(buf, len, 0, NULL) : NULL;
    free(buf);
    if (!one) {
        if (rc == 0)
            err_set(e, "cannot build the JSON of %s", name);
        return NULL;
    }
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "result", one);
    return o;
}

int report_compare_line(FILE *out, const char *name, const struct scenario *sc,
                        const struct results *r, struct err *e)
{
    json_t *o = run_object(name, sc, r, e);
    if (!o)
        return -1;
    int rc = json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(o);
    if (rc < 0 || fputc('\n', out) == EOF)
        return err_set(e, "cannot write JSON output");
    return 0;
}

int report_compare_json(FILE *out, int n, const char *const *names,
                        const struct scenario *scs, const struct results *rs, struct err *e)
{
    json_t *runs = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = run_object(names[i], &scs[i], &rs[i], e);
        if (!o) {
            json_decref(runs);
            return -1;
        }
        json_array_append_new(runs, o);
    }
    json_t *root = json_object();
    json_object_set_new(root, "runs", runs);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    json_decref(root);
    if (rc < 0 || fputc('\n', out) == EOF)
        return err_set(e, "cannot write JSON output");
    return 0;
}
