#include "results.h"

#include <math.h>
#include <stdlib.h>

void results_release(struct results *r)
{
    free(r->ports);
    free(r->sample_t);
    free(r->sample_rate);
    free(r->sample_delivered);
    free(r->sample_max_queue);
    free(r->writer_s);
    series_release(&r->series);
    r->sample_max_queue = NULL;
    r->writer_s = NULL;
    r->n_writer_s = 0;
    r->ports = NULL;
    r->sample_t = r->sample_rate = NULL;
    r->sample_delivered = NULL;
    r->n_ports = r->n_samples = 0;
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
    qsort(v, n, sizeof *v, cmp_double);
    double rank = ceil(q * (double)n);
    uint32_t i = rank < 1.0 ? 0 : (uint32_t)rank - 1;
    return v[i < n ? i : n - 1];
}
