/* Ultra Ethernet framing against the UEC 1.0 specification (June 2025):
 * the wire bytes of a uec data packet, ACK and NACK (src/scenario/
 * tpscheme.c's row; each byte and its source in docs/engine.md). */
#include <stdio.h>

#include "../src/api/ckpt.h"
#include "../src/scenario/tpscheme.h"
#include "harness.h"
#include "support.h"

/* The spec's headers: a data packet is preamble and gap 20, Ethernet 14,
 * IPv4 20, UDP 8 (its source port the entropy), PDS RUD request 12, SES
 * standard request 44, FCS 4; an ACK the PDS ACK_CC 32 and the SES
 * response 12 where the data has PDS and SES; a NACK the PDS NACK 16, a
 * frame under Ethernet's 64 B minimum and so padded to it. */
enum { L2 = 20 + 14 + 4, IP_UDP = 20 + 8 };
enum { UEC_DATA = L2 + IP_UDP + 12 + 44, UEC_ACK = L2 + IP_UDP + 32 + 12, UEC_NACK = 20 + 64 };

static void uec_row_per_spec(void)
{
    const struct proto_scheme *p = proto_scheme(PROTO_UEC);
    CHECKF(p->overhead == UEC_DATA, "data overhead %u, spec %d", p->overhead, UEC_DATA);
    CHECKF(p->ack_wire == UEC_ACK, "ACK %u B, spec %d", p->ack_wire, UEC_ACK);
    CHECKF(p->nack_wire == UEC_NACK, "NACK %u B, spec %d", p->nack_wire, UEC_NACK);
    /* the NACK's frame (no preamble or gap) is under the minimum */
    CHECK(14 + IP_UDP + 16 + 4 < 64);
    /* RoCE keeps its ACK and NAK in the data framing */
    CHECK(proto_scheme(PROTO_ROCE)->ack_wire == 0 && proto_scheme(PROTO_ROCE)->nack_wire == 0);
}

/* 16 writers into one storage node, uec without congestion control and a
 * low trim threshold (so it NACKs), ACKs through the fabric: the storage
 * node's NIC sends nothing but ACKs and NACKs, so its port's bytes are
 * the ACKs at the spec's ACK size and the NACKs at the NACK size (before,
 * each was a 16 B control record in the data framing: 138 B). */
static void uec_reverse_path_bytes(void)
{
    struct scenario sc;
    test_uec_incast(&sc, 16);
    test_set(&sc, "fabric.trim.threshold=256KB");
    test_set(&sc, "telemetry.ports=true");
    struct results r;
    CHECK(test_run(&sc, &r) == 0);
    CHECKF(r.ok && r.flows_done == 16, "%u done, %s", r.flows_done, r.violation);
    CHECKF(r.trims > 0 && r.naks > 0 && r.rc_acks > 0, "%llu trims, %llu NACKs, %llu ACKs",
           (unsigned long long)r.trims, (unsigned long long)r.naks,
           (unsigned long long)r.rc_acks);
    uint32_t stor = sc.cluster.nodes, found = 0;
    uint64_t tx = 0;
    for (uint32_t p = 0; p < r.n_ports; p++)
        if (r.ports[p].node == stor) {
            tx = r.ports[p].tx_bytes;
            found++;
        }
    CHECKF(found == 1, "%u ports of node %u", found, stor);
    uint64_t want = r.rc_acks * UEC_ACK + r.naks * UEC_NACK;
    CHECKF(tx == want, "storage NIC sent %llu B; %llu ACKs x %d + %llu NACKs x %d = %llu B",
           (unsigned long long)tx, (unsigned long long)r.rc_acks, UEC_ACK,
           (unsigned long long)r.naks, UEC_NACK, (unsigned long long)want);
    results_release(&r);
}

SUITE(suite_uec2) = {
    {"uec2_row_per_spec", uec_row_per_spec},
    {"uec2_reverse_path_bytes", uec_reverse_path_bytes},
    {NULL, NULL},
};
