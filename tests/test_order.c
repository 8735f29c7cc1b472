/* The packet engine's two event orders (sim.event_order): window by window,
 * each partition's events together, gives exactly the results of one queue
 * in time order, whichever order a window's partitions run in. A coupling
 * between partitions inside a link delay (a random stream drawn by several
 * switches, a sender reading what its receiver did, a tie key taken from a
 * global counter) shows here as a difference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

/* A small two-tier burst: 32 writers on 2 leaves, 4 spines, 4 storage nodes. */
static void small(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=32");
    test_set(sc, "fabric.hosts_per_leaf=16");
    test_set(sc, "fabric.spines=4");
    test_set(sc, "storage.nodes=4");
    test_set(sc, "fabric.storage_per_leaf=4");
    test_set(sc, "fabric.allow_oversize=true");
    test_set(sc, "workload.bytes_per_writer=256KB");
    test_set(sc, "telemetry.ports=true");
}

/* Runs sc in time order, window order, window order with each window's
 * partitions reversed, both window orders on two threads (sim.threads), and
 * on three and four (more threads than this machine's cores: slower, the
 * same results);
 * the results (JSON without perf) and the event counts must be equal, and
 * the window orders must have run as windows (want_window) or fallen back
 * to time order. */
static void same_in_every_order(const struct scenario *base, const char *what, int want_window)
{
    enum { RUNS = 7 };
    struct results r[RUNS];
    char *js[RUNS] = {0};
    /* time; window; window reversed; both on two threads; three; four */
    const int orders[RUNS] = {ORDER_TIME,   ORDER_WINDOW,         ORDER_WINDOW_REVERSE,
                              ORDER_WINDOW, ORDER_WINDOW_REVERSE, ORDER_WINDOW,
                              ORDER_WINDOW_REVERSE};
    const unsigned nthreads[RUNS] = {1, 1, 1, 2, 2, 3, 4};
    int ran = 0;
    for (int k = 0; k < RUNS; k++) {
        struct scenario sc = *base;
        sc.sim.event_order = orders[k];
        sc.sim.threads = nthreads[k];
        if (test_run(&sc, &r[k]) != 0)
            break;
        js[k] = test_json(base, &r[k]);
        ran++;
    }
    CHECKF(ran == RUNS, "%s: a run failed", what);
    if (ran == RUNS) {
        CHECKF(r[0].threads && r[0].event_order == ORDER_TIME, "%s", what);
        for (int k = 1; k < RUNS; k++) {
            int want = want_window ? ORDER_WINDOW : ORDER_TIME;
            CHECKF(r[k].threads && r[k].event_order == want, "%s: ran %s, not %s", what,
                   names_of(&names_event_order, r[k].event_order),
                   names_of(&names_event_order, want));
            unsigned threads = want_window ? nthreads[k] : 1;
            CHECKF(r[k].threads == threads, "%s: run %d on %u threads, not %u", what, k,
                   r[k].threads, threads);
            /* several threads' queues are folded: their peaks' sum is
             * near one thread's (it read the first thread's alone) */
            CHECKF(!want_window || r[k].max_pending_events * 2 >= r[1].max_pending_events,
                   "%s: run %d: %llu pending events at most against %llu on one thread", what,
                   k, (unsigned long long)r[k].max_pending_events,
                   (unsigned long long)r[1].max_pending_events);
            CHECKF(r[k].events == r[0].events, "%s: %llu events against %llu in time order",
                   what, (unsigned long long)r[k].events, (unsigned long long)r[0].events);
            /* the time series too (not in the JSON): each sample's bytes per
             * segment, paused ports, bytes left */
            const struct series *a = &r[0].series, *b = &r[k].series;
            size_t ns = (size_t)a->n * SERIES_SEGS;
            CHECKF(a->n == b->n && (!ns || (!memcmp(a->seg_bytes, b->seg_bytes, ns * 8) &&
                                            (!a->seg_paused || !memcmp(a->seg_paused, b->seg_paused,
                                                                       ns * 4)) &&
                                            !memcmp(a->remaining, b->remaining, a->n * 8))),
                   "%s: run %d's time series differs (%u samples against %u)", what, k, b->n,
                   a->n);
            CHECKF(r[k].ok == r[0].ok && js[k] && js[0] && !strcmp(js[k], js[0]),
                   "%s: order %d gives other results (completion %.9g against %.9g; %s)", what,
                   orders[k], r[k].completion_s, r[0].completion_s,
                   r[k].ok ? "ok" : r[k].violation);
        }
    }
    for (int k = 0; k < ran; k++) {
        free(js[k]);
        results_release(&r[k]);
    }
}

