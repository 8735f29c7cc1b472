/* Topology files: reading fabric.topology_file into a struct topo (the
 * format export.c writes; docs/scenario.md "Imported topologies").
 *
 * Node order is the builders': hosts and storage nodes in file order, then
 * the compute leaves, storage leaves, spines (pod by pod) and super-spines
 * in the order of "switches". A node's ports are in the order its links
 * appear in "links", so a file written from a built fabric gives back the
 * same ports. Routes: every leaf's by the builders' up-down search (as if
 * every leaf had a failed link), so the ECMP next-hop sets and their order
 * are the builders'. */
#include <jansson.h>
#include <yaml.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/rng.h"
#include "../core/units.h"
#include "internal.h"

enum { K_HOST, K_STORAGE, K_LEAF, K_SPINE, K_SUPER };
static const char *const kind_word[] = {"host", "storage node", "leaf", "spine",
                                        "super-spine"};
/* tier of a kind: endpoints 0, leaves 1, spines 2, super-spines 3 */
static int tier_of(int kind)
{
    return kind <= K_STORAGE ? 0 : kind - 1;
}

struct elem {
    const char *name;
    int kind;
    uint32_t idx;   /* index in its array ("hosts", "storage", "switches") */
    uint32_t deg;   /* links */
    uint32_t node;  /* topo node id */
    int side;       /* leaves: 1 hosts below, 2 storage nodes below */
    uint32_t pod;   /* three tiers: leaves and spines */
    const json_t *src; /* its entry in the file */
};

struct ilink {
    uint32_t a, b;  /* elements, a on the lower tier */
    uint64_t bps, delay;
    uint32_t failed;  /* 0 up; else down, listed by this (true: UINT32_MAX, last) */
    uint32_t pa;      /* a's port */
};

/* Where a value of a YAML file began (JSON files have none). */
struct mark {
    const json_t *v;
    uint32_t line, col;
};

struct imp {
    const char *path;
    struct err *e;
    struct mark *marks;
    size_t n_marks, cap_marks;
    struct elem *el;
    uint32_t n_el;
    uint32_t *hash;  /* open addressing: element + 1, 0 = empty */
    uint32_t hmask;
    struct ilink *ln;
    uint32_t n_ln;
};

/* "FILE: what: message" */
static int fail(const struct imp *m, const json_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(const struct imp *m, const json_t *at, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (size_t i = 0; at && i < m->n_marks; i++)
        if (m->marks[i].v == at)
            return err_set(m->e, "%s:%u:%u: %s", m->path, m->marks[i].line, m->marks[i].col,
                           msg);
    return err_set(m->e, "%s: %s", m->path, msg);
}

/* FNV-1a: wraps by design */
CKPT_WRAPS static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Element named s, or UINT32_MAX. */
static uint32_t lookup(const struct imp *m, const char *s)
{
    for (uint32_t i = name_hash(s) & m->hmask; m->hash[i]; i = (i + 1) & m->hmask)
        if (!strcmp(m->el[m->hash[i] - 1].name, s))
            return m->hash[i] - 1;
    return UINT32_MAX;
}

static const char *where_el(const struct elem *x, char *buf, size_t len)
{
    snprintf(buf, len, "%s[%u] \"%.60s\"",
             x->kind == K_HOST ? "hosts" : x->kind == K_STORAGE ? "storage" : "switches", x->idx,
             x->name);
    return buf;
}

/* The file entry of topo node n (for an error's line and column). */
static const json_t *src_of(const struct imp *m, uint32_t n)
{
    for (uint32_t i = 0; i < m->n_el; i++)
        if (m->el[i].node == n)
            return m->el[i].src;
    return NULL;
}

static int add_elem(struct imp *m, json_t *name, const json_t *src, int kind, uint32_t idx)
{
    const char *arr = kind == K_HOST ? "hosts" : kind == K_STORAGE ? "storage" : "switches";
    if (!json_is_string(name))
        return fail(m, name, "%s[%u]: expected a name (a string)", arr, idx);
    const char *s = json_string_value(name);
    if (!s[0] || strlen(s) > 200)
        return fail(m, name, "%s[%u]: expected a name of 1 to 200 characters", arr, idx);
    /* names become CSV fields, Prometheus labels, gnuplot titles and pcap
     * file names: letters, digits and . _ : + - only (no separators, quotes,
     * slashes or control bytes to escape in each) */
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == ':' || *c == '+' || *c == '-'))
            return fail(m, name, "%s[%u]: expected a name of letters, digits and . _ : + - "
                                 "(it names files and CSV fields)", arr, idx);
    uint32_t dup = lookup(m, s);
    char w[128];
    if (dup != UINT32_MAX)
        return fail(m, name, "%s[%u]: duplicate name \"%.60s\" (also %s)", arr, idx, s,
                    where_el(&m->el[dup], w, sizeof w));
    struct elem *x = &m->el[m->n_el];
    *x = (struct elem){s, kind, idx, 0, 0, 0, 0, src};
    uint32_t i = name_hash(s) & m->hmask;
    while (m->hash[i])
        i = (i + 1) & m->hmask;
    m->hash[i] = ++m->n_el;
    return 0;
}

/* Unknown keys are errors: a typo must not pass silently. */
static int only_keys(const struct imp *m, json_t *obj, const char *what,
                     const char *const *allowed)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        int ok = 0;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = !strcmp(*a, k);
        if (!ok)
            return fail(m, obj, "%s: unknown key \"%.40s\"", what, k);
    }
    return 0;
}

/* A rate or time: a string in the scenario's units, or an integer (bps, ps). */
static int quantity(const struct imp *m, json_t *v, int rate, uint64_t lo, uint64_t hi,
                    const char *what, uint64_t *out)
{
    char msg[160];
    const char *unit = rate ? "speed" : "delay";
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
    } else if (json_is_string(v)) {
        int rc = rate ? units_parse_rate(json_string_value(v), out, msg, sizeof msg)
                      : units_parse_time(json_string_value(v), out, msg, sizeof msg);
        if (rc < 0)
            return fail(m, v, "%s: %s: %s", what, unit, msg);
    } else {
        return fail(m, v, "%s: %s: expected %s", what, unit,
                    rate ? "a rate such as \"400Gbps\"" : "a time such as \"1us\"");
    }
    if (*out < lo || *out > hi) {
        char a[32], b[32], c[32];
        return fail(m, v, "%s: %s: %s is out of range (%s to %s)", what, unit,
                    rate ? units_fmt_rate(*out, a, sizeof a) : units_fmt_time(*out, a, sizeof a),
                    rate ? units_fmt_rate(lo, b, sizeof b) : units_fmt_time(lo, b, sizeof b),
                    rate ? units_fmt_rate(hi, c, sizeof c) : units_fmt_time(hi, c, sizeof c));
    }
    return 0;
}

