/* describe --topology-out: the fabric a run would build, as a topology
 * file (src/topo/export.c). */
#include "ckpt.h"
#include "api.h"

#include <stdlib.h>

int ckpt_topology_out(const struct scenario *user, const char *path, struct err *e)
{
    struct arena a;
    struct topo t;
    struct workload w;
    struct scenario eff;
    struct results *r = calloc(1, sizeof *r);
    if (!r)
        return err_set(e, "out of memory");
    arena_init(&a);
    r->bottleneck.seg = r->bottleneck.next_seg = -1;
    int rc = ckpt_prepare(user, &eff, &a, &t, &w, r, e);
    if (rc == 0)
        rc = topo_export(&t, &eff, path, e);
    arena_release(&a);
    free(r);
    return rc;
}
