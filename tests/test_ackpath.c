/* transport.ack_path (src/pkt/nic.c nic_control_out): ACKs and NACKs sent
 * direct reach their sender after the reverse path's unloaded latency, as
 * one event each, carrying what the packet would. On an idle reverse path
 * that is exactly what a fabric ACK sees: every window transport's ACKs
 * arrive at the same picosecond and leave the same windows behind, step by
 * step; on an incast the completion moves by less than 1%; auto sends the window transports' ACKs direct and
 * leaves every other run's through the fabric. (--pcap's refusal: the
 * CLI test pcap_ack_direct.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/api.h"
#include "../src/api/ckpt.h"
#include "../src/pkt/engine.h"
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

/* One ACK a sender heard: when, what it said, the window after it, and
 * the RTT it measured where the transport stamps its packets. */
struct heard {
    uint64_t t, rtt;
    uint32_t flow, psn;
    double w;
};

/* The hooks take no context pointer and a test runs one engine at a time
 * on one thread: the record is this file's. */
static struct {
    const struct transport_ops *real;
    struct heard *h;
    size_t n, cap;
} rec;

static double window_of(const struct flow *f, enum cc_kind cc)
{
    switch (cc) {
    case CC_HPCC:
        return f->cc.hpcc.w;
    case CC_NSCC:
        return f->cc.nscc.cwnd;
    case CC_SWIFT:
        return f->cc.swift.fcwnd < f->cc.swift.ecwnd ? f->cc.swift.fcwnd : f->cc.swift.ecwnd;
    default:
        return f->cc.tcp.cwnd;
    }
}

static void rec_on_ack(struct pnet *n, struct flow *f, uint32_t psn)
{
    uint64_t rtt = 0;
    if (n->side && psn) {
        const struct side_slot *sl = pnet_side(n, f, psn - 1);
        rtt = sl->psn == psn - 1 ? n->now - sl->sent_ps : 0;
    }
    rec.real->on_ack(n, f, psn);
    if (rec.n == rec.cap) {
        rec.cap = rec.cap ? 2 * rec.cap : 4096;
        rec.h = realloc(rec.h, rec.cap * sizeof *rec.h);
        if (!rec.h)
            abort();
    }
    rec.h[rec.n++] = (struct heard){n->now, rtt, f->id, psn, window_of(f, rec.real->cc)};
}

/* sc's run under the real transport with on_ack recorded; the record is
 * the caller's (free it). */
static int recorded_run(const struct scenario *sc, struct results *r, struct heard **h,
                        size_t *nh)
{
    struct err e = {{0}};
    struct scenario s = *sc;
    CHECKF(scenario_resolve(&s, &e) == 0, "%s", e.msg);
    struct test_built b;
    if (test_build_ok(&b, &s) < 0) {
        arena_release(&b.a);
        return -1;
    }
    memset(&rec, 0, sizeof rec);
    rec.real = transport_of(s.transport.cc);
    struct transport_ops ops = *rec.real;
    ops.on_ack = rec_on_ack;
    memset(r, 0, sizeof *r);
    int rc = pkt_run_transport(&s, &b.t, &b.w, r, &ops, &e);
    CHECKF(rc == 0, "%s", e.msg);
    arena_release(&b.a);
    *h = rec.h;
    *nh = rec.n;
    return rc;
}

/* One writer, one storage node, every link at 400G (a 98-byte ACK
 * serialises in a whole number of picoseconds: no carry to differ by). */
static void single(struct scenario *sc, const char *cc, const char *protocol)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=1");
    test_set(sc, "storage.nodes=1");
    test_set(sc, "workload.bytes_per_writer=2MB");
    test_set(sc, "transport.protocol=%s", protocol);
    test_set(sc, "transport.cc=%s", cc);
}

/* Direct and fabric ACKs of one unloaded flow: the same ACKs at the same
 * picoseconds, the same RTTs and windows after each, the same completion;
 * direct with fewer events (its ACKs cross no port). */
