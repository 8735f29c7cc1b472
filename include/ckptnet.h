/* ckptnet: how much training time do checkpoints cost on this fabric?
 *
 * The one public header. A run goes one way:
 *   scenario -> topology + workload -> engine -> results -> reports
 *
 *   struct scenario sc;  scenario_defaults(&sc);
 *   scenario_load_file(&sc, "s.yaml", &e);  scenario_set(&sc, "seed=2", &e);
 *   scenario_validate(&sc, &e);
 *   struct results r;  ckpt_run(&sc, &r, &e);
 *   report_summary(stdout, &sc, &r);
 *
 * Functions return 0 on success and -1 with a one-line message in the
 * caller's struct err. Nothing is printed by the library except through the
 * report functions, to the FILE the caller passes.
 */
#ifndef CKPTNET_H
#define CKPTNET_H

#include <stdio.h>

#include "../src/core/err.h"
#include "../src/scenario/scenario.h"
#include "../src/stats/results.h"

/* Build topology and workload, compute the bound and run the packet engine.
 * r is filled completely; r->ok says whether every invariant held. */
int ckpt_run(const struct scenario *sc, struct results *r, struct err *e);

/* Human summary (a dozen lines). */
void report_summary(FILE *out, const struct scenario *sc, const struct results *r);
/* JSON document with the results and the effective scenario; perf = 0 omits
 * the perf.* section (for byte-exact comparisons). */
int report_json(FILE *out, const struct scenario *sc, const struct results *r,
                int perf, struct err *e);

#endif
