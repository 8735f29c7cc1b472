/* Names of enumerated values: one table per enumerated scenario key, read
 * by the parser (its choices, in order: a value is its index), and by every
 * writer that prints the value (summary, JSON, metrics, sweep columns).
 *
 * A table is a run of rows whose first member is the name (a const char *):
 * a plain array of names, or a descriptor table such as lb_schemes[] whose
 * rows say more about each value.
 */
#ifndef CKPT_NAMES_H
#define CKPT_NAMES_H

#include <stddef.h>

struct names {
    const void *rows;  /* row i starts with its name */
    size_t stride;     /* bytes per row */
    int n;
};

/* Expanders for the X-macro lists beside the enums (scenario.h): each list
 * is X(ENUMERATOR, "name") rows in value order. */
#define NAMES_ENUM(e, s) e,
#define NAMES_STR(e, s) s,

/* Name of value v; "?" when v is outside the table (a corrupt value). */
const char *names_of(const struct names *t, int v);

/* The value named s (its whole length len), or -1. */
int names_find(const struct names *t, const char *s, size_t len);

/* "a|b|c" into buf (truncated to len); returns buf. */
const char *names_join(const struct names *t, const char *sep, char *buf, size_t len);

#endif
