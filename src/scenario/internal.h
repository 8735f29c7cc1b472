/* What the scenario files share (keys.c, load.c, validate.c); not part
 * of scenario.h's surface. */
#ifndef CKPT_SCENARIO_INTERNAL_H
#define CKPT_SCENARIO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

enum ktype { T_UINT, T_COUNT, T_RATE, T_SIZE, T_TIME, T_BOOL, T_REAL, T_ENUM,
             T_TEXT };

struct key {
    const char *name;  /* dotted, "fabric.spines" */
    enum ktype type;
    size_t off;        /* offsetof(struct scenario, field) */
    size_t width;      /* sizeof field: 4 or 8 (bool: sizeof(int)) */
    const char *def;   /* default, parsed like user input */
    const char *min;   /* inclusive lower limit as text, NULL = none */
    const char *max;   /* inclusive upper limit as text, NULL = none */
    const char *doc;
    /* T_ENUM only: its names table (names.h), stored as the index (int) */
    const struct names *names;
    /* T_TIME: a word also taken, stored as UINT64_MAX; T_TEXT: LIST = a
     * comma list, also as a YAML sequence; others: NULL */
    const char *word;
};

#define LIST "list"
#define PATH_MAX_LEN 128

/* The key table, in the order of set_mask's bits and pos[] */
extern const struct key scn_keys[];
extern const size_t scn_nkeys;
#define NKEYS scn_nkeys
extern const char *const scn_type_names[];

/* Key i's bit in a per-key mask (set_mask, opt_mask), and setting it. */
static inline int scn_bit(const uint64_t *mask, size_t i)
{
    return (int)((mask[i / 64] >> (i % 64)) & 1);
}

static inline void scn_bit_put(uint64_t *mask, size_t i, int on)
{
    if (on)
        mask[i / 64] |= UINT64_C(1) << (i % 64);
    else
        mask[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

const struct key *scn_key_find(const char *name, size_t len);
const struct key *scn_section_key(const char *name, size_t len);
void scn_suggest(const char *name, char *out, size_t len);
const char *scn_option_of(const char *key);
int scn_by_option(const struct scenario *sc, const struct key *k);

#endif
