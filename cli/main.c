/* ckptnet command line: the only place that prints to the user and exits.
 * Exit status: 0 ok, 1 a run invariant was violated, 2 bad usage or input. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "outputs.h"
#include "size.h"
#include "sweep.h"

#define VERSION CKPTNET_VERSION
#define MAX_FILES 64
#define MAX_VARY 64

static const char usage_main[] =
    "usage: ckptnet <command> [options]\n"
    "\n"
    "How much training time do checkpoints cost on this fabric?\n"
    "\n"
    "commands:\n"
    "  run [SCENARIO]          simulate a checkpoint burst (no file: the built-in default)\n"
    "  describe [SCENARIO]     the effective scenario and what a run would cost, without running\n"
    "  compare A.yaml B.yaml   run each scenario and print their headline figures side by side\n"
    "  sweep [SCENARIO]        run --vary points x seeds in parallel (-j, MPI), a CSV or JSON\n"
    "                          row per run (docs/sweep.md)\n"
    "  tune [SCENARIO]         search a few knobs for the best figure (default: a Latin\n"
    "                          hypercube sample, then coordinate descent)\n"
    "  size [SCENARIO]         the fabrics that meet a checkpoint target, priced: the front of\n"
    "                          cost per day against loss per day and the scenario to buy\n"
    "                          (docs/size.md)\n"
    "  catalog                 switch and storage profiles, models and DCQCN presets with their sources\n"
    "\n"
    "options:\n"
    "  -h, --help              show this help (ckptnet run --help: a command's options)\n"
    "  --version               print the version\n"
    "\n"
    "manual: docs/ckptnet.1 (man -l docs/ckptnet.1)\n";

static const char usage_run[] =
    "usage: ckptnet run [SCENARIO.yaml] [--set key.path=value]... [--engine E] [--json FILE]\n"
    "                   [--csv-dir DIR] [--report FILE.html] [--report-dir DIR]\n"
    "                   [--metrics FILE.prom] [--pcap DIR] [--vary key=v1,v2,...]\n"
    "                   [--quiet] [--force]\n"
    "                   [--progress S] [--jsonl FILE] [--phase P]\n"
    "\n"
    "Simulate every compute node writing its checkpoint shard at once through the\n"
    "leaf-spine fabric to the storage nodes, packet by packet, and report the\n"
    "completion time against the analytic lower bound and the segment that set it.\n"
    "\n"
    "  SCENARIO         YAML scenario file (keys: docs/scenario.md); default: built in\n"
    "  --set k=v        override one key, e.g. --set fabric.spines=8 (repeatable)\n"
    "  --engine E       packet, fluid, auto or hybrid (same as --set engine=E): packet\n"
    "                   simulates every packet, queue and pause; fluid gives each\n"
    "                   transfer its max-min fair rate (100k GPUs in seconds, no\n"
    "                   PFC/queues); auto picks fluid past ~8 s of packet engine;\n"
    "                   hybrid: packet, fast-forwarding steady states (sim.hybrid.*)\n"
    "  --phase P        save, restore or both (same as --set checkpoint.phase=P):\n"
    "                   restore simulates the read back after a failure\n"
    "  --vary k=v1,v2   run once per value of key k and print a comparison table,\n"
    "                   a row as each run ends; a value may set more keys with ';'\n"
    "                   (k=4;k2=2,8;k2=1)\n";
/* then the outputs (outputs.c), then: */
static const char usage_run_tail[] =
    "  --progress S     off a terminal too: a progress line on stderr every S seconds\n"
    "  --quiet          no summary on stdout, no progress line on a terminal\n"
    "  --force          run the packet engine even past ~1e9 events or this machine's\n"
    "                   memory (same as --set sim.force=true); without it such a\n"
    "                   run is refused with its estimate\n"
    "  -h, --help       show this help\n"
    "\n"
    "With --csv-dir or a report and no telemetry.interval, 400 to 1000 samples\n"
    "are taken over the bound. Runs longer than a second show a progress line\n"
    "on stderr when it is a terminal. Ctrl-C (SIGINT), SIGTERM and SIGHUP stop the\n"
    "run and report what it got so far, marked unfinished (a second signal kills).\n"
    "Each output file is written whole or not at all (an earlier one is kept).\n"
    "\n"
    "exit status: 0 ok, 1 an invariant was violated, 2 bad usage or scenario or an\n"
    "output not written, 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP\n";

