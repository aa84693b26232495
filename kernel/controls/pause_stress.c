// SPDX-License-Identifier: GPL-2.0
/*
 * pause_stress: one thread toggles PERF_EVENT_IOC_PAUSE_OUTPUT on a buffer
 * while another, pinned to a different CPU, makes the kernel write records
 * into it: a PERF_RECORD_COMM for every prctl(PR_SET_NAME), the cheapest
 * record a task can cause, so that the writers test the flag as often as
 * possible. This is the workload under which KCSAN can see the paused flag being
 * written on one CPU and read on another: the guest runs it in every
 * qemu-check, so the KCSAN negative control (kernel/controls/README) shows
 * whether a plain access there is reported, and the correct series runs
 * the same workload without a report.
 *
 * It also checks what it can see from userspace: no record is written
 * while the buffer is paused, and records come again once it is resumed.
 *
 * Usage: pause_stress [SECONDS]   (default 2)
 * Exit: 0 pass, 1 fail, 4 skip (one CPU, or no PAUSE_OUTPUT).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef PERF_EVENT_IOC_PAUSE_OUTPUT
#define PERF_EVENT_IOC_PAUSE_OUTPUT	_IOW('$', 9, __u32)
#endif

#define DATA_PAGES	8

static volatile int stop;
static int fd = -1;
static unsigned long toggles;
static int toggle_err;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static void write_once(void)
{
	/* A new name for the thread: one PERF_RECORD_COMM. */
	prctl(PR_SET_NAME, (unsigned long)"pause_stress", 0, 0, 0);
}

static void *toggler(void *arg)
{
	int cpu = *(int *)arg;

	pin(cpu);
	while (!stop) {
		if (ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, (unsigned long)(toggles & 1) ^ 1)) {
			toggle_err = errno;
			break;
		}
		toggles++;
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *meta;
	long psz = sysconf(_SC_PAGESIZE);
	unsigned long writes = 0, k;
	int cpus[2] = { 0, 1 };
	pthread_t th;
	__u64 head;
	void *map;
	double end;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("SKIP: pause_stress needs 2 online CPUs\n");
		return 4;
	}
	if (pin(cpus[1])) {
		printf("SKIP: cannot pin to CPU %d\n", cpus[1]);
		return 4;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.comm = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("SKIP: perf_event_open(dummy, comm): %s\n", strerror(errno));
		return 4;
	}
	map = mmap(NULL, (DATA_PAGES + 1) * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		printf("FAIL: mmap of the ring buffer: %s\n", strerror(errno));
		return 1;
	}
	meta = map;
	if (ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0)) {
		printf("SKIP: PERF_EVENT_IOC_PAUSE_OUTPUT: %s\n", strerror(errno));
		return 4;
	}

	if (pthread_create(&th, NULL, toggler, &cpus[0])) {
		printf("FAIL: pthread_create\n");
		return 1;
	}
	end = now() + secs;
	while (now() < end && !toggle_err) {
		for (k = 0; k < 256; k++)
			write_once();
		writes += k;
		/* Consume everything, so that the buffer never stays full. */
		head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
		__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	}
	stop = 1;
	pthread_join(th, NULL);
	if (toggle_err) {
		printf("FAIL: PERF_EVENT_IOC_PAUSE_OUTPUT failed after %lu toggles: %s\n",
		       toggles, strerror(toggle_err));
		return 1;
	}

	/* Paused: nothing may be written. */
	if (ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1)) {
		printf("FAIL: pause: %s\n", strerror(errno));
		return 1;
	}
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	for (k = 0; k < 100; k++)
		write_once();
	if (__atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE) != head) {
		printf("FAIL: data_head moved from %llu to %llu while paused\n",
		       (unsigned long long)head,
		       (unsigned long long)__atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE));
		return 1;
	}
	/* Resumed: records come again. */
	if (ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0)) {
		printf("FAIL: resume: %s\n", strerror(errno));
		return 1;
	}
	for (k = 0; k < 100; k++)
		write_once();
	if (__atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE) == head) {
		printf("FAIL: no record after the buffer was resumed\n");
		return 1;
	}
	printf("pause_stress: %lu pause/resume toggles on CPU %d while %lu records were issued on CPU %d in %.1f s; none written while paused, writing resumed\n",
	       toggles, cpus[0], writes, cpus[1], secs);
	return 0;
}
