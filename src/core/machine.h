/* The machine a run shares: the cores it may use, how many are idle. */
#ifndef CKPT_MACHINE_H
#define CKPT_MACHINE_H

/* Cores online not held by another process's runnable threads (the
 * caller's own core counted idle), from /proc/stat's procs_running
 * sampled over ~10 ms, at most the usable cores; -1 when the system does
 * not say. */
double machine_idle_cores(void);

/* machine_idle_cores' rule: cores less the runnable threads other than
 * the reader (`running` counts it), at most `usable`; -1 when unknown. */
double machine_idle_of(long cores, int usable, double running);

/* procs_running of a /proc/stat text, -1 when absent. */
int machine_stat_running(const char *stat);

/* The cores this process may run on: online, its CPU affinity, the
 * cgroup's CPU quota (v2 cpu.max, v1 cfs quota), the least of them. */
int machine_usable_cores(void);

/* sim.threads auto for idle cores (machine_idle_cores; < 0 unknown: 1)
 * and usable ones: the idle cores rounded, 1 to min(usable, cap). */
unsigned machine_auto_threads(double idle, int usable, unsigned cap);

#endif
