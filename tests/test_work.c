/* Workload model: checkpoint sizes, writer rules, striping, file creates,
 * policies and stragglers; policies end to end through ckpt_run. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/core/rng.h"
#include "../src/core/units.h"
#include "../src/topo/topo.h"
#include "../src/work/model.h"
#include "../src/work/plan.h"
#include "../src/work/protect.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

#define GIB 1073741824.0
#define TIB 1099511627776.0

/* A model-form scenario of `gpus` GPUs, 8 per node. */
static void model_sc(struct scenario *sc, int model, uint32_t gpus, uint32_t tp,
                     uint32_t pp, uint32_t zero, int rule)
{
    scenario_defaults(sc);
    sc->model.name = model;
    sc->cluster.gpus_per_node = gpus < 8 ? gpus : 8;
    sc->cluster.nodes = gpus / sc->cluster.gpus_per_node;
    sc->parallelism.tp = tp;
    sc->parallelism.pp = pp;
    sc->parallelism.zero_stage = zero;
    sc->checkpoint.writer_rule = rule;
}

static int plan_of(const struct scenario *sc, struct plan *p, struct arena *a)
{
    struct err e = {""};
    int rc = plan_build(p, sc, a, &e);
    if (rc)
        fprintf(stderr, "  plan_build: %s\n", e.msg);
    return rc;
}

static double skew_of(const struct plan *p)
{
    uint64_t mx = 0, sum = 0;
    for (uint32_t r = 0; r < p->ranks; r++) {
        sum += p->rank_bytes[r];
        if (p->rank_bytes[r] > mx)
            mx = p->rank_bytes[r];
    }
    return (double)mx / ((double)sum / p->ranks);
}

/* ---- sizes ------------------------------------------------------------- */

static void work_bytes_per_param(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    sc.model.name = MODEL_LLAMA3_70B;
    struct bytes_per_param b = model_bytes_per_param(&sc);
    /* bf16 weights 2 + fp32 master 4 + Adam m 4 + v 4 (docs/checkpoint.md) */
    CHECK(b.weights == 2 && b.optimizer == 12);
    sc.model.optimizer = OPT_SGD;
    b = model_bytes_per_param(&sc);
    CHECK(b.weights + b.optimizer == 10);
    sc.model.optimizer = OPT_ADAM;
    sc.model.master_dtype = DTYPE_NONE;
    b = model_bytes_per_param(&sc);
    CHECK(b.weights + b.optimizer == 10);
    /* DeepSeek-V3 keeps the Adam moments in bf16 unless told otherwise */
    sc.model.master_dtype = DTYPE_AUTO;
    sc.model.name = MODEL_DEEPSEEK_V3;
    b = model_bytes_per_param(&sc);
    CHECK(b.weights + b.optimizer == 10);
    sc.model.optimizer_dtype = DTYPE_FP32;
    b = model_bytes_per_param(&sc);
    CHECK(b.weights + b.optimizer == 14);
    sc.model.weights_dtype = DTYPE_FP8;
    b = model_bytes_per_param(&sc);
    CHECK(b.weights == 1);
}

/* MLPerf Storage v2.0 checkpointing table (docs/checkpoint.md): size, ranks,
 * TP x PP x DP, ZeRO. Sizes are DLIO's GiB/TiB. */
static void work_sizes_vs_mlperf(void)
{
    static const struct {
        int model;
        uint32_t gpus, tp, pp, zero;
        double mlperf_bytes, tol;
    } cases[] = {
        {MODEL_LLAMA3_8B, 8, 1, 1, 3, 105 * GIB, 0.02},
        {MODEL_LLAMA3_70B, 64, 8, 1, 3, 912 * GIB, 0.02},
        /* 405B: the real count (405.85e9 x 14 B = 5.17 TiB) is 2.3% below
         * MLPerf's 5.29 TiB: DLIO writes the embedding and output layer
         * from every tensor-parallel rank and splits the 126 layers over 32
         * stages with overlap, neither of which a real save does. */
        {MODEL_LLAMA3_405B, 512, 8, 32, 1, 5.29 * TIB, 0.025},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int rule = RULE_DCP; rule <= RULE_DEEPSPEED; rule++) {
            struct scenario sc;
            model_sc(&sc, cases[i].model, cases[i].gpus, cases[i].tp, cases[i].pp,
                     cases[i].zero, rule);
            struct arena a;
            arena_init(&a);
            struct plan p;
            CHECK(plan_of(&sc, &p, &a) == 0);
            double rel = (double)p.total_bytes / cases[i].mlperf_bytes - 1.0;
            CHECKF(fabs(rel) <= cases[i].tol, "case %zu rule %d: %.4g B is %+.2f%% off MLPerf",
                   i, rule, (double)p.total_bytes, 100 * rel);
            CHECK(p.total_bytes == model_params(&sc) * 14);
            CHECK(p.dp == cases[i].gpus / (cases[i].tp * cases[i].pp));
            arena_release(&a);
        }
    }
}

/* ---- writer rules ------------------------------------------------------ */

