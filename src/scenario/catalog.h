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

/* One node of a storage profile as the reference list prices it: the node
 * without its drives (price name storage_<profile>) plus drives x the
 * drive's price by capacity class (drive_<TB>tb); docs/size.md, Reference
 * prices. drives is the profile's build as disclosed (or assumed, see the
 * list's comments); storage.drives, when set, replaces it. */
struct storage_price {
    const char *profile;
    uint32_t drives;
    const char *drive;
};
/* NULL-terminated; one a storage profile; lookup by profile name. */
extern const struct storage_price storage_price_list[];
const struct storage_price *storage_price_find(const char *profile);

/* A DCQCN preset: (key, value) pairs in scenario syntax, NULL-terminated. */
struct preset_entry {
    const char *key, *value;
};
extern const struct preset_entry dcqcn_nvidia[], dcqcn_paper[];

/* A storage node profile (storage.profile; docs/storage.md): the stages a
 * profile fills when the user left them unset. 0 = the profile leaves that
 * key alone (NICs: the scenario's own). Rates per node or per drive, bits/s. */
struct storage_profile {
    const char *name;
    uint32_t nics;
    uint64_t nic_bps, host_bps, cache_bytes, cache_bps;
    uint32_t drives;
    uint64_t drive_w_bps, drive_r_bps;
    double write_amp;
    const char *notes, *source;
};

extern const struct storage_profile storage_catalog[];
const struct storage_profile *storage_profile_find(const char *name);

/* The stage that sets a storage node's write rate (scenario.storage's
 * fast_stage and slow_stage): its name in summaries and JSON. */
enum storage_stage { STAGE_NONE, STAGE_DRAIN, STAGE_HOST, STAGE_CACHE, STAGE_MEDIA, STAGE_NIC };
const char *storage_stage_name(int stage);

#endif
