/* Packet capture at named ports: name resolution, buffers, and the end of
 * a run (capture.h). The recording itself is in capture_packet and
 * capture_pfc (pnet.h), called by port.c and pfc.c. */
#include "capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pnet.h"

const char *capture_node_name(const struct topo *t, uint32_t node, char *buf, unsigned len)
{
    return topo_node_name(t, node, buf, len); /* an imported fabric's own names */
}

/* Does node's name match pat: "spine3" exactly, or "spine*" (any spine)? */
static int node_match(const struct topo *t, uint32_t node, const char *pat, size_t len)
{
    char nm[208]; /* an imported name: up to 200 */
    size_t nl = strlen(capture_node_name(t, node, nm, sizeof nm));
    if (len && pat[len - 1] == '*') {
        size_t w = len - 1;
        if (nl <= w || strncmp(nm, pat, w))
            return 0;
        for (size_t i = w; i < nl; i++)
            if (nm[i] < '0' || nm[i] > '9')
                return 0; /* "s*" is no kind of node */
        return 1;
    }
    return nl == len && !strncmp(nm, pat, len);
}

/* Parallel links from p's node to p's peer node before p (0 = the first). */
static uint32_t parallel_index(const struct topo *t, uint32_t p)
{
    uint32_t j = 0, peer = t->ports[t->ports[p].peer].node;
    for (uint32_t q = t->nodes[t->ports[p].node].first_port; q < p; q++)
        j += t->ports[t->ports[q].peer].node == peer;
    return j;
}

/* Mark in c->slot (with mark) every port that one name matches: "a-b" or
 * "a->b" is node a's port toward node b, "#j" the j-th parallel link (from
 * 0; "#*" all), a node "spine*" any spine. Returns the ports marked, or -1
 * when a port is marked already (named twice) or the name is malformed. */
static int64_t mark_ports(struct ckpt_capture *c, const struct topo *t, const char *s,
                          size_t len, int32_t mark)
{
    /* "a->b" splits at the arrow (names of an imported fabric may hold a
     * dash), "a-b" at the first dash */
    const char *dash = NULL;
    for (size_t i = 0; i + 1 < len && !dash; i++)
        if (s[i] == '-' && s[i + 1] == '>')
            dash = s + i;
    if (!dash)
        dash = memchr(s, '-', len);
    if (!dash)
        return 0;
    size_t alen = (size_t)(dash - s);
    const char *b = dash + 1 + (dash + 1 < s + len && dash[1] == '>');
    const char *hash = memchr(b, '#', (size_t)(s + len - b));
    size_t blen = (size_t)((hash ? hash : s + len) - b);
    int64_t j = 0; /* -1: every parallel link */
    if (hash && hash + 2 == s + len && hash[1] == '*') {
        j = -1;
    } else if (hash) {
        if (hash + 1 == s + len)
            return 0;
        for (const char *q = hash + 1; q < s + len; q++) {
            if (*q < '0' || *q > '9' || j > 100000)
                return 0;
            j = j * 10 + (*q - '0');
        }
    }
    int64_t n = 0;
    for (uint32_t p = 0; p < t->n_ports; p++) {
        if (!node_match(t, t->ports[p].node, s, alen) ||
            !node_match(t, t->ports[t->ports[p].peer].node, b, blen) ||
            (j >= 0 && parallel_index(t, p) != (uint32_t)j))
            continue;
        if (c->slot[p] != -1)
            return -1;
        c->slot[p] = mark;
        n++;
    }
    return n;
}

/* Mark the ports every name of sc's telemetry.pcap.ports matches in c->slot;
 * *n = how many. */
static int mark_names(struct ckpt_capture *c, const struct scenario *sc, const struct topo *t,
                      uint64_t *n, struct err *e)
{
    const char *s = sc->telemetry.pcap_ports;
    c->slot = malloc((size_t)t->n_ports * sizeof *c->slot);
    if (!c->slot)
        return err_set(e, "out of memory setting up the packet capture");
    c->n_ports = t->n_ports;
    for (uint32_t p = 0; p < t->n_ports; p++)
        c->slot[p] = -1;
    *n = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        size_t len = strcspn(s, ",");
        size_t tl = len;
        while (tl && s[tl - 1] == ' ')
            tl--;
        int64_t k = mark_ports(c, t, s, tl, 0);
        if (k == 0)
            return err_set(e, "telemetry.pcap.ports: no port \"%.*s\" in this fabric "
                              "(expected names like spine0-sleaf0, cleaf0-spine1#1, "
                              "sleaf0-stor0, host0-cleaf0, spine*-sleaf0, or a->b, comma "
                              "separated)",
                           (int)(tl < 40 ? tl : 40), s);
        if (k < 0)
            return err_set(e, "telemetry.pcap.ports: port \"%.*s\" named twice",
                           (int)(tl < 40 ? tl : 40), s);
        *n += (uint64_t)k;
        s += len;
        if (*s == ',')
            s++;
    }
    return 0;
}

