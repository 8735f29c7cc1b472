/* Tests for scenario: defaults, YAML and --set overrides, echo, the keys
 * table, and the exact text of every kind of error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/core/units.h"
#include "../src/scenario/scenario.h"
#include "harness.h"

/* ---- helpers ----------------------------------------------------------- */

struct text {
    char buf[16384]; /* the whole echo: a truncated one has no last newline */
    size_t len;
    int keys;
};

static void collect(void *ud, const char *key, const char *value,
                    int is_number)
{
    struct text *t = ud;
    int n = snprintf(t->buf + t->len, sizeof t->buf - t->len, "%s=%s%s\n",
                     key, value, is_number ? " #" : "");
    if (n > 0 && (size_t)n < sizeof t->buf - t->len)
        t->len += (size_t)n;
    t->keys++;
}

/* The echo of sc as "key=value\n" lines (" #" marks is_number). */
static void echo_text(const struct scenario *sc, struct text *t)
{
    t->len = 0;
    t->keys = 0;
    t->buf[0] = '\0';
    scenario_echo(sc, collect, t);
}

/* Lines the echo of the defaults must hold, in this order (other keys may
 * stand between them as the table grows). */
static const char default_lines[] =
    "seed=1 #\n"
    "cluster.nodes=128 #\n"
    "cluster.nic_speed=400Gbps\n"
    "storage.nodes=4 #\n"
    "storage.nic_speed=400Gbps\n"
    "fabric.hosts_per_leaf=16 #\n"
    "fabric.storage_per_leaf=4 #\n"
    "fabric.spines=16 #\n"
    "fabric.uplink_speed=400Gbps\n"
    "fabric.link_delay=1us\n"
    "fabric.switch_latency=500ns\n"
    "fabric.buffer=70MB\n"
    "fabric.mtu=4KiB\n"
    "fabric.pfc.enabled=true\n"
    "workload.bytes_per_writer=16MB\n"
    "workload.start_jitter=0\n";

/* The echo of the defaults, for "sc did not change" checks. */
static const char *default_echo(void)
{
    static struct text t;
    struct scenario sc;
    scenario_defaults(&sc);
    echo_text(&sc, &t);
    return t.buf;
}

static void count_key(void *ud, const char *key, const char *type,
                      const char *def, const char *min, const char *max,
                      const char *doc)
{
    (void)key, (void)type, (void)def, (void)min, (void)max, (void)doc;
    ++*(int *)ud;
}

static int table_keys(void)
{
    int n = 0;
    scenario_keys(count_key, &n);
    return n;
}

/* ---- defaults, overrides, echo ----------------------------------------- */

static void scenario_defaults_values(void)
{
    struct scenario sc;
    struct err e = {""};
    memset(&sc, 0xA5, sizeof sc);
    scenario_defaults(&sc);
    CHECK(sc.seed == 1);
    CHECK(sc.cluster.nodes == 128);
    CHECK(sc.cluster.nic_bps == UINT64_C(400000000000));
    CHECK(sc.storage.nodes == 4);
    CHECK(sc.storage.nic_bps == UINT64_C(400000000000));
    CHECK(sc.fabric.hosts_per_leaf == 16);
    CHECK(sc.fabric.storage_per_leaf == 4);
    CHECK(sc.fabric.spines == 16);
    CHECK(sc.fabric.uplink_bps == UINT64_C(400000000000));
    CHECK(sc.fabric.link_delay_ps == 1000000);
    CHECK(sc.fabric.switch_latency_ps == 500000);
    CHECK(sc.fabric.buffer_bytes == 70000000);
    CHECK(sc.fabric.mtu == 4096);
    CHECK(sc.fabric.pfc == 1);
    CHECK(sc.workload.bytes_per_writer == 16000000);
    CHECK(sc.workload.start_jitter_ps == 0);
    CHECK(strcmp(sc.source, "default") == 0);
    CHECKF(scenario_validate(&sc, &e) == 0, "%s", e.msg);
}

