/* ckptnet tune: a deterministic search over a few knobs. --method lhs: a
 * seeded Latin hypercube sample, successive halving of its best points with
 * more seeds, then coordinate descent from the survivor; --method
 * coordinate: the descent alone (try every value of one knob with the others
 * held, keep the best, knob after knob, until no knob improves or the run
 * budget is spent). Each batch of points runs in the sweep's worker
 * processes and MPI ranks (sweep_run_all), so the answer is the same whatever
 * -j or ranks. docs/sweep.md describes the search and its output. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outputs.h"
#include "sweep.h"
#include "../src/core/rng.h"
#include "../src/scenario/tpscheme.h"

#define MAX_KNOBS SWEEP_MAX_KEYS
#define MAX_KV 64
#define MAX_PASSES 10
#define MAX_CONS 16
#define MAX_GIVEN 512   /* scenario keys (116 today) */
#define N_SHOW 5
#define HALVING_ROUNDS 3
#define RNG_TUNE 0x74756e65 /* the Latin hypercube's stream ("tune") */

enum { M_LHS, M_COORDINATE };

static const char usage_tune[] =
    "usage: ckptnet tune [SCENARIO.yaml] [--knob key=v1,v2,...]...\n"
    "                    [--minimize F | --maximize F] [--constraint F<=X]...\n"
    "                    [--budget N] [--seeds N] [--recheck K] [--json FILE]\n"
    "                    [--method lhs|coordinate] [--sample-seed N] [--objective pareto]\n"
    "                    [-j N] [--set k=v]... [--engine E] [--quiet]\n"
    "\n"
    "Search the knobs' values for the best figure. --method lhs (the default):\n"
    "a seeded Latin hypercube sample of the knobs (a third of the budget; a grid\n"
    "no larger is run whole), successive halving of the best (the best third\n"
    "again with twice the seeds, up to 3 rounds), then coordinate descent from\n"
    "the survivor. --method coordinate: coordinate descent alone from the start\n"
    "point. Coordinate descent tries every value of one knob with the others\n"
    "held, keeps the best (a tie keeps the current value), knob after knob,\n"
    "until no knob improves alone (at most 10 passes) or the budget is spent.\n"
    "Without --knob it searches the default knobs (docs/sweep.md) from the\n"
    "scenario as given: queue pairs per writer, load balancing with the receiver,\n"
    "congestion control with its DCQCN preset, the DCQCN rate-increase timer, ECN\n"
    "kmin/kmax, ECN pmax, MMU alpha (PFC XOFF threshold), flowlet timeout. With\n"
    "--knob the start is every knob's first value. The answer: the changed keys as\n"
    "YAML, the best points against the scenario as given, the bottleneck and bound\n"
    "ratio before and after.\n"
    "\n"
    "  --knob k=v1,v2   the values of key k to search (repeatable: up to 8 knobs,\n"
    "                   64 values each); a value may set more keys with ';':\n"
    "                   'fabric.load_balancing=ecmp,spray;transport.receiver=ooo'\n"
    "  --minimize F     the figure to minimize (default completion_s); F is a\n"
    "                   sweep column: completion_s, bound_ratio, paused_s, drops,\n"
    "                   gpu_stall_s, gpu_hours_per_day, money_per_day, ...\n"
    "  --maximize F     or to maximize (e.g. goodput)\n"
    "  --constraint C   F<=X, F>=X or F==X (repeatable): a point breaking one is\n"
    "                   infeasible; X ending in x is relative to the scenario as\n"
    "                   given (completion_s<=1.1x); e.g. drops==0, paused_s<=0.005\n"
    "  --budget N       at most N runs in the search (default 100); when spent,\n"
    "                   the best point so far is the answer\n"
    "  --seeds N        runs per point (default 1); a point's figure is the mean\n"
    "  --recheck K      re-run the K best points with 4x the seeds and choose\n"
    "                   among them (runs outside the budget)\n"
    "  --objective pareto  instead of one figure: the front of the fabric's capital\n"
    "                   cost per day (cost.prices) against the money the GPU-hours\n"
    "                   lost per day cost, over the whole grid of the --knob values\n"
    "                   (e.g. fabric.switch, fabric.spines); needs cost.prices\n"
    "  --method M       lhs (default) or coordinate\n"
    "  --sample-seed N  the Latin hypercube's seed (default 1)\n";
/* then the outputs (outputs.c), then: */
static const char usage_tune_tail[] =
    "  -j, --jobs N     worker processes (default: the number of cores); under\n"
    "                   mpirun (build/ckptnet-mpi): rank 0's, default 1, 0 = it\n"
    "                   only coordinates; the other ranks run points too\n"
    "  --set k=v        override one key in every run (repeatable)\n"
    "  --engine E       packet, fluid or auto\n"
    "  --quiet          only the answer: the best line and the YAML snippet\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 a best point found, 1 no feasible point, 2 bad usage or input\n";

/* The default knobs: the first key names the knob; value "" is the scenario
 * as given (the start point); ';' joins keys that only pay together. */
static const char *const default_knobs[][2] = {
    {"transport.qps_per_writer", "1,2,4,8"},
    {"fabric.load_balancing", "ecmp;transport.receiver=gbn,wcmp;transport.receiver=gbn,"
                              "spray;transport.receiver=ooo,flowlet;transport.receiver=ooo,"
                              "adaptive;transport.receiver=ooo"},
    {"transport.cc", NULL}, /* every cc_schemes[] row's tune values */
    {"transport.dcqcn.timer", "55us,300us,1ms,3ms"},
    {"fabric.ecn.kmin", "0;fabric.ecn.kmax=0,100KB;fabric.ecn.kmax=400KB,"
                        "400KB;fabric.ecn.kmax=1600KB,3200KB;fabric.ecn.kmax=12800KB"},
    {"fabric.ecn.pmax", "0.05,0.2,0.5,1"},
    {"fabric.mmu.alpha", "0.25,0.5,1,2,4,8"},
    {"fabric.lb.flowlet_timeout", "10us,50us,100us,500us"},
};

struct knob {
    char key[SWEEP_KEY_LEN];
    int n;
    char *val[MAX_KV];   /* "" = as given */
};

/* One evaluated point: value index per knob, -1 = as given. */
struct eval {
    int idx[MAX_KNOBS];
    int seeds, ok, feasible;
    double obj;
    double fig[F_COUNT];      /* means over the first seeds (--seeds): points compare on these */
    /* every seed the point ran (successive halving adds seeds): */
    int all_seeds, all_ok, all_feasible;
    double all_obj, all_sum[F_COUNT];
    char bottleneck[24];
    char why[128];            /* not feasible: why */
};

struct cons {
    int fig;
    char op;                  /* '<' (<=), '>' (>=), '=' (==) */
    int rel;                  /* x times the scenario as given */
    double x;
};

struct given {
    char key[SWEEP_KEY_LEN];
    char val[96];
};

struct tune {
    const char *file;
    const char *outs[CLI_MAX_OUTPUTS]; /* the path of each output row given, by row */
    const char *json;                  /* outs[] of --json: written as the search goes */
    int argc;
    char **argv;
    int n_knobs, defaults;
    struct knob k[MAX_KNOBS];
    int fig, maximize, seeds, jobs, quiet, budget, recheck;
    int method;               /* M_LHS or M_COORDINATE */
    uint64_t sample_seed;     /* the Latin hypercube's */
    int n_cons;
    struct cons c[MAX_CONS];
    struct scenario base;     /* file and --set, not resolved */
    struct given g[MAX_GIVEN];
    int n_given;
    struct eval *ev;
    int n_ev, cap_ev, runs, out_of_budget;
    FILE *jf;                 /* --json: the runs as they end */
    struct ofile jfile;       /* jf's temporary, renamed into place at the end */
    int jf_first, jf_done;
    struct sweep_par par;     /* MPI ranks (build/ckptnet-mpi under mpirun) */
    int pareto;               /* --objective pareto: capital against loss, the whole grid */
};

