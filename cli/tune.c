/* ckptnet tune: a deterministic local search over a few knobs. Coordinate
 * descent: from each knob's first value, try every value of one knob with
 * the others held, keep the best, knob after knob, pass after pass, until a
 * pass changes nothing. Each batch of candidates runs in the sweep's worker
 * processes (sweep_run_all), so the answer is the same whatever -j. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"

#define MAX_KNOBS SWEEP_MAX_KEYS
#define MAX_KV 64
#define MAX_PASSES 10

static const char usage_tune[] =
    "usage: ckptnet tune [SCENARIO.yaml] --knob key=v1,v2,... [--knob ...]\n"
    "                    [--minimize FIGURE | --maximize FIGURE] [--seeds N] [-j N]\n"
    "                    [--set k=v]... [--engine E] [--quiet]\n"
    "\n"
    "Search the knobs' values for the best figure by coordinate descent: start at\n"
    "each knob's first value, try every value of one knob with the others held,\n"
    "keep the best (a tie keeps the current value), knob after knob, until a whole\n"
    "pass changes nothing (at most 10 passes). A point counts only when all its\n"
    "runs are ok; its figure is the mean over its seeds. It is a local search: it\n"
    "runs far fewer points than the grid, and can miss an optimum that needs two\n"
    "knobs to move at once (ckptnet sweep runs the whole grid).\n"
    "\n"
    "  --knob k=v1,v2   the values of key k to search (repeatable: up to 8 knobs,\n"
    "                   64 values each)\n"
    "  --minimize F     the figure to minimize (default completion_s); F is a\n"
    "                   sweep column: completion_s, bound_ratio, paused_s, drops,\n"
    "                   gpu_stall_s, gpu_hours_per_day, money_per_day, ...\n"
    "  --maximize F     or to maximize (e.g. goodput)\n"
    "  --seeds N        runs per point (default 1)\n"
    "  -j, --jobs N     worker processes (default: the number of cores)\n"
    "  --set k=v        override one key in every run (repeatable)\n"
    "  --engine E       packet, fluid or auto\n"
    "  --quiet          only the answer line, no progress line\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 a best point found, 1 no point ran ok, 2 bad usage or input\n";

struct knob {
    char key[SWEEP_KEY_LEN];
    int n;
    char *val[MAX_KV];
};

/* One evaluated point: value index per knob. */
struct eval {
    int idx[MAX_KNOBS];
    int feasible;
    double obj;
    char why[96];   /* not feasible: the first run's status and error */
};

struct tune {
    const char *file;
    int argc;
    char **argv;
    int n_knobs;
    struct knob k[MAX_KNOBS];
    int fig, maximize, seeds, jobs, quiet;
    struct eval *ev;
    int n_ev, cap_ev, runs;
};

static int parse_knob(struct tune *t, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1] || (size_t)(eq - v) >= SWEEP_KEY_LEN) {
        fprintf(stderr, "ckptnet: tune: --knob: expected key=v1,v2,..., got \"%s\"\n", v);
        return 2;
    }
    if (t->n_knobs >= MAX_KNOBS) {
        fprintf(stderr, "ckptnet: tune: more than %d knobs\n", MAX_KNOBS);
        return 2;
    }
    struct knob *k = &t->k[t->n_knobs];
    memcpy(k->key, v, (size_t)(eq - v));
    k->key[eq - v] = '\0';
    if (!sweep_key_known(k->key)) {
        fprintf(stderr, "ckptnet: tune: --knob: %s: unknown key (ckptnet describe lists them)\n",
                k->key);
        return 2;
    }
    for (int i = 0; i < t->n_knobs; i++)
        if (!strcmp(t->k[i].key, k->key)) {
            fprintf(stderr, "ckptnet: tune: --knob: %s given twice\n", k->key);
            return 2;
        }
    t->n_knobs++;
    for (const char *p = eq + 1;;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l == 0 || k->n >= MAX_KV) {
            fprintf(stderr, "ckptnet: tune: --knob %s: %s\n", k->key,
                    l ? "more than 64 values" : "empty value");
            return 2;
        }
        k->val[k->n] = malloc(l + 1);
        if (!k->val[k->n])
            return 2;
        memcpy(k->val[k->n], p, l);
        k->val[k->n++][l] = '\0';
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

static int parse_fig(const char *opt, const char *v, int *fig)
{
    for (int i = 0; i < F_EVENTS; i++)
        if (!strcmp(v, sweep_fig_name[i])) {
            *fig = i;
            return 0;
        }
    fprintf(stderr, "ckptnet: tune: %s: expected a figure (completion_s, bound_ratio, "
                    "gpu_stall_s, goodput, ...: ckptnet tune --help), got \"%s\"\n",
            opt, v);
    return 2;
}

