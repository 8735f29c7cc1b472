/* The bottleneck verdict and the segment table: text and JSON. */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "../scenario/catalog.h"
#include "../scenario/lbscheme.h"
#include "internal.h"

static const char *fmt_pct(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.1f%%", 100 * v);
    return buf;
}

/* "16 x 400 Gbps" */
static const char *fmt_cap(const struct seg_figures *f, char *buf, size_t len)
{
    char a[32];
    snprintf(buf, len, "%u x %s", f->elements, fmt_rate(f->elem_bps, a, sizeof a));
    return buf;
}

/* Why the senders resent a tenth of the write or more: drops, trims, a
 * timer that fired with nothing lost (resending packets still queued),
 * go-back-N's discards of reordered packets, or the ooo receiver's NAKs of
 * gaps that were only reordering. */
enum resend_why { WHY_NONE, WHY_LOSS, WHY_TRIM, WHY_TIMER, WHY_GBN, WHY_NAKS };

static enum resend_why resend_why(const struct results *r)
{
    if (r->bottleneck.resent < RESENT_CAUSE)
        return WHY_NONE;
    if (r->drops_lossy + r->drops_lossless + r->drops_watchdog)
        return WHY_LOSS;
    if (r->trims)
        return WHY_TRIM;
    if (r->timeouts && !r->naks)
        return WHY_TIMER;
    return r->sack_naks ? WHY_NAKS : WHY_GBN;
}

/* What transport.sack_timeout auto came from, NULL when it is not auto */
const char *rto_auto_words(const struct scenario *sc, char *buf, size_t len)
{
    if (sc->transport.receiver == RX_GBN || sc->transport.receiver == RX_TCP ||
        sc->transport.sack_timeout_ps != UINT64_MAX)
        return NULL;
    if (sc->transport.receiver == RX_UEC) {
        uint64_t q, bps;
        char qb[32], lb[32];
        uec_auto_rto_ps(sc, &q, &bps);
        snprintf(buf, len, "15 us + 6 drains of %s at %s, htsim's UEC",
                 fmt_bytes((double)q, qb, sizeof qb), fmt_rate((double)bps, lb, sizeof lb));
    } else {
        snprintf(buf, len, "IRN's RTO_high");
    }
    return buf;
}

const char *rto_words(const struct scenario *sc, const struct results *r, char *buf,
                      size_t len, const char **keyp)
{
    const char *key;
    char t[32], u[32], k[128];
    uint64_t rto = transport_rto_ps(sc, &key);
    if (keyp)
        *keyp = key;
    fmt_secs((double)rto * 1e-12, t, sizeof t);
    char why[96];
    if (rto_auto_words(sc, why, sizeof why))
        snprintf(k, sizeof k, "%s auto: %s", key, why);
    else
        snprintf(k, sizeof k, "%s", key);
    if (r->rto_mode == RTO_ADAPTIVE && r->rto_max_ps > rto)
        snprintf(buf, len, "%s to %s (transport.rto adaptive over transport.%s)", t,
                 fmt_secs((double)r->rto_max_ps * 1e-12, u, sizeof u), k);
    else if (r->rto_mode == RTO_ADAPTIVE)
        snprintf(buf, len, "%s (transport.rto adaptive over transport.%s)", t, k);
    else
        snprintf(buf, len, "%s (transport.%s)", t, k);
    return buf;
}

int verdict_blames_timer(const struct results *r)
{
    return resend_why(r) == WHY_TIMER;
}

/* The fabric carried the write several times over: no segment's capacity
 * is the cause. */
