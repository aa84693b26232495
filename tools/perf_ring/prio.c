// SPDX-License-Identifier: GPL-2.0
/*
 * The reader copies records out of the kernel's buffers; everything else
 * (compression, writing, synthesis) works on copies and can wait.  A
 * record that finds its buffer full is lost, so what matters is how soon
 * the reader runs after poll() wakes it, not how much CPU it gets.
 *
 * Under EEVDF (Linux 6.6 and later) a woken task preempts the running one
 * only if it is eligible and its virtual deadline is earlier.  Since 6.12
 * a SCHED_OTHER task may ask for a shorter slice with sched_setattr()'s
 * sched_runtime, which brings its deadline in and lets it preempt a task
 * with a longer slice at wakeup (PREEMPT_SHORT).  It needs no privilege
 * and does not change the reader's share of the CPU.  Without it, a
 * reader that shares a CPU with the traced command waits for the
 * command's slice to end, up to a tick (4 ms at HZ=250), and a 2 MiB
 * buffer fills in about 6 ms of close(-1).  Older kernels ignore
 * sched_runtime for fair tasks.
 *
 * -r asks for SCHED_FIFO instead, as perf record -r does.  Without -r the
 * reader takes SCHED_FIFO priority 1 when it may (root, CAP_SYS_NICE or an
 * RLIMIT_RTPRIO that allows it), and the slice when it may not: a fair
 * reader still loses records when other tasks hold its CPU for a few
 * milliseconds, a FIFO one does not (bench/results/loss-default.md).  Its
 * CPU time is what copying the records costs, so priority 1 does not take
 * a CPU from anyone for longer than that.  -r 0 keeps the reader fair.
 * A reader started under another policy (chrt) keeps it.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/types.h>

#include "prio.h"

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif

/* glibc before 2.41 has no wrapper, nor the struct (SCHED_ATTR_SIZE_VER0) */
struct pr_sched_attr {
	__u32 size;
	__u32 sched_policy;
	__u64 sched_flags;
	__s32 sched_nice;
	__u32 sched_priority;
	__u64 sched_runtime;
	__u64 sched_deadline;
	__u64 sched_period;
};

/* what the process started with, and whether prio_reader() changed it */
static struct pr_sched_attr orig;
static bool changed;

static int get_attr(struct pr_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	if (syscall(SYS_sched_getattr, 0, a, sizeof(*a), 0))
		return -errno;
	return 0;
}

static int set_attr(const struct pr_sched_attr *a)
{
	struct pr_sched_attr v = *a;

	v.size = sizeof(v);
	v.sched_flags &= SCHED_FLAG_RESET_ON_FORK;
	if (syscall(SYS_sched_setattr, 0, &v, 0))
		return -errno;
	return 0;
}

static char note[96];

static bool fair(const struct pr_sched_attr *a)
{
	return a->sched_policy == SCHED_OTHER || a->sched_policy == SCHED_BATCH;
}

static int set_fifo(int rt_prio)
{
	struct sched_param sp = { .sched_priority = rt_prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		return -errno;
	return 0;
}

static void set_slice(unsigned int slice_us, const char *why)
{
	struct pr_sched_attr a = orig;
	int err;

	if (!slice_us) {
		snprintf(note, sizeof(note), "%sthe kernel's default slice", why);
		return;
	}
	a.sched_runtime = slice_us * 1000ULL;
	err = set_attr(&a);
	if (err) {
		snprintf(note, sizeof(note), "%sslice %u us not set: %s", why, slice_us,
			 strerror(-err));
		return;
	}
	changed = true;
	/* 6.12 and later report the slice in effect; older kernels, 0 */
	if (get_attr(&a) || a.sched_runtime != slice_us * 1000ULL)
		snprintf(note, sizeof(note), "%sslice %u us not supported by this kernel "
			 "(before 6.12)", why, slice_us);
	else
		snprintf(note, sizeof(note), "%sslice %u us", why, slice_us);
}

int prio_reader(int rt_prio, unsigned int slice_us, const char **what)
{
	int err, gerr;

	*what = note;
	gerr = get_attr(&orig);
	if (rt_prio > 0) {
		err = set_fifo(rt_prio);
		if (err)
			return err;
		changed = !gerr;
		snprintf(note, sizeof(note), "SCHED_FIFO %d (-r)", rt_prio);
		return 0;
	}
	if (gerr) {
		snprintf(note, sizeof(note), "left as it is: sched_getattr: %s", strerror(-gerr));
		return 0;
	}
	if (!fair(&orig)) {
		snprintf(note, sizeof(note), "left as started (policy %u, chrt)",
			 orig.sched_policy);
		return 0;
	}
	if (rt_prio < 0) {
		err = set_fifo(1);
		if (!err) {
			changed = true;
			snprintf(note, sizeof(note), "SCHED_FIFO 1 (the default when permitted)");
			return 0;
		}
		set_slice(slice_us, err == -EPERM ? "SCHED_FIFO not permitted, fair, " :
			  "SCHED_FIFO refused, fair, ");
		return 0;
	}
	set_slice(slice_us, "fair, ");
	return 0;
}

void prio_worker(void)
{
	struct pr_sched_attr a;

	if (!changed)
		return;
	a = orig;
	/* no custom slice: sched_getattr() may report the default one */
	if (a.sched_policy == SCHED_OTHER || a.sched_policy == SCHED_BATCH)
		a.sched_runtime = 0;
	set_attr(&a);
}

/* the reader's scheduling, as prio_reader() left it: read at the first prio_yield() */
static struct pr_sched_attr reader;
static bool have_reader, yielded;

void prio_yield(void)
{
	if (!changed || (!have_reader && get_attr(&reader)))
		return;
	have_reader = true;
	yielded = true;
	prio_worker();
}

void prio_resume(void)
{
	if (!yielded)
		return;
	yielded = false;
	set_attr(&reader);
}
