/* Topology files: describe --topology-out writes the built fabric, and
 * fabric.topology_file reads it back into the same results; a bad file is
 * refused naming the file and the element. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/core/rng.h"
#include "../src/report/internal.h"
#include "../src/topo/internal.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

static char dir[64];
static const char *const files[] = {"counts.json", "identity.json", "base.json", "base.yaml",
                                    "identity-bad.json", "radix.json", "three.json",
                                    "three-bad.json", "delays.json"};

static void cleanup(void)
{
    char p[128];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        remove(p);
    }
    rmdir(dir);
}

/* A private directory for this process's files (shared machine), removed
 * at exit. */
static const char *tmpdir(void)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/ckptnet-import-XXXXXX");
        if (mkdtemp(dir))
            atexit(cleanup);
        else
            CHECKF(0, "mkdtemp: cannot make %s", dir);
    }
    return dir;
}

static void tmpfile_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir(), name);
}

/* 2 compute leaves of 4 hosts and a storage leaf of 4, 4 spines. */
static void two_tier(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=8");
    test_set(sc, "fabric.hosts_per_leaf=4");
    test_set(sc, "storage.nodes=4");
    test_set(sc, "fabric.storage_per_leaf=4");
    test_set(sc, "fabric.spines=4");
    test_set(sc, "workload.bytes_per_writer=2MB");
}

/* 2 compute pods of 2 leaves of 4 hosts, 2 spines a pod, a storage pod of
 * 2 leaves of 2 storage nodes, 2 super-spines a plane. */
static void three_tier(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "fabric.tiers=3");
    test_set(sc, "fabric.leaves_per_pod=2");
    test_set(sc, "fabric.spines=2");
    test_set(sc, "fabric.superspines=2");
    test_set(sc, "cluster.nodes=16");
    test_set(sc, "fabric.hosts_per_leaf=4");
    test_set(sc, "storage.nodes=4");
    test_set(sc, "fabric.storage_per_leaf=2");
    test_set(sc, "workload.bytes_per_writer=2MB");
}

/* Export writes every host, storage node, switch and link once, with the
 * format version, and the failed flags the run reports. */
static void import_export_counts(void)
{
    for (int k = 0; k < 2; k++) {
        struct scenario sc;
        struct err e = {{0}};
        char path[128];
        k ? three_tier(&sc) : two_tier(&sc);
        test_set(&sc, "fabric.failed_links=2");
        tmpfile_path(path, sizeof path, "counts.json");
        CHECKF(ckpt_topology_out(&sc, path, &e) == 0, "%s", e.msg);
        struct ckpt_description d;
        CHECKF(ckpt_describe(&sc, &d, &e) == 0, "%s", e.msg);
        json_error_t je;
        json_t *root = json_load_file(path, 0, &je);
        CHECKF(root != NULL, "%s: %d: %s", path, je.line, je.text);
        if (!root)
            continue;
        json_t *links = json_object_get(root, "links");
        uint32_t failed = 0;
        for (size_t i = 0; i < json_array_size(links); i++)
            failed += !json_is_false(json_object_get(json_array_get(links, i), "failed"));
        CHECK(!strcmp(json_string_value(json_object_get(root, "format")), "ckptnet-topology"));
        CHECK(json_integer_value(json_object_get(root, "version")) == 1);
        CHECK(json_integer_value(json_object_get(root, "tiers")) == (k ? 3 : 2));
        CHECK(json_array_size(json_object_get(root, "hosts")) == (k ? 16u : 8u));
        CHECK(json_array_size(json_object_get(root, "storage")) == 4);
        CHECKF(json_array_size(json_object_get(root, "switches")) == d.r.switches, "%zu vs %u",
               json_array_size(json_object_get(root, "switches")), d.r.switches);
        CHECKF(json_array_size(links) == d.r.links && 2 * d.r.links == d.ports, "%zu links, %u",
               json_array_size(links), d.r.links);
        CHECK(failed == 2 && d.r.failed_links == 2);
        json_decref(root);
    }
}

/* sc's fabric written to path with its links in runs and its names in
 * ranges (as topo_export writes a large fabric), whatever its size; the
 * file must hold a run and a range of hosts. */
static void export_runs(const struct scenario *sc, const char *path, const char *what)
{
    struct err e = {{0}};
    CHECKF(test_export_topology(sc, path, 1, &e) == 0, "%s: %s", what, e.msg);
    FILE *f = fopen(path, "r");
    char line[512];
    int runs = 0, ranges = 0;
    while (f && fgets(line, sizeof line, f)) {
        runs += strstr(line, "\"count\": ") != NULL;
        ranges += strstr(line, "{\"from\": \"host0\", \"to\": ") != NULL;
    }
    if (f)
        fclose(f);
    CHECKF(runs > 0 && ranges > 0, "%s: no run of links or range of names in %s", what, path);
}

/* Run sc as built and from its exported file, one link a line and in
 * runs: the JSON results (without perf) must be byte-identical. */
static void identical1(struct scenario *sc, const char *what, int runs);
static void identical(struct scenario *sc, const char *what)
{
    identical1(sc, what, 0);
    identical1(sc, what, 1);
}

