/* Topology files: reading fabric.topology_file into a struct topo (the
 * format export.c writes; docs/scenario.md "Imported topologies").
 *
 * Reading: one pass of a streaming parser (yajl for JSON, libyaml's events
 * for YAML) into flat records, one per name (or range of names), switch
 * and link (or run of links), their strings in one pool; no tree of the
 * file is built. The checks then run
 * over the records in the order of the file's sections, so a file with
 * several faults is refused for the same one whatever its key order.
 *
 * Node order is the builders': hosts and storage nodes in file order, then
 * the compute leaves, storage leaves, spines (pod by pod) and super-spines
 * in the order of "switches". A node's ports are in the order its links
 * appear in "links", so a file written from a built fabric gives back the
 * same ports. Routes: on a file of the builders' shape by their rule
 * (regular()); on any other, every leaf's by the builders' up-down search
 * (as if every leaf had a failed link). Either way the ECMP next-hop sets
 * and their order are the builders'. */
#include <yajl/yajl_parse.h>
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

/* A value of the file, 16 bytes (a link holds six). at: where it is, 0
 * unknown; a JSON file's byte offset just past it + 1, a YAML file's
 * line << 28 | column. */
enum { V_NONE, V_NULL, V_BOOL, V_INT, V_REAL, V_STR, V_ARR, V_OBJ };
struct val {
    int64_t i;          /* V_BOOL 0/1, V_INT the value, V_STR its offset in the pool */
    uint64_t at : 56;
    uint64_t t : 8;     /* V_NONE: the key is absent */
};
#define AT_MAX ((1ull << 56) - 1)
#define COL_BITS 28

/* a switch's or a link's entry; unknown: the first key not allowed (its
 * offset in the pool + 1), 0 none */
struct rsw {
    struct val o, name, tier, profile;
    uint32_t unknown;
    uint32_t range; /* its from and to in rec.ranges + 1; 0: one switch */
};
struct rln {
    struct val o, a, b, speed, delay, failed;
    uint32_t unknown;
    uint32_t run; /* its run's keys in rec.runs + 1; 0: one link */
};
/* a run's keys, kept apart: a file of single links pays 4 bytes a link for them */
struct rrun {
    struct val count, parallel, step[2];
};
/* a range of names ({"from": "host0", "to": "host99"}: host0 ... host99),
 * an entry of "hosts" or "storage" (its val: V_OBJ, i its index here) or a
 * switch's; unknown as in struct rsw (a switch's: the switch's) */
struct rrange {
    struct val from, to;
    uint32_t unknown;
    uint32_t count; /* names, once checked */
};

/* an element, 24 bytes: its place in its array and in the file follow
 * from its index (el_src) */
struct elem {
    const char *name; /* in the names' block of the arena */
    uint32_t deg;     /* links */
    uint32_t node;    /* topo node id */
    uint32_t pod;     /* three tiers: leaves and spines */
    uint8_t kind;
    uint8_t side;     /* leaves: 1 hosts below, 2 storage nodes below */
};

/* a link, 16 bytes (first touch of fresh pages is much of an import's
 * time); its speed and delay are its entry's */
struct ilink {
    uint32_t a, b;    /* elements, a on the lower tier */
    uint32_t failed;  /* 0 up; else down, listed by this (true: UINT32_MAX, last) */
    uint32_t rec;     /* its entry in links */
};
struct iquant {
    uint64_t bps, delay;
};

#define MAX_DEPTH 8 /* a topology file nests 3 deep */

/* what the values of an open array or object go to */
enum { C_ROOT, C_NAMES, C_SWS, C_LNS, C_SW, C_LN, C_RANGE, C_SKIP };
struct open {
    uint8_t ctx, obj;
    int8_t key;       /* an object's key awaiting its value: its slot, -1 none, -2 skip */
    uint8_t which;    /* C_NAMES: 0 hosts, 1 storage */
    uint32_t seen;    /* known keys given (duplicates) */
    uint32_t skip0;   /* C_SKIP objects: their keys from here in skip_keys */
};

/* The file's records, filled by the parser's events. */
struct rec {
    struct val root, format, version, tiers, arr[4]; /* hosts, storage, switches, links */
    uint32_t unknown;  /* the top level's first unknown key, as in struct rsw */
    struct val *names[2];
    uint32_t n_names[2], cap_names[2];
    struct rsw *sw;
    uint32_t n_sw, cap_sw;
    struct rln *ln;
    uint32_t n_ln, cap_ln;
    struct rrun *runs;
    uint32_t n_runs, cap_runs;
    struct rrange *ranges;
    uint32_t n_ranges, cap_ranges;
    int oom;           /* a record could not grow */
    char *pool;
    size_t n_pool, cap_pool, first_pool;
    uint32_t first[4]; /* first sizes: hosts, storage, switches, links (grow) */
    struct open st[MAX_DEPTH];
    int depth, have_root;
    uint32_t *skip_keys; /* pool offsets: keys of the skipped objects open */
    uint32_t n_skip, cap_skip;
};

/* bytes to ask an arena for an array block of `bytes`: past 512 KB, 2 MB
 * at least, so that it is mapped on its own with huge pages where the
 * system gives them (arena.c). A fresh 4 KB page costs ~13 us on a
 * paravirtualised machine, as much as checking 60 elements; a 2 MB one is
 * zeroed in a fraction of the 512 it replaces. */
static size_t big_block(size_t bytes)
{
    size_t huge = (size_t)2 << 20;
    return bytes >= huge / 4 && bytes < huge ? huge : bytes;
}

/* The import's working arrays (elements, hash, links, the wiring's and
 * the routes' counters) from one block (big_block), bump allocated and
 * released with the import. Zeroed. */
struct scratch {
    struct arena a;
    unsigned char *p;
    size_t used, cap;
};

static void scr_init(struct scratch *s, size_t bytes)
{
    arena_init(&s->a);
    bytes = big_block(bytes);
    s->p = arena_alloc(&s->a, bytes);
    s->used = 0;
    s->cap = s->p ? bytes : 0;
}

/* n elements of size, zeroed; past the first block, a block of their own */
static void *scr_get(struct scratch *s, size_t n, size_t size)
{
    if (size && n > (SIZE_MAX - 16) / size)
        return NULL;
    size_t b = (n * size + 15) & ~(size_t)15;
    if (b <= s->cap - s->used) {
        s->used += b;
        return s->p + s->used - b;
    }
    return arena_alloc(&s->a, b ? b : 16);
}

struct imp {
    const char *path;
    struct err *e;
    const char *text; /* a YAML file's text */
    size_t len;
    int json;         /* JSON: streamed; positions are offsets, read back for a message */
    size_t base;      /* JSON: the file offset of the chunk being parsed */
    yajl_handle yh;
    struct rec r;
    struct scratch *scr; /* the working arrays' memory */
    struct elem *el;
    uint32_t n_el;
    uint32_t n_names[2]; /* elements of "hosts" and "storage" (ranges counted out) */
    struct tnode *nodes; /* the fabric's, in the arena: n_el */
    const char **names;  /* t->names */
    char *blk;       /* the names, in the arena: t->names point into it */
    size_t n_blk;
    uint32_t *hash;  /* open addressing: element + 1, 0 = empty */
    uint32_t hmask;
    struct ilink *ln;
    uint32_t n_ln, n_failed;
    struct iquant *q; /* each entry's speed and delay */
};

static const char *str_of(const struct imp *m, const struct val *v)
{
    return m->r.pool + v->i;
}

/* The start of the JSON token that ends just before end (yajl reports the
 * offset past a token): a string's opening quote, a number's first digit. */
static size_t token_start(const char *s, size_t end)
{
    if (!end)
        return 0;
    char c = s[end - 1];
    if (c == '{' || c == '[')
        return end - 1;
    if (c == '"') {
        for (size_t i = end - 1; i-- > 0;) {
            size_t bs = 0;
            while (i > bs && s[i - 1 - bs] == '\\')
                bs++;
            if (s[i] == '"' && bs % 2 == 0)
                return i;
        }
        return 0;
    }
    size_t i = end;
    while (i > 0 && strchr("0123456789+-.eEtruefalsn", s[i - 1]) && s[i - 1])
        i--;
    return i;
}

/* The first n bytes of the file at path (fewer if it is shorter), for a
 * message's line and column; NULL when it cannot be read again (a FIFO). */
