/* Outputs for other tools: the Prometheus text of --metrics, read back by a
 * small parser of the exposition format written here from its description
 * (not the writer's code), and the pcap files of --pcap. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../src/api/ckpt.h"
#include "../src/pkt/capture.h"
#include "../src/report/internal.h"
#include "harness.h"
#include "support.h"

/* ---- a Prometheus text-format reader ------------------------------------- */

#define PROM_MAX_FAM 128

struct prom_sample {
    char name[96];
    char labels[160]; /* canonical: k="v",k="v" in the order written */
    double value;
};

struct prom {
    struct {
        char name[96], type[16];
        int help, done; /* has HELP; its samples ended (another began) */
    } fam[PROM_MAX_FAM];
    int n_fam;
    struct prom_sample *s;
    int n, cap;
    char err[200];
};

static int is_name_char(int c, int first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
           (!first && c >= '0' && c <= '9');
}

static int prom_fail(struct prom *p, int line, const char *what)
{
    snprintf(p->err, sizeof p->err, "line %d: %s", line, what);
    return -1;
}

static int find_fam(const struct prom *p, const char *name)
{
    for (int i = 0; i < p->n_fam; i++)
        if (!strcmp(p->fam[i].name, name))
            return i;
    return -1;
}

/* Reads a metric name at *s into out; 0 or -1. */
static int read_name(const char **s, char *out, size_t len)
{
    size_t k = 0;
    if (!is_name_char(**s, 1))
        return -1;
    while (is_name_char(**s, 0) && k + 1 < len)
        out[k++] = *(*s)++;
    out[k] = '\0';
    return is_name_char(**s, 0) ? -1 : 0;
}

/* "# HELP name text", "# TYPE name type" or a comment. */
static int prom_meta(struct prom *p, int ln, const char *s, int *cur)
{
    int help = !strncmp(s, "# HELP ", 7), type = !strncmp(s, "# TYPE ", 7);
    if (!help && !type)
        return 0; /* a comment */
    s += 7;
    char name[96];
    if (read_name(&s, name, sizeof name) < 0 || *s != ' ' || !s[1])
        return prom_fail(p, ln, "HELP/TYPE: expected a name, a space and text");
    int f = find_fam(p, name);
    if (f >= 0 && p->fam[f].done)
        return prom_fail(p, ln, "family declared again after its samples");
    if (f < 0) {
        if (p->n_fam == PROM_MAX_FAM)
            return prom_fail(p, ln, "too many families");
        f = p->n_fam++;
        memset(&p->fam[f], 0, sizeof p->fam[f]);
        snprintf(p->fam[f].name, sizeof p->fam[f].name, "%s", name);
    }
    if (*cur >= 0 && *cur != f)
        p->fam[*cur].done = 1;
    *cur = f;
    if (help) {
        if (p->fam[f].help++)
            return prom_fail(p, ln, "second HELP");
        return 0;
    }
    if (p->fam[f].type[0])
        return prom_fail(p, ln, "second TYPE");
    const char *t = s + 1;
    if (strcmp(t, "counter") && strcmp(t, "gauge") && strcmp(t, "untyped") &&
        strcmp(t, "summary") && strcmp(t, "histogram"))
        return prom_fail(p, ln, "unknown TYPE");
    snprintf(p->fam[f].type, sizeof p->fam[f].type, "%s", t);
    return 0;
}

