/* ckpt_run: the pipeline from a validated scenario to results. */
#include <string.h>

#include <stdio.h>

#include "../../include/ckptnet.h"
#include "../core/arena.h"
#include "../cost/cost.h"
#include "../fluid/fluid.h"
#include "../pkt/engine.h"
#include "../stats/bound.h"
#include "../stats/segments.h"
#include "api.h"
#include "../topo/topo.h"
#include "../work/work.h"

/* engine: auto. The packet engine spends about 8 events per packet (a
 * serialisation end and a wire arrival on each of 4 links) at ~10 M events/s
 * here (BENCHMARKS.md); past 1e8 events (~10 s) the fluid engine runs. */
#define AUTO_EVENT_LIMIT 1e8

int ckpt_choose_engine(const struct scenario *sc, const struct workload *w,
                       struct results *r)
{
    if (sc->engine != ENGINE_AUTO) {
        snprintf(r->engine_reason, sizeof r->engine_reason, "requested (engine: %s)",
                 sc->engine == ENGINE_FLUID ? "fluid" : "packet");
        return sc->engine;
    }
    double pkts = 0;
    for (uint32_t i = 0; i < w->n; i++)
        pkts += (double)((w->xfers[i].bytes + sc->fabric.mtu - 1) / sc->fabric.mtu);
    double ev = 8 * pkts;
    int fluid = ev > AUTO_EVENT_LIMIT;
    snprintf(r->engine_reason, sizeof r->engine_reason,
             "auto: ~%.2g packet-engine events (8 per packet x %.3g packets) %s 1e8",
             ev, pkts, fluid ? ">" : "<=");
    return fluid ? ENGINE_FLUID : ENGINE_PACKET;
}

/* Say where the fabric asks more of a switch than its profile has: more
 * ports, or faster links than its ports run. The run goes on. */
static void fabric_warnings(struct results *r, const struct topo *t, const struct scenario *sc)
{
    uint32_t leaf_need = 0, spine_need = 0;
    for (uint32_t n = t->first_cleaf; n < t->n_nodes; n++) {
        uint32_t *need = n >= t->first_spine ? &spine_need : &leaf_need;
        if (t->nodes[n].nports > *need)
            *need = t->nodes[n].nports;
    }
    size_t len = 0, cap = sizeof r->warnings;
    r->warnings[0] = '\0';
    if (leaf_need > sc->fabric.leaf_ports)
        len += (size_t)snprintf(r->warnings + len, cap - len,
                                "%sa leaf needs %u ports, %s has %u", len ? "; " : "",
                                leaf_need, sc->fabric.leaf_switch, sc->fabric.leaf_ports);
    if (len < cap && spine_need > sc->fabric.spine_ports)
        len += (size_t)snprintf(r->warnings + len, cap - len,
                                "%sa spine needs %u ports, %s has %u", len ? "; " : "",
                                spine_need, sc->fabric.spine_switch, sc->fabric.spine_ports);
    uint64_t host = sc->cluster.nic_bps > sc->storage.nic_bps ? sc->cluster.nic_bps
                                                             : sc->storage.nic_bps;
    uint64_t up = sc->fabric.uplink_bps;
    if (len < cap && (host > sc->fabric.leaf_port_bps || up > sc->fabric.leaf_port_bps ||
                      up > sc->fabric.spine_port_bps))
        snprintf(r->warnings + len, cap - len,
                 "%slinks faster than the profiles' ports (leaf %llu Gbps, spine %llu Gbps)",
                 len ? "; " : "", (unsigned long long)(sc->fabric.leaf_port_bps / 1000000000),
                 (unsigned long long)(sc->fabric.spine_port_bps / 1000000000));
}

int ckpt_prepare(const struct scenario *user, struct scenario *eff, struct arena *a,
                 struct topo *t, struct workload *w, struct results *r, struct err *e)
{
    r->bottleneck.seg = r->bottleneck.next_seg = -1;
    /* profiles and presets fill what the user left open (idempotent) */
    *eff = *user;
    if (scenario_resolve(eff, e) < 0)
        return -1;
    struct scenario fab; /* every NIC of a node is its own host port */
    workload_fabric(eff, &fab);
    if (topo_build(t, &fab, a, e) < 0 || cost_check(eff, e) < 0 ||
        workload_build(w, eff, t, a, e) < 0)
        return -1;
    r->ckpt_bytes = w->total_bytes;
    r->plan = w->sum;
    r->writers = w->n_writers;
    r->oversub_compute = t->oversub_compute;
    r->oversub_storage = t->oversub_storage;
    r->switches = t->n_switches;
    r->links = t->n_ports / 2;
    r->failed_links = t->n_failed;
    memcpy(r->failed_link_names, t->failed_names, sizeof r->failed_link_names);
    bound_compute(r, t, w, eff);
    fabric_warnings(r, t, eff);
    return 0;
}

int ckpt_run(const struct scenario *user, struct results *r, struct err *e)
{
    return ckpt_run_progress(user, r, NULL, e);
}

int ckpt_run_progress(const struct scenario *user, struct results *r,
                      const struct ckpt_progress *progress, struct err *e)
{
    return ckpt_run_capture(user, r, progress, NULL, e);
}

int ckpt_run_capture(const struct scenario *user, struct results *r,
                     const struct ckpt_progress *progress, struct ckpt_capture *cap,
                     struct err *e)
{
    struct arena a;
    struct topo t;
    struct workload w;
    struct scenario eff;
    const struct scenario *sc = &eff;
    memset(r, 0, sizeof *r);
    r->progress = progress && progress->fn ? progress : NULL;
    arena_init(&a);
    int rc = ckpt_prepare(user, &eff, &a, &t, &w, r, e);
    if (rc == 0) {
        if (ckpt_choose_engine(sc, &w, r) == ENGINE_FLUID)
            rc = cap ? err_set(e, "--pcap: the fluid engine moves no packets to capture "
                                  "(%s); use engine: packet", r->engine_reason)
                     : fluid_run(sc, &t, &w, r, e);
        else
            rc = pkt_run_capture(sc, &t, &w, r, cap, e);
        if (rc == 0) {
            r->transfers = w.n;
            r->finished = r->flows_done == w.n;
            segments_compute(r, &t, &w, sc);
            cost_compute(r, sc);
        }
        r->mem_bytes += a.total;
    }
    arena_release(&a);
    r->progress = NULL;
    return rc;
}
