/* Side-by-side table of the headline figures of several runs. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/ckptnet.h"
#include "internal.h"

void report_compare(FILE *out, int n, const char *const *names,
                    const struct scenario *scs, const struct results *rs)
{
    (void)scs;
    int w = 8;
    for (int i = 0; i < n; i++)
        if ((int)strlen(names[i]) > w)
            w = (int)strlen(names[i]);
    fprintf(out, "%-*s  %-6s  %10s  %10s  %7s  %-21s  %10s  %11s  %8s  %10s  %10s  %s\n", w,
            "scenario", "engine", "completion", "bound", "of bound", "bottleneck", "GPU stall",
            "GPU-h/day", "goodput", "max queue", "PFC paused", "invariants");
    for (int i = 0; i < n; i++) {
        const struct results *r = &rs[i];
        char a[32], b[32], c[32], d[32], e[32], f[32], pb[16], gp[16];
        int fin = r->finished;
        snprintf(pb, sizeof pb, "%.1f%%", r->bound_s > 0 ? 100 * r->completion_s / r->bound_s : 0.0);
        snprintf(gp, sizeof gp, "%.2f%%", 100 * r->cost.goodput);
        fprintf(out, "%-*s  %-6s  %10s  %10s  %7s  %-21s  %10s  %11s  %8s  %10s  %10s  %s\n",
                w, names[i], r->engine, fin ? fmt_secs(r->completion_s, a, sizeof a) : "unfinished",
                fmt_secs(r->bound_s, b, sizeof b), fin ? pb : "-",
                fin ? path_seg_label(r->bottleneck.seg) : "-",
                fin ? fmt_secs(r->cost.stall_s, c, sizeof c) : "-",
                fin ? fmt_num(r->cost.gpu_hours_per_day, d, sizeof d) : "-", fin ? gp : "-",
                r->has_packet_stats ? fmt_bytes((double)r->max_queue_bytes, e, sizeof e) : "-",
                r->has_packet_stats ? fmt_secs(r->paused_s, f, sizeof f) : "-",
                r->ok ? "ok" : "VIOLATED");
    }
}

int report_compare_json(FILE *out, int n, const char *const *names,
                        const struct scenario *scs, const struct results *rs, struct err *e)
{
    json_t *runs = json_array();
    for (int i = 0; i < n; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        int rc = m ? report_json(m, &scs[i], &rs[i], 1, e) : err_set(e, "out of memory");
        if (m)
            fclose(m);
        json_t *one = rc == 0 ? json_loadb(buf, len, 0, NULL) : NULL;
        free(buf);
        if (!one) {
            json_decref(runs);
            return rc < 0 ? -1 : err_set(e, "cannot build the JSON of %s", names[i]);
        }
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(names[i]));
        json_object_set_new(o, "result", one);
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
