/* ckptnet sweep: many runs of one scenario, in fork()ed worker processes
 * (-j) or MPI ranks (build/ckptnet-mpi under mpirun), rows written in run
 * order by one coordinator so that the output is the same whatever the
 * parallelism. docs/sweep.md documents the command and the file formats. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "../src/core/rng.h"
#include "../src/report/fields.h"
#include "outputs.h"
#include "sweep.h"

#ifdef __linux__
#include <sys/prctl.h>
#endif

#define MAX_JOBS 256
#define MAX_VALUES 256

#define SWEEP_FIG_NAME(id, name) name,
const char *const sweep_fig_name[F_COUNT] = {SWEEP_FIGS(SWEEP_FIG_NAME)};
#undef SWEEP_FIG_NAME

static const char usage_sweep[] =
    "usage: ckptnet sweep [SCENARIO.yaml] --vary key=v1,v2,... [--vary ...] [--set k=v]...\n"
    "                     [--engine E] [--points FILE] [--seeds N] [-j N] [--out FILE]\n"
    "                     [--resume] [--report FILE.html] [--quiet]\n"
    "\n"
    "Run the scenario at every point of the cartesian product of the --vary values\n"
    "(the last --vary changes fastest), or at each line of a points file, with N\n"
    "seeds per point, and write one row per run (the varied keys, seed, engine,\n"
    "completion, bound ratio, bottleneck, pauses, drops, cost figures) and, with\n"
    "more than one seed, each point's mean, min and max over its seeds.\n"
    "\n"
    "  --vary k=v1,v2   values of key k (repeatable: up to 8 keys)\n"
    "  --points FILE    the points instead: one a line, \"k1=v k2=v\", the same keys\n"
    "                   on every line; '#' starts a comment\n"
    "  --set k=v        override one key in every run (repeatable)\n"
    "  --engine E       packet, fluid or auto\n"
    "  --seeds N        runs per point, seeds s, s+1, ... s+N-1 (s: the scenario's\n"
    "                   seed); default 1\n"
    "  -j, --jobs N     worker processes (default: the number of cores); under\n"
    "                   mpirun: rank 0's (default 1, 0 = it only coordinates)\n";
/* then the outputs (outputs.c), then: */
static const char usage_sweep_tail[] =
    "  --resume         keep the points FILE(.partial) already holds, run the\n"
    "                   rest; refused when its header (scenario, --set, engine,\n"
    "                   seeds, version) is not this sweep's\n"
    "  --quiet          no progress line\n"
    "  -h, --help       show this help\n"
    "\n"
    "A run that fails (bad combination, violated invariant, time limit) has its\n"
    "error in its row; the others go on. Under mpirun, build/ckptnet-mpi spreads\n"
    "the runs over the ranks and rank 0 writes the file.\n"
    "\n"
    "exit status: 0 every run ok, 1 a run failed or violated an invariant, 2 bad\n"
    "usage or input, or the output could not be written\n";

struct sopts {
    const char *file, *points;
    const char *outs[CLI_MAX_OUTPUTS]; /* the path of each output row given, by row */
    const char *out;                   /* outs[] of --out: the rows, streamed here */
    const char *vary[SWEEP_MAX_KEYS];
    int n_vary, seeds, jobs, resume, quiet, help;
};

/* ---- small helpers ----------------------------------------------------------- */

const char *sweep_num(char *buf, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, 32, "%.0f", v);
    else
        snprintf(buf, 32, "%.9g", v);
    return buf;
}

/* A figure as the file will hold it: what a resumed sweep reads back is
 * then exactly what an uninterrupted one aggregates. */
static double canon(double v)
{
    char b[32];
    return isfinite(v) ? strtod(sweep_num(b, v), NULL) : NAN;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Bytes read (n, or fewer at end of file), -1 on error. */
static ssize_t read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Copy src into dst (size n), truncated, always terminated. */
static void copy_text(char *dst, size_t n, const char *src)
{
    size_t l = src ? strlen(src) : 0;
    l = l < n ? l : n - 1;
    if (l)
        memcpy(dst, src, l);
    dst[l] = '\0';
}

/* ---- options ---------------------------------------------------------------- */

/* "--name v", "--name=v" (and "-jN", "-j N"): 1 with *v set, 0 if a is not
 * the option, -1 when its value is missing. */
static int opt_value(int argc, char **argv, int *i, const char *name, const char *shortname,
                     const char **v)
{
    const char *a = argv[*i];
    size_t l = strlen(name);
    if (!strncmp(a, name, l) && (a[l] == '=' || a[l] == '\0')) {
        *v = a[l] == '=' ? a + l + 1 : *i + 1 < argc ? argv[++*i] : NULL;
        return *v ? 1 : -1;
    }
    if (shortname && !strncmp(a, shortname, 2)) {
        *v = a[2] ? a + 2 : *i + 1 < argc ? argv[++*i] : NULL;
        return *v ? 1 : -1;
    }
    return 0;
}

int sweep_opt(int argc, char **argv, int *i, const char *name, const char *shortname,
              const char **v)
{
    return opt_value(argc, argv, i, name, shortname, v);
}

int sweep_common_arg(const char *cmd, const char *a, const char **file, int *quiet, int *help)
{
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
        *quiet = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        *help = 1;
    } else if (a[0] == '-' && a[1]) {
        fprintf(stderr, "ckptnet: %s: unknown option '%s' (see ckptnet %s --help)\n", cmd, a,
                cmd);
        return 2;
    } else if (*file) {
        fprintf(stderr, "ckptnet: %s: more than one scenario file ('%s', '%s')\n", cmd, *file,
                a);
        return 2;
    } else {
        *file = a;
    }
    return 0;
}

static int parse_count(const char *opt, const char *v, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < lo || n > hi) {
        fprintf(stderr, "ckptnet: sweep: %s: expected a whole number in [%d, %d], got \"%s\"\n",
                opt, lo, hi, v);
        return 2;
    }
    *out = (int)n;
    return 0;
}

static int parse_sweep_opts(int argc, char **argv, struct sopts *o)
{
    memset(o, 0, sizeof *o);
    o->seeds = 1;
    o->jobs = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int k;
        if ((k = opt_value(argc, argv, &i, "--set", NULL, &v)) ||
            (k = opt_value(argc, argv, &i, "--engine", NULL, &v))) {
            if (k < 0)
                goto needs;
        } else if ((k = opt_value(argc, argv, &i, "--vary", NULL, &v))) {
            if (k < 0)
                goto needs;
            if (o->n_vary >= SWEEP_MAX_KEYS) {
                fprintf(stderr, "ckptnet: sweep: more than %d --vary keys\n", SWEEP_MAX_KEYS);
                return 2;
            }
            o->vary[o->n_vary++] = v;
        } else if ((k = opt_value(argc, argv, &i, "--points", NULL, &v))) {
            if (k < 0)
                goto needs;
            o->points = v;
        } else if ((k = cli_output_opt("sweep", argc, argv, &i, o->outs, &v))) {
            if (k < 0)
                goto needs;
        } else if ((k = opt_value(argc, argv, &i, "--seeds", NULL, &v))) {
            if (k < 0)
                goto needs;
            if (parse_count("--seeds", v, 1, 10000, &o->seeds))
                return 2;
        } else if ((k = opt_value(argc, argv, &i, "--jobs", "-j", &v))) {
            if (k < 0)
                goto needs;
            if (parse_count("-j", v, 0, MAX_JOBS, &o->jobs))
                return 2;
        } else if (!strcmp(a, "--resume")) {
            o->resume = 1;
        } else if (sweep_common_arg("sweep", a, &o->file, &o->quiet, &o->help)) {
            return 2;
        }
        continue;
    needs:
        fprintf(stderr, "ckptnet: sweep: %s needs a value\n", a);
        return 2;
    }
    o->out = o->outs[cli_output_find("sweep", "--out", -1)];
    return 0;
}

