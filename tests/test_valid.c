/* Tests of the correctness pass (valid): each names the defect it guards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/api/api.h"
#include "../src/core/units.h"
#include "../src/pkt/engine.h"
#include "../src/pkt/pnet.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

/* ---- helpers ----------------------------------------------------------- */

/* Write text (len bytes) to a new temporary file; path receives its name. */
static int write_temp(char *path, size_t plen, const char *text, size_t len)
{
    snprintf(path, plen, "/tmp/ckptnet-valid-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fd);
    return off == len ? 0 : -1;
}

/* No byte of s is a control character (the message is one clean line). */
static int one_clean_line(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    return 1;
}

/* ---- input caps (item 10) ---------------------------------------------- */

/* /dev/zero used to be read to exhaustion (4.2 GB); now 16 MiB + 1 bytes. */
static void valid_cap_endless_file(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_load_file(&sc, "/dev/zero", &e) == -1);
    CHECKF(strcmp(e.msg, "/dev/zero: larger than 16 MiB, the limit of a scenario file") == 0,
           "%s", e.msg);
}

/* A regular file over the cap is refused by its size, before reading. */
static void valid_cap_large_file(void)
{
    size_t len = (size_t)SCENARIO_MAX_BYTES + 1;
    char *text = malloc(len);
    char path[64];
    CHECK(text != NULL);
    if (!text)
        return;
    memset(text, '#', len); /* a comment: valid YAML of any length */
    text[len - 1] = '\n';
    CHECK(write_temp(path, sizeof path, text, len) == 0);
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_load_file(&sc, path, &e) == -1);
    CHECKF(strstr(e.msg, ": larger than 16 MiB, the limit of a scenario file") != NULL, "%s",
           e.msg);
    /* one byte less is loaded (an empty scenario) */
    CHECK(truncate(path, (off_t)SCENARIO_MAX_BYTES) == 0);
    CHECKF(scenario_load_file(&sc, path, &e) == 0, "%s", e.msg);
    unlink(path);
    free(text);
}

/* 100k-deep flow nesting hung in libyaml's loader; now refused at level 65. */
static void valid_cap_deep_nesting(void)
{
    static const char *const open[] = {"[", "{a: ", "- "};
    for (int k = 0; k < 3; k++) {
        size_t n = 100000, ol = strlen(open[k]);
        char *text = malloc(n * ol + 2);
        CHECK(text != NULL);
        if (!text)
            return;
        for (size_t i = 0; i < n; i++)
            memcpy(text + i * ol, open[k], ol);
        memcpy(text + n * ol, "x", 2);
        struct scenario sc;
        struct err e = {{0}};
        scenario_defaults(&sc);
        CHECK(scenario_load_string(&sc, text, "deep.yaml", &e) == -1);
        CHECKF(strstr(e.msg, "deep.yaml:1:") == e.msg &&
               strstr(e.msg, ": nested deeper than 64 levels") != NULL,
               "%s: %s", open[k], e.msg);
        free(text);
    }
    /* 64 levels are fine (a sequence is then a bad value, not a cap) */
    char text[400] = "seed: ";
    for (int i = 0; i < 63; i++)
        strcat(text, "[");
    for (int i = 0; i < 63; i++)
        strcat(text, "]");
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_load_string(&sc, text, "ok.yaml", &e) == -1);
    CHECKF(strstr(e.msg, "seed: expected a scalar value") != NULL, "%s", e.msg);
}

/* A 16 MiB flow sequence took libyaml's loader 28 s and 1.4 GB; a scenario
 * has a few hundred nodes, so more than 10000 are refused while walking. */
static void valid_cap_node_count(void)
{
    size_t n = 100000;
    char *text = malloc(2 * n + 16);
    CHECK(text != NULL);
    if (!text)
        return;
    size_t o = (size_t)sprintf(text, "seed: [");
    for (size_t i = 0; i < n; i++)
        o += (size_t)sprintf(text + o, "1,");
    sprintf(text + o, "1]\n");
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_load_string(&sc, text, "wide.yaml", &e) == -1);
    CHECKF(strstr(e.msg, "wide.yaml:1:20002: more than 10000 YAML nodes (a scenario has ") ==
               e.msg,
           "%s", e.msg);
    free(text);
}

/* ---- one-line messages, decimal reals (item 11) ------------------------ */

/* A value, a key and a file name with a newline and an ESC sequence: the
 * message escapes them. */
