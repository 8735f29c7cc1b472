/* storage.protection chain (CRAQ): hops node to node, the tail's ack back;
 * restores that read from every replica; reads as requests. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/wire.h"
#include "../src/work/protect.h"
#include "harness.h"
#include "support.h"

#define MB UINT64_C(1000000)

/* One writer at 100 Gbps into 3 storage nodes of 400 Gbps, each on a
 * storage leaf of its own: every copy crosses the spines, and the storage
 * NICs have room to forward at the writer's pace. */
static void one_writer(struct scenario *sc, const char *protection)
{
    scenario_defaults(sc);
    sc->cluster.nodes = 1;
    sc->storage.nodes = 3;
    sc->fabric.storage_per_leaf = 1;
    sc->storage.stripe_count = 1;
    sc->cluster.nic_bps = 100000000000ull;
    sc->workload.bytes_per_writer = 4 * MB;
    sc->checkpoint.phase = PHASE_SAVE;
    test_set(sc, "storage.protection=%s", protection);
    test_set(sc, "storage.replicas=3");
}

/* chain 3: each data transfer's 2 hops go head -> middle -> tail, each
 * from the NIC the copy before arrived on and fed by it; the bytes are
 * those of replica 3 exactly (2x the checkpoint east-west, all across the
 * spines here). */
static void craq_chain_hops_and_bytes(void)
{
    struct scenario sc;
    one_writer(&sc, "chain");
    struct test_built b;
    if (test_build_ok(&b, &sc) < 0) {
        arena_release(&b.a);
        return;
    }
    uint64_t ckpt = 4 * MB, fwd = 0, fwd_wire = 0, data_wire = 0, cross = 0;
    uint32_t hops = 0;
    for (uint32_t i = 0; i < b.w.n; i++) {
        const struct transfer *x = &b.w.xfers[i];
        uint64_t wb = wire_bytes(x->bytes, scenario_wire(&sc));
        if (x->kind == XFER_DATA) {
            data_wire += wb;
            continue;
        }
        uint32_t fd = workload_feed(&b.w, i);
        CHECK(x->kind == XFER_REPLICA && x->feed && fd >= 1 && fd <= i);
        const struct transfer *p = &b.w.xfers[fd - 1];
        CHECK(x->src == p->dst && x->bytes == p->bytes && x->dst != p->dst);
        /* the second hop is fed by the first, not by the head's transfer */
        uint32_t pf = workload_feed(&b.w, fd - 1);
        if (p->kind == XFER_REPLICA)
            CHECK(pf >= 1 && b.w.xfers[pf - 1].kind == XFER_DATA &&
                  x->dst != b.w.xfers[pf - 1].dst);
        hops++;
        fwd += x->bytes;
        fwd_wire += wb;
        cross += b.t.nodes[x->src].leaf != b.t.nodes[x->dst].leaf ? wb : 0;
    }
    CHECKF(hops == 2 * (b.w.n / 3) && fwd == 2 * ckpt, "%u hops, %llu B", hops,
           (unsigned long long)fwd);
    CHECK(cross == fwd_wire && b.w.protect_bytes == 2 * ckpt && b.w.total_bytes == 3 * ckpt);
    arena_release(&b.a);
    for (int fl = 0; fl < 2; fl++) {
        test_set(&sc, "engine=%s", fl ? "fluid" : "packet");
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECK(r.ok && r.finished && r.bytes_delivered == 3 * ckpt);
        /* the spines' downlinks carry the data and both hops, exactly */
        CHECKF(r.segs[PATH_SPINE_DOWN].bytes == (double)(data_wire + fwd_wire),
               "%s: %.0f vs %llu", fl ? "fluid" : "packet", r.segs[PATH_SPINE_DOWN].bytes,
               (unsigned long long)(data_wire + fwd_wire));
        CHECK(r.completion_s >= r.bound_s);
        results_release(&r);
    }
}

