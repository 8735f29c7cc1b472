/* Workload: plan -> transfers (striping, NICs, policies, stragglers,
 * file creates). */
#include "work.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../core/units.h"
#include "../core/wire.h"
#include "policy.h"
#include "protect.h"


/* The hash placement hashes every chunk (twice); past this many chunks in
 * all, planning would take seconds. */
#define HASH_MAX_CHUNKS (UINT64_C(1) << 27)

void workload_fabric(const struct scenario *sc, struct scenario *fab)
{
    *fab = *sc;
    fab->cluster.nodes = sc->cluster.nodes * sc->cluster.nics_per_node;
    fab->fabric.hosts_per_leaf = sc->fabric.hosts_per_leaf * sc->cluster.nics_per_node /
                                 (sc->fabric.rails ? sc->fabric.rails : 1);
    fab->storage.nodes = sc->storage.nodes * sc->storage.nics_per_node;
    fab->fabric.storage_per_leaf = sc->fabric.storage_per_leaf * sc->storage.nics_per_node;
}

static int policy_checks(const struct scenario *sc, struct err *e)
{
    /* a library caller may hand any int: no row past the table */
    if (sc->checkpoint.policy < 0 || (uint32_t)sc->checkpoint.policy >= policy_count())
        return err_set(e, "checkpoint.policy: %d is not a policy (0 to %" PRIu32 ")",
                       sc->checkpoint.policy, policy_count() - 1);
    const struct policy_row *pol = policy_get(sc->checkpoint.policy);
    if (pol->check && pol->check(sc, e) < 0)
        return -1;
    if (sc->storage.stripe_start == START_RANDOM && sc->storage.placement != PLACE_ROUND_ROBIN)
        return err_set(e, "storage.stripe_start: random applies to storage.placement: "
                          "round_robin (file_mod starts file f at f mod nodes, hash "
                          "places every chunk)");
    if (sc->storage.stripe_count > sc->storage.nodes)
        return err_set(e, "storage.stripe_count: %" PRIu32 " is more than the %"
                          PRIu32 " storage nodes", sc->storage.stripe_count,
                       sc->storage.nodes);
    return 0;
}

/* ceil(x * num / den), at least 1; for splitting a rate cap by bytes. */
static uint64_t cap_share(uint64_t cap, uint64_t part, uint64_t whole)
{
    unsigned __int128 v = (unsigned __int128)cap * part + whole - 1;
    uint64_t r = (uint64_t)(v / whole);
    return r ? r : 1;
}

static uint64_t min_cap(uint64_t a, uint64_t b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    return a < b ? a : b;
}

/* Bytes of stripe k of a file of `bytes` with stripe size s over c nodes:
 * chunk j of s bytes goes to stripe j mod c. */
static uint64_t stripe_bytes(uint64_t bytes, uint64_t s, uint32_t c, uint32_t k)
{
    uint64_t full = bytes / s, rem = bytes % s;
    uint64_t b = (full / c + (k < full % c ? 1 : 0)) * s;
    if (k == full % c)
        b += rem;
    return b;
}

/* ---- placement (docs/checkpoint.md, Placement) ------------------------ */

struct placer {
    int rule;              /* enum placement */
    uint32_t M, c;         /* storage nodes, stripe count */
    uint64_t ss, salt;     /* stripe size; hash: seeded salt */
    uint32_t *start;       /* [files] round_robin, file_mod: node of stripe 0 */
    uint64_t *acc;         /* [M] hash: one file's bytes per node; zero between files */
    uint32_t *node;        /* [M] out: a file's nodes */
    uint64_t *bytes;       /* [M] out: its bytes on each */
};

/* hash: node of chunk j of file f, uniform over M (multiply-high, no
 * modulo bias to speak of) */
CKPT_WRAPS static uint32_t hash_node(const struct placer *pl, uint32_t f, uint64_t j)
{
    uint64_t h = mix64(mix64(pl->salt ^ f) + j);
    return (uint32_t)(((unsigned __int128)h * pl->M) >> 64);
}

/* The stripes a file of b bytes fills without hashing: a file of fewer
 * chunks than stripes fills only its first ones (visiting just those keeps
 * planning linear in transfers). */
static uint32_t stripes_used(const struct placer *pl, uint64_t b)
{
    uint64_t chunks = (b + pl->ss - 1) / pl->ss;
    return chunks < pl->c ? (uint32_t)chunks : pl->c;
}

/* The pieces of file f of b bytes: pl->node[i] holds pl->bytes[i] > 0 for
 * i below the count returned, each node once. */
