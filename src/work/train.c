/* Training traffic from the parallelism plan, and its step clock (train.h). */
#include "train.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"

/* Contributions to a (source NIC, destination NIC) flow before merging. */
struct contrib {
    uint32_t src, dst;
    uint64_t bytes;
    int kind;
};

struct cbuf {
    struct contrib *v;
    size_t n, cap;
    uint64_t by_kind[3];
};

/* More contributions than this (an all-to-all over very large groups) would
 * take gigabytes before merging. */
#define MAX_CONTRIB ((size_t)1 << 26)

static int cbuf_add(struct cbuf *b, uint32_t src, uint32_t dst, uint64_t bytes, int kind)
{
    if (!bytes || src == dst)
        return 0;
    if (b->n == b->cap) {
        size_t c = b->cap ? 2 * b->cap : 1024;
        if (c > MAX_CONTRIB)
            return -1;
        struct contrib *v = realloc(b->v, c * sizeof *v);
        if (!v)
            return -1;
        b->v = v;
        b->cap = c;
    }
    b->v[b->n++] = (struct contrib){src, dst, bytes, kind};
    b->by_kind[kind] += bytes;
    return 0;
}

static int cmp_contrib(const void *a, const void *b)
{
    const struct contrib *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Host (NIC port) of GPU `local` of node `node`: GPUs are spread over the
 * node's NICs in order (rail-aligned). */
static uint32_t gpu_host(const struct scenario *sc, uint32_t node, uint32_t local)
{
    uint32_t nic = (uint32_t)((uint64_t)local * sc->cluster.nics_per_node /
                              sc->cluster.gpus_per_node);
    return workload_nic_host(sc, node, nic);
}

/* x * num / den without overflow for the sizes here (bytes <= 1TB x 1e6). */
static uint64_t frac(uint64_t x, uint64_t num, uint64_t den)
{
    return (uint64_t)((unsigned __int128)x * num / den);
}

/* One DP group: ranks r(d) = base + stride * d, d < dp. Ring hops between
 * its nodes in DP order, and its all-to-all. */
static int dp_group(struct cbuf *b, const struct scenario *sc, uint32_t base,
                    uint32_t stride, uint32_t dp, uint64_t S, uint32_t *nodes,
                    uint32_t *first, uint32_t *last, uint32_t *cnt, uint32_t *m_out)
{
    uint32_t gpn = sc->cluster.gpus_per_node, m = 0;
    for (uint32_t d = 0; d < dp; d++) {
        uint32_t r = base + stride * d, node = r / gpn;
        if (!m || nodes[m - 1] != node) {
            nodes[m] = node;
            first[m] = r % gpn;
            cnt[m] = 0;
            m++;
        }
        last[m - 1] = r % gpn;
        cnt[m - 1]++;
    }
    *m_out = m;
    if (m > 1) {
        uint64_t D = dp;
        uint64_t hop = sc->training.collective == COLL_HIERARCHICAL
                           ? frac(S, 2 * (uint64_t)(m - 1), m)
                           : frac(S, 2 * (D - 1), D);
        for (uint32_t k = 0; k < m; k++) {
            uint32_t j = (k + 1) % m;
            if (cbuf_add(b, gpu_host(sc, nodes[k], last[k]), gpu_host(sc, nodes[j], first[j]),
                         hop, TK_DP) < 0)
                return -1;
        }
    }
    uint64_t a2a = sc->training.alltoall_bytes;
    for (uint32_t k = 0; a2a && k < m; k++)
        for (uint32_t j = 0; j < m; j++)
            if (j != k &&
                cbuf_add(b, gpu_host(sc, nodes[k], first[k]), gpu_host(sc, nodes[j], first[j]),
                         frac(a2a * cnt[k], cnt[j], dp), TK_A2A) < 0)
                return -1;
    return 0;
}

static int generate(struct cbuf *b, struct training *tr, const struct scenario *sc,
                    const struct workload *w)
{
    uint32_t gpn = sc->cluster.gpus_per_node;
    int rc = 0;
    if (sc->model.name == MODEL_NONE) {
        /* one ring over the nodes, each node one DP rank of gpn GPUs */
        uint32_t nodes = sc->cluster.nodes;
        struct scenario one = *sc;
        one.cluster.gpus_per_node = 1; /* rank = node */
        uint64_t S = (uint64_t)gpn * sc->training.grad_bytes;
        uint32_t *buf = malloc(4 * (size_t)nodes * sizeof *buf);
        if (!buf)
            return -1;
        tr->grad_bytes = sc->training.grad_bytes;
        tr->dp = nodes;
        one.training.alltoall_bytes = sc->training.alltoall_bytes * gpn;
        one.cluster.nics_per_node = 1;
        /* each node's ring hop and all-to-all, then split over its NICs */
        struct cbuf nb = {0};
        rc = dp_group(&nb, &one, 0, 1, nodes, S, buf, buf + nodes, buf + 2 * (size_t)nodes,
                      buf + 3 * (size_t)nodes, &tr->dp_nodes);
        uint32_t k = sc->cluster.nics_per_node;
        for (size_t i = 0; rc == 0 && i < nb.n; i++)
            for (uint32_t nic = 0; rc == 0 && nic < k; nic++) {
                uint64_t part = nb.v[i].bytes / k + (nic < nb.v[i].bytes % k);
                rc = cbuf_add(b, workload_nic_host(sc, nb.v[i].src, nic),
                              workload_nic_host(sc, nb.v[i].dst, nic), part, nb.v[i].kind);
            }
        free(nb.v);
        free(buf);
        return rc;
    }
    uint32_t tp = w->sum.tp, pp = w->sum.pp, dp = w->sum.dp;
    uint64_t S = sc->training.grad_bytes
                     ? sc->training.grad_bytes
                     : frac(w->sum.params, w->sum.weights_bpp, (uint64_t)tp * pp);
    tr->grad_bytes = S;
    tr->dp = dp;
    uint32_t *buf = malloc(4 * (size_t)dp * sizeof *buf);
    if (!buf)
        return -1;
    for (uint32_t ppi = 0; rc == 0 && ppi < pp; ppi++)
        for (uint32_t tpi = 0; rc == 0 && tpi < tp; tpi++)
            rc = dp_group(b, sc, tpi + tp * dp * ppi, tp, dp, S, buf, buf + dp, buf + 2 * (size_t)dp,
                          buf + 3 * (size_t)dp, &tr->dp_nodes);
    free(buf);
    /* pipeline: stage ppi -> ppi + 1 (activations), and back (gradients) */
    uint64_t act = sc->training.activation_bytes;
    uint32_t stage = tp * dp;
    for (uint32_t r = 0; rc == 0 && act && r + stage < w->sum.gpus; r++) {
        uint32_t q = r + stage;
        uint32_t a = gpu_host(sc, r / gpn, r % gpn), c = gpu_host(sc, q / gpn, q % gpn);
        if (r / gpn != q / gpn)
            rc = cbuf_add(b, a, c, act, TK_PP) < 0 || cbuf_add(b, c, a, act, TK_PP) < 0 ? -1 : 0;
    }
    return rc;
}

/* Uncongested communication of one step: the most loaded port's wire bytes
 * at its rate (the flows' ECMP paths, as both engines route them), plus the
 * longest path's latency for the last packet (propagation, switch latency,
 * store-and-forward of an MTU on every later hop). */
static int comm_time(struct training *tr, const struct scenario *sc, const struct topo *t)
{
    double *load = calloc(t->n_ports, sizeof *load);
    if (!load)
        return -1;
    uint64_t lat_max = 0;
    struct wire_fmt wf = scenario_wire(sc);
    for (uint32_t i = 0; i < tr->n; i++) {
        const struct train_flow *f = &tr->flows[i];
        uint32_t path[TOPO_MAX_HOPS];
        uint32_t k = topo_path(t, f->src, f->dst, f->sport, path, TOPO_MAX_HOPS);
        uint64_t lat = 0, last = f->bytes % wf.payload ? f->bytes % wf.payload : wf.payload;
        last += wf.overhead;
        for (uint32_t j = 0; j < k; j++) {
            const struct tport *p = &t->ports[path[j]];
            load[path[j]] += (double)wire_bytes(f->bytes, wf);
            lat += topo_delay(t, p);
            if (j > 0) {
                lat += units_ser_ps(last, p->bps);
                lat += p->node >= t->first_spine ? sc->fabric.spine_latency_ps
                                                 : sc->fabric.leaf_latency_ps;
            }
        }
        lat_max = lat > lat_max ? lat : lat_max;
    }
    double worst = 0;
    for (uint32_t p = 0; p < t->n_ports; p++) {
        double s = load[p] * 8e12 / (double)t->ports[p].bps;
        worst = s > worst ? s : worst;
    }
    free(load);
    tr->comm0_ps = (uint64_t)ceil(worst) + lat_max;
    return 0;
}

int train_build(struct training *tr, const struct scenario *sc, const struct topo *t,
                const struct workload *w, struct arena *a, struct err *e)
{
    memset(tr, 0, sizeof *tr);
    if (sc->training.traffic == TRAFFIC_NONE)
        return 0;
    tr->on = 1;
    tr->isolation = sc->training.isolation;
    tr->on_fabric = tr->isolation != ISO_PHYSICAL;
    tr->steps = sc->training.steps;
    if (tr->isolation == ISO_LOGICAL) {
        tr->prio = (uint8_t)sc->training.priority;
        tr->dscp = (uint8_t)sc->training.dscp;
    } else {
        tr->prio = (uint8_t)sc->transport.data_priority;
        tr->dscp = (uint8_t)sc->transport.data_dscp;
    }
    struct cbuf b = {0};
    if (generate(&b, tr, sc, w) < 0) {
        free(b.v);
        return err_set(e, "training.traffic: out of memory generating the collectives "
                          "(an all-to-all over groups this large needs more than %zu flows)",
                       MAX_CONTRIB);
    }
    qsort(b.v, b.n, sizeof *b.v, cmp_contrib);
    size_t n = 0;
    for (size_t i = 0; i < b.n; i++) {
        if (n && b.v[n - 1].src == b.v[i].src && b.v[n - 1].dst == b.v[i].dst)
            b.v[n - 1].bytes += b.v[i].bytes;
        else
            b.v[n++] = b.v[i];
    }
    tr->flows = arena_calloc(a, n ? n : 1, sizeof *tr->flows);
    if (!tr->flows) {
        free(b.v);
        return err_set(e, "training.traffic: out of memory");
    }
    tr->n = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        struct train_flow *f = &tr->flows[i];
        f->src = b.v[i].src;
        f->dst = b.v[i].dst;
        f->bytes = b.v[i].bytes;
        /* its queue pair's source port: fixed per pair, seeded */
        f->sport = (uint16_t)(0xC000u | (topo_flow_hash(sc->seed ^ 0x7261696eu, f->src, f->dst,
                                                         0, 0) & 0x3FFFu));
        tr->bytes_per_step += f->bytes;
    }
    tr->dp_bytes = b.by_kind[TK_DP];
    tr->pp_bytes = b.by_kind[TK_PP];
    tr->a2a_bytes = b.by_kind[TK_A2A];
    free(b.v);
    if (comm_time(tr, sc, t) < 0)
        return err_set(e, "training.traffic: out of memory");
    double o = sc->training.overlap;
    uint64_t hidden = (uint64_t)(o * (double)tr->comm0_ps), exposed = tr->comm0_ps - hidden;
    if (sc->training.compute_ps) {
        tr->compute_ps = sc->training.compute_ps;
    } else {
        if (sc->training.step_ps <= exposed) {
            char s1[32], s2[32];
            units_fmt_time(sc->training.step_ps, s1, sizeof s1);
            units_fmt_time(exposed, s2, sizeof s2);
            return err_set(e, "training.step_time: %s leaves no compute time: the step's "
                              "uncongested communication not hidden by overlap takes %s; "
                              "raise it or set training.compute_time", s1, s2);
        }
        tr->compute_ps = sc->training.step_ps - exposed;
    }
    tr->lead_ps = tr->compute_ps > hidden ? tr->compute_ps - hidden : 0;
    uint64_t end = tr->lead_ps + tr->comm0_ps;
    tr->baseline_ps = end > tr->compute_ps ? end : tr->compute_ps;
    return 0;
}