int capture_check(const struct scenario *sc, const struct topo *t, struct err *e)
{
    const char *s = sc->telemetry.pcap_ports;
    if (!strcmp(s, "none") || !*s)
        return 0;
    struct ckpt_capture c;
    memset(&c, 0, sizeof c);
    uint64_t n;
    int rc = mark_names(&c, sc, t, &n, e);
    capture_release(&c);
    return rc;
}

int capture_setup(struct ckpt_capture *c, const struct scenario *sc, const struct topo *t,
                  struct err *e)
{
    capture_release(c);
    const char *s = sc->telemetry.pcap_ports;
    if (!strcmp(s, "none") || !*s)
        return err_set(e, "--pcap: no ports to capture: name them in telemetry.pcap.ports "
                          "(e.g. spine0-sleaf0,sleaf0-stor0)");
    c->max_packets = sc->telemetry.pcap_max_packets;
    c->control = sc->telemetry.pcap_filter == PCAP_CONTROL;
    c->start_ps = sc->telemetry.pcap_start_ps;
    c->stop_ps = sc->telemetry.pcap_stop_ps ? sc->telemetry.pcap_stop_ps : UINT64_MAX;
    /* mark the ports each name matches, then one file per marked port, in
     * port order */
    uint64_t n;
    if (mark_names(c, sc, t, &n, e) < 0)
        return -1;
    c->files = calloc(n, sizeof *c->files);
    if (!c->files)
        return err_set(e, "out of memory setting up the packet capture");
    for (uint32_t p = 0; p < t->n_ports; p++) {
        if (c->slot[p] == -1)
            continue;
        struct cap_file *f = &c->files[c->n_files];
        char a[208], b[208];
        uint32_t par = parallel_index(t, p);
        capture_node_name(t, t->ports[p].node, a, sizeof a);
        capture_node_name(t, t->ports[t->ports[p].peer].node, b, sizeof b);
        if (par)
            snprintf(f->name, sizeof f->name, "%s-%s_%u", a, b, par);
        else
            snprintf(f->name, sizeof f->name, "%s-%s", a, b);
        f->port = p;
        f->node = t->ports[p].node;
        f->cap = c->max_packets;
        f->full_t = UINT64_MAX;
        f->rec = malloc((size_t)(f->cap ? f->cap : 1) * sizeof *f->rec);
        if (!f->rec)
            return err_set(e, "out of memory: telemetry.pcap.max_packets %u records per port",
                           c->max_packets);
        c->slot[p] = (int32_t)c->n_files++;
    }
    return 0;
}

/* Records are appended in event order: those the port sent are stamped
 * now, those it received one (constant) link delay ahead, so each kind is
 * in time order and one merge of the two sorts the file, sent first on a
 * tie. Without memory for the merge an insertion sort does it in place. */
static void sort_file(struct cap_file *f)
{
    struct cap_rec *tmp = malloc((size_t)(f->n ? f->n : 1) * sizeof *tmp);
    if (!tmp) {
        for (uint32_t k = 1; k < f->n; k++) {
            struct cap_rec r = f->rec[k];
            uint32_t j = k;
            while (j > 0 && f->rec[j - 1].t_ps > r.t_ps) {
                f->rec[j] = f->rec[j - 1];
                j--;
            }
            f->rec[j] = r;
        }
        return;
    }
    uint32_t nt = 0, nr = 0;
    for (uint32_t k = 0; k < f->n; k++)
        if (f->rec[k].tx_node == f->node)
            f->rec[nt++] = f->rec[k]; /* in place: nt <= k */
        else
            tmp[nr++] = f->rec[k];
    /* merge from the back into rec: sent [0, nt) and received tmp[0, nr) */
    uint32_t a = nt, b = nr, o = f->n;
    while (b > 0) {
        if (a > 0 && f->rec[a - 1].t_ps > tmp[b - 1].t_ps)
            f->rec[--o] = f->rec[--a];
        else
            f->rec[--o] = tmp[--b];
    }
    free(tmp);
}

void capture_finish(struct ckpt_capture *c)
{
    for (uint32_t i = 0; i < c->n_files; i++) {
        struct cap_file *f = &c->files[i];
        sort_file(f);
        /* every record stamped before full_t was recorded before it */
        while (f->n && f->rec[f->n - 1].t_ps >= f->full_t)
            f->n--;
    }
    c->done = 1;
}

void capture_release(struct ckpt_capture *c)
{
    for (uint32_t i = 0; c->files && i < c->n_files; i++)
        free(c->files[i].rec);
    free(c->files);
    free(c->slot);
    memset(c, 0, sizeof *c);
}

/* ---- recording (engine hot path, only with a capture) -------------------- */