static int parse_fig(const char *opt, const char *v, size_t len, int *fig)
{
    for (int i = 0; i < F_EVENTS; i++)
        if (strlen(sweep_fig_name[i]) == len && !strncmp(v, sweep_fig_name[i], len)) {
            *fig = i;
            return 0;
        }
    fprintf(stderr, "ckptnet: tune: %s: expected a figure (completion_s, bound_ratio, "
                    "paused_s, drops, gpu_stall_s, goodput, ...: ckptnet tune --help), got "
                    "\"%.*s\"\n",
            opt, (int)len, v);
    return 2;
}

/* Every key of a value "v;k2=v2;..." is known (the knob's own checked before). */
static int check_extra_keys(const char *knob, const char *v)
{
    if (*v == ';') {
        fprintf(stderr, "ckptnet: tune: --knob %s: empty value before \"%s\"\n", knob, v);
        return 2;
    }
    for (const char *p = strchr(v, ';'); p; p = strchr(p + 1, ';')) {
        size_t l = strcspn(p + 1, "=;");
        char key[SWEEP_KEY_LEN];
        if (p[1 + l] != '=' || l == 0 || l >= sizeof key) {
            fprintf(stderr, "ckptnet: tune: --knob %s: expected ';key=value' after a "
                            "value, got \"%s\"\n", knob, p);
            return 2;
        }
        memcpy(key, p + 1, l);
        key[l] = '\0';
        if (!sweep_key_known(key)) {
            fprintf(stderr, "ckptnet: tune: --knob %s: %s: unknown key (ckptnet describe "
                            "lists them)\n", knob, key);
            return 2;
        }
    }
    return 0;
}

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
        k->val[k->n][l] = '\0';
        if (check_extra_keys(k->key, k->val[k->n++]))
            return 2;
        if (!c)
            break;
        p = c + 1;
    }
    return 0;
}

static int parse_constraint(struct tune *t, const char *v)
{
    const char *op = strpbrk(v, "<>=");
    if (!op || op == v || op[1] != '=' || (op[0] == '=' && op[1] != '=') || !op[2]) {
        fprintf(stderr, "ckptnet: tune: --constraint: expected FIGURE<=X, FIGURE>=X or "
                        "FIGURE==X (e.g. drops==0, completion_s<=1.1x), got \"%s\"\n", v);
        return 2;
    }
    if (t->n_cons >= MAX_CONS) {
        fprintf(stderr, "ckptnet: tune: more than %d constraints\n", MAX_CONS);
        return 2;
    }
    struct cons *c = &t->c[t->n_cons];
    if (parse_fig("--constraint", v, (size_t)(op - v), &c->fig))
        return 2;
    c->op = op[0];
    char *end;
    c->x = strtod(op + 2, &end);
    c->rel = *end == 'x' && end > op + 2;
    if (end == op + 2 || end[c->rel] || !isfinite(c->x)) {
        fprintf(stderr, "ckptnet: tune: --constraint %s: expected a number (or a factor "
                        "ending in x) after %.2s, got \"%s\"\n", v, op, op + 2);
        return 2;
    }
    t->n_cons++;
    return 0;
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
        } else if ((k = sweep_opt(argc, argv, &i, "--constraint", NULL, &v))) {
            if (k < 0)
                goto needs;
            if (parse_constraint(t, v))
                return 2;
        } else if ((k = sweep_opt(argc, argv, &i, "--method", NULL, &v))) {
            if (k < 0)
                goto needs;
            if (!strcmp(v, "lhs") || !strcmp(v, "coordinate")) {
                t->method = v[0] == 'l' ? M_LHS : M_COORDINATE;
            } else {
                fprintf(stderr, "ckptnet: tune: --method: expected lhs or coordinate, got "
                                "\"%s\"\n", v);
                return 2;
            }
        } else if ((k = sweep_opt(argc, argv, &i, "--objective", NULL, &v))) {
            if (k < 0)
                goto needs;
            if (strcmp(v, "pareto") != 0) {
                fprintf(stderr, "ckptnet: tune: --objective: expected pareto, got \"%s\" (one "
                                "figure: --minimize F or --maximize F)\n", v);
                return 2;
            }
            t->pareto = 1;
        } else if ((k = sweep_opt(argc, argv, &i, "--sample-seed", NULL, &v))) {
            if (k < 0)
                goto needs;
            char *end;
            errno = 0;
            unsigned long long n = strtoull(v, &end, 10);
            if (errno || end == v || *end || v[0] == '-') {
                fprintf(stderr, "ckptnet: tune: --sample-seed: expected a whole number >= 0, "
                                "got \"%s\"\n", v);
                return 2;
            }
            t->sample_seed = n;
        } else if ((k = cli_output_opt("tune", argc, argv, &i, t->outs, &v))) {
            if (k < 0)
                goto needs;
        } else if ((k = sweep_opt(argc, argv, &i, "--minimize", NULL, &v)) ||
                   (k = sweep_opt(argc, argv, &i, "--maximize", NULL, &v))) {
            if (k < 0)
                goto needs;
            if (fig_set++) {
                fprintf(stderr, "ckptnet: tune: one --minimize or --maximize\n");
                return 2;
            }
            t->maximize = !strncmp(a, "--maximize", 10);
            if (parse_fig(t->maximize ? "--maximize" : "--minimize", v, strlen(v), &t->fig))
                return 2;
        } else if ((k = sweep_opt(argc, argv, &i, "--seeds", NULL, &v)) ||
                   (k = sweep_opt(argc, argv, &i, "--budget", NULL, &v)) ||
                   (k = sweep_opt(argc, argv, &i, "--recheck", NULL, &v)) ||
                   (k = sweep_opt(argc, argv, &i, "--jobs", "-j", &v))) {
            if (k < 0)
                goto needs;
            const char *name = a[1] != '-' ? "-j" : a[2] == 's' ? "--seeds" : a[2] == 'b'
                                                                   ? "--budget"
                                                               : a[2] == 'r' ? "--recheck"
                                                                             : "-j";
            int *dst = name[2] == 's' ? &t->seeds : name[2] == 'b' ? &t->budget
                                                 : name[2] == 'r' ? &t->recheck : &t->jobs;
            int lo = name[2] == 's' || name[2] == 'b' ? 1 : 0;
            int hi = name[2] == 'b' ? SWEEP_MAX_RUNS : name[2] == 'j' || name[1] == 'j' ? 256
                                                                                       : 10000;
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end || n < lo || n > hi) {
                fprintf(stderr, "ckptnet: tune: %s: expected a whole number in [%d, %d], got "
                                "\"%s\"\n", name, lo, hi, v);
                return 2;
            }
            *dst = (int)n;
        } else if (sweep_common_arg("tune", a, &t->file, &t->quiet, help)) {
            return 2;
        }
        continue;
    needs:
        fprintf(stderr, "ckptnet: tune: %s needs a value\n", a);
        return 2;
    }
    if (t->pareto && fig_set) {
        fprintf(stderr, "ckptnet: tune: --objective pareto weighs capital against money lost: "
                        "no --minimize or --maximize with it\n");
        return 2;
    }
    if (t->pareto && !t->n_knobs) {
        fprintf(stderr, "ckptnet: tune: --objective pareto: give the fabric choices to weigh "
                        "with --knob (e.g. --knob fabric.switch=CX732Q-N,CX764QD-N --knob "
                        "fabric.spines=8,16)\n");
        return 2;
    }
    t->json = t->outs[cli_output_find("tune", "--json", -1)];
    return 0;
}

