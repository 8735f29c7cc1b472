/* Capital and power of a fabric design. */
#include "design_cost.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../scenario/catalog.h"

#define DAY_H 24.0

static void unpriced(struct design_price *o, const char *what, uint64_t n, const char *name)
{
    if (o->n_unpriced < sizeof o->unpriced / sizeof o->unpriced[0])
        snprintf(o->unpriced[o->n_unpriced++], sizeof o->unpriced[0], "%" PRIu64 " %s (%s)", n,
                 what, name);
}

void cost_price_add(struct design_price *o, double *sum, const struct cost_price *pr, uint32_t np,
                const char *name, uint64_t n, const char *what)
{
    if (!n)
        return;
    const struct cost_price *q = cost_price_find(pr, np, name);
    const struct price_ref *ref = price_ref_find(name);
    if (q)
        *sum += (double)n * q->price;
    else
        unpriced(o, what, n, name);
    if (ref)
        o->watts += (double)n * ref->watts;
}

/* The transceiver name for speed bps and reach suffix ("_sr", "_dr"):
 * the reach's own price, else the speed's any-reach one. */
static void optic_name(char *out, size_t len, uint64_t bps, const char *reach,
                       const struct cost_price *pr, uint32_t np)
{
    unsigned long long g = (unsigned long long)(bps / UINT64_C(1000000000));
    snprintf(out, len, "optic_%llug%s", g, reach);
    if (!cost_price_find(pr, np, out)) {
        char any[24];
        snprintf(any, sizeof any, "optic_%llug", g);
        if (cost_price_find(pr, np, any))
            snprintf(out, len, "%s", any);
    }
}

void cost_price_links(struct design_price *o, int c, uint64_t links, uint64_t bps,
                      const struct cost_price *pr, uint32_t np)
{
    static const char *const what[DL_N] = {"host links", "storage links", "leaf-spine links",
                                           "spine-super-spine links"};
    struct design_part *p = &o->part[c];
    if (!links)
        return;
    unsigned long long g = (unsigned long long)(bps / UINT64_C(1000000000));
    if (c == DL_HOST || c == DL_STORAGE) { /* in the rack: copper, no optics */
        snprintf(p->cable, sizeof p->cable, "dac_%llug", g);
    } else {
        optic_name(p->optic, sizeof p->optic, bps, c == DL_LEAF_SPINE ? "_sr" : "_dr", pr, np);
        snprintf(p->cable, sizeof p->cable, "%s", c == DL_LEAF_SPINE ? "fiber_mmf" : "fiber_smf");
        p->optics += 2 * links;
        cost_price_add(o, &o->optics, pr, np, p->optic, 2 * links, "transceivers");
    }
    p->cables += links;
    cost_price_add(o, &o->cables, pr, np, p->cable, links, what[c]);
}

/* A link class with one end broken out (e) within a row: a breakout AOC
 * aoc_<port>g_<b>x a broken-out port (its transceivers built in) in place of
 * the port's transceiver, a transceiver a link at the lane's speed and a
 * fibre a link, when it is priced and costs less than they do (or they are
 * not all priced). Names the AOC in p->cable when it wins. */
static int aoc_cheaper(struct design_part *p, const struct design_end *e, uint64_t links,
                       uint64_t bps, const struct cost_price *pr, uint32_t np)
{
    char aoc[24], port[24], lane[24];
    snprintf(aoc, sizeof aoc, "aoc_%llug_%ux",
             (unsigned long long)(e->port_bps / UINT64_C(1000000000)), e->b);
    const struct cost_price *a = cost_price_find(pr, np, aoc);
    if (!a)
        return 0;
    optic_name(port, sizeof port, e->port_bps, "_sr", pr, np);
    optic_name(lane, sizeof lane, bps, "_sr", pr, np);
    const struct cost_price *qp = cost_price_find(pr, np, port);
    const struct cost_price *ql = cost_price_find(pr, np, lane);
    const struct cost_price *qf = cost_price_find(pr, np, "fiber_mmf");
    if (qp && ql && qf &&
        (double)e->ports * qp->price + (double)links * (ql->price + qf->price) <=
            (double)e->ports * a->price)
        return 0;
    snprintf(p->cable, sizeof p->cable, "%s", aoc);
    return 1;
}

