/* The HTML report: one self-contained file (no scripts, no external
 * resources) with the summary, the bottleneck verdict and segment table,
 * plots rendered by gnuplot as SVG and inlined, and the cost summary.
 *
 * gnuplot reads the run's CSV files (csv.c) and a few plot-only files from
 * a private temporary directory, removed afterwards; --report-dir keeps them
 * in DIR/plots, with a script whose paths are relative to it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"
#include "../cost/cost.h"
#include "../core/outfile.h"
#include "internal.h"

#define MAX_PAUSE_ROWS 40

/* PLOT_FLOWS comes last so the other plots keep their ids (pN_); the page
 * shows it after the throughput (page_order). */
enum { PLOT_QUEUES, PLOT_THROUGHPUT, PLOT_CDF, PLOT_PAUSES, PLOT_COST, PLOT_FLOWS,
       PLOT_TRAINING, PLOT_INGEST, PLOT_COUNT };
static const char *const plot_file[PLOT_COUNT] = {
    "queues.svg", "throughput.svg", "cdf.svg", "pauses.svg", "cost.svg", "flows.svg",
    "training.svg", "ingest.svg"};
static const char *const plot_title[PLOT_COUNT] = {
    "Queue depth of the hottest ports", "Throughput per segment",
    "Writer completion time (CDF)", "PFC pause timeline", "Goodput against the checkpoint interval",
    "Sending rate of each transfer", "Training steps while the checkpoint runs",
    "Storage ingest buffers"};
static const int page_order[PLOT_COUNT] = {
    PLOT_QUEUES, PLOT_THROUGHPUT, PLOT_INGEST, PLOT_TRAINING, PLOT_FLOWS, PLOT_CDF, PLOT_PAUSES,
    PLOT_COST};
/* the ingest plot's lines: the storage nodes with the highest peak */
#define MAX_INGEST_LINES 8

void report_html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

/* ---- plot-only data ------------------------------------------------------ */

struct prow {
    uint32_t port;
    double paused;         /* seconds paused at the sample instants */
};

static int cmp_prow(const void *a, const void *b)
{
    const struct prow *x = a, *y = b;
    if (x->paused != y->paused)
        return x->paused > y->paused ? -1 : 1;
    return x->port < y->port ? -1 : x->port > y->port;
}

struct bars {
    const struct results *r;
    double dt;
    struct prow *rows;     /* per port */
    const int32_t *row_of; /* port -> timeline row, -1 = not shown */
    FILE *f;
};

static void count_run(void *ud, uint32_t port, uint32_t first, uint32_t last)
{
    struct bars *b = ud;
    b->rows[port].paused += b->r->sample_t[last] + b->dt - b->r->sample_t[first];
}

static void bar(void *ud, uint32_t port, uint32_t first, uint32_t last)
{
    struct bars *b = ud;
    if (b->row_of[port] < 0)
        return;
    /* colour = the key's entry: the forward link sets shown, 1 on, then
     * one more for the ports toward hosts */
    unsigned seg = b->r->series.port_seg[port];
    enum path_seg sets[PATH_LINK_SETS];
    unsigned n = path_link_sets_shown(b->r->fabric_tiers, sets), c = n;
    for (unsigned i = 0; i + 1 < n; i++)
        if ((unsigned)sets[i] == seg)
            c = i + 1;
    fprintf(b->f, "%.9g %.9g %d %u\n", b->r->sample_t[first] * 1e3,
            (b->r->sample_t[last] + b->dt) * 1e3, b->row_of[port], c);
}

/* bars.dat: "start_ms end_ms row colour" per pause run of the most paused
 * ports; ytics.gp: their labels. Returns the number of rows (0: no pause
 * seen), or -1. *paused_ports = all ports seen paused. */
static int write_pause_bars(const char *dir, const struct scenario *sc,
                            const struct results *r, uint32_t *paused_ports)
{
    const struct series *s = &r->series;
    *paused_ports = 0;
    if (!s->port_node || !s->n)
        return 0;
    uint32_t np = s->n_ports;
    struct prow *rows = calloc(np, sizeof *rows);
    int32_t *row_of = malloc(np * sizeof *row_of);
    struct bars b = {r, (double)sc->telemetry.interval_ps / 1e12, rows, row_of, NULL};
    char path[1100];
    FILE *tics = NULL;
    int nrows = -1;
    if (!rows || !row_of)
        goto out;
    for (uint32_t p = 0; p < np; p++) {
        rows[p].port = p;
        row_of[p] = -1;
    }
    if (series_pause_runs(s, count_run, &b) < 0)
        goto out;
    qsort(rows, np, sizeof *rows, cmp_prow);
    nrows = 0;
    while (nrows < (int)np && rows[nrows].paused > 0)
        nrows++;
    *paused_ports = (uint32_t)nrows;
    if (nrows > MAX_PAUSE_ROWS)
        nrows = MAX_PAUSE_ROWS;
    for (int i = 0; i < nrows; i++)
        row_of[rows[i].port] = i;
    snprintf(path, sizeof path, "%s/bars.dat", dir);
    b.f = fopen(path, "w");
    snprintf(path, sizeof path, "%s/ytics.gp", dir);
    tics = fopen(path, "w");
    if (!b.f || !tics || series_pause_runs(s, bar, &b) < 0) {
        nrows = -1;
        goto out;
    }
    fprintf(tics, "set ytics (");
    for (int i = 0; i < nrows; i++) {
        char lb[SERIES_LINK_MAX];
        uint32_t p = rows[i].port;
        fprintf(tics, "%s\"%s\" %d", i ? ", " : "",
                series_link_label(s, s->port_node[p], s->port_peer[p], lb, sizeof lb), i);
    }
    fprintf(tics, ")\n");
out:
    if (b.f && fclose(b.f) != 0)
        nrows = -1;
    if (tics && fclose(tics) != 0)
        nrows = -1;
    free(rows);
    free(row_of);
    return nrows;
}

/* goodput.dat: interval (min), goodput (%) around the configured and the
 * optimal interval; marks.dat: those two points. */