static void valid_escape_control_characters(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_load_string(&sc, "fabric:\n  spines: \"1\\n\\e[31mred\"\n", "s.yaml", &e) ==
          -1);
    CHECKF(strcmp(e.msg, "s.yaml:2:11: fabric.spines: expected a non-negative integer, got "
                         "\"1\\n\\x1b[31mred\"") == 0,
           "%s", e.msg);
    CHECK(scenario_load_string(&sc, "\"fab\\tric\\e\": 1\n", "s.yaml", &e) == -1);
    CHECKF(strncmp(e.msg, "s.yaml:1:1: fab\\tric\\x1b: unknown key", 36) == 0, "%s", e.msg);
    CHECK(scenario_set(&sc, "fabric.mtu=4\r\nKB", &e) == -1);
    CHECKF(one_clean_line(e.msg) && strstr(e.msg, "\"4\\r\\nKB\"") != NULL, "%s", e.msg);
    CHECK(scenario_load_file(&sc, "/nonexistent/a\nb\x1b[2J.yaml", &e) == -1);
    CHECKF(strncmp(e.msg, "cannot open '/nonexistent/a\\nb\\x1b[2J.yaml'", 42) == 0, "%s",
           e.msg);
    /* C1 control (CSI as UTF-8) and DEL */
    CHECK(scenario_set(&sc, "seed=1\xc2\x9b" "2J\x7f", &e) == -1);
    CHECKF(strstr(e.msg, "\"1\\xc2\\x9b2J\\x7f\"") != NULL, "%s", e.msg);
    /* err_set itself, and truncation keeps whole escapes */
    char big[600];
    memset(big, '\n', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    err_set(&e, "%s", big);
    CHECK(one_clean_line(e.msg) && strlen(e.msg) == 510 && strstr(e.msg, "\\n\\n") == e.msg);
}

/* Text values are echoed into reports: control characters are refused. */
static void valid_text_printable(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "fabric.switch=CX\x1b[1m", &e) == -1);
    CHECKF(strcmp(e.msg, "--set: fabric.switch: expected printable text, got \"CX\\x1b[1m\"") ==
               0,
           "%s", e.msg);
    CHECK(scenario_set(&sc, "fabric.failed_link_names=cleaf0-spine1", &e) == 0);
}

/* Reals are decimal: strtod's hex floats, inf and nan are refused. */
static void valid_real_decimal_only(void)
{
    static const char *const bad[] = {"0x1p3", "0X10", "inf", "-inf", "infinity", "nan",
                                      "NAN(1)", "1e", ".", "1.2.3", "1e+", "", " ", "1 ",
                                      "0x0"};
    static const char *const good[] = {"8", "8.", ".5", "0.5", "1e-3", "1E2", "+2", " 3"};
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char a[64];
        snprintf(a, sizeof a, "fabric.mmu.alpha=%s", bad[i]);
        CHECKF(scenario_set(&sc, a, &e) == -1 && strstr(e.msg, "expected a decimal number"),
               "%s: %s", bad[i], e.msg);
    }
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char a[64];
        snprintf(a, sizeof a, "fabric.mmu.alpha=%s", good[i]);
        CHECKF(scenario_set(&sc, a, &e) == 0, "%s: %s", good[i], e.msg);
    }
    CHECK(scenario_set(&sc, "fabric.mmu.alpha=0x1p3", &e) == -1);
    CHECKF(strcmp(e.msg, "--set: fabric.mmu.alpha: expected a decimal number like \"0.5\" or "
                         "\"1e-3\", got \"0x1p3\"") == 0,
           "%s", e.msg);
}

/* ---- packet-model checks in validation (item 8) ----------------------- */

/* A small scenario: 8 writers of 1 MB (4 storage nodes). The case's lines
 * follow from line 6 on. */
static const char small_yaml[] = "cluster:\n"
                                 "  nodes: 8\n"
                                 "workload:\n"
                                 "  bytes_per_writer: 1MB\n"
                                 "seed: 3\n";

struct bad_case {
    const char *yaml;  /* appended to small_yaml */
    const char *want;  /* the whole message, or its start when it ends in '~' */
};

