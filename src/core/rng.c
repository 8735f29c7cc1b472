#include "rng.h"

CKPT_WRAPS uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

CKPT_WRAPS void rng_init(struct rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = mix64(seed) ^ mix64(stream * UINT64_C(0xd1342543de82ef95) + 1);
    for (int i = 0; i < 4; i++) {
        x = mix64(x + (uint64_t)i);
        r->s[i] = x;
    }
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1; /* the all-zero state is a fixed point */
}

CKPT_WRAPS static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

CKPT_WRAPS uint64_t rng_u64(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

CKPT_WRAPS uint64_t rng_below(struct rng *r, uint64_t n)
{
    if (n == 0)
        return 0;
    uint64_t lim = -n % n; /* 2^64 mod n: reject the short last block */
    for (;;) {
        uint64_t x = rng_u64(r);
        if (x >= lim)
            return x % n;
    }
}

double rng_double(struct rng *r)
{
    return (double)(rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}
