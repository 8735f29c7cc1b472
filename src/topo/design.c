/* Fabric designer: every valid Clos for a cluster (design.h has the rules). */
#include "design.h"

#include <stdio.h>
#include <string.h>

static uint64_t cdiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Ports an end of a class uses when broken out: n switches of links
 * each, over b, rounded up (0 when not broken out: priced by the link). */
static uint64_t bo_ports(uint32_t b, uint64_t n, uint64_t links)
{
    return b > 1 ? n * cdiv(links, b) : 0;
}

/* The same over leaves of w links each but the last (total links in all). */
static uint64_t bo_ports_last(uint32_t b, uint64_t total, uint64_t w)
{
    if (b <= 1 || !w)
        return 0;
    return (total / w) * cdiv(w, b) + cdiv(total % w, b);
}

/* The ends of each link class and their broken-out ports. */
static void design_ends(struct design *d, const struct design_input *in)
{
    const uint64_t lb = d->leaf->port_bps, sb = d->spine->port_bps;
    memset(d->end, 0, sizeof d->end);
    for (int c = 0; c < DL_N; c++)
        d->end[c][0].b = d->end[c][1].b = 1;
    d->end[DL_HOST][1] = (struct design_end){d->bo_down, lb,
        bo_ports_last(d->bo_down, (uint64_t)in->nodes * in->nics, (uint64_t)d->hpl * in->nics)};
    d->end[DL_STORAGE][1] = (struct design_end){d->bo_down, lb,
        bo_ports_last(d->bo_down, (uint64_t)in->storage * in->snics, (uint64_t)d->spl * in->snics)};
    uint64_t leaves = (uint64_t)d->cleaves + d->sleaves;
    d->end[DL_LEAF_SPINE][0] =
        (struct design_end){d->bo_up, lb, bo_ports(d->bo_up, leaves, d->uplinks)};
    uint64_t sp_down = 0; /* spines' ports down */
    if (d->tiers == 2) {
        sp_down = bo_ports(d->bo_spine, d->spines, leaves * d->k);
    } else if (d->bo_spine > 1) {
        /* each pod's spines: its compute leaves (and dealt storage leaves) */
        for (uint32_t q = 0; q < d->cpods; q++) {
            uint64_t w = q + 1 < d->cpods ? d->lpp : d->cleaves - (uint64_t)q * d->lpp;
            if (d->spread) /* storage leaf j in compute pod j mod pods */
                w += d->sleaves / d->cpods + (q < d->sleaves % d->cpods);
            sp_down += d->spines * cdiv(w, d->bo_spine);
        }
        for (uint32_t q = 0; q < d->spods; q++) {
            uint64_t w = q + 1 < d->spods ? d->lpp : d->sleaves - (uint64_t)q * d->lpp;
            sp_down += d->spines * cdiv(w, d->bo_spine);
        }
    }
    d->end[DL_LEAF_SPINE][1] = (struct design_end){d->bo_spine, sb, sp_down};
    if (d->tiers == 3) {
        uint64_t pods = (uint64_t)d->cpods + d->spods;
        d->end[DL_SPINE_SUPER][0] = (struct design_end){
            d->bo_spine, sb, bo_ports(d->bo_spine, d->n_spines, d->supers_per_plane)};
        d->end[DL_SPINE_SUPER][1] =
            (struct design_end){d->bo_spine, sb, bo_ports(d->bo_spine, d->n_supers, pods)};
    }
}