static void work_zero1_vs_zero3_writers_and_skew(void)
{
    /* DeepSpeed on Llama 3 70B, tp 8, dp 8 (docs/checkpoint.md): ZeRO-3 every
     * rank writes 1/N of everything; ZeRO-1/2 the weights once per model-
     * parallel rank (DP rank 0) and every rank its optimizer shard;
     * no ZeRO only the first replica. */
    struct scenario sc;
    struct arena a;
    struct plan p;
    const double w = 2, o = 12, dp = 8;
    static const struct {
        uint32_t zero, writers, files;
        double skew;
    } want[] = {
        {3, 64, 128, 1.0},
        {1, 64, 72, (8 * 2 + 12) / 14.0},
        {2, 64, 72, (8 * 2 + 12) / 14.0},
        {0, 8, 8, 8.0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        model_sc(&sc, MODEL_LLAMA3_70B, 64, 8, 1, want[i].zero, RULE_DEEPSPEED);
        arena_init(&a);
        CHECK(plan_of(&sc, &p, &a) == 0);
        CHECKF(p.writers == want[i].writers, "zero %u: %u writers", want[i].zero, p.writers);
        CHECKF(p.n_files == want[i].files, "zero %u: %u files", want[i].zero, p.n_files);
        CHECKF(fabs(skew_of(&p) - want[i].skew) < 1e-6, "zero %u: skew %.6f want %.6f",
               want[i].zero, skew_of(&p), want[i].skew);
        if (want[i].zero == 1) {
            /* the heavy writers are DP rank 0: ranks 0..7, all on node 0 */
            CHECK(p.rank_bytes[0] > p.rank_bytes[8]);
            CHECK(p.rank_bytes[7] == p.rank_bytes[0] || p.rank_bytes[7] + 1 >= p.rank_bytes[0]);
            double expect = (dp * w + o) / (w + o);
            CHECK(fabs(skew_of(&p) - expect) < 1e-6);
        }
        arena_release(&a);
    }
    /* Megatron spreads the replicated weights evenly whatever the stage */
    model_sc(&sc, MODEL_LLAMA3_70B, 64, 8, 1, 1, RULE_MEGATRON);
    arena_init(&a);
    CHECK(plan_of(&sc, &p, &a) == 0);
    CHECK(p.writers == 64 && skew_of(&p) < 1.0 + 1e-6);
    arena_release(&a);
    /* DCP without sharding deduplicates whole tensors over 8 DP ranks: all
     * write, skew above 1 but bounded by the largest tensor */
    model_sc(&sc, MODEL_LLAMA3_70B, 64, 8, 1, 0, RULE_DCP);
    arena_init(&a);
    CHECK(plan_of(&sc, &p, &a) == 0);
    CHECK(p.writers == 64);
    CHECKF(skew_of(&p) > 1.0 && skew_of(&p) < 1.05, "dcp zero 0 skew %.4f", skew_of(&p));
    arena_release(&a);
    /* ... and with more DP ranks (512) than tensors per model-parallel rank
     * (7 layers x 7 tensors x 4 states = 196) some ranks write nothing */
    model_sc(&sc, MODEL_LLAMA3_405B, 65536, 8, 16, 0, RULE_DCP);
    arena_init(&a);
    CHECK(plan_of(&sc, &p, &a) == 0);
    CHECKF(p.writers == 128 * 196 && skew_of(&p) > 2, "%u writers, skew %.3f", p.writers,
           skew_of(&p));
    arena_release(&a);
}

static void work_rules_conserve_bytes(void)
{
    static const uint32_t par[][3] = {{1, 1, 0}, {2, 2, 0}, {4, 1, 0}, {8, 4, 0}, {1, 2, 0}};
    for (int rule = RULE_DCP; rule <= RULE_DEEPSPEED; rule++)
        for (uint32_t z = 0; z <= 3; z++)
            for (size_t i = 0; i < sizeof par / sizeof par[0]; i++) {
                if (rule == RULE_DEEPSPEED && z == 3 && par[i][1] > 1)
                    continue;
                struct scenario sc;
                model_sc(&sc, MODEL_CUSTOM, 64, par[i][0], par[i][1], z, rule);
                sc.model.params = 1234567891; /* odd: remainders everywhere */
                sc.checkpoint.rank_state_bytes = 1000;
                struct arena a;
                arena_init(&a);
                struct plan p;
                CHECK(plan_of(&sc, &p, &a) == 0);
                uint64_t sum = 0, fsum = 0;
                for (uint32_t r = 0; r < p.ranks; r++)
                    sum += p.rank_bytes[r];
                for (uint32_t f = 0; f < p.n_files; f++)
                    fsum += p.files[f].bytes;
                uint64_t want = sc.model.params * 14 + 64 * 1000;
                CHECKF(sum == want && fsum == want && p.total_bytes == want,
                       "rule %d zero %u tp %u pp %u: %llu vs %llu", rule, z, par[i][0],
                       par[i][1], (unsigned long long)sum, (unsigned long long)want);
                arena_release(&a);
            }
    /* the dcp rule with a layer structure conserves too */
    struct scenario sc;
    model_sc(&sc, MODEL_LLAMA3_8B, 64, 2, 4, 0, RULE_DCP);
    struct arena a;
    arena_init(&a);
    struct plan p;
    CHECK(plan_of(&sc, &p, &a) == 0);
    CHECK(p.total_bytes == model_params(&sc) * 14);
    arena_release(&a);
}

/* ---- transfers --------------------------------------------------------- */

static void work_simple_form_unchanged(void)
{
    /* the simple form is exactly the original rule: writer i = node i
     * writes bytes_per_writer to storage node i mod M at a uniform offset
     * (storage.placement: file_mod; round_robin deals in start order) */
    struct scenario sc;
    scenario_defaults(&sc);
    sc.storage.placement = PLACE_FILE_MOD;
    sc.cluster.nodes = 40;
    sc.storage.nodes = 3;
    sc.workload.start_jitter_ps = 5000000;
    struct test_built b;
    CHECK(test_build_ok(&b, &sc) == 0);
    struct rng jit, qp;
    rng_init(&jit, sc.seed, RNG_JITTER);
    rng_init(&qp, sc.seed, RNG_QP);
    CHECK(b.w.n == 40 && b.w.n_writers == 40);
    for (uint32_t i = 0; i < b.w.n; i++) {
        const struct transfer *x = &b.w.xfers[i];
        CHECK(x->src == i && x->writer == i);
        CHECK(x->dst == b.t.first_storage + i % 3);
        CHECK(x->bytes == sc.workload.bytes_per_writer);
        CHECK(workload_start(&b.w, i) == rng_below(&jit, sc.workload.start_jitter_ps + 1));
        CHECK(x->sport == (uint16_t)(0xC000u | (rng_u64(&qp) & 0x3FFFu)));
        CHECK(workload_rate(&b.w, i) == 0);
    }
    CHECK(!b.w.xrate); /* none capped: no array */
    CHECK(b.w.sum.stall_measured && b.w.sum.files == 40);
    arena_release(&b.a);
}

/* Five writers into four storage nodes, each file in three stripes of
 * 1 MiB (the striping tests' fabric). */
static void stripes_of_five(struct scenario *sc)
{
    scenario_defaults(sc);
    sc->cluster.nodes = 5;
    sc->storage.nodes = 4;
    sc->storage.stripe_count = 3;
    sc->storage.stripe_size = 1 << 20;
}

/* A transfer's file and a forward's feed are not stored each (struct
 * transfer, 40 bytes): workload_file and workload_feed derive them from the
 * transfer's place, an array of files only where files and transfers are
 * not one to one. Checked against what the build knows: stripes i / 3 of
 * file i / 3; a forward's source is its feed's destination, its bytes and
 * file its feed's, of kind data for replicas and the hop before on a
 * chain; the restore's files are its readers. */
static void work_file_and_feed_follow_the_list(void)
{
    struct scenario sc;
    stripes_of_five(&sc);
    sc.workload.bytes_per_writer = 10 << 20;
    struct test_built b;
    CHECK(test_build_ok(&b, &sc) == 0);
    CHECK(b.w.n == 15 && b.w.xfile != NULL && b.w.n_files == 5);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < b.w.n; i++)
        bad += workload_file(&b.w, i) != i / 3 || workload_feed(&b.w, i) || b.w.xfers[i].feed;
    CHECKF(bad == 0, "%u transfers with a wrong file or feed", bad);
    /* the read back: a writer's stripes one file */
    struct workload rw;
    struct err e = {""};
    CHECK(workload_build_restore(&rw, &b.w, &sc, &b.t, &b.a, &e) == 0);
    bad = 0;
    for (uint32_t i = 0; i < rw.n; i++)
        bad += workload_file(&rw, i) != i / 3 || rw.xfers[i].writer != i / 3;
    CHECKF(rw.n == 15 && rw.n_files == 5 && bad == 0,
           "restore: %u of %u transfers with a wrong file", bad, rw.n);
    arena_release(&b.a);
    /* one stripe a file: transfer i carries file i, no array */
    sc.storage.stripe_count = 1;
    CHECK(test_build_ok(&b, &sc) == 0);
    CHECK(b.w.n == 5 && b.w.xfile == NULL);
    bad = 0;
    for (uint32_t i = 0; i < b.w.n; i++)
        bad += workload_file(&b.w, i) != i;
    CHECKF(bad == 0, "%u transfers with a wrong file", bad);
    arena_release(&b.a);
    /* replica 3 and chain 3, a file over 2 queue pairs: 2 forwards each */
    sc.transport.qps_per_writer = 2;
    for (int chain = 0; chain < 2; chain++) {
        test_set(&sc, "storage.protection=%s", chain ? "chain" : "replica");
        test_set(&sc, "storage.replicas=3");
        CHECK(test_build_ok(&b, &sc) == 0);
        CHECK(b.w.n == 30 && b.w.xfile != NULL);
        uint32_t fwd = 0;
        bad = 0;
        for (uint32_t i = 0; i < b.w.n; i++) {
            const struct transfer *x = &b.w.xfers[i];
            uint32_t fd = workload_feed(&b.w, i);
            if (x->kind == XFER_DATA) {
                bad += fd != 0 || x->feed || workload_file(&b.w, i) != i / 2;
                continue;
            }
            fwd++;
            if (!x->feed || fd < 1 || fd > i) {
                bad++;
                continue;
            }
            const struct transfer *p = &b.w.xfers[fd - 1];
            uint32_t pf = workload_feed(&b.w, fd - 1);
            /* a chain's second hop is fed by its first */
            int hop2 = chain && p->kind == XFER_REPLICA;
            bad += x->src != p->dst || x->bytes != p->bytes ||
                   workload_file(&b.w, i) != workload_file(&b.w, fd - 1) ||
                   (p->kind != XFER_DATA && !hop2) ||
                   (hop2 && (pf < 1 || b.w.xfers[pf - 1].kind != XFER_DATA));
        }
        CHECKF(fwd == 20 && bad == 0, "%s: %u forwards, %u wrong", chain ? "chain" : "replica",
               fwd, bad);
        arena_release(&b.a);
    }
}

/* A writer's rank: no array when every rank writes (writer i is rank i),
 * the plan's ranks in order otherwise. Checked against the plan: the
 * ranks with bytes, and each transfer leaving its rank's node. */
static void work_writer_rank_without_array(void)
{
    for (uint32_t zero = 0; zero <= 3; zero += 3) {
        struct scenario sc;
        model_sc(&sc, MODEL_LLAMA3_70B, 64, 8, 1, zero, RULE_DEEPSPEED);
        struct arena a;
        struct plan p;
        arena_init(&a);
        CHECK(plan_of(&sc, &p, &a) == 0);
        struct test_built b;
        CHECK(test_build_ok(&b, &sc) == 0);
        CHECKF(b.w.n_writers == (zero ? 64u : 8u) && (b.w.writer_rank == NULL) == (zero == 3),
               "zero %u: %u writers, array %d", zero, b.w.n_writers, b.w.writer_rank != NULL);
        uint32_t bad = 0, k = 0;
        for (uint32_t r = 0; r < p.ranks; r++)
            if (p.rank_bytes[r])
                bad += k >= b.w.n_writers || workload_writer_rank(&b.w, k++) != r;
        bad += k != b.w.n_writers;
        for (uint32_t i = 0; i < b.w.n; i++)
            bad += b.w.xfers[i].src != workload_writer_rank(&b.w, b.w.xfers[i].writer) / 8;
        CHECKF(bad == 0, "zero %u: %u writers or transfers off their rank", zero, bad);
        arena_release(&b.a);
        arena_release(&a);
    }
}

static void work_striping(void)
{
    struct scenario sc;
    stripes_of_five(&sc);
    sc.storage.placement = PLACE_FILE_MOD; /* home f mod M */
    sc.workload.bytes_per_writer = (10 << 20) + (1 << 19); /* 10.5 MiB */
    struct test_built b;
    CHECK(test_build_ok(&b, &sc) == 0);
    CHECK(b.w.n == 15);
    uint64_t total = 0;
    for (uint32_t i = 0; i < b.w.n; i++) {
        const struct transfer *x = &b.w.xfers[i];
        uint32_t f = i / 3, k = i % 3;
        /* naive: walk the chunks one by one */
        uint64_t want = 0;
        for (uint64_t off = 0, j = 0; off < sc.workload.bytes_per_writer; off += sc.storage.stripe_size, j++) {
            uint64_t len = sc.workload.bytes_per_writer - off < sc.storage.stripe_size
                               ? sc.workload.bytes_per_writer - off
                               : sc.storage.stripe_size;
            if (j % 3 == k)
                want += len;
        }
        CHECKF(x->bytes == want, "transfer %u: %llu vs %llu", i, (unsigned long long)x->bytes,
               (unsigned long long)want);
        CHECK(x->writer == f && x->src == f);
        CHECK(x->dst == b.t.first_storage + (f % 4 + k) % 4);
        total += x->bytes;
    }
    CHECK(total == 5 * sc.workload.bytes_per_writer && b.w.total_bytes == total);
    arena_release(&b.a);
    /* a file smaller than one stripe makes one transfer */
    sc.workload.bytes_per_writer = 1000;
    CHECK(test_build_ok(&b, &sc) == 0);
    CHECK(b.w.n == 5);
    arena_release(&b.a);
}

