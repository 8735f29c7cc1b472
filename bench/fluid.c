/* Benchmark: a scenario through the fluid engine. Prints the wall time of the
 * whole run (topology, workload, engine), peak RSS, flows, events, max-min
 * updates and a checksum of the results (a faster but wrong engine shows).
 *
 *   bench_fluid SCENARIO [--set k=v]...            one run
 *   bench_fluid --growth SCENARIO [--set k=v]...   the scenario at 1/5 .. 5/5
 *       of its compute and storage nodes: wall time against flows
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../src/api/ckpt.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* FNV-1a over the figures that must not change with speed-ups. */
static uint64_t checksum(const struct results *r)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t v[] = {r->events, r->rate_updates, r->bytes_delivered, r->flows_done,
                    (uint64_t)(r->completion_s * 1e12 + 0.5),
                    (uint64_t)(r->writer_p50_s * 1e12 + 0.5),
                    (uint64_t)(r->writer_p99_s * 1e12 + 0.5)};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
        for (int b = 0; b < 8; b++)
            h = (h ^ ((v[k] >> (8 * b)) & 0xff)) * 1099511628211ull;
    return h;
}

static int run(const struct scenario *sc, struct results *r, double *wall, struct err *e)
{
    double t0 = now_s();
    int rc = ckpt_run(sc, r, e);
    *wall = now_s() - t0;
    return rc;
}

int main(int argc, char **argv)
{
    struct scenario sc;
    struct err e;
    struct results r;
    double wall;
    int growth = 0, i = 1;
    scenario_defaults(&sc);
    if (i < argc && !strcmp(argv[i], "--growth")) {
        growth = 1;
        i++;
    }
    if (i >= argc || !strncmp(argv[i], "--", 2)) {
        fprintf(stderr, "usage: bench_fluid [--growth] SCENARIO [--set k=v]...\n");
        return 2;
    }
    if (scenario_load_file(&sc, argv[i++], &e) < 0)
        goto fail;
    for (; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--set") && scenario_set(&sc, argv[i + 1], &e) < 0)
            goto fail;
    if (scenario_set(&sc, "engine=fluid", &e) < 0 || scenario_validate(&sc, &e) < 0)
        goto fail;
    if (growth) {
        printf("%8s %8s %8s %10s %10s %8s %12s %10s\n", "nodes", "GPUs", "storage", "flows",
               "updates", "wall s", "us per flow", "completion");
        uint32_t nodes = sc.cluster.nodes, storage = sc.storage.nodes;
        for (uint32_t k = 1; k <= 5; k++) {
            struct scenario s = sc;
            char a[64];
            snprintf(a, sizeof a, "cluster.nodes=%u", nodes * k / 5);
            if (scenario_set(&s, a, &e) < 0)
                goto fail;
            snprintf(a, sizeof a, "storage.nodes=%u", storage * k / 5 ? storage * k / 5 : 1);
            if (scenario_set(&s, a, &e) < 0 || scenario_validate(&s, &e) < 0)
                goto fail;
            if (run(&s, &r, &wall, &e) < 0)
                goto fail;
            uint64_t flows = r.events / 2; /* a start and a completion each */
            printf("%8u %8u %8u %10llu %10llu %8.3f %12.2f %9.4fs%s\n", s.cluster.nodes,
                   s.cluster.nodes * s.cluster.gpus_per_node, s.storage.nodes,
                   (unsigned long long)flows, (unsigned long long)r.rate_updates, wall,
                   wall * 1e6 / (double)flows, r.completion_s, r.ok ? "" : "  INVARIANTS VIOLATED");
            results_release(&r);
        }
        return 0;
    }
    if (run(&sc, &r, &wall, &e) < 0)
        goto fail;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("scenario            %s\n", sc.source);
    printf("GPUs                %u on %u nodes, %u storage nodes\n",
           sc.cluster.nodes * sc.cluster.gpus_per_node, sc.cluster.nodes, sc.storage.nodes);
    printf("flows               %llu (%llu events)\n", (unsigned long long)r.events / 2,
           (unsigned long long)r.events);
    printf("checkpoint          %.4g TB\n", (double)r.ckpt_bytes / 1e12);
    printf("completion          %.6f s (bound %.6f s, %s; %.1f%%)\n", r.completion_s,
           r.bound_s, path_seg_label(r.bound_limit), 100 * r.completion_s / r.bound_s);
    printf("wall                %.3f s (engine %.3f s)\n", wall, r.wall_s);
    printf("peak RSS            %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    printf("max-min updates     %llu, %.1f flow rates recomputed each\n",
           (unsigned long long)r.rate_updates,
           r.rate_updates ? (double)r.rates_recomputed / (double)r.rate_updates : 0.0);
    printf("invariants          %s\n", r.ok ? "ok" : r.violation);
    printf("checksum            %016llx\n", (unsigned long long)checksum(&r));
    int ok = r.ok;
    results_release(&r);
    return ok ? 0 : 1;
fail:
    fprintf(stderr, "bench_fluid: %s\n", e.msg);
    return 2;
}