/* ---- the points -------------------------------------------------------------- */

struct key_check {
    const char *key;
    int found;
};

static void find_key(void *ud, const char *key, const char *type, const char *def,
                     const char *min, const char *max, const char *doc)
{
    struct key_check *c = ud;
    (void)type, (void)def, (void)min, (void)max, (void)doc;
    if (!strcmp(key, c->key))
        c->found = 1;
}

int sweep_key_known(const char *key)
{
    struct key_check c = {key, 0};
    scenario_keys(find_key, &c);
    return c.found;
}

/* Add key k to the sweep, once, known to the scenario table. where prefixes
 * the error ("--vary" or "file:line:col"). */
static int add_key(struct sweep *sw, const char *k, size_t len, const char *where)
{
    char key[SWEEP_KEY_LEN];
    if (len == 0 || len >= sizeof key) {
        fprintf(stderr, "ckptnet: sweep: %s: expected key=value\n", where);
        return -1;
    }
    memcpy(key, k, len);
    key[len] = '\0';
    struct key_check c = {key, 0};
    scenario_keys(find_key, &c);
    if (!c.found) {
        char esc[SWEEP_KEY_LEN * 4];
        fprintf(stderr, "ckptnet: sweep: %s: %s: unknown key (ckptnet describe lists them)\n",
                where, err_escape(esc, sizeof esc, key));
        return -1;
    }
    for (int i = 0; i < sw->n_keys; i++)
        if (!strcmp(sw->keys[i], key)) {
            fprintf(stderr, "ckptnet: sweep: %s: %s given twice\n", where, key);
            return -1;
        }
    if (sw->n_keys >= SWEEP_MAX_KEYS) {
        fprintf(stderr, "ckptnet: sweep: %s: more than %d keys\n", where, SWEEP_MAX_KEYS);
        return -1;
    }
    memcpy(sw->keys[sw->n_keys++], key, len + 1);
    return 0;
}

static void sweep_release(struct sweep *sw)
{
    if (sw->vals)
        for (int i = 0; i < sw->n_points * sw->n_keys; i++)
            free(sw->vals[i]);
    free(sw->vals);
    sw->vals = NULL;
}

static int set_runs(struct sweep *sw)
{
    if ((long long)sw->n_points * sw->seeds > SWEEP_MAX_RUNS) {
        fprintf(stderr, "ckptnet: sweep: %d points x %d seeds is more than %d runs\n",
                sw->n_points, sw->seeds, SWEEP_MAX_RUNS);
        return -1;
    }
    sw->n_runs = sw->n_points * sw->seeds;
    return 0;
}

/* The cartesian product of the --vary lists, the last key fastest. */
static int points_from_vary(struct sweep *sw, const struct sopts *o)
{
    int nv[SWEEP_MAX_KEYS];
    const char *start[SWEEP_MAX_KEYS][MAX_VALUES];
    int len[SWEEP_MAX_KEYS][MAX_VALUES];
    long long total = 1;
    for (int k = 0; k < o->n_vary; k++) {
        const char *v = o->vary[k], *eq = strchr(v, '=');
        if (!eq || !eq[1]) {
            fprintf(stderr, "ckptnet: sweep: --vary: expected key=v1,v2,..., got \"%s\"\n", v);
            return -1;
        }
        if (add_key(sw, v, (size_t)(eq - v), "--vary") < 0)
            return -1;
        nv[k] = 0;
        for (const char *p = eq + 1;;) {
            const char *c = strchr(p, ',');
            int l = c ? (int)(c - p) : (int)strlen(p);
            if (l == 0 || nv[k] >= MAX_VALUES) {
                fprintf(stderr, "ckptnet: sweep: --vary %s: %s\n", sw->keys[k],
                        l ? "more than 256 values" : "empty value");
                return -1;
            }
            start[k][nv[k]] = p;
            len[k][nv[k]++] = l;
            if (!c)
                break;
            p = c + 1;
        }
        total *= nv[k];
        if (total > SWEEP_MAX_RUNS) {
            fprintf(stderr, "ckptnet: sweep: more than %d points\n", SWEEP_MAX_RUNS);
            return -1;
        }
    }
    sw->n_points = (int)total;
    sw->vals = calloc((size_t)total * (size_t)sw->n_keys, sizeof *sw->vals);
    if (!sw->vals)
        return -1;
    for (int p = 0; p < sw->n_points; p++) {
        int rest = p;
        for (int k = sw->n_keys - 1; k >= 0; k--) {
            int i = rest % nv[k];
            rest /= nv[k];
            char *s = malloc((size_t)len[k][i] + 1);
            if (!s)
                return -1;
            memcpy(s, start[k][i], (size_t)len[k][i]);
            s[len[k][i]] = '\0';
            sw->vals[p * sw->n_keys + k] = s;
        }
    }
    return 0;
}

/* A points file: one point a line, "k1=v1 k2=v2", the same keys in the same
 * order on every line; blank lines and '#' comments skipped. */
static int points_from_file(struct sweep *sw, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ckptnet: sweep: --points: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    char line[4096], where[1200];
    int lineno = 0, cap = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "ckptnet: sweep: %s:%d: line longer than %zu bytes\n", path, lineno,
                    sizeof line - 2);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        int k = 0;
        char *tok[SWEEP_MAX_KEYS + 1];
        for (char *p = line; rc == 0;) {
            p += strspn(p, " \t\r\n");
            if (!*p)
                break;
            char *end = p + strcspn(p, " \t\r\n");
            int col = (int)(p - line) + 1;
            char *eq = memchr(p, '=', (size_t)(end - p));
            snprintf(where, sizeof where, "%s:%d:%d", path, lineno, col);
            if (!eq || eq == p || eq + 1 == end) {
                fprintf(stderr, "ckptnet: sweep: %s: expected key=value\n", where);
                rc = -1;
            } else if (sw->n_points == 0 && k == sw->n_keys) {
                rc = add_key(sw, p, (size_t)(eq - p), where);
            } else if (k >= sw->n_keys || strncmp(sw->keys[k], p, (size_t)(eq - p)) ||
                       sw->keys[k][eq - p]) {
                fprintf(stderr, "ckptnet: sweep: %s: expected %s (every line sets the first "
                                "line's keys in its order)\n",
                        where, k < sw->n_keys ? sw->keys[k] : "the end of the line");
                rc = -1;
            }
            if (rc == 0) {
                tok[k++] = eq + 1;
                char c = *end;
                *end = '\0';
                p = c ? end + 1 : end;
            }
        }
        if (rc < 0 || k == 0)
            continue;
        if (k != sw->n_keys) {
            fprintf(stderr, "ckptnet: sweep: %s:%d: expected %s (every line sets the first "
                            "line's keys)\n",
                    path, lineno, sw->keys[k]);
            rc = -1;
            break;
        }
        if (sw->n_points >= SWEEP_MAX_RUNS) {
            fprintf(stderr, "ckptnet: sweep: %s: more than %d points\n", path, SWEEP_MAX_RUNS);
            rc = -1;
            break;
        }
        if (sw->n_points == cap) {
            cap = cap ? 2 * cap : 64;
            char **nv = realloc(sw->vals, (size_t)cap * (size_t)sw->n_keys * sizeof *nv);
            if (!nv) {
                rc = -1;
                break;
            }
            sw->vals = nv;
        }
        for (int i = 0; i < k; i++)
            sw->vals[sw->n_points * sw->n_keys + i] = strdup(tok[i]);
        sw->n_points++;
    }
    fclose(f);
    if (rc == 0 && sw->n_points == 0) {
        fprintf(stderr, "ckptnet: sweep: %s: no points\n", path);
        rc = -1;
    }
    return rc;
}