static void work_nics_per_node(void)
{
    struct scenario sc;
    model_sc(&sc, MODEL_LLAMA3_8B, 16, 1, 1, 3, RULE_DCP);
    sc.cluster.nics_per_node = 2;
    sc.fabric.hosts_per_leaf = 4;
    struct test_built b;
    CHECK(test_build_ok(&b, &sc) == 0);
    CHECK(b.t.n_hosts == 4);
    CHECK(b.w.n == 16);
    for (uint32_t i = 0; i < b.w.n; i++) {
        const struct transfer *x = &b.w.xfers[i];
        /* rank i: node i/8, GPUs 0-3 on NIC 0 and 4-7 on NIC 1 */
        CHECKF(x->src == (i / 8) * 2 + (i % 8) / 4, "rank %u from host %u", i, x->src);
    }
    arena_release(&b.a);
    /* a topology built without the NIC expansion is refused */
    struct err e = {""};
    arena_init(&b.a);
    CHECK(topo_build(&b.t, &sc, &b.a, &e) == 0);
    CHECK(workload_build(&b.w, &sc, &b.t, &b.a, &e) == -1);
    CHECK(strncmp(e.msg, "cluster.nics_per_node:", 22) == 0);
    arena_release(&b.a);
}

/* fabric.rails: NIC i of a node on leaf i mod rails of its rail group, the
 * same leaf for every node of the group; every NIC its own host port; the
 * run keeps its invariants and its bound in both engines. Bad rails are
 * refused naming the key. */
static void work_rails(void)
{
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    const char *set[] = {"fabric.tiers=2", "cluster.nodes=8", "cluster.nics_per_node=4",
                         "fabric.hosts_per_leaf=4", "fabric.rails=2", "storage.nodes=2",
                         "workload.bytes_per_writer=4MiB", "fabric.spines=4"};
    for (size_t i = 0; i < sizeof set / sizeof *set; i++)
        CHECKF(scenario_set(&sc, set[i], &e) == 0, "%s", e.msg);
    CHECKF(scenario_resolve(&sc, &e) == 0 && scenario_validate(&sc, &e) == 0, "%s", e.msg);
    struct test_built b;
    CHECK(test_build_ok(&b, &sc) == 0);
    CHECK(b.t.n_hosts == 32 && b.t.n_cleaves == 4);
    uint8_t seen[32] = {0};
    for (uint32_t n = 0; n < 8; n++)
        for (uint32_t i = 0; i < 4; i++) {
            uint32_t h = workload_nic_host(&sc, n, i);
            CHECKF(h < 32 && !seen[h], "node %u NIC %u: host %u", n, i, h);
            seen[h < 32 ? h : 0] = 1;
            uint32_t leaf = topo_leaf_index(&b.t, b.t.nodes[h].leaf);
            CHECKF(leaf == n / 4 * 2 + i % 2, "node %u NIC %u on leaf %u", n, i, leaf);
        }
    for (uint32_t i = 0; i < b.w.n; i++) /* each writer's files leave on both rails */
        CHECK(topo_leaf_index(&b.t, b.t.nodes[b.w.xfers[i].src].leaf) % 2 == i % 2);
    arena_release(&b.a);
    for (int fluid = 0; fluid < 2; fluid++) {
        sc.engine = fluid ? ENGINE_FLUID : ENGINE_PACKET;
        struct results r;
        CHECKF(ckpt_run(&sc, &r, &e) == 0, "%s", e.msg);
        CHECKF(r.ok && r.completion_s >= r.bound_s, "%s: %s, %.6g s < bound %.6g s", names_of(&names_engine, r.engine),
               r.violation, r.completion_s, r.bound_s);
        results_release(&r);
    }
    const char *bad[][2] = {{"fabric.rails=3", "cluster.nodes=8"},
                            {"fabric.rails=2", "cluster.nodes=6"}};
    for (size_t i = 0; i < 2; i++) {
        struct scenario s2 = sc;
        CHECK(scenario_set(&s2, bad[i][0], &e) == 0 && scenario_set(&s2, bad[i][1], &e) == 0);
        e.msg[0] = '\0';
        CHECKF(scenario_validate(&s2, &e) < 0 && strstr(e.msg, "fabric.rails"), "%s %s: %s",
               bad[i][0], bad[i][1], e.msg);
    }
}

static void work_file_open_serial(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    sc.cluster.nodes = 8;
    sc.storage.nodes = 2;
    sc.storage.file_open_ps = 1000000000; /* 1 ms */
    struct test_built b;
    CHECK(test_build_ok(&b, &sc) == 0);
    /* each storage node creates its 4 files one after the other */
    for (uint32_t i = 0; i < 8; i++)
        CHECKF(workload_start(&b.w, i) == (uint64_t)(i / 2 + 1) * 1000000000,
               "file %u starts at %llu", i, (unsigned long long)workload_start(&b.w, i));
    CHECK(b.w.sum.max_open_wait_ps == 4000000000ull);
    CHECK(b.w.sum.first_start_ps == 1000000000ull);
    arena_release(&b.a);
}

static void work_policies(void)
{
    struct scenario sc;
    struct test_built b;
    scenario_defaults(&sc);
    sc.cluster.nodes = 64;
    /* stagger: 4 groups of 16 consecutive writers, one offset apart */
    sc.checkpoint.policy = POLICY_STAGGER;
    sc.checkpoint.offset_ps = 7000000;
    CHECK(test_build_ok(&b, &sc) == 0);
    for (uint32_t i = 0; i < 64; i++)
        CHECK(workload_start(&b.w, i) == (uint64_t)(i / 16) * 7000000);
    arena_release(&b.a);
    /* auto offset: a quarter of the bytes through the 4 storage NICs */
    sc.checkpoint.offset_ps = 0;
    CHECK(test_build_ok(&b, &sc) == 0);
    uint64_t auto_off = units_ser_ps(64 * sc.workload.bytes_per_writer / 4,
                                     4 * sc.storage.nic_bps);
    CHECK(workload_start(&b.w, 63) == 3 * auto_off && workload_start(&b.w, 16) == auto_off);
    arena_release(&b.a);

    /* jitter: uniform in [0, offset]; exponential with mean offset */
    sc.cluster.nodes = 4096;
    sc.fabric.hosts_per_leaf = 64;
    sc.fabric.spines = 2;
    sc.workload.bytes_per_writer = 1000;
    sc.checkpoint.policy = POLICY_JITTER;
    sc.checkpoint.offset_ps = 1000000;
    CHECK(test_build_ok(&b, &sc) == 0);
    double mean = 0;
    uint64_t mx = 0;
    for (uint32_t i = 0; i < b.w.n; i++) {
        mean += (double)workload_start(&b.w, i) / b.w.n;
        if (workload_start(&b.w, i) > mx)
            mx = workload_start(&b.w, i);
    }
    CHECK(mx <= 1000000 && mx > 990000);
    CHECKF(fabs(mean - 500000) < 20000, "uniform mean %.0f", mean);
    arena_release(&b.a);
    sc.checkpoint.jitter_dist = JITTER_EXPONENTIAL;
    CHECK(test_build_ok(&b, &sc) == 0);
    mean = 0;
    for (uint32_t i = 0; i < b.w.n; i++)
        mean += (double)workload_start(&b.w, i) / b.w.n;
    CHECKF(fabs(mean - 1000000) < 50000, "exponential mean %.0f", mean);
    arena_release(&b.a);

    /* rate_limit: a writer's cap split over its stripes by bytes */
    scenario_defaults(&sc);
    sc.cluster.nodes = 4;
    sc.storage.stripe_count = 3;
    sc.workload.bytes_per_writer = 5 << 20;
    sc.checkpoint.policy = POLICY_RATE_LIMIT;
    sc.checkpoint.rate_limit_bps = 100000000000ull;
    CHECK(test_build_ok(&b, &sc) == 0);
    for (uint32_t wr = 0; wr < 4; wr++) {
        uint64_t caps = 0;
        for (uint32_t i = 0; i < b.w.n; i++)
            if (b.w.xfers[i].writer == wr) {
                const struct transfer *x = &b.w.xfers[i];
                caps += workload_rate(&b.w, i);
                /* every stripe needs the same time at its cap */
                double t = (double)x->bytes / (double)workload_rate(&b.w, i);
                CHECK(fabs(t * 1e11 / (double)sc.workload.bytes_per_writer - 1) < 1e-6);
            }
        CHECK(caps >= 100000000000ull && caps <= 100000000000ull + 3);
    }
    arena_release(&b.a);
    /* rate_limit without a cap is refused */
    sc.checkpoint.rate_limit_bps = 0;
    struct err e = {""};
    CHECK(test_build(&b, &sc, &e) == -1 && strncmp(e.msg, "checkpoint.rate_limit:", 22) == 0);
    arena_release(&b.a);
    /* ... and so is a cap or an offset that runs past the simulator clock,
     * naming the key that does it */
    sc.checkpoint.rate_limit_bps = 1;
    CHECK(test_build(&b, &sc, &e) == -1);
    CHECKF(strstr(e.msg, "checkpoint.rate_limit: writing this checkpoint takes longer") == e.msg,
           "%s", e.msg);
    arena_release(&b.a);
    sc.checkpoint.policy = POLICY_STAGGER;
    sc.checkpoint.groups = 1000000;
    sc.checkpoint.offset_ps = 1000 * PS_PER_S;
    CHECK(test_build(&b, &sc, &e) == -1);
    CHECKF(strncmp(e.msg, "checkpoint.offset: ", 19) == 0, "%s", e.msg);
    arena_release(&b.a);
}

