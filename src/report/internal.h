/* Internal to src/report: number formats (each writes into buf and returns
 * it) and the pieces of the JSON document other files build. */
#ifndef CKPT_REPORT_INTERNAL_H
#define CKPT_REPORT_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "../stats/results.h"

const char *fmt_secs(double s, char *buf, size_t len);   /* "12.35 ms" */
const char *fmt_rate(double bps, char *buf, size_t len); /* "400 Gbps" */
/* Why the GPU -> NIC path set no limit (text and HTML say the same). */
const char *host_unlimited(const struct scenario *sc, const struct results *r, char *buf,
                           size_t len);
const char *fmt_bytes(double b, char *buf, size_t len);  /* "2.048 GB" */
const char *fmt_dur(double s, char *buf, size_t len);    /* "30 min", "3.1 h" */
const char *fmt_num(double v, char *buf, size_t len);    /* 4 digits, no exponent */


/* pcap.c: the snap length of the files (frames are never cut), their magic
 * (nanosecond stamps), and the headers of one frame into buf (PCAP_MAX_HDR
 * bytes): returns the frame's length and sets *hlen to the header bytes
 * written; the rest of the frame (payload, pad, ICRC) is zeros. */
#define PCAP_SNAPLEN 262144
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_MAX_HDR 80
struct cap_rec;
size_t pcap_frame(const struct cap_rec *r, uint8_t *buf, size_t *hlen);

/* The fabric's tiers as built (three tiers or fabric.tiers auto), one line
 * for the summary and describe; nothing otherwise (summary.c). */
void report_clos_line(FILE *out, const struct results *r);
/* Switches per tier and profile, links by speed (summary.c). */
void report_bom_line(FILE *out, const struct scenario *sc, const struct results *r);
/* "capex" line when cost.prices is set; ran: beside the GPU-hours lost */
void report_capex_line(FILE *out, const struct scenario *sc, const struct results *r,
                       int ran);
/* "  storage     placement ...": per-node bytes and their skew, no newline
 * (summary.c; the summary and describe). */
void report_placement(FILE *out, const struct plan_summary *p);
/* The same facts into the JSON document's fabric.* (json.c) */
void report_clos_json(json_t *root, const struct results *r);

/* A path segment's label in r's direction: a restore-only run's figures
 * are the read's, over the mirrored fabric (path_seg_label_io). */
const char *seg_label(const struct results *r, int s);
#define RESULTS_READ(r) ((r)->phase == PHASE_RESTORE)

/* verdict.c: the cause line blames a retransmission timer that fired with
 * nothing lost (the summary's timer line would say it again) */
int verdict_blames_timer(const struct results *r);
/* verdict.c: the retransmission timer in words: "320 us
 * (transport.sack_timeout)", or adaptive, its range and keys; *key (if
 * key) the configured timer's key */
const char *rto_words(const struct scenario *sc, const struct results *r, char *buf,
                      size_t len, const char **key);
/* what transport.sack_timeout auto came to ("15 us + 6 drains of ...,
 * htsim's UEC"), NULL where it is not auto */
const char *rto_auto_words(const struct scenario *sc, char *buf, size_t len);

/* JSON segments[] and bottleneck (verdict.c). */
json_t *segments_json(const struct results *r);
json_t *bottleneck_json(const struct results *r);

#endif
