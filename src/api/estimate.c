/* The cost of a run before running it, and the engine and limits that
 * follow from it: what ckpt_describe reports and ckpt_run decides on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ckpt.h"
#include "../core/arena.h"
#include "../fluid/fluid.h"
#include "../pkt/pnet.h"
#include "../scenario/tpscheme.h"
#include "../stats/bound.h"
#include "../stats/series.h"
#include "../topo/topo.h"
#include "../work/train.h"
#include "../work/work.h"
#include "api.h"

/* The fluid engine's cost on this project's machine (BENCHMARKS.md), per
 * transfer and per path entry (a link and the share of a transfer on it:
 * ~6 a transfer on one path, ~2,100 for spray over three tiers of 64-port
 * switches). Fitted on cluster-100k (100k transfers, ECMP: 0.29 s, 79 MB)
 * and its spray runs at 1,000-4,000 nodes (0.12-15.7 s, up to 1.9 GB);
 * the packet engine's: api.h. */
#define FLUID_S_PER_TRANSFER 1.5e-6
#define FLUID_S_PER_ENTRY 2.2e-7
#define FLUID_BYTES_PER_TRANSFER 200.0
#define FLUID_BYTES_PER_ENTRY 28.0
/* a leaf pair's link in the grouped solver (spray on three tiers): its id,
 * weight and the link's list of groups; fitted like the above on
 * cluster-100k with spray at 2,000 and 12,500 nodes (33 and 194 MB) */
#define FLUID_BYTES_PER_GROUP_ENTRY 16.0
/* per port: about half a fabric's ports are solver links (~210 B each:
 * the link, its counters, its heap and list slots), the others only a
 * 4-byte map entry; 256 while every port was a solver link */
#define FLUID_BYTES_PER_PORT 110.0
/* Packet-engine events per data packet: at least 8 (a serialisation end
 * and a wire arrival on each of 4 links), at most 1.25x
 * ckpt_pkt_events_per_packet (8, more with DCQCN): measured 8.06-8.7 with
 * PFC's refreshes and XON/XOFF, 10.1-11.7 with DCQCN, 8.6-10.0 with its CNPs
 * sent direct (tests/test_report.c, BENCHMARKS.md's burst). */
#define PKT_EVENTS_SPREAD 1.25
/* While go-back-N resends, the engine spends events faster than on the first
 * sends (resent packets cross links the first sends left idle): 1.8x on
 * BENCHMARKS.md's spray + go-back-N burst (2026-11-29: 1,552 M events in the
 * 1.05 s to its time limit, against 18.9 M in 21.2 ms). */
#define PKT_EVENTS_RESEND 2.0

/* Packets in flight at most: every switch buffer full plus every wire's
 * bandwidth-delay product, no more than the run's packets. */
static double pkt_held(const struct scenario *sc, const struct topo *t, double packets)
{
    double wire = (double)wire_frame(scenario_wire(sc));
    double held = 0;
    for (uint32_t s = 0; s < t->n_switches; s++)
        held += (double)(t->first_cleaf + s >= t->first_spine ? sc->fabric.spine_buffer
                                                             : sc->fabric.leaf_buffer) / wire;
    for (uint32_t p = 0; p < t->n_ports; p++)
        held += (double)t->ports[p].bps * (double)topo_delay(t, &t->ports[p]) / 8e12 / wire + 1;
    return held < packets ? held : packets;
}

/* Fitted on the bench set (bench-1024 and bench-1024-3tier at 128-4096
 * writers, BENCHMARKS.md): user CPU per event 40-51 ns up to 27 MB of
 * packets and ports, 90-103 ns at 38-99 MB, 153 ns at 150 MB, 242 ns at
 * 296 MB, on a machine at load 9-16; the quiet machine's 53 ns at
 * bench-1024's 38 MB sets the level. */
double ckpt_pkt_ns_per_event(const struct scenario *sc, const struct topo *t, double packets)
{
    double ws = (pkt_held(sc, t, packets) * CKPT_PKT_WS_PACKET_BYTES +
                 (double)t->n_ports * CKPT_PKT_WS_PORT_BYTES) / 1e6;
    return CKPT_PKT_NS_PER_EVENT +
           (ws > CKPT_PKT_WS_FREE_MB ? CKPT_PKT_NS_PER_MB * (ws - CKPT_PKT_WS_FREE_MB) : 0);
}

/* Upper estimate of the packet engine's memory: its state per port, switch,
 * endpoint and flow, the event queue (every flow start is queued at once,
 * plus two events per port), and packets: pkt_held, in chunks and slabs. */
