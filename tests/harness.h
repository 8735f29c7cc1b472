/* Minimal test harness: CHECK records a failure and continues; each test
 * passes when it recorded no failure. main() ends with "N passed, N failed". */
#ifndef CKPT_HARNESS_H
#define CKPT_HARNESS_H

#include <stdio.h>

extern int harness_failures; /* failures in the current test */

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__,       \
                    __LINE__, #cond);                                      \
            harness_failures++;                                            \
        }                                                                  \
    } while (0)

#define CHECKF(cond, ...)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "  %s:%d: check failed: %s: ", __FILE__,       \
                    __LINE__, #cond);                                      \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            harness_failures++;                                            \
        }                                                                  \
    } while (0)

struct test {
    const char *name;
    void (*fn)(void);
};

/* Each test file defines one NULL-terminated suite array. */
#define SUITE(name) const struct test name[]

#endif
