/* ckptnet size: every fabric the designer (src/topo/design.h) builds for the
 * scenario's cluster, priced (src/cost/design_cost.h) and screened by the
 * fluid engine; the front of cost per day against checkpoint loss per day,
 * the targets as constraints, and the recommended scenario (docs/size.md). */
#include "size.h"
#include "sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#if defined(__GLIBC__)
#include <malloc.h> /* mallopt */
#endif
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/core/outfile.h"
#include "../src/core/rng.h"
#include "../src/core/units.h"
#include "../src/cost/design_cost.h"
#include "../src/topo/design.h"
#include "../src/report/report.h"
#include "../src/topo/path.h"

static const char usage_size[] =
    "usage: ckptnet size [SCENARIO.yaml] [--target METRIC<=V]... [--fix key=value]...\n"
    "                    [--knob switches=A,B,...] [--knob tiers=2,3]\n"
    "                    [--knob storage.nodes=N1,N2,...] [--knob KEY=V1,V2,...]\n"
    "                    [--set key=value]... [-j N]\n"
    "                    [--json FILE] [--csv FILE] [--yaml FILE] [--html FILE] [--list]\n"
    "                    [--max-runs N] [--no-prune] [--quiet]\n"
    "\n"
    "What fabric should we buy? Every valid two- and three-tier Clos of the scenario's\n"
    "cluster on the given switch profiles (docs/size.md, The designs), each priced at\n"
    "cost.prices (the shipped reference list when none) with its power, screened by\n"
    "the fluid engine; prints the front of cost per day (capital amortised over\n"
    "cost.amortisation_years, plus power) against the checkpoint's loss per day, and\n"
    "the cheapest point of least total cost that meets every target as a scenario.\n"
    "\n"
    "  --target T       a constraint: checkpoint_overhead<=1% (stall and work redone\n"
    "                   after failures at the optimal interval, restart excluded),\n"
    "                   save<=60s (the write's end), stall<=30s (the GPUs' wait),\n"
    "                   goodput>=0.95 (at the optimal interval, restart included),\n"
    "                   restore<=5min (the read after a failure, restart excluded),\n"
    "                   training_slowdown<=2% (steps during the checkpoint over the\n"
    "                   baseline; needs training.traffic), endurance<=100% (drive\n"
    "                   writes per day over storage.drive_dwpd: no point that wears\n"
    "                   its drives out early; their wear is in the cost either way)\n"
    "  --fix k=v        set k on every candidate; a design key (fabric.tiers,\n"
    "                   fabric.leaf_switch, fabric.hosts_per_leaf, ...) keeps only the\n"
    "                   designs with that value\n"
    "  --knob K=V,...   widen the search: switches (profiles, default the scenario's),\n"
    "                   tiers (2,3), storage.nodes (counts to try), spine_oversub\n"
    "                   (three tiers: r of the spines' r:1, default 1,2), breakout\n"
    "                   (lanes a switch port: 1,2,4; default 1), storage_pods\n"
    "                   (three tiers: storage leaves in pods of their own, pod, or\n"
    "                   in the compute pods, spread; default pod), or any other\n"
    "                   scenario key, e.g. checkpoint.policy=sync,async,hierarchical,\n"
    "                   storage.nics_per_node=1,2, storage.profile=A,B (every\n"
    "                   combination is tried with every design)\n"
    "  --set k=v        as for run; applied before --fix\n"
    "  -j N             screen N candidates at once (threads; default 1)\n"
    "  --json/--csv F   every candidate with its figures and bill of materials\n"
    "  --yaml F         the recommended scenario (ckptnet run F reproduces its figures)\n"
    "  --html F         a page with the front plotted over every screened point\n"
    "                   (gnuplot) and each front point's bill of materials\n"
    "  --list           the designs and their bills, priced, without running any\n"
    "  --max-runs N     screen at most N candidates, the cheapest first (default 20000)\n"
    "  --packet-finalists K  run the packet engine on the first K front points whose\n"
    "                   fluid run left effects out (PFC, load-balancing penalties)\n"
    "  --seeds N        seeds for that check (the scenario's seed and the next; default 1)\n"
    "  --no-prune       run every leaf shape, even those the bound rules out\n"
    "  --prune-tiers    also skip three-tier shapes with more switches than a feasible\n"
    "                   two-tier point of the same profiles (a heuristic: the third\n"
    "                   tier is non-blocking, but the front may lose its points)\n"
    "  --quiet, -q      no progress line on stderr\n"
    "\n"
    "Designs that share a leaf shape (profiles, tiers, hosts, uplinks and storage a\n"
    "leaf) differ only in non-blocking spine layers: the cheapest of them is run and\n"
    "the others are listed as not run. Before its run, each is bounded (its fabric's\n"
    "analytic bound): one whose bounds miss a target, or that can lose no less than\n"
    "a cheaper feasible point, is pruned without a run; the front is unchanged.\n";

#define MAX_TARGETS 8
#define MAX_SETS 64
#define MAX_STORAGE 16

enum metric { M_OVERHEAD, M_SAVE, M_STALL, M_GOODPUT, M_RESTORE, M_SLOWDOWN, M_ENDURANCE, M_N };
static const char *const metric_name[M_N] = {"checkpoint_overhead", "save", "stall", "goodput",
                                             "restore", "training_slowdown", "endurance"};

struct target {
    enum metric m;
    int le; /* 1: <=, 0: >= */
    double v;
    char text[64];
};

struct cand {
    struct design d;
    uint32_t storage;
    struct design_price price;
    uint32_t leader; /* the candidate run for its leaf shape (itself when run) */
    int run, ok, feasible, front;
    char err[200];
    double save_s, stall_s, overhead, goodput, loss_day, total_day;
    double restore_s;   /* the read after a failure (simulated or its bound); NAN unknown */
    double slowdown;    /* training steps during the checkpoint over the baseline, - 1 */
    double lag_s;       /* durability lag (async, hierarchical) */
    double wear_day;    /* drive wear beyond its amortisation, a cost per day */
    double endurance;   /* drive writes per day over storage.drive_dwpd; NAN unknown */
    uint32_t variant;   /* the --knob KEY=... combination (size_ctx.var) */
    uint32_t unmodelled; /* effects the fluid run lists as not modelled (PFC, ...) */
    /* the packet engine's check (--packet-finalists): means over --seeds */
    uint32_t pkt_runs;
    int pkt_feasible;
    double pkt_save_s, pkt_stall_s, pkt_overhead, pkt_loss_day;
    char pkt_err[120];
    int bottleneck; /* enum path_seg, -1 none */
    /* the pruning (docs/size.md, The search): lower bounds from the fabric's
     * analytic bound, and why the candidate was not run (enum prune) */
    int bounded, pruned;
    double lb_save_s, lb_stall_s, lb_overhead, lb_loss_day;
    double lb_cheap_overhead; /* from a shared storage side alone (NAN: none) */
};

/* What a lower bound needs of a description: the first byte's start, the
 * bound (or a term of it), the policy's stall, the GPUs. */
struct lbin {
    double first_s, end_term_s, stall_s;
    int measured;
    uint32_t gpus;
};

enum prune { PRUNE_NO, PRUNE_TARGET, PRUNE_DOMINATED, PRUNE_TIERS };
static const char *const prune_name[] = {"", "target", "dominated", "tiers"};

/* --knob KEY=V1,V2 of any other scenario key: every combination of the
 * values is a variant, crossed with every design. */
#define MAX_KNOBS 4
#define MAX_VALUES 8
#define MAX_VARIANTS 64
struct knob {
    char key[64];
    char val[MAX_VALUES][64];
    uint32_t n;
};

struct size_ctx {
    struct scenario *base;
    struct knob knob[MAX_KNOBS];
    uint32_t n_knob, n_var, var; /* var: the variant being collected */
    const char *fixes[MAX_SETS];
    int n_fix;
    struct design_input in;
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np;
    struct storage_bill sbill; /* a storage node of the variant being collected */
    struct cand *c;
    size_t n, cap;
    uint32_t storage;
    int dropped; /* candidates past the array's room */
    /* the run queue, cheapest first */
    size_t *queue, n_queue, next;
    pthread_mutex_t mu;
    /* pruning: the targets, and over queue positions a prefix minimum
     * (Fenwick tree, 1-based) of the loss of the feasible points run */
    int prune, prune_tiers, quiet;
    const struct target *t;
    int nt;
    double *fen;
    /* shared storage sides (side_slot): at most one a queued run, half full */
    struct side {
        int used;
        uint64_t key[6];
        struct lbin b;
        uint32_t two_tier_sw; /* tiers key: fewest switches of a feasible 2-tier run */
    } *side;
    size_t n_side;
    /* progress */
    size_t done, n_pruned[4], n_below;
    size_t by_ranks; /* shapes the MPI ranks other than 0 screened */
    double t0, shown;
    int progress_shown;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The least loss of a feasible point run at a queue position before pos. */
static double fen_min(const struct size_ctx *x, size_t pos)
{
    double m = INFINITY;
    for (size_t i = pos; i > 0; i -= i & (~i + 1))
        m = fmin(m, x->fen[i]);
    return m;
}

static void fen_put(struct size_ctx *x, size_t pos, double v)
{
    for (size_t i = pos + 1; i <= x->n_queue; i += i & (~i + 1))
        x->fen[i] = fmin(x->fen[i], v);
}

static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ckptnet size: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* "name<=v" or "name>=v"; v a number, a percentage or (save, stall) a time. */
static int parse_target(const char *s, struct target *t)
{
    const char *op = strstr(s, "<=");
    t->le = 1;
    if (!op) {
        op = strstr(s, ">=");
        t->le = 0;
    }
    if (!op)
        return die("--target %s: expected METRIC<=VALUE or METRIC>=VALUE", s);
    size_t len = (size_t)(op - s);
    int m = -1;
    for (int i = 0; i < M_N; i++)
        if (strlen(metric_name[i]) == len && !strncmp(s, metric_name[i], len))
            m = i;
    if (m < 0)
        return die("--target %s: unknown metric %.*s (checkpoint_overhead, save, stall, "
                   "goodput, restore, training_slowdown, endurance)", s, (int)len, s);
    t->m = (enum metric)m;
    const char *v = op + 2;
    char msg[128];
    if (m == M_SAVE || m == M_STALL || m == M_RESTORE) {
        uint64_t ps;
        if (units_parse_time(v, &ps, msg, sizeof msg) < 0)
            return die("--target %s: %s", s, msg);
        t->v = (double)ps / 1e12;
    } else {
        char *end;
        errno = 0;
        t->v = strtod(v, &end);
        if (end == v || !isfinite(t->v) || t->v < 0)
            return die("--target %s: expected a number or a percentage", s);
        if (*end == '%') {
            t->v /= 100.0;
            end++;
        }
        if (*end)
            return die("--target %s: expected a number or a percentage, got \"%s\"", s, v);
    }
    if ((m == M_GOODPUT) == t->le)
        return die("--target %s: %s is a %s target", s, metric_name[m],
                   m == M_GOODPUT ? "floor (>=)" : "ceiling (<=)");
    snprintf(t->text, sizeof t->text, "%s", s);
    return 0;
}

static const char *const bo_keys[] = {"fabric.breakout", "fabric.leaf_down_breakout",
                                      "fabric.leaf_up_breakout", "fabric.spine_breakout"};

/* A design key d leaves out: the breakouts (1 when not set) keep d only
 * at 1; any other key keeps it. */
static int fix_keeps_absent(const char *fix, size_t kl, const char *val)
{
    for (size_t i = 1; i < sizeof bo_keys / sizeof bo_keys[0]; i++)
        if (strlen(bo_keys[i]) == kl && !strncmp(fix, bo_keys[i], kl))
            return !strcmp(val, "1");
    return 1;
}

/* The design keys of d as k=v items; does fix (k=v) keep d? Designs
 * write each tier's breakout: fabric.breakout=B keeps those whose every
 * tier is at B. */
static int fix_keeps(const struct design *d, const char *fix)
{
    if (!strncmp(fix, "fabric.breakout=", 16)) {
        unsigned long b = strtoul(fix + 16, NULL, 10);
        return (d->bo_down ? d->bo_down : 1) == b && (d->bo_up ? d->bo_up : 1) == b &&
               (d->bo_spine ? d->bo_spine : 1) == b;
    }
    char keys[1024];
    design_keys(d, keys, sizeof keys, "\n");
    const char *eq = strchr(fix, '=');
    if (!eq)
        return 1;
    size_t kl = (size_t)(eq - fix);
    for (const char *p = keys; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > kl && p[kl] == '=' && !strncmp(p, fix, kl))
            return len - kl - 1 == strlen(eq + 1) && !strncmp(p + kl + 1, eq + 1, len - kl - 1);
        p += len + (nl != NULL);
    }
    return fix_keeps_absent(fix, kl, eq + 1);
}

