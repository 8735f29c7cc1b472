/* DCQCN: the transport's reaction point (the sender) and notification
 * point (the receiver's CNPs).
 *
 * DCQCN reaction point (Zhu et al., SIGCOMM 2015; stage rules as in the
 * HPCC ns-3 rdma-hw Mellanox model):
 * - cut: RT <- RC (see clamp below), RC <- max(Rmin, RC (1 - alpha/2)); the
 *   timer, byte counter and stages restart. At most one cut per decrease
 *   period: a CNP inside the period is remembered and cuts when it ends.
 * - alpha: set to initial_alpha at the flow's first CNP (it means nothing
 *   before), then (1-g) alpha + g at each CNP (after any cut that CNP makes)
 *   and (1-g) alpha per alpha period; the decay is applied lazily, in whole
 *   periods counted from the first CNP, when alpha is next needed.
 * - increase: each timer or byte-counter event, with s = the stage of its
 *   counter before the event and o = the other counter's stage: fast recovery
 *   while max(s, o) < F (F events), additive increase RT += R_AI while
 *   min(s, o) <= F, hyper increase RT += R_HAI past that; each time
 *   RC <- (RT + RC) / 2. Without a byte counter the timer is both counters:
 *   F fast-recovery events, one additive, then hyper.
 * The rate-increase timer is an event per period only while the flow is
 * below line rate. A cut restarts it: one event stays pending per flow and,
 * when it comes before the restarted expiry, moves itself there with the
 * tie key the cut took, the place an event scheduled by the cut would have
 * in the order (cuts come every few us, the timer is 300 us: an event per
 * cut would nearly all come stale).
 */
#include <math.h>
#include <string.h>

#include "pnet.h"

#define DEC_CHECK 0x80000000u /* on_timer arg: the end of a decrease period */

static void dcqcn_start(struct pnet *n, struct flow *f)
{
    (void)n;
    struct dcqcn_state *c = &f->cc.dcqcn;
    uint32_t gen = c->timer_gen; /* a stale timer event must not match */
    memset(c, 0, sizeof *c);
    c->timer_gen = gen;
    c->rc = c->rt = (double)f->line_bps;
}

/* One timer (timer = 1) or byte-counter (timer = 0) event. */
static void increase(struct pnet *n, struct flow *f, int timer)
{
    const struct dcqcn_params *p = &n->sc->transport.dcqcn;
    struct dcqcn_state *c = &f->cc.dcqcn;
    uint32_t s = timer ? c->t_stage : c->b_stage;
    uint32_t o = !p->byte_counter ? s : timer ? c->b_stage : c->t_stage;
    uint32_t hi = s > o ? s : o, lo = s < o ? s : o;
    if (timer)
        c->t_stage++;
    else
        c->b_stage++;
    if (hi < p->f) {
        /* fast recovery: halve the distance to the target */
    } else if (lo <= p->f) {
        c->rt += (double)p->rai_bps;
    } else {
        c->rt += (double)p->rhai_bps;
    }
    double line = (double)f->line_bps;
    if (c->rt > line)
        c->rt = line;
    c->rc = (c->rt + c->rc) / 2;
    if (c->rc > line)
        c->rc = line;
}

static void arm_timer(struct pnet *n, struct flow *f, uint64_t t)
{
    struct dcqcn_state *c = &f->cc.dcqcn;
    c->next_timer = t; /* never earlier than a pending event: now + T grows */
    c->timer_seq = pnet_next_tie(n);
    if (c->timer_pending)
        return; /* it comes first and moves itself to t */
    c->timer_pending = 1;
    c->timer_gen = (c->timer_gen + 1) & ~DEC_CHECK;
    pnet_schedule_seq(n, t, c->timer_seq, EV_CC_TIMER, n->part[f->src], f, c->timer_gen);
}

/* alpha brought up to now: one decay per whole alpha period elapsed. */
static void alpha_decay(struct pnet *n, struct dcqcn_state *c)
{
    const struct dcqcn_params *p = &n->sc->transport.dcqcn;
    uint64_t periods = (n->now - c->alpha_t) / p->alpha_period_ps;
    if (periods) {
        c->alpha *= pow(1.0 - p->g, (double)periods);
        c->alpha_t += periods * p->alpha_period_ps;
    }
}

static void cut(struct pnet *n, struct flow *f)
{
    const struct dcqcn_params *p = &n->sc->transport.dcqcn;
    struct dcqcn_state *c = &f->cc.dcqcn;
    alpha_decay(n, c);
    /* ConnectX keeps the target through back-to-back cuts unless the timer
     * raised the rate in between (HPCC ns-3 models the same rule) */
    if (p->clamp_target || c->t_stage > 0)
        c->rt = c->rc;
    c->rc *= 1.0 - c->alpha / 2;
    if (c->rc < (double)p->rmin_bps)
        c->rc = (double)p->rmin_bps;
    c->t_stage = c->b_stage = 0;
    c->bytes = 0;
    c->pending = 0;
    arm_timer(n, f, n->now + p->timer_ps);
    c->last_decrease = n->now;
    f->decreases++;
    if (c->rc < f->min_rate)
        f->min_rate = c->rc;
    nic_rate_changed(n, f);
}

/* The rate-increase timer: one event per period while the flow is below
 * line rate, so the NIC's rate limiter speeds up when the rate does. The
 * same event type carries the end of a decrease period (DEC_CHECK). */
