/* Ultra Ethernet (transport.protocol: uec): packet trimming, the uec
 * receiver's NACK of each trimmed packet and the sender's selective resend,
 * spraying by the sender's entropy values around failed links, and the
 * protocol row's defaults under the user's keys. */
#include <stdio.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/scenario/lbscheme.h"
#include "harness.h"
#include "support.h"

/* n writers of `bytes` each into one storage node under the uec row (PFC
 * off, spray, trimming), no congestion control: the incast trims. */
static void incast(struct scenario *sc, unsigned n, const char *bytes, const char *trim_at)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=%u", n);
    test_set(sc, "storage.nodes=1");
    test_set(sc, "workload.bytes_per_writer=%s", bytes);
    test_set(sc, "transport.protocol=uec");
    test_set(sc, "transport.cc=none"); /* the row's NSCC off: trimming alone */
    test_set(sc, "fabric.trim.threshold=%s", trim_at);
}

/* Every byte in exactly once (the invariants count trimmed payload). */
static void check_complete(const struct scenario *sc, const struct results *r, unsigned n,
                           const char *what)
{
    CHECKF(r->ok, "%s: %s", what, r->violation);
    CHECKF(r->flows_done == n, "%s: %u of %u transfers", what, r->flows_done, n);
    CHECKF(r->bytes_delivered == (uint64_t)n * sc->workload.bytes_per_writer,
           "%s: %llu B delivered", what, (unsigned long long)r->bytes_delivered);
}

/* 127:1 (small writes, so it runs in a second): switches trim, and every
 * trimmed packet is NACKed once and resent once, with no timeout and no
 * drop. Without a window congestion control (NSCC) the trimmed headers
 * and resends cost the bottleneck: completion stays under 1.6x the bound
 * here (149% measured; 100% once nothing trims). */
static void uec_incast_trims_nacked_resent(void)
{
    struct scenario sc;
    incast(&sc, 127, "256KB", "4MB");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    check_complete(&sc, &r, 127, "127:1");
    CHECK(r.uec && r.trimming);
    CHECKF(r.trims > 1000, "%llu trims", (unsigned long long)r.trims);
    CHECKF(r.trim_naks == r.trims && r.retx_packets == r.trims,
           "trims %llu, NACKs %llu, resent %llu", (unsigned long long)r.trims,
           (unsigned long long)r.trim_naks, (unsigned long long)r.retx_packets);
    CHECKF(r.timeouts == 0 && r.drops == 0, "%llu timeouts, %llu drops",
           (unsigned long long)r.timeouts, (unsigned long long)r.drops);
    /* each trim cut at most a packet's payload, and its resend put the
     * same bytes back */
    CHECK(r.trimmed_bytes > 0 && r.trimmed_bytes <= r.trims * sc.fabric.mtu);
    CHECK(r.retx_bytes == r.trimmed_bytes);
    CHECKF(r.completion_s < 1.6 * r.bound_s, "completion %g s, bound %g s", r.completion_s,
           r.bound_s);
    results_release(&r);
}

/* The same fabric with trimming off drops instead: the uec receiver does
 * not NAK a gap (spraying reorders), so the sender's timeout finds the
 * loss. The contrast to the test above. */
static void uec_trim_off_drops(void)
{
    struct scenario sc;
    incast(&sc, 16, "1MB", "0");
    test_set(&sc, "fabric.buffer=4MB");
    struct results on, off;
    CHECK(test_run(&sc, &on) == 0);
    test_set(&sc, "fabric.trim.enabled=false");
    CHECK(test_run(&sc, &off) == 0);
    check_complete(&sc, &on, 16, "trimming");
    check_complete(&sc, &off, 16, "dropping");
    CHECKF(on.trims > 0 && on.drops == 0 && on.timeouts == 0, "on: %llu trims, %llu drops",
           (unsigned long long)on.trims, (unsigned long long)on.drops);
    CHECKF(!off.trimming && off.trims == 0 && off.drops > 0 && off.timeouts > 0,
           "off: %llu drops, %llu timeouts", (unsigned long long)off.drops,
           (unsigned long long)off.timeouts);
    CHECKF(on.completion_s < off.completion_s, "trimming %g s, dropping %g s", on.completion_s,
           off.completion_s);
    results_release(&on);
    results_release(&off);
}