static int parse_tune(int argc, char **argv, struct tune *t, int *help)
{
    int fig_set = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int k;
        if ((k = sweep_opt(argc, argv, &i, "--set", NULL, &v)) ||
            (k = sweep_opt(argc, argv, &i, "--engine", NULL, &v))) {
            if (k < 0)
                goto needs;
        } else if ((k = sweep_opt(argc, argv, &i, "--knob", NULL, &v))) {
            if (k < 0)
                goto needs;
            if (parse_knob(t, v))
                return 2;
        } else if ((k = sweep_opt(argc, argv, &i, "--minimize", NULL, &v)) ||
                   (k = sweep_opt(argc, argv, &i, "--maximize", NULL, &v))) {
            if (k < 0)
                goto needs;
            if (fig_set++) {
                fprintf(stderr, "ckptnet: tune: one --minimize or --maximize\n");
                return 2;
            }
            t->maximize = !strncmp(a, "--maximize", 10);
            if (parse_fig(t->maximize ? "--maximize" : "--minimize", v, &t->fig))
                return 2;
        } else if ((k = sweep_opt(argc, argv, &i, "--seeds", NULL, &v)) ||
                   (k = sweep_opt(argc, argv, &i, "--jobs", "-j", &v))) {
            if (k < 0)
                goto needs;
            int seeds = a[1] == '-' && a[2] == 's';
            char *end;
            long n = strtol(v, &end, 10);
            int lo = seeds ? 1 : 0, hi = seeds ? 10000 : 256;
            if (end == v || *end || n < lo || n > hi) {
                fprintf(stderr, "ckptnet: tune: %s: expected a whole number in [%d, %d], got "
                                "\"%s\"\n",
                        seeds ? "--seeds" : "-j", lo, hi, v);
                return 2;
            }
            *(seeds ? &t->seeds : &t->jobs) = (int)n;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            t->quiet = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *help = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ckptnet: tune: unknown option '%s' (see ckptnet tune --help)\n", a);
            return 2;
        } else if (t->file) {
            fprintf(stderr, "ckptnet: tune: more than one scenario file ('%s', '%s')\n", t->file,
                    a);
            return 2;
        } else {
            t->file = a;
        }
        continue;
    needs:
        fprintf(stderr, "ckptnet: tune: %s needs a value\n", a);
        return 2;
    }
    return 0;
}

static struct eval *find_eval(struct tune *t, const int *idx)
{
    for (int i = 0; i < t->n_ev; i++)
        if (!memcmp(t->ev[i].idx, idx, sizeof t->ev[i].idx))
            return &t->ev[i];
    return NULL;
}

/* Evaluate the points idx[0..n) not yet known, in one batch of runs. */
static int evaluate(struct tune *t, int (*idx)[MAX_KNOBS], int n)
{
    int todo[MAX_KV], m = 0;
    for (int i = 0; i < n; i++)
        if (!find_eval(t, idx[i]))
            todo[m++] = i;
    if (!m)
        return 0;
    struct sweep sw = {0};
    sw.file = t->file;
    sw.argc = t->argc;
    sw.argv = t->argv;
    sw.n_keys = t->n_knobs;
    for (int k = 0; k < t->n_knobs; k++)
        memcpy(sw.keys[k], t->k[k].key, SWEEP_KEY_LEN);
    sw.n_points = m;
    sw.seeds = t->seeds;
    sw.n_runs = m * t->seeds;
    sw.vals = calloc((size_t)m * (size_t)t->n_knobs, sizeof *sw.vals);
    struct sweep_res *res = calloc((size_t)sw.n_runs, sizeof *res);
    if (t->n_ev + m > t->cap_ev) {
        int cap = 2 * (t->n_ev + m);
        struct eval *ev = realloc(t->ev, (size_t)cap * sizeof *ev);
        if (ev) {
            t->ev = ev;
            t->cap_ev = cap;
        }
    }
    int rc = -1;
    if (!sw.vals || !res || t->n_ev + m > t->cap_ev)
        goto out;
    for (int p = 0; p < m; p++)
        for (int k = 0; k < t->n_knobs; k++)
            sw.vals[p * t->n_knobs + k] = t->k[k].val[idx[todo[p]][k]];
    if (sweep_run_all(&sw, res, t->jobs, t->quiet) < 0)
        goto out;
    t->runs += sw.n_runs;
    for (int p = 0; p < m; p++) {
        struct eval *e = &t->ev[t->n_ev++];
        memset(e, 0, sizeof *e);
        memcpy(e->idx, idx[todo[p]], sizeof e->idx);
        double sum = 0;
        e->feasible = 1;
        for (int s = 0; s < t->seeds && e->feasible; s++) {
            const struct sweep_res *r = &res[p * t->seeds + s];
            double v = r->fig[t->fig];
            if (r->status != SWEEP_OK || isnan(v)) {
                e->feasible = 0;
                snprintf(e->why, sizeof e->why, "%s", r->status == SWEEP_FAILED ? "failed"
                                                      : r->status == SWEEP_VIOLATED
                                                          ? "violated"
                                                          : "no figure");
            }
            sum += v;
        }
        e->obj = e->feasible ? sum / t->seeds : NAN;
    }
    rc = 0;
out:
    free(sw.vals);
    free(res);
    return rc;
}