static char *read_prefix(const char *path, size_t n, size_t *got)
{
    struct stat st;
    *got = 0;
    /* a FIFO's bytes are gone (and a second open would wait for a writer) */
    if (stat(path, &st) != 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
        return NULL;
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc(n + 1) : NULL;
    *got = buf ? fread(buf, 1, n, f) : 0;
    if (f)
        fclose(f);
    return buf;
}

/* Line and column of byte offset s of a JSON file (its line count read back). */
static void offset_line_col(const char *text, size_t s, uint32_t *line, uint32_t *col)
{
    size_t ls = 0;
    *line = 1;
    for (size_t i = 0; i < s; i++)
        if (text[i] == '\n')
            ++*line, ls = i + 1;
    *col = (uint32_t)(s - ls + 1);
}

/* line 0: no place known */
static void line_col(const struct imp *m, uint64_t at, uint32_t *line, uint32_t *col)
{
    if (!m->json) {
        *line = (uint32_t)(at >> COL_BITS);
        *col = (uint32_t)(at & ((1u << COL_BITS) - 1));
        return;
    }
    size_t end = (size_t)at - 1, got;
    char *text = read_prefix(m->path, end, &got);
    *line = 0;
    if (text)
        offset_line_col(text, token_start(text, got), line, col);
    free(text);
}

/* "FILE:LINE:COL: message", or "FILE: message" where no place fits */
static int fail(const struct imp *m, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(const struct imp *m, uint64_t at, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint32_t line = 0, col = 0;
    if (at)
        line_col(m, at, &line, &col);
    if (line)
        return err_set(m->e, "%s:%u:%u: %s", m->path, line, col, msg);
    return err_set(m->e, "%s: %s", m->path, msg);
}

/* ---- the records, from either parser's events ---- */

static int oom(struct imp *m)
{
    return err_set(m->e, "out of memory reading '%s'", m->path);
}

/* grow *p (n used of *cap elements of size) by one, first to `first`
 * elements (a guess from the file's size or the scenario: untouched pages
 * cost nothing, copies as it doubles do); -1 out of memory */
static int grow(void **p, uint32_t n, uint32_t *cap, size_t size, uint32_t first)
{
    if (n < *cap)
        return 0;
    if (*cap >= UINT32_MAX / 2)
        return -1;
    uint32_t c = *cap ? 2 * *cap : first > 256 ? first : 256;
    void *g = realloc(*p, (size_t)c * size);
    if (!g)
        return -1;
    *p = g;
    *cap = c;
    return 0;
}

/* s[0..len) into the pool, NUL-terminated: its offset, or -1 */
static int64_t pool_add(struct imp *m, const char *s, size_t len)
{
    struct rec *r = &m->r;
    if (r->n_pool + len + 1 > r->cap_pool) {
        size_t c = r->cap_pool ? 2 * r->cap_pool : r->first_pool > 1 << 16 ? r->first_pool : 1 << 16;
        while (c < r->n_pool + len + 1)
            c *= 2;
        char *g = realloc(r->pool, c);
        if (!g)
            return -1;
        r->pool = g;
        r->cap_pool = c;
    }
    int64_t off = (int64_t)r->n_pool;
    memcpy(r->pool + r->n_pool, s, len);
    r->pool[r->n_pool + len] = '\0';
    r->n_pool += len + 1;
    return off;
}

static const char *const top_keys[] = {"format", "version", "tiers", "hosts", "storage",
                                       "switches", "links", NULL};
static const char *const sw_keys[] = {"name", "tier", "profile", "pod", "plane", "from", "to",
                                      NULL};
static const char *const range_keys[] = {"from", "to", NULL};
static const char *const ln_keys[] = {"a",     "b",        "speed",  "delay",  "failed",
                                       "count", "parallel", "a_step", "b_step", NULL};

static int key_slot(const char *const *keys, const char *s, size_t len)
{
    for (int k = 0; keys[k]; k++)
        if (strlen(keys[k]) == len && !memcmp(keys[k], s, len))
            return k;
    return -1;
}

/* An object's key. Known keys go to their slot; the first unknown one is
 * kept for its error; a repeated key is an error here. */
static int b_key(struct imp *m, const char *s, size_t len, uint64_t at)
{
    struct rec *r = &m->r;
    struct open *o = &r->st[r->depth - 1];
    const char *const *keys = o->ctx == C_ROOT    ? top_keys
                              : o->ctx == C_SW    ? sw_keys
                              : o->ctx == C_LN    ? ln_keys
                              : o->ctx == C_RANGE ? range_keys
                                                  : NULL;
    int k = keys ? key_slot(keys, s, len) : -1;
    if (k >= 0) {
        if (o->seen >> k & 1)
            return fail(m, at, "duplicate key \"%.40s\"", keys[k]);
        o->seen |= 1u << k;
        o->key = (int8_t)k;
        return 0;
    }
    o->key = -2;
    if (memchr(s, '\0', len))
        return fail(m, at, "a key holds a NUL character");
    if (keys) {
        uint32_t *u = o->ctx == C_ROOT ? &r->unknown
                      : o->ctx == C_SW ? &r->sw[r->n_sw - 1].unknown
                      : o->ctx == C_LN ? &r->ln[r->n_ln - 1].unknown
                                       : &r->ranges[r->n_ranges - 1].unknown;
        if (*u)
            return 0;
        int64_t off = pool_add(m, s, len);
        if (off < 0 || off >= UINT32_MAX)
            return oom(m);
        *u = (uint32_t)off + 1;
        return 0;
    }
    /* a skipped object: its keys only for duplicates (rare: pod, plane) */
    for (uint32_t i = o->skip0; i < r->n_skip; i++)
        if (strlen(r->pool + r->skip_keys[i]) == len && !memcmp(r->pool + r->skip_keys[i], s, len))
            return fail(m, at, "duplicate key \"%.40s\"", r->pool + r->skip_keys[i]);
    int64_t off = pool_add(m, s, len);
    if (off < 0 || off >= UINT32_MAX || grow((void **)&r->skip_keys, r->n_skip, &r->cap_skip,
                                             sizeof *r->skip_keys, 0) < 0)
        return oom(m);
    r->skip_keys[r->n_skip++] = (uint32_t)off;
    return 0;
}

/* A fresh range record, the last; NULL out of memory (r->oom set). */
static struct rrange *new_range(struct rec *r)
{
    if (grow((void **)&r->ranges, r->n_ranges, &r->cap_ranges, sizeof *r->ranges, 0) < 0) {
        r->oom = 1;
        return NULL;
    }
    struct rrange *g = &r->ranges[r->n_ranges++];
    memset(g, 0, sizeof *g);
    return g;
}

/* Where the value arriving now goes (NULL: nowhere) and, for an array or
 * object, what its own values go to. */
static struct val *b_slot(struct imp *m, int obj, uint8_t *ctx, uint8_t *which)
{
    struct rec *r = &m->r;
    *ctx = C_SKIP;
    *which = 0;
    if (!r->depth) {
        r->have_root = 1;
        *ctx = obj ? C_ROOT : C_SKIP;
        return &r->root;
    }
    struct open *o = &r->st[r->depth - 1];
    int k = o->key;
    switch (o->ctx) {
    case C_ROOT:
        if (k < 0)
            return NULL;
        if (k < 3)
            return k == 0 ? &r->format : k == 1 ? &r->version : &r->tiers;
        if (!obj) /* an array: the section's entries */
            *ctx = k == 3 || k == 4 ? C_NAMES : k == 5 ? C_SWS : C_LNS;
        *which = (uint8_t)(k == 4);
        return &r->arr[k - 3];
    case C_NAMES:
        if (grow((void **)&r->names[o->which], r->n_names[o->which], &r->cap_names[o->which],
                 sizeof **r->names, r->first[o->which]) < 0)
            return NULL;
        if (obj) { /* a range: its keys go to a record of their own */
            if (!new_range(r))
                return NULL;
            *ctx = C_RANGE;
        }
        return &r->names[o->which][r->n_names[o->which]++];
    case C_SWS:
        if (grow((void **)&r->sw, r->n_sw, &r->cap_sw, sizeof *r->sw, r->first[2]) < 0)
            return NULL;
        memset(&r->sw[r->n_sw], 0, sizeof *r->sw);
        *ctx = obj ? C_SW : C_SKIP;
        return &r->sw[r->n_sw++].o;
    case C_LNS:
        if (grow((void **)&r->ln, r->n_ln, &r->cap_ln, sizeof *r->ln, r->first[3]) < 0)
            return NULL;
        memset(&r->ln[r->n_ln], 0, sizeof *r->ln);
        *ctx = obj ? C_LN : C_SKIP;
        return &r->ln[r->n_ln++].o;
    case C_SW: {
        struct rsw *w = &r->sw[r->n_sw - 1];
        if (k >= 5 && !w->range) {
            if (!new_range(r))
                return NULL;
            w->range = r->n_ranges;
        }
        return k == 0 ? &w->name : k == 1 ? &w->tier : k == 2 ? &w->profile
               : k == 5 ? &r->ranges[w->range - 1].from : k == 6 ? &r->ranges[w->range - 1].to
                                                                : NULL;
    }
    case C_RANGE: {
        struct rrange *g = &r->ranges[r->n_ranges - 1];
        return k == 0 ? &g->from : k == 1 ? &g->to : NULL;
    }
    case C_LN: {
        struct rln *l = &r->ln[r->n_ln - 1];
        if (k >= 5 && !l->run) {
            if (grow((void **)&r->runs, r->n_runs, &r->cap_runs, sizeof *r->runs,
                     r->first[3]) < 0) {
                r->oom = 1;
                return NULL;
            }
            memset(&r->runs[r->n_runs], 0, sizeof *r->runs);
            l->run = ++r->n_runs;
        }
        struct rrun *u = k >= 5 ? &r->runs[l->run - 1] : NULL;
        return k == 0 ? &l->a : k == 1 ? &l->b : k == 2 ? &l->speed : k == 3 ? &l->delay
               : k == 4 ? &l->failed : k == 5 ? &u->count : k == 6 ? &u->parallel
               : k == 7 ? &u->step[0] : k == 8 ? &u->step[1] : NULL;
    }
    default:
        return NULL;
    }
}

/* a value has arrived in the open object: its key is used */
static void b_done(struct rec *r)
{
    if (r->depth)
        r->st[r->depth - 1].key = -1;
}

static int b_second_root(struct imp *m, uint64_t at)
{
    return fail(m, at, "expected one value, found a second");
}

/* A scalar: t and i as in struct val; s, len a string's text. */
static int b_scalar(struct imp *m, uint8_t t, int64_t i, const char *s, size_t len, uint64_t at)
{
    struct rec *r = &m->r;
    if (!r->depth && r->have_root)
        return b_second_root(m, at);
    uint8_t ctx, which;
    struct val *v = b_slot(m, 0, &ctx, &which);
    if (r->oom || (!v && r->depth && (r->st[r->depth - 1].ctx == C_NAMES ||
                                      r->st[r->depth - 1].ctx == C_SWS ||
                                      r->st[r->depth - 1].ctx == C_LNS)))
        return oom(m);
    if (t == V_STR && memchr(s, '\0', len))
        return fail(m, at, "a string holds a NUL character");
    if (v) {
        *v = (struct val){i, at, t};
        if (t == V_STR && (v->i = pool_add(m, s, len)) < 0)
            return oom(m);
    }
    b_done(r);
    return 0;
}

static int b_open(struct imp *m, int obj, uint64_t at)
{
    struct rec *r = &m->r;
    if (!r->depth && r->have_root)
        return b_second_root(m, at);
    if (r->depth == MAX_DEPTH)
        return fail(m, at, "nested deeper than a topology file");
    uint8_t ctx, which;
    struct val *v = b_slot(m, obj, &ctx, &which);
    if (r->oom || (!v && r->depth && (r->st[r->depth - 1].ctx == C_NAMES ||
                                      r->st[r->depth - 1].ctx == C_SWS ||
                                      r->st[r->depth - 1].ctx == C_LNS)))
        return oom(m);
    if (v) /* a range entry of the names: i its record */
        *v = (struct val){ctx == C_RANGE ? r->n_ranges - 1 : 0, at, obj ? V_OBJ : V_ARR};
    r->st[r->depth++] = (struct open){ctx, (uint8_t)obj, -1, which, 0, r->n_skip};
    return 0;
}

static int b_close(struct imp *m)
{
    struct rec *r = &m->r;
    if (r->depth) {
        r->n_skip = r->st[--r->depth].skip0;
        b_done(r);
    }
    return 0;
}

static void rec_free(struct rec *r)
{
    free(r->names[0]);
    free(r->names[1]);
    free(r->sw);
    free(r->ln);
    free(r->runs);
    free(r->ranges);
    free(r->pool);
    free(r->skip_keys);
}

/* ---- JSON: yajl's callbacks; 0 stops the parse (m->e set) ---- */

static uint64_t j_at(const struct imp *m)
{
    return (uint64_t)(m->base + yajl_get_bytes_consumed(m->yh)) + 1;
}
static int j_null(void *c)
{
    struct imp *m = c;
    return b_scalar(m, V_NULL, 0, NULL, 0, j_at(m)) == 0;
}
static int j_bool(void *c, int b)
{
    struct imp *m = c;
    return b_scalar(m, V_BOOL, b != 0, NULL, 0, j_at(m)) == 0;
}
static int j_int(void *c, long long i)
{
    struct imp *m = c;
    return b_scalar(m, V_INT, i, NULL, 0, j_at(m)) == 0;
}
static int j_real(void *c, double d)
{
    struct imp *m = c;
    (void)d; /* no real is a valid value in a topology file */
    return b_scalar(m, V_REAL, 0, NULL, 0, j_at(m)) == 0;
}
static int j_str(void *c, const unsigned char *s, size_t len)
{
    struct imp *m = c;
    return b_scalar(m, V_STR, 0, (const char *)s, len, j_at(m)) == 0;
}
static int j_key(void *c, const unsigned char *s, size_t len)
{
    struct imp *m = c;
    return b_key(m, (const char *)s, len, j_at(m)) == 0;
}
static int j_start_map(void *c)
{
    struct imp *m = c;
    return b_open(m, 1, j_at(m)) == 0;
}
static int j_start_arr(void *c)
{
    struct imp *m = c;
    return b_open(m, 0, j_at(m)) == 0;
}
static int j_end(void *c)
{
    return b_close(c) == 0;
}

static int too_large(const struct scenario *sc, const char *path, double limit, struct err *e);
static double file_limit(const struct scenario *sc);

/* The records' first sizes for a file of `bytes`: the pool never more than
 * the file, a switch entry at least ~40 bytes, a link ~27, and the
 * scenario's host and storage counts (a name takes at least 3 bytes). */
static void size_hints(struct rec *r, const struct scenario *sc, size_t bytes)
{
    uint64_t nics[2] = {(uint64_t)sc->cluster.nodes, (uint64_t)sc->storage.nodes};
    r->first_pool = bytes + 1;
    for (int k = 0; k < 2; k++)
        r->first[k] = (uint32_t)(nics[k] < bytes / 3 ? nics[k] : bytes / 3);
    r->first[2] = (uint32_t)(bytes / 256);
    r->first[3] = (uint32_t)(bytes / 64);
}

/* Stream the JSON file at m->path through yajl in chunks: no copy of the
 * whole file is kept. At most limit bytes (larger: too_large's message). */
static int load_json(struct imp *m, const struct scenario *sc, double limit)
{
    static const yajl_callbacks cb = {j_null, j_bool, j_int, j_real, NULL, j_str,
                                      j_start_map, j_key, j_end, j_start_arr, j_end};
    m->json = 1;
    FILE *f = fopen(m->path, "rb");
    if (!f)
        return err_set(m->e, "fabric.topology_file: cannot read '%s': %s", m->path,
                       strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (double)st.st_size > limit) {
        fclose(f);
        return too_large(sc, m->path, limit, m->e);
    }
    if (S_ISREG(st.st_mode))
        size_hints(&m->r, sc, (size_t)st.st_size);
    m->yh = yajl_alloc(&cb, NULL, m);
    if (!m->yh) {
        fclose(f);
        return oom(m);
    }
    enum { CHUNK = 1 << 16 };
    static const char blank[] = " \t\r\n";
    char buf[CHUNK];
    yajl_status ys = yajl_status_ok;
    int rc = 0, seen = 0; /* seen: a byte other than a blank */
    size_t got = 0, max = (size_t)limit;
    m->base = 0;
    while (ys == yajl_status_ok && (got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (m->base + got > max) {
            rc = too_large(sc, m->path, limit, m->e);
            break;
        }
        for (size_t i = 0; i < got && !seen; i++)
            seen = !memchr(blank, buf[i], sizeof blank - 1) || !buf[i];
        ys = yajl_parse(m->yh, (const unsigned char *)buf, got);
        if (ys == yajl_status_ok)
            m->base += got;
    }
    if (rc == 0 && ferror(f))
        rc = err_set(m->e, "fabric.topology_file: cannot read '%s': %s", m->path,
                     strerror(errno));
    fclose(f);
    if (rc == 0 && !seen && ys == yajl_status_ok)
        rc = err_set(m->e, "%s: empty", m->path);
    size_t at = 0; /* where yajl stopped */
    if (rc == 0 && ys == yajl_status_ok) {
        at = m->base; /* the end: an unfinished value */
        ys = yajl_complete_parse(m->yh);
    } else if (rc == 0) {
        at = m->base + yajl_get_bytes_consumed(m->yh);
        at = at > 0 ? at - 1 : 0; /* yajl counts the offending byte in */
    }
    if (rc == 0 && ys == yajl_status_error) {
        unsigned char *msg = yajl_get_error(m->yh, 0, (const unsigned char *)buf, 0);
        char one[160];
        snprintf(one, sizeof one, "%s", msg ? (const char *)msg : "syntax error");
        one[strcspn(one, "\r\n")] = '\0'; /* yajl ends it with a newline */
        if (msg)
            yajl_free_error(m->yh, msg);
        size_t n;
        char *text = read_prefix(m->path, at, &n);
        uint32_t line = 0, col = 0;
        if (text)
            offset_line_col(text, n, &line, &col);
        free(text);
        rc = line ? err_set(m->e, "%s:%u:%u: JSON syntax error: %s", m->path, line, col, one)
                  : err_set(m->e, "%s: JSON syntax error: %s", m->path, one);
    } else if (rc == 0 && ys != yajl_status_ok) {
        rc = -1; /* a callback stopped it: m->e says why */
    }
    yajl_free(m->yh);
    m->yh = NULL;
    if (rc == 0 && !m->r.have_root)
        rc = err_set(m->e, "%s: empty", m->path);
    return rc;
}

/* ---- the checks, over the records ---- */

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

/* Element i's array (0 hosts, 1 storage, 2 switches) and place there. */
static int el_arr(const struct imp *m, uint32_t i, uint32_t *pos)
{
    int arr = i < m->n_names[0] ? 0 : i < m->n_names[0] + m->n_names[1] ? 1 : 2;
    *pos = i - (arr > 0 ? m->n_names[0] : 0) - (arr > 1 ? m->n_names[1] : 0);
    return arr;
}

static const char *const arrays[3] = {"hosts", "storage", "switches"};

static const char *where_el(const struct imp *m, uint32_t i, char *buf, size_t len)
{
    uint32_t pos;
    int arr = el_arr(m, i, &pos);
    snprintf(buf, len, "%s[%u] \"%.60s\"", arrays[arr], pos, m->el[i].name);
    return buf;
}

/* Names entry v's names: a range's count (checked), else one. */
static uint32_t entry_names(const struct rec *r, const struct val *v)
{
    return v->t == V_OBJ ? r->ranges[v->i].count : 1;
}

/* Where element i's entry is in the file (a range's for its names); only
 * for messages: a scan of the entries. */
static uint64_t el_src(const struct imp *m, uint32_t i)
{
    const struct rec *r = &m->r;
    uint32_t pos;
    int arr = el_arr(m, i, &pos);
    if (arr < 2) {
        for (uint32_t k = 0; k < r->n_names[arr]; k++) {
            uint32_t c = entry_names(r, &r->names[arr][k]);
            if (pos < c)
                return r->names[arr][k].at;
            pos -= c;
        }
        return 0;
    }
    for (uint32_t k = 0; k < r->n_sw; k++) {
        uint32_t c = r->sw[k].range ? r->ranges[r->sw[k].range - 1].count : 1;
        if (pos < c)
            return r->sw[k].o.at;
        pos -= c;
    }
    return 0;
}

/* The file entry of topo node n (for an error's line and column). */
static uint64_t src_of(const struct imp *m, uint32_t n)
{
    for (uint32_t i = 0; i < m->n_el; i++)
        if (m->el[i].node == n)
            return el_src(m, i);
    return 0;
}

/* names become CSV fields, Prometheus labels, gnuplot titles and pcap file
 * names: letters, digits and . _ : + - only (no separators, quotes,
 * slashes or control bytes to escape in each) */
static int name_chars(const char *s, size_t len)
{
    for (size_t k = 0; k < len; k++) {
        char c = s[k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == ':' || c == '+' || c == '-'))
            return 0;
    }
    return 1;
}

/* The name just written at the block's end (len bytes and its NUL) as
 * element m->n_el of kind; at: its entry, for a duplicate's message. */
static int add_elem(struct imp *m, size_t len, int kind, uint64_t at)
{
    const char *s = m->blk + m->n_blk;
    uint32_t i = name_hash(s) & m->hmask;
    for (; m->hash[i]; i = (i + 1) & m->hmask)
        if (!strcmp(m->el[m->hash[i] - 1].name, s)) {
            char w[128];
            uint32_t pos;
            int arr = el_arr(m, m->n_el, &pos);
            return fail(m, at, "%s[%u]: duplicate name \"%.60s\" (also %s)", arrays[arr], pos, s,
                        where_el(m, m->hash[i] - 1, w, sizeof w));
        }
    m->el[m->n_el] = (struct elem){s, 0, 0, 0, (uint8_t)kind, 0};
    m->hash[i] = ++m->n_el;
    m->n_blk += len + 1;
    return 0;
}

/* A name of the file (hosts[pos], storage[pos], switches[pos]) checked and
 * added. */
static int add_name(struct imp *m, const struct val *name, uint64_t at, int kind, int arr,
                    uint32_t pos)
{
    if (name->t != V_STR)
        return fail(m, name->at ? name->at : at, "%s[%u]: expected a name (a string) or a range "
                                                 "{\"from\", \"to\"}", arrays[arr], pos);
    const char *s = str_of(m, name);
    size_t len = strlen(s);
    if (!len || len > 200)
        return fail(m, name->at, "%s[%u]: expected a name of 1 to 200 characters", arrays[arr],
                    pos);
    if (!name_chars(s, len))
        return fail(m, name->at, "%s[%u]: expected a name of letters, digits and . _ : + - "
                                 "(it names files and CSV fields)", arrays[arr], pos);
    memcpy(m->blk + m->n_blk, s, len + 1);
    return add_elem(m, len, kind, name->at);
}

/* A range's names: a common prefix and a number from first to first +
 * count - 1, plain decimal (width 0) or zero-padded to width. */
struct span {
    const char *prefix;
    size_t plen;
    uint32_t first, count, width;
};

/* The digits ending s[0..len): where they start (len: none). */
static size_t digits_from(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] >= '0' && s[len - 1] <= '9')
        len--;
    return len;
}

