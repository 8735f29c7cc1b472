/* Incremental max-min fair rates: progressive filling over an affected set,
 * checked against the bottleneck condition (see maxmin.h). */
#include "maxmin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From this many bytes mm_init's arrays share one block (below it a
 * block of whole 2 MB pages would add to a small run's memory) */
#define MM_ONE_BLOCK ((size_t)16 << 20)
#define EPS 1e-10     /* relative slack for float round-off in the checks */
#define OVER_EPS 1e-9 /* a load this far above capacity is reported */

static int init(struct mm *m, struct arena *a, uint32_t nl, const double *cap,
                uint32_t nf, const uint32_t *path_off, const uint32_t *path, uint32_t *kept,
                const double *path_w, const double *flow_cap)
{
    memset(m, 0, sizeof *m);
    m->nl = nl;
    m->nf = nf;
    uint32_t np = path_off[nf];
    /* caps are rare: without any, no array and no heap room for them */
    int capped = 0;
    for (uint32_t f = 0; flow_cap && f < nf && !capped; f++)
        capped = flow_cap[f] != INFINITY;
    size_t nh = (size_t)nl + (capped ? nf : 0);
    /* unit weights (one path per flow) need no array: less memory to touch */
    uint32_t unit = 0;
    while (path_w && unit < np && path_w[unit] == 1.0)
        unit++;
    int weighted = path_w && unit < np;
    /* paths of one length P: the lists hold path entries, so a stop finds
     * the entry of the flow it moves without reading that flow's path (a
     * cache miss or two a link). entry x ceil(2^38 / P) >> 38 is entry / P
     * exactly for entries below 2^26 and P below 4096 (the error stays
     * under 2^26 / 2^38); the product stays below 2^64. Starting at entry
     * 0, flow f's path starts at f x P: no per-flow offset to keep. */
    uint32_t len = nf ? path_off[1] - path_off[0] : 0;
    int same = len && !weighted && np < (1u << 26);
    for (uint32_t f = 1; same && f < nf; f++)
        same = path_off[f + 1] - path_off[f] == len;
    m->lmul = same ? ((UINT64_C(1) << 38) + len - 1) / len : 0;
    m->plen = same && path_off[0] == 0 ? len : 0;
    /* the 32-bit arrays in one allocation: a large one gets a block of its
     * own, several medium ones would each leave part of a block unused */
    size_t ne = (size_t)np + 1, nfl = (size_t)nf + 1, nll = (size_t)nl + 1;
    /* with unit weights a filled link's flows of A are found on its list
     * (the order they freeze in cannot change a sum: they freeze at one
     * rate), so the per-entry scratch alist is only for weights */
    size_t nu = (2 - !!kept + 2 * (size_t)weighted) * ne + (2 + !m->plen) * nfl +
                (5 + 2 * (size_t)weighted) * nll;
    /* every array below in one block when large: each large one in a
     * block of its own rounds up to 2 MB pages, the last page of each
     * touched whole (~1 MB a block, six blocks at 800,000 transfers). The
     * slots counted 16-bit: wide ones (rare) go to a block of their own.
     * Last the link scratch (all of it in a burst, given back after),
     * then the two that updates write little of (aff_rate: as far as the
     * largest update after a burst; shrunk: once a capacity falls), so
     * the huge pages they alone cover are never touched */
    size_t nlk = (size_t)(nl ? nl : 1) * sizeof *m->links + 64, hb = cq_bytes(nh);
    size_t nsc = ((size_t)nl + 1) * sizeof *m->scr + 64, ntin = ((size_t)nl + 64) / 64;
    size_t all = arena_size(nu * sizeof(uint32_t)) + arena_size(nlk) + arena_size(nsc) +
                 arena_size(ntin * sizeof *m->tin) +
                 arena_size((nf ? nf : 1) * sizeof *m->flows) + arena_size(nf ? nf : 1) +
                 (capped ? arena_size((nf ? nf : 1) * sizeof *m->fcap) : 0) +
                 (weighted ? arena_size(np * sizeof *m->pw) : 0) +
                 arena_size(ne * sizeof(uint16_t)) + hb +
                 arena_size(nfl * sizeof *m->aff_rate) + arena_size(nll * sizeof *m->shrunk);
    if (!hb || (all >= MM_ONE_BLOCK && arena_reserve(a, all) < 0))
        return -1;
    uint32_t *u = arena_calloc(a, nu, sizeof *u);
    if (!u)
        return -1;
    if (kept)
        m->path = kept;
    else
        m->path = u, u += ne;
    m->lflow = u, u += ne;
    if (weighted) {
        m->alist = u, u += ne;
        m->lpe = u, u += ne;
        m->aoff = u, u += 2 * nll;
    }
    if (!m->plen)
        m->poff = u, u += nfl;
    m->active = u, u += nfl;
    /* added is read only at the start of an update, which refills aff from
     * its front no faster than it reads: one array for both. After active:
     * the little an update writes of it shares active's last huge page */
    m->aff = m->added = u, u += nfl;
    m->dirty = u, u += nll;
    m->dmark = u, u += nll;
    m->tl = u, u += nll;
    m->lside = (struct mm_lside *)(void *)u;
    /* each link's list is as long as the number of flows that ever cross
     * it: counted first, it says whether 16-bit slots can hold them. The
     * count in dirty (a stack: nothing past n_dirty is read), on the
     * arena's pages, not a fresh calloc's 4 KB ones (1.3 MB at 800,000
     * transfers) */
    uint32_t *cnt = m->dirty, most = 0;
    for (uint32_t i = 0; i < np; i++)
        most = ++cnt[path[i]] > most ? cnt[path[i]] : most;
    int narrow = most <= UINT16_MAX;
#define ALLOC(p, n) ((p) = arena_calloc(a, (n) ? (n) : 1, sizeof *(p)))
    /* the link records on a line boundary (arena blocks align to 16) */
    unsigned char *lraw = arena_calloc(a, nlk, 1);
    size_t mis = (uintptr_t)lraw & 63;
    if (lraw)
        m->links = (struct mm_link *)(void *)(lraw + (mis ? 64 - mis : 0));
    unsigned char *sraw = NULL;
    if (!lraw || !ALLOC(m->flows, nf) || !ALLOC(m->fbits, nf) ||
        (capped && !ALLOC(m->fcap, nf)) || (weighted && !ALLOC(m->pw, np)) ||
        (narrow ? !ALLOC(m->pslot16, ne) : !ALLOC(m->pslot, ne)) ||
        !ALLOC(m->tin, ntin) || cq_init(&m->heap, a, nh) < 0 ||
        !(sraw = arena_calloc(a, nsc, 1)) || !ALLOC(m->aff_rate, nfl) || !ALLOC(m->shrunk, nll))
        return -1;
    mis = (uintptr_t)sraw & 63;
    m->scr = (struct mm_scr *)(void *)(sraw + (mis ? 64 - mis : 0));
    m->arena = a;
    m->add_tail = 1;
#undef ALLOC
    if (np && !kept)
        memcpy(m->path, path, np * sizeof *path);
    if (weighted)
        memcpy(m->pw, path_w, np * sizeof *path_w);
    uint32_t off = 0;
    for (uint32_t l = 0; l < nl; l++) {
        struct mm_link *k = &m->links[l];
        k->cap = cap[l];
        k->off = off;
        off += cnt[l];
        k->n = 0;
        k->bhead = MM_NIL;
    }
    for (uint32_t f = 0; f < nf; f++) {
        struct mm_flow *fl = &m->flows[f];
        if (capped)
            m->fcap[f] = flow_cap[f];
        fl->bott = MM_NONE;
        fl->bnext = fl->bprev = MM_NIL;
        fl->apos = UINT32_MAX;
    }
    if (m->poff)
        memcpy(m->poff, path_off, nfl * sizeof *path_off);
    m->epoch = 1;
    m->dmark_epoch = 1;
    m->starts_only = 1;
    return 0;
}

