/* Workload: the checkpoint burst as a list of transfers, engine-agnostic.
 *
 * From the plan (src/work/plan.h: who writes how many bytes in which files)
 * to transfers: each file is striped over storage.stripe_count storage
 * nodes (one transfer per stripe); a rank sends from its node's NIC; the
 * policy sets start offsets and rate caps; a storage node creates files one
 * at a time (storage.file_open_cost), and a file's transfers start when it
 * exists. A writer's completion is the end of its last transfer.
 * docs/checkpoint.md has the rules.
 *
 * Simple form (model.name: none): writer i = compute node i writes one
 * file to storage node i mod M, starting at a uniform offset in
 * [0, start_jitter]; the default scenario is exactly this.
 */
#ifndef CKPT_WORK_H
#define CKPT_WORK_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../topo/topo.h"
#include "plan.h"

/* 40 bytes: what every engine reads of each transfer. A transfer's file
 * and the transfer a replica forward is fed by follow from its place in
 * the list (workload_file, workload_feed), not stored each. */
struct transfer {
    uint32_t src, dst;   /* topology node ids */
    uint32_t writer;     /* the writer (rank) it belongs to, < n_writers */
    uint16_t sport;      /* UDP source port of its queue pair */
    uint8_t prio;        /* 0 = transport.data_priority, else 802.1p priority + 1 */
    uint8_t kind : 7;    /* enum xfer_kind: data, or protection (protect.h) */
    uint8_t feed : 1;    /* a replica forward: sends on its feed's arrivals
                          * (workload_feed names it) */
    uint64_t bytes;      /* payload */
    /* its start and its sending-rate cap: workload_start, workload_rate */
};
_Static_assert(sizeof(struct transfer) == 24, "800,000 transfers in 19.2 MB");

/* What a transfer carries (storage.protection, src/work/protect.c). */
enum xfer_kind { XFER_DATA, XFER_PARITY, XFER_REPLICA };

struct training;

struct workload {
    struct transfer *xfers;
    uint32_t n;
    uint32_t n_writers;  /* a writer may own several transfers (stripes) */
    /* the plan's file each transfer carries part of (workload_file):
     * xfile[i] for the first ones (every one but replica forwards), or
     * with xfile NULL transfer i's own index (file_div 0: a file each, in
     * order) or its writer / file_div (the restore's groups) */
    const uint32_t *xfile;
    uint32_t file_div;
    /* [fwd_first, or n without forwards] each transfer's sending-rate cap
     * (its queue pair's; 0 = line rate), read by workload_rate; NULL when
     * none is capped. Forwards are held by their feed's arrivals: none */
    uint64_t *xrate;
    /* [fwd_first, or n] each transfer's start (ps), read by workload_start;
     * NULL when all start at 0. A forward starts with its primary */
    uint64_t *xstart;
    /* replica forwards (protect_forward): fwd_per of them for each of the
     * first fwd_first transfers, after them in that order; 0 = none */
    uint32_t fwd_first, fwd_per;
    int fwd_chain;           /* each forward fed by the one before (a chain) */
    uint64_t total_bytes;    /* every transfer's payload, protection included */
    uint64_t protect_bytes;  /* of it, parity fragments and forwarded copies */
    struct plan_summary sum; /* sizes, skew, policy stall (for reports, cost) */
    uint32_t *writer_rank;   /* [n_writers] save: the plan's rank of each writer;
                              * NULL: writer i is rank i (workload_writer_rank) */
    uint32_t tp, dp, gpus_per_node, model_form; /* save: the plan's layout */
    /* restore (src/work/restore.c): storage nodes send to the readers; a
     * transfer's file is its model-parallel group, whose broadcast
     * (one_replica_broadcast) follows the group's read */
    int restore;
    uint64_t *bcast_ps;      /* [n_files] restore: each group's broadcast; NULL = none */
    uint64_t bcast_max_ps, bcast_min_ps; /* the longest, shortest of them */
    uint32_t readers;        /* restore: ranks that read */
    /* metadata and durability (storage.fsync_cost, metadata_ops_per_s) */
    uint32_t n_files;
    uint64_t meta_op_ps;     /* one metadata-service op; 0 = unlimited */
    uint64_t *create_slot;   /* [n_files] start of each create's slot, ascending
                              * (the service's busy time before any fsync);
                              * NULL without a metadata rate */
    /* the training job's traffic beside it (train.h); NULL = none. Set by
     * ckpt_prepare after workload_build. */
    const struct training *train;
    /* each transfer's topo_path over the topology it was built on, routed
     * once for the bound and the fluid engine (ckpt_prepare); NULL = none */
    const uint32_t *path;    /* [n x path_stride]: transfer i's inner ports (between
                              * its source's NIC and its destination's leaf port,
                              * which follow from its ends) at i x path_stride */
    const uint8_t *path_n;   /* [n] its ports, both ends counted; 0 = no path */
    uint32_t path_stride;    /* the longest route's inner ports (4 on three tiers) */
    /* the bound's pass over those routes (ckpt_prepare): each transfer's
     * kind, its bound memo slot + 1 (0: none), and the memo as the pass
     * left it, for the fluid engine's set-up, which would find each again
     * along the same routes in the same order; valid while kind_of is
     * xfers. NULL = none */
    const uint8_t *kind;
    const struct bound_memo *kind_memo;
    const struct transfer *kind_of;
    const struct scenario *kind_sc; /* and the scenario and fabric they were for */
    const struct topo *kind_t;
};