static void identical1(struct scenario *sc, const char *what, int runs)
{
    struct err e = {{0}};
    char path[128];
    tmpfile_path(path, sizeof path, "identity.json");
    if (runs)
        export_runs(sc, path, what);
    else
        CHECKF(ckpt_topology_out(sc, path, &e) == 0, "%s: %s", what, e.msg);
    struct results r1, r2;
    CHECK(test_run(sc, &r1) == 0);
    struct scenario si = *sc;
    /* a file marks its own failures */
    test_set(&si, "fabric.failed_links=0");
    test_set(&si, "fabric.failed_link_names=none");
    test_set(&si, "fabric.topology_file=%s", path);
    CHECK(test_run(&si, &r2) == 0);
    CHECKF(r1.ok && r2.ok, "%s: %s %s", what, r1.violation, r2.violation);
    char *a = test_json(sc, &r1), *b = test_json(sc, &r2);
    CHECKF(a && b && !strcmp(a, b), "%s%s: the imported fabric's results differ", what,
           runs ? " (runs)" : "");
    if (a && b && strcmp(a, b)) {
        size_t i = 0;
        while (a[i] == b[i])
            i++;
        fprintf(stderr, "  at %zu:\n  built:    %.200s\n  imported: %.200s\n", i,
                a + (i > 80 ? i - 80 : 0), b + (i > 80 ? i - 80 : 0));
    }
    CHECKF(r1.failed_links == r2.failed_links && r1.switches == r2.switches, "%s", what);
    free(a);
    free(b);
    results_release(&r1);
    results_release(&r2);
}

static void import_identity_two_tier(void)
{
    for (int fluid = 0; fluid < 2; fluid++) {
        struct scenario sc;
        two_tier(&sc);
        test_set(&sc, "engine=%s", fluid ? "fluid" : "packet");
        identical(&sc, fluid ? "2 tiers, fluid" : "2 tiers, packet");
        test_set(&sc, "fabric.links_per_spine=2");
        test_set(&sc, "fabric.load_balancing=wcmp");
        identical(&sc, "2 tiers, parallel links, wcmp");
    }
}

static void import_identity_three_tier(void)
{
    for (int fluid = 0; fluid < 2; fluid++) {
        struct scenario sc;
        three_tier(&sc);
        test_set(&sc, "engine=%s", fluid ? "fluid" : "packet");
        identical(&sc, fluid ? "3 tiers, fluid" : "3 tiers, packet");
        /* WCMP over links of two speeds: weights as built (link speed, or
         * toward a leaf a failure touches, the capacity behind) */
        test_set(&sc, "fabric.load_balancing=wcmp");
        test_set(&sc, "fabric.spine_uplink_speed=800Gbps");
        test_set(&sc, "fabric.allow_oversize=true");
        identical(&sc, "3 tiers, wcmp, 800G spine uplinks");
        test_set(&sc, "fabric.failed_link_names=spine1-super2");
        identical(&sc, "3 tiers, wcmp, 800G spine uplinks, a failed link");
    }
}

/* Multi-homed nodes: every NIC a host port, rails over two leaves. */
static void import_identity_multi_nic(void)
{
    for (int fluid = 0; fluid < 2; fluid++) {
        struct scenario sc;
        two_tier(&sc);
        test_set(&sc, "engine=%s", fluid ? "fluid" : "packet");
        test_set(&sc, "cluster.nics_per_node=2");
        test_set(&sc, "fabric.rails=2");
        test_set(&sc, "storage.nics_per_node=2");
        test_set(&sc, "fabric.storage_per_leaf=2");
        identical(&sc, fluid ? "2 NICs, rails, fluid" : "2 NICs, rails, packet");
    }
}

/* Failed links at each tier, named or drawn with the seed: the file keeps
 * their place in the results' list ("failed": n). */
static void import_identity_failed_links(void)
{
    static const char *const fails[] = {"cleaf1-spine2", "cleaf0-spine1",
                                        "spine1-super3", "cleaf1-spine0,spine2-super0"};
    for (int k = 0; k < 7; k++)
        for (int fluid = 0; fluid < 2; fluid++) {
            struct scenario sc;
            k % 4 ? three_tier(&sc) : two_tier(&sc);
            test_set(&sc, "engine=%s", fluid ? "fluid" : "packet");
            if (k < 4)
                test_set(&sc, "fabric.failed_link_names=%s", fails[k]);
            else /* drawn in an order other than the links' */
                test_set(&sc, "fabric.failed_links=3");
            if (k == 6) { /* 20 of 48: the results' list of names is cut short */
                test_set(&sc, "fabric.links_per_spine=4");
                test_set(&sc, "fabric.failed_links=20");
            }
            char what[80];
            snprintf(what, sizeof what, "%s, %s", k < 4 ? fails[k] : k < 6 ? "3 random" : "20",
                     fluid ? "fluid" : "packet");
            identical(&sc, what);
        }
}

/* ---- invalid files ------------------------------------------------------ */