/* One compute leaf, 4 spines, 8 writers to a storage leaf. */
static void one_leaf(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=8");
    test_set(sc, "fabric.hosts_per_leaf=8");
    test_set(sc, "storage.nodes=2");
    test_set(sc, "fabric.spines=4");
    test_set(sc, "workload.bytes_per_writer=1MB");
    test_set(sc, "transport.protocol=uec");
}

/* Entropy spraying: a flow's packets take every uplink with 256 entropy
 * values, one uplink with one; with a leaf's uplink down, every flow sprays
 * over the three left and nothing reaches the dead link (a packet sent
 * into it is a drop and a violated invariant). */
static void uec_spray_avoids_failed_link(void)
{
    struct scenario sc;
    struct results r;
    one_leaf(&sc);
    CHECK(test_run(&sc, &r) == 0);
    check_complete(&sc, &r, 8, "all links");
    CHECKF(r.lb_paths_max == 4 && r.lb_paths_mean == 4.0, "%g uplinks per flow",
           r.lb_paths_mean);
    CHECK(r.entropies == 256);
    results_release(&r);

    test_set(&sc, "transport.uec.entropies=1");
    CHECK(test_run(&sc, &r) == 0);
    check_complete(&sc, &r, 8, "one entropy");
    CHECKF(r.lb_paths_max == 1, "%u uplinks", r.lb_paths_max);
    results_release(&r);

    one_leaf(&sc);
    test_set(&sc, "fabric.failed_link_names=cleaf0-spine1");
    CHECK(test_run(&sc, &r) == 0);
    check_complete(&sc, &r, 8, "a failed link");
    CHECKF(r.drops == 0, "%llu drops", (unsigned long long)r.drops);
    CHECKF(r.lb_paths_max == 3 && r.lb_paths_mean == 3.0, "%g uplinks per flow",
           r.lb_paths_mean);
    results_release(&r);
}

/* transport.protocol: uec brings its defaults; a key the user set wins;
 * a lossless UEC run (PFC on) neither drops nor trims. */
static void uec_protocol_defaults(void)
{
    struct scenario sc;
    struct results r;
    one_leaf(&sc);
    CHECK(test_run(&sc, &r) == 0);
    CHECK(r.uec && r.trimming && r.loss_recovery);
    CHECK(r.lb == LB_SPRAY && r.entropies == 256);
    results_release(&r);

    one_leaf(&sc);
    test_set(&sc, "fabric.pfc.enabled=true");
    test_set(&sc, "fabric.load_balancing=ecmp");
    CHECK(test_run(&sc, &r) == 0);
    check_complete(&sc, &r, 8, "lossless");
    CHECK(r.uec && !r.trimming && !r.loss_recovery && r.lb == LB_ECMP);
    CHECK(r.trims == 0 && r.drops == 0);
    results_release(&r);
}

/* Trimming needs a receiver that NACKs a trimmed packet: a RoCE receiver
 * would count its header as data. The message names the key set. */
static void uec_trim_needs_uec_receiver(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "fabric.pfc.enabled=false");
    test_set(&sc, "fabric.trim.enabled=true");
    struct err e = {0};
    CHECK(scenario_validate(&sc, &e) < 0);
    CHECKF(strstr(e.msg, "fabric.trim.enabled") != NULL && strstr(e.msg, "uec") != NULL, "%s",
           e.msg);

    scenario_defaults(&sc);
    test_set(&sc, "transport.protocol=uec");
    test_set(&sc, "transport.receiver=ooo");
    e = (struct err){0};
    CHECK(scenario_validate(&sc, &e) < 0);
    CHECKF(strstr(e.msg, "transport.receiver: packet trimming") != NULL, "%s", e.msg);
}

SUITE(suite_uec) = {
    {"uec_incast_trims_nacked_resent", uec_incast_trims_nacked_resent},
    {"uec_trim_off_drops", uec_trim_off_drops},
    {"uec_spray_avoids_failed_link", uec_spray_avoids_failed_link},
    {"uec_protocol_defaults", uec_protocol_defaults},
    {"uec_trim_needs_uec_receiver", uec_trim_needs_uec_receiver},
    {0, 0},
};
