/* storage.protection: erasure-coded fragments and replica forwards as
 * transfers, counted by the engines, the bound and the restore. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/wire.h"
#include "../src/work/protect.h"
#include "harness.h"
#include "support.h"

#define MB UINT64_C(1000000)

/* 16 writers on 2 compute leaves, 4 spines, storage on leaves of its own. */
static void small(struct scenario *sc, uint32_t storage, uint32_t per_leaf)
{
    scenario_defaults(sc);
    sc->cluster.nodes = 16;
    sc->fabric.hosts_per_leaf = 8;
    sc->fabric.spines = 4;
    sc->storage.nodes = storage;
    sc->fabric.storage_per_leaf = per_leaf;
    sc->workload.bytes_per_writer = 8 * MB; /* a multiple of k = 8 */
    sc->checkpoint.phase = PHASE_SAVE;
}

/* Wire bytes of the built workload's transfers of one kind (-1: all),
 * and of those between two different leaves. */
static void kind_bytes(const struct test_built *b, const struct scenario *sc, int kind,
                       uint64_t *pay, uint64_t *wire, uint64_t *cross)
{
    *pay = *wire = *cross = 0;
    for (uint32_t i = 0; i < b->w.n; i++) {
        const struct transfer *x = &b->w.xfers[i];
        if (kind >= 0 && x->kind != kind)
            continue;
        uint64_t wb = wire_bytes(x->bytes, scenario_wire(sc));
        *pay += x->bytes;
        *wire += wb;
        if (b->t.nodes[x->src].leaf != b->t.nodes[x->dst].leaf)
            *cross += wb;
    }
}

/* ec 8+2: every file as 8 data + 2 parity fragments on 10 distinct
 * consecutive nodes; 1.25x the checkpoint on the fabric, exactly, on the
 * spines and storage-leaf downlinks too; the bound follows; packet and
 * fluid agree within 5%. */
static void protect_ec_8_2_fabric_bytes(void)
{
    struct scenario sc;
    small(&sc, 10, 5);
    /* 20 writers, 2 files a node unprotected: the storage NICs bind, evenly */
    sc.cluster.nodes = 20;
    sc.fabric.hosts_per_leaf = 10;
    sc.fabric.spines = 8;
    test_set(&sc, "storage.protection=ec");
    struct test_built b;
    if (test_build_ok(&b, &sc) < 0) {
        arena_release(&b.a);
        return;
    }
    uint64_t ckpt = 20 * 8 * MB;
    CHECK(b.w.n == 20 * 10);
    CHECK(b.w.total_bytes == ckpt * 5 / 4 && b.w.protect_bytes == ckpt / 4);
    CHECK(b.w.sum.bytes == ckpt && b.w.sum.protect_bytes == ckpt / 4);
    for (uint32_t i = 0; i + 10 <= b.w.n; i += 10) { /* a file's fragments */
        uint32_t seen = 0, parity = 0;
        for (uint32_t j = i; j < i + 10; j++) {
            const struct transfer *x = &b.w.xfers[j];
            CHECK(x->writer == b.w.xfers[i].writer && x->bytes == MB);
            seen |= 1u << (x->dst - b.t.first_storage);
            parity += x->kind == XFER_PARITY;
            /* consecutive from the file's start node */
            CHECK((x->dst + 10 - b.w.xfers[i].dst) % 10 == j - i);
        }
        CHECK(seen == 0x3FF && parity == 2);
    }
    uint64_t pay, wire, cross;
    kind_bytes(&b, &sc, -1, &pay, &wire, &cross);
    /* the restore reads the data fragments only */
    struct workload rw;
    struct err e = {""};
    CHECK(workload_build_restore(&rw, &b.w, &sc, &b.t, &b.a, &e) == 0);
    CHECK(rw.total_bytes == ckpt);
    arena_release(&b.a);

    struct results r, r0, rf;
    CHECK(test_run(&sc, &r) == 0);
    CHECK(r.ok && r.finished);
    CHECKF(r.bytes_delivered * 4 == ckpt * 5, "%llu", (unsigned long long)r.bytes_delivered);
    CHECK(r.bytes_sent == r.bytes_delivered && r.ckpt_bytes == pay);
    /* every fragment crosses a spine down to a storage leaf and its NIC */
    CHECKF(r.seg_tx_bytes[PATH_SPINE_DOWN] == wire && cross == wire, "%llu vs %llu",
           (unsigned long long)r.seg_tx_bytes[PATH_SPINE_DOWN], (unsigned long long)wire);
    CHECK(r.seg_tx_bytes[PATH_STORAGE_NIC] == wire);
    CHECK(r.completion_s >= r.bound_s);
    struct scenario s0 = sc;
    test_set(&s0, "storage.protection=none");
    CHECK(test_run(&s0, &r0) == 0);
    /* the storage NICs bind: 1.25x the bytes, ~1.25x the bound */
    CHECK(r.bound_limit == PATH_STORAGE_NIC && r0.bound_limit == PATH_STORAGE_NIC);
    CHECKF(r.bound_s / r0.bound_s > 1.2 && r.bound_s / r0.bound_s < 1.26, "%g / %g",
           r.bound_s, r0.bound_s);
    /* the summary's "protection limits": the bound without the parity */
    CHECKF(r.bound_unprotected_s > 0 && r.bound_s / r.bound_unprotected_s > 1.2,
           "%g without protection, %g with", r.bound_unprotected_s, r.bound_s);
    CHECK(r0.bound_unprotected_s == 0);
    struct scenario sf = sc;
    test_set(&sf, "engine=fluid");
    CHECK(test_run(&sf, &rf) == 0);
    CHECKF(fabs(rf.completion_s / r.completion_s - 1) < 0.05, "fluid %g packet %g",
           rf.completion_s, r.completion_s);
    CHECK(rf.bytes_delivered == r.bytes_delivered);
    results_release(&r);
    results_release(&r0);
    results_release(&rf);
}