/* 2 compute leaves of 2 hosts and a storage leaf of 2, 2 spines. */
static const char base_file[] =
    "{\"version\": 1,\n"
    " \"hosts\": [\"h0\", \"h1\", \"h2\", \"h3\"],\n"
    " \"storage\": [\"s0\", \"s1\"],\n"
    " \"switches\": [\n"
    "  {\"name\": \"L0\", \"tier\": \"leaf\"}, {\"name\": \"L1\", \"tier\": \"leaf\"},\n"
    "  {\"name\": \"L2\", \"tier\": \"leaf\"},\n"
    "  {\"name\": \"S0\", \"tier\": \"spine\"}, {\"name\": \"S1\", \"tier\": \"spine\"}],\n"
    " \"links\": [\n"
    "  {\"a\": \"h0\", \"b\": \"L0\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"h1\", \"b\": \"L0\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"h2\", \"b\": \"L1\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"h3\", \"b\": \"L1\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"s0\", \"b\": \"L2\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"s1\", \"b\": \"L2\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"L0\", \"b\": \"S1\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"L1\", \"b\": \"S0\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"L1\", \"b\": \"S1\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"L2\", \"b\": \"S0\", \"speed\": \"400Gbps\"},\n"
    "  {\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"400Gbps\"}]}\n";

static void small(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=4");
    test_set(sc, "fabric.hosts_per_leaf=2");
    test_set(sc, "storage.nodes=2");
    test_set(sc, "fabric.storage_per_leaf=2");
    test_set(sc, "fabric.spines=2");
    test_set(sc, "workload.bytes_per_writer=1MB");
}

/* text with each rep[2i] replaced by rep[2i+1] (first occurrence; "" ends). */
static char *edit(const char *text, const char *const *rep)
{
    char *s = strdup(text);
    for (int i = 0; s && rep[i] && rep[i][0]; i += 2) {
        char *at = strstr(s, rep[i]);
        CHECKF(at != NULL, "edit: \"%s\" not in the file", rep[i]);
        if (!at)
            continue;
        size_t lo = (size_t)(at - s), lf = strlen(rep[i]), lt = strlen(rep[i + 1]);
        char *n = malloc(strlen(s) - lf + lt + 1);
        memcpy(n, s, lo);
        memcpy(n + lo, rep[i + 1], lt);
        strcpy(n + lo + lt, at + lf);
        free(s);
        s = n;
    }
    return s;
}

