/* The packet engine's event loop, set-up and the results it reports. */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/rng.h"
#include "../core/units.h"
#include "pnet.h"

#define PKT_SLAB 4096

struct packet *pnet_pkt_alloc(struct pnet *n)
{
    if (!n->free_pkts) {
        struct packet *slab = arena_calloc(&n->arena, PKT_SLAB, sizeof *slab);
        if (!slab)
            return NULL;
        for (int i = PKT_SLAB - 1; i >= 0; i--)
            pnet_pkt_free(n, &slab[i]);
        n->pkts_allocated += PKT_SLAB;
    }
    struct packet *p = n->free_pkts;
    n->free_pkts = p->next;
    return p;
}

int pnet_schedule(struct pnet *n, uint64_t t, enum ev_type type, void *obj,
                  uint32_t arg)
{
    if (evq_push(&n->q, t, type, obj, arg) < 0)
        return -1;
    if (evq_len(&n->q) > n->max_pending)
        n->max_pending = evq_len(&n->q);
    return 0;
}

static int setup(struct pnet *n, const struct scenario *sc,
                 const struct topo *t, const struct workload *w, struct err *e)
{
    memset(n, 0, sizeof *n);
    n->sc = sc;
    n->topo = t;
    n->first_tx_ps = UINT64_MAX;
    evq_init(&n->q);
    arena_init(&n->arena);
    n->ports = arena_calloc(&n->arena, t->n_ports, sizeof *n->ports);
    n->sws = arena_calloc(&n->arena, t->n_switches, sizeof *n->sws);
    n->nics = arena_calloc(&n->arena, t->first_cleaf, sizeof *n->nics);
    n->flows = arena_calloc(&n->arena, w->n ? w->n : 1, sizeof *n->flows);
    if (!n->ports || !n->sws || !n->nics || !n->flows)
        return err_set(e, "out of memory setting up the packet engine");
    for (uint32_t i = 0; i < t->n_ports; i++) {
        struct port *p = &n->ports[i];
        p->bps = t->ports[i].bps;
        p->delay_ps = t->ports[i].delay_ps;
        p->node = t->ports[i].node;
        p->peer = t->ports[i].peer;
        p->is_host = p->node < t->first_cleaf;
    }
    struct rng ecmp;
    rng_init(&ecmp, sc->seed, RNG_ECMP);
    for (uint32_t s = 0; s < t->n_switches; s++) {
        n->sws[s].buffer = sc->fabric.buffer_bytes;
        n->sws[s].latency_ps = sc->fabric.switch_latency_ps;
        n->sws[s].seed = rng_u64(&ecmp);
    }
    n->n_flows = w->n;
    n->n_writers = w->n_writers;
    for (uint32_t i = 0; i < w->n; i++) {
        struct flow *f = &n->flows[i];
        const struct transfer *x = &w->xfers[i];
        f->id = i;
        f->src = x->src;
        f->dst = x->dst;
        f->sport = x->sport;
        f->writer = x->writer;
        f->bytes = x->bytes;
        f->start_ps = x->start_ps;
    }
    if (mmu_setup(n, e) < 0)
        return -1;
    for (uint32_t i = 0; i < w->n; i++)
        if (pnet_schedule(n, n->flows[i].start_ps, EV_FLOW_START,
                          &n->flows[i], 0) < 0)
            return err_set(e, "out of memory scheduling flows");
    return 0;
}

static void loop(struct pnet *n)
{
    struct event ev;
    while (evq_pop(&n->q, &ev)) {
        if (ev.t < n->now)
            n->time_went_back = 1;
        n->now = ev.t;
        n->events++;
        switch ((enum ev_type)ev.type) {
        case EV_TX_DONE:
            port_on_tx_done(n, ev.obj);
            break;
        case EV_RX:
            port_on_rx(n, ev.obj);
            break;
        case EV_WAKE:
            port_on_wake(n, ev.obj);
            break;
        case EV_PAUSE:
            port_on_pause(n, ev.obj, (int)ev.arg);
            break;
        case EV_FLOW_START:
            nic_flow_start(n, ev.obj);
            break;
        }
    }
}

static double ps_to_s(uint64_t ps)
{
    return (double)ps / (double)PS_PER_S;
}

/* Add a violation to r->violation (first ones win when space runs out). */
__attribute__((format(printf, 2, 3)))
static void violate(struct results *r, const char *fmt, ...)
{
    r->ok = 0;
    size_t len = strlen(r->violation);
    if (len + 3 >= sizeof r->violation)
        return;
    if (len)
        len += (size_t)snprintf(r->violation + len, sizeof r->violation - len, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->violation + len, sizeof r->violation - len, fmt, ap);
    va_end(ap);
}