/* Skip the value of the sweep's (or tune's) own valued option at argv[*i]:
 * these, or sweep's and tune's outputs (outputs.c). */
static void skip_own_value(const struct sweep *sw, int *i)
{
    static const char *const own[] = {"--jobs", "--vary", "--points", "--seeds", "--knob",
                                      "--minimize", "--maximize", "--constraint", "--budget",
                                      "--recheck", "--method", "--sample-seed"};
    const char *skip = NULL;
    for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
        if (opt_value(sw->argc, sw->argv, i, own[k], k == 0 ? "-j" : NULL, &skip))
            return;
    for (int k = 0; k < cli_n_outputs; k++)
        if ((cli_output_for(&cli_outputs[k], "sweep") || cli_output_for(&cli_outputs[k], "tune")) &&
            opt_value(sw->argc, sw->argv, i, cli_outputs[k].opt, NULL, &skip))
            return;
}

static uint64_t fnv_step(uint64_t h, unsigned char c) CKPT_WRAPS;
static uint64_t fnv_step(uint64_t h, unsigned char c)
{
    return (h ^ c) * 0x100000001b3u;
}

/* The scenario of point p: defaults, file, --set / --engine in command-line
 * order, then the point's values; not yet resolved (p < 0: no point). */
static int build_point_raw(const struct sweep *sw, int p, struct scenario *sc, struct err *e)
{
    scenario_defaults(sc);
    if (sw->file && scenario_load_file(sc, sw->file, e) < 0)
        return -1;
    for (int i = 0; i < sw->argc; i++) {
        const char *v = NULL;
        char buf[200];
        if (opt_value(sw->argc, sw->argv, &i, "--engine", NULL, &v) == 1) {
            snprintf(buf, sizeof buf, "engine=%s", v);
            v = buf;
        } else if (opt_value(sw->argc, sw->argv, &i, "--set", NULL, &v) != 1) {
            skip_own_value(sw, &i);
            continue;
        }
        if (scenario_set(sc, v, e) < 0)
            return -1;
    }
    /* a value "v;k2=v2;..." also sets k2 (tune's compound knobs); an empty
     * value leaves the key as the scenario gives it (tune's baseline) */
    for (int k = 0; p >= 0 && k < sw->n_keys; k++) {
        const char *v = sw->vals[p * sw->n_keys + k];
        for (int first = 1; *v; first = 0) {
            char a[SWEEP_KEY_LEN + 1024];
            size_t l = strcspn(v, ";");
            snprintf(a, sizeof a, "%s%s%.*s", first ? sw->keys[k] : "", first ? "=" : "",
                     (int)l, v);
            v += l + (v[l] == ';');
            if (scenario_set(sc, a, e) < 0) {
                /* "--set: key: ..." reads "key: ..." in a row */
                if (!strncmp(e->msg, "--set: ", 7))
                    memmove(e->msg, e->msg + 7, strlen(e->msg + 7) + 1);
                return -1;
            }
        }
    }
    return 0;
}

/* The same, resolved and validated (p < 0: the base, not resolved). */
static int build_point(const struct sweep *sw, int p, struct scenario *sc, struct err *e)
{
    if (build_point_raw(sw, p, sc, e) < 0)
        return -1;
    if (p < 0)
        return 0;
    return scenario_resolve(sc, e) < 0 || scenario_validate(sc, e) < 0 ? -1 : 0;
}

/* ---- one run ----------------------------------------------------------------- */

/* The columns the result fields table fills (its rows' sweep names), where
 * they apply; the rest stay NAN. */
static void fill_field_figs(double *fig, const struct results *r)
{
    for (size_t i = 0; i < n_result_fields; i++) {
        const struct result_field *rf = &result_fields[i];
        for (int c = 0; rf->sweep && c < F_COUNT; c++)
            if (!strcmp(sweep_fig_name[c], rf->sweep))
                fig[c] = field_sweep_number(rf, r);
    }
}

/* Point p with the scenario's seed + seed_off, as run `run` of the sweep. */
void sweep_run_one(const struct sweep *sw, int p, int seed_off, int32_t run,
                   struct sweep_res *o)
{
    memset(o, 0, sizeof *o);
    o->run = run;
    for (int i = 0; i < F_COUNT; i++)
        o->fig[i] = NAN;
    double t0 = now_s();
    struct scenario sc;
    struct err e = {{0}};
    if (build_point(sw, p, &sc, &e) < 0) {
        o->status = SWEEP_FAILED;
        copy_text(o->error, sizeof o->error, e.msg);
        return;
    }
    sc.seed += (uint64_t)seed_off;
    if (!sc.sim.threads) /* auto: workers and ranks run side by side */
        sc.sim.threads = 1;
    o->seed = sc.seed;
    o->has_seed = 1;
    struct results r;
    if (ckpt_run(&sc, &r, &e) < 0) {
        results_release(&r);
        o->status = SWEEP_FAILED;
        copy_text(o->error, sizeof o->error, e.msg);
        return;
    }
    copy_text(o->engine, sizeof o->engine, names_of(&names_engine, r.engine));
    double *f = o->fig;
    fill_field_figs(f, &r);
    if (r.finished && r.bottleneck.seg >= 0)
        copy_text(o->bottleneck, sizeof o->bottleneck, path_seg_key(r.bottleneck.seg));
    if (!r.ok) {
        o->status = SWEEP_VIOLATED;
        copy_text(o->error, sizeof o->error, r.violation);
    } else if (!r.finished) {
        o->status = SWEEP_VIOLATED;
        copy_text(o->error, sizeof o->error, "did not finish");
    }
    results_release(&r);
    f[F_WALL] = now_s() - t0;
}

static void do_run(const struct sweep *sw, int32_t run, struct sweep_res *o)
{
    sweep_run_one(sw, run / sw->seeds, sw->seed0 + run % sw->seeds, run, o);
}

/* ---- rows -------------------------------------------------------------------- */

static const char *const status_name[] = {"ok", "violated", "failed"};

struct out {
    int json;
    FILE *f;         /* the memory stream of the block being built */
    int first;       /* JSON: no comma before the next member */
};

static void put_csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        if (*s != '\n' && *s != '\r')
            fputc(*s, f);
    }
    fputc('"', f);
}

static void put_json_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* One column: text (NULL = absent) under name. */
static void col_text(struct out *o, const char *name, const char *text)
{
    if (o->json) {
        fprintf(o->f, "%s", o->first ? "{" : ", ");
        put_json_text(o->f, name);
        fputs(": ", o->f);
        if (text)
            put_json_text(o->f, text);
        else
            fputs("null", o->f);
    } else {
        if (!o->first)
            fputc(',', o->f);
        put_csv_text(o->f, text ? text : "");
    }
    o->first = 0;
}

static void col_num(struct out *o, const char *name, double v)
{
    char b[32];
    if (!o->json) {
        col_text(o, name, isfinite(v) ? sweep_num(b, v) : NULL);
        return;
    }
    fprintf(o->f, "%s", o->first ? "{" : ", ");
    put_json_text(o->f, name);
    fprintf(o->f, ": %s", isfinite(v) ? sweep_num(b, v) : "null");
    o->first = 0;
}

static void row_end(struct out *o)
{
    fputs(o->json ? "}\n" : "\n", o->f);
    o->first = 1;
}

