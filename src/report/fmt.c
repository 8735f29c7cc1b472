/* Number formats the reports share. */
#include "internal.h"

#include <stdio.h>

#include "../topo/path.h"

const char *seg_label(const struct results *r, int s)
{
    return path_seg_label_io(s, RESULTS_READ(r));
}

/* "12.345 ms" style with 4 significant digits. */
const char *fmt_secs(double s, char *buf, size_t len)
{
    const char *u = "s";
    if (s < 1e-6) {
        s *= 1e9;
        u = "ns";
    } else if (s < 1e-3) {
        s *= 1e6;
        u = "us";
    } else if (s < 1.0) {
        s *= 1e3;
        u = "ms";
    }
    snprintf(buf, len, "%.4g %s", s, u);
    return buf;
}

const char *fmt_rate(double bps, char *buf, size_t len)
{
    if (bps >= 1e12)
        snprintf(buf, len, "%.3g Tbps", bps / 1e12);
    else if (bps >= 1e9)
        snprintf(buf, len, "%.3g Gbps", bps / 1e9);
    else
        snprintf(buf, len, "%.3g Mbps", bps / 1e6);
    return buf;
}

const char *fmt_bytes(double b, char *buf, size_t len)
{
    static const char *const u[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    int i = 0;
    while (b >= 1000.0 && i < 5) {
        b /= 1000.0;
        i++;
    }
    snprintf(buf, len, i ? "%.4g %s" : "%.0f %s", b, u[i]);
    return buf;
}

/* "30 min", "3.1 h", "12.3 s": durations a planner reads. */
const char *fmt_dur(double s, char *buf, size_t len)
{
    if (s < 120.0)
        return fmt_secs(s, buf, len);
    if (s < 7200.0)
        snprintf(buf, len, "%.3g min", s / 60.0);
    else if (s < 3 * 86400.0)
        snprintf(buf, len, "%.3g h", s / 3600.0);
    else
        snprintf(buf, len, "%.3g days", s / 86400.0);
    return buf;
}

/* 4 significant digits, but whole numbers from 10000 up (no exponents). */
const char *fmt_num(double v, char *buf, size_t len)
{
    snprintf(buf, len, v >= 1e4 ? "%.0f" : "%.4g", v);
    return buf;
}
