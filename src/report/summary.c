/* Reports: the human summary of one run, and the clos, bill-of-materials
 * and capex lines it shares with describe. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "../fluid/fluid.h"
#include "../scenario/lbscheme.h"
#include "../scenario/tpscheme.h"
#include "../topo/topo.h"
#include "internal.h"

/* What sets the bound: a path segment, or the metadata service. */
static const char *bound_by(const struct results *r)
{
    return r->bound_by_meta ? "metadata service" : seg_label(r, r->bound_limit);
}

/* The planner's answer, first: size, completion, stall, cost per day,
 * optimal interval, goodput (docs/checkpoint.md). */
/* "leaf-spine and spine-super-spine": the links between a fabric's levels. */
static const char *level_links(unsigned levels, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (unsigned k = 1; k < levels && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s-%s", k > 1 ? " and " : "",
                              path_level_name(k - 1), path_level_name(k));
    return buf;
}

/* cost.compare_policies: each policy's full daily cost on this scenario
 * (its own run; the chosen one marked) */
static void summary_policies(FILE *out, const struct scenario *sc, const struct results *r)
{
    const struct cost_figures *c = &r->cost;
    char v[7][32];
    if (!c->n_policies)
        return;
    fprintf(out, "  policies    full cost per day in %s, each policy its own run "
                 "(* this run):\n", sc->training.currency);
    fprintf(out, "                %-13s %10s %10s %10s %10s %10s %10s %8s %10s\n", "policy",
            "stall", "contention", "lag", "rework", "capital", "wear", "storage", "total");
    for (uint32_t i = 0; i < c->n_policies; i++) {
        const struct policy_cost *p = &c->policies[i];
        const char *name = names_of(&names_policy, p->policy);
        if (!p->ok) {
            fprintf(out, "              %c %-13s not run: %s\n", p->chosen ? '*' : ' ', name,
                    p->why);
            continue;
        }
        fprintf(out, "              %c %-13s %10s %10s %10s %10s %10s %10s %8s %10s\n",
                p->chosen ? '*' : ' ', name, fmt_num(p->stall_money, v[0], sizeof v[0]),
                fmt_num(p->contention_money, v[1], sizeof v[1]),
                fmt_num(p->lag_money, v[2], sizeof v[2]),
                fmt_num(p->rework_money, v[3], sizeof v[3]),
                c->priced ? fmt_num(p->capital_per_day, v[4], sizeof v[4]) : "-",
                r->endurance.wear_priced ? fmt_num(p->wear_money, v[6], sizeof v[6]) : "-",
                p->storage < 0 ? "-" : p->storage ? "EXCEEDS" : "ok",
                fmt_num(p->total_per_day, v[5], sizeof v[5]));
    }
}


