/* The flat packet engine's layouts (BENCHMARKS.md, "Flat packet engine"):
 * the event queue's free nodes as a stack of indices, its 32-byte nodes;
 * what a PFC frame touches at a port. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/core/evq.h"
#include "../src/core/rng.h"
#include "../src/pkt/engine_int.h"
#include "../src/pkt/pnet.h"
#include "../src/work/train.h"
#include "harness.h"
#include "support.h"

/* A steady state of 64 to 256 pending events, pushed up to 3 us ahead in
 * random order, drained by pops and by window takes, 200,000 in all: they
 * come out in (time, seq) order, each once, and the wheel's nodes are
 * reused, not leaked (the pool stays at its first 1024) nor given out twice
 * (every node is on the wheel or free, once). */
static void evq_free_stack_reuses_nodes(void)
{
    struct evq q;
    struct rng r;
    struct event out[512];
    evq_init(&q);
    rng_init(&r, 7, 0);
    uint64_t now = 0, pushed = 0, popped = 0, last_t = 0, last_seq = 0;
    int order_ok = 1;
    while (popped < 200000) {
        while (evq_len(&q) < 64 + rng_below(&r, 192)) {
            uint64_t t = now + rng_below(&r, 3000000);
            CHECK(evq_push(&q, t, 0, NULL, (uint32_t)pushed) == 0);
            pushed++;
        }
        size_t n = 0;
        if (rng_below(&r, 2)) {
            if (evq_pop(&q, &out[0]))
                n = 1;
        } else {
            evq_take_before(&q, now + 200000, out, &n, 512, 0, 1);
        }
        for (size_t i = 0; i < n; i++) {
            if (out[i].t < last_t || (out[i].t == last_t && out[i].seq <= last_seq && popped))
                order_ok = 0;
            last_t = out[i].t;
            last_seq = out[i].seq;
            popped++;
        }
        now = last_t > now ? last_t : now + 1000;
    }
    CHECK(order_ok);
    CHECKF(q.pool_cap == 1024, "pool grew to %u nodes", q.pool_cap);
    CHECKF((size_t)q.n_free + q.wn == q.pool_cap, "%u free + %zu queued != %u", q.n_free, q.wn,
           q.pool_cap);
    /* every free index names a distinct node */
    static uint8_t seen[1024];
    int distinct = 1;
    for (uint32_t i = 0; i < q.n_free; i++) {
        uint32_t x = q.free_stk[i];
        if (x >= 1024 || seen[x]++)
            distinct = 0;
    }
    CHECK(distinct);
    struct event e;
    while (evq_pop(&q, &e))
        popped++;
    CHECK(popped == pushed);
    CHECK(q.n_free == q.pool_cap);
    evq_release(&q);
}

/* A wheel node keeps only the bits of its time below its bucket: every
 * event comes back with its exact time, tie key, object and argument, over
 * 20 turns of the wheel (its buckets wrap), in pops and in window takes;
 * and the node pool, grown from 1024 to cap nodes (many pending at first),
 * stays on line boundaries (a node on one line), and once EVQ_HUGE_MIN
 * bytes or more on a 2 MB boundary of its own (huge pages: evq_huge_alloc;
 * its growths copy every node). For the default wheel and one sized by
 * evq_horizon (nb: the buckets it must have). */