/* name{k="v",...} value */
static int prom_sample_line(struct prom *p, int ln, const char *s, int *cur)
{
    struct prom_sample x;
    memset(&x, 0, sizeof x);
    if (read_name(&s, x.name, sizeof x.name) < 0)
        return prom_fail(p, ln, "bad metric name");
    int f = find_fam(p, x.name);
    if (f < 0 || !p->fam[f].type[0])
        return prom_fail(p, ln, "sample of a family with no TYPE line before it");
    if (p->fam[f].done || (*cur >= 0 && *cur != f))
        return prom_fail(p, ln, "samples of a family are not together");
    *cur = f;
    size_t k = 0;
    if (*s == '{') {
        s++;
        while (*s != '}') {
            char ln_name[64];
            if (read_name(&s, ln_name, sizeof ln_name) < 0 || *s++ != '=' || *s++ != '"')
                return prom_fail(p, ln, "bad label");
            k += (size_t)snprintf(x.labels + k, sizeof x.labels - k, "%s%s=\"",
                                  k ? "," : "", ln_name);
            while (*s != '"') {
                if (!*s)
                    return prom_fail(p, ln, "unterminated label value");
                if (*s == '\\') {
                    s++;
                    if (*s != '\\' && *s != '"' && *s != 'n')
                        return prom_fail(p, ln, "bad escape in a label value");
                }
                if (k + 2 < sizeof x.labels)
                    x.labels[k++] = *s;
                s++;
            }
            s++;
            if (k + 2 < sizeof x.labels)
                x.labels[k++] = '"';
            x.labels[k] = '\0';
            if (*s == ',')
                s++;
            else if (*s != '}')
                return prom_fail(p, ln, "expected , or } after a label");
        }
        s++;
    }
    if (*s++ != ' ')
        return prom_fail(p, ln, "expected a space before the value");
    char *end;
    if (!strcmp(s, "NaN"))
        x.value = NAN;
    else if (!strcmp(s, "+Inf") || !strcmp(s, "-Inf"))
        x.value = s[0] == '+' ? INFINITY : -INFINITY;
    else {
        x.value = strtod(s, &end);
        if (end == s || (*end && *end != ' ')) /* an optional timestamp may follow */
            return prom_fail(p, ln, "bad value");
    }
    if (!strcmp(p->fam[f].type, "counter") &&
        (strlen(x.name) < 6 || strcmp(x.name + strlen(x.name) - 6, "_total")))
        return prom_fail(p, ln, "a counter's name does not end in _total");
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->s[i].name, x.name) && !strcmp(p->s[i].labels, x.labels))
            return prom_fail(p, ln, "duplicate sample");
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 256;
        p->s = realloc(p->s, (size_t)p->cap * sizeof *p->s);
    }
    p->s[p->n++] = x;
    return 0;
}

/* Parse text into p (p->s owned: free it). 0 or -1 with p->err. */
static int prom_parse(struct prom *p, char *text)
{
    memset(p, 0, sizeof *p);
    int ln = 0, cur = -1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        ln++;
        int rc = line[0] == '#' ? prom_meta(p, ln, line, &cur)
                                : prom_sample_line(p, ln, line, &cur);
        if (rc < 0)
            return -1;
    }
    for (int i = 0; i < p->n_fam; i++) {
        if (!p->fam[i].help || !p->fam[i].type[0])
            return prom_fail(p, 0, "a family without HELP or TYPE");
    }
    return 0;
}

/* The value of name{labels} ("" = none); NAN when absent. */
static double prom_get(const struct prom *p, const char *name, const char *labels)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->s[i].name, name) && !strcmp(p->s[i].labels, labels))
            return p->s[i].value;
    return NAN;
}

static int prom_count(const struct prom *p, const char *name)
{
    int c = 0;
    for (int i = 0; i < p->n; i++)
        c += !strcmp(p->s[i].name, name);
    return c;
}

static char *metrics_text(const struct scenario *sc, const struct results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    report_metrics(f, sc, r);
    fclose(f);
    return buf;
}

/* A small incast into one storage node with an ingest buffer: PFC pauses,
 * ECN marks and CNPs all happen. */
static void incast(struct scenario *sc, const char *engine)
{
    struct err e;
    scenario_defaults(sc);
    test_set(sc, "cluster.nodes=16");
    test_set(sc, "workload.bytes_per_writer=2MB");
    test_set(sc, "storage.nodes=1");
    test_set(sc, "storage.drain_rate=200Gbps");
    test_set(sc, "storage.ingest_buffer=2MB");
    test_set(sc, "transport.cc=dcqcn");
    test_set(sc, "telemetry.ports=true");
    test_set(sc, "engine=%s", engine);
    if (scenario_resolve(sc, &e) < 0 || scenario_validate(sc, &e) < 0)
        fprintf(stderr, "  %s\n", e.msg);
}

static void test_prom_parser_rejects(void)
{
    /* the reader can fail: each of these breaks one rule */
    const char *bad[] = {
        "x 1\n",                                            /* no TYPE */
        "# HELP x h\n# TYPE x gauge\nx{a=\"1} 2\n",        /* unterminated */
        "# HELP x h\n# TYPE x counter\nx 2\n",              /* counter w/o _total */
        "# HELP x h\n# TYPE x gauge\nx 1\n# HELP y h\n# TYPE y gauge\ny 1\nx{b=\"2\"} 1\n",
        "# HELP x h\n# TYPE x gauge\nx one\n",              /* value */
        "# HELP x h\n# TYPE x gauge\nx 1\nx 2\n",           /* duplicate */
        "# TYPE x gauge\nx 1\n",                            /* no HELP */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct prom p;
        char *t = strdup(bad[i]);
        CHECKF(prom_parse(&p, t) < 0, "accepted case %zu", i);
        free(p.s);
        free(t);
    }
    struct prom p;
    char *t = strdup("# a comment\n# HELP x_total h\n# TYPE x_total counter\n"
                     "x_total{a=\"q\\\"\"} 3\n");
    CHECKF(prom_parse(&p, t) == 0, "%s", p.err);
    CHECK(prom_get(&p, "x_total", "a=\"q\"\"") == 3);
    free(p.s);
    free(t);
}

