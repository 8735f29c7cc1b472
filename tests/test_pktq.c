/* Packet engine internals behind the speed work (issue 15): the packet
 * rings keep FIFO order through wrap-around and growth, and DWRR's short
 * cut for a lone queue leaves exactly the state of the full walk. */
#include <stdlib.h>
#include <string.h>

#include "../src/core/rng.h"
#include "../src/pkt/engine_int.h" /* struct chunk_pool */
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

/* Pushes and pops interleaved at random on several queues: each returns its
 * packets in order, byte counts follow, and the chunks in use follow the
 * packets queued (freed chunks are reused, not one allocated per packet). */
static void pktq_fifo_in_chunks(void)
{
    struct pnet n;
    memset(&n, 0, sizeof n);
    n.wire_overhead = ROCE_OVERHEAD;
    arena_init(&n.arena);
    enum { NQ = 4 };
    struct pktq q[NQ];
    memset(q, 0, sizeof q);
    struct rng r;
    rng_init(&r, 7, 1);
    uint32_t in[NQ] = {0}, out[NQ] = {0}, live = 0, max_live = 0;
    uint64_t bytes[NQ] = {0};
    int bad = 0;
    for (int step = 0; step < 400000 && !bad; step++) {
        unsigned k = (unsigned)rng_below(&r, NQ);
        /* phases: mostly push, then mostly pop, so queues fill and empty */
        int push = rng_below(&r, 100) < ((step / 20000) % 2 ? 30u : 70u);
        if (push) {
            struct packet pk = {.t = in[k], .psn = in[k], .payload = 64 + in[k] % 4000};
            CHECK(pktq_push(&n, &q[k], &pk, pkt_wire(&n, &pk)) == 0);
            bytes[k] += pkt_wire(&n, &pk);
            in[k]++;
            live++;
            max_live = live > max_live ? live : max_live;
        } else if (q[k].len) {
            uint64_t w = pkt_wire(&n, pktq_head(&q[k]));
            struct packet pk;
            pktq_pop(&n, &q[k], w, &pk);
            bytes[k] -= w;
            bad |= pk.psn != out[k] || pk.t != out[k];
            out[k]++;
            live--;
        }
        bad |= q[k].bytes != bytes[k] || q[k].len != in[k] - out[k];
        bad |= q[k].len && pktq_head(&q[k])->psn != out[k];
    }
    uint32_t walked = 0;
    for (unsigned k = 0; k < NQ; k++) {
        uint32_t want = out[k];
        PKTQ_FOR_EACH(&q[k], pk, bad |= pk->psn != want++; walked++)
    }
    CHECKF(!bad, "a queue out of order or miscounted");
    CHECKF(walked == live, "walked %u of %u packets", walked, live);
    CHECKF(max_live > 4000, "only %u packets at once", max_live);
    /* at most a partly filled chunk per queue and one slab beyond the peak
     * (without reuse: a slot per push, some 200,000) */
    uint64_t limit = max_live + NQ * PKT_CHUNK + PKT_SLAB_CHUNKS * PKT_CHUNK;
    CHECKF(n.pkts_allocated <= limit, "%llu slots for at most %u packets",
           (unsigned long long)n.pkts_allocated, max_live);
    pnet_release_slabs(&n);
    arena_release(&n.arena);
}

/* A bare pnet whose ports schedule by sched, CNPs at priority 6, RoCE
 * frames of 4 KB. */
static void sched_bed(struct pnet *n, struct scenario *sc, int sched)
{
    scenario_defaults(sc);
    sc->fabric.scheduling = sched;
    sc->transport.cnp_priority = 6;
    pnet_bare(n, sc);
    n->mtu_wire = 4096 + ROCE_OVERHEAD;
    n->wire_overhead = ROCE_OVERHEAD;
    arena_init(&n->arena);
}

