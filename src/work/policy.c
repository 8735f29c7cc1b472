/* The checkpoint-policy table (policy.h); docs/checkpoint.md has each
 * policy's rules. */
#include "policy.h"

#include <math.h>
#include <string.h>

#include "../core/units.h"

/* ---- jitter: uniform in [0, offset] or exponential of mean offset ------ */

static int jitter_check(const struct scenario *sc, struct err *e)
{
    if (!sc->checkpoint.offset_ps)
        return err_set(e, "checkpoint.offset: the jitter policy needs a spread > 0");
    return 0;
}

static uint64_t jitter_start(struct policy_ctx *c, uint32_t i)
{
    (void)i;
    uint64_t offset = c->offset;
    if (c->sc->checkpoint.jitter_dist == JITTER_UNIFORM)
        return rng_below(c->rng, offset + 1);
    double x = -(double)offset * log(1.0 - rng_double(c->rng));
    return x < 1e3 * (double)offset ? (uint64_t)x : 1000 * offset;
}

/* ---- stagger: checkpoint.groups groups, one offset apart --------------- */

/* auto offset = one group's bytes through all storage NICs, or the busiest
 * node's bytes through its NICs, whichever is longer */
static uint64_t stagger_spread(const struct policy_ctx *c)
{
    const struct scenario *sc = c->sc;
    if (sc->checkpoint.offset_ps)
        return sc->checkpoint.offset_ps;
    uint64_t g = c->total_bytes / sc->checkpoint.groups;
    uint64_t t1 = units_ser_ps(g, (uint64_t)c->storage_nodes * sc->storage.nic_bps)
                  / sc->storage.nics_per_node;
    uint64_t t2 = units_ser_ps(c->max_node_bytes,
                               (uint64_t)sc->cluster.nics_per_node * sc->cluster.nic_bps);
    return t1 > t2 ? t1 : t2;
}

static uint64_t stagger_start(struct policy_ctx *c, uint32_t i)
{
    /* (groups - 1) x offset can pass 2^64: saturate, and let the clock
     * check refuse it */
    unsigned __int128 g = (unsigned __int128)((uint64_t)i * c->sc->checkpoint.groups
                                              / c->writers) * c->offset;
    return g > CLOCK_LIMIT_PS ? CLOCK_LIMIT_PS : (uint64_t)g;
}

/* ---- rate_limit: a cap per writer -------------------------------------- */

static int rate_limit_check(const struct scenario *sc, struct err *e)
{
    if (!sc->checkpoint.rate_limit_bps)
        return err_set(e, "checkpoint.rate_limit: the rate_limit policy needs a "
                          "cap > 0");
    return 0;
}

static uint64_t rate_limit_cap(const struct scenario *sc)
{
    return sc->checkpoint.rate_limit_bps;
}

/* ---- async: stage to host memory, drain behind the GPUs ---------------- */

static int async_check(const struct scenario *sc, struct err *e)
{
    if (!sc->cluster.d2h_bps)
        return err_set(e, "cluster.d2h_rate: the async policy stalls the GPUs for "
                          "the device-to-host copy; set its rate (H100: ~422Gbps)");
    return 0;
}

static uint64_t async_ready(const struct scenario *sc, uint64_t staged_ps,
                            uint64_t node_bytes)
{
    (void)sc;
    (void)node_bytes;
    return staged_ps;
}

/* ---- hierarchical: host memory, then node-local NVMe, then storage ----- */

static int hierarchical_check(const struct scenario *sc, struct err *e)
{
    if (!sc->cluster.local_nvme_bps)
        return err_set(e, "cluster.local_nvme_rate: the hierarchical policy writes "
                          "to node-local NVMe first; set its rate");
    return 0;
}

static uint64_t hierarchical_ready(const struct scenario *sc, uint64_t staged_ps,
                                   uint64_t node_bytes)
{
    uint64_t nv = units_ser_ps(node_bytes, sc->cluster.local_nvme_bps);
    return nv > staged_ps ? nv : staged_ps;
}

static uint64_t hierarchical_cap(const struct scenario *sc)
{
    return sc->checkpoint.trickle_bps;
}

/* ---- the table: one row per policy, in enum ckpt_policy order ----------- */

static const struct policy_row policies[] = {
    [POLICY_SYNC] = {.name = "sync"},
    [POLICY_JITTER] = {.name = "jitter", .check = jitter_check, .start = jitter_start,
                       .start_key = "checkpoint.offset"},
    [POLICY_STAGGER] = {.name = "stagger", .spread = stagger_spread,
                        .start = stagger_start, .start_key = "checkpoint.offset"},
    [POLICY_RATE_LIMIT] = {.name = "rate_limit", .check = rate_limit_check,
                           .writer_cap = rate_limit_cap,
                           .cap_key = "checkpoint.rate_limit"},
    [POLICY_ASYNC] = {.name = "async", .check = async_check, .node_ready = async_ready},
    [POLICY_HIERARCHICAL] = {.name = "hierarchical", .check = hierarchical_check,
                             .node_ready = hierarchical_ready,
                             .node_cap = hierarchical_cap,
                             .node_cap_key = "checkpoint.trickle_rate"},
};

#define N_POLICIES (sizeof policies / sizeof policies[0])

const struct policy_row *policy_get(int v)
{
    return &policies[v];
}

const struct policy_row *policy_find(const char *name)
{
    for (uint32_t i = 0; i < N_POLICIES; i++)
        if (!strcmp(policies[i].name, name))
            return &policies[i];
    return NULL;
}

uint32_t policy_count(void)
{
    return (uint32_t)N_POLICIES;
}
