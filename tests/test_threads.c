/* sim.threads auto: the rule that picks the thread count, the key's word,
 * and the same results whatever count runs. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/api/api.h"
#include "../src/api/ckpt.h"
#include "../src/core/evq.h"
#include "../src/core/machine.h"
#include "../src/pkt/engine_int.h"
#include "../src/report/fields.h"
#include "../src/scenario/scenario.h"
#include "harness.h"
#include "support.h"

static void threads_auto_rule(void)
{
    /* two cores, load 0.45: the second core is ours */
    CHECK(machine_auto_threads(1.55, 2, 8) == 2);
    /* another process holds a core: one thread */
    CHECK(machine_auto_threads(1.0, 2, 8) == 1);
    CHECK(machine_auto_threads(0.2, 2, 8) == 1);
    CHECK(machine_auto_threads(-0.7, 2, 8) == 1); /* overloaded */
    CHECK(machine_auto_threads(-1, 2, 8) == 1);   /* unknown */
    /* at most the usable cores (affinity, cgroup quota) and the cap */
    CHECK(machine_auto_threads(7.6, 4, 8) == 4);
    CHECK(machine_auto_threads(15.9, 16, 8) == 8);
    CHECK(machine_auto_threads(3.9, 4, 2) == 2);
    CHECK(machine_auto_threads(3.9, 4, 1) == 1);
    int u = machine_usable_cores();
    CHECK(u >= 1);
    double idle = machine_idle_cores();
    CHECK(idle == -1 || idle <= u);
}

static void threads_auto_key(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECKF(sc.sim.threads == 0, "default sim.threads %u, want auto (0)", sc.sim.threads);
    CHECK(scenario_set(&sc, "sim.threads=2", &e) == 0 && sc.sim.threads == 2);
    CHECK(scenario_set(&sc, "sim.threads=auto", &e) == 0 && sc.sim.threads == 0);
    CHECK(scenario_set(&sc, "sim.threads=0", &e) < 0);
    CHECKF(strstr(e.msg, "sim.threads") != NULL, "%s", e.msg);
    CHECK(scenario_set(&sc, "sim.threads=9", &e) < 0);
    CHECK(scenario_set(&sc, "sim.threads=autox", &e) < 0);
}

/* auto's ceiling: the leaves, at most 8, for packet and hybrid alike
 * (hybrid two threads within 1.04x of one with the other core busy,
 * BENCHMARKS.md session 29); one with a storage protocol. */
static void threads_auto_cap(void)
{
    const char *eng[2] = {"engine=packet", "engine=hybrid"};
    for (int i = 0; i < 2; i++) {
        struct scenario sc;
        struct err e = {{0}};
        struct test_built b;
        scenario_defaults(&sc);
        CHECK(scenario_set(&sc, "cluster.nodes=64", &e) == 0);
        CHECK(scenario_set(&sc, eng[i], &e) == 0);
        CHECK(scenario_resolve(&sc, &e) == 0);
        if (test_build_ok(&b, &sc)) {
            arena_release(&b.a);
            CHECK(0);
            return;
        }
        uint32_t leaves = b.t.level[0].n;
        unsigned want = leaves < 8 ? leaves : 8;
        CHECKF(want > 1 && ckpt_threads_cap(&sc, &b.t) == want, "%s: cap %u, want %u", eng[i],
               ckpt_threads_cap(&sc, &b.t), want);
        CHECK(scenario_set(&sc, "storage.protocol=rdma", &e) == 0);
        CHECKF(ckpt_threads_cap(&sc, &b.t) == 1, "%s with rdma: cap %u", eng[i],
               ckpt_threads_cap(&sc, &b.t));
        arena_release(&b.a);
    }
}

/* The count auto picks never changes a figure: a short run under auto is
 * one thread and says so; 1 and 2 give the same completion. */
