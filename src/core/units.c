/* Units: exact integer parsing and printing of rates, sizes and times.
 *
 * A value is parsed as an integer part and a fraction, both digit strings,
 * then scaled by the unit's multiplier with uint64 arithmetic only: the
 * integer part is multiplied with an overflow check, the fraction is folded
 * in from its last digit (see frac_scale), which detects values that are not
 * a whole number of base units without any floating point. */
#include "units.h"

#include "err.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct unit {
    const char *name;
    uint64_t mult;
};

/* What one kind of quantity looks like: its units, and the words its
 * messages use. The first unit of each table is the base unit. */
struct qty {
    const char *what;      /* "rate" */
    const char *example;   /* "400Gbps" */
    const char *base;      /* "bits per second", for 'not a whole number' */
    const char *unit_list; /* the units named in 'unknown unit' */
    const struct unit *units;
};

#define K UINT64_C(1000)
#define M (K * K)
#define G (M * K)
#define T (G * K)
#define KI (UINT64_C(1) << 10)
#define MI (UINT64_C(1) << 20)
#define GI (UINT64_C(1) << 30)
#define TI (UINT64_C(1) << 40)

/* Bits, then bytes per second from RATE_BYTE_UNITS on (units_parse_rate_unit
 * reports which of those a value was written in, for the echo). */
static const struct unit rate_units[] = {
    {"bps", 1},      {"b/s", 1},      {"Kbps", K},     {"kbps", K},
    {"Kb/s", K},     {"kb/s", K},     {"Mbps", M},     {"Mb/s", M},
    {"Gbps", G},     {"Gb/s", G},     {"Tbps", T},     {"Tb/s", T},
    {"B/s", 8},      {"KB/s", 8 * K}, {"kB/s", 8 * K}, {"MB/s", 8 * M},
    {"GB/s", 8 * G}, {"TB/s", 8 * T}, {"KiB/s", 8 * KI}, {"MiB/s", 8 * MI},
    {"GiB/s", 8 * GI}, {"TiB/s", 8 * TI},
    {NULL, 0},
};
#define RATE_BYTE_UNITS 12
#define RATE_UNITS (sizeof rate_units / sizeof rate_units[0] - 1)

static const struct unit size_units[] = {
    {"B", 1},     {"KB", K},     {"kB", K},     {"MB", M},
    {"GB", G},    {"TB", T},     {"KiB", KI},   {"MiB", MI},
    {"GiB", GI},  {"TiB", TI},   {NULL, 0},
};

static const struct unit time_units[] = {
    {"ps", 1},
    {"ns", K},
    {"us", M},
    {"\xc2\xb5s", M}, /* MICRO SIGN */
    {"\xce\xbcs", M}, /* GREEK SMALL LETTER MU */
    {"ms", G},
    {"s", T},
    {"min", 60 * T},
    {"h", 3600 * T},
    {NULL, 0},
};