/* Range g of array arr, its first name at pos, checked into *sp; budget:
 * the names it may make. The bytes of its names (NULs counted) to *bytes. */
static int range_span(const struct imp *m, const struct rrange *g, uint64_t at, int arr,
                      uint32_t pos, uint64_t budget, struct span *sp, uint64_t *bytes)
{
    char what[48];
    snprintf(what, sizeof what, "%s[%u]", arrays[arr], pos);
    if (g->from.t != V_STR || g->to.t != V_STR)
        return fail(m, g->from.t == V_NONE || g->from.t == V_STR ? g->to.at ? g->to.at : at
                                                                 : g->from.at,
                    "%s: a range: expected \"from\" and \"to\", its first and last names "
                    "(\"host0\", \"host99\")", what);
    const char *f = str_of(m, &g->from), *t = str_of(m, &g->to);
    size_t fl = strlen(f), tl = strlen(t), pf = digits_from(f, fl), pt = digits_from(t, tl);
    if (pf == fl || pt == tl || pf != pt || memcmp(f, t, pf))
        return fail(m, pf == fl || (pt != tl && pf == pt && !memcmp(f, t, pf)) ? g->from.at
                                                                                : g->to.at,
                    "%s: a range from \"%.60s\" to \"%.60s\": expected two names of one prefix "
                    "ending in numbers (\"host0\", \"host99\")", what, f, t);
    size_t nf = fl - pf, nt = tl - pt;
    int padded = nf > 1 && f[pf] == '0';
    if (padded ? nt != nf : nt > 1 && t[pt] == '0')
        return fail(m, g->to.at, "%s: a range from \"%.60s\" to \"%.60s\": expected the numbers "
                                 "%s", what, f, t, padded ? "of one width (zero-padded)"
                                                          : "without leading zeros");
    if (nf > 9 || nt > 9)
        return fail(m, nf > 9 ? g->from.at : g->to.at, "%s: a range from \"%.60s\" to "
                    "\"%.60s\": expected numbers of at most 9 digits", what, f, t);
    if (tl > 200)
        return fail(m, g->to.at, "%s: to: expected a name of 1 to 200 characters", what);
    if (!name_chars(f, pf))
        return fail(m, g->from.at, "%s: from: expected a name of letters, digits and . _ : + - "
                                   "(it names files and CSV fields)", what);
    uint32_t a = (uint32_t)strtoul(f + pf, NULL, 10), b = (uint32_t)strtoul(t + pt, NULL, 10);
    if (a > b)
        return fail(m, g->to.at, "%s: a range from \"%.60s\" to \"%.60s\": expected to after "
                                 "from", what, f, t);
    if ((uint64_t)b - a + 1 > budget)
        return fail(m, g->to.at, "%s: a range from \"%.60s\" to \"%.60s\": the names pass %llu, "
                                 "the most a topology file for this scenario could list",
                    what, f, t, (unsigned long long)budget);
    *sp = (struct span){f, pf, a, b - a + 1, padded ? (uint32_t)nf : 0};
    /* bytes: by the numbers' digit counts */
    uint64_t n = 0;
    if (padded)
        n = (uint64_t)sp->count * (pf + nf + 1);
    for (uint64_t d = 1, lo = 0, hi = 9; !padded && d <= 9; d++, lo = hi + 1, hi = hi * 10 + 9) {
        uint64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
        if (x <= y)
            n += ((uint64_t)y - x + 1) * (pf + d + 1);
    }
    *bytes += n;
    return 0;
}

