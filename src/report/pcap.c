/* pcap files of captured ports (--pcap DIR), written from the file format's
 * description: a 24-byte header (magic 0xa1b23c4d: nanosecond timestamps,
 * version 2.4, snap length, link type 1 = Ethernet), then per frame a
 * 16-byte record header (seconds, nanoseconds, captured length, length on
 * the wire) and the captured bytes. Little-endian throughout; readers tell
 * the order by the magic.
 *
 * Frames (docs/report.md has the address scheme):
 *   RoCEv2: Ethernet II (0x0800) | IPv4 (DSCP, ECN, DF, TTL 64, UDP) |
 *           UDP (sport = the flow's, dport 4791, checksum 0) | BTH 12 B |
 *           RETH 16 B on the first packet of a write | AETH 4 B on ACK/NAK |
 *           payload (zeros; the simulator carries sizes only) + pad to 4 B |
 *           ICRC 4 B
 *   CNP:    BTH opcode 0x81 with BECN set, 16 reserved bytes
 *   PFC:    01:80:c2:00:00:01, type 0x8808, opcode 0x0101, class-enable
 *           vector, 8 pause times in quanta, padded to 60 bytes
 * Frames are written whole: Wireshark's InfiniBand dissector reports a
 * RoCEv2 packet whose payload was cut by a snap length as malformed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "report.h"
#include "../pkt/capture.h"
#include "../core/outfile.h"
#include "internal.h"

#define ETH_LEN 14
#define IP_LEN 20
#define UDP_LEN 8
#define BTH_LEN 12
#define RETH_LEN 16
#define AETH_LEN 4
#define ICRC_LEN 4
#define PFC_MIN 60 /* minimum Ethernet frame without FCS */

static void be16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
    be16(p, v >> 16);
    be16(p + 2, v);
}

static void le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* 02:00 and the node id: locally administered, unicast. */
static void mac_of(uint8_t *p, uint32_t node)
{
    p[0] = 0x02;
    p[1] = 0x00;
    be32(p + 2, node);
}

/* 10.0.0.0/8 with node id + 1 in the low 24 bits. */
static uint32_t ip_of(uint32_t node)
{
    return 0x0a000000u | ((node + 1) & 0xffffffu);
}

