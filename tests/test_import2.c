/* Topology files read by the streaming parsers: a JSON file's errors name
 * the line and column of the element, as a YAML file's do; the sections
 * may come in any order; nesting is bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/topo/topo.h"
#include "../src/work/work.h"
#include "harness.h"
#include "support.h"

static char dir2[64];

static void cleanup2(void)
{
    char p[128];
    snprintf(p, sizeof p, "%s/t.json", dir2);
    remove(p);
    snprintf(p, sizeof p, "%s/x.json", dir2);
    remove(p);
    rmdir(dir2);
}

/* 2 compute leaves of 2 hosts, a storage leaf of 2, 2 spines. */
static const char base2[] =
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

static void small2(struct scenario *sc)
{
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=4");
    test_set(sc, "fabric.hosts_per_leaf=2");
    test_set(sc, "storage.nodes=2");
    test_set(sc, "fabric.storage_per_leaf=2");
    test_set(sc, "fabric.spines=2");
    test_set(sc, "workload.bytes_per_writer=1MB");
}

/* Write text to this process's file and set sc's fabric.topology_file. */
static void put(struct scenario *sc, const char *text, char *path, size_t plen)
{
    if (!dir2[0]) {
        snprintf(dir2, sizeof dir2, "/tmp/ckptnet-import2-XXXXXX");
        CHECK(mkdtemp(dir2) != NULL);
        atexit(cleanup2);
    }
    snprintf(path, plen, "%s/t.json", dir2);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    test_set(sc, "fabric.topology_file=%s", path);
}

/* text with its first `from` replaced by `to` */
static char *swap(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    CHECKF(at != NULL, "\"%s\" not in the file", from);
    if (!at)
        return strdup(text);
    size_t lo = (size_t)(at - text), lf = strlen(from), lt = strlen(to);
    char *s = malloc(strlen(text) - lf + lt + 1);
    memcpy(s, text, lo);
    memcpy(s + lo, to, lt);
    strcpy(s + lo + lt, at + lf);
    return s;
}

/* A JSON file's errors give the element's line and column (the jansson
 * tree had none for them: "t.json: links[11] ..."). */