#define MAX_BPS 100000000000000ull  /* 100Tbps, as the scenario's speeds */
#define MAX_DELAY 1000000000000000ull /* 1000 s, as fabric.link_delay */

static int read_links(struct imp *m, json_t *links, const struct scenario *sc)
{
    static const char *const keys[] = {"a", "b", "speed", "delay", "failed", NULL};
    size_t n = json_array_size(links);
    m->ln = calloc(n ? n : 1, sizeof *m->ln);
    if (!m->ln)
        return err_set(m->e, "out of memory reading '%s'", m->path);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(links, i);
        char what[200], w2[128];
        snprintf(what, sizeof what, "links[%zu]", i);
        if (!json_is_object(o))
            return fail(m, o, "%s: expected an object {\"a\", \"b\", \"speed\", ...}", what);
        if (only_keys(m, o, what, keys) < 0)
            return -1;
        json_t *ja = json_object_get(o, "a"), *jb = json_object_get(o, "b");
        if (!json_is_string(ja) || !json_is_string(jb))
            return fail(m, o, "%s: expected the names of both ends in \"a\" and \"b\"", what);
        snprintf(what, sizeof what, "links[%zu] (%.60s - %.60s)", i, json_string_value(ja),
                 json_string_value(jb));
        uint32_t a = lookup(m, json_string_value(ja)), b = lookup(m, json_string_value(jb));
        if (a == UINT32_MAX || b == UINT32_MAX)
            return fail(m, o, "%s: dangling link: no host, storage node or switch named \"%.60s\"",
                        what, json_string_value(a == UINT32_MAX ? ja : jb));
        if (a == b)
            return fail(m, o, "%s: links %s to itself", what, where_el(&m->el[a], w2, sizeof w2));
        if (tier_of(m->el[a].kind) > tier_of(m->el[b].kind)) {
            uint32_t x = a;
            a = b;
            b = x;
        }
        int ta = tier_of(m->el[a].kind), tb = tier_of(m->el[b].kind);
        if (ta == 0 && tb != 1)
            return fail(m, o, "%s: a %s links to a leaf, not to a %s", what,
                        kind_word[m->el[a].kind], kind_word[m->el[b].kind]);
        if (ta == tb)
            return fail(m, o, "%s: links two %ss: a link within a tier breaks up-down routing "
                           "(links go host/storage - leaf - spine - super-spine)", what,
                        ta == 1 ? "leave" : kind_word[m->el[a].kind]);
        if (tb != ta + 1)
            return fail(m, o, "%s: links a leaf to a super-spine, skipping the spine tier: up-down "
                           "routing needs host/storage - leaf - spine - super-spine", what);
        struct ilink *l = &m->ln[m->n_ln++];
        l->a = a;
        l->b = b;
        json_t *sp = json_object_get(o, "speed"), *dl = json_object_get(o, "delay");
        if (!sp)
            return fail(m, o, "%s: speed: missing (a rate such as \"400Gbps\")", what);
        if (quantity(m, sp, 1, 1, MAX_BPS, what, &l->bps) < 0)
            return -1;
        /* each switch end runs the link on a port of its tier's profile */
        for (int end = 0; end < 2 && !sc->fabric.allow_oversize; end++) {
            int k = m->el[end ? l->b : l->a].kind;
            uint64_t lane = k == K_LEAF    ? sc->fabric.leaf_port_bps
                            : k == K_SPINE ? sc->fabric.spine_port_bps
                            : k == K_SUPER ? sc->fabric.super_port_bps
                                           : UINT64_MAX;
            char a1[32], a2[32];
            if (l->bps > lane)
                return fail(m, sp, "%s: speed: %s is faster than a port of %s (%s, %s)%s; "
                                   "fabric.allow_oversize: true runs it anyway", what,
                            units_fmt_rate(l->bps, a1, sizeof a1), m->el[end ? l->b : l->a].name,
                            k == K_LEAF    ? sc->fabric.leaf_switch
                            : k == K_SPINE ? sc->fabric.spine_switch
                                           : sc->fabric.superspine_switch,
                            units_fmt_rate(lane, a2, sizeof a2),
                            sc->fabric.breakout > 1 ? " with fabric.breakout" : "");
        }
        l->delay = sc->fabric.link_delay_ps;
        if (dl && quantity(m, dl, 0, 0, MAX_DELAY, what, &l->delay) < 0)
            return -1;
        json_t *f = json_object_get(o, "failed");
        if (f && !json_is_boolean(f) &&
            !(json_is_integer(f) && json_integer_value(f) >= 1 &&
              json_integer_value(f) < UINT32_MAX))
            return fail(m, o, "%s: failed: expected true, false or the link's place (1, 2, "
                              "...) among the failed links", what);
        l->failed = !f || json_is_false(f) ? 0
                    : json_is_true(f)      ? UINT32_MAX
                                           : (uint32_t)json_integer_value(f);
        if (l->failed && ta == 0)
            return fail(m, o, "%s: failed: a %s's only link cannot fail (remove the %s instead)",
                        what, kind_word[m->el[a].kind], kind_word[m->el[a].kind]);
        m->el[a].deg++;
        m->el[b].deg++;
        if (ta == 0)
            m->el[b].side |= m->el[a].kind == K_HOST ? 1 : 2;
    }
    return 0;
}