static const char usage_describe[] =
    "usage: ckptnet describe [SCENARIO.yaml] [--set key.path=value]... [--engine E]\n"
    "                        [--topology-out FILE]\n"
    "\n"
    "Print what a run of the scenario would simulate, without running it: the\n"
    "checkpoint, fabric, oversubscription, analytic bound and the completion each\n"
    "path segment alone allows, the engine, estimated events, memory and wall\n"
    "time, then every key of the effective scenario.\n"
    "\n"
    "  --set k=v        override one key (repeatable)\n"
    "  --engine E       packet, fluid or auto\n";
static const char usage_describe_tail[] =
    "  -h, --help       show this help\n";

static const char usage_compare[] =
    "usage: ckptnet compare A.yaml B.yaml [...] [--set key.path=value]... [--engine E]\n"
    "       ckptnet compare [SCENARIO.yaml] --vary key=v1,v2,... [--set ...]\n"
    "       [--json FILE] [--jsonl FILE] [--progress S] [--force] [--quiet]\n"
    "\n"
    "Rows are printed as runs end; Ctrl-C (SIGTERM, SIGHUP) stops the run in\n"
    "progress, reports it as partial and skips the rest (exit 130, 143, 129).\n"
    "\n"
    "Run each scenario (or one scenario once per value of --vary) and print a table\n"
    "of the headline figures: completion, bound, bottleneck, GPU stall, GPU-hours\n"
    "per day, goodput, largest queue, PFC pause time, invariants.\n"
    "\n"
    "  --set k=v        override one key in every run (repeatable)\n"
    "  --engine E       packet, fluid or auto\n"
    "  --vary k=v1,v2   the runs: one per value of key k\n";
static const char usage_compare_tail[] =
    "  --progress S     off a terminal too: a progress line on stderr every S seconds\n"
    "  --force          run packet runs past ~1e9 events or this machine's memory\n"
    "  --quiet          no progress line on a terminal\n"
    "  -h, --help       show this help\n";

static const char usage_catalog[] =
    "usage: ckptnet catalog\n"
    "\n"
    "Print the built-in switch profiles (ports, capacity, latency, buffer, whether\n"
    "the figures are published or generic, source), the model catalog (parameters,\n"
    "layers, source) and the DCQCN presets.\n"
    "\n"
    "  -h, --help       show this help\n";

struct opts {
    const char *cmd;
    const char *files[MAX_FILES];
    int n_files;
    const char *vary;
    const char *out[CLI_MAX_OUTPUTS]; /* the path of each output row given, by row */
    double progress_every; /* --progress S: a line every S seconds off a terminal */
    int quiet, help;
};

/* SIGINT, SIGTERM and SIGHUP (Ctrl-C, Slurm, timeout, a closed terminal):
 * the running engine stops at its next progress call, the partial results
 * are reported (finished: false) and the outputs written; a second signal
 * kills. The one global: a signal handler can reach nothing else. It holds
 * the signal's number, 0 = none. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

static void catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = (int)SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* Exit status of an interrupted command, as shells report a signal's
 * death: 130 SIGINT, 143 SIGTERM, 129 SIGHUP. */
#define EXIT_INTERRUPTED (128 + interrupted)

/* One line on stderr: whatever it echoes (file names, options, values),
 * control characters are escaped so the line stays one line. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char raw[1024], esc[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ckptnet: %s\n", err_escape(esc, sizeof esc, raw));
}

static int die(const char *msg)
{
    say("%s", msg);
    return 2;
}

/* Options that take a value: "--x v" or "--x=v"; the outputs' are in
 * outputs.c's table. */
static const char *const valued[] = {"--set", "--engine", "--vary", "--progress", "--phase",
                                     NULL};
enum { OPT_SET, OPT_ENGINE, OPT_VARY, OPT_PROGRESS, OPT_PHASE, OPT_OUT };

/* `allowed` ("json csv-dir ...") holds name as a whole word. */
static int allows(const char *allowed, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = allowed; (p = strstr(p, name)); p += l)
        if ((p == allowed || p[-1] == ' ') && (p[l] == ' ' || p[l] == '\0'))
            return 1;
    return 0;
}

/* Which valued option a is, with its value in *v: its index in valued[],
 * or OPT_OUT + the first output row of that name; -1 if none. */
static int valued_opt(int argc, char **argv, int *i, const char **v)
{
    const char *a = argv[*i];
    int l = (int)strcspn(a, "="), k = 0;
    while (valued[k] && ((int)strlen(valued[k]) != l || strncmp(a, valued[k], (size_t)l)))
        k++;
    if (!valued[k]) {
        int row = cli_output_find(NULL, a, l);
        if (row < 0)
            return -1;
        k = OPT_OUT + row;
    }
    *v = a[l] == '=' ? a + l + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    return k;
}

