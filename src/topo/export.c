/* Topology files: writing a built fabric (topo_export) in the format
 * fabric.topology_file reads (import.c). One element per line, so a user
 * can edit the file with a text editor and diff two fabrics; past
 * TOPO_RUNS_FROM links, a regular run of links (a leaf's hosts, its
 * uplinks, a spine's uplinks) is one line, and so is a run of names
 * (host0 ... host12499), so a large fabric's file is a tenth the size and
 * reads in a fraction of the time. */
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

/* Nodes from n to the end of a range import.c reads back (a prefix and a
 * number counting up by one, zero-padded when the first is; at most 9
 * digits), of one kind and pod: how many, 1 when none; at most to - n.
 * A name holds no quote then (letters, digits and . _ : + -). */
static uint32_t name_run(const struct topo *t, uint32_t n, uint32_t to)
{
    char s0[256], s[256], want[256];
    topo_node_name(t, n, s0, sizeof s0);
    size_t len = strlen(s0), p = len;
    while (p > 0 && s0[p - 1] >= '0' && s0[p - 1] <= '9')
        p--;
    if (p == len || len - p > 9)
        return 1;
    int width = len - p > 1 && s0[p] == '0' ? (int)(len - p) : 0;
    unsigned long v0 = strtoul(s0 + p, NULL, 10);
    uint32_t k = 1;
    for (; n + k < to && v0 + k <= 999999999ul; k++) {
        const struct tnode *a = &t->nodes[n], *b = &t->nodes[n + k];
        if (a->kind != b->kind || (n >= t->first_cleaf && a->pod != b->pod)) /* pods written */
            break;
        snprintf(want, sizeof want, "%.*s%0*lu", (int)p, s0, width, v0 + k);
        if (strcmp(topo_node_name(t, n + k, s, sizeof s), want) || (width && strlen(want) != len))
            break;
    }
    return k;
}

/* A run of names worth a range: three or more. */
#define NAME_RUN 3

static void put_names(FILE *f, const struct topo *t, const char *key, uint32_t from,
                      uint32_t to, int runs)
{
    char nm[256];
    fprintf(f, "  \"%s\": [", key);
    for (uint32_t n = from, k = 0, c; n < to; n += c, k++) {
        fputs(n == from ? "" : k % 8 ? ", " : ",\n    ", f);
        c = runs ? name_run(t, n, to) : 1;
        if (c < NAME_RUN) {
            c = 1;
            put_str(f, topo_node_name(t, n, nm, sizeof nm));
            continue;
        }
        fprintf(f, "{\"from\": \"%s\", ", topo_node_name(t, n, nm, sizeof nm));
        fprintf(f, "\"to\": \"%s\"}", topo_node_name(t, n + c - 1, nm, sizeof nm));
        k = 7; /* a range ends its line */
    }
    fputs("],\n", f);
}

/* A link's end as the file names it: its array (0 hosts, 1 storage, 2
 * switches) and its index there. */
static uint32_t file_index(const struct topo *t, uint32_t node, int *arr)
{
    *arr = node < t->first_storage ? 0 : node < t->first_cleaf ? 1 : 2;
    return node - (*arr == 0 ? 0 : *arr == 1 ? t->first_storage : t->first_cleaf);
}

/* Links p and q (first ports) alike but for their ends: one speed, one
 * delay, both up. */
static int alike(const struct topo *t, uint32_t p, uint32_t q)
{
    return t->ports[p].bps == t->ports[q].bps &&
           topo_delay(t, &t->ports[p]) == topo_delay(t, &t->ports[q]) &&
           !t->ports[p].failed && !t->ports[q].failed;
}

static int same_pair(const struct topo *t, uint32_t p, uint32_t q)
{
    return t->ports[p].node == t->ports[q].node &&
           t->ports[t->ports[p].peer].node == t->ports[t->ports[q].peer].node;
}

/* The run starting at link i of lk[0..n) (first ports, file order): par
 * links a pair, *count pairs, the ends stepping by step[0], step[1] in
 * their arrays. Failed links stay single, as their place is theirs. */
static void run_at(const struct topo *t, const uint32_t *lk, uint32_t n, uint32_t i,
                   uint32_t *par, uint32_t *count, int64_t step[2])
{
    uint32_t k = 1, c = 1;
    step[0] = step[1] = 0;
    while (i + k < n && alike(t, lk[i], lk[i + k]) && same_pair(t, lk[i], lk[i + k]))
        k++;
    int arr[4];
    uint32_t a0 = file_index(t, t->ports[lk[i]].node, &arr[0]);
    uint32_t b0 = file_index(t, t->ports[t->ports[lk[i]].peer].node, &arr[1]);
    for (;;) {
        uint32_t g = i + c * k, j;
        if (g + k > n || !alike(t, lk[i], lk[g]))
            break;
        uint32_t a = file_index(t, t->ports[lk[g]].node, &arr[2]);
        uint32_t b = file_index(t, t->ports[t->ports[lk[g]].peer].node, &arr[3]);
        if (arr[2] != arr[0] || arr[3] != arr[1])
            break;
        if (c == 1) {
            step[0] = (int64_t)a - a0;
            step[1] = (int64_t)b - b0;
        } else if ((int64_t)a != a0 + c * step[0] || (int64_t)b != b0 + c * step[1]) {
            break;
        }
        for (j = 1; j < k && alike(t, lk[i], lk[g + j]) && same_pair(t, lk[g], lk[g + j]); j++)
            ;
        /* exactly k links to this pair: one more would be a wider group */
        if (j < k || (g + k < n && alike(t, lk[i], lk[g + k]) && same_pair(t, lk[g], lk[g + k])))
            break;
        c++;
    }
    if (c == 1)
        step[0] = step[1] = 0;
    *par = k;
    *count = c;
}

