/* The key table's choices (src/scenario/internal.h): a names table on every
 * enumerated key and on no other, a word only on the types that read one.
 * Runs first (tests/main.c), so a row with its choices in the wrong slot
 * fails here by name before a scenario is built from the table. */
#include <string.h>

#include "../src/scenario/internal.h"
#include "harness.h"
#include "support.h"

static void keytable_choices_match_the_type(void)
{
    size_t enums = 0, lists = 0, times = 0;
    for (size_t i = 0; i < scn_nkeys; i++) {
        const struct key *k = &scn_keys[i];
        const char *type = scn_type_names[k->type];
        if (k->type == T_ENUM) {
            CHECKF(k->names && k->names->n >= 2 && k->names->rows, "%s: enum without a names table",
                   k->name);
            enums++;
        } else {
            CHECKF(!k->names, "%s: a names table on a %s key", k->name, type);
        }
        CHECKF(!k->word || k->type == T_TIME || k->type == T_TEXT ||
                   (k->type == T_COUNT && !strcmp(k->word, "auto")),
               "%s: word \"%s\" on a %s key",
               k->name, k->word, type);
        if (k->word && k->type == T_TEXT) {
            CHECKF(!strcmp(k->word, LIST), "%s: text word \"%s\" is not LIST", k->name, k->word);
            lists++;
        }
        times += k->word && k->type == T_TIME;
    }
    CHECKF(enums >= 20, "%zu enumerated keys", enums);
    CHECKF(lists >= 3 && times >= 1, "%zu list keys, %zu time keys with a word", lists, times);
}

/* The time word and the list form still read as before: "auto" is stored
 * as UINT64_MAX and echoed as itself, a YAML sequence as its comma list. */
static void keytable_words_read_and_echo(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(sc.failures.recovery_ps == SCENARIO_AUTO_TIME);
    CHECKF(scenario_set(&sc, "failures.recovery_time=2s", &e) == 0, "%s", e.msg);
    CHECK(sc.failures.recovery_ps == UINT64_C(2000000000000));
    CHECKF(scenario_set(&sc, "failures.recovery_time=auto", &e) == 0, "%s", e.msg);
    CHECK(sc.failures.recovery_ps == SCENARIO_AUTO_TIME);
    CHECKF(scenario_load_string(&sc, "fabric:\n  pfc:\n    priorities: [3, 4]\n", "t.yaml", &e) == 0,
           "%s", e.msg);
    CHECK(!strcmp(sc.fabric.pfc_priorities, "3,4"));
    CHECK(scenario_key_names("failures.recovery_time") == NULL);
    CHECK(scenario_key_names("engine") == &names_engine);
}

SUITE(suite_keytable) = {
    {"keytable_choices_match_the_type", keytable_choices_match_the_type},
    {"keytable_words_read_and_echo", keytable_words_read_and_echo},
    {NULL, NULL},
};