static void work_two_phase_policies(void)
{
    struct scenario sc;
    struct test_built b;
    model_sc(&sc, MODEL_CUSTOM, 32, 1, 1, 1, RULE_DEEPSPEED);
    sc.model.params = 8000000000ull;
    sc.cluster.d2h_bps = 400000000000ull;
    sc.checkpoint.policy = POLICY_ASYNC;
    CHECK(test_build_ok(&b, &sc) == 0);
    /* stall = the largest GPU shard at the copy rate; each writer's drain
     * starts when its node has staged (its slowest GPU) */
    uint64_t mx = 0;
    struct arena a;
    arena_init(&a);
    struct plan p;
    CHECK(plan_of(&sc, &p, &a) == 0);
    for (uint32_t r = 0; r < p.ranks; r++)
        if (p.rank_bytes[r] > mx)
            mx = p.rank_bytes[r];
    CHECK(b.w.sum.stall_ps == units_ser_ps(mx, sc.cluster.d2h_bps));
    CHECK(!b.w.sum.stall_measured);
    for (uint32_t i = 0; i < b.w.n; i++)
        CHECK(workload_rate(&b.w, i) == 0 && workload_start(&b.w, i) > 0);
    CHECK(workload_start(&b.w, 0) == b.w.sum.stall_ps); /* node 0 has rank 0 */
    arena_release(&b.a);
    /* sync with a copy rate: the copy caps each writer instead */
    sc.checkpoint.policy = POLICY_SYNC;
    CHECK(test_build_ok(&b, &sc) == 0);
    uint64_t caps = 0; /* rank 0 writes weights and optimizer: split by bytes */
    for (uint32_t i = 0; i < b.w.n; i++)
        if (b.w.xfers[i].writer == 0) {
            caps += workload_rate(&b.w, i);
            CHECK(workload_start(&b.w, i) == 0);
        }
    CHECK(caps >= sc.cluster.d2h_bps && caps <= sc.cluster.d2h_bps + 2);
    CHECK(b.w.sum.stall_measured);
    arena_release(&b.a);
    /* hierarchical: the node's bytes to local NVMe, then a trickle per node */
    sc.checkpoint.policy = POLICY_HIERARCHICAL;
    sc.cluster.d2h_bps = 0;
    sc.cluster.local_nvme_bps = 80000000000ull;
    sc.checkpoint.trickle_bps = 10000000000ull;
    CHECK(test_build_ok(&b, &sc) == 0);
    uint64_t node0 = 0, caps0 = 0;
    for (uint32_t r = 0; r < 8; r++)
        node0 += p.rank_bytes[r];
    for (uint32_t i = 0; i < b.w.n; i++)
        if (b.w.xfers[i].src == 0) {
            caps0 += workload_rate(&b.w, i);
            CHECK(workload_start(&b.w, i) == units_ser_ps(node0, sc.cluster.local_nvme_bps));
        }
    CHECK(caps0 >= sc.checkpoint.trickle_bps && caps0 <= sc.checkpoint.trickle_bps + 16);
    CHECK(b.w.sum.stall_ps >= units_ser_ps(node0, sc.cluster.local_nvme_bps));
    arena_release(&b.a);
    arena_release(&a);
    /* the two-phase policies need their rates */
    struct err e = {""};
    sc.cluster.local_nvme_bps = 0;
    CHECK(test_build(&b, &sc, &e) == -1 && strncmp(e.msg, "cluster.local_nvme_rate:", 24) == 0);
    arena_release(&b.a);
    sc.checkpoint.policy = POLICY_ASYNC;
    CHECK(test_build(&b, &sc, &e) == -1 && strncmp(e.msg, "cluster.d2h_rate:", 17) == 0);
    arena_release(&b.a);
}

static void work_stragglers(void)
{
    struct scenario sc;
    struct test_built b;
    scenario_defaults(&sc);
    sc.cluster.nodes = 64;
    sc.checkpoint.straggler_fraction = 0.25;
    sc.checkpoint.straggler_delay_ps = 3000000;
    sc.checkpoint.straggler_slowdown = 4;
    CHECK(test_build_ok(&b, &sc) == 0);
    uint32_t late = 0, slow = 0;
    for (uint32_t i = 0; i < b.w.n; i++) {
        late += workload_start(&b.w, i) == 3000000;
        slow += workload_rate(&b.w, i) == sc.cluster.nic_bps / 4;
        CHECK((workload_start(&b.w, i) == 3000000) == (workload_rate(&b.w, i) != 0));
    }
    CHECK(late == 16 && slow == 16 && b.w.sum.stragglers == 16);
    uint32_t first[16], n = 0;
    for (uint32_t i = 0; i < b.w.n; i++)
        if (workload_rate(&b.w, i) && n < 16)
            first[n++] = i;
    arena_release(&b.a);
    /* another seed picks other writers */
    sc.seed = 2;
    CHECK(test_build_ok(&b, &sc) == 0);
    int same = 1;
    for (uint32_t j = 0; j < n; j++)
        same &= workload_rate(&b.w, first[j]) != 0;
    CHECK(!same);
    arena_release(&b.a);
}

/* Caps and starts live beside the transfers (workload_rate,
 * workload_start): the stragglers' on their own transfers over two queue
 * pairs, no cap on replica forwards (fed by arrivals) though their feeds
 * are capped, a forward's start its primary's, the data-only copy's on the
 * same data transfers, the restore's none, and no arrays when nothing is
 * capped nor late. */
static void work_rate_and_start_beside_the_transfers(void)
{
    struct scenario sc;
    struct test_built b;
    scenario_defaults(&sc);
    sc.cluster.nodes = 32;
    sc.storage.nodes = 6;
    sc.transport.qps_per_writer = 2;
    sc.checkpoint.straggler_fraction = 0.25;
    sc.checkpoint.straggler_delay_ps = 3000000;
    sc.checkpoint.straggler_slowdown = 4;
    sc.storage.protection = PROTECT_REPLICA;
    sc.storage.replicas = 3;
    CHECK(test_build_ok(&b, &sc) == 0);
    CHECK(b.w.fwd_per == 2 && b.w.n == 3 * b.w.fwd_first && b.w.xrate && b.w.xstart);
    uint32_t capped = 0, fwd_of_capped = 0, fwd_late = 0;
    for (uint32_t i = 0; i < b.w.n; i++) {
        uint64_t r = workload_rate(&b.w, i);
        uint32_t feed = workload_feed(&b.w, i);
        if (!feed) { /* a straggler's two queue pairs split its cap */
            CHECKF((workload_start(&b.w, i) == 3000000) == (r == sc.cluster.nic_bps / 8),
                   "transfer %u: start %" PRIu64 " rate %" PRIu64, i, workload_start(&b.w, i), r);
            capped += r != 0;
        } else {
            CHECKF(r == 0, "forward %u: rate %" PRIu64, i, r);
            fwd_of_capped += workload_rate(&b.w, feed - 1) != 0;
            uint32_t primary = (i - b.w.fwd_first) / b.w.fwd_per;
            CHECKF(workload_start(&b.w, i) == workload_start(&b.w, primary) &&
                       workload_start(&b.w, i) == workload_start(&b.w, feed - 1),
                   "forward %u: start %" PRIu64 ", its primary's %" PRIu64, i,
                   workload_start(&b.w, i), workload_start(&b.w, primary));
            fwd_late += workload_start(&b.w, i) == 3000000;
        }
    }
    CHECK(capped == 16 && fwd_of_capped == 32 && fwd_late == 32);
    struct err e = {""};
    struct workload rw;
    CHECK(workload_build_restore(&rw, &b.w, &sc, &b.t, &b.a, &e) == 0);
    CHECK(!rw.xrate && !rw.xstart);
    for (uint32_t i = 0; i < rw.n; i++)
        CHECK(workload_rate(&rw, i) == 0 && workload_start(&rw, i) == 0);
    arena_release(&b.a);
    /* erasure coding: the data-only copy keeps each data transfer's cap */
    sc.storage.protection = PROTECT_EC;
    sc.storage.ec_data = 4;
    sc.storage.ec_parity = 2;
    CHECK(test_build_ok(&b, &sc) == 0);
    struct workload d;
    CHECK(protect_data_only(&b.w, &d, &b.a) == 0);
    uint32_t k = 0, bad = 0, dc = 0;
    for (uint32_t i = 0; i < b.w.n; i++)
        if (b.w.xfers[i].kind == XFER_DATA) {
            bad += workload_rate(&d, k) != workload_rate(&b.w, i) ||
                   workload_start(&d, k) != workload_start(&b.w, i) ||
                   d.xfers[k].src != b.w.xfers[i].src;
            dc += workload_rate(&d, k++) != 0;
        }
    CHECKF(k == d.n && k < b.w.n && !bad && dc > 0, "%u of %u data, %u wrong, %u capped", k, b.w.n,
           bad, dc);
    arena_release(&b.a);
    /* nothing capped nor late: no arrays */
    sc.checkpoint.straggler_fraction = 0;
    CHECK(test_build_ok(&b, &sc) == 0);
    CHECK(!b.w.xrate && !b.w.xstart && workload_rate(&b.w, 0) == 0 &&
          workload_start(&b.w, 0) == 0);
    arena_release(&b.a);
}

