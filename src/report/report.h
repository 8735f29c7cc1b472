/* The report writers over the internal types: the summary, JSON, CSV, HTML,
 * metrics, pcap and compare outputs the CLI and the public API
 * (include/ckptnet.h, src/api/public.c) write. */
#ifndef CKPT_REPORT_H
#define CKPT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../stats/results.h"

struct ckpt_capture; /* src/pkt/capture.h */

/* What a run would do, without running it: the figures known before the
 * engine (r: plan, bytes, writers, fabric, bound, segment capacities and
 * bounds, engine_reason) and estimates of its cost. */
struct ckpt_description {
    struct results r;          /* no engine figures; results_release not needed */
    int engine;                /* enum engine_kind that would run */
    uint32_t transfers, ports;
    double est_packets;        /* data packets (packet engine) */
    double est_events;         /* 8 per packet (packet), 2 per transfer (fluid) */
    double est_events_max;     /* the range's top: DCQCN, and go-back-N resends
                                * up to sim.time_limit (est_resends) */
    int est_resends;           /* go-back-N may resend: est_events is a lower bound */
    double est_mem_bytes;      /* upper estimate of the run's memory */
    double est_wall_s;         /* at the rates BENCHMARKS.md measured, from est_events */
    double est_wall_max_s;     /* the same from est_events_max */
};
/* Human summary (a dozen lines). */
void report_summary(FILE *out, const struct scenario *sc, const struct results *r);
/* JSON document with the results and the effective scenario; perf = 0 omits
 * the perf.* section (for byte-exact comparisons). */
int report_json(FILE *out, const struct scenario *sc, const struct results *r,
                int perf, struct err *e);
/* The same document on one line (JSON lines: one run per line). */
int report_json_line(FILE *out, const struct scenario *sc, const struct results *r,
                     int perf, struct err *e);

/* Segment table and verdict (the summary prints them after the answer). */
void report_segments(FILE *out, const struct scenario *sc, const struct results *r);

/* CSV files in dir (created if missing): timeseries.csv, queues.csv,
 * pauses.csv, ports.csv, writers.csv, segments.csv; a header row each, units
 * in the column names (docs/report.md). Without packet figures (fluid) the
 * queue and pause files and columns are left out (stale ones removed). */
int report_csv(const char *dir, const struct scenario *sc, const struct results *r,
               struct err *e);

/* Every output file is written to a temporary beside it and renamed into
 * place (src/core/outfile.h): a failed write keeps the earlier file, and
 * every file of a directory is tried, the first failure in e ("and N
 * more"). Before a run, the checks below say whether the files these
 * writers would replace in an existing dir can be replaced: 0, or -1 with
 * e set (a directory, a dangling symbolic link, not writable). */
int report_csv_check(const char *dir, struct err *e);
int report_pcap_check(const char *dir, struct err *e);
int report_html_dir_check(const char *dir, struct err *e);

/* One self-contained HTML file: summary, segment table, plots as inline SVG
 * rendered by gnuplot (which must be installed), cost summary. */
int report_html(const char *path, const struct scenario *sc, const struct results *r,
                struct err *e);
/* The same page as dir/report.html, keeping what drew its plots in
 * dir/plots: plots.gp (paths relative to it: cd dir/plots && gnuplot
 * plots.gp redraws), its data and CSV files and the SVGs. Creates dir and
 * dir/plots when missing; an earlier run's plot files there go first. */
int report_html_dir(const char *dir, const struct scenario *sc, const struct results *r,
                    struct err *e);

/* For pages with gnuplot plots: run gnuplot on dir/plots.gp (its first
 * error line in e), and copy dir/name from its <svg> on into out with every
 * id and reference prefixed by pre, so several plots share one page. */
int report_gnuplot_run(const char *dir, struct err *e);
/* s as HTML text (&, <, > and double quotes escaped). */
void report_html_text(FILE *f, const char *s);
int report_inline_svg(FILE *out, const char *dir, const char *name, const char *pre);

/* The run's counters and gauges in the OpenMetrics text format (Prometheus
 * scrapes it): run-level families for both engines; PFC, ECN, queue, drop
 * and, with telemetry.ports, per-port families for the packet engine
 * (docs/report.md). Ends with "# EOF". */
void report_metrics(FILE *out, const struct scenario *sc, const struct results *r);

/* One pcap file per captured port in dir (created if missing), named after
 * the port ("spine6-sleaf0.pcap"): Ethernet, IPv4, UDP 4791 and InfiniBand
 * BTH (+ RETH, AETH) for RoCEv2 packets and CNPs, 802.1Qbb PFC frames, at
 * simulated times with nanosecond resolution (docs/report.md). */
int report_pcap(const char *dir, const struct scenario *sc, const struct ckpt_capture *cap,
                struct err *e);

/* The built-in switch profiles, models and DCQCN presets with sources. */
void report_catalog(FILE *out);
/* A scenario described without running it, then every key. */
void report_describe(FILE *out, const struct scenario *sc, const struct ckpt_description *d);

/* Side-by-side table of the headline figures of n runs. */
void report_compare(FILE *out, int n, const char *const *names,
                    const struct scenario *scs, const struct results *rs);
/* The same table a row at a time, as runs end: the header (name column as
 * wide as the longest of names) returns that width for the rows. */
int report_compare_header(FILE *out, int n, const char *const *names);
void report_compare_row(FILE *out, int width, const char *name, const struct results *r);
/* One run as one line of JSON lines: {"name": ..., "result": <report_json>}. */
int report_compare_line(FILE *out, const char *name, const struct scenario *sc,
                        const struct results *r, struct err *e);
/* The same runs as JSON: {"runs": [{"name": ..., "result": <report_json>}]}. */
int report_compare_json(FILE *out, int n, const char *const *names,
                        const struct scenario *scs, const struct results *rs, struct err *e);

#endif
