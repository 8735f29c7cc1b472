/* Topology files read by the streaming parsers: a JSON file's errors name
 * the line and column of the element, as a YAML file's do; the sections
 * may come in any order; nesting is bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/api/ckpt.h"
#include "harness.h"
#include "support.h"

static char dir2[64];

static void cleanup2(void)
{
    char p[128];
    snprintf(p, sizeof p, "%s/t.json", dir2);
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

SUITE(suite_import2) = {
    {"import2_json_positions", import2_json_positions},
    {"import2_section_order", import2_section_order},
    {"import2_nesting", import2_nesting},
    {0, 0},
};
