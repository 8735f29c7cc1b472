/* Checkpoint plan: the writer rules of docs/checkpoint.md. */
#include "plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* More ranks than this would need gigabytes just for the plan. */
#define MAX_RANKS UINT32_C(4194304)

/* Share i of n of x: x/n, the remainder to the first shares. */
static uint64_t share(uint64_t x, uint64_t n, uint64_t i)
{
    return x / n + (i < x % n ? 1 : 0);
}

/* ---- dcp deduplication ------------------------------------------------- */

/* Min-heap of DP ranks by planned bytes (ties: lower index), for DCP's
 * "a replicated item goes to the rank with the fewest planned bytes". */
struct load_heap {
    uint64_t *bytes; /* by dp index */
    uint32_t *h;     /* heap of dp indexes */
    uint32_t n;
};

static int heap_less(const struct load_heap *q, uint32_t a, uint32_t b)
{
    return q->bytes[a] < q->bytes[b] || (q->bytes[a] == q->bytes[b] && a < b);
}

static void heap_down(struct load_heap *q, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < q->n && heap_less(q, q->h[l], q->h[m]))
            m = l;
        if (r < q->n && heap_less(q, q->h[r], q->h[m]))
            m = r;
        if (m == i)
            return;
        uint32_t t = q->h[i];
        q->h[i] = q->h[m];
        q->h[m] = t;
        i = m;
    }
}

static void heapify(struct load_heap *q)
{
    for (uint32_t i = q->n / 2 + 1; i > 0;)
        heap_down(q, --i);
}

/* Assign `total` bytes of replicated state, cut into the tensors of
 * n_layers Llama-like layers (q, k, v, o, gate, up, down in the model's
 * proportions) repeated `copies` times (weights: 1; optimizer: master and
 * moments), item by item to the least-loaded DP rank. Without a layer
 * structure the state splits evenly. */
static void dedup(struct load_heap *q, uint64_t total, uint32_t n_layers,
                  uint32_t copies, const struct model_spec *m)
{
    if (!n_layers || !copies) {
        for (uint32_t d = 0; d < q->n; d++)
            q->bytes[d] += share(total, q->n, d);
        heapify(q);
        return;
    }
    heapify(q);
    const double rel[7] = {1.0, m->kv_ratio, m->kv_ratio, 1.0, m->ffn_ratio,
                           m->ffn_ratio, m->ffn_ratio};
    double layer = 0;
    for (int k = 0; k < 7; k++)
        layer += rel[k];
    uint64_t items = (uint64_t)n_layers * 7 * copies, given = 0;
    for (uint64_t it = 0; it < items; it++) {
        uint64_t b;
        if (it + 1 == items) {
            b = total - given; /* the rounding goes to the last item */
        } else {
            double f = rel[it % 7] / (layer * (double)n_layers * copies);
            b = (uint64_t)((double)total * f);
            if (b > total - given)
                b = total - given;
        }
        given += b;
        q->bytes[q->h[0]] += b;
        heap_down(q, 0);
    }
}

/* ---- rules ------------------------------------------------------------- */