static void test_metrics_packet(void)
{
    struct scenario sc;
    struct results r;
    incast(&sc, "packet");
    if (test_run(&sc, &r))
        return;
    CHECK(r.pause_frames > 0 && r.ecn_marked > 0 && r.cnps_sent > 0 && r.ports);
    char *text = metrics_text(&sc, &r);
    /* the storage NIC's link is named as in ports.csv */
    CHECK(strstr(text, "link=\"sleaf0->stor0\",segment=\"storage_nic\"") != NULL);
    struct prom p;
    CHECKF(prom_parse(&p, text) == 0, "%s", p.err);
    CHECK(prom_get(&p, "ckptnet_completion_seconds", "") == r.completion_s);
    CHECK(prom_get(&p, "ckptnet_bound_seconds", "") == r.bound_s);
    CHECK(prom_get(&p, "ckptnet_bound_ratio", "") == r.completion_s / r.bound_s);
    CHECK(prom_get(&p, "ckptnet_gpu_stall_seconds", "") == r.cost.stall_s);
    CHECK(prom_get(&p, "ckptnet_money_per_day", "currency=\"USD\"") == r.cost.money_per_day);
    CHECK(prom_get(&p, "ckptnet_stalled_gpu_seconds_per_day", "") ==
          r.cost.gpu_hours_per_day * 3600);
    CHECK(prom_get(&p, "ckptnet_finished", "") == 1);
    CHECK(prom_get(&p, "ckptnet_pause_frames_total", "") == (double)r.pause_frames);
    CHECK(prom_get(&p, "ckptnet_paused_seconds_total", "") == r.paused_s);
    CHECK(prom_get(&p, "ckptnet_ecn_marked_packets_total", "") == (double)r.ecn_marked);
    CHECK(prom_get(&p, "ckptnet_dropped_packets_total", "") == (double)r.drops);
    CHECK(prom_get(&p, "ckptnet_max_queue_bytes", "") == (double)r.max_queue_bytes);
    CHECK(prom_get(&p, "ckptnet_delivered_bytes_total", "") == (double)r.bytes_delivered);
    char info[128];
    snprintf(info, sizeof info, "engine=\"packet\",bound_limit=\"%s\",cc=\"dcqcn\"",
             path_seg_key(r.bound_limit));
    CHECKF(prom_get(&p, "ckptnet_run_info", info) == 1, "%s", info);
    /* every port in every per-port family, equal to the results */
    const char *fams[] = {"ckptnet_port_transmit_bytes_total",
                          "ckptnet_port_pause_frames_sent_total",
                          "ckptnet_port_pause_frames_received_total",
                          "ckptnet_port_paused_seconds_total", "ckptnet_port_max_queue_bytes",
                          "ckptnet_port_ecn_marked_packets_total",
                          "ckptnet_port_dropped_packets_total"};
    for (size_t k = 0; k < sizeof fams / sizeof fams[0]; k++)
        CHECKF(prom_count(&p, fams[k]) == (int)r.n_ports, "%s: %d of %u ports", fams[k],
               prom_count(&p, fams[k]), r.n_ports);
    uint64_t pauses = 0, ecn = 0;
    int bad = 0;
    for (uint32_t i = 0; i < r.n_ports && !bad; i++) {
        const struct port_result *q = &r.ports[i];
        /* the labels as written: find this port's sample by its port label */
        const struct prom_sample *s = NULL;
        char want[24];
        snprintf(want, sizeof want, "port=\"%u\",", i);
        for (int j = 0; j < p.n && !s; j++)
            if (!strcmp(p.s[j].name, "ckptnet_port_transmit_bytes_total") &&
                !strncmp(p.s[j].labels, want, strlen(want)))
                s = &p.s[j];
        if (!s) {
            bad = 1;
            break;
        }
        const char *lb = s->labels;
        bad |= prom_get(&p, "ckptnet_port_transmit_bytes_total", lb) != (double)q->tx_bytes;
        bad |= prom_get(&p, "ckptnet_port_pause_frames_sent_total", lb) != (double)q->pause_tx;
        bad |= prom_get(&p, "ckptnet_port_pause_frames_received_total", lb) !=
               (double)q->pause_rx;
        bad |= prom_get(&p, "ckptnet_port_paused_seconds_total", lb) != q->paused_s;
        bad |= prom_get(&p, "ckptnet_port_max_queue_bytes", lb) != (double)q->max_queue;
        bad |= prom_get(&p, "ckptnet_port_ecn_marked_packets_total", lb) !=
               (double)q->ecn_marked;
        bad |= prom_get(&p, "ckptnet_port_dropped_packets_total", lb) != (double)q->drops;
        pauses += q->pause_tx;
        ecn += q->ecn_marked;
    }
    CHECKF(!bad, "a per-port sample differs from the results");
    /* ports count marks, the run marked packets (a packet marked twice) */
    CHECK(pauses == r.pause_frames && ecn >= r.ecn_marked);
    free(p.s);
    free(text);
    results_release(&r);
}

