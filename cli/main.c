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

#include "ckptnet.h"
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
    "  catalog                 switch profiles, models and DCQCN presets with their sources\n"
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
    "  --engine E       packet, fluid or auto (same as --set engine=E): packet\n"
    "                   simulates every packet, queue and pause; fluid gives each\n"
    "                   transfer its max-min fair rate (100k GPUs in seconds, no\n"
    "                   PFC/queues); auto picks fluid past ~8 s of packet engine\n"
    "  --phase P        save, restore or both (same as --set checkpoint.phase=P):\n"
    "                   restore simulates the read back after a failure\n"
    "  --json FILE      write results and the effective scenario as JSON ('-' = stdout,\n"
    "                   the summary then goes to stderr)\n"
    "  --csv-dir DIR    write time series, hottest ports, pauses, writers and segments\n"
    "                   as CSV files into DIR (docs/report.md)\n"
    "  --report FILE    write a self-contained HTML report with plots (needs gnuplot)\n"
    "  --report-dir DIR the same report as DIR/report.html, keeping what drew its\n"
    "                   plots in DIR/plots: plots.gp, its data and CSV files, the\n"
    "                   SVGs (cd DIR/plots && gnuplot plots.gp redraws them)\n"
    "  --metrics FILE   write counters and gauges in the Prometheus text format\n"
    "                   ('-' = stdout); turns on telemetry.ports\n"
    "  --pcap DIR       write one pcap file per port named in telemetry.pcap.ports\n"
    "                   (RoCEv2, CNP and PFC frames; packet engine; docs/report.md)\n"
    "  --vary k=v1,v2   run once per value of key k and print a comparison table,\n"
    "                   a row as each run ends; a value may set more keys with ';'\n"
    "                   (k=4;k2=2,8;k2=1)\n"
    "  --jsonl FILE     with --vary: each run's results as one JSON line as it ends\n"
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
    "\n"
    "Print what a run of the scenario would simulate, without running it: the\n"
    "checkpoint, fabric, oversubscription, analytic bound and the completion each\n"
    "path segment alone allows, the engine, estimated events, memory and wall\n"
    "time, then every key of the effective scenario.\n"
    "\n"
    "  --set k=v        override one key (repeatable)\n"
    "  --engine E       packet, fluid or auto\n"
    "  --topology-out F write the fabric as a topology file (JSON) to F, to edit\n"
    "                   and run with fabric.topology_file: F\n"
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
    "  --vary k=v1,v2   the runs: one per value of key k\n"
    "  --json FILE      also write every run's results as JSON ('-' = stdout)\n"
    "  --jsonl FILE     each run's results as one JSON line as it ends ('-' = stdout)\n"
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
    const char *files[MAX_FILES];
    int n_files;
    const char *json, *csv_dir, *report, *vary, *metrics, *pcap, *report_dir;
    const char *topology_out; /* describe: the built fabric as a topology file */
    const char *jsonl;     /* compare/--vary: one JSON line per run as it ends */
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

/* Options that take a value: "--x v" or "--x=v". */
static const char *const valued[] = {"--set", "--json", "--engine", "--csv-dir", "--report",
                                     "--vary", "--jsonl", "--progress", "--metrics", "--pcap",
                                     "--report-dir", "--phase", "--topology-out", NULL};
#define OPT_PHASE 11 /* index of --phase above: --set checkpoint.phase=... */

/* `allowed` ("json csv-dir ...") holds name as a whole word. */
static int allows(const char *allowed, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = allowed; (p = strstr(p, name)); p += l)
        if ((p == allowed || p[-1] == ' ') && (p[l] == ' ' || p[l] == '\0'))
            return 1;
    return 0;
}

/* Which valued option a is (index), with its value in *v; -1 if none. */
static int valued_opt(int argc, char **argv, int *i, const char **v)
{
    const char *a = argv[*i];
    for (int k = 0; valued[k]; k++) {
        size_t l = strlen(valued[k]);
        if (strncmp(a, valued[k], l))
            continue;
        if (a[l] == '=') {
            *v = a + l + 1;
            return k;
        }
        if (a[l] == '\0') {
            *v = *i + 1 < argc ? argv[++*i] : NULL;
            return k;
        }
    }
    return -1;
}

/* Parse the options of cmd; `allowed` lists the valued options it takes
 * ("json csv-dir ..."). Returns 0, or 2 after printing the error. */
