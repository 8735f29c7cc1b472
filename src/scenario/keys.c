/* Scenario keys: the one table of keys, its lookups and its echo; the
 * loaders (load.c) fill a struct scenario from it.
 *
 * Every key is a row of `keys`: dotted name, type, where it lives in
 * struct scenario, its default and limits as text, and a one-line doc.
 * Defaults and limits are parsed by the same code as user input, so the
 * table cannot disagree with the parser. Sections ("fabric") are not listed:
 * a section is any prefix of a key name that ends before a '.'. */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../core/text.h"
#include "../core/units.h"
#include "lbscheme.h"

#define FIELD(m) offsetof(struct scenario, m), sizeof(((struct scenario *)0)->m)

/* transport.cc and transport.receiver: their descriptor rows (tpscheme.c) */
static const struct names cc_names = {cc_schemes, sizeof cc_schemes[0], CC_COUNT};
static const struct names proto_names = {proto_schemes, sizeof proto_schemes[0], PROTO_COUNT};
static const struct names receiver_names = {rx_schemes, sizeof rx_schemes[0], RX_COUNT};

/* A row gives its choices in the slot of its type's kind: a names table
 * for T_ENUM, a text for T_TIME and T_TEXT (.word), and "auto" for a
 * T_COUNT decided by the run (stored as 0). A text in the names slot is
 * an error here, not a warning; the slot a row leaves out is NULL. */
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wincompatible-pointer-types"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const struct key scn_keys[] = {
    {"seed", T_UINT, FIELD(seed), "1", NULL, NULL,
     "random seed; the same scenario and seed give the same run", NULL},
    {"engine", T_ENUM, FIELD(engine), "packet", NULL, NULL,
     "simulation engine: packet (every packet, queues and PFC), fluid "
     "(max-min flow rates; scales to 100k GPUs), auto (packet up to ~8 s of it: "
     "~1.5e8 estimated events; hybrid up to ~60 s where fluid would ignore an "
     "effect and hybrid can jump; else fluid), hybrid (the packet "
     "engine fast-forwarding steady intervals; sim.hybrid.*)", &names_engine},

    {"cluster.nodes", T_COUNT, FIELD(cluster.nodes), "128", "1", "1000000",
     "compute nodes, one checkpoint writer each", NULL},
    {"cluster.nic_speed", T_RATE, FIELD(cluster.nic_bps), "400Gbps", "1bps",
     "100Tbps", "NIC line rate of each compute node", NULL},
    {"cluster.gpus_per_node", T_COUNT, FIELD(cluster.gpus_per_node), "8", "1",
     "1024", "GPUs per compute node (ranks, in the model form)", NULL},
    {"cluster.nics_per_node", T_COUNT, FIELD(cluster.nics_per_node), "1", "1",
     "64", "NICs per compute node on the storage fabric, each its own leaf port",
     NULL},
    {"cluster.d2h_rate", T_RATE, FIELD(cluster.d2h_bps), "0", NULL, "100Tbps",
     "device-to-host copy rate per GPU; 0 = not limited", NULL},
    {"cluster.local_nvme_rate", T_RATE, FIELD(cluster.local_nvme_bps), "0", NULL,
     "100Tbps", "node-local NVMe write rate per node (hierarchical policy)", NULL},
    {"cluster.host_rate", T_RATE, FIELD(cluster.host_bps), "0", NULL, "100Tbps",
     "host bandwidth per node (the narrower of PCIe to the NICs and host memory) "
     "that an async or hierarchical drain shares with training: the drain slows "
     "training by its rate over this; 0 = no host contention", NULL},

    {"storage.nodes", T_COUNT, FIELD(storage.nodes), "4", "1", "100000",
     "storage nodes that receive the checkpoint", NULL},
    {"storage.nic_speed", T_RATE, FIELD(storage.nic_bps), "400Gbps", "1bps",
     "100Tbps", "NIC line rate of each storage node", NULL},
    {"storage.nics_per_node", T_COUNT, FIELD(storage.nics_per_node), "1", "1",
     "16", "NICs per storage node, each its own port on its storage leaf; a "
     "node's transfers take its NICs in turn (both engines)", NULL},
    {"storage.stripe_count", T_COUNT, FIELD(storage.stripe_count), "1", "1",
     "100000", "storage nodes each file is striped over (placement hash: all)",
     NULL},
    {"storage.stripe_size", T_SIZE, FIELD(storage.stripe_size), "1MiB", "1B",
     "1TB", "bytes of a file per stripe before the next storage node", NULL},
    {"storage.placement", T_ENUM, FIELD(storage.placement), "round_robin", NULL,
     NULL, "which storage nodes hold a file's bytes: round_robin (Lustre's "
     "allocator: start targets dealt in create order), hash (every stripe_size "
     "chunk hashed to a node), file_mod (file f starts at f mod nodes)",
     &names_placement},
    {"storage.stripe_start", T_ENUM, FIELD(storage.stripe_start), "round_robin",
     NULL, NULL, "round_robin placement: a file's first stripe goes to the next "
     "node in create order (round_robin) or to a seeded random node (random)",
     &names_stripe_start},
    {"storage.file_open_cost", T_TIME, FIELD(storage.file_open_ps), "0", NULL,
     "1000s", "time a storage node takes to create one file, one at a time", NULL},
    {"storage.fsync_cost", T_TIME, FIELD(storage.fsync_ps), "0", NULL, "1000s",
     "per file: a write is complete when its data is on the back end and its "
     "fsync returned, this long after its last byte (both engines)", NULL},
    {"storage.metadata_ops_per_s", T_REAL, FIELD(storage.metadata_ops), "0", "0",
     "1e12", "one metadata service for all storage nodes: every file's create "
     "and fsync queue there, FIFO, 1/rate each; 0 = unlimited (both engines)",
     NULL},
    {"storage.drain_rate", T_RATE, FIELD(storage.drain_bps), "0", NULL,
     "100Tbps", "back-end write rate per storage node; 0 = keeps up (both "
     "engines)", NULL},
    {"storage.profile", T_TEXT, FIELD(storage.profile), "none", NULL, NULL,
     "storage node profile from the catalog (ckptnet catalog; docs/storage.md): "
     "fills the NICs and stages left unset; none = the keys alone", NULL},
    {"storage.host_rate", T_RATE, FIELD(storage.host_bps), "0", NULL, "100Tbps",
     "host limit per storage node (PCIe, CPU, protocol processing), writes and "
     "reads; 0 = none (both engines)", NULL},
    {"storage.cache_size", T_SIZE, FIELD(storage.cache_bytes), "0", NULL, "100TB",
     "write cache per storage node (DRAM/NVRAM): absorbs a burst until full, then "
     "writes go at media speed; 0 = none", NULL},
    {"storage.cache_rate", T_RATE, FIELD(storage.cache_bps), "0", NULL, "100Tbps",
     "the write cache's absorb rate per node; 0 = what the NICs bring", NULL},
    {"storage.drives", T_UINT, FIELD(storage.drives), "0", NULL, "100000",
     "media: drives per storage node; 0 = no media stage (storage.drain_rate)", NULL},
    {"storage.drive_write_rate", T_RATE, FIELD(storage.drive_w_bps), "0", NULL, "10Tbps",
     "sequential write rate of one drive (data sheet), with storage.drives", NULL},
    {"storage.drive_read_rate", T_RATE, FIELD(storage.drive_r_bps), "0", NULL, "10Tbps",
     "sequential read rate of one drive: the restore's media limit (sets "
     "restore.read_rate when unset); 0 = not limited", NULL},
    {"storage.write_amplification", T_REAL, FIELD(storage.write_amp), "1", "1", "1000",
     "media bytes written per byte received (RAID parity, FTL): divides the "
     "drives' write rate", NULL},
    {"storage.ingest_buffer", T_SIZE, FIELD(storage.ingest_buffer), "0", NULL,
     "1TB", "ingest buffer per storage node ahead of the back end; 0 = "
     "unlimited (both engines)", NULL},
    {"storage.stuck_nodes", T_COUNT, FIELD(storage.stuck_nodes), "0", NULL,
     "100000", "fault: the first N storage nodes stop writing to their back end; "
     "with storage.ingest_buffer they pause the fabric for good (a PFC storm)",
     NULL},
    {"storage.max_outstanding", T_UINT, FIELD(storage.max_outstanding), "0",
     NULL, "1000000", "outstanding write requests per client; 0 = unlimited "
     "(packet engine; the fluid engine ignores it)", NULL},
    {"storage.request_size", T_SIZE, FIELD(storage.request_size), "1MiB", "1B",
     "1TB", "bytes per write request (with max_outstanding or storage.protocol; "
     "unset with protocol s3: its part size; set it to use both)", NULL},
    {"storage.protocol", T_ENUM, FIELD(storage.protocol), "none", NULL, NULL,
     "request model of the writes: none (a file is one stream), rdma (NFS over "
     "RDMA, GPUDirect Storage), nfs (NFS WRITEs over TCP) or s3 (multipart PUTs): "
     "each rank's file as requests of storage.request_size, at most "
     "storage.requests_in_flight per rank, each completing "
     "storage.request_latency after its last byte, and a commit at the end "
     "(both engines)", &names_storage_protocol},
    {"storage.request_latency", T_TIME, FIELD(storage.req_latency_ps), "0", NULL, "100s",
     "server time per request after its last byte (unset: the protocol's "
     "default, docs/storage.md)", NULL},
    {"storage.requests_in_flight", T_UINT, FIELD(storage.req_inflight), "0", NULL, "4096",
     "requests a rank keeps in flight (S3 parallel part uploads, NFS RPC slots); "
     "unset: the protocol's default", NULL},
    {"storage.capacity", T_SIZE, FIELD(storage.capacity), "0", NULL, "1000000TB",
     "usable capacity of all storage nodes together; 0 = not checked. The "
     "summary's endurance line flags retention beyond it", NULL},
    {"storage.retention", T_COUNT, FIELD(storage.retention), "1", "1", "1000000",
     "checkpoints kept; one more is on the storage while the next is written", NULL},
    {"storage.drive_capacity", T_SIZE, FIELD(storage.drive_capacity), "0", NULL,
     "1000TB", "capacity of one drive, as its data sheet rates it (endurance)", NULL},
    {"storage.drive_dwpd", T_REAL, FIELD(storage.drive_dwpd), "0", "0", "1000",
     "drive writes per day the drives are rated for (data sheet); 0 = not "
     "checked. The summary flags a policy that writes more", NULL},
    {"storage.drive_rating_years", T_REAL, FIELD(storage.drive_rating_years), "5", "0.1", "100",
     "years storage.drive_dwpd is rated over (the drives' warranty; enterprise NVMe data "
     "sheets rate DWPD over 5 years): the drives' rated writes for their wear cost", NULL},
    {"storage.protection", T_ENUM, FIELD(storage.protection), "none", NULL, NULL,
     "data protection that crosses the fabric: none, ec (each file as "
     "storage.ec_data + storage.ec_parity fragments on as many consecutive nodes), "
     "replica (the primary forwards storage.replicas - 1 copies to the next nodes "
     "as it receives), chain (CRAQ: the head forwards to the next node, each "
     "node to the next, storage.replicas nodes; the tail's ack commits)", &names_protection},
    {"storage.ec_data", T_COUNT, FIELD(storage.ec_data), "8", "1", "1024",
     "protection ec: data fragments k of each file", NULL},
    {"storage.ec_parity", T_UINT, FIELD(storage.ec_parity), "2", NULL, "1024",
     "protection ec: parity fragments m of each file (each the size of the "
     "largest data fragment)", NULL},
    {"storage.replicas", T_COUNT, FIELD(storage.replicas), "3", "1", "64",
     "protection replica or chain: copies of every byte, the primary's included", NULL},

    {"fabric.hosts_per_leaf", T_COUNT, FIELD(fabric.hosts_per_leaf), "16",
     "1", "4096", "compute nodes per compute leaf switch", NULL},
    {"fabric.rails", T_COUNT, FIELD(fabric.rails), "1", "1", "64",
     "leaves a compute node's NICs spread over: NIC i on leaf i mod rails of "
     "its rail group (rail style); 1 = all on one leaf", NULL},
    {"fabric.storage_per_leaf", T_COUNT, FIELD(fabric.storage_per_leaf), "4",
     "1", "4096", "storage nodes per storage leaf switch", NULL},
    {"fabric.spines", T_COUNT, FIELD(fabric.spines), "16", "1", "4096",
     "spine switches; every leaf has one uplink to every spine", NULL},
    {"fabric.uplink_speed", T_RATE, FIELD(fabric.uplink_bps), "400Gbps",
     "1bps", "100Tbps", "line rate of each leaf-spine link; unset: the ports' lane speed "
     "(the slower of a leaf uplink and a spine port after breakout: 400Gbps on 400G "
     "profiles, 800Gbps on 51.2T ones)", NULL},
    {"fabric.link_delay", T_TIME, FIELD(fabric.link_delay_ps), "1us", NULL,
     "1000s", "propagation delay of every link", NULL},
    {"fabric.switch_latency", T_TIME, FIELD(fabric.switch_latency_ps),
     "500ns", NULL, "1000s", "cut-through latency of a switch, per hop", NULL},
    {"fabric.buffer", T_SIZE, FIELD(fabric.buffer_bytes), "70MB", "1B", "1TB",
     "shared packet buffer of each switch", NULL},
    {"fabric.mtu", T_SIZE, FIELD(fabric.mtu), "4096B", "64B", "9216B",
     "RoCE payload bytes per packet", NULL},
    {"fabric.pfc.enabled", T_BOOL, FIELD(fabric.pfc), "true", NULL, NULL,
     "priority flow control on the lossless priorities: true = lossless, "
     "false = every priority drops when the buffer is full", NULL},
    {"fabric.pfc.priorities", T_TEXT, FIELD(fabric.pfc_priorities), "3", NULL,
     NULL, "lossless priorities, comma separated (0-7)", .word = LIST},
    {"fabric.pfc.quanta", T_COUNT, FIELD(fabric.pfc_quanta), "65535", "1",
     "65535", "pause time of an XOFF frame in 512-bit quanta; refreshed at half "
     "of it while congested, XON (quanta 0) on resume", NULL},
    {"fabric.pfc.watchdog", T_BOOL, FIELD(fabric.pfc_watchdog), "false", NULL,
     NULL, "PFC watchdog: a queue paused longer than detect drops its packets "
     "and ignores pause until restore passes without pause", NULL},
    {"fabric.pfc.watchdog_detect", T_TIME, FIELD(fabric.watchdog_detect_ps),
     "200ms", "1ns", "1000s", "PFC watchdog detection time (SONiC default)", NULL},
    {"fabric.pfc.watchdog_restore", T_TIME, FIELD(fabric.watchdog_restore_ps),
     "200ms", "1ns", "1000s", "PFC watchdog restoration time (SONiC default)", NULL},
    {"fabric.cable_length", T_REAL, FIELD(fabric.cable_length_m), "0", "0",
     "100000", "cable length in meters for PFC headroom; 0 = from "
     "fabric.link_delay at 1.98e8 m/s", NULL},
    {"fabric.switch", T_TEXT, FIELD(fabric.switch_profile), "CX732Q-N", NULL,
     NULL, "switch profile from the catalog (ckptnet catalog; docs/switches.md)",
     NULL},
    {"fabric.leaf_switch", T_TEXT, FIELD(fabric.leaf_switch), "CX732Q-N", NULL,
     NULL, "leaf switch profile; default fabric.switch", NULL},
    {"fabric.spine_switch", T_TEXT, FIELD(fabric.spine_switch), "CX732Q-N",
     NULL, NULL, "spine switch profile; default fabric.switch", NULL},
    {"fabric.mmu.reserve", T_SIZE, FIELD(fabric.mmu_reserve), "4KB", NULL,
     "1GB", "guaranteed buffer per (ingress port, priority group)", NULL},
    {"fabric.mmu.alpha", T_REAL, FIELD(fabric.mmu_alpha), "1", "0.0001",
     "1024", "dynamic threshold alpha of lossless ingress priority groups "
     "(SONiC dynamic_th 0)", NULL},
    {"fabric.mmu.lossy_alpha", T_REAL, FIELD(fabric.mmu_lossy_alpha), "8",
     "0.0001", "1024", "dynamic threshold alpha of lossy egress queues "
     "(SONiC dynamic_th 3)", NULL},
    {"fabric.mmu.pools", T_ENUM, FIELD(fabric.mmu_pools), "shared", NULL, NULL,
     "shared: one buffer pool per switch; per_class: the buffer split in equal "
     "shares, one pool per lossless priority and one for the lossy ones", &names_mmu_pools},
    {"fabric.ecn.enabled", T_BOOL, FIELD(fabric.ecn), "true", NULL, NULL,
     "RED/ECN marking on egress queues, at dequeue", NULL},
    {"fabric.ecn.kmin", T_SIZE, FIELD(fabric.ecn_kmin), "0", NULL, "1GB",
     "queue depth where marking starts; 0 = 100KB x speed/25G", NULL},
    {"fabric.ecn.kmax", T_SIZE, FIELD(fabric.ecn_kmax), "0", NULL, "1GB",
     "queue depth where marking reaches pmax; 0 = 400KB x speed/25G", NULL},
    {"fabric.ecn.pmax", T_REAL, FIELD(fabric.ecn_pmax), "0.2", "0", "1",
     "marking probability at kmax (every packet is marked above kmax)", NULL},
    {"fabric.scheduling", T_ENUM, FIELD(fabric.scheduling), "dwrr", NULL, NULL,
     "egress scheduling between priorities: strict or dwrr (deficit weighted "
     "round robin); the CNP priority is always strict", &names_sched},
    {"fabric.dwrr_weights", T_TEXT, FIELD(fabric.dwrr_weights),
     "1,1,1,1,1,1,1,1", NULL, NULL, "DWRR weights of priorities 0-7", NULL},
    {"fabric.isolation", T_ENUM, FIELD(training.isolation), "logical", NULL, NULL,
     "training traffic (training.traffic) against the checkpoint: physical (its own "
     "fabric, not this one), logical (this fabric, its own class training.priority) "
     "or none (the checkpoint's class)", &names_isolation},

    {"fabric.links_per_spine", T_COUNT, FIELD(fabric.links_per_spine), "1", "1",
     "64", "parallel links between each leaf and each spine", NULL},
    {"fabric.failed_links", T_COUNT, FIELD(fabric.failed_links), "0", NULL,
     "100000", "that many leaf-spine (three tiers: and spine-super-spine) links, "
     "chosen with the seed, are down", NULL},
    {"fabric.failed_link_names", T_TEXT, FIELD(fabric.failed_link_names), "none",
     NULL, NULL, "links that are down, e.g. \"cleaf0-spine3,sleaf0-spine1#1\" or a "
     "YAML list of names (#j: the j-th parallel link, from 0); none = no named failures",
     .word = LIST},
    {"fabric.load_balancing", T_ENUM, FIELD(fabric.load_balancing), "ecmp", NULL,
     NULL, "choice among equal-cost next hops: ecmp (5-tuple hash), wcmp (hash "
     "weighted by capacity), flowlet, adaptive (quality bands, as DLB), spray "
     "(per packet)", &names_lb},
    {"fabric.lb.flowlet_timeout", T_TIME, FIELD(fabric.flowlet_timeout_ps), "100us",
     "1ns", "1000s", "a gap longer than this starts a new flowlet (ns-3 code: "
     "100us; Broadcom DLB: 256us)", NULL},
    {"fabric.lb.flowlet_table", T_COUNT, FIELD(fabric.flowlet_table), "256", "1",
     "16777216", "flowlet table entries per switch; flows that hash to one entry "
     "share it (DLB: 256)", NULL},
    {"fabric.lb.adaptive_per_packet", T_BOOL, FIELD(fabric.adaptive_per_packet),
     "false", NULL, NULL, "adaptive: choose per packet instead of per flowlet", NULL},
    {"fabric.lb.spray_random", T_BOOL, FIELD(fabric.spray_random), "false", NULL,
     NULL, "spray: random next hop instead of round robin", NULL},
    {"fabric.trim.enabled", T_BOOL, FIELD(fabric.trim), "false", NULL, NULL,
     "packet trimming (UEC; SAI's drop-and-trim): a data packet of a lossy class "
     "that the switch would drop is cut to its headers and forwarded on the control "
     "priority (transport.cnp_priority), and its receiver asks for it at once; "
     "needs transport.receiver: uec", NULL},
    {"fabric.trim.threshold", T_SIZE, FIELD(fabric.trim_threshold), "0", NULL, "1GB",
     "trim a data packet when its egress queue would pass this many bytes; 0 = only "
     "where it would be dropped (Spectrum-4, SAI admission-fail action)", NULL},
    {"fabric.lb.queue_step", T_SIZE, FIELD(fabric.lb_queue_step), "32KB", "1B",
     "1GB", "adaptive: queue depth per quality band (bands 0-7)", NULL},
    {"fabric.lb.load_window", T_TIME, FIELD(fabric.lb_load_window_ps), "10us",
     "1ns", "1s", "adaptive: time constant of the port-load EWMA", NULL},
    {"fabric.tiers", T_ENUM, FIELD(fabric.tiers), "2", NULL, NULL,
     "2: leaf-spine; 3: pods of leaves and spines under super-spines (spine i "
     "of every pod connects to super-spine plane i); auto: the smallest Clos "
     "the switch profiles allow at fabric.oversubscription", &names_tiers},
    {"fabric.pods", T_UINT, FIELD(fabric.pods), "0", NULL, "65536",
     "three tiers: compute pods; 0 = from fabric.leaves_per_pod", NULL},
    {"fabric.leaves_per_pod", T_UINT, FIELD(fabric.leaves_per_pod), "0", NULL,
     "65536", "three tiers: compute leaves per pod (and storage leaves per "
     "storage pod); 0 = from fabric.pods", NULL},
    {"fabric.spines_per_pod", T_UINT, FIELD(fabric.spines_per_pod), "0", NULL,
     "4096", "three tiers: spines in each pod, one super-spine plane each; "
     "0 = fabric.spines", NULL},
    {"fabric.superspines", T_UINT, FIELD(fabric.superspines), "0", NULL, "65536",
     "three tiers: super-spines in each plane, each with one link to its "
     "plane's spine in every pod; 0 = 1:1 at the spines", NULL},
    {"fabric.spine_uplink_speed", T_RATE, FIELD(fabric.spine_uplink_bps), "0",
     NULL, "100Tbps", "line rate of each spine-super-spine link; 0 = "
     "fabric.uplink_speed", NULL},
    {"fabric.storage_pods", T_ENUM, FIELD(fabric.storage_pods), "pod", NULL,
     NULL, "three tiers: storage leaves in pods of their own (pod) or dealt "
     "over the compute pods (spread)", &names_storage_pods},
    {"fabric.links_per_superspine", T_COUNT, FIELD(fabric.links_per_super), "1", "1",
     "64", "three tiers: parallel links between each spine and each super-spine "
     "of its plane", NULL},
    {"fabric.breakout", T_COUNT, FIELD(fabric.breakout), "1", "1", "4",
     "each switch port runs as 1, 2 or 4 ports of 1/breakout its speed (64 x "
     "800G as 128 x 400G); links run at that lane speed unless their speed key is set",
     NULL},
    {"fabric.leaf_down_breakout", T_UINT, FIELD(fabric.leaf_down_breakout), "0", NULL, "4",
     "breakout of a leaf's host (NIC) ports: 1, 2 or 4; 0 = fabric.breakout", NULL},
    {"fabric.leaf_up_breakout", T_UINT, FIELD(fabric.leaf_up_breakout), "0", NULL, "4",
     "breakout of a leaf's uplinks: 1, 2 or 4; 0 = fabric.breakout", NULL},
    {"fabric.spine_breakout", T_UINT, FIELD(fabric.spine_breakout), "0", NULL, "4",
     "breakout of spine and super-spine ports: 1, 2 or 4; 0 = fabric.breakout", NULL},
    {"fabric.allow_oversize", T_BOOL, FIELD(fabric.allow_oversize), "false", NULL,
     NULL, "a switch that needs more or faster ports than its profile has: warn "
     "(what-if) instead of refusing the fabric", NULL},
    {"fabric.oversubscription", T_REAL, FIELD(fabric.oversubscription), "1", "1",
     "64", "fabric.tiers auto: compute leaves' host capacity over uplink capacity "
     "(storage leaves and spines 1:1)", NULL},
    {"fabric.superspine_switch", T_TEXT, FIELD(fabric.superspine_switch), "CX732Q-N",
     NULL, NULL, "super-spine profile (ports and speed; latency and buffer are the "
     "spine's); default fabric.spine_switch", NULL},
    {"fabric.topology_file", T_TEXT, FIELD(fabric.topology_file), "none", NULL, NULL,
     "a topology file (JSON as describe --topology-out writes, or .yaml) to run instead "
     "of the built fabric; relative to the scenario file (--set: the working directory); "
     "none = build from the fabric keys",
     NULL},
    {"transport.protocol", T_ENUM, FIELD(transport.protocol), "roce", NULL, NULL,
     "the packets' protocol and framing: roce (RoCEv2; fabric.mtu is the path MTU "
     "of payload, 82 wire bytes around it); tcp (fabric.mtu is the IP MTU, MSS = "
     "MTU - 52, 90 wire bytes a segment); uec (Ultra Ethernet: fabric.mtu of payload, "
     "122 wire bytes around it; defaults PFC off, transport.receiver uec, spray over 256 "
     "entropies, trimming on; keys you set win)", &proto_names},
    {"transport.receiver", T_ENUM, FIELD(transport.receiver), "gbn", NULL, NULL,
     "gbn: RoCE RC go-back-N (NAK on a gap, later packets dropped, sender "
     "rewinds); ooo: out-of-order placement; uec: Ultra Ethernet's (out-of-order "
     "placement, a NACK per trimmed packet, selective resends, no NAK on a gap); tcp: TCP's cumulative and delayed "
     "ACKs (dctcp and cubic always use it)", &receiver_names},
    {"transport.nak_interval", T_TIME, FIELD(transport.nak_interval_ps), "10us",
     "0", "1s", "a receiver repeats a NAK for the same gap at most this "
     "often (ooo NAKs only on a class that can drop)", NULL},
    {"transport.ack_timeout", T_COUNT, FIELD(transport.ack_timeout), "20", "1", "24",
     "go-back-N on a class that can drop: local ACK timeout exponent n, a resend "
     "from the last acknowledged PSN after 4.096 us x 2^n without progress (20 = "
     "4.295 s: NCCL's NCCL_IB_TIMEOUT default; IB's 0, no timeout, and past 24, "
     "68.7 s, are not offered)", NULL},
    {"transport.retry_count", T_COUNT, FIELD(transport.retry_count), "7", "0", "7",
     "timeouts in a row a queue pair retries before it fails the transfer (retry "
     "exceeded; NCCL's NCCL_IB_RETRY_CNT default 7)", NULL},
    {"transport.sack_timeout", T_TIME, FIELD(transport.sack_timeout_ps), "auto", "1us",
     "10s", "ooo and uec receivers on a class that can drop: the retransmission timeout; "
     "auto = ooo 320 us (IRN's RTO_high), uec 15 us + 6 drains of the deepest queue a "
     "port holds at the slower host link (htsim's UEC: a queue of fabric.trim.threshold "
     "where set, else the lossy share of the larger switch buffer)", NULL, "auto"},
    {"transport.rto", T_ENUM, FIELD(transport.rto_mode), "fixed", NULL, NULL,
     "loss recovery's retransmission timer: fixed, the receiver kind's timer as set "
     "(transport.ack_timeout, sack_timeout, tcp.rto_min); adaptive, per queue pair "
     "max(that timer, SRTT + 4 RTTVAR) from its ACKs' round trips (RFC 6298's "
     "estimator, one packet timed a round trip, none across a resend), doubled at "
     "each timeout in a row up to 64x (as NICs' adaptive retransmission): a timer "
     "set for an idle path that a queue outlasts then resends no packet still queued",
     &names_rto_mode},
    {"transport.sack_window", T_COUNT, FIELD(transport.sack_window), "65536", "64",
     "16777216", "ooo on a class that can drop: packets the receiver holds past its "
     "first missing one (a bitmap per flow; later ones are dropped and asked for again)",
     NULL},
    {"transport.uec.entropies", T_COUNT, FIELD(transport.uec.entropies), "0", NULL,
     "65536", "spray: the sender cycles its packets through this many entropy values "
     "and switches hash each with the flow (UEC oblivious spraying; htsim: 256); "
     "0 = round robin by PSN", NULL},
    {"transport.uec.ack_bytes", T_SIZE, FIELD(transport.uec.ack_bytes), "16KB", "1B", "1GB",
     "uec receiver on a class that can drop: an ACK each time this many more bytes are "
     "accepted in any order, with the cumulative PSN and the selective ACK (ACK "
     "coalescing; htsim's UEC sink: 16 KB); at least one a packet; with "
     "transport.uec.sack false, this many more bytes in order",
     NULL},
    {"transport.uec.lb", T_ENUM, FIELD(transport.uec.lb), "oblivious", NULL, NULL,
     "uec spraying: oblivious (each packet's entropy from its PSN) or reps (REPS: "
     "recycle the entropies whose ACKs came back unmarked, else explore a new one; "
     "needs 1-256 entropies); either way a resend avoids the entropy that failed",
     &names_uec_lb},
    {"transport.uec.reps_buffer", T_COUNT, FIELD(transport.uec.reps_buffer), "8", "1", "64",
     "uec.lb reps: unmarked entropies a sender keeps to recycle (oldest first)", NULL},
    {"transport.uec.sack", T_BOOL, FIELD(transport.uec.sack), "true", NULL, NULL,
     "uec receiver on a class that can drop: its ACKs' selective acknowledgements "
     "(UEC's SACK bitmap): a retransmission timeout resends from the cumulative ACK "
     "but passes the packets an ACK heard had reported held; false = resend "
     "everything past the cumulative ACK", NULL},
    {"transport.uec.rccc", T_BOOL, FIELD(transport.uec.rccc), "false", NULL, NULL,
     "RCCC (UEC receiver credits): each receiver grants its senders credit, its line "
     "rate shared round robin among those that asked; a sender sends new data (and "
     "NACKed resends) only against credit, and under NSCC also within its window; "
     "needs transport.protocol: uec", NULL},
    {"transport.uec.rccc_pull", T_COUNT, FIELD(transport.uec.rccc_pull), "4", "1", "256",
     "RCCC: packets of credit per grant (htsim's UEC pull pacer: 4 MTU)", NULL},
    {"transport.uec.rccc_rate", T_REAL, FIELD(transport.uec.rccc_rate), "0.99", "0.1", "1",
     "RCCC: a receiver grants credit at this share of its line rate (htsim's pull "
     "pacer: 0.99)", NULL},
    {"transport.uec.rccc_initial", T_SIZE, FIELD(transport.uec.rccc_initial), "0", NULL,
     "1GB", "RCCC: credit a sender starts with, before any grant (whole packets, at "
     "least one: its first packet asks for the rest); 0 = one BDP of its unloaded "
     "round trip at its line rate", NULL},
    {"transport.qps_per_writer", T_COUNT, FIELD(transport.qps_per_writer), "1",
     "1", "1024", "queue pairs each transfer is split over, each with its own "
     "UDP source port (ECMP entropy)", NULL},
    {"transport.cc", T_ENUM, FIELD(transport.cc), "none", NULL, NULL,
     "congestion control: none (line rate, PFC only), dcqcn, hpcc (HPCC from per-hop INT), "
     "nscc (UEC's window on ECN and delay), swift (delay-based window), dctcp or cubic "
     "(TCP: a window, delayed ACKs, fast retransmit and the TCP receiver)", &cc_names},
    {"transport.data_priority", T_COUNT, FIELD(transport.data_priority), "3",
     "0", "7", "802.1p priority of checkpoint writes", NULL},
    {"transport.data_dscp", T_COUNT, FIELD(transport.data_dscp), "26", "0",
     "63", "DSCP of checkpoint writes (switches map it to data_priority)", NULL},
    {"transport.cnp_priority", T_COUNT, FIELD(transport.cnp_priority), "6",
     "0", "7", "802.1p priority of CNPs (NVIDIA default 6)", NULL},
    {"transport.cnp_dscp", T_COUNT, FIELD(transport.cnp_dscp), "48", "0",
     "63", "DSCP of CNPs (NVIDIA default 48)", NULL},
    {"transport.dcqcn.preset", T_ENUM, FIELD(transport.dcqcn.preset), "nvidia",
     NULL, NULL, "DCQCN defaults: nvidia (ConnectX) or paper (SIGCOMM 2015); "
     "every transport.dcqcn key you set overrides it", &names_dcqcn_preset},
    {"transport.dcqcn.g", T_REAL, FIELD(transport.dcqcn.g), "0.0048828125",
     "0.000001", "1", "alpha gain g (preset)", NULL},
    {"transport.dcqcn.initial_alpha", T_REAL, FIELD(transport.dcqcn.initial_alpha),
     "0.9990234375", "0", "1", "alpha of a new flow (preset)", NULL},
    {"transport.dcqcn.alpha_period", T_TIME, FIELD(transport.dcqcn.alpha_period_ps),
     "1us", "1ns", "1s", "K: alpha decays once per period without CNP (preset)", NULL},
    {"transport.dcqcn.timer", T_TIME, FIELD(transport.dcqcn.timer_ps), "300us",
     "1ns", "10s", "T: rate-increase timer (preset)", NULL},
    {"transport.dcqcn.byte_counter", T_SIZE, FIELD(transport.dcqcn.byte_counter),
     "0", NULL, "1TB", "B: rate-increase byte counter; 0 = none (preset)", NULL},
    {"transport.dcqcn.f", T_COUNT, FIELD(transport.dcqcn.f), "1", "1", "1000",
     "F: fast-recovery stages (preset)", NULL},
    {"transport.dcqcn.rai", T_RATE, FIELD(transport.dcqcn.rai_bps), "5Mbps",
     "1bps", "100Tbps", "additive increase step R_AI (preset)", NULL},
    {"transport.dcqcn.rhai", T_RATE, FIELD(transport.dcqcn.rhai_bps), "50Mbps",
     "1bps", "100Tbps", "hyper increase step R_HAI (preset)", NULL},
    {"transport.dcqcn.rmin", T_RATE, FIELD(transport.dcqcn.rmin_bps), "1Mbps",
     "1bps", "100Tbps", "minimum rate (preset)", NULL},
    {"transport.dcqcn.clamp_target", T_BOOL, FIELD(transport.dcqcn.clamp_target),
     "false", NULL, NULL, "true: RT <- RC at every rate cut (paper); false: only "
     "when the timer raised the rate since the last cut (ConnectX clamp_tgt_rate "
     "0, clamp_tgt_rate_after_time_inc 1) (preset)", NULL},
    {"transport.dcqcn.decrease_period", T_TIME,
     FIELD(transport.dcqcn.decrease_period_ps), "4us", "0", "1s",
     "at most one rate decrease per period (preset)", NULL},
    {"transport.dcqcn.cnp_interval", T_TIME, FIELD(transport.dcqcn.cnp_interval_ps),
     "4us", "0", "1s", "receiver sends at most one CNP per flow per interval "
     "(preset)", NULL},
    {"transport.tcp.init_cwnd", T_COUNT, FIELD(transport.tcp.init_cwnd), "10", "1",
     "65536", "dctcp, cubic: initial window in segments (RFC 6928, Linux TCP_INIT_CWND)",
     NULL},
    {"transport.tcp.rto_min", T_TIME, FIELD(transport.tcp.rto_min_ps), "200ms", "1us",
     "10s", "dctcp, cubic on a class that can drop: retransmission timeout (Linux "
     "TCP_RTO_MIN; datacenter RTTs are far below it, so RTO = rto_min)", NULL},
    {"transport.tcp.delack_timeout", T_TIME, FIELD(transport.tcp.delack_ps), "40ms",
     "1us", "1s", "dctcp, cubic: a receiver ACKs a lone in-order segment after this "
     "(Linux TCP_DELACK_MIN; RFC 1122 allows up to 500 ms)", NULL},
    {"transport.tcp.delack_segments", T_COUNT, FIELD(transport.tcp.delack_segments), "2",
     "1", "64", "dctcp, cubic: a receiver ACKs every n-th in-order segment at once "
     "(RFC 5681: at least every second full-sized segment; 1 = no delayed ACKs)", NULL},
    {"transport.tcp.dupack_threshold", T_COUNT, FIELD(transport.tcp.dupack_threshold),
     "3", "1", "1000", "dctcp, cubic: duplicate ACKs that trigger fast retransmit "
     "(RFC 5681)", NULL},
    {"transport.tcp.pacing", T_REAL, FIELD(transport.tcp.pacing), "1.2", "0", "10",
     "dctcp, cubic: the sender paces at this x cwnd / SRTT, 2x in slow start (Linux "
     "with the fq qdisc: tcp_pacing_ca_ratio 120, tcp_pacing_ss_ratio 200); 0 = no "
     "pacing, window bursts at line rate", NULL},
    {"transport.dctcp.g", T_REAL, FIELD(transport.dctcp.g), "0.0625", "0.000001", "1",
     "DCTCP's alpha gain g (RFC 8257, Linux dctcp_shift_g 4: 1/16)", NULL},
    {"transport.dctcp.initial_alpha", T_REAL, FIELD(transport.dctcp.initial_alpha), "1",
     "0", "1", "DCTCP's alpha of a new connection (RFC 8257, Linux dctcp_alpha_on_init "
     "1024/1024)", NULL},
    {"transport.cubic.c", T_REAL, FIELD(transport.cubic.c), "0.4", "0.0001", "100",
     "CUBIC's C in segments/s^3 (RFC 9438)", NULL},
    {"transport.cubic.beta", T_REAL, FIELD(transport.cubic.beta), "0.7", "0.1", "0.99",
     "CUBIC's multiplicative decrease factor (RFC 9438)", NULL},
    {"transport.cubic.fast_convergence", T_BOOL, FIELD(transport.cubic.fast_convergence),
     "true", NULL, NULL, "CUBIC's fast convergence (RFC 9438 4.7; Linux default on)", NULL},
    {"transport.dcqcn.cnp_path", T_ENUM, FIELD(transport.dcqcn.cnp_path), "auto", NULL,
     NULL, "packet engine: fabric (CNPs cross the reverse path hop by hop: queues, "
     "buffers, port counters, captures), direct (each arrives after its path's "
     "unloaded latency, never queued or paused, seen by no port: DCQCN runs ~1.5x "
     "faster) or auto (direct unless training traffic shares the reverse paths or "
     "telemetry.pcap.ports captures; docs/engine.md)", &names_cnp_path},
    {"transport.ack_path", T_ENUM, FIELD(transport.ack_path), "auto", NULL, NULL,
     "packet engine: fabric (ACKs and NACKs cross the reverse path hop by hop: queues, "
     "port counters, captures), direct (each reaches its sender after the reverse "
     "path's unloaded latency as one event, carrying what the packet would: never "
     "queued, seen by no port) or auto (direct for a window transport -- hpcc, nscc, "
     "swift, dctcp, cubic -- unless training traffic shares the reverse paths or "
     "telemetry.pcap.ports captures; fabric otherwise; docs/engine.md)", &names_ack_path},
    /* Swift (Kumar et al., SIGCOMM 2020); the paper publishes the
     * equations, not Google's values: ai, beta, max_mdf, base target, the
     * per-hop scale (base / 6.55), fs_range (5 x base) and the initial
     * window are htsim's swift.cpp defaults, fs_min/max_cwnd the paper's */
    {"transport.swift.base_target", T_TIME, FIELD(transport.swift.base_target_ps), "20us",
     "1ns", "1s", "Swift: fabric target delay before hop and flow scaling (htsim)", NULL},
    {"transport.swift.hop_scale", T_TIME, FIELD(transport.swift.hop_scale_ps), "3053ns",
     "0", "1s", "Swift: target delay added per switch on the path (htsim: base_target / "
     "6.55)", NULL},
    {"transport.swift.fs_range", T_TIME, FIELD(transport.swift.fs_range_ps), "100us", "0",
     "1s", "Swift: most target delay flow scaling adds, at fs_min_cwnd (htsim: 5 x "
     "base_target)", NULL},
    {"transport.swift.fs_min_cwnd", T_REAL, FIELD(transport.swift.fs_min_cwnd), "0.1",
     "0.001", "1000000", "Swift: window (packets) at which flow scaling reaches fs_range "
     "(paper)", NULL},
    {"transport.swift.fs_max_cwnd", T_REAL, FIELD(transport.swift.fs_max_cwnd), "100",
     "0.001", "1000000", "Swift: window (packets) at which flow scaling reaches 0 (paper)",
     NULL},
    {"transport.swift.endpoint_target", T_TIME, FIELD(transport.swift.endpoint_target_ps),
     "20us", "1ns", "1s", "Swift: target of the endpoint delay (the wait in the receiving "
     "storage node's ingest buffer) for the endpoint window (ours: base_target)", NULL},
    {"transport.swift.ai", T_REAL, FIELD(transport.swift.ai), "1", "0.000001", "1000",
     "Swift: additive increase, packets per RTT (htsim)", NULL},
    {"transport.swift.beta", T_REAL, FIELD(transport.swift.beta), "0.8", "0.000001", "1",
     "Swift: multiplicative decrease gain (htsim)", NULL},
    {"transport.swift.max_mdf", T_REAL, FIELD(transport.swift.max_mdf), "0.5", "0.000001",
     "0.999", "Swift: largest fraction one decrease takes off the window (htsim)", NULL},
    {"transport.swift.init_cwnd", T_REAL, FIELD(transport.swift.init_cwnd), "12", "0.001",
     "256", "Swift: a flow's first window, packets (htsim)", NULL},
    {"transport.swift.min_cwnd", T_REAL, FIELD(transport.swift.min_cwnd), "0.001", "0.0001",
     "256", "Swift: smallest window, packets; below 1 the sender paces one packet per "
     "RTT / cwnd (ours)", NULL},
    {"transport.swift.max_cwnd", T_REAL, FIELD(transport.swift.max_cwnd), "256", "1", "256",
     "Swift: largest window, packets (the packet engine keeps 256 send stamps per flow)",
     NULL},
    {"transport.swift.ack_ratio", T_COUNT, FIELD(transport.swift.ack_ratio), "4", "1", "64",
     "Swift: data packets per ACK (coalesced ACKs, as NICs send them; a packet that fills "
     "the window and a transfer's last packet are always ACKed); 1 = an ACK per packet",
     NULL},

    {"transport.hpcc.eta", T_REAL, FIELD(transport.hpcc.eta), "0.95", "0.5", "1",
     "HPCC target utilisation eta of the most utilised hop (paper 95%)", NULL},
    {"transport.hpcc.max_stage", T_COUNT, FIELD(transport.hpcc.max_stage), "5", "0", "1000",
     "HPCC additive increases in a row before a multiplicative update while under eta "
     "(paper maxStage 5)", NULL},
    {"transport.hpcc.rai", T_RATE, FIELD(transport.hpcc.rai_bps), "0", "0", "100Tbps",
     "HPCC additive increase as a rate: W_AI = rai x T; 0 = 10 Mbps per 25 Gbps of the "
     "NIC's line rate (the authors' ns-3 run.py)", NULL},
    {"transport.hpcc.rmin", T_RATE, FIELD(transport.hpcc.rmin_bps), "100Mbps", "1bps",
     "100Tbps", "HPCC minimum rate: the window stays at least rmin x T (ns-3 RdmaHw "
     "MinRate)", NULL},
    {"transport.hpcc.base_rtt", T_TIME, FIELD(transport.hpcc.base_rtt_ps), "0", "0", "1s",
     "HPCC T, the base RTT: W_init = line rate x T, rate = W / T; 0 = each flow's "
     "unloaded RTT (an MTU packet out, its ACK back)", NULL},
    {"transport.hpcc.ack_interval", T_COUNT, FIELD(transport.hpcc.ack_interval), "1", "1",
     "64", "HPCC: data packets per ACK (each ACK carries its packet's INT; ns-3 "
     "L2_ACK_INTERVAL 1)", NULL},
    {"transport.nscc.target_delay", T_TIME, FIELD(transport.nscc.target_ps), "auto",
     "1ns", "1s", "NSCC: queueing delay above which an ACK counts as delayed (the "
     "quadrants' line); auto = the flow's base RTT (htsim uec.cpp without trimming)",
     NULL, "auto"},
    {"transport.nscc.base_rtt", T_TIME, FIELD(transport.nscc.base_rtt_ps), "auto", "1ns",
     "1s", "NSCC: the unloaded RTT a flow starts from (lowered by every smaller sample); "
     "auto = its path's serialisations, cable delays and switch latencies both ways",
     NULL, "auto"},
    {"transport.nscc.gamma", T_REAL, FIELD(transport.nscc.gamma), "0.8", "0.01", "1",
     "NSCC: multiplicative decrease gain, cwnd x max(1 - gamma (avg - target) / avg, "
     "0.5) (htsim uec.cpp)", NULL},
    {"transport.nscc.delay_alpha", T_REAL, FIELD(transport.nscc.delay_alpha), "0.0125",
     "0.0001", "1", "NSCC: EWMA gain of the average queueing delay (htsim uec.cpp)", NULL},
    {"transport.nscc.max_window", T_REAL, FIELD(transport.nscc.max_bdp), "1.5", "0.1",
     "16", "NSCC: maximum window in BDPs of the flow (line rate x base RTT; htsim "
     "uec.cpp 1.5), at most 256 packets", NULL},
    {"transport.nscc.initial_window", T_SIZE, FIELD(transport.nscc.initial_window), "0",
     NULL, "1GB", "NSCC: window a flow starts with; 0 = the maximum window (UEC "
     "senders start at line rate)", NULL},
    {"transport.nscc.ack_every", T_COUNT, FIELD(transport.nscc.ack_every), "4", "1",
     "64", "NSCC: the receiver ACKs every that many packets, the last one, and one "
     "the sender asks for when its window is full (ACK coalescing; an ACK is "
     "marked when a packet it covers was; 1 = an ACK per packet)", NULL},
    {"transport.nscc.qa_gate", T_COUNT, FIELD(transport.nscc.qa_gate), "3", "0", "16",
     "NSCC: quick adapt resets the window to what was delivered when that is below "
     "the maximum window / 2^qa_gate (htsim uec.cpp 3)", NULL},
    {"transport.nscc.quick_adapt", T_BOOL, FIELD(transport.nscc.quick_adapt), "true",
     NULL, NULL, "NSCC: quick adapt on (a loss, or a delay above 4 x target)", NULL},
    {"transport.nscc.decrease", T_ENUM, FIELD(transport.nscc.decrease), "ack", NULL, NULL,
     "NSCC multiplicative decrease: ack (every marked ACK above the target cuts in "
     "proportion to the bytes it acknowledges, cwnd -= min(gamma (avg - target) / "
     "avg, 0.5) x acked, so a window of such ACKs cuts about as much as one cut, and "
     "eta is owed per byte acknowledged: UEC's per-ACK rule) or rtt (at most one cut "
     "per base RTT and eta once per base RTT, htsim uec.cpp)", &names_nscc_decrease},

    {"telemetry.interval", T_TIME, FIELD(telemetry.interval_ps), "0", NULL,
     "1000s", "sampling interval of the time series (queues, pauses, throughput per "
     "segment, bytes to write; flow rates with telemetry.flows); 0 = off", NULL},
    {"telemetry.hot_ports", T_COUNT, FIELD(telemetry.hot_ports), "8", "1", "64",
     "ports whose queue is reported over time: the K with the largest peak "
     "queue (CSV queues.csv, HTML report)", NULL},
    {"telemetry.flows", T_BOOL, FIELD(telemetry.flows), "false", NULL, NULL,
     "also sample every transfer's sending rate and bytes received (memory: "
     "transfers x samples x 16 B)", NULL},
    {"telemetry.ports", T_BOOL, FIELD(telemetry.ports), "false", NULL, NULL,
     "keep every port's counters in the results (JSON network.ports)", NULL},
    {"telemetry.pcap.ports", T_TEXT, FIELD(telemetry.pcap_ports), "none", NULL, NULL,
     "ports whose frames --pcap writes, one pcap file each, comma separated, named as "
     "in ports.csv: \"spine0-sleaf0,sleaf0-stor0\" (#j: the j-th parallel link; "
     "spine*: every spine)", .word = LIST},
    {"telemetry.pcap.max_packets", T_COUNT, FIELD(telemetry.pcap_max_packets), "1000",
     "1", "10000000", "frames each capture file keeps at most (the first ones; a data "
     "frame takes fabric.mtu + 90 bytes)", NULL},
    {"telemetry.pcap.filter", T_ENUM, FIELD(telemetry.pcap_filter), "all", NULL, NULL,
     "frames --pcap keeps: all, or control (PFC pause frames and CNPs only: steady-state "
     "PFC without the data)", &names_pcap_filter},
    {"telemetry.pcap.start", T_TIME, FIELD(telemetry.pcap_start_ps), "0", NULL, "100000s",
     "--pcap keeps frames whose first bit reaches the port at or after this time", NULL},
    {"telemetry.pcap.stop", T_TIME, FIELD(telemetry.pcap_stop_ps), "0", NULL, "100000s",
     "... and before this time; 0 = until the run ends", NULL},
    {"sim.time_limit", T_TIME, FIELD(sim.time_limit_ps), "0", NULL, "100000s",
     "simulated time at which a run that has not finished stops (pause storm, "
     "stuck receiver); 0 = 50 x the analytic bound (or the write at the pace a "
     "transport's own settings allow, transport.warning) + 10ms", NULL},
    {"sim.force", T_BOOL, FIELD(sim.force), "false", NULL, NULL,
     "run the packet engine even when its estimate passes 1e9 events or the "
     "machine's memory (ckptnet run --force)", NULL},
    {"sim.event_order", T_ENUM, FIELD(sim.event_order), "window", NULL, NULL,
     "packet engine: window (each switch's and NIC's events of a link delay run "
     "together: faster) or time (one queue in time order); the same results",
     &names_event_order},
    {"sim.threads", T_COUNT, FIELD(sim.threads), "auto", "1", "8",
     "packet engine, window order: threads that run a window's switches and NICs "
     "(at most the machine's cores: more are slower); the same results; auto = "
     "the cores this process may use that are idle, at most 8 and the leaves, 1 "
     "for runs under a second and inside sweep, tune and size workers",
     NULL, .word = "auto"},
    {"sim.hybrid.period", T_TIME, FIELD(sim.hybrid_period_ps), "0", NULL, "1s",
     "engine hybrid: how often it observes the fabric for a steady state; 0 = auto "
     "(1/256 of the bound, at most 64 round trips, at least 2 DCQCN timer periods); "
     "else at least 100ns", NULL},
    {"sim.hybrid.window", T_COUNT, FIELD(sim.hybrid_window), "4", "1", "64",
     "engine hybrid: periods in each of the two windows a steady state compares", NULL},
    {"sim.hybrid.tolerance", T_REAL, FIELD(sim.hybrid_tolerance), "0.1", "0.001", "0.5",
     "engine hybrid: a transfer's bytes in one window within this fraction of the "
     "other's (and queues growing by less) is steady", NULL},
    {"sim.hybrid.error", T_REAL, FIELD(sim.hybrid_error), "0", "0", "0.5",
     "engine hybrid: jumps stop short of an error estimate (each transfer's rate spread "
     "x the time skipped) above this fraction of the simulated time; 0 = auto (0.02, "
     "0.005 under DCQCN, whose rates recover slowly once a transfer ends)", NULL},

    {"workload.bytes_per_writer", T_SIZE, FIELD(workload.bytes_per_writer),
     "16MB", "1B", "1TB", "checkpoint bytes each compute node writes", NULL},
    {"workload.start_jitter", T_TIME, FIELD(workload.start_jitter_ps), "0",
     NULL, "1000s", "each writer starts at a uniform time in [0, jitter]", NULL},

    {"model.name", T_ENUM, FIELD(model.name), "none", NULL, NULL,
     "none (simple form: workload.bytes_per_writer), a catalog model or custom",
     &names_model},
    {"model.params", T_UINT, FIELD(model.params), "0", NULL, "100000000000000",
     "parameters of a custom model", NULL},
    {"model.weights_dtype", T_ENUM, FIELD(model.weights_dtype), "auto", NULL,
     NULL, "dtype of the saved weights; auto = bf16", &names_dtype},
    {"model.master_dtype", T_ENUM, FIELD(model.master_dtype), "auto", NULL, NULL,
     "dtype of the master weights; auto = fp32, none = no master copy",
     &names_dtype},
    {"model.optimizer_dtype", T_ENUM, FIELD(model.optimizer_dtype), "auto", NULL,
     NULL, "dtype of each optimizer moment; auto = the model's recipe",
     &names_dtype},
    {"model.optimizer", T_ENUM, FIELD(model.optimizer), "adam", NULL, NULL,
     "adam (two moments) or sgd (one momentum buffer)", &names_optimizer},

    {"parallelism.tp", T_COUNT, FIELD(parallelism.tp), "1", "1", "1000000",
     "tensor-parallel degree", NULL},
    {"parallelism.pp", T_COUNT, FIELD(parallelism.pp), "1", "1", "1000000",
     "pipeline-parallel degree", NULL},
    {"parallelism.dp", T_UINT, FIELD(parallelism.dp), "0", NULL, "1000000",
     "data-parallel degree; 0 = GPUs / (tp x pp)", NULL},
    {"parallelism.zero_stage", T_UINT, FIELD(parallelism.zero_stage), "1", NULL,
     "3", "optimizer sharding: 0 none, 1-2 optimizer state, 3 everything", NULL},

    {"checkpoint.writer_rule", T_ENUM, FIELD(checkpoint.writer_rule), "dcp",
     NULL, NULL, "who writes what: dcp, megatron or deepspeed",
     &names_writer_rule},
    {"checkpoint.policy", T_ENUM, FIELD(checkpoint.policy), "sync", NULL, NULL,
     "sync, jitter, stagger, rate_limit, async or hierarchical",
     &names_policy},
    {"checkpoint.groups", T_COUNT, FIELD(checkpoint.groups), "4", "1",
     "1000000", "stagger: groups of writers, started one offset apart", NULL},
    {"checkpoint.offset", T_TIME, FIELD(checkpoint.offset_ps), "0", NULL,
     "1000s", "stagger: offset between groups (0 = auto); jitter: spread", NULL},
    {"checkpoint.jitter_dist", T_ENUM, FIELD(checkpoint.jitter_dist), "uniform",
     NULL, NULL, "jitter: uniform in [0, offset] or exponential of mean offset",
     &names_jitter_dist},
    {"checkpoint.rate_limit", T_RATE, FIELD(checkpoint.rate_limit_bps), "0",
     NULL, "100Tbps", "rate_limit: sending-rate cap per writer", NULL},
    {"checkpoint.trickle_rate", T_RATE, FIELD(checkpoint.trickle_bps), "0", NULL,
     "100Tbps", "hierarchical: cap per node on the drain to storage; 0 = none",
     NULL},
    {"checkpoint.rank_state", T_SIZE, FIELD(checkpoint.rank_state_bytes), "0",
     NULL, "1TB", "model form: small-state file per rank (step, RNG, loader)",
     NULL},
    {"checkpoint.rank_state_files", T_COUNT, FIELD(checkpoint.rank_state_files), "1",
     "1", "64", "model form: the small state as this many files per rank (each "
     "its own create and fsync)", NULL},
    {"checkpoint.phase", T_ENUM, FIELD(checkpoint.phase), "save", NULL, NULL,
     "what to simulate: save (the write), restore (the read back after a "
     "failure) or both, one after the other", &names_phase},
    {"checkpoint.straggler_fraction", T_REAL, FIELD(checkpoint.straggler_fraction),
     "0", "0", "1", "fraction of writers that straggle", NULL},
    {"checkpoint.straggler_delay", T_TIME, FIELD(checkpoint.straggler_delay_ps),
     "0", NULL, "1000s", "a straggler starts this much later", NULL},
    {"checkpoint.straggler_slowdown", T_REAL, FIELD(checkpoint.straggler_slowdown),
     "1", "1", "1000000", "a straggler sends this many times slower", NULL},
    {"checkpoint.mlperf", T_ENUM, FIELD(checkpoint.mlperf), "none", NULL, NULL,
     "an MLPerf Storage checkpoint workload (DLIO): fills model.name, parallelism.* "
     "and writer_rule deepspeed, phase both, restore.mode own_files where unset; "
     "the GPUs must be its ranks; the summary adds rank 0's save time", &names_mlperf},
    {"checkpoint.drain_slowdown", T_REAL, FIELD(checkpoint.drain_slowdown), "0", "0", "1",
     "async, hierarchical: fraction of training throughput lost while the drain "
     "runs (host PCIe and memory contention); 0 = derived from cluster.host_rate, "
     "or none", NULL},

    {"restore.mode", T_ENUM, FIELD(restore.mode), "every_replica", NULL, NULL,
     "every_replica: every data-parallel replica reads the whole checkpoint of "
     "its model-parallel shard; one_replica_broadcast: one replica reads it and "
     "broadcasts it at restore.broadcast_rate; own_files: every rank reads back "
     "the files it wrote (ZeRO-3 sharded loads, MLPerf Storage/DLIO)",
     &names_restore_mode},
    {"restore.read_rate", T_RATE, FIELD(restore.read_bps), "0", NULL, "100Tbps",
     "back-end read rate per storage node, the restore's source cap; 0 = not "
     "limited (both engines)", NULL},
    {"restore.broadcast_rate", T_RATE, FIELD(restore.broadcast_bps), "400Gbps",
     "1bps", "100Tbps", "one_replica_broadcast: rate of the broadcast from the "
     "reading replica to the others over the back-end (training) fabric", NULL},
    {"restore.restart_overhead", T_TIME, FIELD(restore.restart_ps), "300s", NULL,
     "1000000s", "restart before the read: rescheduling, container start, NCCL "
     "init; recovery time = this + the restore", NULL},

    {"training.step_time", T_TIME, FIELD(training.step_ps), "10s", "1ps",
     "100000s", "time of one training step", NULL},
    {"training.mfu", T_REAL, FIELD(training.mfu), "0.4", "0", "1",
     "model FLOPs utilisation while training", NULL},
    {"training.gpu_hour_cost", T_REAL, FIELD(training.gpu_hour_cost), "2", "0",
     "1000000", "money per GPU-hour, in training.currency", NULL},
    {"training.currency", T_TEXT, FIELD(training.currency), "USD", NULL, NULL,
     "currency of training.gpu_hour_cost and every money figure (a code such as "
     "USD, EUR, CNY)", NULL},
    {"training.checkpoint_interval", T_TIME, FIELD(training.interval_ps),
     "1800s", "1ps", "10000000s", "training time between checkpoints", NULL},
    {"training.traffic", T_ENUM, FIELD(training.traffic), "none", NULL, NULL,
     "the training job's own traffic beside the checkpoint: none or collectives "
     "(DP all-reduce, PP activations, all-to-all per step; docs/training.md)",
     &names_traffic},
    {"training.collective", T_ENUM, FIELD(training.collective), "ring", NULL, NULL,
     "DP all-reduce: ring (flat over the group's GPUs) or hierarchical (intra-node "
     "reduce, inter-node ring, intra-node broadcast)", &names_collective},
    {"training.compute_time", T_TIME, FIELD(training.compute_ps), "0", NULL, "100000s",
     "compute part of a step; 0 = step_time less the uncongested communication", NULL},
    {"training.overlap", T_REAL, FIELD(training.overlap), "0", "0", "0.99",
     "fraction of a step's communication hidden behind its compute", NULL},
    {"training.grad_bytes", T_SIZE, FIELD(training.grad_bytes), "0", NULL, "1TB",
     "gradient bytes per GPU in its DP all-reduce per step; 0 = params x weight "
     "bytes / (tp x pp)", NULL},
    {"training.activation_bytes", T_SIZE, FIELD(training.activation_bytes), "0", NULL,
     "1TB", "pipeline activation bytes each GPU sends to its next stage per step "
     "(and as many gradient bytes back)", NULL},
    {"training.alltoall_bytes", T_SIZE, FIELD(training.alltoall_bytes), "0", NULL,
     "1TB", "all-to-all (MoE) bytes each GPU spreads over its DP group per step", NULL},
    {"training.steps", T_UINT, FIELD(training.steps), "0", NULL, "100000",
     "training steps to simulate; 0 = until the checkpoint is done, then one more", NULL},
    {"training.priority", T_COUNT, FIELD(training.priority), "4", "0", "7",
     "802.1p priority of training traffic under fabric.isolation logical", NULL},
    {"training.dscp", T_COUNT, FIELD(training.dscp), "34", "0", "63",
     "DSCP of training traffic under fabric.isolation logical", NULL},

    {"failures.mtbf_per_node", T_REAL, FIELD(failures.mtbf_node_h), "0", "0",
     "1e9", "mean time between failures of one node, hours; 0 = use per GPU",
     NULL},
    {"failures.mtbf_per_gpu", T_REAL, FIELD(failures.mtbf_gpu_h), "50000", "0",
     "1e9", "mean time between failures of one GPU, hours; 0 = use per node",
     NULL},
    {"failures.recovery_time", T_TIME, FIELD(failures.recovery_ps), "auto",
     NULL, "10000000s", "restart after a failure: reschedule, load, warm up; "
     "auto = restore.restart_overhead + the restore (simulated with "
     "checkpoint.phase both, its bound with save)", .word = "auto"},
    {"failures.monte_carlo_days", T_REAL, FIELD(failures.mc_days), "1000", "0",
     "100000", "simulated training days of the failure Monte Carlo; 0 = skip",
     NULL},

    {"cost.prices", T_TEXT, FIELD(cost.prices), "none", NULL, NULL,
     "prices of the bill of materials, in training.currency: NAME=PRICE,... with "
     "NAME a switch profile (per switch) or optic_<speed> such as optic_400g (per "
     "transceiver); reference first loads the shipped indicative list (docs/size.md), "
     "which later items override; none = no capital cost", NULL},
    {"cost.amortisation_years", T_REAL, FIELD(cost.amortisation_years), "5", "0.1",
     "100", "years the fabric's capital cost is spread over (straight line) for "
     "its cost per day", NULL},
    {"cost.compare_policies", T_BOOL, FIELD(cost.compare_policies), "false", NULL, NULL,
     "also run the scenario with checkpoint.policy sync, async and hierarchical and "
     "compare their full daily cost (summary table, cost.policies in the JSON)", NULL},
};
#pragma GCC diagnostic pop