/* The names of range sp, written into the block and added. */
static int add_range(struct imp *m, const struct span *sp, int kind, uint64_t at)
{
    for (uint32_t k = 0; k < sp->count; k++) {
        char *s = m->blk + m->n_blk, num[12];
        uint32_t v = sp->first + k, nd = 0;
        do
            num[nd++] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        while (nd < sp->width)
            num[nd++] = '0';
        memcpy(s, sp->prefix, sp->plen);
        for (uint32_t d = 0; d < nd; d++)
            s[sp->plen + d] = num[nd - 1 - d];
        s[sp->plen + nd] = '\0';
        if (add_elem(m, sp->plen + nd, kind, at) < 0)
            return -1;
    }
    return 0;
}

/* Unknown keys are errors: a typo must not pass silently. */
static int only_keys(const struct imp *m, uint64_t at, const char *what, uint32_t unknown)
{
    if (unknown)
        return fail(m, at, "%s: unknown key \"%.40s\"", what, m->r.pool + unknown - 1);
    return 0;
}

/* The elements the entries make (*nel) and their names' bytes, NULs
 * counted (*bytes): the ranges checked, their counts kept. budget: the
 * most names a topology file for the scenario could list one by one. */
static int count_names(struct imp *m, uint64_t budget, uint64_t *nel, uint64_t *bytes)
{
    struct rec *r = &m->r;
    uint64_t n = 0;
    for (int arr = 0; arr < 3; arr++) {
        uint64_t n0 = n;
        uint32_t ne = arr < 2 ? r->n_names[arr] : r->n_sw;
        for (uint32_t k = 0; k < ne; k++) {
            const struct val *v = arr < 2 ? &r->names[arr][k] : &r->sw[k].name;
            struct rrange *g = arr < 2 ? v->t == V_OBJ ? &r->ranges[v->i] : NULL
                               : r->sw[k].o.t == V_OBJ && r->sw[k].range
                                   ? &r->ranges[r->sw[k].range - 1] : NULL;
            if (!g) { /* one name, checked when it is added */
                n++;
                *bytes += v->t == V_STR ? strlen(str_of(m, v)) + 1 : 0;
                continue;
            }
            uint64_t at = arr < 2 ? v->at : r->sw[k].o.at;
            uint32_t pos = (uint32_t)(n - n0);
            char what[48];
            snprintf(what, sizeof what, "%s[%u]", arrays[arr], pos);
            if (only_keys(m, at, what, arr < 2 ? g->unknown : r->sw[k].unknown) < 0)
                return -1;
            if (arr == 2 && v->t != V_NONE)
                return fail(m, v->at, "%s: a name or a range (\"from\", \"to\"), not both", what);
            struct span sp;
            if (range_span(m, g, at, arr, pos, n < budget ? budget - n : 0, &sp, bytes) < 0)
                return -1;
            g->count = sp.count;
            n += sp.count;
        }
        if (arr < 2)
            m->n_names[arr] = (uint32_t)(n - n0);
    }
    if (n > UINT32_MAX / 4)
        return fail(m, 0, "too many nodes (%llu)", (unsigned long long)n);
    *nel = n;
    return 0;
}

