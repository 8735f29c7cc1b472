#include "bound.h"

#include <stdlib.h>

#include "../core/units.h"

const char *bound_limit_name(enum bound_limit l)
{
    static const char *const names[LIMIT_COUNT] = {
        "writer NIC", "compute-leaf uplinks", "storage-leaf uplinks",
        "storage NIC", "storage back end",
    };
    return l < LIMIT_COUNT ? names[l] : "?";
}

uint64_t wire_bytes(uint64_t bytes, uint32_t mtu)
{
    return bytes + (bytes + mtu - 1) / mtu * ROCE_OVERHEAD;
}

/* Minimum latency of the transfer's last packet from the moment it leaves
 * the bottleneck: every hop's propagation, every switch's latency and the
 * serialisation of that packet on every hop after the first. */
static uint64_t path_base_ps(const struct topo *t, const struct transfer *x,
                             const struct scenario *sc)
{
    uint64_t last = x->bytes % sc->fabric.mtu ? x->bytes % sc->fabric.mtu
                                               : sc->fabric.mtu;
    last += ROCE_OVERHEAD;
    uint32_t dleaf = t->nodes[x->dst].leaf;
    uint32_t node = t->nodes[x->src].leaf;
    uint64_t ps = t->ports[t->nodes[x->src].first_port].delay_ps;
    for (int guard = 0; guard < 16; guard++) {
        uint32_t p;
        if (node == dleaf) {
            p = t->nodes[x->dst].leaf_port;
        } else {
            const struct route *r = topo_route(t, node, dleaf);
            p = t->nh_ports[r->off];
        }
        ps += sc->fabric.switch_latency_ps + t->ports[p].delay_ps +
              units_ser_ps(last, t->ports[p].bps);
        if (node == dleaf)
            break;
        node = t->ports[t->ports[p].peer].node;
    }
    return ps;
}

static uint64_t up_bps(const struct topo *t, uint32_t leaf)
{
    const struct tnode *n = &t->nodes[leaf];
    uint64_t bps = 0;
    for (uint32_t p = n->first_port; p < n->first_port + n->nports; p++)
        if (t->ports[t->ports[p].peer].node >= t->first_cleaf && !t->ports[p].failed)
            bps += t->ports[p].bps;
    return bps;
}

