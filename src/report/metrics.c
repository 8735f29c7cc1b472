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

/* Every row of part mp with a metric and a value in this run, in mseq
 * order: a gauge, or a counter (integers exactly). */
static void field_metrics(FILE *f, const struct scenario *sc, const struct results *r,
                          enum metric_part mp)
{
    const struct result_field *at[FIELD_MSEQ_MAX + 1] = {0};
    for (size_t i = 0; i < n_result_fields; i++) {
        const struct result_field *rf = &result_fields[i];
        if (rf->metric && rf->mpart == mp && rf->mseq <= FIELD_MSEQ_MAX)
            at[rf->mseq] = rf;
    }
    for (unsigned k = 1; k <= FIELD_MSEQ_MAX; k++) {
        const struct result_field *rf = at[k];
        double v = rf ? field_number(rf, r) : NAN;
        if (isnan(v))
            continue;
        enum mtype t = rf->mtype == MT_COUNTER ? M_COUNTER : M_GAUGE;
        family(f, rf->metric, t,
               rf->help_estimated && r->restore.estimated ? rf->help_estimated : rf->help);
        fprintf(f, "ckptnet_%s", rf->metric);
        if (rf->label == FL_CURRENCY) {
            fputc('{', f);
            put_label(f, "currency", sc->training.currency, 1);
            fputc('}', f);
        }
        fputc(' ', f);
        if (t == M_COUNTER && (rf->kind == FK_U64 || rf->kind == FK_U32))
            fprintf(f, "%llu", (unsigned long long)field_count(rf, r));
        else
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
    field_metrics(f, sc, r, MP_RUN);
    if (!r->finished) {
        fputs("# the run did not finish: no completion, bound ratio or cost families\n", f);
        return;
    }
    field_metrics(f, sc, r, MP_FINISHED);
}

void report_metrics(FILE *f, const struct scenario *sc, const struct results *r)
{
    run_level(f, sc, r);
    if (!r->has_packet_stats) {
        fprintf(f, "# engine %s: no packets, so no PFC, ECN, queue, drop or per-port "
                   "families\n", names_of(&names_engine, r->engine));
        return;
    }
    field_metrics(f, sc, r, MP_PACKET);
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
