/* Fluid time series: exact samples of piecewise-constant rates. */
#include "fsample.h"

#include <stdlib.h>
#include <string.h>

#include "../core/units.h"

#define BITS_PS 8e12 /* bytes * BITS_PS / bps = ps */

void fsample_init(struct fsample *s, struct results *r, uint64_t interval_ps)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    s->iv = interval_ps;
}

int fsample_backends(struct fsample *s, uint32_t n, const uint32_t *node,
                     const double *drain_bps, const int *buffered, double cap)
{
    struct series *se = &s->r->series;
    if (!s->iv || !n || se->n || se->store_node)
        return 0;
    s->st = calloc(n, sizeof *s->st);
    se->store_node = malloc(n * sizeof *se->store_node);
    if (!s->st || !se->store_node) {
        free(s->st);
        free(se->store_node);
        s->st = NULL;
        se->store_node = NULL;
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        s->st[i] = (struct fs_store){0, 0, drain_bps[i], s->t, buffered[i]};
        se->store_node[i] = node[i];
    }
    s->st_cap = cap;
    se->n_store = n;
    return 0;
}

/* Back end b's level at ts >= its t_upd: its rates are constant since, so
 * the level moves one way and stops at empty or full. */
static double level_at(const struct fsample *s, const struct fs_store *b, uint64_t ts)
{
    if (!b->buffered)
        return 0; /* writes what arrives */
    double l = b->level + (b->in_bps - b->drain_bps) * (double)(ts - b->t_upd) / BITS_PS;
    if (l < 0)
        l = 0;
    if (s->st_cap > 0 && l > s->st_cap)
        l = s->st_cap;
    return l;
}

void fsample_ingest(struct fsample *s, uint32_t i, double in_bps)
{
    if (!s->st || i >= s->r->series.n_store)
        return;
    struct fs_store *b = &s->st[i];
    b->level = level_at(s, b, s->t);
    b->t_upd = s->t;
    b->in_bps = in_bps > 0 ? in_bps : 0;
}

/* Make room for one more sample; 0, or -1 (sampling stops). */
static int reserve(struct fsample *s)
{
    struct results *r = s->r;
    if (r->n_samples == s->cap) {
        uint32_t c = s->cap ? 2 * s->cap : 256;
        double *t = realloc(r->sample_t, c * sizeof *t);
        if (!t)
            return -1;
        r->sample_t = t;
        s->cap = c;
    }
    return series_reserve(&r->series, 0);
}

/* One sample at instant ts (s->t <= ts): the sums moved on to ts, never
 * below the previous sample (round-off must not make them run backwards). */
static void take(struct fsample *s, uint64_t ts)
{
    struct results *r = s->r;
    struct series *se = &r->series;
    if (se->full || reserve(s) < 0) {
        se->full = 1;
        return;
    }
    uint32_t i = se->n;
    double dt = (double)(ts - s->t) / BITS_PS;
    uint64_t *sb = &se->seg_bytes[(size_t)i * SERIES_SEGS];
    for (int g = 0; g < SERIES_SEGS; g++) {
        double b = s->seg_bytes[g] + (s->seg_bps[g] > 0 ? s->seg_bps[g] : 0) * dt;
        sb[g] = b > 0 ? (uint64_t)(b + 0.5) : 0;
        if (i && sb[g] < sb[g - SERIES_SEGS])
            sb[g] = sb[g - SERIES_SEGS];
    }
    double sent = (double)s->pay_done + s->pay_part + (s->pay_bps > 0 ? s->pay_bps : 0) * dt;
    double rem = (double)r->ckpt_bytes - sent;
    uint64_t v = rem > 0 ? (uint64_t)(rem + 0.5) : 0;
    if (i && v > se->remaining[i - 1])
        v = se->remaining[i - 1];
    if (se->n_store) {
        /* the back ends wrote what arrived less what they hold */
        uint64_t *lv = &se->ingest[(size_t)i * se->n_store];
        double held = 0;
        for (uint32_t j = 0; j < se->n_store; j++) {
            double l = level_at(s, &s->st[j], ts);
            lv[j] = (uint64_t)(l + 0.5);
            held += l;
        }
        double w = sent - held;
        uint64_t wrote = w > 0 ? (uint64_t)(w + 0.5) : 0;
        wrote = wrote < r->ckpt_bytes ? wrote : r->ckpt_bytes;
        if (i && wrote < sb[PATH_BACKEND - SERIES_SEGS])
            wrote = sb[PATH_BACKEND - SERIES_SEGS];
        sb[PATH_BACKEND] = wrote;
        v = r->ckpt_bytes - wrote;
        if (i && v > se->remaining[i - 1])
            v = se->remaining[i - 1];
    }
    se->remaining[i] = v;
    se->active[i] = 0; /* counted in fsample_finish */
    r->sample_t[i] = (double)ts / (double)PS_PER_S;
    se->n = r->n_samples = i + 1;
}

void fsample_to(struct fsample *s, uint64_t t)
{
    if (!s->iv || t < s->t)
        return; /* off, or time went back (the engine reports that) */
    while (s->next <= t && !s->r->series.full) {
        take(s, s->next);
        s->next += s->iv;
    }
    double dt = (double)(t - s->t) / BITS_PS;
    for (int g = 0; g < SERIES_SEGS; g++)
        s->seg_bytes[g] += s->seg_bps[g] * dt;
    s->pay_part += s->pay_bps * dt;
    s->t = t;
}

void fsample_seg(struct fsample *s, unsigned seg, double d_bps)
{
    s->seg_bps[seg < SERIES_SEGS ? seg : SERIES_SEGS - 1] += d_bps;
}

void fsample_payload(struct fsample *s, double d_bps)
{
    s->pay_bps += d_bps;
}

void fsample_flow_start(struct fsample *s)
{
    s->sending++;
}

void fsample_flow_sent(struct fsample *s, uint64_t payload)
{
    s->pay_done += payload;
    s->pay_part -= (double)payload;
    if (--s->sending == 0) {
        /* nothing moves: drop what round-off left in the running sums */
        s->pay_part = s->pay_bps = 0;
        memset(s->seg_bps, 0, sizeof s->seg_bps);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void fsample_finish(struct fsample *s, uint64_t t_end, uint32_t n, uint64_t *start,
                    uint64_t *done)
{
    if (!s->iv)
        return;
    if (t_end < s->t)
        t_end = s->t;
    /* the first instant at or after t_end (the packet engine's last sample
     * is the first that finds every transfer done) */
    uint64_t last = (t_end + s->iv - 1) / s->iv * s->iv;
    fsample_to(s, last);
    struct series *se = &s->r->series;
    if (n) {
        qsort(start, n, sizeof *start, cmp_u64);
        qsort(done, n, sizeof *done, cmp_u64);
    }
    uint32_t a = 0, d = 0;
    for (uint32_t i = 0; i < se->n; i++) {
        uint64_t ts = (uint64_t)i * s->iv;
        while (a < n && start[a] <= ts)
            a++;
        while (d < n && done[d] <= ts)
            d++;
        se->active[i] = a - d;
    }
}

void fsample_release(struct fsample *s)
{
    free(s->st);
    s->st = NULL;
}
