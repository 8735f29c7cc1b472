/* Input parsing and defaults of issue 25 ("Correctness pass 2"): rates in
 * bytes per second echoed as written, list keys as YAML sequences of any
 * length, and the other inputs items. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/core/units.h"
#include "../src/pkt/capture.h"
#include "harness.h"
#include "support.h"

/* The echoed value of key, or "" (scenario_echo). */
struct echo_find {
    const char *key;
    char value[256];
};

static void find_key(void *ud, const char *key, const char *value, int kind)
{
    struct echo_find *f = ud;
    (void)kind;
    if (!strcmp(key, f->key))
        snprintf(f->value, sizeof f->value, "%s", value);
}

static const char *echoed(const struct scenario *sc, const char *key, struct echo_find *f)
{
    f->key = key;
    f->value[0] = '\0';
    scenario_echo(sc, find_key, f);
    return f->value;
}

/* Item 17: "20GB/s" and "2.5GiB/s" are rates, exact in bits per second. */
static void inputs_byte_rates(void)
{
    uint64_t v = 0;
    unsigned u = 99;
    char m[200], b[64];
    CHECK(units_parse_rate("20GB/s", &v, m, sizeof m) == 0 && v == UINT64_C(160000000000));
    CHECK(units_parse_rate("2.5GiB/s", &v, m, sizeof m) == 0 &&
          v == UINT64_C(5) * (UINT64_C(1) << 30) * 4);
    CHECK(units_parse_rate("1B/s", &v, m, sizeof m) == 0 && v == 8);
    CHECK(units_parse_rate("3 MiB/s", &v, m, sizeof m) == 0 && v == 3 * 8 * (UINT64_C(1) << 20));
    CHECK(units_parse_rate("0.1B/s", &v, m, sizeof m) < 0 && strstr(m, "not a whole number"));
    CHECK(units_parse_rate("1000TiB/s", &v, m, sizeof m) == 0);
    CHECK(units_parse_rate("3000000TiB/s", &v, m, sizeof m) < 0 && strstr(m, "too large"));
    /* the unit written comes back, with its decimals */
    static const char *const texts[] = {"20GB/s", "2.5GiB/s", "1B/s", "0.125KB/s",
                                        "1.5TiB/s", "7kB/s", "12MB/s"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        CHECK(units_parse_rate_unit(texts[i], &v, &u, m, sizeof m) == 0 && u > 0);
        CHECKF(!strcmp(units_fmt_rate_unit(v, u, b, sizeof b), texts[i]), "%s -> %s",
               texts[i], b);
    }
    /* bits: the canonical form, as before */
    CHECK(units_parse_rate_unit("0.4Tbps", &v, &u, m, sizeof m) == 0 && u == 0 &&
          !strcmp(units_fmt_rate_unit(v, u, b, sizeof b), "400Gbps"));
    CHECK(units_parse_rate_unit("0", &v, &u, m, sizeof m) == 0 && u == 0 && v == 0);
}

/* Item 17: a rate key given in bytes per second is echoed (JSON scenario,
 * describe) as written; a later value in bits echoes in bits. */
static void inputs_rate_echo_as_written(void)
{
    struct scenario sc;
    struct err e = {""};
    struct echo_find f;
    scenario_defaults(&sc);
    CHECKF(scenario_load_string(&sc, "storage:\n  drain_rate: 20GB/s\nrestore:\n"
                                     "  read_rate: 2.5GiB/s\n", "t.yaml", &e) == 0, "%s", e.msg);
    CHECK(sc.storage.drain_bps == UINT64_C(160000000000));
    CHECKF(!strcmp(echoed(&sc, "storage.drain_rate", &f), "20GB/s"), "%s", f.value);
    CHECKF(!strcmp(echoed(&sc, "restore.read_rate", &f), "2.5GiB/s"), "%s", f.value);
    CHECK(!strcmp(echoed(&sc, "cluster.nic_speed", &f), "400Gbps"));
    test_set(&sc, "cluster.nic_speed=50GB/s");
    CHECK(sc.cluster.nic_bps == UINT64_C(400000000000));
    CHECKF(!strcmp(echoed(&sc, "cluster.nic_speed", &f), "50GB/s"), "%s", f.value);
    test_set(&sc, "storage.drain_rate=100Gbps");
    CHECK(!strcmp(echoed(&sc, "storage.drain_rate", &f), "100Gbps"));
    /* the resolved (effective) scenario keeps it */
    CHECK(scenario_resolve(&sc, &e) == 0);
    CHECK(!strcmp(echoed(&sc, "restore.read_rate", &f), "2.5GiB/s"));
    /* and a run's JSON echoes it */
    test_set(&sc, "engine=fluid");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    char *js = test_json(&sc, &r);
    CHECK(js && strstr(js, "\"read_rate\": \"2.5GiB/s\"") && strstr(js, "\"nic_speed\": \"50GB/s\""));
    free(js);
    results_release(&r);
}

