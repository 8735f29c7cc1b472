/* The restore: the checkpoint read back after a failure, as transfers from
 * the storage nodes that hold it to the ranks that load it
 * (docs/checkpoint.md, Restore). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../core/arena.h"
#include "../core/rng.h"
#include "../core/units.h"
#include "work.h"

/* A port's segment for the read: mirror of the write's. */
static enum path_seg mirror_seg(const struct topo *t, uint32_t p)
{
    enum path_seg s = t->ports[p].seg;
    return s == PATH_REVERSE ? t->ports[t->ports[p].peer].seg : PATH_REVERSE;
}

int workload_restore_topo(const struct topo *t, struct topo *v, struct arena *a, struct err *e)
{
    *v = *t;
    struct tport *pt = arena_calloc(a, t->n_ports ? t->n_ports : 1, sizeof *pt);
    if (!pt)
        return err_set(e, "out of memory mirroring the topology for the restore");
    for (uint32_t p = 0; p < t->n_ports; p++) {
        pt[p] = t->ports[p];
        pt[p].seg = mirror_seg(t, p);
    }
    v->ports = pt;
    /* balance_compute's sets: the read's data climbs the storage leaves'
     * uplinks (mirror of spine -> storage leaf) and a spine forwards it
     * down to compute leaves (mirror of their uplinks) */
    for (uint32_t k = 0; k < PATH_MAX_LEVELS; k++) {
        enum path_seg s = v->level[k].load;
        v->level[k].load = s == PATH_CLEAF_UP     ? PATH_SPINE_DOWN
                           : s == PATH_SPINE_DOWN ? PATH_CLEAF_UP
                           : s == PATH_SPINE_UP   ? PATH_SUPER_DOWN
                           : s == PATH_SUPER_DOWN ? PATH_SPINE_UP
                                                  : s;
    }
    return 0;
}

/* every_replica: the bytes of a group of G stored bytes one replica's rank
 * loads: the state it holds, i.e. the replicated parts in full (weights
 * below ZeRO-3, the optimizer state without ZeRO) and its 1/DP of the
 * sharded ones, plus its own small state; at most G. ZeRO 0: G (every
 * replica reads the whole checkpoint of its shard). */
static uint64_t replica_need(const struct workload *s, const struct scenario *sc,
                             uint32_t groups, uint64_t G)
{
    const struct plan_summary *p = &s->sum;
    double dp = s->dp ? (double)s->dp : 1, z = p->zero_stage;
    double W = (double)p->params * p->weights_bpp / groups;
    double O = (double)p->params * p->optimizer_bpp / groups;
    double need = W * (z < 3 ? 1 : 1 / dp) + O * (z < 1 ? 1 : 1 / dp) +
                  (double)sc->checkpoint.rank_state_bytes;
    return need >= (double)G ? G : (uint64_t)need;
}

/* piece x need / G, exact in 128 bits */
static uint64_t scale(uint64_t piece, uint64_t need, uint64_t G)
{
    return G ? (uint64_t)((unsigned __int128)piece * need / G) : 0;
}

/* One storage node's bytes of one model-parallel group. */
struct piece {
    uint32_t group, node;
    uint64_t bytes;
};

static int piece_cmp(const void *pa, const void *pb)
{
    const struct piece *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    return a->node < b->node ? -1 : (a->node > b->node);
}

/* Where a restore reads the write's data from (protect.h): under chain
 * every replica holds clean data (CRAQ), so each data transfer's bytes are
 * read in storage.replicas even parts, one from each node of its chain
 * (the remainder from the head): every file spreads over its replicas
 * whatever the file count, where rotating whole files over them leaves
 * replicas idle when files are fewer than replicas. Otherwise the data
 * fragments (ec) or the primary copy (replica) only. */
#define RESTORE_MAX_PARTS 64 /* storage.replicas' most */

struct read_src {
    uint32_t *hop1; /* chain: [n] the first hop of data transfer i, or UINT32_MAX */
    uint32_t r;     /* parts a data transfer is read in */
};

