/* CSV files of one run: time series, hottest ports, pauses, writers,
 * segments, and with telemetry.flows each transfer's rate (flows.csv). Every
 * file has a header row; every quantity's column name ends in its unit (_s,
 * _bytes, _gbps, _bps, _frac, _ratio, _count); identifiers (port, link,
 * segment, label, writer, rank, flow) and flags (_flag) have none.
 * With storage back ends that can fall behind (storage.drain_rate, stuck
 * nodes) timeseries.csv ends with their write rate, the bytes their ingest
 * buffers hold and each node's, and remaining_bytes counts what they have
 * still to write.
 * A hybrid run's timeseries.csv and queues.csv end with fast_forwarded_flag:
 * 1 on a sample a jump carried (its state the jump's: docs/report.md).
 * Without packet figures (fluid engine) queues and pauses do not exist: their
 * columns and files (queues.csv, pauses.csv, ports.csv) are left out; without
 * per-flow samples flows.csv is. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "../core/outfile.h"
#include "internal.h"

static int write_timeseries(FILE *f, const struct results *r)
{
    const struct series *s = &r->series;
    int pq = r->has_packet_stats; /* pause and queue columns */
    enum path_seg sets[PATH_LINK_SETS];
    int ns = (int)path_link_sets_shown(r->fabric_tiers, sets);
    fprintf(f, "time_s,remaining_bytes,active_transfers_count");
    /* throughput of the forward link sets, pauses of every link set */
    for (int g = 0; g < ns - 1; g++)
        fprintf(f, ",%s_gbps", path_seg_key(sets[g]));
    for (int g = 0; pq && g < ns; g++)
        fprintf(f, ",%s_paused_ports_count", path_seg_key(sets[g]));
    if (pq)
        fprintf(f, ",max_queue_bytes");
    /* storage back ends: what they wrote, what their buffers hold */
    uint32_t ns_b = s->ingest ? s->n_store : 0;
    if (ns_b)
        fprintf(f, ",%s_gbps,buffered_bytes", path_seg_key(PATH_BACKEND));
    for (uint32_t j = 0; j < ns_b; j++) {
        char nm[SERIES_NAME_MAX];
        fprintf(f, ",%s_ingest_bytes", series_node_name(s, s->store_node[j], nm, sizeof nm));
    }
    for (uint32_t j = 0; ns_b && s->cache && j < ns_b; j++) { /* write caches */
        char nm[SERIES_NAME_MAX];
        fprintf(f, ",%s_cache_bytes", series_node_name(s, s->store_node[j], nm, sizeof nm));
    }
    int ff = r->hybrid.on && r->sample_ff;
    if (ff)
        fprintf(f, ",fast_forwarded_flag");
    fputc('\n', f);
    for (uint32_t i = 0; i < s->n && i < r->n_samples; i++) {
        fprintf(f, "%.9g,%llu,%u", r->sample_t[i], (unsigned long long)s->remaining[i],
                s->active[i]);
        double dt = i ? r->sample_t[i] - r->sample_t[i - 1] : 0;
        for (int k = 0; k < ns - 1; k++) {
            int g = sets[k];
            double d = i ? (double)(s->seg_bytes[(size_t)i * SERIES_SEGS + g] -
                                    s->seg_bytes[(size_t)(i - 1) * SERIES_SEGS + g])
                         : 0;
            fprintf(f, ",%.6g", dt > 0 ? d * 8 / dt / 1e9 : 0.0);
        }
        for (int k = 0; pq && k < ns; k++)
            fprintf(f, ",%u", s->seg_paused ? s->seg_paused[(size_t)i * SERIES_SEGS +
                                                            sets[k]] : 0);
        if (pq)
            fprintf(f, ",%llu", (unsigned long long)(r->sample_max_queue ? r->sample_max_queue[i] : 0));
        if (ns_b) {
            const uint64_t *lv = &s->ingest[(size_t)i * ns_b];
            uint64_t held = 0;
            for (uint32_t j = 0; j < ns_b; j++)
                held += lv[j];
            double d = i ? (double)(s->seg_bytes[(size_t)i * SERIES_SEGS + PATH_BACKEND] -
                                    s->seg_bytes[(size_t)(i - 1) * SERIES_SEGS + PATH_BACKEND])
                         : 0;
            fprintf(f, ",%.6g,%llu", dt > 0 ? d * 8 / dt / 1e9 : 0.0, (unsigned long long)held);
            for (uint32_t j = 0; j < ns_b; j++)
                fprintf(f, ",%llu", (unsigned long long)lv[j]);
            for (uint32_t j = 0; s->cache && j < ns_b; j++)
                fprintf(f, ",%llu", (unsigned long long)s->cache[(size_t)i * ns_b + j]);
        }
        if (ff)
            fprintf(f, ",%d", r->sample_ff[i]);
        fputc('\n', f);
    }
    return 0;
}