static uint32_t place_file(struct placer *pl, uint32_t f, uint64_t b)
{
    uint64_t chunks = (b + pl->ss - 1) / pl->ss;
    if (pl->rule != PLACE_HASH) {
        uint32_t used = stripes_used(pl, b);
        for (uint32_t k = 0; k < used; k++) {
            pl->node[k] = (pl->start[f] + k) % pl->M;
            pl->bytes[k] = stripe_bytes(b, pl->ss, pl->c, k);
        }
        return used;
    }
    uint32_t n = 0;
    for (uint64_t j = 0; j < chunks; j++) {
        uint32_t d = hash_node(pl, f, j);
        if (!pl->acc[d])
            pl->node[n++] = d;
        pl->acc[d] += j + 1 < chunks ? pl->ss : b - j * pl->ss;
    }
    for (uint32_t i = 0; i < n; i++) {
        pl->bytes[i] = pl->acc[pl->node[i]];
        pl->acc[pl->node[i]] = 0;
    }
    return n;
}

/* A file's create request: its time, its place among its rank's files
 * (ranks save their files in the same sequence) and the file. */
struct file_req {
    uint64_t t;
    uint32_t slot, file;
};

/* Every file's request in file order, slot and file set, t left to the
 * caller; NULL when memory runs out. */
static struct file_req *file_reqs(const struct plan *p, struct arena *a)
{
    uint32_t n = p->n_files;
    struct file_req *q = arena_calloc(a, n ? n : 1, sizeof *q);
    for (uint32_t f = 0; q && f < n; f++) {
        q[f].slot = f && p->files[f - 1].rank == p->files[f].rank ? q[f - 1].slot + 1 : 0;
        q[f].file = f;
    }
    return q;
}

/* Create order: every rank's first file before any rank's second (ranks
 * save their files in the same sequence, in lockstep: DeepSpeed's model
 * states, then its optimizer states), then request time, then file index. */
static int create_cmp(const void *pa, const void *pb)
{
    const struct file_req *a = pa, *b = pb;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->file < b->file ? -1 : (a->file > b->file);
}

/* Node of each file's first stripe. round_robin: a cursor dealt in create
 * order advances by the stripe count per file; each time it has gone round
 * all nodes, striped files (count > 1, M mod count != 1) start one node
 * further on, so their first stripes do not pile up on the same nodes
 * (Lustre's allocator does the same, lod_qos.c); random: seeded, uniform. */
static int place_starts(struct placer *pl, const struct plan *p, const struct scenario *sc,
                        const uint64_t *wstart, const uint32_t *widx, struct arena *a,
                        struct err *e)
{
    uint32_t M = pl->M, c = pl->c, n = p->n_files;
    pl->start = arena_calloc(a, n ? n : 1, sizeof *pl->start);
    if (!pl->start)
        return err_set(e, "out of memory placing the files");
    struct rng r;
    rng_init(&r, sc->seed, RNG_PLACEMENT);
    pl->salt = rng_u64(&r);
    if (pl->rule == PLACE_FILE_MOD) {
        for (uint32_t f = 0; f < n; f++)
            pl->start[f] = f % M;
        return 0;
    }
    if (pl->rule != PLACE_ROUND_ROBIN)
        return 0;
    if (sc->storage.stripe_start == START_RANDOM) {
        for (uint32_t f = 0; f < n; f++)
            pl->start[f] = (uint32_t)rng_below(&r, M);
        return 0;
    }
    /* files already in create order (a file a rank, every writer starting
     * at once: the keys are distinct, so the sort would keep it) need no
     * request list and no sort, 16 bytes a file and a sort's copy less */
    int sorted = 1;
    for (uint32_t f = 1, slot = 0; f < n && sorted; f++) {
        uint32_t s = p->files[f - 1].rank == p->files[f].rank ? slot + 1 : 0;
        uint64_t t0 = wstart[widx[p->files[f - 1].rank]], t1 = wstart[widx[p->files[f].rank]];
        sorted = slot < s || (slot == s && t0 <= t1);
        slot = s;
    }
    struct file_req *q = sorted ? NULL : file_reqs(p, a);
    if (!sorted && !q)
        return err_set(e, "out of memory placing the files");
    for (uint32_t f = 0; q && f < n; f++)
        q[f].t = wstart[widx[p->files[f].rank]]; /* its writer's start */
    if (q)
        qsort(q, n, sizeof *q, create_cmp);
    uint32_t cur = 0, off = 0;
    for (uint32_t i = 0; i < n; i++) {
        pl->start[q ? q[i].file : i] = (uint32_t)(((uint64_t)cur + off) % M);
        cur += c; /* c <= M: no wrap past 2^32 */
        if (cur >= M) {
            cur %= M;
            if (c > 1 && M % c != 1)
                off = (off + 1) % M;
        }
    }
    return 0;
}

struct open_req {
    uint64_t t;     /* request time */
    uint32_t file, home;
};

/* One metadata-service op (1/storage.metadata_ops_per_s, rounded up); 0 =
 * unlimited. */
static uint64_t meta_op_ps(const struct scenario *sc)
{
    double r = sc->storage.metadata_ops;
    if (!(r > 0))
        return 0;
    double v = ceil((double)PS_PER_S / r);
    return v < 1 ? 1 : (uint64_t)v;
}

/* FIFO: request time, then every rank's first file before its second
 * (ranks create in lockstep), then file index */
