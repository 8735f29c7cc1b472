/* The packet engine's entry points: a run is set-up (setup.c), the event
 * loop (sched.c) and the results (collect.c). */
#include "engine.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "../core/machine.h"
#include "../stats/bound.h"
#include "../stats/training.h"
#include "capture.h"
#include "engine_int.h"

int pkt_run(const struct scenario *sc, const struct topo *t,
            const struct workload *w, struct results *r, struct err *e)
{
    return pkt_run_capture(sc, t, w, r, NULL, e);
}

static int run(const struct scenario *sc, const struct topo *t, const struct workload *w,
               struct results *r, struct ckpt_capture *cap, const struct transport_ops *tp,
               struct err *e);

int pkt_run_capture(const struct scenario *sc, const struct topo *t,
                    const struct workload *w, struct results *r,
                    struct ckpt_capture *cap, struct err *e)
{
    return run(sc, t, w, r, cap, NULL, e);
}

int pkt_run_transport(const struct scenario *sc, const struct topo *t,
                      const struct workload *w, struct results *r,
                      const struct transport_ops *tp, struct err *e)
{
    return run(sc, t, w, r, NULL, tp, e);
}

static int run(const struct scenario *sc, const struct topo *t, const struct workload *w,
               struct results *r, struct ckpt_capture *cap, const struct transport_ops *tp,
               struct err *e)
{
    struct pnet *n = aligned_alloc(64, (sizeof *n + 63) / 64 * 64);
    if (!n)
        return err_set(e, "out of memory");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = pnet_setup(n, sc, t, w, tp, e);
    if (rc == 0 && cap) {
        rc = capture_setup(cap, sc, t, e);
        n->cap = cap;
    }
    n->tx_watch = n->cap || (n->side && (n->tp->side & SIDE_INT));
    n->res = r;
    /* the default limit covers a transport that crawls by its own settings
     * (transport_reach): the run gives its time, not a stop */
    n->time_limit_ps =
        train_time_limit(w->train, sc, bound_time_limit_ps(sc, fmax(r->bound_s, r->reach_s)));
    /* where packets can drop, room for a few timeouts and their retries
     * (sim.time_limit given stands) */
    if (rc == 0 && n->recover && !sc->sim.time_limit_ps && n->time_limit_ps != UINT64_MAX) {
        uint64_t k = 4 * ((uint64_t)sc->transport.retry_count + 1);
        if (n->rto_est) { /* adaptive: each doubled in a row, up to 64x */
            k = 0;
            for (uint32_t i = 0; i <= sc->transport.retry_count; i++)
                k += 4 * ((uint64_t)1 << (i < 6 ? i : 6));
        }
        uint64_t more = n->rto_ps > UINT64_MAX / k ? UINT64_MAX : k * n->rto_ps;
        n->time_limit_ps = n->time_limit_ps < UINT64_MAX - more ? n->time_limit_ps + more
                                                                : UINT64_MAX;
    }
    if (rc == 0 && sc->telemetry.interval_ps)
        rc = pnet_schedule(n, 0, EV_SAMPLE, NULL, 0);
    if (rc == 0) {
        pnet_loop(n);
        /* a pause still refreshed would have kept its events coming until
         * the time limit */
        int held = 0;
        for (uint32_t i = 0; i < t->n_ports && !held; i++)
            held = n->ports[i].xoff_implicit != 0;
        if (held && !n->interrupted && !n->oom && !n->time_limit_hit &&
            n->time_limit_ps != UINT64_MAX) {
            n->time_limit_hit = 1;
            n->now = n->time_limit_ps;
        }
        pfc_settle_all(n);
        pnet_collect(n, r);
        if (cap)
            capture_finish(cap);
        /* not a result: the run is cut short, and what it counted is partial */
        if (n->oom)
            rc = err_set(e, "out of memory: the packet engine stopped at %.6g s simulated "
                            "holding %.0f MB (events and packets in flight); `ckptnet describe` "
                            "estimates what a run needs, the fluid engine needs far less",
                         ps_to_s(n->now), (double)r->mem_bytes / 1e6);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    /* the hint it serves is for runs over a second; the reading takes ~10 ms */
    r->cores_idle = r->wall_s > 1.0 ? machine_idle_cores() : -1;
    train_clock_release(&n->tc);
    evq_release(&n->q);
    pnet_release_slabs(n);
    arena_release(&n->arena);
    free(n);
    return rc;
}
