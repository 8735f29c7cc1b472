/* The transports' registry, and the line-rate transport (no congestion
 * control: PFC alone keeps the fabric lossless). */
#include "pnet.h"

static uint64_t line_on_send(struct pnet *n, struct flow *f, uint64_t wire)
{
    (void)n, (void)wire;
    return f->line_bps;
}

static double line_rate(const struct pnet *n, const struct flow *f)
{
    (void)n;
    return (double)f->line_bps;
}

const struct transport_ops transport_line_rate = {
    .cc = CC_NONE,
    .on_send = line_on_send,
    .line_rate = 1,
    .rate = line_rate,
};

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