static void scenario_echo_defaults(void)
{
    struct scenario sc;
    struct text t;
    scenario_defaults(&sc);
    echo_text(&sc, &t);
    const char *at = t.buf;
    for (const char *l = default_lines; *l;) {
        const char *nl = strchr(l, '\n');
        char line[128];
        snprintf(line, sizeof line, "%.*s", (int)(nl - l + 1), l);
        const char *f = strstr(at, line);
        CHECKF(f != NULL, "missing or out of order: %s", line);
        if (f)
            at = f + strlen(line);
        l = nl + 1;
    }
    CHECK(t.keys == table_keys());
    CHECK(t.keys >= 17);
}

static void scenario_yaml_override(void)
{
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    const char *y =
        "# a comment\n"
        "seed: 42\n"
        "cluster:\n"
        "  nodes: 1000\n"
        "  nic_speed: 200 Gbps\n"
        "fabric:\n"
        "  spines: 8\n"
        "  mtu: 9KiB\n"
        "  pfc: {enabled: off}\n"
        "  link_delay: 1.5us\n"
        "  buffer: \"64MiB\"\n"
        "workload:\n"
        "  start_jitter: 0.25ms\n"
        "storage: {nodes: 2}\n"
        "empty_section_ok: ~\n";
    /* the last line is an unknown key: the load must fail atomically */
    CHECK(scenario_load_string(&sc, y, "t.yaml", &e) == -1);
    CHECKF(strcmp(e.msg, "t.yaml:15:1: empty_section_ok: unknown key") == 0,
           "%s", e.msg);
    struct text t;
    echo_text(&sc, &t);
    CHECKF(strcmp(t.buf, default_echo()) == 0, "not atomic:\n%s", t.buf);
    CHECK(strcmp(sc.source, "default") == 0);

    char good[1024];
    snprintf(good, sizeof good, "%.*s", (int)(strstr(y, "empty_") - y), y);
    CHECKF(scenario_load_string(&sc, good, "t.yaml", &e) == 0, "%s", e.msg);
    CHECK(sc.seed == 42);
    CHECK(sc.cluster.nodes == 1000);
    CHECK(sc.cluster.nic_bps == UINT64_C(200000000000));
    CHECK(sc.fabric.spines == 8);
    CHECK(sc.fabric.mtu == 9216);
    CHECK(sc.fabric.pfc == 0);
    CHECK(sc.fabric.link_delay_ps == 1500000);
    CHECK(sc.fabric.buffer_bytes == UINT64_C(64) << 20);
    CHECK(sc.workload.start_jitter_ps == 250000000);
    CHECK(sc.storage.nodes == 2);
    /* untouched keys keep their defaults */
    CHECK(sc.fabric.hosts_per_leaf == 16);
    CHECK(sc.storage.nic_bps == UINT64_C(400000000000));
    CHECK(sc.workload.bytes_per_writer == 16000000);
    CHECK(strcmp(sc.source, "t.yaml") == 0);
    CHECKF(scenario_validate(&sc, &e) == 0, "%s", e.msg);

    /* a second file applies on top of the first */
    CHECK(scenario_load_string(&sc, "fabric:\n  spines: 4\n", "u.yaml", &e)
          == 0);
    CHECK(sc.fabric.spines == 4 && sc.cluster.nodes == 1000);
    CHECK(strcmp(sc.source, "u.yaml") == 0);
}

static void scenario_empty_inputs(void)
{
    static const char *const empty[] = {
        "", "\n", "# only a comment\n", "---\n", "---\n...\n", "~\n",
        "fabric:\n", "fabric: ~\ncluster: null\n", "fabric: {}\n", "{}\n",
    };
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        struct scenario sc;
        struct err e = {""};
        struct text t;
        scenario_defaults(&sc);
        CHECKF(scenario_load_string(&sc, empty[i], "t.yaml", &e) == 0,
               "\"%s\": %s", empty[i], e.msg);
        echo_text(&sc, &t);
        CHECKF(strcmp(t.buf, default_echo()) == 0, "\"%s\"", empty[i]);
    }
}