static double pkt_mem(const struct scenario *sc, const struct topo *t, uint32_t nflows,
                      double packets)
{
    double held = pkt_held(sc, t, packets);
    /* packets in chunks of PKT_CHUNK; a queue or wire may hold a part-used
     * chunk at each end; chunks come in 2 MB slabs */
    double chunks = held / PKT_CHUNK + 3.0 * t->n_ports;
    /* ACKs sent direct: each flow's pipe keeps a chunk (src/pkt/nic.c) */
    if (scenario_ack_direct(sc))
        chunks += 2.0 * nflows;
    double slabs = (double)((uint64_t)(chunks / PKT_SLAB_CHUNKS) + 1) * PKT_SLAB_BYTES;
    double arena = (double)t->n_ports * sizeof(struct port) +
                   (double)t->n_switches * sizeof(struct sw) +
                   (double)t->first_cleaf * sizeof(struct nic) +
                   (double)nflows * sizeof(struct flow) + PATH_SETS * QHIST_BUCKETS * 8.0;
    /* the arena takes 1 MB blocks and may leave each one's tail unused */
    double blocks = (double)((uint64_t)(arena / (1 << 20)) + 2) * (1 << 20);
    return blocks + slabs + ((double)nflows + 2.0 * t->n_ports) * sizeof(struct event) * 2;
}

/* Telemetry's time series, the run's span over the bound: the completion
 * is 100-108% of the bound on BENCHMARKS.md's bursts (DCQCN the most). */
#define TELE_SPAN 1.25

/* Capacity of an array grown by doubling from first to hold need. */
static double doubled(double need, double first)
{
    double c = first;
    while (c < need)
        c *= 2;
    return c;
}

/* Upper estimate of the telemetry's memory (telemetry.interval): per
 * sample the figures of struct series and, with telemetry.flows, 16 B per
 * transfer; in the packet engine a port entry per port whose state changed
 * since the previous sample, at most one per port and sample and at most
 * one per event. Arrays are counted as allocated, doubled as they grow
 * (src/pkt/sched.c sample, src/stats/series.c). span_s: how long the run
 * samples. */
static double tele_mem(const struct scenario *sc, const struct topo *t, const struct workload *w,
                       int engine, double span_s, double events)
{
    if (!sc->telemetry.interval_ps || span_s <= 0)
        return 0;
    double samples = span_s / ((double)sc->telemetry.interval_ps / 1e12) + 2;
    if (samples > 4e9) /* the count is a uint32_t: more cannot be taken */
        samples = 4e9;
    if (engine == ENGINE_FLUID)
        return doubled(samples + 1, 256) * (series_sample_bytes(0) + sizeof(double));
    double flows = sc->telemetry.flows ? (double)w->n : 0;
    double ports = t->n_ports;
    double ents = samples * ports < events ? samples * ports : events;
    /* sample_t, sample_max_queue and per flow a rate and a byte count */
    return doubled(samples + 1, 64) * (16.0 + 16.0 * flows) +
           doubled(samples + 2, 256) * series_sample_bytes(1) +
           doubled(ents + ports, 64) * sizeof(struct series_ent) +
           ports * (sizeof(uint64_t) + 2 * sizeof(uint32_t) + 1); /* cur, port names */
}

/* Whether packets can be resent: reordered under go-back-N receivers, or
 * dropped on a lossy fabric that can congest (what fluid_unmodelled says). */
static int pkt_resends(const struct scenario *sc, const struct topo *t,
                       const struct workload *w)
{
    struct results *r = calloc(1, sizeof *r);
    if (!r)
        return 1;
    fluid_unmodelled(sc, t, w, r);
    int resends = 0;
    for (uint32_t i = 0; i < r->n_unmodelled; i++)
        resends |= !strcmp(r->unmodelled[i].key, "transport.receiver") ||
                   (!strcmp(r->unmodelled[i].key, "fabric.pfc.enabled") &&
                    !strcmp(r->unmodelled[i].value, "false"));
    free(r);
    return resends;
}