static int read_src_init(struct read_src *rs, const struct workload *s,
                         const struct scenario *sc, struct err *e)
{
    rs->hop1 = NULL;
    rs->r = 1;
    if (sc->storage.protection != PROTECT_CHAIN || sc->storage.replicas < 2)
        return 0;
    rs->hop1 = malloc((s->n ? s->n : 1) * sizeof *rs->hop1);
    if (!rs->hop1)
        return err_set(e, "out of memory building the restore");
    for (uint32_t i = 0; i < s->n; i++)
        rs->hop1[i] = UINT32_MAX;
    for (uint32_t i = 0; i < s->n; i++) {
        const struct transfer *x = &s->xfers[i];
        uint32_t fd = x->feed ? workload_feed(s, i) : 0;
        if (fd && s->xfers[fd - 1].kind == XFER_DATA)
            rs->hop1[fd - 1] = i;
    }
    rs->r = sc->storage.replicas < RESTORE_MAX_PARTS ? sc->storage.replicas : RESTORE_MAX_PARTS;
    return 0;
}

/* Data transfer i's parts: node[k] (the storage NIC read) and bytes[k],
 * k below the count returned (at most rs->r; empty parts left out). */
static uint32_t read_parts(const struct read_src *rs, const struct workload *s, uint32_t i,
                           uint32_t *node, uint64_t *bytes)
{
    const struct transfer *x = &s->xfers[i];
    uint32_t h = rs->hop1 ? rs->hop1[i] : UINT32_MAX;
    if (h == UINT32_MAX) {
        node[0] = x->dst;
        bytes[0] = x->bytes;
        return 1;
    }
    /* the chain's nodes: the head, then each hop's (a chain's hops are
     * consecutive, each fed by the one before) */
    uint32_t L = 1;
    node[0] = x->dst;
    for (uint32_t prev = i; L < rs->r && h < s->n && workload_feed(s, h) == prev + 1; h++) {
        node[L++] = s->xfers[h].dst;
        prev = h;
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < L; k++) {
        uint64_t b = x->bytes / L + (k == 0 ? x->bytes % L : 0);
        if (b) {
            node[n] = node[k];
            bytes[n++] = b;
        }
    }
    return n;
}

/* Simple form and own_files: every transfer of the write, reversed (a
 * writer reads its own files back). */
static int reverse_all(struct workload *r, const struct workload *s, const struct read_src *rs,
                       struct arena *a, struct err *e)
{
    r->xfers = arena_calloc(a, s->n ? s->n : 1, sizeof *r->xfers);
    r->bcast_ps = NULL;
    if (!r->xfers)
        return err_set(e, "out of memory building the restore");
    uint32_t node[RESTORE_MAX_PARTS];
    uint64_t bytes[RESTORE_MAX_PARTS];
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->xfers[i].kind != XFER_DATA)
            continue; /* the data fragments, the primary copy (protect.h) */
        uint32_t np = read_parts(rs, s, i, node, bytes);
        for (uint32_t k = 0; k < np && r->n < s->n; k++) {
            struct transfer *x = &r->xfers[r->n++];
            *x = s->xfers[i];
            x->src = node[k];
            x->dst = s->xfers[i].src;
            x->bytes = bytes[k];
            /* no start nor rate: r->xstart, r->xrate stay NULL */
            x->feed = 0;
            r->total_bytes += x->bytes;
        }
    }
    r->n_writers = r->readers = s->n_writers;
    r->n_files = s->n_writers;
    r->file_div = 1; /* a writer's files complete together */
    return 0;
}