int mm_init(struct mm *m, struct arena *a, uint32_t nl, const double *cap,
            uint32_t nf, const uint32_t *path_off, const uint32_t *path,
            const double *path_w, const double *flow_cap)
{
    return init(m, a, nl, cap, nf, path_off, path, NULL, path_w, flow_cap);
}

int mm_init_path(struct mm *m, struct arena *a, uint32_t nl, const double *cap,
                 uint32_t nf, const uint32_t *path_off, uint32_t *path,
                 const double *path_w, const double *flow_cap)
{
    return init(m, a, nl, cap, nf, path_off, path, path, path_w, flow_cap);
}

int mm_init_groups(struct mm *m, struct arena *a, uint32_t ng, const uint32_t *goff,
                   const uint32_t *gpath, const double *gw, const uint32_t *group)
{
    uint32_t ne = goff[ng], nl = m->nl, nf = m->nf;
    size_t ng1 = (size_t)ng + 1;
    uint32_t *u = arena_calloc(a, (size_t)nf + 2 * (size_t)ne + 5 * ng1 + nl + 1 + nf + 1 + ng1,
                               sizeof *u);
    double *d = arena_calloc(a, (size_t)ne + ng1, sizeof *d);
    if (!u || !d)
        return -1;
    m->ng = ng;
    m->fgroup = u, u += nf;
    m->goff = u, u += ng1;
    m->gpath = u, u += ne;
    m->lgoff = u, u += (size_t)nl + 1;
    m->lgrp = u, u += ne;
    m->gact = u, u += ng1;
    m->gun = u, u += ng1;
    m->gdu = u, u += ng1;
    m->gmoff = u, u += ng1;
    m->gmem = u, u += (size_t)nf + 1;
    m->gdirty = u;
    m->gw = d, d += ne;
    m->gdr = d;
    memcpy(m->fgroup, group, (size_t)nf * sizeof *group);
    memcpy(m->goff, goff, ng1 * sizeof *goff);
    if (ne) {
        memcpy(m->gpath, gpath, (size_t)ne * sizeof *gpath);
        memcpy(m->gw, gw, (size_t)ne * sizeof *gw);
    }
    /* per link its groups, in group order: lgoff[l + 1] holds l's start
     * while they are placed, then its end (l + 1's start) */
    for (uint32_t i = 0; i < ne; i++)
        m->lgoff[gpath[i] + 1]++;
    for (uint32_t l = 0, sum = 0; l < nl; l++) {
        uint32_t c = m->lgoff[l + 1];
        m->lgoff[l + 1] = sum;
        sum += c;
    }
    for (uint32_t g = 0; g < ng; g++)
        for (uint32_t i = goff[g]; i < goff[g + 1]; i++)
            m->lgrp[m->lgoff[gpath[i] + 1]++] = g;
    return 0;
}

/* Move flow f to bottleneck b (a link, MM_CAP or MM_NONE), keeping the
 * links' lists of the flows bottlenecked on them. */
static void bott_set(struct mm *m, uint32_t f, uint32_t b)
{
    struct mm_flow *fl = &m->flows[f];
    if (fl->bott < m->nl) {
        struct mm_link *l = &m->links[fl->bott];
        if (fl->bprev != MM_NIL)
            m->flows[fl->bprev].bnext = fl->bnext;
        else
            l->bhead = fl->bnext;
        if (fl->bnext != MM_NIL)
            m->flows[fl->bnext].bprev = fl->bprev;
        l->nbott--;
    }
    fl->bott = b;
    fl->bnext = fl->bprev = MM_NIL;
    if (b < m->nl) {
        struct mm_link *l = &m->links[b];
        fl->bnext = l->bhead;
        if (l->bhead != MM_NIL)
            m->flows[l->bhead].bprev = f;
        l->bhead = f;
        l->nbott++;
    }
}

static void mark_link_dirty(struct mm *m, uint32_t l)
{
    if (m->dmark[l] != m->dmark_epoch) {
        m->dmark[l] = m->dmark_epoch;
        m->dirty[m->n_dirty++] = l;
    }
}

