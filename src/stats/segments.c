/* Bottleneck attribution by path segment.
 *
 * Each segment gets its capacity, the bytes it carried, how busy it and its
 * busiest element were, and the completion it alone allows (its bound).
 * The verdict names the segment whose busiest element spent the largest
 * share of the completion time at capacity: a bottleneck runs flat out while
 * PFC idles what feeds it and starves what follows it. Below half busy
 * nothing was saturated and the segment with the highest bound is named
 * (start offsets, a policy's rate caps). docs/report.md has the rules. */
#include "segments.h"

#include <stdlib.h>
#include <string.h>

#include "../core/arena.h"
#include "../core/units.h"
#include "../scenario/catalog.h"
#include "bound.h"

static double ps_s(uint64_t ps)
{
    return (double)ps / (double)PS_PER_S;
}

static double ser_s(double bytes, double bps)
{
    return bps > 0 ? bytes * 8.0 / bps : 0;
}

/* Capacity and element count of the links of every topology segment, in
 * one pass over the ports (f[0..PATH_COUNT), zeroed). */
static void seg_links(const struct topo *t, struct seg_figures *f)
{
    for (uint32_t p = 0; p < t->n_ports; p++) {
        enum path_seg sg = t->ports[p].seg;
        if ((unsigned)sg >= PATH_COUNT)
            continue;
        struct seg_figures *g = &f[sg];
        g->elements++;
        g->cap_bps += (double)t->ports[p].bps;
        if ((double)t->ports[p].bps > g->elem_bps)
            g->elem_bps = (double)t->ports[p].bps;
    }
}

/* Staged storage nodes: which stage the bottleneck segment is (the NIC,
 * or the back end's host, cache or media); STAGE_NONE for the fabric. */
static int bottleneck_stage(const struct results *r, const struct workload *w,
                            const struct scenario *sc, int seg)
{
    if (!sc->storage.staged)
        return STAGE_NONE;
    if (seg == PATH_STORAGE_NIC)
        return STAGE_NIC;
    if (seg != PATH_BACKEND)
        return STAGE_NONE;
    if (w->restore)
        return sc->storage.read_stage;
    return r->segs[PATH_BACKEND].elem_bps < (double)sc->storage.drain_bps ? sc->storage.slow_stage
                                                                          : sc->storage.fast_stage;
}

/* Host path and writer NIC: per capped transfer, and per source NIC, the
 * time from the first start to the last byte at capacity (as bound.c). */
/* What every transfer carries, summed in transfer order by writer_side's
 * pass: wire bytes in all, between leaves, between pods; payload. */
struct carried {
    double wire, cross, xpod, payload;
};

