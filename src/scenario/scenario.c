/* Scenario: one table of keys, and the YAML / --set loaders that fill a
 * struct scenario from it.
 *
 * Every key is a row of `keys`: dotted name, type, where it lives in
 * struct scenario, its default and limits as text, and a one-line doc.
 * Defaults and limits are parsed by the same code as user input, so the
 * table cannot disagree with the parser. Sections ("fabric") are not listed:
 * a section is any prefix of a key name that ends before a '.'. */
#include "scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "../core/units.h"

enum ktype { T_UINT, T_COUNT, T_RATE, T_SIZE, T_TIME, T_BOOL, T_REAL, T_ENUM,
             T_TEXT };

/* A parsed value: integers (and bools, enum indexes) in u, reals in d,
 * text in s. */
struct kval {
    uint64_t u;
    double d;
    char s[SCENARIO_TEXT];
};

struct key {
    const char *name;  /* dotted, "fabric.spines" */
    enum ktype type;
    size_t off;        /* offsetof(struct scenario, field) */
    size_t width;      /* sizeof field: 4 or 8 (bool: sizeof(int)) */
    const char *def;   /* default, parsed like user input */
    const char *min;   /* inclusive lower limit as text, NULL = none */
    const char *max;   /* inclusive upper limit as text, NULL = none */
    const char *doc;
    const char *choices; /* T_ENUM: "a|b|c", stored as the index (int) */
};

#define FIELD(m) offsetof(struct scenario, m), sizeof(((struct scenario *)0)->m)

static const struct key keys[] = {
    {"seed", T_UINT, FIELD(seed), "1", NULL, NULL,
     "random seed; the same scenario and seed give the same run", NULL},
    {"engine", T_ENUM, FIELD(engine), "packet", NULL, NULL,
     "simulation engine: packet (every packet, queues and PFC)", "packet"},

    {"cluster.nodes", T_COUNT, FIELD(cluster.nodes), "128", "1", "1000000",
     "compute nodes, one checkpoint writer each", NULL},
    {"cluster.nic_speed", T_RATE, FIELD(cluster.nic_bps), "400Gbps", "1bps",
     "100Tbps", "NIC line rate of each compute node", NULL},

    {"storage.nodes", T_COUNT, FIELD(storage.nodes), "4", "1", "100000",
     "storage nodes that receive the checkpoint", NULL},
    {"storage.nic_speed", T_RATE, FIELD(storage.nic_bps), "400Gbps", "1bps",
     "100Tbps", "NIC line rate of each storage node", NULL},

    {"fabric.hosts_per_leaf", T_COUNT, FIELD(fabric.hosts_per_leaf), "16",
     "1", "4096", "compute nodes per compute leaf switch", NULL},
    {"fabric.storage_per_leaf", T_COUNT, FIELD(fabric.storage_per_leaf), "4",
     "1", "4096", "storage nodes per storage leaf switch", NULL},
    {"fabric.spines", T_COUNT, FIELD(fabric.spines), "16", "1", "4096",
     "spine switches; every leaf has one uplink to every spine", NULL},
    {"fabric.uplink_speed", T_RATE, FIELD(fabric.uplink_bps), "400Gbps",
     "1bps", "100Tbps", "line rate of each leaf-spine link", NULL},
    {"fabric.link_delay", T_TIME, FIELD(fabric.link_delay_ps), "1us", NULL,
     "1000s", "propagation delay of every link", NULL},
    {"fabric.switch_latency", T_TIME, FIELD(fabric.switch_latency_ps),
     "500ns", NULL, "1000s", "cut-through latency of a switch, per hop", NULL},
    {"fabric.buffer", T_SIZE, FIELD(fabric.buffer_bytes), "70MB", "1B", "1TB",
     "shared packet buffer of each switch", NULL},
    {"fabric.mtu", T_SIZE, FIELD(fabric.mtu), "4096B", "64B", "9216B",
     "RoCE payload bytes per packet", NULL},
    {"fabric.pfc", T_BOOL, FIELD(fabric.pfc), "true", NULL, NULL,
     "priority flow control: true = lossless, false = tail drop", NULL},

    {"workload.bytes_per_writer", T_SIZE, FIELD(workload.bytes_per_writer),
     "16MB", "1B", "1TB", "checkpoint bytes each compute node writes", NULL},
    {"workload.start_jitter", T_TIME, FIELD(workload.start_jitter_ps), "0",
     NULL, "1000s", "each writer starts at a uniform time in [0, jitter]", NULL},
};