/* The name of valued option k (valued_opt). */
static const char *valued_name(int k)
{
    return k < OPT_OUT ? valued[k] : cli_outputs[k - OPT_OUT].opt;
}

/* Parse the options of cmd; `allowed` lists the valued options it takes
 * ("json csv-dir ..."). Returns 0, or 2 after printing the error. */
static int parse_opts(const char *cmd, int argc, char **argv, const char *allowed,
                      int max_files, struct opts *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    unsigned seen = 0; /* valued options given; only --set repeats */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int k = valued_opt(argc, argv, &i, &v);
        const char *name = k >= 0 ? valued_name(k) : NULL;
        if (k >= OPT_OUT) { /* this command's row of that name, if it takes one */
            int row = cli_output_find(cmd, name, -1);
            k = row < 0 ? -2 : OPT_OUT + row;
        }
        if (k == -2 || (k >= 0 && k < OPT_OUT && !allows(allowed, valued[k] + 2))) {
            say("%s: unknown option '%s' (see ckptnet %s --help)", cmd, name, cmd);
            return 2;
        }
        if (k >= 0) {
            if (k > 0 && (seen & (1u << k))) {
                /* the later one would silently replace the earlier */
                say("%s: %s given twice%s", cmd, valued_name(k),
                    k == OPT_VARY ? " (one key per table; ckptnet sweep "
                                    "varies several keys)" : "");
                return 2;
            }
            seen |= 1u << k;
            if (!v) {
                say("%s needs a value", valued_name(k));
                return 2;
            }
            if (k == OPT_SET && !strchr(v, '=')) {
                /* "--set fabric.spines 8": the 8 would be read as a file */
                if (i + 1 < argc && argv[i + 1][0] != '-')
                    say("--set %s %s: write key=value (--set %s=%s)", v, argv[i + 1], v,
                        argv[i + 1]);
                else
                    say("--set %s: expected key=value", v);
                return 2;
            }
            if (k >= OPT_OUT)
                o->out[k - OPT_OUT] = v;
            else if (k == OPT_VARY)
                o->vary = v;
            else if (k == OPT_PROGRESS) {
                char *end;
                o->progress_every = strtod(v, &end);
                if (*end || !(o->progress_every > 0) || o->progress_every > 86400) {
                    say("--progress: expected seconds between lines (0 < S <= 86400), got '%s'",
                        v);
                    return 2;
                }
            }
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
        } else if ((!strcmp(a, "--quiet") || !strcmp(a, "-q")) && allows(allowed, "quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--force") && allows(allowed, "force")) {
            continue; /* build_scenario applies it as sim.force */
        } else if (a[0] == '-' && a[1]) {
            /* the nearest option this command takes, for a typo */
            const char *cands[OPT_OUT + CLI_MAX_OUTPUTS + 3];
            size_t n = 0;
            for (int j = 0; valued[j]; j++)
                if (allows(allowed, valued[j] + 2))
                    cands[n++] = valued[j];
            for (int j = 0; j < cli_n_outputs; j++)
                if (cli_output_for(&cli_outputs[j], cmd))
                    cands[n++] = cli_outputs[j].opt;
            cands[n++] = "--help";
            if (allows(allowed, "quiet"))
                cands[n++] = "--quiet";
            if (allows(allowed, "force"))
                cands[n++] = "--force";
            const char *eq = strchr(a, '=');
            char opt[64];
            snprintf(opt, sizeof opt, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
            const char *near = text_nearest(opt, cands, n, 2);
            if (near)
                say("%s: unknown option '%s' (did you mean %s? see ckptnet %s --help)", cmd, a,
                    near, cmd);
            else
                say("%s: unknown option '%s' (see ckptnet %s --help)", cmd, a, cmd);
            return 2;
        } else if (o->n_files >= max_files) {
            if (max_files == 1)
                say("%s: more than one scenario file ('%s', '%s')", cmd,
                        o->files[0], a);
            else if (max_files == 0)
                say("%s: takes no file ('%s')", cmd, a);
            else
                say("%s: more than %d scenario files", cmd, max_files);
            return 2;
        } else {
            o->files[o->n_files++] = a;
        }
    }
    return 0;
}

/* Defaults, then file, then --set / --engine in command-line order, then
 * extra (a --vary assignment); resolved and validated. */