static void work_bad_model_inputs(void)
{
    static const struct {
        const char *set, *msg;
    } cases[] = {
        {"model.name=custom", "model.params: model.name custom needs model.params > 0"},
        {"model.params=5", "model.params: only used with model.name: custom (llama3-8b has 8030261248 parameters)"},
        {"parallelism.dp=3", "parallelism.dp: tp x pp x dp = 3 must equal the 16 GPUs"},
        {"parallelism.tp=3", "parallelism.tp: tp x pp = 3 does not divide the 16 GPUs"},
        {"storage.stripe_count=9", "storage.stripe_count: 9 is more than the 4 storage nodes"},
        {"model.weights_dtype=none", "model.weights_dtype: the weights need a dtype"},
        {"checkpoint.policy=jitter", "checkpoint.offset: the jitter policy needs a spread > 0"},
        {"parallelism.pp=2", "parallelism.zero_stage: DeepSpeed ZeRO-3 does not combine"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct scenario sc;
        model_sc(&sc, MODEL_LLAMA3_8B, 16, 1, 1, 3, RULE_DEEPSPEED);
        struct err e = {""};
        CHECK(scenario_set(&sc, cases[i].set, &e) == 0);
        struct test_built b;
        CHECK(test_build(&b, &sc, &e) == -1);
        CHECKF(strncmp(e.msg, cases[i].msg, strlen(cases[i].msg)) == 0, "%s: got \"%s\"",
               cases[i].set, e.msg);
        arena_release(&b.a);
    }
}

/* ---- end to end -------------------------------------------------------- */

static void e2e_stagger_lowers_queues_and_pauses(void)
{
    /* the default scenario, 4 MB per writer to keep it short */
    struct scenario sc;
    scenario_defaults(&sc);
    sc.workload.bytes_per_writer = 4000000;
    struct results sync, stag;
    CHECK(test_run(&sc, &sync) == 0);
    sc.checkpoint.policy = POLICY_STAGGER;
    sc.checkpoint.groups = 4;
    CHECK(test_run(&sc, &stag) == 0);
    CHECKF(sync.ok && stag.ok, "%s / %s", sync.ok ? "ok" : sync.violation, stag.ok ? "ok" : stag.violation);
    CHECKF(sync.pause_frames > 0, "sync never paused: the comparison proves nothing");
    CHECKF(stag.max_queue_bytes < sync.max_queue_bytes, "max queue %llu vs sync %llu",
           (unsigned long long)stag.max_queue_bytes, (unsigned long long)sync.max_queue_bytes);
    CHECKF(stag.paused_s < sync.paused_s, "paused %.3g s vs sync %.3g s", stag.paused_s,
           sync.paused_s);
    CHECK(stag.ckpt_bytes == sync.ckpt_bytes);
    results_release(&sync);
    results_release(&stag);
}

static void e2e_async_stall_is_staging(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    sc.cluster.nodes = 16;
    sc.cluster.gpus_per_node = 4;
    sc.storage.nodes = 2;
    sc.workload.bytes_per_writer = 8000000;
    sc.cluster.d2h_bps = 200000000000ull; /* 2 MB per GPU: 80 us */
    sc.checkpoint.policy = POLICY_ASYNC;
    struct results r1, r2;
    CHECK(test_run(&sc, &r1) == 0);
    double staging = 2000000.0 * 8 / 200e9;
    CHECKF(fabs(r1.cost.stall_s - staging) < 1e-12, "stall %.9g vs staging %.9g",
           r1.cost.stall_s, staging);
    CHECK(r1.cost.end_s > r1.cost.stall_s);
    CHECK(!r1.cost.drain_late);
    /* half the storage: the drain takes longer, the stall does not move */
    sc.storage.nodes = 1;
    CHECK(test_run(&sc, &r2) == 0);
    CHECK(r2.cost.stall_s == r1.cost.stall_s);
    CHECK(r2.cost.end_s > r1.cost.end_s * 1.5);
    results_release(&r2);
    /* a drain longer than the interval is reported */
    sc.training.interval_ps = 100000000; /* 100 us */
    sc.training.step_ps = 1000000;
    sc.failures.mc_days = 0; /* 1e7 tiny intervals would only cost time */
    CHECK(test_run(&sc, &r2) == 0);
    CHECK(r2.cost.drain_late);
    results_release(&r1);
    results_release(&r2);
    /* sync: the stall is the measured end of the write, from the trigger */
    sc.checkpoint.policy = POLICY_SYNC;
    sc.storage.file_open_ps = 5000000;
    CHECK(test_run(&sc, &r1) == 0);
    CHECK(fabs(r1.cost.stall_s - (5e-6 + r1.completion_s)) < 1e-12);
    results_release(&r1);
}

/* Transfers of sc (simple or model form) against the naive striping the
 * planner once did over every stripe slot: chunk j of a file to stripe
 * j mod stripe_count, every stripe that has bytes in stripe order, from the
 * file's home node on (file_mod or round_robin, computed in closed form),
 * split over the queue pairs. Returns the transfers compared, or -1 on a
 * build error. */
static long stripes_vs_naive(const struct scenario *sc, const char *what)
{
    struct err e = {""};
    struct arena a;
    struct scenario fab;
    struct topo t;
    struct workload w;
    struct plan p;
    arena_init(&a);
    workload_fabric(sc, &fab);
    if (topo_build(&t, &fab, &a, &e) < 0 || workload_build(&w, sc, &t, &a, &e) < 0 ||
        plan_build(&p, sc, &a, &e) < 0) {
        CHECKF(0, "%s: %s", what, e.msg);
        arena_release(&a);
        return -1;
    }
    uint32_t c = sc->storage.stripe_count, M = sc->storage.nodes, i = 0;
    uint32_t qps = sc->transport.qps_per_writer ? sc->transport.qps_per_writer : 1;
    uint64_t ss = sc->storage.stripe_size, sum = 0;
    uint64_t *sb = calloc(c, sizeof *sb);
    uint32_t *home = calloc(p.n_files + 1, sizeof *home);
    int bad = !home;
    /* homes: file_mod f mod M; round_robin (all writers start together)
     * deals slot 0 of every rank in file order, then slot 1, ...: the k-th
     * file dealt starts at k c mod M, plus one per time round when striped
     * with M mod c != 1 (the cursor wraps floor(k c / M) times before it) */
    for (uint32_t f = 0, k = 0, slot = 0, more = 1; home && more; slot++) {
        more = 0;
        for (f = 0; f < p.n_files; f++) {
            uint32_t sl = 0;
            for (uint32_t g = f; g > 0 && p.files[g - 1].rank == p.files[f].rank; g--)
                sl++;
            more |= sl > slot;
            if (sl != slot)
                continue;
            uint64_t kc = (uint64_t)k++ * c;
            uint64_t prec = c > 1 && M % c != 1 ? kc / M : 0;
            home[f] = sc->storage.placement == PLACE_FILE_MOD ? f % M
                                                              : (uint32_t)((kc % M + prec) % M);
        }
    }
    for (uint32_t f = 0; sb && f < p.n_files && !bad; f++) {
        memset(sb, 0, c * sizeof *sb);
        for (uint64_t j = 0, off = 0; off < p.files[f].bytes; j++, off += ss)
            sb[j % c] += p.files[f].bytes - off < ss ? p.files[f].bytes - off : ss;
        for (uint32_t k = 0; k < c && !bad; k++)
            for (uint32_t q = 0; q < qps && sb[k]; q++) {
                uint64_t qb = sb[k] / qps + (q < sb[k] % qps);
                if (!qb)
                    continue;
                const struct transfer *x = i < w.n ? &w.xfers[i] : NULL;
                bad = !x || x->dst != t.first_storage + (home[f] + k) % M || x->bytes != qb;
                CHECKF(!bad, "%s: file %u stripe %u qp %u: transfer %u %s", what, f, k, q, i,
                       x ? "differs" : "missing");
                i++;
            }
    }
    for (uint32_t k = 0; k < w.n; k++)
        sum += w.xfers[k].bytes;
    CHECKF(bad || i == w.n, "%s: %u transfers, the naive striping makes %u", what, w.n, i);
    CHECKF(sum == w.total_bytes && sum == p.total_bytes, "%s: %llu bytes in transfers, %llu planned",
           what, (unsigned long long)sum, (unsigned long long)p.total_bytes);
    free(sb);
    free(home);
    arena_release(&a);
    return bad ? -1 : (long)i;
}

/* Defect: planning visited every stripe slot of every file, so `describe`
 * with 1e5 stripes took minutes. It now visits the stripes a file fills;
 * on random small cases (simple and model form, files with fewer chunks
 * than stripes, several queue pairs, NICs per node) the transfers are the
 * naive striping's, one for one. */
static void work_striping_matches_naive(void)
{
    struct rng g;
    rng_init(&g, 7, 99);
    for (int n = 0; n < 60; n++) {
        struct scenario sc;
        char what[64];
        snprintf(what, sizeof what, "case %d", n);
        if (n % 3 == 2) {
            model_sc(&sc, MODEL_LLAMA3_8B, 16, 1, 1, (uint32_t)rng_below(&g, 4), RULE_DCP);
            sc.storage.stripe_size = (1 + rng_below(&g, 64)) << 24; /* 16 MiB to 1 GiB */
            sc.checkpoint.rank_state_bytes = rng_below(&g, 3) ? 0 : 1 + rng_below(&g, 100000);
        } else {
            scenario_defaults(&sc);
            sc.cluster.nodes = 1 + (uint32_t)rng_below(&g, 8);
            sc.cluster.nics_per_node = 1 + (uint32_t)rng_below(&g, 2);
            sc.workload.bytes_per_writer = 1 + rng_below(&g, 300000);
            sc.storage.stripe_size = 1 + rng_below(&g, 50000);
        }
        sc.storage.nodes = 1 + (uint32_t)rng_below(&g, 12);
        sc.storage.stripe_count = 1 + (uint32_t)rng_below(&g, sc.storage.nodes);
        sc.transport.qps_per_writer = 1 + (uint32_t)rng_below(&g, 3);
        sc.storage.placement = n % 2 ? PLACE_FILE_MOD : PLACE_ROUND_ROBIN;
        CHECK(stripes_vs_naive(&sc, what) > 0);
    }
}

/* 1e5 writers of a 4-chunk file over 1e5 storage nodes, striped 1e5 wide:
 * 4e5 transfers (the naive planner visited 1e10 slots). Bytes conserved,
 * each file on its 4 consecutive nodes from its home. */
static void work_wide_striping_linear(void)
{
    struct scenario sc, fab;
    struct err e = {""};
    struct arena a;
    struct topo t;
    struct workload w;
    scenario_defaults(&sc);
    sc.cluster.nodes = 100000;
    sc.fabric.hosts_per_leaf = 4096;
    sc.storage.nodes = 100000;
    sc.fabric.storage_per_leaf = 4096;
    sc.storage.stripe_count = 100000;
    sc.storage.stripe_size = 1 << 20;
    sc.workload.bytes_per_writer = 3 * (1 << 20) + 5;
    arena_init(&a);
    workload_fabric(&sc, &fab);
    if (topo_build(&t, &fab, &a, &e) < 0 || workload_build(&w, &sc, &t, &a, &e) < 0) {
        CHECKF(0, "%s", e.msg);
        arena_release(&a);
        return;
    }
    CHECKF(w.n == 400000, "%u transfers", w.n);
    uint64_t sum = 0;
    int bad = 0;
    for (uint32_t i = 0; i < w.n && !bad; i++) {
        const struct transfer *x = &w.xfers[i];
        uint32_t f = i / 4, k = i % 4;
        sum += x->bytes;
        bad = x->writer != f || x->src != f ||
              x->dst != t.first_storage + (f + k) % 100000 ||
              x->bytes != (k < 3 ? 1u << 20 : 5u);
        CHECKF(!bad, "transfer %u: writer %u src %u dst %u bytes %llu", i, x->writer, x->src,
               x->dst, (unsigned long long)x->bytes);
    }
    CHECK(sum == w.total_bytes && sum == 100000ull * (3 * (1 << 20) + 5));
    arena_release(&a);
    /* a small slice of it against the naive striping */
    sc.cluster.nodes = 50;
    sc.storage.nodes = 1000;
    sc.storage.stripe_count = 1000;
    CHECK(stripes_vs_naive(&sc, "wide") == 200);
}


/* ---- placement (storage.placement, storage.stripe_start) ---------------- */

/* Bytes per storage node from the transfers themselves; checks that the
 * summary's node_bytes agree and that every byte is on some node. */
static int node_bytes_of(const struct test_built *b, uint64_t *nb, uint32_t M)
{
    uint64_t sum = 0;
    memset(nb, 0, M * sizeof *nb);
    for (uint32_t i = 0; i < b->w.n; i++) {
        nb[b->w.xfers[i].dst - b->t.first_storage] += b->w.xfers[i].bytes;
        sum += b->w.xfers[i].bytes;
    }
    int ok = sum == b->w.total_bytes && b->w.sum.nodes_listed == M;
    for (uint32_t n = 0; ok && n < M; n++)
        ok = nb[n] == b->w.sum.node_bytes[n];
    CHECKF(ok, "node bytes: transfers and summary disagree (or bytes lost)");
    return ok;
}

/* Node of transfer i (a file's stripe). */
static uint32_t dst_of(const struct test_built *b, uint32_t i)
{
    return b->w.xfers[i].dst - b->t.first_storage;
}

/* Hand counts. 5 files of 10.5 MiB, 1 MiB stripes over 3 of 4 nodes:
 * stripe 0 holds chunks 0,3,6,9 (4 MiB), stripe 1 chunks 1,4,7,10 (3.5
 * MiB), stripe 2 chunks 2,5,8 (3 MiB).
 *   file_mod starts 0,1,2,3,0; round_robin's cursor moves 3 a file and
 *   does not precess (4 mod 3 = 1): starts 0,3,2,1,0. Either way nodes
 *   0..3 hold 14.5, 14, 13.5, 10.5 MiB: max/mean = 14.5 / 13.125.
 *   With a 1 GB/s back end (slower than the 400G NIC) the skew costs
 *   (14.5 - 13.125) MiB / 1 GB/s = 1.441792 ms, 1.375 / 13.125 = 10.48%.
 * Stripe count 2 precesses (4 mod 2 = 0): cursor 0, 2, wrap +1: 1, 3,
 * wrap +1: 2.
 * More nodes than files: 2 files of 8 MiB striped 4 wide over 8 nodes:
 * round_robin uses all 8 (2 MiB each, skew 1); file_mod puts both on
 * nodes 0..4 (2, 4, 4, 4, 2 MiB and three idle: skew 2). */
static void work_placement_hand_count(void)
{
    struct scenario sc;
    stripes_of_five(&sc);
    sc.storage.drain_bps = 8000000000ull; /* 1 GB/s */
    sc.workload.bytes_per_writer = (10 << 20) + (1 << 19);
    static const uint32_t starts[2][5] = {{0, 3, 2, 1, 0}, {0, 1, 2, 3, 0}};
    const uint64_t mib = 1 << 20, want[4] = {29 * mib / 2, 14 * mib, 27 * mib / 2, 21 * mib / 2};
    for (int rule = 0; rule < 2; rule++) {
        sc.storage.placement = rule ? PLACE_FILE_MOD : PLACE_ROUND_ROBIN;
        struct test_built b;
        uint64_t nb[4];
        if (test_build_ok(&b, &sc) < 0 || !node_bytes_of(&b, nb, 4)) {
            CHECK(0);
            return;
        }
        for (uint32_t f = 0; f < 5; f++)
            CHECKF(dst_of(&b, 3 * f) == starts[rule][f], "rule %d file %u starts on %u", rule,
                   f, dst_of(&b, 3 * f));
        for (uint32_t n = 0; n < 4; n++)
            CHECKF(nb[n] == want[n], "rule %d node %u: %llu", rule, n, (unsigned long long)nb[n]);
        const struct plan_summary *s = &b.w.sum;
        CHECK(s->node_max_bytes == 29 * mib / 2 && s->storage_nodes == 4);
        CHECKF(fabs(s->node_skew - 14.5 / 13.125) < 1e-12, "%.12g", s->node_skew);
        CHECKF(s->skew_cost_ps == 1441792000ull, "%llu", (unsigned long long)s->skew_cost_ps);
        CHECKF(fabs(s->skew_cost_pct - 100 * 1.375 / 13.125) < 1e-9, "%.12g", s->skew_cost_pct);
        CHECK(!strcmp(s->placement, rule ? "file_mod" : "round_robin"));
        arena_release(&b.a);
    }
    sc.storage.stripe_count = 2;
    sc.storage.placement = PLACE_ROUND_ROBIN;
    struct test_built b;
    static const uint32_t prec[5] = {0, 2, 1, 3, 2};
    if (test_build_ok(&b, &sc) == 0)
        for (uint32_t f = 0; f < 5; f++)
            CHECKF(dst_of(&b, 2 * f) == prec[f], "file %u starts on %u", f, dst_of(&b, 2 * f));
    arena_release(&b.a);

    sc.cluster.nodes = 2;
    sc.storage.nodes = 8;
    sc.storage.stripe_count = 4;
    sc.storage.drain_bps = 0;
    sc.workload.bytes_per_writer = 8 << 20;
    static const uint64_t wide[2][8] = {{2, 2, 2, 2, 2, 2, 2, 2}, {2, 4, 4, 4, 2, 0, 0, 0}};
    for (int rule = 0; rule < 2; rule++) {
        sc.storage.placement = rule ? PLACE_FILE_MOD : PLACE_ROUND_ROBIN;
        uint64_t nb[8];
        if (test_build_ok(&b, &sc) < 0 || !node_bytes_of(&b, nb, 8)) {
            CHECK(0);
            return;
        }
        for (uint32_t n = 0; n < 8; n++)
            CHECKF(nb[n] == wide[rule][n] * mib, "rule %d node %u: %llu", rule, n,
                   (unsigned long long)nb[n]);
        CHECKF(fabs(b.w.sum.node_skew - (rule ? 2.0 : 1.0)) < 1e-12, "%.12g", b.w.sum.node_skew);
        CHECK(rule ? b.w.sum.skew_cost_pct > 99 : b.w.sum.skew_cost_ps == 0);
        arena_release(&b.a);
    }
}

/* The MLPerf Llama 3 70B scenario (64 ranks, each a 2 B/param weights file
 * and a 12 B/param optimizer file): file f mod 4 puts every optimizer file
 * on nodes 1 and 3, 12/7 = 1.71x the mean; round_robin (creates dealt in
 * lockstep order) and hash keep every node within 5% of the mean. Bytes
 * conserved; hash and random starts are the same for a seed and differ
 * across seeds. */
static void work_placement_mlperf70b(void)
{
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    if (scenario_load_file(&sc, "scenarios/mlperf-llama3-70b.yaml", &e) < 0) {
        CHECKF(0, "%s", e.msg);
        return;
    }
    CHECK(sc.storage.placement == PLACE_ROUND_ROBIN); /* the default */
    uint64_t nb[4], first[4] = {0};
    for (int rule = 0; rule < 4; rule++) {
        sc.storage.placement = rule == 3 ? PLACE_ROUND_ROBIN : rule;
        sc.storage.stripe_start = rule == 3 ? START_RANDOM : START_ROUND_ROBIN;
        struct test_built b;
        if (test_build_ok(&b, &sc) < 0 || !node_bytes_of(&b, nb, 4)) {
            CHECK(0);
            return;
        }
        double mean = (double)b.w.total_bytes / 4, worst = 0;
        for (int n = 0; n < 4; n++)
            worst = fmax(worst, fabs((double)nb[n] / mean - 1));
        if (rule == PLACE_FILE_MOD)
            CHECKF(fabs(b.w.sum.node_skew - 12.0 / 7) < 1e-3 && nb[0] < nb[1] && nb[2] < nb[3],
                   "file_mod skew %.4f", b.w.sum.node_skew);
        else if (rule < 3)
            CHECKF(worst < 0.05 && b.w.sum.node_skew < 1.05, "rule %d: a node %.1f%% off the mean",
                   rule, 100 * worst);
        CHECKF(b.w.total_bytes == 987751890944ull, "%llu", (unsigned long long)b.w.total_bytes);
        arena_release(&b.a);
        if (rule == PLACE_HASH || rule == 3) {
            /* same seed: same bytes per node; another seed: others */
            memcpy(first, nb, sizeof nb);
            if (test_build_ok(&b, &sc) == 0 && node_bytes_of(&b, nb, 4))
                CHECKF(!memcmp(first, nb, sizeof nb), "rule %d not deterministic", rule);
            arena_release(&b.a);
            sc.seed = 2;
            if (test_build_ok(&b, &sc) == 0 && node_bytes_of(&b, nb, 4))
                CHECKF(memcmp(first, nb, sizeof nb), "rule %d ignores the seed", rule);
            arena_release(&b.a);
            sc.seed = 1;
        }
    }
    /* random starts only mean something for round_robin */
    sc.storage.placement = PLACE_HASH;
    sc.storage.stripe_start = START_RANDOM;
    struct test_built b;
    CHECK(test_build(&b, &sc, &e) == -1 && strstr(e.msg, "storage.stripe_start"));
    arena_release(&b.a);
}

/* ---- metadata and durability ----------------------------------------- */

/* Completion of sc in engine eng (s); -1 when refused or not ok. */
static double completion_of(struct scenario *sc, int eng)
{
    struct results r;
    struct err e = {""};
    sc->engine = eng;
    if (ckpt_run(sc, &r, &e) < 0) {
        CHECKF(0, "%s", e.msg);
        return -1;
    }
    CHECKF(r.ok && r.finished, "%s", r.violation);
    CHECKF(r.completion_s >= r.bound_s, "%s: completion %.12g < bound %.12g", names_of(&names_engine, r.engine),
           r.completion_s, r.bound_s);
    double c = r.ok ? r.completion_s : -1;
    results_release(&r);
    return c;
}

/* One file with fsync and metadata costs (its create and fsync each take a
 * metadata op shorter than the fsync) completes at its write time + the
 * fsync cost, in both engines. */
static void work_fsync_one_file(void)
{
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++) {
        struct scenario sc;
        scenario_defaults(&sc);
        sc.cluster.nodes = 1;
        sc.storage.nodes = 1;
        sc.workload.bytes_per_writer = 2000000;
        double plain = completion_of(&sc, eng);
        sc.storage.fsync_ps = 3000000000ull;     /* 3 ms */
        sc.storage.metadata_ops = 10000;         /* 100 us per op */
        double durable = completion_of(&sc, eng);
        CHECKF(fabs(durable - (plain + 3e-3)) < 1e-11, "engine %d: %.12g s, want %.12g + 3 ms",
               eng, durable, plain);
    }
}

