/* RCCC (transport.uec.rccc) in describe's estimate and auto's engine
 * choice: its credit packets and pacer wake-ups are events the estimate
 * counts, direct under transport.ack_path auto as a window transport's
 * ACKs, and a run fluid would take says it leaves RCCC out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../src/api/api.h"
#include "../src/api/ckpt.h"
#include "../src/report/report.h"
#include "harness.h"
#include "support.h"

static void uec(struct scenario *sc, const char *cc, int rccc, const char *ack_path)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=32");
    test_set(sc, "storage.nodes=2");
    test_set(sc, "workload.bytes_per_writer=2MB");
    test_set(sc, "transport.protocol=uec");
    test_set(sc, "transport.cc=%s", cc);
    test_set(sc, "transport.uec.rccc=%s", rccc ? "true" : "false");
    test_set(sc, "transport.ack_path=%s", ack_path);
    test_set(sc, "engine=packet");
}

/* Per packet: more with credits than without, credits direct cheaper than
 * through the fabric and under the 1.5x of the PFC-only figure,
 * and each small run's measured events within the estimate's spread (1.25x
 * up, as describe's range; 0.8x down). Before RCCC was counted the fabric
 * runs spent 1.85x (cc none) the estimate. */
static void rcccest_per_packet(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    double pfc = ckpt_pkt_events_per_packet(&sc, NULL);
    const char *cc[] = {"none", "nscc"}, *path[] = {"auto", "fabric"};
    for (int i = 0; i < 2; i++) {
        double epp[2] = {0, 0};
        for (int p = 0; p < 2; p++) {
            uec(&sc, cc[i], 0, path[p]);
            double off = ckpt_pkt_events_per_packet(&sc, NULL);
            uec(&sc, cc[i], 1, path[p]);
            double on = epp[p] = ckpt_pkt_events_per_packet(&sc, NULL);
            int d = p == 0;
            double want = ckpt_pkt_events_floor(&sc, NULL) *
                          (cc_scheme(sc.transport.cc)->events_scale[d] + rccc_events_scale[d] - 1);
            CHECKF(on > off && fabs(on - want) < 1e-9, "%s %s: %.3g on, %.3g off, row %.3g", cc[i],
                   path[p], on, off, want);
            struct ckpt_description desc;
            struct err e;
            CHECK(ckpt_describe(&sc, &desc, &e) == 0);
            struct results r;
            if (test_run(&sc, &r) != 0) {
                CHECK(0);
                continue;
            }
            double got = (double)r.events / desc.est_packets;
            CHECKF(got >= 0.8 * on && got <= 1.25 * on,
                   "%s %s: %.3g events a packet, estimate %.3g", cc[i], path[p], got, on);
            printf("  uec %s + rccc, ack_path %s: %.2f events a packet, estimate %.2f\n", cc[i],
                   path[p], got, on);
            results_release(&r);
        }
        CHECKF(epp[0] < epp[1] && epp[0] <= 1.5 * pfc, "%s: %.3g direct, %.3g fabric, %.3g PFC",
               cc[i], epp[0], epp[1], pfc);
    }
}

/* The engine auto picks for a uec run with or without credits, by
 * describe (no run). */
static int auto_engine(int rccc, double mb, char *reason, size_t n)
{
    struct scenario sc;
    uec(&sc, "nscc", rccc, "auto");
    test_set(&sc, "engine=auto");
    test_set(&sc, "cluster.nodes=1024");
    test_set(&sc, "storage.nodes=16");
    test_set(&sc, "fabric.allow_oversize=true");
    test_set(&sc, "workload.bytes_per_writer=%.0fMB", mb);
    struct ckpt_description d;
    struct err e;
    if (ckpt_describe(&sc, &d, &e) != 0) {
        CHECKF(0, "%s", e.msg);
        return -1;
    }
    if (reason)
        snprintf(reason, n, "%s", d.r.engine_reason);
    return d.engine;
}

/* At the largest burst auto leaves to the packet engine without credits
 * (bisected here), credits' events send it to fluid: before RCCC was
 * counted both ran on the packet engine. */
static void rcccest_auto_boundary(void)
{
    double lo = 1, hi = 1;
    while (auto_engine(0, hi, NULL, 0) == ENGINE_PACKET && hi < 1e6)
        lo = hi, hi *= 2;
    CHECKF(auto_engine(0, lo, NULL, 0) == ENGINE_PACKET && auto_engine(0, hi, NULL, 0) ==
               ENGINE_FLUID, "%.0f-%.0f MB", lo, hi);
    while (hi - lo > 1) {
        double mid = floor((lo + hi) / 2);
        if (auto_engine(0, mid, NULL, 0) == ENGINE_PACKET)
            lo = mid;
        else
            hi = mid;
    }
    char why[512];
    int eng = auto_engine(1, lo, why, sizeof why);
    CHECKF(eng == ENGINE_FLUID && strstr(why, "transport.uec.rccc"), "%.0f MB a writer: %s", lo,
           why);
}

/* auto: its count per packet is the estimate's with credits, and where
 * that count sends a run to the fluid engine the reason names RCCC among
 * what the figure ignores (optimistic, as NSCC). */
static void rcccest_auto(void)
{
    struct scenario sc;
    uec(&sc, "nscc", 1, "auto");
    test_set(&sc, "engine=auto");
    struct results r;
    if (test_run(&sc, &r) == 0) {
        char want[64];
        snprintf(want, sizeof want, "(%.3g per packet x ", ckpt_pkt_events_per_packet(&sc, NULL));
        CHECKF(r.engine == ENGINE_PACKET && strstr(r.engine_reason, want), "%s",
               r.engine_reason);
        results_release(&r);
    } else
        CHECK(0);
    test_set(&sc, "cluster.nodes=4096");
    test_set(&sc, "storage.nodes=64");
    test_set(&sc, "workload.bytes_per_writer=1GB");
    test_set(&sc, "fabric.allow_oversize=true");
    struct ckpt_description d;
    struct err e;
    CHECKF(ckpt_describe(&sc, &d, &e) == 0, "%s", e.msg);
    CHECKF(d.engine == ENGINE_FLUID && strstr(d.r.engine_reason, "transport.uec.rccc") &&
               strstr(d.r.engine_reason, "optimistic"),
           "%s", d.r.engine_reason);
}

const struct test suite_rcccest[] = {
    {"rcccest_per_packet", rcccest_per_packet},
    {"rcccest_auto", rcccest_auto},
    {"rcccest_auto_boundary", rcccest_auto_boundary},
    {0, 0},
};
