/* Fabric designer: every valid Clos for a cluster (design.h has the rules). */
#include "design.h"

#include <stdio.h>
#include <string.h>

static uint64_t cdiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* The parts of a design its shape fixes: leaves, links, oversubscription. */
static void design_fill(struct design *d, const struct design_input *in, uint64_t up)
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
    d->link_bps[DL_SPINE_SUPER] = d->tiers > 2 ? up : 0;
    if (d->tiers == 2) {
        d->n_spines = d->spines;
        d->n_supers = 0;
        d->links[DL_SPINE_SUPER] = 0;
    } else {
        uint64_t pods = (uint64_t)d->cpods + d->spods;
        d->n_spines = (uint32_t)(pods * d->spines);
        d->n_supers = d->spines * d->supers_per_plane;
        d->links[DL_SPINE_SUPER] = pods * d->spines * d->supers_per_plane;
    }
    d->oversub = (double)d->hpl * in->nics * (double)in->nic_bps /
                 ((double)d->uplinks * (double)up);
}

/* The designs of one profile pair; returns nonzero when fn asked to stop. */
static int pair_each(const struct design_input *in, const struct switch_profile *lp,
                     const struct switch_profile *sp, design_fn *fn, void *ud, uint64_t *count)
{
    const uint32_t Pl = lp->ports, Ps = sp->ports, n = in->nics, s = in->snics;
    uint64_t up = lp->port_bps < sp->port_bps ? lp->port_bps : sp->port_bps;
    if (!n || !s || !in->nodes || !in->storage || in->nic_bps > lp->port_bps ||
        in->snic_bps > lp->port_bps || !up)
        return 0;
    for (uint32_t tiers = 2; tiers <= in->max_tiers && tiers <= 3; tiers++)
        for (uint32_t h = 1; h <= in->nodes && (uint64_t)h * n < Pl; h++) {
            /* no more uplink capacity than host capacity */
            uint64_t umax = cdiv((uint64_t)h * n * in->nic_bps, up);
            if (umax > Pl - (uint64_t)h * n)
                umax = Pl - (uint64_t)h * n;
            for (uint32_t u = 1; u <= umax; u++) {
                /* storage leaves as full as their ports allow, or (when
                 * fewer) as their uplinks carry at 1:1 */
                uint32_t full = (Pl - u) / s;
                full = full < in->storage ? full : in->storage;
                uint64_t carry = (uint64_t)u * up / ((uint64_t)s * in->snic_bps);
                uint32_t fills[2] = {full, carry < full ? (uint32_t)carry : 0};
                for (int f = 0; f < 2; f++) {
                    uint32_t spl = fills[f];
                    if (!spl)
                        continue;
                    struct design d = {.tiers = tiers, .leaf = lp, .spine = sp, .hpl = h,
                                       .uplinks = u, .spl = spl};
                    uint64_t cl = cdiv(in->nodes, h), sl = cdiv(in->storage, spl);
                    if (tiers == 2) {
                        for (uint32_t k = 1; k <= u; k++) {
                            if (u % k || (cl + sl) * k > Ps)
                                continue;
                            d.spines = u / k;
                            d.k = k;
                            design_fill(&d, in, up);
                            ++*count;
                            if (fn(ud, &d))
                                return 1;
                        }
                        continue;
                    }
                    /* three tiers: u planes, p leaves and p super-spines a plane */
                    for (uint32_t p = 1; p <= Ps / 2 && p <= cl; p++) {
                        uint64_t cpods = cdiv(cl, p), spods = cdiv(sl, p);
                        if (cdiv(cl, cpods) != p || cpods + spods < 2 || cpods + spods > Ps)
                            continue;
                        d.spines = u;
                        d.k = 1;
                        d.lpp = p;
                        d.cpods = (uint32_t)cpods;
                        d.spods = (uint32_t)spods;
                        d.supers_per_plane = p;
                        design_fill(&d, in, up);
                        ++*count;
                        if (fn(ud, &d))
                            return 1;
                    }
                }
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

int design_keys(const struct design *d, char *buf, size_t len, const char *sep)
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
                    "fabric.storage_pods=pod",
                    sep, d->leaf->name, sep, d->spine->name, sep, d->spine->name, sep, d->hpl,
                    sep, d->spl, sep, d->spines, sep, d->spines, sep, d->lpp, sep,
                    d->supers_per_plane, sep, sep, sep);
}

void design_radix(const struct design *d, const struct design_input *in, uint32_t need[3])
{
    uint32_t hosts = (d->hpl < in->nodes ? d->hpl : in->nodes) * in->nics;
    uint32_t st = d->spl * in->snics;
    need[0] = (hosts > st ? hosts : st) + d->uplinks;
    if (d->tiers == 2) {
        need[1] = (d->cleaves + d->sleaves) * d->k;
        need[2] = 0;
    } else {
        uint32_t widest = d->cleaves < d->lpp ? d->cleaves : d->lpp;
        uint32_t swidest = d->sleaves < d->lpp ? d->sleaves : d->lpp;
        need[1] = (widest > swidest ? widest : swidest) + d->supers_per_plane;
        need[2] = d->cpods + d->spods;
    }
}