/* Keys a design sets: reset to their defaults first, so that what the file
 * planned (pods, breakout, speeds) does not meet the design's own. */
static const char *const design_owned[] = {
    "fabric.tiers", "fabric.hosts_per_leaf", "fabric.storage_per_leaf", "fabric.spines",
    "fabric.links_per_spine", "fabric.pods", "fabric.leaves_per_pod", "fabric.spines_per_pod",
    "fabric.superspines", "fabric.links_per_superspine", "fabric.storage_pods",
    "fabric.breakout", "fabric.leaf_down_breakout", "fabric.leaf_up_breakout",
    "fabric.spine_breakout", "fabric.uplink_speed", "fabric.spine_uplink_speed",
    "fabric.leaf_switch", "fabric.spine_switch", "fabric.superspine_switch"};
static const size_t n_design_owned = sizeof design_owned / sizeof design_owned[0];

/* --knob KEY=V1,V2,... of a scenario key the designer does not own. */
static int parse_knob(struct size_ctx *x, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return die("--knob %s: expected KEY=V1,V2,... (switches, tiers, storage.nodes or a "
                   "scenario key such as checkpoint.policy=sync,async)", v);
    if (x->n_knob == MAX_KNOBS)
        return die("--knob %s: at most %d knobs besides switches, tiers and storage.nodes", v,
                   MAX_KNOBS);
    struct knob *kb = &x->knob[x->n_knob];
    memset(kb, 0, sizeof *kb);
    if ((size_t)(eq - v) >= sizeof kb->key)
        return die("--knob %s: key too long", v);
    snprintf(kb->key, sizeof kb->key, "%.*s", (int)(eq - v), v);
    for (size_t i = 0; i < n_design_owned; i++)
        if (!strcmp(kb->key, design_owned[i]))
            return die("--knob %s: %s is the designer's (use --knob switches/tiers or --fix)", v,
                       kb->key);
    for (const char *p = eq + 1; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (!len || len >= sizeof kb->val[0] || kb->n == MAX_VALUES)
            return die("--knob %s: expected up to %d non-empty values of up to %zu characters", v,
                       MAX_VALUES, sizeof kb->val[0] - 1);
        snprintf(kb->val[kb->n++], sizeof kb->val[0], "%.*s", (int)len, p);
        p += len + (c != NULL);
    }
    for (uint32_t k = 0; k < x->n_knob; k++)
        if (!strcmp(x->knob[k].key, kb->key))
            return die("--knob %s: %s is a knob twice", v, kb->key);
    x->n_knob++;
    return 0;
}

static int collect(void *ud, const struct design *d)
{
    struct size_ctx *x = ud;
    for (int i = 0; i < x->n_fix; i++)
        if (!fix_keeps(d, x->fixes[i]))
            return 0;
    if (x->n == x->cap) {
        x->dropped = 1;
        return 1;
    }
    struct cand *c = &x->c[x->n++];
    memset(c, 0, sizeof *c);
    c->d = *d;
    c->storage = x->storage;
    c->variant = x->var;
    c->bottleneck = -1;
    cost_design_bill(&c->price, d, &x->in, &x->sbill, x->pr, x->np,
                     x->base->cost.amortisation_years);
    return 0;
}

/* Set variant v's knob values on sc (mixed radix over the knobs). */
static int variant_set(const struct size_ctx *x, uint32_t v, struct scenario *sc, struct err *e)
{
    for (uint32_t k = 0; k < x->n_knob; k++) {
        const struct knob *kb = &x->knob[k];
        char a[160];
        snprintf(a, sizeof a, "%s=%s", kb->key, kb->val[v % kb->n]);
        v /= kb->n;
        if (scenario_set(sc, a, e) < 0)
            return -1;
    }
    return 0;
}

/* "key=value, ..." of variant v, for tables and JSON ("" without knobs). */
static void variant_text(const struct size_ctx *x, uint32_t v, char *b, size_t len)
{
    size_t at = 0;
    if (len)
        b[0] = '\0';
    for (uint32_t k = 0; k < x->n_knob && at < len; k++) {
        const struct knob *kb = &x->knob[k];
        int w = snprintf(b + at, len - at, "%s%s=%s", k ? " " : "", kb->key, kb->val[v % kb->n]);
        v /= kb->n;
        at += w > 0 ? (size_t)w : 0;
    }
}


struct defaults {
    char val[sizeof design_owned / sizeof design_owned[0]][64];
};

static void default_of(void *ud, const char *key, const char *type, const char *def,
                       const char *min, const char *max, const char *doc)
{
    struct defaults *d = ud;
    (void)type, (void)min, (void)max, (void)doc;
    for (size_t i = 0; i < sizeof design_owned / sizeof design_owned[0]; i++)
        if (!strcmp(key, design_owned[i]))
            snprintf(d->val[i], sizeof d->val[i], "%s", def);
}

/* The scenario of candidate c: base, its storage, the design, the fixes. */
static int cand_scenario(const struct size_ctx *x, const struct cand *c, struct scenario *sc,
                         struct err *e)
{
    struct defaults df;
    memset(&df, 0, sizeof df);
    scenario_keys(default_of, &df);
    *sc = *x->base;
    for (size_t i = 0; i < sizeof design_owned / sizeof design_owned[0]; i++) {
        char a[128];
        snprintf(a, sizeof a, "%s=%s", design_owned[i], df.val[i]);
        if (scenario_set(sc, a, e) < 0)
            return -1;
        scenario_unset(sc, design_owned[i]);
    }
    char keys[1024], a[160];
    design_keys(&c->d, keys, sizeof keys, "\n");
    snprintf(a, sizeof a, "storage.nodes=%u", c->storage);
    if (scenario_set(sc, a, e) < 0 || variant_set(x, c->variant, sc, e) < 0)
        return -1;
    char *save = NULL;
    for (char *tok = strtok_r(keys, "\n", &save); tok; tok = strtok_r(NULL, "\n", &save))
        if (scenario_set(sc, tok, e) < 0)
            return -1;
    for (int i = 0; i < x->n_fix; i++)
        if (scenario_set(sc, x->fixes[i], e) < 0)
            return -1;
    return scenario_set(sc, "engine=fluid", e);
}

/* The checkpoint's share of wall time: stall and the work redone after
 * failures at the optimal interval (restart excluded: no fabric changes
 * it); without failures the stall over the configured interval. */
static void figures(struct cand *c, const struct results *r, const struct scenario *sc)
{
    const struct cost_figures *f = &r->cost;
    double d = f->stall_s + f->training_lost_s, M = f->job_mtbf_s;
    c->save_s = f->end_s;
    c->stall_s = f->stall_s;
    c->overhead = M > 0 ? 1.0 - cost_goodput_lag(f->daly_s, d, f->durability_lag_s, M, 0)
                        : d / (f->interval_s + d);
    c->goodput = M > 0 ? f->goodput_at_optimal : f->goodput;
    c->loss_day = c->overhead * 24.0 * r->plan.gpus * sc->training.gpu_hour_cost;
    c->restore_s = r->restore.ran && r->restore.finished ? r->restore.completion_s : NAN;
    c->slowdown = r->training.on ? r->training.slowdown : 0.0;
    c->lag_s = f->durability_lag_s;
    /* at the configured interval, as run reports them on the YAML */
    const struct endurance_figures *w = &r->endurance;
    c->wear_day = w->on ? w->wear_cost_per_day : 0.0;
    c->endurance = w->on && w->dwpd_rating > 0 && w->raw_bytes ? w->dwpd / w->dwpd_rating : NAN;
    c->unmodelled = r->n_unmodelled;
    c->bottleneck = r->bottleneck.seg;
}

static int meets(const struct cand *c, const struct target *t, int nt);

/* The most goodput any interval gives with d seconds without progress a
 * checkpoint and a job MTBF of M (restart excluded, as figures() counts). */
static double goodput_max(double d, double M)
{
    if (!(d > 0))
        return 1.0;
    double tau = cost_optimal_numeric(d, M);
    return fmax(cost_goodput(tau, d, M, 0), cost_goodput(cost_daly(d, M), d, M, 0));
}

/* Lower bounds on c's figures from r, a description of its scenario sc
 * (topology, workload and the analytic bound, no engine run): the write
 * ends no earlier than the bound after its first byte; the stall is at
 * least the policy's (sync: that end); a checkpoint costs at least its
 * stall, and every second the write runs past it is durability lag. The
 * goodput at any interval, e^(-lag/M) times the lag-free goodput at d, is
 * then at most goodput_max(stall) x e^(-(end - stall)/M): the loss at
 * figures()' interval can be no less (docs/size.md, The search). */
static void lower_bound(struct cand *c, const struct lbin *b, const struct scenario *sc)
{
    const double ps = 1e12;
    double end = b->first_s + b->end_term_s;
    double stall = b->measured ? end : b->stall_s;
    double M = sc->failures.mtbf_node_h > 0 ? sc->failures.mtbf_node_h * 3600.0 / sc->cluster.nodes
               : sc->failures.mtbf_gpu_h > 0 && b->gpus ? sc->failures.mtbf_gpu_h * 3600.0 / b->gpus
                                                       : 0.0;
    double tau = (double)sc->training.interval_ps / ps;
    double over;
    if (M > 0)
        /* a hair under: goodput_max is a numeric optimum */
        over = 1.0 - fmin(1.0, goodput_max(stall, M) * exp(-fmax(0.0, end - stall) / M) *
                                   (1 + 1e-9));
    else
        over = tau + stall > 0 ? stall / (tau + stall) : 0.0;
    c->bounded = 1;
    c->lb_save_s = end;
    c->lb_stall_s = stall;
    c->lb_overhead = fmax(0.0, over);
    c->lb_loss_day = c->lb_overhead * 24.0 * b->gpus * sc->training.gpu_hour_cost;
}

static void lbin_of(struct lbin *b, const struct results *r, double end_term_s)
{
    b->first_s = (double)r->plan.first_start_ps / 1e12;
    b->end_term_s = end_term_s;
    b->stall_s = (double)r->plan.stall_ps / 1e12;
    b->measured = r->plan.stall_measured;
    b->gpus = r->plan.gpus;
}

/* Designs that share a storage side (variant, storage nodes, profiles,
 * uplinks and storage nodes a leaf) share the bound's terms from the
 * spines down to the storage nodes: the storage leaves' uplinks, the
 * storage NICs and back ends carry the same bytes whatever the compute
 * side. Their largest, remembered from the first description, bounds the
 * others without one (an open-addressed table under x->mu). */
CKPT_WRAPS static uint64_t side_key(const struct cand *c, int tiers_key, uint64_t k[6])
{
    k[0] = c->variant;
    k[1] = c->storage;
    k[2] = (uint64_t)(c->d.leaf - switch_catalog);
    k[3] = (uint64_t)(c->d.spine - switch_catalog);
    k[4] = tiers_key ? UINT64_MAX /* breakouts: the uplinks' speed */
                     : c->d.uplinks | (uint64_t)c->d.bo_up << 32 |
                           (uint64_t)c->d.bo_spine << 40 | (uint64_t)c->d.bo_down << 48 |
                           (uint64_t)c->d.spread << 56; /* storage leaves under compute spines */
    k[5] = tiers_key ? UINT64_MAX : c->d.spl;
    uint64_t h = UINT64_C(1469598103934665603);
    for (int i = 0; i < 6; i++)
        h = (h ^ k[i]) * UINT64_C(1099511628211); /* FNV-1a */
    return h;
}

/* tiers_key: the slot of the profiles, storage and knob values alone
 * (--prune-tiers) */
static struct side *side_slot(struct size_ctx *x, const struct cand *c, int tiers_key, int *found)
{
    uint64_t k[6], h = side_key(c, tiers_key, k);
    for (size_t i = h % x->n_side;; i = (i + 1) % x->n_side) {
        struct side *s = &x->side[i];
        if (!s->used || !memcmp(s->key, k, sizeof k)) {
            *found = s->used;
            memcpy(s->key, k, sizeof k);
            return s;
        }
    }
}

