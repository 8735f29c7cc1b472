/* Side-by-side table of the headline figures of several runs. */
#include <stdio.h>
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
        char a[32], b[32], c[32], d[32], e[32], f[32];
        fprintf(out, "%-*s  %-6s  %10s  %10s  %6.1f%%  %-21s  %10s  %11s  %7.2f%%  %10s  %10s  %s\n",
                w, names[i], r->engine, fmt_secs(r->completion_s, a, sizeof a),
                fmt_secs(r->bound_s, b, sizeof b),
                r->bound_s > 0 ? 100 * r->completion_s / r->bound_s : 0.0,
                path_seg_label(r->bottleneck.seg), fmt_secs(r->cost.stall_s, c, sizeof c),
                fmt_num(r->cost.gpu_hours_per_day, d, sizeof d), 100 * r->cost.goodput,
                r->has_packet_stats ? fmt_bytes((double)r->max_queue_bytes, e, sizeof e) : "-",
                r->has_packet_stats ? fmt_secs(r->paused_s, f, sizeof f) : "-",
                r->ok ? "ok" : "VIOLATED");
    }
}
