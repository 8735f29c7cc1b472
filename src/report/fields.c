/* The result fields table (fields.h): rows in the JSON document's order. */
#include "fields.h"

#include <math.h>
#include <string.h>

#include "report.h"
#include "../scenario/lbscheme.h"
#include "../topo/path.h"

#define AT(m) offsetof(struct results, m)

static json_t *bytes_per_param(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    return json_integer((json_int_t)(r->plan.weights_bpp + r->plan.optimizer_bpp));
}

/* null past PLAN_NODES_LISTED storage nodes */
static json_t *node_bytes(const struct scenario *sc, const struct results *r)
{
    const struct plan_summary *p = &r->plan;
    (void)sc;
    json_t *nb = p->nodes_listed ? json_array() : json_null();
    for (uint32_t i = 0; i < p->nodes_listed; i++)
        json_array_append_new(nb, json_integer((json_int_t)p->node_bytes[i]));
    return nb;
}

static json_t *currency(const struct scenario *sc, const struct results *r)
{
    (void)r;
    return json_string(sc->training.currency);
}

/* cost.compare_policies: one object per policy (docs/checkpoint.md) */
static json_t *policies(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    json_t *a = json_array();
    for (uint32_t i = 0; i < r->cost.n_policies; i++) {
        const struct policy_cost *p = &r->cost.policies[i];
        json_t *o = json_object();
        json_object_set_new(o, "policy", json_string(names_of(&names_policy, p->policy)));
        json_object_set_new(o, "chosen", json_boolean(p->chosen));
        json_object_set_new(o, "ok", json_boolean(p->ok));
        if (!p->ok) {
            json_object_set_new(o, "reason", json_string(p->why));
            json_array_append_new(a, o);
            continue;
        }
        json_object_set_new(o, "stall_s", json_real(p->stall_s));
        json_object_set_new(o, "end_s", json_real(p->end_s));
        json_object_set_new(o, "durability_lag_s", json_real(p->lag_s));
        json_object_set_new(o, "contention_s", json_real(p->contention_s));
        json_object_set_new(o, "goodput", json_real(p->goodput));
        json_object_set_new(o, "stall_money_per_day", json_real(p->stall_money));
        json_object_set_new(o, "contention_money_per_day", json_real(p->contention_money));
        json_object_set_new(o, "durability_lag_money_per_day", json_real(p->lag_money));
        json_object_set_new(o, "rework_money_per_day", json_real(p->rework_money));
        json_object_set_new(o, "lost_money_per_day", json_real(p->lost_money));
        json_object_set_new(o, "capital_per_day", json_real(p->capital_per_day));
        json_object_set_new(o, "wear_per_day", r->endurance.wear_priced
                                                   ? json_real(p->wear_money)
                                                   : json_null());
        json_object_set_new(o, "storage_exceeded",
                            p->storage < 0 ? json_null() : json_boolean(p->storage));
        json_object_set_new(o, "total_per_day", json_real(p->total_per_day));
        json_array_append_new(a, o);
    }
    return a;
}

/* restore.read_rate 0: the back end reads as fast as the fabric takes */
static json_t *reads_unlimited(const struct scenario *sc, const struct results *r)
{
    (void)r;
    return json_boolean(!sc->restore.read_bps);
}

/* storage.protection's bytes that go storage node to storage node: the
 * forwarded copies (replica, chain); ec's parity leaves the writers */
static json_t *protection_east_west(const struct scenario *sc, const struct results *r)
{
    int fwd = sc->storage.protection == PROTECT_REPLICA || sc->storage.protection == PROTECT_CHAIN;
    return json_integer((json_int_t)(fwd ? r->plan.protect_bytes : 0));
}

/* what a restore reads under storage.protection */
static json_t *restore_source(const struct scenario *sc, const struct results *r)
{
    (void)r;
    int copies = sc->storage.replicas > 1;
    return json_string(sc->storage.protection == PROTECT_EC                 ? "fragments"
                       : sc->storage.protection == PROTECT_CHAIN && copies ? "replicas"
                                                                            : "primary");
}

static double ratio_number(const struct results *r)
{
    return r->bound_s > 0 ? r->completion_s / r->bound_s : 0;
}

static json_t *bound_ratio(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    return json_real(ratio_number(r));
}

/* training's wire bytes on each shown link set (packet engine) */
static json_t *train_link_bytes(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    json_t *ls = json_object();
    for (int i = 0; i < PATH_LINK_SETS; i++)
        if (path_seg_shown(path_link_sets[i], r->fabric_tiers))
            json_object_set_new(ls, path_seg_key(path_link_sets[i]),
                                json_integer((json_int_t)r->training.seg_bytes[path_link_sets[i]]));
    return ls;
}

/* the stall's share of the interval */
static double stall_fraction(const struct results *r)
{
    return r->cost.stall_s / r->cost.interval_s;
}

static json_t *lb_name(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    return json_string(lb_scheme(r->lb)->name);
}

/* each shown forward link set's busiest link */
static json_t *busiest_links(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    json_t *l = json_object();
    for (int g = PATH_WRITER_NIC; g <= PATH_STORAGE_NIC; g++) {
        if (!path_seg_shown(g, r->fabric_tiers))
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "max_utilisation", json_real(r->link_util_max[g]));
        json_object_set_new(o, "max_busy_s", json_real(r->link_busy_max_s[g]));
        json_object_set_new(o, "max_full_s", json_real(r->link_full_max_s[g]));
        json_object_set_new(l, path_seg_key(g), o);
    }
    return l;
}

static double restore_simulated(const struct results *r)
{
    return r->restore.estimated ? 0 : 1;
}

static json_t *limit_label(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    return json_string(path_seg_label_io(r->bound_limit, r->phase == PHASE_RESTORE));
}

/* each shown link set's term; the host path shares the writer's */
static json_t *bound_terms(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    json_t *terms = json_object();
    for (int l = PATH_WRITER_NIC; l < PATH_COUNT; l++)
        if (path_seg_shown(l, r->fabric_tiers))
            json_object_set_new(terms, path_seg_key(l), json_real(r->bound_term_s[l]));
    return terms;
}

static json_t *events_per_s(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    return json_real(r->wall_s > 0 ? (double)r->events / r->wall_s : 0);
}

static json_t *ecn_fraction(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    /* over the data packets sent, resends included (a resent packet can be
     * marked again) */
    uint64_t sent = r->data_packets + r->retx_packets;
    return json_real(sent ? (double)r->ecn_marked / (double)sent : 0);
}

/* fabric.mmu.pools per_class: each pool's priorities and peak */
static json_t *buffer_pools(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    json_t *a = json_array();
    for (uint32_t k = 0; k < r->n_buffer_pools && k < 8; k++) {
        json_t *o = json_object(), *pr = json_array();
        for (unsigned pg = 0; pg < 8; pg++)
            if ((r->buffer_pool[k].prio_mask >> pg) & 1)
                json_array_append_new(pr, json_integer(pg));
        json_object_set_new(o, "priorities", pr);
        json_object_set_new(o, "max_used_bytes", json_integer((json_int_t)r->buffer_pool[k].max_used));
        json_object_set_new(o, "max_used_fraction", json_real(r->buffer_pool[k].max_fraction));
        json_array_append_new(a, o);
    }
    return a;
}

/* each shown link set's queue peak and p99 */
static json_t *seg_queues(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    enum path_seg sets[PATH_LINK_SETS];
    unsigned nsets = path_link_sets_shown(r->fabric_tiers, sets);
    json_t *q = json_object();
    for (unsigned i = 0; i < nsets; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "max_bytes", json_integer((json_int_t)r->seg_queue_max[sets[i]]));
        json_object_set_new(o, "p99_bytes", json_integer((json_int_t)r->seg_queue_p99[sets[i]]));
        json_object_set_new(q, path_seg_key(sets[i]), o);
    }
    return q;
}

static json_t *seg_paused(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    enum path_seg sets[PATH_LINK_SETS];
    unsigned nsets = path_link_sets_shown(r->fabric_tiers, sets);
    json_t *o = json_object();
    for (unsigned i = 0; i < nsets; i++)
        json_object_set_new(o, path_seg_key(sets[i]), json_real(r->seg_paused_s[sets[i]]));
    return o;
}

