/* Error reporting: library functions return -1 and leave a one-line message
 * in a caller-owned struct err; only the CLI prints it. */
#ifndef CKPT_ERR_H
#define CKPT_ERR_H

struct err {
    char msg[512];
};

/* Format msg (printf style). Always returns -1 so callers can
 * `return err_set(e, ...)`. A NULL e is allowed and ignored. */
int err_set(struct err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