static void threads_auto_same_results(void)
{
    struct scenario sc;
    struct err e = {{0}};
    double c[3] = {0};
    const char *set[3] = {"sim.threads=auto", "sim.threads=1", "sim.threads=2"};
    for (int i = 0; i < 3; i++) {
        scenario_defaults(&sc);
        CHECK(scenario_set(&sc, "cluster.nodes=16", &e) == 0);
        CHECK(scenario_set(&sc, set[i], &e) == 0);
        CHECK(scenario_resolve(&sc, &e) == 0 && scenario_validate(&sc, &e) == 0);
        struct results r;
        CHECKF(ckpt_run(&sc, &r, &e) == 0, "%s", e.msg);
        c[i] = r.completion_s;
        if (i == 0)
            CHECKF(r.threads == 1 && r.threads_auto, "auto ran %u threads (auto %d)", r.threads,
                   r.threads_auto);
        else
            CHECK(r.threads == (uint32_t)(i == 1 ? 1 : 2) && !r.threads_auto);
        results_release(&r);
    }
    CHECK(c[0] > 0 && c[0] == c[1] && c[1] == c[2]);
}


/* The three-tier test fabric (its pods' leaves on either thread) with
 * samples, each an instant thread 0 runs alone. */
static void team_scenario(struct scenario *sc, const char *extra)
{
    test_small_clos(sc);
    test_set(sc, "workload.bytes_per_writer=512KB");
    test_set(sc, "telemetry.interval=3us");
    test_set(sc, "telemetry.ports=true");
    if (extra)
        test_set(sc, "%s", extra);
}

/* perf rows that may differ with the thread count: times, the count
 * itself, and memory (each thread's queue, spare chunks) */
static int perf_may_differ(const char *name)
{
    static const char *const rows[] = {"perf.wall_s", "perf.total_s", "perf.events_per_s",
                                       "perf.threads", "perf.mem_bytes",
                                       "perf.packets_allocated", "perf.max_pending_events"};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strcmp(name, rows[i]))
            return 1;
    return 0;
}

/* Every result row of b equal to a's (the perf rows above aside); the
 * name of the first that is not, or NULL. */
static const char *row_differs(const struct scenario *sc, const struct results *a,
                               const struct results *b)
{
    for (size_t i = 0; i < n_result_fields; i++) {
        const struct result_field *f = &result_fields[i];
        if (f->no_json || perf_may_differ(f->name))
            continue;
        int fa = field_applies(f, a), fb = field_applies(f, b);
        if (fa != fb)
            return f->name;
        if (!fa)
            continue;
        json_t *ja = field_json(f, sc, a), *jb = field_json(f, sc, b);
        int same = json_equal(ja, jb);
        json_decref(ja);
        json_decref(jb);
        if (!same)
            return f->name;
    }
    return NULL;
}

/* Each thread's counters reach the results: on 2 and 3 threads every row
 * (perf.events, network counters, queue percentiles...) equals one
 * thread's; the queue peaks' sum is at least one thread's peak and at most
 * the threads' count times it; memory within 1.2x plus each extra thread's
 * spare chunks (two slabs). */
static void threads_counters_folded(void)
{
    static const char *const variants[] = {NULL, "transport.cc=dcqcn",
                                           "fabric.load_balancing=spray",
                                           "fabric.pfc.enabled=false"};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        struct scenario sc;
        struct results r[3];
        int ran = 0;
        team_scenario(&sc, variants[v]);
        for (unsigned t = 1; t <= 3; t++) {
            sc.sim.threads = t;
            if (test_run(&sc, &r[t - 1]) != 0)
                break;
            ran++;
        }
        CHECKF(ran == 3, "%s: a run failed", variants[v] ? variants[v] : "PFC");
        for (int k = 1; k < ran; k++) {
            const char *d = row_differs(&sc, &r[0], &r[k]);
            CHECKF(!d, "%s, %d threads: %s differs from one thread's",
                   variants[v] ? variants[v] : "PFC", k + 1, d);
            CHECKF(r[k].threads == (uint32_t)k + 1 && r[k].events == r[0].events,
                   "%u threads, %llu events against %llu", r[k].threads,
                   (unsigned long long)r[k].events, (unsigned long long)r[0].events);
            CHECKF(r[k].max_pending_events >= r[0].max_pending_events &&
                       r[k].max_pending_events <= (uint64_t)(k + 1) * r[0].max_pending_events,
                   "%d threads: %llu pending events at most against %llu on one", k + 1,
                   (unsigned long long)r[k].max_pending_events,
                   (unsigned long long)r[0].max_pending_events);
            double slack = (double)k * 2 * (2 << 20);
            CHECKF((double)r[k].mem_bytes <= 1.2 * (double)r[0].mem_bytes + slack,
                   "%d threads: %llu B against %llu B on one", k + 1,
                   (unsigned long long)r[k].mem_bytes, (unsigned long long)r[0].mem_bytes);
        }
        for (int k = 0; k < ran; k++)
            results_release(&r[k]);
    }
}

