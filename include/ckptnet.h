/* ckptnet: how much training time do checkpoints cost on this fabric?
 *
 * The library's public header: standard headers only, every name it
 * declares starts with ckpt_ or CKPT_ (tests/header.sh checks both), and
 * the scenario and results are opaque. A run goes one way:
 *   scenario -> run -> results -> reports
 *
 *   struct ckpt_err e;
 *   struct ckpt_scenario *sc = ckpt_scenario_new();
 *   if (!sc || ckpt_scenario_load(sc, "s.yaml", &e) < 0 ||
 *       ckpt_scenario_set(sc, "seed=2", &e) < 0)
 *       ... e.msg says why ...
 *   struct ckpt_results *r = ckpt_scenario_run(sc, &e);
 *   double t;
 *   if (r && ckpt_result_number(r, "checkpoint.completion_s", &t) == 0)
 *       ckpt_report_summary(stdout, r);
 *   ckpt_results_free(r);
 *   ckpt_scenario_free(sc);
 *
 * Functions that can fail return 0 (or a pointer) on success and -1 (or
 * NULL) with a one-line message in the caller's struct ckpt_err, which may
 * be NULL. Nothing is printed except by the report functions, to the FILE
 * the caller passes. Scenario keys are docs/scenario.md's, result names the
 * JSON document's (docs/report.md). Objects share no state: separate
 * scenarios and results may be used from separate threads.
 */
#ifndef CKPT_H
#define CKPT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An error: one line, NUL-terminated; a file's errors read
 * "file:line:col: key: message". */
#define CKPT_ERR_LEN 512
struct ckpt_err {
    char msg[CKPT_ERR_LEN];
};

struct ckpt_scenario;
struct ckpt_results;

/* ---- scenario ---------------------------------------------------------- */

/* A scenario holding every key's default (the built-in scenario); NULL when
 * out of memory. ckpt_scenario_free(NULL) does nothing. */
struct ckpt_scenario *ckpt_scenario_new(void);
void ckpt_scenario_free(struct ckpt_scenario *sc);
/* Apply a YAML scenario file, or YAML text (name: what errors call it), on
 * top of what sc holds. */
int ckpt_scenario_load(struct ckpt_scenario *sc, const char *path, struct ckpt_err *e);
int ckpt_scenario_load_string(struct ckpt_scenario *sc, const char *yaml, const char *name,
                              struct ckpt_err *e);
/* Apply one "key.path=value" assignment, as the CLI's --set. */
int ckpt_scenario_set(struct ckpt_scenario *sc, const char *assignment, struct ckpt_err *e);
/* Every check a run makes before its engine starts: the keys together and
 * the fabric they build (sc is left as it is: the switch catalog fills in
 * a copy). */
int ckpt_scenario_validate(const struct ckpt_scenario *sc, struct ckpt_err *e);
/* What a run of sc would do, without running it: the plan, the fabric, the
 * bound, estimates of its cost, then every key (as "ckptnet describe"). */
int ckpt_scenario_describe(FILE *out, const struct ckpt_scenario *sc, struct ckpt_err *e);
/* Write the fabric a run of sc would build to path as a topology file
 * (fabric.topology_file reads it back). */
int ckpt_scenario_topology_out(const struct ckpt_scenario *sc, const char *path,
                               struct ckpt_err *e);

/* ---- run and results --------------------------------------------------- */

/* Validate and run sc (packet or fluid engine, by its engine key): the
 * results, which keep a copy of sc for the reports; NULL with e set when
 * sc is refused or memory runs out. A run whose invariants failed still
 * returns its results: ckpt_results_ok says. */
struct ckpt_results *ckpt_scenario_run(const struct ckpt_scenario *sc, struct ckpt_err *e);
/* The same, calling fn(ud, ...) now and then from the engine's loop (the
 * packet engine every 65536 events) with the simulated time done, the
 * payload bytes delivered of total, and the events so far; the results do
 * not depend on it. fn returning nonzero stops the run at that point: its
 * results are partial (checkpoint.finished false, checkpoint.interrupted
 * true). fn may be NULL. */
typedef int ckpt_progress_fn(void *ud, double sim_s, double delivered_bytes,
                             double total_bytes, double events);
struct ckpt_results *ckpt_scenario_run_progress(const struct ckpt_scenario *sc,
                                                ckpt_progress_fn *fn, void *ud,
                                                struct ckpt_err *e);
void ckpt_results_free(struct ckpt_results *r);
/* 1 when every invariant held and every transfer finished, else 0 (the
 * figures of such a run mean little; the summary says what failed). */
int ckpt_results_ok(const struct ckpt_results *r);
/* A figure by its dotted name in the JSON document (ckpt_report_json),
 * array elements by index: "checkpoint.completion_s", "bound.s",
 * "storage.node_bytes.0". Numbers and booleans (1, 0) for ckpt_result_number,
 * strings for ckpt_result_text (*s lives as long as r). Returns 0, or -1
 * when r has no such name or it holds another type (*v, *s untouched). */
int ckpt_result_number(const struct ckpt_results *r, const char *name, double *v);
int ckpt_result_text(const struct ckpt_results *r, const char *name, const char **s);

/* ---- reports ----------------------------------------------------------- */

/* Human summary (a dozen lines) and the segment table with its verdict. */
void ckpt_report_summary(FILE *out, const struct ckpt_results *r);
void ckpt_report_segments(FILE *out, const struct ckpt_results *r);
/* JSON document with the results and the effective scenario; perf = 0
 * omits the perf.* section (wall time: for byte-exact comparisons). The
 * _line form writes it on one line (JSON lines). */
int ckpt_report_json(FILE *out, const struct ckpt_results *r, int perf, struct ckpt_err *e);
int ckpt_report_json_line(FILE *out, const struct ckpt_results *r, int perf,
                          struct ckpt_err *e);
/* CSV files in dir (created if missing; docs/report.md). */
int ckpt_report_csv(const char *dir, const struct ckpt_results *r, struct ckpt_err *e);
/* One self-contained HTML file with plots (gnuplot must be installed), or
 * the same as dir/report.html keeping what drew the plots in dir/plots. */
int ckpt_report_html(const char *path, const struct ckpt_results *r, struct ckpt_err *e);
int ckpt_report_html_dir(const char *dir, const struct ckpt_results *r, struct ckpt_err *e);
/* Counters and gauges in the OpenMetrics text format (Prometheus). */
void ckpt_report_metrics(FILE *out, const struct ckpt_results *r);
/* The built-in switch profiles, models and DCQCN presets with sources. */
void ckpt_report_catalog(FILE *out);
/* Side-by-side table of the headline figures of n runs, or the same runs as
 * JSON: {"runs": [{"name": ..., "result": <ckpt_report_json>}]}. */
int ckpt_report_compare(FILE *out, int n, const char *const *names,
                        const struct ckpt_results *const *rs, struct ckpt_err *e);
int ckpt_report_compare_json(FILE *out, int n, const char *const *names,
                             const struct ckpt_results *const *rs, struct ckpt_err *e);

#ifdef __cplusplus
}
#endif

#endif