/* ---- the step clock ----------------------------------------------------- */

void train_clock_init(struct train_clock *c, const struct training *tr)
{
    memset(c, 0, sizeof *c);
    c->tr = tr;
    c->ckpt_end_ps = UINT64_MAX;
    c->next_ps = tr && tr->on && tr->on_fabric ? tr->lead_ps : UINT64_MAX;
}

void train_clock_record(struct train_clock *c, uint64_t begin, uint64_t step, uint64_t comm)
{
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? 2 * c->cap : 64;
        double *b = realloc(c->begin_s, cap * sizeof *b);
        if (b)
            c->begin_s = b;
        double *s = realloc(c->step_s, cap * sizeof *s);
        if (s)
            c->step_s = s;
        double *m = realloc(c->comm_s, cap * sizeof *m);
        if (m)
            c->comm_s = m;
        if (!b || !s || !m) {
            c->oom = 1;
            return;
        }
        c->cap = cap;
    }
    c->begin_s[c->n] = (double)begin / (double)PS_PER_S;
    c->step_s[c->n] = (double)step / (double)PS_PER_S;
    c->comm_s[c->n] = (double)comm / (double)PS_PER_S;
    c->n++;
}

/* The current step's communication ended at now. */
static void end_step(struct train_clock *c, uint64_t now)
{
    const struct training *tr = c->tr;
    uint64_t compute_end = c->begin_ps + tr->compute_ps;
    uint64_t end = now > compute_end ? now : compute_end;
    train_clock_record(c, c->begin_ps, end - c->begin_ps, now - c->next_ps);
    int more = tr->steps ? c->step + 1 < tr->steps
                         : c->begin_ps < c->ckpt_end_ps && c->step + 1 < TRAIN_MAX_STEPS;
    if (!more || c->oom) {
        c->next_ps = UINT64_MAX;
        return;
    }
    c->step++;
    c->begin_ps = end;
    c->next_ps = end + tr->lead_ps;
}