static void nodes_keep_whole_events(uint64_t horizon_ps, uint32_t nb, uint32_t many, uint32_t cap)
{
    enum { M = 1 << 16 }; /* ids, reused once long done */
    const uint32_t N = many;
    struct evq q;
    struct rng r;
    struct event out[64];
    static uint64_t want_t[M], want_seq[M];
    static uint8_t pending[M];
    memset(pending, 0, sizeof pending);
    evq_init(&q);
    if (horizon_ps)
        evq_horizon(&q, horizon_ps);
    CHECKF(q.nb == nb, "%u buckets, not %u", q.nb, nb);
    rng_init(&r, 11, 0);
    uint64_t now = 0, wheel = (uint64_t)q.nb << EVQ_SHIFT;
    uint32_t next = 0, got = 0;
    int exact = 1, aligned = 1, reuse_ok = 1;
    while (got < 40 * N) {
        while (evq_len(&q) < (got < N ? N : 40u)) {
            uint32_t i = next++ % M;
            reuse_ok &= !pending[i];
            /* within a third of the wheel ahead, any picosecond */
            want_t[i] = now + rng_below(&r, wheel / 3);
            want_seq[i] = rng_u64(&r);
            pending[i] = 1;
            CHECK(evq_push_seq(&q, want_t[i], want_seq[i], i % 100, &want_t[i], i) == 0);
            aligned &= ((uintptr_t)q.pool % 64) == 0;
            if (q.pool_cap * sizeof *q.pool >= EVQ_HUGE_MIN)
                aligned &= ((uintptr_t)q.pool % ((size_t)2 << 20)) == 0;
        }
        size_t n = 0;
        if (rng_below(&r, 2) && evq_pop(&q, &out[0]))
            n = 1;
        else
            evq_take_before(&q, now + wheel / 50, out, &n, 64, 0, 1);
        for (size_t k = 0; k < n; k++) {
            uint32_t i = out[k].arg;
            exact &= i < M && pending[i] && out[k].t == want_t[i] && out[k].seq == want_seq[i] &&
                     out[k].obj == &want_t[i] && out[k].type == i % 100;
            if (i < M)
                pending[i] = 0;
            now = out[k].t;
            got++;
        }
        if (!n)
            now += wheel / 100;
    }
    CHECK(reuse_ok);
    CHECK(exact);
    CHECK(aligned);
    CHECKF(q.pool_cap == cap, "pool of %u nodes", q.pool_cap);
    CHECKF(now > 20 * wheel, "the wheel turned %.1f times", (double)now / (double)wheel);
    evq_release(&q);
}

static void evq_nodes_keep_whole_events(void)
{
    nodes_keep_whole_events(0, EVQ_BUCKETS, 3000, 4096);
    nodes_keep_whole_events(40000000, EVQ_BUCKETS_MAX, 3000, 4096); /* 40 us: 2^16 buckets */
    nodes_keep_whole_events(20000000, EVQ_BUCKETS_MAX / 2, 3000, 4096);
    /* 12,000 pending: the pool passes EVQ_HUGE_MIN (8,192 nodes) and grows
     * on huge pages (16,384) */
    CHECK(EVQ_HUGE_MIN == SIZE_MAX || 8192 * sizeof(struct evq_node) >= EVQ_HUGE_MIN);
    nodes_keep_whole_events(0, EVQ_BUCKETS, 12000, 16384);
}

/* The wheel is 8,192 buckets (8.4 us) unless evq_horizon asks for more
 * (the packet engine: twice its longest link delay), at most 65,536: an
 * event 40 us ahead is far by default and on the wheel of a queue sized
 * for it; a wheel in use keeps its size. */
static void evq_horizon_sizes_the_wheel(void)
{
    struct evq a, b;
    evq_init(&a);
    evq_init(&b);
    evq_horizon(&b, 40000000);
    CHECK(a.nb == EVQ_BUCKETS && b.nb == EVQ_BUCKETS_MAX);
    CHECK(((uint64_t)EVQ_BUCKETS << EVQ_SHIFT) < 40000000); /* else the test shows nothing */
    CHECK(evq_push(&a, 40000000, 0, NULL, 0) == 0 && evq_push(&b, 40000000, 0, NULL, 0) == 0);
    CHECKF(a.nfar == 1 && a.wn == 0, "default: %zu far, %zu on the wheel", a.nfar, a.wn);
    CHECKF(b.nfar == 0 && b.wn == 1, "sized: %zu far, %zu on the wheel", b.nfar, b.wn);
    evq_horizon(&b, 1000);
    CHECK(b.nb == EVQ_BUCKETS_MAX);
    evq_release(&a);
    evq_init(&a);
    evq_horizon(&a, UINT64_C(1000000000000)); /* 1 s: the largest wheel */
    CHECK(a.nb == EVQ_BUCKETS_MAX);
    evq_horizon(&a, 1000); /* not yet used: back to the default */
    CHECK(a.nb == EVQ_BUCKETS);
    evq_release(&a);
    evq_release(&b);
}


