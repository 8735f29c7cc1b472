/* Metadata and durability (docs/checkpoint.md, Metadata and durability):
 * when a file's write is complete. Engine-agnostic: both engines hand over
 * when each transfer's bytes were on the back end and get back when its
 * file is durable. */
#include <stdlib.h>

#include "../core/units.h"
#include "request.h"
#include "work.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

struct fsync_req {
    uint64_t t;      /* issue: the file's last byte on the back end */
    uint32_t file;
};

static int fsync_cmp(const void *pa, const void *pb)
{
    const struct fsync_req *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->file < b->file ? -1 : (a->file > b->file);
}

/* Restore, one_replica_broadcast: a group's readers are done once its read
 * is and its broadcast to the other replicas has run. */
static int broadcast(const struct workload *w, uint64_t *done)
{
    uint32_t ng = w->n_files;
    uint64_t *gdone = calloc(ng ? ng : 1, sizeof *gdone);
    if (!gdone)
        return -1;
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t g = workload_file(w, i);
        gdone[g] = done[i] > gdone[g] ? done[i] : gdone[g];
    }
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t g = workload_file(w, i);
        if (gdone[g] != UINT64_MAX) /* else a transfer of the group never ended */
            done[i] = sat_add(gdone[g], w->bcast_ps[g]);
    }
    free(gdone);
    return 0;
}

int workload_durable(const struct workload *w, const struct scenario *sc, uint64_t *done)
{
    /* storage.protocol: the last request's latency, then the commit's */
    uint64_t tail = request_tail_ps(w, sc);
    for (uint32_t i = 0; tail && i < w->n; i++)
        if (done[i] != UINT64_MAX)
            done[i] = sat_add(done[i], tail);
    if (w->restore) /* reads: no fsync, no create */
        return w->bcast_max_ps ? broadcast(w, done) : 0;
    uint64_t fs = sc->storage.fsync_ps, op = w->meta_op_ps;
    uint32_t nf = w->n_files;
    if ((!fs && !op) || !nf)
        return 0;
    uint64_t *fdone = calloc(nf, sizeof *fdone); /* data on the back end */
    struct fsync_req *q = malloc(nf * sizeof *q);
    if (!fdone || !q) {
        free(fdone);
        free(q);
        return -1;
    }
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t f = workload_file(w, i);
        fdone[f] = done[i] > fdone[f] ? done[i] : fdone[f];
    }
    uint32_t n = 0;
    for (uint32_t f = 0; f < nf; f++)
        if (fdone[f] != UINT64_MAX)
            q[n++] = (struct fsync_req){fdone[f], f};
    if (op) {
        /* FIFO from issue time, each op in the first gap of op ps the
         * creates (already served, ascending slots) left */
        qsort(q, n, sizeof *q, fsync_cmp);
        uint64_t free_at = 0;
        uint32_t c = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t s = q[i].t > free_at ? q[i].t : free_at;
            while (c < nf && w->create_slot[c] < sat_add(s, op)) {
                if (sat_add(w->create_slot[c], op) > s)
                    s = sat_add(w->create_slot[c], op);
                c++;
            }
            free_at = sat_add(s, op);
            /* the fsync returns after its own cost and once served */
            uint64_t d = sat_add(q[i].t, fs);
            fdone[q[i].file] = d > free_at ? d : free_at;
        }
    } else {
        for (uint32_t i = 0; i < n; i++)
            fdone[q[i].file] = sat_add(q[i].t, fs);
    }
    for (uint32_t i = 0; i < w->n; i++)
        if (fdone[workload_file(w, i)] != UINT64_MAX) /* else a transfer never ended */
            done[i] = fdone[workload_file(w, i)];
    free(fdone);
    free(q);
    return 0;
}

uint64_t workload_meta_bound_ps(const struct workload *w, const struct scenario *sc)
{
    uint64_t op = w->meta_op_ps;
    (void)sc;
    if (w->restore) /* the broadcast follows the last byte of its group */
        return 0;
    if (!op)
        return 0;
    uint64_t start0 = UINT64_MAX;
    for (uint32_t i = 0; i < w->n; i++)
        start0 = workload_start(w, i) < start0 ? workload_start(w, i) : start0;
    if (start0 == UINT64_MAX)
        return 0;
    /* every fsync follows its file's first byte (after start0); creates
     * still unserved at start0 come first or in between */
    uint64_t late = 0;
    for (uint32_t c = 0; c < w->n_files; c++)
        if (w->create_slot[c] >= start0)
            late++;
    __extension__ unsigned __int128 v = (unsigned __int128)(w->n_files + late) * op;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}