/* Describe sc over a file of text: 0, or -1 with the message in e. */
static int try_file(struct scenario *sc, const char *text, const char *name, char *path,
                    size_t plen, struct err *e)
{
    tmpfile_path(path, plen, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return err_set(e, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    test_set(sc, "fabric.topology_file=%s", path);
    struct ckpt_description d;
    return ckpt_describe(sc, &d, e);
}

/* Each bad file is refused with the file, the element and what is wrong. */
static void import_invalid_files(void)
{
    static const char lo[] = "{\"a\": \"L0\", \"b\": \"S1\", \"speed\": \"400Gbps\"}";
    static const char l1[] = "{\"a\": \"L1\", \"b\": \"S1\", \"speed\": \"400Gbps\"}";
    static const char l2[] = "{\"a\": \"L2\", \"b\": \"S0\", \"speed\": \"400Gbps\"}";
    static const char last[] = "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"400Gbps\"}]}";
    static const struct {
        const char *name, *rep[8], *want;
        const char *set; /* one more scenario key, or NULL */
    } cases[] = {
        {"dangling", {"\"b\": \"S1\", \"speed\": \"400Gbps\"}]}", "\"b\": \"S9\", \"speed\": "
                      "\"400Gbps\"}]}", ""},
         "links[11] (L2 - S9): dangling link: no host, storage node or switch named \"S9\"", NULL},
        {"host_no_link", {"  {\"a\": \"h3\", \"b\": \"L1\", \"speed\": \"400Gbps\"},\n", "", ""},
         "hosts[3] \"h3\": no link (every host links to a leaf)", NULL},
        {"host_two_links", {last, "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"400Gbps\"},\n"
                                  "  {\"a\": \"h0\", \"b\": \"L1\", \"speed\": \"400Gbps\"}]}", ""},
         "hosts[0] \"h0\": 2 links; a host is one NIC port with one link", NULL},
        {"storage_cut_off", {lo, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\"}", l1,
                             "{\"a\": \"L1\", \"b\": \"S0\", \"speed\": \"400Gbps\"}", l2,
                             "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"400Gbps\"}", ""},
         "storage node \"s0\" (on leaf \"L2\") is unreachable from host \"h0\" (on leaf \"L0\") "
         "at all", NULL},
        {"valley", {lo, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\"}", l2,
                    "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"400Gbps\"}", ""},
         "storage node \"s0\" (on leaf \"L2\") is unreachable from host \"h0\" (on leaf \"L0\") "
         "up and down: the two leaves share no working spine", NULL},
        {"failed_cuts", {last, "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"400Gbps\", "
                               "\"failed\": true}]}", l2, "{\"a\": \"L2\", \"b\": \"S0\", "
                               "\"speed\": \"400Gbps\", \"failed\": true}", ""},
         "storage node \"s0\" (on leaf \"L2\") is unreachable from host \"h0\" (on leaf \"L0\") "
         "at all over the working links", NULL},
        {"leaf_leaf", {last, "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"400Gbps\"},\n"
                             "  {\"a\": \"L0\", \"b\": \"L1\", \"speed\": \"400Gbps\"}]}", ""},
         "links[12] (L0 - L1): links two leaves: a link within a tier breaks up-down routing",
         NULL},
        {"skips_tier", {"{\"name\": \"S1\", \"tier\": \"spine\"}]", "{\"name\": \"S1\", \"tier\": "
                        "\"spine\"}, {\"name\": \"X\", \"tier\": \"superspine\"}]", last,
                        "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"400Gbps\"},\n"
                        "  {\"a\": \"X\", \"b\": \"L0\", \"speed\": \"400Gbps\"}]}", ""},
         "links[12] (X - L0): links a leaf to a super-spine, skipping the spine tier", NULL},
        {"duplicate", {"{\"name\": \"S1\"", "{\"name\": \"S0\"", ""},
         "switches[4]: duplicate name \"S0\" (also switches[3] \"S0\")", NULL},
        {"control_name", {"\"h3\"]", "\"h\\u001b[31m3\"]", ""},
         "hosts[3]: expected a name of letters, digits and . _ : + - (it names files and CSV "
         "fields)", NULL},
        {"slash_name", {"\"h3\"]", "\"../h3\"]", ""},
         "hosts[3]: expected a name of letters, digits and . _ : + - (it names files and CSV "
         "fields)", NULL},
        {"comma_name", {"\"h3\"]", "\"h,3\"]", ""},
         "hosts[3]: expected a name of letters, digits and . _ : + - (it names files and CSV "
         "fields)", NULL},
        {"duplicate_host", {"\"h3\"]", "\"h1\"]", ""},
         "hosts[3]: duplicate name \"h1\" (also hosts[1] \"h1\")", NULL},
        {"speed_range", {"\"speed\": \"400Gbps\"}", "\"speed\": \"200Tbps\"}", ""},
         "links[0] (h0 - L0): speed: 200Tbps is out of range (1bps to 100Tbps)", NULL},
        {"speed_past_port", {"\"speed\": \"400Gbps\"}", "\"speed\": \"800Gbps\"}", ""},
         "links[0] (h0 - L0): speed: 800Gbps is faster than a port of L0 (CX732Q-N, 400Gbps); "
         "fabric.allow_oversize: true runs it anyway", NULL},
        {"speed_zero", {"\"speed\": \"400Gbps\"}", "\"speed\": 0}", ""},
         "links[0] (h0 - L0): speed: 0 is out of range", NULL},
        {"delay_range", {"\"speed\": \"400Gbps\"}", "\"speed\": \"400Gbps\", \"delay\": \"2000s\"}",
                         ""},
         "links[0] (h0 - L0): delay: 2000s is out of range (0 to 1000s)", NULL},
        {"speed_word", {"\"speed\": \"400Gbps\"}", "\"speed\": \"fast\"}", ""},
         "links[0] (h0 - L0): speed: ", NULL},
        {"syntax", {"\"hosts\": [", "\"hosts\": [[,", ""}, "identity-bad.json:2:", NULL},
        {"counts", {"\"h3\"]", "\"h3\", \"h4\"]", last, "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": "
                    "\"400Gbps\"},\n  {\"a\": \"h4\", \"b\": \"L1\", \"speed\": \"400Gbps\"}]}", ""},
         "5 hosts and 2 storage nodes; the scenario has 4 and 2", NULL},
        {"profile", {"{\"name\": \"L0\", \"tier\": \"leaf\"}", "{\"name\": \"L0\", \"tier\": "
                     "\"leaf\", \"profile\": \"CX864E-N\"}", ""},
         "switches[0] \"L0\": profile: \"CX864E-N\" differs from fabric.leaf_switch", NULL},
        {"mixed_leaf", {"{\"a\": \"s1\", \"b\": \"L2\"", "{\"a\": \"s1\", \"b\": \"L1\"", ""},
         "switches[1] \"L1\": holds both hosts and storage nodes", NULL},
        {"unknown_key", {"\"speed\": \"400Gbps\"}", "\"speed\": \"400Gbps\", \"sped\": 1}", ""},
         "links[0]: unknown key \"sped\"", NULL},
        {"version", {"\"version\": 1,", "\"version\": 3,", ""}, "version: expected 1 to 2", NULL},
        {"failure_keys", {""}, "fabric.failed_links: a topology file marks its own failed links",
         "fabric.failed_links=1"},
        {"bad_tier", {"\"tier\": \"spine\"}]", "\"tier\": \"core\"}]", ""},
         "switches[4]: tier: expected leaf, spine or superspine", NULL},
    };
    struct scenario sc;
    struct err e = {{0}};
    char path[128];
    small(&sc);
    CHECKF(try_file(&sc, base_file, "base.json", path, sizeof path, &e) == 0, "%s", e.msg);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        small(&sc);
        if (cases[i].set)
            test_set(&sc, "%s", cases[i].set);
        char *text = edit(base_file, cases[i].rep);
        int rc = text ? try_file(&sc, text, "identity-bad.json", path, sizeof path, &e) : 0;
        /* the message names the file (or, for a scenario key, the key) */
        CHECKF(rc < 0 && strstr(e.msg, cases[i].want) &&
                   (cases[i].set || strstr(e.msg, path)),
               "%s: %s", cases[i].name, rc < 0 ? e.msg : "accepted");
        free(text);
    }
}

/* A switch with more links than its profile has ports is refused, naming
 * it; fabric.allow_oversize runs it. */
static void import_radix(void)
{
    char text[sizeof base_file + 40 * 64], path[128];
    const char *tail = strstr(base_file, "]}\n");
    size_t n = (size_t)(tail - base_file);
    memcpy(text, base_file, n);
    for (int i = 0; i < 31; i++) /* L0: 2 hosts, 33 uplinks on a 32-port CX732Q-N */
        n += (size_t)sprintf(text + n, ",\n  {\"a\": \"L0\", \"b\": \"S1\", \"speed\": \"400Gbps\"}");
    strcpy(text + n, "]}\n");
    struct scenario sc;
    struct err e = {{0}};
    small(&sc);
    CHECK(try_file(&sc, text, "radix.json", path, sizeof path, &e) < 0);
    CHECKF(strstr(e.msg, path) &&
               strstr(e.msg, "switch \"L0\" has 35 links, its profile CX732Q-N has 32 ports"),
           "%s", e.msg);
    small(&sc);
    test_set(&sc, "fabric.allow_oversize=true");
    CHECKF(try_file(&sc, text, "radix.json", path, sizeof path, &e) == 0, "%s", e.msg);
}

/* An edited fabric: the storage leaf's uplinks slowed to 100G. The bound,
 * the verdict and the oversubscription follow the file, and both engines
 * finish at or above the bound. */
static void import_edited_fabric(void)
{
    static const char *const rep[] = {
        "{\"a\": \"L2\", \"b\": \"S0\", \"speed\": \"400Gbps\"}",
        "{\"a\": \"L2\", \"b\": \"S0\", \"speed\": \"100Gbps\"}",
        "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"400Gbps\"}",
        "{\"a\": \"L2\", \"b\": \"S1\", \"speed\": \"100Gbps\"}", ""};
    char *text = edit(base_file, rep);
    for (int fluid = 0; text && fluid < 2; fluid++) {
        struct scenario sc;
        struct err e = {{0}};
        char path[128];
        small(&sc);
        test_set(&sc, "engine=%s", fluid ? "fluid" : "packet");
        /* per packet over both spines: no ECMP collision between the bound and the run */
        test_set(&sc, "fabric.load_balancing=spray");
        test_set(&sc, "transport.receiver=ooo");
        CHECKF(try_file(&sc, text, "base.json", path, sizeof path, &e) == 0, "%s", e.msg);
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok, "%s", r.violation);
        CHECKF(r.bound_limit == PATH_SPINE_DOWN && r.bottleneck.seg == PATH_SPINE_DOWN,
               "%s: bound %s, verdict %s", names_of(&names_engine, r.engine), path_seg_label(r.bound_limit),
               path_seg_label(r.bottleneck.seg));
        CHECKF(r.completion_s >= r.bound_s * (1 - 1e-9) && r.completion_s <= r.bound_s * 1.1,
               "%s: %.9g vs bound %.9g", names_of(&names_engine, r.engine), r.completion_s, r.bound_s);
        CHECKF(r.oversub_storage == 4.0 && r.oversub_compute == 1.0, "%g %g", r.oversub_storage,
               r.oversub_compute);
        results_release(&r);
    }
    free(text);
}

