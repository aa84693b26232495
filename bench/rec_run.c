// SPDX-License-Identifier: GPL-2.0
/*
 * rec_run [-f PAGES] -- CMD [ARG...]: run CMD and print how long it took,
 * for the recorder benchmark in the QEMU -icount guest (make qemu-bench
 * PART=recorders), where one nanosecond of guest time is one instruction.
 *
 * Output, one line on stderr:
 *   "rec_run ns=T cpu=C idle=I maxrss=R status=S"
 * T is the CLOCK_MONOTONIC time from before the fork to after the wait.
 * It includes idle time: under -icount with sleep=off a CPU that waits
 * for a timer jumps to it, and the guest clock with it. C is the CPU time
 * of CMD and of everything it started and waited for, every thread (the
 * recorder's reader, writer and io_uring workers, the workload, the
 * kernel's work in their context), in nanoseconds: the scheduler's
 * runtime, from getrusage(RUSAGE_CHILDREN), whose user and system times
 * add up to it. I is the idle time over T, in USER_HZ ticks of
 * /proc/stat, to show how much of T was waiting.  R is the largest
 * resident set of CMD and what it waited for, in kB (ru_maxrss).
 *
 * -b: also "busy=B spin=S": the guest's instructions over T, every CPU's,
 * with the idle jumps taken out (make qemu-bench PART=scale, -smp N). With
 * more than one vCPU, -icount runs them round-robin and the guest clock
 * counts the instructions of all of them, so a task's CPU time also
 * counts what other vCPUs ran while it was on its CPU: C is no longer its
 * instructions. The sum of every vCPU's instructions is: the clock, as
 * long as it never jumps, which it does only when every vCPU is idle. A
 * spinner pinned to the last online CPU at SCHED_IDLE (it runs only when
 * nothing else there can) keeps one vCPU busy, so the clock never jumps,
 * and counts its iterations of a two-instruction loop: B = T - 2 S.
 *
 * -f PAGES: the kernel-only floor. raw_syscalls:sys_enter and sys_exit
 * are opened for CMD the way perf-ring record opens them (one per CPU and
 * event, period 1, IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW, inherit,
 * enable_on_exec, the first event tracking mmap/comm/task, one buffer of
 * PAGES data pages per CPU shared through SET_OUTPUT), writing backward
 * into a read-only mapping; nobody reads it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define MAX_CPUS 64
/* write_backward is bit 27 of the flags word after read_format. */
#define WRITE_BACKWARD_BIT 27
#define FLAGS_OFFSET 40

static unsigned long long idle_ticks(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4]);
	fclose(f);
	return n == 5 ? v[3] + v[4] : 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Open the floor's events for @pid on every CPU; 0 or a negative errno. */
static int open_floor(pid_t pid, long pages)
{
	static const char *const tps[] = { "raw_syscalls/sys_enter", "raw_syscalls/sys_exit" };
	long psize = sysconf(_SC_PAGESIZE);
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);

	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	for (long cpu = 0; cpu < ncpus; cpu++) {
		int ring = -1;

		for (int i = 0; i < 2; i++) {
			struct perf_event_attr attr;
			uint64_t flags;
			int id = bench_tracepoint_id(tps[i]), fd;

			if (id < 0) {
				fprintf(stderr, "rec_run: tracepoint %s not found\n", tps[i]);
				return -ENOENT;
			}
			memset(&attr, 0, sizeof(attr));
			attr.size = sizeof(attr);
			attr.type = PERF_TYPE_TRACEPOINT;
			attr.config = id;
			attr.sample_period = 1;
			attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
					   PERF_SAMPLE_RAW;
			attr.disabled = 1;
			attr.inherit = 1;
			attr.enable_on_exec = 1;
			attr.watermark = 1;
			attr.wakeup_watermark = pages * psize / 2;
			attr.sample_id_all = 1;
			if (i == 0) {
				attr.mmap = 1;
				attr.mmap2 = 1;
				attr.comm = 1;
				attr.comm_exec = 1;
				attr.task = 1;
			}
			/* Through the flags word: an older header may lack the field. */
			memcpy(&flags, (char *)&attr + FLAGS_OFFSET, sizeof(flags));
			flags |= 1ULL << WRITE_BACKWARD_BIT;
			memcpy((char *)&attr + FLAGS_OFFSET, &flags, sizeof(flags));

			fd = syscall(SYS_perf_event_open, &attr, pid, (int)cpu, -1,
				     PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				if (errno == ENODEV)
					break;	/* CPU not present */
				fprintf(stderr, "rec_run: perf_event_open(raw_syscalls:%s, cpu %ld): %s\n",
					tps[i], cpu, strerror(errno));
				return -errno;
			}
			if (ring < 0) {
				if (mmap(NULL, (pages + 1) * psize, PROT_READ, MAP_SHARED, fd, 0) ==
				    MAP_FAILED) {
					fprintf(stderr, "rec_run: mmap of %ld pages: %s\n", pages,
						strerror(errno));
					return -errno;
				}
				ring = fd;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring)) {
				fprintf(stderr, "rec_run: SET_OUTPUT: %s\n", strerror(errno));
				return -errno;
			}
		}
	}
	return 0;
}