void mm_set_cap(struct mm *m, uint32_t l, double cap)
{
    struct mm_link *k = &m->links[l];
    m->starts_only = 0;
    /* less room: any flow here may have to slow down, not only the ones
     * bottlenecked here; more room: only those can speed up */
    if (cap < k->cap)
        m->shrunk[m->n_shrunk++] = l;
    k->cap = cap;
    mark_link_dirty(m, l);
}

/* Slot of path entry pe in its link's list. */
static uint32_t slot_of(const struct mm *m, uint32_t pe)
{
    return m->pslot16 ? m->pslot16[pe] : m->pslot[pe];
}
static void slot_set(struct mm *m, uint32_t pe, uint32_t s)
{
    if (m->pslot16)
        m->pslot16[pe] = (uint16_t)s;
    else
        m->pslot[pe] = s;
}

/* Every active flow's slots, from the lists (which hold path entries:
 * lmul): after a burst whose starts left them unwritten (slots_lazy). */
static void slots_fill(struct mm *m)
{
    for (uint32_t l = 0; l < m->nl; l++) {
        const struct mm_link *k = &m->links[l];
        const uint32_t *pe = m->lflow + k->off;
        if (m->pslot16) /* 16 bits: every slot below 65,536 */
            for (uint32_t s = 0; s < k->n; s++)
                m->pslot16[pe[s]] = (uint16_t)s;
        else
            for (uint32_t s = 0; s < k->n; s++)
                m->pslot[pe[s]] = s;
    }
    m->slots_lazy = 0;
}

void mm_start(struct mm *m, uint32_t f)
{
    struct mm_flow *fl = &m->flows[f];
    if (fl->apos != UINT32_MAX)
        return;
    /* from no active flow on, until a stop or an update, the slots are
     * not needed: unwritten, so a burst's fill runs without their pages */
    if (!m->n_active && m->lmul)
        m->slots_lazy = 1;
    for (uint32_t i = 0, np = mm_np(m, f), p0 = mm_poff(m, f); i < np; i++) {
        uint32_t lid = m->path[p0 + i];
        struct mm_link *l = &m->links[lid];
        if (!m->slots_lazy)
            slot_set(m, p0 + i, l->n);
        if (m->lpe)
            m->lpe[l->off + l->n] = p0 + i;
        m->lflow[l->off + l->n++] = m->lmul ? p0 + i : f;
        mark_link_dirty(m, lid); /* dirty: first seen along the paths, in order */
    }
    fl->apos = m->n_active;
    m->active[m->n_active++] = f;
    if (m->ng && m->fgroup[f] != MM_NIL)
        m->gact[m->fgroup[f]]++;
    fl->rate = 0;
    if (!m->add_tail)
        m->added[m->n_added] = f;
    m->n_added++;
}

/* The entry of flow f's path that names link lid (it has one). */
static uint32_t path_entry(const struct mm *m, uint32_t f, uint32_t lid)
{
    uint32_t pe = mm_poff(m, f);
    while (m->path[pe] != lid)
        pe++;
    return pe;
}

/* Weight of a link's slot k (an lflow index). */
static double slot_w(const struct mm *m, uint32_t k)
{
    return m->lpe ? m->pw[m->lpe[k]] : 1.0;
}

/* Keep the load a link had before update number `update`. */
static void snapshot(struct mm_link *l, uint32_t update)
{
    if (l->snap != update) {
        l->snap = update;
        l->prev_load = l->load;
    }
}

void mm_stop(struct mm *m, uint32_t f)
{
    struct mm_flow *fl = &m->flows[f];
    if (fl->apos == UINT32_MAX)
        return;
    if (m->slots_lazy)
        slots_fill(m);
    if (m->add_tail) { /* active's tail is about to move: the starts listed apart */
        memcpy(m->added, m->active + m->add_from, (size_t)m->n_added * sizeof *m->added);
        m->add_tail = 0;
    }
    m->starts_only = 0;
    bott_set(m, f, MM_NONE);
    for (uint32_t i = 0, np = mm_np(m, f), p0 = mm_poff(m, f); i < np; i++) {
        uint32_t lid = m->path[p0 + i];
        struct mm_link *l = &m->links[lid];
        uint32_t s = slot_of(m, p0 + i);
        snapshot(l, m->epoch + 1);
        l->load = l->n > 1 ? l->load - mm_w(m, p0 + i) * fl->rate : 0; /* empty: 0 */
        uint32_t last = l->off + --l->n, g = mm_lflow(m, last);
        if (g != f) { /* move the last flow into the hole */
            uint32_t pe = m->lpe ? m->lpe[last] : m->lmul ? m->lflow[last] : path_entry(m, g, lid);
            m->lflow[l->off + s] = m->lflow[last];
            if (m->lpe)
                m->lpe[l->off + s] = pe;
            slot_set(m, pe, s);
        }
        mark_link_dirty(m, lid); /* dirty: first seen along the paths, in order */
    }
    uint32_t last = m->active[--m->n_active];
    m->active[fl->apos] = last;
    m->flows[last].apos = fl->apos;
    fl->apos = UINT32_MAX;
    fl->rate = 0;
    /* a group's last member: its links go idle and must be in tl */
    uint32_t g = m->ng ? m->fgroup[f] : MM_NIL;
    if (g != MM_NIL && !--m->gact[g])
        for (uint32_t i = m->goff[g]; i < m->goff[g + 1]; i++)
            mark_link_dirty(m, m->gpath[i]);
    /* a flow started and stopped before an update must not stay in added */
    for (uint32_t i = 0; i < m->n_added; i++)
        if (m->added[i] == f) {
            m->added[i] = m->added[--m->n_added];
            break;
        }
}

/* ---- one update ------------------------------------------------------- */

/* Whether link l is in T (touched this update). */
static int in_t(const struct mm *m, uint32_t l)
{
    return (int)(m->tin[l >> 6] >> (l & 63)) & 1;
}

