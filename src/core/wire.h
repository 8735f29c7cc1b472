/* Wire and buffer physics shared by the scenario checks, the engines and
 * the reports: RoCEv2 framing, the number of priorities, and the PFC
 * headroom a lossless (port, PG) needs. Plain numbers in, so the scenario
 * can size buffers the way the packet engine will without depending on it.
 */
#ifndef CKPT_WIRE_H
#define CKPT_WIRE_H

#include <stdint.h>

#define ROCE_OVERHEAD 82 /* preamble+IFG+Eth+FCS+IPv4+UDP+BTH+ICRC */
#define NPRIO 8          /* 802.1p priorities, one PG and egress queue each */

/* A transport protocol's framing (transport.protocol): payload bytes per
 * full packet and wire bytes per packet beyond them. */
struct wire_fmt {
    uint32_t payload;
    uint32_t overhead;
};

/* Wire bytes of a transfer of `bytes` payload packetised in w. */
uint64_t wire_bytes(uint64_t bytes, struct wire_fmt w);

/* Wire bytes of the largest packet. */
static inline uint64_t wire_frame(struct wire_fmt w)
{
    return (uint64_t)w.payload + w.overhead;
}

/* PFC headroom in bytes of a lossless (port, PG) on a link of bps and
 * delay_ps carrying frames of up to `frame` wire bytes; cable_m > 0
 * overrides the cable length the delay implies. */
uint64_t wire_headroom(uint64_t bps, uint64_t delay_ps, double cable_m, uint64_t frame);

#endif