static int meta_cmp(const void *pa, const void *pb)
{
    const struct file_req *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->slot != b->slot)
        return a->slot < b->slot ? -1 : 1;
    return a->file < b->file ? -1 : (a->file > b->file);
}

/* storage.metadata_ops_per_s: the one metadata service serves every create,
 * one at a time in request order; req[f].t becomes the end of file f's
 * create. Its slots are kept for the fsyncs (workload_durable). */
static int meta_creates(struct workload *w, const struct scenario *sc, const struct plan *p,
                        struct open_req *req, struct arena *a, struct arena *keep,
                        struct err *e)
{
    uint32_t n = p->n_files;
    w->n_files = n;
    w->meta_op_ps = meta_op_ps(sc);
    if (!w->meta_op_ps)
        return 0;
    struct file_req *q = file_reqs(p, a);
    w->create_slot = arena_calloc(keep, n ? n : 1, sizeof *w->create_slot);
    if (!q || !w->create_slot)
        return err_set(e, "out of memory planning the metadata service");
    for (uint32_t f = 0; f < n; f++)
        q[f].t = req[f].t;
    qsort(q, n, sizeof *q, meta_cmp);
    uint64_t free_at = 0, op = w->meta_op_ps;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t s = q[i].t > free_at ? q[i].t : free_at;
        if (s > CLOCK_LIMIT_PS)
            return err_set(e, "storage.metadata_ops_per_s: creating %" PRIu32 " files at "
                              "%g per second takes longer than the simulator clock allows",
                           n, sc->storage.metadata_ops);
        w->create_slot[i] = s;
        free_at = s + op;
        req[q[i].file].t = free_at;
    }
    return 0;
}

static int open_cmp(const void *pa, const void *pb)
{
    const struct open_req *a = pa, *b = pb;
    if (a->home != b->home)
        return a->home < b->home ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->file < b->file ? -1 : (a->file > b->file);
}

/* Bytes per storage node, their skew, and what it costs on the storage
 * NIC / back-end term (docs/checkpoint.md, Placement). */
static void placement_summary(struct plan_summary *s, const struct scenario *sc,
                              const uint64_t *sbytes, const uint64_t *swire, uint64_t total)
{
    uint32_t M = sc->storage.nodes;
    uint64_t nic = sc->storage.nic_bps * sc->storage.nics_per_node, drain = sc->storage.drain_bps, wire = 0;
    uint64_t worst = 0, max = 0;
    for (uint32_t n = 0; n < M; n++) {
        uint64_t t = units_ser_ps(swire[n], nic);
        if (drain && units_ser_ps(sbytes[n], drain) > t)
            t = units_ser_ps(sbytes[n], drain);
        if (t > worst)
            worst = t;
        if (sbytes[n] > max)
            max = sbytes[n];
        wire += swire[n];
    }
    uint64_t even = units_ser_ps(wire / M, nic);
    if (drain && units_ser_ps(total / M, drain) > even)
        even = units_ser_ps(total / M, drain);
    s->placement = names_of(&names_placement, sc->storage.placement);
    s->stripe_start = sc->storage.placement == PLACE_ROUND_ROBIN
                          ? names_of(&names_stripe_start, sc->storage.stripe_start) : "none";
    s->random_start = sc->storage.placement == PLACE_ROUND_ROBIN &&
                      sc->storage.stripe_start == START_RANDOM;
    s->storage_nodes = M;
    s->nodes_listed = M <= PLAN_NODES_LISTED ? M : 0;
    if (s->nodes_listed)
        memcpy(s->node_bytes, sbytes, M * sizeof *sbytes);
    s->node_max_bytes = max;
    s->node_mean_bytes = (double)total / M;
    s->node_skew = total ? (double)max / s->node_mean_bytes : 0;
    s->skew_cost_ps = worst > even ? worst - even : 0;
    s->skew_cost_pct = even ? 100.0 * (double)s->skew_cost_ps / (double)even : 0;
}

/* ---- workload_build, in named steps ------------------------------------ */

/* What the steps hand on to each other. */
struct build {
    struct workload *w;
    const struct scenario *sc;
    const struct topo *t;
    struct arena *a;         /* the build's scratch, released at its end */
    struct arena *keep;      /* the caller's: what the workload keeps */
    struct err *e;
    struct plan p;
    const struct policy_row *pol; /* its row of the policy table */
    uint32_t M, nodes, nics, snics, gpn;
    uint32_t nw;             /* writers: ranks with bytes */
    uint32_t *widx;          /* [ranks] writer of each rank, UINT32_MAX = none */
    uint32_t *wrank;         /* [writers] rank of each writer */
    uint64_t *wstart, *wcap; /* [writers] start offset, rate cap (0 = none) */
    uint64_t *node_bytes;    /* [nodes] bytes each compute node writes */
    uint64_t *node_local;    /* [nodes] its staging (two-phase policies) */
    uint64_t *fstart;        /* [files] when each file's transfers start */
    uint32_t *perm;          /* [writers] stragglers: a shuffle of the writers */
    uint32_t *sturn;         /* [M] next NIC of each storage node */
    uint64_t *snic_bytes;    /* [M x snics] bytes each storage NIC takes */
    uint8_t *strag;          /* [writers] 1 = straggler */
    uint32_t n_strag;
    uint64_t stall, max_node, max_rank, max_wait;
    struct placer pl;
    uint64_t *sbytes, *swire; /* [M] payload, wire bytes per storage node */
    uint8_t *kind;           /* [M] ec: each fragment's enum xfer_kind */
    uint64_t end_max, first, last_start;
};