static const struct bad_case bad_cases[] = {
    {"fabric:\n  pfc:\n    priorities: 3,9\n",
     "bad.yaml:8:17: fabric.pfc.priorities: expected priorities 0-7 separated by commas, "
     "got \"3,9\""},
    {"fabric:\n  dwrr_weights: 1,1,1\n",
     "bad.yaml:7:17: fabric.dwrr_weights: expected 8 weights 1-1000 separated by commas, got "
     "\"1,1,1\""},
    {"fabric:\n  dwrr_weights: 1,1,1,1,1,1,1,1001\n", "bad.yaml:7:17: fabric.dwrr_weights: ~"},
    {"transport:\n  cnp_priority: 3\n",
     "bad.yaml:7:17: transport.cnp_priority: must differ from transport.data_priority (3)"},
    {"transport:\n  data_priority: 6\n",
     "bad.yaml:7:18: transport.data_priority: must differ from transport.cnp_priority (6)"},
    {"fabric:\n  pfc:\n    priorities: 3,6\n",
     "bad.yaml:8:17: fabric.pfc.priorities: the CNP priority 6 must not be lossless "
     "(fabric.pfc.priorities \"3,6\")"},
    {"transport:\n  cnp_dscp: 26\n",
     "bad.yaml:7:13: transport.cnp_dscp: must differ from transport.data_dscp (26)"},
    {"fabric:\n  ecn:\n    kmin: 1MB\n    kmax: 500KB\n",
     "bad.yaml:9:11: fabric.ecn.kmax: fabric.ecn.kmax (500KB) must be larger than "
     "fabric.ecn.kmin (1MB)"},
    {"fabric:\n  buffer: 300KB\n",
     "bad.yaml:7:11: fabric.buffer: 300KB is too small for a compute leaf with 24 ports: ~"},
    /* fabric.mmu.pools per_class: each pool must hold its own reserves */
    {"fabric:\n  buffer: 8MB\n  mmu:\n    pools: per_class\n",
     "bad.yaml:9:12: fabric.mmu.pools: per_class splits the 8MB buffer of a compute leaf into "
     "2 pools of 4 MB; a lossless pool's reserves and PFC headroom need 4.29 MB: use shared "
     "or a larger fabric.buffer"},
    /* a defaulted key is blamed with the file's name */
    {"fabric:\n  spines: 512\n",
     "bad.yaml: fabric.buffer: 70MB (switch profile CX732Q-N) is too small for a compute leaf "
     "with 520 ports: ~"},
    {"storage:\n  stuck_nodes: 1\n",
     "bad.yaml:7:16: storage.stuck_nodes: needs storage.ingest_buffer (a stuck node with an "
     "unlimited buffer never pushes back)"},
    {"storage:\n  stuck_nodes: 5\n  ingest_buffer: 2MB\n",
     "bad.yaml:7:16: storage.stuck_nodes: 5 is more than the 4 storage nodes"},
    {"storage:\n  drain_rate: 100Gbps\n  ingest_buffer: 100KB\n",
     "bad.yaml:8:18: storage.ingest_buffer: must hold the PFC headroom of its links plus two "
     "MTUs, at least ~"},
    {"storage:\n  max_outstanding: 1\n  request_size: 1KB\n",
     "bad.yaml:7:20: storage.max_outstanding: the window (1000 B) must hold one packet "
     "(fabric.mtu)"},
    {"fabric:\n  switch: Foo\n", "bad.yaml:7:11: fabric.switch: unknown switch profile \"Foo\" ~"},
    {"storage:\n  max_outstanding: 1\n  request_size: 5GB\n",
     "bad.yaml:8:17: storage.request_size: at most 4GB with storage.max_outstanding"},
};

static int msg_matches(const char *msg, const char *want)
{
    size_t wl = strlen(want);
    if (wl && want[wl - 1] == '~')
        return strncmp(msg, want, wl - 1) == 0;
    return strcmp(msg, want) == 0;
}

/* Every check the packet engine needs is made by validation: describe, the
 * fluid engine and a packet run refuse the same inputs with the same line,
 * naming the file position where the key was set (describe and the fluid
 * engine used to accept them all). */
static void valid_packet_checks_in_all_modes(void)
{
    static const char *const modes[] = {"validate", "describe", "fluid", "packet"};
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml, "%s%s", small_yaml, bad_cases[i].yaml);
        for (int m = 0; m < 4; m++) {
            struct scenario sc;
            struct err e = {{0}};
            scenario_defaults(&sc);
            int rc = scenario_load_string(&sc, yaml, "bad.yaml", &e);
            CHECKF(rc == 0, "%s", e.msg);
            if (rc)
                continue;
            sc.engine = m == 2 ? ENGINE_FLUID : ENGINE_PACKET;
            if (m == 0) {
                rc = scenario_validate(&sc, &e);
            } else if (m == 1) {
                struct ckpt_description d;
                rc = ckpt_describe(&sc, &d, &e);
            } else {
                struct results r;
                rc = ckpt_run(&sc, &r, &e);
                if (rc == 0)
                    results_release(&r);
            }
            CHECKF(rc == -1 && msg_matches(e.msg, bad_cases[i].want), "case %zu, %s: got \"%s\"",
                   i, modes[m], rc == -1 ? e.msg : "(accepted)");
        }
    }
}