/* A rate or time: a string in the scenario's units, or an integer (bps, ps). */
static int quantity(const struct imp *m, const struct val *v, int rate, uint64_t lo, uint64_t hi,
                    const char *what, uint64_t *out)
{
    char msg[160];
    const char *unit = rate ? "speed" : "delay";
    if (v->t == V_INT && v->i >= 0) {
        *out = (uint64_t)v->i;
    } else if (v->t == V_STR) {
        int rc = rate ? units_parse_rate(str_of(m, v), out, msg, sizeof msg)
                      : units_parse_time(str_of(m, v), out, msg, sizeof msg);
        if (rc < 0)
            return fail(m, v->at, "%s: %s: %s", what, unit, msg);
    } else {
        return fail(m, v->at, "%s: %s: expected %s", what, unit,
                    rate ? "a rate such as \"400Gbps\"" : "a time such as \"1us\"");
    }
    if (*out < lo || *out > hi) {
        char a[32], b[32], c[32];
        return fail(m, v->at, "%s: %s: %s is out of range (%s to %s)", what, unit,
                    rate ? units_fmt_rate(*out, a, sizeof a) : units_fmt_time(*out, a, sizeof a),
                    rate ? units_fmt_rate(lo, b, sizeof b) : units_fmt_time(lo, b, sizeof b),
                    rate ? units_fmt_rate(hi, c, sizeof c) : units_fmt_time(hi, c, sizeof c));
    }
    return 0;
}

#define MAX_BPS 100000000000000ull  /* 100Tbps, as the scenario's speeds */
#define MAX_DELAY 1000000000000000ull /* 1000 s, as fabric.link_delay */

/* "links[i] (A - B)": record i, and the ends of its link named in the
 * file's order (a run's: the link at fault). */
static const char *link_what(const struct imp *m, size_t i, uint32_t a, uint32_t b, char *buf,
                             size_t len)
{
    snprintf(buf, len, "links[%zu] (%.60s - %.60s)", i, m->el[a].name, m->el[b].name);
    return buf;
}

/* A run's figure: absent dflt; else an integer from lo to hi. */
static int run_int(const struct imp *m, const struct val *v, int64_t dflt, int64_t lo, int64_t hi,
                   const char *what, const char *key, int64_t *out)
{
    *out = dflt;
    if (v->t == V_NONE)
        return 0;
    if (v->t != V_INT || v->i < lo || v->i > hi)
        return fail(m, v->at, "%s: %s: expected a whole number from %lld to %lld", what, key,
                    (long long)lo, (long long)hi);
    *out = v->i;
    return 0;
}

/* The links a record stands for: count x parallel (1 when either is not a
 * valid number: the record's own check says why). */
static const struct rrun no_run; /* every key absent */

static const struct rrun *run_keys(const struct imp *m, const struct rln *o)
{
    return o->run ? &m->r.runs[o->run - 1] : &no_run;
}

static uint64_t run_links(const struct rrun *o)
{
    uint64_t c = o->count.t == V_INT && o->count.i >= 1 && o->count.i <= UINT32_MAX
                     ? (uint64_t)o->count.i : 1;
    uint64_t k = o->parallel.t == V_INT && o->parallel.i >= 1 && o->parallel.i <= UINT32_MAX
                     ? (uint64_t)o->parallel.i : 1;
    return c * k;
}

/* One link of record i between elements a and b (as the file orders them). */
static int add_link(struct imp *m, const struct scenario *sc, size_t i, const struct rln *o,
                    uint32_t a, uint32_t b, uint64_t bps, uint32_t failed)
{
    char what[200], w2[128];
    if (a == b)
        return fail(m, o->o.at, "%s: links %s to itself",
                    link_what(m, i, a, b, what, sizeof what), where_el(m, a, w2, sizeof w2));
    uint32_t fa = a;
    if (tier_of(m->el[a].kind) > tier_of(m->el[b].kind)) {
        a = b;
        b = fa;
    }
    int ta = tier_of(m->el[a].kind), tb = tier_of(m->el[b].kind);
    if (ta == 0 && tb != 1)
        return fail(m, o->o.at, "%s: a %s links to a leaf, not to a %s",
                    link_what(m, i, fa, fa == a ? b : a, what, sizeof what),
                    kind_word[m->el[a].kind], kind_word[m->el[b].kind]);
    if (ta == tb)
        return fail(m, o->o.at, "%s: links two %ss: a link within a tier breaks up-down "
                                "routing (links go host/storage - leaf - spine - super-spine)",
                    link_what(m, i, fa, fa == a ? b : a, what, sizeof what),
                    ta == 1 ? "leave" : kind_word[m->el[a].kind]);
    if (tb != ta + 1)
        return fail(m, o->o.at, "%s: links a leaf to a super-spine, skipping the spine tier: "
                                "up-down routing needs host/storage - leaf - spine - "
                                "super-spine", link_what(m, i, fa, fa == a ? b : a, what, sizeof what));
    /* each switch end runs the link on a port of its tier's profile */
    for (int end = 0; end < 2 && !sc->fabric.allow_oversize; end++) {
        int k = m->el[end ? b : a].kind;
        uint64_t lane = k == K_LEAF    ? sc->fabric.leaf_port_bps
                        : k == K_SPINE ? sc->fabric.spine_port_bps
                        : k == K_SUPER ? sc->fabric.super_port_bps
                                       : UINT64_MAX;
        char a1[32], a2[32];
        if (bps > lane)
            return fail(m, o->speed.at, "%s: speed: %s is faster than a port of %s (%s, %s)%s; "
                                        "fabric.allow_oversize: true runs it anyway",
                        link_what(m, i, fa, fa == a ? b : a, what, sizeof what),
                        units_fmt_rate(bps, a1, sizeof a1), m->el[end ? b : a].name,
                        k == K_LEAF    ? sc->fabric.leaf_switch
                        : k == K_SPINE ? sc->fabric.spine_switch
                                       : sc->fabric.superspine_switch,
                        units_fmt_rate(lane, a2, sizeof a2),
                        sc->fabric.breakout > 1 ? " with fabric.breakout" : "");
    }
    if (failed && ta == 0)
        return fail(m, o->o.at, "%s: failed: a %s's only link cannot fail (remove the %s "
                                "instead)", link_what(m, i, fa, fa == a ? b : a, what, sizeof what),
                    kind_word[m->el[a].kind], kind_word[m->el[a].kind]);
    struct ilink *l = &m->ln[m->n_ln++];
    *l = (struct ilink){a, b, failed, (uint32_t)i};
    m->n_failed += failed != 0;
    m->el[a].deg++;
    m->el[b].deg++;
    if (ta == 0)
        m->el[b].side |= m->el[a].kind == K_HOST ? 1 : 2;
    return 0;
}

/* The links the records make, nel elements: runs may not make more than
 * 64 links a node beyond the records (a few bytes must not claim
 * gigabytes); past that, the cap. */
static uint64_t links_total(const struct imp *m, uint64_t nel)
{
    uint64_t total = 0, cap = (uint64_t)m->r.n_ln + 64ull * nel + 65536;
    for (size_t i = 0; i < m->r.n_ln && total <= cap; i++)
        total += run_links(run_keys(m, &m->r.ln[i]));
    return total < cap ? total : cap;
}

/* The links, each record one link or a run of them (count pairs, parallel
 * links a pair, the ends stepping a_step and b_step through their arrays),
 * expanded in file order into links sized once. */