static const struct qty rate_qty = {
    "rate", "400Gbps", "bits per second",
    "bps, Kbps, Mbps, Gbps or Tbps; bytes: B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, ...",
    rate_units,
};
static const struct qty size_qty = {
    "size", "2MB", "bytes", "B, KB, MB, GB, TB, KiB, MiB, GiB or TiB",
    size_units,
};
static const struct qty time_qty = {
    "time", "1us", "picoseconds", "ps, ns, us, ms, s, min or h", time_units,
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Format msg (when there is room) and return -1. The message echoes the
 * input, so control characters in it are escaped (one line, nothing raw
 * reaches a terminal). */
static int fail(char *msg, size_t msglen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *msg, size_t msglen, const char *fmt, ...)
{
    if (msg && msglen) {
        char raw[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        err_escape(msg, msglen, raw);
    }
    return -1;
}

/* mult * 0.<digits in [fs, fe)> when that is a whole number; -1 otherwise.
 * Folding digits in from the last one, y = (mult * d + y) / 10 at each step,
 * yields mult * (suffix as a fraction). If the full value is whole, every
 * suffix value is whole too (10^n divides mult * F, so it divides
 * mult * (F mod 10^n)), hence a remainder at any step means "not whole".
 * y < mult throughout and mult <= 3.6e15 (an hour in ps), so
 * 10 * mult stays far below 2^64. */
static int frac_scale(const char *fs, const char *fe, uint64_t mult,
                      uint64_t *out)
{
    uint64_t y = 0;
    for (const char *p = fe; p > fs; p--) {
        uint64_t t = mult * (uint64_t)(p[-1] - '0') + y;
        if (t % 10)
            return -1;
        y = t / 10;
    }
    *out = y;
    return 0;
}

/* Parse "<digits>[.<digits>][blanks]<unit>" (surrounding blanks allowed)
 * into base units of q; *unit (when not NULL) = the unit's index in q's
 * table, -1 for a bare 0. */
static int parse_qty(const struct qty *q, const char *s, uint64_t *out, int *unit,
                     char *msg, size_t msglen)
{
    if (unit)
        *unit = -1;
    const char *p = s;
    while (is_blank(*p))
        p++;
    if (*p == '-')
        return fail(msg, msglen, "must not be negative, got \"%.64s\"", s);
    if (!is_digit(*p))
        goto garbage;

    uint64_t ip = 0;
    int over = 0;
    for (; is_digit(*p); p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (ip > (UINT64_MAX - d) / 10)
            over = 1;
        else
            ip = ip * 10 + d;
    }
    const char *fs = p, *fe = p;
    if (*p == '.') {
        fs = ++p;
        while (is_digit(*p))
            p++;
        fe = p;
        if (fe == fs)
            goto garbage;
    }
    while (is_blank(*p))
        p++;
    const char *us = p;
    const char *ue = us + strlen(us);
    while (ue > us && is_blank(ue[-1]))
        ue--;
    size_t ulen = (size_t)(ue - us);

    int frac_zero = 1;
    for (const char *f = fs; f < fe; f++)
        if (*f != '0')
            frac_zero = 0;

    if (ulen == 0) {
        if (!over && ip == 0 && frac_zero) {
            *out = 0;
            return 0;
        }
        return fail(msg, msglen,
                    "expected a %s with a unit like \"%s\", got \"%.64s\"",
                    q->what, q->example, s);
    }

    const struct unit *u = q->units;
    while (u->name && !(strlen(u->name) == ulen &&
                        memcmp(u->name, us, ulen) == 0))
        u++;
    if (!u->name)
        return fail(msg, msglen, "unknown %s unit \"%.*s\" in \"%.64s\" (use %s)",
                    q->what, (int)(ulen > 32 ? 32 : ulen), us, s,
                    q->unit_list);

    uint64_t fv;
    if (frac_scale(fs, fe, u->mult, &fv) < 0)
        return fail(msg, msglen, "not a whole number of %s, got \"%.64s\"",
                    q->base, s);
    if (over || ip > (UINT64_MAX - fv) / u->mult)
        return fail(msg, msglen, "too large, got \"%.64s\"", s);
    *out = ip * u->mult + fv;
    if (unit)
        *unit = (int)(u - q->units);
    return 0;

garbage:
    return fail(msg, msglen, "expected a %s like \"%s\", got \"%.64s\"",
                q->what, q->example, s);
}

int units_parse_rate(const char *s, uint64_t *bps, char *msg, size_t msglen)
{
    return parse_qty(&rate_qty, s, bps, NULL, msg, msglen);
}

int units_parse_rate_unit(const char *s, uint64_t *bps, unsigned *unit, char *msg,
                          size_t msglen)
{
    int u;
    if (parse_qty(&rate_qty, s, bps, &u, msg, msglen) < 0)
        return -1;
    *unit = u >= RATE_BYTE_UNITS ? (unsigned)(u - RATE_BYTE_UNITS + 1) : 0;
    return 0;
}

int units_parse_size(const char *s, uint64_t *bytes, char *msg, size_t msglen)
{
    return parse_qty(&size_qty, s, bytes, NULL, msg, msglen);
}

int units_parse_time(const char *s, uint64_t *ps, char *msg, size_t msglen)
{
    return parse_qty(&time_qty, s, ps, NULL, msg, msglen);
}

int units_parse_uint(const char *s, uint64_t *v, char *msg, size_t msglen)
{
    const char *p = s;
    while (is_blank(*p))
        p++;
    if (!is_digit(*p))
        goto bad;
    uint64_t x = 0;
    int over = 0;
    for (; is_digit(*p); p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            over = 1;
        else
            x = x * 10 + d;
    }
    while (is_blank(*p))
        p++;
    if (*p)
        goto bad;
    if (over)
        return fail(msg, msglen, "too large, got \"%.64s\"", s);
    *v = x;
    return 0;
bad:
    return fail(msg, msglen, "expected a non-negative integer, got \"%.64s\"",
                s);
}

/* Print v in the first unit of `units` (largest first) that divides it. */
static char *fmt_in(uint64_t v, const struct unit *units, size_t n,
                    char *buf, size_t len)
{
    if (!len)
        return buf;
    if (v == 0) {
        snprintf(buf, len, "0");
        return buf;
    }
    for (size_t i = 0; i < n; i++) {
        if (v % units[i].mult == 0) {
            snprintf(buf, len, "%" PRIu64 "%s", v / units[i].mult,
                     units[i].name);
            return buf;
        }
    }
    return buf; /* not reached: the last unit has mult 1 */
}

char *units_fmt_rate(uint64_t bps, char *buf, size_t len)
{
    static const struct unit u[] = {
        {"Tbps", T}, {"Gbps", G}, {"Mbps", M}, {"Kbps", K}, {"bps", 1},
    };
    return fmt_in(bps, u, sizeof u / sizeof u[0], buf, len);
}

char *units_fmt_rate_unit(uint64_t bps, unsigned unit, char *buf, size_t len)
{
    if (!unit || unit > RATE_UNITS - RATE_BYTE_UNITS || !len || !bps)
        return units_fmt_rate(bps, buf, len);
    const struct unit *u = &rate_units[RATE_BYTE_UNITS + unit - 1];
    /* mult is 8 x 2^a x 5^b: every value is a finite decimal in it, of at
     * most 43 fraction digits; rem x 10 < 2^47 */
    char frac[48];
    size_t n = 0;
    for (uint64_t rem = bps % u->mult; rem && n < sizeof frac - 1; rem %= u->mult) {
        rem *= 10;
        frac[n++] = (char)('0' + rem / u->mult);
    }
    frac[n] = '\0';
    snprintf(buf, len, "%" PRIu64 "%s%s%s", bps / u->mult, n ? "." : "", frac, u->name);
    return buf;
}

char *units_fmt_size(uint64_t bytes, char *buf, size_t len)
{
    static const struct unit dec[] = {
        {"TB", T}, {"GB", G}, {"MB", M}, {"KB", K},
    };
    static const struct unit bin[] = {
        {"TiB", TI}, {"GiB", GI}, {"MiB", MI}, {"KiB", KI}, {"B", 1},
    };
    if (len && bytes && bytes % K == 0)
        return fmt_in(bytes, dec, sizeof dec / sizeof dec[0], buf, len);
    return fmt_in(bytes, bin, sizeof bin / sizeof bin[0], buf, len);
}

char *units_fmt_time(uint64_t ps, char *buf, size_t len)
{
    static const struct unit u[] = {
        {"s", T}, {"ms", G}, {"us", M}, {"ns", K}, {"ps", 1},
    };
    return fmt_in(ps, u, sizeof u / sizeof u[0], buf, len);
}

uint64_t units_ser_ps(uint64_t bytes, uint64_t bps)
{
    __extension__ typedef unsigned __int128 u128;
    if (bps == 0)
        return bytes ? UINT64_MAX : 0;
    if (bytes <= UINT64_MAX / (8u * PS_PER_S)) { /* below 2.3 MB: a 64-bit division */
        uint64_t m = bytes * 8u * PS_PER_S;
        return m / bps + (m % bps != 0);
    }
    /* bytes * 8 * 10^12 < 2^64 * 2^3 * 2^40 = 2^107: fits in 128 bits. */
    u128 n = (u128)bytes * 8u * PS_PER_S;
    u128 q = n / bps + (n % bps != 0);
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}
