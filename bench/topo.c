/* Benchmark: topo_build alone (the scenario loaded and resolved first), so
 * that a built fabric and the same fabric imported from a topology file
 * (fabric.topology_file) compare. Prints the CPU time of each build and a
 * checksum of the fabric (ports, routes) that must match between the two.
 *
 *   bench_topo [--reps N] SCENARIO [--set k=v]...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int b = 0; b < 8; b++)
        h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
    return h;
}

/* FNV-1a over the ports and every leaf-to-leaf next-hop set. */
static uint64_t fabric_sum(const struct topo *t)
{
    uint64_t h = 1469598103934665603ull;
    h = mix(h, t->n_nodes);
    for (uint32_t p = 0; p < t->n_ports; p++)
        h = mix(mix(mix(h, t->ports[p].node), t->ports[p].peer), t->ports[p].bps);
    for (uint32_t s = t->first_cleaf; s < t->n_nodes; s++)
        for (uint32_t l = 0; l < t->n_leaves; l++) {
            const struct route *r = topo_route(t, s, t->first_cleaf + l);
            h = mix(h, r->cnt);
            for (uint32_t k = 0; k < r->cnt; k++)
                h = mix(h, t->nh_next[r->off + k]);
        }
    return h;
}

int main(int argc, char **argv)
{
    struct scenario sc, fab;
    struct err e;
    int i = 1, reps = 3;
    scenario_defaults(&sc);
    if (i + 1 < argc && !strcmp(argv[i], "--reps"))
        reps = atoi(argv[i + 1]), i += 2;
    if (i >= argc || !strncmp(argv[i], "--", 2) || reps < 1) {
        fprintf(stderr, "usage: bench_topo [--reps N] SCENARIO [--set k=v]...\n");
        return 2;
    }
    if (scenario_load_file(&sc, argv[i++], &e) < 0)
        goto fail;
    for (; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--set") && scenario_set(&sc, argv[i + 1], &e) < 0)
            goto fail;
    if (scenario_validate(&sc, &e) < 0 || scenario_resolve(&sc, &e) < 0)
        goto fail;
    workload_fabric(&sc, &fab);
    for (int k = 0; k < reps; k++) {
        struct arena a;
        struct topo t;
        arena_init(&a);
        double t0 = cpu_s();
        int rc = topo_build(&t, &fab, &a, &e);
        double dt = cpu_s() - t0;
        if (rc < 0) {
            arena_release(&a);
            goto fail;
        }
        printf("topo_build %.4f s cpu, %u nodes, %u ports, fabric %016llx\n", dt, t.n_nodes,
               t.n_ports, (unsigned long long)fabric_sum(&t));
        arena_release(&a);
    }
    return 0;
fail:
    fprintf(stderr, "bench_topo: %s\n", e.msg);
    return 1;
}