#define NKEYS (sizeof keys / sizeof keys[0])
#define PATH_MAX_LEN 128

static const char *const type_names[] = {
    [T_UINT] = "uint", [T_COUNT] = "count", [T_RATE] = "rate",
    [T_SIZE] = "size", [T_TIME] = "time",   [T_BOOL] = "bool",
    [T_REAL] = "real", [T_ENUM] = "enum",   [T_TEXT] = "text",
};

/* ---- values ------------------------------------------------------------ */

static int parse_bool(const char *s, uint64_t *v, char *msg, size_t len)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes",
                                      "YES", "on", "On", "ON"};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No",
                                     "NO", "off", "Off", "OFF"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcmp(s, yes[i]) == 0) {
            *v = 1;
            return 0;
        }
        if (strcmp(s, no[i]) == 0) {
            *v = 0;
            return 0;
        }
    }
    snprintf(msg, len, "expected true or false, got \"%.64s\"", s);
    return -1;
}

static int parse_real(const char *s, double *d, char *msg, size_t len)
{
    char *end;
    errno = 0;
    *d = strtod(s, &end);
    if (end == s || *end || errno || *d != *d || *d > 1e300 || *d < -1e300) {
        snprintf(msg, len, "expected a number, got \"%.64s\"", s);
        return -1;
    }
    return 0;
}

static int parse_enum(const char *choices, const char *s, uint64_t *v,
                      char *msg, size_t len)
{
    size_t sl = strlen(s);
    uint64_t i = 0;
    for (const char *c = choices;; i++) {
        const char *bar = strchr(c, '|');
        size_t cl = bar ? (size_t)(bar - c) : strlen(c);
        if (cl == sl && memcmp(c, s, sl) == 0) {
            *v = i;
            return 0;
        }
        if (!bar)
            break;
        c = bar + 1;
    }
    char list[256];
    size_t o = 0;
    for (const char *c = choices; *c && o + 3 < sizeof list; c++) {
        if (*c == '|') {
            list[o++] = ',';
            list[o++] = ' ';
        } else {
            list[o++] = *c;
        }
    }
    list[o] = '\0';
    snprintf(msg, len, "expected one of %.100s, got \"%.40s\"", list, s);
    return -1;
}

/* Parse text as a value of key k, without limit checks. */
static int parse_raw(const struct key *k, const char *s, struct kval *kv,
                     char *msg, size_t len)
{
    uint64_t *v = &kv->u;
    switch (k->type) {
    case T_UINT:
    case T_COUNT:
        return units_parse_uint(s, v, msg, len);
    case T_RATE:
        return units_parse_rate(s, v, msg, len);
    case T_SIZE:
        return units_parse_size(s, v, msg, len);
    case T_TIME:
        return units_parse_time(s, v, msg, len);
    case T_BOOL:
        return parse_bool(s, v, msg, len);
    case T_REAL:
        return parse_real(s, &kv->d, msg, len);
    case T_ENUM:
        return parse_enum(k->choices, s, v, msg, len);
    case T_TEXT:
        if (strlen(s) >= sizeof kv->s || !s[0]) {
            snprintf(msg, len, "expected a text of 1 to %zu characters, got \"%.64s\"",
                     sizeof kv->s - 1, s);
            return -1;
        }
        memcpy(kv->s, s, strlen(s) + 1);
        return 0;
    }
    return -1;
}

/* A limit text of the table; the table is checked by the tests, so a limit
 * that fails to parse is a bug and aborts. */
static uint64_t limit_value(const struct key *k, const char *text)
{
    char msg[160];
    struct kval v;
    if (parse_raw(k, text, &v, msg, sizeof msg) < 0)
        abort();
    return v.u;
}

static double limit_real(const char *text)
{
    char msg[160];
    double d;
    if (parse_real(text, &d, msg, sizeof msg) < 0)
        abort();
    return d;
}

