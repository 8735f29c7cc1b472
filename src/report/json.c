/* Reports: the JSON document of one run. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "../fluid/fluid.h"
#include "../scenario/lbscheme.h"
#include "../topo/topo.h"
#include "fields.h"
#include "internal.h"

/* Place value under the dotted key inside obj, creating sections. */
static void put_dotted(json_t *obj, const char *key, json_t *value)
{
    char part[128];
    const char *dot;
    while ((dot = strchr(key, '.'))) {
        size_t n = (size_t)(dot - key) < sizeof part - 1 ? (size_t)(dot - key)
                                                         : sizeof part - 1;
        memcpy(part, key, n);
        part[n] = '\0';
        json_t *sub = json_object_get(obj, part);
        if (!sub) {
            sub = json_object();
            json_object_set_new(obj, part, sub);
        }
        obj = sub;
        key = dot + 1;
    }
    json_object_set_new(obj, key, value);
}

static void emit_key(void *ud, const char *key, const char *value, int kind)
{
    json_t *v;
    if (kind == SCN_INT)
        v = json_integer((json_int_t)strtoull(value, NULL, 10));
    else if (kind == SCN_REAL)
        v = json_real(strtod(value, NULL));
    else if (!strcmp(value, "true") || !strcmp(value, "false"))
        v = json_boolean(value[0] == 't');
    else
        v = json_string(value);
    put_dotted(ud, key, v);
}

#define U(x) json_integer((json_int_t)(x))

/* Every row of block b that applies to this run, in table order (fields.h). */
static void put_fields(json_t *root, const struct scenario *sc, const struct results *r,
                       enum field_block b)
{
    for (size_t i = 0; i < n_result_fields; i++) {
        const struct result_field *f = &result_fields[i];
        if (f->block == b && !f->no_json && field_applies(f, r))
            put_dotted(root, f->name, field_json(f, sc, r));
    }
}

static int json_doc(FILE *out, const struct scenario *sc, const struct results *r, int perf,
                    size_t flags, struct err *e);

/* cost.capital* and cost.unpriced (docs/checkpoint.md, Capital cost) */
static void capex_json(json_t *root, const struct results *r)
{
    const struct cost_figures *c = &r->cost;
    put_dotted(root, "cost.capital", json_real(c->capital));
    put_dotted(root, "cost.capital_switches", json_real(c->capital_switches));
    put_dotted(root, "cost.capital_optics", json_real(c->capital_optics));
    put_dotted(root, "cost.capital_cables", json_real(c->capital_cables));
    put_dotted(root, "cost.capital_storage", json_real(c->capital_storage));
    if (r->bom_train_on) /* fabric.isolation physical */
        put_dotted(root, "cost.capital_training", json_real(c->capital_training));
    put_dotted(root, "cost.capital_per_day", json_real(c->capital_per_day));
    put_dotted(root, "cost.amortisation_years", json_real(c->amortisation_years));
    json_t *u = json_array();
    for (uint32_t i = 0; i < c->n_unpriced; i++)
        json_array_append_new(u, json_string(c->unpriced[i]));
    put_dotted(root, "cost.unpriced", u);
}

static void bom_json(json_t *root, const struct scenario *sc, const struct results *r)
{
    static const char *const key[3] = {"fabric.bom.leaves", "fabric.bom.spines",
                                       "fabric.bom.superspines"};
    const char *prof[3] = {sc->fabric.leaf_switch, sc->fabric.spine_switch,
                           sc->fabric.superspine_switch};
    for (int i = 0; i < 3; i++) {
        if (!r->bom_switches[i])
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "profile", json_string(prof[i]));
        json_object_set_new(o, "count", U(r->bom_switches[i]));
        put_dotted(root, key[i], o);
    }
    json_t *a = json_array();
    for (uint32_t i = 0; i < r->bom_n_speeds; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "speed_bps", U(r->bom_speed_bps[i]));
        json_object_set_new(o, "links", U(r->bom_links[i]));
        json_object_set_new(o, "transceivers", U(results_bom_optics(r, r->bom_speed_bps[i])));
        json_array_append_new(a, o);
    }
    put_dotted(root, "fabric.bom.links", a);
}