/* telemetry.ports: the ports that carried, paused or dropped anything */
static json_t *ports(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    json_t *a = json_array();
    for (uint32_t i = 0; i < r->n_ports; i++) {
        const struct port_result *p = &r->ports[i];
        if (!p->tx_bytes && !p->pause_tx && !p->drops)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "port", json_integer(i));
        json_object_set_new(o, "node", json_integer(p->node));
        json_object_set_new(o, "segment", json_string(path_seg_key((int)p->seg)));
        json_object_set_new(o, "tx_bytes", json_integer((json_int_t)p->tx_bytes));
        json_object_set_new(o, "max_queue_bytes", json_integer((json_int_t)p->max_queue));
        json_object_set_new(o, "max_headroom_bytes", json_integer((json_int_t)p->max_headroom));
        json_object_set_new(o, "pause_sent", json_integer((json_int_t)p->pause_tx));
        json_object_set_new(o, "pause_received", json_integer((json_int_t)p->pause_rx));
        json_object_set_new(o, "paused_s", json_real(p->paused_s));
        json_object_set_new(o, "ecn_marked", json_integer((json_int_t)p->ecn_marked));
        json_object_set_new(o, "drops", json_integer((json_int_t)p->drops));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *cc_name(const struct scenario *sc, const struct results *r)
{
    (void)sc;
    return json_string(cc_scheme(r->cc)->name);
}

#define FIN FW_FINISHED
#define RST FW_RESTORE

const struct result_field result_fields[] = {
    {.name = "engine", .block = FB_RUN, .kind = FK_ENUM, .off = AT(engine), .names = &names_engine},
    {.name = "engine_reason", .block = FB_RUN, .kind = FK_TEXT, .off = AT(engine_reason)},
    {.name = "hybrid.fast_forwarded_fraction", .block = FB_RUN, .kind = FK_REAL,
     .off = AT(hybrid.fraction), .when = FW_HYBRID},
    {.name = "hybrid.jumps", .block = FB_RUN, .kind = FK_U32, .off = AT(hybrid.jumps),
     .when = FW_HYBRID},
    {.name = "hybrid.observations", .block = FB_RUN, .kind = FK_U64,
     .off = AT(hybrid.observations), .when = FW_HYBRID},
    {.name = "hybrid.ends_passed", .block = FB_RUN, .kind = FK_U64, .off = AT(hybrid.ends),
     .when = FW_HYBRID},
    {.name = "hybrid.ends_per_jump_max", .block = FB_RUN, .kind = FK_U32,
     .off = AT(hybrid.ends_max), .when = FW_HYBRID},
    {.name = "hybrid.skipped_s", .block = FB_RUN, .kind = FK_REAL, .off = AT(hybrid.skipped_s),
     .when = FW_HYBRID},
    {.name = "hybrid.period_s", .block = FB_RUN, .kind = FK_REAL, .off = AT(hybrid.period_s),
     .when = FW_HYBRID},
    {.name = "hybrid.error_estimate_s", .block = FB_RUN, .kind = FK_REAL,
     .off = AT(hybrid.error_s), .when = FW_HYBRID},
    {.name = "hybrid.paused_error_estimate_s", .block = FB_RUN, .kind = FK_REAL,
     .off = AT(hybrid.paused_error_s), .when = FW_HYBRID},
    {.name = "hybrid.paused_error_estimate_fraction", .block = FB_RUN, .kind = FK_REAL,
     .off = AT(hybrid.paused_error_fraction), .when = FW_HYBRID},
    {.name = "hybrid.pause_frames_error_estimate", .block = FB_RUN, .kind = FK_REAL,
     .off = AT(hybrid.pause_frames_error), .when = FW_HYBRID},
    {.name = "hybrid.pause_frames_error_estimate_fraction", .block = FB_RUN, .kind = FK_REAL,
     .off = AT(hybrid.pause_frames_error_fraction), .when = FW_HYBRID},
    {.name = "hybrid.refresh_frames_error_estimate", .block = FB_RUN, .kind = FK_REAL,
     .off = AT(hybrid.refresh_frames_error), .when = FW_HYBRID},
    {.name = "hybrid.refresh_frames_error_estimate_fraction", .block = FB_RUN, .kind = FK_REAL,
     .off = AT(hybrid.refresh_frames_error_fraction), .when = FW_HYBRID},
    {.name = "hybrid.estimated", .block = FB_RUN, .kind = FK_TEXT, .off = AT(hybrid.estimated),
     .when = FW_HYBRID},
    {.name = "hybrid.why", .block = FB_RUN, .kind = FK_TEXT, .off = AT(hybrid.why),
     .when = FW_HYBRID},

    {.name = "checkpoint.bytes", .block = FB_CHECKPOINT, .kind = FK_U64, .off = AT(ckpt_bytes),
     .metric = "checkpoint_bytes", .help = "checkpoint payload bytes to write", .mpart = MP_RUN, .mseq = 3},
    {.name = "checkpoint.writers", .block = FB_CHECKPOINT, .kind = FK_U32, .off = AT(writers),
     .metric = "writers", .help = "checkpoint writers", .mpart = MP_RUN, .mseq = 4},
    {.name = "checkpoint.finished", .block = FB_CHECKPOINT, .kind = FK_BOOL, .off = AT(finished),
     .metric = "finished", .help = "1 when every transfer completed, else 0", .mpart = MP_RUN, .mseq = 2},
    {.name = "checkpoint.interrupted", .block = FB_CHECKPOINT, .kind = FK_BOOL,
     .off = AT(interrupted)},
    /* r->transfers (the plan's may be the restore's): metrics only */
    {.name = "metrics.transfers", .block = FB_CHECKPOINT, .kind = FK_U32, .off = AT(transfers),
     .no_json = 1, .metric = "transfers", .help = "transfers planned", .mpart = MP_RUN,
     .mseq = 5},
    {.name = "checkpoint.transfers_completed", .block = FB_CHECKPOINT, .kind = FK_U32,
     .off = AT(flows_done),
     .metric = "transfers_completed", .help = "transfers that completed", .mpart = MP_RUN, .mseq = 6},
    {.name = "checkpoint.completion_s", .block = FB_CHECKPOINT, .kind = FK_REAL,
     .off = AT(completion_s), .null = FN_UNFINISHED, .metric = "completion_seconds",
     .help = "first byte sent to last byte received", .sweep = "completion_s",
     .mpart = MP_FINISHED, .mseq = 1},
    {.name = "checkpoint.writer_completion_s.p50", .block = FB_CHECKPOINT, .kind = FK_REAL,
     .off = AT(writer_p50_s), .null = FN_UNFINISHED},
    {.name = "checkpoint.writer_completion_s.p99", .block = FB_CHECKPOINT, .kind = FK_REAL,
     .off = AT(writer_p99_s), .null = FN_UNFINISHED},
    {.name = "checkpoint.writer_completion_s.max", .block = FB_CHECKPOINT, .kind = FK_REAL,
     .off = AT(writer_max_s), .null = FN_UNFINISHED},

    /* model.*, checkpoint.* (the plan), cost.*, failures.* (docs/checkpoint.md) */
    {.block = FB_PLAN_COST, .name = "model.name", .kind = FK_CSTR, .off = AT(plan.model), .dflt = "none"},
    {.block = FB_PLAN_COST, .name = "model.params", .kind = FK_U64, .off = AT(plan.params)},
    {.block = FB_PLAN_COST, .name = "model.bytes_per_param", .kind = FK_CUSTOM, .json = bytes_per_param},
    {.block = FB_PLAN_COST, .name = "model.weights_bytes_per_param", .kind = FK_U32, .off = AT(plan.weights_bpp)},
    {.block = FB_PLAN_COST, .name = "model.optimizer_bytes_per_param", .kind = FK_U32, .off = AT(plan.optimizer_bpp)},
    {.block = FB_PLAN_COST, .name = "model.gpus", .kind = FK_U32, .off = AT(plan.gpus)},
    {.block = FB_PLAN_COST, .name = "model.tp", .kind = FK_U32, .off = AT(plan.tp)},
    {.block = FB_PLAN_COST, .name = "model.pp", .kind = FK_U32, .off = AT(plan.pp)},
    {.block = FB_PLAN_COST, .name = "model.dp", .kind = FK_U32, .off = AT(plan.dp)},
    {.block = FB_PLAN_COST, .name = "model.zero_stage", .kind = FK_U32, .off = AT(plan.zero_stage)},
    {.block = FB_PLAN_COST, .name = "checkpoint.writer_rule", .kind = FK_CSTR, .off = AT(plan.writer_rule), .dflt = ""},
    {.block = FB_PLAN_COST, .name = "checkpoint.policy", .kind = FK_CSTR, .off = AT(plan.policy), .dflt = ""},
    {.block = FB_PLAN_COST, .name = "checkpoint.files", .kind = FK_U32, .off = AT(plan.files)},
    {.block = FB_PLAN_COST, .name = "checkpoint.transfers", .kind = FK_U32, .off = AT(plan.transfers)},
    {.block = FB_PLAN_COST, .name = "checkpoint.stragglers", .kind = FK_U32, .off = AT(plan.stragglers)},
    {.block = FB_PLAN_COST, .name = "checkpoint.shard_max_bytes", .kind = FK_U64, .off = AT(plan.max_gpu_bytes)},
    {.block = FB_PLAN_COST, .name = "checkpoint.shard_mean_bytes", .kind = FK_REAL, .off = AT(plan.mean_gpu_bytes)},
    {.block = FB_PLAN_COST, .name = "checkpoint.shard_skew", .kind = FK_REAL, .off = AT(plan.skew)},
    {.block = FB_PLAN_COST, .name = "checkpoint.first_start_s", .kind = FK_PS, .off = AT(plan.first_start_ps)},
    {.block = FB_PLAN_COST, .name = "checkpoint.max_open_wait_s", .kind = FK_PS, .off = AT(plan.max_open_wait_ps)},
    {.block = FB_PLAN_COST, .name = "storage.placement", .kind = FK_CSTR, .off = AT(plan.placement), .dflt = ""},
    {.block = FB_PLAN_COST, .name = "storage.stripe_start", .kind = FK_CSTR, .off = AT(plan.stripe_start), .dflt = ""},
    {.block = FB_PLAN_COST, .name = "storage.node_bytes", .kind = FK_CUSTOM, .json = node_bytes},
    {.block = FB_PLAN_COST, .name = "storage.node_max_bytes", .kind = FK_U64, .off = AT(plan.node_max_bytes)},
    {.block = FB_PLAN_COST, .name = "storage.node_mean_bytes", .kind = FK_REAL, .off = AT(plan.node_mean_bytes)},
    {.block = FB_PLAN_COST, .name = "storage.node_skew", .kind = FK_REAL, .off = AT(plan.node_skew)},
    {.block = FB_PLAN_COST, .name = "storage.skew_cost_s", .kind = FK_PS, .off = AT(plan.skew_cost_ps)},
    {.block = FB_PLAN_COST, .name = "storage.skew_cost_pct", .kind = FK_REAL, .off = AT(plan.skew_cost_pct)},
    {.block = FB_PLAN_COST, .name = "storage.protection_bytes", .kind = FK_U64,
     .off = AT(plan.protect_bytes), .when = FW_PROTECTION,
     .help = "bytes storage.protection adds to the checkpoint's own (parity, copies)"},
    {.block = FB_PLAN_COST, .name = "storage.protection_east_west_bytes", .kind = FK_CUSTOM,
     .json = protection_east_west, .when = FW_PROTECTION,
     .help = "of them, the copies storage nodes forward to storage nodes (replica, chain)"},
    {.block = FB_PLAN_COST, .name = "storage.restore_source", .kind = FK_CUSTOM,
     .json = restore_source, .when = FW_PROTECTION,
     .help = "what a restore reads: primary (copies), replicas (chain: each file over its chain), fragments (ec data)"},
    {.block = FB_PLAN_COST, .name = "checkpoint.end_s", .kind = FK_REAL, .off = AT(cost.end_s), .null = FN_UNFINISHED,
     .metric = "checkpoint_end_seconds", .help = "trigger to last byte received",
     .mpart = MP_FINISHED, .mseq = 3},
    {.block = FB_PLAN_COST, .name = "checkpoint.drain_late", .kind = FK_BOOL, .off = AT(cost.drain_late)},
    /* no completion, no cost */
    {.block = FB_PLAN_COST, .name = "cost.computed", .kind = FK_BOOL, .off = AT(finished)},
    {.block = FB_PLAN_COST, .name = "cost.reason", .kind = FK_CONST, .when = FW_UNFINISHED,
     .dflt = "the run did not finish"},
    {.block = FB_PLAN_COST, .name = "cost.stall_s_per_checkpoint", .kind = FK_REAL, .off = AT(cost.stall_s), .when = FIN,
     .metric = "gpu_stall_seconds", .help = "GPU stall per checkpoint (policy)",
     .sweep = "gpu_stall_s",
     .mpart = MP_FINISHED, .mseq = 4},
    {.block = FB_PLAN_COST, .name = "cost.stall_measured", .kind = FK_BOOL, .off = AT(plan.stall_measured), .when = FIN},
    {.block = FB_PLAN_COST, .name = "cost.interval_s", .kind = FK_REAL, .off = AT(cost.interval_s), .when = FIN},
    {.block = FB_PLAN_COST, .name = "sweep.slowdown_frac", .kind = FK_CUSTOM, .no_json = 1,
     .number = stall_fraction, .sweep = "slowdown_frac", .sweep_when = FIN | FW_INTERVAL},
    {.block = FB_PLAN_COST, .name = "cost.checkpoints_per_day", .kind = FK_REAL, .off = AT(cost.checkpoints_per_day),
     .when = FIN, .metric = "checkpoints_per_day", .help = "checkpoints per day of training",
     .mpart = MP_FINISHED, .mseq = 5},
    /* base units (promtool's lint): GPU-seconds, not GPU-hours */
    {.block = FB_PLAN_COST, .name = "cost.gpu_hours_per_day", .kind = FK_REAL, .off = AT(cost.gpu_hours_per_day),
     .when = FIN, .metric = "stalled_gpu_seconds_per_day",
     .help = "GPU time stalled per day (GPU-seconds)", .metric_scale = 3600,
     .sweep = "gpu_hours_per_day",
     .mpart = MP_FINISHED, .mseq = 6},
    {.block = FB_PLAN_COST, .name = "cost.money_per_day", .kind = FK_REAL, .off = AT(cost.money_per_day), .when = FIN,
     .metric = "money_per_day",
     .help = "cost of the stall per day (training.gpu_hour_cost), in the currency label",
     .label = FL_CURRENCY, .sweep = "money_per_day",
     .mpart = MP_FINISHED, .mseq = 7},
    {.block = FB_PLAN_COST, .name = "cost.currency", .kind = FK_CUSTOM, .when = FIN, .json = currency},
    {.block = FB_PLAN_COST, .name = "cost.mfu_points_lost", .kind = FK_REAL, .off = AT(cost.mfu_points_lost), .when = FIN},
    {.block = FB_PLAN_COST, .name = "cost.optimal_interval_s", .kind = FK_REAL, .off = AT(cost.young_s), .when = FIN,
     .null = FN_NO_FAILURES},
    {.block = FB_PLAN_COST, .name = "cost.optimal_interval_daly_s", .kind = FK_REAL, .off = AT(cost.daly_s), .when = FIN,
     .null = FN_NO_FAILURES},
    {.block = FB_PLAN_COST, .name = "cost.goodput", .kind = FK_REAL, .off = AT(cost.goodput), .when = FIN,
     .metric = "goodput_ratio", .help = "useful fraction of wall time at the configured interval",
     .sweep = "goodput",
     .mpart = MP_FINISHED, .mseq = 8},
    {.block = FB_PLAN_COST, .name = "cost.goodput_at_optimal", .kind = FK_REAL, .off = AT(cost.goodput_at_optimal),
     .when = FIN},
    {.block = FB_PLAN_COST, .name = "cost.durability_lag_s", .kind = FK_REAL, .off = AT(cost.durability_lag_s),
     .when = FIN},
    {.block = FB_PLAN_COST, .name = "cost.goodput_monte_carlo", .kind = FK_REAL, .off = AT(cost.goodput_mc), .when = FIN,
     .null = FN_NO_MONTE_CARLO},
    {.block = FB_PLAN_COST, .name = "cost.lost_gpu_hours_per_day", .kind = FK_REAL,
     .off = AT(cost.lost_gpu_hours_per_day), .when = FIN},
    {.block = FB_PLAN_COST, .name = "cost.lost_money_per_day", .kind = FK_REAL, .off = AT(cost.lost_money_per_day),
     .when = FIN},
    /* docs/training.md */
    {.block = FB_PLAN_COST, .name = "cost.training_lost_s_per_checkpoint", .kind = FK_REAL,
     .off = AT(cost.training_lost_s), .when = FIN | FW_TRAINING},
    {.block = FB_PLAN_COST, .name = "cost.training_slowdown_gpu_hours_per_day", .kind = FK_REAL,
     .off = AT(cost.training_slowdown_gpu_hours_per_day), .when = FIN | FW_TRAINING},
    {.block = FB_PLAN_COST, .name = "cost.training_slowdown_money_per_day", .kind = FK_REAL,
     .off = AT(cost.training_slowdown_money_per_day), .when = FIN | FW_TRAINING},
    /* host contention of the drain, the policy comparison (docs/checkpoint.md) */
    {.block = FB_PLAN_COST, .name = "cost.drain_s", .kind = FK_REAL, .off = AT(cost.drain_s),
     .when = FIN | FW_CONTENTION},
    {.block = FB_PLAN_COST, .name = "cost.drain_slowdown", .kind = FK_REAL,
     .off = AT(cost.drain_slowdown), .when = FIN | FW_CONTENTION},
    {.block = FB_PLAN_COST, .name = "cost.contention_s_per_checkpoint", .kind = FK_REAL,
     .off = AT(cost.contention_s), .when = FIN | FW_CONTENTION},
    {.block = FB_PLAN_COST, .name = "cost.contention_gpu_hours_per_day", .kind = FK_REAL,
     .off = AT(cost.contention_gpu_hours_per_day), .when = FIN | FW_CONTENTION},
    {.block = FB_PLAN_COST, .name = "cost.contention_money_per_day", .kind = FK_REAL,
     .off = AT(cost.contention_money_per_day), .when = FIN | FW_CONTENTION},
    {.block = FB_PLAN_COST, .name = "cost.policies", .kind = FK_CUSTOM, .when = FIN | FW_POLICIES,
     .json = policies},
    {.block = FB_PLAN_COST, .name = "failures.job_mtbf_s", .kind = FK_REAL, .off = AT(cost.job_mtbf_s), .when = FIN,
     .null = FN_NO_FAILURES},
    {.block = FB_PLAN_COST, .name = "failures.per_day", .kind = FK_REAL, .off = AT(cost.failures_per_day), .when = FIN},
    {.block = FB_PLAN_COST, .name = "failures.monte_carlo_days", .kind = FK_REAL, .off = AT(cost.mc_days), .when = FIN},
    {.block = FB_PLAN_COST, .name = "failures.monte_carlo_failures", .kind = FK_U64, .off = AT(cost.mc_failures),
     .when = FIN},
    {.block = FB_PLAN_COST, .name = "cost.recovery_s", .kind = FK_REAL, .off = AT(cost.recovery_s)},
    {.block = FB_PLAN_COST, .name = "cost.recovery_from", .kind = FK_CSTR, .off = AT(cost.recovery_from), .dflt = "none"},
    {.block = FB_PLAN_COST, .name = "cost.broadcast_saves_gpu_hours_per_day", .kind = FK_REAL,
     .off = AT(cost.bcast_saves_gpu_hours_per_day)},
    {.block = FB_PLAN_COST, .name = "checkpoint.phase", .kind = FK_ENUM, .off = AT(phase), .names = &names_phase},

    /* checkpoint.mlperf and the storage's capacity and endurance (docs/storage.md) */
    {.block = FB_PLAN_COST, .name = "mlperf.workload", .kind = FK_CSTR, .off = AT(mlperf.workload),
     .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.dlio_gib", .kind = FK_REAL, .off = AT(mlperf.dlio_gib),
     .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.checkpoint_gib", .kind = FK_REAL,
     .off = AT(mlperf.ckpt_gib), .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.save_rank0_s", .kind = FK_REAL,
     .off = AT(mlperf.save_rank0_s), .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.save_all_s", .kind = FK_REAL,
     .off = AT(mlperf.save_all_s), .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.save_rank0_gibps", .kind = FK_REAL,
     .off = AT(mlperf.save_rank0_gibps), .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.save_all_gibps", .kind = FK_REAL,
     .off = AT(mlperf.save_all_gibps), .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.load_s", .kind = FK_REAL, .off = AT(mlperf.load_s),
     .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.load_gibps", .kind = FK_REAL,
     .off = AT(mlperf.load_gibps), .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.writes", .kind = FK_U32, .off = AT(mlperf.writes),
     .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.reads", .kind = FK_U32, .off = AT(mlperf.reads),
     .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.gap_s", .kind = FK_REAL, .off = AT(mlperf.gap_s),
     .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "mlperf.run_s", .kind = FK_REAL, .off = AT(mlperf.run_s),
     .when = FW_MLPERF},
    {.block = FB_PLAN_COST, .name = "endurance.bytes_per_day", .kind = FK_U64,
     .off = AT(endurance.bytes_per_day), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.retained_bytes", .kind = FK_U64,
     .off = AT(endurance.retained_bytes), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.capacity_bytes", .kind = FK_U64,
     .off = AT(endurance.capacity_bytes), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.capacity_used", .kind = FK_REAL,
     .off = AT(endurance.capacity_used), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.raw_bytes", .kind = FK_U64,
     .off = AT(endurance.raw_bytes), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.dwpd", .kind = FK_REAL, .off = AT(endurance.dwpd),
     .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.dwpd_rating", .kind = FK_REAL,
     .off = AT(endurance.dwpd_rating), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.max_checkpoints_per_day", .kind = FK_REAL,
     .off = AT(endurance.max_checkpoints_per_day), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.over_capacity", .kind = FK_BOOL,
     .off = AT(endurance.over_capacity), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.over_endurance", .kind = FK_BOOL,
     .off = AT(endurance.over_endurance), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.rating_years", .kind = FK_REAL,
     .off = AT(endurance.rating_years), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.wear_priced", .kind = FK_BOOL,
     .off = AT(endurance.wear_priced), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.drive_price_name", .kind = FK_TEXT,
     .off = AT(endurance.drive_name), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.drives", .kind = FK_U64,
     .off = AT(endurance.drives), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.drives_price", .kind = FK_REAL,
     .off = AT(endurance.drives_price), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.wear_per_day", .kind = FK_REAL,
     .off = AT(endurance.wear_per_day), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.drives_amortisation_per_day", .kind = FK_REAL,
     .off = AT(endurance.drives_amortisation_per_day), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.wear_cost_per_day", .kind = FK_REAL,
     .off = AT(endurance.wear_cost_per_day), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "endurance.wear_limited", .kind = FK_BOOL,
     .off = AT(endurance.wear_limited), .when = FW_ENDURANCE},
    {.block = FB_PLAN_COST, .name = "requests.protocol", .kind = FK_CSTR,
     .off = AT(requests.protocol), .when = FW_REQUESTS, .dflt = ""},
    {.block = FB_PLAN_COST, .name = "requests.count", .kind = FK_U64, .off = AT(requests.count),
     .when = FW_REQUESTS},
    {.block = FB_PLAN_COST, .name = "requests.latency_mean_s", .kind = FK_REAL,
     .off = AT(requests.mean_s), .when = FW_REQUESTS},
    {.block = FB_PLAN_COST, .name = "requests.latency_max_s", .kind = FK_REAL,
     .off = AT(requests.max_s), .when = FW_REQUESTS},
    {.block = FB_PLAN_COST, .name = "requests.estimated", .kind = FK_BOOL,
     .off = AT(requests.estimated), .when = FW_REQUESTS},

    /* the restore (docs/checkpoint.md, Restore) */
    {.name = "restore.mode", .block = FB_RESTORE, .kind = FK_CSTR, .off = AT(restore.mode),
     .when = RST, .dflt = ""},
    {.name = "restore.engine", .block = FB_RESTORE, .kind = FK_CSTR, .off = AT(restore.engine),
     .when = RST, .dflt = ""},
    {.name = "restore.ok", .block = FB_RESTORE, .kind = FK_BOOL, .off = AT(restore.ok),
     .when = RST},
    {.name = "restore.finished", .block = FB_RESTORE, .kind = FK_BOOL,
     .off = AT(restore.finished), .when = RST},
    {.name = "restore.completion_s", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.completion_s), .when = RST,
     .metric = "restore_seconds",
     .help = "restore read time, first byte to last reader done",
     .help_estimated = "restore read time: its lower bound (phase save: not simulated)", .mpart = MP_FINISHED, .mseq = 9,
     .sweep = "restore_s", .sweep_when = FIN | FW_RESTORE_READ},
    {.name = "restore.bound_s", .block = FB_RESTORE, .kind = FK_REAL, .off = AT(restore.bound_s),
     .when = RST,
     .metric = "restore_bound_seconds", .help = "analytic lower bound on the restore's read time", .mpart = MP_FINISHED, .mseq = 10},
    {.name = "restore.bound_limit", .block = FB_RESTORE, .kind = FK_SEG,
     .off = AT(restore.bound_limit), .when = RST},
    {.name = "restore.bottleneck", .block = FB_RESTORE, .kind = FK_SEG,
     .off = AT(restore.bottleneck), .when = RST},
    {.name = "restore.bottleneck_util", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.bottleneck_util), .when = RST},
    {.name = "restore.bytes_read", .block = FB_RESTORE, .kind = FK_U64,
     .off = AT(restore.bytes_read), .when = RST,
     .metric = "restore_read_bytes", .help = "bytes read back from the storage nodes", .mpart = MP_FINISHED, .mseq = 12},
    {.name = "restore.amplification", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.amplification), .when = RST},
    {.name = "restore.readers", .block = FB_RESTORE, .kind = FK_U32, .off = AT(restore.readers),
     .when = RST},
    {.name = "restore.transfers", .block = FB_RESTORE, .kind = FK_U32,
     .off = AT(restore.transfers), .when = RST},
    {.name = "restore.broadcast_s", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.broadcast_s), .when = RST},
    {.name = "restore.restart_s", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.restart_s), .when = RST},
    {.name = "restore.recovery_s", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.recovery_s), .when = RST,
     .metric = "recovery_seconds", .help = "restart overhead plus the restore, per failure", .mpart = MP_FINISHED, .mseq = 13},
    {.name = "restore.estimated", .block = FB_RESTORE, .kind = FK_BOOL,
     .off = AT(restore.estimated), .when = RST},
    {.name = "restore.reads_unlimited", .block = FB_RESTORE, .kind = FK_CUSTOM, .when = RST,
     .json = reads_unlimited},
    {.name = "metrics.restore_simulated", .block = FB_RESTORE, .kind = FK_CUSTOM, .when = RST,
     .number = restore_simulated, .no_json = 1, .metric = "restore_simulated",
     .help = "1 when the restore ran in an engine, 0 when estimated", .mpart = MP_FINISHED,
     .mseq = 11},
    {.name = "restore.other_mode_recovery_s", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.other_recovery_s), .when = RST},
    /* the read's own hybrid figures (hybrid.* are the save's under phase both) */
    {.name = "restore.hybrid.fast_forwarded_fraction", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.hybrid_fraction), .when = RST | FW_RESTORE_HYBRID},
    {.name = "restore.hybrid.jumps", .block = FB_RESTORE, .kind = FK_U32,
     .off = AT(restore.hybrid_jumps), .when = RST | FW_RESTORE_HYBRID},
    {.name = "restore.hybrid.skipped_s", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.hybrid_skipped_s), .when = RST | FW_RESTORE_HYBRID},
    {.name = "restore.hybrid.error_estimate_s", .block = FB_RESTORE, .kind = FK_REAL,
     .off = AT(restore.hybrid_error_s), .when = RST | FW_RESTORE_HYBRID},

    /* training.* (docs/training.md): only when training.traffic is collectives */
    {.name = "training.isolation", .block = FB_TRAINING, .kind = FK_ENUM, .off = AT(training.isolation),
     .when = FW_TRAINING, .names = &names_isolation},
    {.name = "training.on_fabric", .block = FB_TRAINING, .kind = FK_BOOL, .off = AT(training.on_fabric),
     .when = FW_TRAINING},
    {.name = "training.priority", .block = FB_TRAINING, .kind = FK_U32, .off = AT(training.priority),
     .when = FW_TRAINING},
    {.name = "training.steps", .block = FB_TRAINING, .kind = FK_U32, .off = AT(training.steps),
     .when = FW_TRAINING},
    {.name = "training.slowed_steps", .block = FB_TRAINING, .kind = FK_U32, .off = AT(training.slowed),
     .when = FW_TRAINING},
    {.name = "training.baseline_step_s", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.baseline_step_s),
     .when = FW_TRAINING},
    {.name = "training.compute_s", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.compute_s),
     .when = FW_TRAINING},
    {.name = "training.baseline_comm_s", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.comm0_s),
     .when = FW_TRAINING},
    {.name = "training.step_s.p50", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.step_p50_s),
     .when = FW_TRAINING},
    {.name = "training.step_s.p99", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.step_p99_s),
     .when = FW_TRAINING},
    {.name = "training.step_s.max", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.step_max_s),
     .when = FW_TRAINING},
    {.name = "training.comm_s.p50", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.comm_p50_s),
     .when = FW_TRAINING},
    {.name = "training.comm_s.p99", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.comm_p99_s),
     .when = FW_TRAINING},
    {.name = "training.comm_s.max", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.comm_max_s),
     .when = FW_TRAINING},
    {.name = "training.step_during_checkpoint_s", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.during_step_s),
     .when = FW_TRAINING,
     .sweep = "training_step_s", .sweep_when = FIN},
    {.name = "training.slowdown", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.slowdown),
     .when = FW_TRAINING,
     .sweep = "training_slowdown", .sweep_when = FIN},
    {.name = "training.lost_s", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.lost_s),
     .when = FW_TRAINING},
    {.name = "training.victim_paused_s", .block = FB_TRAINING, .kind = FK_REAL, .off = AT(training.victim_paused_s),
     .when = FW_TRAINING, .null = FN_NO_PACKET},
    {.name = "training.bytes", .block = FB_TRAINING, .kind = FK_U64, .off = AT(training.bytes),
     .when = FW_TRAINING},
    {.name = "training.bytes_per_step", .block = FB_TRAINING, .kind = FK_U64, .off = AT(training.bytes_per_step),
     .when = FW_TRAINING},
    {.name = "training.flows_per_step", .block = FB_TRAINING, .kind = FK_U32, .off = AT(training.flows_per_step),
     .when = FW_TRAINING},
    {.name = "training.dp", .block = FB_TRAINING, .kind = FK_U32, .off = AT(training.dp),
     .when = FW_TRAINING},
    {.name = "training.dp_nodes", .block = FB_TRAINING, .kind = FK_U32, .off = AT(training.dp_nodes),
     .when = FW_TRAINING},
    {.name = "training.link_set_wire_bytes", .block = FB_TRAINING, .kind = FK_CUSTOM,
     .when = FW_TRAINING, .json = train_link_bytes},

    /* the analytic bound (docs/engine.md) */
    {.name = "bound.completion_s", .block = FB_BOUND, .kind = FK_REAL, .off = AT(bound_s),
     .metric = "bound_seconds", .help = "analytic lower bound on the completion time (max-flow)",
     .sweep = "bound_s",
     .mpart = MP_RUN, .mseq = 7},
    {.name = "bound.limit", .block = FB_BOUND, .kind = FK_SEG, .off = AT(bound_limit)},
    {.name = "bound.limit_label", .block = FB_BOUND, .kind = FK_CUSTOM, .json = limit_label},
    {.name = "bound.fsync_s", .block = FB_BOUND, .kind = FK_REAL, .off = AT(bound_fsync_s)},
    {.name = "bound.metadata_s", .block = FB_BOUND, .kind = FK_REAL, .off = AT(bound_meta_s)},
    {.name = "bound.by_metadata", .block = FB_BOUND, .kind = FK_BOOL, .off = AT(bound_by_meta)},
    {.name = "bound.ratio", .block = FB_BOUND, .kind = FK_CUSTOM, .null = FN_UNFINISHED,
     .json = bound_ratio,
     .number = ratio_number, .metric = "bound_ratio", .help = "completion over the analytic bound", .mpart = MP_FINISHED, .mseq = 2,
     .sweep = "bound_ratio", .sweep_when = FIN | FW_BOUNDED},
    {.name = "bound.base_latency_s", .block = FB_BOUND, .kind = FK_REAL, .off = AT(base_latency_s)},
    {.name = "bound.terms_s", .block = FB_BOUND, .kind = FK_CUSTOM, .json = bound_terms},

    /* the fabric as built */
    {.name = "fabric.switches", .block = FB_FABRIC, .kind = FK_U32, .off = AT(switches)},
    {.name = "fabric.links", .block = FB_FABRIC, .kind = FK_U32, .off = AT(links)},
    {.name = "fabric.failed_links", .block = FB_FABRIC, .kind = FK_U32, .off = AT(failed_links)},
    {.name = "fabric.warnings", .block = FB_FABRIC, .kind = FK_TEXT, .off = AT(warnings)},
    {.name = "fabric.port_notes", .block = FB_FABRIC, .kind = FK_TEXT, .off = AT(port_notes)},
    {.name = "fabric.failed_link_names", .block = FB_FABRIC, .kind = FK_TEXT,
     .off = AT(failed_link_names)},
    {.name = "fabric.oversubscription.compute", .block = FB_FABRIC, .kind = FK_REAL,
     .off = AT(oversub_compute)},
    {.name = "fabric.oversubscription.storage", .block = FB_FABRIC, .kind = FK_REAL,
     .off = AT(oversub_storage)},

    /* network counters (packet engine) */
    {.name = "network.drops", .block = FB_NETWORK, .kind = FK_U64, .off = AT(drops),
     .when = FW_PACKET, .sweep = "drops",
     .metric = "dropped_packets_total", .help = "packets dropped (all classes)", .mpart = MP_PACKET, .mseq = 4, .mtype = MT_COUNTER},
    {.name = "network.pfc.pause_frames", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(pause_frames), .when = FW_PACKET, .sweep = "pause_frames",
     .metric = "pause_frames_total", .help = "PFC XOFF frames sent (refreshes not counted)", .mpart = MP_PACKET, .mseq = 1, .mtype = MT_COUNTER},
    {.name = "network.pfc.resume_frames", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(resume_frames), .when = FW_PACKET,
     .metric = "resume_frames_total", .help = "PFC XON frames sent", .mpart = MP_PACKET, .mseq = 2, .mtype = MT_COUNTER},
    {.name = "network.pfc.paused_s", .block = FB_NETWORK, .kind = FK_REAL, .off = AT(paused_s),
     .when = FW_PACKET, .sweep = "paused_s",
     .metric = "paused_seconds_total", .help = "time paused, summed over ports", .mpart = MP_PACKET, .mseq = 3, .mtype = MT_COUNTER},
    {.name = "network.pfc.max_port_paused_s", .block = FB_NETWORK, .kind = FK_REAL,
     .off = AT(max_port_paused_s), .when = FW_PACKET},
    {.name = "network.max_queue_bytes", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(max_queue_bytes), .when = FW_PACKET, .sweep = "max_queue_bytes",
     .metric = "max_queue_bytes", .help = "largest egress queue seen (wire bytes)", .mpart = MP_PACKET, .mseq = 7},
    {.name = "network.max_buffer_bytes", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(max_buffer_bytes), .when = FW_PACKET,
     .metric = "max_buffer_bytes", .help = "largest switch buffer occupancy seen", .mpart = MP_PACKET, .mseq = 8},
    {.name = "network.packets_delivered", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(packets_delivered), .when = FW_PACKET},
    /* lossless detail, balancing counters and transport.* (packet engine) */
    {.name = "network.drops_by_class.lossless", .block = FB_NETWORK, .kind = FK_U64, .off = AT(drops_lossless),
     .when = FW_PACKET},
    {.name = "network.drops_by_class.lossy", .block = FB_NETWORK, .kind = FK_U64, .off = AT(drops_lossy),
     .when = FW_PACKET},
    {.name = "network.drops_by_class.watchdog", .block = FB_NETWORK, .kind = FK_U64, .off = AT(drops_watchdog),
     .when = FW_PACKET},
    {.name = "network.pfc.refresh_frames", .block = FB_NETWORK, .kind = FK_U64, .off = AT(refresh_frames),
     .when = FW_PACKET},
    {.name = "network.pfc.pause_frames_received", .block = FB_NETWORK, .kind = FK_U64, .off = AT(pause_frames_rx),
     .when = FW_PACKET},
    {.name = "network.pfc.watchdog_storms", .block = FB_NETWORK, .kind = FK_U64, .off = AT(pfc_storms),
     .when = FW_PACKET},
    {.name = "network.ecn.marked_packets", .block = FB_NETWORK, .kind = FK_U64, .off = AT(ecn_marked),
     .when = FW_PACKET,
     .metric = "ecn_marked_packets_total", .help = "data packets marked CE", .mpart = MP_PACKET, .mseq = 5, .mtype = MT_COUNTER},
    {.name = "network.ecn.marked_fraction", .block = FB_NETWORK, .kind = FK_CUSTOM,
     .when = FW_PACKET, .json = ecn_fraction},
    {.name = "network.ecn.kmin_unreached", .block = FB_NETWORK, .kind = FK_BOOL, .off = AT(ecn_unreached),
     .when = FW_PACKET},
    {.name = "network.ecn.largest_queue_bytes", .block = FB_NETWORK, .kind = FK_U64, .off = AT(ecn_top_queue),
     .when = FW_PACKET},
    {.name = "network.ecn.largest_queue_kmin_bytes", .block = FB_NETWORK, .kind = FK_U64, .off = AT(ecn_top_kmin),
     .when = FW_PACKET},
    {.name = "network.buffer.max_switch_bytes", .block = FB_NETWORK, .kind = FK_U64, .off = AT(max_buffer_bytes),
     .when = FW_PACKET},
    {.name = "network.buffer.max_headroom_bytes", .block = FB_NETWORK, .kind = FK_U64, .off = AT(max_headroom_bytes),
     .when = FW_PACKET},
    {.name = "network.buffer.max_shared_pg_bytes", .block = FB_NETWORK, .kind = FK_U64, .off = AT(max_shared_pg_bytes),
     .when = FW_PACKET},
    {.name = "network.buffer.pools", .block = FB_NETWORK, .kind = FK_CUSTOM,
     .when = FW_PACKET | FW_POOLS, .json = buffer_pools},
    {.name = "network.queues", .block = FB_NETWORK, .kind = FK_CUSTOM,
     .when = FW_PACKET, .json = seg_queues},
    {.name = "network.pfc.paused_s_by_segment", .block = FB_NETWORK, .kind = FK_CUSTOM,
     .when = FW_PACKET, .json = seg_paused},
    {.name = "network.ports", .block = FB_NETWORK, .kind = FK_CUSTOM,
     .when = FW_PACKET | FW_PORTS, .json = ports},
    {.name = "network.lb.reordered_packets", .block = FB_NETWORK, .kind = FK_U64, .off = AT(reordered),
     .when = FW_PACKET},
    {.name = "network.lb.naks", .block = FB_NETWORK, .kind = FK_U64, .off = AT(naks),
     .when = FW_PACKET},
    {.name = "network.lb.retransmitted_bytes", .block = FB_NETWORK, .kind = FK_U64, .off = AT(retx_bytes),
     .when = FW_PACKET},
    {.name = "network.lb.discarded_bytes", .block = FB_NETWORK, .kind = FK_U64, .off = AT(discarded_bytes),
     .when = FW_PACKET},
    {.name = "network.storage.request_acks", .block = FB_NETWORK, .kind = FK_U64, .off = AT(acks),
     .when = FW_PACKET},
    {.name = "network.storage.window_stalls", .block = FB_NETWORK, .kind = FK_U64, .off = AT(window_stalls),
     .when = FW_PACKET},
    {.name = "transport.cc", .block = FB_NETWORK, .kind = FK_CUSTOM,
     .when = FW_PACKET, .json = cc_name},
    {.name = "transport.warning", .block = FB_NETWORK, .kind = FK_TEXT,
     .off = AT(transport_warning), .when = FW_TRANSPORT_WARNING},
    {.name = "transport.protocol_kept", .block = FB_FABRIC, .kind = FK_TEXT,
     .off = AT(protocol_kept), .when = FW_PROTOCOL_KEPT},
    {.name = "transport.cnps_sent", .block = FB_NETWORK, .kind = FK_U64, .off = AT(cnps_sent),
     .when = FW_PACKET,
     .metric = "cnps_sent_total", .help = "congestion notification packets sent", .mpart = MP_PACKET, .mseq = 6, .mtype = MT_COUNTER},
    {.name = "transport.cnps_received", .block = FB_NETWORK, .kind = FK_U64, .off = AT(cnps_received),
     .when = FW_PACKET},
    {.name = "transport.rate_decreases", .block = FB_NETWORK, .kind = FK_U64, .off = AT(rate_decreases),
     .when = FW_PACKET},
    {.name = "transport.min_rate_bps", .block = FB_NETWORK, .kind = FK_REAL, .off = AT(min_rate_bps),
     .when = FW_PACKET},
    {.name = "transport.loss_recovery.on", .block = FB_NETWORK, .kind = FK_BOOL, .off = AT(loss_recovery),
     .when = FW_PACKET},
    {.name = "transport.loss_recovery.timeouts", .block = FB_NETWORK, .kind = FK_U64, .off = AT(timeouts),
     .when = FW_PACKET},
    {.name = "transport.loss_recovery.retransmitted_packets", .block = FB_NETWORK, .kind = FK_U64, .off = AT(retx_packets),
     .when = FW_PACKET},
    {.name = "transport.loss_recovery.duplicate_packets", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(dup_packets), .when = FW_PACKET},
    {.name = "transport.loss_recovery.naks", .block = FB_NETWORK, .kind = FK_U64, .off = AT(naks),
     .when = FW_PACKET},
    {.name = "transport.loss_recovery.selective_naks", .block = FB_NETWORK, .kind = FK_U64, .off = AT(sack_naks),
     .when = FW_PACKET},
    {.name = "transport.loss_recovery.acks", .block = FB_NETWORK, .kind = FK_U64, .off = AT(rc_acks),
     .when = FW_PACKET},
    {.name = "transport.loss_recovery.failed_transfers", .block = FB_NETWORK, .kind = FK_U64, .off = AT(qp_errors),
     .when = FW_PACKET},
    {.name = "transport.loss_recovery.rto", .block = FB_NETWORK, .kind = FK_ENUM, .off = AT(rto_mode),
     .names = &names_rto_mode, .when = FW_PACKET},
    {.name = "transport.loss_recovery.rto_max_s", .block = FB_NETWORK, .kind = FK_PS, .off = AT(rto_max_ps),
     .when = FW_PACKET},
    /* Ultra Ethernet: trimming and spraying */
    {.name = "transport.uec.trimming", .block = FB_NETWORK, .kind = FK_BOOL, .off = AT(trimming),
     .when = FW_PACKET | FW_UEC},
    {.name = "transport.uec.trimmed_packets", .block = FB_NETWORK, .kind = FK_U64, .off = AT(trims),
     .when = FW_PACKET | FW_UEC,
     .metric = "trimmed_packets_total", .help = "data packets switches cut to their headers (uec)",
     .mpart = MP_PACKET, .mseq = 20, .mtype = MT_COUNTER},
    {.name = "transport.uec.trimmed_bytes", .block = FB_NETWORK, .kind = FK_U64, .off = AT(trimmed_bytes),
     .when = FW_PACKET | FW_UEC},
    {.name = "transport.uec.trim_nacks", .block = FB_NETWORK, .kind = FK_U64, .off = AT(trim_naks),
     .when = FW_PACKET | FW_UEC,
     .metric = "trim_nacks_total", .help = "NACKs receivers sent for trimmed packets (uec)",
     .mpart = MP_PACKET, .mseq = 21, .mtype = MT_COUNTER},
    {.name = "transport.uec.retransmitted_packets", .block = FB_NETWORK, .kind = FK_U64, .off = AT(retx_packets),
     .when = FW_PACKET | FW_UEC,
     .metric = "retransmitted_packets_total", .help = "data packets sent again (uec)",
     .mpart = MP_PACKET, .mseq = 22, .mtype = MT_COUNTER},
    {.name = "transport.uec.sack", .block = FB_NETWORK, .kind = FK_BOOL, .off = AT(uec_sack),
     .when = FW_PACKET | FW_UEC},
    {.name = "transport.uec.sack_skipped_packets", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(sack_skipped), .when = FW_PACKET | FW_UEC},
    {.name = "transport.uec.entropies", .block = FB_NETWORK, .kind = FK_U32, .off = AT(entropies),
     .when = FW_PACKET | FW_UEC},
    {.name = "transport.uec.entropies_recycled", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(ev_recycled), .when = FW_PACKET | FW_UEC},
    {.name = "transport.uec.entropies_explored", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(ev_explored), .when = FW_PACKET | FW_UEC},
    {.name = "transport.uec.resends_same_entropy", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(ev_resend_same), .when = FW_PACKET | FW_UEC},
    /* RCCC: receiver credits (transport.uec.rccc) */
    {.name = "transport.uec.rccc", .block = FB_NETWORK, .kind = FK_BOOL, .off = AT(rccc),
     .when = FW_PACKET | FW_UEC},
    {.name = "transport.uec.credits_granted", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(credits_granted), .when = FW_PACKET | FW_UEC, .sweep = "credits_granted",
     .sweep_when = FW_PACKET | FW_UEC, .metric = "credits_granted_bytes_total",
     .help = "payload bytes of credit receivers granted their senders (uec rccc)",
     .mpart = MP_PACKET, .mseq = 23, .mtype = MT_COUNTER},
    {.name = "transport.uec.credit_packets", .block = FB_NETWORK, .kind = FK_U64,
     .off = AT(credit_packets), .when = FW_PACKET | FW_UEC,
     .metric = "credit_packets_total", .help = "credit packets receivers sent (uec rccc)",
     .mpart = MP_PACKET, .mseq = 24, .mtype = MT_COUNTER},
    /* TCP (transport.cc dctcp, cubic) */
    {.name = "transport.tcp.timeouts", .block = FB_NETWORK, .kind = FK_U64, .off = AT(timeouts),
     .when = FW_TCP,
     .metric = "tcp_timeouts_total", .help = "TCP retransmission timeouts", .mpart = MP_PACKET, .mseq = 25, .mtype = MT_COUNTER},
    {.name = "transport.tcp.retransmitted_segments", .block = FB_NETWORK, .kind = FK_U64, .off = AT(retx_packets),
     .when = FW_TCP,
     .metric = "tcp_retransmitted_segments_total", .help = "TCP segments sent again", .mpart = MP_PACKET, .mseq = 26, .mtype = MT_COUNTER},
    {.name = "transport.tcp.fast_retransmits", .block = FB_NETWORK, .kind = FK_U64, .off = AT(tcp_fast_retx),
     .when = FW_TCP,
     .metric = "tcp_fast_retransmits_total", .help = "TCP fast retransmits (duplicate ACK threshold reached)", .mpart = MP_PACKET, .mseq = 27, .mtype = MT_COUNTER},
    {.name = "transport.tcp.duplicate_acks", .block = FB_NETWORK, .kind = FK_U64, .off = AT(tcp_dupacks),
     .when = FW_TCP,
     .metric = "tcp_duplicate_acks_total", .help = "TCP duplicate ACKs heard by senders", .mpart = MP_PACKET, .mseq = 28, .mtype = MT_COUNTER},
    {.name = "transport.tcp.window_cuts", .block = FB_NETWORK, .kind = FK_U64, .off = AT(tcp_cuts),
     .when = FW_TCP,
     .metric = "tcp_window_cuts_total", .help = "TCP congestion window reductions (ECN, loss, timeout)", .mpart = MP_PACKET, .mseq = 29, .mtype = MT_COUNTER},

    /* load balance: both engines know where the bytes went */
    {.name = "network.lb.scheme", .block = FB_BALANCE, .kind = FK_CUSTOM, .json = lb_name},
    {.name = "network.lb.uplink_imbalance", .block = FB_BALANCE, .kind = FK_REAL,
     .off = AT(lb_uplink_imbalance)},
    {.name = "network.lb.spine_imbalance", .block = FB_BALANCE, .kind = FK_REAL,
     .off = AT(lb_spine_imbalance)},
    {.name = "network.lb.uplinks_per_flow_mean", .block = FB_BALANCE, .kind = FK_REAL,
     .off = AT(lb_paths_mean)},
    {.name = "network.lb.uplinks_per_flow_max", .block = FB_BALANCE, .kind = FK_U32,
     .off = AT(lb_paths_max)},
    {.name = "network.links", .block = FB_BALANCE, .kind = FK_CUSTOM, .when = FW_LINKS,
     .json = busiest_links},

    /* invariants (docs/engine.md) */
    {.name = "invariants.ok", .block = FB_INVARIANTS, .kind = FK_BOOL, .off = AT(ok),
     .metric = "ok", .help = "1 when every invariant of the run held, else 0", .mpart = MP_RUN, .mseq = 1},
    {.name = "invariants.violation", .block = FB_INVARIANTS, .kind = FK_TEXT, .off = AT(violation)},
    {.name = "invariants.bytes_sent", .block = FB_INVARIANTS, .kind = FK_U64, .off = AT(bytes_sent),
     .metric = "sent_bytes_total", .help = "payload bytes sent by writers (first sends)", .mpart = MP_RUN, .mseq = 8, .mtype = MT_COUNTER},
    {.name = "invariants.bytes_delivered", .block = FB_INVARIANTS, .kind = FK_U64,
     .off = AT(bytes_delivered),
     .metric = "delivered_bytes_total", .help = "payload bytes delivered to storage", .mpart = MP_RUN, .mseq = 9, .mtype = MT_COUNTER},
    {.name = "invariants.bytes_dropped", .block = FB_INVARIANTS, .kind = FK_U64,
     .off = AT(bytes_dropped)},
    {.name = "invariants.bytes_in_flight", .block = FB_INVARIANTS, .kind = FK_U64,
     .off = AT(bytes_in_flight)},
    {.name = "invariants.writers_completed", .block = FB_INVARIANTS, .kind = FK_U32,
     .off = AT(flows_done)},
    {.name = "invariants.time_monotone", .block = FB_INVARIANTS, .kind = FK_BOOL,
     .off = AT(time_monotone)},

    /* the run's own performance (report_json's perf) */
    {.name = "perf.events", .block = FB_PERF, .kind = FK_U64, .off = AT(events), .sweep = "events"},
    {.name = "perf.wall_s", .block = FB_PERF, .kind = FK_REAL, .off = AT(wall_s)},
    {.name = "perf.total_s", .block = FB_PERF, .kind = FK_REAL, .off = AT(total_s)},
    {.name = "perf.events_per_s", .block = FB_PERF, .kind = FK_CUSTOM, .json = events_per_s},
    {.name = "perf.event_order", .block = FB_PERF, .kind = FK_ENUM, .off = AT(event_order),
     .when = FW_THREADS, .names = &names_event_order},
    {.name = "perf.threads", .block = FB_PERF, .kind = FK_U32, .off = AT(threads),
     .when = FW_THREADS},
    {.name = "perf.max_pending_events", .block = FB_PERF, .kind = FK_U64,
     .off = AT(max_pending_events)},
    {.name = "perf.mem_bytes", .block = FB_PERF, .kind = FK_U64, .off = AT(mem_bytes)},
    {.name = "perf.packets_allocated", .block = FB_PERF, .kind = FK_U64,
     .off = AT(packets_allocated)},
    {.name = "perf.rate_updates", .block = FB_PERF, .kind = FK_U64, .off = AT(rate_updates),
     .when = FW_RATE_UPDATES},
    {.name = "perf.rates_recomputed", .block = FB_PERF, .kind = FK_U64,
     .off = AT(rates_recomputed), .when = FW_RATE_UPDATES},
};