static void collect(struct pnet *n, struct results *r)
{
    const struct topo *t = n->topo;
    uint64_t in_flight = 0, max_q = 0, max_buf = 0, paused = 0, max_paused = 0;
    for (uint32_t i = 0; i < t->n_ports; i++) {
        struct port *p = &n->ports[i];
        for (struct packet *k = p->q.head; k; k = k->next)
            in_flight += k->payload;
        for (struct packet *k = p->pipe.head; k; k = k->next)
            in_flight += k->payload;
        if (p->tx)
            in_flight += p->tx->payload;
        if (p->max_q_bytes > max_q)
            max_q = p->max_q_bytes;
        uint64_t pp = p->paused_ps + (p->paused ? n->now - p->pause_since : 0);
        paused += pp;
        if (pp > max_paused)
            max_paused = pp;
    }
    int over_buffer = 0;
    for (uint32_t s = 0; s < t->n_switches; s++) {
        if (n->sws[s].max_used > max_buf)
            max_buf = n->sws[s].max_used;
        if (n->sws[s].max_used > n->sws[s].buffer)
            over_buffer = 1;
    }
    /* per writer: its first start to the end of its last transfer */
    uint32_t nw = n->n_writers ? n->n_writers : 1;
    uint64_t *wstart = malloc(nw * sizeof *wstart), *wend = calloc(nw, sizeof *wend);
    double *wc = malloc(nw * sizeof *wc);
    uint32_t nwc = 0;
    uint64_t first = UINT64_MAX, last = 0, bad_flows = 0;
    for (uint32_t i = 0; wstart && i < nw; i++)
        wstart[i] = UINT64_MAX;
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = &n->flows[i];
        if (!f->done || f->recv != f->bytes) {
            bad_flows++;
            continue;
        }
        if (f->first_tx_ps < first)
            first = f->first_tx_ps;
        if (f->done_ps > last)
            last = f->done_ps;
        if (wstart && wend && f->writer < nw) {
            if (f->start_ps < wstart[f->writer])
                wstart[f->writer] = f->start_ps;
            if (f->done_ps > wend[f->writer])
                wend[f->writer] = f->done_ps;
        }
    }
    for (uint32_t i = 0; wc && wstart && wend && i < n->n_writers; i++)
        if (wstart[i] != UINT64_MAX)
            wc[nwc++] = ps_to_s(wend[i] - wstart[i]);
    r->engine = "packet";
    r->writers = n->n_writers;
    r->completion_s = last > first && first != UINT64_MAX ? ps_to_s(last - first) : 0;
    if (wc) {
        r->writer_max_s = results_percentile(wc, nwc, 1.0);
        r->writer_p99_s = results_percentile(wc, nwc, 0.99);
        r->writer_p50_s = results_percentile(wc, nwc, 0.50);
    }
    free(wc);
    free(wstart);
    free(wend);
    r->drops = n->drops;
    r->pause_frames = n->pause_frames;
    r->resume_frames = n->resume_frames;
    r->paused_s = ps_to_s(paused);
    r->max_port_paused_s = ps_to_s(max_paused);
    r->max_queue_bytes = max_q;
    r->max_buffer_bytes = max_buf;
    r->packets_delivered = n->pkts_delivered;
    r->bytes_sent = n->bytes_sent;
    r->bytes_delivered = n->bytes_delivered;
    r->bytes_dropped = n->bytes_dropped;
    r->bytes_in_flight = in_flight;
    r->flows_done = n->flows_done;
    r->time_monotone = !n->time_went_back;
    r->events = n->events;
    r->max_pending_events = n->max_pending;
    r->mem_bytes = n->arena.total + n->q.cap * sizeof(struct event);

    r->ok = 1;
    r->violation[0] = '\0';
    if (n->bytes_sent != n->bytes_delivered + n->bytes_dropped + in_flight)
        violate(r, "bytes not conserved: sent %llu != delivered + dropped + in flight %llu",
                (unsigned long long)n->bytes_sent,
                (unsigned long long)(n->bytes_delivered + n->bytes_dropped + in_flight));
    if (n->drops)
        violate(r, "%llu packets (%llu B) dropped in a lossless fabric",
                (unsigned long long)n->drops, (unsigned long long)n->bytes_dropped);
    if (bad_flows)
        violate(r, "%llu of %llu transfers did not complete", (unsigned long long)bad_flows,
                (unsigned long long)n->n_flows);
    if (n->time_went_back)
        violate(r, "time went backwards");
    if (over_buffer)
        violate(r, "a switch buffer held %llu B, more than its %llu B",
                (unsigned long long)max_buf,
                (unsigned long long)n->sc->fabric.buffer_bytes);
}

int pkt_run(const struct scenario *sc, const struct topo *t,
            const struct workload *w, struct results *r, struct err *e)
{
    struct pnet *n = malloc(sizeof *n);
    if (!n)
        return err_set(e, "out of memory");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = setup(n, sc, t, w, e);
    if (rc == 0) {
        loop(n);
        collect(n, r);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    evq_release(&n->q);
    arena_release(&n->arena);
    free(n);
    return rc;
}
