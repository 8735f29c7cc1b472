/* Internal to src/api: the engine choice shared by run and describe. */
#ifndef CKPT_API_H
#define CKPT_API_H

#include "../core/arena.h"
#include "../scenario/scenario.h"
#include "../stats/results.h"
#include "../topo/topo.h"
#include "../work/work.h"

/* The pipeline up to the engine, shared by run and describe: resolve the
 * scenario into *eff, build topology and transfers in the arena (which the
 * caller initialised and releases), fill r's checkpoint, fabric and bound
 * figures. Returns 0 or -1 with e set. */
int ckpt_prepare(const struct scenario *user, struct scenario *eff, struct arena *a,
                 struct topo *t, struct workload *w, struct results *r, struct err *e);

/* engine: packet, fluid, or auto's pick by estimated packet events; writes
 * why into r->engine_reason. Returns enum engine_kind (never ENGINE_AUTO). */
int ckpt_choose_engine(const struct scenario *sc, const struct workload *w,
                       struct results *r);

#endif
