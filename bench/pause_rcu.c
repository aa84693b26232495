// SPDX-License-Identifier: GPL-2.0
/*
 * pause_rcu: what PERF_EVENT_IOC_PAUSE_OUTPUT leaves in flight, and what a
 * synchronize_rcu() after its store would cost, on the running kernel.
 *
 * A child loops on close(-1) on CPU W; raw_syscalls:sys_enter on CPU W
 * writes into a backward, overwritable buffer (the flight recorder's).
 * This process, on CPU R, then N times:
 *
 *   pause     ioctl(PAUSE_OUTPUT, 1), timed
 *   inflight  data_head read at once, then again after SPIN_US: a change
 *             is a record a writer completed after the ioctl had returned
 *             (it tested the flag before the store).  The first read comes
 *             a few ns after the return, so this is a lower bound.
 *   late      data_head read a third time LATE_US after the second read:
 *             a change is a writer that had passed the paused test and
 *             moved rb->head but published data_head only after the
 *             second read, which a reader that re-reads data_head after
 *             its copy cannot see
 *   resume    ioctl(PAUSE_OUTPUT, 0), timed, and GAP_US of writing
 *
 * and M times membarrier(MEMBARRIER_CMD_GLOBAL), which is one
 * synchronize_rcu() when more than one CPU is online: the price a pause or
 * a resume would pay if the ioctl waited for a grace period.
 *
 * Output: "key value" lines, read by scripts/perf_ring/bench_pause_rcu.py.
 * Usage: pause_rcu N M [READER_CPU WRITER_CPU]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define PAGES		16
#define SPIN_US		20
#define LATE_US		1000
#define GAP_US		200
#define REC_BYTES	32	/* header + IP + TID + TIME */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void spin_us(unsigned int us)
{
	uint64_t end = now_ns() + us * 1000ull;

	while (now_ns() < end)
		;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* median, 99th percentile and maximum, in microseconds */
static void print_dist(const char *key, uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	printf("%s_us %.3f %.3f %.3f\n", key, v[n / 2] / 1e3,
	       v[(int)(n * 0.99) < n ? (int)(n * 0.99) : n - 1] / 1e3, v[n - 1] / 1e3);
}

int main(int argc, char **argv)
{
	int n, m, rcpu = 0, wcpu = 1, fd, q;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	uint64_t *t_pause, *t_resume, *t_gp;
	long page = sysconf(_SC_PAGESIZE), id;
	uint64_t moved = 0, moved_bytes = 0, moved_max = 0;
	uint64_t late = 0, late_bytes = 0, late_max = 0;
	pid_t child;
	void *base;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: %s N M [READER_CPU WRITER_CPU]\n", argv[0]);
		return 2;
	}
	n = atoi(argv[1]);
	m = atoi(argv[2]);
	if (argc == 5) {
		rcpu = atoi(argv[3]);
		wcpu = atoi(argv[4]);
	}
	if (n < 1 || m < 1 || rcpu == wcpu) {
		fprintf(stderr, "pause_rcu: N and M must be >= 1, the CPUs must differ\n");
		return 2;
	}
	id = bench_tracepoint_id("raw_syscalls/sys_enter");
	if (id < 0) {
		fprintf(stderr, "pause_rcu: no raw_syscalls/sys_enter tracepoint (tracefs mounted?)\n");
		return 1;
	}

	child = fork();
	if (child < 0) {
		perror("pause_rcu: fork");
		return 1;
	}
	if (child == 0) {
		if (pin(wcpu))
			_exit(1);
		for (;;)
			close(-1);
	}
	if (pin(rcpu)) {
		fprintf(stderr, "pause_rcu: cpu %d: %s\n", rcpu, strerror(errno));
		goto fail;
	}

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.write_backward = 1;
	fd = syscall(SYS_perf_event_open, &attr, -1, wcpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "pause_rcu: perf_event_open: %s\n", strerror(errno));
		goto fail;
	}
	base = mmap(NULL, (PAGES + 1) * page, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		fprintf(stderr, "pause_rcu: mmap: %s\n", strerror(errno));
		goto fail;
	}
	pg = base;

	t_pause = calloc(n, sizeof(*t_pause));
	t_resume = calloc(n, sizeof(*t_resume));
	t_gp = calloc(m, sizeof(*t_gp));
	if (!t_pause || !t_resume || !t_gp)
		goto fail;

	spin_us(100000);	/* the child is in its loop */
	for (int i = 0; i < n; i++) {
		uint64_t t0, t1, h1, h2, h3, d;

		t0 = now_ns();
		if (ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1)) {
			fprintf(stderr, "pause_rcu: PAUSE_OUTPUT: %s\n", strerror(errno));
			goto fail;
		}
		h1 = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		t1 = now_ns();
		t_pause[i] = t1 - t0;
		spin_us(SPIN_US);
		h2 = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		/* backward: the head moves down; 32-bit kernels wrap at 2^32 */
		d = h1 - h2;
		if (sizeof(long) == 4)
			d = (uint32_t)d;
		if (d) {
			moved++;
			moved_bytes += d;
			if (d > moved_max)
				moved_max = d;
		}
		spin_us(LATE_US);
		h3 = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		d = h2 - h3;
		if (sizeof(long) == 4)
			d = (uint32_t)d;
		if (d) {
			late++;
			late_bytes += d;
			if (d > late_max)
				late_max = d;
		}
		t0 = now_ns();
		if (ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0)) {
			fprintf(stderr, "pause_rcu: PAUSE_OUTPUT 0: %s\n", strerror(errno));
			goto fail;
		}
		t_resume[i] = now_ns() - t0;
		spin_us(GAP_US);
	}

	q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (q < 0 || !(q & MEMBARRIER_CMD_GLOBAL)) {
		printf("grace n/a (membarrier GLOBAL not available: %s)\n",
		       q < 0 ? strerror(errno) : "not in the query mask");
	} else {
		for (int i = 0; i < m; i++) {
			uint64_t t0 = now_ns();

			if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0)) {
				fprintf(stderr, "pause_rcu: membarrier: %s\n", strerror(errno));
				goto fail;
			}
			t_gp[i] = now_ns() - t0;
		}
		print_dist("grace", t_gp, m);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	printf("pauses %d\n", n);
	printf("record_bytes %d\n", REC_BYTES);
	printf("inflight %llu %llu %llu\n", (unsigned long long)moved,
	       (unsigned long long)moved_bytes, (unsigned long long)moved_max);
	printf("late %llu %llu %llu\n", (unsigned long long)late,
	       (unsigned long long)late_bytes, (unsigned long long)late_max);
	print_dist("pause", t_pause, n);
	print_dist("resume", t_resume, n);
	printf("graces %d\n", m);
	printf("online_cpus %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	return 0;
fail:
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 1;
}
