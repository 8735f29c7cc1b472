/* The machine a run shares (machine.h): the cores this process may use
 * and how many of them are idle. The hint to use a second thread, and
 * sim.threads auto, are wrong when another process holds the other core
 * (two threads then wait on each other). */
#define _GNU_SOURCE
#include "machine.h"

#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* cgroup v2 cpu.max "QUOTA PERIOD" or "max PERIOD"; v1 cfs quota and
 * period. 0 when there is no quota. */
static int cgroup_cores(void)
{
    long long quota = -1, period = 0;
    char word[32];
    FILE *f = fopen("/sys/fs/cgroup/cpu.max", "r");
    if (f) {
        if (fscanf(f, "%31s %lld", word, &period) == 2 && sscanf(word, "%lld", &quota) != 1)
            quota = -1; /* "max" */
        fclose(f);
    } else {
        f = fopen("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "r");
        if (f) {
            if (fscanf(f, "%lld", &quota) != 1)
                quota = -1;
            fclose(f);
        }
        f = fopen("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "r");
        if (f) {
            if (fscanf(f, "%lld", &period) != 1)
                period = 0;
            fclose(f);
        }
    }
    if (quota <= 0 || period <= 0)
        return 0;
    return (int)((quota + period - 1) / period);
}

int machine_usable_cores(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int n = online > 0 ? (int)online : 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int a = CPU_COUNT(&set);
        n = a > 0 && a < n ? a : n;
    }
    int q = cgroup_cores();
    return q > 0 && q < n ? q : n;
}

/* procs_running of a /proc/stat text: threads runnable now, the reader
 * included; -1 when absent. */
int machine_stat_running(const char *stat)
{
    static const char key[] = "\nprocs_running ";
    const char *p = strstr(stat, key);
    int n;
    if (!p || sscanf(p + sizeof key - 1, "%d", &n) != 1 || n < 0)
        return -1;
    return n;
}

double machine_idle_of(long cores, int usable, double running)
{
    if (cores < 1 || running < 0)
        return -1;
    /* the reader itself runs: it holds no core another would */
    double others = running > 1 ? running - 1 : 0;
    double idle = (double)cores - others;
    return usable >= 1 && idle > usable ? usable : idle;
}

/* The runnable threads now, averaged over IDLE_SAMPLES readings IDLE_GAP_NS
 * apart: the 1-minute load lags a minute behind (a run started right after
 * another saw ~0.9 of a core busy that was idle), and one reading catches
 * a short job by chance. ~10 ms in all, paid only where a thread count is
 * chosen or suggested. */
#define IDLE_SAMPLES 10
#define IDLE_GAP_NS 1000000L

static double running_now(void)
{
    char buf[65536];
    double sum = 0;
    for (int i = 0; i < IDLE_SAMPLES; i++) {
        if (i) {
            struct timespec gap = {0, IDLE_GAP_NS};
            nanosleep(&gap, NULL);
        }
        int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return -1;
        size_t len = 0;
        ssize_t k;
        while (len < sizeof buf - 1 && (k = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
            len += (size_t)k;
        close(fd);
        buf[len] = 0;
        int n = machine_stat_running(buf);
        if (n < 0)
            return -1;
        sum += n;
    }
    return sum / IDLE_SAMPLES;
}

double machine_idle_cores(void)
{
    double running = running_now();
    if (running < 0) {
        /* no procs_running: the 1-minute load, the reader not yet in it */
        FILE *f = fopen("/proc/loadavg", "r");
        if (f) {
            if (fscanf(f, "%lf", &running) == 1 && running >= 0)
                running += 1;
            else
                running = -1;
            fclose(f);
        }
    }
    return machine_idle_of(sysconf(_SC_NPROCESSORS_ONLN), machine_usable_cores(), running);
}

unsigned machine_auto_threads(double idle, int usable, unsigned cap)
{
    /* the cores nobody else holds, rounded: load 0.4 on two cores leaves
     * the second one to us, load 1.0 does not */
    double free_cores = idle < 0 ? 1 : floor(idle + 0.5);
    unsigned n = free_cores < 1 ? 1 : (unsigned)free_cores;
    if (usable >= 1 && n > (unsigned)usable)
        n = (unsigned)usable;
    return n > cap ? (cap ? cap : 1) : n;
}