/* Parse a value for key k and check it against the key's limits. */
static int key_parse(const struct key *k, const char *s, struct kval *kv,
                     char *msg, size_t len)
{
    uint64_t *v = &kv->u;
    if (parse_raw(k, s, kv, msg, len) < 0)
        return -1;
    if (k->type == T_REAL) {
        if ((k->min && kv->d < limit_real(k->min)) || (k->max && kv->d > limit_real(k->max))) {
            if (k->min && k->max)
                snprintf(msg, len, "must be between %s and %s, got \"%.64s\"",
                         k->min, k->max, s);
            else
                snprintf(msg, len, "must be at %s %s, got \"%.64s\"",
                         k->min ? "least" : "most", k->min ? k->min : k->max, s);
            return -1;
        }
        return 0;
    }
    if (k->type == T_ENUM || k->type == T_TEXT)
        return 0;
    if (k->min && *v < limit_value(k, k->min)) {
        if (limit_value(k, k->min) == 1) {
            if (k->type == T_COUNT || k->type == T_UINT)
                snprintf(msg, len, "expected a count >= 1, got \"%.64s\"", s);
            else
                snprintf(msg, len, "expected a %s > 0, got \"%.64s\"",
                         type_names[k->type], s);
        } else {
            snprintf(msg, len, "must be at least %s, got \"%.64s\"", k->min,
                     s);
        }
        return -1;
    }
    if (k->max && *v > limit_value(k, k->max)) {
        snprintf(msg, len, "must be at most %s, got \"%.64s\"", k->max, s);
        return -1;
    }
    return 0;
}

static void key_store(struct scenario *sc, const struct key *k,
                      const struct kval *kv)
{
    char *p = (char *)sc + k->off;
    uint64_t v = kv->u;
    if (k->type == T_REAL) {
        memcpy(p, &kv->d, sizeof kv->d);
    } else if (k->type == T_TEXT) {
        memcpy(p, kv->s, strlen(kv->s) + 1);
    } else if (k->type == T_BOOL || k->type == T_ENUM) {
        int b = v != 0;
        memcpy(p, &b, sizeof b);
    } else if (k->width == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)v; /* limits keep v within uint32 */
        memcpy(p, &x, sizeof x);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

static uint64_t key_load(const struct scenario *sc, const struct key *k)
{
    const char *p = (const char *)sc + k->off;
    if (k->type == T_BOOL || k->type == T_ENUM) {
        int b;
        memcpy(&b, p, sizeof b);
        return b != 0;
    }
    if (k->width == sizeof(uint32_t)) {
        uint32_t x;
        memcpy(&x, p, sizeof x);
        return x;
    }
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* ---- key names --------------------------------------------------------- */

static const struct key *key_find(const char *name, size_t len)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strlen(keys[i].name) == len && memcmp(keys[i].name, name, len) == 0)
            return &keys[i];
    return NULL;
}

/* Is name (len bytes) a section, i.e. followed by '.' in some key? */
static int is_section(const char *name, size_t len)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strncmp(keys[i].name, name, len) == 0 && keys[i].name[len] == '.'
            && memchr(name, '\0', len) == NULL)
            return 1;
    return 0;
}

/* Optimal string alignment distance (edits and adjacent swaps), or a large
 * number for strings too long to bother with. */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    enum { MAXL = 64 };
    if (la >= MAXL || lb >= MAXL)
        return (size_t)-1;
    size_t d[MAXL + 1][MAXL + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]
                && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/* " (did you mean X?)" for an unknown key, or "". Candidates are every key
 * and every section within edit distance 2; failing that, the one key whose
 * last component equals the unknown key's (a key at the wrong level). */
static void suggest(const char *name, char *out, size_t len)
{
    size_t nlen = strlen(name);
    size_t best = 3;
    char cand[PATH_MAX_LEN] = "";
    for (size_t i = 0; i < NKEYS; i++) {
        const char *kn = keys[i].name;
        /* the key itself, then each of its section prefixes */
        for (const char *end = kn + strlen(kn); end > kn;) {
            size_t l = (size_t)(end - kn);
            size_t d = edit_distance(name, nlen, kn, l);
            if (d < best) {
                best = d;
                snprintf(cand, sizeof cand, "%.*s", (int)l, kn);
            }
            while (end > kn && end[-1] != '.')
                end--;
            if (end > kn)
                end--; /* drop the '.' */
        }
    }
    if (!cand[0]) {
        const char *last = strrchr(name, '.');
        last = last ? last + 1 : name;
        int found = 0;
        for (size_t i = 0; i < NKEYS; i++) {
            const char *kl = strrchr(keys[i].name, '.');
            kl = kl ? kl + 1 : keys[i].name;
            if (strcmp(kl, last) == 0 && strcmp(keys[i].name, name) != 0) {
                found++;
                snprintf(cand, sizeof cand, "%s", keys[i].name);
            }
        }
        if (found != 1)
            cand[0] = '\0';
    }
    if (cand[0])
        snprintf(out, len, " (did you mean %s?)", cand);
    else if (len)
        out[0] = '\0';
}

