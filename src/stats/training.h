/* The training figures of a run's results (results.h) from the step clock
 * the engines drive (work/train.h). */
#ifndef CKPT_STATS_TRAINING_H
#define CKPT_STATS_TRAINING_H

#include <stdint.h>

#include "../work/train.h"
#include "results.h"

/* Fill r->training from the clock (NULL or tr->on_fabric = 0: the baseline
 * steps of physical isolation), with the checkpoint's trigger-to-end span;
 * takes over the clock's arrays. */
void train_results(struct results *r, const struct training *tr, struct train_clock *c,
                   uint64_t ckpt_end_ps);

#endif