/* port_pick_queue's short cut (one queue holds packets) against DWRR's walk,
 * from random credits, walk positions and packet sizes: same choice, same
 * credits, same next position. */
static void dwrr_lone_queue_matches_walk(void)
{
    struct scenario sc;
    struct pnet n;
    sched_bed(&n, &sc, SCHED_DWRR);
    struct rng r;
    rng_init(&r, 11, 2);
    int bad = 0, refills = 0;
    struct port *a = calloc(2, sizeof *a), *b = a + 1;
    CHECK(a != NULL);
    for (int k = 0; a && k < 20000 && !bad; k++) {
        for (int i = 0; i < NPRIO; i++)
            n.dwrr_quantum[i] = (int32_t)((1 + rng_below(&r, 4)) * n.mtu_wire);
        unsigned i = (unsigned)rng_below(&r, NPRIO);
        if (i == sc.transport.cnp_priority)
            i = 3;
        memset(a, 0, sizeof *a);
        struct packet pk = {.payload = (uint32_t)(1 + rng_below(&r, 4096)), .prio = (uint8_t)i};
        CHECK(pktq_push(&n, &a->q[i], &pk, pkt_wire(&n, &pk)) == 0);
        a->qmask = (uint8_t)(1u << i);
        for (int j = 0; j < NPRIO; j++)
            a->deficit[j] = (int32_t)rng_below(&r, 2 * n.mtu_wire);
        a->dwrr_next = (uint8_t)rng_below(&r, NPRIO);
        refills += a->deficit[i] < (int64_t)pkt_wire(&n, &pk);
        *b = *a;
        int ca = port_pick_queue(&n, a, 1u << i), cb = port_dwrr_walk(&n, b, 1u << i);
        bad |= ca != cb || a->dwrr_next != b->dwrr_next ||
               memcmp(a->deficit, b->deficit, sizeof a->deficit);
        struct packet out;
        pktq_pop(&n, &a->q[i], pkt_wire(&n, &pk), &out);
    }
    CHECKF(!bad, "DWRR short cut differs from the walk");
    CHECKF(refills > 1000, "only %d cases needed a new quantum", refills);
    free(a);
    pnet_release_slabs(&n);
    arena_release(&n.arena);
}

/* Strict priority's choice (port.c pick_queue, whose one-queue short cut
 * runs before the strict test): the CNP priority when ready, else the
 * highest ready queue, for every ready set, with queues not ready (paused
 * or later) holding packets or not. Fails when the short cut takes a set of
 * several queues, or strict falls through to DWRR. */
static void strict_picks_highest_ready(void)
{
    struct scenario sc;
    struct pnet n;
    sched_bed(&n, &sc, SCHED_STRICT);
    CHECK(n.strict);
    for (int i = 0; i < NPRIO; i++)
        n.dwrr_quantum[i] = (int32_t)n.mtu_wire;
    struct port *a = calloc(1, sizeof *a);
    CHECK(a != NULL);
    int bad = 0, cases = 0;
    for (unsigned held = 1; a && held < (1u << NPRIO); held++) {
        for (unsigned ready = held; ready; ready = (ready - 1) & held) {
            memset(a, 0, sizeof *a);
            for (unsigned i = 0; i < NPRIO; i++)
                if (held & (1u << i)) {
                    struct packet pk = {.payload = 1000 + i, .prio = (uint8_t)i};
                    CHECK(pktq_push(&n, &a->q[i], &pk, pkt_wire(&n, &pk)) == 0);
                }
            a->qmask = (uint8_t)held;
            int want = ready & (1u << 6) ? 6 : 31 - __builtin_clz(ready);
            int got = port_pick_queue(&n, a, ready);
            if (got != want && bad++ < 5)
                fprintf(stderr, "  held %02x ready %02x: queue %d, want %d\n", held, ready, got,
                        want);
            cases++;
            for (unsigned i = 0; i < NPRIO; i++)
                while (a->q[i].len) {
                    struct packet out;
                    pktq_pop(&n, &a->q[i], pkt_wire(&n, pktq_head(&a->q[i])), &out);
                }
        }
    }
    CHECKF(!bad && cases == 6561 - 256, "%d of %d choices wrong", bad, cases);
    free(a);
    pnet_release_slabs(&n);
    arena_release(&n.arena);
}

