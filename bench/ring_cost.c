// SPDX-License-Identifier: GPL-2.0
/*
 * ring_cost: the cost of recording close(-1) through the perf ring buffer.
 *
 * Runs N close(-1) calls with raw_syscalls:sys_enter and sys_exit recorded
 * (sample_period 1, TID|TIME|RAW, one buffer on this thread) in one of four
 * modes, and prints the CLOCK_MONOTONIC time the loop took:
 *
 *   base               no event at all
 *   forward            writable mapping, the loop consumes the buffer every
 *                      64 calls by moving data_tail to data_head (a reader)
 *   forward-overwrite  read-only mapping: the kernel overwrites old data
 *   backward-overwrite write_backward and a read-only mapping
 *
 * Inside QEMU with -icount shift=0 the guest clock advances one nanosecond
 * per instruction, so the printed time is an instruction count and
 * (mode - base) / records is the instructions the kernel spends per record.
 *
 * Output, one line: "ring_cost mode=M calls=N ns=T records=R lost=L"
 * Exit status 4 (the kselftest SKIP code) when the kernel lacks a feature.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define WRITE_BACKWARD_BIT	27	/* in the flags word after read_format */
#define RING_PAGES		16	/* data pages, a power of two */
#define KSFT_SKIP		4

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST	(1U << 4)
#endif

static long page_size;

static int open_event(const char *tp, int backward, int group_fd)
{
	struct perf_event_attr attr;
	uint64_t flags;
	int id = bench_tracepoint_id(tp);
	int fd;

	if (id < 0) {
		fprintf(stderr, "ring_cost: tracepoint %s not found\n", tp);
		return id;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	attr.read_format = PERF_FORMAT_LOST;
	attr.disabled = 1;
	/* Set write_backward through the flags word: PRE's header lacks it. */
	memcpy(&flags, (char *)&attr + 40, sizeof(flags));
	if (backward)
		flags |= 1ULL << WRITE_BACKWARD_BIT;
	memcpy((char *)&attr + 40, &flags, sizeof(flags));

	fd = syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, 0);
	if (fd < 0)
		return -errno;
	return fd;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long calls = argc > 2 ? atol(argv[2]) : 300000;
	int backward = !strcmp(mode, "backward-overwrite");
	int overwrite = backward || !strcmp(mode, "forward-overwrite");
	int reader = !strcmp(mode, "forward");
	int base = !strcmp(mode, "base");
	struct perf_event_mmap_page *pg = NULL;
	int fd_enter = -1, fd_exit = -1;
	uint64_t records = 0, lost = 0;
	size_t len;
	double t0, t1;
	long i;

	if (!base && !overwrite && !reader) {
		fprintf(stderr, "usage: ring_cost base|forward|forward-overwrite|backward-overwrite [CALLS]\n");
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	len = (RING_PAGES + 1) * page_size;

	if (!base) {
		fd_enter = open_event("raw_syscalls/sys_enter", backward, -1);
		if (fd_enter == -EINVAL && backward) {
			printf("ring_cost mode=%s skipped: kernel lacks write_backward\n", mode);
			return KSFT_SKIP;
		}
		if (fd_enter < 0) {
			fprintf(stderr, "ring_cost: perf_event_open(raw_syscalls:sys_enter): %s\n",
				strerror(-fd_enter));
			return 1;
		}
		fd_exit = open_event("raw_syscalls/sys_exit", backward, -1);
		if (fd_exit < 0) {
			fprintf(stderr, "ring_cost: perf_event_open(raw_syscalls:sys_exit): %s\n",
				strerror(-fd_exit));
			return 1;
		}
		pg = mmap(NULL, len, PROT_READ | (overwrite ? 0 : PROT_WRITE), MAP_SHARED,
			  fd_enter, 0);
		if (pg == MAP_FAILED) {
			perror("ring_cost: mmap");
			return 1;
		}
		if (ioctl(fd_exit, PERF_EVENT_IOC_SET_OUTPUT, fd_enter)) {
			perror("ring_cost: PERF_EVENT_IOC_SET_OUTPUT");
			return 1;
		}
		ioctl(fd_enter, PERF_EVENT_IOC_ENABLE, 0);
		ioctl(fd_exit, PERF_EVENT_IOC_ENABLE, 0);
	}

	t0 = now_ns();
	for (i = 0; i < calls; i++) {
		close(-1);
		/*
		 * The reader: give the space back. Pairs with the kernel's
		 * read of data_tail before it reserves space.
		 */
		if (reader && (i & 63) == 63)
			__atomic_store_n(&pg->data_tail,
					 __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
	}
	t1 = now_ns();

	if (!base) {
		uint64_t v[2];
		int fds[2] = { fd_enter, fd_exit };
		int k;

		ioctl(fd_enter, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(fd_exit, PERF_EVENT_IOC_DISABLE, 0);
		/* { value, lost } per event: the records it made and dropped. */
		for (k = 0; k < 2; k++) {
			if (read(fds[k], v, sizeof(v)) != sizeof(v)) {
				perror("ring_cost: read");
				return 1;
			}
			records += v[0];
			lost += v[1];
		}
	}
	printf("ring_cost mode=%s calls=%ld ns=%.0f records=%llu lost=%llu\n", mode, calls,
	       t1 - t0, (unsigned long long)records, (unsigned long long)lost);
	return 0;
}
