/* Idle cores (machine.h), from /proc/loadavg: the hint to use a second
 * thread is wrong when another process holds the other core (two threads
 * then wait on each other). */
#include "machine.h"

#include <stdio.h>
#include <unistd.h>

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
    return (double)cores - load;
}