void bound_compute(struct results *r, const struct topo *t,
                   const struct workload *w, const struct scenario *sc)
{
    uint64_t term[LIMIT_COUNT] = {0};
    uint64_t *to_storage = calloc(t->n_storage, sizeof *to_storage);
    uint64_t *to_storage_payload = calloc(t->n_storage, sizeof *to_storage_payload);
    uint64_t *leaf_out = calloc(t->n_leaves, sizeof *leaf_out);
    uint64_t *leaf_in = calloc(t->n_leaves, sizeof *leaf_in);
    /* per source node: bytes and earliest start, for NICs shared by writers */
    uint64_t *node_bytes = calloc(t->first_storage, sizeof *node_bytes);
    uint64_t *node_start = malloc(t->first_storage * sizeof *node_start);
    for (uint32_t i = 0; node_start && i < t->first_storage; i++)
        node_start[i] = UINT64_MAX;
    uint64_t start0 = UINT64_MAX, base = UINT64_MAX, writer_end = 0;
    for (uint32_t i = 0; i < w->n; i++)
        if (w->xfers[i].start_ps < start0)
            start0 = w->xfers[i].start_ps;
    int ok = to_storage && to_storage_payload && leaf_out && leaf_in && node_bytes &&
             node_start;
    for (uint32_t i = 0; i < w->n && ok; i++) {
        const struct transfer *x = &w->xfers[i];
        uint64_t wb = wire_bytes(x->bytes, sc->fabric.mtu);
        uint64_t b = path_base_ps(t, x, sc);
        uint64_t nic = t->ports[t->nodes[x->src].first_port].bps;
        uint64_t end = x->start_ps - start0 + units_ser_ps(wb, nic);
        if (x->rate_bps && x->rate_bps < nic) {
            /* a capped queue pair spaces its packets at the cap (wire
             * bytes); the last one then leaves at line rate */
            uint64_t last = (x->bytes % sc->fabric.mtu ? x->bytes % sc->fabric.mtu
                                                        : sc->fabric.mtu) + ROCE_OVERHEAD;
            end = x->start_ps - start0 + units_ser_ps(wb - last, x->rate_bps) +
                  units_ser_ps(last, nic);
        }
        if (end > term[LIMIT_WRITER_NIC])
            term[LIMIT_WRITER_NIC] = end;
        if (end + b > writer_end)
            writer_end = end + b;
        if (b < base)
            base = b;
        to_storage[x->dst - t->first_storage] += wb;
        to_storage_payload[x->dst - t->first_storage] += x->bytes;
        if (x->src < t->first_storage) {
            node_bytes[x->src] += wb;
            if (x->start_ps < node_start[x->src])
                node_start[x->src] = x->start_ps;
        }
        uint32_t sl = t->nodes[x->src].leaf, dl = t->nodes[x->dst].leaf;
        if (sl != dl) {
            leaf_out[sl - t->first_cleaf] += wb;
            leaf_in[dl - t->first_cleaf] += wb;
        }
    }
    for (uint32_t h = 0; ok && h < t->first_storage; h++) {
        if (!node_bytes[h])
            continue;
        uint64_t end = node_start[h] - start0 +
                       units_ser_ps(node_bytes[h], t->ports[t->nodes[h].first_port].bps);
        if (end > term[LIMIT_WRITER_NIC])
            term[LIMIT_WRITER_NIC] = end;
    }
    for (uint32_t j = 0; ok && j < t->n_storage; j++) {
        const struct tnode *s = &t->nodes[t->first_storage + j];
        uint64_t v = units_ser_ps(to_storage[j], t->ports[s->leaf_port].bps);
        if (v > term[LIMIT_STORAGE_NIC])
            term[LIMIT_STORAGE_NIC] = v;
        /* the back end drains payload; the ingest buffer cannot end the
         * write before the drain does */
        if (sc->storage.drain_bps) {
            uint64_t d = units_ser_ps(to_storage_payload[j], sc->storage.drain_bps);
            if (d > term[LIMIT_STORAGE_DRAIN])
                term[LIMIT_STORAGE_DRAIN] = d;
        }
    }
    for (uint32_t l = 0; ok && l < t->n_leaves; l++) {
        uint64_t cap = up_bps(t, t->first_cleaf + l);
        enum bound_limit lim = l < t->n_cleaves ? LIMIT_CLEAF_UP : LIMIT_SLEAF_UP;
        uint64_t v = units_ser_ps(l < t->n_cleaves ? leaf_out[l] : leaf_in[l], cap);
        if (v > term[lim])
            term[lim] = v;
    }
    if (base == UINT64_MAX)
        base = 0;
    r->bound_limit = LIMIT_WRITER_NIC;
    /* the per-transfer writer term carries its own path latency */
    uint64_t best = writer_end > term[LIMIT_WRITER_NIC] + base
                        ? writer_end : term[LIMIT_WRITER_NIC] + base;
    for (int l = 0; l < LIMIT_COUNT; l++) {
        r->bound_term_s[l] = (double)term[l] / (double)PS_PER_S;
        uint64_t v = l == LIMIT_WRITER_NIC ? best : term[l] + base;
        if (v > best) {
            best = v;
            r->bound_limit = (enum bound_limit)l;
        }
    }
    r->bound_s = (double)best / (double)PS_PER_S;
    r->base_latency_s = (double)base / (double)PS_PER_S;
    free(to_storage);
    free(to_storage_payload);
    free(leaf_out);
    free(leaf_in);
    free(node_bytes);
    free(node_start);
}

void balance_compute(struct results *r, const struct topo *t, const double *port_bytes)
{
    double worst_leaf = 0, spine_max = 0, spine_sum = 0;
    for (uint32_t l = t->first_cleaf; l < t->first_sleaf; l++) {
        const struct tnode *nd = &t->nodes[l];
        double sum = 0, mx = 0;
        uint32_t k = 0;
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++) {
            if (t->ports[p].seg != SEG_CLEAF_UP)
                continue;
            sum += port_bytes[p];
            mx = port_bytes[p] > mx ? port_bytes[p] : mx;
            k++;
        }
        if (sum > 0 && mx * k / sum > worst_leaf)
            worst_leaf = mx * k / sum;
    }
    for (uint32_t s = t->first_spine; s < t->n_nodes; s++) {
        const struct tnode *nd = &t->nodes[s];
        double b = 0;
        for (uint32_t p = nd->first_port; p < nd->first_port + nd->nports; p++)
            if (t->ports[p].seg == SEG_SPINE_DOWN)
                b += port_bytes[p];
        spine_sum += b;
        spine_max = b > spine_max ? b : spine_max;
    }
    r->lb_uplink_imbalance = worst_leaf;
    r->lb_spine_imbalance = spine_sum > 0 ? spine_max * t->n_spines / spine_sum : 0;
}