/* The same write under replica 3 and chain 3, hops across the spines:
 * the primary's two copies go out side by side, the chain's one after the
 * other (the tail's a hop behind the middle's) and the write commits only
 * when the tail's ack is back at the head. So chain commits later, by at
 * least the extra hop's links and the ack's way back (packet engine); the
 * fluid engine runs the hops unheld and still adds the ack. */
static void craq_chain_commits_after_replica(void)
{
    for (int fl = 0; fl < 2; fl++) {
        struct scenario sr, sch;
        one_writer(&sr, "replica");
        one_writer(&sch, "chain");
        test_set(&sr, "engine=%s", fl ? "fluid" : "packet");
        test_set(&sch, "engine=%s", fl ? "fluid" : "packet");
        struct test_built b;
        if (test_build_ok(&b, &sch) < 0) {
            arena_release(&b.a);
            return;
        }
        uint64_t ack = 0;
        for (uint32_t i = 0; i < b.w.n; i++) {
            uint64_t a = protect_chain_ack_ps(&b.w, &sch, &b.t, i);
            ack = a > ack ? a : ack;
        }
        arena_release(&b.a);
        /* back over two hops of 4 links each (NIC, leaf, spine, leaf) */
        double link = (double)sch.fabric.link_delay_ps / 1e12;
        CHECKF((double)ack / 1e12 >= 8 * link, "ack %.9f s", (double)ack / 1e12);
        struct results rr, rc;
        CHECK(test_run(&sr, &rr) == 0);
        CHECK(test_run(&sch, &rc) == 0);
        CHECK(rr.ok && rc.ok && rr.finished && rc.finished);
        CHECK(rr.bytes_delivered == rc.bytes_delivered && rr.bytes_delivered == 12 * MB);
        double d = rc.completion_s - rr.completion_s;
        double need = (double)ack / 1e12 + (fl ? 0 : 4 * link); /* + the extra hop */
        CHECKF(d >= need * 0.999, "%s: chain %.9f replica %.9f: %.3g s later, want %.3g",
               fl ? "fluid" : "packet", rc.completion_s, rr.completion_s, d, need);
        /* ... and it stays a pipeline: not a second write's worth later */
        CHECKF(rc.completion_s < rr.completion_s * 1.05, "chain %.9f replica %.9f",
               rc.completion_s, rr.completion_s);
        results_release(&rr);
        results_release(&rc);
    }
}

/* A media-bound restore: 4 MB from one writer, each node's media at
 * 10 Gbps. replica 3 reads the primary copy only, chain 3 a third of it
 * from each replica: ~3x faster in both engines, the bound with it, and
 * the same bytes read. */
static void craq_chain_restore_reads_every_replica(void)
{
    double t[2][2], bound[2][2];
    uint64_t bytes[2][2];
    for (int fl = 0; fl < 2; fl++)
        for (int ch = 0; ch < 2; ch++) {
            struct scenario sc;
            one_writer(&sc, ch ? "chain" : "replica");
            test_set(&sc, "engine=%s", fl ? "fluid" : "packet");
            test_set(&sc, "restore.read_rate=10Gbps");
            sc.checkpoint.phase = PHASE_RESTORE;
            sc.restore.mode = RESTORE_OWN_FILES;
            struct results r;
            t[fl][ch] = bound[fl][ch] = 0;
            bytes[fl][ch] = 0;
            if (test_run(&sc, &r))
                continue;
            CHECKF(r.ok && r.finished, "%s", r.violation);
            t[fl][ch] = r.completion_s;
            bound[fl][ch] = r.bound_s;
            bytes[fl][ch] = r.bytes_delivered;
            CHECKF(r.bottleneck.seg == PATH_BACKEND, "bottleneck %d", r.bottleneck.seg);
            results_release(&r);
        }
    double media = 4e6 * 8 / 10e9; /* one node reads it all */
    for (int fl = 0; fl < 2; fl++) {
        const char *en = fl ? "fluid" : "packet";
        CHECKF(bytes[fl][0] == 4 * MB && bytes[fl][1] == 4 * MB, "%s: %llu %llu", en,
               (unsigned long long)bytes[fl][0], (unsigned long long)bytes[fl][1]);
        CHECKF(t[fl][0] >= media && t[fl][0] < media * 1.05, "%s replica %.9f", en, t[fl][0]);
        CHECKF(t[fl][1] >= media / 3 && t[fl][1] < media / 3 * 1.05, "%s chain %.9f", en,
               t[fl][1]);
        double x = t[fl][0] / t[fl][1], xb = bound[fl][0] / bound[fl][1];
        CHECKF(x > 2.85 && x < 3.05 && xb > 2.9 && xb < 3.05, "%s: %.3fx, bound %.3fx", en, x,
               xb);
    }
}

