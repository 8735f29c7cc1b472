/* Tests of the correctness pass (valid): each names the defect it guards. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../include/ckptnet.h"
#include "../src/core/units.h"
#include "harness.h"
#include "support.h"

/* ---- helpers ----------------------------------------------------------- */

/* Write text (len bytes) to a new temporary file; path receives its name. */
static int write_temp(char *path, size_t plen, const char *text, size_t len)
{
    snprintf(path, plen, "/tmp/ckptnet-valid-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fd);
    return off == len ? 0 : -1;
}

/* No byte of s is a control character (the message is one clean line). */
static int one_clean_line(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    return 1;
}

/* ---- input caps (item 10) ---------------------------------------------- */

/* /dev/zero used to be read to exhaustion (4.2 GB); now 16 MiB + 1 bytes. */
static void valid_cap_endless_file(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_load_file(&sc, "/dev/zero", &e) == -1);
    CHECKF(strcmp(e.msg, "/dev/zero: larger than 16 MiB, the limit of a scenario file") == 0,
           "%s", e.msg);
}

/* A regular file over the cap is refused by its size, before reading. */
static void valid_cap_large_file(void)
{
    size_t len = (size_t)SCENARIO_MAX_BYTES + 1;
    char *text = malloc(len);
    char path[64];
    CHECK(text != NULL);
    if (!text)
        return;
    memset(text, '#', len); /* a comment: valid YAML of any length */
    text[len - 1] = '\n';
    CHECK(write_temp(path, sizeof path, text, len) == 0);
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_load_file(&sc, path, &e) == -1);
    CHECKF(strstr(e.msg, ": larger than 16 MiB, the limit of a scenario file") != NULL, "%s",
           e.msg);
    /* one byte less is loaded (an empty scenario) */
    CHECK(truncate(path, (off_t)SCENARIO_MAX_BYTES) == 0);
    CHECKF(scenario_load_file(&sc, path, &e) == 0, "%s", e.msg);
    unlink(path);
    free(text);
}

/* 100k-deep flow nesting hung in libyaml's loader; now refused at level 65. */
static void valid_cap_deep_nesting(void)
{
    static const char *const open[] = {"[", "{a: ", "- "};
    for (int k = 0; k < 3; k++) {
        size_t n = 100000, ol = strlen(open[k]);
        char *text = malloc(n * ol + 2);
        CHECK(text != NULL);
        if (!text)
            return;
        for (size_t i = 0; i < n; i++)
            memcpy(text + i * ol, open[k], ol);
        memcpy(text + n * ol, "x", 2);
        struct scenario sc;
        struct err e = {{0}};
        scenario_defaults(&sc);
        CHECK(scenario_load_string(&sc, text, "deep.yaml", &e) == -1);
        CHECKF(strstr(e.msg, "deep.yaml:1:") == e.msg &&
               strstr(e.msg, ": nested deeper than 64 levels") != NULL,
               "%s: %s", open[k], e.msg);
        free(text);
    }
    /* 64 levels are fine (a sequence is then a bad value, not a cap) */
    char text[400] = "seed: ";
    for (int i = 0; i < 63; i++)
        strcat(text, "[");
    for (int i = 0; i < 63; i++)
        strcat(text, "]");
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_load_string(&sc, text, "ok.yaml", &e) == -1);
    CHECKF(strstr(e.msg, "seed: expected a scalar value") != NULL, "%s", e.msg);
}

/* ---- one-line messages, decimal reals (item 11) ------------------------ */

/* A value, a key and a file name with a newline and an ESC sequence: the
 * message escapes them. */