static int build_scenario(struct scenario *sc, const char *file, int argc, char **argv,
                          const char *extra, struct err *e)
{
    scenario_defaults(sc);
    if (file && scenario_load_file(sc, file, e) < 0)
        return -1;
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        char buf[160];
        int k = valued_opt(argc, argv, &i, &v);
        if (!strcmp(argv[i], "--force")) {
            v = "sim.force=true";
        } else if (k == OPT_ENGINE) {
            snprintf(buf, sizeof buf, "engine=%s", v);
            v = buf;
        } else if (k == OPT_PHASE) {
            snprintf(buf, sizeof buf, "checkpoint.phase=%s", v);
            v = buf;
        } else if (k != OPT_SET) {
            continue;
        }
        if (scenario_set(sc, v, e) < 0) {
            /* --engine X is the option the user typed, not a --set */
            if (k == OPT_ENGINE && !strncmp(e->msg, "--set: engine: ", 15)) {
                char m[sizeof e->msg];
                snprintf(m, sizeof m, "--engine: %s", e->msg + 15);
                snprintf(e->msg, sizeof e->msg, "%s", m);
            }
            if (k == OPT_PHASE && !strncmp(e->msg, "--set: checkpoint.phase: ", 25)) {
                char m[sizeof e->msg];
                snprintf(m, sizeof m, "--phase: %s", e->msg + 25);
                snprintf(e->msg, sizeof e->msg, "%s", m);
            }
            return -1;
        }
        /* later refusals of the key name the option the user typed */
        if (k == OPT_ENGINE || k == OPT_PHASE || !strcmp(argv[i], "--force"))
            scenario_mark_option(sc, k == OPT_ENGINE ? "engine"
                                     : k == OPT_PHASE ? "checkpoint.phase"
                                                      : "sim.force");
    }
    /* a --vary value "v;k2=v2;..." also sets k2, as sweep --vary and tune --knob */
    for (const char *p = extra; p && *p;) {
        char a[512];
        size_t l = strcspn(p, ";");
        snprintf(a, sizeof a, "%.*s", (int)l, p);
        p += l + (p[l] == ';');
        if (scenario_set(sc, a, e) < 0)
            return -1;
    }
    return scenario_resolve(sc, e) < 0 || scenario_validate(sc, e) < 0 ? -1 : 0;
}

/* ---- output paths ---------------------------------------------------------- */

/* The outputs of o that are given, and written in the mode of o's command
 * (table: from a table of runs, compare and run --vary; else from one run),
 * can be written: the run can make each (usable), its path can take it (a
 * writable file, or absent in a writable directory, not a dangling symbolic
 * link; a directory that exists or can be made, whose files it replaces can
 * be replaced), and no two take stdout. Checked before a run, so that a
 * typo in a path costs no simulation; sc NULL skips usable. Returns 0, or 2
 * after printing why. */
static int check_outputs(const struct opts *o, int table, const struct scenario *sc)
{
    const char *on_stdout = NULL;
    for (int k = 0; k < cli_n_outputs; k++) {
        const struct cli_output *row = &cli_outputs[k];
        const char *path = o->out[k];
        struct err e = {{0}};
        if (!path || !(row->flags & OUT_TABLE) != !table)
            continue;
        if (sc && row->usable && row->usable(sc, &e) < 0) {
            say("%s: %s: %s", o->cmd, row->opt, e.msg);
            return 2;
        }
        if ((row->flags & OUT_DIR ? ofile_check_dir(path, &e) : ofile_check(path, &e)) < 0 ||
            (row->check && row->check(path, &e) < 0)) {
            say("%s: %s", row->opt, e.msg);
            return 2;
        }
        if ((row->flags & OUT_STDOUT) && !strcmp(path, "-")) {
            if (on_stdout) {
                say("%s: %s - and %s - cannot both take stdout", o->cmd, on_stdout, row->opt);
                return 2;
            }
            on_stdout = row->opt;
        }
    }
    return 0;
}

/* 1 when an output of o that writes in that mode takes stdout. */
static int outputs_on_stdout(const struct opts *o, int table)
{
    for (int k = 0; k < cli_n_outputs; k++)
        if (o->out[k] && !(cli_outputs[k].flags & OUT_TABLE) == !table &&
            (cli_outputs[k].flags & OUT_STDOUT) && !strcmp(o->out[k], "-"))
            return 1;
    return 0;
}

/* Write every output of o given for one run (not a table's), each tried and
 * each failure said: one full disk or bad path costs that output alone. The
 * number that failed. */