/* A bare network of two 400G ports cabled to each other, 1 us apart. */
static void two_ports(struct pnet *n, struct port ports[2], const struct scenario *sc)
{
    pnet_bare(n, sc);
    evq_init(&n->q);
    memset(ports, 0, 2 * sizeof *ports);
    ports[0].bps = ports[1].bps = 400000000000ull;
    ports[0].peer = 1;
    ports[1].peer = 0;
    ports[0].delay_ps = ports[1].delay_ps = 1000000;
    n->ports = ports;
}

/* A PFC frame at a port (pfc_on_frame) notes training's victim time only
 * where a training class runs: without one it leaves the port's victim
 * fields alone (two cold lines at a host port; step 6); with one, a pause
 * of training's class over a queued training packet counts, as before. */
static void pfc_frame_victim_only_with_training(void)
{
    for (int train = 0; train < 2; train++) {
        struct scenario sc;
        scenario_defaults(&sc);
        sc.fabric.pfc_watchdog = 0;
        struct pnet n;
        struct port ports[2];
        two_ports(&n, ports, &sc);
        n.train_bit = train ? 1u << 3 : 0;
        ports[1].train_q = 1; /* a training packet queued (counted only with training) */
        n.now = 5000000;
        pfc_on_frame(&n, &ports[1], 3 | 100u << 8); /* XOFF */
        CHECK(ports[1].paused == 1u << 3);
        n.now = 7000000;
        pfc_on_frame(&n, &ports[1], 3); /* XON */
        CHECK(ports[1].paused == 0);
        if (train) {
            CHECKF(ports[1].victim_ps == 2000000, "victim %llu ps",
                   (unsigned long long)ports[1].victim_ps);
            CHECK(ports[1].victim_t == 7000000);
        } else {
            CHECKF(ports[1].victim_ps == 0 && ports[1].victim_t == 0,
                   "no training: victim %llu ps, noted at %llu",
                   (unsigned long long)ports[1].victim_ps,
                   (unsigned long long)ports[1].victim_t);
        }
        evq_release(&n.q);
    }
}

/* A pause held by an XOFF whose refreshes are implicit (pfc.c's PFC_TRAIN
 * flag in the frame's argument) lasts until the XON, also when an earlier
 * plain XOFF had armed an expiry: the frame writes pause_end only where an
 * expiry is armed to read it. Without the watchdog a frame leaves
 * last_pause_rx alone (only the watchdog's restoration reads it); with it,
 * the frame's time is kept. */
static void pfc_train_pause_holds_until_xon(void)
{
    const uint32_t train = 0x80000000u; /* pfc.c's PFC_TRAIN */
    for (int wd = 0; wd < 2; wd++) {
        struct scenario sc;
        scenario_defaults(&sc);
        sc.fabric.pfc_watchdog = wd;
        struct pnet n;
        struct port ports[2];
        two_ports(&n, ports, &sc);
        struct port *p = &ports[1];
        n.now = 5000000;
        pfc_on_frame(&n, p, 3 | 100u << 8); /* a plain XOFF: its expiry armed */
        CHECK(p->paused == 1u << 3 && (p->end_armed & 1u << 3));
        CHECKF(p->last_pause_rx[3] == (wd ? 5000000u : 0u), "watchdog %d: last pause %llu",
               wd, (unsigned long long)p->last_pause_rx[3]);
        n.now = 5100000;
        pfc_on_frame(&n, p, 3 | 100u << 8 | train); /* held until the XON */
        struct event ev;
        int ends = 0;
        while (evq_pop(&n.q, &ev)) {
            if (EV_KIND(ev.type) != EV_PAUSE_END)
                continue; /* the watchdog's check (wd): not run here */
            n.now = ev.t;
            pfc_on_pause_end(&n, p, ev.arg);
            ends++;
        }
        CHECKF(ends == 1 && p->paused == 1u << 3 && !(p->end_armed & 1u << 3),
               "watchdog %d: %d expiries, paused %#x", wd, ends, p->paused);
        n.now = 9000000;
        pfc_on_frame(&n, p, 3); /* XON */
        CHECK(p->paused == 0);
        CHECK(p->paused_ps == 9000000 - 5000000);
        /* a held pause alone arms nothing; a plain XOFF after it runs out */
        pfc_on_frame(&n, p, 3 | 100u << 8 | train);
        CHECK(p->paused == 1u << 3 && !p->end_armed);
        pfc_on_frame(&n, p, 3);
        evq_release(&n.q);
        evq_init(&n.q);
        n.now = 10000000;
        pfc_on_frame(&n, p, 3 | 100u << 8);
        do
            CHECK(evq_pop(&n.q, &ev));
        while (EV_KIND(ev.type) != EV_PAUSE_END);
        CHECK(ev.t == p->pause_end[3] && ev.t > n.now);
        n.now = ev.t;
        pfc_on_pause_end(&n, p, ev.arg);
        CHECK(p->paused == 0);
        evq_release(&n.q);
    }
}

