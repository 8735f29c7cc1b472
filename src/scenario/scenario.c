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
#include "../core/wire.h" /* NPRIO, ROCE_OVERHEAD, headroom: what the engine reserves */

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
    return names_join((const struct names *)k->choices, "|", buf, len);
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
        return units_parse_uint(s, v, msg, len);
    case T_RATE:
        return units_parse_rate_unit(s, v, &kv->unit, msg, len);
    case T_SIZE:
        return units_parse_size(s, v, msg, len);
    case T_TIME:
        if (k->choices && !strcmp(s, (const char *)k->choices)) {
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
    if (k->type == T_TIME && k->choices && *v == UINT64_MAX)
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

static void key_store(struct scenario *sc, const struct key *k,
                      const struct kval *kv)
{
    char *p = (char *)sc + k->off;
    uint64_t v = kv->u;
    if (k->type == T_RATE) /* echoed in the unit written */
        sc->rate_unit[k - scn_keys] = (uint8_t)kv->unit;
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

/* Remember that k was given by the user (file or --set), so derived values
 * (switch profiles, presets) never override it. */
static void mark_set(struct scenario *sc, const struct key *k, struct scenario_pos pos)
{
    size_t i = (size_t)(k - scn_keys);
    sc->set_mask[i / 64] |= UINT64_C(1) << (i % 64);
    sc->opt_mask[i / 64] &= ~(UINT64_C(1) << (i % 64));
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
    if (k && scn_option_of(key) && ((sc->set_mask[i / 64] >> (i % 64)) & 1) && !sc->pos[i].line)
        sc->opt_mask[i / 64] |= UINT64_C(1) << (i % 64);
}

/* 1 when k was given by its own option (scenario_mark_option). */
int scn_by_option(const struct scenario *sc, const struct key *k)
{
    size_t i = (size_t)(k - scn_keys);
    return (sc->opt_mask[i / 64] >> (i % 64)) & 1;
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
        if (scn_is_section(ks, klen)) {
            for (size_t i = 0; i < NKEYS; i++) {
                if (strncmp(scn_keys[i].name, name, klen) == 0
                    && scn_keys[i].name[klen] == '.')
                    return err_set(e, "--set: %s: is a section; set one of "
                                      "its keys, like %s", name, scn_keys[i].name);
            }
        }
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
        sc->set_mask[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

int scenario_is_set(const struct scenario *sc, const char *key)
{
    const struct key *k = scn_key_find(key, strlen(key));
    if (!k)
        return 0;
    size_t i = (size_t)(k - scn_keys);
    return (sc->set_mask[i / 64] >> (i % 64)) & 1;
}

struct scenario_pos scenario_key_pos(const struct scenario *sc, const char *key)
{
    const struct key *k = scn_key_find(key, strlen(key));
    size_t i = k ? (size_t)(k - scn_keys) : 0;
    if (!k || !((sc->set_mask[i / 64] >> (i % 64)) & 1))
        return (struct scenario_pos){0, 0};
    return sc->pos[i];
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

/* ---- validate ---------------------------------------------------------- */

/* "WHERE: " for key k: its file:line:col or "--set" when the user gave it,
 * else the file the scenario came from, else nothing. */
static void where_of(const struct scenario *sc, const struct key *k, char *buf, size_t len)
{
    size_t i = (size_t)(k - scn_keys);
    int from_file = strcmp(sc->source, "default") != 0;
    if (!((sc->set_mask[i / 64] >> (i % 64)) & 1))
        snprintf(buf, len, "%s%s", from_file ? sc->source : "", from_file ? ": " : "");
    else if (sc->pos[i].line == 0)
        snprintf(buf, len, "--set: ");
    else if (sc->pos[i].line == SCENARIO_EARLIER_FILE)
        snprintf(buf, len, "an earlier file: ");
    else
        snprintf(buf, len, "%s:%" PRIu32 ":%" PRIu32 ": ", sc->source, sc->pos[i].line,
                 sc->pos[i].col);
}

int scenario_fail(const struct scenario *sc, struct err *e, const char *key,
                  const char *fmt, ...)
{
    char msg[400], where[300] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const struct key *k = scn_key_find(key, strlen(key));
    if (k && scn_by_option(sc, k)) /* "--engine: ..." */
        return err_set(e, "%s: %s", scn_option_of(key), msg);
    if (k)
        where_of(sc, k, where, sizeof where);
    return err_set(e, "%s%s: %s", where, key, msg);
}

void scenario_locate(const struct scenario *sc, struct err *e)
{
    const char *colon = strstr(e->msg, ": ");
    const struct key *k = colon ? scn_key_find(e->msg, (size_t)(colon - e->msg)) : NULL;
    if (!k)
        return;
    char where[300], msg[sizeof e->msg];
    if (scn_by_option(sc, k)) { /* "--engine: ..." for "engine: ..." */
        snprintf(msg, sizeof msg, "%s", colon + 2);
        err_set(e, "%s: %s", scn_option_of(k->name), msg);
        return;
    }
    where_of(sc, k, where, sizeof where);
    snprintf(msg, sizeof msg, "%s", e->msg);
    err_set(e, "%s%s", where, msg);
}

/* The first of keys a, b the user set, else a: the key a cross-field
 * message should name. */
static const char *blame(const struct scenario *sc, const char *a, const char *b)
{
    return !scenario_is_set(sc, a) && scenario_is_set(sc, b) ? b : a;
}

/* "key: must differ from other (v)" for two keys of equal value v, naming
 * the one the user set. */
static int must_differ(const struct scenario *sc, struct err *e, const char *a, const char *b,
                       uint32_t v)
{
    const char *k = blame(sc, a, b);
    return scenario_fail(sc, e, k, "must differ from %s (%" PRIu32 ")", k == a ? b : a, v);
}

uint64_t scenario_headroom(const struct scenario *sc, uint64_t bps, uint64_t delay_ps)
{
    return wire_headroom(bps, delay_ps, sc->fabric.cable_length_m, sc->fabric.mtu);
}

int scenario_prio_mask(const char *s)
{
    int mask = 0;
    for (;;) {
        if (*s < '0' || *s > '7')
            return -1;
        mask |= 1 << (*s++ - '0');
        if (!*s)
            return mask;
        if (*s++ != ',')
            return -1;
    }
}

/* Eight weights 1-1000 separated by commas, as the engine reads them
 * (strtol: blanks before a number allowed). */
static int weights_ok(const char *s)
{
    for (int i = 0; i < 8; i++) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1000 || (i < 7 ? *end != ',' : *end != '\0'))
            return 0;
        s = end + 1;
    }
    return 1;
}

/* The shared buffer a switch with n_host ports at host_bps and n_up ports
 * at up_bps needs (as the packet engine's MMU reserves it, src/pkt/mmu.c):
 * per port, a reserve per priority, PFC headroom per lossless priority and
 * two MTUs. Also sets *reserved (without the two MTUs). */
static uint64_t switch_need(const struct scenario *sc, unsigned lossless, uint64_t n_host,
                            uint64_t host_bps, uint64_t n_up, uint64_t up_bps,
                            uint64_t *reserved)
{
    uint64_t d = sc->fabric.link_delay_ps, wire = (uint64_t)sc->fabric.mtu + ROCE_OVERHEAD;
    uint64_t r = (n_host + n_up) * NPRIO * sc->fabric.mmu_reserve +
                 lossless * (n_host * scenario_headroom(sc, host_bps, d) +
                             n_up * scenario_headroom(sc, up_bps, d));
    *reserved = r;
    return r + (n_host + n_up) * 2 * wire;
}

/* The checks the packet engine's fabric model needs (on a resolved sc). */
static int validate_fabric(const struct scenario *sc, struct err *e)
{
    int mask = scenario_prio_mask(sc->fabric.pfc_priorities);
    uint32_t dp = sc->transport.data_priority, cp = sc->transport.cnp_priority;
    if (mask < 0)
        return scenario_fail(sc, e, "fabric.pfc.priorities",
                             "expected priorities 0-7 separated by commas, got \"%s\"",
                             sc->fabric.pfc_priorities);
    if (!weights_ok(sc->fabric.dwrr_weights))
        return scenario_fail(sc, e, "fabric.dwrr_weights",
                             "expected 8 weights 1-1000 separated by commas, got \"%s\"",
                             sc->fabric.dwrr_weights);
    if (cp == dp)
        return must_differ(sc, e, "transport.cnp_priority", "transport.data_priority", cp);
    if ((mask >> cp) & 1)
        return scenario_fail(sc, e, blame(sc, "fabric.pfc.priorities", "transport.cnp_priority"),
                             "the CNP priority %" PRIu32 " must not be lossless "
                             "(fabric.pfc.priorities \"%s\")", cp, sc->fabric.pfc_priorities);
    if (sc->transport.cnp_dscp == sc->transport.data_dscp)
        return must_differ(sc, e, "transport.cnp_dscp", "transport.data_dscp",
                           sc->transport.cnp_dscp);
    if (sc->fabric.ecn && sc->fabric.ecn_kmin && sc->fabric.ecn_kmax &&
        sc->fabric.ecn_kmax <= sc->fabric.ecn_kmin)
    {
        const char *k = blame(sc, "fabric.ecn.kmax", "fabric.ecn.kmin");
        char a[32], b[32];
        units_fmt_size(sc->fabric.ecn_kmin, a, sizeof a);
        units_fmt_size(sc->fabric.ecn_kmax, b, sizeof b);
        return scenario_fail(sc, e, k, "fabric.ecn.kmax (%s) must be larger than "
                             "fabric.ecn.kmin (%s)", b, a);
    }

    /* Switch buffers against their reserves and headroom; the largest leaf
     * of each side and the spine (topo_build's layout, workload_fabric's
     * one host port per NIC). Limits keep these within uint64. */
    unsigned lossless = sc->fabric.pfc ? (unsigned)__builtin_popcount((unsigned)mask) : 0;
    uint64_t nics = sc->cluster.nics_per_node, k = sc->fabric.links_per_spine;
    uint64_t hosts = sc->cluster.nodes * nics;
    uint64_t hpl = sc->fabric.hosts_per_leaf * nics / sc->fabric.rails; /* workload_fabric */
    uint64_t snics = sc->storage.nics_per_node;
    uint64_t st = sc->storage.nodes * snics, spl = sc->fabric.storage_per_leaf * snics;
    uint64_t up = sc->fabric.spines * k;
    uint64_t leaves = (hosts + hpl - 1) / hpl + (st + spl - 1) / spl;
    /* three tiers (topo/clos.c's layout): a spine has its pod's leaves
     * below and its plane's super-spines above; a super-spine every pod */
    uint64_t sdown = leaves * k, sup = 0, sup_pods = 0, k2 = sc->fabric.links_per_super;
    uint64_t up2_bps = sc->fabric.spine_uplink_bps ? sc->fabric.spine_uplink_bps
                                                   : sc->fabric.uplink_bps;
    if (scenario_levels(sc) > 2) { /* super-spines */
        uint64_t lc = (hosts + hpl - 1) / hpl, ls = (st + spl - 1) / spl;
        uint64_t lpp = sc->fabric.leaves_per_pod;
        if (!lpp && sc->fabric.pods)
            lpp = (lc + sc->fabric.pods - 1) / sc->fabric.pods;
        lpp = lpp ? lpp : 1;
        uint64_t cpods = (lc + lpp - 1) / lpp, cw = lc < lpp ? lc : lpp;
        int spread = sc->fabric.storage_pods == SPODS_SPREAD;
        sup_pods = spread ? cpods : cpods + (ls + lpp - 1) / lpp;
        sdown = (spread ? lpp + (ls + cpods - 1) / cpods : lpp) * k;
        uint64_t s = sc->fabric.superspines;
        if (!s)
            s = (cw * k * sc->fabric.uplink_bps + k2 * up2_bps - 1) / (k2 * up2_bps);
        sup = s * k2;
        up = (sc->fabric.spines_per_pod ? sc->fabric.spines_per_pod : sc->fabric.spines) * k;
    }
    struct {
        const char *what;
        uint64_t buffer, n_host, host_bps, n_up, up_bps;
        const char *profile;
    } sw[4] = {
        {"compute leaf", sc->fabric.leaf_buffer, hosts < hpl ? hosts : hpl, sc->cluster.nic_bps,
         up, sc->fabric.uplink_bps, sc->fabric.leaf_switch},
        {"storage leaf", sc->fabric.leaf_buffer, st < spl ? st : spl, sc->storage.nic_bps, up,
         sc->fabric.uplink_bps, sc->fabric.leaf_switch},
        {"spine", sc->fabric.spine_buffer, sup ? sdown : 0, sc->fabric.uplink_bps,
         sup ? sup : sdown, sup ? up2_bps : sc->fabric.uplink_bps, sc->fabric.spine_switch},
        {"super-spine", sc->fabric.spine_buffer, 0, 0, sup_pods * k2, up2_bps,
         sc->fabric.spine_switch},
    };
    /* a topology file's switches: checked on its wiring (api/run.c wiring_check) */
    int imported = strcmp(sc->fabric.topology_file, "none") != 0;
    for (int i = 0; i < 4 && !imported; i++) {
        uint64_t reserved;
        if (!sw[i].n_host && !sw[i].n_up)
            continue; /* two tiers: no super-spines */
        uint64_t need = switch_need(sc, lossless, sw[i].n_host, sw[i].host_bps, sw[i].n_up,
                                    sw[i].up_bps, &reserved);
        if (sw[i].buffer < need) {
            char b[32], from[100] = "";
            if (!scenario_is_set(sc, "fabric.buffer"))
                snprintf(from, sizeof from, " (switch profile %s)", sw[i].profile);
            return scenario_fail(sc, e, "fabric.buffer",
                                 "%s%s is too small for a %s with %" PRIu64 " ports: its "
                                 "reserves%s take %.3g MB, at least %.3g MB needed",
                                 units_fmt_size(sw[i].buffer, b, sizeof b), from, sw[i].what,
                                 sw[i].n_host + sw[i].n_up,
                                 lossless ? " and PFC headroom" : "", (double)reserved / 1e6,
                                 (double)need / 1e6);
        }
        /* per_class: each pool (an equal share, src/pkt/mmu.c) holds its
         * own priorities' reserves and headroom plus two MTUs a port */
        if (sc->fabric.mmu_pools == POOLS_PER_CLASS && lossless) {
            uint64_t d = sc->fabric.link_delay_ps, ports = sw[i].n_host + sw[i].n_up;
            uint64_t share = sw[i].buffer / (lossless + 1);
            uint64_t two = 2 * ((uint64_t)sc->fabric.mtu + ROCE_OVERHEAD);
            uint64_t pool_ll = ports * (sc->fabric.mmu_reserve + two) +
                               sw[i].n_host * scenario_headroom(sc, sw[i].host_bps, d) +
                               sw[i].n_up * scenario_headroom(sc, sw[i].up_bps, d);
            uint64_t pool_ly = ports * ((NPRIO - lossless) * sc->fabric.mmu_reserve + two);
            uint64_t worst = pool_ll > pool_ly ? pool_ll : pool_ly;
            if (share < worst) {
                char b[32];
                return scenario_fail(sc, e, "fabric.mmu.pools",
                                     "per_class splits the %s buffer of a %s into %u pools "
                                     "of %.3g MB; a %s pool's reserves%s need %.3g MB: "
                                     "use shared or a larger fabric.buffer",
                                     units_fmt_size(sw[i].buffer, b, sizeof b), sw[i].what,
                                     lossless + 1, (double)share / 1e6,
                                     pool_ll >= pool_ly ? "lossless" : "lossy",
                                     pool_ll >= pool_ly ? " and PFC headroom" : "",
                                     (double)worst / 1e6);
            }
        }
    }

    /* storage nodes */
    uint64_t cap = sc->storage.ingest_buffer, wire = (uint64_t)sc->fabric.mtu + ROCE_OVERHEAD;
    uint64_t window = (uint64_t)sc->storage.max_outstanding * sc->storage.request_size;
    if (sc->storage.max_outstanding && sc->storage.request_size > UINT32_MAX)
        return scenario_fail(sc, e, "storage.request_size",
                             "at most 4GB with storage.max_outstanding");
    if (window && window < sc->fabric.mtu)
        return scenario_fail(sc, e, "storage.max_outstanding",
                             "the window (%" PRIu64 " B) must hold one packet (fabric.mtu)",
                             window);
    if (sc->storage.stuck_nodes > sc->storage.nodes)
        return scenario_fail(sc, e, "storage.stuck_nodes",
                             "%" PRIu32 " is more than the %" PRIu32 " storage nodes",
                             sc->storage.stuck_nodes, sc->storage.nodes);
    if (sc->storage.stuck_nodes && !cap)
        return scenario_fail(sc, e, "storage.stuck_nodes",
                             "needs storage.ingest_buffer (a stuck node with an unlimited "
                             "buffer never pushes back)");
    /* rails: whole rail groups of hosts_per_leaf nodes (workload_nic_host) */
    if (sc->fabric.rails > 1) {
        if (sc->cluster.nics_per_node % sc->fabric.rails)
            return scenario_fail(sc, e, "fabric.rails", "%" PRIu32 " rails must divide "
                                 "cluster.nics_per_node (%" PRIu32 ")", sc->fabric.rails,
                                 sc->cluster.nics_per_node);
        /* tiers auto picks hosts_per_leaf to divide the nodes */
        if (!sc->fabric.tiers_auto && sc->cluster.nodes % sc->fabric.hosts_per_leaf)
            return scenario_fail(sc, e, "fabric.rails", "rail groups need cluster.nodes (%"
                                 PRIu32 ") a multiple of fabric.hosts_per_leaf (%" PRIu32 ")",
                                 sc->cluster.nodes, sc->fabric.hosts_per_leaf);
    }
    if (cap && (sc->storage.stuck_nodes || sc->storage.drain_bps) && !imported) {
        /* one buffer a node: what is on the wire of each of its NICs */
        uint64_t h = scenario_headroom(sc, sc->storage.nic_bps, sc->fabric.link_delay_ps) *
                     (sc->storage.nics_per_node ? sc->storage.nics_per_node : 1);
        if (cap < h + 2 * wire)
            return scenario_fail(sc, e, "storage.ingest_buffer",
                                 "must hold the PFC headroom of its links plus two MTUs, "
                                 "at least %" PRIu64 " B", h + 2 * wire);
    }
    return 0;
}


/* Training traffic (src/work/train.h): gradient bytes to move, and under
 * logical isolation a class of its own. */
static int validate_training(const struct scenario *sc, struct err *e)
{
    if (sc->training.traffic == TRAFFIC_NONE)
        return 0;
    if (sc->model.name == MODEL_NONE && !sc->training.grad_bytes)
        return scenario_fail(sc, e, "training.grad_bytes",
                             "training.traffic collectives without a model (model.name none) "
                             "needs the gradient bytes each GPU all-reduces per step");
    if (sc->training.isolation != ISO_LOGICAL)
        return 0;
    uint32_t p = sc->training.priority, d = sc->training.dscp;
    if (p == sc->transport.data_priority || p == sc->transport.cnp_priority)
        return scenario_fail(sc, e, "training.priority",
                             "fabric.isolation logical needs a class of its own: priority %" PRIu32
                             " is the %s priority; choose another or fabric.isolation none",
                             p, p == sc->transport.cnp_priority ? "CNP" : "checkpoint (data)");
    if (d == sc->transport.data_dscp || d == sc->transport.cnp_dscp)
        return scenario_fail(sc, e, "training.dscp",
                             "fabric.isolation logical needs a DSCP of its own: %" PRIu32
                             " is the %s DSCP", d,
                             d == sc->transport.cnp_dscp ? "CNP" : "checkpoint (data)");
    /* RoCE collectives need a lossless class: lossy, the engine would drop
     * them (it models no retransmission timeout) */
    int mask = scenario_prio_mask(sc->fabric.pfc_priorities);
    if (sc->fabric.pfc && mask >= 0 && !((mask >> p) & 1))
        return scenario_fail(sc, e, blame(sc, "fabric.pfc.priorities", "training.priority"),
                             "training's priority %" PRIu32 " is not lossless: add it to "
                             "fabric.pfc.priorities (\"%s,%" PRIu32 "\") for RoCE collectives, "
                             "or use fabric.isolation none", p, sc->fabric.pfc_priorities, p);
    return 0;
}

int scenario_validate(const struct scenario *user, struct err *e)
{
    char a[32], b[32];
    struct scenario res = *user; /* switch profiles fill the buffers */
    const struct scenario *sc = &res;
    if (scenario_resolve(&res, e) < 0)
        return -1;
    if (sc->fabric.mtu >= sc->fabric.buffer_bytes) {
        units_fmt_size(sc->fabric.mtu, a, sizeof a);
        units_fmt_size(sc->fabric.buffer_bytes, b, sizeof b);
        if (blame(sc, "fabric.buffer", "fabric.mtu")[7] == 'b')
            return scenario_fail(sc, e, "fabric.buffer",
                                 "must be larger than fabric.mtu (%s), got %s", a, b);
        return scenario_fail(sc, e, "fabric.mtu", "must be smaller than fabric.buffer (%s), got %s",
                             b, a);
    }

    /* Shortest possible run: each writer at its NIC speed, and all bytes
     * through the storage NICs together. Limits keep the products within
     * uint64 (1e6 * 1TB, 1e5 * 100Tbps). */
    uint64_t t1 = units_ser_ps(sc->workload.bytes_per_writer,
                               sc->cluster.nic_bps);
    uint64_t t2 = units_ser_ps(sc->workload.bytes_per_writer * sc->cluster.nodes,
                               sc->storage.nic_bps * sc->storage.nodes) /
                  sc->storage.nics_per_node;
    uint64_t t = t1 > t2 ? t1 : t2;
    if (t > CLOCK_LIMIT_PS - sc->workload.start_jitter_ps)
        return scenario_fail(sc, e, "workload.bytes_per_writer",
                             "writing %s per writer at these speeds takes longer than the "
                             "simulator clock allows (%" PRIu64 " s)",
                             units_fmt_size(sc->workload.bytes_per_writer, a, sizeof a),
                             CLOCK_LIMIT_PS / PS_PER_S);
    if (validate_training(sc, e) < 0)
        return -1;
    if (sc->telemetry.pcap_stop_ps && sc->telemetry.pcap_stop_ps <= sc->telemetry.pcap_start_ps)
        return scenario_fail(sc, e, blame(sc, "telemetry.pcap.stop", "telemetry.pcap.start"),
                             "the capture window is empty: telemetry.pcap.stop (%s) must be "
                             "after telemetry.pcap.start (%s), or 0 for the run's end",
                             units_fmt_time(sc->telemetry.pcap_stop_ps, a, sizeof a),
                             units_fmt_time(sc->telemetry.pcap_start_ps, b, sizeof b));
    return validate_fabric(sc, e);
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
    if (vn->type == YAML_SEQUENCE_NODE && k->type == T_TEXT && k->choices &&
        !strcmp((const char *)k->choices, LIST)) {
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
        } else if (whole && scn_is_section(path, plen)) {
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
