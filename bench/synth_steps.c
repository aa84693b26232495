// SPDX-License-Identifier: GPL-2.0
/*
 * synth_steps [ROUNDS]: the cost of each step of synthesizing the threads
 * that exist, per thread of the whole system, the way perf-ring does it
 * and the way perf does it, each step timed over all of /proc on its own.
 *
 *   list      readdir of /proc and of every /proc/PID/task
 *   comm      perf-ring: openat(task dir, "TID/comm"), one read, close
 *   status    perf: /proc/PID/task/TID/status read to EOF, per thread
 *   ppid      perf-ring: /proc/PID/status read to EOF, per process
 *   maps-text /proc/PID/maps read with stdio and parsed with sscanf
 *   maps-query PROCMAP_QUERY ioctls on /proc/PID/maps, executable maps
 *             (n/a when the kernel answers ENOTTY: before Linux 6.11)
 *
 * and the steps of perf-ring's BPF task iterator path (synth-iter.c, built
 * with this file; n/a without the privilege or the kernel support):
 *
 *   btf-libbpf libbpf's btf__load_vmlinux_btf(), for comparison only
 *   iter-btf   what the program needs, from /sys/kernel/btf/vmlinux
 *   iter-load  the program loaded, verified and attached (a link)
 *   iter-read  one iterator of the link read to the end: every task
 *   iter-procs readdir of /proc alone: the processes
 *   iter-kcomm /proc comm of each kernel thread, whose full name is there
 *
 * Output: "synth_steps threads=T procs=P maps=M" then one line per step,
 * "step NAME ns_per_thread=X" (the median of ROUNDS rounds, default 9).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "synth-iter.h"

struct pmq {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PMQ _IOWR('f', 17, struct pmq)
#define PMQ_EXEC 0x04
#define PMQ_COVERING_OR_NEXT 0x10

#define MAX_PIDS 65536
#define MAX_ROUNDS 99

static int pids[MAX_PIDS], npids;
static long nthreads, nmaps;
static char buf[65536];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void read_all(int fd)
{
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void step_list(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[64];

	npids = 0;
	nthreads = 0;
	while (d && (de = readdir(d)) && npids < MAX_PIDS)
		if (isdigit((unsigned char)de->d_name[0]))
			pids[npids++] = atoi(de->d_name);
	if (d)
		closedir(d);
	for (int i = 0; i < npids; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task", pids[i]);
		d = opendir(path);
		while (d && (de = readdir(d)))
			nthreads += !!isdigit((unsigned char)de->d_name[0]);
		if (d)
			closedir(d);
	}
}

/* per thread: perf-ring's comm (how 1) or perf's status (how 2) */
static void step_threads(int how)
{
	char path[64];

	for (int i = 0; i < npids; i++) {
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", pids[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			int fd;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			if (how == 1) {
				snprintf(path, sizeof(path), "%d/comm", atoi(de->d_name));
				fd = openat(dirfd(d), path, O_RDONLY | O_CLOEXEC);
				if (fd >= 0 && read(fd, buf, 64) < 0)
					buf[0] = 0;
			} else {
				snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pids[i],
					 atoi(de->d_name));
				fd = open(path, O_RDONLY | O_CLOEXEC);
				if (fd >= 0)
					read_all(fd);
			}
			if (fd >= 0)
				close(fd);
		}
		closedir(d);
	}
}

static void step_ppid(void)
{
	char path[64];

	for (int i = 0; i < npids; i++) {
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/status", pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			read_all(fd);
			close(fd);
		}
	}
}

static void step_maps_text(void)
{
	char path[64], line[4096];

	nmaps = 0;
	for (int i = 0; i < npids; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/maps", pids[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long a, b, pg, ino;
			unsigned int ma, mi;
			char perm[8];
			int n = 0;

			if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &a, &b, perm, &pg, &ma,
				   &mi, &ino, &n) >= 7 && perm[2] == 'x')
				nmaps++;
		}
		fclose(f);
	}
}

/* 0, or -ENOTTY without PROCMAP_QUERY */
static int step_maps_query(void)
{
	char path[64], name[4096];

	for (int i = 0; i < npids; i++) {
		uint64_t addr = 0;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/maps", pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (;;) {
			struct pmq q = { .size = sizeof(q),
					 .query_flags = PMQ_COVERING_OR_NEXT | PMQ_EXEC,
					 .query_addr = addr, .vma_name_size = sizeof(name),
					 .vma_name_addr = (uintptr_t)name };

			if (ioctl(fd, PMQ, &q)) {
				if (errno == ENOTTY) {
					close(fd);
					return -ENOTTY;
				}
				break;
			}
			addr = q.vma_end;
		}
		close(fd);
	}
	return 0;
}