static void test_metrics_fluid(void)
{
    struct scenario sc;
    struct results r;
    incast(&sc, "fluid");
    if (test_run(&sc, &r))
        return;
    char *text = metrics_text(&sc, &r);
    CHECK(strstr(text, "# engine fluid: no packets") != NULL);
    struct prom p;
    CHECKF(prom_parse(&p, text) == 0, "%s", p.err);
    CHECK(prom_get(&p, "ckptnet_completion_seconds", "") == r.completion_s);
    CHECK(prom_get(&p, "ckptnet_bound_seconds", "") == r.bound_s);
    CHECK(prom_count(&p, "ckptnet_pause_frames_total") == 0);
    CHECK(prom_count(&p, "ckptnet_port_transmit_bytes_total") == 0);
    char info[128];
    snprintf(info, sizeof info, "engine=\"fluid\",bound_limit=\"%s\"",
             path_seg_key(r.bound_limit));
    CHECKF(prom_get(&p, "ckptnet_run_info", info) == 1, "%s", info);
    free(p.s);
    free(text);
    results_release(&r);
}

/* ---- pcap ------------------------------------------------------------- */

static uint32_t rd32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t rd32(const uint8_t *p)
{
    return rd16(p) << 16 | rd16(p + 2);
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    *len = b ? fread(b, 1, (size_t)n, f) : 0;
    fclose(f);
    return b;
}

/* What a pcap file holds, read here from the format's description. */
struct pcap_stats {
    int header_ok, records_ok, monotone, ipsum_ok, roce_ok, pfc_ok, qp_ok;
    uint32_t frames, data, ce, ect, cnp, ack, nak, pfc, xoff, xon;
    uint32_t opcode_count[256];
    uint64_t first_ns, last_ns;
};