static void summary_answer(FILE *out, const struct scenario *sc, const struct results *r)
{
    const struct plan_summary *p = &r->plan;
    const struct cost_figures *c = &r->cost;
    char a[32], b[32], d[32], e[32];
    fprintf(out, "  checkpoint  %s", fmt_bytes((double)r->ckpt_bytes, a, sizeof a));
    if (p->params)
        fprintf(out, " (%s, %.4ge9 params x %u B; %s, tp %u pp %u dp %u, ZeRO %u)",
                p->model, (double)p->params / 1e9, p->weights_bpp + p->optimizer_bpp,
                p->writer_rule, p->tp, p->pp, p->dp, p->zero_stage);
    fprintf(out, ": %u files, %u writers on %u GPUs, shard max %s (skew %.2f), "
                 "to %u storage nodes\n",
            p->files, p->writers, p->gpus, fmt_bytes((double)p->max_gpu_bytes, b, sizeof b),
            p->skew, sc->storage.nodes);
    if (p->protect_bytes && r->ckpt_bytes == p->bytes + p->protect_bytes) {
        if (sc->storage.protection == PROTECT_EC)
            fprintf(out, "  protection  ec %u+%u: %s of data, %s of parity fragments on the fabric "
                         "(x%.4g)\n", sc->storage.ec_data, sc->storage.ec_parity,
                    fmt_bytes((double)p->bytes, a, sizeof a),
                    fmt_bytes((double)p->protect_bytes, b, sizeof b),
                    (double)r->ckpt_bytes / (double)p->bytes);
        else if (sc->storage.protection == PROTECT_CHAIN)
            fprintf(out, "  protection  chain %u: %s written to the heads, %s more forwarded "
                         "node to node along the chains (x%.4g)\n", sc->storage.replicas,
                    fmt_bytes((double)p->bytes, a, sizeof a),
                    fmt_bytes((double)p->protect_bytes, b, sizeof b),
                    (double)r->ckpt_bytes / (double)p->bytes);
        else
            fprintf(out, "  protection  replica %u: %s written, %s more forwarded by the primaries "
                         "to their peers (x%.4g)\n", sc->storage.replicas,
                    fmt_bytes((double)p->bytes, a, sizeof a),
                    fmt_bytes((double)p->protect_bytes, b, sizeof b),
                    (double)r->ckpt_bytes / (double)p->bytes);
        /* where it limits: the bound it adds to */
        if (r->bound_unprotected_s > 0 && r->bound_s > r->bound_unprotected_s * 1.001)
            fprintf(out, "              protection limits: it raises the bound from %s to %s "
                         "(+%.1f%%)\n", fmt_secs(r->bound_unprotected_s, d, sizeof d),
                    fmt_secs(r->bound_s, e, sizeof e),
                    100.0 * (r->bound_s / r->bound_unprotected_s - 1));
    }
    if (!r->finished) {
        /* only what is true: how far it got, never a completion time */
        fprintf(out, "  completion  %s: %u of %u transfers complete, %s of %s "
                     "delivered when the run stopped (bound %s, set by %s)\n",
                r->interrupted ? "INTERRUPTED" : "DID NOT FINISH", r->flows_done, r->transfers, fmt_bytes((double)r->bytes_delivered, a, sizeof a),
                fmt_bytes((double)r->ckpt_bytes, b, sizeof b), fmt_secs(r->bound_s, d, sizeof d),
                bound_by(r));
        fprintf(out, "  cost        not computed: GPU stall, cost per day, interval and goodput "
                     "need a finished write\n");
        return;
    }
    fprintf(out, "  completion  %s after the trigger; write %s  (bound %s, set by %s; "
                 "%.1f%% of bound)\n",
            fmt_secs(c->end_s, a, sizeof a), fmt_secs(r->completion_s, b, sizeof b),
            fmt_secs(r->bound_s, d, sizeof d), bound_by(r),
            r->bound_s > 0 ? 100.0 * r->completion_s / r->bound_s : 0.0);
    fprintf(out, "  GPU stall   %s per checkpoint (%s%s)%s\n", fmt_secs(c->stall_s, a, sizeof a),
            p->policy, p->stall_measured ? ": GPUs wait for the whole write"
                                         : ": GPUs wait for staging, the drain goes on",
            c->drain_late ? "; WARNING: the drain outlasts the interval" : "");
    fprintf(out, "  per day     %s GPU-hours stalled = %s %s at %.4g %s per GPU-hour, "
                 "%.3g MFU points, %.3g checkpoints\n",
            fmt_num(c->gpu_hours_per_day, a, sizeof a), fmt_num(c->money_per_day, b, sizeof b),
            sc->training.currency, sc->training.gpu_hour_cost, sc->training.currency,
            c->mfu_points_lost, c->checkpoints_per_day);
    if (r->training.on)
        fprintf(out, "              + %s GPU-hours of slowed training steps (%s per checkpoint%s)\n",
                fmt_num(c->training_slowdown_gpu_hours_per_day, a, sizeof a),
                fmt_secs(c->training_lost_s, b, sizeof b),
                p->stall_measured ? ": none charged, GPUs wait for the whole write" : "");
    if (c->contention_s > 0)
        fprintf(out, "  contention  the drain (%s) shares the host with training, %.3g%% of its "
                     "throughput lost (%s): %s per checkpoint, %s GPU-hours/day = %s %s\n",
                fmt_secs(c->drain_s, a, sizeof a), 100 * c->drain_slowdown,
                sc->checkpoint.drain_slowdown > 0 ? "checkpoint.drain_slowdown"
                                                  : "drain rate over cluster.host_rate",
                fmt_secs(c->contention_s, b, sizeof b),
                fmt_num(c->contention_gpu_hours_per_day, d, sizeof d),
                fmt_num(c->contention_money_per_day, e, sizeof e), sc->training.currency);
    if (c->job_mtbf_s > 0) {
        fprintf(out, "  interval    %s configured; optimal %s (Young), %s (Daly) = %.0f steps; "
                     "job MTBF %s\n",
                fmt_dur(c->interval_s, a, sizeof a), fmt_dur(c->young_s, b, sizeof b),
                fmt_dur(c->daly_s, d, sizeof d),
                c->daly_s / ((double)sc->training.step_ps / 1e12),
                fmt_dur(c->job_mtbf_s, e, sizeof e));
        fprintf(out, "  goodput     %.2f%% at the configured interval, %.2f%% at the optimal",
                100 * c->goodput, 100 * c->goodput_at_optimal);
        if (c->mc_days > 0)
            fprintf(out, "; Monte Carlo %.2f%% (%.0f days, %llu failures)",
                    100 * c->goodput_mc, c->mc_days, (unsigned long long)c->mc_failures);
        fprintf(out, "; %s GPU-hours/day lost in all\n",
                fmt_num(c->lost_gpu_hours_per_day, a, sizeof a));
        if (c->durability_lag_s > 0)
            fprintf(out, "  durability  each checkpoint durable %s after its stall (the drain): "
                         "a failure before loses one more interval, goodput x %.4f\n",
                    fmt_dur(c->durability_lag_s, a, sizeof a),
                    exp(-fmin(c->durability_lag_s, c->interval_s + c->stall_s +
                                                       c->training_lost_s) / c->job_mtbf_s));
        /* where the recovery time comes from, and what the broadcast saves */
        fprintf(out, "  recovery    %s per failure (%s", fmt_dur(c->recovery_s, a, sizeof a),
                c->recovery_from);
        if (sc->failures.recovery_ps == SCENARIO_AUTO_TIME && r->restore.ran) {
            fprintf(out, ": restart %s + restore %s); one_replica_broadcast %s %s GPU-hours/day "
                         "against %s\n",
                    fmt_dur(r->restore.restart_s, b, sizeof b),
                    fmt_secs(r->restore.completion_s, d, sizeof d),
                    c->bcast_saves_gpu_hours_per_day >= 0 ? "saves" : "costs",
                    fmt_num(fabs(c->bcast_saves_gpu_hours_per_day), e, sizeof e),
                    names_of(&names_restore_mode, sc->restore.mode == RESTORE_ONE_BROADCAST
                                                      ? RESTORE_EVERY_REPLICA : sc->restore.mode));
        } else {
            fprintf(out, ", failures.recovery_time)\n");
        }
    } else {
        fprintf(out, "  interval    %s configured; no failures modelled (failures.mtbf_*: 0)\n",
                fmt_dur(c->interval_s, a, sizeof a));
        fprintf(out, "  goodput     %.2f%%\n", 100 * c->goodput);
    }
    report_capex_line(out, sc, r, 1);
    summary_policies(out, sc, r);
}

/* The echoed text of one key (scenario_echo: a rate in the unit written). */
struct echo_value {
    const char *key;
    char value[64];
};

static void echo_value_of(void *ud, const char *key, const char *value, int kind)
{
    struct echo_value *ev = ud;
    (void)kind;
    if (!strcmp(key, ev->key))
        snprintf(ev->value, sizeof ev->value, "%s", value);
}

/* The restore (checkpoint.phase restore|both): what was read, how long it
 * took against its own bound, its bottleneck and the recovery time. */