static void resend_cause(FILE *out, const struct scenario *sc, const struct results *r)
{
    char a[32], b[32];
    enum resend_why why = resend_why(r);
    if (why == WHY_NONE)
        return;
    const char *io = r->phase == PHASE_RESTORE ? "read" : "write";
    uint64_t lost = r->drops_lossy + r->drops_lossless + r->drops_watchdog;
    if (why == WHY_LOSS) { /* the resends follow drops, not reordering */
        fprintf(out, "  cause       packet loss: %llu packets dropped, %s resent for a %s %s "
                     "(%.1fx); %s",
                (unsigned long long)lost, fmt_bytes((double)r->retx_bytes, a, sizeof a),
                fmt_bytes((double)r->ckpt_bytes, b, sizeof b), io, r->bottleneck.resent,
                r->uec && r->trims
                    ? "the uec receiver NACKs each trimmed packet; a dropped one waits "
                      "for the timer"
                : r->sack_naks && !r->uec
                    ? "the out-of-order receiver NAKs each gap and the sender resends it"
                : r->naks && !r->uec ? "go-back-N resends from each gap"
                                     : "no receiver NAKed a gap (the uec receiver takes a gap "
                                       "for reordering; only trims are NACKed), so each loss "
                                       "waited for the timer");
        /* what else would help: senders at line rate have no congestion
         * control; a fixed timer that failed transfers can back off */
        char more[256];
        snprintf(more, sizeof more, "%s%s",
                 sc->transport.cc == CC_NONE
                     ? "; with no congestion control (transport.cc) the senders run at line "
                       "rate into the loss"
                     : "",
                 r->qp_errors && r->rto_mode == RTO_FIXED
                     ? "; transport.rto=adaptive backs the timer off at each timeout in a "
                       "row, where a fixed one failed transfers by their retry count"
                     : "");
        if (r->timeouts) { /* a lost tail is found only by the timer */
            const char *key;
            char t[256];
            uint64_t rto = transport_rto_ps(sc, &key);
            fprintf(out, "; %llu retransmission timeouts of %s", (unsigned long long)r->timeouts,
                    rto_words(sc, r, t, sizeof t, NULL));
            /* a timer longer than the whole write's bound: waiting, not sending */
            if ((double)rto * 1e-12 > r->bound_s)
                fprintf(out, ". Fix: a lossless class (fabric.pfc.enabled=true), more buffer, "
                             "or a shorter transport.%s (the %s waits on its timer)%s\n", key,
                        io, more);
            else
                fprintf(out, ". Fix: a lossless class (fabric.pfc.enabled=true) or more "
                             "buffer%s\n", more);
            return;
        }
        fprintf(out, ". Fix: a lossless class (fabric.pfc.enabled=true) or more buffer%s\n", more);
        return;
    }
    if (why == WHY_TRIM) { /* the switches cut packets above their threshold */
        fprintf(out, "  cause       packet trimming: %llu packets trimmed, %s resent for a %s "
                     "%s (%.1fx); each trimmed packet is NACKed and sent again. Fix: fewer "
                     "senders into a port at once (a congestion control, transport.cc), a "
                     "higher fabric.trim.threshold, or a lossless class "
                     "(fabric.pfc.enabled=true)\n",
                (unsigned long long)r->trims, fmt_bytes((double)r->retx_bytes, a, sizeof a),
                fmt_bytes((double)r->ckpt_bytes, b, sizeof b), io, r->bottleneck.resent);
        return;
    }
    if (why == WHY_TIMER) { /* each timeout resent packets still queued */
        const char *key;
        char t[256];
        rto_words(sc, r, t, sizeof t, &key);
        fprintf(out, "  cause       retransmission timer under the queueing delay: %llu "
                     "timeouts of %s with no packet lost, %s resent for a %s %s (%.1fx) while "
                     "the first copies were still queued. Fix: a transport.%s above the "
                     "largest queue's delay%s, or a congestion control that keeps the queues "
                     "shorter (transport.cc)\n",
                (unsigned long long)r->timeouts, t,
                fmt_bytes((double)r->retx_bytes, a, sizeof a),
                fmt_bytes((double)r->ckpt_bytes, b, sizeof b), io, r->bottleneck.resent, key,
                r->rto_mode == RTO_ADAPTIVE ? ""
                                            : ", transport.rto=adaptive (the timer follows the "
                                              "round trips once it has measured one)");
        return;
    }
    char per_flow[128];
    if (why == WHY_NAKS) { /* ooo NAKs a gap at once: a late packet looks lost */
        fprintf(out, "  cause       selective NAKs of reordered packets: %s resent for a %s %s "
                     "(%.1fx) with no packet lost; the out-of-order receiver NAKs each gap "
                     "that reordering opens, and the sender resends packets that were only "
                     "late. Fix: transport.receiver=uec (a gap is no loss), or a per-flow "
                     "scheme (fabric.load_balancing=%s)\n",
                fmt_bytes((double)r->retx_bytes, a, sizeof a),
                fmt_bytes((double)r->ckpt_bytes, b, sizeof b), io, r->bottleneck.resent,
                lb_names_with(LB_PER_FLOW, per_flow, sizeof per_flow));
        return;
    }
    fprintf(out, "  cause       go-back-N retransmission: %s resent for a %s %s (%.1fx); "
                 "receivers drop every out-of-order packet and the sender resends from it. "
                 "Fix: transport.receiver=ooo, or a per-flow scheme "
                 "(fabric.load_balancing=%s)\n",
            fmt_bytes((double)r->retx_bytes, a, sizeof a),
            fmt_bytes((double)r->ckpt_bytes, b, sizeof b), io, r->bottleneck.resent,
            lb_names_with(LB_PER_FLOW, per_flow, sizeof per_flow));
}