/* Item 17: fabric.failed_link_names as a YAML list, longer than the 64
 * characters a text key had. */
static void inputs_failed_links_list(void)
{
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    char yaml[4096] = "engine: fluid\nfabric:\n  failed_link_names:\n";
    int n = 0;
    for (int l = 0; l < 8; l++)
        for (int s = 0; s < 5; s++, n++)
            snprintf(yaml + strlen(yaml), sizeof yaml - strlen(yaml),
                     "    - cleaf%d-spine%d\n", l, s);
    CHECKF(scenario_load_string(&sc, yaml, "t.yaml", &e) == 0, "%s", e.msg);
    CHECK(strlen(sc.fabric.failed_link_names) > 64 &&
          !strncmp(sc.fabric.failed_link_names, "cleaf0-spine0,cleaf0-spine1,", 28));
    struct results r;
    CHECK(test_run(&sc, &r) == 0 && r.failed_links == (uint32_t)n);
    results_release(&r);
    /* flow style, and an empty list is none */
    scenario_defaults(&sc);
    CHECK(scenario_load_string(&sc, "fabric:\n  failed_link_names: [cleaf1-spine2, "
                                    "sleaf0-spine3]\n", "t.yaml", &e) == 0 &&
          !strcmp(sc.fabric.failed_link_names, "cleaf1-spine2,sleaf0-spine3"));
    CHECK(scenario_load_string(&sc, "fabric:\n  failed_link_names: []\n", "t.yaml", &e) == 0 &&
          !strcmp(sc.fabric.failed_link_names, "none"));
    /* lossless priorities too */
    CHECK(scenario_load_string(&sc, "fabric:\n  pfc:\n    priorities: [3, 4]\n", "t.yaml",
                               &e) == 0 &&
          !strcmp(sc.fabric.pfc_priorities, "3,4"));
    /* bad items name file, line and key */
    CHECK(scenario_load_string(&sc, "fabric:\n  failed_link_names: [a, [b]]\n", "t.yaml", &e) < 0 &&
          strstr(e.msg, "t.yaml:2:") && strstr(e.msg, "fabric.failed_link_names"));
    CHECK(scenario_load_string(&sc, "fabric:\n  failed_link_names: [\"a,b\"]\n", "t.yaml", &e) < 0 &&
          strstr(e.msg, "without commas"));
    CHECK(scenario_load_string(&sc, "fabric:\n  pfc:\n    priorities: []\n", "t.yaml", &e) < 0 &&
          strstr(e.msg, "fabric.pfc.priorities"));
    CHECK(scenario_load_string(&sc, "fabric:\n  spines: [1, 2]\n", "t.yaml", &e) < 0 &&
          strstr(e.msg, "expected a scalar value"));
}

/* Item 18: a restore with restore.read_rate unset but storage.drain_rate
 * set reads 2.5x faster than the storage writes here; the summary and the
 * JSON say the reads were taken as unlimited. */
static void inputs_restore_reads_unlimited(void)
{
    struct scenario sc;
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    test_set(&sc, "checkpoint.phase=both");
    test_set(&sc, "storage.drain_rate=20GB/s");
    struct results r;
    CHECK(test_run(&sc, &r) == 0 && r.restore.ran);
    CHECKF(r.restore.completion_s < 0.5 * r.completion_s, "restore %g write %g",
           r.restore.completion_s, r.completion_s);
    char *js = test_json(&sc, &r), *sum = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&sum, &n);
    report_summary(f, &sc, &r);
    fclose(f);
    CHECK(js && strstr(js, "\"reads_unlimited\": true"));
    CHECKF(sum && strstr(sum, "reads assume an unlimited back end: restore.read_rate is unset "
                              "while storage.drain_rate writes 20GB/s a node"), "%s", sum);
    free(js);
    free(sum);
    results_release(&r);
    /* with a read rate: limited, and nothing said */
    test_set(&sc, "restore.read_rate=20GB/s");
    CHECK(test_run(&sc, &r) == 0);
    js = test_json(&sc, &r);
    f = open_memstream(&sum, &n);
    report_summary(f, &sc, &r);
    fclose(f);
    CHECK(js && strstr(js, "\"reads_unlimited\": false"));
    CHECK(sum && !strstr(sum, "unlimited back end"));
    CHECKF(r.restore.completion_s > 0.99 * r.completion_s, "restore %g write %g",
           r.restore.completion_s, r.completion_s);
    free(js);
    free(sum);
    results_release(&r);
}

