/* Tests for units: parsing, exactness, messages, canonical printing. */
#include <inttypes.h>
#include <string.h>

#include "../src/core/rng.h"
#include "../src/core/units.h"
#include "harness.h"

typedef int parse_fn(const char *, uint64_t *, char *, size_t);

/* s parses to want. */
static void ok(parse_fn *fn, const char *s, uint64_t want, int line)
{
    char msg[256] = "";
    uint64_t v = 12345;
    int rc = fn(s, &v, msg, sizeof msg);
    CHECKF(rc == 0 && v == want, "line %d: \"%s\" -> rc %d, %" PRIu64
           " (want %" PRIu64 ") %s", line, s, rc, v, want, msg);
}

/* s is rejected with exactly the message want, and *out is untouched. */
static void bad(parse_fn *fn, const char *s, const char *want, int line)
{
    char msg[256] = "";
    uint64_t v = 12345;
    int rc = fn(s, &v, msg, sizeof msg);
    CHECKF(rc == -1 && v == 12345 && strcmp(msg, want) == 0,
           "line %d: \"%s\" -> rc %d, msg '%s' (want '%s')", line, s, rc,
           msg, want);
}

#define OK(fn, s, want) ok(fn, s, want, __LINE__)
#define BAD(fn, s, want) bad(fn, s, want, __LINE__)

static void units_rate_parse(void)
{
    OK(units_parse_rate, "400Gbps", UINT64_C(400000000000));
    OK(units_parse_rate, "400 Gbps", UINT64_C(400000000000));
    OK(units_parse_rate, "400Gb/s", UINT64_C(400000000000));
    OK(units_parse_rate, "1bps", 1);
    OK(units_parse_rate, "1b/s", 1);
    OK(units_parse_rate, "10Kbps", 10000);
    OK(units_parse_rate, "10kbps", 10000);
    OK(units_parse_rate, "10kb/s", 10000);
    OK(units_parse_rate, "25Mbps", 25000000);
    OK(units_parse_rate, "1.6Tbps", UINT64_C(1600000000000));
    OK(units_parse_rate, "2.5Gbps", 2500000000);
    OK(units_parse_rate, "0", 0);
    OK(units_parse_rate, "0Gbps", 0);
    OK(units_parse_rate, " 100Gbps ", UINT64_C(100000000000));
    OK(units_parse_rate, "0000000000000000000000000100Gbps",
       UINT64_C(100000000000));
}

static void units_size_parse(void)
{
    OK(units_parse_size, "64B", 64);
    OK(units_parse_size, "2MB", 2000000);
    OK(units_parse_size, "2MiB", 2097152);
    OK(units_parse_size, "1KB", 1000);
    OK(units_parse_size, "1kB", 1000);
    OK(units_parse_size, "1KiB", 1024);
    OK(units_parse_size, "70MB", 70000000);
    OK(units_parse_size, "1GB", 1000000000);
    OK(units_parse_size, "1GiB", UINT64_C(1) << 30);
    OK(units_parse_size, "1TB", UINT64_C(1000000000000));
    OK(units_parse_size, "1TiB", UINT64_C(1) << 40);
    OK(units_parse_size, "0.5KiB", 512);
    OK(units_parse_size, "1.5MiB", 1572864);
    OK(units_parse_size, "0.0009765625KiB", 1); /* 1/1024 exactly */
    OK(units_parse_size, "0.0000000000009094947017729282379150390625TiB", 1);
    OK(units_parse_size, "4096B", 4096);
    OK(units_parse_size, "0", 0);
}

static void units_time_parse(void)
{
    OK(units_parse_time, "1us", 1000000);
    OK(units_parse_time, "1\xc2\xb5s", 1000000);
    OK(units_parse_time, "1.5us", 1500000);
    OK(units_parse_time, "83.56ns", 83560);
    OK(units_parse_time, "500ns", 500000);
    OK(units_parse_time, "1ps", 1);
    OK(units_parse_time, "2ms", 2000000000);
    OK(units_parse_time, "1s", PS_PER_S);
    OK(units_parse_time, "1000s", 1000 * PS_PER_S);
    OK(units_parse_time, "0.000000000001s", 1);
    OK(units_parse_time, "1.000000000000000000000000000s", PS_PER_S);
    OK(units_parse_time, "0", 0);
    OK(units_parse_time, "0.0", 0);
    /* minutes and hours, as the summary prints them ("30 min") */
    OK(units_parse_time, "30min", 1800 * PS_PER_S);
    OK(units_parse_time, "30 min", 1800 * PS_PER_S);
    OK(units_parse_time, "1.5h", 5400 * PS_PER_S);
    OK(units_parse_time, "0.25min", 15 * PS_PER_S);
    OK(units_parse_time, "5000h", 5000 * 3600 * PS_PER_S);
}