/* Instructions per iteration of spin()'s loop. */
#define SPIN_INSNS 2

static void spin(volatile unsigned long long *ctr)
{
	for (;;)
		asm volatile("1: incq %0\n\tjmp 1b" : "+m" (*ctr));
}

/* The -b spinner: a child pinned to the last online CPU at SCHED_IDLE,
 * counting in @ctr; its pid once it counts, or -1. */
static pid_t start_spinner(volatile unsigned long long *ctr)
{
	struct sched_param sp = { 0 };
	long cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	cpu_set_t set;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		perror("rec_run: fork");
		return -1;
	}
	if (pid == 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu > 0 ? cpu : 0, &set);
		if (sched_setaffinity(0, sizeof(set), &set) ||
		    sched_setscheduler(0, SCHED_IDLE, &sp)) {
			perror("rec_run: the spinner's CPU or policy");
			_exit(1);
		}
		spin(ctr);
	}
	while (!*ctr) {
		int status;

		if (waitpid(pid, &status, WNOHANG) == pid)
			return -1;
		sched_yield();
	}
	return pid;
}

static double children_cpu_ns(long *maxrss_kb)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru))
		return 0;
	*maxrss_kb = ru.ru_maxrss;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

int main(int argc, char **argv)
{
	volatile unsigned long long *ctr = NULL;
	unsigned long long idle0, idle1, spin0 = 0, spin1 = 0;
	long pages = 0;
	int go[2], status, i = 1;
	pid_t pid, spinner = -1;
	double t0, t1, cpu;
	long maxrss = 0;
	char c;

	if (argc > 1 && !strcmp(argv[1], "-b")) {
		ctr = mmap(NULL, sizeof(*ctr), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			   -1, 0);
		if (ctr == MAP_FAILED) {
			perror("rec_run: mmap");
			return 1;
		}
		spinner = start_spinner(ctr);
		if (spinner < 0) {
			fprintf(stderr, "rec_run: -b: the spinner did not start\n");
			return 1;
		}
		i = 2;
	}
	if (argc > i + 1 && !strcmp(argv[i], "-f")) {
		char *end;

		pages = strtol(argv[i + 1], &end, 10);
		if (*end || pages <= 0 || (pages & (pages - 1))) {
			fprintf(stderr, "rec_run: -f %s: give a power of two of pages\n", argv[i + 1]);
			return 2;
		}
		i += 2;
	}
	if (i >= argc || strcmp(argv[i], "--") || i + 1 >= argc) {
		fprintf(stderr, "usage: rec_run [-b] [-f PAGES] -- CMD [ARG...]\n");
		return 2;
	}
	argv += i + 1;
	if (pipe(go)) {
		perror("rec_run: pipe");
		return 1;
	}
	idle0 = idle_ticks();
	if (ctr)
		spin0 = *ctr;
	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("rec_run: fork");
		return 1;
	}
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "rec_run: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	if (pages && open_floor(pid, pages) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	if (write(go[1], "g", 1) != 1) {
		perror("rec_run: write");
		return 1;
	}
	close(go[1]);
	if (waitpid(pid, &status, 0) < 0) {
		perror("rec_run: waitpid");
		return 1;
	}
	t1 = now_ns();
	if (ctr)
		spin1 = *ctr;
	idle1 = idle_ticks();
	/* The spinner is reaped after the children's CPU time is read. */
	cpu = children_cpu_ns(&maxrss);
	fprintf(stderr, "rec_run ns=%.0f cpu=%.0f idle=%llu maxrss=%ld", t1 - t0, cpu,
		idle1 - idle0, maxrss);
	if (ctr) {
		fprintf(stderr, " busy=%.0f spin=%llu", t1 - t0 - (double)SPIN_INSNS * (spin1 - spin0),
			spin1 - spin0);
		kill(spinner, SIGKILL);
		waitpid(spinner, NULL, 0);
	}
	fprintf(stderr, " status=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
