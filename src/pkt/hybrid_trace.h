/* engine: hybrid, the trace build's declarations (CKPT_HYBRID_TRACE), included
 * by hybrid.c alone: its constants, the map of what held a span, the knobs,
 * and the functions hybrid_trace.inc defines at hybrid.c's end. */

#include <time.h> /* clock_gettime: CKPT_HYBRID_RX */

struct hybrid;

/* A compute leaf's uplinks' paused rate against the share s of its writers
 * still sending since a jump's start: ENDS_A + (1 - ENDS_A) s (the scaled
 * production row's ends phase, session 37; CKPT_HK_ENDS) */
#define ENDS_A 0.5
/* per compute leaf, a jump's (ends_note): its sending writers, their parts
 * of the jump sending summed and most, its tails */
#define LF_N 4
/* the paused test's per-slot row (CKPT_HK_PFALL) */
#define PF_ROW(h) (2 + 2 * (size_t)(h)->n->topo->n_cleaves)
/* The receivers' rate against their senders (CKPT_HK_RXCURVE): bins of
 * senders, one each below 16, then eight an octave; a bin predicts once it
 * holds RC_MIN receiver-periods. */
#define RC_BINS 96
#define RC_MIN 32

/* What held a period's span (the trace's map of the time not skipped): the
 * steady tests, the span's own bounds, the cuts after them. */
enum why {
    W_HSTART, W_HJUMP, W_DROPS, W_FEW, W_RX, W_DRAINS, W_PAUSED, W_QUEUE, W_KROOM, W_KDRAIN,
    W_KTAILFEW, W_KEND, W_BASE, W_START, W_TEL, W_BUDGET, W_LAG, W_CARRY, W_WATCH, W_TAIL, W_LIMIT,
    W_PERIOD, W_DROOM, W_NODE, W_WEU, W_RATE, W_PACED, W_SHARES, W_N
};
static const char *const why_name[W_N] = {
    "history since a start", "history since a jump", "drops", "few: a transfer unsteady",
    "receiver unsteady", "drain beside others", "paused unsteady", "queued unsteady",
    "kmax: receiver room", "kmax: drain share", "kmax: tail end, few senders",
    "kmax: transfers' ends", "baseline < BASE_MIN", "next start", "telemetry", "error budget",
    "LAG", "CARRY_MAX", "WATCH", "TAIL_OFF", "time limit", "span < a period", "drain room",
    "lockstep node drift", "WATCH_EU", "dcqcn rates trend", "swift window paced",
    "writers' shares moving"};
#define WHY(h, r, x) ((h)->why = (r), (h)->whyx = (x))

/* The trace build's knobs: each bound loosened by a factor read once at
 * init from CKPT_HK_<NAME> ("off": without the bound; unset: 1, main's),
 * to measure what each holds of a run (BENCHMARKS.md session 36). */
enum knob {
    K_LAG, K_TAIL, K_WATCH, K_CARRY, K_PASS, K_CLUSTER, K_BUDGET, K_RESTART, K_PSD, K_WEU, K_WEUSD,
    K_NTOL, K_NSD, K_N
};
static const char *const knob_env[K_N] = {"CKPT_HK_LAG",  "CKPT_HK_TAIL",    "CKPT_HK_WATCH",
                                          "CKPT_HK_CARRY", "CKPT_HK_PASS",    "CKPT_HK_CLUSTER",
                                          "CKPT_HK_BUDGET", "CKPT_HK_RESTART", "CKPT_HK_PSD",
                                          "CKPT_HK_WEU", "CKPT_HK_WEUSD",
                                          "CKPT_HK_NTOL", "CKPT_HK_NSD"};
#define KN(h, k) ((h)->kn[k])
/* the ends a jump passes of s senders: one in PASS_EVERY / the knob */
#define PASS_CAP(h, s)                                                                         \
    (KN(h, K_PASS) == 1 ? ((s) + PASS_EVERY - 1) / PASS_EVERY                                 \
                        : (uint32_t)fmin((double)(s), ceil((s) * KN(h, K_PASS) / PASS_EVERY)))
#define K_LAGB(h) (LAG * KN(h, K_LAG))
#define K_TAILB(h) (TAIL_OFF * KN(h, K_TAIL))
#define K_WATCHB(h) (WATCH * KN(h, K_WATCH))
#define K_CARRYB(h) (CARRY_MAX * KN(h, K_CARRY))
#define K_CLUSTERB(h) (CLUSTER / KN(h, K_CLUSTER))
/* CKPT_HK_PSD: the paused drift counted beyond PAUSED_SD x the knob (0.667: 2) */
#define K_PSDB(h) (PAUSED_SD * KN(h, K_PSD))
/* CKPT_HK_WEU: a WATCH-held jump's bound WATCH_EU / eu x the knob ("off": none) */
#define K_WEUB(h) (WATCH_EU * KN(h, K_WEU))
/* CKPT_HK_WEUSD: the decline WATCH_EU bounds beyond WATCH_EU_SD x the knob */
#define K_WEUSDB(h) (WATCH_EU_SD * KN(h, K_WEUSD))
/* CKPT_HK_NTOL, CKPT_HK_NSD: node_drift's NODE_TOL and NODE_SD x the knob */
#define K_NTOLB(h) (NODE_TOL * KN(h, K_NTOL))
#define K_NSDB(h) (NODE_SD * KN(h, K_NSD))
/* the long baseline restarts when the knob's sixteenths of its live
 * transfers ended ("off": never on ends, only with the history) */
