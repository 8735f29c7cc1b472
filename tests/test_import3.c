/* Topology files, names as ranges ({"from": "host0", "to": "host99"}):
 * they read as the names one by one, --topology-out writes them for a
 * large fabric, and a bad or overlapping range is refused with its line,
 * column and key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/topo/internal.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

static char dir3[64];

static void cleanup3(void)
{
    static const char *const made[] = {"t.json", "x.json"};
    char p[128];
    for (size_t i = 0; i < sizeof made / sizeof *made; i++)
        if (snprintf(p, sizeof p, "%s/%s", dir3, made[i]) > 0)
            remove(p);
    rmdir(dir3);
}

static void path3(char *buf, size_t len, const char *name)
{
    if (!dir3[0]) {
        snprintf(dir3, sizeof dir3, "/tmp/ckptnet-import3-XXXXXX");
        CHECK(mkdtemp(dir3) != NULL);
        atexit(cleanup3);
    }
    snprintf(buf, len, "%s/%s", dir3, name);
}

/* 2 compute leaves of 3 hosts, a storage leaf of 3, 2 spines; names one
 * by one (ranges are swapped in by the tests). */
static const char one3[] =
    "{\"version\": 2,\n"
    " \"hosts\": [\"h0\", \"h1\", \"h2\", \"h3\", \"h4\", \"h5\"],\n"
    " \"storage\": [\"st08\", \"st09\", \"st10\"],\n"
    " \"switches\": [\n"
    "  {\"name\": \"L0\", \"tier\": \"leaf\"},\n"
    "  {\"name\": \"L1\", \"tier\": \"leaf\"},\n"
    "  {\"name\": \"L2\", \"tier\": \"leaf\"},\n"
    "  {\"name\": \"S0\", \"tier\": \"spine\"}, {\"name\": \"S1\", \"tier\": \"spine\"}],\n"
    " \"links\": [\n"
    "  {\"a\": \"h0\", \"b\": \"L0\", \"speed\": \"400Gbps\", \"count\": 3, \"a_step\": 1},\n"
    "  {\"a\": \"h3\", \"b\": \"L1\", \"speed\": \"400Gbps\", \"count\": 3, \"a_step\": 1},\n"
    "  {\"a\": \"st08\", \"b\": \"L2\", \"speed\": \"400Gbps\", \"count\": 3, \"a_step\": 1},\n"
    "  {\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": 1},\n"
    "  {\"a\": \"L1\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": 1},\n"
    "  {\"a\": \"L2\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": 1}]}\n";

static const char hosts_one[] = "[\"h0\", \"h1\", \"h2\", \"h3\", \"h4\", \"h5\"]";
static const char leaves_one[] =
    "  {\"name\": \"L0\", \"tier\": \"leaf\"},\n"
    "  {\"name\": \"L1\", \"tier\": \"leaf\"},\n"
    "  {\"name\": \"L2\", \"tier\": \"leaf\"},\n";

static void small3(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=6");
    test_set(sc, "fabric.hosts_per_leaf=3");
    test_set(sc, "storage.nodes=3");
    test_set(sc, "fabric.storage_per_leaf=3");
    test_set(sc, "fabric.spines=2");
    test_set(sc, "workload.bytes_per_writer=1MB");
}

/* text with each from[i] replaced by to[i] (each must be there) */
static char *swap3(const char *text, const char *const *from, const char *const *to, int n)
{
    char *s = strdup(text);
    for (int i = 0; i < n && s; i++) {
        char *at = strstr(s, from[i]);
        CHECKF(at != NULL, "\"%s\" not in the file", from[i]);
        if (!at)
            break;
        size_t lo = (size_t)(at - s), lf = strlen(from[i]), lt = strlen(to[i]);
        char *t = malloc(strlen(s) - lf + lt + 1);
        memcpy(t, s, lo);
        memcpy(t + lo, to[i], lt);
        strcpy(t + lo + lt, at + lf);
        free(s);
        s = t;
    }
    return s;
}

/* text read as the scenario's fabric: 0, or -1 with e set */
static int load3(const char *text, struct topo *t, struct arena *a, struct err *e)
{
    struct scenario sc;
    char path[128];
    small3(&sc);
    path3(path, sizeof path, "t.json");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    test_set(&sc, "fabric.topology_file=%s", path);
    if (scenario_resolve(&sc, e) < 0)
        return -1;
    return topo_build(t, &sc, a, e);
}

/* Two fabrics port for port and name for name. */
static int same_fabric(const struct topo *x, const struct topo *y)
{
    int same = x->n_nodes == y->n_nodes && x->n_ports == y->n_ports;
    for (uint32_t p = 0; same && p < x->n_ports; p++)
        same = x->ports[p].node == y->ports[p].node && x->ports[p].peer == y->ports[p].peer;
    for (uint32_t n = 0; same && n < x->n_nodes; n++) {
        char a[256], b[256];
        same = !strcmp(topo_node_name(x, n, a, sizeof a), topo_node_name(y, n, b, sizeof b));
    }
    return same;
}

