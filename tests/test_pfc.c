/* Tests of the correctness pass (pfc): each names the defect it guards. */
#include <math.h>
#include <string.h>

#include "../include/ckptnet.h"
#include "../src/pkt/pnet.h"
#include "harness.h"
#include "support.h"

static const uint64_t speeds[] = {100000000000ull, 400000000000ull, 800000000000ull};
static const uint32_t quantas[] = {1, 36029, 65535};

/* quanta x 512 bits at bps, in ps, rounded up; long double holds
 * quanta x 512 x 10^12 exactly (its mantissa is below 2^64). */
static uint64_t want_pause_ps(uint32_t quanta, uint64_t bps)
{
    long double ps = (long double)quanta * 512.0L * 1e12L / (long double)bps;
    return (uint64_t)ceill(ps);
}

/* Defect: quanta x 512 x 10^12 overflowed 64 bits above 36,028 quanta, so
 * the default 65,535 paused 37.8 us at 400G instead of 83.9 us. The pause a
 * received XOFF sets, and the refresh an XOFF sender arms, at three speeds. */
static void pfc_pause_length_exact(void)
{
    CHECK(want_pause_ps(65535, 400000000000ull) == 83884800); /* 83.8848 us */
    for (size_t s = 0; s < sizeof speeds / sizeof speeds[0]; s++)
        for (size_t k = 0; k < sizeof quantas / sizeof quantas[0]; k++) {
            uint64_t bps = speeds[s];
            uint32_t quanta = quantas[k];
            struct scenario sc;
            scenario_defaults(&sc);
            sc.fabric.pfc_quanta = quanta;
            sc.fabric.pfc_watchdog = 0;
            struct pnet n;
            memset(&n, 0, sizeof n);
            n.sc = &sc;
            n.now = 5000000;
            evq_init(&n.q);
            struct port ports[2];
            memset(ports, 0, sizeof ports);
            ports[0].bps = ports[1].bps = bps;
            ports[0].peer = 1;
            ports[1].peer = 0;
            ports[0].delay_ps = ports[1].delay_ps = 1000000;
            n.ports = ports;
            uint64_t want = want_pause_ps(quanta, bps);

            /* receiving side: the pause runs until now + quanta x 512 / bps */
            pfc_on_frame(&n, &ports[1], 3 | quanta << 8);
            CHECK(ports[1].paused == 1u << 3);
            CHECKF(ports[1].pause_end[3] - n.now == want,
                   "%llu G quanta %u: pause %llu ps, want %llu",
                   (unsigned long long)(bps / 1000000000), quanta,
                   (unsigned long long)(ports[1].pause_end[3] - n.now),
                   (unsigned long long)want);
            /* a frame carrying fewer quanta than configured scales too */
            pfc_on_frame(&n, &ports[1], 3 | 1u << 8);
            CHECK(ports[1].pause_end[3] - n.now == want_pause_ps(1, bps));

            /* sending side: XOFF refreshed at half the pause */
            evq_release(&n.q);
            evq_init(&n.q);
            pfc_send(&n, &ports[0], 3, 1);
            struct event ev;
            int refresh = 0;
            while (evq_pop(&n.q, &ev))
                if (ev.type == EV_PFC_REFRESH) {
                    refresh++;
                    CHECKF(ev.t - n.now == want / 2, "%llu G quanta %u: refresh after %llu ps",
                           (unsigned long long)(bps / 1000000000), quanta,
                           (unsigned long long)(ev.t - n.now));
                } else {
                    CHECK(ev.type == EV_PAUSE && ev.arg >> 8 == quanta);
                }
            CHECK(refresh == 1);
            evq_release(&n.q);
        }
}

/* An incast at pfc.quanta = q: every XOFF episode of length d sends
 * floor(d / (pause/2)) refreshes, so over all episodes the refreshes lie in
 * [paused / (pause/2) - episodes, paused / (pause/2)]. */
static void incast_refresh(uint32_t quanta)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=8");
    test_set(&sc, "fabric.hosts_per_leaf=8");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "fabric.storage_per_leaf=1");
    test_set(&sc, "fabric.spines=1");
    test_set(&sc, "fabric.buffer=4MB");
    test_set(&sc, "workload.bytes_per_writer=8MB");
    test_set(&sc, "fabric.pfc.quanta=%u", quanta);
    test_set(&sc, "sim.time_limit=20ms"); /* a flood of pauses fails, not hangs */
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECKF(r.ok, "%s", r.violation);
    double half = (double)want_pause_ps(quanta, 400000000000ull) / 2 / 1e12;
    double most = r.paused_s / half;
    CHECK(r.pause_frames > 0 && r.paused_s > 0);
    CHECKF((double)r.refresh_frames <= most + 1 &&
               (double)r.refresh_frames >= most - (double)r.pause_frames - 1,
           "quanta %u: %llu refreshes, %llu XOFF, paused %.6g s (half pause %.4g us)",
           quanta, (unsigned long long)r.refresh_frames, (unsigned long long)r.pause_frames,
           r.paused_s, half * 1e6);
    /* all 8 ports paused most of a 1.4 ms run: refreshes actually happened */
    CHECK(quanta < 60000 || r.refresh_frames > 0);
    CHECKF(r.events < 2000000, "quanta %u: %llu events", quanta, (unsigned long long)r.events);
    results_release(&r);
}

static void pfc_refresh_count(void)
{
    incast_refresh(65535);
    incast_refresh(36029);
    incast_refresh(4096);
}

SUITE(suite_pfc) = {
    {"pfc_pause_length_exact", pfc_pause_length_exact},
    {"pfc_refresh_count", pfc_refresh_count},
    {NULL, NULL},
};
