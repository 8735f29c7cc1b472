/* The packet engine's results: what the ports, switches and flows counted,
 * and the run's invariants. */
#include "engine_int.h"
#include "rccc.h"

#include <stdlib.h>
#include <string.h>

#include "../stats/bound.h"
#include "../stats/invariants.h"
#include "../stats/training.h"
#include "../work/protect.h"

/* Spread of the checkpoint's bytes over uplinks and spines, and how many
 * uplinks each flow used. */
static void lb_collect(struct pnet *n, struct results *r)
{
    const struct topo *t = n->topo;
    double *bytes = malloc(t->n_ports * sizeof *bytes);
    for (uint32_t p = 0; bytes && p < t->n_ports; p++)
        bytes[p] = (double)n->ports[p].tx_bytes;
    if (bytes)
        balance_compute(r, t, bytes);
    free(bytes);
    double paths = 0;
    uint32_t maxp = 0, cnt = 0;
    for (uint32_t i = 0; i < n->n_flows; i++) {
        if (!n->flows[i].uplinks)
            continue;
        uint32_t c = (uint32_t)__builtin_popcountll(n->flows[i].uplinks);
        paths += c;
        maxp = c > maxp ? c : maxp;
        cnt++;
    }
    r->lb_paths_mean = cnt ? paths / cnt : 0;
    r->lb_paths_max = maxp;
}

/* The events ran out with transfers unfinished, none failed by its
 * retries: nothing will move them, a deadlock of the model. Says how many
 * wait on a full window (the transport's) and how many on nothing the
 * sender shows, so that a stop is never read as a slow finish. */
static void deadlock_named(const struct pnet *n, struct results *r)
{
    uint64_t stuck = 0, window = 0;
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = &n->flows[i];
        if ((f->done && f->recv == f->bytes) || f->failed)
            continue;
        stuck++;
        window += n->tp->may_send && f->sent < f->bytes && !n->tp->may_send(n, f);
    }
    if (stuck)
        results_violate(r, "no event left at %.6g s simulated with %llu transfers waiting (%llu "
                           "on a full window no ACK will open): a deadlock of the simulated "
                           "transport, a defect to report with the scenario",
                        (double)n->now / 1e12, (unsigned long long)stuck,
                        (unsigned long long)window);
}

/* Payload of a data packet still in the fabric, and training's part. */
static void in_flight_add(const struct pnet *n, const struct packet *k, uint64_t *all,
                          uint64_t *train)
{
    if (k->kind != PK_DATA)
        return;
    *all += k->payload;
    *train += pnet_is_train(n, k->flow) ? k->payload : 0;
}

/* Training: its figures, and its bytes conserved on their own (the totals
 * cover both classes; the checkpoint's are the difference). */
static void collect_training(struct pnet *n, struct results *r, uint64_t in_flight,
                             uint64_t victim)
{
    if (!n->tr)
        return; /* physical isolation: ckpt_run fills the baseline steps */
    train_results(r, n->tr, &n->tc, n->flows_done == n->n_flows ? n->last_rx_ps : n->now);
    r->training.victim_paused_s = ps_to_s(victim);
    uint64_t out = n->train_sent + n->train_retx;
    uint64_t acc = n->train_delivered + n->train_dropped + n->train_discarded + in_flight;
    if (out != acc)
        results_violate(r, "training bytes not conserved: sent %llu + resent %llu != delivered + "
                           "dropped + discarded + in flight %llu",
                        (unsigned long long)n->train_sent, (unsigned long long)n->train_retx,
                        (unsigned long long)acc);
    invariants_training_steps(r, &n->tc, n->interrupted, n->time_limit_hit);
    /* the checkpoint's own figures, without training's bytes */
    r->bytes_sent -= n->train_sent;
    r->bytes_delivered -= n->train_delivered;
    r->bytes_dropped -= n->train_dropped;
    r->bytes_in_flight -= in_flight;
    r->retx_bytes -= n->train_retx;
    r->discarded_bytes -= n->train_discarded;
}