/* The inputs the model cannot honour, and a topology not built by
 * workload_fabric. */
static int step_check(struct build *b)
{
    const struct scenario *sc = b->sc;
    if (policy_checks(sc, b->e) < 0 || protect_check(sc, b->e) < 0)
        return -1;
    b->nics = sc->cluster.nics_per_node;
    if (b->t->n_hosts != sc->cluster.nodes * b->nics)
        return err_set(b->e, "cluster.nics_per_node: the topology has %" PRIu32
                             " hosts, expected %" PRIu32 " (build it from "
                             "workload_fabric)", b->t->n_hosts, sc->cluster.nodes * b->nics);
    b->snics = sc->storage.nics_per_node;
    if (b->t->n_storage != sc->storage.nodes * b->snics)
        return err_set(b->e, "storage.nics_per_node: the topology has %" PRIu32
                             " storage ports, expected %" PRIu32 " (build it from "
                             "workload_fabric)", b->t->n_storage, sc->storage.nodes * b->snics);
    return 0;
}

/* Who writes how many bytes in which files (plan.c), and the arrays the
 * later steps fill. */
static int step_plan(struct build *b)
{
    const struct scenario *sc = b->sc;
    struct arena *a = b->a;
    if (plan_build(&b->p, sc, a, b->e) < 0)
        return -1;
    b->pol = policy_get(sc->checkpoint.policy);
    b->M = sc->storage.nodes;
    b->gpn = sc->cluster.gpus_per_node;
    b->nodes = sc->cluster.nodes;
    b->widx = arena_calloc(a, b->p.ranks, sizeof *b->widx);
    b->wrank = arena_calloc(a, b->p.writers, sizeof *b->wrank);
    b->wstart = arena_calloc(a, b->p.writers, sizeof *b->wstart);
    b->wcap = arena_calloc(a, b->p.writers, sizeof *b->wcap);
    b->node_bytes = arena_calloc(a, b->nodes, sizeof *b->node_bytes);
    b->node_local = arena_calloc(a, b->nodes, sizeof *b->node_local);
    b->fstart = arena_calloc(a, b->p.n_files, sizeof *b->fstart);
    b->perm = arena_calloc(a, b->p.writers, sizeof *b->perm);
    b->sturn = arena_calloc(a, b->M, sizeof *b->sturn);
    b->snic_bytes = arena_calloc(a, (size_t)b->M * (b->snics ? b->snics : 1),
                                 sizeof *b->snic_bytes);
    if (!b->sturn || !b->snic_bytes || !b->widx || !b->wrank || !b->wstart || !b->wcap
        || !b->node_bytes || !b->node_local || !b->fstart || !b->perm)
        return err_set(b->e, "out of memory building the workload");
    return 0;
}

/* Writers: the ranks with bytes, in rank order; each node's bytes. */
static int step_writers(struct build *b)
{
    const struct plan *p = &b->p;
    uint32_t nw = 0;
    for (uint32_t r = 0; r < p->ranks; r++) {
        b->widx[r] = UINT32_MAX;
        b->node_bytes[plan_node(p, b->sc, r)] += p->rank_bytes[r];
        if (p->rank_bytes[r]) {
            b->wrank[nw] = r;
            b->widx[r] = nw++;
        }
    }
    b->nw = nw;
    return 0;
}

/* The GPU stall of the two-phase policies: staging to host memory (per
 * GPU, in parallel), then what the policy's node_ready adds. */
static int step_stall(struct build *b)
{
    const struct scenario *sc = b->sc;
    const struct plan *p = &b->p;
    const struct policy_row *pol = b->pol;
    uint64_t stall = 0, max_node = 0, max_rank = 0;
    for (uint32_t r = 0; r < p->ranks; r++) {
        /* one GPU's shard: in the simple form a node's GPUs share its bytes */
        uint64_t gb = (p->rank_bytes[r] + p->gpus_per_rank - 1) / p->gpus_per_rank;
        if (gb > max_rank)
            max_rank = gb;
        if (sc->cluster.d2h_bps) {
            uint64_t st = units_ser_ps(gb, sc->cluster.d2h_bps);
            uint32_t n = plan_node(p, sc, r);
            if (st > b->node_local[n])
                b->node_local[n] = st;
        }
    }
    for (uint32_t n = 0; n < b->nodes; n++) {
        if (b->node_bytes[n] > max_node)
            max_node = b->node_bytes[n];
        if (!pol->node_ready)
            continue;
        /* from the slowest GPU's copy on this node */
        b->node_local[n] = pol->node_ready(sc, b->node_local[n], b->node_bytes[n]);
        if (b->node_local[n] > stall)
            stall = b->node_local[n];
    }
    b->stall = stall;
    b->max_node = max_node;
    b->max_rank = max_rank;
    return 0;
}

