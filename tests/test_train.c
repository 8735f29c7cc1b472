/* Training traffic: the bytes train.c generates from the plan, the refusals,
 * the step clock, the analytic ring time in both engines, and isolation
 * compared (physical, logical strict / DWRR, none). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/core/units.h"
#include "../src/cost/cost.h"
#include "../src/fluid/fluid.h"
#include "../src/pkt/engine.h"
#include "../src/topo/topo.h"
#include "../src/work/train.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

/* Build topology, checkpoint and training of sc into the caller's arena. */
static int build(struct scenario *sc, struct arena *a, struct topo *t, struct workload *w,
                 struct training *tr)
{
    struct err e = {""};
    struct scenario fab;
    int rc = scenario_resolve(sc, &e);
    workload_fabric(sc, &fab);
    if (rc == 0)
        rc = topo_build(t, &fab, a, &e);
    if (rc == 0)
        rc = workload_build(w, sc, t, a, &e);
    if (rc == 0)
        rc = train_build(tr, sc, t, w, a, &e);
    if (rc < 0)
        fprintf(stderr, "  build: %s\n", e.msg);
    w->train = tr->on ? tr : NULL;
    return rc;
}

static uint64_t flow_bytes(const struct training *tr, uint32_t src, uint32_t dst)
{
    for (uint32_t i = 0; i < tr->n; i++)
        if (tr->flows[i].src == src && tr->flows[i].dst == dst)
            return tr->flows[i].bytes;
    return 0;
}

/* Simple form: one ring over the nodes, S = gpus x grad_bytes per node. */
static void train_bytes_simple_ring(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=8");
    test_set(&sc, "training.traffic=collectives");
    test_set(&sc, "training.grad_bytes=1MB");
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct workload w;
    struct training tr;
    CHECK(build(&sc, &a, &t, &w, &tr) == 0);
    uint64_t hop = 2 * 7 * 8000000ull / 8; /* 2(D-1)/D x 8 GPUs x 1MB */
    CHECKF(tr.n == 8, "%u flows", tr.n);
    for (uint32_t k = 0; k < 8; k++)
        CHECKF(flow_bytes(&tr, k, (k + 1) % 8) == hop, "node %u: %llu", k,
               (unsigned long long)flow_bytes(&tr, k, (k + 1) % 8));
    CHECK(tr.bytes_per_step == 8 * hop && tr.dp_bytes == 8 * hop && !tr.pp_bytes);
    CHECK(tr.dp == 8 && tr.dp_nodes == 8);
    /* the engine estimate: steps x packets per step (14 MB: 3418 packets) */
    test_set(&sc, "training.steps=5");
    CHECK(build(&sc, &a, &t, &w, &tr) == 0);
    CHECKF(train_packets(&tr, 4096, 1.0) == 5.0 * 8 * 3418, "%.0f", train_packets(&tr, 4096, 1.0));
    test_set(&sc, "fabric.isolation=physical"); /* not on this fabric: nothing */
    test_set(&sc, "fabric.pfc.priorities=3"); /* only logical needs it */
    CHECK(build(&sc, &a, &t, &w, &tr) == 0 && train_packets(&tr, 4096, 1.0) == 0);
    test_set(&sc, "fabric.isolation=logical");
    test_set(&sc, "training.steps=0");
    /* two NICs per node: each half of it, rail to rail */
    test_set(&sc, "cluster.nics_per_node=2");
    CHECK(build(&sc, &a, &t, &w, &tr) == 0);
    CHECKF(tr.n == 16, "%u flows", tr.n);
    CHECK(flow_bytes(&tr, workload_nic_host(&sc, 0, 1), workload_nic_host(&sc, 1, 1)) == hop / 2);
    CHECK(tr.bytes_per_step == 8 * hop);
    arena_release(&a);
}

/* Model form, tp 4 on 8-GPU nodes: two DP ranks of a group per node, so a
 * flat ring (D = 8) and a hierarchical one (m = 4 nodes) differ; pipeline
 * activations go four nodes on, and back. */