static uint16_t ip_checksum(const uint8_t *h)
{
    uint32_t sum = 0;
    for (int i = 0; i < IP_LEN; i += 2)
        sum += (uint32_t)h[i] << 8 | h[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

size_t pcap_frame(const struct cap_rec *r, uint8_t *buf, size_t *hlen)
{
    uint8_t *h = buf;
    memset(h, 0, PCAP_MAX_HDR);
    if (r->kind == CAP_PFC) {
        static const uint8_t pfc_dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
        memset(buf, 0, PFC_MIN);
        memcpy(buf, pfc_dst, 6);
        mac_of(buf + 6, r->tx_node);
        be16(buf + 12, 0x8808);          /* MAC control */
        be16(buf + 14, 0x0101);          /* priority-based flow control */
        be16(buf + 16, 1u << r->prio);   /* class-enable vector */
        be16(buf + 18 + 2 * r->prio, r->quanta);
        *hlen = PFC_MIN;
        return PFC_MIN;
    }
    size_t ext = r->opcode == BTH_WRITE_FIRST || r->opcode == BTH_WRITE_ONLY ? RETH_LEN
                 : r->opcode == BTH_ACK                                      ? AETH_LEN
                                                                             : 0;
    uint32_t pad = r->kind == CAP_DATA ? (4 - r->payload % 4) % 4 : 0;
    size_t ib = BTH_LEN + ext + r->payload + pad + ICRC_LEN;
    size_t total = ETH_LEN + IP_LEN + UDP_LEN + ib;
    uint8_t *eth = h, *ip = h + ETH_LEN, *udp = ip + IP_LEN, *bth = udp + UDP_LEN;
    mac_of(eth, r->rx_node);
    mac_of(eth + 6, r->tx_node);
    be16(eth + 12, 0x0800);
    ip[0] = 0x45;
    ip[1] = r->tos;
    be16(ip + 2, (uint32_t)(IP_LEN + UDP_LEN + ib));
    be16(ip + 6, 0x4000); /* don't fragment */
    ip[8] = 64;
    ip[9] = 17;
    be32(ip + 12, ip_of(r->ip_src));
    be32(ip + 16, ip_of(r->ip_dst));
    be16(ip + 10, ip_checksum(ip));
    be16(udp, r->sport);
    be16(udp + 2, ROCE_UDP_PORT);
    be16(udp + 4, (uint32_t)(UDP_LEN + ib)); /* checksum 0: RoCEv2 sends none */
    bth[0] = r->opcode;
    bth[1] = (uint8_t)(pad << 4); /* SE 0, M 0, pad count, transport version 0 */
    be16(bth + 2, 0xffff);        /* default partition key */
    be32(bth + 4, r->qpn & 0xffffff); /* FECN, BECN, reserved; destination QP */
    if (r->opcode == BTH_CNP)
        bth[4] = 0x40; /* a CNP sets BECN (RoCEv2 annex A17) */
    be32(bth + 8, r->psn & 0xffffff);
    bth[8] = r->ackreq ? 0x80 : 0; /* A bit, above the PSN */
    uint8_t *x = bth + BTH_LEN;
    if (ext == RETH_LEN) {
        be32(x, (uint32_t)(r->va >> 32)); /* virtual address: the offset */
        be32(x + 4, (uint32_t)r->va);     /* of the write in the transfer */
        be32(x + 8, r->qpn);          /* R_Key */
        be32(x + 12, r->dmalen);
    } else if (ext == AETH_LEN) {
        be32(x, r->msn & 0xffffff);
        x[0] = r->syndrome;
    }
    *hlen = ETH_LEN + IP_LEN + UDP_LEN + BTH_LEN + ext;
    return total;
}

static int write_file(const char *path, const struct cap_file *f, struct err *e)
{
    struct ofile o;
    FILE *out = ofile_open(&o, path, e);
    if (!out)
        return -1;
    static const uint8_t zeros[4096];
    uint8_t hdr[24], rec[16], frame[PCAP_MAX_HDR];
    le32(hdr, PCAP_MAGIC_NS);
    hdr[4] = 2, hdr[5] = 0, hdr[6] = 4, hdr[7] = 0; /* version 2.4 */
    memset(hdr + 8, 0, 8);                           /* zone, accuracy */
    le32(hdr + 16, PCAP_SNAPLEN);
    le32(hdr + 20, 1); /* LINKTYPE_ETHERNET */
    fwrite(hdr, 1, sizeof hdr, out);
    for (uint32_t i = 0; i < f->n; i++) {
        const struct cap_rec *r = &f->rec[i];
        size_t hl, len = pcap_frame(r, frame, &hl);
        uint64_t ns = r->t_ps / 1000;
        le32(rec, (uint32_t)(ns / 1000000000u));
        le32(rec + 4, (uint32_t)(ns % 1000000000u));
        le32(rec + 8, (uint32_t)len);
        le32(rec + 12, (uint32_t)len);
        fwrite(rec, 1, sizeof rec, out);
        fwrite(frame, 1, hl, out);
        /* payload, pad and ICRC: the simulator carries sizes, not bytes */
        for (size_t left = len - hl; left;) {
            size_t k = left < sizeof zeros ? left : sizeof zeros;
            fwrite(zeros, 1, k, out);
            left -= k;
        }
    }
    return ofile_commit(&o, e);
}

int report_pcap(const char *dir, const struct scenario *sc, const struct ckpt_capture *cap,
                struct err *e)
{
    (void)sc;
    if (!cap || !cap->done)
        return err_set(e, "--pcap: nothing was captured (no packet-engine run)");
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        return err_set(e, "--pcap: cannot create directory '%s': %s", dir, strerror(errno));
    /* every file is tried: each one written whole, or the earlier one kept */
    int failed = 0;
    char first[sizeof e->msg] = "";
    for (uint32_t i = 0; i < cap->n_files; i++) {
        char path[4096];
        struct err we = {{0}};
        if ((size_t)snprintf(path, sizeof path, "%s/%s.pcap", dir, cap->files[i].name) >=
            sizeof path)
            err_set(&we, "--pcap: path too long");
        else if (write_file(path, &cap->files[i], &we) == 0)
            continue;
        if (!failed++)
            snprintf(first, sizeof first, "%s", we.msg);
    }
    if (failed > 1)
        return err_set(e, "%s (and %d more files in '%s')", first, failed - 1, dir);
    return failed ? err_set(e, "%s", first) : 0;
}

int report_pcap_check(const char *dir, struct err *e)
{
    /* the files' names come from the topology: check the *.pcap there */
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* made later, or its own error then */
    int rc = 0;
    for (struct dirent *de; rc == 0 && (de = readdir(d));) {
        size_t l = strlen(de->d_name);
        if (l > 5 && !strcmp(de->d_name + l - 5, ".pcap"))
            rc = ofile_check_in(dir, de->d_name, e);
    }
    closedir(d);
    return rc;
}