/* Does the bound rule c out: a target its bounds already miss, or a loss no
 * less than a cheaper feasible point's (it cannot join the front, which
 * takes a point only when it loses less than every cheaper one)? */
static enum prune prune_by_bound(const struct size_ctx *x, const struct cand *c, double best)
{
    for (int i = 0; i < x->nt; i++) {
        const struct target *t = &x->t[i];
        double lb = t->m == M_OVERHEAD ? c->lb_overhead
                    : t->m == M_SAVE   ? c->lb_save_s
                    : t->m == M_STALL  ? c->lb_stall_s
                                       : NAN; /* no bound: goodput, restore, slowdown */
        if (t->le && !isnan(lb) && lb > t->v * (1 + 1e-12))
            return PRUNE_TARGET;
    }
    /* the front's own test: a point joins it when it loses less than
     * best x (1 - 1e-9) */
    return c->lb_loss_day >= best * (1 - 1e-9) ? PRUNE_DOMINATED : PRUNE_NO;
}

/* The progress line (stderr, at most once a second; none with --quiet):
 * candidates screened of the queue, pruned, and the time left at the pace
 * so far. Called with x->mu held. */
static void progress(struct size_ctx *x, int last)
{
    double now = now_s();
    if (x->quiet || (!last && now - x->shown < 1.0) || (last && !x->progress_shown))
        return;
    x->shown = now;
    x->progress_shown = 1;
    double el = now - x->t0;
    fprintf(stderr, "ckptnet size: screened %zu/%zu, pruned %zu (%zu miss a target, %zu "
                    "dominated",
            x->done, x->n_queue,
            x->n_pruned[PRUNE_TARGET] + x->n_pruned[PRUNE_DOMINATED] + x->n_pruned[PRUNE_TIERS],
            x->n_pruned[PRUNE_TARGET], x->n_pruned[PRUNE_DOMINATED]);
    if (x->prune_tiers)
        fprintf(stderr, ", %zu three-tier", x->n_pruned[PRUNE_TIERS]);
    fprintf(stderr, "), %.0f s", el);
    if (!last && x->done)
        fprintf(stderr, ", about %.0f s left", el / (double)x->done *
                                                   (double)(x->n_queue - x->done));
    fputc('\n', stderr);
}

/* The screen runs thousands of engines of one cluster, each freeing what
 * the last allocated: glibc would give the memory back to the system after
 * each run and fault it in again for the next (a third of a screen's page
 * faults, a fifth of its CPU). Keep it: no trimming, and no allocation
 * mapped on its own below 32 MB (glibc's largest). */