static void order_same_results(void)
{
    static const char *const variants[][4] = {
        {"PFC, ECN marks", NULL},
        {"DCQCN, CNPs through the fabric", "transport.cc=dcqcn", "transport.dcqcn.cnp_path=fabric",
         NULL},
        {"DCQCN, CNP path auto (direct)", "transport.cc=dcqcn", NULL},
        /* rate timers past the wheel's 67 us: far events inside windows */
        {"DCQCN, far timers", "transport.cc=dcqcn", "transport.dcqcn.timer=70us",
         "workload.bytes_per_writer=1MB"},
        {"lossy, go-back-N", "fabric.pfc.enabled=false", "fabric.buffer=2MB",
         "sim.time_limit=300us"},
        {"spray, out of order", "fabric.load_balancing=spray", "transport.receiver=ooo", NULL},
        {"random spray, go-back-N", "fabric.load_balancing=spray", "fabric.lb.spray_random=true",
         NULL},
        {"adaptive per packet", "fabric.load_balancing=adaptive",
         "fabric.lb.adaptive_per_packet=true", "transport.receiver=ooo"},
        {"flowlet", "fabric.load_balancing=flowlet", "fabric.lb.flowlet_timeout=200ns", NULL},
        {"samples", "telemetry.interval=3us", "telemetry.flows=true", NULL},
        {"time limit", "sim.time_limit=15us", NULL},
        {"short links", "fabric.link_delay=150ns", NULL},
        {"jitter", "workload.start_jitter=7us", "transport.cc=dcqcn", NULL},
        {"failed links", "fabric.failed_links=2", NULL},
        {"storage window", "storage.max_outstanding=2", "storage.request_size=64KB", NULL},
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        struct scenario sc;
        small(&sc);
        for (int k = 1; k < 4 && variants[v][k]; k++)
            test_set(&sc, "%s", variants[v][k]);
        same_in_every_order(&sc, variants[v][0], 1);
    }
}

/* Transports with per-packet state beside the packet record (NSCC's ACK
 * request and CE echo, Swift's ACK request and endpoint delay, HPCC's INT):
 * a timer under the queueing delay resends packets whose first copies are
 * still queued, and a copy's state must not reach another's. */