static void touch_link(struct mm *m, uint32_t lid)
{
    if (!in_t(m, lid)) {
        struct mm_link *l = &m->links[lid];
        m->tin[lid >> 6] |= UINT64_C(1) << (lid & 63);
        if (!m->sdirect) /* the shared record until a flow of A is here */
            l->tix = m->nl;
        m->tl[m->n_tl++] = lid;
        snapshot(l, m->epoch);
        struct mm_scr *x = mm_scr_of(m, lid);
        x->na = 0;
        x->aprev = 0;
        m->lside[lid].froze = 0;
        x->level = -1;
    }
}

/* Put flow f into A (its rate will be recomputed) and its links into T. */
static void affect(struct mm *m, uint32_t f)
{
    if (m->fbits[f] & MM_IN_A)
        return;
    m->fbits[f] |= MM_IN_A;
    struct mm_flow *fl = &m->flows[f];
    m->aff_rate[m->n_aff] = fl->rate;
    m->aff[m->n_aff++] = f;
    for (uint32_t i = 0, np = mm_np(m, f), p0 = mm_poff(m, f); i < np; i++) {
        uint32_t lid = m->path[p0 + i];
        touch_link(m, lid);
        struct mm_link *l = &m->links[lid];
        if (!m->sdirect && l->tix == m->nl) { /* its own record, as the shared one reads */
            l->tix = m->n_scr++;
            m->scr[l->tix] = (struct mm_scr){.level = -1};
        }
        struct mm_scr *x = mm_scr_of(m, lid);
        x->na++;
        x->aprev += mm_w(m, p0 + i) * fl->rate;
    }
}

/* Add to A the flows bottlenecked on l that are not in it yet. */
static uint32_t affect_bottlenecked(struct mm *m, const struct mm_link *l)
{
    uint32_t added = 0;
    for (uint32_t f = l->bhead; f != MM_NIL; f = m->flows[f].bnext)
        if (!(m->fbits[f] & MM_IN_A)) {
            affect(m, f);
            added++;
        }
    return added;
}

/* The weight of path entry pe where unit says weights are all 1 (pw NULL):
 * a constant in the copies of the per-entry loops made for it, so they
 * neither test pw nor multiply (x 1.0 and / 1.0 change no double). */
#define MM_W(m, unit, pe) ((unit) ? 1.0 : (m)->pw[pe])

static inline __attribute__((always_inline)) void freeze_w(struct mm *m, uint32_t f, double rate,
                                                           uint32_t bott, int unit)
{
    struct mm_flow *fl = &m->flows[f];
    m->fbits[f] |= MM_FROZEN;
    fl->rate = rate;
    bott_set(m, f, bott);
    if (bott < m->nl)
        m->lside[bott].froze++;
    /* the heap keys of its links only grow: fill() refreshes them lazily */
    for (uint32_t i = 0, np = mm_np(m, f), p0 = mm_poff(m, f); i < np; i++) {
        uint32_t lid = m->path[p0 + i];
        struct mm_scr *l = mm_scr_of(m, lid);
        double w = MM_W(m, unit, p0 + i);
        l->rem -= w * rate;
        l->wun = --l->unfrozen ? l->wun - w : 0;
        l->acc += w * rate;
        if (rate > l->amax)
            l->amax = rate;
        if (lid != bott && rate > l->amax_other)
            l->amax_other = rate;
    }
}

static void freeze(struct mm *m, uint32_t f, double rate, uint32_t bott)
{
    if (m->pw)
        freeze_w(m, f, rate, bott, 0);
    else
        freeze_w(m, f, rate, bott, 1);
}

static void gflush(struct mm *m);

/* The water-filling heap's next step, taken out of it: 1 with *id a flow's
 * cap (nl + flow) not yet frozen, or a link with unfrozen flows whose level
 * (*level) is the lowest; 0 when it is empty. A key is a lower bound of the
 * level at which its link fills (freezing a flow at the water level never
 * lowers rem / wun): it is refreshed when it reaches the top, and only a
 * fresh minimum is acted on. With groups their pending freezes reach a
 * link before it is read. */
static int heap_next(struct mm *m, uint32_t *id, double *level)
{
    const struct heap_entry *top;
    while ((top = cq_top(&m->heap))) {
        uint32_t i = top->id;
        if (i >= m->nl) {
            cq_pop(&m->heap); /* the top */
            if (m->fbits[i - m->nl] & MM_FROZEN)
                continue;
            *id = i;
            return 1;
        }
        const struct mm_scr *l = mm_scr_of(m, i);
        if (m->ng && m->n_gdirty && m->lgoff[i + 1] > m->lgoff[i])
            gflush(m);
        if (l->unfrozen == 0) {
            cq_pop(&m->heap); /* the top */
            continue;
        }
        double lv = (l->rem > 0 ? l->rem : 0) / l->wun;
        if (lv > heap_double_of(top->key)) {
            cq_put(&m->heap, i, heap_key_of(lv));
            continue;
        }
        cq_pop(&m->heap); /* the top */
        *id = i;
        *level = lv;
        return 1;
    }
    return 0;
}

/* Whether a pass over T whose links do not depend on one another goes
 * over every link record in memory order, taking those in T (mark), rather
 * than tl's order: when T is a quarter of the links or more (a burst), a
 * sweep the prefetcher follows costs less than a miss a link. Not with
 * alist, whose offsets follow tl. */
static int sweep_by_id(const struct mm *m)
{
    return !m->aoff && (uint64_t)m->n_tl * 4 >= m->nl;
}

/* fill_bounds' hint: flow f's scratch records (by id in a burst, else
 * through the link records, whose places the compact scratch follows) */
static inline void scr_prefetch(const struct mm *m, uint32_t f)
{
    if (!m->sdirect) {
        mm_links_prefetch(m, f);
        return;
    }
    for (uint32_t pe = mm_poff(m, f), end = pe + mm_np(m, f); pe < end; pe++) {
        __builtin_prefetch(&m->scr[m->path[pe]], 1);
        __asm__ __volatile__(""); /* kept: see mm_stop_prefetch */
    }
}