static void keep_heap(void)
{
#if defined(__GLIBC__)
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

/* One leaf shape's screen as handed out (to a thread or an MPI rank): its
 * queue position and candidate, the least loss of a cheaper feasible point
 * run so far, its storage side's bound when one is known, and whether
 * --prune-tiers rules it out. */
struct size_job {
    int64_t pos, q;
    double best;
    int found, tiers;
    struct lbin b;
};

/* What the screen of a shape found, beside its candidate's figures: its
 * storage side's bound when it was the first to describe that side. */
struct size_done {
    int side_new;
    struct lbin side;
};

/* The next shape to screen, or 0 when none is left. */
static int job_take(struct size_ctx *x, struct size_job *j)
{
    memset(j, 0, sizeof *j);
    pthread_mutex_lock(&x->mu);
    size_t pos = x->next;
    if (pos >= x->n_queue) {
        pthread_mutex_unlock(&x->mu);
        return 0;
    }
    size_t q = x->queue[x->next++];
    const struct cand *c = &x->c[q];
    j->pos = (int64_t)pos;
    j->q = (int64_t)q;
    j->best = fen_min(x, pos);
    int found;
    struct side *sd = side_slot(x, c, 0, &found);
    if (found) {
        j->found = 1;
        j->b = sd->b;
    }
    int found2;
    struct side *s2 = x->prune_tiers && c->d.tiers == 3 ? side_slot(x, c, 1, &found2) : NULL;
    if (s2 && found2 && s2->two_tier_sw < design_switches(&c->d))
        j->tiers = 1;
    pthread_mutex_unlock(&x->mu);
    return 1;
}

/* Screen j's shape into its candidate (no lock: the candidate is this
 * worker's alone): the bounds first, no engine run when they rule the
 * point out. A shared storage side's bounds it without a description; else
 * (or when that does not prune) its own preparation's bound (one that fails
 * leaves the run to say why). --no-prune bounds every point both ways all
 * the same, to check the bounds. The preparation is the run's: a shape is
 * built once. */
static void job_screen(const struct size_ctx *x, const struct size_job *j, struct scenario *sc,
                       struct results *r, struct results *pre, struct ckpt_prepared *prep,
                       struct size_done *out)
{
    struct cand *c = &x->c[j->q];
    struct err e = {{0}};
    memset(out, 0, sizeof *out);
    if (j->tiers)
        c->pruned = PRUNE_TIERS;
    if (!sc || !r || !pre || !prep) {
        c->run = 1;
        snprintf(c->err, sizeof c->err, "out of memory");
        return;
    }
    if (cand_scenario(x, c, sc, &e) < 0) {
        c->run = 1;
        snprintf(c->err, sizeof c->err, "%.190s", e.msg);
        return;
    }
    struct lbin b = j->b;
    c->lb_cheap_overhead = NAN;
    if (j->found && !c->pruned) {
        lower_bound(c, &b, sc);
        c->lb_cheap_overhead = c->lb_overhead;
        c->pruned = x->prune ? prune_by_bound(x, c, j->best) : PRUNE_NO;
    }
    int prepared = 0;
    if (!c->pruned && ckpt_prepared_set(prep, sc, pre, &e) == 0) {
        const double *bt = pre->bound_term_s;
        prepared = 1;
        lbin_of(&b, pre, pre->bound_s);
        lower_bound(c, &b, sc);
        c->pruned = x->prune ? prune_by_bound(x, c, j->best) : PRUNE_NO;
        if (!j->found) {
            lbin_of(&out->side, pre,
                    fmax(bt[PATH_SPINE_DOWN], fmax(bt[PATH_STORAGE_NIC], bt[PATH_BACKEND])));
            out->side_new = 1;
        }
    }
    if (!c->pruned) {
        c->run = 1;
        /* not prepared (pruned by its side's bound, or a preparation
         * that failed): the run builds it and says why it fails */
        if ((prepared ? ckpt_prepared_run(prep, r, &e) : ckpt_run(sc, r, &e)) < 0) {
            snprintf(c->err, sizeof c->err, "%.190s", e.msg);
        } else {
            c->ok = r->ok && r->finished;
            if (!c->ok)
                snprintf(c->err, sizeof c->err, "%.190s",
                         r->finished ? r->violation : "unfinished");
            else
                figures(c, r, sc);
            results_release(r);
        }
    }
}

/* Where c's loss prunes from: a cheaper point rules out the dearer ones
 * after it in the queue (by capital and power). Its drive wear, known only
 * from its run, makes it dearer: it rules out only the points queued at or
 * above its whole cost (their wear, at least 0, can only add to theirs). */
static size_t wear_pos(const struct size_ctx *x, size_t pos, const struct cand *c)
{
    double total = c->price.per_day + c->wear_day;
    if (!(c->wear_day > 0))
        return pos;
    size_t lo = pos, hi = x->n_queue; /* the last position priced under total */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->c[x->queue[mid]].price.per_day < total)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* What j's screen leaves for the others: its side's bound, its loss on the
 * front's prefix minimum, the two-tier switch count (--prune-tiers), the
 * counts and the progress line. */
static void job_record(struct size_ctx *x, const struct size_job *j, const struct size_done *d)
{
    const struct cand *c = &x->c[j->q];
    pthread_mutex_lock(&x->mu);
    if (d->side_new) {
        int found;
        struct side *sd = side_slot(x, c, 0, &found);
        if (!found) {
            sd->used = 1;
            sd->b = d->side;
        }
    }
    x->done++;
    x->n_pruned[c->pruned]++;
    if (c->ok && c->bounded && (c->overhead < c->lb_overhead * (1 - 1e-9) ||
                                c->overhead < c->lb_cheap_overhead * (1 - 1e-9)))
        x->n_below++; /* a bound above the run: would prune wrongly */
    if (c->ok && meets(c, x->t, x->nt)) {
        fen_put(x, wear_pos(x, (size_t)j->pos, c), c->loss_day);
        if (x->prune_tiers && c->d.tiers == 2) {
            int f2;
            struct side *t2 = side_slot(x, c, 1, &f2);
            if (!f2 || design_switches(&c->d) < t2->two_tier_sw)
                t2->two_tier_sw = design_switches(&c->d);
            t2->used = 1;
        }
    }
    progress(x, 0);
    pthread_mutex_unlock(&x->mu);
}

static void *worker(void *arg)
{
    struct size_ctx *x = arg;
    struct scenario *sc = malloc(sizeof *sc);
    struct results *r = malloc(sizeof *r);
    struct results *pre = malloc(sizeof *pre);
    struct ckpt_prepared *prep = ckpt_prepared_new();
    struct size_job j;
    while (job_take(x, &j)) {
        struct size_done d;
        job_screen(x, &j, sc, r, pre, prep, &d);
        job_record(x, &j, &d);
    }
    free(sc);
    free(r);
    free(pre);
    ckpt_prepared_free(prep);
    return NULL;
}

/* ---- MPI ranks (size_mpi.c carries the bytes) ----------------------------------- */

/* Every rank enumerates the same candidates from the same command line;
 * a job names one by index, and its result carries the candidate back. */
struct size_res {
    struct size_job j;
    struct size_done d;
    struct cand c;
};

struct rank_ud {
    struct size_ctx *x;
    struct scenario *sc;
    struct results *r, *pre;
    struct ckpt_prepared *prep;
};

static int rank_take(void *ud, void *job)
{
    return job_take(((struct rank_ud *)ud)->x, job);
}

/* What a rank's screen found, into rank 0's candidate: the figures, never
 * the design (its profile pointers are the rank's). */
static void rank_record(void *ud, const void *res)
{
    struct size_ctx *x = ((struct rank_ud *)ud)->x;
    const struct size_res *m = res;
    if (m->j.q < 0 || (size_t)m->j.q >= x->n || m->j.pos < 0 || (size_t)m->j.pos >= x->n_queue)
        return;
    struct cand *c = &x->c[m->j.q];
    const struct cand *f = &m->c;
    c->run = f->run;
    c->ok = f->ok;
    memcpy(c->err, f->err, sizeof c->err);
    c->err[sizeof c->err - 1] = '\0';
    c->save_s = f->save_s;
    c->stall_s = f->stall_s;
    c->overhead = f->overhead;
    c->goodput = f->goodput;
    c->loss_day = f->loss_day;
    c->restore_s = f->restore_s;
    c->slowdown = f->slowdown;
    c->lag_s = f->lag_s;
    c->wear_day = f->wear_day;
    c->endurance = f->endurance;
    c->unmodelled = f->unmodelled;
    c->bottleneck = f->bottleneck;
    c->bounded = f->bounded;
    c->pruned = f->pruned >= PRUNE_NO && f->pruned <= PRUNE_TIERS ? f->pruned : PRUNE_NO;
    c->lb_save_s = f->lb_save_s;
    c->lb_stall_s = f->lb_stall_s;
    c->lb_overhead = f->lb_overhead;
    c->lb_loss_day = f->lb_loss_day;
    c->lb_cheap_overhead = f->lb_cheap_overhead;
    pthread_mutex_lock(&x->mu);
    x->by_ranks++;
    pthread_mutex_unlock(&x->mu);
    job_record(x, &m->j, &m->d);
}

static void rank_work(void *ud, const void *job, void *res)
{
    struct rank_ud *u = ud;
    struct size_res *m = res;
    memset(m, 0, sizeof *m);
    memcpy(&m->j, job, sizeof m->j);
    if (m->j.q < 0 || (size_t)m->j.q >= u->x->n) {
        m->j.q = -1;
        return;
    }
    job_screen(u->x, &m->j, u->sc, u->r, u->pre, u->prep, &m->d);
    m->c = u->x->c[m->j.q];
}

typedef int cmp_fn(const struct cand *c, size_t a, size_t b);

static int by_cost(const struct cand *c, size_t a, size_t b)
{
    double x = c[a].price.per_day, y = c[b].price.per_day;
    return x < y ? -1 : x > y ? 1 : 0;
}

static int by_total(const struct cand *c, size_t a, size_t b)
{
    double x = c[a].total_day, y = c[b].total_day;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* What else than the leaf makes two designs run differently: the spines'
 * oversubscription (0 for 1:1 and two tiers), storage spread, breakouts. */
static uint64_t design_shape_axes(const struct design *d)
{
    return (d->ratio > 1 ? d->ratio : 0) | (uint64_t)d->spread << 32 | (uint64_t)d->bo_down << 40 |
           (uint64_t)d->bo_up << 48 | (uint64_t)d->bo_spine << 56;
}

/* Leaf shape order (any fixed order: equal shapes end up together). */
static int by_shape(const struct cand *c, size_t a, size_t b)
{
    const struct cand *p = &c[a], *q = &c[b];
    const uint64_t x[] = {p->variant, p->storage, p->d.tiers, (uint64_t)(p->d.leaf - switch_catalog),
                          (uint64_t)(p->d.spine - switch_catalog), p->d.hpl, p->d.uplinks,
                          p->d.spl, design_shape_axes(&p->d)};
    const uint64_t y[] = {q->variant, q->storage, q->d.tiers, (uint64_t)(q->d.leaf - switch_catalog),
                          (uint64_t)(q->d.spine - switch_catalog), q->d.hpl, q->d.uplinks,
                          q->d.spl, design_shape_axes(&q->d)};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* qsort_r is not C11: a stable merge sort of indices. */
static void sort_idx(size_t *v, size_t n, size_t *tmp, const struct cand *c, cmp_fn *cmp)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_idx(v, h, tmp, c, cmp);
    sort_idx(v + h, n - h, tmp, c, cmp);
    size_t i = 0, j = h, k = 0;
    while (i < h || j < n)
        tmp[k++] = j >= n || (i < h && cmp(c, v[i], v[j]) <= 0) ? v[i++] : v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

static int meets(const struct cand *c, const struct target *t, int nt)
{
    for (int i = 0; i < nt; i++) {
        double v = t[i].m == M_OVERHEAD  ? c->overhead
                   : t[i].m == M_SAVE     ? c->save_s
                   : t[i].m == M_STALL    ? c->stall_s
                   : t[i].m == M_RESTORE  ? c->restore_s
                   : t[i].m == M_SLOWDOWN ? c->slowdown
                   : t[i].m == M_ENDURANCE ? c->endurance
                                          : c->goodput;
        if (isnan(v)) /* not known: not met */
            return 0;
        if (t[i].le ? v > t[i].v * (1 + 1e-12) : v < t[i].v * (1 - 1e-12))
            return 0;
    }
    return 1;
}

/* One packet run of the check: a front point (its queue of seeds), a
 * seed; what the run gave, or why it gave nothing. */
struct pkt_job {
    size_t cand;
    uint32_t seed;
    int failed;         /* the scenario or the run refused: err */
    int bad;            /* ran, but not ok or unfinished: err */
    double save_s, stall_s, overhead, loss_day;
    char err[120];
};

struct pkt_pool {
    struct size_ctx *x;
    struct pkt_job *job;
    size_t n, next;
    int side_by_side; /* -j > 1: runs share the cores, one thread each */
    pthread_mutex_t mu;
};

static void pkt_one(const struct size_ctx *x, struct pkt_job *j, struct scenario *sc,
                    struct results *r, int side_by_side)
{
    const struct cand *c = &x->c[j->cand];
    struct cand q = *c;
    struct err e = {{0}};
    char a[64];
    snprintf(a, sizeof a, "seed=%" PRIu64, x->base->seed + j->seed);
    if (cand_scenario(x, c, sc, &e) < 0 || scenario_set(sc, "engine=packet", &e) < 0 ||
        scenario_set(sc, a, &e) < 0 ||
        (side_by_side && !sc->sim.threads && scenario_set(sc, "sim.threads=1", &e) < 0) ||
        ckpt_run(sc, r, &e) < 0) {
        j->failed = 1;
        snprintf(j->err, sizeof j->err, "%.110s", e.msg);
        return;
    }
    if (!r->ok || !r->finished) {
        j->bad = 1;
        snprintf(j->err, sizeof j->err, "%.110s", r->finished ? r->violation : "unfinished");
    } else {
        figures(&q, r, sc);
    }
    results_release(r);
    j->save_s = q.save_s;
    j->stall_s = q.stall_s;
    j->overhead = q.overhead;
    j->loss_day = q.loss_day;
}

static void *pkt_worker(void *arg)
{
    struct pkt_pool *p = arg;
    struct scenario *sc = malloc(sizeof *sc);
    struct results *r = malloc(sizeof *r);
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next < p->n ? p->next++ : SIZE_MAX;
        pthread_mutex_unlock(&p->mu);
        if (i == SIZE_MAX)
            break;
        if (!sc || !r) {
            p->job[i].failed = 1;
            snprintf(p->job[i].err, sizeof p->job[i].err, "out of memory");
            continue;
        }
        pkt_one(p->x, &p->job[i], sc, r, p->side_by_side);
    }
    free(sc);
    free(r);
    return NULL;
}

/* The packet engine on the first k front points whose fluid run left
 * effects out, over seeds (the scenario's seed, +1, ...), the runs spread
 * over jobs threads: their figures' means (summed in seed order, so the
 * same whatever jobs), and whether they still meet the targets. A point
 * that misses one leaves the recommendation, which goes to the least cost
 * plus loss among the others (checked points at their packet loss). */
static void packet_check(struct size_ctx *x, const struct target *t, int nt, const size_t *front,
                         size_t nf, uint32_t k, uint32_t seeds, int jobs, long *rec)
{
    uint32_t done = 0;
    struct pkt_pool pool = {.x = x, .side_by_side = jobs > 1};
    pool.job = calloc((size_t)k * seeds + 1, sizeof *pool.job);
    if (!pool.job) {
        fprintf(stderr, "ckptnet size: packet check: out of memory\n");
        return;
    }
    for (size_t i = 0; i < nf && done < k; i++) {
        if (!x->c[front[i]].unmodelled)
            continue;
        done++;
        for (uint32_t s = 0; s < seeds; s++) {
            pool.job[pool.n].cand = front[i];
            pool.job[pool.n++].seed = s;
        }
    }
    pthread_mutex_init(&pool.mu, NULL);
    pthread_t th[64];
    int started = 0;
    for (int i = 1; i < jobs && (size_t)i < pool.n; i++)
        if (pthread_create(&th[started], NULL, pkt_worker, &pool) == 0)
            started++;
    if (pool.n)
        printf("packet check: %zu run%s (%u point%s x %u seed%s) on %d thread%s\n", pool.n,
               pool.n == 1 ? "" : "s", done, done == 1 ? "" : "s", seeds, seeds == 1 ? "" : "s",
               started + 1, started ? "s" : "");
    fflush(stdout);
    pkt_worker(&pool);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&pool.mu);
    /* each point's seeds in order, as one run after the other: a refusal
     * ends its seeds uncounted, a bad run counts and ends them */
    for (size_t b = 0; b < pool.n; b += seeds) {
        size_t ci = pool.job[b].cand;
        struct cand *c = &x->c[ci];
        double save = 0, stall = 0, over = 0, loss = 0;
        for (uint32_t s = 0; s < seeds; s++) {
            const struct pkt_job *j = &pool.job[b + s];
            if (j->failed || j->bad)
                snprintf(c->pkt_err, sizeof c->pkt_err, "%s", j->err);
            if (j->failed)
                break;
            save += j->bad ? c->save_s : j->save_s;
            stall += j->bad ? c->stall_s : j->stall_s;
            over += j->bad ? c->overhead : j->overhead;
            loss += j->bad ? c->loss_day : j->loss_day;
            c->pkt_runs++;
            if (j->bad)
                break;
        }
        if (c->pkt_err[0]) {
            printf("packet check #%zu: %s\n", ci, c->pkt_err);
            continue;
        }
        struct cand q = *c;
        q.save_s = c->pkt_save_s = save / seeds;
        q.stall_s = c->pkt_stall_s = stall / seeds;
        q.overhead = c->pkt_overhead = over / seeds;
        c->pkt_loss_day = loss / seeds;
        c->pkt_feasible = meets(&q, t, nt);
        printf("packet check #%zu (%u seed%s): save %.4f s (fluid %.4f), overhead %.3f%% "
               "(fluid %.3f%%), loss %.2f a day; %s\n",
               ci, seeds, seeds == 1 ? "" : "s", c->pkt_save_s, c->save_s,
               100 * c->pkt_overhead, 100 * c->overhead, c->pkt_loss_day,
               c->pkt_feasible ? "meets the targets" : "MISSES a target");
    }
    free(pool.job);
    if (!done)
        printf("packet check: no front point's fluid run left an effect out\n");
    double best = INFINITY;
    long old = *rec;
    for (size_t i = 0; i < nf; i++) {
        const struct cand *c = &x->c[front[i]];
        int checked = c->pkt_runs == seeds && !c->pkt_err[0];
        if (c->pkt_err[0] || (checked && !c->pkt_feasible))
            continue;
        double v = c->total_day + (checked ? c->pkt_loss_day : c->loss_day);
        if (v < best) {
            best = v;
            *rec = (long)front[i];
        }
    }
    if (!isfinite(best))
        *rec = -1;
    if (*rec != old)
        printf("recommended after the packet check: %s%ld\n", *rec >= 0 ? "#" : "none ",
               *rec);
}

/* The designer's axes beyond the leaf shape, appended to b: spines
 * oversubscribed. */
static void shape_axes_text(const struct design *d, char *b, size_t len)
{
    size_t at = strlen(b);
    if (d->spread && at < len)
        snprintf(b + at, len - at, " (storage spread)");
    at = strlen(b);
    if (d->tiers == 3 && d->ratio > 1 && at < len)
        snprintf(b + at, len - at, " (spines %.3g:1)", d->oversub_spine);
    at = strlen(b);
    if ((d->bo_down > 1 || d->bo_up > 1 || d->bo_spine > 1) && at < len)
        snprintf(b + at, len - at, " (breakout %u/%u/%u)", d->bo_down, d->bo_up, d->bo_spine);
}

static void shape_text(const struct cand *c, char *b, size_t len)
{
    const struct design *d = &c->d;
    if (d->tiers == 2)
        snprintf(b, len, "2 tiers %s/%s: %u x %u nodes + %u x %u storage leaves, %u spines x %u",
                 d->leaf->name, d->spine->name, d->cleaves, d->hpl, d->sleaves, d->spl,
                 d->spines, d->k);
    else
        snprintf(b, len, "3 tiers %s/%s: %u x %u nodes + %u x %u storage leaves, %u+%u pods "
                         "of %u, %u spines, %u super-spines",
                 d->leaf->name, d->spine->name, d->cleaves, d->hpl, d->sleaves, d->spl, d->cpods,
                 d->spods, d->lpp, d->n_spines, d->n_supers);
    shape_axes_text(d, b, len);
}

static void put_row(FILE *f, const struct cand *c, size_t id, const char *cur)
{
    char shape[200];
    shape_text(c, shape, sizeof shape);
    fprintf(f, "%5zu %12.2f %12.0f %9.2f %12.2f %8.3f %7.3f%% %-16s %4u %5.2f  %s\n", id,
            c->total_day, c->price.capital, c->price.power_per_day, c->loss_day, c->save_s,
            100 * c->overhead, c->bottleneck >= 0 ? path_seg_label(c->bottleneck) : "-",
            design_switches(&c->d), c->d.oversub, shape);
    (void)cur;
}

static void put_header(FILE *f, const char *cur)
{
    fprintf(f, "%5s %12s %12s %9s %12s %8s %8s %-16s %4s %5s  %s\n", "#", "cost/day", "capital",
            "power/day", "loss/day", "save_s", "overhead", "bottleneck", "sw", "over",
            "design");
    (void)cur;
}

static void put_bom(FILE *f, const struct size_ctx *x, const struct cand *c, const char *cur)
{
    const struct design *d = &c->d;
    const struct design_price *p = &c->price;
    if (x->n_knob) {
        char v[300];
        variant_text(x, c->variant, v, sizeof v);
        fprintf(f, "  knobs: %s\n", v);
    }
    if (c->ok) {
        fprintf(f, "  checkpoint: save %.3f s, stall %.3f s", c->save_s, c->stall_s);
        if (!isnan(c->restore_s))
            fprintf(f, ", restore %.3f s", c->restore_s);
        if (c->lag_s > 0)
            fprintf(f, ", durable %.3f s after the stall", c->lag_s);
        fprintf(f, ", training slowed %.2f%%\n", 100 * c->slowdown);
    }
    fprintf(f, "  switches: %u leaves (%s), %u spines, %u super-spines (%s): %.0f %s\n",
            d->cleaves + d->sleaves, d->leaf->name, d->n_spines, d->n_supers, d->spine->name,
            p->switches, cur);
    static const char *const what[DL_N] = {"host", "storage", "leaf-spine", "spine-super"};
    for (int k = 0; k < DL_N; k++) {
        if (!d->links[k])
            continue;
        fprintf(f, "  %-11s %6" PRIu64 " links at %3.0f Gbps:", what[k], d->links[k],
                (double)d->link_bps[k] / 1e9);
        if (p->part[k].optics)
            fprintf(f, " %" PRIu64 " x %s,", p->part[k].optics, p->part[k].optic);
        if (p->part[k].optics2)
            fprintf(f, " %" PRIu64 " x %s (broken out),", p->part[k].optics2, p->part[k].optic2);
        fprintf(f, " %" PRIu64 " x %s\n", p->part[k].cables, p->part[k].cable);
    }
    if (p->train_sw[0])
        fprintf(f, "  training fabric (fabric.isolation physical, the compute side again): %u "
                   "leaves, %u spines, %u super-spines with their links: %.0f %s\n",
                p->train_sw[0], p->train_sw[1], p->train_sw[2], p->training, cur);
    fprintf(f, "  storage: %u nodes: %.0f %s; optics %.0f, cables %.0f; power %.0f W\n",
            c->storage, p->storage, cur, p->optics, p->cables, p->watts);
    for (uint32_t i = 0; i < p->n_unpriced; i++)
        fprintf(f, "  unpriced (not in the capital): %s\n", p->unpriced[i]);
}

/* The candidate's scenario as YAML: every key off its default, and every
 * key the design sets. */
struct yaml_out {
    FILE *f;
    const struct scenario *def;
    char prev[128];
    const char *keys; /* the design's "k=v\n..." */
};

static void def_value(void *ud, const char *key, const char *value, int kind)
{
    struct {
        const char *key;
        char val[600];
    } *q = ud;
    (void)kind;
    if (!strcmp(key, q->key))
        snprintf(q->val, sizeof q->val, "%s", value);
}

static void yaml_key(void *ud, const char *key, const char *value, int kind)
{
    struct yaml_out *y = ud;
    (void)kind;
    if (!strcmp(key, "source"))
        return;
    struct {
        const char *key;
        char val[600];
    } q = {key, ""};
    scenario_echo(y->def, def_value, &q);
    char want[160];
    snprintf(want, sizeof want, "%s=", key);
    int owned = 0;
    for (const char *p = y->keys; (p = strstr(p, want)) != NULL; p++)
        if (p == y->keys || p[-1] == '\n')
            owned = 1;
    if (!owned && !strcmp(q.val, value))
        return;
    /* sections already open: the dotted prefix shared with the previous key */
    size_t same = 0;
    for (size_t j = 0; key[j] && key[j] == y->prev[j]; j++)
        if (key[j] == '.')
            same = j + 1;
    int depth = 0;
    for (size_t j = 0; j < same; j++)
        depth += key[j] == '.';
    for (const char *p = key + same;;) {
        const char *dot = strchr(p, '.');
        fprintf(y->f, "%*s%.*s:", 2 * depth, "", (int)(dot ? dot - p : (long)strlen(p)), p);
        if (!dot) {
            int quote = !*value || strpbrk(value, ":#,{}[]&*!|>'\"%@`") != NULL;
            fprintf(y->f, quote ? " \"%s\"\n" : " %s\n", value);
            break;
        }
        fputc('\n', y->f);
        depth++;
        p = dot + 1;
    }
    snprintf(y->prev, sizeof y->prev, "%s", key);
}

static int write_yaml(const char *path, const struct size_ctx *x, const struct cand *c)
{
    struct scenario *sc = malloc(sizeof *sc), *def = malloc(sizeof *def);
    struct err e = {{0}};
    FILE *f = NULL;
    int rc = 0;
    if (!sc || !def || cand_scenario(x, c, sc, &e) < 0) {
        rc = die("--yaml %s: %s", path, sc && def ? e.msg : "out of memory");
        goto out;
    }
    scenario_defaults(def);
    f = !strcmp(path, "-") ? stdout : fopen(path, "w");
    if (!f) {
        rc = die("--yaml %s: %s", path, strerror(errno));
        goto out;
    }
    char keys[1024], shape[200];
    design_keys(&c->d, keys, sizeof keys, "\n");
    shape_text(c, shape, sizeof shape);
    fprintf(f, "# ckptnet size: %s\n# capital %.0f %s, %.2f %s a day with power and drive "
               "wear; checkpoint "
               "%.3f s, overhead %.3f%%\n",
            shape, c->price.capital, x->base->training.currency, c->total_day,
            x->base->training.currency, c->save_s, 100 * c->overhead);
    struct yaml_out y = {f, def, "", keys};
    scenario_echo(sc, yaml_key, &y);
    if (f != stdout && fclose(f) != 0)
        rc = die("--yaml %s: %s", path, strerror(errno));
out:
    free(sc);
    free(def);
    return rc;
}

static void put_csv(FILE *f, const struct size_ctx *x)
{
    fprintf(f, "id,tiers,leaf_switch,spine_switch,hosts_per_leaf,uplinks,spines,links_per_spine,"
               "leaves_per_pod,storage_nodes,storage_per_leaf,leaves,spines_total,superspines,"
               "oversubscription,capital,capital_per_day,watts,power_per_day,cost_per_day,run,"
               "ok,save_s,stall_s,checkpoint_overhead,goodput,loss_per_day,bottleneck,feasible,"
               "front,same_as,unpriced,error,knobs,restore_s,training_slowdown,"
               "durability_lag_s,pruned,overhead_bound,loss_bound_per_day,wear_per_day,"
               "endurance\n");
    for (size_t i = 0; i < x->n; i++) {
        const struct cand *c = &x->c[i];
        const struct design *d = &c->d;
        fprintf(f, "%zu,%u,%s,%s,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%.6g,%.2f,%.4f,%.1f,%.4f,%.4f,%d,"
                   "%d,",
                i, d->tiers, d->leaf->name, d->spine->name, d->hpl, d->uplinks, d->spines, d->k,
                d->lpp, c->storage, d->spl, d->cleaves + d->sleaves, d->n_spines, d->n_supers,
                d->oversub, c->price.capital, c->price.capital_per_day, c->price.watts,
                c->price.power_per_day, c->total_day, c->run, c->ok);
        if (c->ok)
            fprintf(f, "%.9g,%.9g,%.9g,%.9g,%.4f,%s,%d,%d,", c->save_s, c->stall_s, c->overhead,
                    c->goodput, c->loss_day,
                    c->bottleneck >= 0 ? path_seg_label(c->bottleneck) : "", c->feasible,
                    c->front);
        else
            fprintf(f, ",,,,,,0,0,");
        if (c->leader != i)
            fprintf(f, "%u,%u,\"", c->leader, c->price.n_unpriced);
        else
            fprintf(f, ",%u,\"", c->price.n_unpriced);
        for (const char *p = c->err; *p; p++)
            fputc(*p == '"' ? '\'' : *p, f);
        char v[300];
        variant_text(x, c->variant, v, sizeof v);
        fprintf(f, "\",\"%s\",", v);
        if (c->ok && !isnan(c->restore_s))
            fprintf(f, "%.9g", c->restore_s);
        if (c->ok)
            fprintf(f, ",%.9g,%.9g,", c->slowdown, c->lag_s);
        else
            fputs(",,,", f);
        fputs(prune_name[c->pruned], f);
        if (c->bounded)
            fprintf(f, ",%.9g,%.4f,", c->lb_overhead, c->lb_loss_day);
        else
            fputs(",,,", f);
        if (c->ok)
            fprintf(f, "%.4f,", c->wear_day);
        else
            fputc(',', f);
        if (c->ok && !isnan(c->endurance))
            fprintf(f, "%.9g", c->endurance);
        fputc('\n', f);
    }
}

static json_t *cand_json(const struct size_ctx *x, const struct cand *c, size_t i)
{
    const struct design *d = &c->d;
    char keys[1024];
    design_keys(d, keys, sizeof keys, ";");
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer((json_int_t)i));
    json_object_set_new(o, "keys", json_string(keys));
    json_object_set_new(o, "storage_nodes", json_integer(c->storage));
    char v[300];
    variant_text(x, c->variant, v, sizeof v);
    json_object_set_new(o, "knobs", json_string(v));
    json_t *b = json_object();
    json_object_set_new(b, "leaves", json_integer(d->cleaves + d->sleaves));
    json_object_set_new(b, "spines", json_integer(d->n_spines));
    json_object_set_new(b, "superspines", json_integer(d->n_supers));
    static const char *const cls[DL_N] = {"host", "storage", "leaf_spine", "spine_super"};
    for (int k = 0; k < DL_N; k++) {
        if (!d->links[k])
            continue;
        json_t *l = json_object();
        json_object_set_new(l, "links", json_integer((json_int_t)d->links[k]));
        json_object_set_new(l, "speed_bps", json_integer((json_int_t)d->link_bps[k]));
        if (c->price.part[k].optics) {
            json_object_set_new(l, "transceiver", json_string(c->price.part[k].optic));
            json_object_set_new(l, "transceivers",
                                json_integer((json_int_t)c->price.part[k].optics));
        }
        if (c->price.part[k].optics2) { /* a broken-out end's own */
            json_object_set_new(l, "breakout_transceiver", json_string(c->price.part[k].optic2));
            json_object_set_new(l, "breakout_transceivers",
                                json_integer((json_int_t)c->price.part[k].optics2));
        }
        json_object_set_new(l, "cable", json_string(c->price.part[k].cable));
        json_object_set_new(l, "cables", json_integer((json_int_t)c->price.part[k].cables));
        json_object_set_new(b, cls[k], l);
    }
    json_object_set_new(o, "bom", b);
    json_object_set_new(o, "oversubscription", json_real(d->oversub));
    if (d->tiers == 3)
        json_object_set_new(o, "spine_oversubscription", json_real(d->oversub_spine));
    json_object_set_new(o, "capital", json_real(c->price.capital));
    json_object_set_new(o, "capital_switches", json_real(c->price.switches));
    json_object_set_new(o, "capital_optics", json_real(c->price.optics));
    json_object_set_new(o, "capital_cables", json_real(c->price.cables));
    json_object_set_new(o, "capital_storage", json_real(c->price.storage));
    if (c->price.train_sw[0])
        json_object_set_new(o, "capital_training", json_real(c->price.training));
    json_object_set_new(o, "capital_per_day", json_real(c->price.capital_per_day));
    json_object_set_new(o, "watts", json_real(c->price.watts));
    json_object_set_new(o, "power_per_day", json_real(c->price.power_per_day));
    json_object_set_new(o, "cost_per_day", json_real(c->total_day));
    json_t *u = json_array();
    for (uint32_t k = 0; k < c->price.n_unpriced; k++)
        json_array_append_new(u, json_string(c->price.unpriced[k]));
    json_object_set_new(o, "unpriced", u);
    json_object_set_new(o, "run", json_boolean(c->run));
    if (c->pruned)
        json_object_set_new(o, "pruned", json_string(prune_name[c->pruned]));
    else if (!c->run)
        json_object_set_new(o, "same_leaf_shape_as", json_integer(c->leader));
    if (c->bounded) {
        json_t *k = json_object();
        json_object_set_new(k, "save_s", json_real(c->lb_save_s));
        json_object_set_new(k, "stall_s", json_real(c->lb_stall_s));
        json_object_set_new(k, "checkpoint_overhead", json_real(c->lb_overhead));
        json_object_set_new(k, "loss_per_day", json_real(c->lb_loss_day));
        json_object_set_new(o, "lower_bound", k);
    }
    if (c->ok) {
        json_object_set_new(o, "save_s", json_real(c->save_s));
        json_object_set_new(o, "stall_s", json_real(c->stall_s));
        json_object_set_new(o, "checkpoint_overhead", json_real(c->overhead));
        json_object_set_new(o, "goodput", json_real(c->goodput));
        json_object_set_new(o, "restore_s", isnan(c->restore_s) ? json_null()
                                                                : json_real(c->restore_s));
        json_object_set_new(o, "training_slowdown", json_real(c->slowdown));
        json_object_set_new(o, "durability_lag_s", json_real(c->lag_s));
        json_object_set_new(o, "wear_per_day", json_real(c->wear_day));
        json_object_set_new(o, "endurance", isnan(c->endurance) ? json_null()
                                                                : json_real(c->endurance));
        json_object_set_new(o, "fluid_unmodelled", json_integer(c->unmodelled));
        if (c->pkt_runs) {
            json_t *k = json_object();
            json_object_set_new(k, "seeds", json_integer(c->pkt_runs));
            if (c->pkt_err[0]) {
                json_object_set_new(k, "error", json_string(c->pkt_err));
            } else {
                json_object_set_new(k, "save_s", json_real(c->pkt_save_s));
                json_object_set_new(k, "stall_s", json_real(c->pkt_stall_s));
                json_object_set_new(k, "checkpoint_overhead", json_real(c->pkt_overhead));
                json_object_set_new(k, "loss_per_day", json_real(c->pkt_loss_day));
                json_object_set_new(k, "feasible", json_boolean(c->pkt_feasible));
            }
            json_object_set_new(o, "packet", k);
        }
        json_object_set_new(o, "loss_per_day", json_real(c->loss_day));
        json_object_set_new(o, "bottleneck", c->bottleneck >= 0
                                                 ? json_string(path_seg_label(c->bottleneck))
                                                 : json_null());
        json_object_set_new(o, "feasible", json_boolean(c->feasible));
        json_object_set_new(o, "front", json_boolean(c->front));
    } else if (c->run) {
        json_object_set_new(o, "error", json_string(c->err));
    }
    return o;
}