static int read_links(struct imp *m, const struct scenario *sc)
{
    size_t n = m->r.n_ln;
    uint64_t total = links_total(m, m->n_el);
    m->ln = scr_get(m->scr, total ? total : 1, sizeof *m->ln);
    m->q = scr_get(m->scr, n ? n : 1, sizeof *m->q);
    if (!m->ln || !m->q)
        return err_set(m->e, "out of memory reading '%s'", m->path);
    uint32_t nh = m->n_names[0], ns = m->n_names[1];
    const uint32_t lo[3] = {0, nh, nh + ns}, hi[3] = {nh, nh + ns, m->n_el};
    uint64_t made = 0;
    for (size_t i = 0; i < n; i++) {
        const struct rln *o = &m->r.ln[i];
        char what[200];
        snprintf(what, sizeof what, "links[%zu]", i);
        if (o->o.t != V_OBJ)
            return fail(m, o->o.at, "%s: expected an object {\"a\", \"b\", \"speed\", ...}", what);
        if (only_keys(m, o->o.at, what, o->unknown) < 0)
            return -1;
        if (o->a.t != V_STR || o->b.t != V_STR)
            return fail(m, o->o.at, "%s: expected the names of both ends in \"a\" and \"b\"", what);
        const char *na = str_of(m, &o->a), *nb = str_of(m, &o->b);
        uint32_t a = lookup(m, na), b = lookup(m, nb);
        if (a == UINT32_MAX || b == UINT32_MAX) {
            snprintf(what, sizeof what, "links[%zu] (%.60s - %.60s)", i, na, nb);
            return fail(m, o->o.at, "%s: dangling link: no host, storage node or switch named "
                                    "\"%.60s\"", what, a == UINT32_MAX ? na : nb);
        }
        link_what(m, i, a, b, what, sizeof what);
        const struct rrun *u = run_keys(m, o);
        int64_t count, par, step[2];
        if (run_int(m, &u->count, 1, 1, UINT32_MAX, what, "count", &count) < 0 ||
            run_int(m, &u->parallel, 1, 1, UINT32_MAX, what, "parallel", &par) < 0 ||
            run_int(m, &u->step[0], 0, -(int64_t)UINT32_MAX, UINT32_MAX, what, "a_step",
                    &step[0]) < 0 ||
            run_int(m, &u->step[1], 0, -(int64_t)UINT32_MAX, UINT32_MAX, what, "b_step",
                    &step[1]) < 0)
            return -1;
        if ((made += (uint64_t)count * (uint64_t)par) > total)
            return fail(m, o->o.at, "%s: count x parallel: the runs make more than %llu links "
                                    "(64 a node beyond one a record)",
                        what, (unsigned long long)total);
        /* a run's ends stay within their arrays */
        for (int end = 0; end < 2; end++) {
            uint32_t e0 = end ? b : a;
            int arr = e0 < hi[0] ? 0 : e0 < hi[1] ? 1 : 2;
            int64_t last = (int64_t)e0 + (count - 1) * step[end];
            if (last < (int64_t)lo[arr] || last >= (int64_t)hi[arr])
                return fail(m, u->step[end].at ? u->step[end].at : o->o.at,
                            "%s: %s: %lld pairs stepping %lld run past the %s (%s[%lld] of %u)",
                            what, end ? "b_step" : "a_step", (long long)count,
                            (long long)step[end], arrays[arr], arrays[arr],
                            (long long)(last - (int64_t)lo[arr]), hi[arr] - lo[arr]);
        }
        uint64_t bps, delay = sc->fabric.link_delay_ps;
        if (o->speed.t == V_NONE)
            return fail(m, o->o.at, "%s: speed: missing (a rate such as \"400Gbps\")", what);
        if (quantity(m, &o->speed, 1, 1, MAX_BPS, what, &bps) < 0)
            return -1;
        if (o->delay.t != V_NONE && quantity(m, &o->delay, 0, 0, MAX_DELAY, what, &delay) < 0)
            return -1;
        m->q[i] = (struct iquant){bps, delay};
        const struct val *f = &o->failed;
        if (f->t != V_NONE && f->t != V_BOOL &&
            !(f->t == V_INT && f->i >= 1 && f->i < UINT32_MAX))
            return fail(m, o->o.at, "%s: failed: expected true, false or the link's place (1, 2, "
                                    "...) among the failed links", what);
        uint32_t failed = f->t == V_NONE || (f->t == V_BOOL && !f->i) ? 0
                          : f->t == V_BOOL                            ? UINT32_MAX
                                                                      : (uint32_t)f->i;
        if (f->t == V_INT && count * par > 1)
            return fail(m, f->at, "%s: failed: a place (%u) names one link, this run has %lld "
                                  "(true fails them all)", what, failed,
                        (long long)(count * par));
        for (int64_t j = 0; j < count; j++)
            for (int64_t q = 0; q < par; q++)
                if (add_link(m, sc, i, o, (uint32_t)(a + j * step[0]), (uint32_t)(b + j * step[1]),
                             bps, failed) < 0)
                    return -1;
    }
    return 0;
}

