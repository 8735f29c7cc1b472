/* Switch MMU: one shared buffer per switch with ingress accounting per
 * (port, priority group), as in the HPCC ns-3 switch MMU and SONiC:
 *
 *  - every (port, PG) owns a small reserve;
 *  - lossless PGs then use the shared pool up to the dynamic threshold
 *    Th = alpha * (pool - shared in use) (Choudhury-Hahne), then their PFC
 *    headroom; XOFF when headroom is in use or shared use reaches Th, XON when
 *    headroom is empty and shared use is two MTUs under Th (or zero);
 *  - lossy traffic is dropped when its egress queue passes
 *    lossy_alpha * (pool - shared in use).
 * pool = buffer - all reserves - all lossless headroom (per_class: per pool,
 * below). Headroom per lossless (port, PG): wire_headroom (src/core/wire.c).
 */
#include "../core/units.h"
#include "pnet.h"
#include "../core/rng.h"

/* fabric.mmu.pools per_class splits the buffer into equal shares, one per
 * lossless priority and one for all lossy ones (docs/training.md): each
 * share pays its own priorities' reserves and headroom, and the rest is
 * that pool's shared space with its own dynamic threshold. Equal shares:
 * no traffic mix is known in advance, and a lossless class gets the most
 * it can be guaranteed without starving another. */
int mmu_setup(struct pnet *n, struct err *e)
{
    const struct topo *t = n->topo;
    const struct scenario *sc = n->sc;
    unsigned lossless = (unsigned)__builtin_popcount(n->lossless);
    int split = sc->fabric.mmu_pools == POOLS_PER_CLASS && lossless;
    unsigned next = 0;
    uint64_t most = 0; /* the largest pool */
    n->n_pools = (uint8_t)(split ? lossless + 1 : 1);
    for (unsigned pg = 0; pg < NPRIO; pg++)
        n->pool_of[pg] = (uint8_t)(!split ? 0 : (n->lossless >> pg) & 1 ? next++ : lossless);
    for (uint32_t s = 0; s < t->n_switches; s++) {
        const struct tnode *nd = &t->nodes[t->first_cleaf + s];
        struct sw *w = &n->sws[s];
        uint64_t res[NPRIO] = {0};
        for (uint32_t i = 0; i < nd->nports; i++) {
            struct port *p = &n->ports[nd->first_port + i];
            p->headroom = scenario_headroom(sc, p->bps, p->delay_ps);
            for (unsigned pg = 0; pg < NPRIO; pg++)
                res[n->pool_of[pg]] += sc->fabric.mmu_reserve +
                                       ((n->lossless >> pg) & 1 ? p->headroom : 0);
        }
        uint64_t two = (uint64_t)nd->nports * 2 * n->mtu_wire;
        uint64_t share = w->buffer / n->n_pools;
        for (unsigned k = 0; k < n->n_pools; k++) {
            /* the last pool takes the division's remainder */
            uint64_t size = k + 1 < n->n_pools ? share : w->buffer - share * k;
            /* scenario_validate refused pools below reserved + 2 MTUs a port */
            if (size < res[k] + two)
                return err_set(e, "internal: packet engine given an unvalidated scenario");
            w->pool[k] = size - res[k];
            if (w->pool[k] > most)
                most = w->pool[k];
        }
    }
    n->xoff_slack = mmu_xoff_slack(sc->fabric.mmu_alpha, n->mtu_wire, most);
    return 0;
}

/* Th = alpha x the pool's free space; none once it is full. Signed
 * conversions (one instruction each; unsigned ones branch): buffers are far
 * below 2^63, so the values are the same. */
static uint64_t threshold(const struct sw *s, unsigned k, double alpha)
{
    if (s->shared_used[k] >= s->pool[k])
        return 0;
    return (uint64_t)(int64_t)(alpha * (double)(int64_t)(s->pool[k] - s->shared_used[k]));
}

uint64_t mmu_threshold(const struct sw *s, unsigned k, double alpha)
{
    return threshold(s, k, alpha);
}

/* d < slack, where slack 0 (unknown) admits every d: slack - 1 wraps on
 * purpose, one compare on the admission path. */
CKPT_WRAPS static inline int within_slack(uint64_t d, uint64_t slack)
{
    return d <= slack - 1;
}

/* With a = alpha F and b = alpha (F - w) as rounded doubles (F < 2^53:
 * exact), trunc(a) - trunc(b) < a - b + 1 <= alpha w + 1 + 2^-53 alpha 2F:
 * below alpha w + 1 + 2^-12 while alpha x pool < 2^40, so below
 * floor(alpha wmax) + 2, and + 3 covers alpha wmax's own rounding. Where
 * F - w <= 0, Th(F - w) = 0 and Th(F) <= alpha w < D: no skip follows. */