static void same_on_idle(const char *cc, const char *protocol)
{
    struct scenario sc;
    single(&sc, cc, protocol);
    struct results rf, rd;
    struct heard *hf = NULL, *hd = NULL;
    size_t nf = 0, nd = 0;
    test_set(&sc, "transport.ack_path=fabric");
    CHECK(recorded_run(&sc, &rf, &hf, &nf) == 0);
    test_set(&sc, "transport.ack_path=direct");
    CHECK(recorded_run(&sc, &rd, &hd, &nd) == 0);
    CHECKF(rf.ok && rd.ok, "%s: %s / %s", cc, rf.violation, rd.violation);
    CHECKF(nf > 50 && nf == nd, "%s: %zu ACKs through the fabric, %zu direct", cc, nf, nd);
    size_t bad = 0, first = 0, rtts = 0;
    for (size_t i = 0; i < nf && i < nd; i++) {
        rtts += hf[i].rtt != 0;
        if (memcmp(&hf[i], &hd[i], sizeof hf[i]) != 0 && !bad++)
            first = i;
    }
    CHECKF(!bad, "%s: %zu of %zu ACKs differ, first #%zu: fabric t %llu psn %u rtt %llu w %.9g, "
                 "direct t %llu psn %u rtt %llu w %.9g", cc, bad, nf, first,
           (unsigned long long)hf[first].t, hf[first].psn, (unsigned long long)hf[first].rtt,
           hf[first].w, (unsigned long long)hd[first].t, hd[first].psn,
           (unsigned long long)hd[first].rtt, hd[first].w);
    if (transport_of(sc.transport.cc)->side)
        CHECKF(rtts == nf, "%s: %zu of %zu ACKs measured an RTT", cc, rtts, nf);
    CHECKF(rd.completion_s == rf.completion_s, "%s: direct %.15g s, fabric %.15g s", cc,
           rd.completion_s, rf.completion_s);
    CHECKF(rd.events < rf.events, "%s: %llu events direct, %llu through the fabric", cc,
           (unsigned long long)rd.events, (unsigned long long)rf.events);
    free(hf);
    free(hd);
    results_release(&rf);
    results_release(&rd);
}

static void ackpath_idle_hpcc(void) { same_on_idle("hpcc", "roce"); }
static void ackpath_idle_swift(void) { same_on_idle("swift", "roce"); }
static void ackpath_idle_nscc(void) { same_on_idle("nscc", "uec"); }
static void ackpath_idle_dctcp(void) { same_on_idle("dctcp", "tcp"); }
static void ackpath_idle_cubic(void) { same_on_idle("cubic", "tcp"); }

/* 8 writers into one storage node: the storage NIC's ACKs no longer queue
 * behind each other, so the completion moves, by less than 1%; both runs
 * keep their invariants, deliver every byte, and sit above the fluid
 * engine's max-min figure (optimistic for a window transport). */
static void incast8(const char *cc, const char *protocol)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=8");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "workload.bytes_per_writer=2MB");
    test_set(&sc, "transport.protocol=%s", protocol);
    test_set(&sc, "transport.cc=%s", cc);
    struct results rf, rd, fl;
    test_set(&sc, "transport.ack_path=fabric");
    CHECK(test_run(&sc, &rf) == 0);
    test_set(&sc, "transport.ack_path=direct");
    CHECK(test_run(&sc, &rd) == 0);
    test_set(&sc, "engine=fluid");
    CHECK(test_run(&sc, &fl) == 0);
    CHECKF(rf.ok && rd.ok, "%s: %s / %s", cc, rf.violation, rd.violation);
    CHECK(rf.finished && rd.finished && rd.bytes_delivered == rf.bytes_delivered);
    CHECKF(fabs(rd.completion_s / rf.completion_s - 1) < 0.01, "%s: direct %.9g s, fabric %.9g s",
           cc, rd.completion_s, rf.completion_s);
    CHECKF(fl.completion_s <= rd.completion_s && fl.completion_s <= rf.completion_s,
           "%s: fluid %.9g s, direct %.9g s, fabric %.9g s", cc, fl.completion_s,
           rd.completion_s, rf.completion_s);
    CHECKF(rd.events < rf.events, "%s: %llu events direct, %llu through the fabric", cc,
           (unsigned long long)rd.events, (unsigned long long)rf.events);
    results_release(&rf);
    results_release(&rd);
    results_release(&fl);
}