static void dcqcn_on_timer(struct pnet *n, struct flow *f, uint32_t gen)
{
    struct dcqcn_state *c = &f->cc.dcqcn;
    if (gen & DEC_CHECK) {
        c->dec_armed = 0;
        if (c->pending && f->active) /* the sender's view: not f->done */
            cut(n, f);
        return;
    }
    if (gen != c->timer_gen)
        return; /* armed before the flow restarted (training steps) */
    if (n->now < c->next_timer) { /* a cut restarted the timer */
        pnet_schedule_seq(n, c->next_timer, c->timer_seq, EV_CC_TIMER, n->part[f->src], f, gen);
        return;
    }
    c->timer_pending = 0;
    if (!f->active)
        return;
    increase(n, f, 1);
    if (c->rc < (double)f->line_bps)
        arm_timer(n, f, n->now + n->sc->transport.dcqcn.timer_ps);
    nic_rate_changed(n, f);
}

static uint64_t dcqcn_on_send(struct pnet *n, struct flow *f, struct packet *pk, uint64_t wire)
{
    (void)pk;
    struct dcqcn_state *c = &f->cc.dcqcn;
    uint64_t B = n->sc->transport.dcqcn.byte_counter;
    if (B && c->cut && c->rc < (double)f->line_bps) {
        c->bytes += wire;
        while (c->bytes >= B) {
            c->bytes -= B;
            increase(n, f, 0);
        }
    }
    return (uint64_t)c->rc;
}

static void dcqcn_on_cnp(struct pnet *n, struct flow *f)
{
    const struct dcqcn_params *p = &n->sc->transport.dcqcn;
    struct dcqcn_state *c = &f->cc.dcqcn;
    if (!c->cut) {
        c->cut = 1;
        c->alpha = p->initial_alpha;
        c->alpha_t = n->now;
        cut(n, f);
    } else if (n->now - c->last_decrease >= p->decrease_period_ps) {
        cut(n, f);
    } else {
        /* inside the decrease period: cut when it ends */
        c->pending = 1;
        if (!c->dec_armed) {
            c->dec_armed = 1;
            pnet_schedule(n, c->last_decrease + p->decrease_period_ps, EV_CC_TIMER, f,
                          DEC_CHECK);
        }
        alpha_decay(n, c);
    }
    c->alpha = (1.0 - p->g) * c->alpha + p->g;
}

/* A resend after the queue pair had sent everything: its rate-increase
 * timer stopped then (on_timer), so without this a flow cut to Rmin would
 * resend at Rmin for good. A fresh period from now, as after a cut. */
static void dcqcn_resume(struct pnet *n, struct flow *f)
{
    struct dcqcn_state *c = &f->cc.dcqcn;
    if (c->rc < (double)f->line_bps && !c->timer_pending)
        arm_timer(n, f, n->now + n->sc->transport.dcqcn.timer_ps);
}

static double dcqcn_rate(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return f->cc.dcqcn.rc;
}

/* Notification point: a CE-marked data packet the receiver accepted gets
 * a CNP, at most one per flow per cnp_interval. */
static void dcqcn_on_data(struct pnet *n, uint32_t node, struct flow *f, const struct packet *pk)
{
    (void)pk;
    if (f->sent_cnp && n->now - f->last_cnp < n->sc->transport.dcqcn.cnp_interval_ps)
        return;
    nic_send_cnp(n, node, f);
}

static double dcqcn_level(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return f->cc.dcqcn.rc;
}

/* A cut sender's timers move with the clock; its rates (and target)
 * follow its receiver's senders' trend within its line rate: held, the
 * state lags the packets' by the jump (one writer's rate recovering 0.17
 * Gbps a ms, a 13 ms jump held it at 6.6 Gbps: 3.8% late). */
static void dcqcn_carry(struct pnet *n, struct flow *f, const struct jump_move *m)
{
    (void)n;
    struct dcqcn_state *s = &f->cc.dcqcn;
    if (!s->cut)
        return;
    s->alpha_t += m->d;
    s->next_timer += m->d;
    s->last_decrease += m->d;
    if (m->g != 1) {
        double line = (double)f->line_bps;
        s->rc = fmin(s->rc * m->g, line);
        s->rt = fmin(s->rt * m->g, line);
    }
}

/* two rate-increase periods: a period's mean sees a timer's step */
static uint64_t dcqcn_period_floor(const struct pnet *n, uint64_t rtt)
{
    (void)rtt;
    return 2 * n->sc->transport.dcqcn.timer_ps;
}

/* DCQCN leaves a link short for a while after a transfer ends, so an
 * uneven credit costs it more than PFC alone (measured: docs/engine.md):
 * a budget of 0.5% */
static const struct jump_ops dcqcn_jump = {
    .budget = 0.005,
    .level = dcqcn_level,
    .cuts = 1,
    .shares_revert = 1,
    .period_floor = dcqcn_period_floor,
    .carry = dcqcn_carry,
};

const struct transport_ops transport_dcqcn = {
    .cc = CC_DCQCN,
    .start = dcqcn_start,
    .on_send = dcqcn_on_send,
    .rate = dcqcn_rate,
    .on_cnp = dcqcn_on_cnp,
    .on_timer = dcqcn_on_timer,
    .resume = dcqcn_resume,
    .on_data = dcqcn_on_data,
    .data_ce_only = 1,
    .jump = &dcqcn_jump,
};