/* The lines of port p whose bytes differ from before (bit i: line i). */
static uint32_t lines_written(const struct port *before, const struct port *p)
{
    const unsigned char *a = (const void *)before, *b = (const void *)p;
    uint32_t m = 0;
    for (size_t i = 0; i < sizeof *p; i++)
        if (a[i] != b[i])
            m |= 1u << (i / 64);
    return m;
}

/* An XOFF whose refreshes are implicit and its XON (pfc_send at a leaf's
 * host port, which receives only) write the port's ingress line and, for
 * the XOFF, the line of xoff_since alone: no refresh generation, no
 * counter elsewhere (each a cold line at every XON; session 20); the
 * count of implicit refreshes is kept. At the far end the XOFF writes
 * line 0 and the line of pause_since, the XON lines 0 and 1. An XOFF
 * refreshed by events (the watchdog on) still makes its refresh event
 * stale at its XON, and the next XOFF's refresh runs. */
static void pfc_implicit_pause_writes_few_lines(void)
{
    const uint32_t line3 = 1u << 3;
    for (int wd = 0; wd < 2; wd++) {
        struct scenario sc;
        scenario_defaults(&sc);
        sc.fabric.pfc_watchdog = wd;
        sc.fabric.pfc_quanta = 1000; /* 1.28 us at 400G: six refreshes in 4 us */
        struct pnet n;
        struct port ports[2], before;
        two_ports(&n, ports, &sc);
        struct port *in = &ports[0];
        const uint32_t xline = 1u << (offsetof(struct port, xoff_since[3]) / 64);
        n.now = 5000000;
        before = *in;
        pfc_send(&n, in, 3, 1);
        CHECK(in->xoff == 1u << 3 && in->pause_tx == 1);
        if (!wd) {
            uint32_t w = lines_written(&before, in);
            CHECKF((w & ~(line3 | xline)) == 0, "an implicit XOFF wrote lines %#x", w);
            CHECK(in->xoff_implicit == 1u << 3);
        }
        struct event ev, refresh = {0};
        int refreshes = 0, pauses = 0;
        while (evq_pop(&n.q, &ev)) {
            if (EV_KIND(ev.type) == EV_PFC_REFRESH)
                refresh = ev, refreshes++;
            pauses += EV_KIND(ev.type) == EV_PAUSE;
        }
        CHECKF(refreshes == wd && pauses == 1, "watchdog %d: %d refresh events", wd, refreshes);
        uint64_t per = pfc_pause_ps(sc.fabric.pfc_quanta, in->bps) / 2;
        CHECK(per > 0 && per < 4000000);
        n.now = 9000000;
        before = *in;
        pfc_send(&n, in, 3, 0);
        CHECK(in->xoff == 0 && in->resume_tx == 1);
        if (!wd) {
            uint32_t w = lines_written(&before, in);
            CHECKF(w == line3, "an implicit XON wrote lines %#x", w);
            CHECKF(in->implicit_rx == 4000000 / per && n.refresh_frames == 4000000 / per,
                   "implicit refreshes %llu, %llu sent, of %llu",
                   (unsigned long long)in->implicit_rx, (unsigned long long)n.refresh_frames,
                   (unsigned long long)(4000000 / per));
            CHECK(!in->xoff_implicit);
            /* the far end: the XOFF (a train: held until the XON), the XON */
            struct port *p = &ports[1];
            const uint32_t sline = 1u << (offsetof(struct port, pause_since[3]) / 64);
            before = *p;
            pfc_on_frame(&n, p, 3 | sc.fabric.pfc_quanta << 8 | 0x80000000u);
            w = lines_written(&before, p);
            CHECKF(p->paused == 1u << 3 && p->pause_rx == 1 && (w & ~(1u | sline)) == 0,
                   "an XOFF received wrote lines %#x", w);
            n.now = 13000000;
            before = *p;
            pfc_on_frame(&n, p, 3);
            w = lines_written(&before, p);
            CHECKF(p->paused == 0 && p->paused_ps == 4000000 && (w & ~3u) == 0,
                   "an XON received wrote lines %#x", w);
            evq_release(&n.q);
            continue;
        }
        /* the first XOFF's refresh after its XON: stale */
        pfc_on_refresh(&n, in, refresh.arg);
        CHECK(n.refresh_frames == 0 && evq_len(&n.q) == 1); /* the XON's frame */
        n.now += 1000;
        pfc_send(&n, in, 3, 1);
        pfc_on_refresh(&n, in, refresh.arg); /* still stale under the new XOFF */
        CHECK(n.refresh_frames == 0);
        struct event again = {0};
        while (evq_pop(&n.q, &ev))
            if (EV_KIND(ev.type) == EV_PFC_REFRESH)
                again = ev;
        CHECK(again.t && again.arg != refresh.arg);
        n.now = again.t;
        pfc_on_refresh(&n, in, again.arg);
        CHECK(n.refresh_frames == 1);
        evq_release(&n.q);
    }
}