static void units_bare_numbers(void)
{
    BAD(units_parse_rate, "400",
        "expected a rate with a unit like \"400Gbps\", got \"400\"");
    BAD(units_parse_size, "2",
        "expected a size with a unit like \"2MB\", got \"2\"");
    BAD(units_parse_time, "1",
        "expected a time with a unit like \"1us\", got \"1\"");
    BAD(units_parse_time, "0.5",
        "expected a time with a unit like \"1us\", got \"0.5\"");
}

static void units_rejects(void)
{
    BAD(units_parse_rate, "-1Gbps", "must not be negative, got \"-1Gbps\"");
    BAD(units_parse_time, "-0", "must not be negative, got \"-0\"");
    BAD(units_parse_time, "0.5ps",
        "not a whole number of picoseconds, got \"0.5ps\"");
    BAD(units_parse_size, "1.5B", "not a whole number of bytes, got \"1.5B\"");
    BAD(units_parse_size, "0.1KiB",
        "not a whole number of bytes, got \"0.1KiB\"");
    BAD(units_parse_rate, "0.5bps",
        "not a whole number of bits per second, got \"0.5bps\"");
    BAD(units_parse_rate, "fast",
        "expected a rate like \"400Gbps\", got \"fast\"");
    BAD(units_parse_rate, "", "expected a rate like \"400Gbps\", got \"\"");
    BAD(units_parse_rate, "+1Gbps",
        "expected a rate like \"400Gbps\", got \"+1Gbps\"");
    BAD(units_parse_rate, ".5Gbps",
        "expected a rate like \"400Gbps\", got \".5Gbps\"");
    BAD(units_parse_rate, "1.Gbps",
        "expected a rate like \"400Gbps\", got \"1.Gbps\"");
    BAD(units_parse_rate, "1e9bps",
        "unknown rate unit \"e9bps\" in \"1e9bps\" (use bps, Kbps, Mbps, "
        "Gbps or Tbps; bytes: B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, ...)");
    BAD(units_parse_rate, "400GBps",
        "unknown rate unit \"GBps\" in \"400GBps\" (use bps, Kbps, Mbps, "
        "Gbps or Tbps; bytes: B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, ...)");
    BAD(units_parse_rate, "400Gbps x",
        "unknown rate unit \"Gbps x\" in \"400Gbps x\" (use bps, Kbps, "
        "Mbps, Gbps or Tbps; bytes: B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, ...)");
    BAD(units_parse_size, "2mb",
        "unknown size unit \"mb\" in \"2mb\" (use B, KB, MB, GB, TB, KiB, "
        "MiB, GiB or TiB)");
    BAD(units_parse_size, "2Kib",
        "unknown size unit \"Kib\" in \"2Kib\" (use B, KB, MB, GB, TB, KiB, "
        "MiB, GiB or TiB)");
    BAD(units_parse_time, "1 sec",
        "unknown time unit \"sec\" in \"1 sec\" (use ps, ns, us, ms, s, min or h)");
    BAD(units_parse_time, "1Us",
        "unknown time unit \"Us\" in \"1Us\" (use ps, ns, us, ms, s, min or h)");
}

static void units_overflow(void)
{
    /* 2^64 - 1 = 18446744073709551615 */
    OK(units_parse_size, "18446744073709551615B", UINT64_MAX);
    BAD(units_parse_size, "18446744073709551616B",
        "too large, got \"18446744073709551616B\"");
    OK(units_parse_time, "18446744.073709551615s", UINT64_MAX);
    BAD(units_parse_time, "18446744.073709551616s",
        "too large, got \"18446744.073709551616s\"");
    BAD(units_parse_rate, "18446745Tbps", "too large, got \"18446745Tbps\"");
    BAD(units_parse_size, "16777216TiB", "too large, got \"16777216TiB\"");
    OK(units_parse_size, "16777215TiB", UINT64_C(16777215) << 40);
    BAD(units_parse_rate, "99999999999999999999999Gbps",
        "too large, got \"99999999999999999999999Gbps\"");
}

static void units_uint(void)
{
    OK(units_parse_uint, "0", 0);
    OK(units_parse_uint, "128", 128);
    OK(units_parse_uint, "18446744073709551615", UINT64_MAX);
    BAD(units_parse_uint, "18446744073709551616",
        "too large, got \"18446744073709551616\"");
    BAD(units_parse_uint, "-1", "expected a non-negative integer, got \"-1\"");
    BAD(units_parse_uint, "1.5",
        "expected a non-negative integer, got \"1.5\"");
    BAD(units_parse_uint, "12x", "expected a non-negative integer, got \"12x\"");
    BAD(units_parse_uint, "", "expected a non-negative integer, got \"\"");
    BAD(units_parse_uint, "0x10",
        "expected a non-negative integer, got \"0x10\"");
}

