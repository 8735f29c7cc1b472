/* ckptnet sweep: one scenario run at many points (the cartesian product of
 * --vary values, or the lines of a points file) with N seeds each, in worker
 * processes or MPI ranks; rows stream to a CSV or JSON-lines file in run
 * order, whatever the parallelism (docs/sweep.md). */
#ifndef CKPT_CLI_SWEEP_H
#define CKPT_CLI_SWEEP_H

#include <stdint.h>
#include <stdio.h>

#include "../src/api/ckpt.h"
#include "../src/core/outfile.h"

/* The program's version: --version, and the sweep file's header. */
#define CKPTNET_VERSION "0.1.0"

#define SWEEP_MAX_KEYS 8
#define SWEEP_KEY_LEN 80
#define SWEEP_MAX_RUNS 100000

/* The figures of a row, in column order: the one list of them, each with
 * its column name (sweep_fig_name), so that a figure's index and its name
 * cannot drift apart. F_EVENTS and F_WALL are the perf columns: they come
 * last, after error; wall_s alone varies between runs of the same sweep. */
#define SWEEP_FIGS(X)                                                                   \
    X(F_COMPLETION, "completion_s") X(F_BOUND, "bound_s") X(F_RATIO, "bound_ratio")      \
    X(F_PAUSE_FRAMES, "pause_frames") X(F_PAUSED, "paused_s") X(F_DROPS, "drops")        \
    X(F_MAXQ, "max_queue_bytes") X(F_STALL, "gpu_stall_s")                              \
    X(F_GPUH, "gpu_hours_per_day") X(F_MONEY, "money_per_day") X(F_GOODPUT, "goodput")   \
    X(F_SLOWDOWN, "slowdown_frac") X(F_TRAIN_SLOWDOWN, "training_slowdown")             \
    X(F_TRAIN_STEP, "training_step_s") X(F_RESTORE, "restore_s")                        \
    X(F_CREDITS, "credits_granted") X(F_EVENTS, "events") X(F_WALL, "wall_s")
#define SWEEP_FIG_ID(id, name) id,
enum sweep_fig { SWEEP_FIGS(SWEEP_FIG_ID) F_COUNT };
#undef SWEEP_FIG_ID
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
    int seed0;                 /* run r uses seed index seed0 + r % seeds (tune adds seeds) */
    char **vals;               /* vals[p * n_keys + k]: the point's value text, owned */
    int base_engine;           /* sweep: the file and --set's engine and seed, */
    uint64_t base_seed;        /* for the output's header */
};

/* The process's place among MPI ranks (build/ckptnet-mpi under mpirun);
 * rank 0 of 1 otherwise. Rank 0 coordinates: sweep_run_all hands runs to
 * the other ranks as they ask, and ranks with nothing to do wait, idle,
 * for the next batch until sweep_par_end. */
struct sweep_par {
    const char *cmd;           /* "sweep" or "tune", for errors */
    int rank, ranks;
    int mpi;                   /* MPI_Init called */
    int live;                  /* rank 0: ranks serving (not yet told to stop) */
    int busy;                  /* rank 0: ranks running a run */
    int n_idle, *idle;         /* rank 0: ranks waiting for a run, owned */
};

/* Start MPI when launched with more than one rank (mpirun, srun) in the
 * MPI build; cmd names the command in errors. Returns 0, or 2 after one
 * error line (the plain build under mpirun; MPI sees one rank). */
int sweep_par_init(struct sweep_par *par, const char *cmd);
/* Every rank's rc: the largest, the same on all (setup errors stop every
 * rank). Ranks other than 0 serve only when it is 0. */
int sweep_par_agree(struct sweep_par *par, int rc);
/* A rank other than 0: run what rank 0 sends (a point's keys and values,
 * seed, run index; the scenario from file and --set / --engine in argv),
 * until told to stop. */
void sweep_serve(struct sweep_par *par, const char *file, int argc, char **argv);
/* Rank 0 stops the serving ranks; every rank leaves MPI and returns rank
 * 0's rc. No-op without MPI. */
int sweep_par_end(struct sweep_par *par, int rc);

/* Rank 0, between its workers' results: answer the ranks' requests waiting
 * now (sweep_mpi.c), taking runs from and handing results to the sweep's
 * coordinator (sweep.c). */
struct coord;
void sweep_serve_ranks(struct coord *c, const struct sweep *sw, struct sweep_par *par);
int32_t sweep_next_run(struct coord *c);
void sweep_record(struct coord *c, const struct sweep_res *r);

/* Run run of sw: point p with the scenario's seed + seed_off, into o. */
void sweep_run_one(const struct sweep *sw, int p, int seed_off, int32_t run,
                   struct sweep_res *o);

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

/* What sweep and tune take alike after their own options: --quiet/-q,
 * -h/--help, the scenario file (one). 2 after printing the error for an
 * unknown option or a second file; 0 otherwise. */
int sweep_common_arg(const char *cmd, const char *a, const char **file, int *quiet, int *help);

/* 1 when key is a scenario key. */
int sweep_key_known(const char *key);

/* Run every run of sw whose res[] is not done over jobs forked workers and
 * (par not NULL, rank 0) the serving MPI ranks, and fill res (figures as
 * the files would hold them); no file is written. jobs 0 with ranks: rank 0
 * only coordinates. quiet = 0: a progress line on a terminal. Returns 0, or
 * -1 when no worker could run. */
int sweep_run_all(const struct sweep *sw, struct sweep_res *res, int jobs, int quiet,
                  struct sweep_par *par);

/* `ckptnet sweep ...`: argv after the command name. Returns the exit status. */
int cmd_sweep(int argc, char **argv);
/* `ckptnet tune ...` (tune.c): coordinate descent over a few knobs. */
int cmd_tune(int argc, char **argv);

#endif