/* Stragglers: a seeded choice of round(fraction x writers) writers. */
static int step_stragglers(struct build *b)
{
    const struct scenario *sc = b->sc;
    uint32_t nw = b->nw, *perm = b->perm;
    b->n_strag = (uint32_t)llround(sc->checkpoint.straggler_fraction * nw);
    struct rng sr;
    rng_init(&sr, sc->seed, RNG_STRAGGLER);
    for (uint32_t i = 0; i < nw; i++)
        perm[i] = i;
    for (uint32_t j = 0; j < b->n_strag; j++) {
        uint32_t k = j + (uint32_t)rng_below(&sr, nw - j);
        uint32_t tmp = perm[j];
        perm[j] = perm[k];
        perm[k] = tmp;
    }
    b->strag = arena_calloc(b->a, nw ? nw : 1, 1);
    if (!b->strag)
        return err_set(b->e, "out of memory building the workload");
    for (uint32_t j = 0; j < b->n_strag; j++)
        b->strag[perm[j]] = 1;
    return 0;
}

/* Each writer's start offset and rate cap: workload.start_jitter, the
 * policy's, a straggler's delay and slowdown. */
static int step_starts(struct build *b)
{
    const struct scenario *sc = b->sc;
    const struct plan *p = &b->p;
    const struct policy_row *pol = b->pol;
    const uint32_t nw = b->nw;
    struct rng jit, pr;
    rng_init(&jit, sc->seed, RNG_JITTER);
    rng_init(&pr, sc->seed, RNG_POLICY);
    struct policy_ctx pc = {sc, p->total_bytes, b->max_node, nw, b->M, 0, &pr};
    pc.offset = pol->spread ? pol->spread(&pc) : sc->checkpoint.offset_ps;
    /* two-phase: the drain is not capped at the device-to-host rate */
    uint64_t d2h_cap = pol->node_ready ? 0 : sc->cluster.d2h_bps * p->gpus_per_rank;
    uint64_t pcap = pol->writer_cap ? pol->writer_cap(sc) : 0;
    for (uint32_t i = 0; i < nw; i++) {
        uint32_t r = b->wrank[i], n = plan_node(p, sc, r);
        uint64_t s = sc->workload.start_jitter_ps
                         ? rng_below(&jit, sc->workload.start_jitter_ps + 1)
                         : 0;
        if (pol->start)
            s += pol->start(&pc, i);
        if (pol->node_ready)
            s += b->node_local[n]; /* the drain starts once the node has staged */
        uint64_t cap = min_cap(pcap, d2h_cap);
        if (b->strag[i]) {
            s += sc->checkpoint.straggler_delay_ps;
            if (sc->checkpoint.straggler_slowdown > 1.0) {
                double base = (double)(cap ? cap : sc->cluster.nic_bps);
                uint64_t c = (uint64_t)(base / sc->checkpoint.straggler_slowdown);
                cap = c ? c : 1;
            }
        }
        b->wstart[i] = s;
        b->wcap[i] = cap;
    }
    return 0;
}

/* Placement: which storage nodes hold each file's bytes. */
static int step_place(struct build *b)
{
    const struct scenario *sc = b->sc;
    const struct plan *p = &b->p;
    struct arena *a = b->a;
    uint32_t M = b->M;
    b->pl = (struct placer){sc->storage.placement, M, sc->storage.stripe_count,
                            sc->storage.stripe_size, 0, NULL,
                            arena_calloc(a, M, sizeof(uint64_t)),
                            arena_calloc(a, M, sizeof(uint32_t)),
                            arena_calloc(a, M, sizeof(uint64_t))};
    b->sbytes = arena_calloc(a, M, sizeof *b->sbytes);
    b->swire = arena_calloc(a, M, sizeof *b->swire);
    b->kind = arena_calloc(a, M, 1);
    if (!b->pl.acc || !b->pl.node || !b->pl.bytes || !b->sbytes || !b->swire || !b->kind)
        return err_set(b->e, "out of memory placing the files");
    if (b->pl.rule == PLACE_HASH) {
        uint64_t chunks = 0;
        for (uint32_t f = 0; f < p->n_files; f++)
            chunks += (p->files[f].bytes + b->pl.ss - 1) / b->pl.ss;
        if (chunks > HASH_MAX_CHUNKS)
            return err_set(b->e, "storage.stripe_size: the hash placement places each "
                                 "chunk on its own; %" PRIu64 " chunks are too many "
                                 "(at most %" PRIu64 "; use larger stripes)",
                           chunks, HASH_MAX_CHUNKS);
    }
    return place_starts(&b->pl, p, sc, b->wstart, b->widx, a, b->e);
}