_Static_assert(sizeof(((struct scenario *)0)->fabric.failed_link_names) <= SCENARIO_LIST_TEXT,
               "every text field fits struct kval");
const size_t scn_nkeys = sizeof scn_keys / sizeof scn_keys[0];
_Static_assert(sizeof scn_keys / sizeof scn_keys[0] <= SCENARIO_MAX_KEYS, "raise SCENARIO_MAX_KEYS");

const char *const scn_type_names[] = {
    [T_UINT] = "uint", [T_COUNT] = "count", [T_RATE] = "rate",
    [T_SIZE] = "size", [T_TIME] = "time",   [T_BOOL] = "bool",
    [T_REAL] = "real", [T_ENUM] = "enum",   [T_TEXT] = "text",
};

static uint64_t key_load(const struct scenario *sc, const struct key *k)
{
    const char *p = (const char *)sc + k->off;
    if (k->type == T_BOOL || k->type == T_ENUM) {
        int b;
        memcpy(&b, p, sizeof b);
        return k->type == T_ENUM ? (uint64_t)b : b != 0;
    }
    if (k->width == sizeof(uint32_t)) {
        uint32_t x;
        memcpy(&x, p, sizeof x);
        return x;
    }
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* ---- key names --------------------------------------------------------- */

const struct key *scn_key_find(const char *name, size_t len)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strlen(scn_keys[i].name) == len && memcmp(scn_keys[i].name, name, len) == 0)
            return &scn_keys[i];
    return NULL;
}