/* A hand-edited file loads its leaves unevenly (3 hosts on L0, 1 on L1,
 * where the keys say 2 a leaf): the results count the wiring, a range
 * where the leaves differ, in both engines; an even file keeps one figure. */
static void import_uneven_leaves(void)
{
    static const char *const rep[] = {
        "{\"a\": \"h2\", \"b\": \"L1\"", "{\"a\": \"h2\", \"b\": \"L0\"", ""};
    char *text = edit(base_file, rep);
    for (int k = 0; text && k < 3; k++) {
        struct scenario sc;
        struct err e = {{0}};
        char path[128];
        small(&sc);
        test_set(&sc, "engine=%s", k == 1 ? "fluid" : "packet");
        CHECKF(try_file(&sc, k == 2 ? base_file : text, "base.json", path, sizeof path, &e) == 0,
               "%s", e.msg);
        struct results r;
        CHECK(test_run(&sc, &r) == 0);
        CHECKF(r.ok, "%s", r.violation);
        uint32_t hi = k == 2 ? 2 : 3, lo = k == 2 ? 2 : 1;
        CHECKF(r.hosts_per_leaf == hi && r.hosts_per_leaf_min == lo, "%d: %u-%u", k,
               r.hosts_per_leaf_min, r.hosts_per_leaf);
        CHECKF(r.storage_per_leaf == 2 && r.storage_per_leaf_min == 2, "%u-%u",
               r.storage_per_leaf_min, r.storage_per_leaf);
        CHECK(r.fabric_imported);
        CHECKF(r.oversub_compute == (k == 2 ? 1.0 : 1.5), "%g", r.oversub_compute);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f) {
            report_clos_line(f, &r);
            fclose(f);
        }
        const char *want = k == 2 ? "topology file: 2 tiers: leaves of 2 nodes or 2 storage"
                                  : "topology file: 2 tiers: leaves of 1-3 nodes or 2 storage";
        CHECKF(buf && strstr(buf, want), "%d: %s", k, buf ? buf : "(none)");
        free(buf);
        json_t *o = json_object();
        r.fabric_auto = 1; /* the clos block: what a tiers auto scenario writes */
        report_clos_json(o, &r);
        json_t *fab = json_object_get(o, "fabric");
        CHECK(json_integer_value(json_object_get(fab, "hosts_per_leaf")) == hi);
        json_t *m = json_object_get(fab, "hosts_per_leaf_min");
        CHECKF(k == 2 ? !m : json_integer_value(m) == 1, "%d: hosts_per_leaf_min", k);
        CHECK(!json_object_get(fab, "storage_per_leaf_min"));
        json_decref(o);
        results_release(&r);
    }
    free(text);
}

