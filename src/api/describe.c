/* ckpt_describe: a scenario's derived figures and the cost of running it,
 * without running it. */
#include <stdlib.h>
#include <string.h>

#include "ckpt.h"
#include "../core/arena.h"
#include "../stats/segments.h"
#include "../topo/topo.h"
#include "../work/work.h"
#include "../work/train.h"
#include "api.h"

int ckpt_describe(const struct scenario *user, struct ckpt_description *d, struct err *e)
{
    struct arena a;
    struct topo t;
    struct workload w;
    memset(d, 0, sizeof *d);
    struct results *r = &d->r;
    struct scenario eff;
    const struct scenario *sc = &eff;
    arena_init(&a);
    int rc = ckpt_prepare(user, &eff, &a, &t, &w, r, e);
    struct scenario rs;
    struct topo v;
    struct workload rw;
    if (rc == 0 && eff.checkpoint.phase == PHASE_RESTORE) {
        /* the read only: described as ckpt_run reads it (its transfers,
         * bound and segments, the engine it would choose) */
        struct results *rr = malloc(sizeof *rr);
        rc = rr ? ckpt_restore_prepare(&eff, &t, &w, eff.restore.mode, &rs, &v, &rw, &a, rr, e)
                : err_set(e, "out of memory");
        if (rr)
            *r = *rr;
        free(rr);
        if (rc < 0)
            scenario_locate(&eff, e);
        sc = &rs;
    }
    const struct topo *ft = sc == &rs ? &v : &t;
    const struct workload *fw = sc == &rs ? &rw : &w;
    if (rc == 0) {
        d->engine = ckpt_choose_engine(sc, ft, fw, r);
        r->engine = d->engine;
        segments_compute(r, ft, fw, sc);
        d->transfers = fw->n;
        d->ports = ft->n_ports;
        struct ckpt_estimate est;
        ckpt_estimate(sc, ft, fw, &a, d->engine, r->bound_s, &est);
        d->est_packets = est.packets;
        d->est_events = est.events;
        d->est_events_max = est.events_max;
        d->est_mem_bytes = est.mem_bytes;
        d->est_wall_s = est.wall_s;
        d->est_wall_max_s = est.wall_max_s;
        d->est_resends = est.resends;
        /* say so when a run would be refused (ckpt_run gives the figures) */
        struct err big;
        struct ckpt_mem_limit lim;
        ckpt_mem_limit_of(&lim, NULL, (double)a.total);
        if ((d->engine == ENGINE_PACKET || d->engine == ENGINE_HYBRID) &&
            ckpt_packet_limits_mem(sc, &est, &lim, &big) < 0) {
            size_t l = strlen(r->engine_reason);
            snprintf(r->engine_reason + l, sizeof r->engine_reason - l,
                     "; too large: run refused without --force (or use --engine fluid)");
        }
    }
    arena_release(&a);
    return rc;
}
