/* The sweep's HTML page: line plots of completion and bound ratio against
 * the first varied key, a heat map over the first two keys, and the table
 * of points. One self-contained file: gnuplot renders SVG into a private
 * temporary directory, the SVG is inlined, the directory removed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep.h"

#define MAX_LINES 12

/* Per point: mean, min and max of a figure over the runs that have it. */
struct agg {
    double mean, lo, hi;
    int n;
};

static struct agg point_agg(const struct sweep *sw, const struct sweep_res *res, int p, int fig,
                            double scale)
{
    struct agg a = {NAN, NAN, NAN, 0};
    double sum = 0;
    for (int s = 0; s < sw->seeds; s++) {
        const struct sweep_res *r = &res[p * sw->seeds + s];
        double v = r->done ? r->fig[fig] * scale : NAN;
        if (isnan(v))
            continue;
        sum += v;
        a.lo = a.n && a.lo < v ? a.lo : v;
        a.hi = a.n && a.hi > v ? a.hi : v;
        a.n++;
    }
    if (a.n)
        a.mean = sum / a.n;
    return a;
}

/* Distinct values of key k in order of first appearance; idx[p] = the
 * index of point p's value. Returns the count. */
static int distinct(const struct sweep *sw, int k, const char **vals, int *idx)
{
    int n = 0;
    for (int p = 0; p < sw->n_points; p++) {
        const char *v = sw->vals[p * sw->n_keys + k];
        int i = 0;
        while (i < n && strcmp(vals[i], v))
            i++;
        if (i == n)
            vals[n++] = v;
        idx[p] = i;
    }
    return n;
}

/* gnuplot string: double quotes, with its specials escaped. */
static void gp_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

/* The "other keys" label of point p (every key but the first). */
static void others_label(const struct sweep *sw, int p, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 1; k < sw->n_keys && used < n; k++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", k > 1 ? " " : "",
                                 sw->keys[k], sw->vals[p * sw->n_keys + k]);
}

struct plotdata {
    int nx;                 /* distinct values of key 0 */
    const char **xv;
    int *xi;                /* point -> x index */
    int nlines;
    int *line;              /* point -> line, -1 = not shown */
    int first_of[MAX_LINES]; /* a point of each line, for its label */
    int total_lines;
};

/* Lines: the distinct combinations of the other keys, first MAX_LINES. */
static void group_lines(const struct sweep *sw, struct plotdata *d)
{
    d->nlines = d->total_lines = 0;
    for (int p = 0; p < sw->n_points; p++) {
        int l = -1;
        for (int i = 0; i < d->nlines && l < 0; i++) {
            int q = d->first_of[i], same = 1;
            for (int k = 1; k < sw->n_keys && same; k++)
                same = !strcmp(sw->vals[p * sw->n_keys + k], sw->vals[q * sw->n_keys + k]);
            if (same)
                l = i;
        }
        if (l < 0) {
            int seen = 0; /* counted before, beyond the shown lines? */
            for (int q = 0; q < p && !seen; q++) {
                int same = 1;
                for (int k = 1; k < sw->n_keys && same; k++)
                    same = !strcmp(sw->vals[p * sw->n_keys + k], sw->vals[q * sw->n_keys + k]);
                seen = same;
            }
            if (!seen)
                d->total_lines++;
            if (!seen && d->nlines < MAX_LINES) {
                d->first_of[d->nlines] = p;
                l = d->nlines++;
            }
        }
        d->line[p] = l;
    }
}

/* line_F.dat: per line a block "x mean min max" (blocks two blank lines
 * apart, gnuplot's index). */
static int write_lines(const char *dir, const char *name, const struct sweep *sw,
                       const struct sweep_res *res, const struct plotdata *d, int fig,
                       double scale, int *any)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    *any = 0;
    for (int l = 0; l < d->nlines; l++) {
        fprintf(f, "# line %d\n", l);
        int rows = 0;
        for (int x = 0; x < d->nx; x++)
            for (int p = 0; p < sw->n_points; p++) {
                if (d->line[p] != l || d->xi[p] != x)
                    continue;
                struct agg a = point_agg(sw, res, p, fig, scale);
                if (a.n) {
                    fprintf(f, "%d %.9g %.9g %.9g\n", x, a.mean, a.lo, a.hi);
                    rows++;
                }
                break;
            }
        if (!rows) /* gnuplot wants something in every block */
            fprintf(f, "0 NaN NaN NaN\n");
        *any |= rows > 0;
        fputs("\n\n", f);
    }
    return fclose(f) != 0 ? -1 : 0;
}