/* Files: a file's home is the node of its first byte; the metadata service
 * creates every file first, then its home node opens it, one at a time per
 * home node, in request order. */
static int step_open(struct build *b)
{
    const struct scenario *sc = b->sc;
    const struct plan *p = &b->p;
    uint64_t max_wait = 0;
    struct open_req *req = arena_calloc(b->a, p->n_files, sizeof *req);
    if (!req)
        return err_set(b->e, "out of memory building the workload");
    for (uint32_t f = 0; f < p->n_files; f++) {
        req[f].t = b->wstart[b->widx[p->files[f].rank]];
        req[f].file = f;
        req[f].home = b->pl.rule == PLACE_HASH ? hash_node(&b->pl, f, 0) : b->pl.start[f];
        b->fstart[f] = req[f].t;
    }
    if (meta_creates(b->w, sc, p, req, b->a, b->keep, b->e) < 0)
        return -1;
    for (uint32_t f = 0; f < p->n_files; f++)
        b->fstart[f] = req[f].t;
    if (sc->storage.file_open_ps) {
        qsort(req, p->n_files, sizeof *req, open_cmp);
        uint64_t free_at = 0;
        for (uint32_t i = 0; i < p->n_files; i++) {
            if (i == 0 || req[i].home != req[i - 1].home)
                free_at = 0;
            uint64_t s = req[i].t > free_at ? req[i].t : free_at;
            free_at = s + sc->storage.file_open_ps;
            b->fstart[req[i].file] = free_at;
            if (free_at - req[i].t > max_wait)
                max_wait = free_at - req[i].t;
        }
    }
    b->max_wait = max_wait;
    return 0;
}

/* The pieces of file f: its stripes, or under storage.protection ec its
 * fragments (kinds in b->kind). */
static uint32_t file_pieces(struct build *b, uint32_t f, uint64_t bytes)
{
    if (b->sc->storage.protection != PROTECT_EC)
        return place_file(&b->pl, f, bytes);
    return protect_ec_fragments(b->sc, b->pl.start[f], b->M, bytes, b->pl.node, b->pl.bytes,
                                b->kind);
}

/* file_pieces' count alone: striped without ec, place_file's stripes
 * counted without filling them */
static uint32_t file_piece_count(struct build *b, uint32_t f, uint64_t bytes)
{
    if (b->sc->storage.protection == PROTECT_EC || b->pl.rule == PLACE_HASH)
        return file_pieces(b, f, bytes);
    return stripes_used(&b->pl, bytes);
}

/* The NIC of storage node sn a transfer of `bytes` arrives on: the one that
 * has taken the fewest bytes, the first in turn from the node's round robin
 * on ties (so transfers of equal size take the NICs in turn, as a writer's
 * files take the writer's). A byte count, not a count of transfers: files of
 * unequal size (a rank's model and optimizer shards) would otherwise pile
 * the large ones on every other NIC. */
static uint32_t storage_nic(struct build *b, uint32_t sn, uint64_t bytes)
{
    uint32_t k = b->snics ? b->snics : 1, start = b->sturn[sn]++ % k, best = start;
    uint64_t *nb = b->snic_bytes + (size_t)sn * k;
    for (uint32_t j = 1; j < k; j++) {
        uint32_t c = (start + j) % k;
        if (nb[c] < nb[best])
            best = c;
    }
    nb[best] += bytes;
    return best;
}

/* Transfers: each file's stripes, each over transport.qps_per_writer queue
 * pairs, from its rank's NIC to its storage nodes' NICs; count, then fill. */