static void ackpath_incast8_hpcc(void) { incast8("hpcc", "roce"); }
static void ackpath_incast8_swift(void) { incast8("swift", "roce"); }
static void ackpath_incast8_nscc(void) { incast8("nscc", "uec"); }
static void ackpath_incast8_dctcp(void) { incast8("dctcp", "tcp"); }

/* auto: direct for the window transports on reverse paths of control
 * packets only; fabric for the rest, for a capture and for training on the
 * fabric; a choice stays a choice. */
static void ackpath_auto(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    CHECK(sc.transport.ack_path == ACK_AUTO);
    CHECK(!scenario_ack_direct(&sc)); /* cc none: no window */
    test_set(&sc, "transport.cc=dcqcn");
    CHECK(!scenario_ack_direct(&sc));
    const char *win[] = {"hpcc", "nscc", "swift", "dctcp", "cubic"};
    for (size_t i = 0; i < sizeof win / sizeof win[0]; i++) {
        test_set(&sc, "transport.cc=%s", win[i]);
        CHECKF(scenario_ack_direct(&sc), "%s", win[i]);
    }
    test_set(&sc, "telemetry.pcap.ports=storage0");
    CHECK(!scenario_ack_direct(&sc));
    test_set(&sc, "telemetry.pcap.ports=none");
    CHECK(scenario_ack_direct(&sc));
    test_set(&sc, "transport.ack_path=fabric");
    CHECK(!scenario_ack_direct(&sc));
    test_set(&sc, "transport.cc=none");
    test_set(&sc, "transport.ack_path=direct");
    CHECK(scenario_ack_direct(&sc));
}

/* describe's estimate reads each window transport's row by its ACK path:
 * events_scale[1] when auto sends its ACKs direct, [0] through the fabric,
 * and the direct figure is the lower (the ACKs' hops are gone). */
static void ackpath_estimate(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    double none = ckpt_pkt_events_per_packet(&sc, NULL);
    const char *win[] = {"hpcc", "nscc", "swift", "dctcp", "cubic"};
    for (size_t i = 0; i < sizeof win / sizeof win[0]; i++) {
        test_set(&sc, "transport.cc=%s", win[i]);
        const struct cc_scheme *row = cc_scheme(sc.transport.cc);
        test_set(&sc, "transport.ack_path=auto");
        double direct = ckpt_pkt_events_per_packet(&sc, NULL);
        test_set(&sc, "transport.ack_path=fabric");
        double fabric = ckpt_pkt_events_per_packet(&sc, NULL);
        CHECKF(direct == none * row->events_scale[1] && fabric == none * row->events_scale[0] &&
                   direct < fabric && direct <= 1.5 * none,
               "%s: %.3g direct, %.3g fabric, %.3g PFC-only", win[i], direct, fabric, none);
    }
}

SUITE(suite_ackpath) = {
    {"ackpath_idle_hpcc", ackpath_idle_hpcc},
    {"ackpath_idle_swift", ackpath_idle_swift},
    {"ackpath_idle_nscc", ackpath_idle_nscc},
    {"ackpath_idle_dctcp", ackpath_idle_dctcp},
    {"ackpath_idle_cubic", ackpath_idle_cubic},
    {"ackpath_incast8_hpcc", ackpath_incast8_hpcc},
    {"ackpath_incast8_swift", ackpath_incast8_swift},
    {"ackpath_incast8_nscc", ackpath_incast8_nscc},
    {"ackpath_incast8_dctcp", ackpath_incast8_dctcp},
    {"ackpath_auto", ackpath_auto},
    {"ackpath_estimate", ackpath_estimate},
    {0, 0},
};