static int write_outputs(const struct opts *o, const struct out_ctx *c)
{
    int failed = 0;
    for (int k = 0; k < cli_n_outputs; k++) {
        struct err e = {{0}};
        if (o->out[k] && !(cli_outputs[k].flags & OUT_TABLE) &&
            cli_output_write(&cli_outputs[k], o->out[k], c, &e) < 0)
            failed++, say("%s", e.msg);
    }
    return failed;
}

/* The usage of cmd: head, its outputs' lines, tail. */
static void usage(const char *cmd, const char *head, const char *tail)
{
    fputs(head, stdout);
    cli_outputs_help(stdout, cmd);
    fputs(tail, stdout);
}

/* After writing the summary or a table to stdout: its errors (a full disk,
 * > /dev/full, a closed pipe) are the command's failure. 0, or 2 said. */
static int check_stdout(const char *what)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    say("cannot write %s to standard output: %s", what, strerror(errno ? errno : EIO));
    return 2;
}

/* ---- progress line --------------------------------------------------------- */

struct progress {
    struct timespec t0;
    double after;  /* seconds of wall time before the first line */
    double last;   /* wall time of the last line, -1 = none yet */
    int shown;
    int tty;       /* one line rewritten in place; else a line per `every` */
    double every;  /* off a terminal: seconds between lines, 0 = none */
};

static double wall_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void on_progress(void *ud, const struct ckpt_progress_info *p)
{
    struct progress *s = ud;
    if (!s->tty && !s->every)
        return;
    double w = wall_since(&s->t0);
    if (s->tty ? w < s->after || (s->last >= 0 && w - s->last < 0.25)
               : w < (s->last >= 0 ? s->last : 0) + s->every)
        return;
    s->last = w;
    s->shown = s->tty;
    double f = p->total ? (double)p->delivered / (double)p->total : 0;
    fprintf(stderr, "%s  %.4g ms simulated, %.0f%% of the bytes delivered; %.1f s wall, "
                    "%.3g ms simulated/s, %.3g M events/s",
            s->tty ? "\r" : "progress:", p->sim_s * 1e3, 100 * f, w, p->sim_s * 1e3 / w,
            (double)p->events / w / 1e6);
    if (f > 0.001)
        fprintf(stderr, "; ETA %.0f s", w * (1 - f) / f);
    fputs(s->tty ? "   " : "\n", stderr);
    fflush(stderr);
}

/* Run with a progress line when stderr is a terminal and not quiet, or a
 * line every `every` seconds (--progress) otherwise; SIGINT stops it;
 * cap (or NULL) records the packets of the ports to capture. */
static int run_one(const struct scenario *sc, struct results *r, int quiet, double every,
                   struct ckpt_capture *cap, struct err *e)
{
    /* CKPTNET_PROGRESS_AFTER (seconds, default 1) lets tests see the line */
    const char *after = getenv("CKPTNET_PROGRESS_AFTER");
    int tty = !quiet && isatty(STDERR_FILENO);
    struct progress st = {{0, 0}, after ? atof(after) : 1.0, -1, 0, tty, every};
    struct ckpt_progress pr = {on_progress, &st, &interrupted};
    clock_gettime(CLOCK_MONOTONIC, &st.t0);
    int rc = ckpt_run_capture(sc, r, &pr, cap, e);
    if (st.shown)
        fputs("\r\033[K", stderr);
    return rc;
}

/* ---- commands -------------------------------------------------------------- */

/* --csv-dir and --report want a time series: without telemetry.interval,
 * take 400 to 1000 samples over the bound (bound / 400 rounded down to 1, 2
 * or 5 in its decade). */
static void auto_interval(struct scenario *sc)
{
    if (scenario_is_set(sc, "telemetry.interval"))
        return;
    struct ckpt_description d;
    struct err e;
    if (ckpt_describe(sc, &d, &e) < 0 || !(d.r.bound_s > 0))
        return;
    double want = d.r.bound_s * 1e12 / 400, step = 1;
    while (step * 10 <= want)
        step *= 10;
    double v = want >= 5 * step ? 5 * step : want >= 2 * step ? 2 * step : step;
    sc->telemetry.interval_ps = v < 1e5 ? 100000 : (uint64_t)v; /* at least 100 ns */
}

static int cmd_compare_runs(int n, const char *const *names, struct scenario *scs,
                            const struct opts *o);