static void train_bytes_model(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=8");
    test_set(&sc, "model.name=custom");
    test_set(&sc, "model.params=8000000000");
    test_set(&sc, "parallelism.tp=4");
    test_set(&sc, "parallelism.pp=2");
    test_set(&sc, "training.traffic=collectives");
    test_set(&sc, "training.activation_bytes=1MB");
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct workload w;
    struct training tr;
    CHECK(build(&sc, &a, &t, &w, &tr) == 0);
    /* S = 8e9 params x 2 B (bf16) / (4 x 2) = 2 GB per GPU */
    uint64_t S = 2000000000ull;
    CHECKF(tr.grad_bytes == S, "S %llu", (unsigned long long)tr.grad_bytes);
    CHECK(tr.dp == 8 && tr.dp_nodes == 4);
    /* stage 0 = nodes 0-3: 4 TP groups, each 2(8-1)/8 S, from node 0 to 1 */
    CHECKF(flow_bytes(&tr, 0, 1) == 4 * (2 * 7 * S / 8), "%llu",
           (unsigned long long)flow_bytes(&tr, 0, 1));
    CHECK(flow_bytes(&tr, 3, 0) == 4 * (2 * 7 * S / 8)); /* the ring closes */
    CHECK(flow_bytes(&tr, 0, 2) == 0);
    /* pipeline: 8 GPUs of node 0 -> node 4 and back, 1 MB each */
    CHECK(flow_bytes(&tr, 0, 4) == 8000000ull && flow_bytes(&tr, 4, 0) == 8000000ull);
    CHECK(tr.pp_bytes == 32 * 2 * 1000000ull); /* 32 GPU pairs, both ways */
    test_set(&sc, "training.collective=hierarchical");
    CHECK(build(&sc, &a, &t, &w, &tr) == 0);
    CHECK(flow_bytes(&tr, 0, 1) == 4 * (2 * 3 * S / 4));
    /* all-to-all: 1 MB per GPU over its group's 8 ranks; node 0 -> node 1:
     * 4 groups x 2 GPUs x 1 MB x 2/8 */
    test_set(&sc, "training.activation_bytes=0");
    test_set(&sc, "training.alltoall_bytes=1MB");
    test_set(&sc, "training.grad_bytes=8B");
    CHECK(build(&sc, &a, &t, &w, &tr) == 0);
    CHECKF(flow_bytes(&tr, 0, 2) == 4 * 2 * 1000000ull * 2 / 8, "%llu",
           (unsigned long long)flow_bytes(&tr, 0, 2));
    CHECK(tr.a2a_bytes == 8 * 3 * (4 * 2 * 1000000ull * 2 / 8));
    arena_release(&a);
}

static void train_refusals(void)
{
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    test_set(&sc, "training.traffic=collectives");
    CHECK(scenario_validate(&sc, &e) < 0 && strstr(e.msg, "training.grad_bytes"));
    test_set(&sc, "training.grad_bytes=1MB");
    test_set(&sc, "fabric.pfc.priorities=3,4");
    CHECKF(scenario_validate(&sc, &e) == 0, "%s", e.msg);
    test_set(&sc, "training.priority=3");
    CHECK(scenario_validate(&sc, &e) < 0 && strstr(e.msg, "training.priority") &&
          strstr(e.msg, "class of its own"));
    test_set(&sc, "training.priority=5");
    CHECK(scenario_validate(&sc, &e) < 0 && strstr(e.msg, "not lossless"));
    test_set(&sc, "fabric.isolation=none"); /* the checkpoint's class: fine */
    CHECKF(scenario_validate(&sc, &e) == 0, "%s", e.msg);
    /* a step too short for its own communication */
    test_set(&sc, "training.step_time=1us");
    struct results r;
    CHECK(ckpt_run(&sc, &r, &e) < 0 && strstr(e.msg, "training.step_time"));
}

/* Issue 25 item 14: collectives under the default logical isolation run
 * without editing fabric.pfc.priorities (training's class is made lossless);
 * an explicit list without it is still refused. */