/* What the rows depend on besides the points: the program, the scenario
 * file's bytes, every --set and --engine in order, the base engine, seed
 * and seeds. JSON lines: the first line; CSV: a "# " line before the column
 * names. --resume refuses a file whose header differs. */
static json_t *sweep_meta(const struct sweep *sw)
{
    json_t *m = json_object(), *keys = json_array(), *sets = json_array();
    for (int k = 0; k < sw->n_keys; k++)
        json_array_append_new(keys, json_string(sw->keys[k]));
    json_object_set_new(m, "sweep", json_string("ckptnet"));
    json_object_set_new(m, "version", json_string(CKPTNET_VERSION));
    json_object_set_new(m, "keys", keys);
    json_object_set_new(m, "seeds", json_integer(sw->seeds));
    json_object_set_new(m, "points", json_integer(sw->n_points));
    /* the scenario file's bytes, FNV-1a 64: a change detector, not a seal */
    json_t *hash = json_null();
    struct stat st;
    /* a regular file only: a FIFO was read once already */
    FILE *f = sw->file && stat(sw->file, &st) == 0 && S_ISREG(st.st_mode) ? fopen(sw->file, "rb")
                                                                          : NULL;
    if (f) {
        uint64_t h = 0xcbf29ce484222325u;
        for (int c; (c = getc(f)) != EOF;)
            h = fnv_step(h, (unsigned char)c);
        char hx[24];
        snprintf(hx, sizeof hx, "%016llx", (unsigned long long)h);
        if (!ferror(f))
            hash = json_string(hx);
        fclose(f);
    }
    json_object_set_new(m, "scenario", sw->file ? json_string(sw->file) : json_null());
    json_object_set_new(m, "scenario_fnv1a64", hash);
    for (int i = 0; i < sw->argc; i++) {
        const char *v = NULL;
        char buf[200];
        if (opt_value(sw->argc, sw->argv, &i, "--engine", NULL, &v) == 1) {
            snprintf(buf, sizeof buf, "engine=%s", v);
            json_array_append_new(sets, json_string(buf));
        } else if (opt_value(sw->argc, sw->argv, &i, "--set", NULL, &v) == 1) {
            json_array_append_new(sets, json_string(v));
        } else {
            skip_own_value(sw, &i);
        }
    }
    json_object_set_new(m, "set", sets);
    int k = sw->base_engine >= 0 && sw->base_engine < names_engine.n ? sw->base_engine
                                                                      : ENGINE_AUTO;
    json_object_set_new(m, "engine", json_string(names_of(&names_engine, k)));
    json_object_set_new(m, "seed", json_integer((json_int_t)sw->base_seed));
    return m;
}

static int n_columns(const struct sweep *sw);
static const char *column_name(const struct sweep *sw, int c);

/* The first line(s): JSON lines: the meta object; CSV: "# " and the meta
 * object, then the column names (column_name: the one list of them, which
 * --resume reads back by). */
static void put_header(struct out *o, const struct sweep *sw, const json_t *meta)
{
    char *m = json_dumps(meta, JSON_PRESERVE_ORDER);
    fprintf(o->f, "%s%s\n", o->json ? "" : "# ", m ? m : "{}");
    free(m);
    if (o->json)
        return;
    for (int c = 0; c < n_columns(sw); c++) {
        if (c)
            fputc(',', o->f);
        put_csv_text(o->f, column_name(sw, c));
    }
    fputc('\n', o->f);
}

static void put_row(struct out *o, const struct sweep *sw, int p, const char *seed,
                    const char *row, const char *status, const char *engine,
                    const char *bottleneck, const double *fig, const char *error)
{
    col_num(o, "point", p);
    for (int k = 0; k < sw->n_keys; k++)
        col_text(o, sw->keys[k], sw->vals[p * sw->n_keys + k]);
    if (o->json && seed)
        col_num(o, "seed", strtod(seed, NULL));
    else
        col_text(o, "seed", seed);
    col_text(o, "row", row);
    col_text(o, "status", status);
    col_text(o, "engine", engine);
    col_text(o, "bottleneck", bottleneck);
    for (int i = 0; i < F_COUNT; i++) {
        if (i == F_BEFORE_ERROR)
            col_text(o, "error", error);
        col_num(o, sweep_fig_name[i], fig[i]);
    }
    row_end(o);
}

/* Point p's rows: each run, then (more than one seed) mean, min and max of
 * every figure over the runs that have it. */
static void put_point(struct out *o, const struct sweep *sw, int p, const struct sweep_res *res)
{
    const struct sweep_res *r0 = &res[p * sw->seeds];
    int bad = 0;
    for (int s = 0; s < sw->seeds; s++) {
        const struct sweep_res *r = &r0[s];
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->seed);
        put_row(o, sw, p, r->has_seed ? seed : NULL, "run", status_name[r->status],
                r->engine[0] ? r->engine : NULL, r->bottleneck[0] ? r->bottleneck : NULL, r->fig,
                r->error[0] ? r->error : NULL);
        bad += r->status != SWEEP_OK;
    }
    if (sw->seeds < 2)
        return;
    double agg[3][F_COUNT];
    for (int i = 0; i < F_COUNT; i++) {
        double sum = 0, lo = INFINITY, hi = -INFINITY;
        int n = 0;
        for (int s = 0; s < sw->seeds; s++) {
            double v = r0[s].fig[i];
            if (isnan(v))
                continue;
            sum += v;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
            n++;
        }
        agg[0][i] = n ? sum / n : NAN;
        agg[1][i] = n ? lo : NAN;
        agg[2][i] = n ? hi : NAN;
    }
    /* engine and bottleneck when every run agrees, else "mixed" */
    const char *eng = r0[0].engine, *bn = r0[0].bottleneck;
    for (int s = 1; s < sw->seeds; s++) {
        if (strcmp(r0[s].engine, eng))
            eng = "mixed";
        if (strcmp(r0[s].bottleneck, bn))
            bn = "mixed";
    }
    char st[48];
    if (bad)
        snprintf(st, sizeof st, "%d of %d not ok", bad, sw->seeds);
    static const char *const kind[3] = {"mean", "min", "max"};
    for (int a = 0; a < 3; a++)
        put_row(o, sw, p, NULL, kind[a], bad ? st : "ok", *eng ? eng : NULL, *bn ? bn : NULL,
                agg[a], NULL);
}

/* ---- the output file and --resume ------------------------------------------- */

struct outfile {
    const char *path;
    int fd, json;
};

static int rows_per_point(const struct sweep *sw)
{
    return sw->seeds + (sw->seeds > 1 ? 3 : 0);
}

/* Split a CSV line in place into at most max fields; returns the count. */
static int csv_split(char *s, char **fld, int max)
{
    int n = 0;
    for (;;) {
        if (n == max)
            return n + 1;
        char *w = s;
        fld[n++] = s;
        if (*s == '"') {
            char *r = s + 1;
            for (;;) {
                if (*r == '"' && r[1] == '"') {
                    *w++ = '"';
                    r += 2;
                } else if (*r == '"' || !*r) {
                    if (*r)
                        r++;
                    break;
                } else {
                    *w++ = *r++;
                }
            }
            s = r;
        } else {
            while (*s && *s != ',')
                *w++ = *s++;
        }
        char c = *s;
        *w = '\0';
        if (c != ',')
            return n;
        s++;
    }
}

/* The columns of a row, in order: point, keys, seed, row, status, engine,
 * bottleneck, figures with error before the perf ones. */
static int n_columns(const struct sweep *sw)
{
    return 1 + sw->n_keys + 5 + F_COUNT + 1;
}

