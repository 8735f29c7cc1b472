/* Capacity, endurance and the MLPerf Storage figures (storage_use.h). */
#include "storage_use.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "../scenario/mlperf.h"
#include "../scenario/names.h"

#define GIB 1073741824.0

static uint64_t to_u64(double v)
{
    return v <= 0 ? 0 : v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

void endurance_wear(struct endurance_figures *f, double drives_price, double rating_years,
                    double amortisation_years)
{
    f->wear_priced = 0;
    f->wear_limited = 0;
    f->drives_price = drives_price;
    f->rating_years = rating_years;
    f->wear_per_day = f->drives_amortisation_per_day = f->wear_cost_per_day = 0;
    if (!(f->dwpd_rating > 0) || !f->raw_bytes || !(rating_years > 0) ||
        !(amortisation_years > 0) || !(drives_price >= 0))
        return;
    f->wear_priced = 1;
    /* the share of the rated writes (rating x raw bytes x the rated days)
     * one day's writes use */
    f->wear_per_day = drives_price * f->dwpd / (f->dwpd_rating * rating_years * 365.25);
    f->drives_amortisation_per_day = drives_price / (amortisation_years * 365.25);
    /* the capital amortises the drives already: only wear beyond it costs more */
    f->wear_limited = f->wear_per_day > f->drives_amortisation_per_day;
    f->wear_cost_per_day = f->wear_limited ? f->wear_per_day - f->drives_amortisation_per_day : 0;
}

/* The price of one drive: the storage profile's drive class as the capital
 * prices it, else the class of storage.drive_capacity (drive_<TB>tb);
 * 0 with the name tried when the list has no such price. */
static int drive_price(const struct scenario *sc, char *name, size_t len, double *price)
{
    struct cost_price pr[COST_MAX_PRICES];
    uint32_t np = 0;
    struct err e;
    name[0] = '\0';
    if (cost_prices_parse(sc->cost.prices, pr, &np, &e) < 0 || !np)
        return 0;
    struct storage_bill b;
    cost_storage_bill(&b, sc, pr, np);
    if (b.drive[0])
        snprintf(name, len, "%s", b.drive);
    else if (sc->storage.drive_capacity)
        snprintf(name, len, "drive_%.6gtb", (double)sc->storage.drive_capacity / 1e12);
    const struct cost_price *q = name[0] ? cost_price_find(pr, np, name) : NULL;
    if (!q)
        return 0;
    *price = q->price;
    return 1;
}

void endurance_compute(struct results *r, const struct scenario *sc)
{
    struct endurance_figures *f = &r->endurance;
    memset(f, 0, sizeof *f);
    if (!(sc->storage.capacity > 0 || sc->storage.drive_dwpd > 0))
        return;
    if (!r->finished || !(r->cost.checkpoints_per_day > 0) || r->phase == PHASE_RESTORE)
        return;
    /* what the drives take per checkpoint: ckpt_bytes is the workload's
     * total, so it holds the protection's parity or copies already (x1.25
     * for ec 8+2, x3 for replica 3); multiplying again would count them twice */
    double b = (double)r->ckpt_bytes;
    f->on = 1;
    f->bytes_per_day = to_u64(b * r->cost.checkpoints_per_day);
    /* the kept checkpoints, and the next one written before the oldest goes */
    f->retained_bytes = to_u64(b * ((double)sc->storage.retention + 1.0));
    f->capacity_bytes = sc->storage.capacity;
    if (f->capacity_bytes) {
        f->capacity_used = (double)f->retained_bytes / (double)f->capacity_bytes;
        f->over_capacity = f->retained_bytes > f->capacity_bytes;
    }
    f->raw_bytes = to_u64((double)sc->storage.nodes * sc->storage.drives *
                          (double)sc->storage.drive_capacity);
    f->dwpd_rating = sc->storage.drive_dwpd;
    if (f->raw_bytes) {
        f->dwpd = (double)f->bytes_per_day / (double)f->raw_bytes;
        if (f->dwpd_rating > 0 && b > 0) {
            f->max_checkpoints_per_day = f->dwpd_rating * (double)f->raw_bytes / b;
            f->over_endurance = f->dwpd > f->dwpd_rating;
        }
    }
    double each = 0;
    int priced = drive_price(sc, f->drive_name, sizeof f->drive_name, &each);
    f->drives = (uint64_t)sc->storage.nodes * sc->storage.drives;
    f->rating_years = sc->storage.drive_rating_years;
    if (priced)
        endurance_wear(f, (double)f->drives * each, sc->storage.drive_rating_years,
                       sc->cost.amortisation_years);
}

void mlperf_compute(struct results *r, const struct scenario *sc)
{
    struct mlperf_figures *f = &r->mlperf;
    memset(f, 0, sizeof *f);
    const struct mlperf_spec *m = mlperf_lookup(sc->checkpoint.mlperf);
    if (!m)
        return;
    f->on = 1;
    f->workload = names_of(&names_mlperf, m->workload);
    f->dlio_gib = m->dlio_gib;
    f->writes = m->writes;
    f->reads = m->reads;
    f->gap_s = m->gap_s;
    /* MLPerf's throughput is the checkpoint's own bytes: parity and copies
     * the protection adds are not the model's */
    f->ckpt_gib = (double)(r->plan.bytes ? r->plan.bytes : r->ckpt_bytes) / GIB;
    if (r->phase != PHASE_RESTORE && r->finished) {
        /* writer 0 is rank 0: DLIO's ranks all write under the DeepSpeed rule */
        f->save_rank0_s = r->writer_s && r->n_writer_s ? r->writer_s[0] : 0;
        f->save_all_s = r->completion_s;
        if (f->save_rank0_s > 0)
            f->save_rank0_gibps = f->ckpt_gib / f->save_rank0_s;
        if (f->save_all_s > 0)
            f->save_all_gibps = f->ckpt_gib / f->save_all_s;
    }
    const struct restore_figures *rs = &r->restore;
    double read_gib = (double)rs->bytes_read / GIB;
    if (r->phase == PHASE_RESTORE && r->finished) {
        f->load_s = r->completion_s;
        read_gib = (double)r->ckpt_bytes / GIB;
    } else if (rs->ran && !rs->estimated && rs->finished) {
        f->load_s = rs->completion_s;
    }
    if (f->load_s > 0)
        f->load_gibps = read_gib / f->load_s;
    /* each write and read follows the emulated compute; the next one starts
     * when every rank is done */
    f->run_s = (f->save_all_s > 0 ? f->writes * (f->gap_s + f->save_all_s) : 0) +
               (f->load_s > 0 ? f->reads * (f->gap_s + f->load_s) : 0);
}