const size_t n_result_fields = sizeof result_fields / sizeof result_fields[0];

const struct result_field *field_find(const char *name)
{
    for (size_t i = 0; i < n_result_fields; i++)
        if (!strcmp(result_fields[i].name, name))
            return &result_fields[i];
    return NULL;
}

static int when_holds(unsigned when, const struct results *r)
{
    if ((when & FW_FINISHED) && !r->finished)
        return 0;
    if ((when & FW_UNFINISHED) && r->finished)
        return 0;
    if ((when & FW_TRAINING) && !r->training.on)
        return 0;
    if ((when & FW_RESTORE) && !r->restore.ran)
        return 0;
    if ((when & FW_PACKET) && !r->has_packet_stats)
        return 0;
    if ((when & FW_THREADS) && !r->threads)
        return 0;
    if ((when & FW_RATE_UPDATES) && !r->rate_updates)
        return 0;
    if ((when & FW_POOLS) && r->n_buffer_pools <= 1)
        return 0;
    if ((when & FW_PORTS) && !r->ports)
        return 0;
    if ((when & FW_LINKS) && !r->has_link_stats)
        return 0;
    if ((when & FW_UEC) && !r->uec)
        return 0;
    if ((when & FW_TCP) && !(r->has_packet_stats && cc_scheme(r->cc)->tcp))
        return 0;
    if ((when & FW_HYBRID) && !r->hybrid.on)
        return 0;
    if ((when & FW_RESTORE_HYBRID) && !r->restore.hybrid_on)
        return 0;
    if ((when & FW_CONTENTION) && !r->cost.contention_on)
        return 0;
    if ((when & FW_POLICIES) && !r->cost.n_policies)
        return 0;
    if ((when & FW_BOUNDED) && !(r->bound_s > 0))
        return 0;
    if ((when & FW_INTERVAL) && !(r->cost.interval_s > 0))
        return 0;
    if ((when & FW_MLPERF) && !r->mlperf.on)
        return 0;
    if ((when & FW_ENDURANCE) && !r->endurance.on)
        return 0;
    if ((when & FW_REQUESTS) && !r->requests.on)
        return 0;
    if ((when & FW_TRANSPORT_WARNING) && !r->transport_warning[0])
        return 0;
    if ((when & FW_PROTOCOL_KEPT) && !r->protocol_kept[0])
        return 0;
    if ((when & FW_PROTECTION) && !r->plan.protect_bytes)
        return 0;
    if ((when & FW_RESTORE_READ) &&
        !(r->restore.ran && !r->restore.estimated && r->restore.finished))
        return 0;
    return 1;
}

