/* The machine a run shares (machine.h): the cores this process may use
 * and how many of them are idle. The hint to use a second thread, and
 * sim.threads auto, are wrong when another process holds the other core
 * (two threads then wait on each other). */
#define _GNU_SOURCE
#include "machine.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
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

double machine_idle_cores(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    FILE *f = fopen("/proc/loadavg", "r");
    double load = -1;
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = -1;
        fclose(f);
    }
    if (cores < 1 || load < 0)
        return -1;
    double idle = (double)cores - load, usable = machine_usable_cores();
    return idle < usable ? idle : usable;
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