/* The first key of section name (len bytes), i.e. the first key that name
 * is followed by '.' in, or NULL when name is no section. */
const struct key *scn_section_key(const char *name, size_t len)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strncmp(scn_keys[i].name, name, len) == 0 && scn_keys[i].name[len] == '.'
            && memchr(name, '\0', len) == NULL)
            return &scn_keys[i];
    return NULL;
}

/* " (did you mean X?)" for an unknown key, or "". Candidates are every key
 * and every section within edit distance 2; failing that, the one key whose
 * last component equals the unknown key's (a key at the wrong level). */
/* Keys that were renamed or merged: the unknown key's hint names the one
 * that replaced it. */
static const struct {
    const char *old, *now, *why;
} replaced[] = {
    {"storage.drives_per_node", "storage.drives",
     "one key for the drives per node: the media stage and the endurance both use it"},
};

void scn_suggest(const char *name, char *out, size_t len)
{
    for (size_t i = 0; i < sizeof replaced / sizeof replaced[0]; i++)
        if (strcmp(name, replaced[i].old) == 0) {
            snprintf(out, len, " (replaced by %s: %s)", replaced[i].now, replaced[i].why);
            return;
        }
    size_t nlen = strlen(name);
    size_t best = 3;
    char cand[PATH_MAX_LEN] = "";
    for (size_t i = 0; i < NKEYS; i++) {
        const char *kn = scn_keys[i].name;
        /* the key itself, then each of its section prefixes */
        for (const char *end = kn + strlen(kn); end > kn;) {
            size_t l = (size_t)(end - kn);
            size_t d = text_distance(name, nlen, kn, l);
            if (d < best) {
                best = d;
                snprintf(cand, sizeof cand, "%.*s", (int)l, kn);
            }
            while (end > kn && end[-1] != '.')
                end--;
            if (end > kn)
                end--; /* drop the '.' */
        }
    }
    if (!cand[0]) {
        const char *last = strrchr(name, '.');
        last = last ? last + 1 : name;
        int found = 0;
        for (size_t i = 0; i < NKEYS; i++) {
            const char *kl = strrchr(scn_keys[i].name, '.');
            kl = kl ? kl + 1 : scn_keys[i].name;
            if (strcmp(kl, last) == 0 && strcmp(scn_keys[i].name, name) != 0) {
                found++;
                snprintf(cand, sizeof cand, "%s", scn_keys[i].name);
            }
        }
        if (found != 1)
            cand[0] = '\0';
    }
    if (cand[0])
        snprintf(out, len, " (did you mean %s?)", cand);
    else if (len)
        out[0] = '\0';
}

