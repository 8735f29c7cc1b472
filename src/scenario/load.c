/* Scenario loading: the value parsers, --set and the YAML loader that
 * fill a struct scenario from the key table (keys.c). */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "../core/text.h"
#include "../core/units.h"

/* A parsed value: integers (and bools, enum indexes) in u, reals in d,
 * text in s. */
struct kval {
    uint64_t u;
    double d;
    unsigned unit; /* T_RATE: the bytes-per-second unit written (units.h), 0 = bits */
    char s[SCENARIO_LIST_TEXT]; /* a text fits its field (key.width) */
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

/* Is s a decimal number: [blanks][-+]digits[.digits][e[-+]digits],
 * with digits on at least one side of the point? strtod alone would also
 * take hex floats (0x1p3), inf and nan, which the docs do not allow. */
static int is_decimal(const char *s)
{
    const char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '-' || *p == '+')
        p++;
    size_t digits = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '-' || *p == '+')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

static int parse_real(const char *s, double *d, char *msg, size_t len)
{
    char *end = NULL;
    int ok = is_decimal(s);
    if (ok) {
        errno = 0;
        *d = strtod(s, &end);
        ok = !*end && !errno && *d == *d && *d <= 1e300 && *d >= -1e300;
    }
    if (!ok) {
        snprintf(msg, len, "expected a decimal number like \"0.5\" or \"1e-3\", got \"%.64s\"", s);
        return -1;
    }
    return 0;
}

