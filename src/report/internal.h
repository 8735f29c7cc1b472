/* Internal to src/report: number formats (each writes into buf and returns
 * it) and the pieces of the JSON document other files build. */
#ifndef CKPT_REPORT_INTERNAL_H
#define CKPT_REPORT_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "../stats/results.h"

const char *fmt_secs(double s, char *buf, size_t len);   /* "12.35 ms" */
const char *fmt_rate(double bps, char *buf, size_t len); /* "400 Gbps" */
const char *fmt_bytes(double b, char *buf, size_t len);  /* "2.048 GB" */
const char *fmt_dur(double s, char *buf, size_t len);    /* "30 min", "3.1 h" */
const char *fmt_num(double v, char *buf, size_t len);    /* 4 digits, no exponent */


/* JSON segments[] and bottleneck (verdict.c). */
json_t *segments_json(const struct results *r);
json_t *bottleneck_json(const struct results *r);

#endif