/* Ranges read as their names one by one: plain, zero-padded, several in
 * one array, mixed with single names, and switches. */
static void import3_ranges_read(void)
{
    static const char *const from[] = {hosts_one, "[\"st08\", \"st09\", \"st10\"]", leaves_one};
    static const char *const to[][3] = {
        {"[{\"from\": \"h0\", \"to\": \"h5\"}]", "[{\"from\": \"st08\", \"to\": \"st10\"}]",
         "  {\"from\": \"L0\", \"to\": \"L2\", \"tier\": \"leaf\"},\n"},
        {"[\"h0\", {\"from\": \"h1\", \"to\": \"h3\"}, {\"from\": \"h4\", \"to\": \"h5\"}]",
         "[\"st08\", {\"to\": \"st10\", \"from\": \"st09\"}]",
         "  {\"name\": \"L0\", \"tier\": \"leaf\"},\n"
         "  {\"tier\": \"leaf\", \"from\": \"L1\", \"to\": \"L2\", \"profile\": \"CX732Q-N\"},\n"},
    };
    struct arena a0;
    struct topo t0;
    struct err e = {{0}};
    arena_init(&a0);
    int ok = load3(one3, &t0, &a0, &e) == 0;
    CHECKF(ok, "names one by one: %s", e.msg);
    for (size_t k = 0; ok && k < sizeof to / sizeof *to; k++) {
        char *text = swap3(one3, from, to[k], 3);
        struct arena a1;
        struct topo t1;
        arena_init(&a1);
        int rc = load3(text, &t1, &a1, &e);
        CHECKF(rc == 0, "case %zu: %s", k, e.msg);
        CHECKF(rc == 0 && same_fabric(&t0, &t1), "case %zu: the ranges read as another fabric",
               k);
        char nm[64];
        CHECKF(rc == 0 && !strcmp(topo_node_name(&t1, 7, nm, sizeof nm), "st09"),
               "case %zu: node 7 is \"%s\", not st09", k, rc == 0 ? nm : "");
        arena_release(&a1);
        free(text);
    }
    arena_release(&a0);
}

/* --topology-out writes a large fabric's names as ranges (hosts,
 * storage, switches a pod's leaves or spines to a line) and they read back
 * as the same fabric; one link a line, no range. */
static void import3_export_ranges(void)
{
    static const char *const files[] = {"scenarios/bench-1024.yaml",
                                        "scenarios/bench-1024-3tier.yaml"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++)
        for (int runs = 0; runs < 2; runs++) {
            struct scenario sc, fab, imp;
            struct err e = {{0}};
            struct arena a1, a2;
            struct topo t1, t2;
            char path[128], line[512];
            scenario_defaults(&sc);
            int ok = scenario_load_file(&sc, files[k], &e) == 0 &&
                     scenario_validate(&sc, &e) == 0 && scenario_resolve(&sc, &e) == 0;
            CHECKF(ok, "%s: %s", files[k], e.msg);
            if (!ok)
                continue;
            workload_fabric(&sc, &fab);
            arena_init(&a1);
            arena_init(&a2);
            path3(path, sizeof path, "x.json");
            ok = topo_build(&t1, &fab, &a1, &e) == 0 &&
                 topo__export_runs(&t1, &fab, path, runs, &e) == 0;
            CHECKF(ok, "%s: %s", files[k], e.msg);
            int hosts = 0, sw = 0, entries = 0;
            FILE *f = fopen(path, "r");
            while (f && fgets(line, sizeof line, f)) {
                hosts += !strncmp(line, "  \"hosts\": [{\"from\": \"host0\", \"to\": \"host", 41);
                sw += !strncmp(line, "    {\"from\": \"", 14) && strstr(line, "\"tier\": ");
                entries += !strncmp(line, "    {\"", 6) && strstr(line, "\"tier\": ");
            }
            if (f)
                fclose(f);
            CHECKF(runs ? hosts == 1 && sw > 0 && sw < entries : !hosts && !sw,
                   "%s%s: hosts as one range %d, switch ranges %d of %d entries", files[k],
                   runs ? " (runs)" : "", hosts, sw, entries);
            imp = fab;
            test_set(&imp, "fabric.topology_file=%s", path);
            ok = ok && topo_build(&t2, &imp, &a2, &e) == 0;
            CHECKF(ok, "%s: import: %s", files[k], e.msg);
            CHECKF(!ok || same_fabric(&t1, &t2), "%s%s: ranges read as another fabric",
                   files[k], runs ? " (runs)" : "");
            arena_release(&a1);
            arena_release(&a2);
        }
}