static void units_format(void)
{
    char b[32];
    CHECK(strcmp(units_fmt_rate(UINT64_C(400000000000), b, sizeof b),
                 "400Gbps") == 0);
    CHECK(strcmp(units_fmt_rate(UINT64_C(1600000000000), b, sizeof b),
                 "1600Gbps") == 0);
    CHECK(strcmp(units_fmt_rate(UINT64_C(2000000000000), b, sizeof b),
                 "2Tbps") == 0);
    CHECK(strcmp(units_fmt_rate(2500000000, b, sizeof b), "2500Mbps") == 0);
    CHECK(strcmp(units_fmt_rate(1001, b, sizeof b), "1001bps") == 0);
    CHECK(strcmp(units_fmt_rate(10000, b, sizeof b), "10Kbps") == 0);
    CHECK(strcmp(units_fmt_rate(0, b, sizeof b), "0") == 0);

    CHECK(strcmp(units_fmt_size(70000000, b, sizeof b), "70MB") == 0);
    CHECK(strcmp(units_fmt_size(1048576, b, sizeof b), "1MiB") == 0);
    CHECK(strcmp(units_fmt_size(1024000, b, sizeof b), "1024KB") == 0);
    CHECK(strcmp(units_fmt_size(4096, b, sizeof b), "4KiB") == 0);
    CHECK(strcmp(units_fmt_size(9216, b, sizeof b), "9KiB") == 0);
    CHECK(strcmp(units_fmt_size(1536, b, sizeof b), "1536B") == 0);
    CHECK(strcmp(units_fmt_size(UINT64_C(1) << 40, b, sizeof b), "1TiB") == 0);
    CHECK(strcmp(units_fmt_size(UINT64_C(1000000000000), b, sizeof b),
                 "1TB") == 0);
    CHECK(strcmp(units_fmt_size(64, b, sizeof b), "64B") == 0);
    CHECK(strcmp(units_fmt_size(0, b, sizeof b), "0") == 0);

    CHECK(strcmp(units_fmt_time(1000000, b, sizeof b), "1us") == 0);
    CHECK(strcmp(units_fmt_time(500000, b, sizeof b), "500ns") == 0);
    CHECK(strcmp(units_fmt_time(83560, b, sizeof b), "83560ps") == 0);
    CHECK(strcmp(units_fmt_time(1500000, b, sizeof b), "1500ns") == 0);
    CHECK(strcmp(units_fmt_time(PS_PER_S, b, sizeof b), "1s") == 0);
    CHECK(strcmp(units_fmt_time(0, b, sizeof b), "0") == 0);
    CHECK(strcmp(units_fmt_time(UINT64_MAX, b, sizeof b),
                 "18446744073709551615ps") == 0);

    /* a short buffer truncates but stays a string */
    char s[4];
    CHECK(strcmp(units_fmt_rate(UINT64_C(400000000000), s, sizeof s),
                 "400") == 0);
}

/* Every printed value parses back to itself. */
static void units_round_trip(void)
{
    static const uint64_t vals[] = {
        0, 1, 7, 999, 1000, 1024, 1536, 4096, 9216, 1000000, 1048576,
        70000000, UINT64_C(400000000000), UINT64_C(1) << 40,
        UINT64_C(123456789012345), UINT64_MAX, UINT64_MAX - 1,
        UINT64_C(18446744073709551000), UINT64_C(18446744073709000000),
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char b[32];
        uint64_t v = 0;
        char msg[128];
        units_fmt_rate(vals[i], b, sizeof b);
        CHECKF(units_parse_rate(b, &v, msg, sizeof msg) == 0 && v == vals[i],
               "rate %s", b);
        units_fmt_size(vals[i], b, sizeof b);
        CHECKF(units_parse_size(b, &v, msg, sizeof msg) == 0 && v == vals[i],
               "size %s", b);
        units_fmt_time(vals[i], b, sizeof b);
        CHECKF(units_parse_time(b, &v, msg, sizeof msg) == 0 && v == vals[i],
               "time %s", b);
    }
}

/* Naive reference for ser_ps: long multiplication in base 2^32 limbs (the
 * division's remainder wraps modulo 2^64 on purpose). */