/* "key=v1,v2,..." -> n assignments "key=vi" in buf. */
static int split_vary(const char *vary, char (*out)[160], const char **names, int *n)
{
    const char *eq = strchr(vary, '=');
    if (!eq || eq == vary || !eq[1]) {
        say("--vary: expected key=v1,v2,..., got \"%s\"", vary);
        return 2;
    }
    int klen = (int)(eq - vary);
    *n = 0;
    for (const char *p = eq + 1;;) {
        const char *c = strchr(p, ',');
        int vlen = c ? (int)(c - p) : (int)strlen(p);
        if (vlen == 0 || *n >= MAX_VARY) {
            say("--vary: %s in \"%s\"",
                    vlen ? "more than 64 values" : "empty value", vary);
            return 2;
        }
        snprintf(out[*n], sizeof out[*n], "%.*s=%.*s", klen, vary, vlen, p);
        names[*n] = out[*n];
        (*n)++;
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

static int cmd_vary(const char *cmd, const char *file, const struct opts *o, int argc,
                    char **argv)
{
    const char *vary = o->vary;
    char assign[MAX_VARY][160];
    const char *names[MAX_VARY];
    int n;
    if (split_vary(vary, assign, names, &n))
        return 2;
    struct scenario *scs = malloc((size_t)n * sizeof *scs);
    if (!scs)
        return die("out of memory");
    for (int i = 0; i < n; i++) {
        struct err e = {{0}};
        if (build_scenario(&scs[i], file, argc, argv, assign[i], &e) < 0) {
            free(scs);
            /* "--set: key: ..." reads "--vary key: ..." here */
            const char *m = strncmp(e.msg, "--set: ", 7) ? e.msg : e.msg + 7;
            say("%s: --vary %s", cmd, m);
            return 2;
        }
    }
    int rc = cmd_compare_runs(n, names, scs, o);
    free(scs);
    return rc;
}

/* The outputs of o given that a table of runs does not write (table 0), or
 * that one run does not (1), as "--a, --b and --c"; "" if none. */
static const char *outputs_given(const struct opts *o, int table, char *buf, size_t len)
{
    int n = 0, all = 0;
    for (int k = 0; k < cli_n_outputs; k++)
        all += o->out[k] && !(cli_outputs[k].flags & OUT_TABLE) == !table;
    buf[0] = '\0';
    for (int k = 0; k < cli_n_outputs; k++) {
        if (!o->out[k] || !(cli_outputs[k].flags & OUT_TABLE) != !table)
            continue;
        size_t l = strlen(buf);
        snprintf(buf + l, len - l, "%s%s", n == 0 ? "" : n == all - 1 ? " and " : ", ",
                 cli_outputs[k].opt);
        n++;
    }
    return buf;
}

/* The outputs cmd takes that one run writes (table 0) or a table of runs
 * (1), as outputs_given. */
static const char *outputs_taken(const char *cmd, int table, char *buf, size_t len)
{
    struct opts all = {.cmd = cmd};
    for (int k = 0; k < cli_n_outputs; k++)
        all.out[k] = cli_output_for(&cli_outputs[k], cmd) ? "" : NULL;
    return outputs_given(&all, table, buf, len);
}

static int cmd_run(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts("run", argc, argv, "set engine vary quiet force progress phase", 1, &o);
    if (rc)
        return rc;
    if (o.help) {
        usage("run", usage_run, usage_run_tail);
        return 0;
    }
    const char *file = o.n_files ? o.files[0] : NULL;
    char one[512], many[512];
    if (o.vary) {
        if (outputs_given(&o, 0, one, sizeof one)[0]) {
            say("run: --vary prints a table; %s need a single run (%s write%s each run's "
                "results)", outputs_taken("run", 0, one, sizeof one),
                outputs_taken("run", 1, many, sizeof many), strchr(many, ' ') ? "" : "s");
            return 2;
        }
        if (check_outputs(&o, 1, NULL))
            return 2;
        return cmd_vary("run", file, &o, argc, argv);
    }
    for (int k = 0; k < cli_n_outputs; k++)
        if (o.out[k] && (cli_outputs[k].flags & OUT_TABLE)) {
            say("run: %s %s", cli_outputs[k].opt, cli_outputs[k].why_single);
            return 2;
        }
    struct err e = {{0}};
    struct scenario sc;
    if (build_scenario(&sc, file, argc, argv, NULL, &e) < 0)
        return die(e.msg);
    if (check_outputs(&o, 0, &sc))
        return 2;
    unsigned wants = 0; /* the flags of the outputs given */
    for (int k = 0; k < cli_n_outputs; k++)
        wants |= o.out[k] ? cli_outputs[k].flags : 0;
    if (wants & OUT_SERIES)
        auto_interval(&sc);
    for (int k = 0; k < cli_n_outputs; k++)
        if (o.out[k] && cli_outputs[k].prepare)
            cli_outputs[k].prepare(&sc);
    int capture = (wants & OUT_CAPTURE) != 0;

    struct results r;
    struct ckpt_capture *cap = capture ? ckpt_capture_new() : NULL;
    if (capture && !cap)
        return die("out of memory");
    catch_signals();
    if (run_one(&sc, &r, o.quiet, o.progress_every, cap, &e) < 0) {
        ckpt_capture_free(cap);
        return die(e.msg);
    }
    /* with --json - stdout carries the JSON alone; the summary goes to stderr */
    int any_stdout = outputs_on_stdout(&o, 0);
    int bad = 0;
    if (!o.quiet) {
        report_summary(any_stdout ? stderr : stdout, &sc, &r);
        if (!any_stdout)
            bad |= check_stdout("the summary") != 0;
    }
    struct out_ctx c = {.sc = &sc, .r = &r, .cap = cap};
    int failed = write_outputs(&o, &c);
    ckpt_capture_free(cap);
    if (failed && o.quiet) {
        /* nothing else holds this run's result now: say it on stderr */
        say("%d output%s not written; the summary instead:", failed, failed > 1 ? "s" : "");
        report_summary(stderr, &sc, &r);
    }
    bad |= failed > 0;
    /* a violated invariant outranks a failed write: exit 1 is the louder news */
    int status = bad ? 2 : 0;
    if (!r.ok) {
        say("invariant violated: %s", r.violation);
        status = 1;
    }
    if (r.interrupted) {
        say("interrupted by %s: partial results above (finished: false)",
            interrupted == SIGTERM ? "SIGTERM" : interrupted == SIGHUP ? "SIGHUP" : "SIGINT");
        status = r.ok ? EXIT_INTERRUPTED : status;
    }
    results_release(&r);
    return status;
}

static int cmd_describe(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts("describe", argc, argv, "set engine", 1, &o);
    if (rc)
        return rc;
    if (o.help) {
        usage("describe", usage_describe, usage_describe_tail);
        return 0;
    }
    struct err e = {{0}};
    struct scenario sc;
    struct ckpt_description d;
    if (build_scenario(&sc, o.n_files ? o.files[0] : NULL, argc, argv, NULL, &e) < 0 ||
        ckpt_describe(&sc, &d, &e) < 0)
        return die(e.msg);
    struct out_ctx c = {.sc = &sc};
    if (check_outputs(&o, 0, &sc) || write_outputs(&o, &c))
        return 2;
    report_describe(stdout, &sc, &d);
    return check_stdout("the description");
}

/* Run each scenario in turn: each row (and --jsonl line) is written as its
 * run ends, so an interruption keeps what finished; SIGINT stops the run in
 * progress, reports it as partial and skips the rest. */
static int cmd_compare_runs(int n, const char *const *names, struct scenario *scs,
                            const struct opts *o)
{
    struct results *rs = calloc((size_t)n, sizeof *rs);
    struct ofile *lf = calloc(CLI_MAX_OUTPUTS, sizeof *lf); /* the line outputs' files */
    if (!rs || !lf) {
        free(rs), free(lf);
        return die("out of memory");
    }
    /* the outputs written a line per run as each ends: open now */
    for (int k = 0; k < cli_n_outputs; k++) {
        struct err oe = {{0}};
        if (!o->out[k] || !cli_outputs[k].line || ofile_open(&lf[k], o->out[k], &oe))
            continue;
        say("%s: %s", cli_outputs[k].opt, oe.msg);
        for (int j = 0; j < k; j++)
            if (lf[j].f)
                ofile_abort(&lf[j]);
        free(rs), free(lf);
        return 2;
    }
    /* stdout carries one stream only: the table, or JSON */
    int table = !outputs_on_stdout(o, 1);
    int w = table ? report_compare_header(stdout, n, names) : 0;
    fflush(stdout);
    catch_signals();
    int status = 0, ran = 0, failed_run = 0;
    for (int i = 0; i < n && !interrupted; i++) {
        struct err e = {{0}};
        if (run_one(&scs[i], &rs[i], o->quiet, o->progress_every, NULL, &e) < 0) {
            /* the runs before it are still written (table, --jsonl, --json) */
            results_release(&rs[i]);
            say("%s: %s", names[i], e.msg);
            failed_run = 1;
            break;
        }
        ran = i + 1;
        if (!rs[i].ok)
            status = 1;
        if (table)
            report_compare_row(stdout, w, names[i], &rs[i]);
        fflush(stdout);
        for (int k = 0; k < cli_n_outputs; k++) {
            struct err je = {{0}};
            if (!lf[k].f)
                continue;
            if (cli_outputs[k].line(lf[k].f, names[i], &scs[i], &rs[i], &je) < 0) {
                say("%s: %s", cli_outputs[k].opt, je.msg);
                status = 2;
            }
            fflush(lf[k].f);
        }
    }
    int failed = 0;
    if (table && check_stdout("the table"))
        failed = 1;
    for (int k = 0; k < cli_n_outputs; k++) {
        struct err oe = {{0}};
        if (lf[k].f && ofile_commit(&lf[k], &oe) < 0) {
            say("%s: %s", cli_outputs[k].opt, oe.msg);
            failed = 1;
        }
    }
    free(lf);
    /* then the outputs of every run at once */
    struct out_ctx c = {.n = ran, .names = names, .scs = scs, .rs = rs};
    for (int k = 0; k < cli_n_outputs; k++) {
        struct err e = {{0}};
        if (o->out[k] && !cli_outputs[k].line &&
            cli_output_write(&cli_outputs[k], o->out[k], &c, &e) < 0) {
            say("%s", e.msg);
            failed = 1;
        }
    }
    /* a violated invariant (1) outranks a failed write or run */
    if ((failed || failed_run) && status != 1)
        status = 2;
    for (int i = 0; i < ran; i++) {
        if (!rs[i].ok)
            say("%s: invariant violated: %s", names[i], rs[i].violation);
        results_release(&rs[i]);
    }
    free(rs);
    if (interrupted) {
        say("interrupted: %d of %d runs reported (the last one partial)", ran, n);
        status = status ? status : EXIT_INTERRUPTED;
    }
    return status;
}

static int cmd_compare(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts("compare", argc, argv, "set engine vary quiet progress force", MAX_FILES,
                        &o);
    if (rc)
        return rc;
    if (o.help) {
        usage("compare", usage_compare, usage_compare_tail);
        return 0;
    }
    if (o.vary) {
        if (o.n_files > 1)
            return die("compare: --vary takes at most one scenario file");
        if (check_outputs(&o, 1, NULL))
            return 2;
        return cmd_vary("compare", o.n_files ? o.files[0] : NULL, &o, argc, argv);
    }
    if (o.n_files < 2)
        return die("compare: give two or more scenario files, or --vary key=v1,v2,...");
    if (check_outputs(&o, 1, NULL))
        return 2;
    struct scenario *scs = malloc((size_t)o.n_files * sizeof *scs);
    if (!scs)
        return die("out of memory");
    for (int i = 0; i < o.n_files; i++) {
        struct err e = {{0}};
        if (build_scenario(&scs[i], o.files[i], argc, argv, NULL, &e) < 0) {
            free(scs);
            return die(e.msg);
        }
    }
    rc = cmd_compare_runs(o.n_files, o.files, scs, &o);
    free(scs);
    return rc;
}

static int cmd_catalog(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts("catalog", argc, argv, "", 0, &o);
    if (rc)
        return rc;
    if (o.help) {
        fputs(usage_catalog, stdout);
        return 0;
    }
    report_catalog(stdout);
    return check_stdout("the catalog");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        puts("ckptnet " VERSION);
        return 0;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "describe"))
        return cmd_describe(argc - 2, argv + 2);
    if (!strcmp(cmd, "compare"))
        return cmd_compare(argc - 2, argv + 2);
    if (!strcmp(cmd, "catalog"))
        return cmd_catalog(argc - 2, argv + 2);
    if (!strcmp(cmd, "sweep"))
        return cmd_sweep(argc - 2, argv + 2);
    if (!strcmp(cmd, "tune"))
        return cmd_tune(argc - 2, argv + 2);
    if (!strcmp(cmd, "size"))
        return cmd_size(argc - 2, argv + 2);
    static const char *const cmds[] = {"run", "describe", "compare", "sweep", "tune", "size",
                                       "catalog"};
    const char *near = text_nearest(cmd, cmds, sizeof cmds / sizeof cmds[0], 2);
    if (near)
        say("unknown command '%s' (did you mean %s? see ckptnet --help)", cmd, near);
    else
        say("unknown command '%s' (see ckptnet --help)", cmd);
    return 2;
}