static void pcap_read(const uint8_t *b, size_t len, struct pcap_stats *st)
{
    memset(st, 0, sizeof *st);
    st->header_ok = len >= 24 && rd32le(b) == 0xa1b23c4d && b[4] == 2 && b[5] == 0 &&
                    b[6] == 4 && b[7] == 0 && rd32le(b + 16) >= 65535 && rd32le(b + 20) == 1;
    st->records_ok = st->monotone = st->ipsum_ok = st->roce_ok = st->pfc_ok = st->qp_ok = 1;
    /* per destination QP: next PSN expected, in a write */
    static int32_t next_psn[4096];
    memset(next_psn, -1, sizeof next_psn);
    uint64_t prev = 0;
    size_t off = 24;
    while (st->header_ok && off < len) {
        if (off + 16 > len) {
            st->records_ok = 0;
            break;
        }
        uint64_t ns = (uint64_t)rd32le(b + off) * 1000000000u + rd32le(b + off + 4);
        uint32_t incl = rd32le(b + off + 8), orig = rd32le(b + off + 12);
        const uint8_t *fr = b + off + 16;
        off += 16 + incl;
        if (off > len || incl != orig || rd32le(b + off - incl - 12) >= 1000000000u) {
            st->records_ok = 0;
            break;
        }
        if (st->frames && ns < prev)
            st->monotone = 0;
        if (!st->frames)
            st->first_ns = ns;
        prev = st->last_ns = ns;
        st->frames++;
        uint32_t type = rd16(fr + 12);
        if (type == 0x8808) {
            uint32_t cev = rd16(fr + 16), prio = cev ? (uint32_t)__builtin_ctz(cev) : 8;
            if (orig != 60 || rd16(fr + 14) != 0x0101 || fr[0] != 0x01 || fr[5] != 0x01 ||
                cev == 0 || (cev & (cev - 1)) || prio > 7) {
                st->pfc_ok = 0;
                continue;
            }
            st->pfc++;
            if (rd16(fr + 18 + 2 * prio))
                st->xoff++;
            else
                st->xon++;
            continue;
        }
        const uint8_t *ip = fr + 14, *udp = ip + 20, *bth = udp + 8;
        uint32_t sum = 0;
        for (int i = 0; i < 20; i += 2)
            sum += rd16(ip + i);
        while (sum >> 16)
            sum = (sum & 0xffff) + (sum >> 16);
        if (sum != 0xffff)
            st->ipsum_ok = 0;
        if (type != 0x0800 || ip[0] != 0x45 || ip[9] != 17 || rd16(ip + 2) != orig - 14 ||
            rd16(udp + 2) != 4791 || rd16(udp + 4) != orig - 34 || rd16(bth + 2) != 0xffff) {
            st->roce_ok = 0;
            continue;
        }
        uint8_t op = bth[0];
        uint32_t qp = rd32(bth + 4) & 0xffffff, psn = rd32(bth + 8) & 0xffffff;
        int a = bth[8] >> 7;
        size_t ext = op == 6 || op == 10 ? 16 : op == 17 ? 4 : 0;
        uint32_t pad = (bth[1] >> 4) & 3;
        st->opcode_count[op]++;
        if (op == 0x81) {
            st->cnp++;
            if (orig != 14 + 20 + 8 + 12 + 16 + 4 || (ip[1] & 3))
                st->roce_ok = 0;
            continue;
        }
        if (op == 17) {
            uint8_t syn = bth[12];
            st->ack += syn == 0x1f;
            st->nak += syn == 0x60;
            if (orig != 14 + 20 + 8 + 12 + 4 + 4 || (syn != 0x1f && syn != 0x60))
                st->roce_ok = 0;
            continue;
        }
        if (op != 6 && op != 7 && op != 8 && op != 10) {
            st->roce_ok = 0;
            continue;
        }
        st->data++;
        st->ce += (ip[1] & 3) == 3;
        st->ect += (ip[1] & 3) == 2;
        if (orig < 14 + 20 + 8 + 12 + ext + 4 + pad)
            st->roce_ok = 0;
        /* a write: First (RETH) then Middles then Last with AckReq, PSNs in
         * order; checked on a link without retransmissions */
        if (qp >= 4096) {
            st->qp_ok = 0;
            continue;
        }
        if (op == 6 || op == 10) {
            if (next_psn[qp] >= 0 || rd32(bth + 12 + 12) == 0)
                st->qp_ok = 0;
        } else if (next_psn[qp] != (int32_t)psn) {
            st->qp_ok = 0;
        }
        int ends = op == 8 || op == 10;
        if (a != ends)
            st->qp_ok = 0;
        next_psn[qp] = ends ? -1 : (int32_t)psn + 1;
    }
}

/* A capture of the incast: sleaf0 -> stor0 (the storage NIC, PFC from
 * stor0, CNPs back) and spine0 -> sleaf0, written into a new directory. */
static int capture_run(struct scenario *sc, struct results *r, struct ckpt_capture **cap,
                       char *dir, size_t dlen, unsigned max_packets, struct err *e)
{
    incast(sc, "packet");
    test_set(sc, "telemetry.pcap.ports=sleaf0-stor0, spine0->sleaf0");
    test_set(sc, "telemetry.pcap.max_packets=%u", max_packets);
    snprintf(dir, dlen, "/tmp/ckptnet-pcap-XXXXXX");
    if (!mkdtemp(dir))
        return err_set(e, "mkdtemp failed");
    *cap = ckpt_capture_new();
    if (ckpt_run_capture(sc, r, NULL, *cap, e) < 0)
        return -1;
    return report_pcap(dir, sc, *cap, e);
}

static void remove_dir(const char *dir, const struct ckpt_capture *cap)
{
    char path[512];
    for (uint32_t i = 0; cap && i < cap->n_files; i++) {
        snprintf(path, sizeof path, "%s/%s.pcap", dir, cap->files[i].name);
        unlink(path);
    }
    rmdir(dir);
}

