/* The full daily cost of a checkpoint policy, for the comparison of
 * cost.compare_policies (src/api/policies.c runs each policy). */
#ifndef CKPT_POLICY_COST_H
#define CKPT_POLICY_COST_H

#include "../stats/results.h"

/* Fill row from a run of policy (enum ckpt_policy) whose cost, endurance
 * and capital are computed: stall, host contention, durability lag and the
 * rest of the waste (failures' rework and restarts) per day, capital per
 * day, the drives' wear beyond their amortisation, and their total; a run
 * that did not finish gives ok 0. */
void cost_policy_row(struct policy_cost *row, int policy, const struct results *r);

#endif
