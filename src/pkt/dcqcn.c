/* Transports of the sending queue pair.
 *
 * line rate: no congestion control; PFC alone keeps the fabric lossless.
 *
 * DCQCN reaction point (Zhu et al., SIGCOMM 2015), as in reference/fabric.md:
 * on a CNP (at most one cut per decrease period) RT <- RC,
 * RC <- max(Rmin, RC (1 - alpha/2)), alpha <- (1-g) alpha + g, and the
 * timer, byte counter and stages restart. alpha decays by (1-g) every alpha
 * period without a CNP. Each timer or byte-counter event raises the rate:
 * fast recovery while the stage is below F, additive increase (RT += R_AI) at
 * F, hyper increase (RT += i R_HAI) when both stages are past F; each time
 * RC <- (RT + RC) / 2. The rate-increase timer is an event per period, only
 * while the flow is below line rate; alpha's decay is applied lazily at the
 * next CNP (alpha matters only there), saving an event per flow per K.
 */
#include <math.h>

#include "pnet.h"

static void line_start(struct pnet *n, struct flow *f)
{
    (void)n, (void)f;
}

static uint64_t line_on_send(struct pnet *n, struct flow *f, uint64_t wire)
{
    (void)n, (void)wire;
    return f->line_bps;
}

static void line_on_cnp(struct pnet *n, struct flow *f)
{
    (void)n, (void)f;
}

static void line_on_timer(struct pnet *n, struct flow *f, uint32_t gen)
{
    (void)n, (void)f, (void)gen;
}

const struct transport_ops transport_line_rate = {
    "none", line_start, line_on_send, line_on_cnp, line_on_timer,
};

static void dcqcn_start(struct pnet *n, struct flow *f)
{
    struct dcqcn_state *c = &f->cc;
    c->rc = c->rt = (double)f->line_bps;
    c->alpha = n->sc->transport.dcqcn.initial_alpha;
    c->alpha_t = n->now;
    c->next_timer = 0;
    c->last_decrease = 0;
    c->bytes = 0;
    c->t_stage = c->b_stage = 0;
    c->cut = 0;
}

static void increase(struct pnet *n, struct flow *f)
{
    const struct dcqcn_params *p = &n->sc->transport.dcqcn;
    struct dcqcn_state *c = &f->cc;
    uint32_t ts = c->t_stage, bs = p->byte_counter ? c->b_stage : c->t_stage;
    uint32_t hi = ts > bs ? ts : bs, lo = ts < bs ? ts : bs;
    if (hi < p->f) {
        /* fast recovery: halve the distance to the target */
    } else if (lo > p->f) {
        c->rt += (double)(lo - p->f) * (double)p->rhai_bps;
    } else {
        c->rt += (double)p->rai_bps;
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
    f->cc.next_timer = t;
    pnet_schedule(n, t, EV_CC_TIMER, f, ++f->cc.timer_gen);
}

/* The rate-increase timer: one event per period while the flow is below
 * line rate, so the NIC's rate limiter speeds up when the rate does. */
static void dcqcn_on_timer(struct pnet *n, struct flow *f, uint32_t gen)
{
    struct dcqcn_state *c = &f->cc;
    if (gen != c->timer_gen || f->done || !f->active)
        return;
    c->t_stage++;
    increase(n, f);
    if (c->rc < (double)f->line_bps)
        arm_timer(n, f, n->now + n->sc->transport.dcqcn.timer_ps);
    nic_rate_changed(n, f);
}

static uint64_t dcqcn_on_send(struct pnet *n, struct flow *f, uint64_t wire)
{
    struct dcqcn_state *c = &f->cc;
    uint64_t B = n->sc->transport.dcqcn.byte_counter;
    if (B && c->cut && c->rc < (double)f->line_bps) {
        c->bytes += wire;
        while (c->bytes >= B) {
            c->bytes -= B;
            c->b_stage++;
            increase(n, f);
        }
    }
    return (uint64_t)c->rc;
}

static void dcqcn_on_cnp(struct pnet *n, struct flow *f)
{
    const struct dcqcn_params *p = &n->sc->transport.dcqcn;
    struct dcqcn_state *c = &f->cc;
    /* alpha: one decay per period since it was last updated, then the CNP */
    uint64_t periods = (n->now - c->alpha_t) / p->alpha_period_ps;
    if (periods)
        c->alpha *= pow(1.0 - p->g, (double)periods);
    c->alpha_t = n->now;
    double alpha = c->alpha;
    c->alpha = (1.0 - p->g) * c->alpha + p->g;
    if (c->cut && n->now - c->last_decrease < p->decrease_period_ps)
        return;
    /* ConnectX keeps the target through back-to-back cuts unless the timer
     * raised the rate in between (HPCC ns-3 models the same rule) */
    if (p->clamp_target || c->t_stage > 0)
        c->rt = c->rc;
    c->rc *= 1.0 - alpha / 2;
    if (c->rc < (double)p->rmin_bps)
        c->rc = (double)p->rmin_bps;
    c->t_stage = c->b_stage = 0;
    c->bytes = 0;
    arm_timer(n, f, n->now + p->timer_ps);
    c->last_decrease = n->now;
    c->cut = 1;
    f->decreases++;
    if (c->rc < f->min_rate)
        f->min_rate = c->rc;
    nic_rate_changed(n, f);
}

const struct transport_ops transport_dcqcn = {
    "dcqcn", dcqcn_start, dcqcn_on_send, dcqcn_on_cnp, dcqcn_on_timer,
};
