/* Error reporting: library functions return -1 and leave a one-line message
 * in a caller-owned struct err; only the CLI prints it. */
#ifndef CKPT_ERR_H
#define CKPT_ERR_H

#include <stddef.h>

struct err {
    char msg[512];
};

/* Format msg (printf style). Always returns -1 so callers can
 * `return err_set(e, ...)`. A NULL e is allowed and ignored.
 * The message stays one line whatever it echoes: control characters (C0,
 * DEL, and C1 as UTF-8) are written as escapes (\n, \t, \x1b, \xc2\x9b), so
 * a value or file name cannot break the line or reach a terminal raw. */
int err_set(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Copy s into buf (size len, always NUL-terminated, truncated) with control
 * characters escaped as err_set does. Returns buf. */
char *err_escape(char *buf, size_t len, const char *s);

#endif
