#include "support.h"

#include <stdarg.h>
#include <stdio.h>

void test_set(struct scenario *sc, const char *fmt, ...)
{
    char a[160];
    struct err e;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a, sizeof a, fmt, ap);
    va_end(ap);
    if (scenario_set(sc, a, &e) < 0)
        fprintf(stderr, "  %s\n", e.msg);
}

int test_run(const struct scenario *sc, struct results *r)
{
    struct err e = {{0}};
    int rc = ckpt_run(sc, r, &e);
    if (rc)
        fprintf(stderr, "  ckpt_run: %s\n", e.msg);
    return rc;
}

char *test_json(const struct scenario *sc, const struct results *r)
{
    char *buf = NULL;
    size_t len = 0;
    struct err e = {{0}};
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    report_json(f, sc, r, 0, &e);
    fclose(f);
    return buf;
}