CKPT_WRAPS static uint64_t ser_ps_ref(uint64_t bytes, uint64_t bps)
{
    /* n = bytes * 8e12 as 4 x 32-bit limbs, then schoolbook division. */
    uint64_t m = 8 * PS_PER_S; /* < 2^43 */
    uint32_t a[2] = {(uint32_t)bytes, (uint32_t)(bytes >> 32)};
    uint32_t b[2] = {(uint32_t)m, (uint32_t)(m >> 32)};
    uint64_t limb[4] = {0, 0, 0, 0};
    for (int i = 0; i < 2; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 2; j++) {
            uint64_t t = (uint64_t)a[i] * b[j] + limb[i + j] + carry;
            limb[i + j] = t & 0xffffffffu;
            carry = t >> 32;
        }
        limb[i + 2] += carry;
    }
    /* divide bit by bit */
    uint64_t q_hi = 0, q = 0, r = 0;
    for (int bit = 127; bit >= 0; bit--) {
        int rtop = (int)(r >> 63);
        r = (r << 1) | ((limb[bit / 32] >> (bit % 32)) & 1);
        q_hi = (q_hi << 1) | (q >> 63);
        q <<= 1;
        if (rtop || r >= bps) {
            r -= bps;
            q |= 1;
        }
    }
    if (q_hi)
        return UINT64_MAX;
    if (r && q == UINT64_MAX)
        return UINT64_MAX;
    return q + (r != 0);
}

static void units_ser(void)
{
    CHECK(units_ser_ps(4178, UINT64_C(400000000000)) == 83560);
    CHECK(units_ser_ps(1, UINT64_C(400000000000)) == 20);
    CHECK(units_ser_ps(1, UINT64_C(3000000000)) == 2667); /* 2666.67 up */
    CHECK(units_ser_ps(0, 1) == 0);
    CHECK(units_ser_ps(1, 8) == PS_PER_S);
    CHECK(units_ser_ps(UINT64_C(1) << 40, UINT64_C(100000000000000)) ==
          UINT64_C(87960930223)); /* 2^40 * 8e12 / 1e14 = 87960930222.08 */
    CHECK(units_ser_ps(UINT64_C(1000000000000), 1) == UINT64_MAX);
    CHECK(units_ser_ps(1, 0) == UINT64_MAX);

    static const uint64_t sizes[] = {1, 64, 4096, 4178, 9216, 16000000,
                                     UINT64_C(1) << 40, UINT64_C(999999999999),
                                     UINT64_C(1) << 62,
                                     /* the 64-bit division's last size and the first past it */
                                     UINT64_MAX / (8 * PS_PER_S), UINT64_MAX / (8 * PS_PER_S) + 1};
    static const uint64_t rates[] = {1, 7, 1000, 3000000000,
                                     UINT64_C(400000000000),
                                     UINT64_C(100000000000000), UINT64_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t j = 0; j < sizeof rates / sizeof rates[0]; j++)
            CHECKF(units_ser_ps(sizes[i], rates[j]) ==
                       ser_ps_ref(sizes[i], rates[j]),
                   "%" PRIu64 " B at %" PRIu64 " bps: %" PRIu64 " vs %" PRIu64,
                   sizes[i], rates[j], units_ser_ps(sizes[i], rates[j]),
                   ser_ps_ref(sizes[i], rates[j]));
}

static void units_msg_optional(void)
{
    uint64_t v = 0;
    CHECK(units_parse_rate("fast", &v, NULL, 0) == -1);
    char tiny[8];
    CHECK(units_parse_rate("fast", &v, tiny, sizeof tiny) == -1);
    CHECK(strlen(tiny) == sizeof tiny - 1);
}

/* The docs say decimal: hex, inf, nan and exponents are refused in every
 * unit parser, and the message echoing them stays one line. */
static void units_decimal_only_one_line(void)
{
    static const char *const bad[] = {"0x10Gbps", "0x1p3s", "infGbps", "nanGbps", "1e3Gbps",
                                      "+5Gbps", "INFs", "1e-3s"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 0;
        char m[160];
        CHECKF(units_parse_rate(bad[i], &v, m, sizeof m) == -1 &&
                   units_parse_time(bad[i], &v, m, sizeof m) == -1 &&
                   units_parse_size(bad[i], &v, m, sizeof m) == -1,
               "%s", bad[i]);
        CHECK(units_parse_uint(bad[i], &v, m, sizeof m) == -1);
    }
    uint64_t v = 0;
    char m[160];
    CHECK(units_parse_rate("5\nGb\x1bps", &v, m, sizeof m) == -1);
    CHECKF(strcmp(m, "unknown rate unit \"\\nGb\\x1bps\" in \"5\\nGb\\x1bps\" (use bps, "
                     "Kbps, Mbps, Gbps or Tbps; bytes: B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, ...)") == 0,
           "%s", m);
}

SUITE(suite_units) = {
    {"units_rate_parse", units_rate_parse},
    {"units_size_parse", units_size_parse},
    {"units_time_parse", units_time_parse},
    {"units_bare_numbers", units_bare_numbers},
    {"units_rejects", units_rejects},
    {"units_overflow", units_overflow},
    {"units_uint", units_uint},
    {"units_format", units_format},
    {"units_round_trip", units_round_trip},
    {"units_ser", units_ser},
    {"units_msg_optional", units_msg_optional},
    {"units_decimal_only_one_line", units_decimal_only_one_line},
    {0},
};
