/* Test runner: runs every suite (or those whose test names contain argv[1]);
 * `--shard K/N` runs every Nth test from the Kth, so make test can spread
 * one slow build's tests over its lanes; `--list` names them instead. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "harness.h"

int harness_failures;

extern const struct test suite_units[], suite_scenario[], suite_evq[],
    suite_rng[], suite_topo[], suite_engine[], suite_cli_api[], suite_fluid[],
    suite_work[], suite_cost[], suite_lossless[], suite_storage[], suite_lb[],
    suite_report[], suite_engine2[],
    suite_pfc[], suite_bound[], suite_valid[], suite_traces[], suite_clos[], suite_train[],
    suite_import[], suite_pktq[], suite_order[], suite_loss[], suite_estimate[], suite_inputs[],
    suite_outfile[], suite_transport[], suite_policy[], suite_lbtable[], suite_heap[],
    suite_public[],
    suite_shape[],
    suite_hpcc[],
    suite_tpside[],
    suite_uec[],
    suite_nscc[],
    suite_swift[],
    suite_tcp[],
    suite_names[], suite_fields[],
    suite_invariants[],
    suite_keytable[],
    suite_storage_use[],
    suite_design[],
    suite_snode[],
    suite_threads[],
    suite_ackpath[],
    suite_request[],
    suite_hybrid[], suite_hybval[],
    suite_protect[],
    suite_size2[],
    suite_fluid_scale[],
    suite_valid2[],
    suite_policy_cost[],
    suite_reps[],
    suite_fluid_scale2[],
    suite_fluid_group[],
    suite_craq[],
    suite_endur2[],
    suite_rccc[],
    suite_rcccest[],
    suite_import2[], suite_import3[],
    suite_sizefast[],
    suite_uec2[],
    suite_flat[],
    suite_evq_order[],
    suite_design2[],
    suite_sprice[],
    suite_wear[];

static const struct test *const suites[] = {
    suite_keytable, /* first: a bad key row fails by name before any scenario is built */
    suite_units, suite_scenario, suite_evq, suite_rng, suite_topo,
    suite_engine, suite_cli_api, suite_fluid, suite_work, suite_cost,
    suite_lossless, suite_storage, suite_lb, suite_engine2, suite_report,
    suite_pfc, suite_bound, suite_valid, suite_traces, suite_clos, suite_train,
    suite_import, suite_pktq, suite_order, suite_loss, suite_estimate, suite_inputs, suite_outfile,
    suite_transport, suite_policy, suite_lbtable, suite_heap, suite_public,
    suite_shape,
    suite_hpcc,
    suite_tpside,
    suite_uec,
    suite_nscc,
    suite_swift,
    suite_tcp,
    suite_names, suite_fields,
    suite_invariants,
    suite_storage_use,
    suite_design,
    suite_snode,
    suite_threads,
    suite_ackpath,
    suite_request,
    suite_hybrid, suite_hybval,
    suite_protect,
    suite_size2,
    suite_fluid_scale,
    suite_valid2,
    suite_policy_cost,
    suite_reps,
    suite_fluid_scale2,
    suite_fluid_group,
    suite_craq,
    suite_endur2,
    suite_rccc,
    suite_rcccest,
    suite_import2, suite_import3,
    suite_sizefast,
    suite_uec2,
    suite_flat,
    suite_evq_order,
    suite_design2,
    suite_sprice,
    suite_wear,
};

int main(int argc, char **argv)
{
    const char *filter = NULL;
    unsigned shard = 0, shards = 1, index = 0;
    int list = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--list")) {
            list = 1;
        } else if (!strcmp(argv[a], "--shard") && a + 1 < argc) {
            char tail;
            if (sscanf(argv[++a], "%u/%u%c", &shard, &shards, &tail) != 2 || shards == 0 ||
                shard == 0 || shard > shards) {
                fprintf(stderr, "test_unit: --shard wants K/N with 1 <= K <= N, not '%s'\n",
                        argv[a]);
                return 2;
            }
            shard--;
        } else if (!filter && argv[a][0] != '-') {
            filter = argv[a];
        } else {
            fprintf(stderr, "usage: test_unit [NAME-SUBSTRING] [--shard K/N] [--list]\n");
            return 2;
        }
    }
    int passed = 0, failed = 0;
    for (size_t s = 0; s < sizeof suites / sizeof suites[0]; s++) {
        for (const struct test *t = suites[s]; t->name; t++) {
            if (filter && !strstr(t->name, filter))
                continue;
            if (index++ % shards != shard)
                continue;
            if (list) {
                puts(t->name);
                continue;
            }
            harness_failures = 0;
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            t->fn();
            clock_gettime(CLOCK_MONOTONIC, &t1);
            /* the slow ones named, to keep make test under its 10 minutes */
            double s_ = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            char took[32] = "";
            if (s_ >= 1.0)
                snprintf(took, sizeof took, " (%.1f s)", s_);
            if (harness_failures) {
                printf("FAIL %s%s\n", t->name, took);
                failed++;
            } else {
                printf("ok   %s%s\n", t->name, took);
                passed++;
            }
            fflush(stdout);
        }
    }
    if (!list)
        printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
