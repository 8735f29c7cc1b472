/* The request model's engine-agnostic parts (request.h). */
#include "request.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int request_on(const struct workload *w, const struct scenario *sc)
{
    (void)w; /* a restore's reads are requests too (GET, READ) */
    return sc->storage.protocol != SPROTO_NONE && sc->storage.request_size &&
           sc->storage.req_inflight;
}

double request_cap_bps(const struct scenario *sc, uint64_t bytes, uint64_t wire,
                       uint32_t share, double line_bps)
{
    if (!bytes || !share || !(line_bps > 0))
        return INFINITY;
    /* R requests in rounds of N / share: each round's bytes at line rate,
     * a latency between rounds (the last one's is the tail) */
    double per = (double)sc->storage.req_inflight / share;
    double reqs = (double)request_done_below(bytes, bytes, sc->storage.request_size);
    double rounds = ceil(reqs / per - 1e-9);
    double lat = (double)sc->storage.req_latency_ps / 1e12;
    double t = (double)wire * 8 / line_bps + (rounds > 1 ? rounds - 1 : 0) * lat;
    return t > 0 ? (double)wire * 8 / t : INFINITY;
}

void request_writer_shares(const struct workload *w, uint32_t *count)
{
    memset(count, 0, (size_t)w->n_writers * sizeof *count);
    for (uint32_t i = 0; i < w->n; i++)
        if (w->xfers[i].writer < w->n_writers)
            count[w->xfers[i].writer]++;
}

uint64_t request_tail_ps(const struct workload *w, const struct scenario *sc)
{
    if (!request_on(w, sc))
        return 0;
    uint64_t l = sc->storage.req_latency_ps;
    if (w->restore) /* a read has no commit: the last request's latency only */
        return l;
    return l > UINT64_MAX / 2 ? UINT64_MAX : 2 * l;
}

void request_estimate(const struct workload *w, const struct scenario *sc,
                      const double *writer_s, uint32_t n_writer_s, uint64_t *count,
                      double *mean_s, double *max_s)
{
    *count = 0;
    *mean_s = *max_s = 0;
    uint64_t size = sc->storage.request_size;
    if (!request_on(w, sc) || !writer_s)
        return;
    double *bytes = calloc(w->n_writers ? w->n_writers : 1, sizeof *bytes);
    uint64_t *reqs = calloc(w->n_writers ? w->n_writers : 1, sizeof *reqs);
    if (!bytes || !reqs) {
        free(bytes);
        free(reqs);
        return;
    }
    for (uint32_t i = 0; i < w->n; i++) {
        const struct transfer *x = &w->xfers[i];
        if (x->writer < w->n_writers) {
            bytes[x->writer] += (double)x->bytes;
            reqs[x->writer] += request_done_below(x->bytes, x->bytes, size);
        }
    }
    double lat = (double)sc->storage.req_latency_ps / 1e12;
    double tail = (double)request_tail_ps(w, sc) / 1e12, sum = 0;
    uint64_t n = 0;
    for (uint32_t i = 0; i < w->n_writers && i < n_writer_s; i++) {
        double d = writer_s[i] - tail;
        if (writer_s[i] < 0 || !reqs[i] || !(d > 0))
            continue;
        double inflight = (double)(reqs[i] < sc->storage.req_inflight ? reqs[i]
                                                                       : sc->storage.req_inflight);
        double each = inflight * (bytes[i] / (double)reqs[i]) / (bytes[i] / d);
        /* no less than the server's latency after one request at line rate */
        double least = lat + (bytes[i] / (double)reqs[i]) * 8 / (double)sc->cluster.nic_bps;
        each = each > least ? each : least;
        sum += each * (double)reqs[i];
        n += reqs[i];
        *max_s = each > *max_s ? each : *max_s;
    }
    *count = n;
    *mean_s = n ? sum / (double)n : 0;
    free(bytes);
    free(reqs);
}
