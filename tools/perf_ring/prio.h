/* SPDX-License-Identifier: GPL-2.0 */
/* How perf-ring's threads are scheduled: the reader ahead of the rest. */
#ifndef PERF_RING_PRIO_H
#define PERF_RING_PRIO_H

/* the reader's slice unless --reader-slice says otherwise, in microseconds */
#define READER_SLICE_US 100

/*
 * Make the calling thread, the reader, the first to run when its buffers
 * need reading: SCHED_FIFO at rt_prio when rt_prio > 0 (-r); when rt_prio
 * < 0 (the default) SCHED_FIFO 1 if permitted, else as for 0: a fair slice
 * of slice_us (0: leave the kernel's default).  A reader started under a
 * policy other than SCHED_OTHER/BATCH keeps it.  Returns 0, or -errno when
 * -r's SCHED_FIFO is refused.  *what says what the reader got, for -v.
 */
int prio_reader(int rt_prio, unsigned int slice_us, const char **what);

/*
 * In a thread the reader created (writer, synthesis): undo prio_reader(),
 * back to the scheduling the process started with.  Threads inherit it.
 */
void prio_worker(void);

/*
 * Work of the reader's that can wait, done on its own thread (writing a
 * snapshot, compressing it): prio_yield() schedules the calling thread as
 * a worker is, prio_resume() gives it back what prio_reader() set.  The
 * kernel threads it starts meanwhile (io_uring's workers) take the
 * worker's policy too.  Nothing when prio_reader() changed nothing.
 */
void prio_yield(void);
void prio_resume(void);

#endif