static void summary_restore(FILE *out, const struct scenario *sc, const struct results *r)
{
    const struct restore_figures *f = &r->restore;
    char a[32], b[32], c[32], d[32];
    if (!f->ran)
        return;
    fprintf(out, "  restore     %s: %u reader%s read %s (amplification %.2fx) from the "
                 "storage nodes",
            f->mode, f->readers, f->readers == 1 ? "" : "s",
            fmt_bytes((double)f->bytes_read, a, sizeof a),
            f->amplification);
    /* where the read comes from under storage.protection (protect.h) */
    int pr = sc->storage.protection, copies = sc->storage.replicas > 1;
    if (pr == PROTECT_EC)
        fprintf(out, " (source: data fragments)");
    else if (pr == PROTECT_REPLICA && copies)
        fprintf(out, " (source: primary copies)");
    else if (pr == PROTECT_CHAIN && copies)
        fprintf(out, " (source: replicas, each file in %u parts over its chain)",
                sc->storage.replicas);
    if (!f->finished) {
        fprintf(out, "; DID NOT FINISH (%s engine)\n", f->engine);
        return;
    }
    if (f->estimated) {
        /* phase save: the bound stands in for the read (recovery_time auto) */
        fprintf(out, " in at least %s (its bound, set by %s; not simulated: "
                     "checkpoint.phase both simulates it)\n",
                fmt_secs(f->bound_s, b, sizeof b), path_seg_label_io(f->bound_limit, 1));
        return;
    }
    fprintf(out, " in %s (bound %s, set by %s; %.1f%% of bound; %s engine)\n",
            fmt_secs(f->completion_s, a, sizeof a), fmt_secs(f->bound_s, b, sizeof b),
            path_seg_label_io(f->bound_limit, 1),
            f->bound_s > 0 ? 100.0 * f->completion_s / f->bound_s : 0.0, f->engine);
    fprintf(out, "              bottleneck %s (%.0f%% busy)", path_seg_label_io(f->bottleneck, 1),
            100 * f->bottleneck_util);
    if (f->broadcast_s > 0)
        fprintf(out, "; broadcast to the other replicas %s", fmt_secs(f->broadcast_s, a, sizeof a));
    fprintf(out, "; recovery %s = restart %s + restore %s\n",
            fmt_dur(f->recovery_s, b, sizeof b), fmt_dur(f->restart_s, c, sizeof c),
            fmt_secs(f->completion_s, d, sizeof d));
    /* phase both: the hybrid lines below are the save's */
    if (f->hybrid_on && r->phase == PHASE_BOTH)
        fprintf(out, "              hybrid fast-forwarded %.1f%% of the read (%s) in %u jump%s; "
                     "completion error estimate %s\n",
                100 * f->hybrid_fraction, fmt_secs(f->hybrid_skipped_s, a, sizeof a),
                f->hybrid_jumps, f->hybrid_jumps == 1 ? "" : "s",
                fmt_secs(f->hybrid_error_s, b, sizeof b));
}

/* A restore with restore.read_rate 0 reads the back end without limit: said
 * when the writes have a limit (storage.drain_rate), which the reads then
 * outrun. */
static void summary_restore_reads(FILE *out, const struct scenario *sc, const struct results *r)
{
    char a[64];
    if (!r->restore.ran || sc->restore.read_bps || !sc->storage.drain_bps)
        return;
    struct echo_value ev = {"storage.drain_rate", ""};
    scenario_echo(sc, echo_value_of, &ev);
    snprintf(a, sizeof a, "%s", ev.value);
    fprintf(out, "              reads assume an unlimited back end: restore.read_rate is unset "
                 "while storage.drain_rate writes %s a node; set %s to what "
                 "the storage reads\n", a,
            sc->storage.staged ? "storage.drive_read_rate (or restore.read_rate)"
                               : "restore.read_rate");
}

/* training line (docs/training.md): its steps while the checkpoint runs
 * against its baseline, and the class it had */
/* storage.protocol: the requests the checkpoint took */
static void summary_requests(FILE *out, const struct results *r)
{
    const struct request_figures *q = &r->requests;
    char a[32], b[32];
    if (!q->on)
        return;
    fprintf(out, "  requests    %s: %llu, latency mean %s, max %s%s\n", q->protocol,
            (unsigned long long)q->count, fmt_secs(q->mean_s, a, sizeof a),
            fmt_secs(q->max_s, b, sizeof b),
            q->estimated ? " (fluid: Little's law estimate)" : "");
}

/* checkpoint.mlperf: the figures as MLPerf Storage reports them */
static void summary_mlperf(FILE *out, const struct results *r)
{
    const struct mlperf_figures *m = &r->mlperf;
    char a[32], b[32], c[32], d[32];
    if (!m->on)
        return;
    fprintf(out, "  mlperf      %s (DLIO size %.1f GiB, this run %.1f GiB):", m->workload,
            m->dlio_gib, m->ckpt_gib);
    if (m->save_all_s > 0)
        fprintf(out, " save %s rank 0 = %.4g GiB/s (the published metric), %s all ranks = "
                     "%.4g GiB/s;",
                fmt_secs(m->save_rank0_s, a, sizeof a), m->save_rank0_gibps,
                fmt_secs(m->save_all_s, b, sizeof b), m->save_all_gibps);
    if (m->load_s > 0)
        fprintf(out, " load %s = %.4g GiB/s;", fmt_secs(m->load_s, c, sizeof c), m->load_gibps);
    if (m->run_s > 0)
        fprintf(out, " %u writes + %u reads, %.4g s compute before each: %s",
                m->save_all_s > 0 ? m->writes : 0, m->load_s > 0 ? m->reads : 0, m->gap_s,
                fmt_secs(m->run_s, d, sizeof d));
    fprintf(out, "\n");
}

/* storage.capacity / storage.drive_dwpd: what the policy asks of the
 * storage beyond its bandwidth, flagged when it exceeds it */