static void xtics(FILE *f, const struct plotdata *d)
{
    fputs("set xtics (", f);
    for (int x = 0; x < d->nx; x++) {
        fputs(x ? ", " : "", f);
        gp_text(f, d->xv[x]);
        fprintf(f, " %d", x);
    }
    fputs(")\n", f);
}

static void line_plot(FILE *g, const char *dir, const char *svg, const char *dat,
                      const char *ylabel, const struct sweep *sw, const struct plotdata *d)
{
    fprintf(g, "set output '%s/%s'\nunset logscale\nset key outside right top\n", dir, svg);
    fprintf(g, "set xrange [-0.5:%d.5]\nset xlabel ", d->nx - 1);
    gp_text(g, sw->keys[0]);
    fputs("\nset ylabel ", g);
    gp_text(g, ylabel);
    fputc('\n', g);
    xtics(g, d);
    fputs("plot ", g);
    for (int l = 0; l < d->nlines; l++) {
        char lab[512];
        others_label(sw, d->first_of[l], lab, sizeof lab);
        fprintf(g, "%s'%s/%s' index %d using 1:2:3:4 with yerrorlines lw 2 title ", l ? ", " : "",
                dir, dat, l);
        gp_text(g, sw->n_keys > 1 ? lab : ylabel);
    }
    fputc('\n', g);
}

/* heat.dat: "x y mean has" over the first two keys, the others at their
 * first value; has = 0 where no run finished. Returns -1 on error, else the number
 * of cells with a value. */
static int write_heat(const char *dir, const struct sweep *sw, const struct sweep_res *res,
                      const struct plotdata *d, int ny, const int *yi, const char **yv)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/heat.dat", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int cells = 0;
    for (int y = 0; y < ny; y++) {
        for (int x = 0; x < d->nx; x++) {
            double v = NAN;
            for (int p = 0; p < sw->n_points; p++) {
                int base = 1;
                for (int k = 2; k < sw->n_keys && base; k++)
                    base = !strcmp(sw->vals[p * sw->n_keys + k], sw->vals[k]);
                if (base && d->xi[p] == x && yi[p] == y) {
                    v = point_agg(sw, res, p, F_COMPLETION, 1e3).mean;
                    break;
                }
            }
            if (!isnan(v))
                cells++;
            fprintf(f, "%d %d %.9g %d\n", x, y, isnan(v) ? 0.0 : v, !isnan(v));
        }
    }
    (void)yv;
    return fclose(f) != 0 ? -1 : cells;
}

/* A table cell: the mean, and the min-max over seeds when they differ;
 * prec significant digits, or (fixed) decimals. */
static void cell_num(FILE *o, struct agg a, int prec, int fixed)
{
    if (!a.n) {
        fputs("<td>&ndash;</td>", o);
        return;
    }
    fprintf(o, fixed ? "<td>%.*f" : "<td>%.*g", prec, a.mean);
    if (a.n > 1 && a.hi > a.lo)
        fprintf(o, fixed ? " <small>(%.*f&ndash;%.*f)</small>" : " <small>(%.*g&ndash;%.*g)</small>",
                prec, a.lo, prec, a.hi);
    fputs("</td>", o);
}

