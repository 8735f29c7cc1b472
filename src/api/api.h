/* Internal to src/api: the engine choice shared by run and describe. */
#ifndef CKPT_API_H
#define CKPT_API_H

#include "../scenario/scenario.h"
#include "../stats/results.h"
#include "../work/work.h"

/* engine: packet, fluid, or auto's pick by estimated packet events; writes
 * why into r->engine_reason. Returns enum engine_kind (never ENGINE_AUTO). */
int ckpt_choose_engine(const struct scenario *sc, const struct workload *w,
                       struct results *r);

#endif