/* The parts of a design its shape fixes: leaves, links, oversubscription. */
static void design_fill(struct design *d, const struct design_input *in, uint64_t up,
                        uint64_t up2)
{
    d->cleaves = (uint32_t)cdiv(in->nodes, d->hpl);
    d->sleaves = (uint32_t)cdiv(in->storage, d->spl);
    uint64_t leaves = (uint64_t)d->cleaves + d->sleaves;
    d->links[DL_HOST] = (uint64_t)in->nodes * in->nics;
    d->link_bps[DL_HOST] = in->nic_bps;
    d->links[DL_STORAGE] = (uint64_t)in->storage * in->snics;
    d->link_bps[DL_STORAGE] = in->snic_bps;
    d->links[DL_LEAF_SPINE] = leaves * d->uplinks;
    d->link_bps[DL_LEAF_SPINE] = up;
    d->link_bps[DL_SPINE_SUPER] = d->tiers > 2 ? up2 : 0;
    if (d->tiers == 2) {
        d->n_spines = d->spines;
        d->n_supers = 0;
        d->links[DL_SPINE_SUPER] = 0;
    } else {
        uint64_t pods = (uint64_t)d->cpods + d->spods;
        d->n_spines = (uint32_t)(pods * d->spines);
        d->n_supers = d->spines * d->supers_per_plane;
        d->links[DL_SPINE_SUPER] = pods * d->spines * d->supers_per_plane;
        d->oversub_spine = (double)d->lpp * (double)up / ((double)d->supers_per_plane * (double)up2);
    }
    d->oversub = (double)d->hpl * in->nics * (double)in->nic_bps /
                 ((double)d->uplinks * (double)up);
    design_ends(d, in);
}

void design_training(const struct design *d, const struct design_input *in, struct design *t)
{
    struct design_input ti = *in;
    ti.storage = 0; /* no storage leaves, pods or links */
    *t = *d;
    t->spods = 0;
    design_fill(t, &ti, d->link_bps[DL_LEAF_SPINE], d->link_bps[DL_SPINE_SUPER]);
}

static int asked(uint32_t mask, uint32_t v)
{
    return v == 1 && !mask ? 1 : (int)((mask >> v) & 1);
}

/* The designs of one profile pair at breakouts bd (leaf host side), bu
 * (leaf uplinks), bs (spines); returns nonzero when fn asked to stop. */
