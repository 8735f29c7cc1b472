/* Data protection across the fabric: erasure-coded fragments, replica
 * forwards and chain hops as transfers (protect.h). */
#include "protect.h"

#include <inttypes.h>
#include <string.h>

#include "../core/rng.h"
#include "../core/units.h"
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
    } else if (sc->storage.protection == PROTECT_REPLICA ||
               sc->storage.protection == PROTECT_CHAIN) {
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
    int chain = sc->storage.protection == PROTECT_CHAIN;
    if ((sc->storage.protection != PROTECT_REPLICA && !chain) || sc->storage.replicas < 2)
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
        uint32_t from = i; /* the transfer the next copy is fed by */
        for (uint32_t j = 1; j <= c; j++) {
            uint32_t peer = (sn + j) % M;
            struct transfer *f = &x[n];
            *f = x[i];
            /* the NIC the feeding copy arrives on sends it on: the primary's
             * for every replica forward, the previous node's along a chain */
            f->src = x[from].dst;
            f->dst = t->first_storage + peer * snics + sturn[peer]++ % snics;
            /* no rate: held by its feed's arrivals instead (workload_rate) */
            f->kind = XFER_REPLICA;
            f->feed = 1; /* fed by `from` (workload_feed) */
            if (chain)
                from = n;
            n++;
            f->sport = (uint16_t)(0xC000u | (rng_u64(&qp) & 0x3FFFu));
            sbytes[peer] += f->bytes;
            swire[peer] += wire_bytes(f->bytes, scenario_wire(sc));
            w->total_bytes += f->bytes;
            w->protect_bytes += f->bytes;
        }
    }
    w->xfers = x;
    w->fwd_first = w->n;
    w->fwd_per = c;
    w->fwd_chain = chain;
    w->n = n;
    return 0;
}

int protect_data_only(const struct workload *w, struct workload *d, struct arena *a)
{
    *d = *w;
    d->xfers = arena_calloc(a, w->n ? w->n : 1, sizeof *d->xfers);
    if (!d->xfers)
        return -1;
    uint32_t *xf = arena_calloc(a, w->n ? w->n : 1, sizeof *xf);
    d->xrate = w->xrate ? arena_calloc(a, w->n ? w->n : 1, sizeof *d->xrate) : NULL;
    d->xstart = w->xstart ? arena_calloc(a, w->n ? w->n : 1, sizeof *d->xstart) : NULL;
    if (!xf || (w->xrate && !d->xrate) || (w->xstart && !d->xstart))
        return -1;
    d->n = 0;
    for (uint32_t i = 0; i < w->n; i++)
        if (w->xfers[i].kind == XFER_DATA) {
            if (d->xrate)
                d->xrate[d->n] = workload_rate(w, i);
            if (d->xstart)
                d->xstart[d->n] = workload_start(w, i);
            xf[d->n] = workload_file(w, i);
            d->xfers[d->n++] = w->xfers[i];
        }
    d->xfile = xf;
    d->fwd_first = d->fwd_per = 0; /* no forwards */
    d->fwd_chain = 0;
    d->total_bytes = w->total_bytes - w->protect_bytes;
    d->protect_bytes = 0;
    d->path = NULL;
    d->path_n = NULL;
    d->kind = NULL;
    d->kind_memo = NULL;
    d->kind_of = NULL;
    d->kind_sc = NULL;
    d->kind_t = NULL;
    return 0;
}

/* Unloaded one-way time of an acknowledgement from node a to node b: on
 * each port its serialisation and the link's delay, at each switch its
 * latency (the control class's queues taken as empty). */
static uint64_t ack_path_ps(const struct scenario *sc, const struct topo *t, uint32_t a,
                            uint32_t b, uint16_t sport)
{
    uint32_t path[TOPO_MAX_HOPS];
    uint32_t np = topo_path(t, a, b, sport, path, TOPO_MAX_HOPS);
    uint64_t frame = wire_bytes(PROTECT_ACK_PAYLOAD, scenario_wire(sc)), ps = 0;
    for (uint32_t i = 0; i < np; i++) {
        const struct tport *p = &t->ports[path[i]];
        ps += units_ser_ps(frame, p->bps) + topo_delay(t, p);
        if (i > 0)
            ps += p->node >= t->first_spine ? sc->fabric.spine_latency_ps
                                            : sc->fabric.leaf_latency_ps;
    }
    return ps;
}

uint64_t protect_chain_ack_ps(const struct workload *w, const struct scenario *sc,
                              const struct topo *t, uint32_t i)
{
    uint64_t ps = 0;
    const struct transfer *x = &w->xfers[i];
    for (uint32_t k = i; x->feed; ) { /* the tail's ack retraces the chain to its head */
        ps += ack_path_ps(sc, t, x->dst, x->src, x->sport);
        k = workload_feed(w, k) - 1;
        x = &w->xfers[k];
    }
    return ps;
}

void protect_commit(const struct workload *w, const struct scenario *sc, const struct topo *t,
                    uint64_t *done)
{
    if (sc->storage.protection != PROTECT_CHAIN || w->restore)
        return;
    for (uint32_t i = 0; i < w->n; i++) {
        const struct transfer *x = &w->xfers[i];
        /* a chain's hops are consecutive: the tail is the last */
        int tail = x->feed && (i + 1 == w->n || workload_feed(w, i + 1) != i + 1);
        if (!tail || done[i] == UINT64_MAX)
            continue;
        /* no node has it all before the one ahead of it has: the fluid
         * engine runs the hops unheld, so the tail may end before them */
        uint64_t d = done[i];
        for (uint32_t k = workload_feed(w, i); k; k = workload_feed(w, k - 1))
            d = done[k - 1] > d ? done[k - 1] : d;
        uint64_t a = protect_chain_ack_ps(w, sc, t, i);
        done[i] = d > UINT64_MAX - a ? UINT64_MAX : d + a;
    }
}
