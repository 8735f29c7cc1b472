/* Topology files read by the streaming parsers: a JSON file's errors name
 * the line and column of the element, as a YAML file's do; the sections
 * may come in any order; nesting is bounded. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/core/arena.h"
#include "../src/topo/internal.h"
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
    snprintf(p, sizeof p, "%s/fifo.json", dir2);
    remove(p);
    rmdir(dir2);
}

/* 2 compute leaves of 2 hosts, a storage leaf of 2, 2 spines. */
#define NODES2 \
    " \"hosts\": [\"h0\", \"h1\", \"h2\", \"h3\"],\n" \
    " \"storage\": [\"s0\", \"s1\"],\n" \
    " \"switches\": [\n" \
    "  {\"name\": \"L0\", \"tier\": \"leaf\"}, {\"name\": \"L1\", \"tier\": \"leaf\"},\n" \
    "  {\"name\": \"L2\", \"tier\": \"leaf\"},\n" \
    "  {\"name\": \"S0\", \"tier\": \"spine\"}, {\"name\": \"S1\", \"tier\": \"spine\"}],\n" \
    " \"links\": [\n"
static const char base2[] =
    "{\"version\": 1,\n" NODES2
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

/* base2's links as runs: count pairs, the ends stepping a_step, b_step
 * through their arrays; parallel links a pair. */
static const char runs2[] =
    "{\"version\": 2,\n" NODES2
    "  {\"a\": \"h0\", \"b\": \"L0\", \"speed\": \"400Gbps\", \"count\": 2, \"a_step\": 1},\n"
    "  {\"a\": \"h2\", \"b\": \"L1\", \"speed\": \"400Gbps\", \"count\": 2, \"a_step\": 1},\n"
    "  {\"a\": \"s0\", \"b\": \"L2\", \"speed\": \"400Gbps\", \"count\": 2, \"a_step\": 1},\n"
    "  {\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": 1},\n"
    "  {\"a\": \"L1\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": 1},\n"
    "  {\"a\": \"L2\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": 1}]}\n";

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

/* Each case: text with from replaced by to is refused, the message
 * naming the file and holding want. */
struct swap_case {
    const char *from, *to, *want;
};
static void swap_errors(const char *text, const struct swap_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct scenario sc;
        struct err e = {{0}};
        struct ckpt_description d;
        char path[128];
        small2(&sc);
        char *t = swap(text, cases[i].from, cases[i].to);
        put(&sc, t, path, sizeof path);
        int rc = ckpt_describe(&sc, &d, &e);
        CHECKF(rc < 0 && strstr(e.msg, cases[i].want) && strstr(e.msg, path),
               "case %zu: want \"%s\", got %s", i, cases[i].want, rc < 0 ? e.msg : "accepted");
        free(t);
    }
}

/* A JSON file's errors give the element's line and column (the jansson
 * tree had none for them: "t.json: links[11] ..."). */
static void import2_json_positions(void)
{
    static const struct swap_case cases[] = {
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
        {"\"version\": 1,", "\"version\": 3,", "t.json:1:13: version: expected 1 to 2"},
    };
    swap_errors(base2, cases, sizeof cases / sizeof *cases);
}

