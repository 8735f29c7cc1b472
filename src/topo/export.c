/* Topology files: writing a built fabric (topo_export) in the format
 * fabric.topology_file reads (import.c). One element per line, so a user
 * can edit the file with a text editor and diff two fabrics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/outfile.h"
#include "../core/units.h"
#include "internal.h"

const char *topo_node_name(const struct topo *t, uint32_t node, char *buf, size_t len)
{
    if (t->names) {
        snprintf(buf, len, "%s", t->names[node]);
        return buf;
    }
    return path_node_name(node, t->first_storage, t->first_cleaf, t->first_sleaf, t->first_spine,
                          t->tiers == 3 ? t->first_super : 0, buf, len);
}

void topo__link_name(const struct topo *t, uint32_t p, char *buf, size_t len)
{
    uint32_t a = t->ports[p].node, b = t->ports[t->ports[p].peer].node, j = 0, par = 0;
    const struct tnode *x = &t->nodes[a];
    for (uint32_t q = x->first_port; q < x->first_port + x->nports; q++)
        if (t->ports[t->ports[q].peer].node == b) {
            j = q < p ? j + 1 : j;
            par++;
        }
    char na[256], nb[256];
    int w = snprintf(buf, len, "%.70s-%.70s", topo_node_name(t, a, na, sizeof na),
                     topo_node_name(t, b, nb, sizeof nb));
    if (par > 1 && w > 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, "#%u", j);
}

/* Each failed link's place in t->failed_names (1-based, into order[port]),
 * so an import lists them in the same order. Names past the list's
 * truncation keep 0 ("failed": true, listed after). */
static void failed_order(const struct topo *t, uint32_t *order)
{
    const char *s = t->failed_names;
    uint32_t n = 0, nf = 0;
    /* the list holds a few names (256 bytes): scan the failed links, not every port */
    uint32_t *fp = malloc((t->n_failed ? t->n_failed : 1) * sizeof *fp);
    for (uint32_t p = 0; fp && p < t->n_ports && nf < t->n_failed; p++)
        if (t->ports[p].failed && t->ports[p].peer > p)
            fp[nf++] = p;
    while (fp && *s) {
        const char *end = strstr(s, ", ");
        size_t step = end ? (size_t)(end - s) + 2 : strlen(s), len = end ? step - 2 : step;
        while (len >= 3 && !strncmp(s + len - 3, "...", 3))
            len -= 3; /* the list was cut after this name */
        n++;
        for (uint32_t i = 0; i < nf; i++) {
            char nm[160];
            uint32_t p = fp[i];
            if (order[p])
                continue;
            topo__link_name(t, p, nm, sizeof nm);
            if (strlen(nm) == len && !strncmp(nm, s, len)) {
                order[p] = n;
                break;
            }
        }
        s += step;
    }
    free(fp);
}

/* s as a JSON string: names from an imported file may hold quotes. */
static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static void put_names(FILE *f, const struct topo *t, const char *key, uint32_t from,
                      uint32_t to)
{
    char nm[256];
    fprintf(f, "  \"%s\": [", key);
    for (uint32_t n = from; n < to; n++) {
        fputs(n == from ? "" : n % 8 ? ", " : ",\n    ", f);
        put_str(f, topo_node_name(t, n, nm, sizeof nm));
    }
    fputs("],\n", f);
}

int topo_export(const struct topo *t, const struct scenario *sc, const char *path,
                struct err *e)
{
    struct ofile of;
    FILE *f = ofile_open(&of, path, e);
    if (!f)
        return -1;
    char nm[256], a[32], b[32];
    fprintf(f, "{\n  \"format\": \"ckptnet-topology\",\n  \"version\": %d,\n  \"tiers\": %u,\n",
            TOPO_FILE_VERSION, t->tiers);
    put_names(f, t, "hosts", 0, t->first_storage);
    put_names(f, t, "storage", t->first_storage, t->first_cleaf);
    fputs("  \"switches\": [\n", f);
    for (uint32_t n = t->first_cleaf; n < t->n_nodes; n++) {
        const struct tnode *nd = &t->nodes[n];
        const char *tier = nd->kind == NODE_LEAF ? "leaf" : nd->kind == NODE_SPINE ? "spine"
                                                                                 : "superspine";
        const char *prof = nd->kind == NODE_LEAF    ? sc->fabric.leaf_switch
                           : nd->kind == NODE_SPINE ? sc->fabric.spine_switch
                                                    : sc->fabric.superspine_switch;
        fputs("    {\"name\": ", f);
        put_str(f, topo_node_name(t, n, nm, sizeof nm));
        fprintf(f, ", \"tier\": \"%s\", \"profile\": ", tier);
        put_str(f, prof);
        if (t->tiers == 3)
            fprintf(f, ", \"%s\": %u", nd->kind == NODE_SUPER ? "plane" : "pod", nd->pod);
        fprintf(f, "}%s\n", n + 1 < t->n_nodes ? "," : "");
    }
    fputs("  ],\n  \"links\": [\n", f);
    uint32_t *order = t->n_failed ? calloc(t->n_ports, sizeof *order) : NULL;
    if (order)
        failed_order(t, order);
    int first = 1;
    for (uint32_t p = 0; p < t->n_ports; p++) {
        const struct tport *pt = &t->ports[p];
        if (pt->peer < p)
            continue; /* each link once, where its first port is */
        fputs(first ? "    {\"a\": " : ",\n    {\"a\": ", f);
        first = 0;
        put_str(f, topo_node_name(t, pt->node, nm, sizeof nm));
        fputs(", \"b\": ", f);
        put_str(f, topo_node_name(t, t->ports[pt->peer].node, nm, sizeof nm));
        fprintf(f, ", \"speed\": \"%s\", \"delay\": \"%s\", \"failed\": ",
                units_fmt_rate(pt->bps, a, sizeof a), units_fmt_time(pt->delay_ps, b, sizeof b));
        if (order && order[p])
            fprintf(f, "%u}", order[p]); /* down, listed order[p]-th */
        else
            fprintf(f, "%s}", pt->failed ? "true" : "false");
    }
    free(order);
    fputs("\n  ]\n}\n", f);
    return ofile_commit(&of, e);
}