/* Item 15: fabric.tiers auto plans every storage placement it accepts
 * (storage_pods spread put a pod's share of storage leaves on spines sized
 * for its compute leaves alone: "a spine needs 33 ports"), and the oversize
 * refusal suggests only what would work. */
static void inputs_auto_plans_spread(void)
{
    static const uint32_t nodes[] = {100, 520, 1016, 2000, 4000};
    static const uint32_t storage[] = {1, 8, 40, 250};
    static const char *const sw[] = {"CX732Q-N", "CX764QH-N"};
    int planned = 0;
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t c = 0; c < 2; c++)
                for (int spread = 0; spread < 2; spread++) {
                    struct scenario sc;
                    struct err e = {{0}};
                    struct ckpt_description d;
                    scenario_defaults(&sc);
                    test_set(&sc, "engine=fluid");
                    test_set(&sc, "fabric.tiers=auto");
                    test_set(&sc, "fabric.storage_pods=%s", spread ? "spread" : "pod");
                    test_set(&sc, "cluster.nodes=%u", nodes[a]);
                    test_set(&sc, "storage.nodes=%u", storage[b]);
                    test_set(&sc, "fabric.switch=%s", sw[c]);
                    int rc = ckpt_describe(&sc, &d, &e);
                    /* a refusal is auto's own (too large for three tiers) */
                    CHECKF(rc == 0 || strstr(e.msg, "fabric.tiers: auto:"), "%u nodes, %u "
                           "storage, %s, %s: %s", nodes[a], storage[b], sw[c],
                           spread ? "spread" : "pod", e.msg);
                    CHECK(rc < 0 || d.r.warnings[0] == '\0');
                    planned += rc == 0;
                }
    CHECK(planned >= 70);
    /* the case, and it runs */
    struct scenario sc;
    struct err e = {{0}};
    struct results r;
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    test_set(&sc, "fabric.tiers=auto");
    test_set(&sc, "fabric.storage_pods=spread");
    test_set(&sc, "cluster.nodes=1016");
    test_set(&sc, "storage.nodes=8");
    int rc = ckpt_run(&sc, &r, &e);
    CHECKF(rc == 0 && r.ok && r.fabric_tiers == 3, "%s", e.msg);
    if (rc == 0)
        results_release(&r);
    /* two tiers too large: auto is suggested (it plans it), tiers 3 is not
     * (it needs planning), breakout not at 400G links on 400G ports */
    test_set(&sc, "fabric.tiers=2");
    CHECK(ckpt_run(&sc, &r, &e) < 0);
    CHECKF(strstr(e.msg, "a spine needs 66 ports") && strstr(e.msg, "use fabric.tiers: auto") &&
           !strstr(e.msg, "tiers: 3") && !strstr(e.msg, "breakout") &&
           !strstr(e.msg, "larger profile (CX732Q-N)"), "%s", e.msg);
    /* 800G ports: breakout 2 holds 126 ports of 400G */
    test_set(&sc, "fabric.switch=generic-51.2T");
    test_set(&sc, "cluster.nodes=2000");
    CHECK(ckpt_run(&sc, &r, &e) < 0);
    CHECKF(strstr(e.msg, "fabric.breakout: 2"), "%s", e.msg);
    /* a cluster auto cannot plan either: auto is not suggested */
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    test_set(&sc, "cluster.nodes=12500");
    test_set(&sc, "storage.nodes=1563");
    test_set(&sc, "fabric.buffer=1GB");
    CHECK(ckpt_run(&sc, &r, &e) < 0);
    CHECKF(strstr(e.msg, "needs") && !strstr(e.msg, "tiers: auto") &&
           strstr(e.msg, "fabric.allow_oversize"), "%s", e.msg);
}