/* ---- echo, iteration --------------------------------------------------- */

void scenario_echo(const struct scenario *sc, scenario_emit_fn *emit,
                   void *ud)
{
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &scn_keys[i];
        uint64_t v = key_load(sc, k);
        char buf[SCENARIO_LIST_TEXT + 8];
        const char *p = (const char *)sc + k->off;
        int kind = k->type == T_UINT || k->type == T_COUNT ? SCN_INT : SCN_TEXT;
        switch (k->type) {
        case T_REAL: {
            double d;
            memcpy(&d, p, sizeof d);
            snprintf(buf, sizeof buf, "%.15g", d);
            kind = SCN_REAL;
            break;
        }
        case T_ENUM:
            snprintf(buf, sizeof buf, "%s", names_of(k->names, (int)v));
            break;
        case T_TEXT:
            snprintf(buf, sizeof buf, "%s", p);
            break;
        case T_UINT:
        case T_COUNT:
            if (k->type == T_COUNT && k->word && v == 0) {
                snprintf(buf, sizeof buf, "%s", k->word);
                kind = SCN_TEXT;
            } else
                snprintf(buf, sizeof buf, "%" PRIu64, v);
            break;
        case T_RATE:
            units_fmt_rate_unit(v, sc->rate_unit[i], buf, sizeof buf);
            break;
        case T_SIZE:
            units_fmt_size(v, buf, sizeof buf);
            break;
        case T_TIME:
            if (k->word && v == UINT64_MAX)
                snprintf(buf, sizeof buf, "%s", k->word);
            else
                units_fmt_time(v, buf, sizeof buf);
            break;
        case T_BOOL:
            snprintf(buf, sizeof buf, "%s", v ? "true" : "false");
            break;
        }
        emit(ud, k->name, buf, kind);
    }
}