/* a better than b: feasible first, then the objective; ties are not better */
static int better(const struct tune *t, const struct eval *a, const struct eval *b)
{
    if (!a->feasible)
        return 0;
    if (!b->feasible)
        return 1;
    return t->maximize ? a->obj > b->obj : a->obj < b->obj;
}

static void put_point(const struct tune *t, const int *idx)
{
    for (int k = 0; k < t->n_knobs; k++)
        printf("%s%s=%s", k ? " " : "", t->k[k].key, t->k[k].val[idx[k]]);
}

static int search(struct tune *t)
{
    int cur[MAX_KNOBS] = {0}, cand[MAX_KV][MAX_KNOBS];
    long long grid = 1;
    for (int k = 0; k < t->n_knobs; k++)
        grid *= t->k[k].n;
    if (!t->quiet) {
        printf("tune: %s %s (mean over %d seed%s); %d knob%s, %lld points in the full grid\n",
               t->maximize ? "maximize" : "minimize", sweep_fig_name[t->fig], t->seeds,
               t->seeds > 1 ? "s" : "", t->n_knobs, t->n_knobs > 1 ? "s" : "", grid);
        printf("start   ");
        put_point(t, cur);
        putchar('\n');
    }
    int pass = 1;
    for (; pass <= MAX_PASSES; pass++) {
        int changed = 0;
        for (int k = 0; k < t->n_knobs; k++) {
            const struct knob *kn = &t->k[k];
            if (kn->n < 2 && pass > 1)
                continue;
            for (int v = 0; v < kn->n; v++) {
                memcpy(cand[v], cur, sizeof cur);
                cand[v][k] = v;
            }
            if (evaluate(t, cand, kn->n) < 0) {
                fprintf(stderr, "ckptnet: tune: no worker process could run\n");
                return 2;
            }
            int best = cur[k];
            for (int v = 0; v < kn->n; v++)
                if (better(t, find_eval(t, cand[v]), find_eval(t, cand[best])))
                    best = v;
            if (!t->quiet) {
                printf("pass %d  %s:", pass, kn->key);
                for (int v = 0; v < kn->n; v++) {
                    const struct eval *e = find_eval(t, cand[v]);
                    printf("  %s=", kn->val[v]);
                    if (e->feasible)
                        printf("%.6g", e->obj);
                    else
                        printf("(%s)", e->why);
                    if (v == best)
                        putchar('*');
                }
                putchar('\n');
            }
            changed |= best != cur[k];
            cur[k] = best;
        }
        if (!changed)
            break;
    }
    const struct eval *e = find_eval(t, cur);
    if (!e || !e->feasible) {
        fprintf(stderr, "ckptnet: tune: no point ran ok (%d points, %d runs)\n", t->n_ev,
                t->runs);
        return 1;
    }
    printf("best    ");
    put_point(t, cur);
    printf(": %s %.6g; %d of %lld points evaluated (%d runs), %s\n", sweep_fig_name[t->fig],
           e->obj, t->n_ev, grid, t->runs,
           pass > MAX_PASSES ? "stopped after 10 passes" : "no knob improves alone");
    return 0;
}

int cmd_tune(int argc, char **argv)
{
    struct tune t = {0};
    int help = 0;
    t.argc = argc;
    t.argv = argv;
    t.seeds = 1;
    t.jobs = -1;
    t.fig = F_COMPLETION;
    int rc = parse_tune(argc, argv, &t, &help);
    if (rc == 0 && help) {
        fputs(usage_tune, stdout);
    } else if (rc == 0 && !t.n_knobs) {
        fprintf(stderr, "ckptnet: tune: give --knob key=v1,v2,...\n");
        rc = 2;
    } else if (rc == 0) {
        /* the file and --set apply to every run: their errors stop here */
        struct scenario sc;
        struct err e = {{0}};
        scenario_defaults(&sc);
        if (t.file && scenario_load_file(&sc, t.file, &e) < 0) {
            fprintf(stderr, "ckptnet: tune: %s\n", e.msg);
            rc = 2;
        }
        for (int i = 0; rc == 0 && i < argc; i++) {
            const char *v = NULL;
            char buf[200];
            if (sweep_opt(argc, argv, &i, "--engine", NULL, &v) == 1) {
                snprintf(buf, sizeof buf, "engine=%s", v);
                v = buf;
            } else if (sweep_opt(argc, argv, &i, "--set", NULL, &v) != 1) {
                continue;
            }
            if (scenario_set(&sc, v, &e) < 0) {
                fprintf(stderr, "ckptnet: tune: %s\n", e.msg);
                rc = 2;
            }
        }
        if (t.jobs < 0) {
            long n = sysconf(_SC_NPROCESSORS_ONLN);
            t.jobs = n > 0 ? (int)(n < 256 ? n : 256) : 1;
        }
        if (rc == 0)
            rc = search(&t);
    }
    for (int k = 0; k < t.n_knobs; k++)
        for (int v = 0; v < t.k[k].n; v++)
            free(t.k[k].val[v]);
    free(t.ev);
    return rc;
}
