/* UEC load balancing (transport.uec.lb): REPS recycles the entropies whose
 * ACKs came back unmarked and so moves a flow's packets off a slow path;
 * a resend never goes on the entropy its NACK says failed; oblivious
 * spraying stays what it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "harness.h"
#include "support.h"

/* 2 writers to 2 storage nodes over 4 spines, 8 MB each under the uec row
 * (NSCC, spray over 256 entropies, trimming). */
static void two_by_two(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=2");
    test_set(sc, "fabric.hosts_per_leaf=2");
    test_set(sc, "storage.nodes=2");
    test_set(sc, "fabric.spines=4");
    test_set(sc, "workload.bytes_per_writer=8MB");
    test_set(sc, "transport.protocol=uec");
    test_set(sc, "telemetry.ports=true");
}

/* The fabric of sc written to dir/slow.json with the cleaf0-spine1 link at
 * 100 of its 400 Gbps; path holds the file. 0 on success. The file is
 * written one link a line whatever the fabric's size (--topology-out
 * writes runs past 4,096 links), so the link has a line of its own. */
static int slow_uplink(struct scenario *sc, char *dir, char *path, size_t len)
{
    struct err e = {0};
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, len, "%s/slow.json", dir);
    if (test_export_topology(sc, path, 0, &e) < 0) {
        printf("    %s\n", e.msg);
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    if (n == sizeof text - 1)
        return -1; /* larger than this test's fabric */
    text[n] = 0;
    const char *link = "{\"a\": \"cleaf0\", \"b\": \"spine1\", \"speed\": \"400Gbps\"";
    char *at = strstr(text, link);
    if (!at)
        return -1;
    memcpy(strstr(at, "400Gbps"), "100Gbps", 7);
    f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    test_set(sc, "fabric.topology_file=%s", path);
    return 0;
}

/* The cleaf0 -> spine1 port among r's ports: a topology file numbers its
 * hosts, storage nodes, then switches in its order (cleaf0, sleaf0,
 * spine0, spine1: nodes 4 and 7 here; a port's peer is the port at the
 * link's other end); UINT32_MAX when not exactly one. */
static uint32_t slow_port(const struct results *r)
{
    uint32_t port = UINT32_MAX, found = 0;
    for (uint32_t p = 0; p < r->n_ports; p++)
        if (r->ports[p].seg == PATH_CLEAF_UP && r->ports[p].node == 4 &&
            r->ports[p].peer < r->n_ports && r->ports[r->ports[p].peer].node == 7) {
            port = p;
            found++;
        }
    return found == 1 ? port : UINT32_MAX;
}

/* One spine uplink at a quarter rate. Oblivious spraying puts a quarter of
 * the packets on it whatever its rate, and it sets the completion (313 us,
 * 184% of the bound measured); REPS recycles the entropies that came back
 * unmarked, which the slow path's rarely are (its echoes come late and
 * marked), and moves traffic off it: 179 us (105%), 1.7 MB over the slow
 * link against 3.8 MB. */
static void reps_moves_off_slow_uplink(void)
{
    struct scenario sc;
    char dir[] = "/tmp/ckptnet-reps-XXXXXX", path[64];
    two_by_two(&sc);
    CHECK(slow_uplink(&sc, dir, path, sizeof path) == 0);
    struct results obl, reps;
    CHECK(test_run(&sc, &obl) == 0);
    uint32_t slow = slow_port(&obl);
    CHECKF(slow != UINT32_MAX, "%u ports", obl.n_ports);
    test_set(&sc, "transport.uec.lb=reps");
    CHECK(test_run(&sc, &reps) == 0);
    CHECKF(obl.ok && reps.ok, "%s / %s", obl.violation, reps.violation);
    CHECK(obl.flows_done == 2 && reps.flows_done == 2);
    CHECK(!obl.reps && reps.reps);
    CHECK(obl.ev_recycled == 0 && obl.ev_explored == 0);
    CHECKF(reps.ev_recycled > reps.ev_explored, "%llu recycled, %llu explored",
           (unsigned long long)reps.ev_recycled, (unsigned long long)reps.ev_explored);
    if (slow < obl.n_ports && slow < reps.n_ports) {
        uint64_t o = obl.ports[slow].tx_bytes, r = reps.ports[slow].tx_bytes;
        /* oblivious: about its quarter of 16 MB */
        CHECKF(o > 3500000 && o < 4500000, "oblivious: %llu B over the slow link",
               (unsigned long long)o);
        CHECKF(r < o * 6 / 10, "reps %llu B over the slow link, oblivious %llu B",
               (unsigned long long)r, (unsigned long long)o);
    }
    CHECKF(obl.completion_s > 1.6 * obl.bound_s, "oblivious: %g s, bound %g s",
           obl.completion_s, obl.bound_s);
    CHECKF(reps.completion_s < 1.15 * reps.bound_s, "reps: %g s, bound %g s",
           reps.completion_s, reps.bound_s);
    results_release(&obl);
    results_release(&reps);
    unlink(path);
    rmdir(dir);
}

/* 127:1 (the uec incast of test_uec.c): every trimmed packet is NACKed and
 * resent, and no resend goes on the entropy its NACK echoed (before the
 * fix a resend took its PSN's entropy again: every resend counted here),
 * oblivious or REPS; every byte arrives once with no timeout. */
