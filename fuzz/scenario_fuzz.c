/* libFuzzer target for the scenario loader (make fuzz; fuzz/README.md).
 *
 * The input is a scenario file (its first line also serves as a --set
 * assignment). Loading it must never crash, hang or leak,
 * and any error must be one clean line. A scenario that loads and validates
 * must also echo canonically (its echo, applied with --set to the defaults,
 * echoes the same) and, when small enough to build quickly, be described
 * (topology, workload, bound) without error other than a one-line refusal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/api/ckpt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A message is NUL-terminated, non-empty and free of control bytes. */
static void check_msg(const struct err *e)
{
    if (!memchr(e->msg, '\0', sizeof e->msg) || !e->msg[0])
        abort();
    for (const unsigned char *p = (const unsigned char *)e->msg; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            abort();
}

struct echo {
    char *buf;
    size_t len, cap;
};

static void collect(void *ud, const char *key, const char *value, int kind)
{
    struct echo *x = ud;
    (void)kind;
    size_t need = strlen(key) + strlen(value) + 2;
    if (x->len + need + 1 > x->cap) {
        size_t cap = (x->cap + need) * 2;
        char *nb = realloc(x->buf, cap);
        if (!nb)
            abort();
        x->buf = nb;
        x->cap = cap;
    }
    x->len += (size_t)snprintf(x->buf + x->len, x->cap - x->len, "%s=%s\n", key, value);
}

/* The echo of sc, applied with scenario_set to the defaults, echoes the same. */
static void check_echo(const struct scenario *sc)
{
    struct echo a = {0}, b = {0};
    scenario_echo(sc, collect, &a);
    struct scenario sc2;
    struct err e;
    scenario_defaults(&sc2);
    for (char *line = a.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        *nl = '\0';
        if (scenario_set(&sc2, line, &e) < 0)
            abort(); /* an echoed value does not load back */
        *nl = '\n';
        line = nl + 1;
    }
    scenario_echo(&sc2, collect, &b);
    if (a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0)
        abort(); /* not canonical */
    free(a.buf);
    free(b.buf);
}

/* Small enough to describe within the fuzzer's time and memory limits. */
static int small(const struct scenario *sc)
{
    uint64_t hosts = (uint64_t)sc->cluster.nodes * sc->cluster.nics_per_node;
    return hosts <= 2048 && sc->storage.nodes <= 512 && sc->fabric.spines <= 64 &&
           sc->fabric.links_per_spine <= 4 && sc->transport.qps_per_writer <= 8 &&
           (uint64_t)sc->cluster.nodes * sc->cluster.gpus_per_node <= 16384 &&
           sc->workload.bytes_per_writer / sc->storage.stripe_size <= 4096 &&
           sc->checkpoint.rank_state_bytes / sc->storage.stripe_size <= 4096;
}

/* The first line of the input as a --set assignment. */
static void check_set(const uint8_t *data, size_t size)
{
    char line[256];
    size_t n = 0;
    while (n < size && n < sizeof line - 1 && data[n] != '\n' && data[n] != '\0') {
        line[n] = (char)data[n];
        n++;
    }
    line[n] = '\0';
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    if (scenario_set(&sc, line, &e) < 0)
        check_msg(&e);
    else if (scenario_validate(&sc, &e) < 0)
        check_msg(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct scenario sc;
    struct err e = {{0}};
    check_set(data, size);
    scenario_defaults(&sc);
    if (scenario_load_buffer(&sc, (const char *)data, size, "fuzz.yaml", &e) < 0) {
        check_msg(&e);
        return 0;
    }
    if (scenario_validate(&sc, &e) < 0) {
        check_msg(&e);
        return 0;
    }
    check_echo(&sc);
    if (small(&sc)) {
        struct ckpt_description d;
        if (ckpt_describe(&sc, &d, &e) < 0)
            check_msg(&e);
    }
    return 0;
}