static void summary_endurance(FILE *out, const struct scenario *sc, const struct results *r)
{
    const struct endurance_figures *f = &r->endurance;
    const char *cur = sc->training.currency;
    char a[32], b[32], c[32], d[32];
    if (!f->on)
        return;
    fprintf(out, "  endurance   %s written per day (%.4g checkpoints)",
            fmt_bytes((double)f->bytes_per_day, a, sizeof a), r->cost.checkpoints_per_day);
    if (f->capacity_bytes)
        fprintf(out, "; %s kept (retention + the one being written) = %.1f%% of %s%s",
                fmt_bytes((double)f->retained_bytes, b, sizeof b), 100.0 * f->capacity_used,
                fmt_bytes((double)f->capacity_bytes, c, sizeof c),
                f->over_capacity ? ": EXCEEDS storage.capacity" : "");
    if (f->raw_bytes)
        fprintf(out, "; %.3g drive writes per day", f->dwpd);
    if (f->dwpd_rating > 0 && f->raw_bytes)
        fprintf(out, " against a rating of %.3g%s", f->dwpd_rating,
                f->over_endurance ? ": EXCEEDS storage.drive_dwpd" : "");
    else if (f->dwpd_rating > 0)
        fprintf(out, "; no drive writes per day (set storage.drives and "
                     "storage.drive_capacity)");
    fprintf(out, "\n");
    if (f->wear_priced)
        fprintf(out, "              drive wear %s %s/day (%llu x %s = %s %s, rated over %.4g "
                     "years) against %s %s/day amortised: %s\n",
                fmt_num(f->wear_per_day, a, sizeof a), cur, (unsigned long long)f->drives,
                f->drive_name, fmt_num(f->drives_price, b, sizeof b), cur, f->rating_years,
                fmt_num(f->drives_amortisation_per_day, c, sizeof c), cur,
                f->wear_limited ? "wear-limited, the excess is in the cost per day"
                                : "within the amortisation");
    else if (f->dwpd_rating > 0 && f->raw_bytes && f->drive_name[0])
        fprintf(out, "              drive wear not priced: no price for %s in cost.prices\n",
                f->drive_name);
    if (f->over_endurance)
        fprintf(out, "              within the rating: at most %.4g checkpoints per day, one "
                     "every %s or longer\n",
                f->max_checkpoints_per_day,
                fmt_secs(86400.0 / f->max_checkpoints_per_day, d, sizeof d));
}

static void summary_training(FILE *out, const struct scenario *sc, const struct results *r)
{
    const struct train_figures *g = &r->training;
    char a[32], b[32], c[32], cls[192];
    if (!g->on)
        return;
    if (!g->on_fabric)
        snprintf(cls, sizeof cls, "its own fabric");
    else if (g->isolation == ISO_NONE)
        snprintf(cls, sizeof cls, "the checkpoint's class (priority %u)", g->priority);
    else if (sc->fabric.scheduling == SCHED_STRICT)
        snprintf(cls, sizeof cls, "priority %u vs %u, strict", g->priority,
                 sc->transport.data_priority);
    else {
        char w[SCENARIO_TEXT];
        snprintf(w, sizeof w, "%s", sc->fabric.dwrr_weights);
        long wt = 1, wd = 1, i = 0;
        for (char *tok = strtok(w, ","); tok; tok = strtok(NULL, ","), i++) {
            if (i == (long)g->priority)
                wt = strtol(tok, NULL, 10);
            if (i == (long)sc->transport.data_priority)
                wd = strtol(tok, NULL, 10);
        }
        snprintf(cls, sizeof cls, "priority %u vs %u, DWRR %ld:%ld", g->priority,
                 sc->transport.data_priority, wt, wd);
    }
    /* scenario_resolve made training's class lossless (the user listed none) */
    int mask = scenario_prio_mask(sc->fabric.pfc_priorities);
    if (g->on_fabric && g->isolation != ISO_NONE && sc->fabric.pfc && mask > 0 &&
        ((mask >> g->priority) & 1) && !scenario_is_set(sc, "fabric.pfc.priorities"))
        snprintf(cls + strlen(cls), sizeof cls - strlen(cls),
                 "; lossless by default: fabric.pfc.priorities %s", sc->fabric.pfc_priorities);
    fprintf(out, "  training    step %s -> %s while the checkpoint runs (%+.0f%%), %u of %u "
                 "steps slowed, %s lost; isolation %s (%s)",
            fmt_secs(g->baseline_step_s, a, sizeof a), fmt_secs(g->during_step_s, b, sizeof b),
            100 * g->slowdown, g->slowed, g->steps, fmt_secs(g->lost_s, c, sizeof c),
            names_of(&names_isolation, g->isolation), cls);
    if (r->has_packet_stats && g->on_fabric)
        fprintf(out, "; PFC victim %s", fmt_secs(g->victim_paused_s, a, sizeof a));
    fputc('\n', out);
}

/* How CNPs travelled, and why when auto chose. */
static const char *cnp_path_note(const struct scenario *sc, char *buf, size_t len)
{
    int direct = scenario_cnp_direct(sc);
    if (!cc_scheme(sc->transport.cc)->sends_cnps)
        return ""; /* no CNPs */
    if (sc->transport.dcqcn.cnp_path != CNP_AUTO)
        return direct ? " (sent direct: not through the fabric)" : "";
    const char *why = scenario_cnp_fabric_why(sc);
    snprintf(buf, len, " (cnp_path auto: %s, %s)", direct ? "sent direct" : "through the fabric",
             direct ? "the reverse paths carry only ACKs and CNPs" : why);
    return buf;
}

/* How ACKs travelled, where a window transport hears them or the user
 * chose; and why when auto chose. */
static const char *ack_path_note(const struct scenario *sc, char *buf, size_t len)
{
    int direct = scenario_ack_direct(sc);
    if (sc->transport.ack_path != ACK_AUTO) {
        snprintf(buf, len, "; ACKs %s", direct ? "sent direct (not through the fabric)"
                                               : "through the fabric");
        return buf;
    }
    if (!cc_scheme(sc->transport.cc)->window && !sc->transport.uec.rccc)
        return "";
    const char *why = scenario_cnp_fabric_why(sc);
    snprintf(buf, len, "; ACKs %s (ack_path auto: %s)",
             direct ? "sent direct" : "through the fabric",
             direct ? "the reverse paths carry only control packets" : why);
    return buf;
}

void report_placement(FILE *out, const struct plan_summary *p)
{
    char a[32];
    fprintf(out, "  storage     placement %s%s: max/mean %.2f over %u nodes (skew costs "
                 "+%.1f%%, +%s, against an even spread)",
            p->placement ? p->placement : "file_mod",
            p->random_start ? " (random start)" : "",
            p->node_skew, p->storage_nodes, p->skew_cost_pct,
            fmt_secs((double)p->skew_cost_ps / 1e12, a, sizeof a));
}