static int model_checks(const struct scenario *sc, struct plan *p, struct err *e)
{
    const struct model_spec *m = model_lookup(sc->model.name);
    if (sc->model.name == MODEL_CUSTOM && sc->model.params == 0)
        return err_set(e, "model.params: model.name custom needs model.params > 0");
    if (sc->model.name != MODEL_CUSTOM && sc->model.params != 0)
        return err_set(e, "model.params: only used with model.name: custom "
                          "(%s has %" PRIu64 " parameters)", m->name, m->params);
    if (sc->model.weights_dtype == DTYPE_NONE)
        return err_set(e, "model.weights_dtype: the weights need a dtype, got none");
    if (sc->model.optimizer_dtype == DTYPE_NONE)
        return err_set(e, "model.optimizer_dtype: the optimizer moments need a "
                          "dtype, got none");
    uint64_t gpus = (uint64_t)sc->cluster.nodes * sc->cluster.gpus_per_node;
    if (gpus > MAX_RANKS)
        return err_set(e, "cluster.gpus_per_node: %" PRIu64 " GPUs in all; the "
                          "model form handles at most %" PRIu32, gpus, MAX_RANKS);
    uint64_t mp = (uint64_t)sc->parallelism.tp * sc->parallelism.pp;
    uint64_t dp = sc->parallelism.dp;
    if (dp == 0) {
        if (gpus % mp) {
            /* the nearest pipeline depths that fit, below and above */
            uint64_t tp = sc->parallelism.tp, pp = sc->parallelism.pp, lo = 0, hi = 0;
            char hint[96] = "";
            if (gpus % tp == 0) {
                uint64_t per = gpus / tp;
                for (lo = pp - 1; lo > 0 && per % lo; lo--)
                    ;
                for (hi = pp + 1; hi <= per && per % hi; hi++)
                    ;
                if (hi > per)
                    hi = 0;
                if (lo && hi)
                    snprintf(hint, sizeof hint, "; pp %" PRIu64 " or %" PRIu64 " would", lo, hi);
                else if (lo || hi)
                    snprintf(hint, sizeof hint, "; pp %" PRIu64 " would", lo ? lo : hi);
            }
            return err_set(e, "parallelism.tp: tp x pp = %" PRIu64 " does not divide "
                              "the %" PRIu64 " GPUs (cluster.nodes x "
                              "cluster.gpus_per_node)%s", mp, gpus, hint);
        }
        dp = gpus / mp;
    } else if (mp * dp != gpus) {
        return err_set(e, "parallelism.dp: tp x pp x dp = %" PRIu64 " must equal "
                          "the %" PRIu64 " GPUs (cluster.nodes x "
                          "cluster.gpus_per_node)", mp * dp, gpus);
    }
    if (sc->checkpoint.writer_rule == RULE_DEEPSPEED && sc->parallelism.zero_stage == 3
        && sc->parallelism.pp > 1)
        return err_set(e, "parallelism.zero_stage: DeepSpeed ZeRO-3 does not "
                          "combine with pipeline parallelism (pp = %" PRIu32 ")",
                       sc->parallelism.pp);
    p->tp = sc->parallelism.tp;
    p->pp = sc->parallelism.pp;
    p->dp = (uint32_t)dp;
    p->gpus = (uint32_t)gpus;
    return 0;
}

static int add_file(struct plan *p, uint32_t rank, uint64_t bytes)
{
    if (!bytes)
        return 0;
    p->files[p->n_files].rank = rank;
    p->files[p->n_files].bytes = bytes;
    p->n_files++;
    p->rank_bytes[rank] += bytes;
    p->total_bytes += bytes;
    return 0;
}

/* Per model-parallel rank m: the weights and optimizer bytes it holds. */
static void mp_state(const struct plan *p, uint32_t m, uint64_t *w, uint64_t *o)
{
    uint64_t mp = (uint64_t)p->tp * p->pp;
    /* params x bpp can pass 2^64 only beyond 1e18 bytes; limits keep it below */
    *w = share(p->params * p->weights_bpp, mp, m);
    *o = share(p->params * p->optimizer_bpp, mp, m);
}

static int build_model(struct plan *p, const struct scenario *sc, struct arena *a,
                       struct err *e)
{
    const struct model_spec *spec = model_lookup(sc->model.name);
    uint32_t R = p->gpus, dp = p->dp, mp = p->tp * p->pp;
    int rule = sc->checkpoint.writer_rule;
    uint32_t z = sc->parallelism.zero_stage;
    p->ranks = R;
    p->gpus_per_rank = 1;
    p->rank_bytes = arena_calloc(a, R, sizeof *p->rank_bytes);
    /* at most 2 state files and a small-state file per rank */
    p->files = arena_calloc(a, (size_t)R * (2 + sc->checkpoint.rank_state_files),
                            sizeof *p->files);
    uint64_t *model_b = arena_calloc(a, R, sizeof *model_b);
    uint64_t *optim_b = arena_calloc(a, R, sizeof *optim_b);
    struct load_heap q = {arena_calloc(a, dp, sizeof(uint64_t)),
                          arena_calloc(a, dp, sizeof(uint32_t)), dp};
    if (!p->rank_bytes || !p->files || !model_b || !optim_b || !q.bytes || !q.h)
        return err_set(e, "out of memory planning the checkpoint of %" PRIu32 " ranks", R);