static int read_switch(struct imp *m, json_t *o, uint32_t i, const struct scenario *sc)
{
    static const char *const keys[] = {"name", "tier", "profile", "pod", "plane", NULL};
    static const char *const tiers[] = {"leaf", "spine", "superspine"};
    char what[40];
    snprintf(what, sizeof what, "switches[%u]", i);
    if (!json_is_object(o))
        return fail(m, o, "%s: expected an object {\"name\", \"tier\", \"profile\"}", what);
    if (only_keys(m, o, what, keys) < 0)
        return -1;
    json_t *jt = json_object_get(o, "tier");
    int kind = -1;
    for (int k = 0; k < 3 && json_is_string(jt); k++)
        if (!strcmp(json_string_value(jt), tiers[k]))
            kind = K_LEAF + k;
    if (kind < 0)
        return fail(m, o, "%s: tier: expected leaf, spine or superspine", what);
    if (add_elem(m, json_object_get(o, "name"), o, kind, i) < 0)
        return -1;
    /* one profile per tier: the scenario's, which the radix check, the
     * buffers and the bill of materials use */
    const char *want = kind == K_LEAF    ? sc->fabric.leaf_switch
                       : kind == K_SPINE ? sc->fabric.spine_switch
                                         : sc->fabric.superspine_switch;
    const char *key = kind == K_LEAF    ? "fabric.leaf_switch"
                      : kind == K_SPINE ? "fabric.spine_switch"
                                        : "fabric.superspine_switch";
    json_t *jp = json_object_get(o, "profile");
    if (jp && (!json_is_string(jp) || strcmp(json_string_value(jp), want)))
        return fail(m, o, "%s \"%.60s\": profile: %s%.60s%s differs from %s (%s); every %s runs "
                       "the scenario's profile for its tier", what, m->el[m->n_el - 1].name,
                    json_is_string(jp) ? "\"" : "", json_is_string(jp) ? json_string_value(jp)
                                                                        : "(not a string)",
                    json_is_string(jp) ? "\"" : "", key, want, tiers[kind - K_LEAF]);
    return 0;
}