int workload_build_restore(struct workload *r, const struct workload *s,
                           const struct scenario *sc, const struct topo *t, struct arena *a,
                           struct err *e)
{
    memset(r, 0, sizeof *r);
    r->restore = 1;
    r->sum = s->sum;
    struct read_src rs;
    if (read_src_init(&rs, s, sc, e) < 0)
        return -1;
    if (!s->model_form || sc->restore.mode == RESTORE_OWN_FILES) {
        int rc = reverse_all(r, s, &rs, a, e);
        free(rs.hop1);
        return rc;
    }
    uint32_t tp = s->tp, dp = s->dp, gpn = s->gpus_per_node, nics = sc->cluster.nics_per_node;
    uint32_t groups = (uint32_t)((uint64_t)s->sum.gpus / dp); /* tp x pp */
    struct piece *pc = malloc((s->n ? s->n : 1) * sizeof *pc);
    if (!pc) {
        free(rs.hop1);
        return err_set(e, "out of memory building the restore");
    }
    /* the group of a rank: its tp index and pp index (tp fastest, then dp) */
    uint32_t nd = 0; /* data pieces: the protection's are not read */
    uint32_t pn[RESTORE_MAX_PARTS];
    uint64_t pb[RESTORE_MAX_PARTS];
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->xfers[i].kind != XFER_DATA)
            continue;
        uint32_t rk = workload_writer_rank(s, s->xfers[i].writer);
        uint32_t np = read_parts(&rs, s, i, pn, pb);
        for (uint32_t k = 0; k < np && nd < s->n; k++)
            pc[nd++] = (struct piece){rk % tp + tp * (rk / (tp * dp)), pn[k] - t->first_storage,
                                      pb[k]};
    }
    free(rs.hop1);
    qsort(pc, nd, sizeof *pc, piece_cmp);
    uint32_t np = 0;
    for (uint32_t i = 0; i < nd; i++) {
        if (np && pc[np - 1].group == pc[i].group && pc[np - 1].node == pc[i].node)
            pc[np - 1].bytes += pc[i].bytes;
        else
            pc[np++] = pc[i];
    }
    int bcast = sc->restore.mode == RESTORE_ONE_BROADCAST;
    uint32_t readers = bcast ? 1 : dp; /* per group */
    uint64_t nt = (uint64_t)np * readers;
    if (nt > UINT32_MAX / 2) {
        free(pc);
        return err_set(e, "restore.mode: %" PRIu64 " restore transfers are too many "
                          "(one_replica_broadcast reads each shard once)", nt);
    }
    r->xfers = arena_calloc(a, nt ? nt : 1, sizeof *r->xfers);
    r->bcast_ps = arena_calloc(a, groups ? groups : 1, sizeof *r->bcast_ps);
    uint64_t *gbytes = calloc(groups ? groups : 1, sizeof *gbytes);
    if (!r->xfers || !r->bcast_ps || !gbytes) {
        free(pc);
        free(gbytes);
        return err_set(e, "out of memory building the restore");
    }
    struct rng qp;
    rng_init(&qp, sc->seed, RNG_RESTORE);
    for (uint32_t i = 0; i < np; i++)
        gbytes[pc[i].group] += pc[i].bytes;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t g = pc[i].group, tpi = g % tp, ppi = g / tp;
        /* every_replica: each rank its share of every piece of its group */
        uint64_t b = bcast ? pc[i].bytes
                           : scale(pc[i].bytes, replica_need(s, sc, groups, gbytes[g]), gbytes[g]);
        for (uint32_t d = 0; b && d < readers; d++) {
            uint32_t rk = ppi * tp * dp + d * tp + tpi;
            uint32_t node = rk / gpn, nic = (uint32_t)((uint64_t)(rk % gpn) * nics / gpn);
            struct transfer *x = &r->xfers[r->n++];
            x->src = t->first_storage + pc[i].node;
            x->dst = workload_nic_host(sc, node, nic);
            /* readers numbered by group, then replica */
            x->writer = g * readers + d; /* its file: the group, writer / readers */
            x->bytes = b;
            x->sport = (uint16_t)(0xC000u | (rng_u64(&qp) & 0x3FFFu));
            r->total_bytes += b;
        }
    }
    for (uint32_t g = 0; bcast && dp > 1 && g < groups; g++) {
        /* a pipelined broadcast to the other replicas: the shard once at
         * the broadcast rate, after the group's read */
        r->bcast_ps[g] = units_ser_ps(gbytes[g], sc->restore.broadcast_bps);
        if (r->bcast_ps[g] > r->bcast_max_ps)
            r->bcast_max_ps = r->bcast_ps[g];
        if (gbytes[g] && (!r->bcast_min_ps || r->bcast_ps[g] < r->bcast_min_ps))
            r->bcast_min_ps = r->bcast_ps[g];
    }
    free(pc);
    free(gbytes);
    r->n_files = groups;
    r->file_div = readers;
    r->n_writers = r->readers = groups * readers;
    return 0;
}