/* replica 3: the primary forwards 2 copies to the next 2 nodes, on its
 * storage leaf: 2x the checkpoint east-west; the write ends once every
 * copy is in, not before the bound. */
static void protect_replica_3_east_west(void)
{
    struct scenario sc;
    small(&sc, 4, 4);
    test_set(&sc, "storage.protection=replica");
    struct test_built b;
    if (test_build_ok(&b, &sc) < 0) {
        arena_release(&b.a);
        return;
    }
    uint64_t ckpt = 16 * 8 * MB, pay, wire, cross;
    kind_bytes(&b, &sc, XFER_REPLICA, &pay, &wire, &cross);
    CHECK(pay == 2 * ckpt && cross == 0); /* east-west on the storage leaf */
    CHECK(b.w.total_bytes == 3 * ckpt && b.w.sum.bytes == ckpt);
    for (uint32_t i = 0; i < b.w.n; i++) {
        const struct transfer *x = &b.w.xfers[i];
        if (x->kind != XFER_REPLICA)
            continue;
        uint32_t fd = workload_feed(&b.w, i);
        CHECK(x->feed && fd >= 1 && fd <= i);
        const struct transfer *p = &b.w.xfers[fd - 1];
        CHECK(p->kind == XFER_DATA && x->src == p->dst && x->bytes == p->bytes);
        CHECK(x->dst != p->dst && b.t.nodes[x->src].kind == NODE_STORAGE);
    }
    struct workload rw;
    struct err e = {""};
    CHECK(workload_build_restore(&rw, &b.w, &sc, &b.t, &b.a, &e) == 0);
    CHECK(rw.total_bytes == ckpt); /* one replica read */
    arena_release(&b.a);
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECK(r.ok && r.finished);
    CHECK(r.bytes_delivered == 3 * ckpt);
    CHECKF(r.completion_s >= r.bound_s, "%g < bound %g", r.completion_s, r.bound_s);
    /* each node takes its third of the data and two thirds of copies: the
     * storage NIC's bound counts them all */
    double in = (double)3 * ckpt / 4 * 8 / 400e9;
    CHECKF(r.bound_s >= in, "bound %g below the storage NICs' %g", r.bound_s, in);
    results_release(&r);
}

/* Replicas on another storage leaf cross the spines. */
static void protect_replica_across_spines(void)
{
    struct scenario sc;
    small(&sc, 4, 1);
    test_set(&sc, "storage.protection=replica");
    test_set(&sc, "storage.replicas=2");
    struct test_built b;
    if (test_build_ok(&b, &sc) < 0) {
        arena_release(&b.a);
        return;
    }
    uint64_t pay, wire, cross, dp, dw, dc;
    kind_bytes(&b, &sc, XFER_REPLICA, &pay, &wire, &cross);
    kind_bytes(&b, &sc, XFER_DATA, &dp, &dw, &dc);
    CHECK(cross == wire && pay == dp);
    arena_release(&b.a);
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECK(r.ok && r.finished);
    CHECKF(r.seg_tx_bytes[PATH_SPINE_DOWN] == dw + wire, "%llu vs %llu",
           (unsigned long long)r.seg_tx_bytes[PATH_SPINE_DOWN], (unsigned long long)(dw + wire));
    CHECK(r.completion_s >= r.bound_s);
    results_release(&r);
}

/* Three tiers, storage spread over the pods: copies to the next node's
 * pod climb to the super-spines and down again. */