uint32_t train_clock_start(struct train_clock *c, uint64_t now)
{
    c->left = c->tr->n;
    c->last_ps = now;
    if (!c->left)
        end_step(c, now);
    return c->left;
}

int train_clock_done(struct train_clock *c, uint64_t now)
{
    if (!c->left)
        return 0;
    c->last_ps = now > c->last_ps ? now : c->last_ps;
    if (--c->left)
        return 0;
    end_step(c, c->last_ps);
    return 1;
}

void train_clock_ckpt_end(struct train_clock *c, uint64_t end_ps)
{
    c->ckpt_end_ps = end_ps;
}

void train_clock_release(struct train_clock *c)
{
    free(c->begin_s);
    free(c->step_s);
    free(c->comm_s);
    c->begin_s = c->step_s = c->comm_s = NULL;
    c->n = c->cap = 0;
}

uint64_t train_time_limit(const struct training *tr, const struct scenario *sc,
                          uint64_t limit)
{
    if (!tr || !tr->on || !tr->on_fabric || sc->sim.time_limit_ps || !tr->baseline_ps)
        return limit;
    double steps = tr->steps ? tr->steps : (double)limit / (double)tr->baseline_ps + 2;
    double extra = (steps + 1) * 2 * (double)tr->baseline_ps + (double)limit;
    return extra < (double)CLOCK_LIMIT_PS ? (uint64_t)extra : CLOCK_LIMIT_PS;
}

double train_packets(const struct training *tr, uint32_t mtu, double bound_s)
{
    if (!tr || !tr->on || !tr->on_fabric || !tr->baseline_ps)
        return 0;
    double per = 0;
    for (uint32_t i = 0; i < tr->n; i++)
        per += (double)((tr->flows[i].bytes + mtu - 1) / mtu);
    double steps = tr->steps ? tr->steps
                             : ceil(bound_s * (double)PS_PER_S / (double)tr->baseline_ps) + 1;
    return per * fmin(steps, TRAIN_MAX_STEPS);
}