/* ECMP on three tiers (a hashed choice at leaves and spines): the packet
 * engine, which remembers each flow's choice at the last switch, puts
 * the same wire bytes on every link as the fluid engine, which hashes the
 * same flows onto the same paths. */
static void ecmp_remembered_choice_matches_fluid(void)
{
    struct results r[2];
    for (int fluid = 0; fluid < 2; fluid++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "fabric.tiers=3");
        test_set(&sc, "fabric.leaves_per_pod=2");
        test_set(&sc, "fabric.spines=4");
        test_set(&sc, "cluster.nodes=32");
        test_set(&sc, "fabric.hosts_per_leaf=4");
        test_set(&sc, "storage.nodes=8");
        test_set(&sc, "fabric.storage_per_leaf=4");
        test_set(&sc, "fabric.load_balancing=ecmp");
        test_set(&sc, "workload.bytes_per_writer=4096KiB");
        test_set(&sc, "telemetry.ports=true");
        test_set(&sc, "engine=%s", fluid ? "fluid" : "packet");
        CHECK(test_run(&sc, &r[fluid]) == 0);
        CHECKF(r[fluid].ok, "%s", r[fluid].violation);
    }
    CHECK(r[0].n_ports == r[1].n_ports && r[0].n_ports > 0 && r[0].fabric_tiers == 3);
    uint32_t used = 0, differ = 0;
    for (uint32_t i = 0; i < r[0].n_ports && i < r[1].n_ports; i++) {
        used += r[0].ports[i].tx_bytes > 0;
        differ += r[0].ports[i].tx_bytes != r[1].ports[i].tx_bytes;
    }
    CHECKF(differ == 0, "%u of %u links carry other bytes than the fluid engine's", differ,
           r[0].n_ports);
    CHECKF(used > 32, "only %u links used", used);
    results_release(&r[0]);
    results_release(&r[1]);
}

/* Two threads' free lists and the team's pool: the one that frees more
 * chunks than it takes gives its excess to the pool at a meeting, and the
 * other takes from the pool before it allocates a slab, so the run's slabs
 * do not grow with its length (issue: 3.59 GB on two threads). */
static void chunk_pool_rebalances(void)
{
    struct chunk_pool pool = {.head = NULL, .n = 0};
    pthread_mutex_init(&pool.lock, NULL);
    struct pnet a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.pool = b.pool = &pool;
    /* a allocates three slabs' chunks (as a sending thread), b frees them
     * all (the thread that dequeues them) */
    uint64_t k = 3 * PKT_SLAB_CHUNKS;
    struct pkt_chunk **held = calloc(k, sizeof *held);
    CHECK(held != NULL);
    for (uint64_t i = 0; held && i < k; i++)
        CHECK((held[i] = pnet_chunk_alloc(&a)) != NULL);
    CHECK(a.slab_bytes == 3 * PKT_SLAB_BYTES && a.n_free == 0);
    for (uint64_t i = 0; held && i < k; i++)
        pnet_chunk_free(&b, held[i]);
    CHECK(b.n_free == k);
    pnet_chunk_share(&b); /* a meeting: b keeps one slab's worth */
    CHECK(b.n_free == CHUNK_KEEP && pool.n == k - CHUNK_KEEP);
    pnet_chunk_share(&a); /* nothing to give */
    CHECK(a.n_free == 0 && pool.n == k - CHUNK_KEEP);
    /* a sends as much again: from the pool, no new slab */
    for (uint64_t i = 0; held && i < k - CHUNK_KEEP; i++)
        CHECK((held[i] = pnet_chunk_alloc(&a)) != NULL);
    CHECKF(a.slab_bytes == 3 * PKT_SLAB_BYTES, "%llu", (unsigned long long)a.slab_bytes);
    CHECK(pool.n == 0);
    /* one thread alone has no pool and keeps its chunks */
    struct pnet c;
    memset(&c, 0, sizeof c);
    CHECK(pnet_chunk_alloc(&c) != NULL && c.n_free == PKT_SLAB_CHUNKS - 1);
    for (uint64_t i = 0; i < 2 * PKT_SLAB_CHUNKS; i++)
        pnet_chunk_free(&c, pnet_chunk_alloc(&c));
    pnet_chunk_share(&c);
    CHECK(c.n_free == PKT_SLAB_CHUNKS - 1 && c.slab_bytes == PKT_SLAB_BYTES);
    free(held);
    pnet_release_slabs(&a);
    pnet_release_slabs(&c);
    pthread_mutex_destroy(&pool.lock);
}