/* ---- the scenario as given and a point's settings ------------------------------ */

static void keep_given(void *ud, const char *key, const char *value, int kind)
{
    struct tune *t = ud;
    (void)kind;
    if (t->n_given < MAX_GIVEN) {
        snprintf(t->g[t->n_given].key, sizeof t->g[0].key, "%s", key);
        snprintf(t->g[t->n_given++].val, sizeof t->g[0].val, "%s", value);
    }
}

/* Apply the point's knob values to sc (as sweep.c does for a row). */
static int apply_point(const struct tune *t, const int *idx, struct scenario *sc, struct err *e)
{
    for (int k = 0; k < t->n_knobs; k++) {
        const char *v = idx[k] < 0 ? "" : t->k[k].val[idx[k]];
        for (int first = 1; *v; first = 0) {
            char a[SWEEP_KEY_LEN + 1024];
            size_t l = strcspn(v, ";");
            snprintf(a, sizeof a, "%s%s%.*s", first ? t->k[k].key : "", first ? "=" : "",
                     (int)l, v);
            v += l + (v[l] == ';');
            if (scenario_set(sc, a, e) < 0)
                return -1;
        }
    }
    return 0;
}

struct diff {
    const struct tune *t;
    char key[MAX_GIVEN][SWEEP_KEY_LEN];
    char val[MAX_GIVEN][96];
    int n, at;
};

static void collect_diff(void *ud, const char *key, const char *value, int kind)
{
    struct diff *d = ud;
    (void)kind;
    int i = d->at++;
    if (i < d->t->n_given && strcmp(d->t->g[i].val, value) && d->n < MAX_GIVEN) {
        snprintf(d->key[d->n], sizeof d->key[0], "%s", key);
        snprintf(d->val[d->n++], sizeof d->val[0], "%s", value);
    }
}

/* The keys whose effective value the point changes from the scenario as given. */
static void point_diff(const struct tune *t, const int *idx, struct diff *d)
{
    struct scenario *sc = malloc(sizeof *sc);
    struct err e = {{0}};
    d->t = t;
    d->n = d->at = 0;
    if (!sc)
        return;
    *sc = t->base;
    if (apply_point(t, idx, sc, &e) == 0)
        scenario_echo(sc, collect_diff, d);
    free(sc);
}

static void put_changes(FILE *f, const struct diff *d)
{
    if (!d->n)
        fputs("(as given)", f);
    for (int i = 0; i < d->n; i++)
        fprintf(f, "%s%s=%s", i ? " " : "", d->key[i], d->val[i]);
}

/* The changed keys as nested YAML sections. */
static void put_yaml(FILE *f, const struct diff *d)
{
    const char *prev = "";
    for (int i = 0; i < d->n; i++) {
        const char *k = d->key[i];
        /* sections already open: the dotted prefix shared with the previous key */
        size_t same = 0;
        for (size_t j = 0; k[j] && k[j] == prev[j]; j++)
            if (k[j] == '.')
                same = j + 1;
        int depth = 0;
        for (size_t j = 0; j < same; j++)
            depth += k[j] == '.';
        for (const char *p = k + same;;) {
            const char *dot = strchr(p, '.');
            fprintf(f, "%*s%.*s:", 2 * depth, "", (int)(dot ? dot - p : (long)strlen(p)), p);
            if (!dot) {
                fprintf(f, " %s\n", d->val[i]);
                break;
            }
            fputc('\n', f);
            depth++;
            p = dot + 1;
        }
        prev = k;
    }
}

/* ---- evaluation -------------------------------------------------------------- */

static struct eval *find_eval(struct tune *t, const int *idx)
{
    for (int i = 0; i < t->n_ev; i++)
        if (!memcmp(t->ev[i].idx, idx, sizeof t->ev[i].idx))
            return &t->ev[i];
    return NULL;
}

/* Feasible (every run ok, the objective present, every constraint held)
 * figures fig; *obj the objective, why (when not) the reason. */
static int feasible(const struct tune *t, const double *fig, int ok, const struct eval *base,
                    double *obj, char *why, size_t whylen)
{
    *obj = fig[t->fig];
    if (!ok)
        return 0;
    if (isnan(*obj)) {
        snprintf(why, whylen, "no %s", sweep_fig_name[t->fig]);
        return 0;
    }
    for (int i = 0; i < t->n_cons; i++) {
        const struct cons *c = &t->c[i];
        double x = c->rel ? c->x * base->fig[c->fig] : c->x, v = fig[c->fig];
        int okc = c->op == '<' ? v <= x : c->op == '>' ? v >= x : v == x;
        if (!okc) {
            snprintf(why, whylen, "%s %.4g %s %.4g", sweep_fig_name[c->fig], v,
                     c->op == '<' ? ">" : c->op == '>' ? "<" : "!=", x);
            return 0;
        }
    }
    return 1;
}

static void judge(struct tune *t, struct eval *e, const struct eval *base)
{
    e->feasible = feasible(t, e->fig, e->ok, base, &e->obj, e->why, sizeof e->why);
    double mean[F_COUNT];
    char why[128];
    for (int i = 0; i < F_COUNT; i++)
        mean[i] = e->all_sum[i] / e->all_seeds;
    e->all_feasible = feasible(t, mean, e->all_ok, base, &e->all_obj, why, sizeof why);
}

static void json_textn(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (const char *end = s + n; s < end; s++)
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    fputc('"', f);
}

static void json_text(FILE *f, const char *s)
{
    json_textn(f, s, strlen(s));
}

static void json_run(struct tune *t, const int *idx, const struct sweep_res *r)
{
    char b[32];
    fprintf(t->jf, "%s\n    {\"point\": {", t->jf_first ? "" : ",");
    t->jf_first = 0;
    for (int k = 0, n = 0; k < t->n_knobs; k++) {
        /* every key the value sets: "spray;transport.receiver=ooo" is two */
        for (const char *v = idx[k] < 0 ? "" : t->k[k].val[idx[k]], *key = t->k[k].key; *v;) {
            size_t l = strcspn(v, ";"), kl = strlen(key);
            if (key != t->k[k].key) { /* "k2=v2" */
                kl = strcspn(v, "=");
                v += kl + 1;
                l -= kl + 1;
            }
            fprintf(t->jf, "%s", n++ ? ", " : "");
            json_textn(t->jf, key, kl);
            fputs(": ", t->jf);
            json_textn(t->jf, v, l);
            v += l + (v[l] == ';');
            key = v;
        }
    }
    fprintf(t->jf, "}, \"seed\": %llu, \"status\": \"%s\"", (unsigned long long)r->seed,
            r->status == SWEEP_OK ? "ok" : r->status == SWEEP_VIOLATED ? "violated" : "failed");
    if (r->bottleneck[0]) {
        fputs(", \"bottleneck\": ", t->jf);
        json_text(t->jf, r->bottleneck);
    }
    for (int i = 0; i < F_EVENTS; i++)
        if (!isnan(r->fig[i]))
            fprintf(t->jf, ", \"%s\": %s", sweep_fig_name[i], sweep_num(b, r->fig[i]));
    if (r->error[0]) {
        fputs(", \"error\": ", t->jf);
        json_text(t->jf, r->error);
    }
    fputc('}', t->jf);
}

