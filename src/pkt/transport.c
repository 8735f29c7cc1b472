/* The transports' registry, and the line-rate transport (no congestion
 * control: PFC alone keeps the fabric lossless). */
#include "pnet.h"

static uint64_t line_on_send(struct pnet *n, struct flow *f, struct packet *pk, uint64_t wire)
{
    (void)n, (void)pk, (void)wire;
    return f->line_bps;
}

static double line_rate(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return (double)f->line_bps;
}

/* line rate: nothing of the sender's to carry but its clock (hybrid.c) */
static const struct jump_ops line_jump = {
    .budget = 0.02,
};

const struct transport_ops transport_line_rate = {
    .cc = CC_NONE,
    .on_send = line_on_send,
    .line_rate = 1,
    .rate = line_rate,
    .jump = &line_jump,
};

void jump_side_carry(struct pnet *n, struct flow *f, uint32_t acked, uint32_t every,
                     const struct jump_move *m, void (*ask)(struct side_slot *sl))
{
    uint64_t sent = (f->sent + n->mtu - 1) / n->mtu;
    uint32_t k = sent > acked ? (uint32_t)(sent - acked) : 0, win = n->side_mask + 1;
    k = k < win ? k : win;
    for (uint32_t j = 0; j < k; j++)
        m->scratch[j] = *pnet_side(n, f, acked + j);
    for (uint32_t j = 0; j < k; j++) {
        uint32_t q = acked + j;
        struct side_slot *sl = pnet_side(n, f, q + m->dpsn);
        *sl = m->scratch[j];
        sl->psn += m->dpsn;
        sl->sent_ps += m->d;
        if (every > 1 && q >= f->expect_psn && (q + 1) % every == 0)
            ask(sl);
    }
    if (every > 1 && m->uneven)
        for (uint32_t j = 0; j < win; j++)
            ask(pnet_side(n, f, j));
}

void jump_side_acks(struct pnet *n, struct flow *f, uint32_t acked, uint32_t every,
                    int (*asked)(const struct side_slot *sl), void (*ask)(struct side_slot *sl))
{
    if (every <= 1 || acked >= f->expect_psn)
        return;
    uint64_t sent = (f->sent + n->mtu - 1) / n->mtu;
    if (sent <= f->expect_psn) {
        /* sent from the receiver's partition, as its ACKs are: the tie
         * key must not depend on the partition that ran last */
        uint32_t cur = n->cur;
        pnet_set_cur(n, n->part[f->dst]);
        nic_send_ack(n, f->dst, f, f->expect_psn);
        pnet_set_cur(n, cur);
        return;
    }
    int due = 0;
    for (uint64_t q = f->expect_psn; q < sent && !due; q++)
        due = (q + 1) % every == 0 || asked(pnet_side(n, f, (uint32_t)q));
    if (!due)
        ask(pnet_side(n, f, (uint32_t)(sent - 1)));
}

/* Indexed by transport.cc. */
static const struct transport_ops *const registry[CC_COUNT] = {
    [CC_NONE] = &transport_line_rate,
    [CC_DCQCN] = &transport_dcqcn,
    [CC_HPCC] = &transport_hpcc,
    [CC_NSCC] = &transport_nscc,
    [CC_SWIFT] = &transport_swift,
    [CC_DCTCP] = &transport_dctcp,
    [CC_CUBIC] = &transport_cubic,
};

const struct transport_ops *transport_of(enum cc_kind cc)
{
    return (unsigned)cc < CC_COUNT ? registry[cc] : NULL;
}

static const struct receiver_ops *const receivers[RX_COUNT] = {
    [RX_GBN] = &receiver_gbn,
    [RX_OOO] = &receiver_ooo,
    [RX_UEC] = &receiver_uec,
    [RX_TCP] = &receiver_tcp,
};

const struct receiver_ops *receiver_of(enum receiver_kind kind)
{
    return (unsigned)kind < RX_COUNT ? receivers[kind] : NULL;
}