static int pair_bo_each(const struct design_input *in, const struct switch_profile *lp,
                        const struct switch_profile *sp, uint32_t tiers, uint32_t bd,
                        uint32_t bu, uint32_t bs, design_fn *fn, void *ud, uint64_t *count)
{
    const uint32_t Pl = lp->ports, Ps = sp->ports, n = in->nics, s = in->snics;
    const uint64_t lane_u = lp->port_bps / bu, lane_s = sp->port_bps / bs;
    /* fabric links run at the slower lane; above the spines at theirs */
    const uint64_t up = lane_u < lane_s ? lane_u : lane_s, up2 = lane_s;
    for (uint32_t h = 1; h <= in->nodes && cdiv((uint64_t)h * n, bd) < Pl; h++) {
        const uint64_t hp = cdiv((uint64_t)h * n, bd); /* host ports */
        /* no more uplink capacity than host capacity */
        uint64_t umax = cdiv((uint64_t)h * n * in->nic_bps, up);
        if (umax > (Pl - hp) * bu)
            umax = (Pl - hp) * bu;
        for (uint32_t u = 1; u <= umax; u++) {
            /* storage leaves as full as their ports allow, or (when
             * fewer) as their uplinks carry at 1:1 */
            uint64_t free_lanes = (Pl - cdiv(u, bu)) * (uint64_t)bd;
            uint64_t f64 = free_lanes / s;
            uint32_t full = f64 < in->storage ? (uint32_t)f64 : in->storage;
            uint64_t carry = (uint64_t)u * up / ((uint64_t)s * in->snic_bps);
            uint32_t fills[2] = {full, carry < full ? (uint32_t)carry : 0};
            for (int f = 0; f < 2; f++) {
                uint32_t spl = fills[f];
                if (!spl)
                    continue;
                struct design d = {.tiers = tiers, .leaf = lp, .spine = sp, .hpl = h,
                                   .uplinks = u, .spl = spl, .bo_down = bd, .bo_up = bu,
                                   .bo_spine = bs};
                uint64_t cl = cdiv(in->nodes, h), sl = cdiv(in->storage, spl);
                if (tiers == 2) {
                    for (uint32_t k = 1; k <= u; k++) {
                        if (u % k || cdiv((cl + sl) * k, bs) > Ps)
                            continue;
                        d.spines = u / k;
                        d.k = k;
                        design_fill(&d, in, up, up2);
                        ++*count;
                        if (fn(ud, &d))
                            return 1;
                    }
                    continue;
                }
                /* three tiers: u planes, p leaves and ceil(p/r) super-spines a
                 * plane; storage leaves in pods of their own (spread 0) or
                 * dealt over the compute pods (1: the first pods take one more) */
                for (uint32_t p = 1; cdiv(p, bs) < Ps && p <= cl; p++)
                    for (uint32_t spread = 0; spread < 2; spread++) {
                        uint64_t cpods = cdiv(cl, p), spods = spread ? 0 : cdiv(sl, p);
                        uint64_t down = p + (spread ? cdiv(sl, cpods) : 0); /* widest pod */
                        if (!(in->storage_pods ? in->storage_pods >> spread & 1 : !spread) ||
                            cdiv(cl, cpods) != p || cpods + spods < 2 ||
                            cdiv(cpods + spods, bs) > Ps || cdiv(down, bs) >= Ps)
                            continue;
                        uint32_t prev = 0; /* the last count of super-spines a plane */
                        for (uint32_t r = 1; r < 32; r++) {
                            uint32_t S = (uint32_t)cdiv(p, r);
                            if (!asked(in->spine_ratios, r) || S == prev ||
                                cdiv(down, bs) + cdiv(S, bs) > Ps || (r > 1 && S == p))
                                continue;
                            prev = S;
                            d.spines = u;
                            d.k = 1;
                            d.lpp = p;
                            d.cpods = (uint32_t)cpods;
                            d.spods = (uint32_t)spods;
                            d.supers_per_plane = S;
                            d.ratio = r;
                            d.spread = spread;
                            design_fill(&d, in, up, up2);
                            ++*count;
                            if (fn(ud, &d))
                                return 1;
                        }
                    }
            }
        }
    }
    return 0;
}

/* The designs of one profile pair; returns nonzero when fn asked to stop. */
static int pair_each(const struct design_input *in, const struct switch_profile *lp,
                     const struct switch_profile *sp, design_fn *fn, void *ud, uint64_t *count)
{
    static const uint32_t bos[3] = {1, 2, 4};
    if (!in->nics || !in->snics || !in->nodes || !in->storage || !lp->port_bps ||
        !sp->port_bps)
        return 0;
    for (uint32_t tiers = 2; tiers <= in->max_tiers && tiers <= 3; tiers++)
        for (int i = 0; i < 3; i++) {
            uint32_t bd = bos[i];
            /* a lane no slower than every NIC */
            if (!asked(in->breakouts, bd) || in->nic_bps > lp->port_bps / bd ||
                in->snic_bps > lp->port_bps / bd)
                continue;
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++) {
                    uint32_t bu = bos[j], bs = bos[k];
                    /* broken out: lanes of one speed at both ends */
                    if (!asked(in->breakouts, bu) || !asked(in->breakouts, bs) ||
                        ((bu > 1 || bs > 1) && lp->port_bps / bu != sp->port_bps / bs))
                        continue;
                    if (pair_bo_each(in, lp, sp, tiers, bd, bu, bs, fn, ud, count))
                        return 1;
                }
        }
    return 0;
}

uint64_t design_each(const struct design_input *in, design_fn *fn, void *ud)
{
    uint64_t count = 0;
    for (uint32_t i = 0; i < in->n_prof; i++)
        for (uint32_t j = 0; j < in->n_prof; j++)
            if (pair_each(in, in->prof[i], in->prof[j], fn, ud, &count))
                return count;
    return count;
}

static int design_keys1(const struct design *d, char *buf, size_t len, const char *sep);

