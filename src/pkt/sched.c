/* The packet engine's scheduler: the event dispatch, the time-ordered loop,
 * the window loop with its near queues, and the thread team. */
#define _DEFAULT_SOURCE 1 /* syscall(2): the team's futex */
#include "engine_int.h"
#include "hybrid.h"
#include "rccc.h"

#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <limits.h>
#include <time.h>
#if defined CKPT_EV_KINDS || defined CKPT_TEAM_TRACE
#include <stdio.h>
#endif
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Telemetry: every flow's sending rate and delivered bytes. Stops once
 * every flow is done, so it never keeps the run alive. */
void pnet_sample(struct pnet *n, int ff)
{
    struct results *r = n->res;
    uint32_t k = r->n_samples, nf = n->sc->telemetry.flows ? n->n_flows : 0;
    /* a sample a hybrid jump moved off the grid, or one it wrote already
     * (the jump scheduled the next on the grid) */
    if (n->now % n->sc->telemetry.interval_ps ||
        (k && (double)n->now / (double)PS_PER_S <= r->sample_t[k - 1]))
        return;
    if (telemetry_sample_room(n, k) < 0)
        return;
    if (r->sample_ff)
        r->sample_ff[k] = (uint8_t)ff;
    r->sample_t[k] = (double)n->now / (double)PS_PER_S;
    for (uint32_t i = 0; i < nf; i++) {
        const struct flow *f = &n->flows[i];
        double v = 0;
        if (f->active)
            v = n->tp->rate(n, f);
        if (f->active && f->cap_bps && (double)f->cap_bps < v)
            v = (double)f->cap_bps;
        r->sample_rate[(size_t)k * nf + i] = v;
        r->sample_delivered[(size_t)k * nf + i] = f->recv;
    }
    telemetry_sample(n); /* also sets sample_max_queue[k] */
    r->n_samples = k + 1;
    r->n_sample_flows = nf;
    if (!ff && (n->flows_done < n->n_flows || n->tc.next_ps != UINT64_MAX))
        pnet_schedule(n, n->now + n->sc->telemetry.interval_ps, EV_SAMPLE, NULL, 0);
}

/* hot: the window loop's, with a hop's two events inlined and tested
 * first (nine in ten events: two compares, not the jump table's indirect
 * jump) */
static inline __attribute__((always_inline)) void dispatch(struct pnet *n, const struct event *ev,
                                                           int hot)
{
#ifdef CKPT_EV_KINDS
    n->ev_kinds[EV_KIND(ev->type)]++;
#endif
    if (hot && EV_KIND(ev->type) == EV_TX_DONE) {
        port_tx_done_inl(n, ev->obj);
        return;
    }
    if (hot && EV_KIND(ev->type) == EV_RX) {
        port_rx_inl(n, ev->obj, ev->seq);
        return;
    }
    switch ((enum ev_type)EV_KIND(ev->type)) {
    case EV_TX_DONE:
        port_on_tx_done(n, ev->obj);
        break;
    case EV_RX:
        port_on_rx(n, ev->obj, ev->seq);
        break;
    case EV_WAKE:
        port_on_wake(n, ev->obj, ev->arg);
        break;
    case EV_PAUSE:
        pfc_on_frame(n, ev->obj, ev->arg);
        break;
    case EV_PAUSE_END:
        pfc_on_pause_end(n, ev->obj, ev->arg);
        break;
    case EV_PFC_REFRESH:
        pfc_on_refresh(n, ev->obj, ev->arg);
        break;
    case EV_WATCHDOG:
        pfc_on_watchdog(n, ev->obj, ev->arg);
        break;
    case EV_SAMPLE:
        pnet_sample(n, 0);
        break;
    case EV_CC_TIMER:
        n->tp->on_timer(n, ev->obj, ev->arg);
        break;
    case EV_DRAIN:
        nic_on_drain(n, ev->obj, ev->arg);
        break;
    case EV_FLOW_START:
        nic_flow_start(n, ev->obj);
        break;
    case EV_TRAIN_STEP:
        nic_train_step(n);
        break;
    case EV_CNP:
        nic_on_cnp(n, ev->obj, ev->arg);
        break;
    case EV_RTO:
        nic_on_rto(n, ev->obj, ev->arg);
        break;
    case EV_ACK:
        nic_on_ack_direct(n, ev->obj);
        break;
    case EV_CREDIT:
        rccc_on_pull(n, ev->obj, ev->arg);
        break;
    }
}

/* Run one event: the clock, the counters, its partition (pnet.h). */
static inline __attribute__((always_inline)) void run_event(struct pnet *n, const struct event *ev,
                                                            uint32_t part)
{
    n->now = ev->t;
    n->events++;
    if (!(n->events & 0xffff) && n->res && n->res->progress && !n->outbox_on)
        telemetry_progress(n);
    pnet_set_cur(n, part);
    dispatch(n, ev, 0);
}

/* One queue in (time, tie key) order. */
static void loop_time(struct pnet *n)
{
    struct event ev;
    while (!n->interrupted && !n->oom && evq_pop(&n->q, &ev)) {
        if (ev.t < n->now)
            n->time_went_back = 1;
        if (ev.t > n->time_limit_ps) {
            n->time_limit_hit = 1; /* pnet_loop judges it */
            break;
        }
        run_event(n, &ev, EV_PART(ev.type));
    }
}

static int grow_events(struct pnet *n, struct event **a, size_t *cap)
{
    size_t c = *cap ? 2 * *cap : 256;
    struct event *e = realloc(*a, c * sizeof *e);
    if (!e) {
        n->oom = 1;
        return -1;
    }
    *a = e;
    *cap = c;
    return 0;
}

/* Room for one more event in the near FIFO: its array doubled, the head
 * and tail kept at their offsets. */
int pnet_fifo_grow(struct pnet *n)
{
    size_t h = (size_t)(n->wfp - n->wf), t = (size_t)(n->wft - n->wf);
    size_t cap = (size_t)(n->wfe - n->wf);
    if (grow_events(n, &n->wf, &cap) < 0)
        return -1;
    n->wfp = n->wf + h;
    n->wft = n->wf + t;
    n->wfe = n->wf + cap;
    return 0;
}

int pnet_outbox(struct pnet *n, uint64_t t, uint64_t seq, uint32_t type, void *obj, uint32_t arg)
{
    if (EV_PART(type) == n->whole && t < n->instant_t)
        n->instant_t = t; /* thread 0's: it runs the instants */
    unsigned d = n->owner[EV_PART(type)], k = n->obk;
    if (d == n->team_id)
        return pnet_push(n, t, seq, type, obj, arg);
    if (n->obn[k][d] == n->obcap[k][d] && grow_events(n, &n->ob[k][d], &n->obcap[k][d]) < 0)
        return -1;
    n->ob[k][d][n->obn[k][d]++] = (struct event){t, seq, obj, type, arg};
    n->ob_min[k] = t < n->ob_min[k] ? t : n->ob_min[k];
    return 0;
}