/* fill's pass over A: each flow's upper bound (the least its links leave
 * it, its cap), summed on its links with its weights. */
static inline __attribute__((always_inline)) void fill_bounds(struct mm *m, int unit)
{
    for (uint32_t i = 0; i < m->n_aff; i++) {
        uint32_t f = m->aff[i];
        if (i + 8 < m->n_aff) /* a burst's links are misses: fetched 8 flows ahead */
            scr_prefetch(m, m->aff[i + 8]);
        uint32_t np = mm_np(m, f), p0 = mm_poff(m, f);
        double ub = INFINITY, cap = mm_cap(m, f);
        for (uint32_t j = 0; j < np; j++) {
            const struct mm_scr *l = mm_scr_of(m, m->path[p0 + j]);
            if (l->rem < ub * MM_W(m, unit, p0 + j))
                ub = l->rem / MM_W(m, unit, p0 + j);
        }
        if (cap < ub) {
            ub = cap;
            cq_put(&m->heap, m->nl + f, heap_key_of(cap));
        }
        for (uint32_t j = 0; j < np; j++) {
            struct mm_scr *l = mm_scr_of(m, m->path[p0 + j]);
            l->acc += MM_W(m, unit, p0 + j) * ub;
            l->wun += MM_W(m, unit, p0 + j);
            if (!unit && m->alist) { /* lists only with weights */
                uint32_t *ao = &m->aoff[2 * m->path[p0 + j]];
                m->alist[ao[0] + ao[1]++] = f;
            }
        }
    }
}

/* Progressive filling of A over what the fixed flows leave on T's links:
 * their load is the link's load less A's old rates, no scan needed. */
static void fill(struct mm *m)
{
    for (uint32_t i = 0; i < m->n_aff; i++) {
        uint32_t f = m->aff[i];
        bott_set(m, f, MM_NONE);
        m->fbits[f] = MM_IN_A;
    }
    uint32_t off = 0, by_id = sweep_by_id(m), nt = by_id ? m->nl : m->n_tl;
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t lid = by_id ? i : m->tl[i];
        if (by_id && !in_t(m, lid))
            continue;
        const struct mm_link *k = &m->links[lid];
        struct mm_scr *l = mm_scr_of(m, lid);
        double free = k->cap - (k->load - l->aprev);
        l->unfrozen = l->na;
        l->wun = 0;
        m->lside[by_id ? i : m->tl[i]].froze = 0;
        l->rem = free > 0 ? free : 0;
        l->level = -1;
        l->acc = 0; /* first the sum of upper bounds, then of the new rates */
        if (m->aoff) {
            m->aoff[2 * m->tl[i]] = off;
            m->aoff[2 * m->tl[i] + 1] = 0;
        }
        off += l->na;
    }
    /* A link where A's flows could not fill it even at the most each can get
     * (its cap, the residual of every link it crosses) never binds: keep it
     * out of the heap. Most links of a burst are such (writer NICs, uplinks).
     * Likewise a cap above what the links leave the flow. */
    if (m->pw)
        fill_bounds(m, 0);
    else
        fill_bounds(m, 1);
    /* the queue's order is total: any order in. A burst's links, swept by
     * id (ascending, as a collection takes them), go to the sorted run */
    int coll = by_id && cq_collect_begin(&m->heap, m->n_tl);
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t lid = by_id ? i : m->tl[i];
        if (by_id && !in_t(m, lid))
            continue;
        struct mm_scr *l = mm_scr_of(m, lid);
        if (l->na && l->acc >= l->rem * (1 - 1e-12)) {
            if (coll)
                cq_collect(&m->heap, lid, heap_key_of(l->rem / l->wun));
            else
                cq_put(&m->heap, lid, heap_key_of(l->rem / l->wun));
        }
        l->acc = l->amax = l->amax_other = 0;
    }
    if (coll) {
        cq_collect_close(&m->heap);
        for (uint32_t lid = 0; lid < m->nl; lid++) /* the same order: ids not collected pass */
            cq_settle(&m->heap, lid);
        cq_collect_end(&m->heap);
    }
    uint32_t id;
    double level;
    while (heap_next(m, &id, &level)) {
        if (id >= m->nl) { /* its key: the cap, pushed above */
            freeze(m, id - m->nl, mm_cap(m, id - m->nl), MM_CAP);
            continue;
        }
        const struct mm_link *lk = &m->links[id];
        struct mm_scr *l = mm_scr_of(m, id);
        l->level = level;
        if (m->alist) {
            for (uint32_t k = m->aoff[2 * id]; k < m->aoff[2 * id] + l->na && l->unfrozen; k++)
                if (!(m->fbits[m->alist[k]] & MM_FROZEN))
                    freeze(m, m->alist[k], level, id);
            continue;
        }
        for (uint32_t j = lk->off, end = lk->off + lk->n; j < end && l->unfrozen; j++) {
            /* a long list's flows and their links are misses: fetched
             * ahead in two stages (a flow's record and path, then links) */
            if (j + 16 < end)
                mm_stop_prefetch(m, mm_lflow(m, j + 16), 0);
            if (j + 8 < end)
                scr_prefetch(m, mm_lflow(m, j + 8));
            uint32_t f = mm_lflow(m, j);
            if (m->fbits[f] == MM_IN_A) /* in A, not frozen */
                freeze(m, f, level, id);
        }
    }
    m->rounds++;
}

/* Add to A every fixed flow that breaks the bottleneck condition given A's
 * new rates. Returns how many were added. */