static void writer_side(struct results *r, const struct topo *t, const struct workload *w,
                        const struct scenario *sc, double T, struct carried *c)
{
    struct seg_figures *h = &r->segs[PATH_HOST], *nic = &r->segs[PATH_WRITER_NIC];
    uint32_t nh = t->first_storage;
    /* from 65,536 hosts on 2 MB pages: at 100,000, 1.6 MB in 4 KB pages
     * took ~400 faults */
    struct arena mem;
    arena_init(&mem);
    mem.huge = nh >= 65536;
    double *nb = arena_calloc(&mem, nh ? nh : 1, sizeof *nb);
    uint64_t *ns = arena_calloc(&mem, nh ? nh : 1, sizeof *ns);
    uint64_t start0 = UINT64_MAX, last_start = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t st = workload_start(w, i);
        start0 = st < start0 ? st : start0;
        last_start = st > last_start ? st : last_start;
    }
    r->bottleneck.start_spread_s = w->n ? ps_s(last_start - start0) : 0;
    for (uint32_t i = 0; ns && i < nh; i++)
        ns[i] = UINT64_MAX;
    double h_end = 0, h_need = 0, nic_end = 0, nic_need = 0, h_best_cap = 0;
    struct wire_fmt wf = scenario_wire(sc);
    uint64_t last_bytes = 0, wb = 0; /* a workload repeats one size: its division once */
    *c = (struct carried){0, 0, 0, 0};
    for (uint32_t i = 0; i < w->n; i++) {
        const struct transfer *x = &w->xfers[i];
        if (x->bytes != last_bytes || !i) {
            last_bytes = x->bytes;
            wb = wire_bytes(x->bytes, wf);
        }
        c->wire += (double)wb;
        c->payload += (double)x->bytes;
        uint32_t sl = t->nodes[x->src].leaf, dl = t->nodes[x->dst].leaf;
        if (sl != dl)
            c->cross += (double)wb;
        if (t->nodes[sl].pod != t->nodes[dl].pod)
            c->xpod += (double)wb; /* three tiers: through a super-spine */
        if (!nb || !ns || x->feed)
            continue; /* a replica forward leaves a storage NIC */
        uint64_t line = t->ports[t->nodes[x->src].first_port].bps;
        double off = ps_s(workload_start(w, i) - start0);
        uint64_t cap = workload_rate(w, i);
        if (cap && cap < line) {
            uint64_t last = (x->bytes % wf.payload ? x->bytes % wf.payload : wf.payload) +
                            wf.overhead;
            double need = ser_s((double)(wb - last), (double)cap) +
                          ser_s((double)last, (double)line);
            h->applies = 1;
            h->elements++;
            h->cap_bps += (double)cap;
            h->bytes += (double)wb;
            if (need > h_need) {
                h_need = need;
                h_best_cap = (double)cap;
            }
            h_end = off + need > h_end ? off + need : h_end;
        } else {
            double need = ser_s((double)wb, (double)line);
            nic_end = off + need > nic_end ? off + need : nic_end;
        }
        /* a compute node's NIC: what it sends, or on a restore receives */
        uint32_t hn = w->restore ? x->dst : x->src;
        if (hn < nh) {
            nb[hn] += (double)wb;
            ns[hn] = workload_start(w, i) < ns[hn] ? workload_start(w, i) : ns[hn];
        }
    }
    for (uint32_t i = 0; nb && ns && i < nh; i++) {
        if (!nb[i])
            continue;
        double need = ser_s(nb[i], (double)t->ports[t->nodes[i].first_port].bps);
        nic_need = need > nic_need ? need : nic_need;
        double end = ps_s(ns[i] - start0) + need;
        nic_end = end > nic_end ? end : nic_end;
    }
    arena_release(&mem);
    double base = r->base_latency_s;
    if (h->applies) {
        h->elem_bps = h_best_cap;
        h->need_s = h_need;
        h->saturated_s = h_need; /* at its cap whenever it had bytes to send */
        h->bound_s = h_end + base;
        h->util = T > 0 && h->cap_bps > 0 ? ser_s(h->bytes, h->cap_bps) / T : 0;
        h->max_util = T > 0 ? h_need / T : 0;
    }
    nic->need_s = nic_need;
    nic->bound_s = nic_end + base;
}