static const char *column_name(const struct sweep *sw, int c)
{
    static const char *const mid[] = {"seed", "row", "status", "engine", "bottleneck"};
    if (c == 0)
        return "point";
    if (c <= sw->n_keys)
        return sw->keys[c - 1];
    c -= 1 + sw->n_keys;
    if (c < 5)
        return mid[c];
    c -= 5;
    return c < F_BEFORE_ERROR ? sweep_fig_name[c] : c == F_BEFORE_ERROR ? "error"
                                                                        : sweep_fig_name[c - 1];
}

/* A line of the file as text fields in column order; -1 if it is not one
 * of this sweep's rows. JSON numbers come back in the text they were
 * written in (sweep_num of the same double). */
static int parse_line(const struct sweep *sw, int json, char *line, char **fld, char *buf,
                      size_t cap)
{
    int nc = n_columns(sw);
    if (!json)
        return csv_split(line, fld, nc) == nc ? 0 : -1;
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    if (!o || !json_is_object(o)) {
        json_decref(o);
        return -1;
    }
    size_t used = 0;
    for (int c = 0; c < nc; c++) {
        json_t *v = json_object_get(o, column_name(sw, c));
        char num[32];
        const char *t = !v || json_is_null(v) ? ""
                        : json_is_string(v)   ? json_string_value(v)
                        : json_is_number(v)   ? sweep_num(num, json_number_value(v))
                                              : NULL;
        size_t l = t ? strlen(t) + 1 : 0;
        if (!v || !t || used + l > cap) {
            json_decref(o);
            return -1;
        }
        memcpy(buf + used, t, l);
        fld[c] = buf + used;
        used += l;
    }
    json_decref(o);
    return 0;
}

/* Fill a run's result from its row's fields. */
static void res_from_fields(const struct sweep *sw, char **fld, struct sweep_res *r)
{
    char **m = fld + 1 + sw->n_keys;
    r->has_seed = m[0][0] != '\0';
    r->seed = strtoull(m[0], NULL, 10);
    r->status = !strcmp(m[2], "ok") ? SWEEP_OK : !strcmp(m[2], "violated") ? SWEEP_VIOLATED
                                                                           : SWEEP_FAILED;
    copy_text(r->engine, sizeof r->engine, m[3]);
    copy_text(r->bottleneck, sizeof r->bottleneck, m[4]);
    char **f = m + 5;
    for (int i = 0; i < F_COUNT; i++) {
        const char *t = f[i < F_BEFORE_ERROR ? i : i + 1];
        r->fig[i] = *t ? strtod(t, NULL) : NAN;
    }
    copy_text(r->error, sizeof r->error, f[F_BEFORE_ERROR]);
    r->done = 1;
}

/* The file's header (meta) against this sweep's: 0 when every field but
 * the scenario's path is the same, else -1 after saying which differs. */
static int meta_matches(const char *path, const json_t *want, const char *line, int json)
{
    json_error_t je;
    json_t *got = NULL;
    if (json || !strncmp(line, "# ", 2))
        got = json_loads(json ? line : line + 2, 0, &je);
    if (!json_is_object(got) || !json_object_get(got, "version")) {
        json_decref(got);
        fprintf(stderr, "ckptnet: sweep: --resume: '%s' is not this sweep's output (its first "
                        "line is not a ckptnet sweep header)\n", path);
        return -1;
    }
    const char *k;
    json_t *v;
    int rc = 0;
    json_object_foreach((json_t *)want, k, v) {
        json_t *g = json_object_get(got, k);
        if (!strcmp(k, "scenario") || (g && json_equal(g, v)))
            continue;
        char *gs = g ? json_dumps(g, JSON_ENCODE_ANY) : NULL, *ws = json_dumps(v, JSON_ENCODE_ANY);
        char e1[256], e2[256];
        fprintf(stderr, "ckptnet: sweep: --resume: '%s' is not this sweep's output: its %s is "
                        "%s, this sweep's %s (run without --resume to start anew)\n",
                path, k, err_escape(e1, sizeof e1, gs ? gs : "absent"),
                err_escape(e2, sizeof e2, ws ? ws : "?"));
        free(gs);
        free(ws);
        rc = -1;
        break;
    }
    json_decref(got);
    return rc;
}

/* A run that a worker's death cut short: --resume runs it again. */
static int worker_died(const struct sweep_res *r)
{
    return r->status == SWEEP_FAILED && !strncmp(r->error, "worker process died", 19);
}

/* --resume: read what path holds, keep its whole points (checking the
 * header and that each row is the point this sweep expects there) and put
 * their runs in res. *keep = the bytes of the file to keep (0: none, not
 * even the header), *next = the first point to write: the first not whole
 * in the file, or an earlier one holding a run whose worker died (that run
 * goes again; the whole points after it are written again from res).
 * Returns 0, or -1 after printing why. A missing file keeps nothing. */
