/* The result fields table (fields.h): rows in the JSON document's order. */
#include "fields.h"

#include <math.h>
#include <string.h>

#include "../../include/ckptnet.h"

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

#define FIN FW_FINISHED

const struct result_field result_fields[] = {
    /* model.*, checkpoint.* (the plan), cost.*, failures.* (docs/checkpoint.md) */
    {.name = "model.name", .kind = FK_CSTR, .off = AT(plan.model), .dflt = "none"},
    {.name = "model.params", .kind = FK_U64, .off = AT(plan.params)},
    {.name = "model.bytes_per_param", .kind = FK_CUSTOM, .json = bytes_per_param},
    {.name = "model.weights_bytes_per_param", .kind = FK_U32, .off = AT(plan.weights_bpp)},
    {.name = "model.optimizer_bytes_per_param", .kind = FK_U32, .off = AT(plan.optimizer_bpp)},
    {.name = "model.gpus", .kind = FK_U32, .off = AT(plan.gpus)},
    {.name = "model.tp", .kind = FK_U32, .off = AT(plan.tp)},
    {.name = "model.pp", .kind = FK_U32, .off = AT(plan.pp)},
    {.name = "model.dp", .kind = FK_U32, .off = AT(plan.dp)},
    {.name = "model.zero_stage", .kind = FK_U32, .off = AT(plan.zero_stage)},
    {.name = "checkpoint.writer_rule", .kind = FK_CSTR, .off = AT(plan.writer_rule), .dflt = ""},
    {.name = "checkpoint.policy", .kind = FK_CSTR, .off = AT(plan.policy), .dflt = ""},
    {.name = "checkpoint.files", .kind = FK_U32, .off = AT(plan.files)},
    {.name = "checkpoint.transfers", .kind = FK_U32, .off = AT(plan.transfers)},
    {.name = "checkpoint.stragglers", .kind = FK_U32, .off = AT(plan.stragglers)},
    {.name = "checkpoint.shard_max_bytes", .kind = FK_U64, .off = AT(plan.max_gpu_bytes)},
    {.name = "checkpoint.shard_mean_bytes", .kind = FK_REAL, .off = AT(plan.mean_gpu_bytes)},
    {.name = "checkpoint.shard_skew", .kind = FK_REAL, .off = AT(plan.skew)},
    {.name = "checkpoint.first_start_s", .kind = FK_PS, .off = AT(plan.first_start_ps)},
    {.name = "checkpoint.max_open_wait_s", .kind = FK_PS, .off = AT(plan.max_open_wait_ps)},
    {.name = "storage.placement", .kind = FK_CSTR, .off = AT(plan.placement), .dflt = ""},
    {.name = "storage.stripe_start", .kind = FK_CSTR, .off = AT(plan.stripe_start), .dflt = ""},
    {.name = "storage.node_bytes", .kind = FK_CUSTOM, .json = node_bytes},
    {.name = "storage.node_max_bytes", .kind = FK_U64, .off = AT(plan.node_max_bytes)},
    {.name = "storage.node_mean_bytes", .kind = FK_REAL, .off = AT(plan.node_mean_bytes)},
    {.name = "storage.node_skew", .kind = FK_REAL, .off = AT(plan.node_skew)},
    {.name = "storage.skew_cost_s", .kind = FK_PS, .off = AT(plan.skew_cost_ps)},
    {.name = "storage.skew_cost_pct", .kind = FK_REAL, .off = AT(plan.skew_cost_pct)},
    {.name = "checkpoint.end_s", .kind = FK_REAL, .off = AT(cost.end_s), .null = FN_UNFINISHED,
     .metric = "checkpoint_end_seconds", .help = "trigger to last byte received"},
    {.name = "checkpoint.drain_late", .kind = FK_BOOL, .off = AT(cost.drain_late)},
    /* no completion, no cost */
    {.name = "cost.computed", .kind = FK_BOOL, .off = AT(finished)},
    {.name = "cost.reason", .kind = FK_CONST, .when = FW_UNFINISHED,
     .dflt = "the run did not finish"},
    {.name = "cost.stall_s_per_checkpoint", .kind = FK_REAL, .off = AT(cost.stall_s), .when = FIN,
     .metric = "gpu_stall_seconds", .help = "GPU stall per checkpoint (policy)",
     .sweep = "gpu_stall_s"},
    {.name = "cost.stall_measured", .kind = FK_BOOL, .off = AT(plan.stall_measured), .when = FIN},
    {.name = "cost.interval_s", .kind = FK_REAL, .off = AT(cost.interval_s), .when = FIN},
    {.name = "cost.checkpoints_per_day", .kind = FK_REAL, .off = AT(cost.checkpoints_per_day),
     .when = FIN, .metric = "checkpoints_per_day", .help = "checkpoints per day of training"},
    /* base units (promtool's lint): GPU-seconds, not GPU-hours */
    {.name = "cost.gpu_hours_per_day", .kind = FK_REAL, .off = AT(cost.gpu_hours_per_day),
     .when = FIN, .metric = "stalled_gpu_seconds_per_day",
     .help = "GPU time stalled per day (GPU-seconds)", .metric_scale = 3600,
     .sweep = "gpu_hours_per_day"},
    {.name = "cost.money_per_day", .kind = FK_REAL, .off = AT(cost.money_per_day), .when = FIN,
     .metric = "money_per_day",
     .help = "cost of the stall per day (training.gpu_hour_cost), in the currency label",
     .label = FL_CURRENCY, .sweep = "money_per_day"},
    {.name = "cost.currency", .kind = FK_CUSTOM, .when = FIN, .json = currency},
    {.name = "cost.mfu_points_lost", .kind = FK_REAL, .off = AT(cost.mfu_points_lost), .when = FIN},
    {.name = "cost.optimal_interval_s", .kind = FK_REAL, .off = AT(cost.young_s), .when = FIN,
     .null = FN_NO_FAILURES},
    {.name = "cost.optimal_interval_daly_s", .kind = FK_REAL, .off = AT(cost.daly_s), .when = FIN,
     .null = FN_NO_FAILURES},
    {.name = "cost.goodput", .kind = FK_REAL, .off = AT(cost.goodput), .when = FIN,
     .metric = "goodput_ratio", .help = "useful fraction of wall time at the configured interval",
     .sweep = "goodput"},
    {.name = "cost.goodput_at_optimal", .kind = FK_REAL, .off = AT(cost.goodput_at_optimal),
     .when = FIN},
    {.name = "cost.goodput_monte_carlo", .kind = FK_REAL, .off = AT(cost.goodput_mc), .when = FIN,
     .null = FN_NO_MONTE_CARLO},
    {.name = "cost.lost_gpu_hours_per_day", .kind = FK_REAL,
     .off = AT(cost.lost_gpu_hours_per_day), .when = FIN},
    {.name = "cost.lost_money_per_day", .kind = FK_REAL, .off = AT(cost.lost_money_per_day),
     .when = FIN},
    /* docs/training.md */
    {.name = "cost.training_lost_s_per_checkpoint", .kind = FK_REAL,
     .off = AT(cost.training_lost_s), .when = FIN | FW_TRAINING},
    {.name = "cost.training_slowdown_gpu_hours_per_day", .kind = FK_REAL,
     .off = AT(cost.training_slowdown_gpu_hours_per_day), .when = FIN | FW_TRAINING},
    {.name = "cost.training_slowdown_money_per_day", .kind = FK_REAL,
     .off = AT(cost.training_slowdown_money_per_day), .when = FIN | FW_TRAINING},
    {.name = "failures.job_mtbf_s", .kind = FK_REAL, .off = AT(cost.job_mtbf_s), .when = FIN,
     .null = FN_NO_FAILURES},
    {.name = "failures.per_day", .kind = FK_REAL, .off = AT(cost.failures_per_day), .when = FIN},
    {.name = "failures.monte_carlo_days", .kind = FK_REAL, .off = AT(cost.mc_days), .when = FIN},
    {.name = "failures.monte_carlo_failures", .kind = FK_U64, .off = AT(cost.mc_failures),
     .when = FIN},
    {.name = "cost.recovery_s", .kind = FK_REAL, .off = AT(cost.recovery_s)},
    {.name = "cost.recovery_from", .kind = FK_CSTR, .off = AT(cost.recovery_from), .dflt = "none"},
    {.name = "cost.broadcast_saves_gpu_hours_per_day", .kind = FK_REAL,
     .off = AT(cost.bcast_saves_gpu_hours_per_day)},
    {.name = "checkpoint.phase", .kind = FK_ENUM, .off = AT(phase), .names = &names_phase},
};

const size_t n_result_fields = sizeof result_fields / sizeof result_fields[0];

const struct result_field *field_find(const char *name)
{
    for (size_t i = 0; i < n_result_fields; i++)
        if (!strcmp(result_fields[i].name, name))
            return &result_fields[i];
    return NULL;
}

int field_applies(const struct result_field *f, const struct results *r)
{
    if ((f->when & FW_FINISHED) && !r->finished)
        return 0;
    if ((f->when & FW_UNFINISHED) && r->finished)
        return 0;
    if ((f->when & FW_TRAINING) && !r->training.on)
        return 0;
    return 1;
}

int field_is_null(const struct result_field *f, const struct results *r)
{
    switch (f->null) {
    case FN_UNFINISHED: return !r->finished;
    case FN_NO_FAILURES: return !(r->cost.job_mtbf_s > 0);
    case FN_NO_MONTE_CARLO: return !(r->cost.mc_days > 0);
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
    case FK_CSTR: return json_string(VALUE(const char *) ? VALUE(const char *) : f->dflt);
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
    default: return NAN;
    }
}