/* The bottleneck's links carried training traffic too (docs/training.md). */
static int bottleneck_shared_with_training(const struct results *r)
{
    int s = r->bottleneck.seg;
    return r->training.on && s >= 0 && path_is_fwd_link(s) && r->training.seg_bytes[s] > 0;
}

/* " (media stage)" after a staged storage node's segment; "" otherwise */
static const char *stage_words(int stage)
{
    switch (stage) {
    case STAGE_NIC: return " (NIC stage)";
    case STAGE_HOST: return " (host stage)";
    case STAGE_CACHE: return " (write cache stage)";
    case STAGE_MEDIA: return " (media stage)";
    case STAGE_DRAIN: return " (restore.read_rate)";
    default: return "";
    }
}

static void verdict(FILE *out, const struct results *r)
{
    const struct bottleneck *v = &r->bottleneck;
    const struct seg_figures *f = &r->segs[v->seg];
    char a[32], b[32], c[32], d[32];
    double T = r->completion_s;
    if (v->util >= 0.5) {
        fprintf(out, "  bottleneck  %s%s: its busiest %s at capacity %s of the %s (%s); "
                     "alone it allows %s",
                seg_label(r, v->seg), stage_words(v->stage), v->seg == PATH_HOST ? "transfer sent" : "element ran",
                fmt_pct(v->util, a, sizeof a), r->phase == PHASE_RESTORE ? "read" : "write",
                fmt_secs(T, b, sizeof b),
                fmt_secs(f->bound_s, c, sizeof c));
        if (v->excess > 0.005)
            fprintf(out, ", the %s took %.1f%% longer", r->phase == PHASE_RESTORE ? "read" : "write",
                    100 * v->excess);
        if (f->imbalance > 1.25 && v->seg >= PATH_WRITER_NIC && v->seg <= PATH_STORAGE_NIC)
            fprintf(out, "; its busiest link carried %.2fx the mean (uneven spread)",
                    f->imbalance);
        /* its capacity went to the training job too; the bound counts the
         * checkpoint's bytes only */
        if (bottleneck_shared_with_training(r))
            fprintf(out, "; it also carried the training job's traffic (fabric.isolation %s), "
                         "which the bound leaves out",
                         names_of(&names_isolation, r->training.isolation));
        fputc('\n', out);
        /* not at capacity all along and late: what held its flows the rest
         * of the time (the link set whose busiest link was at capacity
         * longest): the writers' NICs, or a fabric set hashed unevenly */
        int held = -1;
        for (int s = PATH_WRITER_NIC; v->util < 0.95 && v->excess > 0.05 && s < PATH_STORAGE_NIC;
             s++)
            if (s != v->seg && path_seg_shown(s, r->fabric_tiers) && r->segs[s].applies &&
                (s == PATH_WRITER_NIC || r->segs[s].imbalance > 1.25) &&
                r->segs[s].saturated_s > 0.1 * T &&
                (held < 0 || r->segs[s].saturated_s > r->segs[held].saturated_s))
                held = s;
        if (held == PATH_WRITER_NIC)
            fprintf(out, "              held by the writers the rest of the time: the busiest "
                         "writer NIC ran at capacity %s of the write, shared by its flows to "
                         "other storage nodes (fair shares per flow; shard skew %.2f)\n",
                    fmt_pct(r->segs[held].saturated_s / T, a, sizeof a), r->plan.skew);
        else if (held >= 0)
            fprintf(out, "              held by the fabric the rest of the time: the busiest %s "
                         "link ran at capacity %s of the write carrying %.2fx its set's mean "
                         "(ECMP collisions; wcmp, flowlet, spray or more "
                         "transport.qps_per_writer spread them)\n",
                    seg_label(r, held), fmt_pct(r->segs[held].saturated_s / T, a, sizeof a),
                    r->segs[held].imbalance);
    } else {
        fprintf(out, "  bottleneck  none ran at capacity half the write (busiest %s %s); "
                     "%s%s's bound (%s) comes closest",
                fmt_pct(v->util, a, sizeof a), fmt_secs(T, b, sizeof b),
                seg_label(r, v->seg), stage_words(v->stage), fmt_secs(f->bound_s, c, sizeof c));
        if (v->start_spread_s > 0.1 * T)
            fprintf(out, "; starts spread over %s (checkpoint.policy, start_jitter)",
                    fmt_secs(v->start_spread_s, d, sizeof d));
        fputc('\n', out);
    }
    if (v->next_seg >= 0)
        fprintf(out, "              next limit %s (%s): with %s unlimited the bound falls "
                     "to %s (-%s); doubled, ~%s\n",
                seg_label(r, v->next_seg), fmt_secs(r->segs[v->next_seg].bound_s, a, sizeof a),
                seg_label(r, v->seg), fmt_secs(v->removed_s, b, sizeof b),
                fmt_secs(T - v->removed_s, c, sizeof c), fmt_secs(v->doubled_s, d, sizeof d));
}