static int resume_read(const struct sweep *sw, const char *path, int json, const json_t *meta,
                       const char *columns, struct sweep_res *res, long *keep, int *next)
{
    *keep = 0;
    *next = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        fprintf(stderr, "ckptnet: sweep: --resume: cannot read '%s': %s\n", path,
                strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, bufcap = 1 << 16;
    char *line = malloc(cap), *buf = malloc(bufcap);
    char **fld = malloc((size_t)(n_columns(sw) + 1) * sizeof *fld);
    int rc = -1, rows = 0, rpp = rows_per_point(sw), lineno = 0, hdr_lines = json ? 1 : 2;
    int retry_p = -1;
    long whole_off = 0, retry_off = 0;
    if (!line || !buf || !fld)
        goto out;
    for (;;) {
        size_t len = 0;
        int c = 0;
        while ((c = getc(f)) != EOF && c != '\n') {
            if (len + 2 > cap) {
                char *nl = realloc(line, cap * 2);
                if (!nl)
                    goto out;
                line = nl;
                cap *= 2;
            }
            line[len++] = (char)c;
        }
        line[len] = '\0';
        if (c == EOF) /* a torn last line (or none) is dropped */
            break;
        lineno++;
        if (lineno == 1) {
            if (meta_matches(path, meta, line, json) < 0)
                goto out;
            if (hdr_lines == 1)
                whole_off = ftell(f);
            continue;
        }
        if (lineno == 2 && hdr_lines == 2) {
            if (strcmp(line, columns)) {
                fprintf(stderr, "ckptnet: sweep: --resume: '%s' is not this sweep's output "
                                "(its column names differ)\n",
                        path);
                goto out;
            }
            whole_off = ftell(f);
            continue;
        }
        int p = sw->n_points ? rows / rpp : 0, s = rows % rpp;
        static const char *const kind[4] = {"run", "mean", "min", "max"};
        const char *want = s < sw->seeds ? kind[0] : kind[1 + s - sw->seeds];
        char pt[32];
        snprintf(pt, sizeof pt, "%d", p);
        int ok = p < sw->n_points && parse_line(sw, json, line, fld, buf, bufcap) == 0 &&
                 !strcmp(fld[0], pt) && !strcmp(fld[1 + sw->n_keys + 1], want);
        for (int k = 0; ok && k < sw->n_keys; k++)
            ok = !strcmp(fld[1 + k], sw->vals[p * sw->n_keys + k]);
        if (!ok) {
            fprintf(stderr, "ckptnet: sweep: --resume: %s:%d: expected the %s row of point %d "
                            "of this sweep (same scenario, --vary or --points, --seeds)\n",
                    path, lineno, want, p);
            goto out;
        }
        if (s < sw->seeds) {
            struct sweep_res *r = &res[p * sw->seeds + s];
            res_from_fields(sw, fld, r);
            if (worker_died(r)) {
                r->done = 0;
                if (retry_p < 0) {
                    retry_p = p;
                    retry_off = whole_off; /* where point p's rows begin */
                }
            }
        }
        if (++rows % rpp == 0)
            whole_off = ftell(f);
    }
    int kept = rows / rpp;
    /* runs of a cut-off point run again */
    for (int r = kept * sw->seeds; r < sw->n_runs && r < (kept + 1) * sw->seeds; r++)
        res[r].done = 0;
    *keep = retry_p >= 0 ? retry_off : whole_off;
    *next = retry_p >= 0 ? retry_p : kept;
    rc = 0;
out:
    fclose(f);
    free(line);
    free(buf);
    free(fld);
    return rc;
}

/* ---- progress ------------------------------------------------------------- */

struct prog {
    int on, shown;
    double t0, last;
};

static void progress(struct prog *pg, int done, int total, int bad)
{
    double t = now_s();
    if (!pg->on || (t - pg->last < 0.25 && done < total))
        return;
    pg->last = t;
    pg->shown = 1;
    double w = t - pg->t0;
    fprintf(stderr, "\r  sweep: %d of %d runs, %d not ok; %.1f s, %.2f runs/s", done, total, bad,
            w, w > 0 ? done / w : 0.0);
    if (done > 0 && done < total)
        fprintf(stderr, "; ETA %.0f s", w * (total - done) / done);
    fputs("   ", stderr);
    fflush(stderr);
}

/* ---- workers ---------------------------------------------------------------- */

struct pool {
    int n;
    pid_t pid[MAX_JOBS];
    int to[MAX_JOBS], from[MAX_JOBS];
    int32_t busy[MAX_JOBS]; /* run in flight, -1 = idle, -2 = gone */
};

/* A worker: read a run index, run it, write its result; until end of file
 * or a negative index. Never returns. */
static void worker_loop(const struct sweep *sw, int in, int out)
{
    int32_t run;
    struct sweep_res r;
    while (read_all(in, &run, sizeof run) == (ssize_t)sizeof run && run >= 0) {
        do_run(sw, run, &r);
        if (write_all(out, &r, sizeof r) < 0)
            break;
    }
    _exit(0);
}

/* A worker's own session. Linux's autogroup scheduling (on by default in
 * most distributions) gives each session one share of the CPUs, however
 * many processes it runs: N workers in the coordinator's session shared one
 * session's CPU time on a busy machine, so -j 2 ran no faster than -j 1
 * (BENCHMARKS.md). A new session is a new autogroup, as each of the other
 * sessions on the machine is. Out of the terminal's process group, a worker
 * no longer sees Ctrl-C: on Linux it dies with its coordinator instead; the
 * coordinator's nice value carries over to the new group. */
static void own_session(pid_t parent)
{
    errno = 0;
    int nice_val = getpriority(PRIO_PROCESS, 0);
    int niced = errno == 0 && nice_val > 0;
    if (setsid() < 0)
        return;
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the coordinator died before prctl */
        _exit(0);
    if (niced) {
        FILE *f = fopen("/proc/self/autogroup", "w");
        if (f) {
            fprintf(f, "%d", nice_val);
            fclose(f);
        }
    }
#else
    (void)parent, (void)niced;
#endif
}

static int spawn(struct pool *pl, int i, const struct sweep *sw, int outfd)
{
    int a[2], b[2];
    pid_t parent = getpid();
    if (pipe(a) < 0)
        return -1;
    if (pipe(b) < 0) {
        close(a[0]);
        close(a[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(a[0]), close(a[1]), close(b[0]), close(b[1]);
        return -1;
    }
    if (pid == 0) {
        /* only its own pipe ends: a dead coordinator must read as end of file */
        for (int j = 0; j < pl->n; j++)
            if (j != i && pl->busy[j] != -2) {
                close(pl->to[j]);
                close(pl->from[j]);
            }
        if (outfd > 2)
            close(outfd);
        close(a[1]);
        close(b[0]);
        signal(SIGPIPE, SIG_DFL);
        own_session(parent);
        worker_loop(sw, a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    pl->pid[i] = pid;
    pl->to[i] = a[1];
    pl->from[i] = b[0];
    pl->busy[i] = -1;
    return 0;
}

static void retire(struct pool *pl, int i)
{
    if (pl->busy[i] == -2)
        return;
    close(pl->to[i]);
    close(pl->from[i]);
    waitpid(pl->pid[i], NULL, 0);
    pl->busy[i] = -2;
}

/* ---- the coordinator ---------------------------------------------------------- */

struct coord {
    const struct sweep *sw;
    struct sweep_res *res;
    struct outfile *of;
    int next_run;      /* next run to hand out */
    int next_point;    /* next point to write */
    int received, todo, bad;
    int write_failed;
    struct sweep_par *par; /* MPI ranks beside the local workers; NULL = none */
    struct prog pg;
};

/* Write every finished point that all its predecessors have been written. */
static void flush_points(struct coord *c)
{
    const struct sweep *sw = c->sw;
    if (c->of->fd < 0) /* sweep_run_all: results only */
        return;
    while (c->next_point < sw->n_points && !c->write_failed) {
        const struct sweep_res *r0 = &c->res[c->next_point * sw->seeds];
        for (int s = 0; s < sw->seeds; s++)
            if (!r0[s].done)
                return;
        char *mem = NULL;
        size_t len = 0;
        struct out o = {c->of->json, open_memstream(&mem, &len), 1};
        if (!o.f) {
            c->write_failed = 1;
            return;
        }
        put_point(&o, sw, c->next_point, c->res);
        fclose(o.f);
        /* one write per point: an interrupted sweep leaves whole points */
        if (write_all(c->of->fd, mem, len) < 0)
            c->write_failed = 1;
        free(mem);
        c->next_point++;
    }
}

static void record(struct coord *c, const struct sweep_res *r)
{
    if (r->run < 0 || r->run >= c->sw->n_runs || c->res[r->run].done)
        return;
    struct sweep_res *d = &c->res[r->run];
    *d = *r;
    for (int i = 0; i < F_COUNT; i++)
        d->fig[i] = canon(d->fig[i]);
    d->done = 1;
    c->received++;
    c->bad += d->status != SWEEP_OK;
    flush_points(c);
    progress(&c->pg, c->received, c->todo, c->bad);
}

/* The next run not yet done, or -1 (also once the output failed: more runs
 * could not be written anyway). */
static int32_t next_run(struct coord *c)
{
    if (c->write_failed)
        return -1;
    while (c->next_run < c->sw->n_runs && c->res[c->next_run].done)
        c->next_run++;
    return c->next_run < c->sw->n_runs ? c->next_run++ : -1;
}

static void hand_out(struct coord *c, struct pool *pl, int i, const struct sweep *sw, int outfd)
{
    int32_t run = next_run(c);
    if (run < 0) {
        retire(pl, i);
        return;
    }
    if (write_all(pl->to[i], &run, sizeof run) == 0) {
        pl->busy[i] = run;
        return;
    }
    /* the worker is gone: give the run to a new one */
    c->next_run = run;
    retire(pl, i);
    if (spawn(pl, i, sw, outfd) == 0)
        hand_out(c, pl, i, sw, outfd);
}

/* For the MPI ranks' loop (sweep_mpi.c). */
int32_t sweep_next_run(struct coord *c)
{
    return next_run(c);
}

void sweep_record(struct coord *c, const struct sweep_res *r)
{
    record(c, r);
}

/* Run every run not done over the local workers and (MPI) ranks 1..ranks-1.
 * Returns 0, or -1 when no worker could be started. */
static int coordinate(struct coord *c, int jobs)
{
    const struct sweep *sw = c->sw;
    struct pool pl = {0};
    int outfd = c->of->fd;
    pl.n = jobs;
    for (int i = 0; i < jobs; i++)
        pl.busy[i] = -2;
    for (int i = 0; i < jobs; i++) {
        if (spawn(&pl, i, sw, outfd) < 0) {
            fprintf(stderr, "ckptnet: sweep: cannot start a worker: %s\n", strerror(errno));
            for (int j = 0; j < i; j++)
                retire(&pl, j);
            return -1;
        }
    }
    for (int i = 0; i < jobs; i++)
        hand_out(c, &pl, i, sw, outfd);
    int ranks = c->par && c->par->live > 0;
    while (c->received < c->todo) {
        struct pollfd fds[MAX_JOBS];
        int who[MAX_JOBS], n = 0;
        for (int i = 0; i < pl.n; i++)
            if (pl.busy[i] >= 0) {
                fds[n].fd = pl.from[i];
                fds[n].events = POLLIN;
                who[n++] = i;
            }
        /* no worker left (none could be started again), or the output
         * failed and no rank is still running */
        if (n == 0 && (!ranks || (c->write_failed && c->par->busy == 0)))
            break;
        int ready = poll(fds, (nfds_t)n, ranks ? 1 : -1);
        if (ready < 0 && errno != EINTR)
            return -1;
        for (int k = 0; ready > 0 && k < n; k++) {
            if (!fds[k].revents)
                continue;
            int i = who[k];
            struct sweep_res r;
            if (read_all(pl.from[i], &r, sizeof r) == (ssize_t)sizeof r) {
                record(c, &r);
                pl.busy[i] = -1;
                hand_out(c, &pl, i, sw, outfd);
                continue;
            }
            /* the worker died in that run: record it, carry on with a new one */
            int32_t run = pl.busy[i], st = 0;
            close(pl.to[i]);
            close(pl.from[i]);
            waitpid(pl.pid[i], &st, 0);
            pl.busy[i] = -2;
            memset(&r, 0, sizeof r);
            r.run = run;
            r.status = SWEEP_FAILED;
            for (int f = 0; f < F_COUNT; f++)
                r.fig[f] = NAN;
            /* its seed, as the run would have had it: --resume runs it again */
            struct scenario sc;
            struct err e = {{0}};
            if (run >= 0 && build_point_raw(sw, run / sw->seeds, &sc, &e) == 0) {
                r.seed = sc.seed + (uint64_t)(sw->seed0 + run % sw->seeds);
                r.has_seed = 1;
            }
            if (WIFSIGNALED(st))
                snprintf(r.error, sizeof r.error, "worker process died (signal %d)",
                         WTERMSIG(st));
            else
                snprintf(r.error, sizeof r.error, "worker process died (exit %d)",
                         WEXITSTATUS(st));
            record(c, &r);
            if (spawn(&pl, i, sw, outfd) == 0)
                hand_out(c, &pl, i, sw, outfd);
        }
        if (ranks)
            sweep_serve_ranks(c, sw, c->par);
    }
    for (int i = 0; i < pl.n; i++)
        retire(&pl, i);
    if (c->received < c->todo && !c->write_failed) {
        fprintf(stderr, "ckptnet: sweep: no worker process left: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

int sweep_run_all(const struct sweep *sw, struct sweep_res *res, int jobs, int quiet,
                  struct sweep_par *par)
{
    struct outfile of = {NULL, -1, 0};
    struct coord c = {.sw = sw, .res = res, .of = &of, .par = par};
    for (int r = 0; r < sw->n_runs; r++)
        c.todo += !res[r].done;
    c.pg.on = !quiet && isatty(STDERR_FILENO);
    c.pg.t0 = now_s();
    if (jobs < 1 && (!par || par->live == 0))
        jobs = 1;
    int rc = coordinate(&c, jobs < 0 ? 0 : jobs);
    if (c.pg.shown)
        fputs("\r\033[K", stderr);
    return rc;
}

/* ---- the command -------------------------------------------------------------- */

/* The output can be written (outfile.h's checks: its directory, a dangling
 * symbolic link, a directory in its place; then the row's). 0 or 2 said. */
static int check_out(const struct cli_output *row, const char *path)
{
    struct err e = {{0}};
    if ((row->flags & OUT_DIR ? ofile_check_dir(path, &e) : ofile_check(path, &e)) < 0 ||
        (row->check && row->check(path, &e) < 0)) {
        fprintf(stderr, "ckptnet: sweep: %s: %s\n", row->opt, e.msg);
        return 2;
    }
    return 0;
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* Set up sw from the options, build point 0's base (the file and --set
 * apply to every run: their errors stop the sweep). Returns 0 or 2. */
static int setup(struct sweep *sw, const struct sopts *o, int argc, char **argv)
{
    memset(sw, 0, sizeof *sw);
    sw->file = o->file;
    sw->argc = argc;
    sw->argv = argv;
    sw->seeds = o->seeds;
    if (!o->n_vary && !o->points) {
        fprintf(stderr, "ckptnet: sweep: give --vary key=v1,v2,... or --points FILE\n");
        return 2;
    }
    if (o->n_vary && o->points) {
        fprintf(stderr, "ckptnet: sweep: --vary and --points do not mix: list every key in the "
                        "points file\n");
        return 2;
    }
    if ((o->points ? points_from_file(sw, o->points) : points_from_vary(sw, o)) < 0 ||
        set_runs(sw) < 0)
        return 2;
    struct scenario sc;
    struct err e = {{0}};
    if (build_point(sw, -1, &sc, &e) < 0) {
        fprintf(stderr, "ckptnet: sweep: %s\n", e.msg);
        return 2;
    }
    sw->base_engine = sc.engine;
    sw->base_seed = sc.seed;
    if (o->resume && (!o->out || !strcmp(o->out, "-"))) {
        fprintf(stderr, "ckptnet: sweep: --resume needs --out FILE\n");
        return 2;
    }
    for (int k = 0; k < cli_n_outputs; k++)
        if (o->outs[k] && check_out(&cli_outputs[k], o->outs[k]))
            return 2;
    return 0;
}

/* --out FILE is written as FILE.partial, a row block per point as points
 * finish, and renamed to FILE once every point is in it: FILE is always a
 * whole sweep (an earlier one's, or this one's), and a killed or failed
 * sweep leaves FILE.partial for --resume. The sweep holds an exclusive lock
 * (flock) on FILE.partial while it writes: a second sweep on the same
 * --out is refused rather than interleave its rows. Returns the open
 * descriptor, or -1 after printing why. */
static int open_partial(const char *shown, const char *part)
{
    for (int tries = 0; tries < 8; tries++) {
        int fd = open(part, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            fprintf(stderr, "ckptnet: sweep: --out: cannot write '%s': %s\n", part,
                    strerror(errno));
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            int en = errno;
            close(fd);
            if (en == EWOULDBLOCK)
                fprintf(stderr, "ckptnet: sweep: --out: another sweep is writing '%s' (%s is "
                                "locked)\n", shown, part);
            else
                fprintf(stderr, "ckptnet: sweep: --out: cannot lock '%s': %s\n", part,
                        strerror(en));
            return -1;
        }
        /* the lock's holder may have renamed it away meanwhile: lock the
         * file that has the name now */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(part, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino)
            return fd;
        close(fd);
    }
    fprintf(stderr, "ckptnet: sweep: --out: '%s' keeps changing under this sweep\n", part);
    return -1;
}

/* The first n bytes of path into fd (--resume from a finished FILE). */
static int copy_head(const char *path, int fd, long n)
{
    int in = open(path, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    char b[1 << 16];
    int rc = 0;
    while (n > 0 && rc == 0) {
        ssize_t k = read_all(in, b, n < (long)sizeof b ? (size_t)n : sizeof b);
        if (k <= 0 || write_all(fd, b, (size_t)k) < 0)
            rc = -1;
        n -= k > 0 ? k : 0;
    }
    close(in);
    return rc;
}

/* Rank 0 or the only process: open the output, resume, coordinate, report. */
static int lead(struct sweep *sw, const struct sopts *o, int jobs, struct sweep_par *par)
{
    struct outfile of = {o->out && strcmp(o->out, "-") ? o->out : NULL, STDOUT_FILENO, 0};
    of.json = of.path && (ends_with(of.path, ".json") || ends_with(of.path, ".jsonl"));
    char dest[4096] = "", part[4200] = "";
    struct sweep_res *res = calloc((size_t)sw->n_runs, sizeof *res);
    json_t *meta = sweep_meta(sw);
    if (!res || !meta) {
        fprintf(stderr, "ckptnet: sweep: out of memory\n");
        free(res);
        json_decref(meta);
        return 2;
    }
    if (of.path) {
        struct err e = {{0}};
        if (ofile_dest(of.path, dest, sizeof dest, &e) < 0) {
            fprintf(stderr, "ckptnet: sweep: --out: %s\n", e.msg);
            free(res);
            json_decref(meta);
            return 2;
        }
        struct stat st;
        if (stat(dest, &st) == 0 && !S_ISREG(st.st_mode)) {
            /* a terminal, a pipe, /dev/null: written in place as stdout is */
            of.fd = open(dest, O_WRONLY | O_CLOEXEC);
            if (of.fd < 0)
                fprintf(stderr, "ckptnet: sweep: --out: cannot write '%s': %s\n", of.path,
                        strerror(errno));
        } else {
            snprintf(part, sizeof part, "%s.partial", dest);
            of.fd = open_partial(of.path, part);
        }
        if (of.fd < 0) {
            free(res);
            json_decref(meta);
            return 2;
        }
    }
    char *hdr = NULL;
    size_t hlen = 0;
    struct out ho = {of.json, open_memstream(&hdr, &hlen), 1};
    int status = 0, next = 0;
    long keep = 0;
    if (!ho.f) {
        status = 2;
        goto done;
    }
    put_header(&ho, sw, meta);
    fclose(ho.f);
    if (o->resume) {
        /* the rows of an unfinished sweep (FILE.partial), else a finished one */
        struct stat st;
        int from_part = fstat(of.fd, &st) == 0 && st.st_size > 0;
        const char *src = from_part ? part : dest;
        char *cols = of.json ? NULL : strchr(hdr, '\n') + 1; /* the column names */
        if (cols)
            cols[strlen(cols) - 1] = '\0';
        int rc = resume_read(sw, src, of.json, meta, cols ? cols : "", res, &keep, &next);
        if (cols)
            cols[strlen(cols)] = '\n';
        if (rc < 0) {
            status = 2;
            goto done;
        }
        int cut = from_part ? ftruncate(of.fd, keep)
                            : ftruncate(of.fd, 0) < 0 ? -1 : copy_head(dest, of.fd, keep);
        if (cut < 0 || lseek(of.fd, 0, SEEK_END) < 0) {
            fprintf(stderr, "ckptnet: sweep: --resume: cannot write '%s': %s\n", part,
                    strerror(errno));
            status = 2;
            goto done;
        }
    } else if (part[0] && ftruncate(of.fd, 0) < 0) {
        fprintf(stderr, "ckptnet: sweep: --out: cannot write '%s': %s\n", part, strerror(errno));
        status = 2;
        goto done;
    }
    if (keep == 0 && write_all(of.fd, hdr, hlen) < 0) {
        fprintf(stderr, "ckptnet: sweep: cannot write '%s': %s\n", of.path ? part : "stdout",
                strerror(errno));
        status = 2;
        goto done;
    }
    struct coord c = {.sw = sw, .res = res, .of = &of, .next_point = next, .par = par};
    for (int r = 0; r < sw->n_runs; r++) {
        c.todo += !res[r].done;
        c.bad += res[r].done && res[r].status != SWEEP_OK;
    }
    c.pg.on = !o->quiet && isatty(STDERR_FILENO);
    c.pg.t0 = now_s();
    if (jobs == 0 && par->live == 0)
        jobs = 1;
    if (coordinate(&c, jobs) < 0)
        status = 2;
    if (c.pg.shown)
        fputs("\r\033[K", stderr);
    if (c.write_failed) {
        fprintf(stderr, "ckptnet: sweep: cannot write '%s': %s\n", of.path ? part : "stdout",
                strerror(errno));
        status = 2;
    }
    if (status == 0 && c.bad) {
        fprintf(stderr, "ckptnet: sweep: %d of %d runs not ok (their rows say why)\n", c.bad,
                sw->n_runs);
        status = 1;
    }
    /* every point written: the file takes its name (the lock still held) */
    if (part[0] && status != 2 && rename(part, dest) < 0) {
        fprintf(stderr, "ckptnet: sweep: --out: cannot write '%s': %s\n", of.path,
                strerror(errno));
        status = 2;
    }
    if (part[0] && status == 2 && c.next_point > 0)
        fprintf(stderr, "ckptnet: sweep: the rows of the %d points written are in '%s' "
                        "(--resume goes on from them)\n", c.next_point, part);
    /* the outputs of the whole sweep (--out's rows are written above) */
    struct out_ctx ctx = {.sw = sw, .res = res};
    int rows_written = status != 2;
    for (int k = 0; k < cli_n_outputs && rows_written; k++) {
        const struct cli_output *row = &cli_outputs[k];
        struct err e = {{0}};
        if (o->outs[k] && (row->to_file || row->to_path) &&
            cli_output_write(row, o->outs[k], &ctx, &e) < 0) {
            fprintf(stderr, "ckptnet: sweep: %s\n", e.msg);
            status = 2;
        }
    }
done:
    free(hdr);
    json_decref(meta);
    if (of.path && close(of.fd) < 0 && status == 0) {
        fprintf(stderr, "ckptnet: sweep: cannot write '%s': %s\n", of.path, strerror(errno));
        status = 2;
    }
    free(res);
    return status;
}

int cmd_sweep(int argc, char **argv)
{
    struct sopts o;
    int rc = parse_sweep_opts(argc, argv, &o);
    if (rc)
        return rc;
    if (o.help) {
        fputs(usage_sweep, stdout);
        cli_outputs_help(stdout, "sweep");
        fputs(usage_sweep_tail, stdout);
        return 0;
    }
    struct sweep_par par;
    if ((rc = sweep_par_init(&par, "sweep")) != 0)
        return rc;
    struct sweep sw;
    /* every rank parses the same arguments: only rank 0 speaks */
    int saved = -1;
    if (par.rank != 0) {
        fflush(stderr);
        saved = dup(STDERR_FILENO);
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) {
            dup2(nul, STDERR_FILENO);
            close(nul);
        }
    }
    rc = setup(&sw, &o, argc, argv);
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    int jobs = o.jobs;
    if (jobs < 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = par.ranks > 1 ? 1 : n > 0 ? (int)(n < MAX_JOBS ? n : MAX_JOBS) : 1;
    }
    signal(SIGPIPE, SIG_IGN);
    /* a rank that could not set up stops them all */
    rc = sweep_par_agree(&par, rc);
    if (par.rank == 0 && rc == 0)
        rc = lead(&sw, &o, jobs, &par);
    else if (par.rank != 0 && rc == 0)
        sweep_serve(&par, sw.file, argc, argv);
    rc = sweep_par_end(&par, rc);
    sweep_release(&sw);
    return rc;
}