/* Each link's delay is read back exactly from the file, per record, over
 * the whole accepted range (1 ps to 1000 s), the others fabric.link_delay;
 * a built fabric's every port fabric.link_delay, 1000 s too. */
static void import_delays_exact(void)
{
    static const char *const rep[] = {
        "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\"}",
        "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"delay\": \"1ps\"}",
        "{\"a\": \"L0\", \"b\": \"S1\", \"speed\": \"400Gbps\"}",
        "{\"a\": \"L0\", \"b\": \"S1\", \"speed\": \"400Gbps\", \"delay\": \"1000s\"}",
        "{\"a\": \"L1\", \"b\": \"S0\", \"speed\": \"400Gbps\"}",
        "{\"a\": \"L1\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"delay\": \"999999999999999ps\"}",
        "{\"a\": \"s1\", \"b\": \"L2\", \"speed\": \"400Gbps\"}",
        "{\"a\": \"s1\", \"b\": \"L2\", \"speed\": \"400Gbps\", \"delay\": \"0\"}", ""};
    static const struct {
        const char *a, *b;
        uint64_t ps;
    } want[] = {{"L0", "S0", 1}, {"L0", "S1", 1000000000000000ull},
                {"L1", "S0", 999999999999999ull}, {"s1", "L2", 0}};
    char *text = edit(base_file, rep);
    char path[128];
    tmpfile_path(path, sizeof path, "delays.json");
    FILE *f = text ? fopen(path, "w") : NULL;
    CHECK(f != NULL);
    if (!f) {
        free(text);
        return;
    }
    fputs(text, f);
    fclose(f);
    free(text);
    struct scenario sc;
    small(&sc);
    test_set(&sc, "fabric.link_delay=1234567ps");
    test_set(&sc, "fabric.topology_file=%s", path);
    struct arena a;
    arena_init(&a);
    struct topo t;
    struct err e = {{0}};
    int ok = scenario_resolve(&sc, &e) == 0 && topo_build(&t, &sc, &a, &e) == 0;
    CHECKF(ok, "%s", e.msg);
    uint32_t bad = 0, named = 0;
    for (uint32_t p = 0; ok && p < t.n_ports; p++) {
        char na[64], nb[64];
        topo_node_name(&t, t.ports[p].node, na, sizeof na);
        topo_node_name(&t, t.ports[t.ports[p].peer].node, nb, sizeof nb);
        uint64_t ps = 1234567;
        for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
            if ((!strcmp(na, want[k].a) && !strcmp(nb, want[k].b)) ||
                (!strcmp(na, want[k].b) && !strcmp(nb, want[k].a))) {
                ps = want[k].ps;
                named++;
            }
        if (topo_delay(&t, &t.ports[p]) != ps) {
            bad++;
            fprintf(stderr, "  port %u (%s - %s): %" PRIu64 " ps, want %" PRIu64 "\n", p, na, nb,
                    topo_delay(&t, &t.ports[p]), ps);
        }
    }
    CHECKF(ok && !bad && named == 8, "%u of %u ports wrong, %u named", bad, t.n_ports, named);
    arena_release(&a);
    /* built fabrics, two and three tiers, at the range's top */
    for (int tiers = 2; tiers <= 3; tiers++) {
        tiers == 2 ? two_tier(&sc) : three_tier(&sc);
        test_set(&sc, "fabric.link_delay=1000s");
        arena_init(&a);
        ok = scenario_resolve(&sc, &e) == 0 && topo_build(&t, &sc, &a, &e) == 0;
        CHECKF(ok, "%s", e.msg);
        bad = 0;
        for (uint32_t p = 0; ok && p < t.n_ports; p++)
            bad += topo_delay(&t, &t.ports[p]) != 1000000000000000ull;
        CHECKF(ok && !bad && t.n_ports > 0, "%d tiers: %u of %u ports wrong", tiers, bad,
               t.n_ports);
        arena_release(&a);
    }
}

/* Buffers are checked on the file's wiring: a 10 ms leaf-spine link needs
 * more PFC headroom than the leaf's buffer, a 100 us storage link more
 * than storage.ingest_buffer, though the keys' 1 us links fit both. */