/* Each hot port's queue, carried forward from its last change. */
static int write_queues(FILE *f, const struct results *r, struct err *e)
{
    const struct series *s = &r->series;
    char lb[SERIES_LINK_MAX];
    fprintf(f, "time_s");
    for (uint32_t j = 0; j < s->n_hot; j++)
        fprintf(f, ",%s_bytes",
                series_link_label(s, s->hot[j].node, s->hot[j].peer, lb, sizeof lb));
    int ff = r->hybrid.on && r->sample_ff;
    if (ff)
        fprintf(f, ",fast_forwarded_flag");
    fputc('\n', f);
    if (!s->n || !s->port_state)
        return 0;
    int8_t *hot = malloc(s->n_ports ? s->n_ports : 1);
    if (!hot)
        return err_set(e, "out of memory writing queues.csv");
    memset(hot, -1, s->n_ports);
    for (uint32_t j = 0; j < s->n_hot; j++)
        if (s->hot[j].port < s->n_ports)
            hot[s->hot[j].port] = (int8_t)j;
    uint32_t q[SERIES_MAX_HOT] = {0};
    for (uint32_t i = 0; i < s->n && i < r->n_samples; i++) {
        for (uint64_t k = s->off[i]; k < s->off[i + 1]; k++)
            if (s->ent[k].port < s->n_ports && hot[s->ent[k].port] >= 0)
                q[hot[s->ent[k].port]] = s->ent[k].q_bytes;
        fprintf(f, "%.9g", r->sample_t[i]);
        for (uint32_t j = 0; j < s->n_hot; j++)
            fprintf(f, ",%u", q[j]);
        if (ff)
            fprintf(f, ",%d", r->sample_ff[i]);
        fputc('\n', f);
    }
    free(hot);
    return 0;
}

struct pause_csv {
    FILE *f;
    const struct results *r;
    double dt;
};

static void pause_row(void *ud, uint32_t port, uint32_t first, uint32_t last)
{
    struct pause_csv *c = ud;
    const struct series *s = &c->r->series;
    char lb[SERIES_LINK_MAX];
    uint8_t g = s->port_seg[port];
    fprintf(c->f, "%u,%s,%s,%.9g,%.9g\n", port,
            series_link_label(s, s->port_node[port], s->port_peer[port], lb, sizeof lb),
            path_seg_key(g), c->r->sample_t[first],
            c->r->sample_t[last] + c->dt);
}

/* One row per run of samples in which the port was paused: from the first
 * such sample to one interval after the last. */
static int write_pauses(FILE *f, const struct scenario *sc, const struct results *r,
                        struct err *e)
{
    fprintf(f, "port,link,segment,start_s,end_s\n");
    if (!r->series.port_node)
        return 0;
    struct pause_csv c = {f, r, (double)sc->telemetry.interval_ps / 1e12};
    if (series_pause_runs(&r->series, pause_row, &c) < 0)
        return err_set(e, "out of memory writing pauses.csv");
    return 0;
}

static int write_ports(FILE *f, const struct results *r)
{
    const struct series *s = &r->series;
    char lb[SERIES_LINK_MAX];
    fprintf(f, "rank,port,link,segment,max_queue_bytes,paused_s\n");
    for (uint32_t j = 0; j < s->n_hot; j++) {
        const struct hot_port *h = &s->hot[j];
        fprintf(f, "%u,%u,%s,%s,%llu,%.9g\n", j + 1, h->port,
                series_link_label(s, h->node, h->peer, lb, sizeof lb),
                path_seg_key(h->seg),
                (unsigned long long)h->max_queue, h->paused_s);
    }
    return 0;
}

struct wc {
    double t;
    uint32_t w;
};

static int cmp_wc(const void *a, const void *b)
{
    const struct wc *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->w < y->w ? -1 : x->w > y->w;
}

/* Sorted by completion; cdf_frac = share of writers done by then. */
static int write_writers(FILE *f, const struct results *r, struct err *e)
{
    fprintf(f, "rank,writer,completion_s,cdf_frac\n");
    uint32_t n = 0;
    struct wc *v = malloc((r->n_writer_s ? r->n_writer_s : 1) * sizeof *v);
    if (!v)
        return err_set(e, "out of memory writing writers.csv");
    for (uint32_t i = 0; r->writer_s && i < r->n_writer_s; i++)
        if (r->writer_s[i] >= 0)
            v[n++] = (struct wc){r->writer_s[i], i};
    qsort(v, n, sizeof *v, cmp_wc);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%u,%u,%.9g,%.6g\n", i + 1, v[i].w, v[i].t,
                (double)(i + 1) / (double)r->n_writer_s);
    free(v);
    return 0;
}