int topo__export_runs(const struct topo *t, const struct scenario *sc, const char *path,
                      int runs, struct err *e)
{
    struct ofile of;
    uint32_t n_lk = 0, *lk = malloc((t->n_ports / 2 + 1) * sizeof *lk);
    if (!lk)
        return err_set(e, "out of memory writing '%s'", path);
    for (uint32_t p = 0; p < t->n_ports; p++)
        if (t->ports[p].peer > p) /* each link once, where its first port is */
            lk[n_lk++] = p;
    FILE *f = ofile_open(&of, path, e);
    if (!f) {
        free(lk);
        return -1;
    }
    char nm[256], a[32], b[32];
    fprintf(f, "{\n  \"format\": \"ckptnet-topology\",\n  \"version\": %d,\n  \"tiers\": %u,\n",
            runs ? TOPO_FILE_VERSION : 1, t->tiers);
    put_names(f, t, "hosts", 0, t->first_storage, runs);
    put_names(f, t, "storage", t->first_storage, t->first_cleaf, runs);
    fputs("  \"switches\": [\n", f);
    for (uint32_t n = t->first_cleaf, c; n < t->n_nodes; n += c) {
        const struct tnode *nd = &t->nodes[n];
        const char *tier = nd->kind == NODE_LEAF ? "leaf" : nd->kind == NODE_SPINE ? "spine"
                                                                                 : "superspine";
        const char *prof = nd->kind == NODE_LEAF    ? sc->fabric.leaf_switch
                           : nd->kind == NODE_SPINE ? sc->fabric.spine_switch
                                                    : sc->fabric.superspine_switch;
        c = runs ? name_run(t, n, t->n_nodes) : 1;
        if (c < NAME_RUN) {
            c = 1;
            fputs("    {\"name\": ", f);
            put_str(f, topo_node_name(t, n, nm, sizeof nm));
        } else { /* a range: the same tier and pod */
            fprintf(f, "    {\"from\": \"%s\", ", topo_node_name(t, n, nm, sizeof nm));
            fprintf(f, "\"to\": \"%s\"", topo_node_name(t, n + c - 1, nm, sizeof nm));
        }
        fprintf(f, ", \"tier\": \"%s\", \"profile\": ", tier);
        put_str(f, prof);
        if (t->tiers == 3)
            fprintf(f, ", \"%s\": %u", nd->kind == NODE_SUPER ? "plane" : "pod", nd->pod);
        fprintf(f, "}%s\n", n + c < t->n_nodes ? "," : "");
    }
    fputs("  ],\n  \"links\": [\n", f);
    uint32_t *order = t->n_failed ? calloc(t->n_ports, sizeof *order) : NULL;
    if (order)
        failed_order(t, order);
    for (uint32_t i = 0, par = 1, count = 1; i < n_lk; i += par * count) {
        uint32_t p = lk[i];
        const struct tport *pt = &t->ports[p];
        int64_t step[2] = {0, 0};
        par = count = 1;
        if (runs && !pt->failed)
            run_at(t, lk, n_lk, i, &par, &count, step);
        fputs(i ? ",\n    {\"a\": " : "    {\"a\": ", f);
        put_str(f, topo_node_name(t, pt->node, nm, sizeof nm));
        fputs(", \"b\": ", f);
        put_str(f, topo_node_name(t, t->ports[pt->peer].node, nm, sizeof nm));
        fprintf(f, ", \"speed\": \"%s\", \"delay\": \"%s\", \"failed\": ",
                units_fmt_rate(pt->bps, a, sizeof a),
                units_fmt_time(topo_delay(t, pt), b, sizeof b));
        if (order && order[p])
            fprintf(f, "%u", order[p]); /* down, listed order[p]-th */
        else
            fputs(pt->failed ? "true" : "false", f);
        if (count > 1)
            fprintf(f, ", \"count\": %u", count);
        if (par > 1)
            fprintf(f, ", \"parallel\": %u", par);
        if (step[0])
            fprintf(f, ", \"a_step\": %lld", (long long)step[0]);
        if (step[1])
            fprintf(f, ", \"b_step\": %lld", (long long)step[1]);
        fputc('}', f);
    }
    free(order);
    free(lk);
    fputs("\n  ]\n}\n", f);
    return ofile_commit(&of, e);
}

int topo_export(const struct topo *t, const struct scenario *sc, const char *path,
                struct err *e)
{
    return topo__export_runs(t, sc, path, t->n_ports / 2 > TOPO_RUNS_FROM, e);
}