/* N files behind one metadata service at R ops/s take at least N / R (N
 * creates and N fsyncs queue there), in both engines; without the service
 * far less. */
static void work_metadata_queue(void)
{
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++) {
        struct scenario sc;
        scenario_defaults(&sc);
        sc.cluster.nodes = 32;
        sc.workload.bytes_per_writer = 100000;
        double plain = completion_of(&sc, eng);
        sc.storage.metadata_ops = 2000; /* 32 files: 16 ms of creates alone */
        double meta = completion_of(&sc, eng);
        CHECKF(plain > 0 && plain < 1e-3, "engine %d: %.6g s without the service", eng, plain);
        CHECKF(meta >= 32.0 / 2000, "engine %d: %.6g s < N/R = 16 ms", eng, meta);
        /* the fsyncs queue too: 2N ops, the first create before the first byte */
        CHECKF(meta >= 63.0 / 2000 - 1e-9, "engine %d: %.6g s < (2N-1)/R", eng, meta);
    }
}

/* The small per-rank state as rank_state_files files per rank, each its own
 * file (its own create), bytes conserved. */
static void work_rank_state_files(void)
{
    struct scenario sc;
    model_sc(&sc, MODEL_LLAMA3_8B, 16, 8, 1, 1, RULE_DCP);
    struct arena a;
    struct plan p1, p4;
    arena_init(&a);
    sc.checkpoint.rank_state_bytes = 1000;
    CHECK(plan_of(&sc, &p1, &a) == 0);
    sc.checkpoint.rank_state_files = 4;
    CHECK(plan_of(&sc, &p4, &a) == 0);
    CHECKF(p4.n_files == p1.n_files + 3 * 16, "%u files, %u with one state file", p4.n_files,
           p1.n_files);
    CHECK(p4.total_bytes == p1.total_bytes);
    arena_release(&a);
}