/* A switch egress serving its queue (port_kick, then port_on_tx_done's
 * kick): each packet is serialised, released from the buffer and taken off
 * the queue's totals by its own wire bytes, which the dequeue hands to the
 * release and the serialisation (session 22: no recount, no call). Two
 * sizes queued, so a hop that used the wrong packet's bytes, or none,
 * leaves the buffer or the port's totals off; the transmit-done takes the
 * size its serialisation cached. */
static void port_serves_by_its_wire(void)
{
    static uint64_t qhist[PATH_SETS * QHIST_BUCKETS];
    struct scenario sc;
    scenario_defaults(&sc);
    struct pnet n;
    struct port ports[2];
    two_ports(&n, ports, &sc);
    n.lossless = 1u << 3;
    n.qhist = qhist;
    n.n_flows = 1; /* flow 0 is no training flow */
    struct topo t;
    memset(&t, 0, sizeof t); /* first_cleaf 0: node 0 is a switch */
    n.topo = &t;
    struct sw s;
    memset(&s, 0, sizeof s);
    s.pool[0] = 10000000;
    s.buffer = 2 * s.pool[0];
    n.sws = &s;
    struct port *out = &ports[0], *in = &ports[1];
    out->state = PORT_BUSY; /* both queue before it serves */
    const uint32_t pay[2] = {4096, 1000};
    uint64_t wire[2];
    for (int i = 0; i < 2; i++) {
        struct packet pk = {.kind = PK_DATA, .prio = 3, .payload = pay[i], .flow = 0};
        wire[i] = pkt_wire(&n, &pk);
        CHECK(mmu_admit(&n, &s, in, out, &pk) == (int)wire[i]); /* admitted: its wire bytes */
        pk.t = n.now;
        port_queue(&n, out, &pk);
    }
    CHECK(wire[0] != wire[1] && s.used == wire[0] + wire[1]);
    out->state = PORT_IDLE;
    for (int i = 0; i < 2; i++) {
        if (i == 0)
            port_kick(&n, out);
        else
            port_on_tx_done(&n, out); /* the wire, then the next */
        uint64_t left = i ? 0 : wire[1];
        const struct ing_pg *g = &in->ing[3];
        CHECK(out->state == PORT_BUSY && out->tx.payload == pay[i]);
        CHECKF(s.used == left && g->reserve + g->shared + g->hdrm == left,
               "packet %d: buffer %llu, want %llu", i, (unsigned long long)s.used,
               (unsigned long long)left);
        CHECK(out->q_bytes == left && out->q[3].bytes == left);
        /* the transmit-done counts what went out by its own bytes */
        CHECK(out->tx_bytes == (i ? wire[0] : 0));
        /* its transmit-done a serialisation of its own bytes ahead (400G:
         * 20 ps a byte) */
        struct event ev, done = {0};
        while (evq_pop(&n.q, &ev))
            if (EV_KIND(ev.type) == EV_TX_DONE)
                done = ev;
        CHECKF(done.t == n.now + wire[i] * 20, "packet %d: done at %llu, want %llu", i,
               (unsigned long long)done.t, (unsigned long long)(n.now + wire[i] * 20));
        n.now = done.t;
    }
    port_on_tx_done(&n, out);
    CHECK(out->tx_bytes == wire[0] + wire[1] && out->state == PORT_IDLE);
    evq_release(&n.q);
    pnet_release_slabs(&n);
}

