/* The enum<->name tables of the scenario keys (names.h, scenario.h). */
#include "names.h"

#include <stdio.h>
#include <string.h>

#include "scenario.h"

static const char *row_name(const struct names *t, int i)
{
    const char *const *p = (const void *)((const char *)t->rows + (size_t)i * t->stride);
    return *p;
}

const char *names_of(const struct names *t, int v)
{
    return v >= 0 && v < t->n ? row_name(t, v) : "?";
}

int names_find(const struct names *t, const char *s, size_t len)
{
    for (int i = 0; i < t->n; i++) {
        const char *nm = row_name(t, i);
        if (strlen(nm) == len && !memcmp(nm, s, len))
            return i;
    }
    return -1;
}

const char *names_join(const struct names *t, const char *sep, char *buf, size_t len)
{
    size_t o = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < t->n && o < len; i++) {
        int w = snprintf(buf + o, len - o, "%s%s", i ? sep : "", row_name(t, i));
        o += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

/* one array of names per X-macro list, and its table */
#define NAMES_TABLE(id, LIST)                                                  \
    static const char *const id##_rows[] = {LIST(NAMES_STR)};                 \
    const struct names id = {id##_rows, sizeof id##_rows[0],                  \
                             (int)(sizeof id##_rows / sizeof id##_rows[0])}

NAMES_TABLE(names_event_order, EVENT_ORDERS);
NAMES_TABLE(names_engine, ENGINE_KINDS);
NAMES_TABLE(names_sched, SCHED_KINDS);
NAMES_TABLE(names_cnp_path, CNP_PATHS);
NAMES_TABLE(names_ack_path, ACK_PATHS);
NAMES_TABLE(names_rto_mode, RTO_MODES);
NAMES_TABLE(names_dcqcn_preset, DCQCN_PRESETS);
NAMES_TABLE(names_uec_lb, UEC_LBS);
NAMES_TABLE(names_nscc_decrease, NSCC_DECREASES);
NAMES_TABLE(names_model, MODEL_NAMES);
NAMES_TABLE(names_dtype, DTYPES);
NAMES_TABLE(names_optimizer, OPTIMIZER_KINDS);
NAMES_TABLE(names_writer_rule, WRITER_RULES);
NAMES_TABLE(names_storage_pods, STORAGE_PODS);
NAMES_TABLE(names_policy, CKPT_POLICIES);
NAMES_TABLE(names_jitter_dist, JITTER_DISTS);
NAMES_TABLE(names_placement, PLACEMENTS);
NAMES_TABLE(names_storage_protocol, STORAGE_PROTOCOLS);
NAMES_TABLE(names_stripe_start, STRIPE_STARTS);
NAMES_TABLE(names_protection, PROTECTIONS);
NAMES_TABLE(names_phase, CKPT_PHASES);
NAMES_TABLE(names_mlperf, MLPERF_WORKLOADS);
NAMES_TABLE(names_restore_mode, RESTORE_MODES);
NAMES_TABLE(names_traffic, TRAIN_TRAFFICS);
NAMES_TABLE(names_collective, TRAIN_COLLECTIVES);
NAMES_TABLE(names_isolation, ISOLATION_KINDS);
NAMES_TABLE(names_pcap_filter, PCAP_FILTERS);
NAMES_TABLE(names_mmu_pools, MMU_POOLS);