static void table(FILE *o, const struct sweep *sw, const struct sweep_res *res)
{
    fputs("<h2>Points</h2>\n<table>\n<tr><th>point</th>", o);
    for (int k = 0; k < sw->n_keys; k++) {
        fputs("<th>", o);
        report_html_text(o, sw->keys[k]);
        fputs("</th>", o);
    }
    fputs("<th>runs ok</th><th>completion ms</th><th>of bound</th><th>bottleneck</th>"
          "<th>pause frames</th><th>drops</th><th>GPU stall ms</th><th>goodput</th>"
          "<th>error</th></tr>\n",
          o);
    for (int p = 0; p < sw->n_points; p++) {
        const struct sweep_res *r0 = &res[p * sw->seeds];
        int ok = 0, done = 0;
        const char *bn = NULL, *err = NULL;
        for (int s = 0; s < sw->seeds; s++) {
            if (!r0[s].done)
                continue;
            done++;
            ok += r0[s].status == SWEEP_OK;
            if (r0[s].bottleneck[0])
                bn = !bn || !strcmp(bn, r0[s].bottleneck) ? r0[s].bottleneck : "mixed";
            if (!err && r0[s].error[0])
                err = r0[s].error;
        }
        fprintf(o, "<tr%s><td>%d</td>", ok < sw->seeds ? " class=\"bad\"" : "", p);
        for (int k = 0; k < sw->n_keys; k++) {
            fputs("<td>", o);
            report_html_text(o, sw->vals[p * sw->n_keys + k]);
            fputs("</td>", o);
        }
        fprintf(o, "<td>%d of %d</td>", ok, done);
        cell_num(o, point_agg(sw, res, p, F_COMPLETION, 1e3), 4, 0);
        cell_num(o, point_agg(sw, res, p, F_RATIO, 1), 3, 1);
        fputs("<td>", o);
        report_html_text(o, bn ? bn : "");
        fputs("</td>", o);
        cell_num(o, point_agg(sw, res, p, F_PAUSE_FRAMES, 1), 0, 1);
        cell_num(o, point_agg(sw, res, p, F_DROPS, 1), 0, 1);
        cell_num(o, point_agg(sw, res, p, F_STALL, 1e3), 4, 0);
        cell_num(o, point_agg(sw, res, p, F_GOODPUT, 1), 4, 1);
        fputs("<td>", o);
        report_html_text(o, err ? err : "");
        fputs("</td></tr>\n", o);
    }
    fputs("</table>\n", o);
}

static const char *const tmp_files[] = {"plots.gp",   "gnuplot.err", "line_c.dat", "line_r.dat",
                                        "heat.dat",   "completion.svg", "ratio.svg",
                                        "heat.svg"};

