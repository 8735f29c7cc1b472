/* ckpt_describe: a scenario's derived figures and the cost of running it,
 * without running it. */
#include <string.h>

#include "../../include/ckptnet.h"
#include "../core/arena.h"
#include "../cost/cost.h"
#include "../pkt/pnet.h"
#include "../stats/bound.h"
#include "../stats/segments.h"
#include "../topo/topo.h"
#include "../work/work.h"
#include "api.h"

/* Engine speeds on this project's machine (BENCHMARKS.md): the packet engine
 * ~12 M events/s on the 1024-writer burst, the fluid engine ~3 us per
 * transfer on the 100k-GPU scenario. */
#define PKT_EVENTS_PER_S 1.2e7
#define FLUID_S_PER_TRANSFER 3e-6

/* Upper estimate of the packet engine's memory: its state per port, switch,
 * endpoint and flow, the event queue (every flow start is queued at once,
 * plus two events per port), and packets: at most every switch buffer full
 * plus every wire's bandwidth-delay product, in slabs of 4096. */
static double pkt_mem(const struct scenario *sc, const struct topo *t, uint32_t nflows,
                      double packets)
{
    double wire = (double)sc->fabric.mtu + ROCE_OVERHEAD;
    double held = 0;
    for (uint32_t s = 0; s < t->n_switches; s++)
        held += (double)(t->first_cleaf + s >= t->first_spine ? sc->fabric.spine_buffer
                                                             : sc->fabric.leaf_buffer) / wire;
    for (uint32_t p = 0; p < t->n_ports; p++)
        held += (double)t->ports[p].bps * (double)t->ports[p].delay_ps / 8e12 / wire + 1;
    if (held > packets)
        held = packets;
    double slabs = (double)((uint64_t)(held / 4096) + 1) * 4096;
    double arena = (double)t->n_ports * sizeof(struct port) +
                   (double)t->n_switches * sizeof(struct sw) +
                   (double)t->first_cleaf * sizeof(struct nic) +
                   (double)nflows * sizeof(struct flow) + PATH_SETS * QHIST_BUCKETS * 8.0 +
                   slabs * sizeof(struct packet);
    /* the arena takes 1 MB blocks and may leave each one's tail unused */
    double blocks = (double)((uint64_t)(arena / (1 << 20)) + 2) * (1 << 20);
    return blocks + ((double)nflows + 2.0 * t->n_ports) * sizeof(struct event) * 2;
}

void ckpt_estimate(const struct scenario *sc, const struct topo *t, const struct workload *w,
                   const struct arena *a, int engine, struct ckpt_estimate *est)
{
    memset(est, 0, sizeof *est);
    for (uint32_t i = 0; i < w->n; i++)
        est->packets += (double)((w->xfers[i].bytes + sc->fabric.mtu - 1) / sc->fabric.mtu);
    if (engine == ENGINE_FLUID) {
        /* per transfer: flow state, path, max-min lists (~45 words);
         * per port: link state (~32 words); from cluster-100k, whose
         * run takes 70.0 MB; 1 MB arena blocks */
        est->events = 2.0 * w->n;
        double fl = 360.0 * w->n + 256.0 * t->n_ports;
        est->mem_bytes = (double)a->total + (double)((uint64_t)(fl / (1 << 20)) + 2) * (1 << 20);
        est->wall_s = FLUID_S_PER_TRANSFER * w->n;
    } else {
        est->events = 8 * est->packets;
        est->mem_bytes = (double)a->total + pkt_mem(sc, t, w->n, est->packets);
        est->wall_s = est->events / PKT_EVENTS_PER_S;
    }
}

int ckpt_describe(const struct scenario *user, struct ckpt_description *d, struct err *e)
{
    struct arena a;
    struct topo t;
    struct workload w;
    memset(d, 0, sizeof *d);
    struct results *r = &d->r;
    struct scenario eff;
    const struct scenario *sc = &eff;
    arena_init(&a);
    int rc = ckpt_prepare(user, &eff, &a, &t, &w, r, e);
    if (rc == 0) {
        d->engine = ckpt_choose_engine(sc, &t, &w, r);
        r->engine = d->engine == ENGINE_FLUID ? "fluid" : "packet";
        segments_compute(r, &t, &w, sc);
        d->transfers = w.n;
        d->ports = t.n_ports;
        struct ckpt_estimate est;
        ckpt_estimate(sc, &t, &w, &a, d->engine, &est);
        d->est_packets = est.packets;
        d->est_events = est.events;
        d->est_mem_bytes = est.mem_bytes;
        d->est_wall_s = est.wall_s;
        /* say so when a run would be refused (ckpt_run gives the figures) */
        struct err big;
        if (d->engine == ENGINE_PACKET &&
            ckpt_packet_limits(sc, &est, ckpt_phys_bytes(), &big) < 0) {
            size_t l = strlen(r->engine_reason);
            snprintf(r->engine_reason + l, sizeof r->engine_reason - l,
                     "; too large: run refused without --force (or use --engine fluid)");
        }
    }
    arena_release(&a);
    return rc;
}