static void order_side_state(void)
{
    static const char *const variants[][6] = {
        {"NSCC over UEC, resends of queued packets", "transport.cc=nscc",
         "transport.protocol=uec", "transport.sack_timeout=8us", NULL},
        {"Swift over UEC, resends of queued packets", "transport.cc=swift",
         "transport.protocol=uec", "transport.sack_timeout=8us", NULL},
        {"HPCC over UEC, resends of queued packets", "transport.cc=hpcc",
         "transport.protocol=uec", "transport.sack_timeout=1us", NULL},
        {"NSCC, go-back-N, lossy", "transport.cc=nscc", "fabric.pfc.enabled=false",
         "fabric.buffer=1MB", "transport.ack_timeout=1"},
        {"Swift, go-back-N, lossy", "transport.cc=swift", "fabric.pfc.enabled=false",
         "fabric.buffer=1MB", "transport.ack_timeout=1"},
        {"HPCC, go-back-N, lossy", "transport.cc=hpcc", "fabric.pfc.enabled=false",
         "fabric.buffer=1MB", "transport.ack_timeout=1"},
        {"DCTCP over TCP, lossy", "transport.protocol=tcp", "transport.cc=dctcp",
         "fabric.pfc.enabled=false", "fabric.buffer=1MB"},
        {"CUBIC over TCP, lossy", "transport.protocol=tcp", "transport.cc=cubic",
         "fabric.pfc.enabled=false", "fabric.buffer=1MB"},
        {"NSCC over UEC, trimming", "transport.cc=nscc", "transport.protocol=uec",
         "fabric.trim.threshold=64KB", "transport.sack_timeout=8us"},
        {"NSCC over UEC, adaptive timer", "transport.cc=nscc", "transport.protocol=uec",
         "transport.sack_timeout=2us", "transport.rto=adaptive"},
        {"go-back-N, lossy, adaptive timer", "fabric.pfc.enabled=false", "fabric.buffer=1MB",
         "transport.ack_timeout=1", "transport.rto=adaptive"},
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        struct scenario sc;
        small(&sc);
        for (int k = 1; k < 6 && variants[v][k]; k++)
            test_set(&sc, "%s", variants[v][k]);
        /* the case arises: packets resent (by timers, but for TCP's fast
         * retransmits and UEC's NACKs of trims) */
        struct results r;
        CHECKF(test_run(&sc, &r) == 0, "%s", variants[v][0]);
        CHECKF(r.retx_packets > 0 && (r.timeouts > 0 || r.trims > 0 ||
                                      sc.transport.protocol == PROTO_TCP),
               "%s: %llu resent, %llu timeouts", variants[v][0],
               (unsigned long long)r.retx_packets, (unsigned long long)r.timeouts);
        results_release(&r);
        same_in_every_order(&sc, variants[v][0], 1);
    }
}

/* Storage nodes of two NICs share a back end whose full ingest buffer
 * pauses both: one partition. */
static void order_storage_backend(void)
{
    struct scenario sc;
    small(&sc);
    test_set(&sc, "storage.nics_per_node=2");
    test_set(&sc, "storage.drain_rate=200Gbps");
    test_set(&sc, "storage.ingest_buffer=1MB");
    same_in_every_order(&sc, "storage back end, 2 NICs", 1);
    small(&sc);
    test_set(&sc, "checkpoint.phase=restore");
    test_set(&sc, "restore.read_rate=300Gbps");
    same_in_every_order(&sc, "restore", 1);
}

/* Three tiers: choices at leaves and spines, spray over both. */
static void order_three_tiers(void)
{
    struct scenario sc;
    test_small_clos(&sc);
    test_set(&sc, "workload.bytes_per_writer=256KB");
    same_in_every_order(&sc, "three tiers", 1);
    test_set(&sc, "fabric.load_balancing=spray");
    test_set(&sc, "transport.receiver=ooo");
    same_in_every_order(&sc, "three tiers, spray", 1);
}

/* Training runs (steps may start inside a window) keep time order, and
 * say so. */
static void order_training_falls_back(void)
{
    struct scenario sc;
    small(&sc);
    test_set(&sc, "training.traffic=collectives");
    test_set(&sc, "training.grad_bytes=256KB");
    test_set(&sc, "training.step_time=200us");
    test_set(&sc, "training.steps=3");
    test_set(&sc, "fabric.pfc.priorities=3,4");
    same_in_every_order(&sc, "training", 0);
}

/* Inside a window a partition's own events wait in order (a FIFO, else a
 * heap); one for another partition breaks the lookahead and is counted,
 * which fails the run's invariants (src/pkt/collect.c). */
/* The near FIFO grows with its taken head and its tail at their offsets:
 * 1,000 appends with every third one taken, through pnet_schedule_seq's
 * inline append and pnet_fifo_grow, keep every event and its order. */
