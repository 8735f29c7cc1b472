/* The outputs of the commands, one table (cli/outputs.c): each row is an
 * option (--json, --csv-dir, ...) of some commands with its help lines, its
 * checks before a run and its writer. run, compare, describe and sweep
 * parse, check, document and write their outputs by walking it, so adding
 * an output is one row and its writer (docs/architecture.md, "Outputs"). */
#ifndef CKPT_CLI_OUTPUTS_H
#define CKPT_CLI_OUTPUTS_H

#include <stdio.h>

#include "../src/api/ckpt.h"
#include "sweep.h"

/* What a writer writes from: one run (run; describe has no results), the
 * runs of a table (compare, run --vary), or a sweep's runs. */
struct out_ctx {
    const struct scenario *sc;
    const struct results *r;         /* NULL: describe, nothing ran */
    const struct ckpt_capture *cap;  /* the frames OUT_CAPTURE rows asked for */
    int n;                           /* a table's runs that ended */
    const char *const *names;
    const struct scenario *scs;
    const struct results *rs;
    const struct sweep *sw;          /* sweep */
    const struct sweep_res *res;
};

enum {
    OUT_DIR = 1,       /* the value is a directory (ofile_check_dir), else a file */
    OUT_STDOUT = 2,    /* '-' is standard output */
    OUT_SERIES = 4,    /* wants a time series: run picks telemetry.interval */
    OUT_CAPTURE = 8,   /* wants the frames of telemetry.pcap.ports (packet engine) */
    OUT_SAYS_OPT = 16, /* the writer's messages are printed as they are (most name it) */
    OUT_TABLE = 32,    /* written from a table of runs (compare, run --vary), not one */
};

struct cli_output {
    const char *opt;   /* "--json" */
    const char *cmds;  /* the commands that take it, "run compare" */
    const char *help;  /* its lines in the command's --help */
    unsigned flags;
    /* an OUT_TABLE row given for one run: why not ("is for --vary ...") */
    const char *why_single;
    /* before a run, in this order; NULL = nothing to check. usable: can the
     * run make it (its message is "cmd: opt: ..."); check: can the path
     * take it, after ofile_check or ofile_check_dir ("opt: ..."); prepare:
     * what the scenario must record for it */
    int (*usable)(const struct scenario *sc, struct err *e);
    int (*check)(const char *path, struct err *e);
    void (*prepare)(struct scenario *sc);
    /* the writers, NULL = not in that mode. to_file: into a stream that
     * outputs.c opens and renames into place (src/core/outfile.h); to_path:
     * the writer makes path itself, whole or not at all; line: an OUT_TABLE
     * row's line per run, written as the run ends (the file renamed into
     * place after the last). A row with none (sweep --out) is written by
     * its command's own code. */
    int (*to_file)(FILE *f, const struct out_ctx *c, struct err *e);
    int (*to_path)(const char *path, const struct out_ctx *c, struct err *e);
    int (*line)(FILE *f, const char *name, const struct scenario *sc, const struct results *r,
                struct err *e);
};

extern const struct cli_output cli_outputs[];
extern const int cli_n_outputs;
#define CLI_MAX_OUTPUTS 16

/* 1 when row takes part in cmd. */
int cli_output_for(const struct cli_output *row, const char *cmd);
/* The row of option opt (given up to len bytes, or whole if len < 0) that
 * cmd takes, or any command's when cmd is NULL: its index, -1 if none. */
int cli_output_find(const char *cmd, const char *opt, int len);
/* An output option of sweep or tune (cmd) at argv[*i], as sweep_opt: 1
 * with its path in outs[row], 0 if none, -1 when the value is missing. */
int cli_output_opt(const char *cmd, int argc, char **argv, int *i, const char **outs,
                   const char **v);
/* cmd's rows' help lines, in table order, onto f. */
void cli_outputs_help(FILE *f, const char *cmd);
/* Write row's output at path for one run: 0, or -1 with e set (the
 * message as it is printed: "opt: ..." unless OUT_SAYS_OPT). */
int cli_output_write(const struct cli_output *row, const char *path, const struct out_ctx *c,
                     struct err *e);

#endif