/* ---- defaults, set, echo ----------------------------------------------- */

void scenario_defaults(struct scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    for (size_t i = 0; i < NKEYS; i++) {
        char msg[160];
        struct kval v;
        if (key_parse(&keys[i], keys[i].def, &v, msg, sizeof msg) < 0)
            abort(); /* a bad default in the table; the tests catch it */
        key_store(sc, &keys[i], &v);
    }
    snprintf(sc->source, sizeof sc->source, "default");
}

int scenario_set(struct scenario *sc, const char *assignment, struct err *e)
{
    const char *eq = strchr(assignment, '=');
    const char *ks = assignment, *ke = eq;
    if (eq) {
        while (*ks == ' ' || *ks == '\t')
            ks++;
        while (ke > ks && (ke[-1] == ' ' || ke[-1] == '\t'))
            ke--;
    }
    if (!eq || ke == ks)
        return err_set(e, "--set: expected key=value, got \"%.64s\"",
                       assignment);
    size_t klen = (size_t)(ke - ks);
    char name[PATH_MAX_LEN];
    snprintf(name, sizeof name, "%.*s", (int)klen, ks);

    const struct key *k = key_find(ks, klen);
    if (!k) {
        if (is_section(ks, klen)) {
            for (size_t i = 0; i < NKEYS; i++) {
                if (strncmp(keys[i].name, name, klen) == 0
                    && keys[i].name[klen] == '.')
                    return err_set(e, "--set: %s: is a section; set one of "
                                      "its keys, like %s", name, keys[i].name);
            }
        }
        char hint[PATH_MAX_LEN + 32];
        suggest(name, hint, sizeof hint);
        return err_set(e, "--set: %s: unknown key%s", name, hint);
    }
    char msg[256];
    struct kval v;
    if (key_parse(k, eq + 1, &v, msg, sizeof msg) < 0)
        return err_set(e, "--set: %s: %s", k->name, msg);
    key_store(sc, k, &v);
    return 0;
}

void scenario_echo(const struct scenario *sc, scenario_emit_fn *emit,
                   void *ud)
{
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &keys[i];
        uint64_t v = key_load(sc, k);
        char buf[SCENARIO_TEXT + 8];
        const char *p = (const char *)sc + k->off;
        int kind = k->type == T_UINT || k->type == T_COUNT ? SCN_INT : SCN_TEXT;
        switch (k->type) {
        case T_REAL: {
            double d;
            memcpy(&d, p, sizeof d);
            snprintf(buf, sizeof buf, "%.15g", d);
            kind = SCN_REAL;
            break;
        }
        case T_ENUM: {
            const char *c = k->choices;
            for (uint64_t j = 0; j < v && strchr(c, '|'); j++)
                c = strchr(c, '|') + 1;
            size_t cl = strchr(c, '|') ? (size_t)(strchr(c, '|') - c) : strlen(c);
            snprintf(buf, sizeof buf, "%.*s", (int)cl, c);
            break;
        }
        case T_TEXT:
            snprintf(buf, sizeof buf, "%s", p);
            break;
        case T_UINT:
        case T_COUNT:
            snprintf(buf, sizeof buf, "%" PRIu64, v);
            break;
        case T_RATE:
            units_fmt_rate(v, buf, sizeof buf);
            break;
        case T_SIZE:
            units_fmt_size(v, buf, sizeof buf);
            break;
        case T_TIME:
            units_fmt_time(v, buf, sizeof buf);
            break;
        case T_BOOL:
            snprintf(buf, sizeof buf, "%s", v ? "true" : "false");
            break;
        }
        emit(ud, k->name, buf, kind);
    }
}

void scenario_keys(scenario_key_fn *fn, void *ud)
{
    for (size_t i = 0; i < NKEYS; i++)
        fn(ud, keys[i].name, type_names[keys[i].type], keys[i].def,
           keys[i].min, keys[i].max, keys[i].doc);
}

/* ---- validate ---------------------------------------------------------- */

/* The simulator clock is a uint64 count of picoseconds (about 213 days);
 * a run whose ideal duration passes a quarter of that is refused. */
#define CLOCK_LIMIT_PS (UINT64_MAX / 4)