    uint32_t layers = spec->layers ? spec->layers / p->pp : 0;
    if (spec->layers && !layers)
        layers = 1;
    uint32_t moments = sc->model.optimizer == OPT_ADAM ? 2 : 1;
    uint32_t opt_copies = moments + (dtype_bytes(sc->model.master_dtype == DTYPE_AUTO
                                                     ? DTYPE_FP32
                                                     : sc->model.master_dtype) ? 1 : 0);
    for (uint32_t m = 0; m < mp; m++) {
        uint64_t W, O;
        mp_state(p, m, &W, &O);
        uint32_t tpi = m % p->tp, ppi = m / p->tp;
        if (rule == RULE_DCP && z < 3) {
            /* replicated state deduplicated over the DP group */
            for (uint32_t d = 0; d < dp; d++) {
                q.bytes[d] = z >= 1 ? share(O, dp, d) : 0;
                q.h[d] = d;
            }
            dedup(&q, W, layers, 1, spec);
            if (z == 0)
                dedup(&q, O, layers, opt_copies, spec);
        }
        for (uint32_t d = 0; d < dp; d++) {
            uint32_t r = ppi * p->tp * dp + d * p->tp + tpi;
            switch (rule) {
            case RULE_DCP:
                model_b[r] = z < 3 ? q.bytes[d] : share(W, dp, d) + share(O, dp, d);
                break;
            case RULE_MEGATRON:
                /* replicated shards spread evenly; the distributed optimizer
                 * is already one shard per DP rank */
                model_b[r] = share(W, dp, d) + share(O, dp, d);
                break;
            case RULE_DEEPSPEED:
                if (z == 0) {
                    model_b[r] = d == 0 ? W + O : 0;
                } else if (z < 3) {
                    model_b[r] = d == 0 ? W : 0;
                    optim_b[r] = share(O, dp, d);
                } else {
                    model_b[r] = share(W, dp, d);
                    optim_b[r] = share(O, dp, d);
                }
                break;
            }
        }
    }
    for (uint32_t r = 0; r < R; r++) {
        add_file(p, r, model_b[r]);
        add_file(p, r, optim_b[r]);
        /* the small state, as that many files (step, scheduler, RNG, loader) */
        for (uint32_t k = 0; k < sc->checkpoint.rank_state_files; k++)
            add_file(p, r, share(sc->checkpoint.rank_state_bytes, sc->checkpoint.rank_state_files, k));
    }
    return 0;
}

static int build_simple(struct plan *p, const struct scenario *sc, struct arena *a,
                        struct err *e)
{
    uint32_t n = sc->cluster.nodes, k = sc->cluster.nics_per_node;
    p->ranks = n;
    p->gpus = n * sc->cluster.gpus_per_node;
    p->gpus_per_rank = sc->cluster.gpus_per_node;
    p->tp = p->pp = 1;
    p->dp = n;
    p->rank_bytes = arena_calloc(a, n, sizeof *p->rank_bytes);
    p->files = arena_calloc(a, (size_t)n * k, sizeof *p->files);
    if (!p->rank_bytes || !p->files)
        return err_set(e, "out of memory planning the checkpoint");
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t i = 0; i < k; i++) /* one file per NIC */
            add_file(p, r, share(sc->workload.bytes_per_writer, k, i));
    return 0;
}

int plan_build(struct plan *p, const struct scenario *sc, struct arena *a,
               struct err *e)
{
    memset(p, 0, sizeof *p);
    if (sc->model.name == MODEL_NONE) {
        if (build_simple(p, sc, a, e) < 0)
            return -1;
    } else {
        p->model_form = 1;
        if (model_checks(sc, p, e) < 0)
            return -1;
        struct bytes_per_param b = model_bytes_per_param(sc);
        p->params = model_params(sc);
        p->weights_bpp = b.weights;
        p->optimizer_bpp = b.optimizer;
        p->state_bytes = p->params * (b.weights + b.optimizer);
        if (build_model(p, sc, a, e) < 0)
            return -1;
    }
    for (uint32_t r = 0; r < p->ranks; r++)
        if (p->rank_bytes[r])
            p->writers++;
    if (!p->total_bytes)
        return err_set(e, "model.name: the checkpoint has no bytes");
    return 0;
}