void segments_compute(struct results *r, const struct topo *t,
                      const struct workload *w, const struct scenario *sc)
{
    double T = r->completion_s, base = r->base_latency_s;
    memset(r->segs, 0, sizeof r->segs);
    struct carried c;
    writer_side(r, t, w, sc, T, &c);
    double wire_total = c.wire, cross = c.cross, xpod = c.xpod;

    /* the four link segments: each is a link set and a bound term */
    struct seg_figures links[PATH_COUNT];
    memset(links, 0, sizeof links);
    seg_links(t, links);
    for (int s = PATH_WRITER_NIC; s <= PATH_STORAGE_NIC; s++) {
        struct seg_figures *f = &r->segs[s];
        if (!path_seg_shown(s, t->tiers))
            continue; /* a level this fabric lacks */
        f->applies = 1;
        f->elements = links[s].elements;
        f->cap_bps = links[s].cap_bps;
        f->elem_bps = links[s].elem_bps;
        /* what the engine counted on the wires (resends included), or
         * what the transfers must carry */
        f->bytes = r->has_packet_stats ? (double)r->seg_tx_bytes[s]
                                       : (s == PATH_WRITER_NIC || s == PATH_STORAGE_NIC ? wire_total
                                          : s == PATH_SPINE_UP || s == PATH_SUPER_DOWN ? xpod
                                                                                   : cross);
        f->util = T > 0 && f->cap_bps > 0 ? ser_s(f->bytes, f->cap_bps) / T : 0;
        if (r->has_link_stats) {
            f->max_util = r->link_util_max[s];
            f->saturated_s = r->link_full_max_s[s];
        } else {
            f->max_util = f->util;
            f->saturated_s = f->util * T;
        }
        /* links go on serialising resent duplicates after the last byte
         * lands: only the write's span is a share of the write */
        f->util = f->util > 1 ? 1 : f->util;
        f->max_util = f->max_util > 1 ? 1 : f->max_util;
        f->saturated_s = f->saturated_s > T ? T : f->saturated_s;
        f->paused_s = r->has_packet_stats ? r->seg_paused_s[s] : 0;
        if (s != PATH_WRITER_NIC) {
            f->need_s = r->bound_term_s[s];
            f->bound_s = f->need_s + base;
        }
    }

    /* the storage back end: each node drains its payload at drain_rate */
    struct seg_figures *b = &r->segs[PATH_BACKEND];
    /* a restore's back end is its read side (restore.read_rate) */
    uint64_t be_bps = w->restore ? sc->restore.read_bps : sc->storage.drain_bps;
    if (be_bps) {
        b->applies = 1;
        uint32_t k = sc->storage.nics_per_node > 1 ? sc->storage.nics_per_node : 1;
        b->elements = t->n_storage / k; /* one a node, whatever its NICs */
        b->elem_bps = (double)be_bps;
        /* a write cache the busiest node overflows: its media's pace */
        uint64_t ck = sc->storage.cache_bytes, m = sc->storage.media_bps, f = sc->storage.drain_bps;
        if (!w->restore && ck && m && m < f &&
            (double)r->plan.node_max_bytes > (double)ck * (double)f / (double)(f - m))
            b->elem_bps = (double)m;
        b->cap_bps = b->elem_bps * b->elements;
        b->bytes = c.payload;
        b->need_s = r->bound_term_s[PATH_BACKEND];
        b->saturated_s = b->need_s; /* it drains at its rate while it holds bytes */
        b->bound_s = b->need_s + base;
        b->util = T > 0 ? ser_s(b->bytes, b->cap_bps) / T : 0;
        b->util = b->util > 1 ? 1 : b->util; /* a write cache absorbed faster */
        b->max_util = T > 0 ? b->need_s / T : 0;
    }
    for (int s = 0; s < PATH_COUNT; s++)
        r->segs[s].imbalance = r->segs[s].util > 0 ? r->segs[s].max_util / r->segs[s].util : 0;

    /* verdict: the busiest; near ties (2 points) go to the higher bound */
    struct bottleneck *v = &r->bottleneck;
    int best = -1;
    for (int s = 0; s < PATH_COUNT; s++) {
        const struct seg_figures *f = &r->segs[s];
        if (!f->applies)
            continue;
        if (best < 0 || f->max_util > r->segs[best].max_util + 0.02 ||
            (f->max_util > r->segs[best].max_util - 0.02 && f->bound_s > r->segs[best].bound_s))
            best = s;
    }
    if (best >= 0 && r->segs[best].max_util < 0.5) {
        /* nothing ran flat out: whatever bounds the completion most */
        for (int s = 0; s < PATH_COUNT; s++)
            if (r->segs[s].applies && r->segs[s].bound_s > r->segs[best].bound_s)
                best = s;
    }
    v->seg = best;
    v->next_seg = -1;
    v->stage = bottleneck_stage(r, w, sc, best);
    v->backend_stage = r->segs[PATH_BACKEND].applies ? bottleneck_stage(r, w, sc, PATH_BACKEND)
                                                     : STAGE_NONE;
    v->resent = r->ckpt_bytes ? (double)r->retx_bytes / (double)r->ckpt_bytes : 0;
    if (best < 0)
        return;
    const struct seg_figures *bf = &r->segs[best];
    for (int s = 0; s < PATH_COUNT; s++)
        if (s != best && r->segs[s].applies &&
            (v->next_seg < 0 || r->segs[s].bound_s > r->segs[v->next_seg].bound_s))
            v->next_seg = s;
    v->util = bf->max_util;
    v->excess = bf->bound_s > 0 ? T / bf->bound_s - 1 : 0;
    v->removed_s = v->next_seg >= 0 ? r->segs[v->next_seg].bound_s : base;
    if (v->removed_s > T)
        v->removed_s = T;
    /* doubling halves its transfer time; the fabric's overhead over the
     * bound is assumed to scale with it */
    double half = bf->bound_s - bf->need_s / 2;
    double est = bf->bound_s > 0 ? T * half / bf->bound_s : T;
    v->doubled_s = est > v->removed_s ? est : v->removed_s;
    if (v->doubled_s > T)
        v->doubled_s = T;
}