/* The plan's rank of save writer i. */
static inline uint32_t workload_writer_rank(const struct workload *w, uint32_t i)
{
    return w->writer_rank ? w->writer_rank[i] : i;
}

/* The plan's file transfer i carries part of (< n_files). */
static inline uint32_t workload_file(const struct workload *w, uint32_t i)
{
    if (w->fwd_per && i >= w->fwd_first) /* a forward: its primary's */
        i = (i - w->fwd_first) / w->fwd_per;
    if (w->xfile)
        return w->xfile[i];
    return w->file_div ? w->xfers[i].writer / w->file_div : i;
}

/* Transfer i's start (ps). */
static inline uint64_t workload_start(const struct workload *w, uint32_t i)
{
    if (!w->xstart)
        return 0;
    if (w->fwd_per && i >= w->fwd_first) /* a forward: its primary's */
        i = (i - w->fwd_first) / w->fwd_per;
    return w->xstart[i];
}

/* Transfer i's sending-rate cap; 0 = line rate. */
static inline uint64_t workload_rate(const struct workload *w, uint32_t i)
{
    if (!w->xrate || (w->fwd_per && i >= w->fwd_first))
        return 0;
    return w->xrate[i];
}

/* 1 + the transfer whose arrivals replica forward i sends on (its
 * primary's, or along a chain the hop before); 0 = not a forward. */
static inline uint32_t workload_feed(const struct workload *w, uint32_t i)
{
    if (!w->fwd_per || i < w->fwd_first)
        return 0;
    uint32_t q = i - w->fwd_first;
    if (w->fwd_chain && q % w->fwd_per)
        return i; /* the hop before, i - 1 */
    return q / w->fwd_per + 1;
}

/* Transfer i's topo_path into ports[TOPO_MAX_HOPS]: the cached one when
 * there is a cache, so every user sees the same route for free. */
static inline uint32_t workload_path(const struct workload *w, const struct topo *t,
                                     uint32_t i, uint32_t *ports)
{
    const struct transfer *x = &w->xfers[i];
    if (!w->path)
        return topo_path(t, x->src, x->dst, x->sport, ports, TOPO_MAX_HOPS);
    uint32_t n = w->path_n[i];
    if (n < 2)
        return 0;
    const uint32_t *in = w->path + (size_t)i * w->path_stride;
    ports[0] = t->nodes[x->src].first_port; /* as topo_path starts and ends */
    for (uint32_t k = 1; k + 1 < n; k++)
        ports[k] = in[k - 1];
    ports[n - 1] = t->nodes[x->dst].leaf_port;
    return n;
}

/* The 32-bit words of a route cache (ckpt_prepare) for n transfers of
 * stride inner ports each: the routes, one word, then a byte a transfer of
 * kinds and one of hop counts. */
static inline size_t workload_path_words(uint32_t n, uint32_t stride)
{
    return (size_t)n * stride + 1 + 2 * (((size_t)n + 3) / 4);
}

/* Forget w's route cache and kinds, allocated in a, and return their pages
 * to the system (arena_discard): after the fluid engine's set-up nothing
 * reads them (fluid_run_routes_done); a later workload_path routes again. */
void workload_drop_paths(struct workload *w, struct arena *a);

/* The scenario the topology is built from: every NIC of a compute node is
 * its own host port (cluster.nodes x nics_per_node hosts, hosts_per_leaf x
 * nics_per_node ports per compute leaf). Identity for one NIC per node. */
void workload_fabric(const struct scenario *sc, struct scenario *fab);

