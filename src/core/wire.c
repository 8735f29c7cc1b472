/* Framing and buffer physics (wire.h). PFC headroom follows SONiC's buffer
 * calculator: 2 MTU + cable round trip + the peer's response time (IEEE
 * 802.3 Annex 31B quanta by speed). */
#include "wire.h"

#include <math.h>

#define FIBRE_MPS 1.98e8 /* signal speed in fibre, m/s */

static uint64_t peer_response_bytes(uint64_t bps)
{
    unsigned quanta = bps <= UINT64_C(100000000000) ? 394
                    : bps <= UINT64_C(200000000000) ? 453 : 905;
    return (uint64_t)quanta * 512 / 8;
}

uint64_t wire_bytes(uint64_t bytes, struct wire_fmt w)
{
    return bytes + (bytes + w.payload - 1) / w.payload * w.overhead;
}

uint64_t wire_headroom(uint64_t bps, uint64_t delay_ps, double cable_m, uint64_t frame)
{
    double meters = cable_m > 0 ? cable_m : (double)delay_ps * 1e-12 * FIBRE_MPS;
    uint64_t cable = (uint64_t)ceil(2.0 * meters * (double)bps / FIBRE_MPS / 8.0);
    return 2 * frame + cable + peer_response_bytes(bps);
}
