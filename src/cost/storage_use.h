/* What a checkpoint policy asks of the storage beyond its bandwidth, and
 * the figures MLPerf Storage reports.
 *
 * Endurance: bytes written per day at the policy's checkpoints per day,
 * the capacity the kept checkpoints hold, and drive writes per day against
 * the drives' rating, and their wear in money when the drives are priced
 * (docs/storage.md, Capacity and endurance, Drive wear).
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

/* The drives' wear in money from f's drive writes per day and rating
 * (docs/storage.md, Drive wear): drives_price x dwpd / (dwpd_rating x
 * rating_years x 365.25) a day, its excess over the straight-line
 * amortisation drives_price / (amortisation_years x 365.25) the cost
 * beyond capital. Leaves wear_priced 0 without a rating or drives. */
void endurance_wear(struct endurance_figures *f, double drives_price, double rating_years,
                    double amortisation_years);

/* Fill r->mlperf when checkpoint.mlperf is set; needs writer 0's duration
 * (r->writer_s) and, for the reads, the restore. */
void mlperf_compute(struct results *r, const struct scenario *sc);

#endif