static uint32_t validate(struct mm *m)
{
    uint32_t added = 0, nt = m->n_tl; /* links added meanwhile are checked next round */
    if (m->n_aff == m->n_active)
        return 0; /* every active flow in A: no fixed flow anywhere */
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t lid = m->tl[i];
        struct mm_link *l = &m->links[lid];
        const struct mm_scr *s = mm_scr_of(m, lid);
        if (l->n == s->na)
            continue; /* no fixed flow here */
        int fixed_bott = l->nbott > m->lside[lid].froze;
        if (s->level >= 0) {
            /* A froze here: no fixed flow may be faster */
            double x = s->level * (1 + EPS);
            if (fixed_bott && l->blevel > x)
                added += affect_bottlenecked(m, l);
            if (l->maxr > x) { /* maybe a faster flow bottlenecked elsewhere */
                double maxr = 0;
                m->scans++;
                for (uint32_t k = 0; k < l->n; k++) {
                    uint32_t f = mm_lflow(m, l->off + k);
                    const struct mm_flow *g = &m->flows[f];
                    if (g->rate > x && !(m->fbits[f] & MM_IN_A)) {
                        affect(m, f);
                        added++;
                    }
                    if (g->bott != lid && g->rate > maxr)
                        maxr = g->rate;
                }
                l->maxr = maxr;
            }
        }
        if (fixed_bott) {
            /* fixed flows bottlenecked here: still full, still the fastest */
            double load = l->load - s->aprev + s->acc;
            if (load < l->cap * (1 - EPS) || l->blevel < s->amax * (1 - EPS))
                added += affect_bottlenecked(m, l);
        }
    }
    return added;
}

/* After the last round: loads, bottleneck levels and rate bounds of T. */
static void finish(struct mm *m)
{
    uint32_t by_id = sweep_by_id(m), nt = by_id ? m->nl : m->n_tl;
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t lid = by_id ? i : m->tl[i];
        if (by_id && !in_t(m, lid))
            continue;
        struct mm_link *l = &m->links[lid];
        const struct mm_scr *s = mm_scr_of(m, lid);
        /* an exact sum where it is cheap, so round-off cannot drift */
        if (l->n == s->na) {
            l->load = s->acc;
            m->lside[lid].since_sum = 0;
        } else if (++m->lside[lid].since_sum >= 8 * l->n) { /* amortised: 1/8 read a touch */
            double load = 0;
            for (uint32_t k = 0; k < l->n; k++)
                load += slot_w(m, l->off + k) * m->flows[mm_lflow(m, l->off + k)].rate;
            l->load = load;
            m->lside[lid].since_sum = 0;
        } else {
            l->load = l->load - s->aprev + s->acc;
        }
        if (l->load > l->cap * (1 + OVER_EPS)) {
            m->over_capacity++;
            if (l->load / l->cap - 1 > m->worst_excess)
                m->worst_excess = l->load / l->cap - 1;
        }
        /* the flows bottlenecked here share the level A froze at, unless
         * fixed ones keep theirs (equal within EPS, validate checked) */
        uint32_t froze = m->lside[lid].froze;
        if (froze && l->nbott == froze)
            l->blevel = s->level;
        double maxr = l->n == s->na ? 0 : l->maxr;
        l->maxr = s->amax_other > maxr ? s->amax_other : maxr;
    }
}

/* The update is over: A empties (its flags cleared, a pass over it). */
static void a_clear(struct mm *m)
{
    for (uint32_t i = 0; i < m->n_aff; i++)
        m->fbits[m->aff[i]] &= (uint8_t)~MM_IN_A;
    for (uint32_t i = 0; i < m->n_tl; i++)
        m->tin[m->tl[i] >> 6] = 0; /* T empties: every bit of a touched word is T's */
}

/* ---- grouped: every active flow refilled ----------------------------- */

/* Flow f freezes at rate on its own links. */
static void gfreeze_own(struct mm *m, uint32_t f, double rate)
{
    struct mm_flow *fl = &m->flows[f];
    m->fbits[f] |= MM_FROZEN;
    fl->rate = rate;
    for (uint32_t i = mm_poff(m, f), e = i + mm_np(m, f); i < e; i++) {
        struct mm_scr *l = mm_scr_of(m, m->path[i]);
        double w = mm_w(m, i);
        l->rem -= w * rate;
        l->wun = --l->unfrozen ? l->wun - w : 0;
    }
}

/* Flow f freezes at rate alone: its group's links take it at the next
 * flush (gflush), before one of them is read. */
static void gfreeze(struct mm *m, uint32_t f, double rate)
{
    gfreeze_own(m, f, rate);
    uint32_t g = m->fgroup[f];
    if (g == MM_NIL)
        return;
    m->gun[g]--;
    if (!m->gdu[g]++)
        m->gdirty[m->n_gdirty++] = g;
    m->gdr[g] += rate;
}

/* Bring the links of groups with members frozen since the last flush up to
 * date: each group's links once, however many of its members froze. */
static void gflush(struct mm *m)
{
    for (uint32_t k = 0; k < m->n_gdirty; k++) {
        uint32_t g = m->gdirty[k];
        for (uint32_t i = m->goff[g]; i < m->goff[g + 1]; i++) {
            struct mm_scr *l = mm_scr_of(m, m->gpath[i]);
            l->rem -= m->gw[i] * m->gdr[g];
            l->unfrozen -= m->gdu[g];
            l->wun = l->unfrozen ? l->wun - m->gw[i] * m->gdu[g] : 0;
        }
        m->gdu[g] = 0;
        m->gdr[g] = 0;
    }
    m->n_gdirty = 0;
}

/* Every unfrozen member of group g freezes at rate (a link of g filled):
 * their own links one by one, g's links once for all of them. */
static void gfreeze_group(struct mm *m, uint32_t g, double rate)
{
    uint32_t k = 0;
    for (uint32_t i = m->gmoff[g]; i < m->gmoff[g + 1]; i++) {
        uint32_t f = m->gmem[i];
        if (!(m->fbits[f] & MM_FROZEN)) {
            gfreeze_own(m, f, rate);
            k++;
        }
    }
    m->gun[g] = 0;
    for (uint32_t i = m->goff[g]; i < m->goff[g + 1]; i++) {
        struct mm_scr *l = mm_scr_of(m, m->gpath[i]);
        l->rem -= m->gw[i] * rate * k;
        l->unfrozen -= k;
        l->wun = l->unfrozen ? l->wun - m->gw[i] * k : 0;
    }
}