static void resend_leaves_failed_entropy(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=127");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "workload.bytes_per_writer=256KB");
    test_set(&sc, "transport.protocol=uec");
    test_set(&sc, "transport.cc=none");
    test_set(&sc, "fabric.trim.threshold=4MB");
    for (int reps = 0; reps < 2; reps++) {
        test_set(&sc, "transport.uec.lb=%s", reps ? "reps" : "oblivious");
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok && r.flows_done == 127, "%s: %u done, %s", reps ? "reps" : "oblivious",
               r.flows_done, r.violation);
        CHECKF(r.trims > 1000 && r.retx_packets >= r.trims, "%llu trims, %llu resent",
               (unsigned long long)r.trims, (unsigned long long)r.retx_packets);
        CHECKF(r.ev_resend_same == 0, "%s: %llu of %llu resends on the failed entropy",
               reps ? "reps" : "oblivious", (unsigned long long)r.ev_resend_same,
               (unsigned long long)r.retx_packets);
        CHECK(r.timeouts == 0);
        CHECK(r.bytes_delivered == 127 * sc.workload.bytes_per_writer);
        results_release(&r);
    }
}

/* Oblivious is the default and what an unset key ran before: the same
 * JSON; REPS without the uec receiver, or with more entropies than its
 * 8 bits carry, is refused naming the key. */
static void oblivious_default_and_reps_limits(void)
{
    struct scenario sc;
    two_by_two(&sc);
    test_set(&sc, "workload.bytes_per_writer=1MB");
    struct results a, b;
    CHECK(test_run(&sc, &a) == 0);
    test_set(&sc, "transport.uec.lb=oblivious");
    CHECK(test_run(&sc, &b) == 0);
    char *ja = test_json(&sc, &a), *jb = test_json(&sc, &b);
    CHECK(ja && jb && !strcmp(ja, jb));
    free(ja);
    free(jb);
    results_release(&a);
    results_release(&b);

    struct err e = {0};
    test_set(&sc, "transport.uec.lb=reps");
    test_set(&sc, "transport.uec.entropies=1024");
    CHECK(scenario_validate(&sc, &e) < 0);
    CHECKF(strstr(e.msg, "transport.uec.entropies") && strstr(e.msg, "1 to 256"), "%s", e.msg);
    two_by_two(&sc);
    test_set(&sc, "transport.uec.lb=reps");
    test_set(&sc, "fabric.trim.enabled=false");
    test_set(&sc, "transport.receiver=ooo");
    e = (struct err){0};
    CHECK(scenario_validate(&sc, &e) < 0);
    CHECKF(strstr(e.msg, "transport.uec.lb") && strstr(e.msg, "reps needs transport.receiver: uec"), "%s", e.msg);
}

/* The slow uplink of reps_moves_off_slow_uplink on a lossless class (PFC
 * on: nothing trims, no loss recovery): the uec receiver still echoes
 * every ack_bytes of arrivals under REPS, so REPS recycles there too
 * (before, no echo came back: every packet explored, 3908 of 3908, and the
 * slow link carried its quarter, 313 us as oblivious); measured 178.7 us
 * (105%), 3421 packets on recycled entropies. */
static void reps_lossless_moves_off_slow_uplink(void)
{
    struct scenario sc;
    char dir[] = "/tmp/ckptnet-reps-XXXXXX", path[64];
    two_by_two(&sc);
    test_set(&sc, "fabric.pfc.enabled=true");
    CHECK(slow_uplink(&sc, dir, path, sizeof path) == 0);
    struct results obl, reps;
    CHECK(test_run(&sc, &obl) == 0);
    uint32_t slow = slow_port(&obl);
    CHECKF(slow != UINT32_MAX, "%u ports", obl.n_ports);
    test_set(&sc, "transport.uec.lb=reps");
    CHECK(test_run(&sc, &reps) == 0);
    CHECKF(obl.ok && reps.ok, "%s / %s", obl.violation, reps.violation);
    CHECK(obl.flows_done == 2 && reps.flows_done == 2);
    /* lossless: no loss recovery, no trimming, nothing resent */
    CHECK(!reps.loss_recovery && !reps.trimming && reps.retx_packets == 0);
    CHECKF(reps.ev_recycled > reps.ev_explored, "%llu recycled, %llu explored",
           (unsigned long long)reps.ev_recycled, (unsigned long long)reps.ev_explored);
    if (slow < obl.n_ports && slow < reps.n_ports) {
        uint64_t o = obl.ports[slow].tx_bytes, r = reps.ports[slow].tx_bytes;
        CHECKF(o > 3500000 && o < 4500000, "oblivious: %llu B over the slow link",
               (unsigned long long)o);
        CHECKF(r < o * 6 / 10, "reps %llu B over the slow link, oblivious %llu B",
               (unsigned long long)r, (unsigned long long)o);
    }
    CHECKF(obl.completion_s > 1.6 * obl.bound_s, "oblivious: %g s, bound %g s",
           obl.completion_s, obl.bound_s);
    CHECKF(reps.completion_s < 1.15 * reps.bound_s, "reps: %g s, bound %g s",
           reps.completion_s, reps.bound_s);
    results_release(&obl);
    results_release(&reps);
    unlink(path);
    rmdir(dir);
}

SUITE(suite_reps) = {
    {"reps_moves_off_slow_uplink", reps_moves_off_slow_uplink},
    {"reps_resend_leaves_failed_entropy", resend_leaves_failed_entropy},
    {"reps_oblivious_default_and_limits", oblivious_default_and_reps_limits},
    {"reps_lossless_moves_off_slow_uplink", reps_lossless_moves_off_slow_uplink},
    {NULL, NULL},
};