/* One thread running every thread's share (the others asleep), switching
 * at every meeting, or choosing by speed: the same results as one thread,
 * and the summary's share of windows run alone says which ran. */
static void threads_team_modes(void)
{
    static const char *const variants[] = {NULL, "transport.cc=dcqcn",
                                           "sim.time_limit=15us"};
    const int modes[] = {TEAM_SPLIT, TEAM_SOLO, TEAM_ALTERNATE, TEAM_ADAPT};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        const char *what = variants[v] ? variants[v] : "PFC";
        struct scenario sc;
        struct results one;
        team_scenario(&sc, variants[v]);
        sc.sim.threads = 1;
        if (test_run(&sc, &one) != 0) {
            CHECKF(0, "%s: one thread failed", what);
            continue;
        }
        char *js1 = test_json(&sc, &one);
        for (unsigned t = 2; t <= 3; t++)
            for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
                struct results r;
                struct scenario run = sc; /* the JSON echoes sc's keys: the base's */
                run.sim.threads = t;
                run.sim.team_mode = modes[m];
                if (test_run(&run, &r) != 0) {
                    CHECKF(0, "%s: %u threads, mode %d failed", what, t, modes[m]);
                    continue;
                }
                char *js = test_json(&sc, &r);
                const char *d = row_differs(&sc, &one, &r);
                CHECKF(js && js1 && !strcmp(js, js1) && !d && r.events == one.events,
                       "%s, %u threads, mode %d: other results (%s; completion %.9g "
                       "against %.9g)",
                       what, t, modes[m], d ? d : "the JSON", r.completion_s, one.completion_s);
                const struct series *a = &one.series, *b = &r.series;
                CHECKF(a->n == b->n && (!a->n || !memcmp(a->remaining, b->remaining,
                                                         a->n * sizeof *a->remaining)),
                       "%s, mode %d: the time series differs", what, modes[m]);
                double solo = r.threads_solo;
                int want = modes[m] == TEAM_SPLIT  ? solo == 0
                           : modes[m] == TEAM_SOLO ? solo == 1
                           : modes[m] == TEAM_ALTERNATE ? solo > 0.3 && solo < 0.7
                                                       : solo >= 0 && solo <= 1;
                CHECKF(want, "%s, %u threads, mode %d: %.3f of windows alone", what, t,
                       modes[m], solo);
                free(js);
                results_release(&r);
            }
        free(js1);
        results_release(&one);
    }
}

/* A queue emptied by moving its events out (thread 0 giving the others'
 * events back, sched.c) starts its wheel again where it is told: events
 * earlier than the last it gave out go to the wheel, not the far heap,
 * and leave in (time, seq) order. */
static void threads_queue_restart(void)
{
    struct evq q;
    struct event ev;
    evq_init(&q);
    for (uint32_t i = 0; i < 100; i++) /* 1 us apart: the last 99 us on */
        evq_push_seq(&q, 1000000 + (uint64_t)i * 1000000, i, 0, NULL, i);
    while (evq_pop(&q, &ev))
        ;
    evq_restart(&q, 1000000);
    for (uint32_t i = 0; i < 100; i++) /* in reverse: unsorted buckets too */
        evq_push_seq(&q, 1000000 + (uint64_t)(99 - i) * 500, 99 - i, 0, NULL, 99 - i);
    CHECKF(q.nfar == 0 && q.wn == 100, "%zu far, %zu on the wheel", q.nfar, q.wn);
    int in_order = 1;
    for (uint32_t i = 0; i < 100; i++)
        in_order &= evq_pop(&q, &ev) && ev.arg == i;
    CHECK(in_order && evq_len(&q) == 0);
    evq_push_seq(&q, 7, 1, 0, NULL, 1);
    evq_restart(&q, 1 << 30); /* not empty: the wheel stays */
    CHECK(evq_pop(&q, &ev) && ev.t == 7);
    evq_release(&q);
}

/* The team's pace fed a machine whose split and alone windows run at
 * rate[0] and rate[1] events/s, asked every 100 us for 4 s: the share of
 * the time split and the longest split epoch after the first two (the
 * first runs split, unmeasured). */
