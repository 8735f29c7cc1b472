/* The library's entry points over the internal types (struct scenario,
 * struct results, struct err): what the CLI and the tests call. A run goes
 * one way:
 *   scenario -> topology + workload -> engine -> results -> reports
 *
 *   struct scenario sc;  scenario_defaults(&sc);
 *   scenario_load_file(&sc, "s.yaml", &e);  scenario_set(&sc, "seed=2", &e);
 *   scenario_validate(&sc, &e);
 *   struct results r;  ckpt_run(&sc, &r, &e);
 *   report_summary(stdout, &sc, &r);
 *
 * Functions return 0 on success and -1 with a one-line message in the
 * caller's struct err. Nothing is printed except through the report
 * functions, to the FILE the caller passes. Embedders use include/ckptnet.h
 * (opaque types, ckpt_ names only), which src/api/public.c implements on
 * these. */
#ifndef CKPT_API_CKPT_H
#define CKPT_API_CKPT_H

#include <stdint.h>
#include <stdio.h>

#include "../core/err.h"
#include "../core/text.h"
#include "../pkt/capture.h" /* ckpt_capture_new, ckpt_capture_free */
#include "../report/report.h"
#include "../scenario/scenario.h"
#include "../stats/results.h"

/* Build topology and workload, compute the bound and run the packet engine.
 * r is filled completely; r->ok says whether every invariant held. */
int ckpt_run(const struct scenario *sc, struct results *r, struct err *e);
/* The same, calling progress->fn now and then from the engine's loop (packet
 * engine: every 65536 events); progress may be NULL. The results do not
 * depend on it. */
int ckpt_run_progress(const struct scenario *sc, struct results *r,
                      const struct ckpt_progress *progress, struct err *e);

/* The same, also recording the frames at the ports telemetry.pcap.ports
 * names into cap (see report_pcap); the results do not depend on it. Only
 * the packet engine has packets: a run the fluid engine would make is
 * refused (-1). cap comes from ckpt_capture_new; capture_release frees what
 * a run put in it. */
int ckpt_run_capture(const struct scenario *sc, struct results *r,
                     const struct ckpt_progress *progress, struct ckpt_capture *cap,
                     struct err *e);

/* Fill d (src/report/report.h) with what a run of sc would do, without
 * running it. */
int ckpt_describe(const struct scenario *sc, struct ckpt_description *d, struct err *e);

/* A scenario prepared once and run later, without building its topology
 * and workload again (ckptnet size bounds a design from its preparation,
 * then runs it). One holder is reused from scenario to scenario; it is not
 * shared between threads. */
struct ckpt_prepared;
struct ckpt_prepared *ckpt_prepared_new(void); /* NULL: out of memory */
void ckpt_prepared_free(struct ckpt_prepared *p);
/* Resolve and build sc into p (what p held before is dropped); r, when not
 * NULL, gets the figures known before the engine (plan, fabric, its bill,
 * the bound and its terms). Returns 0, or -1 with e set as ckpt_run would. */
int ckpt_prepared_set(struct ckpt_prepared *p, const struct scenario *sc, struct results *r,
                      struct err *e);
/* Run what ckpt_prepared_set prepared, once: r as ckpt_run(sc) fills it
 * (release with results_release). */
int ckpt_prepared_run(struct ckpt_prepared *p, struct results *r, struct err *e);
/* Write the fabric a run of sc would build to path as a topology file
 * (fabric.topology_file reads it back; docs/scenario.md). */
int ckpt_topology_out(const struct scenario *sc, const char *path, struct err *e);

#endif