/* One wire, 1 us long at 400G, its packets' arrival events scheduled by the
 * sender or, where the previous packet arrives rx_lead or more after the
 * send, by the far end as it pops that one (port.c). Windows of rx_lead
 * as the window loop's, the far end's partition run before the sender's
 * in each (ahead: it pops before the sender pushes) or after: either way
 * every packet arrives once, in order, a link delay after its send, with
 * the tie key taken at its send, and both ends schedule some. Fails when
 * the far end is given a packet sent inside its window (lost: it popped
 * the previous one before the sender wrote the gap) or when both ends
 * schedule one (tried, each). */
static void wire_arrivals_once(void)
{
    enum { N = 400 };
    static const uint64_t gaps[] = {83000, 83000, 50000, 120000, 83000, 400000, 83000, 1500000};
    struct scenario sc;
    scenario_defaults(&sc);
    for (int ahead = 0; ahead < 2; ahead++) {
        struct pnet n;
        struct port ports[2];
        two_ports(&n, ports, &sc);
        struct port *out = &ports[0], *in = &ports[1];
        n.rx_lead = 900000;
        uint64_t ts[N], key[N], t = 0;
        struct rng r;
        rng_init(&r, 7, 0);
        for (int i = 0; i < N; i++)
            ts[i] = t += gaps[rng_below(&r, sizeof gaps / sizeof gaps[0])];
        int sent = 0, got = 0, by_far = 0, by_sender = 0, bad = 0;
        while (got < N && !bad) {
            uint64_t next = evq_peek_t(&n.q);
            uint64_t start = sent < N && ts[sent] < next ? ts[sent] : next;
            uint64_t wend = start + n.rx_lead;
            for (int side = 0; side < 2; side++) {
                if (side == ahead) { /* the far end's events of the window */
                    struct event ev;
                    while (!bad && evq_pop_before(&n.q, wend, &ev)) {
                        size_t before = evq_len(&n.q);
                        CHECKF(EV_KIND(ev.type) == EV_RX && ev.obj == in && got < sent &&
                                   ev.t == ts[got] + in->delay_ps && ev.seq == key[got],
                               "arrival %d of %d sent: at %llu key %llu", got, sent,
                               (unsigned long long)ev.t, (unsigned long long)ev.seq);
                        if (!(ev.obj == in && got < sent)) {
                            bad = 1;
                            break;
                        }
                        struct packet pk;
                        n.now = ev.t;
                        pnet_set_cur(&n, 0);
                        wire_arrive(&n, in, ev.seq, &pk);
                        CHECK(pk.psn == (uint32_t)got);
                        by_far += evq_len(&n.q) > before;
                        got++;
                    }
                } else { /* the sender's */
                    for (; sent < N && ts[sent] < wend; sent++) {
                        size_t before = evq_len(&n.q);
                        n.now = ts[sent];
                        pnet_set_cur(&n, 0);
                        out->tx = (struct packet){.kind = PK_DATA, .payload = 4096,
                                                  .psn = (uint32_t)sent};
                        out->ser_wire = (uint32_t)pkt_wire(&n, &out->tx);
                        out->state = PORT_BUSY;
                        key[sent] = n.pseq[0].next;
                        port_on_tx_done(&n, out);
                        by_sender += evq_len(&n.q) > before;
                    }
                }
            }
            if (sent == N && !evq_len(&n.q))
                break;
        }
        CHECKF(got == N && !evq_len(&n.q), "ahead %d: %d of %d arrived, %zu events left", ahead,
               got, N, evq_len(&n.q));
        CHECKF(by_far > N / 2 && by_sender > 10, "ahead %d: far end %d, sender %d", ahead,
               by_far, by_sender);
        evq_release(&n.q);
        pnet_release_slabs(&n);
    }
}

