#include "work.h"

#include "../core/rng.h"

int workload_build(struct workload *w, const struct scenario *sc,
                   const struct topo *t, struct arena *a, struct err *e)
{
    struct rng jit, qp;
    rng_init(&jit, sc->seed, RNG_JITTER);
    rng_init(&qp, sc->seed, RNG_QP);
    w->n = w->n_writers = t->n_hosts;
    w->xfers = arena_calloc(a, w->n, sizeof *w->xfers);
    if (!w->xfers)
        return err_set(e, "out of memory building the workload");
    w->total_bytes = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        struct transfer *x = &w->xfers[i];
        x->src = x->writer = i;
        x->dst = t->first_storage + i % t->n_storage;
        x->bytes = sc->workload.bytes_per_writer;
        x->start_ps = sc->workload.start_jitter_ps
                          ? rng_below(&jit, sc->workload.start_jitter_ps + 1)
                          : 0;
        /* RoCE NICs draw the source port from the QP number: dynamic range. */
        x->sport = (uint16_t)(0xC000u | (rng_u64(&qp) & 0x3FFFu));
        w->total_bytes += x->bytes;
    }
    return 0;
}