void ckpt_estimate(const struct scenario *sc, const struct topo *t, const struct workload *w,
                   const struct arena *a, int engine, double bound_s, struct ckpt_estimate *est)
{
    uint64_t mtu = scenario_wire(sc).payload;
    memset(est, 0, sizeof *est);
    est->ports = t->n_ports;
    est->engine = engine;
    for (uint32_t i = 0; i < w->n; i++)
        est->packets += (double)((w->xfers[i].bytes + mtu - 1) / mtu);
    est->packets += train_packets(w->train, mtu, bound_s);
    if (engine == ENGINE_FLUID) {
        /* per transfer: flow state and solver heaps; per path entry: the
         * solver's lists; per port: link state (FLUID_BYTES_PER_PORT) */
        double group, entries = fluid_path_entries(sc, t, w, &group);
        est->events = 2.0 * w->n;
        double fl = FLUID_BYTES_PER_TRANSFER * w->n + FLUID_BYTES_PER_ENTRY * entries +
                    FLUID_BYTES_PER_GROUP_ENTRY * group + FLUID_BYTES_PER_PORT * t->n_ports;
        est->mem_bytes = (double)a->total + (double)((uint64_t)(fl / (1 << 20)) + 2) * (1 << 20) +
                         tele_mem(sc, t, w, engine, TELE_SPAN * bound_s, 0);
        est->wall_s = FLUID_S_PER_TRANSFER * w->n + FLUID_S_PER_ENTRY * (entries + group);
        est->events_max = est->events;
        est->wall_max_s = est->wall_s;
    } else {
        est->events = ckpt_pkt_events_floor(sc, t) * est->packets;
        est->events_max = ckpt_pkt_events_per_packet(sc, t) * est->packets * PKT_EVENTS_SPREAD;
        est->resends = pkt_resends(sc, t, w);
        double span = TELE_SPAN * bound_s;
        if (est->resends) {
            /* resends keep the engine busy for as long as it takes, at most
             * to the time limit: the first sends' pace, faster */
            double lim = (double)bound_time_limit_ps(sc, bound_s) / 1e12;
            if (bound_s > 0 && lim > bound_s) {
                est->events_max *= PKT_EVENTS_RESEND / PKT_EVENTS_SPREAD * lim / bound_s;
                span = lim;
            }
        }
        est->mem_bytes = (double)a->total + pkt_mem(sc, t, w->n, est->packets) +
                         tele_mem(sc, t, w, engine, span, est->events_max);
        double rate = ckpt_pkt_rate(sc, t, w, est->packets);
        est->wall_s = est->events / rate;
        est->wall_max_s = est->events_max / rate;
    }
}

/* engine: auto. The packet engine spends about 8 events per packet (a
 * serialisation end and a wire arrival on each of 4 links; 12 on three
 * tiers) at ckpt_pkt_rate (api.h); past CKPT_AUTO_PACKET_S of it hybrid
 * runs up to CKPT_AUTO_HYBRID_S where the fluid figure would ignore an
 * effect and hybrid can fast-forward, else the fluid engine. */

/* After the reason for fluid: what its figure will ignore (fluid.h). */
static void reason_unmodelled(const struct scenario *sc, const struct topo *t,
                              const struct workload *w, struct results *r)
{
    char list[sizeof r->engine_reason];
    if (!fluid_unmodelled(sc, t, w, r))
        return;
    fluid_unmodelled_text(r, list, sizeof list);
    size_t l = strlen(r->engine_reason);
    snprintf(r->engine_reason + l, sizeof r->engine_reason - l,
             "; the fluid figure ignores %s: %s", list,
             fluid_direction_name(fluid_direction(r)));
}

double ckpt_pkt_events_floor(const struct scenario *sc, const struct topo *t)
{
    /* a serialisation end and a wire arrival on each link of the longest path */
    return 2.0 * topo_path_links(t ? t->tiers : scenario_levels(sc));
}

/* UEC data that trims: its receiver, fabric.trim, the data class lossy. */
static int uec_trims(const struct scenario *sc)
{
    int mask = scenario_prio_mask(sc->fabric.pfc_priorities);
    int lossless = sc->fabric.pfc && mask > 0 && ((mask >> sc->transport.data_priority) & 1);
    return sc->transport.receiver == RX_UEC && sc->fabric.trim && !lossless;
}

double ckpt_pkt_events_per_packet(const struct scenario *sc, const struct topo *t)
{
    double floor = ckpt_pkt_events_floor(sc, t);
    int direct = scenario_cnp_direct(sc) || scenario_ack_direct(sc);
    double scale = cc_scheme(sc->transport.cc)->events_scale[direct];
    if (sc->transport.uec.rccc) /* credits on top of the cc's own packets */
        scale += rccc_events_scale[direct] - 1;
    else if (uec_trims(sc)) /* credits keep the queues short of trimming */
        scale += cc_scheme(sc->transport.cc)->trim_events;
    return floor * scale;
}