/* The breakout keys of d (none at 1), appended at buf + at. */
static int keys_bo(const struct design *d, char *buf, size_t len, int at, const char *sep)
{
    if ((d->bo_down <= 1 && d->bo_up <= 1 && d->bo_spine <= 1) || at < 0 || (size_t)at >= len)
        return at;
    int w = snprintf(buf + at, len - (size_t)at,
                     "%sfabric.leaf_down_breakout=%u%sfabric.leaf_up_breakout=%u%s"
                     "fabric.spine_breakout=%u",
                     sep, d->bo_down ? d->bo_down : 1, sep, d->bo_up ? d->bo_up : 1, sep,
                     d->bo_spine ? d->bo_spine : 1);
    return w < 0 ? w : at + w;
}

int design_keys(const struct design *d, char *buf, size_t len, const char *sep)
{
    return keys_bo(d, buf, len, design_keys1(d, buf, len, sep), sep);
}

static int design_keys1(const struct design *d, char *buf, size_t len, const char *sep)
{
    if (d->tiers == 2)
        return snprintf(buf, len,
                        "fabric.tiers=2%sfabric.leaf_switch=%s%sfabric.spine_switch=%s%s"
                        "fabric.hosts_per_leaf=%u%sfabric.storage_per_leaf=%u%s"
                        "fabric.spines=%u%sfabric.links_per_spine=%u",
                        sep, d->leaf->name, sep, d->spine->name, sep, d->hpl, sep, d->spl,
                        sep, d->spines, sep, d->k);
    return snprintf(buf, len,
                    "fabric.tiers=3%sfabric.leaf_switch=%s%sfabric.spine_switch=%s%s"
                    "fabric.superspine_switch=%s%sfabric.hosts_per_leaf=%u%s"
                    "fabric.storage_per_leaf=%u%sfabric.spines=%u%sfabric.spines_per_pod=%u%s"
                    "fabric.leaves_per_pod=%u%sfabric.superspines=%u%s"
                    "fabric.links_per_spine=1%sfabric.links_per_superspine=1%s"
                    "fabric.storage_pods=%s",
                    sep, d->leaf->name, sep, d->spine->name, sep, d->spine->name, sep, d->hpl,
                    sep, d->spl, sep, d->spines, sep, d->spines, sep, d->lpp, sep,
                    d->supers_per_plane, sep, sep, sep, d->spread ? "spread" : "pod");
}

void design_radix(const struct design *d, const struct design_input *in, uint32_t need[3])
{
    /* physical ports: each side's links over its breakout, rounded up */
    uint32_t bd = d->bo_down ? d->bo_down : 1, bu = d->bo_up ? d->bo_up : 1;
    uint32_t bs = d->bo_spine ? d->bo_spine : 1;
    uint32_t hosts = (d->hpl < in->nodes ? d->hpl : in->nodes) * in->nics;
    uint32_t st = (d->spl < in->storage ? d->spl : in->storage) * in->snics;
    need[0] = (uint32_t)cdiv(hosts > st ? hosts : st, bd) + (uint32_t)cdiv(d->uplinks, bu);
    if (d->tiers == 2) {
        need[1] = (uint32_t)cdiv((uint64_t)(d->cleaves + d->sleaves) * d->k, bs);
        need[2] = 0;
    } else {
        uint32_t widest = d->cleaves < d->lpp ? d->cleaves : d->lpp;
        uint32_t swidest = d->sleaves < d->lpp ? d->sleaves : d->lpp;
        if (d->spread) /* the first compute pod takes one more storage leaf */
            widest += (uint32_t)cdiv(d->sleaves, d->cpods), swidest = 0;
        need[1] = (uint32_t)cdiv(widest > swidest ? widest : swidest, bs) +
                  (uint32_t)cdiv(d->supers_per_plane, bs);
        need[2] = (uint32_t)cdiv((uint64_t)d->cpods + d->spods, bs);
    }
}
