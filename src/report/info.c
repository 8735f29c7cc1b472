/* Reports that need no run: the built-in catalog and a scenario described
 * before running it. */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "../scenario/catalog.h"
#include "../work/model.h"
#include "internal.h"

void report_catalog(FILE *out)
{
    char a[32], b[32], c[32], d[32];
    fprintf(out, "switch profiles (fabric.switch, fabric.leaf_switch, fabric.spine_switch):\n");
    fprintf(out, "  %-20s %-11s %-10s %-9s %-9s %-10s %s\n", "name", "ports", "capacity",
            "latency", "buffer", "figures", "ASIC; notes; source");
    for (const struct switch_profile *p = switch_catalog; p->name; p++) {
        const char *fig = p->latency_published && p->buffer_published ? "published"
                          : p->latency_published || p->buffer_published ? "partly"
                                                                         : "generic";
        fprintf(out, "  %-20s %3u x %-5s %-10s %-9s %-9s %-10s %s; %s; %s\n", p->name, p->ports,
                fmt_rate((double)p->port_bps, a, sizeof a),
                fmt_rate((double)p->capacity_bps, b, sizeof b),
                fmt_secs((double)p->latency_ps / 1e12, c, sizeof c),
                fmt_bytes((double)p->buffer_bytes, d, sizeof d), fig, p->asic, p->notes,
                p->source);
    }
    fprintf(out, "\nstorage profiles (storage.profile; docs/storage.md; - = the scenario's):\n");
    fprintf(out, "  %-17s %-13s %-9s %-9s %-26s %s\n", "name", "NICs", "host", "cache",
            "drives (write/read each)", "notes; source");
    for (const struct storage_profile *p = storage_catalog; p->name; p++) {
        char nics[40] = "-", host[32] = "-", cache[32] = "-", drv[64] = "-";
        if (p->nics)
            snprintf(nics, sizeof nics, "%u x %s", p->nics,
                     fmt_rate((double)p->nic_bps, a, sizeof a));
        if (p->host_bps)
            fmt_rate((double)p->host_bps, host, sizeof host);
        if (p->cache_bytes)
            fmt_bytes((double)p->cache_bytes, cache, sizeof cache);
        if (p->drives) /* no media stage where no drive rate is published */
            snprintf(drv, sizeof drv, "%u x %s/s / %s/s", p->drives,
                     fmt_bytes((double)p->drive_w_bps / 8, b, sizeof b),
                     fmt_bytes((double)p->drive_r_bps / 8, c, sizeof c));
        fprintf(out, "  %-17s %-13s %-9s %-9s %-26s %s; %s\n", p->name, nics, host, cache,
                drv, p->notes, p->source);
    }
    fprintf(out, "\nmodels (model.name; docs/checkpoint.md):\n");
    fprintf(out, "  %-12s %17s %7s %-9s %s\n", "name", "parameters", "layers", "moments",
            "source");
    for (int m = MODEL_NONE + 1; m <= MODEL_CUSTOM; m++) {
        const struct model_spec *s = model_lookup(m);
        if (!s)
            continue;
        if (s->params)
            snprintf(a, sizeof a, "%.4g e9", (double)s->params / 1e9);
        else
            snprintf(a, sizeof a, "model.params");
        fprintf(out, "  %-12s %17s %7u %-9s %s\n", s->name, a, s->layers,
                s->optimizer_dtype == DTYPE_BF16 ? "bf16" : "fp32", s->source);
    }
    fprintf(out, "\nDCQCN presets (transport.dcqcn.preset; docs/engine.md):\n");
    const struct preset_entry *const sets[] = {[DCQCN_NVIDIA] = dcqcn_nvidia,
                                               [DCQCN_PAPER] = dcqcn_paper};
    for (int i = 0; i < names_dcqcn_preset.n; i++) {
        fprintf(out, "  %-7s", names_of(&names_dcqcn_preset, i));
        for (const struct preset_entry *e = sets[i]; e->key; e++)
            fprintf(out, " %s=%s", e->key + sizeof "transport.dcqcn." - 1, e->value);
        fputc('\n', out);
    }
}

/* A number of a range: whole above 100, else 2 digits. */
static void range_num(char *buf, size_t len, double v)
{
    snprintf(buf, len, v >= 100 ? "%.0f" : "%.2g", v);
}

/* "20-60 s": a wall-time range in the unit of its top (one figure when the
 * two round alike). */
static const char *wall_range(double lo, double hi, char *buf, size_t len)
{
    double m = hi >= 1 ? 1 : hi >= 1e-3 ? 1e3 : 1e6;
    const char *u = hi >= 1 ? "s" : hi >= 1e-3 ? "ms" : "us";
    char a[24], b[24];
    range_num(a, sizeof a, lo * m);
    range_num(b, sizeof b, hi * m);
    if (!strcmp(a, b))
        snprintf(buf, len, "%s %s", a, u);
    else
        snprintf(buf, len, "%s-%s %s", a, b, u);
    return buf;
}

struct echo_ctx {
    FILE *out;
    const struct scenario *sc;
};

/* A key set to auto whose value the scenario alone fixes says that value. */
static void echo_line(void *ud, const char *key, const char *value, int kind)
{
    const struct echo_ctx *c = ud;
    (void)kind;
    fprintf(c->out, "  %s = %s", key, value);
    char why[96], t[32];
    if (!strcmp(key, "transport.sack_timeout") && rto_auto_words(c->sc, why, sizeof why))
        fprintf(c->out, " (%s: %s%s)",
                fmt_secs((double)transport_rto_ps(c->sc, NULL) * 1e-12, t, sizeof t), why,
                c->sc->transport.rto_mode == RTO_ADAPTIVE ? "; transport.rto adaptive starts "
                                                            "there" : "");
    fputc('\n', c->out);
}

