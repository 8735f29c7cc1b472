/* Packet-level engine: simulate the workload on the topology packet by
 * packet and fill the results. Returns 0 when the run completed (the results
 * may still report violated invariants in r->ok / r->violation), -1 with e
 * set when the run could not be set up. */
#ifndef CKPT_PKT_ENGINE_H
#define CKPT_PKT_ENGINE_H

#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../stats/results.h"
#include "../topo/topo.h"
#include "../work/work.h"

int pkt_run(const struct scenario *sc, const struct topo *t,
            const struct workload *w, struct results *r, struct err *e);
/* The same, recording frames at the ports sc's telemetry.pcap.ports names
 * into cap (src/pkt/capture.h); the results do not depend on it. */
struct ckpt_capture;
int pkt_run_capture(const struct scenario *sc, const struct topo *t,
                    const struct workload *w, struct results *r,
                    struct ckpt_capture *cap, struct err *e);
/* The same run with transport tp instead of transport.cc's (a transport
 * outside the registry: tests). */
struct transport_ops;
int pkt_run_transport(const struct scenario *sc, const struct topo *t,
                      const struct workload *w, struct results *r,
                      const struct transport_ops *tp, struct err *e);

/* transport.dcqcn.cnp_path direct: the latency of a CNP from endpoint from
 * to endpoint to on an idle path (ECMP's for sport): per link its wire delay
 * and the CNP's serialisation, per switch its latency; 0 when there is no
 * path (such a flow's CNPs cross the fabric). */
uint64_t pkt_cnp_direct_ps(const struct topo *t, const struct scenario *sc, uint32_t from,
                           uint32_t to, uint16_t sport);
/* The same for a control packet of `wire` bytes (transport.ack_path
 * direct: ACKs and NAKs, TCP's bare-header ACKs); *gap (when not NULL):
 * its serialisation on the path's slowest link, the spacing of two sent
 * back to back when they arrive. */
uint64_t pkt_ctrl_direct_ps(const struct topo *t, const struct scenario *sc, uint32_t from,
                            uint32_t to, uint16_t sport, uint64_t wire, uint64_t *gap);

#endif
