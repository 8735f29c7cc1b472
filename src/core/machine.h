/* The machine a run shares: the cores it may use, how many are idle. */
#ifndef CKPT_MACHINE_H
#define CKPT_MACHINE_H

/* Cores online less the 1-minute load average (which counts this
 * process's own running threads), at most the usable cores; -1 when the
 * system does not say. */
double machine_idle_cores(void);

/* The cores this process may run on: online, its CPU affinity, the
 * cgroup's CPU quota (v2 cpu.max, v1 cfs quota), the least of them. */
int machine_usable_cores(void);

/* sim.threads auto for idle cores (machine_idle_cores; < 0 unknown: 1)
 * and usable ones: the idle cores rounded, 1 to min(usable, cap). */
unsigned machine_auto_threads(double idle, int usable, unsigned cap);

#endif