/* describe's checkpoint line: what the write moves */
static void describe_checkpoint(FILE *out, const struct results *r,
                                const struct ckpt_description *d)
{
    const struct plan_summary *p = &r->plan;
    char a[32], b[32];
    fprintf(out, "  checkpoint  %s", fmt_bytes((double)r->ckpt_bytes, a, sizeof a));
    if (p->params)
        fprintf(out, " (%s, %.4ge9 params x %u B; %s, tp %u pp %u dp %u)", p->model,
                (double)p->params / 1e9, p->weights_bpp + p->optimizer_bpp, p->writer_rule,
                p->tp, p->pp, p->dp);
    fprintf(out, ": %u files, %u writers on %u GPUs, %u transfers, shard max %s (skew %.2f), "
                 "policy %s\n",
            p->files, p->writers, p->gpus, d->transfers,
            fmt_bytes((double)p->max_gpu_bytes, b, sizeof b), p->skew, p->policy);
}

void report_describe(FILE *out, const struct scenario *sc, const struct ckpt_description *d)
{
    const struct results *r = &d->r;
    const struct plan_summary *p = &r->plan;
    char a[32], b[32], src[1024];
    fprintf(out, "ckptnet describe: scenario %s, seed %llu (not run)\n",
            sc->source[0] ? err_escape(src, sizeof src, sc->source) : "default",
            (unsigned long long)sc->seed);
    if (RESULTS_READ(r)) {
        const struct restore_figures *f = &r->restore;
        fprintf(out, "  restore     %s: %u reader%s read %s (amplification %.2fx) from the "
                     "storage nodes, %u transfers; checkpoint.phase restore: the figures "
                     "below are the read's\n",
                f->mode, f->readers, f->readers == 1 ? "" : "s",
                fmt_bytes((double)f->bytes_read, a, sizeof a), f->amplification, d->transfers);
    } else
        describe_checkpoint(out, r, d);
    fprintf(out, "  fabric      %u switches, %u links; oversubscription %.2f:1 compute leaves, "
                 "%.2f:1 storage leaves\n",
            r->switches, r->links, r->oversub_compute, r->oversub_storage);
    report_clos_line(out, r);
    report_bom_line(out, sc, r);
    report_capex_line(out, sc, r, 0);
    /* placement (docs/checkpoint.md): per-node bytes and their skew */
    report_placement(out, p);
    if (p->nodes_listed && p->nodes_listed <= 16) {
        fprintf(out, "; bytes per node");
        for (uint32_t i = 0; i < p->nodes_listed; i++)
            fprintf(out, "%s %s", i ? "," : "", fmt_bytes((double)p->node_bytes[i], b, sizeof b));
    }
    fputc('\n', out);
    fprintf(out, "  bound       %s, set by %s (base latency %s)\n",
            fmt_secs(r->bound_s, a, sizeof a), seg_label(r, r->bound_limit),
            fmt_secs(r->base_latency_s, b, sizeof b));
    fprintf(out, "  segments    capacity and the completion each alone allows:\n");
    for (int s = 0; s < PATH_COUNT; s++) {
        const struct seg_figures *f = &r->segs[s];
        if (!path_seg_shown(s, r->fabric_tiers))
            continue;
        if (!f->applies) {
            fprintf(out, "    %-22s %s\n", seg_label(r, s),
                    s == PATH_HOST ? "not limited" : "keeps up");
            continue;
        }
        fprintf(out, "    %-22s %u x %-10s %s%s\n", seg_label(r, s), f->elements,
                fmt_rate(f->elem_bps, a, sizeof a), fmt_secs(f->bound_s, b, sizeof b),
                s == r->bottleneck.seg ? "  <- highest" : "");
    }
    if (r->warnings[0])
        fprintf(out, "  warning     %s\n", r->warnings);
    if (r->transport_warning[0])
        fprintf(out, "  warning     %s\n", r->transport_warning);
    if (r->protocol_kept[0]) /* a protocol's own choice the scenario overrode */
        fprintf(out, "  protocol    kept as set: %s\n", r->protocol_kept);
    fprintf(out, "  engine      %s (%s)\n", names_of(&names_engine, d->engine),
            r->engine_reason);
    char wall[80];
    fprintf(out, "  estimate    ~%.3g", d->est_events);
    if (d->est_events_max > d->est_events)
        fprintf(out, "-%.3g", d->est_events_max);
    fprintf(out, " events");
    double lo = d->est_packets > 0 ? d->est_events / d->est_packets : 8.0;
    if (d->engine != ENGINE_FLUID && d->est_resends) {
        const struct rx_scheme *rx = rx_scheme(sc->transport.receiver);
        fprintf(out, " (%.3g packets x %.3g at least; %s receiver: %s resends up to "
                     "sim.time_limit)",
                d->est_packets, lo, rx->name,
                rx->keeps_out_of_order ? "selective" : "go-back-N");
    }
    else if (d->engine != ENGINE_FLUID)
        fprintf(out, " (%.3g packets x %.3g-%.3g)", d->est_packets, lo,
                d->est_packets > 0 ? d->est_events_max / d->est_packets : 8.0);
    fprintf(out, ", memory <= %s, ~%s of wall time", fmt_bytes(d->est_mem_bytes, a, sizeof a),
            wall_range(d->est_wall_s, d->est_wall_max_s, wall, sizeof wall));
    if (d->est_resends)
        fprintf(out, " (at least %s: reordered or dropped packets are resent, for as long "
                     "as it takes)", fmt_secs(d->est_wall_s, b, sizeof b));
    fputc('\n', out);
    fprintf(out, "effective scenario (docs/scenario.md):\n");
    struct echo_ctx c = {out, sc};
    scenario_echo(sc, echo_line, &c);
}