static void import_wiring_buffers(void)
{
    static const char *const slow_spine[] = {
        "{\"a\": \"L0\", \"b\": \"S1\", \"speed\": \"400Gbps\"",
        "{\"a\": \"L0\", \"b\": \"S1\", \"speed\": \"400Gbps\", \"delay\": \"10ms\"", ""};
    static const char *const slow_stor[] = {
        "{\"a\": \"s1\", \"b\": \"L2\", \"speed\": \"400Gbps\"",
        "{\"a\": \"s1\", \"b\": \"L2\", \"speed\": \"400Gbps\", \"delay\": \"100us\"", ""};
    const char *const *reps[] = {NULL, slow_spine, slow_stor};
    const char *want[] = {NULL, "switch \"L0\" of the topology file with 4 ports",
                          "storage.ingest_buffer: must hold the PFC headroom of its links plus "
                          "two MTUs, at least"};
    for (int k = 0; k < 3; k++) {
        char *text = reps[k] ? edit(base_file, reps[k]) : strdup(base_file);
        struct scenario sc;
        struct err e = {{0}};
        char path[128];
        small(&sc);
        test_set(&sc, "storage.ingest_buffer=5MB");
        test_set(&sc, "storage.drain_rate=200Gbps");
        int rc = text ? try_file(&sc, text, "base.json", path, sizeof path, &e) : -1;
        if (!want[k])
            CHECKF(rc == 0, "%s", e.msg);
        else
            CHECKF(rc < 0 && strstr(e.msg, want[k]) && (k != 2 || strstr(e.msg, "\"s1\"")),
                   "%d: %s", k, rc < 0 ? e.msg : "accepted");
        free(text);
    }
}

/* Three tiers: failed super-spine links that leave a storage pod no way up
 * and down (it stays connected through another pod: a valley). */
static void import_three_tier_cut(void)
{
    struct scenario sc;
    struct err e = {{0}};
    char path[128];
    three_tier(&sc);
    tmpfile_path(path, sizeof path, "three.json");
    CHECKF(ckpt_topology_out(&sc, path, &e) == 0, "%s", e.msg);
    FILE *f = fopen(path, "r");
    char *text = f ? calloc(1, 1 << 20) : NULL;
    if (text)
        CHECK(fread(text, 1, (1 << 20) - 1, f) > 0);
    if (f)
        fclose(f);
    /* pod 0 loses plane 0 up, the storage pod plane 1 */
    static const char *const rep[] = {
        "\"spine0\", \"b\": \"super0\", \"speed\": \"400Gbps\", \"delay\": \"1us\", \"failed\": false",
        "\"spine0\", \"b\": \"super0\", \"speed\": \"400Gbps\", \"delay\": \"1us\", \"failed\": true",
        "\"spine0\", \"b\": \"super1\", \"speed\": \"400Gbps\", \"delay\": \"1us\", \"failed\": false",
        "\"spine0\", \"b\": \"super1\", \"speed\": \"400Gbps\", \"delay\": \"1us\", \"failed\": true",
        "\"spine5\", \"b\": \"super2\", \"speed\": \"400Gbps\", \"delay\": \"1us\", \"failed\": false",
        "\"spine5\", \"b\": \"super2\", \"speed\": \"400Gbps\", \"delay\": \"1us\", \"failed\": true",
        "\"spine5\", \"b\": \"super3\", \"speed\": \"400Gbps\", \"delay\": \"1us\", \"failed\": false",
        "\"spine5\", \"b\": \"super3\", \"speed\": \"400Gbps\", \"delay\": \"1us\", \"failed\": true",
        ""};
    char *bad = text ? edit(text, rep) : NULL;
    CHECK(bad && try_file(&sc, bad, "three-bad.json", path, sizeof path, &e) < 0);
    CHECKF(strstr(e.msg, path) &&
               strstr(e.msg, "storage node \"stor0\" (on leaf \"sleaf0\") is unreachable from "
                             "host \"host0\" (on leaf \"cleaf0\") up and down over the working "
                             "links"),
           "%s", e.msg);
    free(bad);
    free(text);
}

/* The same fabric in YAML: errors carry the line and column. */
static const char base_yaml[] =
    "version: 1\n"
    "hosts: [h0, h1, h2, h3]\n"
    "storage: [s0, s1]\n"
    "switches:\n"
    "  - {name: L0, tier: leaf}\n"
    "  - {name: L1, tier: leaf}\n"
    "  - {name: L2, tier: leaf}\n"
    "  - {name: S0, tier: spine}\n"
    "  - {name: S1, tier: spine}\n"
    "links:\n"
    "  - {a: h0, b: L0, speed: 400Gbps}\n"
    "  - {a: h1, b: L0, speed: 400Gbps}\n"
    "  - {a: h2, b: L1, speed: 400Gbps}\n"
    "  - {a: h3, b: L1, speed: 400Gbps}\n"
    "  - {a: s0, b: L2, speed: 400Gbps}\n"
    "  - {a: s1, b: L2, speed: 400Gbps}\n"
    "  - {a: L0, b: S0, speed: 400Gbps}\n"
    "  - {a: L0, b: S1, speed: 400Gbps}\n"
    "  - {a: L1, b: S0, speed: 400Gbps}\n"
    "  - {a: L1, b: S1, speed: 400Gbps}\n"
    "  - {a: L2, b: S0, speed: 400Gbps}\n"
    "  - a: L2\n"
    "    b: S1\n"
    "    speed: 400000000000\n"
    "    delay: 1us\n"
    "    failed: false\n";