/* Item 19: telemetry.pcap.filter control keeps PFC and CNP frames only, and
 * telemetry.pcap.start/stop keep the frames stamped inside the window; the
 * run's results are the same. */
static void inputs_pcap_filters(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    test_set(&sc, "cluster.nodes=16");
    test_set(&sc, "workload.bytes_per_writer=2MB");
    test_set(&sc, "storage.nodes=1");
    test_set(&sc, "storage.drain_rate=200Gbps");
    test_set(&sc, "storage.ingest_buffer=2MB");
    test_set(&sc, "transport.cc=dcqcn");
    test_set(&sc, "telemetry.pcap.ports=sleaf0-stor0");
    test_set(&sc, "telemetry.pcap.max_packets=100000");
    uint32_t kinds[3][5] = {{0}}, n[3] = {0};
    uint64_t lo = UINT64_MAX, hi = 0;
    double completion[3];
    for (int run = 0; run < 3; run++) {
        if (run == 1)
            test_set(&sc, "telemetry.pcap.filter=control");
        if (run == 2) {
            test_set(&sc, "telemetry.pcap.filter=all");
            test_set(&sc, "telemetry.pcap.start=300us");
            test_set(&sc, "telemetry.pcap.stop=400us");
        }
        struct results r;
        struct ckpt_capture *cap = ckpt_capture_new();
        if (ckpt_run_capture(&sc, &r, NULL, cap, &e) < 0) {
            CHECKF(0, "%s", e.msg);
            ckpt_capture_free(cap);
            return;
        }
        completion[run] = r.completion_s;
        const struct cap_file *f = &cap->files[0];
        n[run] = f->n;
        for (uint32_t i = 0; i < f->n; i++) {
            kinds[run][f->rec[i].kind]++;
            if (run == 2) {
                lo = f->rec[i].t_ps < lo ? f->rec[i].t_ps : lo;
                hi = f->rec[i].t_ps > hi ? f->rec[i].t_ps : hi;
            }
        }
        results_release(&r);
        ckpt_capture_free(cap);
    }
    /* all: data, CNPs and pauses; control: the same CNPs and pauses alone */
    CHECK(kinds[0][CAP_DATA] > 1000 && kinds[0][CAP_CNP] > 0 && kinds[0][CAP_PFC] > 0);
    CHECKF(kinds[1][CAP_DATA] == 0 && kinds[1][CAP_ACK] == 0 && kinds[1][CAP_NAK] == 0 &&
           kinds[1][CAP_CNP] == kinds[0][CAP_CNP] && kinds[1][CAP_PFC] == kinds[0][CAP_PFC],
           "control: %u data, %u CNP, %u PFC", kinds[1][CAP_DATA], kinds[1][CAP_CNP],
           kinds[1][CAP_PFC]);
    /* window: some of every kind, all inside [300, 400) us */
    CHECKF(n[2] > 0 && n[2] < n[0] && lo >= UINT64_C(300000000) && hi < UINT64_C(400000000),
           "%u frames in [%llu, %llu] ps", n[2], (unsigned long long)lo, (unsigned long long)hi);
    CHECK(completion[0] == completion[1] && completion[0] == completion[2]);
    /* an empty window is refused, naming the key */
    test_set(&sc, "telemetry.pcap.stop=300us");
    CHECK(scenario_validate(&sc, &e) < 0 && strstr(e.msg, "telemetry.pcap.stop") &&
          strstr(e.msg, "empty"));
}

/* Item 16: links follow their ports' lane speed unless a breakout or their
 * speed key says otherwise (51.2T profiles ran 400G links on 800G ports,
 * silently), breakout per tier, and links slower than their ports said. */