/* Into the near heap. */
static inline void heap_push(struct pnet *n, const struct event *e)
{
    size_t i = n->whn++;
    while (i && evq_before(e, &n->wh[(i - 1) / 2])) {
        n->wh[i] = n->wh[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    n->wh[i] = *e;
}

/* How many of the FIFO's last events an event before its last may send to
 * the heap to take their place (pnet_schedule_near). */
#define NEAR_TAIL 4

/* The running partition's own events inside the window: appended to a FIFO
 * when not before its last, else into a binary heap. An event before the
 * FIFO's last but not before one of the NEAR_TAIL events ahead of it (or
 * before all of a FIFO that short) takes the place of the first it is
 * before, and those go to the heap: the FIFO stays in order, and a stream
 * of events a serialisation ahead behind a few pushed further ahead
 * (wakes) keeps to the FIFO, with those in the heap. */
int pnet_schedule_near(struct pnet *n, uint64_t t, uint64_t seq, uint32_t type, void *obj,
                       uint32_t arg)
{
    uint32_t c = n->cur;
    struct event e = {t, seq, obj, type, arg};
    if (EV_PART(type) != c) {
        /* another partition may already have run past t: the lookahead is
         * broken, the run is reported wrong (collect.c) */
        n->lookahead_bad++;
        return n->outbox_on ? pnet_outbox(n, t, e.seq, type, obj, arg)
                            : pnet_push(n, t, e.seq, type, obj, arg);
    }
    if (n->wft == n->wfp || !evq_before(&e, n->wft - 1)) {
        if (n->wft == n->wfe && pnet_fifo_grow(n) < 0)
            return -1;
        *n->wft++ = e;
        return 0;
    }
    while (n->whn + NEAR_TAIL > n->whcap)
        if (grow_events(n, &n->wh, &n->whcap) < 0)
            return -1;
    /* p: the first of the FIFO's last events that e is before */
    struct event *p = n->wft - 1;
    for (int d = 1; d < NEAR_TAIL && p > n->wfp && evq_before(&e, p - 1); d++)
        p--;
    if (p == n->wfp || !evq_before(&e, p - 1)) {
        for (struct event *q = p; q < n->wft; q++)
            heap_push(n, q);
        *p = e;
        n->wft = p + 1;
    } else {
        heap_push(n, &e);
    }
    return 0;
}

/* The earliest of the partition's own events, or NULL. */
static inline const struct event *near_first(const struct pnet *n)
{
    const struct event *f = n->wfp < n->wft ? n->wfp : NULL;
    if (n->whn && (!f || evq_before(&n->wh[0], f)))
        return n->wh;
    return f;
}

/* The hole at the top goes down to a leaf along the earlier children (one
 * compare a level), then the last event rises from there: it came from a
 * leaf, so it seldom rises, where testing it at every level going down
 * costs a second compare a level. */
static struct event heap_pop(struct pnet *n)
{
    struct event top = n->wh[0], last = n->wh[--n->whn];
    size_t i = 0, m = n->whn;
    if (!m)
        return top;
    for (size_t c; (c = 2 * i + 1) < m; i = c) {
        if (c + 1 < m && evq_before(&n->wh[c + 1], &n->wh[c]))
            c++;
        n->wh[i] = n->wh[c];
    }
    while (i && evq_before(&last, &n->wh[(i - 1) / 2])) {
        n->wh[i] = n->wh[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    n->wh[i] = last;
    return top;
}

/* Window-by-window order. A window is at most the smallest link delay long,
 * so nothing one partition does inside it reaches another before it ends:
 * each partition's events of the window run together, in (time, key) order,
 * and the results are those of loop_time (tested), with each switch's state
 * kept in cache while it runs. Events of the whole fabric (samples, training
 * steps) end a window; their instant runs in plain (time, key) order.
 * reverse runs a window's partitions in the opposite order (tests). */
struct window {
    struct event *ev;
    uint32_t *next;                   /* the partition's next event in ev */
    size_t n, cap;
    uint32_t *head, *tail, *touched;  /* per partition */
};

/* Room for one more event. */
static int window_grow(struct pnet *n, struct window *w);

static inline int window_room(struct pnet *n, struct window *w)
{
    return w->n < w->cap ? 0 : window_grow(n, w);
}

static int window_grow(struct pnet *n, struct window *w)
{
    size_t cap = w->cap ? 2 * w->cap : 4096;
    /* on huge pages once large: every event passes through it */
    struct event *e = evq_huge_alloc(cap * sizeof *e);
    uint32_t *x = e ? realloc(w->next, cap * sizeof *x) : NULL;
    if (!x) {
        evq_huge_free(e, cap * sizeof *e);
        n->oom = 1;
        return -1;
    }
    if (w->n)
        memcpy(e, w->ev, w->n * sizeof *e);
    evq_huge_free(w->ev, w->cap * sizeof *e);
    w->ev = e;
    w->next = x;
    w->cap = cap;
    return 0;
}

/* Each partition's events of the window as a list, in (time, key) order;
 * returns how many partitions have some. The lists are ended once each,
 * after the pass, not an end stored for every event. */
static uint32_t window_lists(struct window *w)
{
    uint32_t nt = 0, *head = w->head, *tail = w->tail, *next = w->next, *touched = w->touched;
    const struct event *ev = w->ev;
    for (uint32_t i = 0, n = (uint32_t)w->n; i < n; i++) {
        uint32_t p = EV_PART(ev[i].type);
        if (head[p] == UINT32_MAX) {
            head[p] = i;
            touched[nt++] = p;
        } else {
            next[tail[p]] = i;
        }
        tail[p] = i;
    }
    for (uint32_t k = 0; k < nt; k++)
        next[tail[touched[k]]] = UINT32_MAX;
    return nt;
}

static void push_back(struct pnet *n, const struct event *e)
{
    pnet_push(n, e->t, e->seq, e->type, e->obj, e->arg);
}

/* Partition p's events from list index i and those it schedules for
 * itself; returns the time of its last one, *ran the count. limit: some
 * event of the window may lie past n->time_limit_ps (else none can: every
 * one is before n->wend). The FIFO is not reset as it empties: every event
 * in it is of this window, so it is empty when the partition ends, and is
 * reset then; what it took is its head's index. One dispatch site: the
 * hop's handlers are inlined there, and a second copy of them would not
 * stay in the instruction cache. */
static inline __attribute__((always_inline)) uint64_t
part_events(struct pnet *n, struct window *w, uint32_t i, uint64_t last, uint64_t *ran, int limit)
{
    uint64_t k = 0, past = 0; /* taken from the list and the heap; past the limit */
    for (;;) {
        /* the event where it lies (dispatch reads it before its handler
         * runs, which may then move the FIFO): no copy of it */
        struct event hev;
        const struct event *ev, *f;
        struct event *h = n->wfp;
        /* out of memory (the run stops before the next event) and an
         * event in the heap (one before the FIFO's tail): one test */
        if (!(n->whn | (size_t)n->oom)) {
            if (i == UINT32_MAX) {
                /* only the FIFO holds some (nine in ten events): its head */
                if (h == n->wft)
                    break;
                ev = h;
                n->wfp = h + 1;
            } else if (h < n->wft && evq_before(h, &w->ev[i])) {
                ev = h; /* the FIFO's head or the list's */
                n->wfp = h + 1;
            } else {
                ev = &w->ev[i];
                i = w->next[i];
                k++;
            }
        } else if (n->oom) {
            break;
        } else if ((f = near_first(n)) && (i == UINT32_MAX || evq_before(f, &w->ev[i]))) {
            if (f == n->wh) {
                hev = heap_pop(n);
                ev = &hev;
                k++;
            } else {
                ev = f;
                n->wfp++;
            }
        } else if (i != UINT32_MAX) {
            ev = &w->ev[i];
            i = w->next[i];
            k++;
        } else {
            break;
        }
        uint64_t t = ev->t;
        if (limit && t > n->time_limit_ps) {
            n->time_limit_hit = 1;
            past++;
            continue;
        }
        if (t < last)
            n->time_went_back = 1;
        last = t;
        n->now = t;
        dispatch(n, ev, 1);
    }
    *ran = k + (uint64_t)(n->wfp - n->wf) - past;
    if (n->wfp == n->wft) /* (out of memory: left as it stopped) */
        n->wfp = n->wft = n->wf;
    return last;
}

/* Partition p's events of the window and those it schedules for itself
 * within it; returns the time of its last one. */
static uint64_t window_part(struct pnet *n, struct window *w, uint32_t p, uint64_t start)
{
    uint32_t i = w->head[p];
    uint64_t last, ran;
    w->head[p] = UINT32_MAX;
    pnet_set_cur(n, p);
    /* the time limit's test only in a window that reaches past it */
    if (n->wend - 1 > n->time_limit_ps)
        last = part_events(n, w, i, start, &ran, 1);
    else
        last = part_events(n, w, i, start, &ran, 0);
    /* counted per partition, not per event; progress as run_event's (two
     * threads: at their meeting, with both threads' counts) */
    if ((n->events & ~UINT64_C(0xffff)) != ((n->events + ran) & ~UINT64_C(0xffff)) && n->res &&
        n->res->progress && !n->outbox_on) {
        n->events += ran;
        telemetry_progress(n);
    } else {
        n->events += ran;
    }
    return last;
}

/* Every event at time t, in (time, key) order: the instant of an event of
 * the whole fabric (a sample, a training step), which may touch any
 * partition. */
static void run_instant(struct pnet *n, uint64_t t)
{
    struct event ev;
    while (!n->oom && evq_pop_before(&n->q, t + 1, &ev))
        run_event(n, &ev, EV_PART(ev.type));
}

static int window_init(struct pnet *n, struct window *w)
{
    uint32_t np = n->whole + 1;
    memset(w, 0, sizeof *w);
    w->head = malloc(np * sizeof *w->head);
    w->tail = malloc(np * sizeof *w->tail);
    w->touched = malloc(np * sizeof *w->touched);
    if (!w->head || !w->tail || !w->touched || window_room(n, w) < 0) {
        n->oom = 1;
        return -1;
    }
    memset(w->head, 0xff, np * sizeof *w->head);
    return 0;
}

static void window_free(struct window *w)
{
    evq_huge_free(w->ev, w->cap * sizeof *w->ev);
    free(w->next);
    free(w->head);
    free(w->tail);
    free(w->touched);
}

/* One window from start: takes n's events before wend (an event of the
 * whole fabric ends it before its instant) and runs each partition's.
 * Returns the time of the last event run; w->n = 0 when there was none. */
static uint64_t window_run(struct pnet *n, struct window *w, uint64_t start, uint64_t wend,
                           int reverse)
{
    w->n = 0;
    /* in bulk from the wheel up to the earliest far event, which is popped */
    while (window_room(n, w) == 0) {
        uint64_t lim = n->q.nfar && n->q.far_min.t < wend ? n->q.far_min.t : wend;
        int cut = evq_take_before(&n->q, lim, w->ev, &w->n, w->cap, UINT32_C(0xffffff) << 7,
                                  n->whole << 7);
        if (!cut && w->n == w->cap)
            continue; /* room for more */
        if (!cut && lim < wend) {
            if (!evq_pop_before(&n->q, wend, &w->ev[w->n]))
                break;
            cut = EV_PART(w->ev[w->n].type) == n->whole;
            if (cut)
                push_back(n, &w->ev[w->n]);
            else
                w->n++;
        }
        if (cut) {
            /* an event of the whole fabric: what is at its instant goes
             * back, and on a team it is thread 0's next instant (a sample
             * a hybrid jump moved off the grid was noted by the shift, and
             * the note cleared when the grid's sample before it ran: the
             * threads met forever short of it) */
            wend = evq_peek_t(&n->q);
            if (wend < n->instant_t)
                n->instant_t = wend;
            while (w->n && w->ev[w->n - 1].t == wend)
                push_back(n, &w->ev[--w->n]);
            break;
        }
        if (lim == wend)
            break;
    }
    uint64_t tmax = 0;
    if (n->oom || !w->n)
        return tmax;
    uint32_t nt = window_lists(w);
    n->wend = wend;
    for (uint32_t k = 0; k < nt; k++) {
        uint32_t p = w->touched[reverse ? nt - 1 - k : k];
        if (k + 1 < nt) {
            /* the next partition's first port, while this one runs: a
             * NIC's lines are out of cache between its few events */
            uint32_t q = w->touched[reverse ? nt - 2 - k : k + 1];
            const struct event *e = &w->ev[w->head[q]];
            uint32_t kind = EV_KIND(e->type);
            int sw = q < n->whole && is_switch_node(n, q);
            if (sw) { /* its buffer counters */
                ckpt_prefetch(pnet_sw(n, q));
                ckpt_prefetch((const char *)pnet_sw(n, q) + 64);
            }
            if (kind < EV_PORT_KINDS_END) { /* its object is a port */
                /* the lines its kind reads: an arrival the ingress line
                 * (3), a transmit-done the egress lines (0-2); the
                 * others all four. A line fetched unread costs a miss. */
                const char *o = e->obj;
                if (kind != EV_RX) {
                    ckpt_prefetch(o);
                    ckpt_prefetch(o + 64);
                    ckpt_prefetch(o + 128);
                }
                if (kind != EV_TX_DONE)
                    ckpt_prefetch(o + 192);
                /* a PFC frame: its priority's pause start, which an XON
                 * reads (on a line apart; pfc.c) */
                if (kind == EV_PAUSE) {
                    const struct port *pp = e->obj;
                    ckpt_prefetch(&pp->pause_since[pfc_arg_prio(e->arg)]);
                    /* an XON (quanta 0) at a switch: the unpause's kick
                     * reads its queue, cold since the pause (a host's
                     * queue holds CNPs only, mostly empty) */
                    if (sw && !pfc_arg_quanta(e->arg))
                        ckpt_prefetch(&pp->q[pfc_arg_prio(e->arg)]);
                }
            }
        }
        uint64_t last = n->oom ? 0 : window_part(n, w, p, start);
        w->head[p] = UINT32_MAX;
        tmax = last > tmax ? last : tmax;
    }
    n->wend = 0;
    return tmax;
}

static void loop_window(struct pnet *n, uint64_t span, int reverse)
{
    struct window w;
    uint64_t tmax = n->now;
    if (window_init(n, &w) == 0) {
        while (!n->interrupted && !n->oom && !n->time_limit_hit) {
            uint64_t start = evq_peek_t(&n->q);
            if (start == UINT64_MAX)
                break;
            if (start > n->time_limit_ps) {
                n->time_limit_hit = 1;
                break;
            }
            uint64_t last = window_run(n, &w, start, start + span, reverse);
            if (!w.n) { /* the instant of an event of the whole fabric */
                run_instant(n, start);
                last = start;
            }
            tmax = last > tmax ? last : tmax;
        }
    }
    n->now = tmax;
    window_free(&w);
}

/* Several threads (sim.threads: 2 to TEAM_MAX). Each owns a set of
 * partitions (loop_team): their events wait in its own queue, and it runs
 * them on its own copy of the pnet (clock, queues, counters, packet chunks).
 * An event for another thread's partitions, always a window or more ahead,
 * goes to an outbox for that thread, which drains it after the window. Per
 * window: the threads agree on its start (the earliest of their next
 * events), run their partitions, and meet again. Each partition writes only
 * its own state (ports, switch, NIC, its end of a flow and of a wire), so the
 * results are those of one thread (tests/test_order.c). */
/* Thread 0's choice between splitting the windows and running them alone
 * (enum team_mode), from events per wall second: each mode's rate over an
 * epoch of TEAM_EPOCH_NS; the faster one runs `stay` epochs, then the
 * other runs one to be measured again. A partner without a core makes a
 * split window wait on it; alone, thread 0 takes every copy's events into
 * its own queue and runs them as one thread does (team_merge), at one
 * thread's speed, and gives them back to their owners to split again. */
static uint64_t wall_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * UINT64_C(1000000000) + (uint64_t)t.tv_nsec;
}

#ifdef CKPT_TEAM_TRACE
#define TT_START() uint64_t tt0_ = wall_ns()
#define TT_ADD(field) (field += wall_ns() - tt0_)
#else
#define TT_START() (void)0
#define TT_ADD(field) (void)0
#endif

struct team {
    struct pnet *wk[TEAM_MAX];        /* each thread's copy: cp[j], or the run's own as 0 (hybrid) */
    struct pnet cp[TEAM_MAX];
    struct window w[TEAM_MAX];        /* each copy's window */
    pthread_t th[TEAM_MAX];
    unsigned k;                       /* threads */
    uint64_t span, limit;
    int reverse;
    int mode;                         /* enum team_mode */
    _Atomic uint64_t arrived[TEAM_MAX]; /* barrier rounds each thread reached */
    /* a thread that waited too long sleeps on `wake` (a futex): arrivals
     * bump it and wake the sleepers, so a thread whose core is taken by
     * another process does not spin away the time its partner needs */
    _Atomic uint32_t wake;
    _Atomic uint32_t sleepers;
    /* running alone: the others park (parked: the round they stopped at)
     * and sleep while `solo` is 1; thread 0 sets resume, the round they
     * rejoin at, or done, before it clears `solo` */
    _Atomic uint32_t solo;
    _Atomic uint64_t parked[TEAM_MAX];
    uint64_t resume;
    int done;
    /* by round parity (one may publish the next round's while another
     * still reads this one): */
    uint8_t stop[2][TEAM_MAX];        /* each thread's out of memory or stop */
    uint8_t alone[2];                 /* thread 0 runs this round's window alone */
    uint64_t instant[2];              /* thread 0's next whole-fabric event */
    uint64_t next_t[2][TEAM_MAX];     /* each thread's next event */
    uint64_t events[2][TEAM_MAX], delivered[2][TEAM_MAX]; /* each's counts (progress) */
    uint64_t reported;                /* events at the last progress call */
    uint64_t tmax[TEAM_MAX];
    uint64_t rounds, solo_rounds;     /* thread 0's count of windows, alone */
    struct event *mv;                 /* thread 0's events on their way back */
    size_t mvcap;                     /* to their owners (team_unmerge) */
    struct team_pace pace;            /* thread 0's */
    _Atomic int go;                   /* 1: all threads started; -1: one could not */
    struct chunk_pool pool;
    /* hybrid (pnet_run_before): one team for the whole run. Each call runs
     * the windows before `until`; then the others hold, parked, while
     * thread 0 returns with every copy's counters folded into its own (the
     * run's pnet), and `gate` bumped lets them on. Thread 0's round and
     * mode wait in round0 and alone0 between calls. */
    uint64_t until;
    uint64_t round0;
    uint64_t out_ns;                  /* wall ns thread 0 returned at (pace) */
    int alone0, started;
    _Atomic uint32_t gate;
    struct team_arg {
        struct team *tm;
        unsigned id;
    } args[TEAM_MAX];
#ifdef CKPT_TEAM_TRACE /* where the threads' wall time goes (stderr at the end) */
    struct {
        uint64_t run, wait, hold, park, windows, events;
        uint64_t *win, nwin; /* each split round's window: thread CPU ns, by round */
    } tt[TEAM_MAX];
    uint64_t tt_periods, tt_alone_periods, tt_serial, tt_fold, tt_ret, tt_merge, tt_unmerge;
    uint64_t tt_alone_run, tt_splits;
#endif
};

/* Spins before a waiting thread sleeps: about as long as a futex's sleep
 * and wake-up cost (a few microseconds), so a partner on its own core is
 * met by spinning and one that lost its core is waited for asleep. */
#define TEAM_SPINS (1u << 11)

static void futex_wait(_Atomic uint32_t *w, uint32_t seen)
{
#ifdef __linux__
    syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
#else
    (void)w, (void)seen;
    sched_yield();
#endif
}

static void futex_wake(_Atomic uint32_t *w)
{
#ifdef __linux__
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
    (void)w;
#endif
}

static void team_wake(struct team *tm)
{
    atomic_fetch_add(&tm->wake, 1);
    futex_wake(&tm->wake);
}

/* Until *v reaches round: spins, then sleeps on `wake` (the writer of *v
 * calls team_wake when it sees a sleeper). Sequentially consistent on both
 * sides: a writer that sees no sleeper was seen by any thread about to
 * sleep, which then does not; one that sees a sleeper changes `wake`
 * first, so the sleeper's wait returns at once if it had not begun. */
static void team_await(struct team *tm, _Atomic uint64_t *v, uint64_t round)
{
    for (unsigned s = 0; atomic_load_explicit(v, memory_order_acquire) < round; s++) {
        if (s < TEAM_SPINS)
            continue;
        uint32_t seen = atomic_load(&tm->wake);
        atomic_fetch_add(&tm->sleepers, 1);
        if (atomic_load(v) < round)
            futex_wait(&tm->wake, seen);
        atomic_fetch_sub(&tm->sleepers, 1);
    }
}

static void team_barrier(struct team *tm, unsigned id, uint64_t round)
{
    atomic_store(&tm->arrived[id], round);
    if (atomic_load(&tm->sleepers))
        team_wake(tm);
    TT_START();
    for (unsigned j = 0; j < tm->k; j++)
        if (j != id)
            team_await(tm, &tm->arrived[j], round);
    TT_ADD(tm->tt[id].wait);
}

/* Alone (1) or split (0) for round's window; thread 0, before it publishes
 * round, given the run's events so far. */
static int team_pace(struct team *tm, uint64_t round, uint64_t ev)
{
    if (tm->mode != TEAM_ADAPT)
        return tm->mode == TEAM_SOLO || (tm->mode == TEAM_ALTERNATE && (round & 1));
    return pnet_pace(&tm->pace, wall_ns(), ev);
}

int pnet_pace(struct team_pace *p, uint64_t t, uint64_t ev)
{
    if (!p->t0) {
        p->t0 = t, p->ev0 = ev;
        return p->solo;
    }
    uint64_t dt = t - p->t0;
    /* a measuring epoch that has fallen far behind the chosen mode ends
     * early: split on an oversubscribed machine waits at every window for
     * a partner without a core */
    int behind = p->solo != p->best && p->rate[p->best] > 0 && dt >= TEAM_EPOCH_NS / 4 &&
                 (double)(ev - p->ev0) * 1e9 < 0.5 * p->rate[p->best] * (double)dt;
    if (dt < TEAM_EPOCH_NS && !behind)
        return p->solo;
    p->rate[p->solo] = (double)(ev - p->ev0) * 1e9 / (double)dt;
    p->t0 = t, p->ev0 = ev;
    if (p->solo != p->best) {
        /* a measuring epoch: the faster mode runs on, split only when
         * clearly faster (an epoch's rate on a loaded machine is noisy,
         * and a split chosen wrongly costs more than one thread's speed
         * missed); a choice confirmed is measured again half as often */
        int best = p->rate[0] < TEAM_SPLIT_GAIN * p->rate[1];
        p->stay = best == p->best && p->stay ? 2 * p->stay : 2;
        p->stay = p->stay > TEAM_STAY_MAX ? TEAM_STAY_MAX : p->stay;
        p->best = best;
        p->left = p->stay;
        p->solo = best;
    } else if (p->left) {
        p->left--;
    } else {
        p->solo = !p->best; /* measure the other */
    }
    return p->solo;
}

/* The epoch measured from now on, given the run's events: the events
 * moved between the copies at a change of mode are neither mode's cost. */
static void team_pace_restart(struct team *tm, uint64_t ev)
{
    if (tm->mode == TEAM_ADAPT && tm->pace.t0)
        tm->pace.t0 = wall_ns(), tm->pace.ev0 = ev;
}

/* Thread b's counters into thread a's copy (b waiting): a sample reads the
 * run's totals. */
static void team_fold(struct pnet *a, struct pnet *b)
{
    for (size_t k = 0; k < sizeof a->sums / sizeof a->sums[0]; k++)
        a->sums[k] += b->sums[k], b->sums[k] = 0;
    a->first_tx_ps = b->first_tx_ps < a->first_tx_ps ? b->first_tx_ps : a->first_tx_ps;
    a->last_rx_ps = b->last_rx_ps > a->last_rx_ps ? b->last_rx_ps : a->last_rx_ps;
    a->rto_max_ps = b->rto_max_ps > a->rto_max_ps ? b->rto_max_ps : a->rto_max_ps;
}

/* Every event at time t in the threads' queues, in tie-key order, on
 * thread 0's copy (its pushes go to the owners' queues or the outboxes). */
static void team_instant(struct team *tm, uint64_t t)
{
    struct pnet *a = tm->wk[0];
    struct event e[TEAM_MAX];
    int has[TEAM_MAX];
    for (unsigned j = 1; j < tm->k; j++)
        team_fold(a, tm->wk[j]);
    a->instant_t = UINT64_MAX;
    for (unsigned j = 0; j < tm->k; j++)
        has[j] = evq_pop_before(&tm->wk[j]->q, t + 1, &e[j]);
    for (;;) {
        int m = -1;
        for (unsigned j = 0; j < tm->k; j++)
            if (has[j] && (m < 0 || e[j].seq < e[m].seq))
                m = (int)j;
        if (m < 0)
            break;
        struct event ev = e[m];
        has[m] = evq_pop_before(&tm->wk[m]->q, t + 1, &e[m]);
        run_event(a, &ev, EV_PART(ev.type));
    }
}

/* Copy id's figures for the meeting of round. */
static void team_publish(struct team *tm, unsigned id, uint64_t round)
{
    struct pnet *n = tm->wk[id];
    uint64_t mine = evq_peek_t(&n->q), sent = n->ob_min[n->obk];
    tm->next_t[round & 1][id] = mine < sent ? mine : sent;
    tm->stop[round & 1][id] = (uint8_t)(n->oom | n->interrupted);
    if (id == 0)
        tm->instant[round & 1] = n->instant_t;
    tm->events[round & 1][id] = n->events;
    tm->delivered[round & 1][id] = n->bytes_delivered;
}

/* Copy id after the meeting: the others' outboxes for it into its queue
 * (the outboxes alternate, so each drains the others' last ones while
 * they fill the next). */
static void team_drain(struct team *tm, unsigned id)
{
    struct pnet *n = tm->wk[id];
    unsigned k = n->obk;
    for (unsigned j = 0; j < tm->k; j++) {
        struct pnet *o = tm->wk[j];
        if (j == id)
            continue;
        for (size_t i = 0; i < o->obn[k][id]; i++) {
            const struct event *e = &o->ob[k][id][i];
            pnet_push(n, e->t, e->seq, e->type, e->obj, e->arg);
        }
        o->obn[k][id] = 0; /* ours to reset: its owner fills the other parity */
    }
    n->ob_min[k] = UINT64_MAX;
    n->obk ^= 1;
    if (evq_len(&n->q) > n->max_pending) /* the outboxes' events count too */
        n->max_pending = evq_len(&n->q);
    pnet_chunk_share(n);
}

/* Thread 0: progress once every 2^16 events of the run, as on one thread. */
static void team_progress(struct team *tm, uint64_t round)
{
    struct pnet *n = tm->wk[0];
    if (!n->res || !n->res->progress)
        return;
    uint64_t ev = 0, dl = 0;
    for (unsigned j = 0; j < tm->k; j++)
        ev += tm->events[round & 1][j], dl += tm->delivered[round & 1][j];
    if (ev >> 16 > tm->reported >> 16) {
        tm->reported = ev;
        telemetry_progress_of(n, ev, dl);
    }
}

/* Round's work after its meeting for thread id's copy; 1 when the run is
 * over, 2 at the period's end. */
static int team_round(struct team *tm, unsigned id, uint64_t *round)
{
    uint64_t r = *round, start = UINT64_MAX, instant = tm->instant[r & 1];
    int halt = 0;
    for (unsigned j = 0; j < tm->k; j++) {
        start = tm->next_t[r & 1][j] < start ? tm->next_t[r & 1][j] : start;
        halt |= tm->stop[r & 1][j];
    }
    if (id == 0)
        team_progress(tm, r);
    team_drain(tm, id);
    struct pnet *n = tm->wk[id];
    if (start == UINT64_MAX || halt) /* all decide alike */
        return 1;
    if (start >= tm->until) /* the period's end (hybrid) */
        return 2;
    if (start > tm->limit) {
        n->time_limit_hit = 1;
        return 1;
    }
    if (start == instant) {
        /* a whole-fabric event's instant: once all have drained their
         * outboxes, thread 0 runs it alone while the others wait */
        team_barrier(tm, id, ++*round);
        if (id == 0)
            team_instant(tm, start);
        team_barrier(tm, id, ++*round);
        tm->tmax[id] = start > tm->tmax[id] ? start : tm->tmax[id];
        return 0;
    }
    uint64_t wend = start + tm->span < instant ? start + tm->span : instant;
    wend = wend < tm->until ? wend : tm->until;
    TT_START();
#ifdef CKPT_TEAM_TRACE
    struct timespec c0, c1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
#endif
    uint64_t last = n->oom ? 0 : window_run(n, &tm->w[id], start, wend, tm->reverse);
    TT_ADD(tm->tt[id].run);
#ifdef CKPT_TEAM_TRACE
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    if (*round >= tm->tt[id].nwin) {
        uint64_t m = 2 * *round + 1024;
        uint64_t *x = realloc(tm->tt[id].win, m * sizeof *x);
        if (x) {
            memset(x + tm->tt[id].nwin, 0, (m - tm->tt[id].nwin) * sizeof *x);
            tm->tt[id].win = x, tm->tt[id].nwin = m;
        }
    }
    if (*round < tm->tt[id].nwin)
        tm->tt[id].win[*round] = (uint64_t)((c1.tv_sec - c0.tv_sec) * 1000000000L + (c1.tv_nsec - c0.tv_nsec));
    tm->tt[id].windows++;
    tm->tt[id].events += tm->w[id].n;
#endif
    tm->tmax[id] = last > tm->tmax[id] ? last : tm->tmax[id];
    return 0;
}

/* Thread 0 alone, the others parked after the meeting of round: their
 * outboxes drained and every copy's events moved into copy 0's queue, its
 * counters holding the run's (team_fold). Copy 0 then runs as one thread
 * does (loop_window): no outbox, no meeting, one queue to take from.
 * Returns 1 when the run is over. */
static int team_merge(struct team *tm, uint64_t round)
{
    struct pnet *a = tm->wk[0];
    int halt = 0;
    for (unsigned j = 0; j < tm->k; j++)
        halt |= tm->stop[round & 1][j];
    team_progress(tm, round);
    for (unsigned j = 0; j < tm->k; j++)
        team_drain(tm, j);
    for (unsigned j = 1; j < tm->k; j++) {
        struct pnet *b = tm->wk[j];
        struct event ev;
        team_fold(a, b); /* the events counted too: progress, pace */
        while (evq_pop(&b->q, &ev))
            if (pnet_push(a, ev.t, ev.seq, ev.type, ev.obj, ev.arg) < 0)
                return 1;
        a->oom |= b->oom;
        a->interrupted |= b->interrupted;
    }
    if (evq_len(&a->q) > a->max_pending)
        a->max_pending = evq_len(&a->q);
    a->outbox_on = 0;
    return halt || a->oom;
}

/* Back to split windows: copy 0's events to their owners' queues, each
 * queue's wheel starting at its first (the whole fabric's events stay with
 * copy 0, which tracks the next one again). */
static void team_unmerge(struct team *tm)
{
    struct pnet *a = tm->wk[0];
    size_t m = 0;
    while (evq_len(&a->q)) {
        if (m == tm->mvcap && grow_events(a, &tm->mv, &tm->mvcap) < 0)
            return;
        evq_pop(&a->q, &tm->mv[m++]);
    }
    a->outbox_on = 1;
    a->instant_t = UINT64_MAX;
    for (unsigned j = 0; j < tm->k && m; j++)
        evq_restart(&tm->wk[j]->q, tm->mv[0].t);
    for (size_t i = 0; i < m; i++) {
        const struct event *e = &tm->mv[i];
        uint32_t part = EV_PART(e->type);
        if (part == a->whole && e->t < a->instant_t)
            a->instant_t = e->t;
        if (pnet_push(tm->wk[a->owner[part]], e->t, e->seq, e->type, e->obj, e->arg) < 0)
            a->oom = 1;
    }
    tm->reported = a->events;
    pnet_chunk_share(a);
}

/* One window of copy 0 alone (merged), as loop_window's (pnet_run_before's:
 * not past `until`); 1 when the run is over, 2 at the period's end. */
static int team_alone(struct team *tm)
{
    struct pnet *n = tm->wk[0];
    if (n->interrupted || n->oom || n->time_limit_hit)
        return 1;
    uint64_t start = evq_peek_t(&n->q);
    if (start == UINT64_MAX)
        return 1;
    if (start >= tm->until)
        return 2;
    if (start > tm->limit) {
        n->time_limit_hit = 1;
        return 1;
    }
    uint64_t wend = tm->until - start > tm->span ? start + tm->span : tm->until;
    TT_START();
    uint64_t last = window_run(n, &tm->w[0], start, wend, tm->reverse);
    TT_ADD(tm->tt_alone_run);
    if (!tm->w[0].n) { /* the instant of an event of the whole fabric */
        run_instant(n, start);
        last = start;
    }
    tm->tmax[0] = last > tm->tmax[0] ? last : tm->tmax[0];
    return 0;
}

/* Thread id (not 0) hands its copy to thread 0 and sleeps until thread 0
 * splits the windows again; the round to go on from, or 0 when the run
 * is over. */
static uint64_t team_park(struct team *tm, unsigned id, uint64_t round)
{
    atomic_store(&tm->parked[id], round);
    if (atomic_load(&tm->sleepers))
        team_wake(tm);
    TT_START();
    while (atomic_load(&tm->solo))
        futex_wait(&tm->solo, 1);
    TT_ADD(tm->tt[id].park);
    return tm->done ? 0 : tm->resume - 1;
}

/* Thread id (not 0) at the period's end of round: its copy is thread 0's
 * until thread 0 bumps the gate; 0 when the run is over. */
static int team_hold(struct team *tm, unsigned id, uint64_t round)
{
    uint32_t g = atomic_load(&tm->gate); /* thread 0 bumps it only once we parked */
    atomic_store(&tm->parked[id], round);
    if (atomic_load(&tm->sleepers))
        team_wake(tm);
    TT_START();
    while (atomic_load(&tm->gate) == g)
        futex_wait(&tm->gate, g);
    TT_ADD(tm->tt[id].hold);
    return !tm->done;
}

/* Thread id's rounds: 1 when the run is over; 0 (thread 0) at the period's
 * end, the others holding (team_hold) or parked (alone). */
static int team_work(struct team *tm, unsigned id)
{
    uint64_t round = id ? 0 : tm->round0;
    int alone = id ? 0 : tm->alone0; /* thread 0 runs every copy's events, merged into its own */
    int r = 1;
    for (;;) {
        ++round;
        if (id == 0) {
            uint64_t ev = 0;
            for (unsigned j = 0; j < tm->k; j++)
                ev += alone ? tm->wk[j]->events : tm->events[(round - 1) & 1][j];
            int want = team_pace(tm, round, ev);
            tm->rounds++;
            if (alone && !want) { /* the others rejoin at this round */
                TT_START();
                team_unmerge(tm);
                TT_ADD(tm->tt_unmerge);
#ifdef CKPT_TEAM_TRACE
                tm->tt_splits++;
#endif
                team_pace_restart(tm, tm->wk[0]->events); /* the others' are 0 */
                tm->resume = round;
                atomic_store(&tm->solo, 0);
                futex_wake(&tm->solo);
                alone = 0;
            }
            if (alone) {
                tm->solo_rounds++;
                if ((r = team_alone(tm)) != 0)
                    break;
                continue;
            }
            tm->alone[round & 1] = (uint8_t)want;
            if (want)
                atomic_store(&tm->solo, 1);
        }
        team_publish(tm, id, round);
        team_barrier(tm, id, round);
        if (tm->alone[round & 1]) {
            if (id) {
                if (!(round = team_park(tm, id, round)))
                    return 1;
                continue;
            }
            /* every copy is thread 0's once its thread has parked */
            {
                TT_START();
                for (unsigned j = 1; j < tm->k; j++)
                    team_await(tm, &tm->parked[j], round);
                TT_ADD(tm->tt[0].wait);
            }
            alone = 1;
            tm->solo_rounds++;
            {
                TT_START();
                r = team_merge(tm, round);
                TT_ADD(tm->tt_merge);
            }
            if (r != 0)
                break;
            team_pace_restart(tm, tm->wk[0]->events);
            if ((r = team_alone(tm)) != 0)
                break;
            continue;
        }
        r = team_round(tm, id, &round);
        if (r == 2 && id) {
            if (!team_hold(tm, id, round))
                return 1;
            continue;
        }
        if (r)
            break;
    }
    if (r == 2) { /* thread 0, the period's end: the others' copies are its own */
        TT_START();
        for (unsigned j = 1; j < tm->k && !alone; j++)
            team_await(tm, &tm->parked[j], round);
        TT_ADD(tm->tt[0].wait);
        tm->round0 = round;
        tm->alone0 = alone;
        return 0;
    }
    if (alone) { /* the parked threads end too */
        tm->done = 1;
        atomic_store(&tm->solo, 0);
        futex_wake(&tm->solo);
    }
    return 1;
}

static void *team_thread(void *arg)
{
    struct team_arg *a = arg;
    int go;
    while (!(go = atomic_load(&a->tm->go)))
        sched_yield();
    if (go > 0)
        (void)team_work(a->tm, a->id);
    return NULL;
}

/* Thread id's copy of n: thread 0's starts with the run's counters (a
 * sample reads them there), the others' from zero. */
static int team_copy(struct pnet *n, struct pnet *c, unsigned id)
{
    *c = *n;
    if (id) {
        memset(c->sums, 0, sizeof c->sums);
#ifdef CKPT_EV_KINDS
        memset(c->ev_kinds, 0, sizeof c->ev_kinds);
#endif
        c->first_tx_ps = UINT64_MAX;
        c->last_rx_ps = 0;
        c->rto_max_ps = 0;
    }
    evq_init(&c->q);
    evq_horizon(&c->q, (uint64_t)n->q.nb << EVQ_SHIFT);
    c->instant_t = UINT64_MAX;
    c->wh = NULL;
    c->wf = c->wfp = c->wft = c->wfe = NULL;
    c->whn = c->whcap = 0;
    memset(c->ob, 0, sizeof c->ob);
    memset(c->obn, 0, sizeof c->obn);
    memset(c->obcap, 0, sizeof c->obcap);
    c->ob_min[0] = c->ob_min[1] = UINT64_MAX;
    c->obk = 0;
    c->outbox_on = 1;
    c->team_id = (uint8_t)id;
    c->pool = NULL; /* loop_team sets it */
    c->res = id ? NULL : n->res; /* samples and progress: thread 0 */
    c->slabs = NULL;
    c->free_chunks = id == 0 ? n->free_chunks : NULL;
    c->n_free = id == 0 ? n->n_free : 0;
    c->qhist = calloc((size_t)PATH_SETS * QHIST_BUCKETS, sizeof *c->qhist);
    return c->qhist ? 0 : -1;
}

/* A team of k threads for n's run, each partition given its thread
 * (n->owner), the copies not made yet; NULL (n->oom) without memory. */
static struct team *team_new(struct pnet *n, uint64_t span, int reverse, unsigned k)
{
    struct team *tm = aligned_alloc(64, (sizeof *tm + 63) / 64 * 64);
    /* a leaf, its hosts and storage nodes on one thread (a packet crosses
     * between threads at most going up and coming down); leaves and
     * spines take the threads in turn */
    uint8_t *owner = calloc((size_t)n->whole + 1, 1);
    if (!tm || !owner) {
        free(tm);
        free(owner);
        n->oom = 1;
        return NULL;
    }
    memset(tm, 0, sizeof *tm);
    pthread_mutex_init(&tm->pool.lock, NULL);
    tm->k = k;
    tm->span = span;
    tm->limit = n->time_limit_ps;
    tm->until = UINT64_MAX;
    tm->reverse = reverse;
    tm->mode = n->sc->sim.team_mode;
#ifdef CKPT_TEAM_TRACE /* a mode forced: 1 split, 2 alone, 3 alternate */
    if (getenv("CKPT_TEAM_MODE"))
        tm->mode = atoi(getenv("CKPT_TEAM_MODE"));
#endif
    for (uint32_t p = 0; p < n->whole; p++)
        owner[p] = (uint8_t)((n->topo->nodes[p].kind >= NODE_LEAF ? p : n->topo->nodes[p].leaf) % k);
    n->owner = owner;
    return tm;
}

/* Threads 1 to k - 1, started together (go), or none runs: -1. */
static int team_launch(struct team *tm)
{
    unsigned started = 1;
    for (; started < tm->k; started++) {
        tm->args[started] = (struct team_arg){tm, started};
        if (pthread_create(&tm->th[started], NULL, team_thread, &tm->args[started]) != 0)
            break;
    }
    tm->started = (int)started;
    atomic_store(&tm->go, started == tm->k ? 1 : -1);
    return started == tm->k ? 0 : -1;
}

/* After the threads ended: the copies' counters, flags, chunks and clocks
 * into n (which may be copy 0 itself), and the team's memory freed. */
static void team_free(struct pnet *n, struct team *tm)
{
    for (int j = 1; j < tm->started; j++)
        pthread_join(tm->th[j], NULL);
#ifdef CKPT_TEAM_TRACE
    fprintf(stderr, "team: %u threads, %llu rounds (%llu alone), %llu periods (%llu ended alone), "
                    "serial between periods %.3f s, fold %.3f s, merge %.3f s, unmerge %.3f s (%llu), "
                    "alone windows %.3f s\n",
            tm->k, (unsigned long long)tm->rounds, (unsigned long long)tm->solo_rounds,
            (unsigned long long)tm->tt_periods, (unsigned long long)tm->tt_alone_periods,
            (double)tm->tt_serial * 1e-9, (double)tm->tt_fold * 1e-9, (double)tm->tt_merge * 1e-9,
            (double)tm->tt_unmerge * 1e-9, (unsigned long long)tm->tt_splits,
            (double)tm->tt_alone_run * 1e-9);
    {
        uint64_t smax = 0, sum[TEAM_MAX] = {0}, nw = 0;
        for (unsigned j = 0; j < tm->k; j++)
            nw = tm->tt[j].nwin > nw ? tm->tt[j].nwin : nw;
        for (uint64_t r = 0; r < nw; r++) {
            uint64_t m = 0;
            for (unsigned j = 0; j < tm->k; j++) {
                uint64_t v = r < tm->tt[j].nwin ? tm->tt[j].win[r] : 0;
                sum[j] += v;
                m = v > m ? v : m;
            }
            smax += m;
        }
        fprintf(stderr, "team split windows, thread CPU: sum of each round's slowest %.3f s; threads'",
                (double)smax * 1e-9);
        for (unsigned j = 0; j < tm->k; j++) {
            fprintf(stderr, " %.3f", (double)sum[j] * 1e-9);
            free(tm->tt[j].win);
        }
        fprintf(stderr, " s\n");
    }
    for (unsigned j = 0; j < tm->k; j++)
        fprintf(stderr, "team %u: run %.3f s (%llu split windows, %llu events taken), wait %.3f s, "
                        "hold %.3f s, park %.3f s\n",
                j, (double)tm->tt[j].run * 1e-9, (unsigned long long)tm->tt[j].windows,
                (unsigned long long)tm->tt[j].events, (double)tm->tt[j].wait * 1e-9,
                (double)tm->tt[j].hold * 1e-9, (double)tm->tt[j].park * 1e-9);
#endif
    for (unsigned j = 1; j < tm->k; j++)
        team_fold(tm->wk[0], tm->wk[j]);
    if (tm->wk[0] != n) {
        memcpy(n->sums, tm->wk[0]->sums, sizeof n->sums);
        n->first_tx_ps = tm->wk[0]->first_tx_ps;
        n->last_rx_ps = tm->wk[0]->last_rx_ps;
        n->rto_max_ps = tm->wk[0]->rto_max_ps;
        n->sample_cap = tm->wk[0]->sample_cap;
    }
    /* the threads' queues peak at different times: their peaks' sum
     * bounds the run's from above */
    uint64_t pending = tm->wk[0] == n ? n->max_pending : 0;
    for (unsigned i = 0; i < tm->k; i++) {
        struct pnet *c = tm->wk[i];
        n->now = tm->tmax[i] > n->now ? tm->tmax[i] : n->now;
        window_free(&tm->w[i]);
        for (int k = 0; k < 2; k++)
            for (unsigned j = 0; j < TEAM_MAX; j++) {
                free(c->ob[k][j]);
                c->ob[k][j] = NULL;
                c->obn[k][j] = c->obcap[k][j] = 0;
            }
        if (c == n) /* the run's own: hybrid's thread 0 */
            continue;
        pending += c->max_pending;
#ifdef CKPT_EV_KINDS
        for (size_t k = 0; k < sizeof n->ev_kinds / sizeof n->ev_kinds[0]; k++)
            n->ev_kinds[k] = i ? n->ev_kinds[k] + c->ev_kinds[k] : c->ev_kinds[k];
#endif
        n->team_evq_bytes += evq_mem(&c->q);
        n->interrupted |= c->interrupted;
        n->oom |= c->oom;
        n->time_limit_hit |= c->time_limit_hit;
        n->time_went_back |= c->time_went_back;
        for (size_t k = 0; c->qhist && k < (size_t)PATH_SETS * QHIST_BUCKETS; k++)
            n->qhist[k] += c->qhist[k];
        while (c->slabs) {
            struct pkt_chunk *next = c->slabs->next;
            c->slabs->next = n->slabs;
            n->slabs = c->slabs;
            c->slabs = next;
        }
        free(c->qhist);
        free(c->wh);
        free(c->wf);
        evq_release(&c->q);
    }
    n->max_pending = pending > n->max_pending ? pending : n->max_pending;
    if (n->res && tm->rounds)
        n->res->threads_solo = (double)tm->solo_rounds / (double)tm->rounds;
    free(tm->mv);
    free(n->owner);
    n->owner = NULL;
    n->outbox_on = 0;
    n->pool = NULL;
    pthread_mutex_destroy(&tm->pool.lock);
    free(tm);
}

static void loop_team(struct pnet *n, uint64_t span, int reverse, unsigned nthreads)
{
    struct team *tm = team_new(n, span, reverse, nthreads);
    if (!tm)
        return;
    int ok = 1;
    for (unsigned j = 0; j < nthreads; j++)
        tm->wk[j] = &tm->cp[j];
    for (unsigned j = 0; ok && j < nthreads; j++) {
        if ((ok = team_copy(n, tm->wk[j], j) == 0 && window_init(tm->wk[j], &tm->w[j]) == 0))
            tm->wk[j]->pool = &tm->pool;
    }
    n->free_chunks = NULL;
    n->n_free = 0;
    /* the set-up's events to their owners */
    struct event ev;
    while (ok && evq_pop(&n->q, &ev)) {
        struct pnet *c = tm->wk[n->owner[EV_PART(ev.type)]];
        if (EV_PART(ev.type) == n->whole && ev.t < c->instant_t)
            c->instant_t = ev.t;
        if (evq_push_seq(&c->q, ev.t, ev.seq, ev.type, ev.obj, ev.arg) < 0)
            ok = 0;
    }
    if (ok && team_launch(tm) == 0)
        team_work(tm, 0);
    else
        n->oom = 1;
    team_free(n, tm);
}

/* hybrid (pnet_run_before) on k threads: the team kept for the whole run,
 * thread 0's copy n itself, so what hybrid reads and moves between
 * periods is n's (the others' counters folded in at each period's end,
 * their queues shifted by pnet_shift_events). NULL (n->oom) when it
 * cannot start. */
static struct team *team_hybrid(struct pnet *n, uint64_t span, unsigned k)
{
    struct team *tm = team_new(n, span, 0, k);
    if (!tm)
        return NULL;
    tm->wk[0] = n;
    int ok = window_init(n, &tm->w[0]) == 0;
    n->pool = &tm->pool;
    n->team_id = 0;
    n->obk = 0;
    n->ob_min[0] = n->ob_min[1] = UINT64_MAX;
    for (unsigned j = 1; j < k; j++)
        tm->wk[j] = &tm->cp[j];
    for (unsigned j = 1; j < k; j++) {
        if (ok && (ok = team_copy(n, tm->wk[j], j) == 0 && window_init(tm->wk[j], &tm->w[j]) == 0))
            tm->wk[j]->pool = &tm->pool;
    }
    if (ok)
        team_unmerge(tm); /* n's events to their owners */
    n->team = tm;
    if (!ok || n->oom) {
        n->oom = 1;
        team_free(n, tm);
        n->team = NULL;
    }
    return n->team;
}

/* The run over: hybrid's team ends, all of it back in n. */
static void team_end(struct pnet *n)
{
    struct team *tm = n->team;
    if (!tm)
        return;
    tm->done = 1; /* threads holding or parked end */
    atomic_fetch_add(&tm->gate, 1);
    futex_wake(&tm->gate);
    atomic_store(&tm->solo, 0);
    futex_wake(&tm->solo);
    n->team = NULL;
    team_free(n, tm);
}

/* pnet_run_before on the team: its windows before limit. */
static int team_before(struct pnet *n, uint64_t span, unsigned k, uint64_t limit)
{
    struct team *tm = n->team ? n->team : team_hybrid(n, span, k);
    if (!tm)
        return 0;
    uint64_t now = n->now;
#ifdef CKPT_TEAM_TRACE
    if (tm->tt_ret)
        tm->tt_serial += wall_ns() - tm->tt_ret;
    tm->tt_periods++;
#endif
    tm->until = limit;
    memset(tm->tmax, 0, sizeof tm->tmax);
    /* hybrid's observation and jump between the periods run in neither
     * mode: the pace's epoch does not count them */
    if (tm->pace.t0 && tm->out_ns)
        tm->pace.t0 += wall_ns() - tm->out_ns;
    int over;
    if (!tm->started) {
        over = team_launch(tm) < 0;
        n->oom |= over;
    } else {
        over = 0;
        if (!tm->alone0) { /* the holding threads go on */
            atomic_fetch_add(&tm->gate, 1);
            futex_wake(&tm->gate);
        }
    }
    if (!over)
        over = team_work(tm, 0);
    int bad = 0;
    TT_START();
    for (unsigned j = 0; j < tm->k; j++) {
        struct pnet *c = tm->wk[j];
        now = tm->tmax[j] > now ? tm->tmax[j] : now;
        bad |= c->interrupted | c->oom | c->time_limit_hit;
        if (!over && j) { /* what hybrid reads: the run's totals in n */
            team_fold(n, c);
            for (size_t x = 0; n->qhist && x < (size_t)PATH_SETS * QHIST_BUCKETS; x++)
                n->qhist[x] += c->qhist[x], c->qhist[x] = 0;
        }
    }
    n->now = now;
    TT_ADD(tm->tt_fold);
    if (tm->mode == TEAM_ADAPT)
        tm->out_ns = wall_ns();
#ifdef CKPT_TEAM_TRACE
    tm->tt_alone_periods += (uint64_t)tm->alone0;
    tm->tt_ret = wall_ns();
#endif
    if (over || bad)
        team_end(n);
    return !over && !bad;
}

/* The window: the smallest link delay, or less by up to a half: the
 * smallest of the links' delay less an MTU's serialisation, so the far end
 * of a busy wire schedules its arrivals (port.c, rx_lead: a window long);
 * 0 (or capture, whose file is in time order, or training, whose steps may
 * start within it) runs in time order. Sets rx_lead. */
static uint64_t window_span(struct pnet *n)
{
    n->rx_lead = 1; /* in time order the sender's event runs first */
    if (n->cap || n->tr || n->sc->sim.event_order == ORDER_TIME)
        return 0;
    uint64_t d = UINT64_MAX, cut = UINT64_MAX;
    for (uint32_t i = 0; i < n->topo->n_ports; i++) {
        const struct port *p = &n->ports[i];
        uint64_t ser = p->bps ? n->mtu_wire * 8 * UINT64_C(1000000000000) / p->bps + 1 : 0;
        d = p->delay_ps < d ? p->delay_ps : d;
        ser = p->delay_ps > ser ? p->delay_ps - ser : 0;
        cut = ser < cut ? ser : cut;
    }
    if (d == UINT64_MAX)
        return 0;
    d = cut >= d / 2 && cut ? cut : d;
    n->rx_lead = d;
    return d;
}

/* The threads a run takes: sim.threads in window order, else one. */
static unsigned loop_threads(const struct pnet *n, uint64_t span)
{
    unsigned threads = span && n->sc->sim.threads > 1 ? n->sc->sim.threads : 1;
    return threads > TEAM_MAX ? TEAM_MAX : threads;
}

static int run_before(struct pnet *n, uint64_t limit);

/* engine: hybrid's steps: loop_window's (or loop_time's, or the team's)
 * loop up to limit; a window never reaches past it. What hybrid then
 * schedules is keyed as the whole fabric's, on any number of threads
 * (the partition that ran last differs with them). */
int pnet_run_before(struct pnet *n, uint64_t limit)
{
    int more = run_before(n, limit);
    pnet_set_cur(n, n->whole);
    return more;
}

static int run_before(struct pnet *n, uint64_t limit)
{
    uint64_t span = window_span(n);
    unsigned k = loop_threads(n, span);
    if (k > 1 || n->team)
        return team_before(n, span, k, limit);
    struct event ev;
    if (!span) {
        while (!n->interrupted && !n->oom && evq_pop_before(&n->q, limit, &ev)) {
            if (ev.t < n->now)
                n->time_went_back = 1;
            if (ev.t > n->time_limit_ps) {
                n->time_limit_hit = 1; /* pnet_loop judges it */
                return 0;
            }
            run_event(n, &ev, EV_PART(ev.type));
        }
        return !n->interrupted && !n->oom && evq_len(&n->q) > 0;
    }
    struct window w;
    uint64_t tmax = n->now;
    if (window_init(n, &w) == 0) {
        while (!n->interrupted && !n->oom && !n->time_limit_hit) {
            uint64_t start = evq_peek_t(&n->q);
            if (start == UINT64_MAX || start >= limit)
                break;
            if (start > n->time_limit_ps) {
                n->time_limit_hit = 1;
                break;
            }
            uint64_t wend = limit - start > span ? start + span : limit;
            uint64_t last = window_run(n, &w, start, wend, 0);
            if (!w.n) { /* the instant of an event of the whole fabric */
                run_instant(n, start);
                last = start;
            }
            tmax = last > tmax ? last : tmax;
        }
    }
    n->now = tmax;
    window_free(&w);
    return !n->interrupted && !n->oom && !n->time_limit_hit && evq_len(&n->q) > 0;
}

/* An event's new time in a shift, and the earliest of the whole
 * fabric's (thread 0's instant_t). */
struct shift_keep {
    int (*keep)(const struct event *ev, void *ctx);
    void *ctx;
    uint64_t d, first_whole;
    uint32_t whole;
};

static int shift_keep(const struct event *ev, void *arg)
{
    struct shift_keep *s = arg;
    int keep = s->keep && s->keep(ev, s->ctx);
    uint64_t t = keep ? ev->t : ev->t + s->d;
    if (EV_PART(ev->type) == s->whole && t < s->first_whole)
        s->first_whole = t;
    return keep;
}

int pnet_shift_events(struct pnet *n, uint64_t d, int (*keep)(const struct event *ev, void *ctx),
                      void *ctx)
{
    struct team *tm = n->team;
    if (!tm)
        return evq_shift(&n->q, d, keep, ctx);
    struct shift_keep s = {keep, ctx, d, UINT64_MAX, n->whole};
    int rc = 0;
    for (unsigned j = 0; j < tm->k; j++) {
        struct pnet *c = tm->wk[j];
        if (evq_shift(&c->q, d, shift_keep, &s) < 0)
            rc = -1;
        for (int p = 0; p < 2; p++) { /* empty at a period's end, unless hybrid scheduled */
            c->ob_min[p] = UINT64_MAX;
            for (unsigned i = 0; i < tm->k; i++)
                for (size_t x = 0; x < c->obn[p][i]; x++) {
                    struct event *e = &c->ob[p][i][x];
                    e->t += shift_keep(e, &s) ? 0 : d;
                    c->ob_min[p] = e->t < c->ob_min[p] ? e->t : c->ob_min[p];
                }
        }
    }
    n->instant_t = s.first_whole;
    return rc;
}

uint64_t pnet_next_event_t(struct pnet *n)
{
    struct team *tm = n->team;
    uint64_t t = evq_peek_t(&n->q);
    for (unsigned j = 0; tm && j < tm->k; j++) {
        uint64_t c = evq_peek_t(&tm->wk[j]->q);
        t = c < t ? c : t;
        for (int p = 0; p < 2; p++)
            t = tm->wk[j]->ob_min[p] < t ? tm->wk[j]->ob_min[p] : t;
    }
    return t;
}

void pnet_loop(struct pnet *n)
{
    uint64_t span = window_span(n);
    n->res->event_order = span ? ORDER_WINDOW : ORDER_TIME;
    int reverse = n->sc->sim.event_order == ORDER_WINDOW_REVERSE;
    unsigned threads = loop_threads(n, span);
    int hybrid = n->sc->engine == ENGINE_HYBRID;
    n->res->threads = threads;
    if (hybrid) {
        hybrid_loop(n); /* on the team when threads > 1 (pnet_run_before) */
        team_end(n);
    } else if (threads > 1)
        loop_team(n, span, reverse, threads);
    else if (span)
        loop_window(n, span, reverse);
    else
        loop_time(n);
    /* Events past the limit once every transfer and training step is done
     * are leftovers of no consequence (a superseded pacing wake-up at a
     * low DCQCN rate, a timer of an idle queue pair): the run ended at its
     * last event. Otherwise it stopped at the limit. */
    if (n->time_limit_hit) {
        if (n->flows_done == n->n_flows && n->tc.next_ps == UINT64_MAX && !n->tc.left)
            n->time_limit_hit = 0;
        else
            n->now = n->time_limit_ps;
    }
    free(n->wh);
    free(n->wf);
    n->wh = NULL;
    n->wf = n->wfp = n->wft = n->wfe = NULL;
    n->whn = n->whcap = 0;
#ifdef CKPT_EV_KINDS
    static const char *const kind_name[] = {
        "tx_done", "rx", "wake", "pause", "pause_end", "pfc_refresh", "watchdog", "flow_start",
        "sample", "cc_timer", "drain", "train_step", "cnp", "rto", "ack", "credit",
        /* switch arrivals by their egress's state */
        "hop_idle", "hop_paused", "hop_wait", "hop_busy"};
    _Static_assert(sizeof kind_name / sizeof kind_name[0] == EVC_N, "a name per kind");
    for (unsigned k = 0; k < EVC_N; k++)
        if (n->ev_kinds[k])
            fprintf(stderr, "events %-12s %llu\n", kind_name[k],
                    (unsigned long long)n->ev_kinds[k]);
#endif
}