/* A bad range is refused with the file, line, column, array place and key
 * at fault; names a range repeats (of another range or a single name) are
 * duplicates. */
static void import3_range_errors(void)
{
    struct err_case {
        const char *from, *to, *want;
    };
    static const struct err_case cases[] = {
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"h4\"}, \"h5\", \"h5\"]",
         "t.json:2:46: hosts[6]: duplicate name \"h5\" (also hosts[5] \"h5\")"},
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"h3\"}, {\"from\": \"h3\", \"to\": \"h5\"}]",
         "t.json:2:40: hosts[4]: duplicate name \"h3\" (also hosts[3] \"h3\")"},
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"h5\"}, {\"from\": \"L1\", \"to\": \"L3\"}]",
         "switches[1]: duplicate name \"L1\" (also hosts[6] \"L1\")"},
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"h5\"}, {\"from\": \"h05\", \"to\": \"h07\"}, \"h5\"]",
         "hosts[9]: duplicate name \"h5\" (also hosts[5] \"h5\")"},
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"x5\"}]",
         "t.json:2:33: hosts[0]: a range from \"h0\" to \"x5\": expected two names of one prefix "
         "ending in numbers"},
        {hosts_one, "[{\"from\": \"h\", \"to\": \"h5\"}]",
         "t.json:2:21: hosts[0]: a range from \"h\" to \"h5\": expected two names of one prefix"},
        {hosts_one, "[{\"from\": \"h5\", \"to\": \"h0\"}]",
         "t.json:2:33: hosts[0]: a range from \"h5\" to \"h0\": expected to after from"},
        {hosts_one, "[{\"from\": \"h00\", \"to\": \"h5\"}]",
         "t.json:2:34: hosts[0]: a range from \"h00\" to \"h5\": expected the numbers of one "
         "width (zero-padded)"},
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"h05\"}]",
         "hosts[0]: a range from \"h0\" to \"h05\": expected the numbers without leading zeros"},
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"h1234567890\"}]",
         "t.json:2:33: hosts[0]: a range from \"h0\" to \"h1234567890\": expected numbers of at "
         "most 9 digits"},
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"h999999999\"}]",
         "t.json:2:33: hosts[0]: a range from \"h0\" to \"h999999999\": the names pass "},
        {hosts_one, "[{\"from\": \"h/0\", \"to\": \"h/5\"}]",
         "t.json:2:21: hosts[0]: from: expected a name of letters, digits and . _ : + -"},
        {hosts_one, "[{\"from\": \"h0\"}]",
         "t.json:2:12: hosts[0]: a range: expected \"from\" and \"to\""},
        {hosts_one, "[{\"from\": \"h0\", \"to\": 5}]",
         "t.json:2:33: hosts[0]: a range: expected \"from\" and \"to\""},
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"h5\", \"step\": 1}]",
         "t.json:2:12: hosts[0]: unknown key \"step\""},
        {hosts_one, "[{\"from\": \"h0\", \"to\": \"h5\", \"from\": \"h1\"}]",
         "t.json:2:39: duplicate key \"from\""},
        {leaves_one, "  {\"name\": \"L0\", \"from\": \"L0\", \"to\": \"L2\", \"tier\": \"leaf\"},\n",
         "t.json:5:12: switches[0]: a name or a range (\"from\", \"to\"), not both"},
        {leaves_one, "  {\"from\": \"L0\", \"to\": \"L2\", \"tier\": \"leaf\", \"pods\": 0},\n",
         "t.json:5:3: switches[0]: unknown key \"pods\""},
        {leaves_one, "  {\"from\": \"L0\", \"to\": \"L2\", \"tier\": \"leaf\", \"profile\": \"X\"},\n",
         "switches[0] \"L0\": profile: \"X\" differs from fabric.leaf_switch"},
        {"\"version\": 2,", "\"version\": 2, \"storage\": [{\"from\": \"s0\", \"to\": \"s9\"}],",
         "t.json:3:2: duplicate key \"storage\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct arena a;
        struct topo t;
        struct err e = {{0}};
        arena_init(&a);
        char *text = swap3(one3, &cases[i].from, &cases[i].to, 1);
        int rc = load3(text, &t, &a, &e);
        CHECKF(rc < 0 && strstr(e.msg, cases[i].want), "case %zu: want \"%s\", got %s", i,
               cases[i].want, rc < 0 ? e.msg : "accepted");
        arena_release(&a);
        free(text);
    }
}

SUITE(suite_import3) = {
    {"import3_ranges_read", import3_ranges_read},
    {"import3_export_ranges", import3_export_ranges},
    {"import3_range_errors", import3_range_errors},
    {0, 0},
};