static void inputs_link_speeds_follow_ports(void)
{
    struct scenario sc;
    struct err e = {{0}};
    struct echo_find f;
    struct results r;
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    /* 400G profiles: 400G, nothing to say */
    CHECK(test_run(&sc, &r) == 0 && !r.port_notes[0]);
    results_release(&r);
    struct scenario eff = sc;
    CHECK(scenario_resolve(&eff, &e) == 0 && eff.fabric.uplink_bps == UINT64_C(400000000000));
    /* 51.2T: 800G uplinks; the 400G NICs on 800G ports are said */
    test_set(&sc, "fabric.switch=generic-51.2T");
    eff = sc;
    CHECK(scenario_resolve(&eff, &e) == 0 && eff.fabric.uplink_bps == UINT64_C(800000000000));
    CHECKF(!strcmp(echoed(&eff, "fabric.uplink_speed", &f), "800Gbps"), "%s", f.value);
    CHECK(test_run(&sc, &r) == 0);
    CHECKF(strstr(r.port_notes, "host links run at 400Gbps on 800Gbps leaf ports") &&
           strstr(r.port_notes, "fabric.leaf_down_breakout: 2"), "%s", r.port_notes);
    CHECK(r.oversub_compute == 0.5);
    char *js = test_json(&eff, &r);
    CHECK(js && strstr(js, "\"port_notes\": \"host links run at 400Gbps"));
    free(js);
    results_release(&r);
    /* breakout 2 everywhere: 400G lanes and links, as before */
    test_set(&sc, "fabric.breakout=2");
    eff = sc;
    CHECK(scenario_resolve(&eff, &e) == 0 && eff.fabric.uplink_bps == UINT64_C(400000000000));
    CHECK(test_run(&sc, &r) == 0 && !r.port_notes[0] && r.oversub_compute == 1.0);
    results_release(&r);
    /* only the host side broken out: 800G uplinks, nothing to say */
    test_set(&sc, "fabric.breakout=1");
    test_set(&sc, "fabric.leaf_down_breakout=2");
    eff = sc;
    CHECK(scenario_resolve(&eff, &e) == 0 && eff.fabric.uplink_bps == UINT64_C(800000000000));
    CHECKF(test_run(&sc, &r) == 0 && !r.port_notes[0], "%s", r.port_notes);
    results_release(&r);
    /* a set uplink speed below the lanes is kept, and said */
    test_set(&sc, "fabric.uplink_speed=400Gbps");
    CHECK(test_run(&sc, &r) == 0 && strstr(r.port_notes, "leaf uplinks run at 400Gbps on "
                                                          "800Gbps ports (fabric.uplink_speed)"));
    results_release(&r);
    /* spines broken out: leaf-spine links at the slower end, 200G */
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    test_set(&sc, "fabric.spine_breakout=2");
    eff = sc;
    CHECK(scenario_resolve(&eff, &e) == 0 && eff.fabric.uplink_bps == UINT64_C(200000000000) &&
          eff.fabric.spine_ports == 64);
    /* a leaf of two breakouts counts its physical ports per side: 16 host
     * ports + 16 uplinks 2 a port = 24 of 32; 28 hosts = 36 */
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    test_set(&sc, "fabric.leaf_up_breakout=2");
    CHECKF(test_run(&sc, &r) == 0 && !r.warnings[0], "%s", r.warnings);
    results_release(&r);
    test_set(&sc, "fabric.hosts_per_leaf=28");
    test_set(&sc, "cluster.nodes=112");
    CHECK(ckpt_run(&sc, &r, &e) < 0);
    CHECKF(strstr(e.msg, "a leaf needs 36 ports (28 host ports 1 to a port, 16 uplinks 2 to a "
                         "port), CX732Q-N has 32"), "%s", e.msg);
    test_set(&sc, "fabric.leaf_down_breakout=3");
    CHECK(ckpt_run(&sc, &r, &e) < 0 && strstr(e.msg, "fabric.leaf_down_breakout: expected 1, 2 or 4"));
    /* auto plans one breakout a leaf */
    scenario_defaults(&sc);
    test_set(&sc, "fabric.tiers=auto");
    test_set(&sc, "fabric.leaf_up_breakout=2");
    CHECK(scenario_validate(&sc, &e) < 0 && strstr(e.msg, "auto plans leaves of one breakout"));
}

SUITE(suite_inputs) = {
    {"inputs_byte_rates", inputs_byte_rates},
    {"inputs_rate_echo_as_written", inputs_rate_echo_as_written},
    {"inputs_failed_links_list", inputs_failed_links_list},
    {"inputs_restore_reads_unlimited", inputs_restore_reads_unlimited},
    {"inputs_auto_plans_spread", inputs_auto_plans_spread},
    {"inputs_pcap_filters", inputs_pcap_filters},
    {"inputs_link_speeds_follow_ports", inputs_link_speeds_follow_ports},
    {0, 0},
};