static void scenario_bools(void)
{
    static const struct {
        const char *text;
        int want;
    } cases[] = {
        {"true", 1}, {"false", 0}, {"yes", 1}, {"no", 0}, {"on", 1},
        {"off", 0}, {"True", 1}, {"FALSE", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct scenario sc;
        struct err e = {""};
        char a[64];
        scenario_defaults(&sc);
        sc.fabric.pfc = !cases[i].want;
        snprintf(a, sizeof a, "fabric.pfc.enabled=%s", cases[i].text);
        CHECKF(scenario_set(&sc, a, &e) == 0, "%s: %s", a, e.msg);
        CHECKF(sc.fabric.pfc == cases[i].want, "%s", a);
    }
}

static void scenario_set_override(void)
{
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "fabric.spines=8", &e) == 0);
    CHECK(sc.fabric.spines == 8);
    CHECK(scenario_set(&sc, " fabric.uplink_speed = 800Gbps ", &e) == 0);
    CHECK(sc.fabric.uplink_bps == UINT64_C(800000000000));
    CHECK(scenario_set(&sc, "workload.bytes_per_writer=1GiB", &e) == 0);
    CHECK(sc.workload.bytes_per_writer == UINT64_C(1) << 30);
    CHECK(scenario_set(&sc, "seed=18446744073709551615", &e) == 0);
    CHECK(sc.seed == UINT64_MAX);
    CHECK(scenario_set(&sc, "fabric.link_delay=0", &e) == 0);
    CHECK(sc.fabric.link_delay_ps == 0);
    /* --set after a file wins over it */
    CHECK(scenario_load_string(&sc, "fabric:\n  spines: 2\n", "t.yaml", &e)
          == 0);
    CHECK(scenario_set(&sc, "fabric.spines=3", &e) == 0);
    CHECK(sc.fabric.spines == 3);
    CHECKF(scenario_validate(&sc, &e) == 0, "%s", e.msg);
}

