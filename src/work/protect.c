/* Data protection across the fabric: erasure-coded fragments and replica
 * forwards as transfers (protect.h). */
#include "protect.h"

#include <inttypes.h>
#include <string.h>

#include "../core/rng.h"
#include "../core/wire.h"

int protect_check(const struct scenario *sc, struct err *e)
{
    uint32_t M = sc->storage.nodes;
    if (sc->storage.protection == PROTECT_NONE)
        return 0;
    if (sc->storage.protection == PROTECT_EC) {
        uint64_t km = (uint64_t)sc->storage.ec_data + sc->storage.ec_parity;
        if (km > M)
            return err_set(e, "storage.ec_parity: ec %" PRIu32 "+%" PRIu32 " puts each file "
                              "on %" PRIu64 " distinct storage nodes; there are %" PRIu32,
                           sc->storage.ec_data, sc->storage.ec_parity, km, M);
    } else if (sc->storage.protection == PROTECT_REPLICA) {
        if (sc->storage.replicas > M)
            return err_set(e, "storage.replicas: %" PRIu32 " copies on distinct storage "
                              "nodes; there are %" PRIu32, sc->storage.replicas, M);
    }
    if (sc->storage.stripe_count > 1)
        return err_set(e, "storage.stripe_count: with storage.protection %s a file's "
                          "nodes are its protection's (leave stripe_count at 1)",
                       names_of(&names_protection, sc->storage.protection));
    if (sc->storage.placement == PLACE_HASH)
        return err_set(e, "storage.placement: hash places chunks, not files; "
                          "storage.protection needs round_robin or file_mod");
    return 0;
}

uint32_t protect_ec_fragments(const struct scenario *sc, uint32_t start, uint32_t M, uint64_t b,
                              uint32_t *node, uint64_t *bytes, uint8_t *kind)
{
    uint32_t k = sc->storage.ec_data, m = sc->storage.ec_parity, n = 0;
    uint64_t big = b / k + (b % k ? 1 : 0); /* the largest data fragment */
    for (uint32_t j = 0; j < k + m; j++) {
        uint64_t fb = j < k ? b / k + (j < b % k ? 1 : 0) : big;
        if (!fb)
            continue;
        node[n] = (uint32_t)(((uint64_t)start + j) % M);
        bytes[n] = fb;
        kind[n] = j < k ? XFER_DATA : XFER_PARITY;
        n++;
    }
    return n;
}

uint64_t protect_sent_bytes(const struct scenario *sc, uint64_t b)
{
    if (sc->storage.protection != PROTECT_EC)
        return b;
    uint64_t k = sc->storage.ec_data, m = sc->storage.ec_parity;
    unsigned __int128 v = (unsigned __int128)b * (k + m) + k - 1;
    v /= k;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

int protect_forward(struct workload *w, const struct scenario *sc, const struct topo *t,
                    uint32_t *sturn, uint64_t *sbytes, uint64_t *swire, struct arena *a,
                    struct err *e)
{
    if (sc->storage.protection != PROTECT_REPLICA || sc->storage.replicas < 2)
        return 0;
    uint32_t M = sc->storage.nodes, c = sc->storage.replicas - 1;
    uint32_t snics = sc->storage.nics_per_node ? sc->storage.nics_per_node : 1;
    uint64_t nt = (uint64_t)w->n * (1 + c);
    if (nt > UINT32_MAX / 2)
        return err_set(e, "storage.replicas: %" PRIu64 " transfers are too many", nt);
    struct transfer *x = arena_calloc(a, nt ? nt : 1, sizeof *x);
    if (!x)
        return err_set(e, "out of memory building the replica forwards");
    memcpy(x, w->xfers, w->n * sizeof *x);
    struct rng qp;
    rng_init(&qp, sc->seed, RNG_PROTECT);
    uint32_t n = w->n;
    for (uint32_t i = 0; i < w->n; i++) {
        uint32_t sn = (x[i].dst - t->first_storage) / snics;
        for (uint32_t j = 1; j <= c; j++) {
            uint32_t peer = (sn + j) % M;
            struct transfer *f = &x[n++];
            *f = x[i];
            f->src = x[i].dst; /* the NIC the primary receives on sends it on */
            f->dst = t->first_storage + peer * snics + sturn[peer]++ % snics;
            f->rate_bps = 0;   /* held by its primary's arrivals instead */
            f->kind = XFER_REPLICA;
            f->feed = i + 1;
            f->sport = (uint16_t)(0xC000u | (rng_u64(&qp) & 0x3FFFu));
            sbytes[peer] += f->bytes;
            swire[peer] += wire_bytes(f->bytes, scenario_wire(sc));
            w->total_bytes += f->bytes;
            w->protect_bytes += f->bytes;
        }
    }
    w->xfers = x;
    w->n = n;
    return 0;
}

int protect_data_only(const struct workload *w, struct workload *d, struct arena *a)
{
    *d = *w;
    d->xfers = arena_calloc(a, w->n ? w->n : 1, sizeof *d->xfers);
    if (!d->xfers)
        return -1;
    d->n = 0;
    for (uint32_t i = 0; i < w->n; i++)
        if (w->xfers[i].kind == XFER_DATA)
            d->xfers[d->n++] = w->xfers[i];
    d->total_bytes = w->total_bytes - w->protect_bytes;
    d->protect_bytes = 0;
    d->path = NULL;
    d->path_n = NULL;
    return 0;
}