void cost_price_links_bo(struct design_price *o, int c, uint64_t links, uint64_t bps,
                         const struct design_end end[2], const struct cost_price *pr,
                         uint32_t np)
{
    static const char *const what[DL_N] = {"host links", "storage links", "leaf-spine links",
                                           "spine-super-spine links"};
    if (!links)
        return;
    if (end[0].b <= 1 && end[1].b <= 1) {
        cost_price_links(o, c, links, bps, pr, np);
        return;
    }
    struct design_part *p = &o->part[c];
    if (c == DL_HOST || c == DL_STORAGE) { /* the leaf's end broken out */
        const struct design_end *e = &end[1];
        snprintf(p->cable, sizeof p->cable, "dac_%llug_%ux",
                 (unsigned long long)(e->port_bps / UINT64_C(1000000000)), e->b);
        p->cables += e->ports;
        cost_price_add(o, &o->cables, pr, np, p->cable, e->ports, what[c]);
        return;
    }
    const char *reach = c == DL_LEAF_SPINE ? "_sr" : "_dr";
    if (c == DL_LEAF_SPINE && (end[0].b > 1) != (end[1].b > 1) &&
        aoc_cheaper(p, &end[end[1].b > 1], links, bps, pr, np)) {
        const struct design_end *e = &end[end[1].b > 1];
        p->cables += e->ports;
        cost_price_add(o, &o->cables, pr, np, p->cable, e->ports, what[c]);
        return;
    }
    for (int i = 0; i < 2; i++) {
        const struct design_end *e = &end[i];
        int bo = e->b > 1, second = bo && !(i == 0 && end[1].b > 1); /* both: lower first */
        char *name = second ? p->optic2 : p->optic;
        size_t nl = second ? sizeof p->optic2 : sizeof p->optic;
        uint64_t n = bo ? e->ports : links;
        optic_name(name, nl, bo ? e->port_bps : bps, reach, pr, np);
        *(second ? &p->optics2 : &p->optics) += n;
        cost_price_add(o, &o->optics, pr, np, name, n, "transceivers");
    }
    snprintf(p->cable, sizeof p->cable, "%s", c == DL_LEAF_SPINE ? "fiber_mmf" : "fiber_smf");
    p->cables += links;
    cost_price_add(o, &o->cables, pr, np, p->cable, links, what[c]);
}

void cost_price_storage(struct design_price *o, const struct cost_price *pr, uint32_t np,
                        const struct storage_bill *sb, uint64_t nodes)
{
    cost_price_add(o, &o->storage, pr, np, sb->node, nodes, "storage nodes");
    if (sb->drives && sb->drive[0])
        cost_price_add(o, &o->storage, pr, np, sb->drive, nodes * sb->drives, "storage drives");
}

void cost_design(struct design_price *o, const struct design *d,
                 const struct design_input *in, const struct cost_price *pr, uint32_t np,
                 double years)
{
    cost_design_bill(o, d, in, NULL, pr, np, years);
}

void cost_design_bill(struct design_price *o, const struct design *d,
                      const struct design_input *in, const struct storage_bill *sb,
                      const struct cost_price *pr, uint32_t np, double years)
{
    memset(o, 0, sizeof *o);
    cost_price_add(o, &o->switches, pr, np, d->leaf->name, (uint64_t)d->cleaves + d->sleaves,
                   "leaves");
    cost_price_add(o, &o->switches, pr, np, d->spine->name, d->n_spines, "spines");
    cost_price_add(o, &o->switches, pr, np, d->spine->name, d->n_supers, "super-spines");
    for (int c = 0; c < DL_N; c++)
        cost_price_links_bo(o, c, d->links[c], d->link_bps[c], d->end[c], pr, np);
    struct storage_bill node = {"storage_node", "", 0};
    cost_price_storage(o, pr, np, sb ? sb : &node, in->storage);
    if (in->train_fabric) { /* the training fabric's parts, apart; its watts too */
        struct design t;
        struct design_price tp;
        design_training(d, in, &t);
        memset(&tp, 0, sizeof tp);
        cost_price_add(&tp, &tp.switches, pr, np, t.leaf->name, t.cleaves, "leaves");
        cost_price_add(&tp, &tp.switches, pr, np, t.spine->name, t.n_spines, "spines");
        cost_price_add(&tp, &tp.switches, pr, np, t.spine->name, t.n_supers, "super-spines");
        for (int c = 0; c < DL_N; c++)
            cost_price_links_bo(&tp, c, t.links[c], t.link_bps[c], t.end[c], pr, np);
        o->training = tp.switches + tp.optics + tp.cables;
        o->train_sw[0] = t.cleaves, o->train_sw[1] = t.n_spines, o->train_sw[2] = t.n_supers;
        o->watts += tp.watts;
        for (uint32_t i = 0; i < tp.n_unpriced && o->n_unpriced < 8; i++)
            snprintf(o->unpriced[o->n_unpriced++], sizeof o->unpriced[0],
                     "training fabric: %.50s", tp.unpriced[i]);
    }
    o->capital = o->switches + o->optics + o->cables + o->storage + o->training;
    o->capital_per_day = years > 0 ? o->capital / (years * 365.25) : 0;
    const struct cost_price *kwh = cost_price_find(pr, np, "kwh");
    o->power_per_day = kwh ? o->watts / 1000.0 * DAY_H * kwh->price : 0;
    o->per_day = o->capital_per_day + o->power_per_day;
}
