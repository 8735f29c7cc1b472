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
    char optic2[24];           /* a broken-out end's own transceiver ("" none) */
    uint64_t optics2;
};

struct design_price {
    struct design_part part[DL_N];
    double switches, optics, cables, storage; /* money */
    double training;    /* fabric.isolation physical: training's own fabric */
    uint32_t train_sw[3]; /* its leaves, spines, super-spines */
    double capital, capital_per_day;
    double watts, power_per_day;              /* kwh unpriced: power_per_day 0 */
    double per_day;                           /* capital + power a day */
    uint32_t n_unpriced;
    char unpriced[8][72];                     /* "24 spines (CX764QD-N)" */
};

/* n items named name: adds their price to *sum (else lists them in
 * o->unpriced as "n what (name)") and their reference watts to o->watts. */
void cost_price_add(struct design_price *o, double *sum, const struct cost_price *pr,
                    uint32_t np, const char *name, uint64_t n, const char *what);

/* links of class c (enum design_link) at bps: one cable each (a DAC in the
 * rack, else fibre by reach) and, outside the rack, a transceiver at each
 * end (by reach: leaf-spine _sr, spine-super-spine _dr, else the speed's
 * any-reach price). Adds to o's optics, cables, part[c] and watts. The one
 * rule size's designs and run's capital share. */
void cost_price_links(struct design_price *o, int c, uint64_t links, uint64_t bps,
                      const struct cost_price *pr, uint32_t np);

/* The same with the class's ends (design.h, struct design_end): an end
 * broken out (b > 1) takes one part a switch port for its b links: a
 * breakout DAC dac_<port>g_<b>x in the rack, else a transceiver of the
 * port's speed (optic2); the other end a transceiver a link at the link's
 * speed; one fibre a link. Ends at 1 price as cost_price_links. */
void cost_price_links_bo(struct design_price *o, int c, uint64_t links, uint64_t bps,
                         const struct design_end end[2], const struct cost_price *pr,
                         uint32_t np);

/* nodes storage nodes of bill sb (cost_storage_bill): nodes x sb->node
 * and nodes x sb->drives x sb->drive, into o->storage (or unpriced). */
void cost_price_storage(struct design_price *o, const struct cost_price *pr, uint32_t np,
                        const struct storage_bill *sb, uint64_t nodes);

/* Price d (of in) at pr over years of amortisation; storage nodes as
 * storage_node. */
void cost_design(struct design_price *out, const struct design *d,
                 const struct design_input *in, const struct cost_price *pr, uint32_t np,
                 double years);
/* The same with storage nodes priced by sb (NULL: storage_node). */
void cost_design_bill(struct design_price *out, const struct design *d,
                      const struct design_input *in, const struct storage_bill *sb,
                      const struct cost_price *pr, uint32_t np, double years);

#endif