/* Why the GPU -> NIC path set no limit: the rule it was checked against. */
const char *host_unlimited(const struct scenario *sc, const struct results *r, char *buf,
                                  size_t len)
{
    const struct plan_summary *p = &r->plan;
    char a[32], b[32], c[32];
    /* a two-phase policy (its row has node_ready) stages, then drains */
    int staged = p->policy && !p->stall_measured;
    if (!sc->cluster.d2h_bps)
        snprintf(buf, len, "not limited (no cluster.d2h_rate or rate cap)");
    else if (staged)
        snprintf(buf, len, "not limited: the %s policy stages at cluster.d2h_rate (%s per GPU) "
                           "during the stall; the drain runs at line rate", p->policy,
                 fmt_rate((double)sc->cluster.d2h_bps, a, sizeof a));
    else
        snprintf(buf, len, "not limited: cluster.d2h_rate %s x %u GPUs per writer = %s, "
                           "at least the NIC's %s",
                 fmt_rate((double)sc->cluster.d2h_bps, a, sizeof a), p->gpus_per_rank,
                 fmt_rate((double)sc->cluster.d2h_bps * p->gpus_per_rank, b, sizeof b),
                 fmt_rate((double)sc->cluster.nic_bps, c, sizeof c));
    return buf;
}

void report_segments(FILE *out, const struct scenario *sc, const struct results *r)
{
    if (r->bottleneck.seg < 0)
        return;
    /* utilisation and time at capacity need the write's duration */
    int fin = r->finished;
    if (!fin && sc->storage.stuck_nodes) /* the fault, not its symptoms (drops, pauses) */
        fprintf(out, "  cause       stuck storage: %u of %u storage nodes write nothing "
                     "(storage.stuck_nodes), so the transfers to them cannot complete\n",
                (unsigned)sc->storage.stuck_nodes, (unsigned)sc->storage.nodes);
    else
        resend_cause(out, sc, r);
    if (fin)
        verdict(out, r);
    else
        fprintf(out, "  bottleneck  not named: the %s did not finish (carried bytes below "
                     "are what got through)\n",
                r->phase == PHASE_RESTORE ? "read" : "write");
    fprintf(out, "  %-22s %-16s %-10s %6s %7s  %-11s  %-11s%s\n", "segment", "capacity",
            "carried", "util", "busiest", "at capacity", "bound alone",
            r->has_packet_stats ? "  PFC paused" : "");
    for (int s = 0; s < PATH_COUNT; s++) {
        const struct seg_figures *f = &r->segs[s];
        char a[32], b[32], c[32], d[32], e[32], g[32], h[32];
        if (!path_seg_shown(s, r->fabric_tiers))
            continue;
        if (!f->applies) {
            char why[320];
            fprintf(out, "  %-22s %s\n", seg_label(r, s),
                    s == PATH_HOST ? host_unlimited(sc, r, why, sizeof why)
                                   : "keeps up (no storage.drain_rate)");
            continue;
        }
        fprintf(out, "  %-22s %-16s %-10s %6s %7s  %-11s  %-11s", seg_label(r, s),
                fmt_cap(f, a, sizeof a), fmt_bytes(f->bytes, b, sizeof b),
                fin ? fmt_pct(f->util, c, sizeof c) : "-",
                fin ? fmt_pct(f->max_util, d, sizeof d) : "-",
                fin ? fmt_secs(f->saturated_s, e, sizeof e) : "-",
                fmt_secs(f->bound_s, g, sizeof g));
        if (r->has_packet_stats && s >= PATH_WRITER_NIC && s <= PATH_STORAGE_NIC)
            fprintf(out, "  %s", fmt_secs(f->paused_s, h, sizeof h));
        fprintf(out, "%s%s\n", fin && s == r->bottleneck.seg ? "  <- bottleneck" : "",
                s == PATH_BACKEND ? stage_words(r->bottleneck.backend_stage) : "");
    }
}