/* A set-up pnet (pnet_setup on p) and its scenario's preparation, freed. */
static void setup_release(struct pnet *n, struct test_prep *p)
{
    train_clock_release(&n->tc);
    evq_release(&n->q);
    pnet_release_slabs(n);
    arena_release(&n->arena);
    free(n);
    test_prep_release(p);
}

/* A partition's tie keys come from its own counter kept as a whole key
 * (session 22: one increment an event): the k-th event partition c
 * schedules gets pnet_tie(c, k), so ties between partitions still go by
 * partition, whatever each has scheduled. After the engine's own set-up
 * (pnet_setup on the default fabric, which schedules the starts) every
 * partition's counter must hold a key of its own partition; fails when the
 * set-up does not make them keys (each would count from 0). */
static void pnet_tie_keys_by_partition(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    struct test_prep p;
    struct pnet *n = aligned_alloc(64, (sizeof *n + 63) / 64 * 64);
    if (!n || test_prepare(&p, &sc) < 0 ||
        pnet_setup(n, &p.eff, &p.t, &p.w, NULL, &p.e) < 0) {
        CHECKF(0, "set-up: %s", p.e.msg);
        free(n);
        test_prep_release(&p);
        return;
    }
    uint32_t parts = p.t.n_nodes + 1, bad = 0;
    CHECK(parts > 4);
    for (uint32_t c = 0; c < parts; c++)
        bad += n->pseq[c].next >> 40 != c;
    CHECKF(!bad, "%u of %u partitions' counters outside their partition", bad, parts);
    /* events scheduled by partitions in turn take their own next keys */
    uint64_t first[4];
    for (uint32_t c = 0; c < 4; c++)
        first[c] = n->pseq[c].next;
    for (uint32_t k = 0; k < 3; k++)
        for (uint32_t c = 0; c < 4; c++) {
            pnet_set_cur(n, c);
            uint64_t key = pnet_next_tie(n);
            CHECKF(key == first[c] + k && key == pnet_tie(c, (first[c] & ((UINT64_C(1) << 40) - 1)) + k),
                   "partition %u, event %u: key %llx", c, k, (unsigned long long)key);
        }
    pnet_set_cur(n, 3);
    uint64_t late = pnet_next_tie(n);
    pnet_set_cur(n, 1);
    CHECK(pnet_next_tie(n) < late); /* fewer events, lower partition: first */
    setup_release(n, &p);
}

/* The run's variant bytes (nic_variants: nic_pull's and nic_receive's
 * copies without their variants' tests) are set once, last in set-up:
 * each case's pair is the one its variant asks for, and a run to its end
 * leaves the flags they are made of as set-up left them, so no flag was
 * set after the first flow started. Fails when set-up sets them before a
 * flag they read (nic_setup's window, the transport's hooks, training). */
