/* Result fields: one row per figure of struct results that the JSON
 * document, the Prometheus metrics and the sweep columns print, in the
 * JSON document's order. Each writer iterates the rows of a block and takes
 * the ones it exports, so a figure is named, typed, placed and explained
 * once (docs/architecture.md, Result fields).
 */
#ifndef CKPT_REPORT_FIELDS_H
#define CKPT_REPORT_FIELDS_H

#include <jansson.h>
#include <stddef.h>

#include "../stats/results.h"

struct scenario;
struct names;

/* How a row reads its value at off (offsetof(struct results, ...)). */
enum field_kind {
    FK_REAL,   /* double */
    FK_U64,    /* uint64_t, a JSON integer */
    FK_U32,    /* uint32_t */
    FK_BOOL,   /* int, JSON true/false */
    FK_PS,     /* uint64_t picoseconds, printed as seconds */
    FK_CSTR,   /* const char *; NULL prints dflt */
    FK_TEXT,   /* char array */
    FK_SEG,    /* int, an enum path_seg printed as its key */
    FK_ENUM,   /* int, printed as its name in names */
    FK_CONST,  /* the text dflt itself */
    FK_CUSTOM, /* json() builds the value */
};

/* When a row is printed at all: every bit set must hold. */
enum {
    FW_FINISHED = 1 << 0,   /* every transfer completed */
    FW_UNFINISHED = 1 << 1, /* the run did not finish */
    FW_TRAINING = 1 << 2,   /* training.traffic collectives */
    FW_RESTORE = 1 << 3,    /* the restore ran (or was estimated) */
    FW_PACKET = 1 << 4,     /* packet statistics: absent, not zero, when unknown (fluid) */
    FW_THREADS = 1 << 5,    /* an event order ran (packet engine) */
    FW_RATE_UPDATES = 1 << 6, /* max-min updates ran (fluid engine) */
    FW_POOLS = 1 << 7,        /* more than one buffer pool (fabric.mmu.pools per_class) */
    FW_PORTS = 1 << 8,        /* per-port results (telemetry.ports) */
    FW_BOUNDED = 1 << 9,      /* a bound above zero */
    FW_INTERVAL = 1 << 10,    /* a checkpoint interval above zero */
    FW_RESTORE_READ = 1 << 11, /* the restore ran in an engine and finished */
    FW_LINKS = 1 << 12,       /* per-link-set busiest links (has_link_stats) */
    FW_MLPERF = 1 << 13,      /* checkpoint.mlperf set */
    FW_ENDURANCE = 1 << 14,   /* storage.capacity or storage.drive_dwpd given */
    FW_UEC = 1 << 15,         /* a uec receiver ran (packet engine) */
    FW_TCP = 1 << 16,         /* a TCP congestion control ran (packet engine) */
    FW_REQUESTS = 1 << 17,    /* storage.protocol's request model ran */
    FW_TRANSPORT_WARNING = 1 << 18, /* transport_reach warned */
    FW_PROTOCOL_KEPT = 1 << 19, /* the scenario set a key transport.protocol brings */
    FW_PROTECTION = 1 << 23,  /* storage.protection added bytes */
    FW_HYBRID = 1 << 24,      /* engine: hybrid ran */
    FW_RESTORE_HYBRID = 1 << 25, /* the restore ran in the hybrid engine */
    FW_CONTENTION = 1 << 28,  /* cluster.host_rate or checkpoint.drain_slowdown given */
    FW_POLICIES = 1 << 29,    /* cost.compare_policies ran */
};

/* When a printed row's value is JSON null (and no metric or sweep figure):
 * the figure does not apply to this run. */
enum field_null {
    FN_NEVER,
    FN_UNFINISHED,    /* no completion */
    FN_NO_FAILURES,   /* failures.mtbf_* 0 */
    FN_NO_MONTE_CARLO, /* failures.monte_carlo_days 0 */
    FN_NO_PACKET      /* the engine cannot know (fluid: no PFC) */
};

/* The blocks the writers print in turn (rows of a block are contiguous). */
enum field_block { FB_RUN, FB_CHECKPOINT, FB_PLAN_COST, FB_RESTORE, FB_TRAINING, FB_BOUND, FB_FABRIC,
                   FB_NETWORK, FB_BALANCE, FB_INVARIANTS, FB_PERF };

/* A Prometheus metric label: none, or the currency. */
enum field_label { FL_NONE, FL_CURRENCY };

/* Where a metric stands in the metrics, which keep their own order (not
 * the document's): before the finished test, after it (a finished run's
 * figures), or among the packet engine's families. */
enum metric_part { MP_RUN, MP_FINISHED, MP_PACKET, MP_COUNT };
enum metric_type { MT_GAUGE, MT_COUNTER };
/* mseq runs 1..FIELD_MSEQ_MAX within a part */
#define FIELD_MSEQ_MAX 32

struct result_field {
    const char *name;            /* the JSON document's dotted key */
    enum field_block block;
    enum field_kind kind;
    size_t off;                  /* offsetof(struct results, ...) */
    unsigned when;               /* FW_* bits, 0 = always */
    enum field_null null;
    const char *dflt;            /* FK_CSTR: for NULL; FK_CONST: the value */
    const struct names *names;   /* FK_ENUM */
    json_t *(*json)(const struct scenario *sc, const struct results *r); /* FK_CUSTOM */
    double (*number)(const struct results *r); /* FK_CUSTOM: its value as a number */
    int no_json;                 /* 1: a metric or sweep figure the document does not print */
    /* Prometheus: a gauge named ckptnet_<metric> (NULL: not exported) of
     * value x metric_scale (0: 1), with help and a label */
    const char *metric, *help;
    double metric_scale;
    enum field_label label;
    const char *help_estimated;  /* help instead when the restore was estimated */
    enum metric_part mpart;
    unsigned mseq;               /* its place in its part (1 first) */
    enum metric_type mtype;
    /* sweep: the column it fills (sweep_fig_name; NULL: none), only when
     * the FW_* bits of sweep_when hold too */
    const char *sweep;
    unsigned sweep_when;
};

extern const struct result_field result_fields[];
extern const size_t n_result_fields;

/* The row named name, or NULL. */
const struct result_field *field_find(const char *name);

/* 1 when row f is printed for this run (its FW_* bits hold). */
int field_applies(const struct result_field *f, const struct results *r);

/* 1 when its value is null for this run (FN_*). */
int field_is_null(const struct result_field *f, const struct results *r);

/* Its JSON value (null by field_is_null); a new reference. */
json_t *field_json(const struct result_field *f, const struct scenario *sc,
                   const struct results *r);

/* Its value as a number (reals, integers, bools 0/1, seconds, a custom
 * row's number()); NAN for a text, or when it does not apply or is null. */
double field_number(const struct result_field *f, const struct results *r);

/* Its sweep column's value: field_number where sweep_when holds, else NAN. */
double field_sweep_number(const struct result_field *f, const struct results *r);

/* An integer row's value exactly (a counter); 0 for other kinds. */
uint64_t field_count(const struct result_field *f, const struct results *r);

#endif