static void valid_escape_control_characters(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_load_string(&sc, "fabric:\n  spines: \"1\\n\\e[31mred\"\n", "s.yaml", &e) ==
          -1);
    CHECKF(strcmp(e.msg, "s.yaml:2:11: fabric.spines: expected a non-negative integer, got "
                         "\"1\\n\\x1b[31mred\"") == 0,
           "%s", e.msg);
    CHECK(scenario_load_string(&sc, "\"fab\\tric\\e\": 1\n", "s.yaml", &e) == -1);
    CHECKF(strncmp(e.msg, "s.yaml:1:1: fab\\tric\\x1b: unknown key", 36) == 0, "%s", e.msg);
    CHECK(scenario_set(&sc, "fabric.mtu=4\r\nKB", &e) == -1);
    CHECKF(one_clean_line(e.msg) && strstr(e.msg, "\"4\\r\\nKB\"") != NULL, "%s", e.msg);
    CHECK(scenario_load_file(&sc, "/nonexistent/a\nb\x1b[2J.yaml", &e) == -1);
    CHECKF(strncmp(e.msg, "cannot open '/nonexistent/a\\nb\\x1b[2J.yaml'", 42) == 0, "%s",
           e.msg);
    /* C1 control (CSI as UTF-8) and DEL */
    CHECK(scenario_set(&sc, "seed=1\xc2\x9b" "2J\x7f", &e) == -1);
    CHECKF(strstr(e.msg, "\"1\\xc2\\x9b2J\\x7f\"") != NULL, "%s", e.msg);
    /* err_set itself, and truncation keeps whole escapes */
    char big[600];
    memset(big, '\n', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    err_set(&e, "%s", big);
    CHECK(one_clean_line(e.msg) && strlen(e.msg) == 510 && strstr(e.msg, "\\n\\n") == e.msg);
}

/* Text values are echoed into reports: control characters are refused. */
static void valid_text_printable(void)
{
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    CHECK(scenario_set(&sc, "fabric.switch=CX\x1b[1m", &e) == -1);
    CHECKF(strcmp(e.msg, "--set: fabric.switch: expected printable text, got \"CX\\x1b[1m\"") ==
               0,
           "%s", e.msg);
    CHECK(scenario_set(&sc, "fabric.failed_link_names=cleaf0-spine1", &e) == 0);
}

/* Reals are decimal: strtod's hex floats, inf and nan are refused. */
static void valid_real_decimal_only(void)
{
    static const char *const bad[] = {"0x1p3", "0X10", "inf", "-inf", "infinity", "nan",
                                      "NAN(1)", "1e", ".", "1.2.3", "1e+", "", " ", "1 ",
                                      "0x0"};
    static const char *const good[] = {"8", "8.", ".5", "0.5", "1e-3", "1E2", "+2", " 3"};
    struct scenario sc;
    struct err e = {{0}};
    scenario_defaults(&sc);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char a[64];
        snprintf(a, sizeof a, "fabric.mmu.alpha=%s", bad[i]);
        CHECKF(scenario_set(&sc, a, &e) == -1 && strstr(e.msg, "expected a decimal number"),
               "%s: %s", bad[i], e.msg);
    }
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char a[64];
        snprintf(a, sizeof a, "fabric.mmu.alpha=%s", good[i]);
        CHECKF(scenario_set(&sc, a, &e) == 0, "%s: %s", good[i], e.msg);
    }
    CHECK(scenario_set(&sc, "fabric.mmu.alpha=0x1p3", &e) == -1);
    CHECKF(strcmp(e.msg, "--set: fabric.mmu.alpha: expected a decimal number like \"0.5\" or "
                         "\"1e-3\", got \"0x1p3\"") == 0,
           "%s", e.msg);
}

SUITE(suite_valid) = {
    {"valid_cap_endless_file", valid_cap_endless_file},
    {"valid_cap_large_file", valid_cap_large_file},
    {"valid_cap_deep_nesting", valid_cap_deep_nesting},
    {"valid_escape_control_characters", valid_escape_control_characters},
    {"valid_text_printable", valid_text_printable},
    {"valid_real_decimal_only", valid_real_decimal_only},
    {NULL, NULL},
};
