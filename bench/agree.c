/* Agreement of the fluid engine with the packet engine (PFC only, no DCQCN)
 * and the analytic bound, on the cases of docs/fluid.md. Prints a markdown
 * table; every row can be rerun on its own with the ckptnet command shown.
 * Usage: bench_agree */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../src/api/ckpt.h"

struct kase {
    const char *name, *file, *sets;
};

static const struct kase cases[] = {
    {"one flow, 1 MB", NULL,
     "cluster.nodes=1 storage.nodes=1 workload.bytes_per_writer=1MB"},
    {"incast 16:1", NULL,
     "cluster.nodes=16 fabric.hosts_per_leaf=8 storage.nodes=1 fabric.spines=2 "
     "fabric.buffer=4MB workload.bytes_per_writer=2MB"},
    {"incast 64:1", NULL,
     "cluster.nodes=64 fabric.hosts_per_leaf=16 storage.nodes=1 fabric.spines=2 "
     "fabric.buffer=4MB workload.bytes_per_writer=2MB"},
    {"default scenario", NULL, ""},
    {"default, a leaf per storage node", NULL, "fabric.storage_per_leaf=1"},
    {"1024-writer burst", "scenarios/bench-1024.yaml", ""},
    {"1024-writer burst, 2:1 uplinks", "scenarios/bench-1024.yaml", "fabric.spines=16"},
    {"1024 writers, 64 storage, ECMP-bound", "scenarios/bench-1024.yaml",
     "storage.nodes=64 fabric.storage_per_leaf=16 fabric.spines=16"},
    {"32 writers, 2:1, ECMP-bound", NULL,
     "cluster.nodes=32 fabric.hosts_per_leaf=16 fabric.spines=8 storage.nodes=16 "
     "fabric.storage_per_leaf=8 workload.bytes_per_writer=1MB"},
    {"32 writers, 2:1, WCMP", NULL,
     "cluster.nodes=32 fabric.hosts_per_leaf=16 fabric.spines=8 storage.nodes=16 "
     "fabric.storage_per_leaf=8 workload.bytes_per_writer=1MB fabric.load_balancing=wcmp"},
    {"32 writers, 2:1, spray, OOO receivers", NULL,
     "cluster.nodes=32 fabric.hosts_per_leaf=16 fabric.spines=8 storage.nodes=16 "
     "fabric.storage_per_leaf=8 workload.bytes_per_writer=1MB fabric.load_balancing=spray "
     "transport.receiver=ooo"},
    {"slow storage back end", NULL,
     "cluster.nodes=16 fabric.hosts_per_leaf=16 storage.nodes=1 fabric.spines=2 "
     "workload.bytes_per_writer=2MB storage.drain_rate=100Gbps storage.ingest_buffer=2MB"},
};

static int load(struct scenario *sc, const struct kase *k, const char *engine,
                struct err *e)
{
    char buf[512], a[160];
    scenario_defaults(sc);
    if (k->file && scenario_load_file(sc, k->file, e) < 0)
        return -1;
    snprintf(buf, sizeof buf, "%s", k->sets);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save))
        if (scenario_set(sc, tok, e) < 0)
            return -1;
    snprintf(a, sizeof a, "engine=%s", engine);
    if (scenario_set(sc, a, e) < 0)
        return -1;
    return scenario_validate(sc, e);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    struct err e;
    printf("| case | packet | fluid | fluid / packet | fluid / bound | wall packet | wall fluid |\n");
    printf("|---|---|---|---|---|---|---|\n");
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct kase *k = &cases[i];
        struct scenario sp, sf;
        struct results p, f;
        if (load(&sp, k, "packet", &e) < 0 || load(&sf, k, "fluid", &e) < 0)
            goto fail;
        double t0 = now_s();
        if (ckpt_run(&sp, &p, &e) < 0)
            goto fail;
        double t1 = now_s();
        if (ckpt_run(&sf, &f, &e) < 0)
            goto fail;
        double t2 = now_s();
        printf("| %s | %.4f ms | %.4f ms | %.4f | %.4f | %.2f s | %.3f s |\n", k->name,
               p.completion_s * 1e3, f.completion_s * 1e3, f.completion_s / p.completion_s,
               f.completion_s / f.bound_s, t1 - t0, t2 - t1);
        if (!p.ok || !f.ok) {
            fprintf(stderr, "bench_agree: %s: invariants: %s %s\n", k->name, p.violation,
                    f.violation);
            bad = 1;
        }
        results_release(&p);
        results_release(&f);
    }
    printf("\nrerun a row: build/ckptnet run [FILE] --set k=v ... --engine packet|fluid\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", cases[i].sets);
        printf("  %-34s %s", cases[i].name, cases[i].file ? cases[i].file : "");
        for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
             tok = strtok_r(NULL, " ", &save))
            printf(" --set %s", tok);
        printf("\n");
    }
    return bad;
fail:
    fprintf(stderr, "bench_agree: %s\n", e.msg);
    return 2;
}