/* head then text, words wrapped at 100 columns under the summary's
 * second column */
static void wrap(FILE *out, const char *head, const char *text)
{
    enum { COL = 14, WIDTH = 100 };
    int at = fprintf(out, "%*s%s", COL, "", head);
    for (const char *w = text; *w;) {
        int len = (int)strcspn(w, " ");
        if (at + 1 + len > WIDTH && at > COL + (int)strlen(head))
            at = fprintf(out, "\n%*s", COL, "") - 1;
        else if (w != text)
            at += fprintf(out, " ");
        at += fprintf(out, "%.*s", len, w);
        w += len;
        w += *w == ' ';
    }
    fputc('\n', out);
}

void report_summary(FILE *out, const struct scenario *sc, const struct results *r)
{
    char note[160], lk[64];
    char a[32], b[32], c[32], d[32], e[32], src[1024];
    fprintf(out, "ckptnet: %s engine, scenario %s, seed %llu\n", names_of(&names_engine, r->engine),
            sc->source[0] ? err_escape(src, sizeof src, sc->source) : "default",
            (unsigned long long)sc->seed);
    if (r->phase == PHASE_RESTORE) {
        /* the run is the read: its answer, no write and no cost */
        summary_restore(out, sc, r);
        summary_restore_reads(out, sc, r);
        fprintf(out, "  phase       restore only: the figures below are the read's "
                     "(checkpoint.phase both adds the write and its cost)\n");
    } else {
        summary_answer(out, sc, r);
        summary_restore(out, sc, r);
        summary_restore_reads(out, sc, r);
        summary_endurance(out, sc, r);
    }
    summary_mlperf(out, r);
    summary_requests(out, r);
    report_segments(out, sc, r);
    fprintf(out, "  fabric      %u switches, %u links; oversubscription %.2f:1 "
                 "compute leaves, %.2f:1 storage leaves\n",
            r->switches, r->links, r->oversub_compute, r->oversub_storage);
    report_clos_line(out, r);
    report_bom_line(out, sc, r);
    report_placement(out, &r->plan);
    fputc('\n', out);
    if (sc->storage.fsync_ps || sc->storage.metadata_ops > 0) {
        /* a write is complete once durable: what that adds */
        fprintf(out, "  metadata    fsync %s per file", fmt_secs(r->bound_fsync_s, a, sizeof a));
        if (sc->storage.metadata_ops > 0)
            fprintf(out, "; one metadata service at %.4g ops/s for %u creates + %u fsyncs "
                         "(bound term %s)",
                    sc->storage.metadata_ops, r->plan.files, r->plan.files,
                    fmt_secs(r->bound_meta_s, b, sizeof b));
        fprintf(out, "\n");
    }
    if (r->warnings[0])
        fprintf(out, "  warning     %s\n", r->warnings);
    if (r->transport_warning[0])
        fprintf(out, "  warning     %s\n", r->transport_warning);
    if (r->protocol_kept[0]) /* a protocol's own choice the scenario overrode */
        fprintf(out, "  protocol    kept as set: %s\n", r->protocol_kept);
    if (r->port_notes[0])
        fprintf(out, "  ports       %s\n", r->port_notes);
    if (r->failed_links)
        fprintf(out, "  failed      %u %s links down: %s\n", r->failed_links,
                level_links(r->fabric_tiers, lk, sizeof lk),
                r->failed_link_names);
    if (r->finished)
        fprintf(out, "  %-11s p50 %s  p99 %s  max %s\n", RESULTS_READ(r) ? "readers" : "writers",
                fmt_secs(r->writer_p50_s, a, sizeof a), fmt_secs(r->writer_p99_s, b, sizeof b),
                fmt_secs(r->writer_max_s, c, sizeof c));
    else
        fprintf(out, "  %-11s did not finish: %u of %u transfers complete\n",
                RESULTS_READ(r) ? "readers" : "writers", r->flows_done,
                r->transfers);
    summary_training(out, sc, r);
    if (!strncmp(r->engine_reason, "auto", 4))
        fprintf(out, "  engine      %s: %s\n", r->engine_reason, names_of(&names_engine, r->engine));
    if (r->engine == ENGINE_FLUID && r->n_unmodelled) {
        char list[sizeof r->engine_reason];
        fluid_unmodelled_text(r, list, sizeof list);
        fprintf(out, "  fluid       ignores: %s; its completion %s\n", list,
                fluid_direction_words(fluid_direction(r)));
    }
    if (r->has_packet_stats)
        fprintf(out, "  network     drops %llu; PFC %llu pause frames, %s paused "
                     "(all ports), %s worst port; max queue %s, max switch buffer %s\n",
                (unsigned long long)r->drops, (unsigned long long)r->pause_frames,
                fmt_secs(r->paused_s, a, sizeof a), fmt_secs(r->max_port_paused_s, b, sizeof b),
                fmt_bytes((double)r->max_queue_bytes, c, sizeof c),
                fmt_bytes((double)r->max_buffer_bytes, d, sizeof d));
    if (r->has_packet_stats) {
        fprintf(out, "  buffers     max headroom used %s, max shared per PG %s; "
                     "queue p99 (busy ports): storage NIC %s, %s %s, %s %s\n",
                fmt_bytes((double)r->max_headroom_bytes, a, sizeof a),
                fmt_bytes((double)r->max_shared_pg_bytes, b, sizeof b),
                fmt_bytes((double)r->seg_queue_p99[PATH_STORAGE_NIC], c, sizeof c),
                RESULTS_READ(r) ? "storage-leaf up" : "spine down",
                fmt_bytes((double)r->seg_queue_p99[PATH_SPINE_DOWN], d, sizeof d),
                RESULTS_READ(r) ? "spine down" : "leaf up",
                fmt_bytes((double)r->seg_queue_p99[PATH_CLEAF_UP], e, sizeof e));
        if (r->n_buffer_pools > 1) { /* per_class: each pool's peak */
            fprintf(out, "  pools      ");
            for (uint32_t k = 0; k < r->n_buffer_pools && k < 8; k++) {
                fprintf(out, "%s prio", k ? ";" : "");
                for (unsigned pg = 0, first = 1; pg < 8; pg++)
                    if ((r->buffer_pool[k].prio_mask >> pg) & 1) {
                        fprintf(out, "%s%u", first ? " " : ",", pg);
                        first = 0;
                    }
                fprintf(out, " max %s (%.0f%%)",
                        fmt_bytes((double)r->buffer_pool[k].max_used, a, sizeof a),
                        100.0 * r->buffer_pool[k].max_fraction);
            }
            fputc('\n', out);
        }
        fprintf(out, "  congestion  cc %s; ECN marked %llu packets (%.2f%%), %llu CNPs%s, "
                     "%llu rate cuts",
                cc_scheme(r->cc)->name, (unsigned long long)r->ecn_marked,
                r->data_packets + r->retx_packets
                    ? 100.0 * (double)r->ecn_marked /
                          (double)(r->data_packets + r->retx_packets)
                    : 0.0,
                (unsigned long long)r->cnps_received,
                cnp_path_note(sc, note, sizeof note),
                (unsigned long long)r->rate_decreases);
        if (r->rate_decreases && !cc_scheme(r->cc)->tcp) /* TCP cuts a window, not a rate */
            fprintf(out, ", lowest rate %s", fmt_rate(r->min_rate_bps, a, sizeof a));
        fputs(ack_path_note(sc, note, sizeof note), out);
        fputc('\n', out);
        /* ECN on, a transport that needs its marks, none made: the
         * queues never reached kmin (a buffer smaller than the default
         * thresholds assume), so it never slowed down */
        if (r->ecn_unreached && (r->drops || r->completion_s > 1.2 * r->bound_s)) {
            char q[32], k[32];
            fprintf(out, "  ecn         no packet marked: the largest switch queue, %s, stayed "
                         "under its port's kmin, %s (fabric.ecn.kmin; by default scaled to the "
                         "port's speed), so %s never cut",
                    fmt_bytes((double)r->ecn_top_queue, q, sizeof q),
                    fmt_bytes((double)r->ecn_top_kmin, k, sizeof k), cc_scheme(r->cc)->name);
            if (r->drops)
                fprintf(out, " while %llu packets dropped", (unsigned long long)r->drops);
            fprintf(out, ". Fix: a fabric.ecn.kmin (and kmax) under the queue a port reaches, "
                         "or more buffer (fabric.buffer)\n");
        }
        if (cc_scheme(r->cc)->tcp)
            fprintf(out, "  tcp         %llu window cuts, %llu fast retransmits, %llu duplicate "
                         "ACKs, %llu timeouts, %llu segments resent, %llu ACKs\n",
                    (unsigned long long)r->tcp_cuts, (unsigned long long)r->tcp_fast_retx,
                    (unsigned long long)r->tcp_dupacks, (unsigned long long)r->timeouts,
                    (unsigned long long)r->retx_packets, (unsigned long long)r->rc_acks);
        if (r->drops)
            fprintf(out, "  drops       lossless %llu, lossy %llu, PFC watchdog %llu (%llu storms)\n",
                    (unsigned long long)r->drops_lossless, (unsigned long long)r->drops_lossy,
                    (unsigned long long)r->drops_watchdog, (unsigned long long)r->pfc_storms);
    }
    {
        fprintf(out, "  balance     %s: uplink bytes max/mean %.2f (worst leaf), spines %.2f; "
                     "%.1f uplinks per flow",
                lb_scheme(r->lb)->name, r->lb_uplink_imbalance,
                r->lb_spine_imbalance, r->lb_paths_mean);
        if (r->has_packet_stats && (r->reordered || r->retx_bytes))
            fprintf(out, "; %llu packets reordered, %llu NAKs, %s resent",
                    (unsigned long long)r->reordered, (unsigned long long)r->naks,
                    fmt_bytes((double)r->retx_bytes, a, sizeof a));
        fputc('\n', out);
    }
    if (r->has_packet_stats && r->loss_recovery) {
        fprintf(out, "  loss        a data class can drop: %llu drops recovered by %llu "
                     "retransmission timeouts, %llu NAKs (%llu selective), %llu ACKs; %llu "
                     "packets resent, %llu of them reached a receiver that held them; %llu "
                     "transfers failed",
                (unsigned long long)r->drops, (unsigned long long)r->timeouts,
                (unsigned long long)r->naks, (unsigned long long)r->sack_naks,
                (unsigned long long)r->rc_acks, (unsigned long long)r->retx_packets,
                (unsigned long long)r->dup_packets, (unsigned long long)r->qp_errors);
        char t[256];
        fprintf(out, "; timer %s", rto_words(sc, r, t, sizeof t, NULL));
        fputc('\n', out);
    }
    /* a timer that fires with nothing lost: the ACKs were queued behind
     * more delay than it allows, and each timeout resends packets still
     * on their way */
    if (r->has_packet_stats && r->loss_recovery && r->timeouts && !r->drops &&
        !verdict_blames_timer(r)) {
        const char *key;
        char t[256];
        rto_words(sc, r, t, sizeof t, &key);
        fprintf(out, "  timer       %llu timeouts with no packet lost: the timer, %s, is "
                     "under the queueing delay, so it resent packets still queued (duplicates); "
                     "a %s above the largest queue's delay keeps them out%s\n",
                (unsigned long long)r->timeouts, t, key,
                r->rto_mode == RTO_ADAPTIVE ? "" : ", as may transport.rto=adaptive");
    }
    if (r->has_packet_stats && r->uec) {
        fprintf(out, "  uec         trimming %s: %llu packets trimmed (%s of payload cut), %llu "
                     "NACKed, %llu packets resent; spraying over %u entropies",
                r->trimming ? "on" : "off", (unsigned long long)r->trims,
                fmt_bytes((double)r->trimmed_bytes, a, sizeof a),
                (unsigned long long)r->trim_naks, (unsigned long long)r->retx_packets,
                r->entropies);
        if (r->loss_recovery && r->timeouts && r->uec_sack)
            fprintf(out, "; selective ACKs: its timeouts resent only what no ACK had "
                         "reported held (%llu packets past the cumulative ACK passed)",
                    (unsigned long long)r->sack_skipped);
        else if (r->loss_recovery && r->timeouts && r->dup_packets)
            /* transport.uec.sack false: a timeout resends from the
             * cumulative PSN, what the receiver holds too */
            fprintf(out, "; with transport.uec.sack false a timeout resends everything past "
                         "the cumulative ACK (%llu resent copies arrived where their first "
                         "had)",
                    (unsigned long long)r->dup_packets);
        fputc('\n', out);
    }
    if (r->has_packet_stats && r->uec && r->reps)
        fprintf(out, "  reps        %llu packets on recycled unmarked entropies, %llu on new "
                     "ones (explored); %llu resends on the entropy that failed\n",
                (unsigned long long)r->ev_recycled, (unsigned long long)r->ev_explored,
                (unsigned long long)r->ev_resend_same);
    if (r->has_packet_stats && r->uec && r->rccc)
        fprintf(out, "  rccc        receiver credits: %s of payload granted in %llu credit "
                     "packets\n",
                fmt_bytes((double)r->credits_granted, a, sizeof a),
                (unsigned long long)r->credit_packets);
    if (!r->has_packet_stats)
        fprintf(out, "  network     drops, PFC, ECN and queues need the packet engine "
                     "(--engine packet)\n");
    /* checked in run.c: a finished run below its bound is VIOLATED */
    const char *held = r->finished && r->bound_s > 0 ? ", completion at or above its bound" : "";
    if (r->ok && !r->has_packet_stats)
        fprintf(out, "  invariants  ok: %llu B sent = %llu B delivered, every transfer "
                     "complete, time monotone, link loads within capacity%s\n",
                (unsigned long long)r->bytes_sent, (unsigned long long)r->bytes_delivered, held);
    else if (r->ok && r->bytes_in_flight)
        fprintf(out, "  invariants  ok: %llu B sent = %llu B delivered + %llu B in flight, "
                     "%s, time monotone, buffers within limits%s\n",
                (unsigned long long)r->bytes_sent, (unsigned long long)r->bytes_delivered,
                (unsigned long long)r->bytes_in_flight,
                r->drops ? "drops recovered, every byte once" : "no drops", held);
    else if (r->ok)
        fprintf(out, "  invariants  ok: %llu B sent = %llu B delivered, %s, "
                     "time monotone, buffers within limits%s\n",
                (unsigned long long)r->bytes_sent, (unsigned long long)r->bytes_delivered,
                r->drops ? "drops recovered, every byte once" : "no drops", held);
    else
        fprintf(out, "  invariants  VIOLATED: %s\n", r->violation);
    fprintf(out, "  perf        %llu events in %s (%.3g M events/s), %s in all; memory %s",
            (unsigned long long)r->events, fmt_secs(r->wall_s, a, sizeof a),
            r->wall_s > 0 ? (double)r->events / r->wall_s / 1e6 : 0.0,
            fmt_secs(r->total_s, c, sizeof c), fmt_bytes((double)r->mem_bytes, b, sizeof b));
    if (r->threads)
        fprintf(out, "; %s order on %u thread%s%s", names_of(&names_event_order, r->event_order),
                r->threads, r->threads == 1 ? "" : "s",
                r->threads_auto ? " (sim.threads auto)" : "");
    /* the others' cores taken: one thread ran their shares too */
    if (r->threads > 1 && r->threads_solo > 0)
        fprintf(out, ", %.0f%% of windows on one (the others' cores busy)",
                100 * r->threads_solo);
    /* a long run with a core to spare: say how to use two (the same
     * results, 1.4-1.9x faster on this project's machine; slower when
     * another process holds the second core); cores_idle counts this
     * run's own core, so a second one free is >= 1.5 (rounded as auto) */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (r->event_order == ORDER_WINDOW && r->threads == 1 &&
        r->wall_s > 1.0 && cores > 1 && r->cores_idle >= 1.5)
        fprintf(out, " (--set sim.threads=2 runs it on two)");
    else if (cores > 0 && r->threads > (uint32_t)cores)
        fprintf(out, " (more than the machine's %ld cores: slower than %ld)", cores, cores);
    /* a long DCQCN run spends a third of its time on CNPs crossing the
     * fabric: say what the lighter model costs (BENCHMARKS.md, session 8) */
    if ((r->engine == ENGINE_PACKET || r->engine == ENGINE_HYBRID) &&
        cc_scheme(sc->transport.cc)->sends_cnps &&
        !scenario_cnp_direct(sc) && r->wall_s > 1.0)
        fprintf(out, "; --set transport.dcqcn.cnp_path=direct: ~1.5x faster, CNPs never queued");
    /* a window transport's ACKs through the fabric: most of its events
     * (BENCHMARKS.md "ACKs sent direct") */
    if (r->engine == ENGINE_PACKET && cc_scheme(sc->transport.cc)->window &&
        !scenario_ack_direct(sc) && r->wall_s > 1.0)
        fprintf(out, "; --set transport.ack_path=direct: 1.3-1.9x fewer events, ACKs never "
                     "queued");
    if (r->rate_updates)
        fprintf(out, "; %llu rate updates, %.3g flow rates recomputed each",
                (unsigned long long)r->rate_updates,
                (double)r->rates_recomputed / (double)r->rate_updates);
    fputc('\n', out);
    const struct hybrid_figures *hy = &r->hybrid;
    if (hy->on) {
        char p[32], k[32], er[32], pe[32];
        /* two lines: the first what was skipped, the second what it may
         * have cost (one line wrapped twice at 100 columns) */
        fprintf(out, "  hybrid      fast-forwarded %.1f%% of the simulated time to the last "
                     "transfer's end (%s) in %u jump%s, period %s%s%s\n",
                100 * hy->fraction, fmt_secs(hy->skipped_s, k, sizeof k), hy->jumps,
                hy->jumps == 1 ? "" : "s", fmt_secs(hy->period_s, p, sizeof p),
                hy->why[0] ? "; " : "", hy->why);
        if (hy->jumps) {
            fprintf(out, "              error estimates, not bounds: completion %s, paused time %s "
                         "(%.2g%%), largest queue none (docs/engine.md, \"Hybrid: validation\")\n",
                    fmt_secs(hy->error_s, er, sizeof er),
                    fmt_secs(hy->paused_error_s, pe, sizeof pe), 100 * hy->paused_error_fraction);
            /* the bars hold at seed 1 of the shipped scenarios, not at
             * every seed (docs/engine.md, "The same rows at seeds 2 and 3"),
             * but mlperf-llama3-8b's 3-5 packet largest queue (session 46) */
            fprintf(out, "              confirm a deciding figure with --engine packet or a "
                         "second seed (--set seed=N):\n"
                         "              hybrid meets its bars at seed 1 of the shipped "
                         "scenarios, not at every seed;\n"
                         "              a largest queue of a few packets can be a packet off\n");
            /* the frame counts' own (the pause pattern's drift x the lag) */
            fprintf(out, "              pfc frames' error estimates: xoff (and xon) %.0f (%.3g%%), "
                         "refresh %.0f (%.3g%%)\n",
                    hy->pause_frames_error, 100 * hy->pause_frames_error_fraction,
                    hy->refresh_frames_error, 100 * hy->refresh_frames_error_fraction);
            wrap(out, "estimated ", hy->estimated);
        } else
            fprintf(out, "              no jump: every figure is the packet engine's\n");
    }
}