static void train_default_lossless(void)
{
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    test_set(&sc, "training.traffic=collectives");
    test_set(&sc, "training.grad_bytes=1MB");
    CHECKF(scenario_validate(&sc, &e) == 0, "%s", e.msg);
    struct scenario eff = sc;
    CHECK(scenario_resolve(&eff, &e) == 0);
    CHECKF(!strcmp(eff.fabric.pfc_priorities, "3,4"), "%s", eff.fabric.pfc_priorities);
    CHECK(scenario_resolve(&eff, &e) == 0 && !strcmp(eff.fabric.pfc_priorities, "3,4"));
    test_set(&sc, "training.priority=1"); /* listed in order */
    eff = sc;
    CHECK(scenario_resolve(&eff, &e) == 0 && !strcmp(eff.fabric.pfc_priorities, "1,3"));
    /* untouched: PFC off, isolation none, no training traffic */
    test_set(&sc, "fabric.isolation=none");
    eff = sc;
    CHECK(scenario_resolve(&eff, &e) == 0 && !strcmp(eff.fabric.pfc_priorities, "3"));
    test_set(&sc, "fabric.isolation=logical");
    test_set(&sc, "fabric.pfc.enabled=false");
    eff = sc;
    CHECK(scenario_resolve(&eff, &e) == 0 && !strcmp(eff.fabric.pfc_priorities, "3"));
    test_set(&sc, "fabric.pfc.enabled=true");
    /* the user's own list stays, and is refused when training is not in it */
    test_set(&sc, "fabric.pfc.priorities=3");
    CHECK(scenario_validate(&sc, &e) < 0 && strstr(e.msg, "not lossless") &&
          strstr(e.msg, "fabric.pfc.priorities"));
    /* a run with the default class: training's packets are lossless */
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=8");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "fabric.hosts_per_leaf=4");
    test_set(&sc, "fabric.spines=4");
    test_set(&sc, "workload.bytes_per_writer=1MB");
    test_set(&sc, "training.traffic=collectives");
    test_set(&sc, "training.grad_bytes=1MB");
    test_set(&sc, "training.compute_time=50us");
    struct results r;
    int rc = ckpt_run(&sc, &r, &e);
    CHECKF(rc == 0 && r.ok, "%s", e.msg);
    CHECK(rc < 0 || r.drops == 0);
    if (rc == 0)
        results_release(&r);
}

/* The clock: a barrier per step; compute and communication overlap. */
static void train_clock_steps(void)
{
    struct training tr;
    memset(&tr, 0, sizeof tr);
    tr.on = tr.on_fabric = 1;
    tr.n = 2;
    tr.steps = 3;
    tr.compute_ps = 100;
    tr.lead_ps = 80; /* 20 ps of communication hidden */
    tr.comm0_ps = 50;
    tr.baseline_ps = 130;
    struct train_clock c;
    train_clock_init(&c, &tr);
    CHECK(c.next_ps == 80);
    CHECK(train_clock_start(&c, 80) == 2);
    CHECK(train_clock_done(&c, 100) == 0);
    CHECK(train_clock_done(&c, 130) == 1); /* step 0: 0 -> 130 */
    CHECK(c.n == 1 && fabs(c.step_s[0] - 130e-12) < 1e-20 && c.next_ps == 210);
    CHECK(train_clock_start(&c, 210) == 2);
    train_clock_done(&c, 215);
    train_clock_done(&c, 220); /* communication hidden: the compute ends at 230 */
    CHECK(c.n == 2 && fabs(c.step_s[1] - 100e-12) < 1e-20 && c.next_ps == 310);
    train_clock_start(&c, 310);
    train_clock_done(&c, 400);
    train_clock_done(&c, 500); /* slowed: 230 -> 500 */
    CHECK(c.n == 3 && fabs(c.step_s[2] - 270e-12) < 1e-20);
    CHECK(c.next_ps == UINT64_MAX); /* three steps asked */
    train_clock_release(&c);
    /* steps 0: until a step begins after the checkpoint's end */
    tr.steps = 0;
    train_clock_init(&c, &tr);
    train_clock_start(&c, 80);
    train_clock_done(&c, 90);
    train_clock_done(&c, 90);
    CHECK(c.next_ps != UINT64_MAX);
    train_clock_ckpt_end(&c, 150);
    train_clock_start(&c, c.next_ps); /* began at 100 < 150: one more */
    train_clock_done(&c, 190);
    train_clock_done(&c, 190);
    CHECK(c.next_ps != UINT64_MAX);
    train_clock_start(&c, c.next_ps); /* began at 200 >= 150: the last */
    train_clock_done(&c, 290);
    train_clock_done(&c, 290);
    CHECK(c.next_ps == UINT64_MAX && c.n == 3);
    train_clock_release(&c);
}

/* No checkpoint: a step's communication is the ring's 2(D-1)/D x S over
 * the NIC plus latency, within 2%, in both engines. 8 nodes on two leaves:
 * the ring crosses the spines twice. */