static int write_segments(FILE *f, const struct results *r)
{
    fprintf(f, "segment,label,applies_flag,elements_count,element_bps,capacity_bps,"
               "carried_bytes,utilisation_frac,max_utilisation_frac,saturated_s,"
               "imbalance_ratio,need_s,bound_s,paused_s,bottleneck_flag\n");
    for (int g = 0; g < PATH_COUNT; g++) {
        const struct seg_figures *x = &r->segs[g];
        if (!path_seg_shown(g, r->fabric_tiers))
            continue;
        fprintf(f, "%s,%s,%d,%u,%.6g,%.6g,%.0f,%.6g,%.6g,%.9g,%.6g,%.9g,%.9g,%.9g,%d\n",
                path_seg_key(g), seg_label(r, g), x->applies, x->elements, x->elem_bps,
                x->cap_bps, x->bytes, x->util, x->max_util, x->saturated_s, x->imbalance,
                x->need_s, x->bound_s, x->paused_s, g == r->bottleneck.seg);
    }
    return 0;
}

/* One row per (sample, transfer), time-major: the transfer's sending rate
 * (DCQCN's current rate, line rate without congestion control, 0 once it has
 * sent everything) and the bytes its receiver has got. */
static int write_flows(FILE *f, const struct results *r)
{
    uint32_t nf = r->n_sample_flows;
    fprintf(f, "time_s,flow,rate_gbps,delivered_bytes\n");
    for (uint32_t i = 0; i < r->n_samples; i++)
        for (uint32_t k = 0; k < nf; k++) {
            size_t j = (size_t)i * nf + k;
            fprintf(f, "%.9g,%u,%.6g,%llu\n", r->sample_t[i], k, r->sample_rate[j] / 1e9,
                    (unsigned long long)r->sample_delivered[j]);
        }
    return 0;
}

/* training.csv (docs/training.md): every step, when it began, how long it
 * took and its communication, against the baseline; during_checkpoint = 1
 * for the steps that began before the checkpoint's last byte. */
static int write_training(FILE *f, const struct results *r)
{
    const struct train_figures *g = &r->training;
    fprintf(f, "step,begin_s,step_s,comm_s,baseline_step_s,during_checkpoint\n");
    for (uint32_t s = 0; s < g->steps; s++)
        fprintf(f, "%u,%.9g,%.9g,%.9g,%.9g,%d\n", s, g->begin_s[s], g->step_s[s], g->comm_s[s],
                g->baseline_step_s, g->begin_s[s] < g->ckpt_end_s);
    return 0;
}

static const char *const csv_names[] = {"timeseries.csv", "queues.csv", "pauses.csv",
                                        "ports.csv", "writers.csv", "segments.csv",
                                        "flows.csv", "training.csv"};

int report_csv_check(const char *dir, struct err *e)
{
    for (int k = 0; k < 8; k++)
        if (ofile_check_in(dir, csv_names[k], e) < 0)
            return -1;
    return 0;
}

int report_csv(const char *dir, const struct scenario *sc, const struct results *r,
               struct err *e)
{
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return err_set(e, "cannot create directory '%s': %s", dir, strerror(errno));
    const char *const *names = csv_names;
    int flows = r->n_sample_flows > 0 && r->sample_rate && r->sample_delivered;
    int train = r->training.on && r->training.steps && r->training.step_s;
    int absent[8] = {0}, failed = 0;
    char first[sizeof e->msg] = "";
    /* every file is tried: each one written whole, or the earlier one kept */
    for (int k = 0; k < 8; k++) {
        if ((!r->has_packet_stats && k >= 1 && k <= 3) || (k == 6 && !flows) ||
            (k == 7 && !train)) {
            absent[k] = 1;
            continue;
        }
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[k]) >= sizeof path) {
            snprintf(first, sizeof first, "--csv-dir: path too long");
            failed++;
            continue;
        }
        struct ofile o;
        struct err we = {{0}};
        FILE *f = ofile_open(&o, path, &we);
        int rc = f ? 0 : -1;
        switch (f ? k : -1) {
        case -1: break;
        case 0: rc = write_timeseries(f, r); break;
        case 1: rc = write_queues(f, r, &we); break;
        case 2: rc = write_pauses(f, sc, r, &we); break;
        case 3: rc = write_ports(f, r); break;
        case 4: rc = write_writers(f, r, &we); break;
        case 5: rc = write_segments(f, r); break;
        case 6: rc = write_flows(f, r); break;
        default: rc = write_training(f, r); break;
        }
        if (f && rc < 0)
            ofile_abort(&o);
        else if (f)
            rc = ofile_commit(&o, &we);
        if (rc < 0) {
            /* the first failure is the message; the others were tried too */
            if (!failed)
                snprintf(first, sizeof first, "%s", we.msg);
            failed++;
        }
    }
    if (failed > 1)
        return err_set(e, "%s (and %d more files in '%s')", first, failed - 1, dir);
    if (failed)
        return err_set(e, "%s", first);
    /* no such thing in this run: none left from an earlier one (once the
     * new set is in place) */
    for (int k = 0; k < 8; k++)
        if (absent[k]) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, names[k]);
            unlink(path);
        }
    return 0;
}
