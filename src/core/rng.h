/* Seeded random streams (xoshiro256**). Each consumer gets its own stream
 * derived from (seed, stream id), so adding draws in one place does not
 * shift the numbers another place sees. */
#ifndef CKPT_RNG_H
#define CKPT_RNG_H

#include <stdint.h>

/* Hashes and generators wrap modulo 2^64 on purpose; the overflow
 * sanitizer build (make test-overflow) checks every other function. */
#if defined(__clang__)
#define CKPT_WRAPS __attribute__((no_sanitize("unsigned-integer-overflow")))
#else
#define CKPT_WRAPS
#endif

enum rng_stream {
    RNG_JITTER = 1,  /* writer start offsets */
    RNG_ECMP = 2,    /* per-switch hash seeds */
    RNG_QP = 3,      /* queue pair UDP source ports */
    RNG_ECN = 4,     /* RED marking decisions */
    RNG_LB = 5,      /* load-balancing tie breaks and random spray */
    RNG_FAIL = 6,    /* which links fail */
    RNG_POLICY = 16, /* checkpoint policy offsets (jitter policy) */
    RNG_STRAGGLER = 17, /* which writers straggle */
    RNG_FAILURE = 18,   /* failure times of the cost Monte Carlo */
    RNG_PLACEMENT = 19, /* storage placement: hash salt, random stripe starts */
    RNG_RESTORE = 20,   /* restore queue pairs' UDP source ports */
    RNG_PROTECT = 24,   /* replica forwards' UDP source ports */
};

struct rng {
    uint64_t s[4];
};

void rng_init(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_u64(struct rng *r);
/* Uniform in [0, n), unbiased; n = 0 returns 0. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Uniform in [0, 1). */
double rng_double(struct rng *r);

/* Stateless 64-bit mixer (splitmix64 finaliser); also used for hashing. */
uint64_t mix64(uint64_t x);

#endif
