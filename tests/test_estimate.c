/* Tests of describe's estimates, the up-front memory refusal and the input
 * caps they rely on (issue 25, items 9 and 13). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../include/ckptnet.h"
#include "../src/api/api.h"
#include "../src/scenario/scenario.h"
#include "harness.h"
#include "support.h"

/* fabric.tiers auto with a 400 bps storage NIC (found by the fuzz target,
 * kept in fuzz/corpus): the storage nodes a leaf's uplinks carry, 1.6e10,
 * was converted to uint32_t before the leaf's port limit was applied
 * (clang's float-cast-overflow check, make test-overflow). The leaf takes
 * as many as its ports hold. */
static void estimate_catalog_slow_storage_nic(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECKF(scenario_load_file(&sc, "fuzz/corpus/tiers-auto-slow-storage-nic.yaml", &e) == 0,
           "%s", e.msg);
    CHECKF(scenario_resolve(&sc, &e) == 0, "%s", e.msg);
    /* 32-port leaves: 16 host ports, 16 uplinks, so 16 storage ports */
    CHECKF(sc.fabric.storage_per_leaf == 16, "%u", sc.fabric.storage_per_leaf);
    CHECKF(sc.fabric.hosts_per_leaf == 16, "%u", sc.fabric.hosts_per_leaf);
}

SUITE(suite_estimate) = {
    {"estimate_catalog_slow_storage_nic", estimate_catalog_slow_storage_nic},
    {NULL, NULL},
};