/* Switch entry o, its first name at switches[pos]: a switch or a range of them. */
static int read_switch(struct imp *m, const struct rsw *o, uint32_t pos,
                       const struct scenario *sc)
{
    static const char *const tiers[] = {"leaf", "spine", "superspine"};
    char what[40];
    uint32_t e0 = m->n_el;
    snprintf(what, sizeof what, "switches[%u]", pos);
    if (o->o.t != V_OBJ)
        return fail(m, o->o.at, "%s: expected an object {\"name\", \"tier\", \"profile\"}", what);
    if (only_keys(m, o->o.at, what, o->unknown) < 0)
        return -1;
    int kind = -1;
    for (int k = 0; k < 3 && o->tier.t == V_STR; k++)
        if (!strcmp(str_of(m, &o->tier), tiers[k]))
            kind = K_LEAF + k;
    if (kind < 0)
        return fail(m, o->o.at, "%s: tier: expected leaf, spine or superspine", what);
    if (o->range) {
        struct span sp;
        uint64_t bytes = 0;
        if (range_span(m, &m->r.ranges[o->range - 1], o->o.at, 2, pos, UINT32_MAX, &sp,
                       &bytes) < 0 || add_range(m, &sp, kind, o->o.at) < 0)
            return -1;
    } else if (add_name(m, &o->name, o->o.at, kind, 2, pos) < 0) {
        return -1;
    }
    /* one profile per tier: the scenario's, which the radix check, the
     * buffers and the bill of materials use */
    const char *want = kind == K_LEAF    ? sc->fabric.leaf_switch
                       : kind == K_SPINE ? sc->fabric.spine_switch
                                         : sc->fabric.superspine_switch;
    const char *key = kind == K_LEAF    ? "fabric.leaf_switch"
                      : kind == K_SPINE ? "fabric.spine_switch"
                                        : "fabric.superspine_switch";
    const struct val *jp = &o->profile;
    int is_str = jp->t == V_STR;
    if (jp->t != V_NONE && (!is_str || strcmp(str_of(m, jp), want)))
        return fail(m, o->o.at, "%s \"%.60s\": profile: %s%.60s%s differs from %s (%s); every %s "
                                "runs the scenario's profile for its tier", what,
                    m->el[e0].name, is_str ? "\"" : "",
                    is_str ? str_of(m, jp) : "(not a string)", is_str ? "\"" : "", key, want,
                    tiers[kind - K_LEAF]);
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

/* Every switch reaches leaf 0 over working links (the searches assume a
 * connected fabric); d1, d2: n_switches each. */
static int connected(const struct imp *m, const struct topo *t, uint32_t *d1, uint32_t *d2)
{
    uint32_t nsw = t->n_switches, nl = t->n_leaves;
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
    for (uint32_t s = 0; s < nsw; s++) /* leaves first: the pair to name */
        if (d1[s] == UINT32_MAX)
            return s < nl ? cut_off(m, t, 0, s, "at all over the working links")
                          : fail(m, src_of(m, t->first_cleaf + s),
                                 "switch \"%.60s\" has no working path to leaf \"%.60s\"",
                                 t->names[t->first_cleaf + s], t->names[t->first_cleaf]);
    return 0;
}

/* Two tiers: a leaf's first next hop must be a spine that goes straight
 * down (else the BFS found leaf - spine - leaf - spine - leaf). */
static int no_valleys(const struct imp *m, const struct topo *t)
{
    uint32_t nl = t->n_leaves;
    for (uint32_t l = 0; l < nl; l++)
        for (uint32_t s = 0; s < nl; s++) {
            if (s == l)
                continue;
            const struct route *r = topo_route(t, t->first_cleaf + s, t->first_cleaf + l);
            uint32_t g = r->cnt ? t->nh_next[r->off] : t->first_cleaf + s;
            const struct route *r2 = topo_route(t, g, t->first_cleaf + l);
            if (!r->cnt || !r2->cnt || t->nh_next[r2->off] != t->first_cleaf + l)
                return cut_off(m, t, s, l, "up and down: the two leaves share no working spine "
                                           "(a path down and up again is no up-down route)");
        }
    return 0;
}

/* Whether the fabric has the builders' shape, whose rule gives the routes
 * the searches would (internal.h topo__clos_routes): every leaf-spine pair
 * of a pod (two tiers: of the fabric) joined by links_per_spine links,
 * consecutive in the spine's ports and in leaf order, the spine's uplinks
 * after them; every super-spine's ports pod by pod, links_per_super each. */
static int regular(const struct topo *t)
{
    uint32_t k = t->links_per_spine, k2 = t->links_per_super;
    uint32_t *pod_n = calloc(t->n_pods + 1, sizeof *pod_n);
    int ok = pod_n && k > 0 && (t->tiers == 2 || k2 > 0);
    for (uint32_t l = 0; ok && l < t->n_leaves; l++)
        pod_n[t->nodes[t->first_cleaf + l].pod]++;
    for (uint32_t g = 0; ok && g < t->n_spines; g++) {
        const struct tnode *n = &t->nodes[t->first_spine + g];
        uint32_t down = t->tiers == 3 ? pod_n[n->pod] * k : t->n_leaves * k;
        ok = n->nports >= down && (t->tiers == 2 ? n->nports == down : n->nports > down);
        for (uint32_t i = 0; ok && i < n->nports; i++) {
            const struct tnode *pn = &t->nodes[t->ports[t->ports[n->first_port + i].peer].node];
            if (i >= down)
                ok = pn->kind == NODE_SUPER;
            else if (t->tiers == 2)
                ok = t->ports[t->ports[n->first_port + i].peer].node == t->first_cleaf + i / k;
            else
                ok = pn->kind == NODE_LEAF && pn->pod == n->pod && pn->pod_pos == i / k;
        }
    }
    for (uint32_t u = t->first_super; ok && t->tiers == 3 && u < t->n_nodes; u++) {
        const struct tnode *n = &t->nodes[u];
        ok = n->nports == t->n_pods * k2;
        for (uint32_t i = 0; ok && i < n->nports; i++) {
            const struct tnode *pn = &t->nodes[t->ports[t->ports[n->first_port + i].peer].node];
            ok = pn->kind == NODE_SPINE && pn->pod == i / k2;
        }
    }
    free(pod_n);
    return ok;
}

/* Routes: on the builders' shape by their rule (the searches only toward
 * the leaves a failed link touches, as built); on any other, or where that
 * fails, every leaf's by the searches (routes_all), whose messages say
 * which leaves are cut off. */
static int routes_all(const struct imp *m, struct topo *t, struct arena *a);
static int routes(const struct imp *m, struct topo *t, struct arena *a)
{
    if (regular(t)) {
        uint32_t *d1 = scr_get(m->scr, t->n_switches, sizeof *d1);
        uint32_t *d2 = scr_get(m->scr, t->n_switches, sizeof *d2);
        int rc = d1 && d2 ? connected(m, t, d1, d2) : err_set(m->e, "out of memory building routes");
        if (rc < 0)
            return rc;
        struct err ignored = {{0}};
        rc = t->tiers == 3 ? topo__clos_routes(t, a, &ignored)
                           : topo__leaf_spine_routes(t, a, &ignored);
        /* two tiers: a failed link can leave a valley (down and up again) */
        if (rc == 0 && (t->tiers == 3 || !t->n_failed))
            return 0;
        if (rc == 0)
            return no_valleys(m, t);
    }
    return routes_all(m, t, a);
}

/* Every leaf's routes (all "affected"), then the checks that they go up and
 * down: two tiers by BFS (a leaf's next spine must go down to the
 * destination), three by the up-down search, which finds no other kind. */
static int routes_all(const struct imp *m, struct topo *t, struct arena *a)
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
    rc = connected(m, t, d1, d2);
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
    if (rc == 0 && t->tiers == 2)
        rc = no_valleys(m, t);
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
        return fail(m, 0, "too many links (%u)", m->n_ln);
    t->n_ports = (uint32_t)nports;
    t->ports = arena_calloc(a, t->n_ports ? t->n_ports : 1, sizeof *t->ports);
    /* a link's delay is its record's: delay_id the record */
    t->n_delays = m->r.n_ln ? (uint32_t)m->r.n_ln : 1;
    t->delays = arena_calloc(a, t->n_delays, sizeof *t->delays);
    for (uint32_t i = 0; t->delays && i < m->r.n_ln; i++)
        t->delays[i] = m->q[i].delay;
    uint32_t *cur = scr_get(m->scr, t->n_nodes, sizeof *cur);
    uint8_t *pod_cp = calloc(t->n_pods + 1, 1), *pod_st = calloc(t->n_pods + 1, 1);
    /* failed links: place << 32 | order among them; a's port by that order */
    uint64_t *fl = malloc((m->n_failed + 1) * sizeof *fl);
    uint32_t *fpa = malloc((m->n_failed + 1) * sizeof *fpa), nf = 0;
    int rc = 0;
    if (!t->ports || !t->delays || !cur || !pod_cp || !pod_st || !fl || !fpa) {
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
        uint32_t pa = cur[na]++, pb = cur[nb]++;
        if (l->failed) /* its place << 32 | its order among the failed, and a's port */
            fl[nf] = (uint64_t)l->failed << 32 | nf, fpa[nf++] = pa;
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
        topo__link(t, pa, na, pb, nb, m->q[l->rec].bps, l->rec, ab, ba);
    }
    /* parallel links per pair (the widest), and the failed links by name:
     * "a-b", "#j" the j-th of parallel ones, as the builders name them */
    uint32_t *cnt = scr_get(m->scr, t->n_nodes, sizeof *cnt);
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
    /* failed links: by their place ("failed": n), then the others in file order */
    qsort(fl, nf, sizeof *fl, cmp_u64);
    for (uint32_t i = 0; i < nf; i++) {
        char name[160];
        topo__link_name(t, fpa[(uint32_t)fl[i]], name, sizeof name);
        topo__fail(t, fpa[(uint32_t)fl[i]], name);
    }
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
    free(pod_cp);
    free(pod_st);
    free(fl);
    free(fpa);
    return rc;
}