static void protect_replica_across_pods(void)
{
    struct scenario sc;
    test_small_clos(&sc);
    test_set(&sc, "fabric.storage_per_leaf=2");
    test_set(&sc, "fabric.storage_pods=spread");
    test_set(&sc, "workload.bytes_per_writer=4MB");
    test_set(&sc, "checkpoint.phase=save");
    test_set(&sc, "storage.protection=replica");
    test_set(&sc, "storage.replicas=2");
    struct test_built b;
    if (test_build_ok(&b, &sc) < 0) {
        arena_release(&b.a);
        return;
    }
    uint64_t xpod = 0, fwd_xpod = 0;
    for (uint32_t i = 0; i < b.w.n; i++) {
        const struct transfer *x = &b.w.xfers[i];
        const struct tnode *s = &b.t.nodes[b.t.nodes[x->src].leaf];
        const struct tnode *d = &b.t.nodes[b.t.nodes[x->dst].leaf];
        if (s->pod == d->pod)
            continue;
        uint64_t wb = wire_bytes(x->bytes, scenario_wire(&sc));
        xpod += wb;
        fwd_xpod += x->kind == XFER_REPLICA ? wb : 0;
    }
    CHECK(fwd_xpod > 0);
    arena_release(&b.a);
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECK(r.ok && r.finished && r.bytes_delivered == 2 * 16 * 4 * MB);
    CHECKF(r.seg_tx_bytes[PATH_SUPER_DOWN] == xpod, "%llu vs %llu",
           (unsigned long long)r.seg_tx_bytes[PATH_SUPER_DOWN], (unsigned long long)xpod);
    CHECK(r.completion_s >= r.bound_s);
    results_release(&r);
}

/* A forward sends only what its primary has received: a writer at a
 * quarter of the storage NICs' rate, its primary forwarding at full rate,
 * ends its copy after its last byte reached the primary (an unheld forward
 * would finish long before and leave the completion unchanged). */
static void protect_forward_waits_for_primary(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    sc.cluster.nodes = 1;
    sc.storage.nodes = 2;
    sc.storage.stripe_count = 1;
    sc.cluster.nic_bps = 100000000000ull;
    sc.workload.bytes_per_writer = 4 * MB;
    sc.checkpoint.phase = PHASE_SAVE;
    struct results r1, r2;
    CHECK(test_run(&sc, &r1) == 0);
    test_set(&sc, "storage.protection=replica");
    test_set(&sc, "storage.replicas=2");
    CHECK(test_run(&sc, &r2) == 0);
    CHECK(r1.ok && r2.ok && r2.bytes_delivered == 8 * MB);
    /* the copy's last packet leaves the primary after it arrived there:
     * at least its link to the leaf and the leaf's to the peer later */
    double hop = 2 * (double)sc.fabric.link_delay_ps / 1e12;
    CHECKF(r2.completion_s - r1.completion_s >= hop, "%.9f vs %.9f", r2.completion_s,
           r1.completion_s);
    /* ... and not much after: the copy streamed behind it */
    CHECKF(r2.completion_s < r1.completion_s * 1.05, "%.9f vs %.9f", r2.completion_s,
           r1.completion_s);
    results_release(&r1);
    results_release(&r2);
}

/* Inputs the protection cannot honour name their key. */
static void protect_refusals(void)
{
    struct scenario sc;
    struct test_built b;
    struct err e = {""};
    small(&sc, 4, 4);
    test_set(&sc, "storage.protection=ec"); /* 8+2 on 4 nodes */
    CHECK(test_build(&b, &sc, &e) == -1);
    CHECKF(strncmp(e.msg, "storage.ec_parity: ec 8+2 puts each file on 10", 46) == 0, "%s",
           e.msg);
    arena_release(&b.a);
    test_set(&sc, "storage.protection=replica");
    test_set(&sc, "storage.replicas=5");
    CHECK(test_build(&b, &sc, &e) == -1);
    CHECKF(strncmp(e.msg, "storage.replicas: 5 copies", 26) == 0, "%s", e.msg);
    arena_release(&b.a);
    test_set(&sc, "storage.replicas=2");
    test_set(&sc, "storage.stripe_count=2");
    CHECK(test_build(&b, &sc, &e) == -1);
    CHECKF(strncmp(e.msg, "storage.stripe_count: with storage.protection replica", 53) == 0,
           "%s", e.msg);
    arena_release(&b.a);
    test_set(&sc, "storage.stripe_count=1");
    test_set(&sc, "storage.placement=hash");
    CHECK(test_build(&b, &sc, &e) == -1);
    CHECKF(strncmp(e.msg, "storage.placement: hash", 23) == 0, "%s", e.msg);
    arena_release(&b.a);
    /* off: the transfers are the plain placement's, all data */
    small(&sc, 4, 4);
    CHECK(test_build_ok(&b, &sc) == 0);
    for (uint32_t i = 0; i < b.w.n; i++)
        CHECK(b.w.xfers[i].kind == XFER_DATA && b.w.xfers[i].feed == 0);
    CHECK(b.w.protect_bytes == 0);
    arena_release(&b.a);
}

SUITE(suite_protect) = {
    {"protect_ec_8_2_fabric_bytes", protect_ec_8_2_fabric_bytes},
    {"protect_replica_3_east_west", protect_replica_3_east_west},
    {"protect_replica_across_spines", protect_replica_across_spines},
    {"protect_replica_across_pods", protect_replica_across_pods},
    {"protect_forward_waits_for_primary", protect_forward_waits_for_primary},
    {"protect_refusals", protect_refusals},
    {NULL, NULL},
};