uint64_t mmu_xoff_slack(double alpha, uint64_t wmax, uint64_t pool)
{
    if (!(alpha > 0) || alpha * (double)pool >= 0x1p40 || (double)wmax * alpha >= 0x1p40)
        return 0;
    return (uint64_t)(alpha * (double)wmax) + 3;
}

static void count_drop(struct pnet *n, struct port *out, struct packet *pk,
                       int lossless)
{
    if (lossless)
        n->drops_lossless++;
    else
        n->drops_lossy++, n->drops_lossy_data += pk->kind == PK_DATA;
    out->drops++;
    if (pk->kind == PK_DATA)
        pnet_drop_bytes(n, pk);
}

static int trim_admit(struct pnet *n, struct sw *s, struct port *in, struct port *out,
                      struct packet *pk);

/* A packet the MMU cannot take: dropped, or, with packet trimming, a data
 * packet cut to its headers (trim_admit). */
static inline int refuse(struct pnet *n, struct sw *s, struct port *in, struct port *out,
                         struct packet *pk, int lossless, unsigned *prio)
{
    if (n->trim && pk->kind == PK_DATA && !pk->trim && !lossless) {
        int w = trim_admit(n, s, in, out, pk);
        *prio = pk->prio;
        return w;
    }
    count_drop(n, out, pk, lossless);
    return -1;
}

/* Inlined into its one caller (switch.c, by link-time optimisation): the
 * optimiser's own choice varies with the size of the rest of the loop.
 * *prio: pk's priority, in a register (a byte store to the hop's structs
 * may alias the packet's bit field, which would be read again after each);
 * a trim moves the packet to the control class and says so there. */
__attribute__((always_inline)) inline int mmu_admit_prio(struct pnet *n, struct sw *s,
                                                         struct port *in, struct port *out,
                                                         struct packet *pk, unsigned *prio)
{
    const struct scenario *sc = n->sc;
    unsigned pg = *prio;
    uint64_t wire = pkt_wire(n, pk);
    int lossless = (n->lossless >> pg) & 1;
    unsigned k = n->pool_of[pg];
    if (s->used + wire > s->buffer)
        return refuse(n, s, in, out, pk, lossless, prio);
    if (lossless) {
        /* the threshold before this packet where it went to shared space;
         * else the PG's shared use (the XOFF test below computes it) */
        uint64_t th = 0;
        if (in->ing[pg].reserve + wire <= sc->fabric.mmu_reserve) {
            in->ing[pg].reserve += wire;
            th = in->ing[pg].shared;
        } else if (in->ing[pg].shared + wire <= (th = threshold(s, k, sc->fabric.mmu_alpha))) {
            in->ing[pg].shared += wire;
            s->shared_used[k] += wire;
            if (s->shared_used[k] > s->max_shared[k])
                s->max_shared[k] = s->shared_used[k];
        } else if (in->ing[pg].hdrm + wire <= in->headroom) {
            in->ing[pg].hdrm += wire;
            if (in->ing[pg].hdrm > in->max_hdrm)
                in->max_hdrm = in->ing[pg].hdrm;
        } else {
            count_drop(n, out, pk, 1);
            return -1;
        }
        /* The XOFF test's threshold is the one after this packet: after a
         * shared admission (th >= the PG's use) it can be reached only
         * within xoff_slack of th, else it is known unreached without the
         * double arithmetic. xoff_slack 0: always computed. */
        if (!(in->xoff & (1u << pg)) &&
            (in->ing[pg].hdrm ||
             (within_slack(th - in->ing[pg].shared, n->xoff_slack) &&
              in->ing[pg].shared >= threshold(s, k, sc->fabric.mmu_alpha)))) {
            in->xoff_shared_sum += in->ing[pg].shared;
            pfc_send(n, in, pg, 1);
        }
    } else {
        uint64_t lim = threshold(s, k, sc->fabric.mmu_lossy_alpha);
        if (out->q[pg].bytes + wire > (n->trim_at < lim ? n->trim_at : lim))
            return refuse(n, s, in, out, pk, 0, prio);
        if (in->ing[pg].reserve + wire <= sc->fabric.mmu_reserve) {
            in->ing[pg].reserve += wire;
        } else {
            in->ing[pg].shared += wire;
            s->shared_used[k] += wire;
            if (s->shared_used[k] > s->max_shared[k])
                s->max_shared[k] = s->shared_used[k];
        }
    }
    if (in->ing[pg].shared > in->max_shared)
        in->max_shared = in->ing[pg].shared;
    s->used += wire;
    if (s->used > s->max_used)
        s->max_used = s->used;
    pk->in_port = (uint32_t)(in - n->ports) - s->first_port;
    return (int)wire;
}