void pnet_collect(struct pnet *n, struct results *r)
{
    const struct topo *t = n->topo;
    uint64_t in_flight = 0, max_q = 0, max_buf = 0, paused = 0, max_paused = 0;
    uint64_t pause_rx = 0, max_hdrm = 0, max_shared = 0, onto_failed = 0;
    uint64_t train_in_flight = 0, victim = 0;
    if (n->sc->telemetry.ports) {
        r->n_ports = t->n_ports;
        r->ports = calloc(t->n_ports, sizeof *r->ports);
    }
    for (uint32_t i = 0; i < t->n_ports; i++) {
        struct port *p = &n->ports[i];
        if (t->ports[i].failed)
            onto_failed += p->drops + p->tx_pkts; /* switch.c drops them all */
        for (int q = 0; q < NPRIO; q++)
            PKTQ_FOR_EACH(&p->q[q], k, in_flight_add(n, k, &in_flight, &train_in_flight))
        struct pktq wire = wire_view(n, p);
        PKTQ_FOR_EACH(&wire, k, in_flight_add(n, k, &in_flight, &train_in_flight))
        if (p->state == PORT_BUSY)
            in_flight_add(n, &p->tx, &in_flight, &train_in_flight);
        victim_note(n, p);
        victim += p->victim_ps;
        r->training.seg_bytes[p->seg] += p->train_tx_bytes;
        if (p->max_q_bytes > max_q)
            max_q = p->max_q_bytes;
        uint64_t pp = p->paused_ps;
        for (unsigned m = p->paused; m; m &= m - 1)
            pp += n->now - p->pause_since[__builtin_ctz(m)];
        paused += pp;
        if (pp > max_paused)
            max_paused = pp;
        uint64_t prx = p->pause_rx + n->ports[p->peer].implicit_rx;
        pause_rx += prx;
        if (p->max_hdrm > max_hdrm)
            max_hdrm = p->max_hdrm;
        if (p->max_shared > max_shared)
            max_shared = p->max_shared;
        if (!p->is_host && p->max_q_bytes > r->ecn_top_queue) {
            r->ecn_top_queue = p->max_q_bytes;
            r->ecn_top_kmin = p->kmin;
        }
        if (p->max_q_bytes > r->seg_queue_max[p->seg])
            r->seg_queue_max[p->seg] = p->max_q_bytes;
        r->seg_paused_s[p->seg] += ps_to_s(pp);
        port_qhist_flush(n, p);
        if (r->ports)
            r->ports[i] = (struct port_result){
                p->node, p->peer, p->seg, p->tx_bytes, p->max_q_bytes, p->max_hdrm,
                p->max_shared, p->pause_tx, prx, p->ecn_marked, p->drops,
                ps_to_s(pp),
                p->pause_tx ? (double)p->xoff_shared_sum / (double)p->pause_tx : 0,
                p->tx_pkts ? ps_to_s(p->last_tx_t - p->first_tx_t) : 0,
                ps_to_s(p->paused_at_last_tx)};
    }
    for (int sg = 0; sg < PATH_SETS; sg++) {
        const uint64_t *h = &n->qhist[(size_t)sg * QHIST_BUCKETS];
        double total = 0, acc = 0;
        for (unsigned b = 0; b < QHIST_BUCKETS; b++)
            total += (double)h[b];
        for (unsigned b = 0; b < QHIST_BUCKETS && total > 0; b++) {
            acc += (double)h[b];
            if (acc >= 0.99 * total) {
                r->seg_queue_p99[sg] = qhist_bucket_floor(b);
                break;
            }
        }
    }
    r->cc = n->tp->cc;
    r->drops_lossless = n->drops_lossless;
    r->drops_lossy = n->drops_lossy;
    r->drops_watchdog = n->drops_watchdog;
    r->refresh_frames = n->refresh_frames;
    r->pause_frames_rx = pause_rx;
    r->pfc_storms = n->storms;
    r->ecn_marked = n->ecn_marked;
    r->ecn_unreached = n->ecn && cc_scheme(n->sc->transport.cc)->ecn_driven && !n->ecn_marked &&
                       r->ecn_top_queue && r->ecn_top_queue < r->ecn_top_kmin;
    r->cnps_sent = n->cnps_sent;
    r->cnps_received = n->cnps_rx;
    r->max_headroom_bytes = max_hdrm;
    r->max_shared_pg_bytes = max_shared;
    r->min_rate_bps = 0;
    r->lb = n->sc->fabric.load_balancing;
    r->retx_bytes = n->retx_bytes;
    r->discarded_bytes = n->discarded_bytes;
    r->reordered = n->reordered;
    r->naks = n->naks_sent;
    r->loss_recovery = n->recover;
    r->timeouts = n->timeouts;
    r->rto_mode = n->rto_est ? RTO_ADAPTIVE : RTO_FIXED;
    r->rto_max_ps = n->rto_max_ps;
    r->retx_packets = n->retx_pkts;
    r->dup_packets = n->dup_rx;
    r->rc_acks = n->rc_acks;
    r->sack_naks = n->sr_naks;
    r->qp_errors = n->qp_errors;
    r->uec = n->rx->kind == RX_UEC;
    r->trimming = n->trim;
    r->trims = n->trims;
    r->trimmed_bytes = n->trimmed_bytes;
    r->trim_naks = n->trim_naks;
    r->uec_sack = n->sack_at != NULL;
    r->sack_skipped = n->sack_skipped;
    r->entropies = n->entropies;
    r->reps = n->reps;
    r->ev_recycled = n->ev_recycled;
    r->ev_explored = n->ev_explored;
    r->ev_resend_same = n->ev_resend_same;
    rccc_collect(n, r);
    r->tcp_fast_retx = n->tcp_fast_retx;
    r->tcp_dupacks = n->tcp_dupacks;
    r->tcp_cuts = n->tcp_cuts;
    r->acks = n->acks;
    r->window_stalls = n->window_stalls;
    r->packets_allocated = n->pkts_allocated;
    lb_collect(n, r);
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = &n->flows[i];
        r->rate_decreases += f->decreases;
        r->data_packets += (f->bytes + n->mtu - 1) / n->mtu;
        if (f->line_bps && (r->min_rate_bps == 0 || f->min_rate < r->min_rate_bps))
            r->min_rate_bps = f->min_rate;
    }
    int over_buffer = 0, over_pool = -1;
    r->n_buffer_pools = n->n_pools;
    memset(r->buffer_pool, 0, sizeof r->buffer_pool);
    for (unsigned pg = 0; pg < NPRIO; pg++)
        r->buffer_pool[n->pool_of[pg]].prio_mask |= (uint8_t)(1u << pg);
    for (uint32_t s = 0; s < t->n_switches; s++) {
        const struct sw *w = &n->sws[s];
        if (w->max_used > max_buf)
            max_buf = w->max_used;
        if (w->max_used > w->buffer)
            over_buffer = 1;
        for (unsigned k = 0; k < n->n_pools; k++) {
            double f = w->pool[k] ? (double)w->max_shared[k] / (double)w->pool[k] : 0;
            if (w->max_shared[k] > r->buffer_pool[k].max_used)
                r->buffer_pool[k].max_used = w->max_shared[k];
            if (f > r->buffer_pool[k].max_fraction)
                r->buffer_pool[k].max_fraction = f;
            /* a pool admits while it has room: at most one packet past it */
            if (w->max_shared[k] > w->pool[k] + n->mtu_wire)
                over_pool = (int)k;
        }
    }
    /* per writer: its first start to the end of its last transfer */
    struct writer_acc wa;
    writer_acc_init(&wa, n->n_writers);
    uint64_t bad_flows = 0;
    /* a transfer counts once its file is durable (fsync, metadata service) */
    uint64_t *done = malloc((n->n_flows ? n->n_flows : 1) * sizeof *done);
    for (uint32_t i = 0; done && i < n->n_flows; i++) {
        const struct flow *f = &n->flows[i];
        done[i] = f->done && f->recv == f->bytes ? f->done_ps : UINT64_MAX;
    }
    if (done) /* storage.protection chain: the tail's ack back to the head */
        protect_commit(n->w, n->sc, n->topo, done);
    if (!done || workload_durable(n->w, n->sc, done) < 0)
        results_violate(r, "out of memory completing the files");
    for (uint32_t i = 0; done && i < n->n_flows; i++) {
        const struct flow *f = &n->flows[i];
        if (!f->done || f->recv != f->bytes) {
            bad_flows++;
            continue;
        }
        writer_acc_add(&wa, f->writer, f->start_ps, f->first_tx_ps, done[i]);
    }
    free(done);
    writer_acc_finish(&wa, r);
    if (n->req) { /* storage.protocol's requests, counted as they completed */
        uint64_t mx;
        double sum;
        r->requests.on = 1;
        r->requests.protocol = names_of(&names_storage_protocol, n->sc->storage.protocol);
        req_totals(n, &r->requests.count, &sum, &mx);
        r->requests.mean_s = r->requests.count ? sum / (double)r->requests.count / 1e12 : 0;
        r->requests.max_s = (double)mx / 1e12;
    }
    r->engine = n->sc->engine == ENGINE_HYBRID ? ENGINE_HYBRID : ENGINE_PACKET;
    r->has_packet_stats = 1;
    r->drops = n->drops_lossless + n->drops_lossy + n->drops_watchdog;
    r->pause_frames = n->pause_frames;
    r->resume_frames = n->resume_frames;
    r->paused_s = ps_to_s(paused);
    r->max_port_paused_s = ps_to_s(max_paused);
    r->max_queue_bytes = max_q;
    r->max_buffer_bytes = max_buf;
    r->packets_delivered = n->pkts_delivered;
    r->bytes_sent = n->bytes_sent;
    r->bytes_delivered = n->bytes_delivered;
    r->bytes_dropped = n->bytes_dropped;
    r->bytes_in_flight = in_flight;
    r->flows_done = n->flows_done;
    r->time_monotone = !n->time_went_back;
    r->events = n->events;
    r->max_pending_events = n->max_pending;
    r->mem_bytes = n->arena.total + evq_mem(&n->q) + n->team_evq_bytes + n->slab_bytes;
    telemetry_collect(n, r);

    invariants_begin(r);
    /* every byte put on a wire, first time or again, is accounted for */
    uint64_t out = n->bytes_sent + n->retx_bytes;
    uint64_t acc = n->bytes_delivered + n->bytes_dropped + n->discarded_bytes + in_flight +
                   n->trimmed_bytes;
    if (out != acc)
        results_violate(r, "bytes not conserved: sent %llu + resent %llu != delivered + dropped + "
                   "discarded by receivers + trimmed + in flight %llu",
                (unsigned long long)n->bytes_sent, (unsigned long long)n->retx_bytes,
                (unsigned long long)acc);
    if (n->drops_lossless)
        results_violate(r, "%llu packets of lossless priorities dropped (PFC headroom exhausted)",
                (unsigned long long)n->drops_lossless);
    /* drops of a class that can drop are results, recovered by the
     * transport (timeouts, NAKs); the bytes must still arrive exactly once.
     * Control packets (ACKs, CNPs, credits) on a lossy class are repaired
     * by their own rules (later ACKs, RCCC's re-grant): only lost data
     * nobody resends is a violation */
    if (n->drops_lossy_data && !n->recover)
        results_violate(r, "%llu data packets dropped on a lossy priority the transport does not "
                           "use", (unsigned long long)n->drops_lossy_data);
    uint64_t got = 0;
    uint32_t over = 0;
    for (uint32_t i = 0; i < n->n_flows; i++) {
        got += n->flows[i].recv;
        over += n->flows[i].recv > n->flows[i].bytes;
    }
    if (over || got != n->bytes_delivered - n->train_delivered)
        results_violate(r, "bytes not delivered exactly once: %u transfers received more than "
                           "they sent, %llu B counted against %llu B received",
                        over, (unsigned long long)(n->bytes_delivered - n->train_delivered),
                        (unsigned long long)got);
    if (n->qp_errors)
        results_violate(r, "%llu transfers failed: %u retransmission timeouts in a row without "
                           "progress (transport.retry_count; the queue pair's error state%s)",
                        (unsigned long long)n->qp_errors, n->sc->transport.retry_count + 1,
                        n->rto_est ? ""
                                   : "; transport.rto=adaptive backs a fixed timer off at "
                                     "each timeout in a row");
    if (n->drops_watchdog)
        results_violate(r, "%llu packets dropped by the PFC watchdog",
                (unsigned long long)n->drops_watchdog);
    /* an interrupted run is partial, not wrong: unfinished transfers are
     * expected (finished = 0 says so) */
    invariants_transfers(r, bad_flows, n->n_flows, n->interrupted);
    invariants_time_monotone(r, n->time_went_back);
    if (n->lookahead_bad)
        results_violate(r, "%llu events reached another switch or NIC within a link delay "
                           "(sim.event_order: window needs every link's delay)",
                        (unsigned long long)n->lookahead_bad);
    if (onto_failed)
        results_violate(r, "%llu packets routed onto failed links", (unsigned long long)onto_failed);
    /* at the time limit, the last packet that left a NIC or a port:
     * moving, or stuck */
    uint64_t all = 0, last = n->last_rx_ps;
    for (uint32_t i = 0; n->time_limit_hit && i < n->n_flows; i++) {
        all += n->flows[i].bytes;
        last = n->flows[i].last_send > last ? n->flows[i].last_send : last;
    }
    for (uint32_t i = 0; n->time_limit_hit && i < n->topo->n_ports; i++)
        last = n->ports[i].last_tx_t > last ? n->ports[i].last_tx_t : last;
    struct stop_progress sp = {got, all, last};
    invariants_time_limit(r, n->time_limit_hit, n->time_limit_ps, &sp);
    if (bad_flows && !n->interrupted && !n->time_limit_hit && !n->oom)
        deadlock_named(n, r);
    if (over_buffer)
        results_violate(r, "a switch buffer held %llu B, more than its %llu B",
                (unsigned long long)max_buf,
                (unsigned long long)n->sc->fabric.buffer_bytes);
    if (over_pool >= 0)
        results_violate(r, "buffer pool %d held %llu B of shared buffer, more than its size "
                        "and a packet", over_pool,
                        (unsigned long long)r->buffer_pool[over_pool].max_used);
    collect_training(n, r, train_in_flight, victim);
}
