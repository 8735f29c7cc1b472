/* ckptnet size's screen over MPI ranks (build/ckptnet-mpi under mpirun):
 * rank 0 hands leaf shapes to the other ranks as they ask, beside its own
 * -j threads; the plain build, without CKPT_MPI, has no ranks (docs/size.md). */
#include <stdlib.h>
#include <time.h>

#include "size.h"
#include "sweep.h"

#ifdef CKPT_MPI
#include <mpi.h>

/* not sweep's tags: a rank of size never sees sweep's messages */
#define TAG_SIZE_RES 21 /* a rank's result, or its first request (empty) */
#define TAG_SIZE_JOB 22 /* a job, or an empty message: stop */

static void nap(void)
{
    /* wait politely: OpenMPI's blocking calls keep a core busy, and rank 0's
     * threads screen on the same cores */
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

void size_mpi_serve(struct sweep_par *par, const struct size_rank_ops *o)
{
    unsigned char *res = malloc(o->res_len), *job = malloc(o->job_len);
    if (!res || !job)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int stopped = 0;
    while (stopped < par->live) {
        int flag = 0, len = 0;
        MPI_Status ms;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_SIZE_RES, MPI_COMM_WORLD, &flag, &ms);
        if (!flag) {
            nap();
            continue;
        }
        MPI_Get_count(&ms, MPI_BYTE, &len);
        if (len == (int)o->res_len) {
            MPI_Recv(res, len, MPI_BYTE, ms.MPI_SOURCE, TAG_SIZE_RES, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            o->record(o->ud, res);
        } else { /* the first request, or a message of another build: nothing to record */
            unsigned char *skip = malloc(len > 0 ? (size_t)len : 1);
            if (!skip)
                MPI_Abort(MPI_COMM_WORLD, 2);
            MPI_Recv(skip, len, MPI_BYTE, ms.MPI_SOURCE, TAG_SIZE_RES, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            free(skip);
        }
        if (o->take(o->ud, job)) {
            MPI_Send(job, (int)o->job_len, MPI_BYTE, ms.MPI_SOURCE, TAG_SIZE_JOB, MPI_COMM_WORLD);
        } else {
            MPI_Send(job, 0, MPI_BYTE, ms.MPI_SOURCE, TAG_SIZE_JOB, MPI_COMM_WORLD);
            stopped++;
        }
    }
    par->live = par->n_idle = par->busy = 0;
    free(res);
    free(job);
}

void size_mpi_work(struct sweep_par *par, const struct size_rank_ops *o)
{
    unsigned char *res = malloc(o->res_len), *job = malloc(o->job_len);
    if (!res || !job)
        MPI_Abort(MPI_COMM_WORLD, 2);
    (void)par;
    MPI_Send(res, 0, MPI_BYTE, 0, TAG_SIZE_RES, MPI_COMM_WORLD);
    for (;;) {
        int flag = 0, len = 0;
        MPI_Status ms;
        MPI_Iprobe(0, TAG_SIZE_JOB, MPI_COMM_WORLD, &flag, &ms);
        if (!flag) {
            nap();
            continue;
        }
        MPI_Get_count(&ms, MPI_BYTE, &len);
        if (len != (int)o->job_len) {
            MPI_Recv(job, 0, MPI_BYTE, 0, TAG_SIZE_JOB, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break; /* stop */
        }
        MPI_Recv(job, len, MPI_BYTE, 0, TAG_SIZE_JOB, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        o->work(o->ud, job, res);
        MPI_Send(res, (int)o->res_len, MPI_BYTE, 0, TAG_SIZE_RES, MPI_COMM_WORLD);
    }
    free(res);
    free(job);
}
#else
void size_mpi_serve(struct sweep_par *par, const struct size_rank_ops *o)
{
    (void)par, (void)o; /* no ranks: par->live is 0 */
}

void size_mpi_work(struct sweep_par *par, const struct size_rank_ops *o)
{
    (void)par, (void)o;
}
#endif