/* The storage node of endpoint ep, as its first NIC's endpoint: a node's
 * storage.nics_per_node NICs are consecutive endpoints and share its one
 * back end (ingest buffer, drain, read side). ep must be a storage endpoint. */
static inline uint32_t workload_store_owner(const struct topo *t, const struct scenario *sc,
                                            uint32_t ep)
{
    uint32_t k = sc->storage.nics_per_node;
    if (k <= 1)
        return ep; /* one NIC a node: no division on the packet path */
    return t->first_storage + (ep - t->first_storage) / k * k;
}

/* Topology host of NIC `nic` of compute node `node`. With fabric.rails R,
 * a rail group of hosts_per_leaf nodes owns R leaves of hosts_per_leaf x
 * nics / R ports, NIC i on the group's leaf i mod R (validated: R divides
 * the NICs, whole groups). */
static inline uint32_t workload_nic_host(const struct scenario *sc,
                                         uint32_t node, uint32_t nic)
{
    uint32_t r = sc->fabric.rails, k = sc->cluster.nics_per_node;
    if (r <= 1)
        return node * k + nic;
    uint32_t hpl = sc->fabric.hosts_per_leaf, per = k / r;
    return ((node / hpl * r + nic % r) * hpl + node % hpl) * per + nic / r;
}

/* Build the transfers of one checkpoint. t must come from
 * workload_fabric(sc). Fails with a message naming the key on inputs the
 * model cannot honour (async without cluster.d2h_rate, ...). */
int workload_build(struct workload *w, const struct scenario *sc,
                   const struct topo *t, struct arena *a, struct err *e);

/* The read back after a failure (checkpoint.phase restore|both): from the
 * save workload s (its placement) to transfers from storage nodes to the
 * reading ranks' NICs, all at time 0; restore.mode decides who reads
 * (docs/checkpoint.md, Restore). Simple form: each writer reads its own
 * files back. Fails with a message naming the key. */
int workload_build_restore(struct workload *r, const struct workload *s,
                           const struct scenario *sc, const struct topo *t, struct arena *a,
                           struct err *e);

/* What a restore in `mode` takes at least, without building or running it
 * (phase save, failures.recovery_time auto): the payload each storage NIC
 * sends, each storage leaf's links to the spines carry, each compute leaf's
 * links from them and each reader's NIC receive, at their rates, and each
 * storage node's reads at restore.read_rate; no latency, so below any
 * simulated restore; then the group broadcasts as in the run. O(transfers
 * + ranks). */
struct restore_estimate {
    uint64_t ps;             /* the lower bound */
    enum path_seg limit;     /* its term */
    uint64_t bytes_read;
    uint64_t bcast_ps;       /* the longest group broadcast */
    uint32_t readers;
};
int workload_restore_estimate(const struct workload *s, const struct scenario *sc,
                              const struct topo *t, int mode, struct restore_estimate *out,
                              struct err *e);
/* The same in two modes (mode, then other) at once: one pass over the
 * transfers when both read the same parts. */
int workload_restore_estimate_both(const struct workload *s, const struct scenario *sc,
                                   const struct topo *t, int mode, int other,
                                   struct restore_estimate out[2], struct err *e);

/* The topology as the restore sees it: the same nodes and links, each
 * port's segment mirrored (a port facing away from storage plays the
 * segment of its peer, the one it answers: the storage node's port toward
 * its leaf is the storage NIC; the forward ports become reverse), so
 * bound, attribution and telemetry name the read's segments. The ports
 * array lives in a; the rest is shared with t. */
int workload_restore_topo(const struct topo *t, struct topo *v, struct arena *a,
                          struct err *e);

/* Durability, shared by both engines (src/work/durable.c): done[i] is when
 * transfer i's last byte was on its storage node's back end (UINT64_MAX:
 * never). Rewrites each to when its file is durable: every transfer of the
 * file done, then its fsync, issued then, returned storage.fsync_cost later
 * and served by the metadata service (FIFO, one op at a time, in the gaps
 * the creates left). A file with an undone transfer keeps its times. No-op
 * without fsync cost and metadata rate. Returns 0, or -1 out of memory. */
int workload_durable(const struct workload *w, const struct scenario *sc, uint64_t *done);

/* Lower bound of the metadata service and fsync on completion, in ps after
 * the earliest transfer start: the fsync cost, and every file's fsync (and
 * the creates that remain after start0) served one at a time. */
uint64_t workload_meta_bound_ps(const struct workload *w, const struct scenario *sc);

#endif