double ckpt_pkt_rate(const struct scenario *sc, const struct topo *t, const struct workload *w,
                     double packets)
{
    int time_order = sc->sim.event_order == ORDER_TIME ||
                     (w->train && w->train->on && w->train->on_fabric);
    return 1e9 / ckpt_pkt_ns_per_event(sc, t, packets) *
           (sc->sim.threads > 1 && !time_order ? CKPT_PKT_TWO_THREADS : 1);
}

int ckpt_choose_engine(const struct scenario *sc, const struct topo *t,
                       const struct workload *w, struct results *r)
{
    if (sc->engine != ENGINE_AUTO) {
        snprintf(r->engine_reason, sizeof r->engine_reason, "requested (engine: %s)",
                 names_of(&names_engine, sc->engine));
        if (sc->engine == ENGINE_FLUID)
            reason_unmodelled(sc, t, w, r);
        return sc->engine;
    }
    double pkts = 0;
    uint64_t mtu = scenario_wire(sc).payload;
    for (uint32_t i = 0; i < w->n; i++)
        pkts += (double)((w->xfers[i].bytes + mtu - 1) / mtu);
    pkts += train_packets(w->train, mtu, r->bound_s); /* training beside it */
    double epp = ckpt_pkt_events_per_packet(sc, t);
    double ev = epp * pkts, rate = ckpt_pkt_rate(sc, t, w, pkts), limit = CKPT_AUTO_PACKET_S * rate;
    double hlimit = CKPT_AUTO_HYBRID_S * rate;
    if (hlimit > CKPT_PACKET_EVENT_LIMIT)
        hlimit = CKPT_PACKET_EVENT_LIMIT;
    int fluid = ev > limit;
    size_t l = (size_t)snprintf(
        r->engine_reason, sizeof r->engine_reason,
        "auto: ~%.2g packet-engine events (%.3g per packet x %.3g packets) %s %.2g "
        "(%.0f s at %.1f M events/s%s)",
        ev, epp, pkts, fluid ? ">" : "<=", limit, CKPT_AUTO_PACKET_S, rate / 1e6,
        rate > CKPT_PKT_EVENTS_PER_S ? ", two threads" : "");
    if (!fluid)
        return ENGINE_PACKET;
    /* never silently: say what the fluid figure leaves out */
    reason_unmodelled(sc, t, w, r);
    if (!r->n_unmodelled)
        return ENGINE_FLUID;
    /* fluid would ignore something: hybrid where it can fast-forward and
     * the packet engine's cost is one to wait for */
    const char *why = scenario_hybrid_blocked(sc);
    l = strlen(r->engine_reason);
    if (why || ev > hlimit) {
        char over[48];
        snprintf(over, sizeof over, "~%.2g events > %.2g", ev, hlimit);
        snprintf(r->engine_reason + l, sizeof r->engine_reason - l, "; not hybrid: %s",
                 why ? why : over);
        return ENGINE_FLUID;
    }
    snprintf(r->engine_reason + l, sizeof r->engine_reason - l,
             "; so hybrid: ~%.2g events <= %.2g (%.0f s), steady states fast-forwarded", ev,
             hlimit, CKPT_AUTO_HYBRID_S);
    return ENGINE_HYBRID;
}

double ckpt_phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}

/* The memory limit of the cgroup at dir: memory.max (v2) or
 * memory.limit_in_bytes (v1); 0 when neither is a number ("max", absent). */
static double cgroup_max(const char *dir)
{
    static const char *const file[] = {"memory.max", "memory.limit_in_bytes"};
    double v = 0;
    for (int i = 0; i < 2 && v <= 0; i++) {
        char path[640], buf[64];
        snprintf(path, sizeof path, "%s/%s", dir, file[i]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9')
            v = strtod(buf, NULL);
        fclose(f);
    }
    return v;
}

/* The process's cgroup v2 path ("/user.slice/x.scope") from /proc/self/cgroup. */
static int own_cgroup(char *buf, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return -1;
    char line[512];
    int rc = -1;
    while (rc < 0 && fgets(line, sizeof line, f))
        if (!strncmp(line, "0::/", 4) && line[4] && line[4] != '\n') {
            line[strcspn(line, "\n")] = '\0';
            snprintf(buf, len, "%s", line + 3);
            rc = 0;
        }
    fclose(f);
    return rc;
}

/* Bytes this process has mapped now (/proc/self/statm's size), 0 unknown. */
static double mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%lu", &pages) != 1)
        pages = 0;
    fclose(f);
    return (double)pages * (double)sysconf(_SC_PAGESIZE);
}