/* fabric.tiers: each choice's name and switch levels, in the key's order
 * (auto: 0, decided by scenario_resolve) */
static const struct tier_choice {
    const char *name; /* first: the key's names table reads it */
    unsigned levels;
} tier_rows[] = {{"2", 2}, {"3", 3}, {"auto", 0}};
const struct names names_tiers = {tier_rows, sizeof tier_rows[0],
                                  (int)(sizeof tier_rows / sizeof tier_rows[0])};

unsigned scenario_levels(const struct scenario *sc)
{
    unsigned i = (unsigned)sc->fabric.tiers;
    return i < sizeof tier_rows / sizeof *tier_rows && tier_rows[i].levels ? tier_rows[i].levels
                                                                           : 2;
}

int scenario_set_levels(struct scenario *sc, unsigned levels)
{
    for (size_t i = 0; levels && i < sizeof tier_rows / sizeof *tier_rows; i++)
        if (tier_rows[i].levels == levels) {
            sc->fabric.tiers = (int)i;
            return 0;
        }
    return -1;
}

void scenario_keys(scenario_key_fn *fn, void *ud)
{
    for (size_t i = 0; i < NKEYS; i++)
        fn(ud, scn_keys[i].name, scn_type_names[scn_keys[i].type], scn_keys[i].def,
           scn_keys[i].min, scn_keys[i].max, scn_keys[i].doc);
}

const struct names *scenario_key_names(const char *key)
{
    const struct key *k = scn_key_find(key, strlen(key));
    return k && k->type == T_ENUM ? k->names : NULL;
}
