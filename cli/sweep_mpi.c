/* ckptnet sweep and tune over MPI ranks (build/ckptnet-mpi under mpirun):
 * rank 0 hands runs to the other ranks as they ask; the plain build, without
 * CKPT_MPI, only says it cannot (docs/sweep.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sweep.h"

#ifdef CKPT_MPI
#include <mpi.h>

#define TAG_RES 1
#define TAG_WORK 2

/* Send run `run` to rank dst: the run index (echoed in its result), the
 * seed offset, and the point's keys and values, so that a rank needs
 * nothing but the command line (tune makes its points as it goes). */
static void send_work(const struct sweep *sw, int32_t run, int dst)
{
    int p = run / sw->seeds;
    int32_t h[3] = {run, sw->seed0 + run % sw->seeds, sw->n_keys};
    size_t len = sizeof h;
    for (int k = 0; k < sw->n_keys; k++)
        len += strlen(sw->keys[k]) + strlen(sw->vals[p * sw->n_keys + k]) + 2;
    char *m = malloc(len);
    if (!m) {
        fprintf(stderr, "ckptnet: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
        return;
    }
    char *q = m + sizeof h;
    memcpy(m, h, sizeof h);
    for (int k = 0; k < sw->n_keys; k++) {
        const char *t[2] = {sw->keys[k], sw->vals[p * sw->n_keys + k]};
        for (int j = 0; j < 2; j++) {
            size_t l = strlen(t[j]) + 1;
            memcpy(q, t[j], l);
            q += l;
        }
    }
    MPI_Send(m, (int)len, MPI_BYTE, dst, TAG_WORK, MPI_COMM_WORLD);
    free(m);
}

static void send_stop(int dst)
{
    int32_t h[3] = {-1, 0, 0};
    MPI_Send(h, (int)sizeof h, MPI_BYTE, dst, TAG_WORK, MPI_COMM_WORLD);
}

/* Answer the ranks' requests waiting now: a rank sends its last result
 * (or, the first time, none) and asks for the next run; with none left it
 * waits, idle, for the next batch (tune) or the end (sweep_par_end). */
void sweep_serve_ranks(struct coord *c, const struct sweep *sw, struct sweep_par *par)
{
    int32_t run;
    while (par->n_idle > 0 && (run = sweep_next_run(c)) >= 0) {
        send_work(sw, run, par->idle[--par->n_idle]);
        par->busy++;
    }
    for (;;) {
        int flag = 0;
        MPI_Status ms;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RES, MPI_COMM_WORLD, &flag, &ms);
        if (!flag)
            return;
        struct sweep_res r;
        MPI_Recv(&r, (int)sizeof r, MPI_BYTE, ms.MPI_SOURCE, TAG_RES, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (r.run >= 0) {
            par->busy--;
            sweep_record(c, &r);
        }
        if ((run = sweep_next_run(c)) >= 0) {
            send_work(sw, run, ms.MPI_SOURCE);
            par->busy++;
        } else {
            par->idle[par->n_idle++] = ms.MPI_SOURCE;
        }
    }
}
#else
void sweep_serve_ranks(struct coord *c, const struct sweep *sw, struct sweep_par *par)
{
    (void)c, (void)sw, (void)par; /* no ranks: par->live is 0 */
}
#endif

/* Started by mpirun (OpenMPI, MPICH's hydra) or srun with more than one
 * rank: the launchers' variables. */
static int launched_ranks(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MPI_LOCALNRANKS",
                                       "SLURM_STEP_NUM_TASKS", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 1)
            return atoi(v);
    }
    return 0;
}

/* ---- MPI ranks ----------------------------------------------------------------- */