/* libbpf's parse of the kernel's BTF: 0, or -1 */
static int step_btf_libbpf(void)
{
	struct btf *b = btf__load_vmlinux_btf();

	if (!b)
		return -1;
	btf__free(b);
	return 0;
}

static struct synth_iter_btf ib;
static struct synth_task *tasks;
static size_t ntasks;

static int step_iter_btf(void)
{
	const char *why;

	return synth_iter_btf(&ib, &why);
}

/* a link, or negative */
static int step_iter_load(void)
{
	const char *why;

	return synth_iter_link(&ib, &why);
}

static int step_iter_read(int link)
{
	const char *why;

	free(tasks);
	tasks = NULL;
	return synth_iter_read(link, &tasks, &ntasks, &why);
}

static void step_iter_procs(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	npids = 0;
	while (d && (de = readdir(d)) && npids < MAX_PIDS)
		if (isdigit((unsigned char)de->d_name[0]))
			pids[npids++] = atoi(de->d_name);
	if (d)
		closedir(d);
}

static void step_iter_kcomm(void)
{
	char path[64];

	for (size_t i = 0; i < ntasks; i++) {
		int fd;

		if (!(tasks[i].flags & SYNTH_PF_KTHREAD))
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", tasks[i].tgid, tasks[i].tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (read(fd, buf, 64) < 0)
				buf[0] = 0;
			close(fd);
		}
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define NSTEPS 12

int main(int argc, char **argv)
{
	static const char *const names[NSTEPS] = {
		"list", "comm", "status", "ppid", "maps-text", "maps-query",
		"btf-libbpf", "iter-btf", "iter-load", "iter-read", "iter-procs", "iter-kcomm",
	};
	static double t[NSTEPS][MAX_ROUNDS];
	int rounds = argc > 1 ? atoi(argv[1]) : 9;
	int have[NSTEPS];

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "synth_steps: ROUNDS must be 1..%d\n", MAX_ROUNDS);
		return 2;
	}
	for (int s = 0; s < NSTEPS; s++)
		have[s] = 1;
	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();
		int link = -1;

		step_list();
		t[0][r] = now_ns() - t0;
		t0 = now_ns();
		step_threads(1);
		t[1][r] = now_ns() - t0;
		t0 = now_ns();
		step_threads(2);
		t[2][r] = now_ns() - t0;
		t0 = now_ns();
		step_ppid();
		t[3][r] = now_ns() - t0;
		t0 = now_ns();
		step_maps_text();
		t[4][r] = now_ns() - t0;
		t0 = now_ns();
		if (step_maps_query())
			have[5] = 0;
		t[5][r] = now_ns() - t0;
		t0 = now_ns();
		if (step_btf_libbpf())
			have[6] = 0;
		t[6][r] = now_ns() - t0;
		t0 = now_ns();
		if (step_iter_btf())
			have[7] = have[8] = have[9] = have[11] = 0;
		t[7][r] = now_ns() - t0;
		t0 = now_ns();
		if (have[8])
			link = step_iter_load();
		if (link < 0)
			have[8] = have[9] = have[11] = 0;
		t[8][r] = now_ns() - t0;
		t0 = now_ns();
		if (link >= 0 && step_iter_read(link))
			have[9] = have[11] = 0;
		t[9][r] = now_ns() - t0;
		if (link >= 0)
			close(link);
		t0 = now_ns();
		step_iter_procs();
		t[10][r] = now_ns() - t0;
		t0 = now_ns();
		if (have[11])
			step_iter_kcomm();
		t[11][r] = now_ns() - t0;
	}
	printf("synth_steps threads=%ld procs=%d maps=%ld tasks=%zu rounds=%d\n", nthreads, npids,
	       nmaps, ntasks, rounds);
	for (int s = 0; s < NSTEPS; s++) {
		qsort(t[s], rounds, sizeof(double), cmp_d);
		if (!have[s])
			printf("step %s n/a\n", names[s]);
		else
			printf("step %s ns_per_thread=%.0f\n", names[s],
			       t[s][rounds / 2] / (nthreads ? nthreads : 1));
	}
	free(tasks);
	return 0;
}