static void test_pcap_files(void)
{
    struct scenario sc;
    struct results r;
    struct ckpt_capture *cap = NULL;
    struct err e = {{0}};
    char dir[64], path[128];
    if (capture_run(&sc, &r, &cap, dir, sizeof dir, 100000, &e) < 0) {
        CHECKF(0, "%s", e.msg);
        ckpt_capture_free(cap);
        return;
    }
    CHECK(cap->n_files == 2 && !strcmp(cap->files[0].name, "sleaf0-stor0") &&
          !strcmp(cap->files[1].name, "spine0-sleaf0"));
    CHECK(cap->files[0].refused == 0 && cap->files[1].refused == 0);
    snprintf(path, sizeof path, "%s/sleaf0-stor0.pcap", dir);
    size_t len = 0;
    uint8_t *b = read_file(path, &len);
    CHECK(b != NULL);
    struct pcap_stats st;
    pcap_read(b ? b : (const uint8_t *)"", len, &st);
    CHECK(st.header_ok && st.records_ok && st.monotone && st.ipsum_ok);
    CHECKF(st.roce_ok && st.pfc_ok && st.qp_ok, "roce %d pfc %d qp %d", st.roce_ok, st.pfc_ok,
           st.qp_ok);
    CHECK(st.frames == cap->files[0].n);
    /* every data packet crosses the storage NIC link once; every mark the
     * fabric made is on it; PFC on it is stor0's */
    CHECKF(st.data == r.data_packets, "%u data frames, %llu packets", st.data,
           (unsigned long long)r.data_packets);
    CHECKF(st.ce == r.ecn_marked && st.ce > 0, "%u CE, %llu marked", st.ce,
           (unsigned long long)r.ecn_marked);
    CHECK(st.ect + st.ce == st.data);
    CHECK(st.cnp == r.cnps_sent && st.cnp > 0);
    CHECKF(st.xoff == r.pause_frames + r.refresh_frames && st.xon == r.resume_frames &&
               st.xoff > 0,
           "xoff %u xon %u", st.xoff, st.xon);
    CHECK(st.opcode_count[6] == 16 && st.opcode_count[8] == 16 && st.opcode_count[7] > 0);
    CHECK(st.last_ns <= (uint64_t)(r.completion_s * 1e9) + 1000);
    free(b);
    /* the other file: data toward sleaf0 only, CE or ECT(0) all */
    snprintf(path, sizeof path, "%s/spine0-sleaf0.pcap", dir);
    b = read_file(path, &len);
    pcap_read(b ? b : (const uint8_t *)"", len, &st);
    CHECK(st.header_ok && st.records_ok && st.monotone && st.roce_ok && st.frames > 0);
    CHECK(st.frames == cap->files[1].n && st.ect + st.ce == st.data);
    free(b);
    remove_dir(dir, cap);
    ckpt_capture_free(cap);
    results_release(&r);
}

/* A capture changes nothing in the run's results; it only keeps PFC
 * refreshes as events (each is written), so the run has as many events or
 * more. */
static void test_pcap_results_identical(void)
{
    struct scenario sc;
    struct results a, b;
    struct ckpt_capture *cap = NULL;
    struct err e = {{0}};
    char dir[64];
    if (capture_run(&sc, &a, &cap, dir, sizeof dir, 100, &e) < 0) {
        CHECKF(0, "%s", e.msg);
        ckpt_capture_free(cap);
        return;
    }
    if (test_run(&sc, &b) == 0) {
        char *ja = test_json(&sc, &a), *jb = test_json(&sc, &b);
        CHECK(ja && jb && strcmp(ja, jb) == 0);
        CHECK(a.events >= b.events && a.completion_s == b.completion_s);
        free(ja);
        free(jb);
        results_release(&b);
    }
    remove_dir(dir, cap);
    ckpt_capture_free(cap);
    results_release(&a);
}

/* A capped file is the uncapped one cut at a moment: its records are the
 * first records of the full capture, and none is missing before its end. */
static void test_pcap_cap_is_prefix(void)
{
    struct scenario sc;
    struct results r1, r2;
    struct ckpt_capture *small = NULL, *big = NULL;
    struct err e = {{0}};
    char d1[64], d2[64];
    if (capture_run(&sc, &r1, &small, d1, sizeof d1, 300, &e) < 0 ||
        capture_run(&sc, &r2, &big, d2, sizeof d2, 100000, &e) < 0) {
        CHECKF(0, "%s", e.msg);
    } else {
        for (uint32_t k = 0; k < 2; k++) {
            const struct cap_file *s = &small->files[k], *g = &big->files[k];
            CHECKF(s->refused > 0 && s->n <= 300 && s->n > 200 && g->n > s->n,
                   "file %u: %u kept, %llu refused, %u in full", k, s->n,
                   (unsigned long long)s->refused, g->n);
            CHECK(memcmp(s->rec, g->rec, (size_t)s->n * sizeof *s->rec) == 0);
            CHECK(s->n == 0 || g->rec[s->n].t_ps >= s->full_t);
        }
        results_release(&r1);
        results_release(&r2);
    }
    remove_dir(d1, small);
    remove_dir(d2, big);
    ckpt_capture_free(small);
    ckpt_capture_free(big);
}