static void order_fifo_grow(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    struct pnet n;
    pnet_bare(&n, &sc);
    n.wend = UINT64_MAX;
    struct port p;
    uint64_t taken = 0, bad = 0;
    for (uint64_t t = 1; t <= 1000; t++) {
        CHECK(pnet_schedule_seq(&n, t, t, EV_TX_DONE, n.cur, &p, 0) == 0);
        if (t % 3 == 0 && n.wfp < n.wft && (n.wfp++)->t != ++taken)
            bad++;
    }
    CHECK(bad == 0 && taken == 333 && n.whn == 0 && evq_len(&n.q) == 0);
    CHECK(n.wfp - n.wf == 333 && n.wft - n.wf == 1000 && n.wfe - n.wf >= 1000);
    for (const struct event *e = n.wfp; e < n.wft; e++)
        bad += e->t != ++taken || e->seq != e->t || e->obj != &p;
    CHECK(bad == 0 && taken == 1000);
    free(n.wh);
    free(n.wf);
    evq_release(&n.q);
}

/* A bare packet network for the scheduler's near side: partition p of each
 * node from parts, the window ending at wend. */
static void near_bed(struct pnet *n, struct scenario *sc, uint32_t *parts, uint64_t wend)
{
    scenario_defaults(sc);
    pnet_bare(n, sc);
    n->part = parts;
    n->wend = wend;
}

static void near_free(struct pnet *n)
{
    free(n->wh);
    free(n->wf);
    evq_release(&n->q);
}

static void order_lookahead_checked(void)
{
    struct scenario sc;
    struct pnet n;
    uint32_t parts[8] = {0, 1};
    near_bed(&n, &sc, parts, 1000);
    struct flow f = {.src = 0};
    CHECK(pnet_schedule(&n, 500, EV_CC_TIMER, &f, 0) == 0);
    /* before the FIFO's only one: takes its place, that one to the heap */
    CHECK(pnet_schedule(&n, 400, EV_CC_TIMER, &f, 0) == 0);
    CHECK(pnet_schedule(&n, 500, EV_CC_TIMER, &f, 0) == 0); /* the first's tie, later: the FIFO */
    CHECK(n.wft - n.wf == 2 && n.whn == 1 && n.lookahead_bad == 0 && evq_len(&n.q) == 0);
    CHECK(n.wf[0].t == 400 && n.wf[1].t == 500 && n.wh[0].t == 500 && n.wf[1].seq > n.wh[0].seq);
    f.src = 1; /* another partition, inside the window */
    CHECK(pnet_schedule(&n, 600, EV_CC_TIMER, &f, 0) == 0);
    CHECK(n.lookahead_bad == 1 && evq_len(&n.q) == 1);
    n.wend = 0; /* no window: to the queue */
    CHECK(pnet_schedule(&n, 700, EV_CC_TIMER, &f, 0) == 0);
    CHECK(n.lookahead_bad == 1 && evq_len(&n.q) == 2);
    near_free(&n);
}

/* The test's stream of draws: a 64-bit LCG, wrapping on purpose. */
CKPT_WRAPS static uint64_t lcg_next(uint64_t x)
{
    return x * 6364136223846793005u + 1442695040888963407u;
}

static int by_time_key(const void *a, const void *b)
{
    return evq_before(a, b) ? -1 : evq_before(b, a) ? 1 : 0;
}

/* A partition's own events pushed inside the window, a stream a fixed
 * delay ahead with others further ahead among it: the FIFO stays in
 * order, the heap a heap, together they hold every event pushed, and the
 * stream keeps to the FIFO (an event further ahead and overtaken goes to
 * the heap, not the stream behind it). */