/* ---- restore ------------------------------------------------------------ */

/* A small model-form scenario: 2M params x 14 B over tp 4 x dp 4, no ZeRO
 * (every replica holds the whole state of its shard). */
static void restore_sc(struct scenario *sc, int eng, int mode)
{
    scenario_defaults(sc);
    sc->engine = eng;
    sc->model.name = MODEL_CUSTOM;
    sc->model.params = 2000000;
    sc->cluster.nodes = 4;
    sc->cluster.gpus_per_node = 4;
    sc->parallelism.tp = 4;
    sc->fabric.hosts_per_leaf = 2;
    sc->parallelism.zero_stage = 0;
    sc->checkpoint.phase = PHASE_BOTH;
    sc->restore.mode = mode;
}

/* every_replica reads DP x the bytes of one_replica_broadcast, which reads
 * the checkpoint once; both engines; each restore at or above its bound. */
static void work_restore_amplification(void)
{
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++) {
        struct restore_figures f[2];
        uint64_t ckpt = 0;
        for (int mode = 0; mode < 2; mode++) {
            struct scenario sc;
            struct results r;
            struct err e = {""};
            restore_sc(&sc, eng, mode);
            if (ckpt_run(&sc, &r, &e) < 0) {
                CHECKF(0, "%s", e.msg);
                return;
            }
            CHECKF(r.ok && r.restore.ran && r.restore.ok && r.restore.finished, "%s",
                   r.violation);
            CHECKF(r.restore.completion_s >= r.restore.bound_s, "engine %d mode %d: %.12g < %.12g",
                   eng, mode, r.restore.completion_s, r.restore.bound_s);
            f[mode] = r.restore;
            ckpt = r.ckpt_bytes;
            results_release(&r);
        }
        CHECKF(f[0].bytes_read == 4 * f[1].bytes_read, "engine %d: %llu vs 4 x %llu", eng,
               (unsigned long long)f[0].bytes_read, (unsigned long long)f[1].bytes_read);
        CHECK(f[1].bytes_read == ckpt);
        CHECK(fabs(f[0].amplification - 4) < 1e-12 && fabs(f[1].amplification - 1) < 1e-12);
        CHECK(f[0].readers == 16 && f[1].readers == 4);
        /* 7 MB per group at 400 Gbps after its read */
        CHECKF(fabs(f[1].broadcast_s - 7e6 * 8 / 400e9) < 1e-12, "%.12g", f[1].broadcast_s);
        CHECK(f[0].broadcast_s == 0);
        /* replica 0's ranks share one node: 28 MB through its 400G NIC,
         * then the broadcast */
        CHECKF(f[1].completion_s >= 28e6 * 8 / 400e9 + f[1].broadcast_s, "engine %d: %.6g s",
               eng, f[1].completion_s);
        CHECK(fabs(f[1].recovery_s - (300 + f[1].completion_s)) < 1e-9);
    }
    /* ZeRO-1: a replica reads the weights (2 of 14 B/param) in full and its
     * quarter of the optimizer state: (4 x 2 + 12) / 14 of the checkpoint */
    struct scenario sc;
    struct results r;
    struct err e = {""};
    restore_sc(&sc, ENGINE_FLUID, RESTORE_EVERY_REPLICA);
    sc.parallelism.zero_stage = 1;
    if (ckpt_run(&sc, &r, &e) == 0) {
        CHECKF(fabs(r.restore.amplification - 20.0 / 14) < 1e-6, "%.9g",
               r.restore.amplification);
        results_release(&r);
    }
}