/* A wire between two ports, pushed at one end and popped at the other at
 * random: packets come out in order, wire_view walks exactly those in
 * flight, and each end writes only its own port (the two may run on
 * different threads): after the first packet a push leaves the far port's
 * bytes alone and a pop the sender's. */
static void wire_ends_keep_to_their_ports(void)
{
    struct pnet n;
    memset(&n, 0, sizeof n);
    arena_init(&n.arena);
    struct port *ports = aligned_alloc(64, 2 * sizeof *ports);
    CHECK(ports != NULL);
    if (!ports)
        return;
    memset(ports, 0, 2 * sizeof *ports);
    n.ports = ports;
    struct port *a = &ports[0], *b = &ports[1], before;
    a->peer = 1;
    b->peer = 0;
    struct rng r;
    rng_init(&r, 5, 3);
    uint32_t in = 0, out = 0, max_live = 0;
    int bad = 0, foreign = 0;
    for (int step = 0; step < 200000 && !bad; step++) {
        int push = rng_below(&r, 100) < ((step / 5000) % 2 ? 35u : 65u);
        if (push) {
            struct packet pk = {.t = 3u * in, .psn = in, .payload = 64 + in % 4000};
            before = *b;
            CHECK(wire_push(&n, a, &pk) == 0);
            foreign += in > 0 && memcmp(&before, b, sizeof before) != 0;
            in++;
        } else if (in > out) {
            struct packet pk;
            before = *a;
            wire_pop(&n, b, &pk);
            foreign += memcmp(&before, a, sizeof before) != 0;
            bad |= pk.psn != out || pk.t != 3u * out;
            out++;
        }
        max_live = in - out > max_live ? in - out : max_live;
    }
    struct pktq w = wire_view(&n, a);
    uint32_t want = out, walked = 0;
    if (in > out)
        PKTQ_FOR_EACH(&w, pk, bad |= pk->psn != want++; walked++)
    CHECKF(!bad, "the wire out of order");
    CHECKF(!foreign, "%d pushes or pops wrote the other end's port", foreign);
    CHECKF(walked == in - out, "wire_view walked %u of %u in flight", walked, in - out);
    CHECKF(max_live > 1000, "only %u packets at once", max_live);
    free(ports);
    pnet_release_slabs(&n);
    arena_release(&n.arena);
}

SUITE(suite_pktq) = {
    {"ecmp_remembered_choice_matches_fluid", ecmp_remembered_choice_matches_fluid},
    {"pktq_fifo_in_chunks", pktq_fifo_in_chunks},
    {"dwrr_lone_queue_matches_walk", dwrr_lone_queue_matches_walk},
    {"strict_picks_highest_ready", strict_picks_highest_ready},
    {"chunk_pool_rebalances", chunk_pool_rebalances},
    {"wire_ends_keep_to_their_ports", wire_ends_keep_to_their_ports},
    {0, 0},
};