/* Every echoed line fed back through --set rebuilds the same scenario. */
static void scenario_echo_round_trip(void)
{
    struct scenario a, b;
    struct err e = {""};
    struct text ta, tb;
    scenario_defaults(&a);
    const char *sets[] = {
        "seed=99", "cluster.nodes=1000000", "cluster.nic_speed=1.6Tbps",
        "storage.nic_speed=12345bps", "fabric.buffer=1536B",
        "fabric.mtu=9000B", "fabric.link_delay=83.56ns", "fabric.pfc.enabled=no",
        "workload.bytes_per_writer=1TB", "workload.start_jitter=1000s",
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        CHECKF(scenario_set(&a, sets[i], &e) == 0, "%s: %s", sets[i], e.msg);
    echo_text(&a, &ta);

    memset(&b, 0, sizeof b);
    b.fabric.pfc = 1;
    for (char *line = ta.buf; *line;) {
        char *nl = strchr(line, '\n');
        *nl = '\0';
        char *mark = strstr(line, " #");
        if (mark)
            *mark = '\0';
        CHECKF(scenario_set(&b, line, &e) == 0, "%s: %s", line, e.msg);
        if (mark)
            *mark = ' ';
        *nl = '\n';
        line = nl + 1;
    }
    echo_text(&b, &tb);
    CHECKF(strcmp(ta.buf, tb.buf) == 0, "\n%s\nvs\n%s", ta.buf, tb.buf);
    CHECK(strstr(ta.buf, "fabric.link_delay=83560ps\n") != NULL);
    CHECK(strstr(ta.buf, "cluster.nic_speed=1600Gbps\n") != NULL);
    CHECK(strstr(ta.buf, "fabric.mtu=9KB\n") != NULL);
    CHECK(strstr(ta.buf, "fabric.pfc.enabled=false\n") != NULL);
}

/* ---- the keys table ---------------------------------------------------- */

struct keys_check {
    int n;
    char names[512][48];
};

/* Every default, min and max is accepted by --set; one past a limit is not
 * (for the integer-like types, where "one past" is easy to write). */
static void check_key(void *ud, const char *key, const char *type,
                      const char *def, const char *min, const char *max,
                      const char *doc)
{
    struct keys_check *kc = ud;
    struct scenario sc;
    struct err e = {""};
    char a[128];
    if (kc->n < 512)
        snprintf(kc->names[kc->n], sizeof kc->names[0], "%s", key);
    kc->n++;
    CHECKF(doc && doc[0], "%s has no doc", key);
    CHECKF(strcmp(type, "uint") == 0 || strcmp(type, "count") == 0
               || strcmp(type, "rate") == 0 || strcmp(type, "size") == 0
               || strcmp(type, "time") == 0 || strcmp(type, "bool") == 0
               || strcmp(type, "real") == 0 || strcmp(type, "enum") == 0
               || strcmp(type, "text") == 0,
           "%s: type %s", key, type);
    const char *vals[] = {def, min, max};
    for (int i = 0; i < 3; i++) {
        if (!vals[i])
            continue;
        scenario_defaults(&sc);
        snprintf(a, sizeof a, "%s=%s", key, vals[i]);
        CHECKF(scenario_set(&sc, a, &e) == 0, "%s: %s", a, e.msg);
    }
    if (strcmp(type, "count") == 0 && max) {
        scenario_defaults(&sc);
        snprintf(a, sizeof a, "%s=%" PRIu64 "", key,
                 (uint64_t)strtoull(max, NULL, 10) + 1);
        CHECKF(scenario_set(&sc, a, &e) == -1, "%s accepted", a);
    }
    if (strcmp(type, "size") == 0 && max) {
        uint64_t v;
        char m[128];
        CHECK(units_parse_size(max, &v, m, sizeof m) == 0);
        scenario_defaults(&sc);
        snprintf(a, sizeof a, "%s=%" PRIu64 "B", key, v + 1);
        CHECKF(scenario_set(&sc, a, &e) == -1, "%s accepted", a);
    }
}

static void scenario_keys_table(void)
{
    struct keys_check kc = {0};
    scenario_keys(check_key, &kc);
    CHECK(kc.n == table_keys() && kc.n >= 17);
    /* the table order is the echo order */
    struct scenario sc;
    struct text t;
    scenario_defaults(&sc);
    echo_text(&sc, &t);
    const char *p = t.buf;
    for (int i = 0; i < kc.n && i < 32; i++) {
        size_t l = strlen(kc.names[i]);
        CHECKF(strncmp(p, kc.names[i], l) == 0 && p[l] == '=', "%s",
               kc.names[i]);
        p = strchr(p, '\n') + 1;
    }
}

/* ---- shipped files ----------------------------------------------------- */

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    /* the whole file: docs/scenario.md outgrew a fixed 64 KB buffer, and
     * the keys documented past it went unchecked */
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1)
            break;
        char *more = realloc(buf, cap * 2);
        if (!more) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static void docs_has_key(void *ud, const char *key, const char *type,
                         const char *def, const char *min, const char *max,
                         const char *doc)
{
    const char *docs = ud;
    char want[64];
    (void)type, (void)def, (void)min, (void)max, (void)doc;
    snprintf(want, sizeof want, "`%s`", key);
    CHECKF(strstr(docs, want) != NULL, "docs/scenario.md lacks %s", want);
}

/* Tests run from the repository root (make test). */
static void scenario_shipped_files(void)
{
    struct scenario def, sc;
    struct err e = {""};
    struct text a, b;
    scenario_defaults(&def);
    scenario_defaults(&sc);
    sc.seed = 777; /* the file must set every key back */
    sc.fabric.pfc = 0;
    sc.cluster.nodes = 1;
    CHECKF(scenario_load_file(&sc, "scenarios/default.yaml", &e) == 0, "%s",
           e.msg);
    CHECK(strcmp(sc.source, "scenarios/default.yaml") == 0);
    echo_text(&def, &a);
    echo_text(&sc, &b);
    CHECKF(strcmp(a.buf, b.buf) == 0, "default.yaml differs:\n%s", b.buf);

    char *docs = read_all("docs/scenario.md");
    CHECKF(docs != NULL, "cannot read docs/scenario.md");
    if (docs)
        scenario_keys(docs_has_key, docs);
    free(docs);
}