/* "16" or, for leaves a topology file loads unevenly, "12-20" */
static const char *per_leaf(uint32_t lo, uint32_t hi, char *buf, size_t len)
{
    if (lo < hi)
        snprintf(buf, len, "%u-%u", lo, hi);
    else
        snprintf(buf, len, "%u", hi);
    return buf;
}

void report_clos_line(FILE *out, const struct results *r)
{
    char a[48] = "", h[24], s[24];
    if (r->fabric_imported) /* the file's wiring, whatever the keys planned */
        snprintf(a, sizeof a, "topology file: ");
    else if (r->fabric_auto)
        snprintf(a, sizeof a, "fabric.tiers auto at %.3g:1: ", r->auto_oversub);
    per_leaf(r->hosts_per_leaf_min, r->hosts_per_leaf, h, sizeof h);
    per_leaf(r->storage_per_leaf_min, r->storage_per_leaf, s, sizeof s);
    if (r->pods) /* joined by a level above the spines */
        fprintf(out, "  clos        %s%u tiers: %u pods of up to %u leaves (%s nodes, %s storage "
                     "nodes each) and %u spines; %u planes of %u super-spines, %u link%s each "
                     "to a spine; oversubscription %.2f:1 at the spines\n",
                a, r->fabric_tiers, r->pods, r->leaves_per_pod, h, s,
                r->spines_per_pod, r->spines_per_pod, r->superspines / r->spines_per_pod,
                r->links_per_super, r->links_per_super > 1 ? "s" : "", r->oversub_spine);
    else if (r->fabric_auto || r->fabric_imported)
        fprintf(out, "  clos        %s%u tiers: leaves of %s nodes or %s storage nodes, %u "
                     "spines, %u link%s from each leaf\n",
                a, r->fabric_tiers, h, s, r->spines, r->links_per_spine,
                r->links_per_spine > 1 ? "s" : "");
}

