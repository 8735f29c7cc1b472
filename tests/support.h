/* Helpers shared by the end-to-end tests. */
#ifndef CKPT_TEST_SUPPORT_H
#define CKPT_TEST_SUPPORT_H

#include "../src/api/api.h"
#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/topo/design.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"

/* scenario_set with printf formatting; a refused key is printed (and the
 * test's later checks fail on the unchanged value). */
void test_set(struct scenario *sc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Set a design's scenario keys (design_keys) on sc. */
void test_set_design(struct scenario *sc, const struct design *d);

/* ckpt_run, printing the error when the run cannot start. */
int test_run(const struct scenario *sc, struct results *r);

/* A small three-tier fabric: 16 writers in 2 pods, 8 storage nodes. */
void test_small_clos(struct scenario *sc);

/* A scenario's workload on its fabric, in the struct's own arena (the
 * caller releases it, also after an error). */
struct test_built {
    struct arena a;
    struct topo t;
    struct workload w;
};
/* workload_build over topo_build of the workload's fabric (workload_fabric):
 * 0, or -1 with e set. */
int test_build(struct test_built *b, const struct scenario *sc, struct err *e);
/* sc's fabric (resolved, built) written to path as a topology file: its
 * links in runs and names in ranges (runs 1) or one a line (0), whatever
 * its size. 0, or -1 with e set. */
int test_export_topology(const struct scenario *sc, const char *path, int runs, struct err *e);
/* test_build, printing the error. */
int test_build_ok(struct test_built *b, const struct scenario *sc);

/* nf transfers of bytes each from hosts 0, stride, 2 stride, ... (source
 * port 50000 + i) into the first storage node, over sc's fabric (resolved
 * here), through transport o (pkt_run_transport): the run must end ok with
 * every byte delivered. b keeps the fabric and the transfers for the
 * caller's own checks; the caller releases b->a, also after an error. */
struct transport_ops;
int test_run_incast(struct test_built *b, struct scenario *sc, uint32_t nf, uint32_t stride,
                    uint64_t bytes, const struct transport_ops *o, struct results *r);

/* Defaults, then Ultra Ethernet's framing with no congestion control and
 * ACKs through the fabric: nodes writers x 1 MB into one storage node. */
void test_uec_incast(struct scenario *sc, uint32_t nodes);

/* The run's JSON without perf (report_json), for comparing runs; caller
 * frees. */
char *test_json(const struct scenario *sc, const struct results *r);
/* The run's summary as text (malloc'd; NULL out of memory). */
char *test_summary(const struct scenario *sc, const struct results *r);

/* Defaults, then a small three-tier spray fabric: 600 nodes, 8 storage
 * nodes, 32-port switches, two queue pairs a writer (several transfers a
 * leaf pair), fluid engine. */
void test_spray3(struct scenario *sc);

/* The value at a dotted key ("cost.goodput") of a parsed document, or NULL. */
struct json_t;
struct json_t *test_json_at(struct json_t *root, const char *dotted);

/* A scenario prepared as ckpt_run prepares it (ckpt_prepare): the resolved
 * scenario, fabric and transfers in the struct's own arena, the results'
 * checkpoint, fabric and bound figures. */
struct test_prep {
    struct scenario eff;
    struct arena a;
    struct topo t;
    struct workload w;
    struct results r;
    struct err e;
};
/* 0, or -1 with p->e set; the caller releases p (test_prep_release), also
 * after an error. */
int test_prepare(struct test_prep *p, const struct scenario *sc);
/* p's results and arena. */
void test_prep_release(struct test_prep *p);

#endif