/* bytes at bps, rounded down (a lower bound); 0 when bps is 0 */
static uint64_t ser_down(uint64_t bytes, uint64_t bps)
{
    __extension__ unsigned __int128 q = (unsigned __int128)bytes * 8u * PS_PER_S;
    q = bps ? q / bps : 0;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* A leaf's working links to the spines (as bound.c). */
static uint64_t leaf_up_bps(const struct topo *t, uint32_t leaf)
{
    const struct tnode *n = &t->nodes[leaf];
    uint64_t cap = 0;
    for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++)
        if (t->ports[t->ports[p].peer].node >= t->first_spine && !t->ports[p].failed)
            cap += t->ports[p].bps;
    return cap;
}

static void term(struct restore_estimate *o, uint64_t v, enum path_seg l)
{
    if (v > o->ps) {
        o->ps = v;
        o->limit = l;
    }
}

/* The estimate in nm modes (1 or 2) that read the same parts (the same
 * `own`): one pass over the transfers, each transfer's group, parts and
 * replica share found once for all modes; each mode's sums side by side
 * (node[i * nm + m]). */
static int estimate(const struct workload *s, const struct scenario *sc, const struct topo *t,
                    const int *mode, uint32_t nm, struct restore_estimate *o, struct err *e)
{
    int own = !s->model_form || mode[0] == RESTORE_OWN_FILES, bcast[2] = {0, 0}, all_bcast = 1;
    for (uint32_t m = 0; m < nm; m++) {
        memset(&o[m], 0, sizeof o[m]);
        o[m].limit = PATH_STORAGE_NIC;
        bcast[m] = mode[m] == RESTORE_ONE_BROADCAST && !own;
        all_bcast &= bcast[m];
    }
    uint32_t tp = s->tp ? s->tp : 1, dp = own ? 1 : s->dp;
    uint32_t groups = !own ? (uint32_t)((uint64_t)s->sum.gpus / dp) : s->n_writers;
    size_t ng = groups ? groups : 1;
    /* from 65,536 endpoints on 2 MB pages: at 100,000 hosts node alone is
     * 0.8-1.6 MB, ~400 faults in 4 KB pages */
    struct arena mem;
    arena_init(&mem);
    mem.huge = t->first_cleaf >= 65536;
    /* per endpoint its payload */
    uint64_t *node = arena_calloc(&mem, (size_t)t->first_cleaf * nm, sizeof *node);
    uint64_t *leaf = arena_calloc(&mem, (size_t)t->n_leaves * nm, sizeof *leaf);
    uint64_t *gb = arena_calloc(&mem, ng, sizeof *gb);
    uint64_t *gr = arena_calloc(&mem, ng * nm, sizeof *gr); /* one reader's bytes */
    /* every_replica: a group's replica need, once a group, not a piece */
    uint64_t *need = own || all_bcast ? NULL : arena_calloc(&mem, ng, sizeof *need);
    struct read_src rs;
    int bad = !node || !leaf || !gb || !gr || (!own && !all_bcast && !need)
                  ? err_set(e, "out of memory estimating the restore")
                  : read_src_init(&rs, s, sc, e);
    if (bad < 0) {
        arena_release(&mem);
        return -1;
    }
    for (uint32_t i = 0; !own && i < s->n; i++) {
        if (s->xfers[i].kind != XFER_DATA)
            continue;
        uint32_t rk = workload_writer_rank(s, s->xfers[i].writer);
        gb[rk % tp + tp * (rk / (tp * dp))] += s->xfers[i].bytes;
    }
    for (uint32_t g = 0; need && g < groups; g++)
        need[g] = replica_need(s, sc, groups, gb[g]);
    uint32_t pn[RESTORE_MAX_PARTS];
    uint64_t pb[RESTORE_MAX_PARTS];
    for (uint32_t i = 0; i < s->n; i++) {
        const struct transfer *x = &s->xfers[i];
        if (x->kind != XFER_DATA)
            continue;
        uint32_t rk = workload_writer_rank(s, x->writer), g = own ? 0 : rk % tp + tp * (rk / (tp * dp));
        uint32_t np = read_parts(&rs, s, i, pn, pb);
        for (uint32_t k = 0; k < np; k++) {
            uint32_t nl = topo_leaf_index(t, t->nodes[pn[k]].leaf);
            /* rounded down piece by piece: never above the run's bytes */
            uint64_t shared = own || all_bcast ? 0 : scale(pb[k], need[g], gb[g]);
            for (uint32_t m = 0; m < nm; m++) {
                uint64_t one = own || bcast[m] ? pb[k] : shared;
                uint64_t b = one * (own || bcast[m] ? 1 : dp);
                node[(size_t)pn[k] * nm + m] += b;
                leaf[(size_t)nl * nm + m] += b;
                o[m].bytes_read += b;
                if (own) { /* each writer reads its own back */
                    node[(size_t)x->src * nm + m] += pb[k];
                    leaf[(size_t)topo_leaf_index(t, t->nodes[x->src].leaf) * nm + m] += pb[k];
                    continue;
                }
                gr[(size_t)g * nm + m] += one;
            }
        }
    }
    free(rs.hop1);
    for (uint32_t m = 0; m < nm; m++) {
        if (!own) {
            uint32_t gpn = s->gpus_per_node, nics = sc->cluster.nics_per_node;
            for (uint32_t g = 0; g < groups; g++)
                for (uint32_t d = 0; d < (bcast[m] ? 1 : dp); d++) {
                    uint32_t rk = (g / tp) * tp * dp + d * tp + g % tp;
                    uint32_t h = workload_nic_host(sc, rk / gpn,
                                                   (uint32_t)((uint64_t)(rk % gpn) * nics / gpn));
                    node[(size_t)h * nm + m] += gr[(size_t)g * nm + m];
                    leaf[(size_t)topo_leaf_index(t, t->nodes[h].leaf) * nm + m] +=
                        gr[(size_t)g * nm + m];
                    o[m].readers++;
                }
        } else {
            o[m].readers = s->n_writers;
        }
        for (uint32_t i = 0; i < t->first_cleaf; i++) {
            int st = t->nodes[i].kind == NODE_STORAGE;
            uint64_t v = node[(size_t)i * nm + m];
            term(&o[m], ser_down(v, t->ports[t->nodes[i].first_port].bps),
                 st ? PATH_STORAGE_NIC : PATH_WRITER_NIC);
            if (st && sc->restore.read_bps)
                term(&o[m], ser_down(v, sc->restore.read_bps), PATH_BACKEND);
        }
        for (uint32_t l = 0; l < t->n_leaves; l++) {
            const struct tnode *n = &t->nodes[t->first_cleaf + l];
            term(&o[m], ser_down(leaf[(size_t)l * nm + m], leaf_up_bps(t, t->first_cleaf + l)),
                 n->storage_side ? PATH_SPINE_DOWN : PATH_CLEAF_UP);
        }
        uint64_t bmin = UINT64_MAX;
        for (uint32_t g = 0; bcast[m] && dp > 1 && g < groups; g++) {
            uint64_t v = units_ser_ps(gb[g], sc->restore.broadcast_bps);
            o[m].bcast_ps = v > o[m].bcast_ps ? v : o[m].bcast_ps;
            if (gb[g] && v < bmin)
                bmin = v;
        }
        if (o[m].bcast_ps) {
            o[m].ps += bmin == UINT64_MAX ? 0 : bmin;
            o[m].ps = o[m].bcast_ps > o[m].ps ? o[m].bcast_ps : o[m].ps;
        }
    }
    arena_release(&mem);
    return 0;
}

int workload_restore_estimate(const struct workload *s, const struct scenario *sc,
                              const struct topo *t, int mode, struct restore_estimate *o,
                              struct err *e)
{
    return estimate(s, sc, t, &mode, 1, o, e);
}

int workload_restore_estimate_both(const struct workload *s, const struct scenario *sc,
                                   const struct topo *t, int mode, int other,
                                   struct restore_estimate o[2], struct err *e)
{
    int modes[2] = {mode, other};
    int own0 = !s->model_form || mode == RESTORE_OWN_FILES;
    int own1 = !s->model_form || other == RESTORE_OWN_FILES;
    if (own0 != own1) /* different parts: one pass each */
        return estimate(s, sc, t, &modes[0], 1, &o[0], e) < 0 ? -1
                                                              : estimate(s, sc, t, &modes[1], 1, &o[1], e);
    return estimate(s, sc, t, modes, 2, o, e);
}