static void train_ring_time_analytic(void)
{
    for (int engine = 0; engine < 2; engine++) {
        struct scenario sc;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=8");
        test_set(&sc, "fabric.hosts_per_leaf=4");
        test_set(&sc, "fabric.spines=4");
        test_set(&sc, "training.traffic=collectives");
        test_set(&sc, "training.grad_bytes=2MB");
        test_set(&sc, "training.compute_time=10us");
        test_set(&sc, "training.steps=3");
        test_set(&sc, "fabric.pfc.priorities=3,4");
        struct arena a;
        arena_init(&a);
        struct topo t;
        struct workload w;
        struct training tr;
        CHECK(build(&sc, &a, &t, &w, &tr) == 0);
        w.n = 0; /* no checkpoint */
        w.total_bytes = 0;
        struct results r;
        struct err e = {""};
        memset(&r, 0, sizeof r);
        int rc = engine ? fluid_run(&sc, &t, &w, &r, &e) : pkt_run(&sc, &t, &w, &r, &e);
        CHECKF(rc == 0, "%s", e.msg);
        CHECKF(r.ok, "%s", r.violation);
        /* S = 8 GPUs x 2 MB; each node sends 2 x 7/8 S = 28 MB */
        double payload = 2.0 * 7 / 8 * 16e6;
        double wire = payload + ceil(payload / 4096) * 82;
        double ring = wire * 8 / 400e9;
        double want = ring + 4 * 1e-6 + 3 * 500e-9; /* 4 links, 3 switches: a few us */
        CHECKF(r.training.steps == 3, "%s: %u steps", engine ? "fluid" : "packet",
               r.training.steps);
        for (uint32_t s = 0; s < r.training.steps; s++)
            CHECKF(fabs(r.training.comm_s[s] - want) < 0.02 * want,
                   "%s step %u: comm %.6g s, ring %.6g s", engine ? "fluid" : "packet", s,
                   r.training.comm_s[s], want);
        CHECKF(fabs(r.training.baseline_step_s - (10e-6 + want)) < 0.02 * want,
               "baseline %.6g", r.training.baseline_step_s);
        CHECK(r.training.slowed == 0);
        results_release(&r);
        arena_release(&a);
    }
}

/* A synchronized incast to one storage node with small switch buffers (PFC
 * pauses reach the compute leaves) and a training ring across two leaves. */
static void contended(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=8");
    test_set(sc, "storage.nodes=1");
    test_set(sc, "fabric.hosts_per_leaf=4");
    test_set(sc, "fabric.spines=4");
    test_set(sc, "fabric.buffer=4MB");
    test_set(sc, "transport.qps_per_writer=4");
    test_set(sc, "workload.bytes_per_writer=16MB");
    test_set(sc, "training.traffic=collectives");
    test_set(sc, "training.grad_bytes=4MB");
    test_set(sc, "training.compute_time=50us");
    test_set(sc, "fabric.pfc.priorities=3,4");
}

struct iso_run {
    double slowdown, victim, completion, step_max, baseline;
    int ok;
};

static void iso_run(struct scenario *sc, const char *engine, const char *iso,
                    const char *sched, struct iso_run *o)
{
    struct results r;
    test_set(sc, "engine=%s", engine);
    test_set(sc, "fabric.isolation=%s", iso);
    test_set(sc, "fabric.scheduling=%s", sched);
    memset(o, 0, sizeof *o);
    if (test_run(sc, &r) < 0)
        return;
    o->ok = r.ok && r.finished && r.training.on;
    if (!r.ok)
        fprintf(stderr, "  %s %s %s: %s\n", engine, iso, sched, r.violation);
    o->slowdown = r.training.slowdown;
    o->victim = r.training.victim_paused_s;
    o->completion = r.completion_s;
    o->step_max = r.training.step_max_s;
    o->baseline = r.training.baseline_step_s;
    results_release(&r);
}

