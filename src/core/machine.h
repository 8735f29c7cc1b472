/* The machine a run shares: how much of it is idle. */
#ifndef CKPT_MACHINE_H
#define CKPT_MACHINE_H

/* Cores online less the 1-minute load average (which counts this
 * process's own running threads); -1 when the system does not say. */
double machine_idle_cores(void);

#endif
