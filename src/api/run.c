/* ckpt_run: the pipeline from a validated scenario to results. */
#include <string.h>

#include "../../include/ckptnet.h"
#include "../core/arena.h"
#include "../pkt/engine.h"
#include "../stats/bound.h"
#include "../topo/topo.h"
#include "../work/work.h"

int ckpt_run(const struct scenario *sc, struct results *r, struct err *e)
{
    struct arena a;
    struct topo t;
    struct workload w;
    memset(r, 0, sizeof *r);
    arena_init(&a);
    int rc = topo_build(&t, sc, &a, e);
    if (rc == 0)
        rc = workload_build(&w, sc, &t, &a, e);
    if (rc == 0) {
        r->ckpt_bytes = w.total_bytes;
        r->oversub_compute = t.oversub_compute;
        r->oversub_storage = t.oversub_storage;
        r->switches = t.n_switches;
        r->links = t.n_ports / 2;
        bound_compute(r, &t, &w, sc);
        rc = pkt_run(sc, &t, &w, r, e);
        r->mem_bytes += a.total;
    }
    arena_release(&a);
    return rc;
}