/* 2 ranks each read back 2 x 64 MiB from one 400G storage node over s3
 * (own_files): requests of 16 MiB, one at a time, max_outstanding 1. */
static void read_case(struct scenario *sc, const char *protocol, const char *lat)
{
    scenario_defaults(sc);
    sc->cluster.nodes = 2;
    sc->fabric.hosts_per_leaf = 2;
    sc->storage.nodes = 1;
    sc->fabric.storage_per_leaf = 1;
    sc->fabric.spines = 2;
    test_set(sc, "workload.bytes_per_writer=128MiB");
    test_set(sc, "checkpoint.phase=restore");
    test_set(sc, "restore.mode=own_files");
    test_set(sc, "storage.protocol=%s", protocol);
    test_set(sc, "storage.request_size=16MiB");
    test_set(sc, "storage.max_outstanding=1");
    if (strcmp(protocol, "none") != 0) {
        test_set(sc, "storage.requests_in_flight=1");
        test_set(sc, "storage.request_latency=%s", lat);
    }
}

/* A restore reads as requests: 8 GETs a rank at 10 ms, one at a time,
 * take at least 8 x 10 ms a rank in both engines (the bytes alone take
 * 5.4 ms); at 0 ms with slots for all of them the read is the
 * no-protocol one, within a packet. */
static void craq_restore_reads_as_requests(void)
{
    for (int fl = 0; fl < 2; fl++) {
        const char *en = fl ? "fluid" : "packet";
        struct scenario sc;
        struct results r, r0, rn;
        read_case(&sc, "s3", "10ms");
        test_set(&sc, "engine=%s", en);
        if (test_run(&sc, &r))
            continue;
        CHECKF(r.ok && r.finished, "%s: %s", en, r.violation);
        CHECKF(r.requests.on && r.requests.count == 16, "%s: %llu requests", en,
               (unsigned long long)r.requests.count);
        CHECKF(r.n_writer_s == 2, "%s: %u ranks", en, r.n_writer_s);
        for (uint32_t i = 0; i < r.n_writer_s; i++)
            CHECKF(r.writer_s[i] >= 8 * 10e-3, "%s: rank %u %.9f s", en, i, r.writer_s[i]);
        CHECKF(r.completion_s < 8 * 10e-3 + 2 * 5.4e-3, "%s: %.9f", en, r.completion_s);
        /* the bound has the last request's latency (no commit on a read) */
        CHECKF(r.bound_s >= 10e-3 + 5.4e-3 && r.bound_s < 20e-3 && r.completion_s >= r.bound_s,
               "%s: bound %.9f", en, r.bound_s);
        results_release(&r);
        read_case(&sc, "s3", "0");
        test_set(&sc, "storage.requests_in_flight=8"); /* all of a rank's: no wait */
        test_set(&sc, "engine=%s", en);
        if (test_run(&sc, &r0))
            continue;
        read_case(&sc, "none", NULL);
        test_set(&sc, "engine=%s", en);
        if (test_run(&sc, &rn)) {
            results_release(&r0);
            continue;
        }
        CHECK(r0.ok && rn.ok && r0.finished && rn.finished);
        /* a 4 KiB packet at 400 Gbps: 82 ns */
        CHECKF(fabs(r0.completion_s - rn.completion_s) <= 100e-9, "%s: %.9f vs %.9f", en,
               r0.completion_s, rn.completion_s);
        results_release(&r0);
        results_release(&rn);
    }
}

