/* ckptnet command line: the only place that prints to the user and exits.
 * Exit status: 0 ok, 1 a run invariant was violated, 2 bad usage or input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckptnet.h"

#define VERSION "0.1.0"

static const char usage_main[] =
    "usage: ckptnet <command> [options]\n"
    "\n"
    "How much training time do checkpoints cost on this fabric?\n"
    "\n"
    "commands:\n"
    "  run [SCENARIO]   simulate a checkpoint burst (no file: the built-in default)\n"
    "\n"
    "options:\n"
    "  -h, --help       show this help (ckptnet run --help for run's options)\n"
    "  --version        print the version\n";

static const char usage_run[] =
    "usage: ckptnet run [SCENARIO.yaml] [--set key.path=value]... [--engine E] [--json FILE] [--quiet]\n"
    "\n"
    "Simulate every compute node writing its checkpoint shard at once through the\n"
    "leaf-spine fabric to the storage nodes, packet by packet, and report the\n"
    "completion time against the analytic lower bound.\n"
    "\n"
    "  SCENARIO         YAML scenario file (keys: docs/scenario.md); default: built in\n"
    "  --set k=v        override one key, e.g. --set fabric.spines=8 (repeatable)\n"
    "  --engine E       packet, fluid or auto (same as --set engine=E): packet\n"
    "                   simulates every packet, queue and pause; fluid gives each\n"
    "                   transfer its max-min fair rate (100k GPUs in seconds, no\n"
    "                   PFC/queues); auto picks fluid above ~1e8 packet events\n"
    "  --json FILE      write results and the effective scenario as JSON ('-' = stdout)\n"
    "  --quiet          no summary on stdout\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 ok, 1 an invariant was violated, 2 bad usage or scenario\n";

static int die(const char *msg)
{
    fprintf(stderr, "ckptnet: %s\n", msg);
    return 2;
}

static int cmd_run(int argc, char **argv)
{
    const char *file = NULL, *json = NULL;
    int quiet = 0;
    struct err e = {{0}};
    struct scenario sc;
    scenario_defaults(&sc);
    /* First pass: find the file so --set applies on top of it whatever the order. */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_run, stdout);
            return 0;
        } else if (!strcmp(a, "--set") || !strcmp(a, "--json") || !strcmp(a, "--engine")) {
            if (++i >= argc) {
                fprintf(stderr, "ckptnet: %s needs a value\n", a);
                return 2;
            }
            if (a[2] == 'j')
                json = argv[i];
        } else if (!strncmp(a, "--set=", 6) || !strncmp(a, "--json=", 7) ||
                   !strncmp(a, "--engine=", 9)) {
            if (a[2] == 'j')
                json = a + 7;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ckptnet: run: unknown option '%s' (see ckptnet run --help)\n", a);
            return 2;
        } else if (file) {
            fprintf(stderr, "ckptnet: run: more than one scenario file ('%s', '%s')\n", file, a);
            return 2;
        } else {
            file = a;
        }
    }
    if (file && scenario_load_file(&sc, file, &e) < 0)
        return die(e.msg);
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        char eng[80];
        if (!strcmp(argv[i], "--set"))
            v = argv[++i];
        else if (!strncmp(argv[i], "--set=", 6))
            v = argv[i] + 6;
        else if (!strcmp(argv[i], "--engine") || !strncmp(argv[i], "--engine=", 9)) {
            /* shorthand of --set engine=E, applied in command-line order */
            const char *x = argv[i][8] ? argv[i] + 9 : argv[++i];
            snprintf(eng, sizeof eng, "engine=%s", x);
            v = eng;
        } else if (!strcmp(argv[i], "--json")) {
            i++;
        }
        if (v && scenario_set(&sc, v, &e) < 0)
            return die(e.msg);
    }
    if (scenario_resolve(&sc, &e) < 0 || scenario_validate(&sc, &e) < 0)
        return die(e.msg);

    struct results r;
    if (ckpt_run(&sc, &r, &e) < 0)
        return die(e.msg);
    if (!quiet)
        report_summary(stdout, &sc, &r);
    if (json) {
        FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;
        if (!f) {
            fprintf(stderr, "ckptnet: cannot open '%s': %s\n", json, strerror(errno));
            return 2;
        }
        int rc = report_json(f, &sc, &r, 1, &e);
        if (f != stdout && fclose(f) != 0)
            rc = err_set(&e, "cannot write '%s'", json);
        if (rc < 0) {
            results_release(&r);
            return die(e.msg);
        }
    }
    int status = 0;
    if (!r.ok) {
        fprintf(stderr, "ckptnet: invariant violated: %s\n", r.violation);
        status = 1;
    }
    results_release(&r);
    return status;
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
    fprintf(stderr, "ckptnet: unknown command '%s' (see ckptnet --help)\n", cmd);
    return 2;
}
