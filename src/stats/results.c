#include "results.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

void results_release(struct results *r)
{
    free(r->ports);
    free(r->sample_t);
    free(r->sample_rate);
    free(r->sample_delivered);
    free(r->sample_max_queue);
    free(r->sample_ff);
    r->sample_ff = NULL;
    arena_release(&r->writer_mem); /* writer_s */
    series_release(&r->series);
    free(r->training.begin_s);
    free(r->training.step_s);
    free(r->training.comm_s);
    r->training.begin_s = r->training.step_s = r->training.comm_s = NULL;
    r->training.steps = 0;
    r->sample_max_queue = NULL;
    r->writer_s = NULL;
    r->n_writer_s = 0;
    r->ports = NULL;
    r->sample_t = r->sample_rate = NULL;
    r->sample_delivered = NULL;
    r->n_ports = r->n_samples = 0;
}

void results_violate(struct results *r, const char *fmt, ...)
{
    r->ok = 0;
    size_t len = strlen(r->violation);
    if (len + 3 >= sizeof r->violation)
        return;
    if (len)
        len += (size_t)snprintf(r->violation + len, sizeof r->violation - len, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->violation + len, sizeof r->violation - len, fmt, ap);
    va_end(ap);
}

int writer_acc_init(struct writer_acc *a, uint32_t n_writers)
{
    a->n = n_writers;
    a->first = UINT64_MAX;
    a->last = 0;
    /* 100k nodes: 800,000 writers, 19 MB with finish's scratch; in 4 KB
     * pages ~4,700 faults at ~10 us each on a VM */
    arena_init(&a->out);
    arena_init(&a->mem);
    a->start = arena_calloc(&a->out, n_writers ? n_writers : 1, sizeof *a->start);
    a->end = arena_calloc(&a->mem, n_writers ? n_writers : 1, sizeof *a->end);
    for (uint32_t i = 0; a->start && i < n_writers; i++)
        a->start[i] = UINT64_MAX;
    return a->start && a->end ? 0 : -1;
}

void writer_acc_add(struct writer_acc *a, uint32_t writer, uint64_t start_ps,
                    uint64_t first_byte_ps, uint64_t done_ps)
{
    if (first_byte_ps < a->first)
        a->first = first_byte_ps;
    if (done_ps > a->last)
        a->last = done_ps;
    if (!a->start || !a->end || writer >= a->n)
        return;
    if (start_ps < a->start[writer])
        a->start[writer] = start_ps;
    if (done_ps > a->end[writer])
        a->end[writer] = done_ps;
}

void writer_acc_finish(struct writer_acc *a, struct results *r)
{
    const double ps = 1e12;
    r->writers = a->n;
    r->completion_s = a->last > a->first && a->first != UINT64_MAX
                          ? (double)(a->last - a->first) / ps : 0;
    r->first_byte_s = a->first != UINT64_MAX ? (double)a->first / ps : 0;
    double *wc = arena_calloc(&a->mem, a->n ? a->n : 1, sizeof *wc);
    /* writer_s over start, each writer's figure in its start's place (a
     * double where a uint64_t was: memcpy, no aliasing) */
    r->writer_s = a->start && a->end ? (double *)(void *)a->start : NULL;
    r->n_writer_s = r->writer_s ? a->n : 0;
    uint32_t k = 0;
    for (uint32_t i = 0; r->writer_s && i < a->n; i++) {
        double v = a->start[i] != UINT64_MAX ? (double)(a->end[i] - a->start[i]) / ps : -1;
        if (wc && v >= 0)
            wc[k++] = v;
        memcpy(&r->writer_s[i], &v, sizeof v);
    }
    if (wc) {
        static const double q[3] = {1.0, 0.99, 0.50};
        double out[3];
        results_percentiles(wc, k, q, out, 3);
        r->writer_max_s = out[0];
        r->writer_p99_s = out[1];
        r->writer_p50_s = out[2];
    }
    arena_release(&a->mem);
    if (r->writer_s) {
        r->writer_mem = a->out;
        arena_init(&a->out);
    } else {
        arena_release(&a->out);
    }
    a->start = a->end = NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double results_percentile(double *v, uint32_t n, double q)
{
    if (n == 0)
        return 0.0;
    uint32_t k = 1;
    while (k < n && v[k - 1] <= v[k])
        k++;
    if (k < n) /* callers ask for several percentiles of one array: sort once */
        qsort(v, n, sizeof *v, cmp_double);
    double rank = ceil(q * (double)n);
    uint32_t i = rank < 1.0 ? 0 : (uint32_t)rank - 1;
    return v[i < n ? i : n - 1];
}

/* The nearest rank's index for percentile q of n > 0 values. */
static uint32_t rank_index(uint32_t n, double q)
{
    double rank = ceil(q * (double)n);
    uint32_t i = rank < 1.0 ? 0 : (uint32_t)rank - 1;
    return i < n ? i : n - 1;
}

/* Moves the k-th smallest of v[0..n) to v[k], no larger one before it and no
 * smaller one after it (quickselect, Hoare's partition about a median of
 * three: runs of equal values split evenly). k < n. */
static void select_kth(double *v, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (hi > lo) {
        int64_t mid = lo + (hi - lo) / 2;
        double tmp;
        if (v[mid] < v[lo])
            tmp = v[mid], v[mid] = v[lo], v[lo] = tmp;
        if (v[hi] < v[lo])
            tmp = v[hi], v[hi] = v[lo], v[lo] = tmp;
        if (v[hi] < v[mid])
            tmp = v[hi], v[hi] = v[mid], v[mid] = tmp;
        double p = v[mid];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i <= j) {
                tmp = v[i], v[i] = v[j], v[j] = tmp;
                i++;
                j--;
            }
        }
        /* [lo, j] <= p <= [i, hi]; anything between them equals p */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

void results_percentiles(double *v, uint32_t n, const double *q, double *out, uint32_t m)
{
    uint32_t end = n; /* v[0..end) holds the ranks not yet placed */
    for (uint32_t j = 0; j < m; j++) {
        if (n == 0) {
            out[j] = 0.0;
            continue;
        }
        uint32_t i = rank_index(n, q[j]);
        if (i >= end) { /* placed by the one before (the same rank) */
            out[j] = v[i];
            continue;
        }
        if (i + 1 == end) { /* the largest of what is left: a scan */
            uint32_t b = 0;
            for (uint32_t k = 1; k < end; k++)
                b = v[k] > v[b] ? k : b;
            double tmp = v[b];
            v[b] = v[i];
            v[i] = tmp;
        } else {
            select_kth(v, end, i);
        }
        out[j] = v[i];
        end = i;
    }
}
