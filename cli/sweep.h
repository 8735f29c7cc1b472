/* ckptnet sweep: one scenario run at many points (the cartesian product of
 * --vary values, or the lines of a points file) with N seeds each, in worker
 * processes or MPI ranks; rows stream to a CSV or JSON-lines file in run
 * order, whatever the parallelism (docs/sweep.md). */
#ifndef CKPT_CLI_SWEEP_H
#define CKPT_CLI_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "ckptnet.h"

#define SWEEP_MAX_KEYS 8
#define SWEEP_KEY_LEN 80
#define SWEEP_MAX_RUNS 100000

/* The figures of a row, in column order. F_EVENTS and F_WALL are the perf
 * columns: they come last, after error; wall_s alone varies between runs of
 * the same sweep. */
enum sweep_fig {
    F_COMPLETION, F_BOUND, F_RATIO, F_PAUSE_FRAMES, F_PAUSED, F_DROPS, F_MAXQ,
    F_STALL, F_GPUH, F_MONEY, F_GOODPUT, F_SLOWDOWN, F_EVENTS, F_WALL, F_COUNT
};
#define F_BEFORE_ERROR F_EVENTS /* figures before the error column */

enum { SWEEP_OK, SWEEP_VIOLATED, SWEEP_FAILED };

/* One run's outcome, as a worker sends it (raw bytes over a pipe or MPI:
 * every process runs the same binary). */
struct sweep_res {
    int32_t run;               /* point * seeds + seed index; -1 = none */
    int32_t status;            /* SWEEP_OK, _VIOLATED (figures kept), _FAILED */
    int32_t has_seed;          /* 0: failed before the scenario was built */
    int32_t done;              /* coordinator: the result arrived */
    uint64_t seed;
    char engine[16];
    char bottleneck[24];
    double fig[F_COUNT];       /* NAN = absent (did not finish, no packet figures) */
    char error[512];
};

/* The sweep as the command line describes it; every process (worker, rank)
 * builds the same one from the same arguments. */
struct sweep {
    const char *file;          /* scenario, NULL = built in */
    int argc;
    char **argv;               /* the options, for --set and --engine in order */
    int n_keys;
    char keys[SWEEP_MAX_KEYS][SWEEP_KEY_LEN];
    int n_points, seeds, n_runs;
    char **vals;               /* vals[p * n_keys + k]: the point's value text, owned */
};

extern const char *const sweep_fig_name[F_COUNT];

/* Text of a number as the outputs write it: integers exactly ("%.0f"),
 * others "%.9g". buf holds 32 bytes. */
const char *sweep_num(char *buf, double v);

/* Write the sweep's HTML report (sweep_html.c): a line plot of completion
 * and of the bound ratio against the first key (one line per value of the
 * others, min-max over seeds as error bars), a heat map over the first two
 * keys, and the table of points. res has sw->n_runs entries, done ones
 * count. Needs gnuplot. */
int sweep_html(const char *path, const struct sweep *sw, const struct sweep_res *res,
               struct err *e);

/* Option "--name v" / "--name=v" (shortname "-jN" / "-j N") at argv[*i]:
 * 1 with *v (and *i past the value), 0 if it is not that option, -1 when
 * the value is missing. */
int sweep_opt(int argc, char **argv, int *i, const char *name, const char *shortname,
              const char **v);

/* 1 when key is a scenario key. */
int sweep_key_known(const char *key);

/* Run every run of sw whose res[] is not done over jobs forked workers and
 * fill res (figures as the files would hold them); no file is written.
 * quiet = 0: a progress line on a terminal. Returns 0, or -1 when no worker
 * could run. */
int sweep_run_all(const struct sweep *sw, struct sweep_res *res, int jobs, int quiet);

/* `ckptnet sweep ...`: argv after the command name. Returns the exit status. */
int cmd_sweep(int argc, char **argv);
/* `ckptnet tune ...` (tune.c): coordinate descent over a few knobs. */
int cmd_tune(int argc, char **argv);

#endif