/* The limit to bytes when lower, named "pre BYTES post" (pre alone when
 * post is NULL) after "more than" in the refusal. */
static void mem_lower(struct ckpt_mem_limit *lim, double bytes, const char *pre,
                      const char *post)
{
    if (bytes > 0 && (lim->bytes <= 0 || bytes < lim->bytes)) {
        char b[32] = "";
        int gb = bytes >= 1e9;
        if (post)
            snprintf(b, sizeof b, "%.3g %s", bytes / (gb ? 1e9 : 1e6), gb ? "GB" : "MB");
        lim->bytes = bytes;
        snprintf(lim->what, sizeof lim->what, "%s%s%s", pre, b, post ? post : "");
    }
}

void ckpt_mem_limit_of(struct ckpt_mem_limit *lim, const char *cgroup_dir, double arena_bytes)
{
    memset(lim, 0, sizeof *lim);
    mem_lower(lim, ckpt_phys_bytes(), "this machine's", NULL);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        /* what is mapped now (program, libraries, the arena) less the arena,
         * which the estimate counts */
        double other = mapped_bytes() - arena_bytes;
        double room = (double)rl.rlim_cur - (other > 0 ? other : 0);
        mem_lower(lim, room > 1 ? room : 1, "the ", " left under the address-space limit, ulimit -v");
    }
    char dir[600], own[512];
    if (cgroup_dir) {
        mem_lower(lim, cgroup_max(cgroup_dir), "the cgroup's memory limit, ", "");
        return;
    }
    mem_lower(lim, cgroup_max("/sys/fs/cgroup"), "the cgroup's memory limit, ", "");
    mem_lower(lim, cgroup_max("/sys/fs/cgroup/memory"), "the cgroup's memory limit, ", "");
    if (own_cgroup(own, sizeof own) == 0) {
        /* the process's cgroup and each parent below the root */
        snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", own);
        for (char *slash; (slash = strrchr(dir, '/')) && slash > dir + strlen("/sys/fs/cgroup");
             *slash = '\0')
            mem_lower(lim, cgroup_max(dir), "the cgroup's memory limit, ", "");
    }
}

int ckpt_packet_limits(const struct scenario *sc, const struct ckpt_estimate *est,
                       double phys_bytes, struct err *e)
{
    struct ckpt_mem_limit lim = {phys_bytes, "this machine's"};
    return ckpt_packet_limits_mem(sc, est, &lim, e);
}

int ckpt_packet_limits_mem(const struct scenario *sc, const struct ckpt_estimate *est,
                           const struct ckpt_mem_limit *lim, struct err *e)
{
    if (est->ports >= PKT_MAX_PORTS) /* not even with --force */
        return scenario_fail(sc, e, "engine", PKT_PORTS_MSG, PKT_MAX_PORTS - 1, est->ports);
    int events = est->events > CKPT_PACKET_EVENT_LIMIT;
    int mem = lim->bytes > 0 && est->mem_bytes > lim->bytes;
    if (sc->sim.force || (!events && !mem))
        return 0;
    int gb = est->mem_bytes >= 1e9;
    char wall[64];
    if (est->wall_max_s > est->wall_s)
        snprintf(wall, sizeof wall, "~%.3g-%.3g s", est->wall_s, est->wall_max_s);
    else
        snprintf(wall, sizeof wall, "~%.3g s", est->wall_s);
    /* hybrid costs the packet engine's events less what it skips, which
     * only the run finds (docs/engine.md, "Hybrid: the size guard") */
    char who[160] = "the packet engine would take";
    const char *why = est->engine == ENGINE_HYBRID ? scenario_hybrid_blocked(sc) : NULL;
    if (why)
        snprintf(who, sizeof who, "hybrid would not fast-forward (%s): as the packet engine, it "
                 "would take", why);
    else if (est->engine == ENGINE_HYBRID)
        snprintf(who, sizeof who, "hybrid would take the packet engine's events less the steady "
                 "states it skips (none to 99%% of the time on the runs measured), up to");
    return scenario_fail(sc, e, "engine",
                         "%s %s~%.3g events%s and up to %.3g %s of "
                         "memory%s%s%s (%s of wall time); use --engine fluid, or --force "
                         "(sim.force) to run it anyway",
                         who, est->resends ? "at least " : "", est->events,
                         events ? " (limit 1e9)" : "",
                         est->mem_bytes / (gb ? 1e9 : 1e6), gb ? "GB" : "MB",
                         mem ? " (more than " : "", mem ? lim->what : "", mem ? ")" : "",
                         wall);
}
