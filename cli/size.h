/* ckptnet size: the cheapest fabric that meets a checkpoint target
 * (docs/size.md). */
#ifndef CKPT_CLI_SIZE_H
#define CKPT_CLI_SIZE_H

#include <stddef.h>

int cmd_size(int argc, char **argv);

/* The screen over MPI ranks (size_mpi.c; build/ckptnet-mpi under mpirun):
 * rank 0 hands jobs (job_len bytes) to the other ranks as they ask and
 * records their results (res_len bytes); every rank enumerates the same
 * candidates, so a job names one by index. */
struct sweep_par;
struct size_rank_ops {
    void *ud;
    size_t job_len, res_len;
    int (*take)(void *ud, void *job);                   /* rank 0: the next job; 0 none */
    void (*record)(void *ud, const void *res);          /* rank 0: a rank's result */
    void (*work)(void *ud, const void *job, void *res); /* other ranks: do a job */
};
/* Rank 0: serve the ranks until every one has been told to stop (then
 * par->live is 0). No-op without MPI. */
void size_mpi_serve(struct sweep_par *par, const struct size_rank_ops *o);
/* Another rank: ask, screen, answer, until told to stop. */
void size_mpi_work(struct sweep_par *par, const struct size_rank_ops *o);

#endif
