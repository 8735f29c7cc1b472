/* Enum<->name tables (src/scenario/names.h): every enumerated key takes its
 * choices from one table, and what the parser reads is what the echo and
 * the reports print. Iterates the key table, so an enumerated key added
 * without a names table, or with two values of one name, fails here. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"
#include "../src/scenario/names.h"
#include "harness.h"
#include "support.h"

struct echo_find {
    const char *key;
    char value[128];
    int seen;
};

static void echo_find_fn(void *ud, const char *key, const char *value, int kind)
{
    struct echo_find *f = ud;
    (void)kind;
    if (!strcmp(key, f->key)) {
        snprintf(f->value, sizeof f->value, "%s", value);
        f->seen++;
    }
}

struct enum_keys {
    const char *key[64];
    const char *def[64];
    int n;
};

static void enum_keys_fn(void *ud, const char *key, const char *type, const char *def,
                         const char *min, const char *max, const char *doc)
{
    struct enum_keys *k = ud;
    (void)min, (void)max, (void)doc;
    if (!strcmp(type, "enum") && k->n < 64) {
        k->key[k->n] = key;
        k->def[k->n++] = def;
    }
}

/* Each enumerated key: a table of distinct names, its default among them,
 * each name parsed to its index and echoed back as itself, and a wrong
 * name refused with the table's list. */
static void names_every_enum_key_round_trips(void)
{
    struct enum_keys ks = {{0}, {0}, 0};
    scenario_keys(enum_keys_fn, &ks);
    CHECKF(ks.n >= 20, "%d enumerated keys", ks.n);
    CHECK(scenario_key_names("fabric.spines") == NULL);
    for (int i = 0; i < ks.n; i++) {
        const struct names *t = scenario_key_names(ks.key[i]);
        CHECKF(t && t->n >= 2, "%s: no names table", ks.key[i]);
        if (!t)
            continue;
        CHECKF(names_find(t, ks.def[i], strlen(ks.def[i])) >= 0, "%s: default %s not a name",
               ks.key[i], ks.def[i]);
        for (int v = 0; v < t->n; v++) {
            const char *nm = names_of(t, v);
            CHECKF(nm && *nm && strcmp(nm, "?"), "%s: value %d has no name", ks.key[i], v);
            CHECKF(names_find(t, nm, strlen(nm)) == v, "%s: %s named twice", ks.key[i], nm);
            struct scenario sc;
            struct err e = {{0}};
            char kv[160];
            scenario_defaults(&sc);
            snprintf(kv, sizeof kv, "%s=%s", ks.key[i], nm);
            CHECKF(scenario_set(&sc, kv, &e) == 0, "%s: %s", kv, e.msg);
            struct echo_find f = {ks.key[i], "", 0};
            scenario_echo(&sc, echo_find_fn, &f);
            CHECKF(f.seen == 1 && !strcmp(f.value, nm), "%s echoed as %s", kv, f.value);
        }
        char all[512], want[600], kv[160];
        names_join(t, ", ", all, sizeof all);
        snprintf(want, sizeof want, "expected one of %s, got \"none_such\"", all);
        snprintf(kv, sizeof kv, "%s=none_such", ks.key[i]);
        struct scenario sc;
        struct err e = {{0}};
        scenario_defaults(&sc);
        CHECKF(scenario_set(&sc, kv, &e) != 0 && strstr(e.msg, want), "%s: %s", kv, e.msg);
    }
}

/* A value outside its table (a corrupt struct) names itself "?", never a
 * read past the table; a prefix of a name is not that name. */
static void names_out_of_range(void)
{
    CHECK(!strcmp(names_of(&names_engine, -1), "?"));
    CHECK(!strcmp(names_of(&names_engine, names_engine.n), "?"));
    CHECK(!strcmp(names_of(&names_engine, ENGINE_FLUID), "fluid"));
    CHECK(names_find(&names_engine, "flu", 3) == -1);
    CHECK(names_find(&names_engine, "fluid", 5) == ENGINE_FLUID);
    CHECK(!strcmp(names_of(&names_lb, LB_SPRAY), "spray"));
    char buf[8];
    CHECK(!strcmp(names_join(&names_engine, "|", buf, sizeof buf), "packet|"));
}

/* The results hold the engine as an enum: the JSON prints its name from
 * the table. */
static void names_results_print_the_table(void)
{
    struct scenario sc;
    struct results r;
    scenario_defaults(&sc);
    test_set(&sc, "engine=fluid");
    test_set(&sc, "cluster.nodes=8");
    CHECK(test_run(&sc, &r) == 0);
    CHECK(r.engine == ENGINE_FLUID);
    char *buf = test_json(&sc, &r);
    json_error_t je;
    json_t *root = buf ? json_loads(buf, 0, &je) : NULL;
    CHECK(root && !strcmp(json_string_value(json_object_get(root, "engine")), "fluid"));
    json_decref(root);
    free(buf);
    results_release(&r);
}

SUITE(suite_names) = {
    {"names_every_enum_key_round_trips", names_every_enum_key_round_trips},
    {"names_out_of_range", names_out_of_range},
    {"names_results_print_the_table", names_results_print_the_table},
    {NULL, NULL},
};