void report_clos_json(json_t *root, const struct results *r)
{
    if (!r->pods && !r->fabric_auto)
        return; /* leaf-spine as given: as before */
    put_dotted(root, "fabric.tiers", U(r->fabric_tiers));
    put_dotted(root, "fabric.tiers_auto", json_boolean(r->fabric_auto));
    put_dotted(root, "fabric.hosts_per_leaf", U(r->hosts_per_leaf));
    put_dotted(root, "fabric.storage_per_leaf", U(r->storage_per_leaf));
    /* an uneven topology file: the emptiest leaf too (not the last) */
    if (r->hosts_per_leaf_min < r->hosts_per_leaf)
        put_dotted(root, "fabric.hosts_per_leaf_min", U(r->hosts_per_leaf_min));
    if (r->storage_per_leaf_min < r->storage_per_leaf)
        put_dotted(root, "fabric.storage_per_leaf_min", U(r->storage_per_leaf_min));
    put_dotted(root, "fabric.spines", U(r->spines));
    put_dotted(root, "fabric.links_per_spine", U(r->links_per_spine));
    if (r->pods) {
        put_dotted(root, "fabric.pods", U(r->pods));
        put_dotted(root, "fabric.leaves_per_pod", U(r->leaves_per_pod));
        put_dotted(root, "fabric.spines_per_pod", U(r->spines_per_pod));
        put_dotted(root, "fabric.superspines", U(r->superspines));
        put_dotted(root, "fabric.links_per_superspine", U(r->links_per_super));
        put_dotted(root, "fabric.oversubscription.spine", json_real(r->oversub_spine));
    }
}

int report_json(FILE *out, const struct scenario *sc, const struct results *r,
                int perf, struct err *e)
{
    return json_doc(out, sc, r, perf, JSON_INDENT(2), e);
}

int report_json_line(FILE *out, const struct scenario *sc, const struct results *r,
                     int perf, struct err *e)
{
    return json_doc(out, sc, r, perf, JSON_COMPACT, e);
}

static int json_doc(FILE *out, const struct scenario *sc, const struct results *r, int perf,
                    size_t flags, struct err *e)
{
    json_t *root = json_object();
    put_fields(root, sc, r, FB_RUN);
    if (r->engine == ENGINE_FLUID) { /* what its figure ignores (fluid.h) */
        json_t *a = json_array();
        for (uint32_t i = 0; i < r->n_unmodelled; i++) {
            const struct unmodelled *u = &r->unmodelled[i];
            json_t *o = json_object();
            json_object_set_new(o, "key", json_string(u->key));
            json_object_set_new(o, "value", json_string(u->value));
            json_object_set_new(o, "effect", json_string(u->effect));
            json_object_set_new(o, "direction", json_string(fluid_direction_name(u->dir)));
            json_array_append_new(a, o);
        }
        int dir = fluid_direction(r);
        /* true only when every entry makes the figure shorter */
        put_dotted(root, "fluid.optimistic", json_boolean(dir == UNMOD_OPTIMISTIC));
        put_dotted(root, "fluid.direction", json_string(dir < 0 ? "none"
                                                        : fluid_direction_name(dir)));
        put_dotted(root, "fluid.unmodelled", a);
    }
    put_fields(root, sc, r, FB_CHECKPOINT);
    put_fields(root, sc, r, FB_PLAN_COST);
    put_fields(root, sc, r, FB_RESTORE);
    put_fields(root, sc, r, FB_TRAINING);
    put_fields(root, sc, r, FB_BOUND);
    if (r->bottleneck.seg >= 0) {
        put_dotted(root, "segments", segments_json(r));
        put_dotted(root, "bottleneck", r->finished ? bottleneck_json(r) : json_null());
    }
    put_fields(root, sc, r, FB_FABRIC);
    report_clos_json(root, r);
    if (r->bom_n_speeds)
        bom_json(root, sc, r);
    if (r->cost.priced)
        capex_json(root, r);
    if (r->has_packet_stats) { /* absent, not zero, when the engine cannot know */
        put_fields(root, sc, r, FB_NETWORK);
        if (cc_scheme(sc->transport.cc)->sends_cnps) /* the model auto chose, and why */
            put_dotted(root, "transport.cnp_path",
                       json_string(scenario_cnp_direct(sc) ? "direct" : "fabric"));
        if (cc_scheme(sc->transport.cc)->window || sc->transport.uec.rccc ||
            sc->transport.ack_path != ACK_AUTO)
            put_dotted(root, "transport.ack_path",
                       json_string(scenario_ack_direct(sc) ? "direct" : "fabric"));
    }
    put_fields(root, sc, r, FB_BALANCE);
    put_fields(root, sc, r, FB_INVARIANTS);
    if (perf)
        put_fields(root, sc, r, FB_PERF);
    json_t *scn = json_object();
    json_object_set_new(scn, "source", json_string(sc->source[0] ? sc->source : "default"));
    scenario_echo(sc, emit_key, scn);
    json_object_set_new(root, "scenario", scn);
    int rc = json_dumpf(root, out, flags | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(root);
    if (rc < 0 || fputc('\n', out) == EOF)
        return err_set(e, "cannot write JSON output");
    return 0;
}