static int write_goodput(const char *dir, const struct scenario *sc, const struct results *r)
{
    const struct cost_figures *c = &r->cost;
    (void)sc; /* the recovery time comes from the cost (auto or configured) */
    double R = c->recovery_s, d = c->stall_s, M = c->job_mtbf_s;
    double lo = c->interval_s, hi = c->interval_s;
    if (c->daly_s > 0) {
        lo = fmin(lo, c->daly_s);
        hi = fmax(hi, c->daly_s);
    }
    lo /= 20;
    hi *= 20;
    if (!(lo > 0) || !(hi > lo))
        return -1;
    char path[1100];
    snprintf(path, sizeof path, "%s/goodput.dat", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int i = 0; i <= 200; i++) {
        double tau = lo * pow(hi / lo, i / 200.0);
        fprintf(f, "%.9g %.9g\n", tau / 60, 100 * cost_goodput(tau, d, M, R));
    }
    int bad = fclose(f) != 0;
    snprintf(path, sizeof path, "%s/marks.dat", dir);
    f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "%.9g %.9g \"configured\"\n", c->interval_s / 60, 100 * c->goodput);
    if (c->daly_s > 0)
        fprintf(f, "%.9g %.9g \"optimal (Daly)\"\n", c->daly_s / 60,
                100 * c->goodput_at_optimal);
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

/* ---- gnuplot ------------------------------------------------------------- */

/* Each storage node's ingest buffer (timeseries.csv's last columns), the
 * MAX_INGEST_LINES with the highest peak, and the buffer's size. */
static void ingest_plot(FILE *f, const struct scenario *sc, const struct results *r,
                        const char *iv)
{
    const struct series *s = &r->series;
    uint32_t m = s->n_store, pick[MAX_INGEST_LINES], np = 0;
    uint64_t peak[MAX_INGEST_LINES];
    enum path_seg sets[PATH_LINK_SETS];
    int nfwd = (int)path_link_sets_shown(r->fabric_tiers, sets) - 1;
    int col = 4 + nfwd + (r->has_packet_stats ? nfwd + 2 : 0) + 2; /* the first node's */
    for (uint32_t j = 0; j < m; j++) { /* top MAX_INGEST_LINES by peak, kept sorted */
        uint64_t p = 0;
        for (uint32_t i = 0; i < s->n; i++)
            p = s->ingest[(size_t)i * m + j] > p ? s->ingest[(size_t)i * m + j] : p;
        uint32_t k = np < MAX_INGEST_LINES ? np++ : MAX_INGEST_LINES;
        if (k == MAX_INGEST_LINES && p <= peak[k - 1])
            continue;
        if (k == MAX_INGEST_LINES)
            k--;
        while (k > 0 && peak[k - 1] < p) {
            peak[k] = peak[k - 1];
            pick[k] = pick[k - 1];
            k--;
        }
        peak[k] = p;
        pick[k] = j;
    }
    char shown[64] = "";
    if (m > np)
        snprintf(shown, sizeof shown, " (the %u of %u with the highest peak)", np, m);
    fprintf(f, "set output 'ingest.svg'\n"
               "set title 'Ingest buffer of each storage node ahead of its back end%s; "
               "sampled every %s'\n"
               "set ylabel 'buffered (MB)'\n set yrange [0:*]\n plot ",
            shown, iv);
    /* dashes and markers at co-prime intervals: nodes level with each
     * other (an even placement) stay seen */
    static const int pi[MAX_INGEST_LINES] = {37, 41, 43, 47, 53, 59, 61, 67};
    uint32_t every = s->n / 400 + 1;
    for (uint32_t k = 0; k < np; k++) {
        char nm[SERIES_NAME_MAX];
        fprintf(f, "%s'timeseries.csv' skip 1 using ($1*1e3):($%u/1e6) with linespoints lc %u "
                   "dt %u lw 1.5 pt %u pi %u ps 0.8 title '%s'",
                k ? ", " : "", col + pick[k], k + 1, k + 1, k + 1, pi[k] * every,
                series_node_name(s, s->store_node[pick[k]], nm, sizeof nm));
    }
    if (sc->storage.ingest_buffer)
        fprintf(f, ", %.9g lc rgb 'red' dt 3 lw 1.5 title 'storage.ingest_buffer'",
                (double)sc->storage.ingest_buffer / 1e6);
    for (uint32_t k = 0; s->cache && k < np; k++) { /* write caches, after the buffers */
        char nm[SERIES_NAME_MAX];
        fprintf(f, ", 'timeseries.csv' skip 1 using ($1*1e3):($%u/1e6) with lines lc %u "
                   "dt 2 lw 2 title '%s write cache'",
                col + m + pick[k], k + 1, series_node_name(s, s->store_node[pick[k]], nm, sizeof nm));
    }
    if (s->cache)
        fprintf(f, ", %.9g lc rgb 'orange' dt 3 lw 1.5 title 'storage.cache_size'",
                (double)sc->storage.cache_bytes / 1e6);
    fprintf(f, "\nset yrange [*:*]\n");
}

/* Samples a hybrid jump carried (results' sample_ff), counted; with f,
 * each run of them shaded grey behind the time plots that follow. */
static uint32_t ff_spans(FILE *f, const struct results *r)
{
    uint32_t n = 0, runs = 0, ns = r->hybrid.on && r->sample_ff ? r->n_samples : 0;
    for (uint32_t i = 0, j; i < ns; i = j + 1) {
        for (j = i; j < ns && r->sample_ff[j]; j++)
            ;
        if (j == i)
            continue;
        n += j - i;
        /* each sample's half intervals either side: a run of one is seen */
        double a = i ? (r->sample_t[i - 1] + r->sample_t[i]) / 2 : r->sample_t[i],
               b = j < r->n_samples ? (r->sample_t[j - 1] + r->sample_t[j]) / 2 : r->sample_t[j - 1];
        if (f)
            fprintf(f, "set object %u rect from %.9g, graph 0 to %.9g, graph 1 behind "
                       "fc rgb '#e4e4e4' fs solid 1.0 noborder\n",
                    ++runs, a * 1e3, b * 1e3);
    }
    return n;
}