/* ---- errors ------------------------------------------------------------ */

static void scenario_bad_yaml(void)
{
    static const struct {
        const char *yaml, *msg;
    } cases[] = {
        {"fabric:\n  spine: 3\n",
         "t.yaml:2:3: fabric.spine: unknown key (did you mean fabric.spines?)"},
        {"fabrc:\n  spines: 3\n",
         "t.yaml:1:1: fabrc: unknown key (did you mean fabric?)"},
        {"seed: 1\nspines: 3\n",
         "t.yaml:2:1: spines: unknown key (did you mean fabric.spines?)"},
        /* the last part matches two keys: no suggestion */
        {"nic_speed: 3\n", "t.yaml:1:1: nic_speed: unknown key"},
        {"fabric.spines: 3\n",
         "t.yaml:1:1: fabric.spines: unknown key (write sections as nested "
         "mappings, not dotted names)"},
        {"fabric:\n  uplink_speed: 400Gbs\n",
         "t.yaml:2:17: fabric.uplink_speed: unknown rate unit \"Gbs\" in "
         "\"400Gbs\" (use bps, Kbps, Mbps, Gbps or Tbps; bytes: B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, ...)"},
        {"cluster:\n  nic_speed: 400\n",
         "t.yaml:2:14: cluster.nic_speed: expected a rate with a unit like "
         "\"400Gbps\", got \"400\""},
        {"cluster:\n  nic_speed: 0\n",
         "t.yaml:2:14: cluster.nic_speed: expected a rate > 0, got \"0\""},
        {"storage:\n  nic_speed: -1Gbps\n",
         "t.yaml:2:14: storage.nic_speed: must not be negative, got "
         "\"-1Gbps\""},
        {"cluster:\n  nic_speed: 200Tbps\n",
         "t.yaml:2:14: cluster.nic_speed: must be at most 100Tbps, got "
         "\"200Tbps\""},
        {"fabric:\n  spines: 0\n",
         "t.yaml:2:11: fabric.spines: expected a count >= 1, got \"0\""},
        {"fabric:\n  spines: 5000\n",
         "t.yaml:2:11: fabric.spines: must be at most 4096, got \"5000\""},
        {"cluster:\n  nodes: 0\n",
         "t.yaml:2:10: cluster.nodes: expected a count >= 1, got \"0\""},
        {"cluster:\n  nodes: 1.5\n",
         "t.yaml:2:10: cluster.nodes: expected a non-negative integer, got "
         "\"1.5\""},
        {"fabric:\n  mtu: 10000B\n",
         "t.yaml:2:8: fabric.mtu: must be at most 9216B, got \"10000B\""},
        {"fabric:\n  mtu: 32B\n",
         "t.yaml:2:8: fabric.mtu: must be at least 64B, got \"32B\""},
        {"fabric:\n  buffer: 0\n",
         "t.yaml:2:11: fabric.buffer: expected a size > 0, got \"0\""},
        {"workload:\n  bytes_per_writer: 2TB\n",
         "t.yaml:2:21: workload.bytes_per_writer: must be at most 1TB, got "
         "\"2TB\""},
        {"fabric:\n  link_delay: 0.5ps\n",
         "t.yaml:2:15: fabric.link_delay: not a whole number of picoseconds, "
         "got \"0.5ps\""},
        {"fabric:\n  link_delay: 1001s\n",
         "t.yaml:2:15: fabric.link_delay: must be at most 1000s, got \"1001s\""},
        {"fabric:\n  switch_latency: 1001s\n",
         "t.yaml:2:19: fabric.switch_latency: must be at most 1000s, got "
         "\"1001s\""},
        {"fabric:\n  spines: [1\n",
         "t.yaml:3:1: YAML syntax error: did not find expected ',' or ']'"},
        {"fabric:\n\tspines: 2\n",
         "t.yaml:2:1: YAML syntax error: found character that cannot start "
         "any token"},
        {"seed: 1\nfabric:\n  spines: 8\n  mtu: 9216B\n    pfc: on\n",
         "t.yaml:5:8: YAML syntax error: mapping values are not allowed in "
         "this context"},
        {"seed: \"1\xff\"\n",
         "t.yaml:1:9: YAML syntax error: invalid leading UTF-8 octet"},
        {"fabric:\n  spines: 8\n  mtu: 1024B\n  spines: 9\n",
         "t.yaml:4:3: fabric.spines: duplicate key"},
        {"fabric:\n  spines: 8\nfabric:\n  mtu: 1024B\n",
         "t.yaml:3:1: fabric: duplicate key"},
        {"fabric: 3\n", "t.yaml:1:9: fabric: expected a mapping of keys"},
        {"fabric:\n  - spines\n",
         "t.yaml:2:3: fabric: expected a mapping of keys"},
        {"fabric:\n  spines: [1, 2]\n",
         "t.yaml:2:11: fabric.spines: expected a scalar value"},
        {"fabric:\n  spines:\n    n: 2\n",
         "t.yaml:3:5: fabric.spines: expected a scalar value"},
        {"fabric:\n  spines:\n",
         "t.yaml:2:10: fabric.spines: expected a non-negative integer, got "
         "\"\""},
        {"fabric:\n  pfc:\n    enabled: maybe\n",
         "t.yaml:3:14: fabric.pfc.enabled: expected true or false, got \"maybe\""},
        {"fabric:\n  pfc:\n    enabled: 1\n",
         "t.yaml:3:14: fabric.pfc.enabled: expected true or false, got \"1\""},
        {"- seed: 1\n",
         "t.yaml:1:1: expected a mapping of keys at the top level"},
        {"just text\n",
         "t.yaml:1:1: expected a mapping of keys at the top level"},
        {"fabric:\n  [a]: 1\n",
         "t.yaml:2:3: fabric: expected a key name, got a sequence"},
        {"seed: 1\n---\nseed: 2\n",
         "t.yaml:3:1: expected one YAML document, found a second"},
        {"seed: *nope\n", "t.yaml:1:7: YAML syntax error: found undefined alias"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct scenario sc;
        struct err e = {""};
        struct text t;
        scenario_defaults(&sc);
        int rc = scenario_load_string(&sc, cases[i].yaml, "t.yaml", &e);
        CHECKF(rc == -1 && strcmp(e.msg, cases[i].msg) == 0,
               "case %zu: rc %d\n    got:  %s\n    want: %s", i, rc, e.msg,
               cases[i].msg);
        echo_text(&sc, &t);
        CHECKF(strcmp(t.buf, default_echo()) == 0, "case %zu changed sc", i);
    }
}

static void scenario_bad_set(void)
{
    static const struct {
        const char *set, *msg;
    } cases[] = {
        {"fabric.spines", "--set: expected key=value, got \"fabric.spines\""},
        {"=3", "--set: expected key=value, got \"=3\""},
        {"", "--set: expected key=value, got \"\""},
        {"fabric.spine=3",
         "--set: fabric.spine: unknown key (did you mean fabric.spines?)"},
        {"fabrc.spines=3",
         "--set: fabrc.spines: unknown key (did you mean fabric.spines?)"},
        {"colour=blue", "--set: colour: unknown key"},
        {"fabric=3",
         "--set: fabric: is a section; set one of its keys, like "
         "fabric.hosts_per_leaf"},
        {"fabric.spines=0",
         "--set: fabric.spines: expected a count >= 1, got \"0\""},
        {"fabric.spines=", "--set: fabric.spines: expected a non-negative "
                           "integer, got \"\""},
        {"cluster.nic_speed=fast",
         "--set: cluster.nic_speed: expected a rate like \"400Gbps\", got "
         "\"fast\""},
        {"fabric.mtu=10000B",
         "--set: fabric.mtu: must be at most 9216B, got \"10000B\""},
        {"fabric.pfc.enabled=maybe",
         "--set: fabric.pfc.enabled: expected true or false, got \"maybe\""},
        {"seed=-1", "--set: seed: expected a non-negative integer, got \"-1\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct scenario sc;
        struct err e = {""};
        struct text t;
        scenario_defaults(&sc);
        int rc = scenario_set(&sc, cases[i].set, &e);
        CHECKF(rc == -1 && strcmp(e.msg, cases[i].msg) == 0,
               "case %zu: rc %d\n    got:  %s\n    want: %s", i, rc, e.msg,
               cases[i].msg);
        echo_text(&sc, &t);
        CHECKF(strcmp(t.buf, default_echo()) == 0, "case %zu changed sc", i);
    }
}

static void scenario_missing_file(void)
{
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    CHECK(scenario_load_file(&sc, "no/such/file.yaml", &e) == -1);
    CHECKF(strcmp(e.msg, "cannot open 'no/such/file.yaml': No such file or "
                         "directory") == 0, "%s", e.msg);
    CHECK(strcmp(sc.source, "default") == 0);
}

/* A file's errors carry its path, and a good file sets source. */
static void scenario_file_errors(void)
{
    char path[64];
    FILE *f;
    snprintf(path, sizeof path, "/tmp/ckptnet_scenario_%ld.yaml",
             (long)getpid());
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("fabric:\n  spines: 8\n  bogus: 1\n", f);
    fclose(f);
    struct scenario sc;
    struct err e = {""};
    char want[128];
    scenario_defaults(&sc);
    CHECK(scenario_load_file(&sc, path, &e) == -1);
    snprintf(want, sizeof want, "%s:3:3: fabric.bogus: unknown key", path);
    CHECKF(strcmp(e.msg, want) == 0, "%s", e.msg);
    f = fopen(path, "w");
    if (f) {
        fputs("fabric:\n  spines: 8\n", f);
        fclose(f);
    }
    CHECKF(scenario_load_file(&sc, path, &e) == 0, "%s", e.msg);
    CHECK(sc.fabric.spines == 8);
    CHECK(strcmp(sc.source, path) == 0);
    remove(path);
}

static void scenario_validate_errors(void)
{
    struct scenario sc;
    struct err e = {""};
    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "fabric.buffer=4KB", &e) == 0);
    CHECK(scenario_validate(&sc, &e) == -1);
    CHECKF(strcmp(e.msg, "--set: fabric.buffer: must be larger than fabric.mtu "
                         "(4KiB), got 4KB") == 0, "%s", e.msg);
    /* past the MTU, the buffer must still hold the switch's reserves */
    CHECK(scenario_set(&sc, "fabric.buffer=4097B", &e) == 0);
    CHECK(scenario_validate(&sc, &e) == -1);
    CHECKF(strncmp(e.msg, "--set: fabric.buffer: 4097B is too small for a compute leaf", 59) == 0,
           "%s", e.msg);

    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "workload.bytes_per_writer=1TB", &e) == 0);
    CHECK(scenario_set(&sc, "cluster.nic_speed=1Kbps", &e) == 0);
    CHECK(scenario_validate(&sc, &e) == -1);
    CHECKF(strcmp(e.msg, "--set: workload.bytes_per_writer: writing 1TB per writer "
                         "at these speeds takes longer than the simulator "
                         "clock allows (4611686 s)") == 0, "%s", e.msg);
    /* storage bandwidth is the other bound: 1e6 writers x 1TB over 1 NIC */
    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "workload.bytes_per_writer=1TB", &e) == 0);
    CHECK(scenario_set(&sc, "cluster.nodes=1000000", &e) == 0);
    CHECK(scenario_set(&sc, "storage.nodes=1", &e) == 0);
    CHECK(scenario_set(&sc, "storage.nic_speed=1Gbps", &e) == 0);
    CHECK(scenario_validate(&sc, &e) == -1);
    /* at full scale and speed it fits (with switches that can hold the
     * reserves of 87500 spine ports, without PFC headroom for 100Tbps) */
    CHECK(scenario_set(&sc, "fabric.pfc.enabled=false", &e) == 0);
    CHECK(scenario_set(&sc, "fabric.buffer=1TB", &e) == 0);
    CHECK(scenario_set(&sc, "storage.nodes=100000", &e) == 0);
    CHECK(scenario_set(&sc, "storage.nic_speed=100Tbps", &e) == 0);
    CHECKF(scenario_validate(&sc, &e) == 0, "%s", e.msg);
}

