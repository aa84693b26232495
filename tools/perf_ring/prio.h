/* SPDX-License-Identifier: GPL-2.0 */
/* How perf-ring's threads are scheduled: the reader ahead of the rest. */
#ifndef PERF_RING_PRIO_H
#define PERF_RING_PRIO_H

#include <stdbool.h>

/* the reader's slice unless --reader-slice says otherwise, in microseconds */
#define READER_SLICE_US 100

/*
 * Make the calling thread, the reader, the first to run when its buffers
 * need reading: SCHED_FIFO at rt_prio when rt_prio > 0 (-r), else a fair
 * slice of slice_us (0: leave the kernel's default).  Returns 0 or -errno
 * from SCHED_FIFO; a slice the kernel does not take is not an error, and
 * *slice_ok says whether it took it.
 */
int prio_reader(int rt_prio, unsigned int slice_us, bool *slice_ok);

/*
 * Undo prio_reader() in a thread it created (writer, synthesis): plain
 * SCHED_OTHER with the default slice.  Threads inherit both settings.
 */
void prio_worker(void);

#endif