/* Progressive filling of every active flow, groups counted by members
 * (mm_init_groups); afterwards the exact loads of every link touched. */
static void gupdate(struct mm *m)
{
    uint32_t ng = m->ng;
    for (uint32_t i = 0; i < m->n_dirty; i++)
        touch_link(m, m->dirty[i]);
    m->n_added = m->n_dirty = m->n_shrunk = 0;
    m->dmark_epoch++;
    memset(m->gun, 0, ((size_t)ng + 1) * sizeof *m->gun);
    for (uint32_t a = 0; a < m->n_active; a++) {
        uint32_t f = m->active[a];
        m->aff_rate[m->n_aff] = m->flows[f].rate;
        m->fbits[f] = MM_IN_A;
        m->aff[m->n_aff++] = f;
        for (uint32_t i = mm_poff(m, f), e = i + mm_np(m, f); i < e; i++)
            touch_link(m, m->path[i]);
        if (m->fgroup[f] != MM_NIL)
            m->gun[m->fgroup[f]]++;
    }
    /* members by group, in the order of active */
    uint32_t off = 0;
    for (uint32_t g = 0; g < ng; g++) {
        m->gmoff[g] = off;
        off += m->gun[g];
        for (uint32_t i = m->goff[g]; m->gun[g] && i < m->goff[g + 1]; i++)
            touch_link(m, m->gpath[i]);
    }
    m->gmoff[ng] = off;
    for (uint32_t a = 0; a < m->n_active; a++) {
        uint32_t f = m->active[a], g = m->fgroup[f];
        if (g != MM_NIL)
            m->gmem[m->gmoff[g + 1] - m->gun[g]--] = f; /* counts down to 0 */
    }
    for (uint32_t g = 0; g < ng; g++)
        m->gun[g] = m->gmoff[g + 1] - m->gmoff[g];
    for (uint32_t i = 0; i < m->n_tl; i++) {
        struct mm_scr *l = mm_scr_of(m, m->tl[i]);
        l->rem = m->links[m->tl[i]].cap;
        l->wun = 0;
        l->unfrozen = 0;
    }
    for (uint32_t a = 0; a < m->n_active; a++) {
        uint32_t f = m->active[a];
        for (uint32_t i = mm_poff(m, f), e = i + mm_np(m, f); i < e; i++) {
            mm_scr_of(m, m->path[i])->wun += mm_w(m, i);
            mm_scr_of(m, m->path[i])->unfrozen++;
        }
    }
    for (uint32_t g = 0; g < ng; g++)
        for (uint32_t i = m->goff[g]; m->gun[g] && i < m->goff[g + 1]; i++) {
            mm_scr_of(m, m->gpath[i])->wun += m->gw[i] * m->gun[g];
            mm_scr_of(m, m->gpath[i])->unfrozen += m->gun[g];
        }
    for (uint32_t i = 0; i < m->n_tl; i++) {
        const struct mm_scr *l = mm_scr_of(m, m->tl[i]);
        if (l->unfrozen)
            cq_put(&m->heap, m->tl[i], heap_key_of(l->rem / l->wun));
    }
    for (uint32_t a = 0; m->fcap && a < m->n_active; a++)
        if (m->fcap[m->active[a]] != INFINITY)
            cq_put(&m->heap, m->nl + m->active[a], heap_key_of(m->fcap[m->active[a]]));
    uint32_t id;
    double level;
    while (heap_next(m, &id, &level)) {
        if (id >= m->nl) {
            gfreeze(m, id - m->nl, m->fcap[id - m->nl]);
            continue;
        }
        const struct mm_link *l = &m->links[id];
        mm_scr_of(m, id)->level = level;
        for (uint32_t k = l->off; k < l->off + l->n; k++)
            if (!(m->fbits[mm_lflow(m, k)] & MM_FROZEN))
                gfreeze(m, mm_lflow(m, k), level);
        for (uint32_t k = m->lgoff[id]; k < m->lgoff[id + 1]; k++)
            if (m->gun[m->lgrp[k]])
                gfreeze_group(m, m->lgrp[k], level);
    }
    gflush(m);
    m->rounds++;
    m->full_refills++;
    /* exact loads: own entries, then each group's sum of rates once */
    for (uint32_t i = 0; i < m->n_tl; i++)
        m->links[m->tl[i]].load = 0;
    for (uint32_t a = 0; a < m->n_active; a++) {
        uint32_t f = m->active[a];
        for (uint32_t i = mm_poff(m, f), e = i + mm_np(m, f); i < e; i++)
            m->links[m->path[i]].load += mm_w(m, i) * m->flows[f].rate;
    }
    for (uint32_t g = 0; g < ng; g++) {
        double sum = 0;
        for (uint32_t i = m->gmoff[g]; i < m->gmoff[g + 1]; i++)
            sum += m->flows[m->gmem[i]].rate;
        for (uint32_t i = m->goff[g]; sum > 0 && i < m->goff[g + 1]; i++)
            m->links[m->gpath[i]].load += m->gw[i] * sum;
    }
    for (uint32_t i = 0; i < m->n_tl; i++) {
        struct mm_link *l = &m->links[m->tl[i]];
        if (l->load > l->cap * (1 + OVER_EPS)) {
            m->over_capacity++;
            if (l->load / l->cap - 1 > m->worst_excess)
                m->worst_excess = l->load / l->cap - 1;
        }
    }
    m->refilled += m->n_aff;
    a_clear(m);
}