/* A key the scenario set is kept over transport.protocol's own value, and
 * the run says which, where it was set and what the protocol brings. */
static void scenario_protocol_kept_said(void)
{
    struct scenario sc;
    struct err e = {""};
    char buf[256];
    scenario_defaults(&sc);
    /* scenario_value_is: parsed as user input, per key type */
    CHECK(scenario_value_is(&sc, "transport.cc", "none") == 1);
    CHECK(scenario_value_is(&sc, "transport.cc", "nscc") == 0);
    CHECK(scenario_value_is(&sc, "fabric.pfc.enabled", "true") == 1);
    CHECK(scenario_value_is(&sc, "fabric.pfc.enabled", "false") == 0);
    CHECK(scenario_value_is(&sc, "fabric.buffer", "70MB") == 1);
    CHECK(scenario_value_is(&sc, "fabric.buffer", "70000001B") == 0);
    CHECK(scenario_value_is(&sc, "fabric.ecn.pmax", "0.2") == (sc.fabric.ecn_pmax == 0.2));
    CHECK(scenario_value_is(&sc, "fabric.switch", sc.fabric.switch_profile) == 1);
    CHECK(scenario_value_is(&sc, "fabric.switch", "no-such-switch-x") == 0);
    CHECK(scenario_value_is(&sc, "no.such.key", "1") == -1);
    CHECK(scenario_value_is(&sc, "transport.cc", "bogus") == -1);

    /* roce brings nothing; uec with nothing set keeps nothing */
    CHECK(scenario_protocol_kept(&sc, buf, sizeof buf) == 0 && buf[0] == '\0');
    CHECK(scenario_set(&sc, "transport.protocol=uec", &e) == 0);
    CHECK(scenario_protocol_kept(&sc, buf, sizeof buf) == 0);
    /* a key set to the protocol's own value is not kept over it */
    CHECK(scenario_set(&sc, "transport.cc=nscc", &e) == 0);
    CHECK(scenario_protocol_kept(&sc, buf, sizeof buf) == 0);
    CHECK(scenario_load_string(&sc, "transport:\n  cc: none\nfabric:\n  pfc:\n    enabled: true\n",
                               "k.yaml", &e) == 0);
    CHECK(scenario_set(&sc, "fabric.trim.enabled=false", &e) == 0);
    size_t n = scenario_protocol_kept(&sc, buf, sizeof buf);
    CHECKF(n == strlen(buf) &&
               strcmp(buf, "fabric.pfc.enabled (k.yaml:5) over uec's false; "
                           "fabric.trim.enabled (--set) over uec's true; transport.cc "
                           "(k.yaml:2) over uec's nscc") == 0,
           "%s", buf);
    /* a short buffer is cut, never overrun */
    char small[24];
    n = scenario_protocol_kept(&sc, small, sizeof small);
    CHECKF(n < sizeof small && strlen(small) == n, "%zu '%s'", n, small);
}

SUITE(suite_scenario) = {
    {"scenario_protocol_kept_said", scenario_protocol_kept_said},
    {"scenario_defaults_values", scenario_defaults_values},
    {"scenario_echo_defaults", scenario_echo_defaults},
    {"scenario_yaml_override", scenario_yaml_override},
    {"scenario_empty_inputs", scenario_empty_inputs},
    {"scenario_bools", scenario_bools},
    {"scenario_set_override", scenario_set_override},
    {"scenario_echo_round_trip", scenario_echo_round_trip},
    {"scenario_keys_table", scenario_keys_table},
    {"scenario_shipped_files", scenario_shipped_files},
    {"scenario_bad_yaml", scenario_bad_yaml},
    {"scenario_bad_set", scenario_bad_set},
    {"scenario_missing_file", scenario_missing_file},
    {"scenario_file_errors", scenario_file_errors},
    {"scenario_validate_errors", scenario_validate_errors},
    {0},
};