/* A symmetric restore (32 writers' files back from 4 storage nodes) ends
 * within 2% of its own bound in both engines, named by the storage NIC's
 * send side; a slow back-end read moves bound and bottleneck to it, slow
 * reader NICs (4 storage nodes' 1.6 Tbps into 32 x 25 Gbps) to the writer
 * NIC segment, whose own bound is then the receivers'. */
static void work_restore_symmetric(void)
{
    for (int eng = ENGINE_PACKET; eng <= ENGINE_FLUID; eng++)
        for (int slow = 0; slow < 3; slow++) {
            struct scenario sc;
            struct results r;
            struct err e = {""};
            scenario_defaults(&sc);
            sc.engine = eng;
            sc.cluster.nodes = 32;
            sc.workload.bytes_per_writer = 4000000;
            sc.checkpoint.phase = PHASE_RESTORE;
            sc.restore.read_bps = slow == 1 ? 100000000000ull : 0;
            if (slow == 2)
                sc.cluster.nic_bps = 25000000000ull;
            if (ckpt_run(&sc, &r, &e) < 0) {
                CHECKF(0, "%s", e.msg);
                return;
            }
            enum path_seg want = slow == 1 ? PATH_BACKEND
                                 : slow == 2 ? PATH_WRITER_NIC : PATH_STORAGE_NIC;
            const struct restore_figures *f = &r.restore;
            CHECKF(r.ok && f->ran && f->finished, "%s", r.violation);
            CHECKF(f->completion_s >= f->bound_s && f->completion_s <= 1.02 * f->bound_s,
                   "engine %d slow %d: %.6g s against a bound of %.6g s", eng, slow,
                   f->completion_s, f->bound_s);
            CHECKF(f->bound_limit == (int)want && f->bottleneck == (int)want,
                   "engine %d slow %d: bound %s, bottleneck %s", eng, slow,
                   path_seg_key(f->bound_limit), path_seg_key(f->bottleneck));
            /* the storage nodes send: 4 x 32 MB at 400 Gbps (payload + headers) */
            if (!slow)
                CHECKF(f->bound_s > 32e6 * 8 / 400e9, "%.6g", f->bound_s);
            /* the segment table's bound for it: the run's bound */
            CHECKF(fabs(r.segs[want].bound_s - f->bound_s) < 0.01 * f->bound_s,
                   "engine %d slow %d: segment bound %.6g s, run bound %.6g s", eng, slow,
                   r.segs[want].bound_s, f->bound_s);
            CHECK(f->bytes_read == 128000000ull && f->amplification == 1);
            results_release(&r);
        }
}

/* The restore estimate of both modes in one pass (phase save's recovery
 * time auto) against each mode's own estimate, field by field: model form
 * with ZeRO 0, 1 and 3, chain replicas, ec fragments, a back-end read cap,
 * own_files (its other mode reads other parts), and the simple form. */
static void work_restore_estimate_both_is_each_mode(void)
{
    static const struct {
        int model, zero, rule, prot, simple;
        uint64_t read_bps;
    } cases[] = {
        {MODEL_LLAMA3_70B, 1, RULE_MEGATRON, PROTECT_NONE, 0, 0},
        {MODEL_LLAMA3_70B, 0, RULE_DEEPSPEED, PROTECT_NONE, 0, 0},
        {MODEL_LLAMA3_70B, 3, RULE_DEEPSPEED, PROTECT_NONE, 0, 0},
        {MODEL_LLAMA3_70B, 1, RULE_DCP, PROTECT_CHAIN, 0, 0},
        {MODEL_LLAMA3_8B, 1, RULE_MEGATRON, PROTECT_EC, 0, 0},
        {MODEL_LLAMA3_8B, 0, RULE_MEGATRON, PROTECT_REPLICA, 0, 20000000000ull},
        {MODEL_NONE, 0, RULE_DCP, PROTECT_NONE, 1, 0},
    };
    static const int modes[] = {RESTORE_EVERY_REPLICA, RESTORE_ONE_BROADCAST, RESTORE_OWN_FILES};
    uint32_t compared = 0, bad = 0, differ = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct scenario sc;
        if (cases[c].simple)
            scenario_defaults(&sc);
        else
            model_sc(&sc, cases[c].model, 64, 8, 1, (uint32_t)cases[c].zero, cases[c].rule);
        sc.storage.protection = cases[c].prot;
        if (cases[c].prot == PROTECT_EC) {
            sc.storage.ec_data = 2;
            sc.storage.ec_parity = 1;
        } else if (cases[c].prot != PROTECT_NONE) {
            sc.storage.replicas = 3;
        }
        sc.restore.read_bps = cases[c].read_bps;
        struct test_prep p;
        if (test_prepare(&p, &sc) < 0) {
            CHECKF(0, "case %zu: %s", c, p.e.msg);
            test_prep_release(&p);
            continue;
        }
        for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
            int mode = modes[k], other = restore_other_mode(mode);
            struct restore_estimate both[2], one[2];
            struct err e = {""};
            CHECK(workload_restore_estimate_both(&p.w, &p.eff, &p.t, mode, other, both, &e) == 0);
            CHECK(workload_restore_estimate(&p.w, &p.eff, &p.t, mode, &one[0], &e) == 0);
            CHECK(workload_restore_estimate(&p.w, &p.eff, &p.t, other, &one[1], &e) == 0);
            for (int m = 0; m < 2; m++) {
                compared++;
                if (both[m].ps != one[m].ps || both[m].limit != one[m].limit ||
                    both[m].bytes_read != one[m].bytes_read ||
                    both[m].bcast_ps != one[m].bcast_ps || both[m].readers != one[m].readers) {
                    if (!bad++)
                        CHECKF(0, "case %zu mode %d (%d of 2): %" PRIu64 " ps, %" PRIu64
                                  " B, %u readers; alone %" PRIu64 " ps, %" PRIu64
                                  " B, %u readers",
                               c, mode, m, both[m].ps, both[m].bytes_read, both[m].readers,
                               one[m].ps, one[m].bytes_read, one[m].readers);
                }
            }
            differ += one[0].ps != one[1].ps || one[0].bytes_read != one[1].bytes_read;
        }
        test_prep_release(&p);
    }
    CHECKF(compared == 42 && bad == 0, "%u compared, %u wrong", compared, bad);
    CHECKF(differ >= 6, "the modes differ in %u cases only", differ);
}

SUITE(suite_work) = {
    {"work_restore_estimate_both_is_each_mode", work_restore_estimate_both_is_each_mode},
    {"work_striping_matches_naive", work_striping_matches_naive},
    {"work_wide_striping_linear", work_wide_striping_linear},
    {"work_bytes_per_param", work_bytes_per_param},
    {"work_sizes_vs_mlperf", work_sizes_vs_mlperf},
    {"work_zero1_vs_zero3_writers_and_skew", work_zero1_vs_zero3_writers_and_skew},
    {"work_rules_conserve_bytes", work_rules_conserve_bytes},
    {"work_simple_form_unchanged", work_simple_form_unchanged},
    {"work_striping", work_striping},
    {"work_writer_rank_without_array", work_writer_rank_without_array},
    {"work_file_and_feed_follow_the_list", work_file_and_feed_follow_the_list},
    {"work_nics_per_node", work_nics_per_node},
    {"work_rails", work_rails},
    {"work_file_open_serial", work_file_open_serial},
    {"work_policies", work_policies},
    {"work_two_phase_policies", work_two_phase_policies},
    {"work_stragglers", work_stragglers},
    {"work_rate_and_start_beside_the_transfers", work_rate_and_start_beside_the_transfers},
    {"work_bad_model_inputs", work_bad_model_inputs},
    {"e2e_stagger_lowers_queues_and_pauses", e2e_stagger_lowers_queues_and_pauses},
    {"e2e_async_stall_is_staging", e2e_async_stall_is_staging},
    {"work_placement_hand_count", work_placement_hand_count},
    {"work_placement_mlperf70b", work_placement_mlperf70b},
    {"work_fsync_one_file", work_fsync_one_file},
    {"work_metadata_queue", work_metadata_queue},
    {"work_rank_state_files", work_rank_state_files},
    {"work_restore_amplification", work_restore_amplification},
    {"work_restore_symmetric", work_restore_symmetric},
    {0, 0},
};
