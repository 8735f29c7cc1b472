/* Prefetch hints. Cachegrind ignores prefetch instructions, so its miss
 * counts cannot say which misses a prefetch hides: a build with
 * -DCKPT_PREFETCH_LOADS makes each hint a load, and the misses it takes
 * are then charged to the hint's line (hidden); those left at the lines
 * that use the data are the exposed ones (BENCHMARKS.md, step 11). Every
 * address hinted must be valid memory for that build. */
#ifndef CKPT_PREFETCH_H
#define CKPT_PREFETCH_H

#ifdef CKPT_PREFETCH_LOADS
/* the load's value is stored: valgrind drops a load whose value is dead */
#define ckpt_prefetch(p)                                                    \
    do {                                                                    \
        volatile char ckpt_pf_ = *(const volatile char *)(const void *)(p); \
        (void)ckpt_pf_;                                                     \
    } while (0)
#define ckpt_prefetch_w(p) ckpt_prefetch(p)
#else
#define ckpt_prefetch(p) __builtin_prefetch(p)
#define ckpt_prefetch_w(p) __builtin_prefetch(p, 1)
#endif

#endif