json_t *segments_json(const struct results *r)
{
    json_t *a = json_array();
    for (int s = 0; s < PATH_COUNT; s++) {
        const struct seg_figures *f = &r->segs[s];
        if (!path_seg_shown(s, r->fabric_tiers))
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "segment", json_string(path_seg_key(s)));
        json_object_set_new(o, "label", json_string(seg_label(r, s)));
        json_object_set_new(o, "applies", json_boolean(f->applies));
        json_object_set_new(o, "elements", json_integer(f->elements));
        json_object_set_new(o, "element_bps", json_real(f->elem_bps));
        json_object_set_new(o, "capacity_bps", json_real(f->cap_bps));
        json_object_set_new(o, "bytes", json_real(f->bytes));
        /* null, not a wrong figure, when the write did not finish */
        json_object_set_new(o, "utilisation", r->finished ? json_real(f->util) : json_null());
        json_object_set_new(o, "max_utilisation",
                            r->finished ? json_real(f->max_util) : json_null());
        json_object_set_new(o, "saturated_s",
                            r->finished ? json_real(f->saturated_s) : json_null());
        json_object_set_new(o, "imbalance", json_real(f->imbalance));
        json_object_set_new(o, "need_s", json_real(f->need_s));
        json_object_set_new(o, "bound_s", json_real(f->bound_s));
        if (r->has_packet_stats)
            json_object_set_new(o, "paused_s", json_real(f->paused_s));
        if (r->training.on) /* of bytes: what training put on this segment's links */
            json_object_set_new(o, "training_bytes", json_real((double)r->training.seg_bytes[s]));
        json_object_set_new(o, "bottleneck", json_boolean(r->finished && s == r->bottleneck.seg));
        if (s == PATH_BACKEND && r->bottleneck.backend_stage != STAGE_NONE)
            json_object_set_new(o, "stage",
                                json_string(storage_stage_name(r->bottleneck.backend_stage)));
        json_array_append_new(a, o);
    }
    return a;
}

json_t *bottleneck_json(const struct results *r)
{
    const struct bottleneck *v = &r->bottleneck;
    json_t *o = json_object();
    json_object_set_new(o, "segment", json_string(path_seg_key(v->seg)));
    json_object_set_new(o, "label", json_string(seg_label(r, v->seg)));
    if (v->stage != STAGE_NONE) /* staged storage nodes: nic, host, cache or media */
        json_object_set_new(o, "stage", json_string(storage_stage_name(v->stage)));
    static const char *const why_key[] = {
        [WHY_NONE] = "segment",           [WHY_LOSS] = "packet_loss",
        [WHY_TRIM] = "packet_trimming",   [WHY_TIMER] = "spurious_timeouts",
        [WHY_GBN] = "go_back_n_retransmission", [WHY_NAKS] = "reorder_naks"};
    json_object_set_new(o, "cause", json_string(why_key[resend_why(r)]));
    json_object_set_new(o, "resent_ratio", json_real(v->resent));
    json_object_set_new(o, "saturated", json_boolean(v->util >= 0.5));
    json_object_set_new(o, "utilisation", json_real(v->util));
    json_object_set_new(o, "bound_s", json_real(v->seg >= 0 ? r->segs[v->seg].bound_s : 0));
    json_object_set_new(o, "excess", json_real(v->excess));
    json_object_set_new(o, "shared_with_training", json_boolean(bottleneck_shared_with_training(r)));
    json_object_set_new(o, "next_segment", json_string(path_seg_key(v->next_seg)));
    json_object_set_new(o, "next_bound_s",
                        json_real(v->next_seg >= 0 ? r->segs[v->next_seg].bound_s : 0));
    json_object_set_new(o, "unlimited_bound_s", json_real(v->removed_s));
    json_object_set_new(o, "doubled_completion_s", json_real(v->doubled_s));
    json_object_set_new(o, "start_spread_s", json_real(v->start_spread_s));
    return o;
}
