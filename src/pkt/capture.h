/* Packet capture at named ports (telemetry.pcap.ports, --pcap DIR).
 *
 * A captured port's file holds the frames of its link in both directions,
 * stamped when their first bit is at that port: frames it sends at the start
 * of their serialisation, frames it receives one link delay after their
 * sender started. Each file keeps at most telemetry.pcap.max_packets
 * records in a buffer allocated before the run: recording is a copy, never a
 * malloc, and nothing is recorded unless a capture was asked for (the engine
 * tests one pointer). Records hold the header fields the pcap writer needs
 * (src/report/pcap.c), already decided here: opcode, ECN bits, addresses.
 */
#ifndef CKPT_CAPTURE_H
#define CKPT_CAPTURE_H

#include <stdint.h>

#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../topo/topo.h"

enum cap_kind { CAP_DATA, CAP_CNP, CAP_NAK, CAP_ACK, CAP_PFC };

/* InfiniBand BTH opcodes of a reliable connection (IBTA vol. 1, 9.2) and
 * RoCEv2's congestion notification packet. */
#define BTH_WRITE_FIRST 0x06
#define BTH_WRITE_MIDDLE 0x07
#define BTH_WRITE_LAST 0x08
#define BTH_WRITE_ONLY 0x0a
#define BTH_ACK 0x11
#define BTH_CNP 0x81

struct cap_rec {
    uint64_t t_ps;           /* first bit at the captured port */
    uint64_t va;             /* RETH: where the write starts in the transfer */
    uint32_t tx_node, rx_node; /* the link's ends in the frame's direction */
    uint32_t ip_src, ip_dst; /* endpoint nodes (not PFC) */
    uint32_t qpn;            /* destination queue pair */
    uint32_t psn;            /* 24 bits */
    uint32_t payload;        /* data payload bytes (CNP: its 16 reserved) */
    uint32_t dmalen;         /* RETH: the write's length (a request of
                              * storage.request_size, else the transfer) */
    uint32_t msn;            /* AETH: message sequence number */
    uint16_t sport;          /* UDP source port (the flow's entropy) */
    uint16_t quanta;         /* PFC: pause time of prio, 512-bit times */
    uint8_t kind;            /* enum cap_kind */
    uint8_t opcode;          /* BTH opcode */
    uint8_t tos;             /* DSCP << 2 | ECN (CE = 3, ECT(0) = 2) */
    uint8_t prio;            /* PFC: the priority paused or resumed */
    uint8_t ackreq;          /* BTH A bit: last packet of a write */
    uint8_t syndrome;        /* AETH: 0x1f ACK, 0x60 NAK (PSN sequence error) */
};

struct cap_file {
    char name[432];          /* "spine6-sleaf0" (file name without .pcap; names up to 200) */
    uint32_t port;           /* topology port index */
    uint32_t node;           /* its node: frames from it were sent here */
    struct cap_rec *rec;     /* [cap], owned */
    uint32_t n, cap;
    uint64_t full_t;         /* first time a record was refused; UINT64_MAX = none */
    uint64_t refused;        /* records refused past the cap */
};

struct ckpt_capture {
    struct cap_file *files;  /* [n_files], owned */
    uint32_t n_files;
    int32_t *slot;           /* [n_ports]: file of each port, -1 = none; owned */
    uint32_t n_ports;
    uint32_t max_packets;
    int control;             /* telemetry.pcap.filter control: PFC and CNPs only */
    uint64_t start_ps, stop_ps; /* frames stamped in [start, stop) */
    int done;                /* a run filled it (capture_finish) */
};

/* Resolve sc's telemetry.pcap.ports on topology t and allocate every
 * buffer. Returns 0 or -1 with e set (unknown name, out of memory). */
int capture_setup(struct ckpt_capture *c, const struct scenario *sc, const struct topo *t,
                  struct err *e);
/* The same name resolution without buffers: 0 when every name of
 * telemetry.pcap.ports matches a port of t (or none is given), else -1 with
 * e = "telemetry.pcap.ports: ...". */
int capture_check(const struct scenario *sc, const struct topo *t, struct err *e);
/* Sort each file by time (stable) and cut it where the cap first refused a
 * record, so that a file holds every frame before that moment. */
void capture_finish(struct ckpt_capture *c);
/* Free the buffers (the struct itself stays). */
void capture_release(struct ckpt_capture *c);
/* A zeroed capture for ckpt_run_capture (src/api/ckpt.h), and its release
 * with the struct itself (NULL is ignored). */
struct ckpt_capture *ckpt_capture_new(void);
void ckpt_capture_free(struct ckpt_capture *c);

/* Append r to file f, or count it refused (outside the window: neither). */
static inline void capture_push(const struct ckpt_capture *c, struct cap_file *f,
                                const struct cap_rec *r, uint64_t now)
{
    if (r->t_ps < c->start_ps || r->t_ps >= c->stop_ps)
        return;
    if (f->n < f->cap) {
        f->rec[f->n++] = *r;
    } else {
        if (!f->refused)
            f->full_t = now;
        f->refused++;
    }
}

/* The node name used by ports.csv and these files: host3, stor0, cleaf1,
 * sleaf0, spine6. */
const char *capture_node_name(const struct topo *t, uint32_t node, char *buf, unsigned len);

#endif