/* Files x and y run small2 to the same results (5 switches). */
static void same_results(const char *x, const char *y, const char *what)
{
    struct scenario a, b;
    struct results ra, rb;
    char path[128];
    small2(&a);
    small2(&b);
    put(&a, x, path, sizeof path);
    CHECK(test_run(&a, &ra) == 0);
    put(&b, y, path, sizeof path);
    CHECKF(test_run(&b, &rb) == 0, "%s", what);
    char *ja = test_json(&a, &ra), *jb = test_json(&a, &rb);
    CHECKF(ja && jb && !strcmp(ja, jb) && ra.ok && rb.ok && rb.switches == 5,
           "%s: the fabric's results differ", what);
    free(ja);
    free(jb);
    results_release(&ra);
    results_release(&rb);
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
    same_results(base2, re, "sections reordered");
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
        for (int failed = 0; failed < 4; failed++) {
            int runs = failed >= 2; /* each file both ways: one link a line, runs */
            struct scenario sc, fab, imp;
            struct err e = {{0}};
            scenario_defaults(&sc);
            CHECKF(scenario_load_file(&sc, files[f], &e) == 0, "%s", e.msg);
            if (failed % 2)
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
            int ok = topo_build(&t1, &fab, &a1, &e) == 0 &&
                     topo__export_runs(&t1, &fab, path, runs, &e) == 0;
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
                           topo_delay(&t1, &t1.ports[p]) == topo_delay(&t2, &t2.ports[p]) &&
                           t1.ports[p].seg == t2.ports[p].seg &&
                           t1.ports[p].failed == t2.ports[p].failed;
                for (uint32_t s = t1.first_cleaf; same && s < t1.n_nodes; s++)
                    for (uint32_t l = 0; same && l < t1.n_leaves; l++)
                        same = same_route(&t1, &t2, s, t1.first_cleaf + l);
                CHECKF(same, "%s%s%s: the imported fabric's ports or routes differ", files[f],
                       failed % 2 ? " (2 failed links)" : "", runs ? " (runs)" : "");
                CHECKF(t2.n_affected == t1.n_affected, "%s%s%s: %u leaves with tables, built %u",
                       files[f], failed % 2 ? " (2 failed links)" : "", runs ? " (runs)" : "",
                       t2.n_affected, t1.n_affected);
                checked++;
                three += t1.tiers == 3;
            }
            arena_release(&a1);
            arena_release(&a2);
        }
    CHECKF(checked == 52 && three >= 8, "%d fabrics checked, %d of three tiers", checked, three);
}

/* A file of runs reads as the same fabric as its links one a line: the
 * same results. */
static void import2_runs_same_fabric(void)
{
    char path[128];
    same_results(base2, runs2, "runs");
    /* parallel: L0 - S0 twice, then L0 - S1 twice, as two single links each */
    char *p1 = swap(runs2, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, "
                            "\"b_step\": 1}",
                    "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, "
                    "\"b_step\": 1, \"parallel\": 2}");
    char *p2 = swap(runs2, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, "
                            "\"b_step\": 1}",
                    "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\"},"
                    "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\"},"
                    "{\"a\": \"L0\", \"b\": \"S1\", \"speed\": \"400Gbps\", \"parallel\": 2}");
    struct scenario c;
    struct arena a1, a2;
    struct topo t1, t2;
    struct err e = {{0}};
    small2(&c);
    test_set(&c, "fabric.allow_oversize=true");
    arena_init(&a1);
    arena_init(&a2);
    put(&c, p1, path, sizeof path);
    int ok = scenario_resolve(&c, &e) == 0 && topo_build(&t1, &c, &a1, &e) == 0;
    CHECKF(ok, "parallel run: %s", e.msg);
    put(&c, p2, path, sizeof path);
    ok = ok && scenario_resolve(&c, &e) == 0 && topo_build(&t2, &c, &a2, &e) == 0;
    CHECKF(ok, "parallel links: %s", e.msg);
    int same = ok && t1.n_ports == t2.n_ports && t1.n_ports == 28 && t1.links_per_spine == 2;
    for (uint32_t q = 0; same && q < t1.n_ports; q++)
        same = t1.ports[q].peer == t2.ports[q].peer && t1.ports[q].node == t2.ports[q].node;
    CHECKF(same, "a run of parallel links differs from the links one a line");
    arena_release(&a1);
    arena_release(&a2);
    free(p1);
    free(p2);
}

/* A run's faults are named like a link's: the record, its ends (the link
 * at fault), line and column. */
