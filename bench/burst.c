/* Benchmark: one scenario through the packet engine; prints wall time, peak
 * memory, events/s, ns per delivered packet and checksums of the results
 * (so a faster but wrong engine shows). Usage: bench_burst [SCENARIO] [--set k=v]... [--team M] */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "../src/api/ckpt.h"

/* FNV-1a over the bytes of n 64-bit figures, little-endian */
static uint64_t fnv1a(const uint64_t *v, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t k = 0; k < n; k++)
        for (int b = 0; b < 8; b++)
            h = (h ^ ((v[k] >> (8 * b)) & 0xff)) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv)
{
    struct scenario sc;
    struct err e;
    scenario_defaults(&sc);
    int i = 1;
    if (i < argc && strncmp(argv[i], "--", 2) && scenario_load_file(&sc, argv[i++], &e) < 0)
        goto fail;
    /* --team split|solo|alternate: how several threads share the cores,
     * fixed instead of measured (adapt), to time each on its own */
    static const char *const team[] = {"adapt", "split", "solo", "alternate"};
    for (; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--set") && scenario_set(&sc, argv[i + 1], &e) < 0)
            goto fail;
        for (int m = 0; !strcmp(argv[i], "--team") && m < 4; m++)
            if (!strcmp(argv[i + 1], team[m]))
                sc.sim.team_mode = m;
    }
    if (scenario_resolve(&sc, &e) < 0 || scenario_validate(&sc, &e) < 0)
        goto fail;
    if (!sc.sim.threads) /* auto would follow the machine's load: A/B needs a fixed count */
        sc.sim.threads = 1;
    struct results r;
    if (ckpt_run(&sc, &r, &e) < 0)
        goto fail;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    /* checksum: the figures that must not change with speed-ups, and the
     * event count; the results checksum leaves the event count out so that
     * a change to the events per packet can be shown results-neutral */
    uint64_t v[] = {r.events, r.bytes_delivered, r.packets_delivered, r.pause_frames,
                    (uint64_t)(r.completion_s * 1e12 + 0.5), r.max_queue_bytes};
    uint64_t h = fnv1a(v, sizeof v / sizeof v[0]);
    uint64_t hr = fnv1a(v + 1, sizeof v / sizeof v[0] - 1);
    printf("scenario            %s\n", sc.source[0] ? sc.source : "default");
    printf("writers             %u x %llu B\n", r.writers,
           (unsigned long long)sc.workload.bytes_per_writer);
    printf("completion          %.6f ms (bound %.6f ms, %s)\n", r.completion_s * 1e3,
           r.bound_s * 1e3, path_seg_label(r.bound_limit));
    printf("wall                %.3f s\n", r.wall_s);
    if (r.threads > 1)
        printf("windows alone       %.3f\n", r.threads_solo);
    printf("peak RSS            %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    printf("events              %llu (%.2f M/s)\n", (unsigned long long)r.events,
           (double)r.events / r.wall_s / 1e6);
    printf("packets delivered   %llu (%.1f ns each)\n", (unsigned long long)r.packets_delivered,
           r.wall_s * 1e9 / (double)r.packets_delivered);
    printf("max pending events  %llu\n", (unsigned long long)r.max_pending_events);
    printf("invariants          %s\n", r.ok ? "ok" : r.violation);
    printf("checksum            %016llx\n", (unsigned long long)h);
    printf("results checksum    %016llx\n", (unsigned long long)hr);
    int ok = r.ok;
    results_release(&r);
    return ok ? 0 : 1;
fail:
    fprintf(stderr, "bench_burst: %s\n", e.msg);
    return 2;
}