static int write_script(const char *dir, const struct scenario *sc, const struct results *r,
                        int pause_rows, uint32_t paused_ports, int have[PLOT_COUNT])
{
    char path[1100];
    snprintf(path, sizeof path, "%s/plots.gp", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const struct series *s = &r->series;
    char iv[32];
    fmt_secs((double)sc->telemetry.interval_ps / 1e12, iv, sizeof iv);
    fprintf(f, "set terminal svg size 960,380 dynamic noenhanced font 'sans,11' background rgb 'white'\n"
               "set termoption noenhanced\n"
               "set datafile separator ','\n"
               "set key outside right top\n"
               "set grid\n"
               "set style data lines\n"
               "set xlabel 'simulated time (ms)'\n");
    uint32_t ff = ff_spans(f, r);
    if (have[PLOT_QUEUES]) {
        fprintf(f, "set output 'queues.svg'\n"
                   "set title 'Egress queue of the %u ports with the largest peak (sampled every %s)'\n"
                   "set ylabel 'queue (MB)'\n plot ",
                s->n_hot, iv);
        for (uint32_t j = 0; j < s->n_hot; j++) {
            char lb[SERIES_LINK_MAX];
            fprintf(f, "%s'queues.csv' skip 1 using ($1*1e3):($%u/1e6) lw 1.5 title '%s'",
                    j ? ", " : "", j + 2,
                    series_link_label(s, s->hot[j].node, s->hot[j].peer, lb, sizeof lb));
        }
        fprintf(f, "\n");
    }
    if (have[PLOT_THROUGHPUT]) {
        /* utilisation, so that segments of different capacity compare. Each
         * segment keeps its colour, dash and marker whatever the bottleneck;
         * the bottleneck is drawn last (on top) and thicker, and markers at
         * co-prime intervals keep a series seen where it lies under
         * another of equal value. */
        static const int pt[7] = {6, 8, 4, 12, 10, 14, 2},
                         pi[7] = {37, 41, 43, 47, 53, 59, 61};
        static const char *const dash[7] = {"(8,4)", "(12,4,2,4)", "(4,4)", "(12,4,2,4,2,4)",
                                            "(2,4)", "(16,4)", "(10,3,2,3,2,3,2,3)"};
        enum path_seg sets[PATH_LINK_SETS];
        int nfwd = (int)path_link_sets_shown(r->fabric_tiers, sets) - 1;
        int order[7], n = 0, bn = -1; /* the forward link sets, then the back end */
        for (int g = 0; g < nfwd; g++) { /* timeseries.csv: the forward link sets */
            if ((int)sets[g] == r->bottleneck.seg)
                bn = g;
            else
                order[n++] = g;
        }
        /* the storage back ends' write rate after the link sets
         * (timeseries.csv's column after the pause and queue ones) */
        int back = s->n_store && s->ingest && r->segs[PATH_BACKEND].applies;
        int bcol = 4 + nfwd + (r->has_packet_stats ? nfwd + 2 : 0);
        if (back && r->bottleneck.seg != PATH_BACKEND)
            order[n++] = nfwd;
        if (bn >= 0)
            order[n++] = bn;
        if (back && r->bottleneck.seg == PATH_BACKEND)
            order[n++] = bn = nfwd;
        uint32_t every = s->n / 400 + 1; /* about 12 markers a series */
        fprintf(f, "set output 'throughput.svg'\n"
                   "set title 'Throughput of each segment as a share of its capacity; bytes "
                   "still to %s'\n"
                   "set ylabel 'utilisation of the segment (%%)'\n set yrange [0:*]\n"
                   "set y2label '%s (GB)'\n"
                   /* room above 100%: a segment at capacity stays off the frame */
                   "set offsets 0, 0, graph 0.05, 0\n"
                   "set y2tics\n set ytics nomirror\n set y2range [0:*]\n plot ",
                RESULTS_READ(r) ? "read" : "write", back ? "still to write, buffered" : RESULTS_READ(r) ? "still to read" : "still to write");
        for (int k = 0; k < n; k++) {
            int g = order[k], top = g == bn, seg = g < nfwd ? (int)sets[g] : PATH_BACKEND;
            double cap = r->segs[seg].cap_bps;
            char lc[24];
            if (g < nfwd)
                snprintf(lc, sizeof lc, "%d", g + 1);
            else
                snprintf(lc, sizeof lc, "rgb '#aa3377'");
            fprintf(f, "'timeseries.csv' skip 1 using ($1*1e3):($%d*1e11/%.9g) with linespoints "
                       "lc %s dt %s lw %s pt %d pi %u ps 0.8 title '%s%s', ",
                    g < nfwd ? 4 + g : bcol, cap > 0 ? cap : 1, lc, top ? "1" : dash[g],
                    top ? "3" : "1.5", pt[g], pi[g] * every, seg_label(r, seg),
                    top ? " (bottleneck)" : "");
        }
        if (back) /* delivered, not yet written */
            fprintf(f, "'timeseries.csv' skip 1 using ($1*1e3):($%d/1e9) axes x1y2 "
                       "title 'in ingest buffers (GB)' dt (6,3) lw 1.5 lc rgb '#228833', ",
                    bcol + 1);
        fprintf(f, "'timeseries.csv' skip 1 using ($1*1e3):($2/1e9) axes x1y2 "
                   "title '%s (GB)' dt (2,4) lw 1.5 lc rgb 'black'\n"
                   "unset y2tics\n unset y2label\n set ytics mirror\n set yrange [*:*]\n"
                   "set offsets\n",
                back ? "still to write by the back ends" : RESULTS_READ(r) ? "still to read" : "still to write");
    }
    if (have[PLOT_INGEST])
        ingest_plot(f, sc, r, iv);
    if (have[PLOT_FLOWS]) {
        /* flows.csv is time-major: transfer k is every n-th row from row k */
        uint32_t nf = r->n_sample_flows;
        fprintf(f, "set output 'flows.svg'\n"
                   "set title 'Sending rate of each of the %u transfers (telemetry.flows, "
                   "sampled every %s)'\n"
                   "set ylabel 'rate (Gbps)'\n set yrange [0:*]\n",
                nf, iv);
        fprintf(f, "plot for [k=0:%u] 'flows.csv' skip 1 every %u::k using ($1*1e3):3 "
                   "lw 1 %s\n"
                   "set yrange [*:*]\n",
                nf - 1, nf, nf <= 8 ? "title sprintf('transfer %d', k)" : "notitle");
    }
    if (have[PLOT_TRAINING]) {
        /* one bar per step, as wide as the step: when the burst starts,
         * the bars grow; the checkpoint's bytes still to write beside them */
        fprintf(f, "set output 'training.svg'\n"
                   "set title 'Training steps (isolation %s): each bar spans its step; "
                   "dashed: the baseline step'\n"
                   "set ylabel 'step time (ms)'\n set yrange [0:*]\n"
                   "set arrow 1 from %.9g, graph 0 to %.9g, graph 1 nohead lc rgb 'red' dt 3\n"
                   "set label 1 'checkpoint done' at %.9g, graph 0.95 left offset 0.5,0 "
                   "textcolor rgb 'red'\n",
                   names_of(&names_isolation, r->training.isolation), r->training.ckpt_end_s * 1e3,
                   r->training.ckpt_end_s * 1e3, r->training.ckpt_end_s * 1e3);
        if (have[PLOT_THROUGHPUT])
            fprintf(f, "set y2label 'checkpoint still to write (GB)'\n"
                       "set y2tics\n set ytics nomirror\n set y2range [0:*]\n");
        fprintf(f, "plot 'training.csv' skip 1 using (($2+$3/2)*1e3):($3*1e3):($3*1e3) "
                   "with boxes fs solid 0.4 lc rgb '#4477aa' title 'step time', "
                   "'training.csv' skip 1 using ($2*1e3):($5*1e3) with lines dt 2 lw 1.5 "
                   "lc rgb 'black' title 'baseline'");
        if (have[PLOT_THROUGHPUT])
            fprintf(f, ", 'timeseries.csv' skip 1 using ($1*1e3):($2/1e9) axes x1y2 "
                       "lw 2 lc rgb '#cc6677' title 'checkpoint still to write (GB)'");
        fprintf(f, "\nunset arrow 1\n unset label 1\n unset y2tics\n unset y2label\n"
                   " set ytics mirror\n set yrange [*:*]\n");
    }
    if (ff) /* the plots that follow have other axes, or draw their own runs */
        fprintf(f, "unset object\n");
    if (have[PLOT_CDF])
        fprintf(f, "set output 'cdf.svg'\n"
                   "set title '%s completion time: own start to last byte received'\n"
                   "set xlabel 'completion (ms)'\n set ylabel 'share of %s'\n"
                   "set yrange [0:1]\n"
                   "plot 'writers.csv' skip 1 using ($3*1e3):4 with steps lw 2 notitle\n"
                   "set yrange [*:*]\n set xlabel 'simulated time (ms)'\n",
                RESULTS_READ(r) ? "Reader" : "Writer", RESULTS_READ(r) ? "readers" : "writers");
    if (have[PLOT_PAUSES]) {
        /* the key: the link sets shown, in bars.dat's colour order */
        enum path_seg sets[PATH_LINK_SETS];
        char legend[320];
        int nleg = (int)path_link_sets_shown(r->fabric_tiers, sets);
        size_t o = (size_t)snprintf(legend, sizeof legend, "array L[%d] = [", nleg);
        for (int i = 0; i < nleg && o < sizeof legend; i++)
            o += (size_t)snprintf(legend + o, sizeof legend - o, "%s'%s'", i ? ", " : "",
                                  path_set_legend_io(sets[i], RESULTS_READ(r)));
        if (o < sizeof legend)
            snprintf(legend + o, sizeof legend - o, "]\n");
        fprintf(f, "set output 'pauses.svg'\n"
                   "set terminal svg size 960,%d dynamic noenhanced font 'sans,11' background rgb 'white'\n"
                   "set datafile separator whitespace\n"
                   "set title 'PFC pause timeline: %d of %u ports seen paused (most paused "
                   "first; sampled every %s)'\n"
                   "unset ylabel\n load 'ytics.gp'\n set ytics font ',8'\n"
                   "set yrange [%d:-1]\n"
                   "set key outside right top\n"
                   "%s"
                   "plot 'bars.dat' using (($1+$2)/2):3:(($2-$1)/2):(0.4):4 "
                   "with boxxyerror fs solid 0.8 noborder lc variable notitle, "
                   "for [g=1:%d] NaN with boxes fs solid 0.8 lc g title "
                   "L[g]\n"
                   "set ytics autofreq font ',11'\n set yrange [*:*]\n set key\n"
                   "set datafile separator ','\n"
                   "set terminal svg size 960,380 dynamic noenhanced font 'sans,11' background rgb 'white'\n",
                140 + 18 * pause_rows, pause_rows, paused_ports, iv, pause_rows,
                legend, nleg);
    }
    if (have[PLOT_COST])
        fprintf(f, "set output 'cost.svg'\n"
                   "set datafile separator whitespace\n"
                   "set logscale x\n"
                   "set title 'Goodput against the checkpoint interval (stall per checkpoint and "
                   "failure model of this run)'\n"
                   "set xlabel 'checkpoint interval (min)'\n set ylabel 'goodput (%%)'\n"
                   "plot 'goodput.dat' using 1:2 with lines lw 2 title 'goodput', "
                   "'marks.dat' using 1:2:3 with labels point pt 7 ps 1.2 left offset 1,-1 "
                   "notitle\n");
    return fclose(f) != 0 ? -1 : 0;
}

/* gnuplot on script (a path from the current directory, or from dir with
 * chdir), its stderr into dir/gnuplot.err; no shell, so no quoting. */
static int gnuplot_exec(const char *dir, const char *script, int chdir_to_dir, struct err *e)
{
    char errp[1100];
    snprintf(errp, sizeof errp, "%s/gnuplot.err", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0)
            dup2(fd, 2);
        if (chdir_to_dir && chdir(dir) < 0)
            _exit(126);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return err_set(e, "--report: gnuplot not found (install the gnuplot-nox package; "
                          "scripts/deps.sh does)");
    if (pid < 0)
        return err_set(e, "--report: cannot start gnuplot: %s", strerror(errno));
    char line[200] = "";
    FILE *f = fopen(errp, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    line[strcspn(line, "\n")] = '\0';
    return err_set(e, "--report: gnuplot failed: %s", line[0] ? line : "(no message)");
}

int report_gnuplot_run(const char *dir, struct err *e)
{
    char script[1100];
    snprintf(script, sizeof script, "%s/plots.gp", dir);
    return gnuplot_exec(dir, script, 0, e);
}

int report_inline_svg(FILE *out, const char *dir, const char *name, const char *pre)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *b = realloc(buf, 2 * cap + 1);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    buf[len] = '\0';
    const char *p = strstr(buf, "<svg");
    if (!p) {
        free(buf);
        return -1;
    }
    static const char *const refs[] = {"id='", "id=\"", "href='#", "href=\"#", "url(#"};
    while (*p) {
        int hit = 0;
        for (int k = 0; k < 5 && !hit; k++) {
            size_t l = strlen(refs[k]);
            if (!strncmp(p, refs[k], l)) {
                fwrite(p, 1, l, out);
                fputs(pre, out);
                p += l;
                hit = 1;
            }
        }
        if (!hit)
            fputc(*p++, out);
    }
    free(buf);
    return 0;
}

/* ---- the page ------------------------------------------------------------ */

static void segment_table(FILE *o, const struct scenario *sc, const struct results *r)
{
    fprintf(o, "<table><tr><th>segment</th><th>capacity</th><th>carried</th>"
               "<th>utilisation</th><th>busiest element</th><th>time at capacity</th>"
               "<th>imbalance</th><th>bound alone</th>%s</tr>\n",
            r->has_packet_stats ? "<th>PFC paused</th>" : "");
    for (int s = 0; s < PATH_COUNT; s++) {
        const struct seg_figures *f = &r->segs[s];
        char a[32], b[32], c[32], d[32];
        if (!path_seg_shown(s, r->fabric_tiers))
            continue;
        fprintf(o, "<tr%s><td>", s == r->bottleneck.seg ? " class=\"bn\"" : "");
        report_html_text(o, seg_label(r, s));
        if (!f->applies) {
            char why[320];
            fprintf(o, "</td><td colspan=\"%d\">", r->has_packet_stats ? 8 : 7);
            report_html_text(o, s == PATH_HOST ? host_unlimited(sc, r, why, sizeof why)
                                        : "keeps up (no storage.drain_rate)");
            fputs("</td></tr>\n", o);
            continue;
        }
        fprintf(o, "</td><td>%u x %s</td><td>%s</td><td>%.1f%%</td><td>%.1f%%</td>"
                   "<td>%s</td><td>%.2f</td><td>%s</td>",
                f->elements, fmt_rate(f->elem_bps, a, sizeof a), fmt_bytes(f->bytes, b, sizeof b),
                100 * f->util, 100 * f->max_util, fmt_secs(f->saturated_s, c, sizeof c),
                f->imbalance, fmt_secs(f->bound_s, d, sizeof d));
        if (r->has_packet_stats)
            fprintf(o, "<td>%s</td>", s >= PATH_WRITER_NIC && s <= PATH_STORAGE_NIC
                                          ? fmt_secs(f->paused_s, a, sizeof a) : "");
        fprintf(o, "</tr>\n");
    }
    fprintf(o, "</table>\n");
}

/* The busiest single link of each forward link set, beside the aggregate
 * rows above it: a segment at 12% can hold a link at capacity (ECMP
 * collisions). Which link, and what it carried, with telemetry.ports. The
 * three figures are each the largest over the set's links. */
static void busiest_links(FILE *o, const struct results *r)
{
    if (!r->has_link_stats)
        return;
    const struct series *s = &r->series;
    /* the fluid engine fills no node-naming facts (first_spine 0) */
    int named = r->ports && s->first_spine > 0;
    fprintf(o, "<table class=\"links\"><tr><th>segment</th>%s<th>utilisation</th>"
               "<th>time carrying traffic</th><th>time at capacity</th></tr>\n",
            named ? "<th>link</th><th>carried</th>" : "");
    enum path_seg sets[PATH_LINK_SETS];
    int nfwd = (int)path_link_sets_shown(r->fabric_tiers, sets) - 1;
    for (int k = 0; k < nfwd; k++) {
        int g = sets[k];
        char a[32], b[32], c[32], lb[SERIES_LINK_MAX] = "";
        const struct port_result *best = NULL;
        for (uint32_t i = 0; named && i < r->n_ports; i++)
            if ((int)r->ports[i].seg == g && r->ports[i].tx_bytes &&
                (!best || r->ports[i].tx_bytes > best->tx_bytes))
                best = &r->ports[i];
        if (best)
            series_link_label(s, best->node,
                              best->peer < r->n_ports ? r->ports[best->peer].node : best->node,
                              lb, sizeof lb);
        fprintf(o, "<tr%s><td>busiest link of ", g == r->bottleneck.seg ? " class=\"bn\"" : "");
        report_html_text(o, seg_label(r, g));
        fputs("</td>", o);
        if (named) {
            fputs("<td>", o);
            report_html_text(o, best ? lb : "-");
            fprintf(o, "</td><td>%s</td>",
                    best ? fmt_bytes((double)best->tx_bytes, a, sizeof a) : "-");
        }
        fprintf(o, "<td>%.1f%%</td><td>%s</td><td>%s</td></tr>\n", 100 * r->link_util_max[g],
                fmt_secs(r->link_busy_max_s[g], b, sizeof b),
                fmt_secs(r->link_full_max_s[g], c, sizeof c));
    }
    fprintf(o, "</table>\n<p class=\"note\">Each segment's busiest link: utilisation is its "
               "bytes over its capacity times the %s; time carrying traffic from its first "
               "to its last byte.%s</p>\n",
            RESULTS_READ(r) ? "read" : "write",
            named ? "" : " Which link, and its bytes, with <code>telemetry.ports: true</code>"
                         " (packet engine).");
}

/* Storage: the placement's bytes per node against the even spread, what
 * the skew costs, and the restore when there is one. */
static void storage_section(FILE *o, const struct results *r)
{
    const struct plan_summary *p = &r->plan;
    const struct restore_figures *f = &r->restore;
    /* one buffer per figure of a call: arguments are evaluated in any order */
    char a[32], b[32], c[32], d[32];
    fprintf(o, "<h2>Storage</h2>\n<table class=\"kv\">\n");
    fprintf(o, "<tr><th>placement</th><td>%s%s over %u storage nodes</td></tr>\n",
            p->placement ? p->placement : "file_mod",
            p->random_start ? " (random start)" : "",
            p->storage_nodes);
    fprintf(o, "<tr><th>bytes per node: max / mean (skew)</th><td>%s / %s (%.2f)</td></tr>\n",
            fmt_bytes((double)p->node_max_bytes, a, sizeof a),
            fmt_bytes(p->node_mean_bytes, b, sizeof b), p->node_skew);
    fprintf(o, "<tr><th>skew cost against an even spread</th><td>+%.1f%%, +%s</td></tr>\n",
            p->skew_cost_pct, fmt_secs((double)p->skew_cost_ps / 1e12, a, sizeof a));
    if (f->ran)
        fprintf(o, "<tr><th>restore (%s%s)</th><td>%s read (%.2fx) in %s, bound %s, "
                   "bottleneck %s; recovery %s</td></tr>\n",
                f->mode, f->estimated ? ", bound only" : "",
                fmt_bytes((double)f->bytes_read, a, sizeof a), f->amplification,
                fmt_secs(f->completion_s, b, sizeof b), fmt_secs(f->bound_s, c, sizeof c),
                path_seg_label_io(f->bottleneck, 1), fmt_dur(f->recovery_s, d, sizeof d));
    fprintf(o, "</table>\n");
    /* one row per node, while they fit on a page */
    uint32_t n = p->nodes_listed <= 64 ? p->nodes_listed : 0;
    if (!n)
        return;
    fprintf(o, "<table><tr><th>storage node</th><th>bytes</th><th>of the mean</th></tr>\n");
    for (uint32_t i = 0; i < n; i++)
        fprintf(o, "<tr%s><td>%u</td><td>%s</td><td>%.3f</td></tr>\n",
                p->node_bytes[i] == p->node_max_bytes && p->node_skew > 1.005 ? " class=\"bn\"" : "",
                i, fmt_bytes((double)p->node_bytes[i], a, sizeof a),
                p->node_mean_bytes > 0 ? (double)p->node_bytes[i] / p->node_mean_bytes : 0);
    fprintf(o, "</table>\n");
}

static void cost_table(FILE *o, const struct scenario *sc, const struct results *r)
{
    const struct cost_figures *c = &r->cost;
    char a[32], b[32], d[32];
    fprintf(o, "<table class=\"kv\">\n");
    fprintf(o, "<tr><th>GPU stall per checkpoint</th><td>%s</td></tr>\n",
            fmt_secs(c->stall_s, a, sizeof a));
    fprintf(o, "<tr><th>checkpoints per day</th><td>%.3g</td></tr>\n", c->checkpoints_per_day);
    fprintf(o, "<tr><th>GPU-hours stalled per day</th><td>%s</td></tr>\n",
            fmt_num(c->gpu_hours_per_day, a, sizeof a));
    fprintf(o, "<tr><th>money per day (at %.4g ", sc->training.gpu_hour_cost);
    report_html_text(o, sc->training.currency);
    fputs(" per GPU-hour)</th><td>", o);
    fputs(fmt_num(c->money_per_day, a, sizeof a), o);
    fputc(' ', o);
    report_html_text(o, sc->training.currency);
    fputs("</td></tr>\n", o);
    fprintf(o, "<tr><th>MFU points lost</th><td>%.3g</td></tr>\n", c->mfu_points_lost);
    fprintf(o, "<tr><th>interval configured</th><td>%s</td></tr>\n",
            fmt_dur(c->interval_s, a, sizeof a));
    if (c->job_mtbf_s > 0) {
        fprintf(o, "<tr><th>job MTBF</th><td>%s</td></tr>\n", fmt_dur(c->job_mtbf_s, a, sizeof a));
        fprintf(o, "<tr><th>optimal interval (Young / Daly)</th><td>%s / %s</td></tr>\n",
                fmt_dur(c->young_s, a, sizeof a), fmt_dur(c->daly_s, b, sizeof b));
    }
    fprintf(o, "<tr><th>goodput configured / optimal</th><td>%.2f%% / %.2f%%</td></tr>\n",
            100 * c->goodput, 100 * c->goodput_at_optimal);
    fprintf(o, "<tr><th>GPU-hours lost per day, all causes</th><td>%s</td></tr>\n",
            fmt_num(c->lost_gpu_hours_per_day, a, sizeof a));
    if (c->priced) { /* cost.prices: the fabric's capital beside the loss */
        fprintf(o, "<tr><th>money lost per day / fabric capital per day (%.4g years)</th>"
                   "<td>%s / %s ",
                c->amortisation_years, fmt_num(c->lost_money_per_day, a, sizeof a),
                fmt_num(c->capital_per_day, b, sizeof b));
        report_html_text(o, sc->training.currency);
        fprintf(o, "</td></tr>\n<tr><th>fabric capital (switches + optics)</th><td>%s = %s + %s",
                fmt_num(c->capital, a, sizeof a), fmt_num(c->capital_switches, b, sizeof b),
                fmt_num(c->capital_optics, d, sizeof d));
        for (uint32_t i = 0; i < c->n_unpriced; i++) {
            fprintf(o, i ? ", " : "; unpriced, not in the total: ");
            report_html_text(o, c->unpriced[i]);
        }
        fprintf(o, "</td></tr>\n");
    }
    fprintf(o, "</table>\n");
}

static void echo_key(void *ud, const char *key, const char *value, int kind)
{
    (void)kind;
    report_html_text(ud, key);
    fputs(" = ", ud);
    report_html_text(ud, value);
    fputc('\n', ud);
}

/* The scenario's name and the keys --set changed ("default + fabric.spines=8,
 * workload.bytes_per_writer=2MB"): the page describes the effective
 * scenario, not the file. scenario_echo calls in table order, the order
 * that set_mask and pos index; a key set by --set has pos line 0. */
struct sets {
    const struct scenario *sc;
    FILE *o;
    size_t i;
    int n;
};

static void set_key(void *ud, const char *key, const char *value, int kind)
{
    struct sets *t = ud;
    size_t i = t->i++;
    (void)kind;
    if (i >= SCENARIO_MAX_KEYS || !scenario_is_set(t->sc, key) || t->sc->pos[i].line != 0)
        return;
    fputs(t->n++ ? ", " : " + ", t->o);
    report_html_text(t->o, key);
    fputc('=', t->o);
    report_html_text(t->o, value);
}

static void title_text(FILE *o, const struct scenario *sc, const char *before_sets,
                       const char *after_sets)
{
    report_html_text(o, sc->source[0] ? sc->source : "default");
    fputs(before_sets, o);
    struct sets t = {sc, o, 0, 0};
    scenario_echo(sc, set_key, &t);
    fputs(after_sets, o);
}

static const char css[] =
    "body{font-family:sans-serif;max-width:1180px;margin:2em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.5em}h1 .sets{font-size:.6em;font-weight:normal;color:#555}"
    "h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
    /* long summary lines wrap: nothing hides past the right edge */
    "pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}"
    "pre.summary{white-space:pre-wrap;overflow-wrap:anywhere}"
    "svg{max-width:100%;height:auto}"
    ".note{font-size:12px;color:#555}table.links{margin-top:.8em}"
    "table{border-collapse:collapse;font-size:13px}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
    "th{background:#eee}td:first-child{text-align:left}"
    "table.kv th{text-align:left}tr.bn{background:#fde2e1;font-weight:bold}"
    ".verdict{font-size:13px;background:#fff7e0;border-left:4px solid #e0a000;"
    "white-space:pre-wrap}"
    "figure{margin:1em 0}figcaption{font-size:12px;color:#555}"
    ".noplot{color:#777;font-style:italic}";

static void page(FILE *o, const struct scenario *sc, const struct results *r, const char *dir,
                 const int have[PLOT_COUNT], const char *why[PLOT_COUNT])
{
    fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<title>ckptnet report: ");
    title_text(o, sc, "", "");
    fprintf(o, "</title>\n<style>%s</style></head><body>\n<h1>ckptnet: ", css);
    title_text(o, sc, "<span class=\"sets\">", "</span>");
    fprintf(o, "</h1>\n");
    /* verdict, then the summary as the terminal prints it */
    char *sum = NULL, *ver = NULL;
    size_t sl = 0, vl = 0;
    FILE *m = open_memstream(&ver, &vl);
    if (m) {
        report_segments(m, sc, r);
        fclose(m);
    }
    fprintf(o, "<h2>Bottleneck</h2>\n<pre class=\"verdict\">");
    if (ver) {
        /* the verdict lines come before the table header */
        char *tab = strstr(ver, "\n  segment ");
        if (tab)
            tab[1] = '\0';
        report_html_text(o, ver);
    }
    fprintf(o, "</pre>\n");
    segment_table(o, sc, r);
    busiest_links(o, r);
    m = open_memstream(&sum, &sl);
    if (m) {
        report_summary(m, sc, r);
        fclose(m);
    }
    fprintf(o, "<h2>Summary</h2>\n<pre class=\"summary\">");
    if (sum)
        report_html_text(o, sum);
    fprintf(o, "</pre>\n");
    free(sum);
    free(ver);
    storage_section(o, r);
    uint32_t ff = ff_spans(NULL, r);
    if (ff)
        fprintf(o, "<p class=\"noplot\">Grey spans in the time plots: %u samples that "
                   "hybrid fast-forwarded. A jump carries them: queues and pauses as over "
                   "the steady state it skipped, byte counts advanced in proportion to time "
                   "(<code>fast_forwarded_flag</code> in timeseries.csv and queues.csv).</p>\n",
                ff);
    for (int i = 0; i < PLOT_COUNT; i++) {
        int p = page_order[i];
        if (p == PLOT_FLOWS && !r->n_sample_flows)
            continue; /* only with telemetry.flows */
        if (p == PLOT_TRAINING && !r->training.on)
            continue; /* only with training.traffic */
        if (p == PLOT_INGEST && !r->series.n_store)
            continue; /* only with back ends that can fall behind */
        if (!r->has_packet_stats && (p == PLOT_QUEUES || p == PLOT_PAUSES)) {
            if (p == PLOT_QUEUES)
                fprintf(o, "<h2>Queues and PFC pauses</h2>\n<p class=\"noplot\">Not "
                           "modelled: the %s engine computes flow rates, not packets, so "
                           "it has no queues or pauses (the packet engine, "
                           "<code>--engine packet</code>, plots them).</p>\n",
                        names_of(&names_engine, r->engine));
            continue;
        }
        fprintf(o, "<h2>%s</h2>\n",
                p == PLOT_CDF && RESULTS_READ(r) ? "Reader completion time (CDF)" : plot_title[p]);
        if (p == PLOT_COST)
            cost_table(o, sc, r);
        char pre[16];
        snprintf(pre, sizeof pre, "p%d_", p);
        if (!have[p] || report_inline_svg(o, dir, plot_file[p], pre) < 0) {
            fprintf(o, "<p class=\"noplot\">No plot: %s.</p>\n", have[p] ? "gnuplot wrote no SVG" : why[p]);
            continue;
        }
        fprintf(o, "\n");
    }
    fprintf(o, "<h2>Scenario</h2>\n<details><summary>every key of the effective scenario"
               "</summary><pre>");
    scenario_echo(sc, echo_key, o);
    fprintf(o, "</pre></details>\n<p>The CSV files behind these plots come from "
               "<code>--csv-dir</code>; <code>--report-dir DIR</code> keeps them with the "
               "gnuplot script that drew the plots (<code>cd DIR/plots &amp;&amp; gnuplot "
               "plots.gp</code>); the results as JSON from <code>--json</code> "
               "(docs/report.md).</p>\n</body></html>\n");
}

/* Everything a page draws from, in its plot directory. */
static const char *const plot_files[] = {
    "timeseries.csv", "queues.csv", "pauses.csv", "ports.csv", "writers.csv",
    "segments.csv", "flows.csv", "bars.dat", "ytics.gp", "goodput.dat", "marks.dat",
    "plots.gp", "gnuplot.err", "queues.svg", "throughput.svg", "cdf.svg", "pauses.svg",
    "cost.svg", "flows.svg", "training.csv", "training.svg", "ingest.svg"};

static void remove_plot_files(const char *dir)
{
    for (size_t i = 0; i < sizeof plot_files / sizeof plot_files[0]; i++) {
        char p[1100];
        snprintf(p, sizeof p, "%s/%s", dir, plot_files[i]);
        unlink(p);
    }
}

/* The CSV and data files, plots.gp (paths relative to dir: gnuplot runs
 * there) and the SVGs in dir; the page in path. */
static int render(const char *path, const char *dir, const struct scenario *sc,
                  const struct results *r, struct err *e)
{
    int rc = report_csv(dir, sc, r, e);
    uint32_t paused_ports = 0;
    int rows = rc == 0 ? write_pause_bars(dir, sc, r, &paused_ports) : 0;
    int have[PLOT_COUNT] = {0};
    const char *why[PLOT_COUNT] = {0};
    const struct series *s = &r->series;
    const char *no_ts = "fewer than two samples (telemetry.interval: 0, or longer than the run)";
    uint32_t done = 0;
    for (uint32_t i = 0; r->writer_s && i < r->n_writer_s; i++)
        done += r->writer_s[i] >= 0;
    /* queues and pauses: only with packet figures (page() explains) */
    have[PLOT_QUEUES] = r->has_packet_stats && s->n > 1 && s->n_hot > 0;
    why[PLOT_QUEUES] = s->n > 1 ? "no switch queue held a packet" : no_ts;
    have[PLOT_THROUGHPUT] = s->n > 1;
    why[PLOT_THROUGHPUT] = no_ts;
    have[PLOT_CDF] = done > 0;
    why[PLOT_CDF] = r->writer_s && r->n_writer_s ? "no writer completed"
                                                 : "this engine does not report each writer's completion";
    have[PLOT_PAUSES] = r->has_packet_stats && rows > 0;
    why[PLOT_PAUSES] = s->n > 1 ? "no port was paused at a sample" : no_ts;
    have[PLOT_FLOWS] = r->n_sample_flows > 0 && r->n_samples > 1 && r->sample_rate;
    why[PLOT_FLOWS] = no_ts;
    have[PLOT_INGEST] = s->n > 1 && s->n_store > 0 && s->ingest;
    why[PLOT_INGEST] = no_ts;
    have[PLOT_TRAINING] = r->training.on && r->training.steps > 0;
    why[PLOT_TRAINING] = "no training step ran";
    have[PLOT_COST] = rc == 0 && write_goodput(dir, sc, r) == 0;
    why[PLOT_COST] = "no checkpoint interval";
    if (rc == 0 && rows < 0)
        rc = err_set(e, "--report: cannot write plot data in %s", dir);
    int any = 0;
    for (int p = 0; p < PLOT_COUNT; p++)
        any |= have[p];
    if (rc == 0 && any && write_script(dir, sc, r, rows, paused_ports, have) < 0)
        rc = err_set(e, "--report: cannot write the plot script in %s", dir);
    if (rc == 0 && any)
        rc = gnuplot_exec(dir, "plots.gp", 1, e);
    if (rc == 0) {
        struct ofile of;
        FILE *o = ofile_open(&of, path, e);
        if (!o) {
            rc = -1;
        } else {
            page(o, sc, r, dir, have, why);
            rc = ofile_commit(&of, e);
        }
    }
    return rc;
}

int report_html(const char *path, const struct scenario *sc, const struct results *r,
                struct err *e)
{
    const char *tmp = getenv("TMPDIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/ckptnet-report-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return err_set(e, "--report: cannot create a temporary directory in %s: %s",
                       tmp && *tmp ? tmp : "/tmp", strerror(errno));
    int rc = render(path, dir, sc, r, e);
    remove_plot_files(dir);
    rmdir(dir);
    return rc;
}

static int make_dir(const char *dir, struct err *e)
{
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return err_set(e, "--report-dir: '%s' is not a directory", dir);
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return err_set(e, "--report-dir: cannot create directory '%s': %s", dir,
                       strerror(errno));
    return 0;
}

/* Remove every file in dir, then dir (a private staging directory). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        char p[1400];
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            (size_t)snprintf(p, sizeof p, "%s/%s", dir, de->d_name) < sizeof p)
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Remove the plot files this run did not make (an earlier run's would
 * outlive it), then move every file of the staging directory into plots,
 * each by one rename (the same file system). */
static int move_plots(const char *stage, const char *plots, struct err *e)
{
    for (size_t i = 0; i < sizeof plot_files / sizeof plot_files[0]; i++) {
        char in_stage[1400], p[1400];
        struct stat st;
        snprintf(in_stage, sizeof in_stage, "%s/%s", stage, plot_files[i]);
        snprintf(p, sizeof p, "%s/%s", plots, plot_files[i]);
        if (stat(in_stage, &st) < 0 && lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
            unlink(p);
    }
    DIR *d = opendir(stage);
    if (!d)
        return err_set(e, "--report-dir: cannot read '%s': %s", stage, strerror(errno));
    int rc = 0;
    for (struct dirent *de; (de = readdir(d));) {
        char from[1400], to[1400];
        if (de->d_name[0] == '.' ||
            (size_t)snprintf(from, sizeof from, "%s/%s", stage, de->d_name) >= sizeof from ||
            (size_t)snprintf(to, sizeof to, "%s/%s", plots, de->d_name) >= sizeof to)
            continue;
        if (rename(from, to) < 0 && rc == 0)
            rc = err_set(e, "cannot write '%s': %s", to, strerror(errno));
    }
    closedir(d);
    return rc;
}

int report_html_dir_check(const char *dir, struct err *e)
{
    char plots[1100];
    struct stat st;
    if (ofile_check_in(dir, "report.html", e) < 0)
        return -1;
    if ((size_t)snprintf(plots, sizeof plots, "%s/plots", dir) >= sizeof plots)
        return err_set(e, "--report-dir: the path is too long (900 bytes at most)");
    if (lstat(plots, &st) < 0)
        return 0;
    if (ofile_check_dir(plots, e) < 0)
        return -1;
    for (size_t i = 0; i < sizeof plot_files / sizeof plot_files[0]; i++)
        if (ofile_check_in(plots, plot_files[i], e) < 0)
            return -1;
    return 0;
}

int report_html_dir(const char *dir, const struct scenario *sc, const struct results *r,
                    struct err *e)
{
    char plots[1024], page_path[1100], stage[1100];
    if (strlen(dir) > 900)
        return err_set(e, "--report-dir: the path is too long (900 bytes at most)");
    snprintf(plots, sizeof plots, "%s/plots", dir);
    snprintf(page_path, sizeof page_path, "%s/report.html", dir);
    if (make_dir(dir, e) < 0 || make_dir(plots, e) < 0)
        return -1;
    /* everything is drawn in a staging directory beside plots: a failure
     * anywhere leaves the earlier report and plots as they were */
    snprintf(stage, sizeof stage, "%s/.plots.tmp-XXXXXX", dir);
    if (!mkdtemp(stage))
        return err_set(e, "--report-dir: cannot create a directory in '%s': %s", dir,
                       strerror(errno));
    int rc = render(page_path, stage, sc, r, e);
    struct stat st;
    char errp[1200];
    snprintf(errp, sizeof errp, "%s/gnuplot.err", stage);
    if (stat(errp, &st) == 0 && st.st_size == 0)
        unlink(errp);
    if (rc == 0)
        rc = move_plots(stage, plots, e);
    remove_dir(stage);
    return rc;
}
