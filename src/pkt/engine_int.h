/* The packet engine's run in its phases, for engine.c's entry points:
 * set-up (setup.c), the event loop (sched.c), the results (collect.c).
 * Private to src/pkt. */
#ifndef CKPT_PKT_ENGINE_INT_H
#define CKPT_PKT_ENGINE_INT_H

#include <pthread.h>

#include "../core/units.h"
#include "pnet.h"

/* The team's free chunks (sim.threads > 1). */
struct chunk_pool {
    pthread_mutex_t lock;
    struct pkt_chunk *head;
    uint64_t n;
};

/* A team's choice between splitting the windows and running them alone
 * (sched.c, team_pace): each mode's events per wall second over an epoch
 * of TEAM_EPOCH_NS; the faster runs `stay` epochs, then the other one to
 * be measured again; split must be TEAM_SPLIT_GAIN times alone's rate. */
#define TEAM_EPOCH_NS UINT64_C(10000000)
#define TEAM_STAY_MAX 32u
#define TEAM_SPLIT_GAIN 1.1

struct team_pace {
    uint64_t t0, ev0;  /* the epoch's start: wall ns, events */
    double rate[2];    /* events/s last measured split [0] and alone [1] */
    int solo;          /* the running epoch's mode */
    int best;          /* the mode chosen at the last comparison */
    unsigned stay, left; /* epochs the chosen mode runs, and still will */
};

/* The mode for the next window (1 alone, 0 split) at wall time t (ns),
 * given the run's events so far. */
int pnet_pace(struct team_pace *p, uint64_t t, uint64_t ev);

/* Fill n (caller's memory) for the run of w on t: ports, switches, NICs,
 * flows, classes, the transport (tp, else transport.cc's) and its side
 * table, and the flows' start events. -1 with e set when it cannot. */
int pnet_setup(struct pnet *n, const struct scenario *sc, const struct topo *t,
               const struct workload *w, const struct transport_ops *tp, struct err *e);
/* Run the events until none is left, the time limit or an interruption, in
 * sim.event_order's order and sim.threads' threads. */
void pnet_loop(struct pnet *n);
/* engine: hybrid's steps (hybrid.c): the events before limit, in
 * sim.event_order's order; 0 once the run is over (no event left, the time limit, an
 * interruption, out of memory). */
int pnet_run_before(struct pnet *n, uint64_t limit);
/* hybrid's jump: every pending event, in each thread's queue, d later
 * except those keep names (evq_shift's); -1 out of memory. */
int pnet_shift_events(struct pnet *n, uint64_t d, int (*keep)(const struct event *ev, void *ctx),
                      void *ctx);
/* A telemetry sample now (sched.c); ff: one a hybrid jump carried, marked
 * so, the next left to the caller. */
void pnet_sample(struct pnet *n, int ff);
/* The earliest pending event's time, in any thread's queue (UINT64_MAX: none). */
uint64_t pnet_next_event_t(struct pnet *n);
/* The results and the invariants of the run n ended. */
void pnet_collect(struct pnet *n, struct results *r);

static inline double ps_to_s(uint64_t ps)
{
    return (double)ps / (double)PS_PER_S;
}

#endif