/* The page: the front plotted (gnuplot, inline SVG) over every screened
 * point, and each front point's figures and bill. */
static int write_html(const char *path, const struct size_ctx *x, const struct target *t, int nt,
                      const size_t *front, size_t nf, long rec, int flat)
{
    const char *tmp = getenv("TMPDIR");
    char dir[1024], f1[1100], f2[1100], f3[1100], gp[1100], svg[1100], gerr[1100];
    snprintf(dir, sizeof dir, "%s/ckptnet-size-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (strchr(dir, '\'') || !mkdtemp(dir))
        return die("--html %s: cannot create a temporary directory: %s", path, strerror(errno));
    snprintf(f1, sizeof f1, "%s/ok.dat", dir);
    snprintf(f2, sizeof f2, "%s/front.dat", dir);
    snprintf(f3, sizeof f3, "%s/other.dat", dir);
    snprintf(gp, sizeof gp, "%s/plots.gp", dir);
    snprintf(svg, sizeof svg, "%s/front.svg", dir);
    snprintf(gerr, sizeof gerr, "%s/gnuplot.err", dir);
    const char *cur = x->base->training.currency;
    int rc = 0;
    FILE *a = fopen(f1, "w"), *b = fopen(f2, "w"), *c3 = fopen(f3, "w"), *g = fopen(gp, "w");
    if (a && b && c3 && g) {
        /* every screened point: feasible, infeasible; the front by rising cost */
        for (size_t i = 0; i < x->n; i++) {
            const struct cand *c = &x->c[i];
            if (c->ok)
                fprintf(c->feasible ? a : c3, "%.6f %.6f\n", c->total_day, c->loss_day);
        }
        fputs("0 0\n", a); /* gnuplot wants something in every file; off-range below */
        fputs("0 0\n", c3);
        for (size_t i = 0; i < nf; i++)
            fprintf(b, "%.6f %.6f %zu\n", x->c[front[i]].total_day, x->c[front[i]].loss_day,
                    front[i]);
        if (!nf)
            fputs("0 0 0\n", b);
        fprintf(g, "set terminal svg size 960,480 dynamic noenhanced font 'sans,11' "
                   "background rgb 'white'\nset output '%s'\nset grid\n"
                   "set xlabel 'cost per day (%s): capital over %.3g years + power'\n"
                   "set ylabel 'checkpoint loss per day (%s)'\nset key outside right top\n"
                   "set xrange [*:*]\nset yrange [*:*]\n",
                svg, cur, x->base->cost.amortisation_years, cur);
        fprintf(g, "plot '%s' using ($1 > 0 ? $1 : 1/0):2 with points pt 7 ps 0.3 "
                   "lc rgb '#bbbbbb' title 'misses a target', "
                   "'%s' using ($1 > 0 ? $1 : 1/0):2 with points pt 7 ps 0.4 "
                   "lc rgb '#6baed6' title 'feasible', "
                   "'%s' using ($1 > 0 ? $1 : 1/0):2 with linespoints pt 7 ps 0.8 lw 2 "
                   "lc rgb '#d94801' title 'front'",
                f3, f1, f2);
        if (rec >= 0)
            fprintf(g, ", '-' using 1:2 with points pt 6 ps 2.5 lw 2 lc rgb 'black' "
                       "title 'recommended #%ld'\n%.6f %.6f\ne\n",
                    rec, x->c[rec].total_day, x->c[rec].loss_day);
        else
            fputc('\n', g);
    } else {
        rc = die("--html %s: cannot write the plot data in %s", path, dir);
    }
    if (a)
        fclose(a);
    if (b)
        fclose(b);
    if (c3)
        fclose(c3);
    if (g && fclose(g) != 0 && !rc)
        rc = die("--html %s: cannot write the plot script in %s", path, dir);
    struct err e = {{0}};
    int plotted = !rc && report_gnuplot_run(dir, &e) == 0;
    if (!rc && !plotted)
        fprintf(stderr, "ckptnet size: --html %s: no plot (%s)\n", path, e.msg);
    struct ofile of;
    FILE *o = rc ? NULL : ofile_open(&of, path, &e);
    if (!rc && !o)
        rc = die("%s", e.msg);
    if (o) {
        fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ckptnet size</title>\n"
              "<style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
              "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
              "padding:2px 6px;text-align:right}th{background:#eee}td.l{text-align:left}"
              "tr.rec td{background:#fff3e0}svg{max-width:100%;height:auto}"
              "pre{font-size:12px;background:#f7f7f7;padding:4px}</style></head><body>\n"
              "<h1>ckptnet size</h1>\n<p>",
              o);
        size_t n_run = 0, n_ok = 0, n_feas = 0;
        for (size_t i = 0; i < x->n; i++) {
            n_run += x->c[i].run;
            n_ok += x->c[i].ok;
            n_feas += x->c[i].feasible;
        }
        fprintf(o, "%zu designs, %zu screened by the fluid engine (%zu finished, %zu meet the "
                   "targets:", x->n, n_run, n_ok, n_feas);
        for (int i = 0; i < nt; i++) {
            fputc(' ', o);
            report_html_text(o, t[i].text);
        }
        fputs(nt ? "" : " none", o);
        fputs("); prices: ", o);
        report_html_text(o, x->base->cost.prices);
        fprintf(o, "; money in ");
        report_html_text(o, cur);
        fputs(".</p>\n<h2>The front</h2>\n", o);
        if (!plotted || report_inline_svg(o, dir, "front.svg", "sz_") < 0)
            fputs("<p>No plot (gnuplot did not draw it).</p>\n", o);
        if (!nf)
            fputs("<p>No design meets the targets.</p>\n", o);
        else
            fprintf(o, "<p>%zu point%s: each costs more a day and loses less than the one "
                       "before.%s Recommended: #%ld, the least cost plus loss a day.</p>\n",
                    nf, nf == 1 ? "" : "s",
                    flat ? " The loss is flat across the front: the cheapest feasible design "
                           "wins."
                         : "",
                    rec);
        fprintf(o, "<table><tr><th>#</th><th>cost/day</th><th>capital</th><th>power/day</th>"
                   "<th>loss/day</th><th>save s</th><th>stall s</th><th>restore s</th>"
                   "<th>overhead</th><th>bottleneck</th><th>switches</th><th>design</th></tr>\n");
        for (size_t i = 0; i < nf; i++) {
            const struct cand *c = &x->c[front[i]];
            char shape[200], r[32] = "-";
            shape_text(c, shape, sizeof shape);
            if (!isnan(c->restore_s))
                snprintf(r, sizeof r, "%.3f", c->restore_s);
            fprintf(o, "<tr%s><td>%zu</td><td>%.2f</td><td>%.0f</td><td>%.2f</td><td>%.2f</td>"
                       "<td>%.3f</td><td>%.4g</td><td>%s</td><td>%.3f%%</td><td class=l>%s</td>"
                       "<td>%u</td><td class=l>",
                    (long)front[i] == rec ? " class=rec" : "", front[i], c->total_day,
                    c->price.capital, c->price.power_per_day, c->loss_day, c->save_s,
                    c->stall_s, r, 100 * c->overhead,
                    c->bottleneck >= 0 ? path_seg_label(c->bottleneck) : "-",
                    design_switches(&c->d));
            report_html_text(o, shape);
            fputs("</td></tr>\n", o);
        }
        fputs("</table>\n<h2>Bills of materials</h2>\n", o);
        for (size_t i = 0; i < nf; i++) {
            char *bom = NULL;
            size_t blen = 0;
            FILE *m = open_memstream(&bom, &blen);
            if (!m)
                continue;
            put_bom(m, x, &x->c[front[i]], cur);
            fclose(m);
            fprintf(o, "<h3>#%zu</h3>\n<pre>", front[i]);
            report_html_text(o, bom ? bom : "");
            fputs("</pre>\n", o);
            free(bom);
        }
        fputs("</body></html>\n", o);
        if (ofile_commit(&of, &e) < 0)
            rc = die("%s", e.msg);
    }
    unlink(f1);
    unlink(f2);
    unlink(f3);
    unlink(gp);
    unlink(svg);
    unlink(gerr);
    rmdir(dir);
    return rc;
}