/* Union-find root (pods: leaves and spines joined by their links). */
static uint32_t root(uint32_t *up, uint32_t x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

/* Message for leaf s cut off from leaf l (topo leaf indices): in terms of a
 * host and a storage node when that is the pair. */
static int cut_off(const struct imp *m, const struct topo *t, uint32_t s, uint32_t l,
                   const char *why)
{
    uint32_t ns = t->first_cleaf + s, nl = t->first_cleaf + l;
    if (t->nodes[ns].storage_side != t->nodes[nl].storage_side) {
        uint32_t c = t->nodes[ns].storage_side ? nl : ns, sl = c == ns ? nl : ns;
        uint32_t h = 0, st = t->first_storage;
        while (t->nodes[h].leaf != c)
            h++;
        while (t->nodes[st].leaf != sl)
            st++;
        return fail(m, src_of(m, st), "storage node \"%.60s\" (on leaf \"%.60s\") is unreachable from host "
                       "\"%.60s\" (on leaf \"%.60s\") %s", t->names[st], t->names[sl],
                    t->names[h], t->names[c], why);
    }
    return fail(m, src_of(m, ns), "leaf \"%.60s\" cannot reach leaf \"%.60s\" %s", t->names[ns],
                t->names[nl], why);
}

/* The leaves toward which the builders' routes feel a failed link (clos.c
 * mark_affected): a leaf with a failed link; three tiers, every leaf of a
 * pod one of whose spines lost an uplink, and every leaf when a spine lost
 * them all. Toward the others WCMP weighs next hops by their speed alone,
 * as the builders do. hit: n_leaves flags. */
static int failure_touched(const struct topo *t, uint8_t *hit)
{
    uint8_t *pod_hit = calloc(t->n_pods + 1, 1);
    if (!pod_hit)
        return -1;
    int all = topo__pods_hit(t, pod_hit);
    for (uint32_t l = 0; l < t->n_leaves; l++) {
        const struct tnode *n = &t->nodes[t->first_cleaf + l];
        hit[l] = (uint8_t)(all || pod_hit[n->pod]);
        for (uint32_t p = n->first_port; !hit[l] && p < n->first_port + n->nports; p++)
            hit[l] = t->ports[p].failed != 0;
    }
    free(pod_hit);
    return 0;
}

/* Every leaf's routes (all "affected"), then the checks that they go up and
 * down: two tiers by BFS (a leaf's next spine must go down to the
 * destination), three by the up-down search, which finds no other kind. */
static int routes(const struct imp *m, struct topo *t, struct arena *a)
{
    uint32_t nsw = t->n_switches, nl = t->n_leaves;
    t->n_affected = nl;
    t->affected = arena_calloc(a, nl, sizeof *t->affected);
    t->leaf_default = arena_calloc(a, nl, sizeof *t->leaf_default);
    t->leaf_route = arena_calloc(a, (size_t)(t->tiers == 3 ? nsw : nl) * nl,
                                 sizeof *t->leaf_route);
    if (t->tiers == 3) {
        t->spine_route_pod = arena_calloc(a, (size_t)t->n_spines * (t->pod_width + 1),
                                       sizeof *t->spine_route_pod);
        t->super_route = arena_calloc(a, (size_t)t->n_supers * t->n_pods, sizeof *t->super_route);
    } else {
        t->spine_route = arena_calloc(a, (size_t)t->n_spines * nl, sizeof *t->spine_route);
    }
    uint32_t maxp = 1;
    for (uint32_t s = 0; s < nsw; s++)
        maxp = t->nodes[t->first_cleaf + s].nports > maxp ? t->nodes[t->first_cleaf + s].nports
                                                          : maxp;
    uint32_t *cand = malloc(maxp * sizeof *cand), *wgt = malloc(maxp * sizeof *wgt);
    uint32_t *d1 = malloc(nsw * sizeof *d1), *d2 = malloc(nsw * sizeof *d2);
    uint32_t *into = calloc(nsw, sizeof *into);
    uint64_t *cap = calloc(nsw, sizeof *cap);
    uint8_t *hit = calloc(nl, 1);
    struct nh_buf b = {0};
    int rc = 0;
    if (!t->affected || !t->leaf_default || !t->leaf_route ||
        (t->tiers == 3 ? !t->spine_route_pod || !t->super_route : !t->spine_route) || !cand ||
        !wgt || !d1 || !d2 || !into || !cap || !hit || failure_touched(t, hit) < 0) {
        rc = err_set(m->e, "out of memory building routes");
        goto out;
    }
    for (uint32_t l = 0; l < nl; l++)
        t->affected[l] = l;
    /* every switch reaches leaf 0 over working links (the searches below
     * assume a connected fabric) */
    for (uint32_t s = 0; s < nsw; s++)
        d1[s] = UINT32_MAX;
    uint32_t qh = 0, qt = 0;
    d1[0] = 0;
    d2[qt++] = 0;
    while (qh < qt) {
        const struct tnode *n = &t->nodes[t->first_cleaf + d2[qh++]];
        for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++) {
            uint32_t peer = t->ports[t->ports[p].peer].node;
            if (topo__is_switch(t, peer) && !t->ports[p].failed &&
                d1[peer - t->first_cleaf] == UINT32_MAX) {
                d1[peer - t->first_cleaf] = 0;
                d2[qt++] = peer - t->first_cleaf;
            }
        }
    }
    for (uint32_t s = 0; s < nsw && rc == 0; s++) /* leaves first: the pair to name */
        if (d1[s] == UINT32_MAX)
            rc = s < nl ? cut_off(m, t, 0, s, "at all over the working links")
                        : fail(m, src_of(m, t->first_cleaf + s),
                               "switch \"%.60s\" has no working path to leaf \"%.60s\"",
                               t->names[t->first_cleaf + s], t->names[t->first_cleaf]);
    for (uint32_t l = 0; l < nl && rc == 0; l++) {
        uint32_t cut = UINT32_MAX;
        if (t->tiers == 3)
            rc = topo__updown_routes(t, l, &b, d1, d2, cap, cand, wgt, !hit[l], &cut, m->e);
        else
            rc = topo__bfs_routes(t, l, &b, d1, d2, cand, wgt, cap, into, !hit[l], m->e);
        if (rc < 0 && cut != UINT32_MAX)
            rc = cut_off(m, t, cut, l, "up and down over the working links");
    }
    if (rc == 0)
        rc = topo__routes_finish(t, &b, a, m->e);
    /* two tiers: a leaf's first next hop must be a spine that goes straight
     * down (else the BFS found leaf - spine - leaf - spine - leaf) */
    for (uint32_t l = 0; l < nl && rc == 0 && t->tiers == 2; l++)
        for (uint32_t s = 0; s < nl && rc == 0; s++) {
            if (s == l)
                continue;
            const struct route *r = topo_route(t, t->first_cleaf + s, t->first_cleaf + l);
            uint32_t g = r->cnt ? t->nh_next[r->off] : t->first_cleaf + s;
            const struct route *r2 = topo_route(t, g, t->first_cleaf + l);
            if (!r->cnt || !r2->cnt || t->nh_next[r2->off] != t->first_cleaf + l)
                rc = cut_off(m, t, s, l, "up and down: the two leaves share no working spine "
                                         "(a path down and up again is no up-down route)");
        }
out:
    free(cand);
    free(wgt);
    free(d1);
    free(d2);
    free(into);
    free(cap);
    free(hit);
    topo__nh_buf_free(&b);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Ports, links, failed links and the fabric's figures from the elements
 * (node ids set) and links. */
static int wire(const struct imp *m, struct topo *t, const struct scenario *sc,
                struct arena *a)
{
    uint64_t nports = 2 * (uint64_t)m->n_ln;
    if (nports > UINT32_MAX)
        return fail(m, NULL, "too many links (%u)", m->n_ln);
    t->n_ports = (uint32_t)nports;
    t->ports = arena_calloc(a, t->n_ports ? t->n_ports : 1, sizeof *t->ports);
    uint32_t *cur = calloc(t->n_nodes, sizeof *cur);
    uint8_t *pod_cp = calloc(t->n_pods + 1, 1), *pod_st = calloc(t->n_pods + 1, 1);
    int rc = 0;
    if (!t->ports || !cur || !pod_cp || !pod_st) {
        rc = err_set(m->e, "out of memory reading '%s'", m->path);
        goto out;
    }
    uint32_t p = 0;
    for (uint32_t n = 0; n < t->n_nodes; n++) {
        t->nodes[n].first_port = cur[n] = p;
        p += t->nodes[n].nports;
    }
    for (uint32_t l = 0; l < t->n_leaves; l++) {
        const struct tnode *nd = &t->nodes[t->first_cleaf + l];
        (nd->storage_side ? pod_st : pod_cp)[nd->pod] = 1;
    }
    for (uint32_t i = 0; i < m->n_ln; i++) {
        const struct ilink *l = &m->ln[i];
        uint32_t na = m->el[l->a].node, nb = m->el[l->b].node;
        uint32_t pa = m->ln[i].pa = cur[na]++, pb = cur[nb]++;
        enum path_seg ab, ba;
        const struct tnode *x = &t->nodes[na];
        if (x->kind == NODE_HOST || x->kind == NODE_STORAGE) {
            int st = x->kind == NODE_STORAGE;
            ab = st ? PATH_REVERSE : PATH_WRITER_NIC;
            ba = st ? PATH_STORAGE_NIC : PATH_REVERSE;
            t->nodes[na].leaf = nb;
            t->nodes[na].leaf_port = pb;
        } else if (x->kind == NODE_LEAF) {
            ab = x->storage_side ? PATH_REVERSE : PATH_CLEAF_UP;
            ba = x->storage_side ? PATH_SPINE_DOWN : PATH_REVERSE;
        } else {
            ab = pod_cp[x->pod] ? PATH_SPINE_UP : PATH_REVERSE;
            ba = pod_st[x->pod] ? PATH_SUPER_DOWN : PATH_REVERSE;
        }
        topo__link(t, pa, na, pb, nb, l->bps, l->delay, ab, ba);
    }
    /* parallel links per pair (the widest), and the failed links by name:
     * "a-b", "#j" the j-th of parallel ones, as the builders name them */
    uint32_t *cnt = calloc(t->n_nodes, sizeof *cnt);
    if (!cnt) {
        rc = err_set(m->e, "out of memory reading '%s'", m->path);
        goto out;
    }
    for (uint32_t n = t->first_cleaf; n < t->n_nodes; n++) {
        const struct tnode *nd = &t->nodes[n];
        for (uint32_t q = nd->first_port; q < nd->first_port + nd->nports; q++) {
            uint32_t peer = t->ports[t->ports[q].peer].node;
            if (peer < n)
                continue; /* counted from the lower tier */
            uint32_t c = ++cnt[peer];
            uint32_t *k = nd->kind == NODE_LEAF ? &t->links_per_spine : &t->links_per_super;
            *k = c > *k ? c : *k;
        }
        for (uint32_t q = nd->first_port; q < nd->first_port + nd->nports; q++)
            cnt[t->ports[t->ports[q].peer].node] = 0;
    }
    free(cnt);
    /* failed links: by their place ("failed": n), then the others in file order */
    uint32_t nf = 0;
    uint64_t *fl = malloc((m->n_ln ? m->n_ln : 1) * sizeof *fl); /* place << 32 | link */
    if (!fl) {
        rc = err_set(m->e, "out of memory reading '%s'", m->path);
        goto out;
    }
    for (uint32_t i = 0; i < m->n_ln; i++)
        if (m->ln[i].failed)
            fl[nf++] = (uint64_t)m->ln[i].failed << 32 | i;
    qsort(fl, nf, sizeof *fl, cmp_u64);
    for (uint32_t i = 0; i < nf; i++) {
        char name[160];
        uint32_t pa = m->ln[(uint32_t)fl[i]].pa;
        topo__link_name(t, pa, name, sizeof name);
        topo__fail(t, pa, name);
    }
    free(fl);
    /* oversubscription: the most loaded leaf of each side, and a compute
     * pod's spines (links to compute leaves over links up), as built */
    for (uint32_t n = t->first_cleaf; n < t->n_nodes; n++) {
        const struct tnode *nd = &t->nodes[n];
        double down = 0, up = 0;
        for (uint32_t q = nd->first_port; q < nd->first_port + nd->nports; q++) {
            const struct tnode *pn = &t->nodes[t->ports[t->ports[q].peer].node];
            if (pn->kind > nd->kind)
                up += (double)t->ports[q].bps;
            else if (nd->kind == NODE_LEAF || !pn->storage_side)
                down += (double)t->ports[q].bps;
        }
        double r = up > 0 ? down / up : 0;
        double *o = nd->kind == NODE_LEAF    ? nd->storage_side ? &t->oversub_storage
                                                                : &t->oversub_compute
                    : nd->kind == NODE_SPINE ? &t->oversub_spine
                                             : NULL;
        if (o && r > *o && (nd->kind != NODE_SPINE || t->tiers == 3))
            *o = r;
    }
    /* a switch past its profile's ports (fabric.breakout counted) */
    for (uint32_t n = t->first_cleaf; n < t->n_nodes && !sc->fabric.allow_oversize; n++) {
        const struct tnode *nd = &t->nodes[n];
        uint32_t ports = nd->kind == NODE_LEAF    ? sc->fabric.leaf_ports
                         : nd->kind == NODE_SPINE ? sc->fabric.spine_ports
                                                  : sc->fabric.super_ports;
        const char *prof = nd->kind == NODE_LEAF    ? sc->fabric.leaf_switch
                           : nd->kind == NODE_SPINE ? sc->fabric.spine_switch
                                                    : sc->fabric.superspine_switch;
        if (nd->nports > ports) {
            rc = fail(m, src_of(m, n), "switch \"%.60s\" has %u links, its profile %s has %u ports%s; "
                         "fabric.allow_oversize: true runs it anyway", t->names[n], nd->nports,
                      prof, ports, sc->fabric.breakout > 1 ? " (with fabric.breakout)" : "");
            break;
        }
    }
out:
    free(cur);
    free(pod_cp);
    free(pod_st);
    return rc;
}

/* Node ids, pods and counts from the elements. */
static int place(struct imp *m, struct topo *t, struct arena *a)
{
    uint32_t cnt[5] = {0};
    for (uint32_t i = 0; i < m->n_el; i++) {
        struct elem *x = &m->el[i];
        char w[128];
        if (x->kind <= K_STORAGE && x->deg != 1)
            return x->deg ? fail(m, x->src, "%s: %u links; a %s is one NIC port with one link to a "
                                    "leaf (a node's several NICs are several entries: "
                                    "cluster.nics_per_node, storage.nics_per_node)",
                                 where_el(x, w, sizeof w), x->deg, kind_word[x->kind])
                          : fail(m, x->src, "%s: no link (every %s links to a leaf)",
                                 where_el(x, w, sizeof w), kind_word[x->kind]);
        if (x->kind == K_LEAF && x->side == 3)
            return fail(m, x->src, "%s: holds both hosts and storage nodes; a leaf is a compute or a "
                           "storage leaf", where_el(x, w, sizeof w));
        if (x->kind == K_LEAF && !x->side)
            return fail(m, x->src, "%s: holds no host or storage node", where_el(x, w, sizeof w));
        if (x->kind > K_LEAF && !x->deg)
            return fail(m, x->src, "%s: no link", where_el(x, w, sizeof w));
        cnt[x->kind]++;
    }
    t->n_hosts = cnt[K_HOST];
    t->n_storage = cnt[K_STORAGE];
    t->n_spines = cnt[K_SPINE];
    t->n_supers = cnt[K_SUPER];
    t->tiers = t->n_supers ? 3 : 2;
    if (!t->n_hosts || !t->n_storage || !t->n_spines)
        return fail(m, NULL, "needs at least one host, one storage node and one spine (has %u, %u, "
                       "%u)", t->n_hosts, t->n_storage, t->n_spines);
    for (uint32_t i = 0; i < m->n_el; i++)
        if (m->el[i].kind == K_LEAF)
            t->n_cleaves += m->el[i].side == 1, t->n_sleaves += m->el[i].side == 2;
    t->n_leaves = t->n_cleaves + t->n_sleaves;
    t->n_switches = t->n_leaves + t->n_spines + t->n_supers;
    t->first_storage = t->n_hosts;
    t->first_cleaf = t->first_storage + t->n_storage;
    t->first_sleaf = t->first_cleaf + t->n_cleaves;
    t->first_spine = t->first_sleaf + t->n_sleaves;
    t->first_super = t->tiers == 3 ? t->first_spine + t->n_spines : 0;
    t->n_nodes = t->first_spine + t->n_spines + t->n_supers;
    t->nodes = arena_calloc(a, t->n_nodes, sizeof *t->nodes);
    const char **names = arena_calloc(a, t->n_nodes, sizeof *names);
    if (!t->nodes || !names)
        return err_set(m->e, "out of memory reading '%s'", m->path);
    t->names = names;
    uint32_t next[5] = {0, t->first_storage, t->first_cleaf, t->first_spine,
                        t->first_spine + t->n_spines};
    uint32_t next_sleaf = t->first_sleaf;
    for (uint32_t i = 0; i < m->n_el; i++) {
        struct elem *x = &m->el[i];
        if (x->kind == K_SPINE && t->tiers == 3)
            continue; /* pod by pod, below */
        x->node = x->kind == K_LEAF && x->side == 2 ? next_sleaf++ : next[x->kind]++;
    }
    if (t->tiers == 3) {
        /* pods: leaves and spines joined by links, numbered in leaf order */
        uint32_t *up = malloc(m->n_el * sizeof *up), *pod_of = malloc(m->n_el * sizeof *pod_of);
        uint32_t *spp = NULL;
        int rc = 0;
        if (!up || !pod_of) {
            free(up);
            free(pod_of);
            return err_set(m->e, "out of memory reading '%s'", m->path);
        }
        for (uint32_t i = 0; i < m->n_el; i++)
            up[i] = i, pod_of[i] = UINT32_MAX;
        for (uint32_t i = 0; i < m->n_ln; i++)
            if (m->el[m->ln[i].a].kind == K_LEAF)
                up[root(up, m->ln[i].a)] = root(up, m->ln[i].b);
        /* leaf elements in node order: the compute leaves, then storage */
        for (int side = 1; side <= 2; side++)
            for (uint32_t i = 0; i < m->n_el; i++)
                if (m->el[i].kind == K_LEAF && m->el[i].side == side) {
                    uint32_t r = root(up, i);
                    if (pod_of[r] == UINT32_MAX)
                        pod_of[r] = t->n_pods++;
                    m->el[i].pod = pod_of[r];
                }
        spp = calloc(t->n_pods, sizeof *spp);
        uint32_t *first = calloc(t->n_pods + 1, sizeof *first);
        if (!spp || !first)
            rc = err_set(m->e, "out of memory reading '%s'", m->path);
        for (uint32_t i = 0; i < m->n_el && rc == 0; i++) {
            struct elem *x = &m->el[i];
            char w[128];
            if (x->kind != K_SPINE)
                continue;
            uint32_t r = root(up, i);
            if (pod_of[r] == UINT32_MAX)
                rc = fail(m, x->src, "%s: links to no leaf", where_el(x, w, sizeof w));
            else
                spp[x->pod = pod_of[r]]++;
        }
        for (uint32_t q = 1; q < t->n_pods && rc == 0; q++)
            if (spp[q] != spp[0]) {
                const char *nm[2] = {NULL, NULL};
                for (uint32_t i = 0; i < m->n_el; i++)
                    if (m->el[i].kind == K_LEAF && (m->el[i].pod == 0 || m->el[i].pod == q) &&
                        !nm[m->el[i].pod == q])
                        nm[m->el[i].pod == q] = m->el[i].name;
                rc = fail(m, NULL, "the pod of leaf \"%.60s\" has %u spines, the pod of leaf \"%.60s\" "
                             "%u: every pod needs as many spines", nm[0], spp[0], nm[1], spp[q]);
            }
        if (rc == 0) {
            t->spines_per_pod = spp[0];
            for (uint32_t q = 0; q < t->n_pods; q++)
                first[q + 1] = first[q] + spp[q];
            for (uint32_t i = 0; i < m->n_el; i++)
                if (m->el[i].kind == K_SPINE)
                    m->el[i].node = t->first_spine + first[m->el[i].pod]++;
            t->supers_per_plane = t->n_supers / t->spines_per_pod;
        }
        free(up);
        free(pod_of);
        free(spp);
        free(first);
        if (rc < 0)
            return -1;
    }
    uint32_t *pod_n = calloc(t->n_pods + 1, sizeof *pod_n);
    if (!pod_n)
        return err_set(m->e, "out of memory reading '%s'", m->path);
    /* leaves first, in node order: pod_pos counts them */
    for (uint32_t i = 0; i < m->n_el; i++) {
        const struct elem *x = &m->el[i];
        struct tnode *nd = &t->nodes[x->node];
        size_t len = strlen(x->name) + 1; /* the JSON tree goes when the import ends */
        char *c = arena_calloc(a, len, 1);
        if (!c) {
            free(pod_n);
            return err_set(m->e, "out of memory reading '%s'", m->path);
        }
        names[x->node] = memcpy(c, x->name, len);
        nd->kind = x->kind == K_HOST      ? NODE_HOST
                   : x->kind == K_STORAGE ? NODE_STORAGE
                   : x->kind == K_LEAF    ? NODE_LEAF
                   : x->kind == K_SPINE   ? NODE_SPINE
                                          : NODE_SUPER;
        nd->nports = x->deg;
        nd->storage_side = x->kind == K_STORAGE || (x->kind == K_LEAF && x->side == 2);
        nd->pod = x->kind == K_LEAF || x->kind == K_SPINE ? x->pod : 0;
        if (x->kind == K_LEAF)
            nd->leaf = x->node;
    }
    for (uint32_t l = 0; t->tiers == 3 && l < t->n_leaves; l++) {
        struct tnode *nd = &t->nodes[t->first_cleaf + l];
        nd->pod_pos = pod_n[nd->pod]++;
        t->pod_width = pod_n[nd->pod] > t->pod_width ? pod_n[nd->pod] : t->pod_width;
        t->n_cpods += !nd->storage_side && nd->pod_pos == 0;
    }
    free(pod_n);
    return 0;
}

/* A super-spine's plane: the place in its pod of the first spine it links
 * to (spine i of every pod links to plane i). */
static void planes(struct topo *t)
{
    for (uint32_t u = t->first_super; t->tiers == 3 && u < t->n_nodes; u++) {
        const struct tnode *nd = &t->nodes[u];
        uint32_t g = t->ports[t->ports[nd->first_port].peer].node - t->first_spine;
        t->nodes[u].pod = g % t->spines_per_pod;
    }
}

static int add_mark(struct imp *m, const json_t *v, yaml_mark_t at)
{
    if (m->n_marks == m->cap_marks) {
        size_t c = m->cap_marks ? 2 * m->cap_marks : 1024;
        struct mark *g = realloc(m->marks, c * sizeof *g);
        if (!g)
            return -1;
        m->marks = g;
        m->cap_marks = c;
    }
    m->marks[m->n_marks++] = (struct mark){v, (uint32_t)at.line + 1, (uint32_t)at.column + 1};
    return 0;
}

/* A YAML scalar as JSON: plain true/false, null (~, empty) and decimal
 * integers typed, anything else (and anything quoted) a string. */
static json_t *yaml_scalar(const yaml_event_t *ev)
{
    const char *v = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return json_stringn(v, len);
    if (!strcmp(v, "true") || !strcmp(v, "false"))
        return json_boolean(v[0] == 't');
    if (!len || !strcmp(v, "~") || !strcmp(v, "null"))
        return json_null();
    size_t i = v[0] == '-';
    while (i < len && v[i] >= '0' && v[i] <= '9')
        i++;
    if (i == len && len > (size_t)(v[0] == '-') && len < 19)
        return json_integer(strtoll(v, NULL, 10));
    return json_stringn(v, len);
}

#define YAML_MAX_DEPTH 8 /* a topology file nests 3 deep */

/* Parse the YAML file at m->path into a JSON tree, each value's line and
 * column in m->marks. Event by event: no anchors or aliases (a topology
 * needs none, and they could multiply the tree), at most YAML_MAX_DEPTH
 * levels. NULL with m->e set on error. */
static json_t *load_yaml(struct imp *m, const char *text, size_t len)
{
    yaml_parser_t p;
    yaml_event_t ev;
    json_t *stack[YAML_MAX_DEPTH], *root = NULL;
    char *key[YAML_MAX_DEPTH] = {NULL}; /* a mapping's key awaiting its value */
    int depth = 0, done = 0, rc = 0, docs = 0;
    if (!yaml_parser_initialize(&p)) {
        err_set(m->e, "out of memory reading '%s'", m->path);
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    while (!done && rc == 0) {
        if (!yaml_parser_parse(&p, &ev)) {
            rc = err_set(m->e, "%s:%zu:%zu: YAML syntax error: %s", m->path,
                         p.problem_mark.line + 1, p.problem_mark.column + 1,
                         p.problem ? p.problem : "unknown error");
            break;
        }
        json_t *v = NULL;
        int open = 0;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (docs++)
                rc = err_set(m->e, "%s:%zu:%zu: expected one YAML document, found a second",
                             m->path, ev.start_mark.line + 1, ev.start_mark.column + 1);
            break;
        case YAML_ALIAS_EVENT:
            rc = err_set(m->e, "%s:%zu:%zu: YAML aliases are not supported in a topology file",
                         m->path, ev.start_mark.line + 1, ev.start_mark.column + 1);
            break;
        case YAML_SCALAR_EVENT:
            v = yaml_scalar(&ev);
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            v = ev.type == YAML_SEQUENCE_START_EVENT ? json_array() : json_object();
            open = 1;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        if (v && rc == 0) {
            json_t *up = depth ? stack[depth - 1] : NULL;
            if (add_mark(m, v, ev.start_mark) < 0) {
                rc = err_set(m->e, "out of memory reading '%s'", m->path);
            } else if (!up) {
                root = v;
                v = json_incref(v); /* root keeps one reference */
            } else if (json_is_array(up)) {
                json_array_append(up, v);
            } else if (!key[depth - 1]) { /* a key */
                if (!json_is_string(v))
                    rc = err_set(m->e, "%s:%zu:%zu: expected a text key", m->path,
                                 ev.start_mark.line + 1, ev.start_mark.column + 1);
                else if (!(key[depth - 1] = strdup(json_string_value(v))))
                    rc = err_set(m->e, "out of memory reading '%s'", m->path);
                else if (json_object_get(up, key[depth - 1]))
                    rc = err_set(m->e, "%s:%zu:%zu: duplicate key \"%.40s\"", m->path,
                                 ev.start_mark.line + 1, ev.start_mark.column + 1,
                                 key[depth - 1]);
                open = 0;      /* a key opens nothing */
                m->n_marks--;  /* and is freed below: its address may come again */
            } else {
                json_object_set(up, key[depth - 1], v);
                free(key[depth - 1]);
                key[depth - 1] = NULL;
            }
            if (rc == 0 && open) {
                if (depth == YAML_MAX_DEPTH)
                    rc = err_set(m->e, "%s:%zu:%zu: nested deeper than a topology file",
                                 m->path, ev.start_mark.line + 1, ev.start_mark.column + 1);
                else
                    stack[depth++] = v;
            }
            json_decref(v); /* the parent (or root) holds it */
        }
        yaml_event_delete(&ev);
    }
    for (int i = 0; i < YAML_MAX_DEPTH; i++)
        free(key[i]);
    yaml_parser_delete(&p);
    if (rc == 0 && !root)
        rc = err_set(m->e, "%s: empty", m->path);
    if (rc < 0) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* A topology file's size limit: 16 MiB and 1 KiB per host and storage
 * NIC of the scenario, three times what --topology-out writes for a
 * 100,000-node fabric (31.6 MB, 310 B a NIC with its switches and links).
 * The parsed tree takes ~12x the file. */
static double file_limit(const struct scenario *sc)
{
    double nics = (double)sc->cluster.nodes * (sc->cluster.nics_per_node ? sc->cluster.nics_per_node : 1) +
                  (double)sc->storage.nodes * (sc->storage.nics_per_node ? sc->storage.nics_per_node : 1);
    return 16.0 * (1 << 20) + 1024.0 * nics;
}

static int too_large(const struct scenario *sc, const char *path, double limit, struct err *e)
{
    return err_set(e, "%s: larger than %.4g MiB, the limit of a topology file for %u hosts "
                      "and %u storage nodes (16 MiB and 1 KiB a NIC; fabric.topology_file)",
                   path, limit / (1 << 20), sc->cluster.nodes, sc->storage.nodes);
}

/* Read path whole, at most limit bytes: a larger file is refused by its
 * size before reading, an endless one (a FIFO, /dev/zero) at limit + 1
 * bytes. The text is NUL-terminated; NULL with e set on error. */
static char *read_capped(const struct scenario *sc, const char *path, size_t *len,
                         struct err *e)
{
    double limit = file_limit(sc);
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(e, "fabric.topology_file: cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (double)st.st_size > limit) {
        fclose(f);
        too_large(sc, path, limit, e);
        return NULL;
    }
    size_t max = (size_t)limit, cap = 0, n = 0;
    char *buf = NULL;
    int rerr = 0;
    while (n <= max) {
        if (n + 1 >= cap) {
            size_t c = cap ? cap * 2 : 1 << 16;
            c = c > max + 2 ? max + 2 : c;
            char *nb = realloc(buf, c);
            if (!nb) {
                rerr = ENOMEM;
                break;
            }
            buf = nb;
            cap = c;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) {
            rerr = ferror(f) ? errno : 0;
            break;
        }
    }
    fclose(f);
    if (rerr || n > max) {
        free(buf);
        if (rerr)
            err_set(e, "fabric.topology_file: cannot read '%s': %s", path, strerror(rerr));
        else
            too_large(sc, path, limit, e);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int is_yaml(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml"));
}

/* fabric.topology_file as a path: relative to the scenario file that gave
 * it; given by --set, to the working directory. */
static void resolve_path(const struct scenario *sc, char *buf, size_t len)
{
    const char *f = sc->fabric.topology_file;
    const char *slash = strrchr(sc->source, '/');
    int by_set = scenario_key_pos(sc, "fabric.topology_file").line == 0;
    if (f[0] == '/' || by_set || !strcmp(sc->source, "default") || !slash)
        snprintf(buf, len, "%s", f);
    else
        snprintf(buf, len, "%.*s/%s", (int)(slash - sc->source), sc->source, f);
}

int topo__import(struct topo *t, const struct scenario *sc, struct arena *a, struct err *e)
{
    static const char *const top_keys[] = {"format", "version", "tiers", "hosts", "storage",
                                           "switches", "links", NULL};
    char path[1024];
    resolve_path(sc, path, sizeof path);
    if (sc->fabric.failed_links || strcmp(sc->fabric.failed_link_names, "none"))
        return err_set(e, "%s: a topology file marks its own failed links (\"failed\": true "
                          "on a link); leave fabric.failed_links and "
                          "fabric.failed_link_names unset",
                       sc->fabric.failed_links ? "fabric.failed_links"
                                               : "fabric.failed_link_names");
    struct imp m = {path, e, NULL, 0, 0, NULL, 0, NULL, 0, NULL, 0};
    json_error_t je;
    size_t len = 0;
    char *text = read_capped(sc, path, &len, e);
    if (!text)
        return -1;
    json_t *root = is_yaml(path) ? load_yaml(&m, text, len)
                                 : json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!root) {
        free(m.marks);
        if (is_yaml(path))
            return -1;
        if (je.line < 0)
            return err_set(e, "fabric.topology_file: cannot read '%s': %s", path, je.text);
        return err_set(e, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    }
    int rc = 0;
    json_t *hosts = json_object_get(root, "hosts"), *stor = json_object_get(root, "storage");
    json_t *sw = json_object_get(root, "switches"), *links = json_object_get(root, "links");
    json_t *ver = json_object_get(root, "version"), *fmt = json_object_get(root, "format");
    if (!json_is_object(root))
        rc = fail(&m, root, "expected an object with \"hosts\", \"storage\", \"switches\", \"links\"");
    else if (only_keys(&m, root, "the top level", top_keys) < 0)
        rc = -1;
    else if (fmt && (!json_is_string(fmt) || strcmp(json_string_value(fmt), "ckptnet-topology")))
        rc = fail(&m, fmt, "format: expected \"ckptnet-topology\"");
    else if (!json_is_integer(ver) || json_integer_value(ver) != TOPO_FILE_VERSION)
        rc = fail(&m, ver ? ver : root, "version: expected %d (this ckptnet's topology files)", TOPO_FILE_VERSION);
    else if (!json_is_array(hosts) || !json_is_array(stor) || !json_is_array(sw) ||
             !json_is_array(links))
        rc = fail(&m, root, "%s: expected an array", !json_is_array(hosts)  ? "hosts"
                                               : !json_is_array(stor) ? "storage"
                                               : !json_is_array(sw)   ? "switches"
                                                                      : "links");
    size_t nel = rc ? 0 : json_array_size(hosts) + json_array_size(stor) + json_array_size(sw);
    if (rc == 0 && nel > UINT32_MAX / 4)
        rc = fail(&m, NULL, "too many nodes (%zu)", nel);
    if (rc == 0) {
        uint32_t hs = 16;
        while (hs < 2 * nel)
            hs *= 2;
        m.hmask = hs - 1;
        m.hash = calloc(hs, sizeof *m.hash);
        m.el = calloc(nel ? nel : 1, sizeof *m.el);
        if (!m.hash || !m.el)
            rc = err_set(e, "out of memory reading '%s'", path);
    }
    for (size_t i = 0; rc == 0 && i < json_array_size(hosts); i++)
        rc = add_elem(&m, json_array_get(hosts, i), json_array_get(hosts, i), K_HOST,
                      (uint32_t)i);
    for (size_t i = 0; rc == 0 && i < json_array_size(stor); i++)
        rc = add_elem(&m, json_array_get(stor, i), json_array_get(stor, i), K_STORAGE,
                      (uint32_t)i);
    for (size_t i = 0; rc == 0 && i < json_array_size(sw); i++)
        rc = read_switch(&m, json_array_get(sw, i), (uint32_t)i, sc);
    if (rc == 0)
        rc = read_links(&m, links, sc);
    if (rc == 0)
        rc = place(&m, t, a);
    json_t *tiers = rc == 0 ? json_object_get(root, "tiers") : NULL;
    if (tiers && (!json_is_integer(tiers) || json_integer_value(tiers) != (json_int_t)t->tiers))
        rc = fail(&m, tiers, "tiers: the switches make %u tiers (%s)", t->tiers,
                  t->tiers == 3 ? "super-spines" : "no super-spine");
    if (rc == 0 && (t->n_hosts != sc->cluster.nodes || t->n_storage != sc->storage.nodes))
        rc = fail(&m, NULL, "%u hosts and %u storage nodes; the scenario has %u and %u (cluster.nodes "
                      "x cluster.nics_per_node, storage.nodes x storage.nics_per_node)",
                  t->n_hosts, t->n_storage, sc->cluster.nodes, sc->storage.nodes);
    if (rc == 0)
        rc = wire(&m, t, sc, a);
    if (rc == 0)
        planes(t);
    if (rc == 0)
        rc = topo__ecmp_seeds(t, sc->seed, a, e);
    if (rc == 0)
        rc = routes(&m, t, a);
    uint32_t bad = rc == 0 && t->n_failed ? topo_failed_routes(t) : 0;
    if (bad)
        rc = fail(&m, NULL, "%u next hops lead onto failed links (route building is broken)", bad);
    free(m.hash);
    free(m.el);
    free(m.ln);
    free(m.marks);
    json_decref(root);
    return rc;
}