static int parse_opts(const char *cmd, int argc, char **argv, const char *allowed,
                      int max_files, struct opts *o)
{
    memset(o, 0, sizeof *o);
    unsigned seen = 0; /* valued options given; only --set repeats */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int k = valued_opt(argc, argv, &i, &v);
        if (k >= 0) {
            if (!allows(allowed, valued[k] + 2)) {
                say("%s: unknown option '%s' (see ckptnet %s --help)",
                        cmd, valued[k], cmd);
                return 2;
            }
            if (k > 0 && (seen & (1u << k))) {
                /* the later one would silently replace the earlier */
                say("%s: %s given twice%s", cmd, valued[k],
                    !strcmp(valued[k], "--vary") ? " (one key per table; ckptnet sweep "
                                                   "varies several keys)" : "");
                return 2;
            }
            seen |= 1u << k;
            if (!v) {
                say("%s needs a value", valued[k]);
                return 2;
            }
            if (k == 0 && !strchr(v, '=')) {
                /* "--set fabric.spines 8": the 8 would be read as a file */
                if (i + 1 < argc && argv[i + 1][0] != '-')
                    say("--set %s %s: write key=value (--set %s=%s)", v, argv[i + 1], v,
                        argv[i + 1]);
                else
                    say("--set %s: expected key=value", v);
                return 2;
            }
            if (k == 1)
                o->json = v;
            else if (k == 3)
                o->csv_dir = v;
            else if (k == 4)
                o->report = v;
            else if (k == 5)
                o->vary = v;
            else if (k == 6)
                o->jsonl = v;
            else if (k == 7) {
                char *end;
                o->progress_every = strtod(v, &end);
                if (*end || !(o->progress_every > 0) || o->progress_every > 86400) {
                    say("--progress: expected seconds between lines (0 < S <= 86400), got '%s'",
                        v);
                    return 2;
                }
            }
            else if (k == 8)
                o->metrics = v;
            else if (k == 9)
                o->pcap = v;
            else if (k == 10)
                o->report_dir = v;
            else if (k == 12)
                o->topology_out = v;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
        } else if ((!strcmp(a, "--quiet") || !strcmp(a, "-q")) && allows(allowed, "quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--force") && allows(allowed, "force")) {
            continue; /* build_scenario applies it as sim.force */
        } else if (a[0] == '-' && a[1]) {
            /* the nearest option this command takes, for a typo */
            const char *cands[16];
            size_t n = 0;
            for (int j = 0; valued[j] && n < 12; j++)
                if (allows(allowed, valued[j] + 2))
                    cands[n++] = valued[j];
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
        } else if (k == 2) {
            snprintf(buf, sizeof buf, "engine=%s", v);
            v = buf;
        } else if (k == OPT_PHASE) {
            snprintf(buf, sizeof buf, "checkpoint.phase=%s", v);
            v = buf;
        } else if (k != 0) {
            continue;
        }
        if (scenario_set(sc, v, e) < 0) {
            /* --engine X is the option the user typed, not a --set */
            if (k == 2 && !strncmp(e->msg, "--set: engine: ", 15)) {
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
        if (k == 2 || k == OPT_PHASE || !strcmp(argv[i], "--force"))
            scenario_mark_option(sc, k == 2 ? "engine" : k == OPT_PHASE ? "checkpoint.phase"
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

/* An output file can be written: a writable file, or absent in a writable
 * directory (not a dangling symbolic link). Checked before a run, so that
 * a typo in a path costs no simulation. Returns 0, or 2 after printing why. */
static int check_out_file(const char *opt, const char *path)
{
    struct err e = {{0}};
    if (ofile_check(path, &e) < 0) {
        say("%s: %s", opt, e.msg);
        return 2;
    }
    return 0;
}

/* --csv-dir, --pcap, --report-dir: an existing writable directory, or one
 * that can be made, whose files this run replaces can be replaced. */
static int check_out_dir(const char *opt, const char *path)
{
    struct err e = {{0}};
    if (!path)
        return 0;
    if (ofile_check_dir(path, &e) < 0 ||
        (!strcmp(opt, "--csv-dir") && report_csv_check(path, &e) < 0) ||
        (!strcmp(opt, "--pcap") && report_pcap_check(path, &e) < 0) ||
        (!strcmp(opt, "--report-dir") && report_html_dir_check(path, &e) < 0)) {
        say("%s: %s", opt, e.msg);
        return 2;
    }
    return 0;
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

static int cmd_run(int argc, char **argv)
{
    struct opts o;
    int rc = parse_opts("run", argc, argv,
                        "set json engine csv-dir report report-dir metrics pcap vary quiet "
                        "force jsonl progress phase", 1, &o);
    if (rc)
        return rc;
    if (o.help) {
        fputs(usage_run, stdout);
        return 0;
    }
    const char *file = o.n_files ? o.files[0] : NULL;
    if (o.vary) {
        if (o.json || o.csv_dir || o.report || o.report_dir || o.metrics || o.pcap)
            return die("run: --vary prints a table; --json, --csv-dir, --report, --report-dir, "
                       "--metrics and --pcap need a single run (--jsonl writes each run's "
                       "results)");
        if (check_out_file("--jsonl", o.jsonl))
            return 2;
        return cmd_vary("run", file, &o, argc, argv);
    }
    if (o.jsonl)
        return die("run: --jsonl is for --vary (one line per run); use --json for one run");
    struct err e = {{0}};
    struct scenario sc;
    if (build_scenario(&sc, file, argc, argv, NULL, &e) < 0)
        return die(e.msg);
    if (check_out_file("--json", o.json) || check_out_file("--report", o.report) ||
        check_out_file("--metrics", o.metrics) || check_out_dir("--csv-dir", o.csv_dir) ||
        check_out_dir("--report-dir", o.report_dir))
        return 2;
    if (o.pcap && sc.engine == ENGINE_FLUID)
        return die("run: --pcap: the fluid engine moves no packets to capture; use "
                   "--engine packet");
    if (o.pcap && (!strcmp(sc.telemetry.pcap_ports, "none") || !sc.telemetry.pcap_ports[0]))
        return die("run: --pcap: name the ports to capture in telemetry.pcap.ports, e.g. "
                   "--set telemetry.pcap.ports=spine0-sleaf0,sleaf0-stor0");
    if (check_out_dir("--pcap", o.pcap))
        return 2;
    if (o.json && o.metrics && !strcmp(o.json, "-") && !strcmp(o.metrics, "-"))
        return die("run: --json - and --metrics - cannot both take stdout");
    if (o.csv_dir || o.report || o.report_dir)
        auto_interval(&sc);
    if (o.metrics)
        sc.telemetry.ports = 1; /* the per-port families */

    struct results r;
    struct ckpt_capture *cap = o.pcap ? ckpt_capture_new() : NULL;
    if (o.pcap && !cap)
        return die("out of memory");
    catch_signals();
    if (run_one(&sc, &r, o.quiet, o.progress_every, cap, &e) < 0) {
        ckpt_capture_free(cap);
        return die(e.msg);
    }
    /* with --json - stdout carries the JSON alone; the summary goes to stderr */
    int json_stdout = o.json && !strcmp(o.json, "-");
    int any_stdout = json_stdout || (o.metrics && !strcmp(o.metrics, "-"));
    int bad = 0;
    if (!o.quiet) {
        report_summary(any_stdout ? stderr : stdout, &sc, &r);
        if (!any_stdout)
            bad |= check_stdout("the summary") != 0;
    }
    /* every output is tried, each failure said: one full disk or bad path
     * costs that output alone (and each file keeps its earlier content) */
    int failed = 0;
    struct ofile of;
    if (o.json) {
        e.msg[0] = '\0';
        if (!ofile_open(&of, o.json, &e) || report_json(of.f, &sc, &r, 1, &e) < 0) {
            if (of.f && ferror(of.f)) /* the file's error, not the encoder's */
                err_set(&e, "cannot write '%s': %s", o.json, strerror(errno ? errno : EIO));
            ofile_abort(&of);
            failed++, say("--json: %s", e.msg);
        } else if (ofile_commit(&of, &e) < 0) {
            failed++, say("--json: %s", e.msg);
        }
    }
    if (o.metrics) {
        if (!ofile_open(&of, o.metrics, &e)) {
            failed++, say("--metrics: %s", e.msg);
        } else {
            report_metrics(of.f, &sc, &r);
            if (ofile_commit(&of, &e) < 0)
                failed++, say("--metrics: %s", e.msg);
        }
    }
    if (o.csv_dir && report_csv(o.csv_dir, &sc, &r, &e) < 0)
        failed++, say("--csv-dir: %s", e.msg);
    if (o.pcap && report_pcap(o.pcap, &sc, cap, &e) < 0)
        failed++, say("--pcap: %s", e.msg);
    ckpt_capture_free(cap);
    if (o.report && report_html(o.report, &sc, &r, &e) < 0)
        failed++, say("%s", e.msg);
    if (o.report_dir && report_html_dir(o.report_dir, &sc, &r, &e) < 0)
        failed++, say("%s", e.msg);
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
    int rc = parse_opts("describe", argc, argv, "set engine topology-out", 1, &o);
    if (rc)
        return rc;
    if (o.help) {
        fputs(usage_describe, stdout);
        return 0;
    }
    struct err e = {{0}};
    struct scenario sc;
    struct ckpt_description d;
    if (build_scenario(&sc, o.n_files ? o.files[0] : NULL, argc, argv, NULL, &e) < 0 ||
        ckpt_describe(&sc, &d, &e) < 0)
        return die(e.msg);
    if (check_out_file("--topology-out", o.topology_out))
        return 2;
    if (o.topology_out && ckpt_topology_out(&sc, o.topology_out, &e) < 0)
        return die(e.msg);
    report_describe(stdout, &sc, &d);
    return check_stdout("the description");
}

/* Run each scenario in turn: each row (and --jsonl line) is written as its
 * run ends, so an interruption keeps what finished; SIGINT stops the run in
 * progress, reports it as partial and skips the rest. */
static int cmd_compare_runs(int n, const char *const *names, struct scenario *scs,
                            const struct opts *o)
{
    const char *json = o->json;
    struct results *rs = calloc((size_t)n, sizeof *rs);
    if (!rs)
        return die("out of memory");
    FILE *jl = NULL;
    struct ofile jlf;
    struct err oe = {{0}};
    if (o->jsonl && !(jl = ofile_open(&jlf, o->jsonl, &oe))) {
        free(rs);
        say("--jsonl: %s", oe.msg);
        return 2;
    }
    /* stdout carries one stream only: the table, or JSON */
    int table = (!json || strcmp(json, "-")) && jl != stdout;
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
        if (jl) {
            struct err je = {{0}};
            if (report_compare_line(jl, names[i], &scs[i], &rs[i], &je) < 0) {
                say("--jsonl: %s", je.msg);
                status = 2;
            }
            fflush(jl);
        }
    }
    int failed = 0;
    if (table && check_stdout("the table"))
        failed = 1;
    if (jl && ofile_commit(&jlf, &oe) < 0) {
        say("--jsonl: %s", oe.msg);
        failed = 1;
    }
    if (json) {
        struct err e = {{0}};
        struct ofile jf;
        if (!ofile_open(&jf, json, &e) || report_compare_json(jf.f, ran, names, scs, rs, &e) < 0) {
            if (jf.f && ferror(jf.f))
                err_set(&e, "cannot write '%s': %s", json, strerror(errno ? errno : EIO));
            ofile_abort(&jf);
            say("--json: %s", e.msg);
            failed = 1;
        } else if (ofile_commit(&jf, &e) < 0) {
            say("--json: %s", e.msg);
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
    int rc = parse_opts("compare", argc, argv, "set engine vary json quiet jsonl progress force",
                        MAX_FILES, &o);
    if (rc)
        return rc;
    if (o.help) {
        fputs(usage_compare, stdout);
        return 0;
    }
    if (o.vary) {
        if (o.n_files > 1)
            return die("compare: --vary takes at most one scenario file");
        if (check_out_file("--json", o.json) || check_out_file("--jsonl", o.jsonl))
            return 2;
        return cmd_vary("compare", o.n_files ? o.files[0] : NULL, &o, argc, argv);
    }
    if (o.n_files < 2)
        return die("compare: give two or more scenario files, or --vary key=v1,v2,...");
    if (check_out_file("--json", o.json) || check_out_file("--jsonl", o.jsonl))
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
    static const char *const cmds[] = {"run", "describe", "compare", "sweep", "tune", "catalog"};
    const char *near = text_nearest(cmd, cmds, sizeof cmds / sizeof cmds[0], 2);
    if (near)
        say("unknown command '%s' (did you mean %s? see ckptnet --help)", cmd, near);
    else
        say("unknown command '%s' (see ckptnet --help)", cmd);
    return 2;
}
