/* Scenario: the typed, validated description of one run.
 *
 * A scenario starts from the defaults table (scenario_defaults), then YAML
 * files and --set overrides are applied on top, then scenario_validate runs
 * the cross-field checks. Every key lives in one table in scenario.c with its
 * type, default, limits and one-line doc; docs/scenario.md documents the same
 * keys. Unknown keys and bad values are errors of the form
 *   file:line:col: key: message
 */
#ifndef CKPT_SCENARIO_H
#define CKPT_SCENARIO_H

#include <stdint.h>

#include "../core/err.h"

#define SCENARIO_TEXT 64 /* longest text value + 1 */

enum engine_kind { ENGINE_PACKET };

struct scenario {
    uint64_t seed;
    int engine;                 /* enum engine_kind */
    struct {
        uint32_t nodes;         /* compute nodes, one writer each */
        uint64_t nic_bps;
    } cluster;
    struct {
        uint32_t nodes;
        uint64_t nic_bps;
    } storage;
    struct {
        uint32_t hosts_per_leaf;
        uint32_t storage_per_leaf;
        uint32_t spines;
        uint64_t uplink_bps;
        uint64_t link_delay_ps;
        uint64_t switch_latency_ps;
        uint64_t buffer_bytes;  /* per switch */
        uint32_t mtu;           /* RoCE payload bytes per packet */
        int pfc;                /* 1 = PFC on (lossless), 0 = tail drop */
    } fabric;
    struct {
        uint64_t bytes_per_writer;
        uint64_t start_jitter_ps; /* writer start uniform in [0, jitter] */
    } workload;
    char source[256];           /* file the scenario came from, or "default" */
};

/* Fill every field from the defaults table. */
void scenario_defaults(struct scenario *sc);

/* Apply a YAML file / string on top of *sc. `name` is used in messages.
 * Returns 0, or -1 with e->msg = "name:line:col: key: message". All or
 * nothing: on error *sc is left as it was. On success sc->source is set to
 * the path (file) or name (string). */
int scenario_load_file(struct scenario *sc, const char *path, struct err *e);
int scenario_load_string(struct scenario *sc, const char *yaml,
                         const char *name, struct err *e);

/* Apply one "key.path=value" override. Errors read
 * "--set: key: message" (or "--set: expected key=value, got ..."). */
int scenario_set(struct scenario *sc, const char *assignment, struct err *e);

/* Cross-field checks (run after all loading). Errors name the key. */
int scenario_validate(const struct scenario *sc, struct err *e);

/* The effective scenario, one call per key in table order:
 * key is dotted ("fabric.spines"), value is canonical text ("400Gbps",
 * "128", "true", "0.5"); kind says how to type it in JSON: SCN_INT for a
 * plain integer, SCN_REAL for a real number, SCN_TEXT otherwise (bools are
 * SCN_TEXT "true"/"false"). The kind depends on the key, never the value. */
enum { SCN_TEXT = 0, SCN_INT = 1, SCN_REAL = 2 };
typedef void scenario_emit_fn(void *ud, const char *key, const char *value,
                              int kind);
void scenario_echo(const struct scenario *sc, scenario_emit_fn *emit,
                   void *ud);

/* The keys table itself, for help text and doc checks: one call per key in
 * table order. type is "uint", "count", "rate", "size", "time", "bool",
 * "real", "enum" (def and doc name the choices) or "text";
 * def, min and max are texts in the key's own syntax, min/max NULL when the
 * key has no such limit (limits are inclusive). All strings are static. */
typedef void scenario_key_fn(void *ud, const char *key, const char *type,
                             const char *def, const char *min,
                             const char *max, const char *doc);
void scenario_keys(scenario_key_fn *fn, void *ud);

#endif