void report_bom_line(FILE *out, const struct scenario *sc, const struct results *r)
{
    static const char *const tier[3] = {"leaves", "spines", "super-spines"};
    const char *prof[3] = {sc->fabric.leaf_switch, sc->fabric.spine_switch,
                           sc->fabric.superspine_switch};
    fprintf(out, "  bom        ");
    for (int i = 0; i < 3; i++)
        if (r->bom_switches[i])
            fprintf(out, "%s %u %s (%s)", i ? "," : "", r->bom_switches[i], tier[i], prof[i]);
    fprintf(out, ";");
    for (uint32_t i = 0; i < r->bom_n_speeds; i++) {
        char a[32];
        fprintf(out, "%s %u links at %s", i ? "," : "", r->bom_links[i],
                fmt_rate((double)r->bom_speed_bps[i], a, sizeof a));
    }
    fprintf(out, " (%" PRIu64 " transceivers, two a link beyond the rack; DACs in it)%s\n",
            results_bom_optics(r, 0), sc->fabric.breakout > 1 ? ", switch ports in breakout" : "");
}

void report_capex_line(FILE *out, const struct scenario *sc, const struct results *r,
                       int ran)
{
    const struct cost_figures *c = &r->cost;
    const char *cur = sc->training.currency;
    char a[32], b[32], d[32], e[32];
    if (!c->priced)
        return;
    char f[32], g[32];
    fprintf(out,
            "  capex       %s %s (switches %s + optics %s + cables %s + storage %s) = %s %s/day "
            "over %.4g years",
            fmt_num(c->capital, a, sizeof a), cur, fmt_num(c->capital_switches, b, sizeof b),
            fmt_num(c->capital_optics, d, sizeof d), fmt_num(c->capital_cables, f, sizeof f),
            fmt_num(c->capital_storage, g, sizeof g), fmt_num(c->capital_per_day, e, sizeof e),
            cur, c->amortisation_years);
    if (r->bom_train_on)
        fprintf(out, "; training fabric (fabric.isolation physical) %s %s, in the total",
                fmt_num(c->capital_training, a, sizeof a), cur);
    if (ran && r->endurance.on && r->endurance.wear_limited)
        fprintf(out, " + drive wear %s %s/day beyond its amortisation",
                fmt_num(r->endurance.wear_cost_per_day, a, sizeof a), cur);
    if (ran)
        fprintf(out, ", beside %s %s/day of GPU-hours lost",
                fmt_num(c->lost_money_per_day, a, sizeof a), cur);
    for (uint32_t i = 0; i < c->n_unpriced; i++)
        fprintf(out, "%s%s", i ? ", " : "; UNPRICED (not in the total): ", c->unpriced[i]);
    fprintf(out, "\n");
}
