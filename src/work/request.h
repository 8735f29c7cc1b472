/* The request model (storage.protocol; docs/storage.md, Requests): a
 * rank's file goes out as requests of storage.request_size, at most
 * storage.requests_in_flight per rank, each complete
 * storage.request_latency after its last byte arrived; a commit
 * (CompleteMultipartUpload, NFS COMMIT) costs one more latency at the end.
 * A restore reads the same way (GETs, READs from the storage nodes, the
 * reader's slots), without the commit. */
#ifndef CKPT_WORK_REQUEST_H
#define CKPT_WORK_REQUEST_H

#include <stdint.h>

#include "../scenario/scenario.h"
#include "work.h"

/* Does the request model apply to this workload? */
int request_on(const struct workload *w, const struct scenario *sc);

/* Requests wholly below byte offset off of a transfer of bytes, size each
 * (the last one short): off / size, or all of them at the end. */
static inline uint64_t request_done_below(uint64_t off, uint64_t bytes, uint64_t size)
{
    return off >= bytes ? (bytes + size - 1) / size : off / size;
}

/* The fluid engine's rate cap for a transfer of bytes (wire bytes on the
 * wire), in wire bits/s, its writer's requests_in_flight shared by `share`
 * transfers: its R requests go in rounds of N / share, each round's bytes
 * at the sending NIC's line_bps, request_latency between rounds (the last
 * one's is in the tail). Exact when the NIC is the limit within a round;
 * optimistic when the fabric gives the requests less. INFINITY when one
 * round holds them all. */
double request_cap_bps(const struct scenario *sc, uint64_t bytes, uint64_t wire,
                       uint32_t share, double line_bps);

/* Transfers per writer, into count[n_writers] (zeroed first). */
void request_writer_shares(const struct workload *w, uint32_t *count);

/* The tail every transfer pays after its last byte: the last request's
 * latency and, for a write, the commit's (0 without the model). */
uint64_t request_tail_ps(const struct workload *w, const struct scenario *sc);

/* The fluid engine's figures: requests per transfer, and each writer's
 * request latency by Little's law, min(N, its requests) x its mean request
 * over its throughput (no less than request_latency); writer_s[i] is
 * writer i's time with the tail (< 0: not done). */
void request_estimate(const struct workload *w, const struct scenario *sc,
                      const double *writer_s, uint32_t n_writer_s, uint64_t *count,
                      double *mean_s, double *max_s);

#endif