/* Run the points idx[0..n) with seeds each (seed indices seed0, seed0+1,
 * ...), into evals at slot[0..n): new evals, or (add) more seeds of them. */
static int run_points(struct tune *t, int (*idx)[MAX_KNOBS], struct eval **slot, int n,
                      int seeds, int seed0, int add)
{
    struct sweep sw = {0};
    sw.file = t->file;
    sw.argc = t->argc;
    sw.argv = t->argv;
    sw.n_keys = t->n_knobs;
    for (int k = 0; k < t->n_knobs; k++)
        memcpy(sw.keys[k], t->k[k].key, SWEEP_KEY_LEN);
    sw.n_points = n;
    sw.seeds = seeds;
    sw.seed0 = seed0;
    sw.n_runs = n * seeds;
    sw.vals = calloc((size_t)n * (size_t)t->n_knobs + 1, sizeof *sw.vals);
    struct sweep_res *res = calloc((size_t)sw.n_runs, sizeof *res);
    int rc = -1;
    if (!sw.vals || !res)
        goto out;
    for (int p = 0; p < n; p++)
        for (int k = 0; k < t->n_knobs; k++)
            sw.vals[p * t->n_knobs + k] = idx[p][k] < 0 ? "" : t->k[k].val[idx[p][k]];
    if (sweep_run_all(&sw, res, t->jobs, t->quiet, &t->par) < 0)
        goto out;
    t->runs += sw.n_runs;
    for (int p = 0; p < n; p++) {
        struct eval *e = slot[p];
        if (!add) {
            memset(e, 0, sizeof *e);
            memcpy(e->idx, idx[p], sizeof e->idx);
            e->seeds = seeds;
            e->ok = e->all_ok = 1;
        }
        e->all_seeds += seeds;
        for (int s = 0; s < seeds; s++) {
            const struct sweep_res *r = &res[p * seeds + s];
            if (t->jf)
                json_run(t, idx[p], r);
            if (s == 0 && !add)
                memcpy(e->bottleneck, r->bottleneck, sizeof e->bottleneck);
            if (r->status != SWEEP_OK && !add && e->ok) {
                e->ok = 0;
                snprintf(e->why, sizeof e->why, "%s",
                         r->status == SWEEP_FAILED ? "failed" : "violated");
            }
            e->all_ok &= r->status == SWEEP_OK;
            for (int i = 0; i < F_COUNT; i++) {
                if (!add)
                    e->fig[i] += r->fig[i] / seeds;
                e->all_sum[i] += r->fig[i];
            }
        }
    }
    rc = 0;
out:
    free(sw.vals);
    free(res);
    return rc;
}

/* Evaluate the points idx[0..n) not yet known, in one batch, within the
 * budget (the ones past it stay unknown). */
static int evaluate(struct tune *t, int (*idx)[MAX_KNOBS], int n)
{
    int (*todo)[MAX_KNOBS] = malloc((size_t)(n + 1) * sizeof *todo);
    struct eval **slot = malloc((size_t)(n + 1) * sizeof *slot);
    int m = 0, rc = -1;
    if (!todo || !slot)
        goto out;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < m; j++)
            dup |= !memcmp(todo[j], idx[i], sizeof todo[j]);
        if (!dup && !find_eval(t, idx[i]))
            memcpy(todo[m++], idx[i], sizeof todo[0]);
    }
    int room = (t->budget - t->runs) / t->seeds;
    if (m > room) {
        t->out_of_budget = 1;
        m = room > 0 ? room : 0;
    }
    rc = 0;
    if (!m || t->n_ev + m > t->cap_ev)
        goto out;
    for (int p = 0; p < m; p++)
        slot[p] = &t->ev[t->n_ev + p];
    if (run_points(t, todo, slot, m, t->seeds, 0, 0) < 0) {
        rc = -1;
        goto out;
    }
    t->n_ev += m;
    for (int p = 0; p < m; p++)
        judge(t, slot[p], &t->ev[0]);
out:
    free(todo);
    free(slot);
    return rc;
}

/* a better than b: feasible first, then the objective; ties are not better */
static int better(const struct tune *t, const struct eval *a, const struct eval *b)
{
    if (!a || !a->feasible)
        return 0;
    if (!b || !b->feasible)
        return 1;
    return t->maximize ? a->obj > b->obj : a->obj < b->obj;
}

static void put_value(const struct tune *t, int k, int v)
{
    const char *s = t->k[k].val[v];
    if (!*s) {
        for (int i = 0; i < t->n_given; i++)
            if (!strcmp(t->g[i].key, t->k[k].key))
                s = t->g[i].val;
        printf("%s(given)", s);
    } else {
        fputs(s, stdout);
    }
}

static void put_point(const struct tune *t, const int *idx)
{
    for (int k = 0, n = 0; k < t->n_knobs; k++)
        if (idx[k] >= 0 && (!t->defaults || t->k[k].val[idx[k]][0])) {
            printf("%s%s=", n++ ? " " : "", t->k[k].key);
            put_value(t, k, idx[k]);
        }
}