static int write_json(const char *path, const struct size_ctx *x, const struct target *t, int nt,
                      const size_t *front, size_t nf, long rec, int flat)
{
    json_t *root = json_object(), *ta = json_array(), *all = json_array(), *fr = json_array();
    for (int i = 0; i < nt; i++)
        json_array_append_new(ta, json_string(t[i].text));
    json_object_set_new(root, "targets", ta);
    json_object_set_new(root, "prices", json_string(x->base->cost.prices));
    json_object_set_new(root, "currency", json_string(x->base->training.currency));
    for (size_t i = 0; i < x->n; i++)
        json_array_append_new(all, cand_json(x, &x->c[i], i));
    for (size_t i = 0; i < nf; i++)
        json_array_append_new(fr, json_integer((json_int_t)front[i]));
    json_object_set_new(root, "candidates", all);
    json_object_set_new(root, "front", fr);
    json_object_set_new(root, "loss_flat", json_boolean(flat));
    json_object_set_new(root, "recommended", rec >= 0 ? json_integer(rec) : json_null());
    int rc = json_dump_file(root, path, JSON_INDENT(1)) == 0 ? 0 : die("--json %s: cannot write", path);
    json_decref(root);
    return rc;
}

/* The designer's ratios of spine links down to super-spine links up
 * (--knob spine_oversub=1,2,...): a bit each in in->spine_ratios. */
#define SPINE_OVERSUB_DEFAULT "1,2"
static int design_axes_parse(struct design_input *in, const char *ratios)
{
    in->spine_ratios = 0;
    for (const char *p = ratios; *p;) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || r < 1 || r > 31)
            return die("--knob spine_oversub=%s: expected ratios from 1 to 31 (r for r:1), "
                       "comma separated", ratios);
        in->spine_ratios |= 1u << r;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* Where three-tier designs put the storage leaves (--knob
 * storage_pods=pod,spread): a bit each in in->storage_pods. */