#define K_RESTART(h, m, b) ((double)(m) * FEW > (double)(b) * KN(h, K_RESTART))
/* How the lag is booked (CKPT_HK_LAGR; unset: main's, a run's sum): "restart"
 * pays back what was booked before a baseline restart many ends caused once
 * the packets ran the backlog's time constant since it ("restart-tail": the
 * state's time behind, TAIL_OFF's, too); "decay" relaxes it by
 * exp(-t / tau) over the packets' run between jumps. */
enum { LR_MAIN, LR_RESTART, LR_DECAY, LR_RESTART_T, LR_RESTART_Y };

static void pfall_row(struct hybrid *h, const uint64_t *s);
static void rxc_row(struct hybrid *h, const uint64_t *s);
static void rxc_reset(struct hybrid *h);
static void trace_ingress(struct pnet *n);
static void trace_ends(const struct hybrid *h);
static void trace_fill(const struct hybrid *h);
static double pfall_pred(const struct hybrid *h, double pb);
static double rc_at(const struct hybrid *h, double n);
static double rxc_pred(const struct hybrid *h, size_t r, double b);
static void trace_rxu(const struct hybrid *h, const uint64_t *s0, const uint64_t *s1,
                      const uint64_t *s2);
static void trace_level(struct hybrid *h);
static void ring_levels(struct hybrid *h);
static void node_observe(struct hybrid *h);
static void node_rates(struct hybrid *h);
static void node_jumped(struct hybrid *h);
static uint64_t node_moves(struct hybrid *h, uint64_t bytes);
static void check_ingress(struct hybrid *h, const char *when);
static void trace_knobs(struct hybrid *h);
static int trace_init(struct hybrid *h, size_t nr);
static void trace_release(struct hybrid *h);
static void trace_observe(struct hybrid *h, const uint64_t *s, double paused);
static double pfall_test(const struct hybrid *h, double pa, double pb);
static double qfall_pred(const struct hybrid *h, const uint64_t *s0, const uint64_t *s1,
                         const uint64_t *s2, double drained, double delivered);
static void trace_span(const struct hybrid *h, uint64_t d, uint64_t d_pre, double t0);
static void trace_weigh(struct hybrid *h, uint64_t d);
static void ends_clear(struct hybrid *h);
static void ends_note(struct hybrid *h, const struct wend *we, double part);
static void ends_uplinks(struct hybrid *h, uint64_t d);
static double lagn_carry(const struct hybrid *h, double f, double mid, double rate, uint64_t d);
static void ends_measure(const struct hybrid *h, uint64_t d, const double *live);
static void trace_moves(const struct hybrid *h, uint64_t d, double got);
static void trace_observed(const struct hybrid *h);
static void trace_long(const struct hybrid *h, double uq, double ur);
static void trace_jump(struct hybrid *h, uint64_t d);
static void trace_hold(struct hybrid *h);
static void trace_summary(const struct hybrid *h);
struct fits;
static void trace_fit(const struct hybrid *h, const struct fits *f);
static void trace_weigh_start(struct hybrid *h);
static uint32_t rxc_pass(struct hybrid *h, uint32_t r, uint32_t pass);
static void trace_jumped(struct hybrid *h);
static int rxs_in(struct hybrid *h, size_t r, double a, double b);
static int trace_rx(struct hybrid *h, size_t r, double a, double b, double *be,
                    const uint64_t *s0, const uint64_t *s1, const uint64_t *s2);
static int rxs_test(struct hybrid *h, double *spread);
static double rxs_sd(const struct hybrid *h, double k);
static uint64_t rxs_budget(const struct hybrid *h, uint64_t d, double *spread);
static double rxs_miss(const struct hybrid *h);
static uint64_t rxs_cut(struct hybrid *h, uint64_t d, double *spread);
static void rxs_jumped(struct hybrid *h, uint64_t d);
static void trace_kmax(struct hybrid *h, double kmax, uint64_t d);
static void trace_watch(struct hybrid *h, double most);
static void trace_weu(struct hybrid *h, double most);
static int move_tier(void);
static void trace_writers(struct hybrid *h, double off, double all, double term);
static void lagn_count(struct hybrid *h);
static void lagr_restart(struct hybrid *h);
static void lagr_pay(struct hybrid *h, double tau);
static uint64_t lagr_young(struct hybrid *h, uint64_t d);
static void lagn_scale(const struct hybrid *h, uint32_t n, double *y, double *r, double *mq,
                       double *mr);
