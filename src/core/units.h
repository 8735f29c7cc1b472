/* Units: parse and print quantities with units.
 *
 * Internal units are integers: rates in bits/s, sizes in bytes, times in
 * picoseconds. SI prefixes are decimal (K=10^3, M=10^6, G=10^9, T=10^12),
 * IEC prefixes binary (Ki=2^10, Mi=2^20, Gi=2^30, Ti=2^40). A value is a
 * decimal number (fraction allowed) immediately or space-followed by a unit;
 * the result must be a whole number of internal units and fit in uint64.
 * A bare "0" needs no unit; any other bare number is rejected.
 *
 *   rates: bps Kbps Mbps Gbps Tbps (also b/s Kb/s Mb/s Gb/s Tb/s); bytes
 *          per second B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s
 *   sizes: B KB MB GB TB KiB MiB GiB TiB (also kB)
 *   times: ps ns us ms s min h (also µs); printed in s at most
 *
 * On error the parsers return -1 and write a message of the form
 * 'expected a rate like "400Gbps", got "fast"' into msg (size msglen).
 */
#ifndef CKPT_UNITS_H
#define CKPT_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define PS_PER_S UINT64_C(1000000000000)
/* The simulator clock is a uint64 count of picoseconds (about 213 days); a
 * run whose ideal duration passes a quarter of it is refused before it
 * starts (validation, planning, the bound's terms and time limit). */
#define CLOCK_LIMIT_PS (UINT64_MAX / 4)

int units_parse_rate(const char *s, uint64_t *bps, char *msg, size_t msglen);
/* The same, and *unit = the bytes-per-second unit the text was written in
 * (1.. for B/s, KB/s, ... GiB/s, TiB/s), 0 for bits or a bare 0. */
int units_parse_rate_unit(const char *s, uint64_t *bps, unsigned *unit, char *msg,
                          size_t msglen);
int units_parse_size(const char *s, uint64_t *bytes, char *msg, size_t msglen);
int units_parse_time(const char *s, uint64_t *ps, char *msg, size_t msglen);
/* Plain non-negative integer, no unit (counts, seeds). */
int units_parse_uint(const char *s, uint64_t *v, char *msg, size_t msglen);

/* Canonical text: the largest unit that represents the value exactly,
 * e.g. 400000000000 bps -> "400Gbps", 70000000 B -> "70MB",
 * 1048576 B -> "1MiB", 1000000 ps -> "1us", 0 -> "0". Returns buf. */
char *units_fmt_rate(uint64_t bps, char *buf, size_t len);
/* bps in the bytes-per-second unit of units_parse_rate_unit, with as many
 * decimals as it takes ("2.5GiB/s"); unit 0: units_fmt_rate. */
char *units_fmt_rate_unit(uint64_t bps, unsigned unit, char *buf, size_t len);
char *units_fmt_size(uint64_t bytes, char *buf, size_t len);
char *units_fmt_time(uint64_t ps, char *buf, size_t len);

/* Serialisation time of `bytes` at `bps`, in ps, rounded up; exact for any
 * uint64 inputs. Saturates at UINT64_MAX (also for bps == 0, bytes > 0). */
uint64_t units_ser_ps(uint64_t bytes, uint64_t bps);

#endif