/* An enumerated key's choices as "a|b|c", from its names table. */
static const char *key_choices(const struct key *k, char *buf, size_t len)
{
    return names_join(k->names, "|", buf, len);
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
    /* the nearest choice, for a typo */
    const char *names[32];
    char buf[256];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", choices);
    for (char *c = buf; c && n < 32; n++) {
        names[n] = c;
        c = strchr(c, '|');
        if (c)
            *c++ = '\0';
    }
    const char *near = text_nearest(s, names, n, 2);
    snprintf(msg, len, "expected one of %.100s, got \"%.40s\"%s%.40s%s", list, s,
             near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
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
        if (k->type == T_COUNT && k->word && !strcmp(s, k->word)) {
            *v = UINT64_MAX; /* "auto": stored as 0, decided by the run */
            return 0;
        }
        return units_parse_uint(s, v, msg, len);
    case T_RATE:
        return units_parse_rate_unit(s, v, &kv->unit, msg, len);
    case T_SIZE:
        return units_parse_size(s, v, msg, len);
    case T_TIME:
        if (k->word && !strcmp(s, k->word)) {
            *v = UINT64_MAX; /* "auto": decided by the run */
            return 0;
        }
        return units_parse_time(s, v, msg, len);
    case T_BOOL:
        return parse_bool(s, v, msg, len);
    case T_REAL:
        return parse_real(s, &kv->d, msg, len);
    case T_ENUM: {
        char c[512];
        return parse_enum(key_choices(k, c, sizeof c), s, v, msg, len);
    }
    case T_TEXT:
        if (strlen(s) >= k->width || !s[0]) {
            snprintf(msg, len, "expected a text of 1 to %zu characters, got \"%.64s\"",
                     k->width - 1, s);
            return -1;
        }
        for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
            /* texts are echoed into reports and the JSON: no control bytes */
            if (*c < 0x20 || *c == 0x7f || (*c == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)) {
                snprintf(msg, len, "expected printable text, got \"%.64s\"", s);
                return -1;
            }
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
    if (k->type == T_TIME && k->word && *v == UINT64_MAX)
        return 0;
    if (k->type == T_COUNT && k->word && *v == UINT64_MAX)
        return 0;
    if (k->min && *v < limit_value(k, k->min)) {
        if (limit_value(k, k->min) == 1) {
            if (k->type == T_COUNT || k->type == T_UINT)
                snprintf(msg, len, "expected a count >= 1, got \"%.64s\"", s);
            else
                snprintf(msg, len, "expected a %s > 0, got \"%.64s\"",
                         scn_type_names[k->type], s);
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

/* kv as k's field holds it, at p */
static void key_bytes(const struct key *k, const struct kval *kv, char *p)
{
    uint64_t v = kv->u;
    if (k->type == T_COUNT && k->word && v == UINT64_MAX)
        v = 0; /* counts start at 1: 0 is the word (auto) */
    if (k->type == T_REAL) {
        memcpy(p, &kv->d, sizeof kv->d);
    } else if (k->type == T_TEXT) {
        memcpy(p, kv->s, strlen(kv->s) + 1);
    } else if (k->type == T_BOOL || k->type == T_ENUM) {
        int b = k->type == T_ENUM ? (int)v : v != 0; /* enum: choice index */
        memcpy(p, &b, sizeof b);
    } else if (k->width == sizeof(uint32_t)) {
        uint32_t x = (uint32_t)v; /* limits keep v within uint32 */
        memcpy(p, &x, sizeof x);
    } else {
        memcpy(p, &v, sizeof v);
    }
}

static void key_store(struct scenario *sc, const struct key *k,
                      const struct kval *kv)
{
    if (k->type == T_RATE) /* echoed in the unit written */
        sc->rate_unit[k - scn_keys] = (uint8_t)kv->unit;
    key_bytes(k, kv, (char *)sc + k->off);
}

/* Remember that k was given by the user (file or --set), so derived values
 * (switch profiles, presets) never override it. */
static void mark_set(struct scenario *sc, const struct key *k, struct scenario_pos pos)
{
    size_t i = (size_t)(k - scn_keys);
    scn_bit_put(sc->set_mask, i, 1);
    scn_bit_put(sc->opt_mask, i, 0);
    sc->pos[i] = pos;
}

/* The command-line option that sets key by itself, or NULL. */
const char *scn_option_of(const char *key)
{
    static const char *const opts[][2] = {
        {"engine", "--engine"}, {"checkpoint.phase", "--phase"}, {"sim.force", "--force"}};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        if (!strcmp(key, opts[i][0]))
            return opts[i][1];
    return NULL;
}

void scenario_mark_option(struct scenario *sc, const char *key)
{
    const struct key *k = scn_key_find(key, strlen(key));
    size_t i = k ? (size_t)(k - scn_keys) : 0;
    if (k && scn_option_of(key) && scn_bit(sc->set_mask, i) && !sc->pos[i].line)
        scn_bit_put(sc->opt_mask, i, 1);
}

/* 1 when k was given by its own option (scenario_mark_option). */
int scn_by_option(const struct scenario *sc, const struct key *k)
{
    size_t i = (size_t)(k - scn_keys);
    return scn_bit(sc->opt_mask, i);
}

/* ---- defaults, set, echo ----------------------------------------------- */

void scenario_defaults(struct scenario *sc)
{
    memset(sc, 0, sizeof *sc);
    for (size_t i = 0; i < NKEYS; i++) {
        char msg[160];
        struct kval v;
        if (key_parse(&scn_keys[i], scn_keys[i].def, &v, msg, sizeof msg) < 0)
            abort(); /* a bad default in the table; the tests catch it */
        key_store(sc, &scn_keys[i], &v);
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

    const struct key *k = scn_key_find(ks, klen);
    if (!k) {
        const struct key *first = scn_section_key(ks, klen);
        if (first)
            return err_set(e, "--set: %s: is a section; set one of its keys, like %s", name,
                           first->name);
        char hint[PATH_MAX_LEN + 32];
        scn_suggest(name, hint, sizeof hint);
        return err_set(e, "--set: %s: unknown key%s", name, hint);
    }
    char msg[256];
    struct kval v;
    if (key_parse(k, eq + 1, &v, msg, sizeof msg) < 0)
        return err_set(e, "--set: %s: %s", k->name, msg);
    key_store(sc, k, &v);
    mark_set(sc, k, (struct scenario_pos){0, 0});
    return 0;
}

void scenario_unset(struct scenario *sc, const char *key)
{
    const struct key *k = scn_key_find(key, strlen(key));
    size_t i = k ? (size_t)(k - scn_keys) : 0;
    if (k)
        scn_bit_put(sc->set_mask, i, 0);
}

int scenario_is_set(const struct scenario *sc, const char *key)
{
    const struct key *k = scn_key_find(key, strlen(key));
    if (!k)
        return 0;
    size_t i = (size_t)(k - scn_keys);
    return scn_bit(sc->set_mask, i);
}

struct scenario_pos scenario_key_pos(const struct scenario *sc, const char *key)
{
    const struct key *k = scn_key_find(key, strlen(key));
    size_t i = k ? (size_t)(k - scn_keys) : 0;
    if (!k || !scn_bit(sc->set_mask, i))
        return (struct scenario_pos){0, 0};
    return sc->pos[i];
}

int scenario_value_is(const struct scenario *sc, const char *key, const char *value)
{
    const struct key *k = scn_key_find(key, strlen(key));
    char msg[256];
    struct kval v;
    if (!k || key_parse(k, value, &v, msg, sizeof msg) < 0)
        return -1;
    const char *have = (const char *)sc + k->off;
    if (k->type == T_TEXT)
        return strcmp(have, v.s) == 0;
    char want[sizeof(uint64_t)];
    key_bytes(k, &v, want);
    size_t w = k->type == T_REAL ? sizeof(double)
               : k->type == T_BOOL || k->type == T_ENUM ? sizeof(int)
               : k->width;
    return memcmp(have, want, w) == 0;
}

int scenario_set_default(struct scenario *sc, const char *key, const char *value,
                         struct err *e)
{
    const struct key *k = scn_key_find(key, strlen(key));
    if (!k)
        return err_set(e, "%s: unknown key", key);
    if (scenario_is_set(sc, key))
        return 0;
    char msg[256];
    struct kval v;
    if (key_parse(k, value, &v, msg, sizeof msg) < 0)
        return err_set(e, "%s: %s", key, msg);
    key_store(sc, k, &v);
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

static int too_large(const char *name, struct err *e)
{
    return err_set(e, "%s: larger than %d MiB, the limit of a scenario file", name,
                   SCENARIO_MAX_BYTES >> 20);
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

/* A YAML sequence of scalars for a LIST key, as its comma list in
 * v->s (an empty sequence: the key's "none"). */
static int load_list(struct loader *ld, const struct key *k, yaml_node_t *vn, struct kval *v)
{
    size_t o = 0;
    for (yaml_node_item_t *it = vn->data.sequence.items.start;
         it < vn->data.sequence.items.top; it++) {
        yaml_node_t *n = yaml_document_get_node(ld->doc, *it);
        if (n->type != YAML_SCALAR_NODE)
            return fail_at(ld, n->start_mark, k->name, "expected a list of names or numbers");
        const char *t = (const char *)n->data.scalar.value;
        size_t l = n->data.scalar.length;
        if (!l || strlen(t) != l || strchr(t, ','))
            return fail_at(ld, n->start_mark, k->name, "expected one item without commas, "
                           "got \"%.64s\"", t);
        if (o + l + 1 >= k->width)
            return fail_at(ld, n->start_mark, k->name, "the list is longer than %zu characters",
                           k->width - 1);
        if (o)
            v->s[o++] = ',';
        memcpy(v->s + o, t, l);
        o += l;
    }
    if (!o && strcmp(k->def, "none"))
        return fail_at(ld, vn->start_mark, k->name, "expected a list of one item or more");
    snprintf(v->s + o, sizeof v->s - o, "%s", o ? "" : "none");
    return 0;
}

static int load_leaf(struct loader *ld, const struct key *k, yaml_node_t *vn)
{
    char msg[256];
    struct kval v;
    if (vn->type == YAML_SEQUENCE_NODE && k->type == T_TEXT && k->word &&
        !strcmp(k->word, LIST)) {
        if (load_list(ld, k, vn, &v) < 0)
            return -1;
        char *text = strdup(v.s); /* parsed like the same list written with commas */
        int rc = text ? key_parse(k, text, &v, msg, sizeof msg) : -1;
        if (!text)
            snprintf(msg, sizeof msg, "out of memory");
        free(text);
        if (rc < 0)
            return fail_at(ld, vn->start_mark, k->name, "%s", msg);
    } else if (vn->type != YAML_SCALAR_NODE) {
        return fail_at(ld, vn->start_mark, k->name, "expected a scalar value");
    } else {
        const char *text = (const char *)vn->data.scalar.value;
        if (strlen(text) != vn->data.scalar.length)
            return fail_at(ld, vn->start_mark, k->name,
                           "value contains a NUL character");
        if (key_parse(k, text, &v, msg, sizeof msg) < 0)
            return fail_at(ld, vn->start_mark, k->name, "%s", msg);
    }
    key_store(ld->sc, k, &v);
    mark_set(ld->sc, k, (struct scenario_pos){(uint32_t)vn->start_mark.line + 1,
                                              (uint32_t)vn->start_mark.column + 1});
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

        const struct key *k = whole ? scn_key_find(path, plen) : NULL;
        if (k) {
            if (load_leaf(ld, k, vn) < 0)
                return -1;
        } else if (whole && scn_section_key(path, plen)) {
            if (vn->type == YAML_MAPPING_NODE) {
                if (load_mapping(ld, vn, path) < 0)
                    return -1;
            } else if (!is_null(vn)) {
                return fail_at(ld, vn->start_mark, path,
                               "expected a mapping of keys");
            }
        } else {
            char hint[PATH_MAX_LEN + 32];
            scn_suggest(path, hint, sizeof hint);
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

/* Walk the events of the text before building a document from it, and
 * refuse nesting deeper than SCENARIO_MAX_DEPTH or more than
 * SCENARIO_MAX_NODES nodes: libyaml's loader takes time quadratic in the
 * depth (100k "[" never finish) and ~1.4 GB and 28 s for a 16 MiB flow
 * sequence, while this walk stops at the first level too deep or node too
 * many. Also reports syntax errors. */
static int check_shape(const struct loader *ld)
{
    yaml_parser_t p;
    yaml_event_t ev;
    if (!yaml_parser_initialize(&p))
        return err_set(ld->e, "%s: out of memory reading YAML", ld->name);
    yaml_parser_set_input_string(&p, (const unsigned char *)ld->input, ld->input_len);
    int rc = 0;
    for (unsigned depth = 0, nodes = 0;;) {
        if (!yaml_parser_parse(&p, &ev)) {
            rc = syntax_error(ld, &p);
            break;
        }
        yaml_event_type_t t = ev.type;
        if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
            if (++depth > SCENARIO_MAX_DEPTH)
                rc = fail_at(ld, ev.start_mark, "",
                             "nested deeper than %d levels", SCENARIO_MAX_DEPTH);
        } else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
            depth--;
        }
        if ((t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT ||
             t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT) &&
            ++nodes > SCENARIO_MAX_NODES && rc == 0)
            rc = fail_at(ld, ev.start_mark, "",
                         "more than %d YAML nodes (a scenario has %zu keys)",
                         SCENARIO_MAX_NODES, NKEYS);
        yaml_event_delete(&ev);
        if (rc < 0 || t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&p);
    return rc;
}

/* Parse len bytes of YAML and apply them to a copy of *sc, which replaces
 * *sc only when everything applied cleanly. */
static int load_buffer(struct scenario *sc, const char *yaml, size_t len,
                       const char *name, const char *source, struct err *e)
{
    struct scenario tmp = *sc;
    struct loader ld = {name, yaml, len, NULL, &tmp, e};
    for (size_t i = 0; i < NKEYS; i++) /* this file becomes sc->source */
        if (tmp.pos[i].line)
            tmp.pos[i].line = SCENARIO_EARLIER_FILE;
    yaml_parser_t parser;
    yaml_document_t doc, extra;
    if (len > SCENARIO_MAX_BYTES)
        return too_large(name, e);
    if (check_shape(&ld) < 0)
        return -1;
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

int scenario_load_buffer(struct scenario *sc, const char *yaml, size_t len,
                         const char *name, struct err *e)
{
    return load_buffer(sc, yaml, len, name, name, e);
}

/* Read at most SCENARIO_MAX_BYTES + 1 bytes of path: a larger file (or an
 * endless one like /dev/zero) is refused without reading it all. */
int scenario_load_file(struct scenario *sc, const char *path, struct err *e)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return err_set(e, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > SCENARIO_MAX_BYTES) {
        close(fd);
        return too_large(path, e);
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rerr = 0;
    while (len <= SCENARIO_MAX_BYTES) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            if (ncap > (size_t)SCENARIO_MAX_BYTES + 1)
                ncap = (size_t)SCENARIO_MAX_BYTES + 1;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                close(fd);
                return err_set(e, "cannot read '%s': out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rerr = errno;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    int rc;
    if (rerr)
        rc = err_set(e, "cannot read '%s': %s", path, strerror(rerr));
    else if (len > SCENARIO_MAX_BYTES)
        rc = too_large(path, e);
    else
        rc = load_buffer(sc, buf, len, path, path, e);
    free(buf);
    return rc;
}
