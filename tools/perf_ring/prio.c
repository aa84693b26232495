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
 * sched_runtime for fair tasks; sched_getattr() then reports 0.
 *
 * -r asks for SCHED_FIFO instead, as perf record -r does.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/types.h>

#include "prio.h"

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

static int get_attr(struct pr_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	if (syscall(SYS_sched_getattr, 0, a, sizeof(*a), 0))
		return -errno;
	return 0;
}

/* SCHED_OTHER at the thread's nice level, with a slice of slice_ns (0: default) */
static int set_fair(unsigned long long slice_ns)
{
	struct pr_sched_attr a;
	int err = get_attr(&a);

	if (err)
		return err;
	a.size = sizeof(a);
	a.sched_policy = SCHED_OTHER;
	a.sched_flags = 0;
	a.sched_priority = 0;
	a.sched_runtime = slice_ns;
	a.sched_deadline = 0;
	a.sched_period = 0;
	if (syscall(SYS_sched_setattr, 0, &a, 0))
		return -errno;
	return 0;
}

int prio_reader(int rt_prio, unsigned int slice_us, bool *slice_ok)
{
	struct pr_sched_attr a;

	*slice_ok = false;
	if (rt_prio > 0) {
		struct sched_param sp = { .sched_priority = rt_prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			return -errno;
		return 0;
	}
	if (!slice_us || set_fair(slice_us * 1000ULL))
		return 0;
	/* the kernel clamps the slice to 0.1..100 ms; it reports 0 if it has none */
	*slice_ok = !get_attr(&a) && a.sched_runtime;
	return 0;
}

void prio_worker(void)
{
	struct sched_param sp = { 0 };

	/* cannot fail for the calling thread, except under a seccomp policy */
	if (sched_getscheduler(0) != SCHED_OTHER)
		sched_setscheduler(0, SCHED_OTHER, &sp);
	set_fair(0);
}