static int step_transfers(struct build *b)
{
    const struct scenario *sc = b->sc;
    const struct plan *p = &b->p;
    struct workload *w = b->w;
    struct placer *pl = &b->pl;
    const uint64_t ncap = b->pol->node_cap ? b->pol->node_cap(sc) : 0;
    const uint32_t nics = b->nics, snics = b->snics, gpn = b->gpn;
    uint64_t nt = 0;
    for (uint32_t f = 0; f < p->n_files; f++)
        nt += file_piece_count(b, f, p->files[f].bytes);
    uint32_t qps = sc->transport.qps_per_writer ? sc->transport.qps_per_writer : 1;
    nt *= qps;
    if (nt > UINT32_MAX / 2)
        return err_set(b->e, "storage.stripe_count: %" PRIu64 " transfers are too many",
                       nt);
    w->xfers = arena_calloc(b->keep, nt, sizeof *w->xfers);
    if (!w->xfers)
        return err_set(b->e, "out of memory building the workload");
    struct rng qp;
    rng_init(&qp, sc->seed, RNG_QP);
    uint64_t end_max = 0, first = UINT64_MAX, last_start = 0;
    uint32_t nic_turn = 0, prev_rank = UINT32_MAX;
    uint32_t *xfile = NULL; /* while transfer i carries file i: none */
    for (uint32_t f = 0; f < p->n_files; f++) {
        uint32_t r = p->files[f].rank, i = b->widx[r], n = plan_node(p, sc, r);
        uint32_t nic;
        if (p->model_form) {
            nic = (uint32_t)((uint64_t)(r % gpn) * nics / gpn);
        } else {
            nic_turn = r == prev_rank ? nic_turn + 1 : 0; /* a file per NIC */
            nic = nic_turn % nics;
        }
        prev_rank = r;
        uint32_t pieces = file_pieces(b, f, p->files[f].bytes);
        if (w->n + (uint64_t)pieces * qps > nt) /* the count fell short: never past the array */
            return err_set(b->e, "internal: file %u has more pieces than counted", f);
        int ec = sc->storage.protection == PROTECT_EC;
        for (uint32_t k = 0; k < pieces; k++) {
            uint64_t bytes = pl->bytes[k];
            uint32_t sn = pl->node[k];
            b->sbytes[sn] += bytes;
            /* a writer's cap is split over its transfers by bytes, so they
             * all end together when the cap binds */
            uint64_t cap = b->wcap[i] ? cap_share(b->wcap[i], bytes,
                                                  protect_sent_bytes(sc, p->rank_bytes[r])) : 0;
            if (ncap)
                cap = min_cap(cap, cap_share(ncap, bytes, protect_sent_bytes(sc, b->node_bytes[n])));
            /* transport.qps_per_writer: the stripe over several queue pairs,
             * each with its own UDP source port (more ECMP entropy) */
            for (uint32_t q = 0; q < qps; q++) {
                uint64_t qb = bytes / qps + (q < bytes % qps);
                if (!qb)
                    continue;
                struct transfer *x = &w->xfers[w->n++];
                x->src = workload_nic_host(sc, n, nic);
                x->dst = b->t->first_storage + sn * snics + storage_nic(b, sn, qb);
                b->swire[sn] += wire_bytes(qb, scenario_wire(sc));
                x->writer = i;
                if (w->n - 1 != f && !xfile) { /* not a file each in order: kept */
                    xfile = arena_calloc(b->keep, nt, sizeof *xfile);
                    if (!xfile)
                        return err_set(b->e, "out of memory building the workload");
                    for (uint32_t j = 0; j + 1 < w->n; j++)
                        xfile[j] = j;
                }
                if (xfile)
                    xfile[w->n - 1] = f;
                x->kind = ec ? b->kind[k] : XFER_DATA;
                x->bytes = qb;
                if (b->fstart[f] && !w->xstart) { /* the first start past 0 */
                    w->xstart = arena_calloc(b->keep, nt, sizeof *w->xstart);
                    if (!w->xstart)
                        return err_set(b->e, "out of memory building the workload");
                }
                if (b->fstart[f])
                    w->xstart[w->n - 1] = b->fstart[f];
                uint64_t rate = cap && qps > 1 ? (cap / qps ? cap / qps : 1) : cap;
                if (rate && !w->xrate) { /* the first cap: an array from here */
                    w->xrate = arena_calloc(b->keep, nt, sizeof *w->xrate);
                    if (!w->xrate)
                        return err_set(b->e, "out of memory building the workload");
                }
                if (rate)
                    w->xrate[w->n - 1] = rate;
                /* RoCE NICs draw the source port from the QP number */
                x->sport = (uint16_t)(0xC000u | (rng_u64(&qp) & 0x3FFFu));
            }
            w->total_bytes += bytes;
            w->protect_bytes += ec && b->kind[k] == XFER_PARITY ? bytes : 0;
            uint64_t d = units_ser_ps(bytes, cap ? cap : sc->cluster.nic_bps);
            uint64_t st = b->fstart[f];
            if (st < first)
                first = st;
            if (st > last_start)
                last_start = st;
            uint64_t end = d > UINT64_MAX - st ? UINT64_MAX : st + d; /* saturate */
            if (end > end_max)
                end_max = end;
        }
    }
    w->xfile = xfile;
    if (protect_forward(w, sc, b->t, b->sturn, b->sbytes, b->swire, b->keep, b->e) < 0)
        return -1;
    w->n_writers = b->nw;
    /* every rank writes: writer i is rank i (workload_writer_rank), no array */
    if (b->nw < p->ranks) {
        uint32_t *wr = arena_calloc(b->keep, b->nw ? b->nw : 1, sizeof *wr);
        if (!wr)
            return err_set(b->e, "out of memory building the workload");
        memcpy(wr, b->wrank, b->nw * sizeof *wr);
        w->writer_rank = wr;
    }
    w->tp = p->tp;
    w->dp = p->dp;
    w->gpus_per_node = gpn;
    w->model_form = (uint32_t)p->model_form;
    b->end_max = end_max;
    b->first = first;
    b->last_start = last_start;
    return 0;
}

/* The clock: the slowest transfer alone, and all bytes through the storage
 * NICs, must end inside it. */