static void import2_runs_errors(void)
{
    static const char l0[] = "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, "
                             "\"b_step\": 1}";
    static const struct swap_case cases[] = {
        {l0, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 0}",
         "t.json:12:55: links[3] (L0 - S0): count: expected a whole number from 1 to 4294967295"},
        {l0, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": 2}",
         "t.json:12:68: links[3] (L0 - S0): b_step: 2 pairs stepping 2 run past the switches "
         "(switches[5] of 5)"},
        {l0, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": -1}",
         "t.json:12:3: links[3] (L0 - L2): links two leaves"},
        {l0, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": 1, "
             "\"failed\": 1}",
         "t.json:12:81: links[3] (L0 - S0): failed: a place (1) names one link, this run has 2"},
        {l0, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"b_step\": 1, "
             "\"parallel\": 3000000}",
         "t.json:12:3: links[3] (L0 - S0): count x parallel: the runs make more than 66246 links"},
        {l0, "{\"a\": \"L0\", \"b\": \"S0\", \"speed\": \"400Gbps\", \"count\": 2, \"a_step\": 1.5}",
         "links[3] (L0 - S0): a_step: expected a whole number"},
        {"\"count\": 2, \"a_step\": 1},\n  {\"a\": \"h2\"", "\"count\": 2, \"a_step\": 1, "
                                                           "\"b_step\": 3},\n  {\"a\": \"h2\"",
         "t.json:9:3: links[0] (h1 - S0): a host links to a leaf, not to a spine"},
    };
    swap_errors(runs2, cases, sizeof cases / sizeof *cases);
}

/* Describe sc over a FIFO a child fills with head, then item n times
 * (until the reader goes); the message must hold want. */
static void fifo_case(struct scenario *sc, const char *head, const char *item, long n,
                      const char *want)
{
    struct err e = {{0}};
    struct ckpt_description d;
    char path[128];
    put(sc, "", path, sizeof path); /* the private directory */
    snprintf(path, sizeof path, "%s/fifo.json", dir2);
    remove(path);
    CHECK(mkfifo(path, 0600) == 0);
    test_set(sc, "fabric.topology_file=%s", path);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL); /* the reader's close ends the child */
        FILE *f = fopen(path, "w");
        if (!f)
            _exit(1);
        fputs(head, f);
        for (long k = 0; k < n; k++)
            fputs(item, f);
        fclose(f);
        _exit(0);
    }
    int rc = ckpt_describe(sc, &d, &e);
    CHECKF(rc < 0 && strstr(e.msg, want), "want \"%s\", got %s", want, rc < 0 ? e.msg : "accepted");
    if (pid > 0)
        waitpid(pid, NULL, 0);
    remove(path);
}

/* An endless stream of valid JSON (host names through a FIFO) stops at
 * the size limit with its message, not when memory runs out; the child
 * writes at most 4x the limit, so a reader without the limit ends on the
 * unfinished file instead. A FIFO's syntax error is named without reading
 * the file again for its line (that open would wait for a writer). */
static void import2_endless_stream(void)
{
    struct scenario sc;
    small2(&sc);
    fifo_case(&sc, "{\"version\": 2, \"hosts\": [\"h\"", ", \"h0000\"", 4L * (16 << 20) / 9,
              "fifo.json: larger than 16.01 MiB, the limit of a topology file for 4 hosts and 2 "
              "storage nodes");
    fifo_case(&sc, "{\"version\": 2, \"hosts\": [}", "", 0, "fifo.json: JSON syntax error");
}

SUITE(suite_import2) = {
    {"import2_json_positions", import2_json_positions},
    {"import2_section_order", import2_section_order},
    {"import2_nesting", import2_nesting},
    {"import2_every_scenario_routes", import2_every_scenario_routes},
    {"import2_runs_same_fabric", import2_runs_same_fabric},
    {"import2_runs_errors", import2_runs_errors},
    {"import2_endless_stream", import2_endless_stream},
    {0, 0},
};