int sweep_par_init(struct sweep_par *par, const char *cmd)
{
    memset(par, 0, sizeof *par);
    par->ranks = 1;
    par->cmd = cmd;
    int launched = launched_ranks();
#ifdef CKPT_MPI
    if (launched > 1) {
        MPI_Init(NULL, NULL);
        par->mpi = 1;
        MPI_Comm_size(MPI_COMM_WORLD, &par->ranks);
        MPI_Comm_rank(MPI_COMM_WORLD, &par->rank);
        if (par->ranks < 2) {
            fprintf(stderr, "ckptnet: %s: started as %d tasks but MPI sees one rank (Slurm: "
                            "srun --mpi=pmix; docs/sweep.md)\n", cmd, launched);
            MPI_Finalize();
            par->mpi = 0;
            return 2;
        }
        par->idle = malloc((size_t)par->ranks * sizeof *par->idle);
        if (!par->idle) {
            fprintf(stderr, "ckptnet: %s: out of memory\n", cmd);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
#else
    if (launched > 1) {
        const char *r = getenv("OMPI_COMM_WORLD_RANK");
        if (!r || !strcmp(r, "0"))
            fprintf(stderr, "ckptnet: %s: started with %d MPI ranks, but this ckptnet was "
                            "built without MPI (use build/ckptnet-mpi; docs/sweep.md)\n",
                    cmd, launched);
        return 2;
    }
#endif
    return 0;
}

int sweep_par_agree(struct sweep_par *par, int rc)
{
#ifdef CKPT_MPI
    int mine = rc;
    if (par->mpi)
        MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    /* only rank 0 speaks: say why it stops when another rank failed */
    if (par->mpi && par->rank == 0 && mine == 0 && rc != 0)
        fprintf(stderr, "ckptnet: %s: another MPI rank could not set up (a file that rank "
                        "cannot read, such as standard input?)\n", par->cmd);
#endif
    par->live = rc == 0 ? par->ranks - 1 : 0;
    return rc;
}

void sweep_serve(struct sweep_par *par, const char *file, int argc, char **argv)
{
#ifdef CKPT_MPI
    struct sweep_res r;
    char *buf = NULL;
    int cap = 0;
    (void)par;
    memset(&r, 0, sizeof r);
    r.run = -1;
    for (;;) {
        MPI_Status ms;
        int len = 0;
        int32_t h[3];
        MPI_Send(&r, (int)sizeof r, MPI_BYTE, 0, TAG_RES, MPI_COMM_WORLD);
        /* wait politely: OpenMPI's blocking probe keeps a core busy, and a
         * rank can wait long (tune: for a batch's slowest run) */
        for (int flag = 0;;) {
            MPI_Iprobe(0, TAG_WORK, MPI_COMM_WORLD, &flag, &ms);
            if (flag)
                break;
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        MPI_Get_count(&ms, MPI_BYTE, &len);
        if (len + 1 > cap) {
            char *nb = realloc(buf, (size_t)len + 1);
            if (!nb)
                MPI_Abort(MPI_COMM_WORLD, 2);
            buf = nb;
            cap = len + 1;
        }
        MPI_Recv(buf, len, MPI_BYTE, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        buf[len] = '\0';
        if (len < (int)sizeof h)
            break;
        memcpy(h, buf, sizeof h);
        if (h[0] < 0 || h[2] < 0 || h[2] > SWEEP_MAX_KEYS)
            break;
        struct sweep sw = {.file = file, .argc = argc, .argv = argv, .n_keys = h[2],
                           .n_points = 1, .seeds = 1, .n_runs = 1};
        char *vals[SWEEP_MAX_KEYS + 1], *q = buf + sizeof h, *end = buf + len;
        for (int k = 0; k < sw.n_keys; k++) {
            /* key, value: each ends with its NUL (buf[len] ends the last) */
            snprintf(sw.keys[k], sizeof sw.keys[k], "%s", q < end ? q : "");
            q += q < end ? strlen(q) + 1 : 0;
            vals[k] = q < end ? q : end;
            q += q < end ? strlen(q) + 1 : 0;
        }
        sw.vals = vals;
        sweep_run_one(&sw, 0, h[1], h[0], &r);
    }
    free(buf);
#else
    (void)par, (void)file, (void)argc, (void)argv;
#endif
}

int sweep_par_end(struct sweep_par *par, int rc)
{
#ifdef CKPT_MPI
    if (!par->mpi)
        return rc;
    if (par->rank == 0) {
        /* the idle ranks now; the others (busy, or not asked yet) at their
         * next request */
        for (int i = 0; i < par->n_idle; i++)
            send_stop(par->idle[i]);
        for (int i = par->n_idle; i < par->live; i++) {
            struct sweep_res r;
            MPI_Status ms;
            MPI_Recv(&r, (int)sizeof r, MPI_BYTE, MPI_ANY_SOURCE, TAG_RES, MPI_COMM_WORLD, &ms);
            send_stop(ms.MPI_SOURCE);
        }
        par->n_idle = par->live = 0;
    }
    /* every rank leaves with rank 0's status */
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    free(par->idle);
    par->idle = NULL;
    par->mpi = 0;
#else
    (void)par;
#endif
    return rc;
}