static int step_clock(struct build *b)
{
    const struct scenario *sc = b->sc;
    const struct policy_row *pol = b->pol;
    uint64_t all = units_ser_ps(b->w->total_bytes, (uint64_t)b->M * sc->storage.nic_bps)
                   / b->snics;
    if (b->end_max <= CLOCK_LIMIT_PS
        && all <= CLOCK_LIMIT_PS - (b->first == UINT64_MAX ? 0 : b->first))
        return 0;
    /* name the likeliest cause: late starts, a rate cap, or the bytes */
    const char *key = b->p.model_form ? "model.name" : "workload.bytes_per_writer";
    if (b->last_start > CLOCK_LIMIT_PS / 2)
        key = pol->start_key ? pol->start_key
              : sc->storage.file_open_ps ? "storage.file_open_cost"
                                         : "checkpoint.straggler_delay";
    else if (pol->cap_key)
        key = pol->cap_key;
    else if (pol->node_cap_key && pol->node_cap && pol->node_cap(sc))
        key = pol->node_cap_key;
    else if (b->n_strag && sc->checkpoint.straggler_slowdown > 1.0)
        key = "checkpoint.straggler_slowdown";
    return err_set(b->e, "%s: writing this checkpoint takes longer than the "
                         "simulator clock allows (%" PRIu64 " s)",
                   key, CLOCK_LIMIT_PS / PS_PER_S);
}

/* The plan summary, for reports and the cost model. */
static int step_summary(struct build *b)
{
    const struct scenario *sc = b->sc;
    const struct plan *p = &b->p;
    struct workload *w = b->w;
    const struct policy_row *pol = b->pol;
    struct plan_summary *s = &w->sum;
    s->model = names_of(&names_model, sc->model.name);
    s->params = p->params;
    s->weights_bpp = p->weights_bpp;
    s->optimizer_bpp = p->optimizer_bpp;
    s->gpus = p->gpus;
    s->nodes = b->nodes;
    s->tp = p->tp;
    s->pp = p->pp;
    s->dp = p->dp;
    s->zero_stage = sc->parallelism.zero_stage;
    s->writer_rule = p->model_form ? names_of(&names_writer_rule, sc->checkpoint.writer_rule) : "none";
    s->policy = pol->name;
    s->bytes = w->total_bytes - w->protect_bytes; /* the checkpoint's own */
    s->protect_bytes = w->protect_bytes;
    s->files = p->n_files;
    s->writers = b->nw;
    s->transfers = w->n;
    s->stragglers = b->n_strag;
    s->gpus_per_rank = p->gpus_per_rank;
    s->max_gpu_bytes = b->max_rank;
    s->mean_gpu_bytes = (double)s->bytes / (double)p->gpus;
    s->skew = s->mean_gpu_bytes > 0 ? (double)b->max_rank / s->mean_gpu_bytes : 0;
    s->first_start_ps = b->first == UINT64_MAX ? 0 : b->first;
    s->stall_measured = !pol->node_ready;
    s->stall_ps = b->stall;
    s->max_open_wait_ps = b->max_wait;
    placement_summary(s, sc, b->sbytes, b->swire, w->total_bytes);
    return 0;
}

/* The steps of workload_build, in order; each reads what the ones before it
 * left in struct build. docs/architecture.md lists them. */
static const struct build_step {
    const char *name;
    int (*run)(struct build *b);
} build_steps[] = {
    {"check", step_check},         {"plan", step_plan},
    {"writers", step_writers},     {"stall", step_stall},
    {"stragglers", step_stragglers}, {"starts", step_starts},
    {"place", step_place},         {"open", step_open},
    {"transfers", step_transfers}, {"clock", step_clock},
    {"summary", step_summary},
};

int workload_build(struct workload *w, const struct scenario *sc,
                   const struct topo *t, struct arena *a, struct err *e)
{
    memset(w, 0, sizeof *w);
    /* the plan, per-rank and per-file arrays are the build's own: at 800,000
     * ranks they are 3x the transfers the run keeps */
    struct arena scratch;
    arena_init(&scratch);
    /* from 65,536 ranks on 2 MB pages, its 1 MB blocks too: at 800,000
     * ranks the stragglers' flags, the nodes' arrays and the rest under
     * 2 MB took ~200 faults of 4 KB */
    scratch.huge = (uint64_t)sc->cluster.nodes * sc->cluster.gpus_per_node >= 65536;
    struct build b = {.w = w, .sc = sc, .t = t, .a = &scratch, .keep = a, .e = e};
    int rc = 0;
    for (size_t i = 0; i < sizeof build_steps / sizeof build_steps[0] && rc == 0; i++)
        rc = build_steps[i].run(&b);
    arena_release(&scratch);
    return rc < 0 ? -1 : 0;
}

void workload_drop_paths(struct workload *w, struct arena *a)
{
    if (!w->path)
        return;
    arena_discard(a, (void *)(uintptr_t)w->path,
                  workload_path_words(w->n, w->path_stride) * sizeof *w->path);
    w->path = NULL;
    w->path_n = NULL;
    w->path_stride = 0;
    w->kind = NULL; /* in the same block */
    w->kind_memo = NULL;
}