/* Node ids, pods and counts from the elements. */
static int place(struct imp *m, struct topo *t)
{
    uint32_t cnt[5] = {0};
    for (uint32_t i = 0; i < m->n_el; i++) {
        struct elem *x = &m->el[i];
        char w[128];
        if (x->kind <= K_STORAGE && x->deg != 1)
            return x->deg ? fail(m, el_src(m, i), "%s: %u links; a %s is one NIC port with one link to a "
                                    "leaf (a node's several NICs are several entries: "
                                    "cluster.nics_per_node, storage.nics_per_node)",
                                 where_el(m, i, w, sizeof w), x->deg, kind_word[x->kind])
                          : fail(m, el_src(m, i), "%s: no link (every %s links to a leaf)",
                                 where_el(m, i, w, sizeof w), kind_word[x->kind]);
        if (x->kind == K_LEAF && x->side == 3)
            return fail(m, el_src(m, i), "%s: holds both hosts and storage nodes; a leaf is a compute or a "
                           "storage leaf", where_el(m, i, w, sizeof w));
        if (x->kind == K_LEAF && !x->side)
            return fail(m, el_src(m, i), "%s: holds no host or storage node", where_el(m, i, w, sizeof w));
        if (x->kind > K_LEAF && !x->deg)
            return fail(m, el_src(m, i), "%s: no link", where_el(m, i, w, sizeof w));
        cnt[x->kind]++;
    }
    t->n_hosts = cnt[K_HOST];
    t->n_storage = cnt[K_STORAGE];
    t->n_spines = cnt[K_SPINE];
    t->n_supers = cnt[K_SUPER];
    t->tiers = t->n_supers ? 3 : 2;
    if (!t->n_hosts || !t->n_storage || !t->n_spines)
        return fail(m, 0, "needs at least one host, one storage node and one spine (has %u, %u, "
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
    if (t->n_nodes != m->n_el)
        return fail(m, 0, "%u nodes placed of %u", t->n_nodes, m->n_el); /* cannot happen */
    t->nodes = m->nodes;
    const char **names = m->names;
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
        uint32_t *up = scr_get(m->scr, m->n_el, sizeof *up);
        uint32_t *pod_of = scr_get(m->scr, m->n_el, sizeof *pod_of);
        uint32_t *spp = NULL;
        int rc = 0;
        if (!up || !pod_of)
            return err_set(m->e, "out of memory reading '%s'", m->path);
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
                rc = fail(m, el_src(m, i), "%s: links to no leaf", where_el(m, i, w, sizeof w));
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
                rc = fail(m, 0, "the pod of leaf \"%.60s\" has %u spines, the pod of leaf \"%.60s\" "
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
        names[x->node] = x->name; /* in the arena's block of names */
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

/* ---- YAML: libyaml's events into the same records ---- */

static uint64_t y_at(yaml_mark_t mk)
{
    uint64_t line = mk.line + 1 < AT_MAX >> COL_BITS ? mk.line + 1 : AT_MAX >> COL_BITS;
    uint64_t col = mk.column + 1 < (1u << COL_BITS) ? mk.column + 1 : (1u << COL_BITS) - 1;
    return line << COL_BITS | col;
}

/* A YAML scalar typed as JSON would be: plain true/false, null (~, empty)
 * and decimal integers typed, anything else (and anything quoted) a string. */
static uint8_t yaml_type(const yaml_event_t *ev, int64_t *i)
{
    const char *v = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    *i = 0;
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return V_STR;
    if (!strcmp(v, "true") || !strcmp(v, "false")) {
        *i = v[0] == 't';
        return V_BOOL;
    }
    if (!len || !strcmp(v, "~") || !strcmp(v, "null"))
        return V_NULL;
    size_t k = v[0] == '-';
    while (k < len && v[k] >= '0' && v[k] <= '9')
        k++;
    if (k == len && len > (size_t)(v[0] == '-') && len < 19) {
        *i = strtoll(v, NULL, 10);
        return V_INT;
    }
    return V_STR;
}

/* Event by event: no anchors or aliases (a topology needs none, and they
 * could multiply the records), one document, at most MAX_DEPTH levels. */
static int load_yaml(struct imp *m)
{
    yaml_parser_t p;
    yaml_event_t ev;
    int done = 0, rc = 0, docs = 0;
    if (!yaml_parser_initialize(&p))
        return oom(m);
    yaml_parser_set_input_string(&p, (const unsigned char *)m->text, m->len);
    while (!done && rc == 0) {
        if (!yaml_parser_parse(&p, &ev)) {
            rc = err_set(m->e, "%s:%zu:%zu: YAML syntax error: %s", m->path,
                         p.problem_mark.line + 1, p.problem_mark.column + 1,
                         p.problem ? p.problem : "unknown error");
            break;
        }
        const struct rec *r = &m->r;
        /* a mapping awaiting its key */
        int key = r->depth && r->st[r->depth - 1].obj && r->st[r->depth - 1].key == -1;
        uint64_t at = y_at(ev.start_mark);
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (docs++)
                rc = fail(m, at, "expected one YAML document, found a second");
            break;
        case YAML_ALIAS_EVENT:
            rc = fail(m, at, "YAML aliases are not supported in a topology file");
            break;
        case YAML_SCALAR_EVENT: {
            int64_t i;
            uint8_t t = yaml_type(&ev, &i);
            const char *s = (const char *)ev.data.scalar.value;
            size_t len = ev.data.scalar.length;
            if (key && t != V_STR)
                rc = fail(m, at, "expected a text key");
            else
                rc = key ? b_key(m, s, len, at) : b_scalar(m, t, i, s, len, at);
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            rc = key ? fail(m, at, "expected a text key")
                     : b_open(m, ev.type == YAML_MAPPING_START_EVENT, at);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            rc = b_close(m);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (rc == 0 && !m->r.have_root)
        rc = err_set(m->e, "%s: empty", m->path);
    return rc;
}

/* A topology file's size limit: 16 MiB and 1 KiB per host and storage
 * NIC of the scenario, three times what --topology-out writes for a
 * 100,000-node fabric (31.6 MB, 310 B a NIC with its switches and links).
 * A JSON file is streamed in 64 KiB pieces; its records take ~1.5x the
 * file. A YAML file is read whole. */
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
    int reg = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    if (reg && (double)st.st_size > limit) {
        fclose(f);
        too_large(sc, path, limit, e);
        return NULL;
    }
    size_t max = (size_t)limit, cap = 0, n = 0;
    char *buf = NULL;
    /* a regular file's size known: one buffer, no copies as it grows */
    if (reg && st.st_size > 0 && (buf = malloc((size_t)st.st_size + 2)))
        cap = (size_t)st.st_size + 2;
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
    char path[1024];
    resolve_path(sc, path, sizeof path);
    if (sc->fabric.failed_links || strcmp(sc->fabric.failed_link_names, "none"))
        return err_set(e, "%s: a topology file marks its own failed links (\"failed\": true "
                          "on a link); leave fabric.failed_links and "
                          "fabric.failed_link_names unset",
                       sc->fabric.failed_links ? "fabric.failed_links"
                                               : "fabric.failed_link_names");
    struct imp m;
    struct scratch scr;
    memset(&m, 0, sizeof m);
    memset(&scr, 0, sizeof scr);
    m.scr = &scr;
    m.path = path;
    m.e = e;
    char *text = NULL;
    int rc;
    if (is_yaml(path)) {
        if (!(text = read_capped(sc, path, &m.len, e)))
            return -1;
        m.text = text;
        size_hints(&m.r, sc, m.len);
        rc = load_yaml(&m);
    } else {
        rc = load_json(&m, sc, file_limit(sc));
    }
    const struct rec *r = &m.r;
    const struct val *hosts = &r->arr[0], *stor = &r->arr[1], *sw = &r->arr[2],
                     *links = &r->arr[3];
    if (rc < 0)
        ;
    else if (r->root.t != V_OBJ)
        rc = fail(&m, r->root.at, "expected an object with \"hosts\", \"storage\", \"switches\", "
                                  "\"links\"");
    else if (only_keys(&m, r->root.at, "the top level", r->unknown) < 0)
        rc = -1;
    else if (r->format.t != V_NONE &&
             (r->format.t != V_STR || strcmp(str_of(&m, &r->format), "ckptnet-topology")))
        rc = fail(&m, r->format.at, "format: expected \"ckptnet-topology\"");
    else if (r->version.t != V_INT || r->version.i < 1 || r->version.i > TOPO_FILE_VERSION)
        rc = fail(&m, r->version.t ? r->version.at : r->root.at,
                  "version: expected 1 to %d (this ckptnet's topology files)", TOPO_FILE_VERSION);
    else if (hosts->t != V_ARR || stor->t != V_ARR || sw->t != V_ARR || links->t != V_ARR)
        rc = fail(&m, r->root.at, "%s: expected an array", hosts->t != V_ARR  ? "hosts"
                                                            : stor->t != V_ARR ? "storage"
                                                            : sw->t != V_ARR   ? "switches"
                                                                               : "links");
    uint64_t nel = 0, bytes = 0;
    /* a name takes at least 4 bytes listed ("x", ): ranges make no more */
    if (rc == 0)
        rc = count_names(&m, (uint64_t)(file_limit(sc) / 4), &nel, &bytes);
    if (rc == 0) {
        uint32_t hs = 16;
        while (hs < 2 * nel)
            hs *= 2;
        m.hmask = hs - 1;
        /* the working arrays' bytes, pods' and failed links' aside */
        scr_init(&scr, nel * (sizeof *m.el + 6 * sizeof(uint32_t)) + hs * sizeof *m.hash +
                           links_total(&m, nel) * sizeof *m.ln + r->n_ln * sizeof *m.q + 256);
        m.hash = scr_get(&scr, hs, sizeof *m.hash);
        m.el = scr_get(&scr, nel ? nel : 1, sizeof *m.el);
        /* the fabric's nodes, their names and the names' bytes: one block */
        size_t nodes_b = (nel * sizeof *m.nodes + 15) & ~(size_t)15;
        size_t names_b = (nel * sizeof *m.names + 15) & ~(size_t)15;
        unsigned char *blk = arena_alloc(a, big_block(nodes_b + names_b + bytes + 1));
        m.nodes = (struct tnode *)(void *)blk;
        m.names = blk ? (const char **)(void *)(blk + nodes_b) : NULL;
        m.blk = blk ? (char *)blk + nodes_b + names_b : NULL;
        if (!m.hash || !m.el || !m.blk)
            rc = err_set(e, "out of memory reading '%s'", path);
    }
    for (int arr = 0; arr < 2; arr++)
        for (uint32_t i = 0, pos = 0; rc == 0 && i < r->n_names[arr]; i++) {
            const struct val *v = &r->names[arr][i];
            int kind = arr ? K_STORAGE : K_HOST;
            struct span sp;
            uint64_t by = 0;
            if (v->t != V_OBJ) {
                rc = add_name(&m, v, v->at, kind, arr, pos++);
            } else if ((rc = range_span(&m, &r->ranges[v->i], v->at, arr, pos, UINT32_MAX, &sp,
                                        &by)) == 0) {
                rc = add_range(&m, &sp, kind, v->at);
                pos += sp.count;
            }
        }
    for (uint32_t i = 0; rc == 0 && i < r->n_sw; i++)
        rc = read_switch(&m, &r->sw[i], m.n_el - m.n_names[0] - m.n_names[1], sc);
    if (rc == 0)
        rc = read_links(&m, sc);
    if (rc == 0)
        rc = place(&m, t);
    const struct val *tiers = &r->tiers;
    if (rc == 0 && tiers->t != V_NONE &&
        (tiers->t != V_INT || tiers->i != (int64_t)t->tiers))
        rc = fail(&m, tiers->at, "tiers: the switches make %u tiers (%s)", t->tiers,
                  t->tiers == 3 ? "super-spines" : "no super-spine");
    if (rc == 0 && (t->n_hosts != sc->cluster.nodes || t->n_storage != sc->storage.nodes))
        rc = fail(&m, 0, "%u hosts and %u storage nodes; the scenario has %u and %u (cluster.nodes "
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
        rc = fail(&m, 0, "%u next hops lead onto failed links (route building is broken)", bad);
    arena_release(&scr.a);
    rec_free(&m.r);
    free(text);
    return rc;
}