static void train_isolation_orderings(void)
{
    static const char *const engines[] = {"packet", "fluid"};
    for (int k = 0; k < 2; k++) {
        struct scenario sc;
        contended(&sc);
        struct iso_run phys, strict, dwrr, none, alone;
        iso_run(&sc, engines[k], "physical", "dwrr", &phys);
        iso_run(&sc, engines[k], "logical", "strict", &strict);
        iso_run(&sc, engines[k], "logical", "dwrr", &dwrr);
        iso_run(&sc, engines[k], "none", "dwrr", &none);
        test_set(&sc, "training.traffic=none");
        iso_run(&sc, engines[k], "logical", "dwrr", &alone);
        const char *en = engines[k];
        CHECKF(phys.ok && strict.ok && dwrr.ok && none.ok, "%s: a run failed", en);
        /* physical: exactly the baseline; the checkpoint as if alone */
        CHECKF(phys.slowdown == 0 && phys.step_max == phys.baseline, "%s: physical %.6g", en,
               phys.slowdown);
        CHECKF(phys.completion == alone.completion, "%s: %.9g vs %.9g", en, phys.completion,
               alone.completion);
        /* strict priority: training within 2% of its baseline, the
         * checkpoint pays */
        CHECKF(strict.step_max < 1.02 * strict.baseline, "%s: strict step %.6g vs %.6g", en,
               strict.step_max, strict.baseline);
        CHECKF(strict.completion > dwrr.completion && strict.completion > alone.completion,
               "%s: strict %.6g vs dwrr %.6g, alone %.6g", en, strict.completion,
               dwrr.completion, alone.completion);
        /* DWRR 1:1 between strict and none; the fluid, without queues and
         * pauses, gives training under none what the storage-bound
         * checkpoint leaves, as DWRR does */
        CHECKF(dwrr.slowdown > strict.slowdown &&
                   (k ? dwrr.slowdown <= none.slowdown * (1 + 1e-9) : dwrr.slowdown < none.slowdown),
               "%s: slowdown strict %.4g dwrr %.4g none %.4g", en, strict.slowdown,
               dwrr.slowdown, none.slowdown);
        if (k == 1) {
            /* writer NICs the bottleneck (8 storage nodes): 4 checkpoint
             * queue pairs take 4/5 of a NIC from a ring flow under none,
             * half under DWRR 1:1 */
            test_set(&sc, "training.traffic=collectives");
            test_set(&sc, "storage.nodes=8");
            test_set(&sc, "training.grad_bytes=1MB"); /* steps shorter than the write */
            iso_run(&sc, en, "logical", "dwrr", &dwrr);
            iso_run(&sc, en, "none", "dwrr", &none);
            CHECKF(dwrr.ok && none.ok && dwrr.slowdown < none.slowdown,
                   "fluid, NIC-bound: dwrr %.4g none %.4g", dwrr.slowdown, none.slowdown);
        }
        if (k == 0) { /* PFC victims: packet engine only */
            CHECKF(none.victim > 0, "none: victim %.6g", none.victim);
            CHECKF(strict.victim == 0 && dwrr.victim == 0, "logical: victim %.6g %.6g",
                   strict.victim, dwrr.victim);
        }
    }
}

/* fabric.mmu.pools under logical isolation, both classes lossless: with one
 * shared pool the checkpoint filling it lowers the dynamic threshold of
 * training's priority group too (XOFF on training's class: victim pauses);
 * per_class gives each lossless class its own pool and threshold. */
static void pools_run(struct scenario *sc, const char *pools, struct results *r)
{
    contended(sc);
    test_set(sc, "fabric.spines=2");
    test_set(sc, "fabric.buffer=8MB");
    test_set(sc, "fabric.mmu.alpha=8");
    test_set(sc, "training.alltoall_bytes=64KB"); /* training queues at the leaves */
    test_set(sc, "fabric.isolation=logical");
    test_set(sc, "fabric.mmu.pools=%s", pools);
    if (test_run(sc, r) < 0)
        memset(r, 0, sizeof *r);
    else if (!r->ok)
        fprintf(stderr, "  pools %s: %s\n", pools, r->violation);
}

static void train_pools_per_class(void)
{
    struct scenario sc;
    struct results sh, pc, again;
    pools_run(&sc, "shared", &sh);
    pools_run(&sc, "per_class", &pc);
    pools_run(&sc, "per_class", &again);
    CHECK(sh.ok && pc.ok && again.ok && sh.training.on && pc.training.on);
    CHECKF(sh.training.victim_paused_s > 0 && pc.training.victim_paused_s == 0,
           "victim shared %.6g s, per_class %.6g s", sh.training.victim_paused_s,
           pc.training.victim_paused_s);
    /* one pool; per_class: priority 3, priority 4, the lossy rest */
    CHECK(sh.n_buffer_pools == 1 && sh.buffer_pool[0].prio_mask == 0xff);
    CHECK(pc.n_buffer_pools == 3 && pc.buffer_pool[0].prio_mask == 1u << 3 &&
          pc.buffer_pool[1].prio_mask == 1u << 4 &&
          pc.buffer_pool[2].prio_mask == (0xffu & ~(3u << 3)));
    /* each class filled its own pool, none past it (alpha 8: by at most
     * a packet, which the engine's invariant also checks) */
    for (int k = 0; k < 2; k++)
        CHECKF(pc.buffer_pool[k].max_used > 0 && pc.buffer_pool[k].max_fraction <= 1.01,
               "pool %d: %llu B, %.4f", k, (unsigned long long)pc.buffer_pool[k].max_used,
               pc.buffer_pool[k].max_fraction);
    /* deterministic per seed */
    CHECK(pc.events == again.events && pc.completion_s == again.completion_s);
    for (int k = 0; k < 3; k++)
        CHECK(pc.buffer_pool[k].max_used == again.buffer_pool[k].max_used);
    results_release(&sh); /* zeroed when a run failed */
    results_release(&pc);
    results_release(&again);
}