static void pnet_variants_set_once(void)
{
    static const struct {
        const char *keys[3];
        uint8_t tx, rx;
    } cases[] = {
        {{0}, 1, 1},
        {{"transport.cc=dcqcn"}, 1, 0},
        {{"transport.cc=hpcc"}, 0, 0},
        {{"storage.max_outstanding=2", "storage.request_size=64KB"}, 0, 0},
        {{"storage.protocol=nfs"}, 0, 0},
        {{"fabric.pfc.enabled=false"}, 0, 0},
        {{"transport.protocol=uec", "transport.cc=nscc", "transport.uec.rccc=true"}, 0, 0},
        {{"training.traffic=collectives", "training.grad_bytes=1MB"}, 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=16");
        test_set(&sc, "workload.bytes_per_writer=256KB");
        for (int k = 0; k < 3 && cases[c].keys[k]; k++)
            test_set(&sc, "%s", cases[c].keys[k]);
        struct test_prep p;
        struct pnet *n = aligned_alloc(64, (sizeof *n + 63) / 64 * 64);
        if (!n || test_prepare(&p, &sc) < 0 ||
            pnet_setup(n, &p.eff, &p.t, &p.w, NULL, &p.e) < 0) {
            CHECKF(0, "case %zu: set-up: %s", c, p.e.msg);
            free(n);
            test_prep_release(&p);
            continue;
        }
        uint8_t tx = n->tx_plain, rx = n->rx_plain;
        CHECKF(tx == cases[c].tx && rx == cases[c].rx, "case %zu (%s): tx_plain %u rx_plain %u",
               c, cases[c].keys[0] ? cases[c].keys[0] : "default", tx, rx);
        n->res = &p.r;
        n->time_limit_ps = UINT64_MAX;
        pnet_loop(n);
        CHECKF(n->flows_done == n->n_flows && n->n_flows > 0, "case %zu: %llu of %u flows done",
               c, (unsigned long long)n->flows_done, n->n_flows);
        nic_variants(n); /* from the flags as the run left them */
        CHECKF(n->tx_plain == tx && n->rx_plain == rx, "case %zu: a flag moved during the run",
               c);
        setup_release(n, &p);
    }
}

/* A queue's length histogram bucket (port.c, computed without a branch):
 * every length falls in the bucket whose floor is at or below it and the
 * next one's above, at every power of two and its neighbours, and the
 * last bucket takes all beyond. */
static void qhist_bucket_brackets_lengths(void)
{
    uint64_t top = qhist_bucket_floor(QHIST_BUCKETS - 1);
    unsigned bad = 0;
    for (unsigned sh = 0; sh < 64; sh++) {
        for (int64_t d = -300; d <= 300; d++) {
            if (d < 0 && (uint64_t)-d > (UINT64_C(1) << sh))
                continue;
            /* no unsigned wrap (clang's overflow lane) */
            uint64_t x = d < 0 ? (UINT64_C(1) << sh) - (uint64_t)-d : (UINT64_C(1) << sh) + (uint64_t)d;
            unsigned b = qhist_bucket(x);
            if (b >= QHIST_BUCKETS || qhist_bucket_floor(b) > x ||
                (b + 1 < QHIST_BUCKETS && x >= qhist_bucket_floor(b + 1)) ||
                (b == QHIST_BUCKETS - 1 && x < top)) {
                if (bad++ < 5)
                    fprintf(stderr, "  length %llu in bucket %u\n", (unsigned long long)x, b);
            }
        }
    }
    for (uint64_t x = 0; x < (UINT64_C(1) << 20); x += 37) /* every bucket of the first 2^12 units */
        bad += qhist_bucket_floor(qhist_bucket(x)) > x || qhist_bucket(x + 256 * 32) < qhist_bucket(x);
    CHECKF(bad == 0, "%u lengths in the wrong bucket", bad);
    CHECK(qhist_bucket(0) == 0 && qhist_bucket(255) == 0 && qhist_bucket(256) == 1);
    CHECK(qhist_bucket(UINT64_MAX) == QHIST_BUCKETS - 1);
}

SUITE(suite_flat) = {
    {"evq_free_stack_reuses_nodes", evq_free_stack_reuses_nodes},
    {"evq_nodes_keep_whole_events", evq_nodes_keep_whole_events},
    {"evq_horizon_sizes_the_wheel", evq_horizon_sizes_the_wheel},
    {"pfc_frame_victim_only_with_training", pfc_frame_victim_only_with_training},
    {"pfc_train_pause_holds_until_xon", pfc_train_pause_holds_until_xon},
    {"pfc_implicit_pause_writes_few_lines", pfc_implicit_pause_writes_few_lines},
    {"port_serves_by_its_wire", port_serves_by_its_wire},
    {"pnet_tie_keys_by_partition", pnet_tie_keys_by_partition},
    {"wire_arrivals_once", wire_arrivals_once},
    {"qhist_bucket_brackets_lengths", qhist_bucket_brackets_lengths},
    {"pnet_variants_set_once", pnet_variants_set_once},
    {0, 0},
};