static void expect_capture_error(const char *ports, const char *engine, const char *want)
{
    struct scenario sc;
    struct results r;
    struct err e = {{0}};
    incast(&sc, engine);
    test_set(&sc, "telemetry.pcap.ports=%s", ports);
    struct ckpt_capture *cap = ckpt_capture_new();
    int rc = ckpt_run_capture(&sc, &r, NULL, cap, &e);
    CHECKF(rc < 0 && strstr(e.msg, want), "%s: rc %d, \"%s\"", ports, rc, e.msg);
    if (rc == 0)
        results_release(&r);
    ckpt_capture_free(cap);
}

/* "spine*-sleaf0": every spine's port toward sleaf0, a file each, in port
 * order; together they see every data packet once. */
static void test_pcap_wildcard(void)
{
    struct scenario sc;
    struct results r;
    struct err e = {{0}};
    incast(&sc, "packet");
    test_set(&sc, "telemetry.pcap.ports=spine*-sleaf0#*");
    test_set(&sc, "telemetry.pcap.max_packets=100000");
    struct ckpt_capture *cap = ckpt_capture_new();
    if (ckpt_run_capture(&sc, &r, NULL, cap, &e) < 0) {
        CHECKF(0, "%s", e.msg);
        ckpt_capture_free(cap);
        return;
    }
    CHECKF(cap->n_files == sc.fabric.spines, "%u files for %u spines", cap->n_files,
           sc.fabric.spines);
    uint64_t data = 0;
    for (uint32_t i = 0; i < cap->n_files; i++) {
        char want[32];
        snprintf(want, sizeof want, "spine%u-sleaf0", i);
        CHECKF(!strcmp(cap->files[i].name, want), "%s", cap->files[i].name);
        for (uint32_t k = 0; k < cap->files[i].n; k++)
            data += cap->files[i].rec[k].kind == CAP_DATA &&
                    cap->files[i].rec[k].tx_node == cap->files[i].node;
    }
    CHECKF(data == r.data_packets, "%llu data frames, %llu packets", (unsigned long long)data,
           (unsigned long long)r.data_packets);
    ckpt_capture_free(cap);
    results_release(&r);
}

static void test_pcap_errors(void)
{
    expect_capture_error("spine99-sleaf0", "packet", "telemetry.pcap.ports: no port \"spine99");
    expect_capture_error("sleaf0-stor0,host0-spine0", "packet", "no port \"host0-spine0\"");
    expect_capture_error("spine0-sleaf0#1", "packet", "no port");
    expect_capture_error("sleaf0-stor0,sleaf0->stor0", "packet", "named twice");
    expect_capture_error("none", "packet", "no ports to capture");
    expect_capture_error("spine*-cleaf99", "packet", "no port \"spine*-cleaf99\"");
    expect_capture_error("s*-sleaf0", "packet", "no port");
    expect_capture_error("spine3-sleaf0,spine*-sleaf0", "packet", "named twice");
    expect_capture_error("sleaf0-stor0", "fluid", "fluid engine moves no packets");
}

