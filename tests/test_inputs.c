/* Input parsing and defaults of issue 25 ("Correctness pass 2"): rates in
 * bytes per second echoed as written, list keys as YAML sequences of any
 * length, and the other inputs items. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/ckptnet.h"
#include "../src/core/units.h"
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
}

SUITE(suite_inputs) = {
    {"inputs_byte_rates", inputs_byte_rates},
    {"inputs_rate_echo_as_written", inputs_rate_echo_as_written},
    {"inputs_failed_links_list", inputs_failed_links_list},
    {"inputs_restore_reads_unlimited", inputs_restore_reads_unlimited},
    {0, 0},
};