/* A 4-node fabric and its workload for calling the packet engine directly. */
struct tiny_run {
    struct scenario sc;
    struct err e;
    struct arena a;
    struct topo t;
    struct workload w;
    struct results r;
};

/* 0 when the inputs could not be built (checked). */
static int tiny_run_inputs(struct tiny_run *x)
{
    memset(x, 0, sizeof *x);
    scenario_defaults(&x->sc);
    test_set(&x->sc, "cluster.nodes=4");
    test_set(&x->sc, "workload.bytes_per_writer=64KB");
    arena_init(&x->a);
    int built = scenario_resolve(&x->sc, &x->e) == 0 &&
                topo_build(&x->t, &x->sc, &x->a, &x->e) == 0 &&
                workload_build(&x->w, &x->sc, &x->t, &x->a, &x->e) == 0;
    CHECK(built);
    if (!built)
        arena_release(&x->a);
    return built;
}

/* A packet record names its ingress port in 24 bits: a fabric with more
 * ports is refused by the packet engine, never run with ports mixed up. */
static void valid_pkt_port_limit(void)
{
    struct tiny_run x;
    if (!tiny_run_inputs(&x))
        return;
    struct topo big = x.t;
    big.n_ports = PKT_MAX_PORTS;
    CHECK(pkt_run(&x.sc, &big, &x.w, &x.r, &x.e) == -1);
    CHECKF(strstr(x.e.msg, "at most 16777215 ports, the fabric has 16777216") != NULL, "%s",
           x.e.msg);
    results_release(&x.r);
    memset(&x.r, 0, sizeof x.r);
    CHECK(pkt_run(&x.sc, &x.t, &x.w, &x.r, &x.e) == 0 && x.r.ok); /* the real fabric runs */
    results_release(&x.r);
    /* run and describe refuse it up front, --force or not */
    struct ckpt_estimate est;
    ckpt_estimate(&x.sc, &x.t, &x.w, &x.a, ENGINE_PACKET, 0, &est);
    CHECK(est.ports == x.t.n_ports);
    est.ports = PKT_MAX_PORTS;
    x.sc.sim.force = 1;
    CHECK(ckpt_packet_limits(&x.sc, &est, 0, &x.e) == -1);
    CHECKF(strstr(x.e.msg, "engine: the packet engine holds at most 16777215 ports, the "
                           "fabric has 16777216") != NULL, "%s", x.e.msg);
    est.ports = PKT_MAX_PORTS - 1;
    CHECK(ckpt_packet_limits(&x.sc, &est, 0, &x.e) == 0);
    arena_release(&x.a);
}

/* The packet engine called directly (as some tests and benchmarks do)
 * validates too, instead of running with a malformed class setup. */
static void valid_pkt_run_direct_validates(void)
{
    struct tiny_run x;
    if (!tiny_run_inputs(&x))
        return;
    test_set(&x.sc, "fabric.dwrr_weights=1,2");
    CHECK(pkt_run(&x.sc, &x.t, &x.w, &x.r, &x.e) == -1);
    CHECKF(strcmp(x.e.msg, "--set: fabric.dwrr_weights: expected 8 weights 1-1000 separated "
                           "by commas, got \"1,2\"") == 0,
           "%s", x.e.msg);
    results_release(&x.r);
    arena_release(&x.a);
}

/* The same checks through --set name "--set", and a key from an earlier
 * file is not given the last file's position. */