int scenario_validate(const struct scenario *sc, struct err *e)
{
    char a[32], b[32];
    if (sc->fabric.mtu >= sc->fabric.buffer_bytes)
        return err_set(e, "fabric.buffer: must be larger than fabric.mtu "
                          "(%s), got %s",
                       units_fmt_size(sc->fabric.mtu, a, sizeof a),
                       units_fmt_size(sc->fabric.buffer_bytes, b, sizeof b));

    /* Shortest possible run: each writer at its NIC speed, and all bytes
     * through the storage NICs together. Limits keep the products within
     * uint64 (1e6 * 1TB, 1e5 * 100Tbps). */
    uint64_t t1 = units_ser_ps(sc->workload.bytes_per_writer,
                               sc->cluster.nic_bps);
    uint64_t t2 = units_ser_ps(sc->workload.bytes_per_writer * sc->cluster.nodes,
                               sc->storage.nic_bps * sc->storage.nodes);
    uint64_t t = t1 > t2 ? t1 : t2;
    if (t > CLOCK_LIMIT_PS - sc->workload.start_jitter_ps)
        return err_set(e, "workload.bytes_per_writer: writing %s per writer "
                          "at these speeds takes longer than the simulator "
                          "clock allows (%" PRIu64 " s)",
                       units_fmt_size(sc->workload.bytes_per_writer, a,
                                      sizeof a),
                       CLOCK_LIMIT_PS / PS_PER_S);
    return 0;
}

/* ---- YAML -------------------------------------------------------------- */

struct loader {
    const char *name;    /* for messages */
    const char *input;   /* the whole text, to place reader errors */
    size_t input_len;
    yaml_document_t *doc;
    struct scenario *sc;
    struct err *e;
};

/* "name:line:col: key: message" at mark; key may be "" */
static int fail_at(const struct loader *ld, yaml_mark_t mark, const char *key,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail_at(const struct loader *ld, yaml_mark_t mark, const char *key,
                   const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (key && key[0])
        return err_set(ld->e, "%s:%zu:%zu: %s: %s", ld->name, mark.line + 1,
                       mark.column + 1, key, msg);
    return err_set(ld->e, "%s:%zu:%zu: %s", ld->name, mark.line + 1,
                   mark.column + 1, msg);
}

/* A plain null scalar ("", "~", "null"): an empty section. */
static int is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return 0;
    const char *v = (const char *)n->data.scalar.value;
    return n->data.scalar.length == 0 || strcmp(v, "~") == 0
           || strcmp(v, "null") == 0 || strcmp(v, "Null") == 0
           || strcmp(v, "NULL") == 0;
}

static int load_leaf(struct loader *ld, const struct key *k, yaml_node_t *vn)
{
    if (vn->type != YAML_SCALAR_NODE)
        return fail_at(ld, vn->start_mark, k->name, "expected a scalar value");
    const char *text = (const char *)vn->data.scalar.value;
    if (strlen(text) != vn->data.scalar.length)
        return fail_at(ld, vn->start_mark, k->name,
                       "value contains a NUL character");
    char msg[256];
    struct kval v;
    if (key_parse(k, text, &v, msg, sizeof msg) < 0)
        return fail_at(ld, vn->start_mark, k->name, "%s", msg);
    key_store(ld->sc, k, &v);
    return 0;
}

