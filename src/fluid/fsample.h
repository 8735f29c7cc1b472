/* Time series of a fluid run (series.h), sampled every telemetry.interval
 * without events of their own: rates are constant between the engine's
 * events, so a sample is the integral of those rates up to its instant and
 * results other than the series do not change.
 *
 * The engine reports rate changes (wire bits/s per topology segment, payload
 * bits/s of the flows sending) and calls fsample_to(t) before it handles the
 * events at time t. Cost: O(1) per rate change and per event batch,
 * O(SERIES_SEGS) per sample. Active transfers come at the end, from start
 * and completion times. Queues and pauses do not exist in a fluid:
 * series.port_state stays 0 and r->sample_max_queue NULL. */
#ifndef CKPT_FSAMPLE_H
#define CKPT_FSAMPLE_H

#include <stdint.h>

#include "../stats/results.h"

struct fsample {
    struct results *r;     /* fills r->sample_t, n_samples and r->series */
    uint64_t iv;           /* telemetry.interval; 0: off */
    uint64_t next;         /* instant of the next sample */
    uint64_t t;            /* the sums below are integrated up to t */
    uint32_t cap;          /* of r->sample_t */
    uint32_t sending;      /* flows started and not done sending */
    double seg_bps[SERIES_SEGS];   /* wire load of each segment's links */
    double seg_bytes[SERIES_SEGS]; /* wire bytes carried up to t */
    double pay_bps;        /* payload rate of the flows sending */
    double pay_part;       /* payload they sent up to t */
    uint64_t pay_done;     /* payload of the flows done sending */
    /* storage back ends (fsample_backends): each one's ingest level as of
     * t_upd and its arrival and drain rates (payload bits/s) */
    struct fs_store {
        double level, in_bps, drain_bps;
        uint64_t t_upd;
        int buffered;
    } *st;
    double st_cap;         /* storage.ingest_buffer; 0 = unlimited */
};

/* Start sampling into r (nothing when interval_ps is 0). */
void fsample_init(struct fsample *s, struct results *r, uint64_t interval_ps);

/* Take every sample due at or before t, then integrate up to t. */
void fsample_to(struct fsample *s, uint64_t t);

/* A checkpoint's write into storage back ends that can fall behind: n of
 * them, on storage nodes node[i], draining drain_bps[i] (0: stuck) when
 * buffered[i], into buffers of cap bytes (0: unlimited). The series then
 * holds their levels and what they wrote (series.h). Call after
 * fsample_init, before any sample; 0, or -1 out of memory (none sampled). */
int fsample_backends(struct fsample *s, uint32_t n, const uint32_t *node,
                     const double *drain_bps, const int *buffered, double cap);
/* Back end i's payload arrival rate from the last fsample_to time on. */
void fsample_ingest(struct fsample *s, uint32_t i, double in_bps);
/* Free what fsample_backends took (the series keeps its own). */
void fsample_release(struct fsample *s);

/* Rate changes, taking effect at the last fsample_to time. */
void fsample_seg(struct fsample *s, unsigned seg, double d_bps);
void fsample_payload(struct fsample *s, double d_bps);

/* A flow with bytes to send started; one finished sending `payload`. */
void fsample_flow_start(struct fsample *s);
void fsample_flow_sent(struct fsample *s, uint64_t payload);

/* After the run: samples up to the first instant at or after t_end, then
 * active transfers per sample from the n start and done times (UINT64_MAX:
 * never done), which it sorts in place. */
void fsample_finish(struct fsample *s, uint64_t t_end, uint32_t n, uint64_t *start,
                    uint64_t *done);

#endif
