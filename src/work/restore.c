/* The restore: the checkpoint read back after a failure, as transfers from
 * the storage nodes that hold it to the ranks that load it
 * (docs/checkpoint.md, Restore). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
    return 0;
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

/* Simple form: every transfer of the write, reversed (a writer reads its
 * own files back; there is no replica to read for it). */
static int reverse_all(struct workload *r, const struct workload *s, struct arena *a,
                       struct err *e)
{
    r->xfers = arena_calloc(a, s->n ? s->n : 1, sizeof *r->xfers);
    r->bcast_ps = NULL;
    if (!r->xfers)
        return err_set(e, "out of memory building the restore");
    for (uint32_t i = 0; i < s->n; i++) {
        struct transfer *x = &r->xfers[r->n++];
        *x = s->xfers[i];
        x->src = s->xfers[i].dst;
        x->dst = s->xfers[i].src;
        x->start_ps = 0;
        x->rate_bps = 0;
        x->file = x->writer; /* a writer's files complete together */
        r->total_bytes += x->bytes;
    }
    r->n_writers = r->readers = s->n_writers;
    r->n_files = s->n_writers;
    return 0;
}

int workload_build_restore(struct workload *r, const struct workload *s,
                           const struct scenario *sc, const struct topo *t, struct arena *a,
                           struct err *e)
{
    memset(r, 0, sizeof *r);
    r->restore = 1;
    r->sum = s->sum;
    if (!s->model_form)
        return reverse_all(r, s, a, e);
    uint32_t tp = s->tp, dp = s->dp, gpn = s->gpus_per_node, nics = sc->cluster.nics_per_node;
    uint32_t groups = (uint32_t)((uint64_t)s->sum.gpus / dp); /* tp x pp */
    struct piece *pc = malloc((s->n ? s->n : 1) * sizeof *pc);
    if (!pc)
        return err_set(e, "out of memory building the restore");
    /* the group of a rank: its tp index and pp index (tp fastest, then dp) */
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t rk = s->writer_rank[s->xfers[i].writer];
        pc[i] = (struct piece){rk % tp + tp * (rk / (tp * dp)),
                               s->xfers[i].dst - t->first_storage, s->xfers[i].bytes};
    }
    qsort(pc, s->n, sizeof *pc, piece_cmp);
    uint32_t np = 0;
    for (uint32_t i = 0; i < s->n; i++) {
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
    for (uint32_t i = 0; i < np; i++) {
        uint32_t g = pc[i].group, tpi = g % tp, ppi = g / tp;
        gbytes[g] += pc[i].bytes;
        for (uint32_t d = 0; d < readers; d++) {
            uint32_t rk = ppi * tp * dp + d * tp + tpi;
            uint32_t node = rk / gpn, nic = (uint32_t)((uint64_t)(rk % gpn) * nics / gpn);
            struct transfer *x = &r->xfers[r->n++];
            x->src = t->first_storage + pc[i].node;
            x->dst = workload_nic_host(sc, node, nic);
            /* readers numbered by group, then replica */
            x->writer = g * readers + d;
            x->file = g;
            x->bytes = pc[i].bytes;
            x->sport = (uint16_t)(0xC000u | (rng_u64(&qp) & 0x3FFFu));
            r->total_bytes += pc[i].bytes;
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
    r->n_writers = r->readers = groups * readers;
    return 0;
}