static void order_near_fifo_in_order(void)
{
    struct scenario sc;
    struct pnet n;
    uint32_t parts[8] = {0};
    near_bed(&n, &sc, parts, UINT64_MAX);
    struct flow f = {.src = 0};
    enum { N = 3000 };
    static struct event all[N], got[N];
    uint64_t now = 0, x = 12345;
    for (int k = 0; k < N; k++) {
        x = lcg_next(x);
        now += (x >> 40) % 40; /* some ties */
        /* one in eight a wake further ahead, one in 64 anywhere ahead */
        uint64_t t = now + ((x >> 20) % 8 == 0 ? 250 : (x >> 24) % 64 == 0 ? (x >> 30) % 400 : 100);
        CHECK(pnet_schedule(&n, t, EV_CC_TIMER, &f, 0) == 0);
        all[k] = (struct event){t, n.cur_seq->next - 1, &f, EV_CC_TIMER, 0};
        for (const struct event *q = n.wfp + 1; q < n.wft; q++)
            if (evq_before(q, q - 1)) {
                CHECK(!"the FIFO out of order");
                k = N;
                break;
            }
        for (size_t i = 1; i < n.whn; i++)
            if (evq_before(&n.wh[i], &n.wh[(i - 1) / 2])) {
                CHECK(!"the heap out of order");
                k = N;
                break;
            }
    }
    CHECK((size_t)(n.wft - n.wfp) + n.whn == N);
    /* the stream a fixed delay ahead keeps to the FIFO: 415 in the heap
     * here, 595 when only the FIFO's last may give way, 1,721 when every
     * event before the FIFO's last goes there */
    CHECK(n.whn < N / 4);
    memcpy(got, n.wfp, (size_t)(n.wft - n.wfp) * sizeof *got);
    memcpy(got + (n.wft - n.wfp), n.wh, n.whn * sizeof *got);
    qsort(all, N, sizeof *all, by_time_key);
    qsort(got, N, sizeof *got, by_time_key);
    CHECK(memcmp(all, got, sizeof all) == 0);
    near_free(&n);
}

/* k wakes pushed further ahead at the FIFO's tail, then an event of the
 * stream before them: up to four of them go to the heap and the stream's
 * event takes their place; behind five, it goes to the heap itself. */
static void order_near_fifo_tail(void)
{
    for (int k = 1; k <= 5; k++) {
        struct scenario sc;
        struct pnet n;
        uint32_t parts[8] = {0};
        near_bed(&n, &sc, parts, UINT64_MAX);
        struct flow f = {.src = 0};
        CHECK(pnet_schedule(&n, 100, EV_CC_TIMER, &f, 0) == 0);
        for (int i = 0; i < k; i++)
            CHECK(pnet_schedule(&n, 1000 + (uint64_t)i, EV_CC_TIMER, &f, 1) == 0);
        CHECK(pnet_schedule(&n, 200, EV_CC_TIMER, &f, 2) == 0);
        size_t nf = (size_t)(n.wft - n.wfp);
        if (k <= 4) {
            CHECKF(nf == 2 && n.whn == (size_t)k, "%d wakes: FIFO %zu, heap %zu", k, nf, n.whn);
            CHECK(n.wfp[1].t == 200 && n.wh[0].t == 1000);
        } else {
            CHECKF(nf == 6 && n.whn == 1, "%d wakes: FIFO %zu, heap %zu", k, nf, n.whn);
            CHECK(n.wh[0].t == 200 && n.wft[-1].t == 1004);
        }
        near_free(&n);
    }
}

SUITE(suite_order) = {
    {"order_lookahead_checked", order_lookahead_checked},
    {"order_fifo_grow", order_fifo_grow},
    {"order_near_fifo_in_order", order_near_fifo_in_order},
    {"order_near_fifo_tail", order_near_fifo_tail},
    {"order_same_results", order_same_results},
    {"order_side_state", order_side_state},
    {"order_storage_backend", order_storage_backend},
    {"order_three_tiers", order_three_tiers},
    {"order_training_falls_back", order_training_falls_back},
    {0, 0},
};
