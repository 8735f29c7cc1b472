/* Metrics of one run in the Prometheus text exposition format (0.0.4, what
 * Prometheus scrapes and the node exporter's textfile collector reads): a
 * family is "# HELP name text" and "# TYPE name type" followed by its
 * samples, which carry the family's name; counters' names end in _total,
 * units are the names' last word (_seconds, _bytes). Other "#" lines are
 * comments: they say which families a run leaves out and why. Reals are
 * printed with 17 significant digits so that they read back equal to the
 * results. Families and labels: docs/report.md. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "report.h"
#include "../topo/topo.h"
#include "fields.h"
#include "internal.h"

enum mtype { M_GAUGE, M_COUNTER };

static const char *const type_name[] = {"gauge", "counter"};

/* "# HELP" and "# TYPE" of a family (name without the ckptnet_ prefix). */
static void family(FILE *f, const char *name, enum mtype t, const char *help)
{
    fprintf(f, "# HELP ckptnet_%s %s\n# TYPE ckptnet_%s %s\n", name, help, name,
            type_name[t]);
}

/* A real as OpenMetrics reads it: 17 digits round-trip, no locale. */
static void put_real(FILE *f, double v)
{
    if (isnan(v))
        fputs("NaN", f);
    else if (isinf(v))
        fputs(v > 0 ? "+Inf" : "-Inf", f);
    else
        fprintf(f, "%.17g", v);
}

/* A family of one real sample. */
static void real_family(FILE *f, const char *name, enum mtype t, const char *help, double v)
{
    family(f, name, t, help);
    fprintf(f, "ckptnet_%s ", name);
    put_real(f, v);
    fputc('\n', f);
}

static void gauge(FILE *f, const char *name, const char *help, double v)
{
    real_family(f, name, M_GAUGE, help, v);
}

/* A counter's value: integers exactly, reals (seconds) as reals. */
static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
    family(f, name, M_COUNTER, help);
    fprintf(f, "ckptnet_%s %llu\n", name, (unsigned long long)v);
}

/* Label values are node names and fixed words: nothing to escape but
 * backslash, quote and newline, which the format escapes. */
static void put_label(FILE *f, const char *k, const char *v, int first)
{
    fprintf(f, "%s%s=\"", first ? "" : ",", k);
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fputc('\\', f);
        if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
    fputc('"', f);
}

/* One sample per port of a per-port family. */
enum port_field { PF_TX, PF_PAUSE_TX, PF_PAUSE_RX, PF_PAUSED, PF_MAXQ, PF_ECN, PF_DROPS };

static void port_family(FILE *f, const struct results *r, enum port_field pf,
                        const char *name, enum mtype t, const char *help)
{
    const struct series *s = &r->series;
    family(f, name, t, help);
    for (uint32_t i = 0; i < r->n_ports; i++) {
        const struct port_result *p = &r->ports[i];
        char a[SERIES_NAME_MAX], b[SERIES_NAME_MAX], link[SERIES_LINK_MAX], num[16];
        uint32_t peer_node = p->peer < r->n_ports ? r->ports[p->peer].node : p->node;
        snprintf(link, sizeof link, "%s->%s", series_node_name(s, p->node, a, sizeof a),
                 series_node_name(s, peer_node, b, sizeof b));
        snprintf(num, sizeof num, "%u", i);
        fprintf(f, "ckptnet_%s{", name);
        put_label(f, "port", num, 1);
        put_label(f, "link", link, 0);
        put_label(f, "segment", path_seg_key((int)p->seg), 0);
        fputs("} ", f);
        switch (pf) {
        case PF_TX: fprintf(f, "%llu", (unsigned long long)p->tx_bytes); break;
        case PF_PAUSE_TX: fprintf(f, "%llu", (unsigned long long)p->pause_tx); break;
        case PF_PAUSE_RX: fprintf(f, "%llu", (unsigned long long)p->pause_rx); break;
        case PF_PAUSED: put_real(f, p->paused_s); break;
        case PF_MAXQ: fprintf(f, "%llu", (unsigned long long)p->max_queue); break;
        case PF_ECN: fprintf(f, "%llu", (unsigned long long)p->ecn_marked); break;
        case PF_DROPS: fprintf(f, "%llu", (unsigned long long)p->drops); break;
        }
        fputc('\n', f);
    }
}

/* A gauge per row of block b that has a metric and a value in this run. */
static void field_gauges(FILE *f, const struct scenario *sc, const struct results *r,
                         enum field_block b)
{
    for (size_t i = 0; i < n_result_fields; i++) {
        const struct result_field *rf = &result_fields[i];
        double v = field_number(rf, r);
        if (rf->block != b || !rf->metric || isnan(v))
            continue;
        family(f, rf->metric, M_GAUGE, rf->help);
        fprintf(f, "ckptnet_%s", rf->metric);
        if (rf->label == FL_CURRENCY) {
            fputc('{', f);
            put_label(f, "currency", sc->training.currency, 1);
            fputc('}', f);
        }
        fputc(' ', f);
        put_real(f, rf->metric_scale ? v * rf->metric_scale : v);
        fputc('\n', f);
    }
}