/* Same seed, same run; training bytes add up per step. */
static void train_deterministic(void)
{
    struct scenario sc;
    contended(&sc);
    test_set(&sc, "fabric.isolation=none");
    struct results a, b;
    CHECK(test_run(&sc, &a) == 0 && test_run(&sc, &b) == 0);
    CHECK(a.training.steps == b.training.steps && a.training.steps > 0);
    for (uint32_t s = 0; s < a.training.steps && s < b.training.steps; s++)
        CHECK(a.training.step_s[s] == b.training.step_s[s]);
    CHECK(a.events == b.events && a.completion_s == b.completion_s);
    CHECK(a.training.bytes == (uint64_t)a.training.steps * a.training.bytes_per_step);
    CHECK(a.bytes_delivered == a.ckpt_bytes); /* the checkpoint's own, not training's */
    results_release(&a);
    results_release(&b);
}

/* Cost: an async drain that slows steps by 2 s per checkpoint on 1000
 * GPUs, 5 s stall, 1800 s interval, no failures; by hand. A sync write
 * (the stall is the whole write) charges no slowdown: GPUs do not step. */
static void train_cost_by_hand(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "failures.mtbf_per_gpu=0");
    test_set(&sc, "training.checkpoint_interval=1800s");
    test_set(&sc, "training.gpu_hour_cost=2");
    struct results r;
    memset(&r, 0, sizeof r);
    r.plan.gpus = 1000;
    r.plan.stall_ps = 5 * PS_PER_S;
    r.completion_s = 60;
    r.training.on = 1;
    r.training.lost_s = 2;
    cost_compute(&r, &sc);
    double cpd = 86400.0 / (1800 + 5 + 2);
    CHECKF(fabs(r.cost.checkpoints_per_day - cpd) < 1e-9 * cpd, "%.12g", r.cost.checkpoints_per_day);
    CHECK(r.cost.training_lost_s == 2);
    double gph = cpd * 2 * 1000 / 3600.0; /* 95.63 GPU-hours a day */
    CHECKF(fabs(r.cost.training_slowdown_gpu_hours_per_day - gph) < 1e-9 * gph, "%.12g",
           r.cost.training_slowdown_gpu_hours_per_day);
    CHECK(fabs(r.cost.training_slowdown_money_per_day - 2 * gph) < 1e-9 * gph);
    CHECK(fabs(r.cost.gpu_hours_per_day - cpd * 5 * 1000 / 3600.0) < 1e-9 * gph);
    CHECKF(fabs(r.cost.goodput - 1800.0 / 1807) < 1e-12, "goodput %.12g", r.cost.goodput);
    r.plan.stall_measured = 1; /* sync: the stall is the write, 60 s */
    cost_compute(&r, &sc);
    CHECK(r.cost.training_lost_s == 0 && r.cost.training_slowdown_gpu_hours_per_day == 0);
    CHECK(fabs(r.cost.goodput - 1800.0 / 1860) < 1e-12);
}

SUITE(suite_train) = {
    {"train_cost_by_hand", train_cost_by_hand},
    {"train_bytes_simple_ring", train_bytes_simple_ring},
    {"train_bytes_model", train_bytes_model},
    {"train_refusals", train_refusals},
    {"train_default_lossless", train_default_lossless},
    {"train_clock_steps", train_clock_steps},
    {"train_ring_time_analytic", train_ring_time_analytic},
    {"train_isolation_orderings", train_isolation_orderings},
    {"train_deterministic", train_deterministic},
    {"train_pools_per_class", train_pools_per_class},
    {0, 0},
};