static void valid_packet_checks_where(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "transport.cnp_dscp=26", &e) == 0);
    CHECK(scenario_validate(&sc, &e) == -1);
    CHECKF(strcmp(e.msg, "--set: transport.cnp_dscp: must differ from transport.data_dscp (26)") ==
               0,
           "%s", e.msg);
    scenario_defaults(&sc);
    CHECK(scenario_load_string(&sc, "transport:\n  cnp_dscp: 26\n", "a.yaml", &e) == 0);
    CHECK(scenario_load_string(&sc, "seed: 2\n", "b.yaml", &e) == 0);
    CHECK(scenario_validate(&sc, &e) == -1);
    CHECKF(strcmp(e.msg, "an earlier file: transport.cnp_dscp: must differ from "
                         "transport.data_dscp (26)") == 0,
           "%s", e.msg);
    /* what the engine accepted stays accepted: blanks before weights */
    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "fabric.dwrr_weights=1, 2, 3, 4, 5, 6, 7, 1000", &e) == 0);
    CHECKF(scenario_validate(&sc, &e) == 0, "%s", e.msg);
    /* no file at all: the key alone */
    scenario_defaults(&sc);
    sc.storage.stuck_nodes = 9;
    CHECK(scenario_validate(&sc, &e) == -1);
    CHECKF(strcmp(e.msg, "storage.stuck_nodes: 9 is more than the 4 storage nodes") == 0, "%s",
           e.msg);
    /* errors of later stages (workload) are located the same way */
    scenario_defaults(&sc);
    CHECK(scenario_load_string(&sc, "cluster:\n  nodes: 8\nstorage:\n  stripe_count: 9\n",
                               "w.yaml", &e) == 0);
    struct ckpt_description d;
    CHECK(ckpt_describe(&sc, &d, &e) == -1);
    CHECKF(strncmp(e.msg, "w.yaml:4:17: storage.stripe_count: 9 is more than", 49) == 0, "%s",
           e.msg);
}

/* Validation computes the switch buffer the packet engine's MMU reserves
 * (src/pkt/mmu.c, which keeps an internal guard): on a set of fabrics the
 * smallest buffer validation accepts must run, and one byte less must be
 * refused. */
static void valid_buffer_need_matches_engine(void)
{
    static const char *const fabrics[] = {
        "",
        "cluster.nics_per_node=2",
        "fabric.links_per_spine=2",
        "fabric.pfc.priorities=3,4",
        "fabric.pfc.enabled=false",
        "fabric.cable_length=300",
        "cluster.nic_speed=100Gbps",
        "storage.nic_speed=800Gbps",
        "fabric.uplink_speed=200Gbps",
        "fabric.hosts_per_leaf=3",
        "fabric.mmu.reserve=0",
    };
    for (size_t i = 0; i < sizeof fabrics / sizeof fabrics[0]; i++) {
        struct scenario sc;
        struct err e = {{0}};
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=5");
        test_set(&sc, "storage.nodes=3");
        test_set(&sc, "fabric.spines=3");
        test_set(&sc, "fabric.allow_oversize=true"); /* 800G NICs on 400G ports */
        test_set(&sc, "workload.bytes_per_writer=8KB");
        if (fabrics[i][0])
            test_set(&sc, "%s", fabrics[i]);
        uint64_t lo = 4097, hi = 1000000000; /* refused at lo, accepted at hi */
        test_set(&sc, "fabric.buffer=%lluB", (unsigned long long)hi);
        CHECKF(scenario_validate(&sc, &e) == 0, "%s: %s", fabrics[i], e.msg);
        while (hi - lo > 1) {
            uint64_t mid = lo + (hi - lo) / 2;
            test_set(&sc, "fabric.buffer=%lluB", (unsigned long long)mid);
            if (scenario_validate(&sc, &e) == 0)
                hi = mid;
            else
                lo = mid;
        }
        test_set(&sc, "fabric.buffer=%lluB", (unsigned long long)hi);
        struct results r;
        int rc = ckpt_run(&sc, &r, &e);
        CHECKF(rc == 0, "%s at %llu B: %s", fabrics[i], (unsigned long long)hi, e.msg);
        if (rc == 0)
            results_release(&r);
        test_set(&sc, "fabric.buffer=%lluB", (unsigned long long)hi - 1);
        CHECKF(ckpt_run(&sc, &r, &e) == -1 && strstr(e.msg, "fabric.buffer: ") &&
                   strstr(e.msg, "too small"),
               "%s: %s", fabrics[i], e.msg);
    }
}

/* ---- packet runs past the estimate limits (item 12) -------------------- */

/* Two writers of 1TB: cheap to describe, ~3.9e9 packet events. */
static void huge_packet_run(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=2");
    test_set(sc, "workload.bytes_per_writer=1TB");
}

/* Such a run used to start (and take ~6 minutes); now it is refused before
 * the engine with the estimate and the ways out, describe says so, and
 * --force (sim.force) runs it. */