static void import_yaml(void)
{
    static const struct {
        const char *rep[6], *want;
    } cases[] = {
        {{"b: S1\n", "b: S9\n", ""}, "base.yaml:22:5: links[11] (L2 - S9): dangling link"},
        {{"h2, h3]", "h2, h1]", ""}, "base.yaml:2:21: hosts[3]: duplicate name \"h1\""},
        {{"speed: 400000000000", "speed: 200Tbps", ""},
         "base.yaml:24:12: links[11] (L2 - S1): speed: 200Tbps is out of range"},
        {{"{name: S1, tier: spine}", "{name: S1, tier: core}", ""},
         "base.yaml:9:5: switches[4]: tier: expected leaf, spine or superspine"},
        {{"    failed: false\n", "    failed: false\n    failed: true\n", ""},
         "base.yaml:27:5: duplicate key \"failed\""},
        {{"hosts: [h0", "hosts: [&x h0", "h2, h3]", "h2, *x]", ""},
         "base.yaml:2:24: YAML aliases are not supported"},
        {{"storage: [s0, s1]", "storage: [s0, s1", ""}, "base.yaml:4:"},
    };
    struct scenario sc, sj;
    struct err e = {{0}};
    char path[128];
    struct results ry, rj;
    small(&sc);
    CHECKF(try_file(&sc, base_yaml, "base.yaml", path, sizeof path, &e) == 0, "%s", e.msg);
    /* the YAML and the JSON file are one fabric: the same results */
    CHECK(test_run(&sc, &ry) == 0);
    small(&sj);
    CHECKF(try_file(&sj, base_file, "base.json", path, sizeof path, &e) == 0, "%s", e.msg);
    CHECK(test_run(&sj, &rj) == 0);
    char *a = test_json(&sc, &ry), *b = test_json(&sc, &rj);
    CHECK(a && b && !strcmp(a, b) && ry.switches == 5);
    free(a);
    free(b);
    results_release(&ry);
    results_release(&rj);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        small(&sc);
        char *text = edit(base_yaml, cases[i].rep);
        int rc = text ? try_file(&sc, text, "base.yaml", path, sizeof path, &e) : 0;
        CHECKF(rc < 0 && strstr(e.msg, cases[i].want), "case %zu: %s", i,
               rc < 0 ? e.msg : "accepted");
        free(text);
    }
}

/* Mutated files (bytes replaced, dropped, repeated; fixed seed) are read
 * or refused with one line naming the file: never a crash (the ASan build
 * runs this too), never a message without the file. */
static void import_mutations(void)
{
    static const char junk[] = "{}[]\",:0129-. \nab#&*!";
    const char *bases[2] = {base_file, base_yaml};
    struct rng r;
    rng_init(&r, 13, 0);
    int accepted = 0, refused = 0;
    for (int i = 0; i < 400; i++) {
        const char *b = bases[i % 2];
        size_t n = strlen(b);
        char *t = malloc(2 * n + 1);
        if (!t)
            continue;
        memcpy(t, b, n + 1);
        for (uint64_t k = 1 + rng_below(&r, 3); k > 0; k--) {
            size_t at = (size_t)rng_below(&r, n), len = 1 + (size_t)rng_below(&r, 16);
            switch (rng_below(&r, 3)) {
            case 0:
                t[at] = junk[rng_below(&r, sizeof junk - 1)];
                break;
            case 1: /* drop len bytes */
                len = len < n - at ? len : n - at;
                memmove(t + at, t + at + len, n - at - len + 1);
                n -= len;
                break;
            default: /* repeat len bytes */
                len = len < n - at ? len : n - at;
                if (n + len <= 2 * n) {
                    memmove(t + at + len, t + at, n - at + 1);
                    n += len;
                }
            }
            if (!n)
                break;
        }
        struct scenario sc;
        struct err e = {{0}};
        char path[128];
        small(&sc);
        if (try_file(&sc, t, i % 2 ? "base.yaml" : "base.json", path, sizeof path, &e) == 0) {
            accepted++;
        } else {
            refused++;
            CHECKF(strstr(e.msg, path) && !strchr(e.msg, '\n'), "mutant %d: %s", i, e.msg);
        }
        free(t);
    }
    CHECKF(accepted > 0 && refused > 200, "%d accepted, %d refused", accepted, refused);
}

SUITE(suite_import) = {
    {"import_mutations", import_mutations},
    {"import_yaml", import_yaml},
    {"import_invalid_files", import_invalid_files},
    {"import_radix", import_radix},
    {"import_edited_fabric", import_edited_fabric},
    {"import_uneven_leaves", import_uneven_leaves},
    {"import_wiring_buffers", import_wiring_buffers},
    {"import_delays_exact", import_delays_exact},
    {"import_three_tier_cut", import_three_tier_cut},
    {"import_export_counts", import_export_counts},
    {"import_identity_two_tier", import_identity_two_tier},
    {"import_identity_three_tier", import_identity_three_tier},
    {"import_identity_multi_nic", import_identity_multi_nic},
    {"import_identity_failed_links", import_identity_failed_links},
    {0, 0},
};