/* Apply the mapping `map` whose keys live under `prefix` ("" at the top). */
static int load_mapping(struct loader *ld, yaml_node_t *map,
                        const char *prefix)
{
    yaml_node_pair_t *start = map->data.mapping.pairs.start;
    yaml_node_pair_t *top = map->data.mapping.pairs.top;
    for (yaml_node_pair_t *pr = start; pr < top; pr++) {
        yaml_node_t *kn = yaml_document_get_node(ld->doc, pr->key);
        yaml_node_t *vn = yaml_document_get_node(ld->doc, pr->value);
        if (kn->type != YAML_SCALAR_NODE)
            return fail_at(ld, kn->start_mark, prefix,
                           "expected a key name, got a %s",
                           kn->type == YAML_MAPPING_NODE ? "mapping"
                                                         : "sequence");
        const char *kv = (const char *)kn->data.scalar.value;
        size_t kl = kn->data.scalar.length;
        char path[PATH_MAX_LEN];
        if (prefix[0])
            snprintf(path, sizeof path, "%s.%.*s", prefix, (int)kl, kv);
        else
            snprintf(path, sizeof path, "%.*s", (int)kl, kv);
        size_t plen = strlen(path);
        int whole = plen == (prefix[0] ? strlen(prefix) + 1 + kl : kl);

        for (yaml_node_pair_t *q = start; q < pr; q++) {
            yaml_node_t *qn = yaml_document_get_node(ld->doc, q->key);
            if (qn->type == YAML_SCALAR_NODE && qn->data.scalar.length == kl
                && memcmp(qn->data.scalar.value, kv, kl) == 0)
                return fail_at(ld, kn->start_mark, path, "duplicate key");
        }

        if (memchr(kv, '.', kl))
            return fail_at(ld, kn->start_mark, path,
                           "unknown key (write sections as nested mappings, "
                           "not dotted names)");

        const struct key *k = whole ? key_find(path, plen) : NULL;
        if (k) {
            if (load_leaf(ld, k, vn) < 0)
                return -1;
        } else if (whole && is_section(path, plen)) {
            if (vn->type == YAML_MAPPING_NODE) {
                if (load_mapping(ld, vn, path) < 0)
                    return -1;
            } else if (!is_null(vn)) {
                return fail_at(ld, vn->start_mark, path,
                               "expected a mapping of keys");
            }
        } else {
            char hint[PATH_MAX_LEN + 32];
            suggest(path, hint, sizeof hint);
            return fail_at(ld, kn->start_mark, path, "unknown key%s", hint);
        }
    }
    return 0;
}

/* Reader errors carry a byte offset, not a line: find the line here. */
static yaml_mark_t mark_of_offset(const struct loader *ld, size_t off)
{
    yaml_mark_t m = {off, 0, 0};
    for (size_t i = 0; i < off && i < ld->input_len; i++) {
        if (ld->input[i] == '\n') {
            m.line++;
            m.column = 0;
        } else if (((unsigned char)ld->input[i] & 0xC0) != 0x80) {
            m.column++;
        }
    }
    return m;
}

static int syntax_error(const struct loader *ld, const yaml_parser_t *p)
{
    if (p->error == YAML_MEMORY_ERROR)
        return err_set(ld->e, "%s: out of memory reading YAML", ld->name);
    yaml_mark_t m = p->error == YAML_READER_ERROR
                        ? mark_of_offset(ld, p->problem_offset)
                        : p->problem_mark;
    return fail_at(ld, m, "", "YAML syntax error: %s",
                   p->problem ? p->problem : "unknown error");
}

/* Parse len bytes of YAML and apply them to a copy of *sc, which replaces
 * *sc only when everything applied cleanly. */
static int load_buffer(struct scenario *sc, const char *yaml, size_t len,
                       const char *name, const char *source, struct err *e)
{
    struct scenario tmp = *sc;
    struct loader ld = {name, yaml, len, NULL, &tmp, e};
    yaml_parser_t parser;
    yaml_document_t doc, extra;
    if (!yaml_parser_initialize(&parser))
        return err_set(e, "%s: out of memory reading YAML", name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);

    int rc = 0;
    if (!yaml_parser_load(&parser, &doc)) {
        rc = syntax_error(&ld, &parser);
        yaml_parser_delete(&parser);
        return rc;
    }
    ld.doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (root && root->type == YAML_MAPPING_NODE)
        rc = load_mapping(&ld, root, "");
    else if (root && !is_null(root))
        rc = fail_at(&ld, root->start_mark, "",
                     "expected a mapping of keys at the top level");

    if (rc == 0) {
        if (!yaml_parser_load(&parser, &extra)) {
            rc = syntax_error(&ld, &parser);
        } else {
            yaml_node_t *r2 = yaml_document_get_root_node(&extra);
            if (r2)
                rc = fail_at(&ld, r2->start_mark, "",
                             "expected one YAML document, found a second");
            yaml_document_delete(&extra);
        }
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (rc == 0) {
        *sc = tmp;
        snprintf(sc->source, sizeof sc->source, "%s", source);
    }
    return rc;
}

int scenario_load_string(struct scenario *sc, const char *yaml,
                         const char *name, struct err *e)
{
    return load_buffer(sc, yaml, strlen(yaml), name, name, e);
}

int scenario_load_file(struct scenario *sc, const char *path, struct err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(e, "cannot open '%s': %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                fclose(f);
                return err_set(e, "cannot read '%s': out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    if (rerr) {
        free(buf);
        return err_set(e, "cannot read '%s': %s", path, strerror(rerr));
    }
    int rc = load_buffer(sc, buf, len, path, path, e);
    free(buf);
    return rc;
}
