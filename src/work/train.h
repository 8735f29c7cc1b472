/* Training traffic: the job's per-step communication that leaves the node,
 * from the parallelism plan, and the step clock both engines run it by.
 *
 * A step is a compute phase, then the communication; step s+1 begins when
 * step s's compute and communication have both ended (a job-wide barrier:
 * every GPU waits for the slowest data-parallel group). The communication
 * starts training.overlap x the uncongested communication time before the
 * compute ends (never before the step begins). Per step, per (source NIC,
 * destination NIC) one flow (queue pair) carries the sum of:
 *  - data-parallel gradient all-reduce: each DP group's nodes form a ring in
 *    DP order; ring (flat, over the group's GPUs) sends 2(D-1)/D x S from
 *    each node to the next (one ring hop per node leaves it, D = GPUs of the
 *    group, S = training.grad_bytes or params x weight bytes / (tp x pp));
 *    hierarchical (intra-node reduce, inter-node ring of the m nodes,
 *    intra-node broadcast) sends 2(m-1)/m x S;
 *  - pipeline activations: each GPU sends training.activation_bytes forward
 *    to its next stage and as many gradient bytes back (network part only);
 *  - all-to-all: each GPU spreads training.alltoall_bytes evenly over the
 *    ranks of its DP group; the parts for other nodes cross the network.
 * Simple form (model.name none): one ring over the cluster's nodes, each
 * node one DP rank of S = gpus_per_node x training.grad_bytes.
 * docs/training.md has the rules and the reasons.
 */
#ifndef CKPT_TRAIN_H
#define CKPT_TRAIN_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../topo/topo.h"
#include "work.h"

/* Steps at most when training.steps is 0 (until the checkpoint is done). */
#define TRAIN_MAX_STEPS 100000

enum train_kind { TK_DP, TK_PP, TK_A2A };

struct train_flow {
    uint32_t src, dst;      /* topology host ids (NIC ports) */
    uint64_t bytes;         /* payload per step */
    uint16_t sport;
};

struct training {
    int on;                 /* training.traffic: collectives */
    int on_fabric;          /* on this fabric: isolation none or logical */
    int isolation;          /* enum isolation_kind */
    struct train_flow *flows; /* one step's flows, [n]; the same every step */
    uint32_t n;
    uint32_t steps;         /* training.steps; 0 = until the checkpoint is done */
    uint8_t prio, dscp;     /* its class on the fabric */
    uint64_t compute_ps;    /* compute part of a step */
    uint64_t comm0_ps;      /* uncongested communication (analytic) */
    uint64_t lead_ps;       /* step begin -> communication starts */
    uint64_t baseline_ps;   /* step time without interference */
    uint64_t bytes_per_step;
    uint64_t dp_bytes, pp_bytes, a2a_bytes; /* network payload per step, by kind */
    uint64_t grad_bytes;    /* S: gradient bytes per GPU per step */
    uint32_t dp, dp_nodes;  /* DP degree and nodes per DP group */
};

/* Build the training traffic of the scenario (t from workload_fabric, w the
 * checkpoint, for the parallelism plan). With training.traffic none, tr->on
 * = 0 and nothing else is set. Fails with "key: message" on inputs the model
 * cannot honour (no gradient bytes, compute time below zero). */
int train_build(struct training *tr, const struct scenario *sc, const struct topo *t,
                const struct workload *w, struct arena *a, struct err *e);

/* The step clock, engine-agnostic: an engine starts a step's flows at
 * train_clock.next_ps, reports each completion with train_clock_done and
 * checkpoint progress with train_clock_ckpt_end. */
struct train_clock {
    const struct training *tr;
    uint32_t step;          /* step whose communication runs or comes next */
    uint32_t left;          /* its flows not yet done */
    uint64_t begin_ps;      /* that step began */
    uint64_t next_ps;       /* its communication starts; UINT64_MAX = no more */
    uint64_t ckpt_end_ps;   /* checkpoint's last byte; UINT64_MAX = not yet */
    uint64_t last_ps;       /* latest completion of the current step so far */
    uint32_t n, cap;        /* steps recorded */
    double *begin_s, *step_s, *comm_s; /* per step, owned until moved to results */
    int oom;
};

void train_clock_init(struct train_clock *c, const struct training *tr);
/* The communication of the current step starts now: returns the number of
 * flows to start (0: the step's communication is already over). */
uint32_t train_clock_start(struct train_clock *c, uint64_t now);
/* One of the current step's flows is done at `now` (its last byte in; calls
 * need not come in time order); returns 1 when that ended the step's
 * communication, at the latest of its flows' times (next_ps is then set). */
int train_clock_done(struct train_clock *c, uint64_t now);
void train_clock_ckpt_end(struct train_clock *c, uint64_t end_ps);
void train_clock_release(struct train_clock *c);
/* Append a step that began at `begin` and took `step`, `comm` of it
 * communicating (ps); sets c->oom when the arrays cannot grow. */
void train_clock_record(struct train_clock *c, uint64_t begin, uint64_t step, uint64_t comm);

/* The engines' time limit (bound_time_limit_ps) with room for the training
 * steps that run on after the checkpoint; a user's sim.time_limit stands. */
uint64_t train_time_limit(const struct training *tr, const struct scenario *sc,
                          uint64_t limit);

/* Packets the training sends on this fabric over a run whose checkpoint
 * takes about bound_s: its steps (training.steps, or those that fit the
 * bound at the baseline pace, plus one) x packets per step; 0 off it. For
 * the engine choice and the packet engine's estimate. */
double train_packets(const struct training *tr, uint32_t mtu, double bound_s);

#endif
