/* Outputs for other tools: the Prometheus text of --metrics, read back by a
 * small parser of the exposition format written here from its description
 * (not the writer's code), and the pcap files of --pcap. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/ckptnet.h"
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
    CHECK(prom_get(&p, "ckptnet_money_per_day", "") == r.cost.money_per_day);
    CHECK(prom_get(&p, "ckptnet_finished", "") == 1);
    CHECK(prom_get(&p, "ckptnet_pause_frames_total", "") == (double)r.pause_frames);
    CHECK(prom_get(&p, "ckptnet_paused_seconds_total", "") == r.paused_s);
    CHECK(prom_get(&p, "ckptnet_ecn_marked_packets_total", "") == (double)r.ecn_marked);
    CHECK(prom_get(&p, "ckptnet_dropped_packets_total", "") == (double)r.drops);
    CHECK(prom_get(&p, "ckptnet_max_queue_bytes", "") == (double)r.max_queue_bytes);
    CHECK(prom_get(&p, "ckptnet_delivered_bytes_total", "") == (double)r.bytes_delivered);
    char info[128];
    snprintf(info, sizeof info, "engine=\"packet\",bound_limit=\"%s\",cc=\"dcqcn\"",
             bound_limit_name(r.bound_limit));
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
             bound_limit_name(r.bound_limit));
    CHECKF(prom_get(&p, "ckptnet_run_info", info) == 1, "%s", info);
    free(p.s);
    free(text);
    results_release(&r);
}

SUITE(suite_traces) = {
    {"metrics_parser_rejects", test_prom_parser_rejects},
    {"metrics_packet", test_metrics_packet},
    {"metrics_fluid", test_metrics_fluid},
    {NULL, NULL},
};