int mmu_admit(struct pnet *n, struct sw *s, struct port *in, struct port *out, struct packet *pk)
{
    unsigned prio = pk->prio;
    return mmu_admit_prio(n, s, in, out, pk, &prio);
}

/* Packet trimming (UEC; SAI's drop-and-trim admission action): the payload
 * goes, the headers go on in the control class (strict priority), with the
 * PSN its receiver NACKs. A header the MMU cannot take either is dropped. */
static __attribute__((noinline)) int trim_admit(struct pnet *n, struct sw *s, struct port *in,
                                                struct port *out, struct packet *pk)
{
    n->trims++;
    n->trimmed_bytes += pk->payload;
    pk->payload = 0;
    pk->trim = 1;
    pk->dscp = (uint8_t)n->sc->transport.cnp_dscp;
    pk->prio = n->cnp_prio;
    return mmu_admit(n, s, in, out, pk);
}

/* The XON a later release sends reads these two lines, cold since the
 * XOFF (pfc_send: the peer and link delay, the implicit XOFF's start). */
static inline void xon_ahead(const struct port *in, unsigned pg)
{
    ckpt_prefetch(in);
    ckpt_prefetch(&in->xoff_since[pg]);
}

/* Inlined into port_kick (link-time optimisation), which has the packet's
 * wire bytes and priority (its queue's) at hand: a call a switch hop less. */
__attribute__((always_inline)) inline void mmu_release_prio(struct pnet *n, struct sw *s,
                                                            const struct packet *pk, uint64_t wire,
                                                            unsigned pg)
{
    struct port *in = &n->ports[s->first_port + pk->in_port];
    unsigned k = n->pool_of[pg];
    uint64_t left = wire;
    /* headroom drains first, then shared, then the reserve */
    uint64_t h = in->ing[pg].hdrm < left ? in->ing[pg].hdrm : left;
    in->ing[pg].hdrm -= h;
    left -= h;
    uint64_t sh = in->ing[pg].shared < left ? in->ing[pg].shared : left;
    in->ing[pg].shared -= sh;
    s->shared_used[k] -= sh;
    left -= sh;
    in->ing[pg].reserve -= left < in->ing[pg].reserve ? left : in->ing[pg].reserve;
    s->used -= wire;
    /* headroom in use: the PG is paused upstream (its XOFF went as it
     * filled) and no XON goes yet, known from the PG's line alone, without
     * the ingress line's xoff */
    if (in->ing[pg].hdrm) {
        xon_ahead(in, pg);
        return;
    }
    if (in->xoff & (1u << pg)) {
        if (!in->ing[pg].shared ||
            in->ing[pg].shared + 2 * n->mtu_wire <= threshold(s, k, n->sc->fabric.mmu_alpha))
            pfc_send(n, in, pg, 0);
        else
            xon_ahead(in, pg);
    }
}

void mmu_release(struct pnet *n, struct sw *s, struct packet *pk)
{
    mmu_release_prio(n, s, pk, pkt_wire(n, pk), pk->prio);
}

double red_probability(uint64_t q, uint64_t kmin, uint64_t kmax, double pmax)
{
    if (q <= kmin)
        return 0.0;
    if (q > kmax)
        return 1.0;
    return pmax * (double)(q - kmin) / (double)(kmax - kmin);
}

/* Inlined into port_kick (link-time optimisation), as mmu_release_prio;
 * q: pk's queue (its priority's), which it just left. */
__attribute__((always_inline)) inline void ecn_mark_q(struct pnet *n, struct sw *s,
                                                      struct port *out, const struct pktq *q,
                                                      struct packet *pk)
{
    if (!n->ecn || pk->kind != PK_DATA || q->bytes <= out->kmin)
        return; /* red_probability is 0 at or below kmin */
    double p = red_probability(q->bytes, out->kmin, out->kmax, n->sc->fabric.ecn_pmax);
    if (p > 0 && (p >= 1.0 || rng_double(&s->ecn_rng) < p)) {
        n->ecn_marked += !pk->ce; /* packets marked, not marks */
        pk->ce = 1;
        out->ecn_marked++;
    }
}

void ecn_mark(struct pnet *n, struct sw *s, struct port *out, struct packet *pk)
{
    ecn_mark_q(n, s, out, &out->q[pk->prio], pk);
}