/* Chain refusals name their key, as replica's. */
static void craq_chain_refusals(void)
{
    struct scenario sc;
    struct test_built b;
    struct err e = {""};
    one_writer(&sc, "chain");
    test_set(&sc, "storage.replicas=4"); /* on 3 nodes */
    CHECK(test_build(&b, &sc, &e) == -1);
    CHECKF(strncmp(e.msg, "storage.replicas: 4 copies", 26) == 0, "%s", e.msg);
    arena_release(&b.a);
    one_writer(&sc, "chain");
    struct results r;
    test_set(&sc, "storage.protocol=nfs");
    test_set(&sc, "storage.max_outstanding=4");
    CHECK(ckpt_run(&sc, &r, &e) != 0);
    CHECKF(strstr(e.msg, "storage.protocol") && strstr(e.msg, "chain"), "%s", e.msg);
}

/* JSON: the protection's added bytes, those that go node to node, and
 * what a restore reads; absent without protection. */
static void craq_protection_fields(void)
{
    const char *prot[] = {"chain", "replica", "none"};
    const char *src[] = {"replicas", "primary", NULL};
    for (int k = 0; k < 3; k++) {
        struct scenario sc;
        one_writer(&sc, prot[k]);
        test_set(&sc, "engine=fluid");
        struct results r;
        if (test_run(&sc, &r))
            continue;
        char *doc = test_json(&sc, &r);
        json_t *root = doc ? json_loads(doc, 0, NULL) : NULL;
        CHECK(root != NULL);
        json_t *pb = test_json_at(root, "storage.protection_bytes");
        json_t *ew = test_json_at(root, "storage.protection_east_west_bytes");
        json_t *rs = test_json_at(root, "storage.restore_source");
        if (!src[k]) {
            CHECKF(!pb && !ew && !rs, "%s: fields without protection", prot[k]);
        } else {
            CHECKF(json_is_integer(pb) && json_integer_value(pb) == (json_int_t)(8 * MB) &&
                       json_is_integer(ew) && json_integer_value(ew) == (json_int_t)(8 * MB),
                   "%s: protection bytes", prot[k]);
            CHECKF(json_is_string(rs) && strcmp(json_string_value(rs), src[k]) == 0, "%s: %s",
                   prot[k], json_is_string(rs) ? json_string_value(rs) : "-");
        }
        json_decref(root);
        free(doc);
        results_release(&r);
    }
    /* ec: parity leaves the writers, nothing east-west */
    struct scenario sc;
    one_writer(&sc, "ec");
    test_set(&sc, "storage.ec_data=2");
    test_set(&sc, "storage.ec_parity=1");
    test_set(&sc, "engine=fluid");
    struct results r;
    if (test_run(&sc, &r))
        return;
    char *doc = test_json(&sc, &r);
    json_t *root = doc ? json_loads(doc, 0, NULL) : NULL;
    json_t *pb = test_json_at(root, "storage.protection_bytes");
    json_t *ew = test_json_at(root, "storage.protection_east_west_bytes");
    json_t *rs = test_json_at(root, "storage.restore_source");
    CHECKF(json_is_integer(pb) && json_integer_value(pb) == (json_int_t)(2 * MB), "ec parity");
    CHECK(json_is_integer(ew) && json_integer_value(ew) == 0);
    CHECK(json_is_string(rs) && strcmp(json_string_value(rs), "fragments") == 0);
    json_decref(root);
    free(doc);
    results_release(&r);
}

SUITE(suite_craq) = {
    {"craq_chain_hops_and_bytes", craq_chain_hops_and_bytes},
    {"craq_chain_commits_after_replica", craq_chain_commits_after_replica},
    {"craq_chain_restore_reads_every_replica", craq_chain_restore_reads_every_replica},
    {"craq_chain_refusals", craq_chain_refusals},
    {"craq_restore_reads_as_requests", craq_restore_reads_as_requests},
    {"craq_protection_fields", craq_protection_fields},
    {NULL, NULL},
};