/* Into the sender's file at now and the receiver's one link delay later. */
static void record(struct pnet *n, const struct port *p, struct cap_rec *r)
{
    struct ckpt_capture *c = n->cap;
    int32_t a = c->slot[p - n->ports], b = c->slot[p->peer];
    r->tx_node = p->node;
    r->rx_node = n->ports[p->peer].node;
    if (a >= 0) {
        r->t_ps = n->now;
        capture_push(c, &c->files[a], r, n->now);
    }
    if (b >= 0) {
        r->t_ps = n->now + p->delay_ps;
        capture_push(c, &c->files[b], r, n->now);
    }
}

static int wanted(const struct pnet *n, const struct port *p)
{
    const struct ckpt_capture *c = n->cap;
    return c->slot[p - n->ports] >= 0 || c->slot[p->peer] >= 0;
}

void capture_packet(struct pnet *n, const struct port *p, const struct packet *pk)
{
    if (!wanted(n, p) || (n->cap->control && pk->kind != PK_CNP))
        return; /* filter control: of the packets, CNPs only */
    const struct flow *f = &n->flows[pk->flow];
    struct cap_rec r;
    memset(&r, 0, sizeof r);
    r.sport = f->sport;
    r.qpn = 0x100 + (f->id & 0xfffff); /* both ends number the QP of transfer i alike */
    if (pk->kind == PK_DATA) {
        uint32_t mtu = n->mtu;
        uint64_t off = (uint64_t)pk->psn * mtu, req = n->window ? n->sc->storage.request_size : 0;
        /* a write per request (storage.max_outstanding) when requests are
         * whole packets, else one write per transfer */
        uint64_t ws = 0, wl = f->bytes;
        if (req && req % mtu == 0) {
            ws = off / req * req;
            wl = f->bytes - ws < req ? f->bytes - ws : req;
        }
        int first = off == ws, last = off + pk->payload >= ws + wl;
        r.kind = CAP_DATA;
        r.opcode = first && last ? BTH_WRITE_ONLY
                   : first       ? BTH_WRITE_FIRST
                   : last        ? BTH_WRITE_LAST
                                 : BTH_WRITE_MIDDLE;
        r.ackreq = (uint8_t)last;
        r.ip_src = f->src;
        r.ip_dst = f->dst;
        r.psn = pk->psn & 0xffffff;
        r.payload = pk->payload;
        r.va = ws;
        r.dmalen = wl > UINT32_MAX ? UINT32_MAX : (uint32_t)wl;
        /* ECN-capable when the fabric marks; CE as marked */
        r.tos = (uint8_t)(pk->dscp << 2 | (pk->ce ? 3 : n->sc->fabric.ecn ? 2 : 0));
    } else {
        r.ip_src = f->dst;
        r.ip_dst = f->src;
        r.tos = (uint8_t)(pk->dscp << 2);
        if (pk->kind == PK_CNP) {
            r.kind = CAP_CNP;
            r.opcode = BTH_CNP;
            r.payload = CNP_PAYLOAD;
        } else if (pk->kind == PK_NAK) {
            r.kind = CAP_NAK;
            r.opcode = BTH_ACK;
            r.syndrome = 0x60;
            r.psn = pk->psn & 0xffffff;
        } else if (pk->kind == PK_RCACK) { /* every packet below psn is in */
            r.kind = CAP_ACK;
            r.opcode = BTH_ACK;
            r.syndrome = 0x1f;
            r.psn = (pk->psn ? pk->psn - 1 : 0) & 0xffffff;
        } else if (pk->kind == PK_CREDIT) {
            /* RCCC's credit: an ACK whose AETH syndrome is a credit count
             * (0), the cumulative credit in packets as its MSN */
            r.kind = CAP_ACK;
            r.opcode = BTH_ACK;
            r.syndrome = 0x00;
            r.msn = pk->psn & 0xffffff;
        } else {
            /* the ACK carries the bytes it acknowledges; the PSN of the last
             * packet and the request count are the receiver's now */
            uint32_t mtu = n->mtu;
            r.kind = CAP_ACK;
            r.opcode = BTH_ACK;
            r.syndrome = 0x1f;
            r.psn = (uint32_t)((f->acked ? (f->acked - 1) / mtu : 0) & 0xffffff);
            uint64_t req = n->sc->storage.request_size ? n->sc->storage.request_size : 1;
            r.msn = (uint32_t)(((f->acked + req - 1) / req) & 0xffffff);
        }
    }
    record(n, p, &r);
}

void capture_pfc(struct pnet *n, const struct port *in, unsigned prio, uint32_t quanta)
{
    if (!wanted(n, in))
        return;
    struct cap_rec r;
    memset(&r, 0, sizeof r);
    r.kind = CAP_PFC;
    r.prio = (uint8_t)prio;
    r.quanta = (uint16_t)(quanta > 0xffff ? 0xffff : quanta);
    record(n, in, &r);
}

struct ckpt_capture *ckpt_capture_new(void)
{
    return calloc(1, sizeof(struct ckpt_capture));
}

void ckpt_capture_free(struct ckpt_capture *c)
{
    if (!c)
        return;
    capture_release(c);
    free(c);
}
