/* Built-in catalog: switch profiles and DCQCN presets, with sources. */
#ifndef CKPT_CATALOG_H
#define CKPT_CATALOG_H

#include <stdint.h>

struct switch_profile {
    const char *name;
    uint32_t ports;
    uint64_t port_bps, capacity_bps;
    uint64_t latency_ps, buffer_bytes;
    int latency_published, buffer_published; /* 0 = generic for the class */
    const char *asic, *notes, *source;
};

/* NULL-terminated array; lookup by exact name. */
extern const struct switch_profile switch_catalog[];
const struct switch_profile *switch_profile_find(const char *name);

/* One item of the reference price list (cost.prices: reference): an
 * indicative price in USD with its date and source, and the power the item
 * draws, from data sheets where one was found (docs/size.md, Reference
 * prices). Names as cost.prices takes them. */
struct price_ref {
    const char *name;
    double price, watts;
    const char *date, *source;
};
/* NULL-terminated; lookup by exact name. */
extern const struct price_ref price_reference[];
const struct price_ref *price_ref_find(const char *name);

/* A DCQCN preset: (key, value) pairs in scenario syntax, NULL-terminated. */
struct preset_entry {
    const char *key, *value;
};
extern const struct preset_entry dcqcn_nvidia[], dcqcn_paper[];

#endif