static void valid_packet_run_refused_over_limit(void)
{
    struct scenario sc;
    struct err e = {{0}};
    struct ckpt_description d;
    huge_packet_run(&sc);
    CHECKF(ckpt_describe(&sc, &d, &e) == 0, "%s", e.msg);
    CHECKF(d.est_events > 3.9e9 && d.est_events < 4e9, "%g", d.est_events);
    CHECKF(strstr(d.r.engine_reason, "too large: run refused without --force") != NULL, "%s",
           d.r.engine_reason);

    struct results r;
    CHECK(ckpt_run(&sc, &r, &e) == -1);
    CHECKF(strstr(e.msg, "engine: the packet engine would take ~3.91e+09 events (limit 1e9) "
                         "and up to ") == e.msg &&
               strstr(e.msg, "; use --engine fluid, or --force (sim.force) to run it anyway"),
           "%s", e.msg);

    /* forced, it runs (stopped early by the time limit) */
    test_set(&sc, "sim.force=true");
    test_set(&sc, "sim.time_limit=20us");
    CHECKF(ckpt_describe(&sc, &d, &e) == 0 && !strstr(d.r.engine_reason, "too large"), "%s",
           d.r.engine_reason);
    int rc = ckpt_run(&sc, &r, &e);
    CHECKF(rc == 0, "%s", e.msg);
    if (rc == 0) {
        CHECK(!r.ok && strstr(r.violation, "time limit") && r.bytes_delivered > 0);
        results_release(&r);
    }
    /* the fluid engine has no such limit */
    huge_packet_run(&sc);
    test_set(&sc, "engine=fluid");
    rc = ckpt_run(&sc, &r, &e);
    CHECKF(rc == 0, "%s", e.msg);
    if (rc == 0) {
        CHECK(r.ok);
        results_release(&r);
    }
    /* the shipped packet scenarios stay under the limits */
    scenario_defaults(&sc);
    CHECK(scenario_load_file(&sc, "scenarios/bench-1024.yaml", &e) == 0);
    CHECKF(ckpt_describe(&sc, &d, &e) == 0 && !strstr(d.r.engine_reason, "too large"), "%s",
           d.r.engine_reason);
}

/* The memory limit: the estimate against the machine's memory. */
static void valid_packet_memory_limit(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    struct ckpt_estimate est = {.packets = 1e6, .events = 8e6, .mem_bytes = 30e9, .wall_s = 0.7};
    CHECK(ckpt_packet_limits(&sc, &est, 24e9, &e) == -1);
    CHECKF(strcmp(e.msg, "engine: the packet engine would take ~8e+06 events and up to 30 GB of "
                         "memory (more than this machine's) (~0.7 s of wall time); use --engine "
                         "fluid, or --force (sim.force) to run it anyway") == 0,
           "%s", e.msg);
    CHECK(ckpt_packet_limits(&sc, &est, 31e9, &e) == 0);
    CHECK(ckpt_packet_limits(&sc, &est, 0, &e) == 0); /* unknown: no limit */
    est.events = 1e9;
    CHECK(ckpt_packet_limits(&sc, &est, 31e9, &e) == 0); /* the limit itself is allowed */
    est.events = 1.01e9;
    CHECK(ckpt_packet_limits(&sc, &est, 31e9, &e) == -1);
    sc.sim.force = 1;
    CHECK(ckpt_packet_limits(&sc, &est, 24e9, &e) == 0);
    CHECK(ckpt_phys_bytes() > 1e8);
}

SUITE(suite_valid) = {
    {"valid_cap_endless_file", valid_cap_endless_file},
    {"valid_cap_large_file", valid_cap_large_file},
    {"valid_cap_deep_nesting", valid_cap_deep_nesting},
    {"valid_cap_node_count", valid_cap_node_count},
    {"valid_escape_control_characters", valid_escape_control_characters},
    {"valid_text_printable", valid_text_printable},
    {"valid_real_decimal_only", valid_real_decimal_only},
    {"valid_packet_checks_in_all_modes", valid_packet_checks_in_all_modes},
    {"valid_packet_checks_where", valid_packet_checks_where},
    {"valid_pkt_run_direct_validates", valid_pkt_run_direct_validates},
    {"valid_pkt_port_limit", valid_pkt_port_limit},
    {"valid_buffer_need_matches_engine", valid_buffer_need_matches_engine},
    {"valid_packet_run_refused_over_limit", valid_packet_run_refused_over_limit},
    {"valid_packet_memory_limit", valid_packet_memory_limit},
    {NULL, NULL},
};
