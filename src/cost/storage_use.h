/* What a checkpoint policy asks of the storage beyond its bandwidth, and
 * the figures MLPerf Storage reports.
 *
 * Endurance: bytes written per day at the policy's checkpoints per day,
 * the capacity the kept checkpoints hold, and drive writes per day against
 * the drives' rating (docs/storage.md, Capacity and endurance).
 * MLPerf: rank 0's save time and the all-rank time of a checkpoint.mlperf
 * run, as DLIO measures them (docs/storage.md, Validation).
 */
#ifndef CKPT_STORAGE_USE_H
#define CKPT_STORAGE_USE_H

#include "../scenario/scenario.h"
#include "../stats/results.h"

/* Fill r->endurance (on only when storage.capacity or storage.drive_dwpd
 * is given and the run finished with a checkpoint interval). Needs
 * r->cost (cost_compute first). */
void endurance_compute(struct results *r, const struct scenario *sc);

/* Fill r->mlperf when checkpoint.mlperf is set; needs writer 0's duration
 * (r->writer_s) and, for the reads, the restore. */
void mlperf_compute(struct results *r, const struct scenario *sc);

#endif