/* the evals from best to worst (feasible first); order index array */
static void rank(const struct tune *t, int *order)
{
    for (int i = 0; i < t->n_ev; i++)
        order[i] = i;
    /* insertion sort: stable, so an earlier point wins a tie */
    for (int i = 1; i < t->n_ev; i++)
        for (int j = i; j > 0 && better(t, &t->ev[order[j]], &t->ev[order[j - 1]]); j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
}

static const char *pct(char *buf, double v, double base)
{
    if (isnan(v))
        return "-";
    if (!(base != 0) || isnan(base))
        snprintf(buf, 48, "%.4g", v);
    else
        snprintf(buf, 48, "%.4g (%+.1f%%)", v, 100 * (v / base - 1));
    return buf;
}

static void report(struct tune *t, const struct eval *best, const int *order)
{
    const struct eval *base = &t->ev[0];
    struct diff *d = malloc(sizeof *d);
    if (!d)
        return;
    point_diff(t, best->idx, d);
    printf("\n# recommended settings (the keys they change from the scenario as given)\n");
    if (!d->n)
        printf("# none: the scenario as given is the best point found\n");
    put_yaml(stdout, d);
    if (!t->quiet) {
        static const int col[] = {F_COMPLETION, F_RATIO, F_PAUSED, F_DROPS};
        char b[48];
        printf("\nbest points against the scenario as given (figures: mean over %d seed%s):\n",
               t->seeds, t->seeds > 1 ? "s" : "");
        printf("  %-4s %-24s %-22s %-24s %-10s %s\n", "rank", "completion_s", "bound_ratio",
               "paused_s", "drops", "changes");
        for (int r = -1, shown = 0; r < t->n_ev && shown < N_SHOW; r++) {
            const struct eval *e = r < 0 ? base : &t->ev[order[r]];
            if (r >= 0 && (!e->feasible || e == base))
                continue;
            printf("  %-4s", r < 0 ? "0" : (snprintf(b, sizeof b, "%d", ++shown), b));
            for (size_t c = 0; c < sizeof col / sizeof col[0]; c++) {
                int w = c == 0 ? 24 : c == 1 ? 22 : c == 2 ? 24 : 10;
                printf(" %-*s", w, pct(b, e->fig[col[c]], r < 0 ? NAN : base->fig[col[c]]));
            }
            point_diff(t, e->idx, d);
            putchar(' ');
            if (r < 0)
                printf("(as given%s%s)", e->feasible ? "" : "; infeasible: ",
                       e->feasible ? "" : e->why);
            else
                put_changes(stdout, d);
            putchar('\n');
        }
        printf("\nwhy: as given the bottleneck is %s at %.4f of the bound; the best point's is "
               "%s at %.4f (completion %+.1f%%, paused time %+.1f%%)\n",
               base->bottleneck[0] ? base->bottleneck : "-", base->fig[F_RATIO],
               best->bottleneck[0] ? best->bottleneck : "-", best->fig[F_RATIO],
               100 * (best->fig[F_COMPLETION] / base->fig[F_COMPLETION] - 1),
               base->fig[F_PAUSED] > 0 ? 100 * (best->fig[F_PAUSED] / base->fig[F_PAUSED] - 1)
                                       : 0.0);
    }
    free(d);
}

/* --json: the winner's full results (one run, its first seed). */
static int json_best(struct tune *t, const struct eval *best)
{
    struct scenario *sc = malloc(sizeof *sc);
    struct err e = {{0}};
    int rc = -1;
    if (!sc)
        return -1;
    *sc = t->base;
    if (apply_point(t, best->idx, sc, &e) == 0 && scenario_resolve(sc, &e) == 0 &&
        scenario_validate(sc, &e) == 0) {
        struct results r;
        if (ckpt_run(sc, &r, &e) == 0) {
            struct diff *d = malloc(sizeof *d);
            fputs("\n  ],\n  \"best\": {\"changes\": {", t->jf);
            if (d) {
                point_diff(t, best->idx, d);
                for (int i = 0; i < d->n; i++) {
                    fputs(i ? ", " : "", t->jf);
                    json_text(t->jf, d->key[i]);
                    fputs(": ", t->jf);
                    json_text(t->jf, d->val[i]);
                }
                free(d);
            }
            fprintf(t->jf, "}, \"%s\": %.9g, \"result\":\n", sweep_fig_name[t->fig], best->obj);
            rc = report_json(t->jf, sc, &r, 0, &e);
            fputs("}\n}\n", t->jf);
            t->jf_done = 1;
        }
        results_release(&r);
    }
    if (rc < 0)
        fprintf(stderr, "ckptnet: tune: --json: the best point: %s\n", e.msg);
    free(sc);
    return rc;
}

/* a better than b over every seed it ran (successive halving) */
static int better_all(const struct tune *t, const struct eval *a, const struct eval *b)
{
    if (!a->all_feasible)
        return 0;
    if (!b->all_feasible)
        return 1;
    return t->maximize ? a->all_obj > b->all_obj : a->all_obj < b->all_obj;
}

/* Stable insertion sort of v[0..n), best first. */
static void sort_evals(const struct tune *t, struct eval **v, int n, int all)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && (all ? better_all(t, v[j], v[j - 1])
                                      : better(t, v[j], v[j - 1])); j--) {
            struct eval *x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
}

static int is_given(const struct tune *t, const int *idx)
{
    return !memcmp(idx, t->ev[0].idx, sizeof t->ev[0].idx);
}

static void put_stage(const struct tune *t, const char *what, const struct eval *e, int all)
{
    printf("%s; best ", what);
    if (is_given(t, e->idx))
        printf("(the scenario as given)");
    else
        put_point(t, e->idx);
    printf(": %s=", sweep_fig_name[t->fig]);
    if (all ? e->all_feasible : e->feasible)
        printf("%.6g", all ? e->all_obj : e->obj);
    else
        printf("(%s)", e->why[0] ? e->why : "infeasible");
    if (all)
        printf(" (mean over %d seeds)", e->all_seeds);
    putchar('\n');
}

/* --method lhs, before the coordinate descent. 1. A Latin hypercube
 * sample: n points (a third of the budget left; a grid no larger runs
 * whole); each knob's values are dealt evenly over the points (point i
 * takes the value of stratum i, strata shuffled per knob with the seeded
 * stream), so every value of every knob is tried and the knobs are mixed.
 * 2. Successive halving: the best third of the points (at least two, the
 * feasible ones) run again with as many new seeds as they have, and are
 * ranked over all their seeds, up to HALVING_ROUNDS rounds while the budget
 * allows. cur = the survivor. Returns 0, -1 (no worker or no memory). */
static int explore(struct tune *t, int *cur, long long grid)
{
    int n0 = (t->budget - t->runs) / (3 * t->seeds);
    if (n0 < 1)
        return 0;
    int whole = grid <= n0;
    if (whole)
        n0 = (int)grid;
    int (*pts)[MAX_KNOBS] = malloc((size_t)n0 * sizeof *pts);
    int (*idx)[MAX_KNOBS] = malloc((size_t)n0 * sizeof *idx);
    struct eval **pool = malloc((size_t)(n0 + 1) * sizeof *pool);
    int *col = malloc((size_t)n0 * sizeof *col);
    int rc = -1, n = 0;
    if (!pts || !idx || !pool || !col)
        goto out;
    struct rng r;
    rng_init(&r, t->sample_seed, RNG_TUNE);
    for (int i = 0; i < n0; i++)
        for (int k = 0; k < MAX_KNOBS; k++)
            pts[i][k] = -1;
    for (int k = 0; k < t->n_knobs; k++) {
        int nk = t->k[k].n;
        for (int i = 0; i < n0; i++) {
            if (whole) { /* mixed radix, the first knob slowest */
                long long q = i;
                for (int j = t->n_knobs - 1; j > k; j--)
                    q /= t->k[j].n;
                col[i] = (int)(q % nk);
            } else {
                int v = (int)(((double)i + rng_double(&r)) * nk / n0);
                col[i] = v < nk ? v : nk - 1;
            }
        }
        for (int i = n0 - 1; !whole && i > 0; i--) {
            int j = (int)rng_below(&r, (uint64_t)i + 1), x = col[i];
            col[i] = col[j];
            col[j] = x;
        }
        for (int i = 0; i < n0; i++)
            pts[i][k] = col[i];
    }
    if (evaluate(t, pts, n0) < 0)
        goto out;
    /* the pool: the sample's points, and the scenario as given (a point of
     * the grid with the default knobs) */
    int sampled = 0;
    for (int i = 0; i <= n0; i++) {
        struct eval *e = i < n0 ? find_eval(t, pts[i]) : t->defaults ? &t->ev[0] : NULL;
        int dup = !e;
        for (int j = 0; j < n && !dup; j++)
            dup = pool[j] == e;
        if (!dup)
            pool[n++] = e;
        if (i == n0 - 1)
            sampled = n;
    }
    sort_evals(t, pool, n, 0);
    int feas = 0;
    for (int i = 0; i < n; i++)
        feas += pool[i]->feasible;
    char what[160];
    if (!t->quiet && n > 0) {
        if (whole)
            snprintf(what, sizeof what, "sample  the whole grid, %d points: %d feasible", n, feas);
        else
            snprintf(what, sizeof what, "sample  %d points, Latin hypercube (sample seed %llu)%s: "
                     "%d feasible", sampled, (unsigned long long)t->sample_seed,
                     n > sampled ? ", and the scenario as given" : "", feas);
        put_stage(t, what, pool[0], 0);
    }
    for (int round = 1, have = t->seeds; round <= HALVING_ROUNDS; round++, have *= 2) {
        int keep = (n + 2) / 3;
        keep = keep < feas ? keep : feas;
        if (keep < 2 || (long long)keep * have > t->budget - t->runs)
            break;
        for (int i = 0; i < keep; i++)
            memcpy(idx[i], pool[i]->idx, sizeof idx[i]);
        if (run_points(t, idx, pool, keep, have, have, 1) < 0)
            goto out;
        for (int i = 0; i < keep; i++)
            judge(t, pool[i], &t->ev[0]);
        n = keep;
        sort_evals(t, pool, n, 1);
        feas = 0;
        for (int i = 0; i < n; i++)
            feas += pool[i]->all_feasible;
        if (!t->quiet) {
            snprintf(what, sizeof what, "halve   round %d: the best %d with %d seeds", round, n,
                     2 * have);
            put_stage(t, what, pool[0], 1);
        }
    }
    if (n > 0)
        memcpy(cur, pool[0]->idx, sizeof pool[0]->idx);
    rc = 0;
out:
    free(pts);
    free(idx);
    free(pool);
    free(col);
    return rc;
}