static double pace_split_share(double split, double alone, double *longest)
{
    struct team_pace p = {0};
    const uint64_t step = 100000, end = UINT64_C(4000000000);
    double ev = 0, on = 0, rate[2] = {split, alone};
    uint64_t since = 0;
    int mode = pnet_pace(&p, 1, 0);
    *longest = 0;
    for (uint64_t t = 1 + step; t < end; t += step) {
        ev += rate[mode] * (double)step * 1e-9;
        on += mode ? 0 : (double)step;
        int m = pnet_pace(&p, t, (uint64_t)ev);
        if (m != mode) {
            if (!mode && since > 2 * TEAM_EPOCH_NS && (double)(t - since) > *longest)
                *longest = (double)(t - since);
            since = t;
        }
        mode = m;
    }
    return on / (double)end;
}

/* Split is kept only when clearly faster, and a split epoch that falls
 * far behind alone ends early: a loaded machine's noise does not make two
 * threads slower than one. */
static void threads_pace_choice(void)
{
    double longest, s;
    s = pace_split_share(1.5e7, 1e7, &longest); /* a free core: split */
    CHECKF(s > 0.8, "split %.3f of the time at 1.5x", s);
    s = pace_split_share(1.05e7, 1e7, &longest); /* within the noise: alone */
    CHECKF(s < 0.1, "split %.3f of the time at 1.05x", s);
    s = pace_split_share(1e6, 1e7, &longest); /* no core for the partner */
    CHECKF(s < 0.05 && longest <= TEAM_EPOCH_NS / 4 + 100000,
           "split %.3f of the time at 0.1x, epochs up to %.0f ns", s, longest);
}

/* The idle reading: /proc/stat's procs_running less the reader, not the
 * 1-minute load, which lags a minute behind (a run right after another
 * saw an idle core busy). */
static void threads_idle_reading(void)
{
    const char *stat = "cpu  1 2 3 4 5 6 7 8 0 0\nintr 6216073 0 0 2\nctxt 9\n"
                       "procs_running 3\nprocs_blocked 0\n";
    CHECK(machine_stat_running(stat) == 3);
    CHECK(machine_stat_running("cpu  1 2 3\nprocs_blocked 0\n") == -1);
    CHECK(machine_stat_running("cpu  1\nprocs_running x\n") == -1);
    /* the reader alone: every core idle, its own included */
    CHECK(machine_idle_of(2, 2, 1.0) == 2.0);
    CHECK(machine_idle_of(2, 2, 2.0) == 1.0);  /* another holds a core */
    CHECK(machine_idle_of(2, 2, 3.5) == -0.5); /* overloaded */
    CHECK(machine_idle_of(8, 2, 1.0) == 2.0);  /* at most the usable cores */
    CHECK(machine_idle_of(2, 2, -1) == -1 && machine_idle_of(0, 2, 1) == -1);
    CHECK(machine_auto_threads(machine_idle_of(2, 2, 1.1), 2, 8) == 2);
    CHECK(machine_auto_threads(machine_idle_of(2, 2, 2.0), 2, 8) == 1);
    /* a process spinning from a moment ago is seen at once */
    int fds[2];
    if (pipe(fds) != 0) {
        CHECK(0);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20); /* never outlives a stopped parent for long */
        close(fds[0]);
        if (write(fds[1], "x", 1) != 1)
            _exit(1);
        for (volatile unsigned long x = 0;; x++)
            ;
    }
    CHECK(pid > 0);
    close(fds[1]);
    char c;
    CHECK(read(fds[0], &c, 1) == 1);
    close(fds[0]);
    double idle = machine_idle_cores();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    CHECKF(idle == -1 || idle <= (double)cores - 1 + 1e-9, "idle %.2f of %ld cores with a spinner",
           idle, cores);
}

SUITE(suite_threads) = {
    {"threads_auto_rule", threads_auto_rule},
    {"threads_idle_reading", threads_idle_reading},
    {"threads_auto_key", threads_auto_key},
    {"threads_auto_same_results", threads_auto_same_results},
    {"threads_auto_cap", threads_auto_cap},
    {"threads_counters_folded", threads_counters_folded},
    {"threads_team_modes", threads_team_modes},
    {"threads_queue_restart", threads_queue_restart},
    {"threads_pace_choice", threads_pace_choice},
    {NULL, NULL},
};
