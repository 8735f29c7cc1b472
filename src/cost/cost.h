/* Cost: what checkpoints and failures cost a training job.
 *
 * Inputs: the measured checkpoint (results: the write's end after the
 * trigger, or the staging stall of the two-phase policies) and the
 * training.* and failures.* keys. Outputs (struct cost_figures in
 * results.h): GPU stall per checkpoint, stalled GPU-hours, MFU points and
 * money per day; job MTBF; Young's and Daly's optimal intervals; goodput at
 * the configured and the optimal interval, analytic and by Monte Carlo.
 * Formulas and their sources: docs/checkpoint.md.
 *
 * The failure model (Daly 2006): failures arrive as a Poisson process of
 * mean time M (job MTBF) at any time, also during checkpoints and restarts;
 * a failure loses the work since the last completed checkpoint and costs a
 * restart R; the job then resumes from that checkpoint.
 */
#ifndef CKPT_COST_H
#define CKPT_COST_H

#include <stdint.h>

#include "../core/err.h"
#include "../scenario/scenario.h"
#include "../stats/results.h"

/* Young (1974): tau = sqrt(2 delta M). */
double cost_young(double delta, double mtbf);

/* Daly (2006), higher-order estimate of the compute time between
 * checkpoints: sqrt(2 delta M) [1 + sqrt(delta/2M)/3 + (delta/2M)/9] - delta
 * for delta < 2M, else M. */
double cost_daly(double delta, double mtbf);

/* Expected wall time to get tau of work past its checkpoint delta:
 * M e^(R/M) (e^((tau+delta)/M) - 1). mtbf <= 0 means no failures:
 * tau + delta. */
double cost_segment_time(double tau, double delta, double mtbf, double restart);

/* Useful fraction of wall time: tau / cost_segment_time. */
double cost_goodput(double tau, double delta, double mtbf, double restart);

/* The same with a durability lag (async and hierarchical policies: the
 * checkpoint is durable only lag s after the stall ends, when its drain
 * does): a failure in that window rolls back one more interval. The
 * expected segment time is cost_segment_time x e^(lag/M) (the lag acts as
 * extra restart time; docs/checkpoint.md), lag clamped to tau + delta (a
 * longer drain is flagged drain_late). */
double cost_segment_time_lag(double tau, double delta, double lag, double mtbf,
                             double restart);
double cost_goodput_lag(double tau, double delta, double lag, double mtbf, double restart);

/* The tau that maximises cost_goodput, by golden-section search (the
 * reference the closed forms are checked against). */
double cost_optimal_numeric(double delta, double mtbf);

/* A training run under the same failure model, event by event, with
 * exponential failure times from the RNG stream (seed, RNG_FAILURE).
 * Runs segments until wall time reaches horizon_s (or max_segments). */
struct mc_result {
    double work_s, wall_s, goodput;
    uint64_t failures, checkpoints;
};
void cost_monte_carlo(struct mc_result *out, double tau, double delta,
                      double mtbf, double restart, double horizon_s,
                      uint64_t max_segments, uint64_t seed);
/* With a durability lag: a failure within lag s after a checkpoint's stall
 * also loses the interval before it (lag 0: cost_monte_carlo, draw for
 * draw). */
void cost_monte_carlo_lag(struct mc_result *out, double tau, double delta, double lag,
                          double mtbf, double restart, double horizon_s,
                          uint64_t max_segments, uint64_t seed);

/* One price of cost.prices: a switch profile, a transceiver of a link
 * speed (optic_<N>g: N Gb/s, any reach; optic_<N>g_sr within a row,
 * optic_<N>g_dr across the hall), a cable (dac_<N>g in a rack, fiber_mmf,
 * fiber_smf), storage_node (a node with its drives, no storage.profile),
 * storage_<profile> (a profile's node without drives), drive_<TB>tb (one
 * drive by capacity class), or kwh (energy). "reference" as the first item
 * loads the catalog's reference list (price_reference), which later items
 * override. */
#define COST_MAX_PRICES 96
enum price_kind { PK_SWITCH, PK_OPTIC, PK_OPTIC_SR, PK_OPTIC_DR, PK_DAC, PK_OTHER };
struct cost_price {
    char name[48];
    uint64_t optic_bps; /* optic_<N>g only: the run's bill prices links by speed */
    double price;
    enum price_kind kind;
    uint64_t bps;       /* optics and DAC cables: their speed */
    int from_ref;       /* from the reference list, not (yet) overridden */
};

/* Parse cost.prices ("none" gives n = 0). Refuses unknown names (with the
 * nearest known one), duplicates, and prices that are not a finite number
 * in [0, 1e12]; errors read "cost.prices: item K \"...\": ...". */
int cost_prices_parse(const char *text, struct cost_price *out, uint32_t *n, struct err *e);

/* The price named name in pr, or NULL. */
const struct cost_price *cost_price_find(const struct cost_price *pr, uint32_t n,
                                         const char *name);

/* What one storage node of sc is priced as at pr: its profile's node
 * (storage_<profile>) plus drives x drive_<TB>tb when the profile's node
 * is priced; else storage_node, all in (no profile, or a price list that
 * names storage_node only). drives: storage.drives when set, else the
 * profile's (storage_price_list); 0 for storage_node. */
struct storage_bill {
    char node[48], drive[32];
    uint32_t drives;
};
void cost_storage_bill(struct storage_bill *b, const struct scenario *sc,
                       const struct cost_price *pr, uint32_t np);

/* Capital cost of r's bill of materials (bom_*) at sc's cost.prices, and
 * per day over cost.amortisation_years; fills the capital fields of
 * r->cost. The prices must have passed cost_check. */
void cost_capital(struct results *r, const struct scenario *sc);

/* Checks of the training.*, failures.* and cost.* keys; errors name the key. */
int cost_check(const struct scenario *sc, struct err *e);

/* Host contention of a drain (async, hierarchical): the fraction of
 * training throughput lost while it runs, checkpoint.drain_slowdown when
 * given, else a node's mean drain rate (bytes / nodes over drain_s) over
 * cluster.host_rate, at most 1; 0 without either. Training loses
 * drain_s x this per checkpoint (docs/checkpoint.md, Host contention). */
double cost_drain_slowdown(const struct scenario *sc, uint64_t bytes, double drain_s);

/* Fill r->cost from the scenario and the measured run in r. */
void cost_compute(struct results *r, const struct scenario *sc);

#endif
