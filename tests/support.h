/* Helpers shared by the end-to-end tests. */
#ifndef CKPT_TEST_SUPPORT_H
#define CKPT_TEST_SUPPORT_H

#include "../include/ckptnet.h"

/* scenario_set with printf formatting; a refused key is printed (and the
 * test's later checks fail on the unchanged value). */
void test_set(struct scenario *sc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ckpt_run, printing the error when the run cannot start. */
int test_run(const struct scenario *sc, struct results *r);

/* A small three-tier fabric: 16 writers in 2 pods, 8 storage nodes. */
void test_small_clos(struct scenario *sc);

/* The run's JSON without perf (report_json), for comparing runs; caller
 * frees. */
char *test_json(const struct scenario *sc, const struct results *r);

/* The value at a dotted key ("cost.goodput") of a parsed document, or NULL. */
struct json_t;
struct json_t *test_json_at(struct json_t *root, const char *dotted);

#endif
