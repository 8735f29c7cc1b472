/* Telemetry time series: storage that grows geometrically, port names. */
#include "series.h"

#include "../topo/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grow *p (elements of size sz) to hold at least need; doubles. */
static int grow(void **p, uint64_t *cap, uint64_t need, size_t sz)
{
    if (need <= *cap)
        return 0;
    uint64_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * sz);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

int series_reserve(struct series *s, uint64_t max_ents)
{
    if (s->n + 1 >= s->cap) {
        uint32_t c = s->cap ? 2 * s->cap : 256;
        uint64_t *sb = realloc(s->seg_bytes, (size_t)c * SERIES_SEGS * sizeof *sb);
        if (sb)
            s->seg_bytes = sb;
        uint32_t *sp = s->seg_paused;
        if (s->port_state && (sp = realloc(sp, (size_t)c * SERIES_SEGS * sizeof *sp)))
            s->seg_paused = sp;
        uint64_t *rem = realloc(s->remaining, (size_t)c * sizeof *rem);
        if (rem)
            s->remaining = rem;
        uint32_t *act = realloc(s->active, (size_t)c * sizeof *act);
        if (act)
            s->active = act;
        uint64_t *ing = s->ingest;
        if (s->n_store && (ing = realloc(ing, (size_t)c * s->n_store * sizeof *ing)))
            s->ingest = ing;
        uint64_t *cch = s->cache;
        if (s->n_store && s->has_cache &&
            (cch = realloc(cch, (size_t)c * s->n_store * sizeof *cch)))
            s->cache = cch;
        uint64_t *off = s->off;
        if (s->port_state && (off = realloc(off, ((size_t)c + 1) * sizeof *off)))
            s->off = off;
        if (!sb || !rem || !act || (s->port_state && (!sp || !off)) || (s->n_store && !ing) ||
            (s->n_store && s->has_cache && !cch))
            return -1;
        if (s->cap == 0 && s->port_state)
            s->off[0] = 0;
        s->cap = c;
    }
    if (!s->port_state)
        return 0;
    void *ent = s->ent;
    if (grow(&ent, &s->ent_cap, s->n_ent + max_ents, sizeof *s->ent) < 0)
        return -1;
    s->ent = ent;
    return 0;
}

double series_sample_bytes(int port_state)
{
    struct series *s = NULL;
    double b = SERIES_SEGS * sizeof *s->seg_bytes + sizeof *s->remaining + sizeof *s->active;
    if (port_state)
        b += SERIES_SEGS * sizeof *s->seg_paused + sizeof *s->off;
    return b;
}

void series_release(struct series *s)
{
    free(s->seg_bytes);
    free(s->seg_paused);
    free(s->remaining);
    free(s->active);
    free(s->off);
    free(s->ent);
    free(s->ingest);
    free(s->cache);
    free(s->store_node);
    free(s->cur);
    free(s->port_node);
    free(s->port_peer);
    free(s->port_seg);
    free(s->names);
    free(s->name_off);
    memset(s, 0, sizeof *s);
}

int series_pause_runs(const struct series *s, series_run_fn *fn, void *ud)
{
    if (!s->n || !s->port_state)
        return 0;
    uint32_t *since = malloc((s->n_ports ? s->n_ports : 1) * sizeof *since);
    if (!since)
        return -1;
    for (uint32_t p = 0; p < s->n_ports; p++)
        since[p] = UINT32_MAX; /* not paused */
    for (uint32_t i = 0; i < s->n; i++)
        for (uint64_t k = s->off[i]; k < s->off[i + 1]; k++) {
            uint32_t p = s->ent[k].port;
            if (p >= s->n_ports)
                continue;
            if (s->ent[k].paused && since[p] == UINT32_MAX) {
                since[p] = i;
            } else if (!s->ent[k].paused && since[p] != UINT32_MAX) {
                fn(ud, p, since[p], i - 1);
                since[p] = UINT32_MAX;
            }
        }
    for (uint32_t p = 0; p < s->n_ports; p++)
        if (since[p] != UINT32_MAX)
            fn(ud, p, since[p], s->n - 1);
    free(since);
    return 0;
}

int series_names(struct series *s, const struct topo *t)
{
    if (!t->names)
        return 0;
    size_t total = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        total += strlen(t->names[i]) + 1;
    s->names = malloc(total);
    s->name_off = malloc((size_t)t->n_nodes * sizeof *s->name_off);
    if (!s->names || !s->name_off || total > UINT32_MAX) {
        free(s->names);
        free(s->name_off);
        s->names = NULL;
        s->name_off = NULL;
        return -1;
    }
    size_t at = 0;
    for (uint32_t i = 0; i < t->n_nodes; i++) {
        size_t l = strlen(t->names[i]) + 1;
        s->name_off[i] = (uint32_t)at;
        memcpy(s->names + at, t->names[i], l);
        at += l;
    }
    s->n_names = t->n_nodes;
    return 0;
}

const char *series_node_name(const struct series *s, uint32_t node, char *buf,
                             unsigned len)
{
    if (s->names && node < s->n_names) {
        snprintf(buf, len, "%s", s->names + s->name_off[node]);
        return buf;
    }
    return path_node_name(node, s->first_storage, s->first_cleaf, s->first_sleaf,
                          s->first_spine, s->first_super, buf, len);
}

const char *series_link_label(const struct series *s, uint32_t node, uint32_t peer,
                              char *buf, unsigned len)
{
    char a[SERIES_NAME_MAX], b[SERIES_NAME_MAX];
    snprintf(buf, len, "%s->%s", series_node_name(s, node, a, sizeof a),
             series_node_name(s, peer, b, sizeof b));
    return buf;
}