int field_applies(const struct result_field *f, const struct results *r)
{
    return when_holds(f->when, r);
}

int field_is_null(const struct result_field *f, const struct results *r)
{
    switch (f->null) {
    case FN_UNFINISHED: return !r->finished;
    case FN_NO_FAILURES: return !(r->cost.job_mtbf_s > 0);
    case FN_NO_MONTE_CARLO: return !(r->cost.mc_days > 0);
    case FN_NO_PACKET: return !r->has_packet_stats;
    case FN_NEVER: break;
    }
    return 0;
}

/* the value at the row's offset, copied (the struct's members are aligned) */
#define VALUE(T) (*(const T *)((const char *)r + f->off))

json_t *field_json(const struct result_field *f, const struct scenario *sc,
                   const struct results *r)
{
    if (field_is_null(f, r))
        return json_null();
    switch (f->kind) {
    case FK_REAL: return json_real(VALUE(double));
    case FK_U64: return json_integer((json_int_t)VALUE(uint64_t));
    case FK_U32: return json_integer((json_int_t)VALUE(uint32_t));
    case FK_BOOL: return json_boolean(VALUE(int));
    case FK_PS: return json_real((double)VALUE(uint64_t) / 1e12);
    case FK_CSTR: {
        const char *t = *(const char *const *)((const char *)r + f->off);
        return json_string(t ? t : f->dflt);
    }
    case FK_TEXT: return json_string((const char *)r + f->off);
    case FK_SEG: return json_string(path_seg_key(VALUE(int)));
    case FK_ENUM: return json_string(names_of(f->names, VALUE(int)));
    case FK_CONST: return json_string(f->dflt);
    case FK_CUSTOM: return f->json(sc, r);
    }
    return json_null();
}

double field_number(const struct result_field *f, const struct results *r)
{
    if (!field_applies(f, r) || field_is_null(f, r))
        return NAN;
    switch (f->kind) {
    case FK_REAL: return VALUE(double);
    case FK_U64: return (double)VALUE(uint64_t);
    case FK_U32: return VALUE(uint32_t);
    case FK_BOOL: return VALUE(int) != 0;
    case FK_PS: return (double)VALUE(uint64_t) / 1e12;
    case FK_CUSTOM: return f->number ? f->number(r) : NAN;
    default: return NAN;
    }
}

double field_sweep_number(const struct result_field *f, const struct results *r)
{
    return when_holds(f->sweep_when, r) ? field_number(f, r) : NAN;
}

uint64_t field_count(const struct result_field *f, const struct results *r)
{
    switch (f->kind) {
    case FK_U64: return VALUE(uint64_t);
    case FK_U32: return VALUE(uint32_t);
    default: return 0;
    }
}