static void run_level(FILE *f, const struct scenario *sc, const struct results *r)
{
    family(f, "run_info", M_GAUGE, "the engine that ran, what set the bound, the transport");
    fputs("ckptnet_run_info{", f);
    put_label(f, "engine", names_of(&names_engine, r->engine), 1);
    put_label(f, "bound_limit", path_seg_key(r->bound_limit), 0);
    if (r->has_packet_stats)
        put_label(f, "cc", cc_scheme(r->cc)->name, 0);
    fputs("} 1\n", f);
    gauge(f, "ok", "1 when every invariant of the run held, else 0", r->ok ? 1 : 0);
    gauge(f, "finished", "1 when every transfer completed, else 0", r->finished ? 1 : 0);
    gauge(f, "checkpoint_bytes", "checkpoint payload bytes to write",
          (double)r->ckpt_bytes);
    gauge(f, "writers", "checkpoint writers", r->writers);
    gauge(f, "transfers", "transfers planned", r->transfers);
    gauge(f, "transfers_completed", "transfers that completed", r->flows_done);
    field_gauges(f, sc, r, FB_BOUND);
    counter(f, "sent_bytes_total", "payload bytes sent by writers (first sends)",
            r->bytes_sent);
    counter(f, "delivered_bytes_total", "payload bytes delivered to storage",
            r->bytes_delivered);
    if (!r->finished) {
        fputs("# the run did not finish: no completion, bound ratio or cost families\n", f);
        return;
    }
    field_gauges(f, sc, r, FB_CHECKPOINT);
    gauge(f, "bound_ratio", "completion over the analytic bound",
          r->bound_s > 0 ? r->completion_s / r->bound_s : 0);
    field_gauges(f, sc, r, FB_PLAN_COST);
    const struct restore_figures *rs = &r->restore;
    if (!rs->ran)
        return;
    gauge(f, "restore_seconds", rs->estimated
                                    ? "restore read time: its lower bound (phase save: not simulated)"
                                    : "restore read time, first byte to last reader done",
          rs->completion_s);
    gauge(f, "restore_bound_seconds", "analytic lower bound on the restore's read time",
          rs->bound_s);
    gauge(f, "restore_simulated", "1 when the restore ran in an engine, 0 when estimated",
          rs->estimated ? 0 : 1);
    gauge(f, "restore_read_bytes", "bytes read back from the storage nodes",
          (double)rs->bytes_read);
    gauge(f, "recovery_seconds", "restart overhead plus the restore, per failure",
          rs->recovery_s);
}

static void packet_level(FILE *f, const struct results *r)
{
    counter(f, "pause_frames_total", "PFC XOFF frames sent (refreshes not counted)",
            r->pause_frames);
    counter(f, "resume_frames_total", "PFC XON frames sent", r->resume_frames);
    real_family(f, "paused_seconds_total", M_COUNTER, "time paused, summed over ports",
                r->paused_s);
    counter(f, "dropped_packets_total", "packets dropped (all classes)", r->drops);
    counter(f, "ecn_marked_packets_total", "data packets marked CE", r->ecn_marked);
    counter(f, "cnps_sent_total", "congestion notification packets sent", r->cnps_sent);
    gauge(f, "max_queue_bytes", "largest egress queue seen (wire bytes)",
          (double)r->max_queue_bytes);
    gauge(f, "max_buffer_bytes", "largest switch buffer occupancy seen",
          (double)r->max_buffer_bytes);
}

void report_metrics(FILE *f, const struct scenario *sc, const struct results *r)
{
    run_level(f, sc, r);
    if (!r->has_packet_stats) {
        fprintf(f, "# engine %s: no packets, so no PFC, ECN, queue, drop or per-port "
                   "families\n", names_of(&names_engine, r->engine));
        return;
    }
    packet_level(f, r);
    if (!r->ports) {
        fputs("# no per-port families: they need telemetry.ports: true\n", f);
        return;
    }
    port_family(f, r, PF_TX, "port_transmit_bytes_total", M_COUNTER,
                "wire bytes the port sent");
    port_family(f, r, PF_PAUSE_TX, "port_pause_frames_sent_total", M_COUNTER,
                "PFC XOFF frames the port sent to its peer (refreshes not counted)");
    port_family(f, r, PF_PAUSE_RX, "port_pause_frames_received_total", M_COUNTER,
                "PFC XOFF frames the port received (refreshes counted)");
    port_family(f, r, PF_PAUSED, "port_paused_seconds_total", M_COUNTER,
                "time the port was paused, summed over its priorities");
    port_family(f, r, PF_MAXQ, "port_max_queue_bytes", M_GAUGE,
                "largest egress queue of the port (wire bytes)");
    port_family(f, r, PF_ECN, "port_ecn_marked_packets_total", M_COUNTER,
                "CE marks the port made (a packet marked again later counts again)");
    port_family(f, r, PF_DROPS, "port_dropped_packets_total", M_COUNTER,
                "packets dropped at the port");
}