#define STORAGE_PODS_DEFAULT "pod"
static int design_spods_parse(struct design_input *in, const char *list)
{
    in->storage_pods = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int bit = len == 3 && !strncmp(p, "pod", 3)      ? 1
                  : len == 6 && !strncmp(p, "spread", 6) ? 2
                                                         : 0;
        if (!bit)
            return die("--knob storage_pods=%s: expected pod or spread (storage leaves in "
                       "pods of their own or in the compute pods), comma separated", list);
        in->storage_pods |= (uint32_t)bit;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* The breakouts the designer may use (--knob breakout=1,2,4): a bit each
 * in in->breakouts. */
#define BREAKOUT_DEFAULT "1"
static int design_bo_parse(struct design_input *in, const char *list)
{
    in->breakouts = 0;
    for (const char *p = list; *p;) {
        char *end;
        long b = strtol(p, &end, 10);
        if (end == p || (*end && *end != ',') || (b != 1 && b != 2 && b != 4))
            return die("--knob breakout=%s: expected 1, 2 or 4 (lanes a switch port), comma "
                       "separated", list);
        in->breakouts |= 1u << b;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* A fixed breakout the designer must try: --fix fabric.breakout=B alone
 * tries B (no --knob breakout); a tier's breakout fixed outside the
 * breakouts tried is refused, saying which knob tries it. */
static int fix_breakouts(struct design_input *in, const char *const *fixes, int n, int knob)
{
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof bo_keys / sizeof bo_keys[0]; k++) {
            size_t kl = strlen(bo_keys[k]);
            if (strncmp(fixes[i], bo_keys[k], kl) || fixes[i][kl] != '=')
                continue;
            char *end;
            const char *v = fixes[i] + kl + 1;
            long b = strtol(v, &end, 10);
            if (end == v || *end || (b != 1 && b != 2 && b != 4))
                return die("--fix %s: expected 1, 2 or 4 (lanes a switch port)", fixes[i]);
            if (k == 0 && !knob)
                in->breakouts = 1u << b;
            else if (!(in->breakouts & 1u << b))
                return die("--fix %s: the designer does not try breakout %ld; add --knob "
                           "breakout=1,%ld (fabric.breakout=B fixes every tier's: "
                           "fabric.leaf_down_breakout, fabric.leaf_up_breakout, "
                           "fabric.spine_breakout)", fixes[i], b, b);
        }
    return 0;
}

static int size_main(int argc, char **argv, struct sweep_par *par, int *agreed)
{
    const char *file = NULL, *json = NULL, *csv = NULL, *yaml = NULL, *html = NULL;
    const char *sets[MAX_SETS], *switches = NULL, *tiers = NULL, *stor = NULL;
    const char *spine_ox = SPINE_OVERSUB_DEFAULT, *bo_list = BREAKOUT_DEFAULT;
    const char *spods = NULL;
    int n_sets = 0, nt = 0, list = 0, jobs = 1, no_prune = 0, quiet = 0, prune_tiers = 0;
    int bo_knob = 0;
    uint32_t finalists = 0, seeds = 1;
    size_t max_runs = 20000;
    struct target t[MAX_TARGETS];
    struct size_ctx x;
    memset(&x, 0, sizeof x);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int valued = !strcmp(a, "--target") || !strcmp(a, "--fix") || !strcmp(a, "--knob") ||
                     !strcmp(a, "--set") || !strcmp(a, "-j") || !strcmp(a, "--json") ||
                     !strcmp(a, "--csv") || !strcmp(a, "--yaml") || !strcmp(a, "--max-runs") ||
                     !strcmp(a, "--html") || !strcmp(a, "--packet-finalists") ||
                     !strcmp(a, "--seeds");
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_size, stdout);
            return 0;
        }
        if (valued && !v)
            return die("%s needs a value (see ckptnet size --help)", a);
        if (!strcmp(a, "--target")) {
            if (nt == MAX_TARGETS)
                return die("at most %d --target", MAX_TARGETS);
            if (parse_target(v, &t[nt++]))
                return 2;
        } else if (!strcmp(a, "--fix") || !strcmp(a, "--set")) {
            if (n_sets == MAX_SETS || x.n_fix == MAX_SETS)
                return die("too many %s", a);
            if (!strchr(v, '='))
                return die("%s %s: expected key=value", a, v);
            if (!strcmp(a, "--fix"))
                x.fixes[x.n_fix++] = v;
            else
                sets[n_sets++] = v;
        } else if (!strcmp(a, "--knob")) {
            if (!strncmp(v, "switches=", 9))
                switches = v + 9;
            else if (!strncmp(v, "tiers=", 6))
                tiers = v + 6;
            else if (!strncmp(v, "storage.nodes=", 14))
                stor = v + 14;
            else if (!strncmp(v, "spine_oversub=", 14))
                spine_ox = v + 14;
            else if (!strncmp(v, "breakout=", 9))
                bo_list = v + 9, bo_knob = 1;
            else if (!strncmp(v, "storage_pods=", 13))
                spods = v + 13;
            else if (parse_knob(&x, v))
                return 2;
        } else if (!strcmp(a, "-j") || !strcmp(a, "--max-runs") ||
                   !strcmp(a, "--packet-finalists") || !strcmp(a, "--seeds")) {
            char *end;
            long n = strtol(v, &end, 10);
            long most = !strcmp(a, "-j") ? 64 : !strcmp(a, "--max-runs") ? 10000000 : 100;
            if (*end || n < 1 || n > most)
                return die("%s %s: expected a whole number from 1 to %ld", a, v, most);
            if (!strcmp(a, "-j"))
                jobs = (int)n;
            else if (!strcmp(a, "--max-runs"))
                max_runs = (size_t)n;
            else if (!strcmp(a, "--seeds"))
                seeds = (uint32_t)n;
            else
                finalists = (uint32_t)n;
        } else if (!strcmp(a, "--json")) {
            json = v;
        } else if (!strcmp(a, "--csv")) {
            csv = v;
        } else if (!strcmp(a, "--yaml")) {
            yaml = v;
        } else if (!strcmp(a, "--html")) {
            html = v;
        } else if (!strcmp(a, "--list")) {
            list = 1;
            continue;
        } else if (!strcmp(a, "--no-prune")) {
            no_prune = 1;
            continue;
        } else if (!strcmp(a, "--prune-tiers")) {
            prune_tiers = 1;
            continue;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = 1;
            continue;
        } else if (a[0] == '-') {
            return die("unknown option %s (see ckptnet size --help)", a);
        } else if (file) {
            return die("one scenario file, got %s and %s", file, a);
        } else {
            file = a;
            continue;
        }
        i++;
    }

    struct err e = {{0}};
    x.base = malloc(sizeof *x.base);
    if (!x.base)
        return die("out of memory");
    scenario_defaults(x.base);
    int rc = 2;
    if (file && scenario_load_file(x.base, file, &e) < 0) {
        die("%s", e.msg);
        goto out;
    }
    for (int i = 0; i < n_sets; i++)
        if (scenario_set(x.base, sets[i], &e) < 0) {
            die("%s", e.msg);
            goto out;
        }
    if (x.base->fabric.rails > 1) {
        die("fabric.rails: size designs fabrics of one rail (each node's NICs on one leaf); "
            "set fabric.rails: 1");
        goto out;
    }
    for (int i = 0; i < nt; i++)
        if (t[i].m == M_ENDURANCE && !(x.base->storage.drive_dwpd > 0)) {
            die("--target %s: drive writes per day against a rating need storage.drive_dwpd "
                "(with storage.drives and storage.drive_capacity)", t[i].text);
            goto out;
        }
    if (!strcmp(x.base->cost.prices, "none") &&
        scenario_set(x.base, "cost.prices=reference", &e) < 0) {
        die("%s", e.msg);
        goto out;
    }
    if (cost_prices_parse(x.base->cost.prices, x.pr, &x.np, &e) < 0) {
        die("%s", e.msg);
        goto out;
    }
    /* the designer's inputs */
    struct design_input *in = &x.in;
    in->nodes = x.base->cluster.nodes;
    in->nics = x.base->cluster.nics_per_node;
    in->nic_bps = x.base->cluster.nic_bps;
    in->snics = x.base->storage.nics_per_node;
    in->snic_bps = x.base->storage.nic_bps;
    in->max_tiers = 3;
    if (tiers) {
        if (!strcmp(tiers, "2"))
            in->max_tiers = 2;
        else if (strcmp(tiers, "2,3") && strcmp(tiers, "3")) {
            die("--knob tiers=%s: expected 2, 3 or 2,3", tiers);
            goto out;
        }
        if (!strcmp(tiers, "3"))
            x.fixes[x.n_fix++] = "fabric.tiers=3";
    }
    /* --fix fabric.storage_pods=spread without the knob asks for those designs */
    for (int i = 0; i < x.n_fix && !spods; i++)
        if (!strncmp(x.fixes[i], "fabric.storage_pods=", 20))
            spods = x.fixes[i] + 20;
    if (design_axes_parse(in, spine_ox) || design_bo_parse(in, bo_list) ||
        fix_breakouts(in, x.fixes, x.n_fix, bo_knob) ||
        design_spods_parse(in, spods ? spods : STORAGE_PODS_DEFAULT))
        goto out;
    char names[512];
    if (switches) {
        snprintf(names, sizeof names, "%s", switches);
    } else { /* the scenario's profiles */
        snprintf(names, sizeof names, "%s", x.base->fabric.switch_profile);
        if (scenario_is_set(x.base, "fabric.leaf_switch") &&
            strcmp(x.base->fabric.leaf_switch, names))
            snprintf(names + strlen(names), sizeof names - strlen(names), ",%s",
                     x.base->fabric.leaf_switch);
        if (scenario_is_set(x.base, "fabric.spine_switch") &&
            !strstr(names, x.base->fabric.spine_switch))
            snprintf(names + strlen(names), sizeof names - strlen(names), ",%s",
                     x.base->fabric.spine_switch);
    }
    char *save = NULL;
    for (char *tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const struct switch_profile *p = switch_profile_find(tok);
        if (!p) {
            die("--knob switches: unknown switch profile \"%s\" (ckptnet catalog lists them)",
                tok);
            goto out;
        }
        if (in->n_prof == DESIGN_MAX_PROFILES) {
            die("--knob switches: at most %d profiles", DESIGN_MAX_PROFILES);
            goto out;
        }
        in->prof[in->n_prof++] = p;
    }
    uint32_t storage[MAX_STORAGE], n_storage = 0;
    if (stor) {
        char sbuf[256];
        snprintf(sbuf, sizeof sbuf, "%s", stor);
        for (char *tok = strtok_r(sbuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            char *end;
            long n = strtol(tok, &end, 10);
            if (*end || n < 1 || n > 100000 || n_storage == MAX_STORAGE) {
                die("--knob storage.nodes=%s: expected up to %d counts from 1 to 100000", stor,
                    MAX_STORAGE);
                goto out;
            }
            storage[n_storage++] = (uint32_t)n;
        }
    } else {
        storage[n_storage++] = x.base->storage.nodes;
    }

    x.cap = 200000;
    x.c = malloc(x.cap * sizeof *x.c);
    if (!x.c) {
        die("out of memory");
        goto out;
    }
    /* every variant (combination of --knob values), checked and with its
     * storage NICs, crossed with every storage count and design */
    x.n_var = 1;
    for (uint32_t k = 0; k < x.n_knob; k++)
        if ((x.n_var *= x.knob[k].n) > MAX_VARIANTS) {
            die("--knob: more than %d combinations of values", MAX_VARIANTS);
            goto out;
        }
    struct scenario *vs = malloc(sizeof *vs);
    if (!vs) {
        die("out of memory");
        goto out;
    }
    for (x.var = 0; x.var < x.n_var && !x.dropped; x.var++) {
        *vs = *x.base;
        if (variant_set(&x, x.var, vs, &e) < 0) {
            free(vs);
            die("--knob: %s", strncmp(e.msg, "--set: ", 7) ? e.msg : e.msg + 7);
            goto out;
        }
        /* the fixes of scenario keys the designer does not own hold for
         * every candidate: the variant's bill sees them too */
        for (int i = 0; i < x.n_fix; i++) {
            size_t kl = strcspn(x.fixes[i], "=");
            int owned = 0;
            for (size_t j = 0; j < n_design_owned && !owned; j++)
                owned = strlen(design_owned[j]) == kl && !strncmp(x.fixes[i], design_owned[j], kl);
            if (!owned && scenario_set(vs, x.fixes[i], &e) < 0) {
                free(vs);
                die("--fix: %s", strncmp(e.msg, "--set: ", 7) ? e.msg : e.msg + 7);
                goto out;
            }
        }
        in->snics = vs->storage.nics_per_node;
        in->snic_bps = vs->storage.nic_bps;
        in->train_fabric = vs->training.isolation == ISO_PHYSICAL;
        /* a storage.profile knob's NICs, unless set (storage_resolve's rule):
         * the run of the candidate builds them */
        const struct storage_profile *sp = storage_profile_find(vs->storage.profile);
        if (sp && sp->nics && !scenario_is_set(vs, "storage.nics_per_node"))
            in->snics = sp->nics;
        if (sp && sp->nics && !scenario_is_set(vs, "storage.nic_speed"))
            in->snic_bps = sp->nic_bps;
        cost_storage_bill(&x.sbill, vs, x.pr, x.np);
        for (uint32_t s = 0; s < n_storage && !x.dropped; s++) {
            x.storage = in->storage = storage[s];
            design_each(in, collect, &x);
        }
    }
    free(vs);
    if (x.dropped)
        fprintf(stderr, "ckptnet size: more than %zu designs: the first %zu kept (narrow with "
                        "--fix or --knob)\n", x.cap, x.cap);
    if (!x.n) {
        die("no valid design: %u nodes of %u x %.0f Gbps NICs on %s (a NIC faster than the "
            "leaf ports, or --fix excluding every design)",
            in->nodes, in->nics, (double)in->nic_bps / 1e9, switches ? switches : names);
        goto out;
    }
    const char *cur = x.base->training.currency;

    /* cheapest first; one run a leaf shape */
    size_t *order = malloc(x.n * sizeof *order), *tmp = malloc(x.n * sizeof *tmp);
    x.queue = malloc(x.n * sizeof *x.queue);
    if (!order || !tmp || !x.queue) {
        free(order);
        free(tmp);
        die("out of memory");
        goto out;
    }
    for (size_t i = 0; i < x.n; i++)
        order[i] = i;
    sort_idx(order, x.n, tmp, x.c, by_cost);
    /* one run a leaf shape, its cheapest design: shapes grouped, each group
     * in cost order (the sort is stable) */
    size_t *shape = malloc(x.n * sizeof *shape);
    if (!shape) {
        free(order);
        free(tmp);
        die("out of memory");
        goto out;
    }
    memcpy(shape, order, x.n * sizeof *shape);
    sort_idx(shape, x.n, tmp, x.c, by_shape);
    for (size_t i = 0; i < x.n; i++)
        x.c[shape[i]].leader = i && !by_shape(x.c, shape[i - 1], shape[i])
                                   ? x.c[shape[i - 1]].leader
                                   : (uint32_t)shape[i];
    free(shape);
    for (size_t i = 0; i < x.n && x.n_queue < max_runs; i++)
        if (x.c[order[i]].leader == order[i])
            x.queue[x.n_queue++] = order[i];
    free(tmp);
    printf("ckptnet size: %zu designs of %u nodes (%u x %.0f Gbps NICs) on %s", x.n, in->nodes,
           in->nics, (double)in->nic_bps / 1e9, switches ? switches : names);
    if (x.n_var > 1)
        printf(" (%u combinations of --knob values)", x.n_var);
    printf("; %zu leaf shapes to screen%s; prices: %s\n", x.n_queue,
           x.n_queue == max_runs ? " (--max-runs)" : "", x.base->cost.prices);
    if (list) {
        put_header(stdout, cur);
        for (size_t i = 0; i < x.n; i++) {
            struct cand *c = &x.c[order[i]];
            c->total_day = c->price.per_day;
            put_row(stdout, c, order[i], cur);
            put_bom(stdout, &x, c, cur);
        }
        rc = 0;
        free(order);
        goto out;
    }
    x.prune = !no_prune;
    x.prune_tiers = prune_tiers && !no_prune;
    x.quiet = quiet || par->rank != 0;
    x.t = t;
    x.nt = nt;
    x.fen = malloc((x.n_queue + 1) * sizeof *x.fen);
    if (!x.fen) {
        free(order);
        die("out of memory");
        goto out;
    }
    for (size_t i = 0; i <= x.n_queue; i++)
        x.fen[i] = INFINITY;
    x.n_side = 2 * x.n_queue + 1;
    x.side = calloc(x.n_side, sizeof *x.side);
    if (!x.side) {
        free(order);
        die("out of memory");
        goto out;
    }
    /* MPI: every rank has set up the same screen (or all stop) */
    *agreed = 1;
    if ((rc = sweep_par_agree(par, 0)) != 0)
        goto out;
    keep_heap();
    x.t0 = x.shown = now_s();
    pthread_mutex_init(&x.mu, NULL);
    struct rank_ud ud = {.x = &x};
    struct size_rank_ops ops = {.ud = &ud, .job_len = sizeof(struct size_job),
                                .res_len = sizeof(struct size_res), .take = rank_take,
                                .record = rank_record, .work = rank_work};
    if (par->mpi && par->rank != 0) {
        /* a rank other than 0: screen what rank 0 sends; rank 0 writes */
        ud.sc = malloc(sizeof *ud.sc);
        ud.r = malloc(sizeof *ud.r);
        ud.pre = malloc(sizeof *ud.pre);
        ud.prep = ckpt_prepared_new();
        size_mpi_work(par, &ops);
        free(ud.sc);
        free(ud.r);
        free(ud.pre);
        ckpt_prepared_free(ud.prep);
        pthread_mutex_destroy(&x.mu);
        goto out;
    }
    pthread_t th[64];
    int started = 0;
    /* under MPI the main thread serves the ranks and -j threads screen */
    for (int i = par->live ? 0 : 1; i < jobs; i++)
        if (pthread_create(&th[started], NULL, worker, &x) == 0)
            started++;
    if (par->live) {
        size_mpi_serve(par, &ops);
        /* the ranks' work is done: let them leave now rather than wait
         * (busy, in MPI) through the packet check and the outputs */
        sweep_par_end(par, 0);
    } else {
        worker(&x);
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    progress(&x, 1);
    pthread_mutex_destroy(&x.mu);

    /* feasible points and their front (cost per day against loss per day) */
    size_t *front = malloc(x.n * sizeof *front), nf = 0, n_ok = 0, n_feas = 0, n_err = 0;
    long rec = -1;
    for (size_t i = 0; i < x.n; i++) {
        struct cand *c = &x.c[order[i]];
        c->total_day = c->price.per_day + (c->ok ? c->wear_day : 0.0);
        n_err += c->run && !c->ok;
        if (!c->ok)
            continue;
        n_ok++;
        c->feasible = meets(c, t, nt);
        n_feas += c->feasible;
    }
    /* drive wear moves a point's cost after its run: the front goes by the
     * whole cost (stable: equal costs keep the queue's order) */
    size_t *tmp2 = malloc(x.n * sizeof *tmp2);
    int sorted = tmp2 != NULL;
    if (tmp2)
        sort_idx(order, x.n, tmp2, x.c, by_total);
    free(tmp2);
    double best_loss = INFINITY;
    for (size_t i = 0; front && sorted && i < x.n; i++) { /* by rising cost: each must lose less */
        struct cand *c = &x.c[order[i]];
        if (!c->feasible || !(c->loss_day < best_loss * (1 - 1e-9)))
            continue;
        c->front = 1;
        best_loss = c->loss_day;
        front[nf++] = order[i];
    }
    /* equal costs: the later point of one cost may lose less than the earlier */
    size_t kept = 0;
    for (size_t i = 0; i < nf; i++) {
        const struct cand *c = &x.c[front[i]];
        int dominated = 0;
        for (size_t j = 0; j < nf && !dominated; j++) {
            const struct cand *o = &x.c[front[j]];
            dominated = j != i && o->total_day <= c->total_day && o->loss_day <= c->loss_day &&
                        (o->total_day < c->total_day || o->loss_day < c->loss_day);
        }
        if (dominated)
            x.c[front[i]].front = 0;
        else
            front[kept++] = front[i];
    }
    nf = kept;
    double lo = INFINITY, hi = 0, best_total = INFINITY;
    for (size_t i = 0; i < nf; i++) {
        const struct cand *c = &x.c[front[i]];
        lo = fmin(lo, c->loss_day);
        hi = fmax(hi, c->loss_day);
        if (c->total_day + c->loss_day < best_total) {
            best_total = c->total_day + c->loss_day;
            rec = (long)front[i];
        }
    }
    int flat = nf == 1 || (nf > 1 && hi - lo <= 0.01 * (x.c[front[0]].total_day));
    size_t n_pr = x.n_pruned[PRUNE_TARGET] + x.n_pruned[PRUNE_DOMINATED] +
                  x.n_pruned[PRUNE_TIERS];
    printf("screened %zu (fluid engine): %zu finished, %zu failed; %zu meet", x.n_queue - n_pr,
           n_ok, n_err, n_feas);
    for (int i = 0; i < nt; i++)
        printf("%s%s", i ? ", " : " ", t[i].text);
    if (!nt)
        printf(" (no target)");
    printf("; money in %s\n", cur);
    if (n_pr)
        printf("pruned %zu more by their bound (no engine run): %zu miss a target, %zu lose no "
               "less than a cheaper feasible point\n",
               n_pr - x.n_pruned[PRUNE_TIERS], x.n_pruned[PRUNE_TARGET],
               x.n_pruned[PRUNE_DOMINATED]);
    if (par->ranks > 1)
        printf("MPI: %d ranks beside rank 0 screened %zu of the %zu shapes (rank 0: %d "
               "thread%s)\n", par->ranks - 1, x.by_ranks, x.n_queue, jobs, jobs == 1 ? "" : "s");
    if (x.n_pruned[PRUNE_TIERS])
        printf("pruned %zu three-tier shapes with more switches than a feasible two-tier point "
               "(--prune-tiers: the front may lose three-tier points)\n",
               x.n_pruned[PRUNE_TIERS]);
    if (x.n_below)
        printf("warning: %zu runs ended below their bound; rerun with --no-prune\n", x.n_below);
    /* say why, not only how many: a failure is often a key every candidate
     * of a knob lacks (the async policy without cluster.d2h_rate) */
    for (size_t i = 0; n_err && i < x.n; i++)
        if (x.c[order[i]].run && !x.c[order[i]].ok) {
            printf("the first failure (each failed point's is in the JSON's error): %s\n",
                   x.c[order[i]].err);
            break;
        }
    if (!nf) {
        printf("no design meets the targets");
        double bo = INFINITY;
        for (size_t i = 0; i < x.n; i++)
            if (x.c[i].ok)
                bo = fmin(bo, x.c[i].overhead);
        if (isfinite(bo))
            printf(" (the least checkpoint overhead screened: %.3f%%)", 100 * bo);
        printf("\n");
    } else {
        printf("front: %zu point%s, cost per day (capital over %.3g years + power + drive wear) against "
               "checkpoint loss per day\n",
               nf, nf == 1 ? "" : "s", x.base->cost.amortisation_years);
        put_header(stdout, cur);
        for (size_t i = 0; i < nf; i++) {
            put_row(stdout, &x.c[front[i]], front[i], cur);
            put_bom(stdout, &x, &x.c[front[i]], cur);
        }
        if (flat)
            printf("the loss is flat across the front (within 1%% of the cheapest point's "
                   "cost): the cheapest feasible design wins\n");
        printf("recommended: #%ld, the least cost plus loss a day (%.2f %s)\n", rec, best_total,
               cur);
        if (finalists)
            packet_check(&x, t, nt, front, nf, finalists, seeds, jobs, &rec);
    }
    rc = 0;
    if (csv) {
        FILE *f = !strcmp(csv, "-") ? stdout : fopen(csv, "w");
        if (!f) {
            rc = die("--csv %s: %s", csv, strerror(errno));
        } else {
            put_csv(f, &x);
            if (f != stdout && fclose(f) != 0)
                rc = die("--csv %s: %s", csv, strerror(errno));
        }
    }
    if (json && write_json(json, &x, t, nt, front, nf, rec, flat))
        rc = 2;
    if (html && write_html(html, &x, t, nt, front, nf, rec, flat))
        rc = 2;
    if (yaml && rec >= 0 && write_yaml(yaml, &x, &x.c[rec]))
        rc = 2;
    else if (yaml && rec < 0)
        fprintf(stderr, "ckptnet size: --yaml %s not written: no design meets the targets\n",
                yaml);
    free(front);
    free(order);
out:
    free(x.queue);
    free(x.fen);
    free(x.side);
    free(x.c);
    free(x.base);
    return rc;
}

int cmd_size(int argc, char **argv)
{
    struct sweep_par par;
    int agreed = 0, rc = sweep_par_init(&par, "size");
    if (rc)
        return rc;
    if (par.rank != 0) /* rank 0 alone writes the table */
        if (!freopen("/dev/null", "w", stdout))
            return 2;
    rc = size_main(argc, argv, &par, &agreed);
    if (!agreed) {
        /* stopped before the screen (an error, --list): no rank serves */
        rc = sweep_par_agree(&par, rc);
        par.live = 0;
    }
    return sweep_par_end(&par, rc);
}