static int search(struct tune *t)
{
    int cur[MAX_KNOBS], cand[MAX_KV][MAX_KNOBS];
    long long grid = 1;
    for (int k = 0; k < t->n_knobs; k++)
        grid *= t->k[k].n;
    /* the scenario as given first: relative constraints and the table use it */
    int as_given[1][MAX_KNOBS];
    for (int k = 0; k < MAX_KNOBS; k++) {
        as_given[0][k] = k < t->n_knobs && t->defaults ? 0 : -1; /* default knobs: "" */
        cur[k] = k < t->n_knobs ? 0 : -1; /* the start: every knob's first value */
    }
    struct eval *slot[1] = {&t->ev[0]};
    if (run_points(t, as_given, slot, 1, t->seeds, 0, 0) < 0)
        goto noworker;
    t->n_ev = 1;
    judge(t, &t->ev[0], &t->ev[0]);
    for (int i = 0; i < t->n_cons; i++)
        if (t->c[i].rel && isnan(t->ev[0].fig[t->c[i].fig])) {
            fprintf(stderr, "ckptnet: tune: --constraint: the scenario as given has no %s to "
                            "scale\n", sweep_fig_name[t->c[i].fig]);
            return 2;
        }
    if (!t->quiet) {
        printf("tune: %s %s (mean over %d seed%s); %d knob%s, %lld points in the full grid; "
               "budget %d runs; method %s\n",
               t->maximize ? "maximize" : "minimize", sweep_fig_name[t->fig], t->seeds,
               t->seeds > 1 ? "s" : "", t->n_knobs, t->n_knobs > 1 ? "s" : "", grid, t->budget,
               t->method == M_LHS ? "lhs" : "coordinate");
        const struct eval *b = &t->ev[0];
        printf("given   %s=", sweep_fig_name[t->fig]);
        if (b->feasible)
            printf("%.6g\n", b->obj);
        else
            printf("(%s)\n", b->why);
    }
    if (t->method == M_LHS && explore(t, cur, grid) < 0)
        goto noworker;
    if (!t->quiet) {
        printf("start   ");
        if (t->defaults && is_given(t, cur))
            printf("(the scenario as given)");
        put_point(t, cur);
        putchar('\n');
    }
    int pass = 1, since = 0; /* knobs tried since the last change */
    for (; pass <= MAX_PASSES && !t->out_of_budget; pass++) {
        int changed = 0;
        for (int k = 0; k < t->n_knobs && !t->out_of_budget && since < t->n_knobs; k++) {
            const struct knob *kn = &t->k[k];
            if (kn->n < 2 && pass > 1)
                continue;
            for (int v = 0; v < kn->n; v++) {
                memcpy(cand[v], cur, sizeof cur);
                cand[v][k] = v;
            }
            if (evaluate(t, cand, kn->n) < 0)
                goto noworker;
            int best = cur[k];
            for (int v = 0; v < kn->n; v++)
                if (better(t, find_eval(t, cand[v]), find_eval(t, cand[best])))
                    best = v;
            /* lhs: a sampled value that only ties the scenario's own goes
             * back to it, so the answer changes no more than it needs */
            if (t->method == M_LHS && t->defaults && best != 0 && find_eval(t, cand[0]) &&
                find_eval(t, cand[0])->feasible &&
                !better(t, find_eval(t, cand[best]), find_eval(t, cand[0])))
                best = 0;
            if (!t->quiet) {
                printf("pass %d  %s:", pass, kn->key);
                for (int v = 0; v < kn->n; v++) {
                    const struct eval *e = find_eval(t, cand[v]);
                    if (!e)
                        continue;
                    printf("  ");
                    put_value(t, k, v);
                    putchar('=');
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
            since = best != cur[k] ? 1 : since + 1;
            cur[k] = best;
        }
        /* every knob tried at the current point: none improves alone */
        if (!changed || since >= t->n_knobs)
            break;
    }
    int *order = malloc((size_t)t->n_ev * sizeof *order);
    if (!order)
        return 2;
    rank(t, order);
    int search_runs = t->runs;
    if (t->recheck > 0 && t->ev[order[0]].feasible) {
        /* the K best again with 4x the seeds: a lucky seed cannot win alone */
        int n = 0, idx[MAX_KV][MAX_KNOBS];
        struct eval *slot2[MAX_KV];
        for (int r = 0; r < t->n_ev && n < t->recheck && n < MAX_KV; r++) {
            struct eval *e = &t->ev[order[r]];
            if (!e->feasible)
                break;
            if (!t->defaults && order[r] == 0)
                continue;
            memcpy(idx[n], e->idx, sizeof idx[0]);
            slot2[n++] = e;
        }
        if (run_points(t, idx, slot2, n, 4 * t->seeds, 0, 0) < 0) {
            free(order);
            goto noworker;
        }
        for (int i = 0; i < n; i++)
            judge(t, slot2[i], &t->ev[0]);
        rank(t, order);
    }
    /* with --knob the answer is a point of the grid, the scenario as given
     * only the reference; after --recheck, one of the rechecked points */
    /* lhs: where the descent from the halving's survivor ended (a point
     * that only won the sample on its first seeds does not come back) */
    const struct eval *e = t->method == M_LHS && search_runs == t->runs ? find_eval(t, cur) : NULL;
    for (int r = 0; r < t->n_ev && !e; r++)
        if ((t->defaults || order[r] != 0) &&
            (search_runs == t->runs || t->ev[order[r]].seeds == 4 * t->seeds))
            e = &t->ev[order[r]];
    /* lhs: an answer that only ties the scenario as given is the given
     * (a knob the descent set while others differed, never revisited) */
    if (e && t->method == M_LHS && t->defaults && e != &t->ev[0] && t->ev[0].feasible &&
        !better(t, e, &t->ev[0]))
        e = &t->ev[0];
    if (!e || !e->feasible) {
        fprintf(stderr, "ckptnet: tune: no feasible point (%d points, %d runs)%s%s\n", t->n_ev,
                t->runs, t->n_ev > 0 && t->ev[0].why[0] ? "; as given: " : "", t->ev[0].why);
        free(order);
        return 1;
    }
    printf("best    ");
    if (e == &t->ev[0])
        printf("(the scenario as given)");
    else
        put_point(t, e->idx);
    /* with --knob the scenario as given is not a point of the grid */
    printf(": %s %.6g; %d of %lld points evaluated (%d runs%s), %s\n", sweep_fig_name[t->fig],
           e->obj, t->n_ev - !t->defaults, grid, t->runs,
           t->recheck > 0 ? (search_runs < t->runs ? ", with the recheck" : "") : "",
           t->out_of_budget ? "stopped at the budget"
           : pass > MAX_PASSES ? "stopped after 10 passes"
                               : "no knob improves alone");
    /* the table starts with the answer (lhs: ties elsewhere may rank first) */
    for (int r = 0; r < t->n_ev; r++)
        if (&t->ev[order[r]] == e) {
            memmove(order + 1, order, (size_t)r * sizeof *order);
            order[0] = (int)(e - t->ev);
            break;
        }
    report(t, e, order);
    int rc = 0;
    if (t->jf && json_best(t, e) < 0)
        rc = 2;
    free(order);
    return rc;
noworker:
    fprintf(stderr, "ckptnet: tune: no worker process could run\n");
    return 2;
}

/* The default knobs, each value that changes nothing dropped (the value ""
 * at index 0 is the scenario as given). */

/* ---- --objective pareto ---------------------------------------------------- */

/* A point on the capital-loss plane: cap (capital per day) from the
 * point's bill of materials (ckpt_describe, no run), loss the money the
 * GPU-hours lost per day cost, (1 - goodput) x 24 h x GPUs x
 * training.gpu_hour_cost (cost.lost_money_per_day), from the runs' mean
 * goodput. ok 0: no such point (why). */
struct ppoint {
    const struct eval *e;
    int ok;
    double cap, loss, gpuh;
    char why[160];
};

static void pareto_place(const struct tune *t, struct ppoint *p)
{
    struct scenario *sc = malloc(sizeof *sc);
    struct ckpt_description *d = malloc(sizeof *d);
    struct err e = {{0}};
    p->ok = 0;
    if (!sc || !d) {
        snprintf(p->why, sizeof p->why, "out of memory");
        goto out;
    }
    *sc = t->base;
    if (!p->e->feasible) {
        snprintf(p->why, sizeof p->why, "%s", p->e->why);
        goto out;
    }
    if (apply_point(t, p->e->idx, sc, &e) < 0 || ckpt_describe(sc, d, &e) < 0) {
        snprintf(p->why, sizeof p->why, "%.150s", e.msg);
        goto out;
    }
    const struct cost_figures *c = &d->r.cost;
    if (c->n_unpriced) { /* a partial price would flatter the point */
        snprintf(p->why, sizeof p->why, "unpriced: %s", c->unpriced[0]);
        goto out;
    }
    double g = p->e->fig[F_GOODPUT];
    if (isnan(g)) {
        snprintf(p->why, sizeof p->why, "no goodput");
        goto out;
    }
    p->cap = c->capital_per_day;
    p->gpuh = (1.0 - g) * 24.0 * d->r.plan.gpus;
    p->loss = p->gpuh * sc->training.gpu_hour_cost;
    p->ok = 1;
out:
    free(sc);
    free(d);
}

/* a dominates b: no worse on both axes, better on one */
static int dominates(const struct ppoint *a, const struct ppoint *b)
{
    return a->cap <= b->cap && a->loss <= b->loss && (a->cap < b->cap || a->loss < b->loss);
}

static void pareto_json_point(FILE *f, const struct tune *t, const struct ppoint *p, int first)
{
    fprintf(f, "%s\n    {\"capital_per_day\": %.9g, \"lost_money_per_day\": %.9g, "
               "\"lost_gpu_hours_per_day\": %.9g, \"completion_s\": %.9g, \"settings\": {",
            first ? "" : ",", p->cap, p->loss, p->gpuh, p->e->fig[F_COMPLETION]);
    for (int k = 0, n = 0; k < t->n_knobs; k++) {
        if (p->e->idx[k] < 0)
            continue;
        fputs(n++ ? ", " : "", f);
        json_text(f, t->k[k].key);
        fputs(": ", f);
        json_text(f, t->k[k].val[p->e->idx[k]]);
    }
    fputs("}}", f);
}

/* Run the whole grid (and the scenario as given), place every point, print
 * the non-dominated ones by rising capital. Deterministic: the grid's order
 * and the runs' figures do not depend on -j or ranks. */
static int pareto_search(struct tune *t)
{
    long long grid = 1;
    for (int k = 0; k < t->n_knobs; k++)
        grid *= t->k[k].n;
    if (grid + 1 > t->budget / t->seeds) {
        fprintf(stderr, "ckptnet: tune: --objective pareto runs the whole grid: %lld points "
                        "and the scenario as given at %d seed%s need a --budget of %lld runs "
                        "(have %d)\n", grid, t->seeds, t->seeds > 1 ? "s" : "",
                (grid + 1) * t->seeds, t->budget);
        return 2;
    }
    int n = (int)grid;
    int (*pts)[MAX_KNOBS] = malloc((size_t)(n + 1) * sizeof *pts);
    struct ppoint *pp = calloc((size_t)n + 1, sizeof *pp);
    int *front = malloc(((size_t)n + 1) * sizeof *front);
    int rc = 2;
    if (!pts || !pp || !front)
        goto out;
    for (int k = 0; k < MAX_KNOBS; k++)
        pts[0][k] = -1;
    struct eval *slot[1] = {&t->ev[0]};
    if (run_points(t, pts, slot, 1, t->seeds, 0, 0) < 0)
        goto noworker;
    t->n_ev = 1;
    judge(t, &t->ev[0], &t->ev[0]);
    for (int i = 0; i < n; i++) {
        long long q = i;
        for (int k = t->n_knobs - 1; k >= 0; k--) { /* mixed radix, the first knob slowest */
            pts[i][k] = (int)(q % t->k[k].n);
            q /= t->k[k].n;
        }
        for (int k = t->n_knobs; k < MAX_KNOBS; k++)
            pts[i][k] = -1;
    }
    if (evaluate(t, pts, n) < 0)
        goto noworker;
    int np = t->n_ev, nf = 0, feas = 0;
    for (int i = 0; i < np; i++) {
        pp[i].e = &t->ev[i];
        pareto_place(t, &pp[i]);
        feas += pp[i].ok;
    }
    for (int i = 0; i < np; i++) {
        int dom = !pp[i].ok;
        for (int j = 0; j < np && !dom; j++)
            dom = pp[j].ok && (dominates(&pp[j], &pp[i]) ||
                               (j < i && pp[j].cap == pp[i].cap && pp[j].loss == pp[i].loss));
        if (!dom)
            front[nf++] = i;
    }
    for (int i = 1; i < nf; i++) /* by rising capital (then falling loss), stable */
        for (int j = i; j > 0 && pp[front[j]].cap < pp[front[j - 1]].cap; j--) {
            int x = front[j];
            front[j] = front[j - 1];
            front[j - 1] = x;
        }
    const char *cur = t->base.training.currency;
    if (!t->quiet)
        printf("tune: pareto front of the fabric's capital per day (cost.prices, over "
               "cost.amortisation_years) against the money lost per day ((1 - goodput) x 24 h "
               "x GPUs x training.gpu_hour_cost, mean over %d seed%s); the whole grid, %d "
               "points and the scenario as given: %d placed\n",
               t->seeds, t->seeds > 1 ? "s" : "", n, feas);
    printf("%14s %14s %14s %12s  settings\n", "capital/day", "lost/day", "lost GPU-h/day",
           "completion_s");
    for (int i = 0; i < nf; i++) {
        const struct ppoint *p = &pp[front[i]];
        printf("%10.2f %-3s %10.2f %-3s %14.2f %12.6g  ", p->cap, cur, p->loss, cur, p->gpuh,
               p->e->fig[F_COMPLETION]);
        if (p->e == &t->ev[0])
            printf("(the scenario as given)");
        else
            put_point(t, p->e->idx);
        printf("\n");
    }
    if (!t->quiet)
        for (int i = 0; i < np; i++)
            if (!pp[i].ok) {
                printf("not placed: ");
                if (pp[i].e == &t->ev[0])
                    printf("(the scenario as given)");
                else
                    put_point(t, pp[i].e->idx);
                printf(": %s\n", pp[i].why);
            }
    if (t->jf) {
        fputs("\n  ],\n  \"pareto\": [", t->jf);
        for (int i = 0; i < nf; i++)
            pareto_json_point(t->jf, t, &pp[front[i]], i == 0);
        fputs("\n  ]\n}\n", t->jf);
        t->jf_done = 1;
    }
    if (t->out_of_budget)
        fprintf(stderr, "ckptnet: tune: the budget ran out before the grid\n");
    rc = nf ? 0 : 1;
    if (!nf)
        fprintf(stderr, "ckptnet: tune: no feasible point to place on the front\n");
    goto out;
noworker:
    fprintf(stderr, "ckptnet: tune: could not start the runs\n");
    rc = 2;
out:
    free(pts);
    free(pp);
    free(front);
    return rc;
}

/* transport.cc's values: each congestion control's row says its own */
static const char *cc_knob(char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < CC_COUNT && o < len; i++) {
        int w = snprintf(buf + o, len - o, "%s%s", i ? "," : "", cc_schemes[i].tune);
        o += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

static int add_default_knobs(struct tune *t)
{
    struct diff *d = malloc(sizeof *d);
    char ccs[512];
    if (!d)
        return 2;
    for (size_t i = 0; i < sizeof default_knobs / sizeof default_knobs[0]; i++) {
        struct knob *k = &t->k[t->n_knobs];
        int idx[MAX_KNOBS];
        snprintf(k->key, sizeof k->key, "%s", default_knobs[i][0]);
        k->val[k->n++] = strdup("");
        t->n_knobs++;
        const char *vals = default_knobs[i][1] ? default_knobs[i][1] : cc_knob(ccs, sizeof ccs);
        for (const char *p = vals; *p;) {
            size_t l = strcspn(p, ",");
            k->val[k->n] = strndup(p, l);
            if (!k->val[k->n])
                break;
            for (int j = 0; j < MAX_KNOBS; j++)
                idx[j] = j == t->n_knobs - 1 ? k->n : -1;
            k->n++;
            point_diff(t, idx, d);
            if (!d->n) /* the value as given: already the start */
                free(k->val[--k->n]);
            p += l + (p[l] == ',');
        }
    }
    free(d);
    t->defaults = 1;
    return 0;
}

int cmd_tune(int argc, char **argv)
{
    struct tune *t = calloc(1, sizeof *t);
    int help = 0;
    if (!t)
        return 2;
    t->argc = argc;
    t->argv = argv;
    t->seeds = 1;
    t->jobs = -1;
    t->budget = 100;
    t->fig = F_COMPLETION;
    t->sample_seed = 1;
    int rc = sweep_par_init(&t->par, "tune");
    if (rc) {
        free(t);
        return rc;
    }
    /* every rank parses the same arguments: only rank 0 speaks */
    int saved = -1;
    if (t->par.rank != 0) {
        fflush(stderr);
        saved = dup(STDERR_FILENO);
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) {
            dup2(nul, STDERR_FILENO);
            close(nul);
        }
    }
    rc = parse_tune(argc, argv, t, &help);
    if (t->par.rank != 0) {
        /* a rank runs what rank 0 sends: the base scenario is checked there */
        if (saved >= 0) {
            dup2(saved, STDERR_FILENO);
            close(saved);
        }
        rc = sweep_par_agree(&t->par, rc || help ? 2 : 0);
        if (rc == 0)
            sweep_serve(&t->par, t->file, argc, argv);
    } else if (rc == 0 && help) {
        fputs(usage_tune, stdout);
        cli_outputs_help(stdout, "tune");
        fputs(usage_tune_tail, stdout);
        sweep_par_agree(&t->par, 2);
        rc = 0;
    } else if (rc != 0) {
        sweep_par_agree(&t->par, rc);
    } else {
        /* the file and --set apply to every run: their errors stop here */
        struct scenario *sc = &t->base;
        struct err e = {{0}};
        scenario_defaults(sc);
        if (t->file && scenario_load_file(sc, t->file, &e) < 0) {
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
            if (scenario_set(sc, v, &e) < 0) {
                fprintf(stderr, "ckptnet: tune: %s\n", e.msg);
                rc = 2;
            }
        }
        if (rc == 0)
            scenario_echo(sc, keep_given, t);
        if (rc == 0 && t->pareto && !strcmp(sc->cost.prices, "none")) {
            fprintf(stderr, "ckptnet: tune: --objective pareto needs the fabric's prices: set "
                            "cost.prices (e.g. --set cost.prices=CX732Q-N=18000,optic_400g=900; "
                            "docs/checkpoint.md, Capital cost); the tool invents none\n");
            rc = 2;
        }
        if (rc == 0 && !t->n_knobs)
            rc = add_default_knobs(t);
        if (t->jobs < 0) {
            long n = sysconf(_SC_NPROCESSORS_ONLN);
            t->jobs = t->par.ranks > 1 ? 1 : n > 0 ? (int)(n < 256 ? n : 256) : 1;
        }
        t->cap_ev = t->budget / t->seeds + 2;
        t->ev = calloc((size_t)t->cap_ev, sizeof *t->ev);
        if (rc == 0 && !t->ev)
            rc = 2;
        for (int k = 0; k < cli_n_outputs && rc == 0; k++) {
            const struct cli_output *row = &cli_outputs[k];
            struct err ce = {{0}};
            if (t->outs[k] && (ofile_check(t->outs[k], &ce) < 0 ||
                               (row->check && row->check(t->outs[k], &ce) < 0))) {
                fprintf(stderr, "ckptnet: tune: %s: %s\n", row->opt, ce.msg);
                rc = 2;
            }
        }
        if (rc == 0 && t->json) {
            struct err je = {{0}};
            t->jf = ofile_open(&t->jfile, t->json, &je);
            if (!t->jf) {
                fprintf(stderr, "ckptnet: tune: --json: %s\n", je.msg);
                rc = 2;
            } else {
                if (t->pareto)
                    fputs("{\n  \"objective\": {\"pareto\": [\"capital_per_day\", "
                          "\"lost_money_per_day\"]},\n  \"runs\": [", t->jf);
                else
                    fprintf(t->jf, "{\n  \"objective\": {\"%s\": \"%s\"},\n  \"runs\": [",
                            t->maximize ? "maximize" : "minimize", sweep_fig_name[t->fig]);
                t->jf_first = 1;
            }
        }
        /* the other ranks serve only when rank 0 could start */
        int agreed = sweep_par_agree(&t->par, rc);
        if (rc == 0 && agreed == 0)
            rc = t->pareto ? pareto_search(t) : search(t);
        if (t->jf && !t->jf_done)
            fputs("\n  ]\n}\n", t->jf); /* no winner: the runs alone */
        struct err je = {{0}};
        if (t->jf && ofile_commit(&t->jfile, &je) < 0) {
            fprintf(stderr, "ckptnet: tune: --json: %s\n", je.msg);
            rc = 2;
        }
    }
    rc = sweep_par_end(&t->par, rc);
    for (int k = 0; k < t->n_knobs; k++)
        for (int v = 0; v < t->k[k].n; v++)
            free(t->k[k].val[v]);
    free(t->ev);
    free(t);
    return rc;
}