int sweep_html(const char *path, const struct sweep *sw, const struct sweep_res *res,
               struct err *e)
{
    const char *tmp = getenv("TMPDIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/ckptnet-sweep-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (strchr(dir, '\'') || !mkdtemp(dir))
        return err_set(e, "--report: cannot create a temporary directory in %s: %s",
                       tmp && *tmp ? tmp : "/tmp", strerror(errno));
    int n = sw->n_points, rc = 0;
    struct plotdata d = {0};
    const char **xv = calloc((size_t)n, sizeof *xv), **yv = calloc((size_t)n, sizeof *yv);
    int *xi = calloc((size_t)n, sizeof *xi), *yi = calloc((size_t)n, sizeof *yi);
    int *line = calloc((size_t)n, sizeof *line);
    int have_c = 0, have_r = 0, heat = 0, ny = 0;
    FILE *g = NULL;
    if (!xv || !yv || !xi || !yi || !line) {
        rc = err_set(e, "--report: out of memory");
        goto out;
    }
    d.xv = xv;
    d.xi = xi;
    d.line = line;
    d.nx = distinct(sw, 0, xv, xi);
    group_lines(sw, &d);
    if (sw->n_keys > 1)
        ny = distinct(sw, 1, yv, yi);
    if (write_lines(dir, "line_c.dat", sw, res, &d, F_COMPLETION, 1e3, &have_c) < 0 ||
        write_lines(dir, "line_r.dat", sw, res, &d, F_RATIO, 1, &have_r) < 0 ||
        (sw->n_keys > 1 && (heat = write_heat(dir, sw, res, &d, ny, yi, yv)) < 0)) {
        rc = err_set(e, "--report: cannot write plot data in %s", dir);
        goto out;
    }
    char gp[1200];
    snprintf(gp, sizeof gp, "%s/plots.gp", dir);
    g = fopen(gp, "w");
    if (!g) {
        rc = err_set(e, "--report: cannot write the plot script in %s", dir);
        goto out;
    }
    fputs("set terminal svg size 960,420 dynamic noenhanced font 'sans,11' "
          "background rgb 'white'\nset grid\nset bars 2\n",
          g);
    if (have_c)
        line_plot(g, dir, "completion.svg", "line_c.dat", "completion (ms)", sw, &d);
    if (have_r)
        line_plot(g, dir, "ratio.svg", "line_r.dat", "completion / bound", sw, &d);
    if (heat > 0) {
        fprintf(g, "set output '%s/heat.svg'\nset key off\nunset grid\n", dir);
        fprintf(g, "set xrange [-0.5:%d.5]\nset yrange [-0.5:%d.5]\nset xlabel ", d.nx - 1,
                ny - 1);
        gp_text(g, sw->keys[0]);
        fputs("\nset ylabel ", g);
        gp_text(g, sw->keys[1]);
        fputc('\n', g);
        xtics(g, &d);
        fputs("set ytics (", g);
        for (int y = 0; y < ny; y++) {
            fputs(y ? ", " : "", g);
            gp_text(g, yv[y]);
            fprintf(g, " %d", y);
        }
        fputs(")\nset palette defined (0 '#fff5eb', 1 '#fd8d3c', 2 '#7f2704')\n"
              "set cblabel 'completion (ms), mean over seeds'\n",
              g);
        /* one box per cell (no interpolation); cells without a run stay blank */
        fprintf(g, "plot '%s/heat.dat' using 1:2:(0.5):(0.5):($4 > 0 ? $3 : 1/0) "
                   "with boxxyerror fs solid 1.0 noborder fc palette notitle, "
                   "'' using 1:2:($4 > 0 ? sprintf('%%.4g', $3) : 'no run') with labels notitle\n",
                dir);
    }
    if (fclose(g) != 0) {
        g = NULL;
        rc = err_set(e, "--report: cannot write the plot script in %s", dir);
        goto out;
    }
    g = NULL;
    if ((have_c || have_r || heat > 0) && (rc = report_gnuplot_run(dir, e)) < 0)
        goto out;

    struct ofile of;
    FILE *o = ofile_open(&of, path, e);
    if (!o) {
        rc = -1;
        goto out;
    }
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ckptnet sweep</title>\n"
          "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
          "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
          "padding:2px 6px;text-align:right}th{background:#eee}tr.bad td{background:#fee}"
          "svg{max-width:100%;height:auto}small{color:#666}</style></head><body>\n"
          "<h1>ckptnet sweep</h1>\n<p>",
          o);
    fprintf(o, "%d points x %d seed%s = %d runs; scenario ", sw->n_points, sw->seeds,
            sw->seeds > 1 ? "s" : "", sw->n_runs);
    report_html_text(o, sw->file ? sw->file : "built-in default");
    fputs(".</p>\n", o);
    static const char *const title[3] = {"Completion time", "Completion against the bound",
                                         "Completion over the first two keys"};
    static const char *const svg[3] = {"completion.svg", "ratio.svg", "heat.svg"};
    int have[3] = {have_c, have_r, heat > 0};
    for (int i = 0; i < 3; i++) {
        if (i == 2 && sw->n_keys < 2)
            continue;
        fprintf(o, "<h2>%s</h2>\n", title[i]);
        if (i < 2 && have[i]) {
            fputs("<p>Mean over seeds against ", o);
            report_html_text(o, sw->keys[0]);
            fputs(sw->n_keys > 1 ? ", one line per value of the other keys" : "", o);
            if (d.total_lines > d.nlines)
                fprintf(o, " (the first %d of %d shown)", d.nlines, d.total_lines);
            fputs("; error bars: min to max over seeds.</p>\n", o);
        } else if (i == 2 && have[i] && sw->n_keys > 2) {
            fputs("<p>The other keys at their first value.</p>\n", o);
        }
        char pre[16];
        snprintf(pre, sizeof pre, "s%d_", i);
        if (!have[i] || report_inline_svg(o, dir, svg[i], pre) < 0)
            fputs("<p>No plot: no run finished.</p>\n", o);
    }
    table(o, sw, res);
    fputs("</body></html>\n", o);
    rc = ofile_commit(&of, e);
out:
    if (g)
        fclose(g);
    for (size_t i = 0; i < sizeof tmp_files / sizeof tmp_files[0]; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, tmp_files[i]);
        unlink(p);
    }
    rmdir(dir);
    free(xv);
    free(yv);
    free(xi);
    free(yi);
    free(line);
    return rc;
}