/* Frame layouts byte by byte: PFC, an ACK, a first write packet. */
static void test_pcap_frame_layout(void)
{
    uint8_t f[PCAP_MAX_HDR];
    size_t hl;
    struct cap_rec r;
    memset(&r, 0, sizeof r);
    r.kind = CAP_PFC;
    r.tx_node = 0x01020304;
    r.prio = 3;
    r.quanta = 0xabcd;
    CHECK(pcap_frame(&r, f, &hl) == 60 && hl == 60);
    static const uint8_t pfc[] = {0x01, 0x80, 0xc2, 0, 0, 0x01, 0x02, 0, 1, 2, 3, 4,
                                  0x88, 0x08, 0x01, 0x01, 0x00, 0x08};
    CHECK(memcmp(f, pfc, sizeof pfc) == 0);
    CHECK(rd16(f + 18 + 6) == 0xabcd && rd16(f + 18) == 0 && rd16(f + 18 + 14) == 0);
    memset(&r, 0, sizeof r);
    r.kind = CAP_ACK;
    r.opcode = BTH_ACK;
    r.syndrome = 0x1f;
    r.msn = 5;
    r.psn = 0x123456;
    r.qpn = 0x101;
    r.ip_src = 9;
    r.ip_dst = 0;
    r.sport = 4242;
    r.tos = 48 << 2;
    CHECK(pcap_frame(&r, f, &hl) == 14 + 20 + 8 + 12 + 4 + 4 && hl == 58);
    CHECK(rd32(f + 26) == 0x0a00000a && rd32(f + 30) == 0x0a000001); /* node + 1 */
    CHECK(rd16(f + 34) == 4242 && rd16(f + 36) == 4791 && rd16(f + 40) == 0);
    CHECK(f[42] == 0x11 && (rd32(f + 46) & 0xffffff) == 0x101 &&
          (rd32(f + 50) & 0xffffff) == 0x123456);
    CHECK(f[54] == 0x1f && (rd32(f + 54) & 0xffffff) == 5);
    memset(&r, 0, sizeof r);
    r.kind = CAP_DATA;
    r.opcode = BTH_WRITE_ONLY;
    r.ackreq = 1;
    r.payload = 1001; /* pad 3 */
    r.va = 0x100000000ull;
    r.dmalen = 1001;
    r.qpn = 0x100;
    r.tos = (26 << 2) | 3;
    CHECK(pcap_frame(&r, f, &hl) == 14 + 20 + 8 + 12 + 16 + 1001 + 3 + 4 && hl == 70);
    CHECK(f[15] == ((26 << 2) | 3) && f[43] == 0x30 && f[50] == 0x80);
    CHECK(rd32(f + 54) == 1 && rd32(f + 58) == 0 && rd32(f + 62) == 0x100 &&
          rd32(f + 66) == 1001);
    memset(&r, 0, sizeof r);
    r.kind = CAP_CNP;
    r.opcode = BTH_CNP;
    r.payload = 16;
    r.qpn = 0xd2;
    CHECK(pcap_frame(&r, f, &hl) == 14 + 20 + 8 + 12 + 16 + 4 && hl == 54);
    static const uint8_t cnp_bth[] = {0x81, 0, 0xff, 0xff, 0x40, 0, 0, 0xd2, 0, 0, 0, 0};
    CHECK(memcmp(f + 42, cnp_bth, sizeof cnp_bth) == 0);
}


/* The restore's figures: simulated with phase both, the bound when phase
 * save estimates it, and none of them with phase restore's missing cost. */
static void test_metrics_restore(void)
{
    for (int both = 0; both < 2; both++) {
        struct scenario sc;
        struct results r;
        scenario_defaults(&sc);
        test_set(&sc, "cluster.nodes=8");
        test_set(&sc, "workload.bytes_per_writer=1MB");
        test_set(&sc, "checkpoint.phase=%s", both ? "both" : "save");
        if (test_run(&sc, &r))
            return;
        char *text = metrics_text(&sc, &r);
        struct prom p;
        CHECKF(prom_parse(&p, text) == 0, "%s", p.err);
        CHECK(r.restore.ran && r.restore.estimated == !both);
        CHECK(prom_get(&p, "ckptnet_restore_seconds", "") == r.restore.completion_s);
        CHECK(prom_get(&p, "ckptnet_restore_bound_seconds", "") == r.restore.bound_s);
        CHECK(prom_get(&p, "ckptnet_restore_simulated", "") == both);
        CHECK(prom_get(&p, "ckptnet_restore_read_bytes", "") == (double)r.restore.bytes_read);
        CHECK(prom_get(&p, "ckptnet_recovery_seconds", "") == r.restore.recovery_s);
        CHECKF(r.restore.recovery_s > r.restore.completion_s && r.restore.bytes_read > 0,
               "recovery %g s, read %llu B", r.restore.recovery_s,
               (unsigned long long)r.restore.bytes_read);
        free(p.s);
        free(text);
        results_release(&r);
    }
}

SUITE(suite_traces) = {
    {"pcap_files", test_pcap_files},
    {"pcap_results_identical", test_pcap_results_identical},
    {"pcap_cap_is_prefix", test_pcap_cap_is_prefix},
    {"pcap_wildcard", test_pcap_wildcard},
    {"pcap_errors", test_pcap_errors},
    {"pcap_frame_layout", test_pcap_frame_layout},
    {"metrics_parser_rejects", test_prom_parser_rejects},
    {"metrics_packet", test_metrics_packet},
    {"metrics_fluid", test_metrics_fluid},
    {"metrics_restore", test_metrics_restore},
    {NULL, NULL},
};