void mm_update(struct mm *m)
{
    m->epoch++;
    m->n_aff = m->n_tl = m->n_aff_zero = m->n_scr = 0;
    /* the starts since the last update; from now on, active's tail again */
    const uint32_t *add = m->add_tail ? m->active + m->add_from : m->added;
    m->aff = m->added;
    m->add_tail = 1;
    m->add_from = m->n_active;
    if (!m->n_dirty && !m->n_added && !m->n_shrunk)
        return;
    m->updates++;
    int burst = m->starts_only && m->n_added == m->n_active;
    if (m->slots_lazy && (m->ng || !burst))
        slots_fill(m);
    /* a grouped update refills everything: its scratch by link id */
    m->sdirect = m->ng != 0;
    if (m->ng) {
        gupdate(m);
        return;
    }
    /* a burst's T is most links (every one its flows cross): scratch by
     * link id, read in memory order by the sweeps and with no indirection
     * per path entry; any other update's packed (mm.n_scr) */
    m->sdirect = burst;
    if (burst) {
        /* every active flow has just started (rate 0, bottlenecked
         * nowhere): A is all of them, and the links in dirty, in the order
         * affect would touch them (first seen along the flows in start
         * order), carry only flows of A. Two passes in order instead of
         * each flow's links at random. */
        for (uint32_t i = 0; i < m->n_added; i++)
            m->fbits[add[i]] |= MM_IN_A;
        m->aff = (uint32_t *)add; /* active's array: A is every active flow */
        m->n_aff = m->n_added;
        m->n_aff_zero = m->n_added; /* their rates were 0: aff_rate not written */
        for (uint32_t i = 0; i < m->n_dirty; i++) {
            if (i + 16 < m->n_dirty) { /* random records and scratch, ahead */
                __builtin_prefetch(&m->links[m->dirty[i + 16]], 1);
                __builtin_prefetch(&m->scr[m->dirty[i + 16]], 1);
            }
            touch_link(m, m->dirty[i]);
            m->scr[m->dirty[i]].na = m->links[m->dirty[i]].n;
        }
    } else {
        for (uint32_t i = 0; i < m->n_added; i++)
            affect(m, add[i]);
    }
    m->starts_only = 1;
    /* a burst's links carry no bottlenecked flow (every active one has just
     * started, and a stop leaves its list): all of them touched above */
    for (uint32_t i = 0; !burst && i < m->n_dirty; i++) {
        touch_link(m, m->dirty[i]);
        affect_bottlenecked(m, &m->links[m->dirty[i]]);
    }
    for (uint32_t i = 0; i < m->n_shrunk; i++) {
        const struct mm_link *l = &m->links[m->shrunk[i]];
        for (uint32_t k = 0; k < l->n; k++)
            affect(m, mm_lflow(m, l->off + k));
    }
    m->n_added = m->n_dirty = m->n_shrunk = 0;
    m->dmark_epoch++;
    for (;;) {
        fill(m);
        if (!validate(m))
            break;
        if (m->n_aff * 2 > m->n_active && m->n_aff < m->n_active) {
            /* most of the network moves: refill all of it, nothing is fixed */
            for (uint32_t i = 0; i < m->n_active; i++)
                affect(m, m->active[i]);
            m->full_refills++;
        }
    }
    m->refilled += m->n_aff;
    finish(m);
    a_clear(m);
    /* a burst wrote every link's scratch, later updates write as far as
     * their T reaches: the rest goes back to the system now */
    if (burst)
        arena_discard(m->arena, m->scr, (size_t)m->nl * sizeof *m->scr);
    /* its slots only now, on the pages the scratch left: not resident
     * together with it */
    if (m->slots_lazy)
        slots_fill(m);
}

/* Link l's load from its flows' rates, and the fastest of them (max). */
static double check_load(const struct mm *m, uint32_t l, double *max)
{
    const struct mm_link *k = &m->links[l];
    double load = 0, top = 0;
    for (uint32_t i = 0; i < k->n; i++) {
        double r = m->flows[mm_lflow(m, k->off + i)].rate;
        load += slot_w(m, k->off + i) * r;
        top = r > top ? r : top;
    }
    for (uint32_t j = m->ng ? m->lgoff[l] : 0; m->ng && j < m->lgoff[l + 1]; j++) {
        uint32_t g = m->lgrp[j], e = m->goff[g];
        while (m->gpath[e] != l)
            e++;
        for (uint32_t a = 0; a < m->n_active; a++) {
            double r = m->flows[m->active[a]].rate;
            if (m->fgroup[m->active[a]] == g) {
                load += m->gw[e] * r;
                top = r > top ? r : top;
            }
        }
    }
    if (max)
        *max = top;
    return load;
}

int mm_check(const struct mm *m, double tol, char *msg, unsigned len)
{
    for (uint32_t l = 0; l < m->nl; l++) {
        const struct mm_link *k = &m->links[l];
        double load = check_load(m, l, NULL);
        if (load > k->cap * (1 + tol)) {
            snprintf(msg, len, "link %u: load %.17g above capacity %.17g", l, load, k->cap);
            return (int)l + 1;
        }
    }
    for (uint32_t a = 0; a < m->n_active; a++) {
        uint32_t f = m->active[a];
        const struct mm_flow *fl = &m->flows[f];
        double cap = mm_cap(m, f);
        if (fl->rate > cap * (1 + tol)) {
            snprintf(msg, len, "flow %u: rate %.17g above its cap %.17g", f, fl->rate, cap);
            return (int)f + 1;
        }
        int ok = fl->rate >= cap * (1 - tol);
        uint32_t g = m->ng ? m->fgroup[f] : MM_NIL, ng = g == MM_NIL ? 0 : m->goff[g + 1] - m->goff[g];
        for (uint32_t i = 0, np = mm_np(m, f); i < np + ng && !ok; i++) {
            uint32_t lid = i < np ? m->path[mm_poff(m, f) + i] : m->gpath[m->goff[g] + i - np];
            double max = 0, load = check_load(m, lid, &max);
            ok = load >= m->links[lid].cap * (1 - tol) && fl->rate >= max * (1 - tol);
        }
        if (!ok) {
            snprintf(msg, len, "flow %u: rate %.17g has no bottleneck", f, fl->rate);
            return (int)f + 1;
        }
    }
    if (len)
        msg[0] = '\0';
    return 0;
}
