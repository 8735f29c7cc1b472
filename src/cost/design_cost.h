/* Prices of a fabric design (src/topo/design.h): its capital at
 * cost.prices, its power at the reference watts and the kwh price, per day
 * (docs/size.md, "Prices"). */
#ifndef CKPT_COST_DESIGN_COST_H
#define CKPT_COST_DESIGN_COST_H

#include <stdint.h>

#include "../topo/design.h"
#include "cost.h"

/* Each link class's parts: transceivers (two a link; none in a rack) and
 * one cable a link. */
struct design_part {
    char optic[24], cable[24]; /* price names; "" for none */
    uint64_t optics, cables;
};

struct design_price {
    struct design_part part[DL_N];
    double switches, optics, cables, storage; /* money */
    double capital, capital_per_day;
    double watts, power_per_day;              /* kwh unpriced: power_per_day 0 */
    double per_day;                           /* capital + power a day */
    uint32_t n_unpriced;
    char unpriced[8][72];                     /* "24 spines (CX764QD-N)" */
};

/* Price d (of in) at pr over years of amortisation. */
void cost_design(struct design_price *out, const struct design *d,
                 const struct design_input *in, const struct cost_price *pr, uint32_t np,
                 double years);

#endif