static void import2_json_positions(void)
{
    static const struct {
        const char *from, *to, *want;
    } cases[] = {
        {"{\"a\": \"L2\", \"b\": \"S1\"", "{\"a\": \"L2\", \"b\": \"S9\"",
         "t.json:20:3: links[11] (L2 - S9): dangling link"},
        {"\"h3\"]", "\"h1\"]", "t.json:2:30: hosts[3]: duplicate name \"h1\""},
        {"{\"a\": \"h0\", \"b\": \"L0\", \"speed\": \"400Gbps\"}",
         "{\"a\": \"h0\", \"b\": \"L0\", \"speed\": \"200Tbps\"}",
         "t.json:9:35: links[0] (h0 - L0): speed: 200Tbps is out of range"},
        {"{\"name\": \"S1\", \"tier\": \"spine\"}", "{\"name\": \"S1\", \"tier\": \"core\"}",
         "t.json:7:36: switches[4]: tier: expected leaf, spine or superspine"},
        {"\"speed\": \"400Gbps\"}]}", "\"speed\": \"400Gbps\", \"speed\": 1}]}",
         "t.json:20:46: duplicate key \"speed\""},
        {"{\"version\": 1,\n \"hosts\": [", "{\"version\": 1,\n \"hosts\": [}",
         "t.json:2:12: JSON syntax error"},
        {"\"version\": 1,", "\"version\": 2,", "t.json:1:13: version: expected 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct scenario sc;
        struct err e = {{0}};
        struct ckpt_description d;
        char path[128];
        small2(&sc);
        char *text = swap(base2, cases[i].from, cases[i].to);
        put(&sc, text, path, sizeof path);
        int rc = ckpt_describe(&sc, &d, &e);
        CHECKF(rc < 0 && strstr(e.msg, cases[i].want) && strstr(e.msg, path),
               "case %zu: want \"%s\", got %s", i, cases[i].want, rc < 0 ? e.msg : "accepted");
        free(text);
    }
}

/* The sections in any order (links first, then switches, storage, hosts)
 * read as the same fabric: the same results. */
static void import2_section_order(void)
{
    const char *sw = strstr(base2, " \"switches\""), *ln = strstr(base2, " \"links\"");
    const char *st = strstr(base2, " \"storage\""), *ho = strstr(base2, " \"hosts\"");
    size_t n = strlen(base2);
    char *re = malloc(n + 8), *links = strndup(ln, (size_t)(strstr(ln, "]}") - ln) + 1);
    char *swi = strndup(sw, (size_t)(ln - sw)), *sto = strndup(st, (size_t)(sw - st));
    char *hos = strndup(ho, (size_t)(st - ho));
    hos[strlen(hos) - 2] = '\n'; /* the last section: no comma */
    hos[strlen(hos) - 1] = '\0';
    snprintf(re, n + 8, "{\"version\": 1,\n%s,\n%s%s%s}\n", links, swi, sto, hos);
    struct scenario a, b;
    struct results ra, rb;
    char path[128];
    small2(&a);
    small2(&b);
    put(&a, base2, path, sizeof path);
    CHECK(test_run(&a, &ra) == 0);
    put(&b, re, path, sizeof path);
    CHECKF(test_run(&b, &rb) == 0, "%s", re);
    char *ja = test_json(&a, &ra), *jb = test_json(&a, &rb);
    CHECK(ja && jb && !strcmp(ja, jb) && ra.ok && rb.ok && ra.switches == 5);
    free(ja);
    free(jb);
    results_release(&ra);
    results_release(&rb);
    free(re);
    free(links);
    free(swi);
    free(sto);
    free(hos);
}

/* Ignored values (pod, plane) are still JSON: a repeated key in them is
 * refused; nesting past 8 levels is refused at the level, not parsed. */
static void import2_nesting(void)
{
    static const struct {
        const char *to, *want;
    } cases[] = {
        {"{\"name\": \"S1\", \"tier\": \"spine\", \"pod\": {\"x\": 1, \"x\": 2}}",
         "t.json:7:84: duplicate key \"x\""},
        {"{\"name\": \"S1\", \"tier\": \"spine\", \"pod\": [[[[[[0]]]]]]}",
         "t.json:7:80: nested deeper than a topology file"},
        {"{\"name\": \"S1\", \"tier\": \"spine\", \"pod\": [[[[[0]]]]]}", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct scenario sc;
        struct err e = {{0}};
        struct ckpt_description d;
        char path[128];
        small2(&sc);
        char *text = swap(base2, "{\"name\": \"S1\", \"tier\": \"spine\"}", cases[i].to);
        put(&sc, text, path, sizeof path);
        int rc = ckpt_describe(&sc, &d, &e);
        if (cases[i].want)
            CHECKF(rc < 0 && strstr(e.msg, cases[i].want), "case %zu: want \"%s\", got %s", i,
                   cases[i].want, rc < 0 ? e.msg : "accepted");
        else
            CHECKF(rc == 0, "case %zu: %s", i, e.msg);
        free(text);
    }
}


/* Switch sw's next hops toward leaf l in a and b: the same ports (as
 * node and peer), weights and next nodes, in the same order. */
static int same_route(const struct topo *a, const struct topo *b, uint32_t sw, uint32_t l)
{
    const struct route *ra = topo_route(a, sw, l), *rb = topo_route(b, sw, l);
    if (ra->cnt != rb->cnt)
        return 0;
    for (uint32_t k = 0; k < ra->cnt; k++) {
        uint32_t pa = a->nh_ports[ra->off + k], pb = b->nh_ports[rb->off + k];
        uint32_t wa = a->nh_weight ? a->nh_weight[ra->off + k] : 1;
        uint32_t wb = b->nh_weight ? b->nh_weight[rb->off + k] : 1;
        if (pa != pb || wa != wb || a->nh_next[ra->off + k] != b->nh_next[rb->off + k])
            return 0;
    }
    return 1;
}

/* Every scenario's fabric, written by --topology-out and read back, has
 * the built fabric's ports and every switch's next hops toward every leaf;
 * and its routes come from the builders' rule, not a search toward every
 * leaf: as few leaves with their own tables as built (before, every leaf
 * had them: n_affected = n_leaves). The same with two failed links. */
static void import2_every_scenario_routes(void)
{
    static const char *const files[] = {
        "scenarios/default.yaml", "scenarios/bench-1024.yaml", "scenarios/bench-1024-3tier.yaml",
        "scenarios/cluster-100k.yaml", "scenarios/converged-async-70b.yaml",
        "scenarios/dcp-async-llama3-70b.yaml", "scenarios/llama3-405b-production.yaml",
        "scenarios/megatron-1t.yaml", "scenarios/mlperf-llama3-405b.yaml",
        "scenarios/mlperf-llama3-70b.yaml", "scenarios/mlperf-llama3-8b.yaml",
        "scenarios/size-llama3-405b-hand44.yaml", "scenarios/size-llama3-405b.yaml"};
    int checked = 0, three = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++)
        for (int failed = 0; failed < 2; failed++) {
            struct scenario sc, fab, imp;
            struct err e = {{0}};
            scenario_defaults(&sc);
            CHECKF(scenario_load_file(&sc, files[f], &e) == 0, "%s", e.msg);
            if (failed)
                test_set(&sc, "fabric.failed_links=2");
            if (scenario_validate(&sc, &e) < 0 || scenario_resolve(&sc, &e) < 0) {
                CHECKF(0, "%s: %s", files[f], e.msg);
                continue;
            }
            workload_fabric(&sc, &fab);
            struct arena a1, a2;
            struct topo t1, t2;
            char path[128];
            arena_init(&a1);
            arena_init(&a2);
            put(&imp, "", path, sizeof path); /* the private directory */
            snprintf(path, sizeof path, "%s/x.json", dir2);
            int ok = topo_build(&t1, &fab, &a1, &e) == 0 && topo_export(&t1, &fab, path, &e) == 0;
            CHECKF(ok, "%s: %s", files[f], e.msg);
            imp = fab;
            test_set(&imp, "fabric.failed_links=0");
            test_set(&imp, "fabric.topology_file=%s", path);
            ok = ok && topo_build(&t2, &imp, &a2, &e) == 0;
            CHECKF(ok, "%s: import: %s", files[f], e.msg);
            if (ok) {
                int same = t1.n_ports == t2.n_ports && t1.n_nodes == t2.n_nodes &&
                           t1.n_failed == t2.n_failed;
                for (uint32_t p = 0; same && p < t1.n_ports; p++)
                    same = t1.ports[p].peer == t2.ports[p].peer && t1.ports[p].bps == t2.ports[p].bps &&
                           t1.ports[p].failed == t2.ports[p].failed;
                for (uint32_t s = t1.first_cleaf; same && s < t1.n_nodes; s++)
                    for (uint32_t l = 0; same && l < t1.n_leaves; l++)
                        same = same_route(&t1, &t2, s, t1.first_cleaf + l);
                CHECKF(same, "%s%s: the imported fabric's ports or routes differ", files[f],
                       failed ? " (2 failed links)" : "");
                CHECKF(t2.n_affected == t1.n_affected, "%s%s: %u leaves with tables, built %u",
                       files[f], failed ? " (2 failed links)" : "", t2.n_affected, t1.n_affected);
                checked++;
                three += t1.tiers == 3;
            }
            arena_release(&a1);
            arena_release(&a2);
        }
    CHECKF(checked == 26 && three >= 4, "%d fabrics checked, %d of three tiers", checked, three);
}

SUITE(suite_import2) = {
    {"import2_json_positions", import2_json_positions},
    {"import2_section_order", import2_section_order},
    {"import2_nesting", import2_nesting},
    {"import2_every_scenario_routes", import2_every_scenario_routes},
    {0, 0},
};
