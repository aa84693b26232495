// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_loop [-s K] [-k] N: the per-CPU close(-1) writer of make qemu-bench
 * PART=scale. One child per online CPU, each pinned to its CPU with
 * sched_setaffinity(), calls close(-1) N / CPUs times (the first N % CPUs
 * children one more), so that every CPU's buffer is written and the total
 * number of calls is N whatever the number of CPUs. The parent waits for
 * all of them.
 *
 * -s K: then send SIGUSR2 to the parent process (the recorder that ran
 * this command) K times, sleeping 100 ms after each, so that each
 * snapshot is taken and written before the next request; -k does the same
 * with signal 0 instead (kill(ppid, 0) checks, sends nothing): the same
 * work without the snapshots, whose CPU time is subtracted.
 *
 * Exit status: 0, or 1 with a message when a child could not be pinned
 * or a signal could not be sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: cpu_loop [-s K] [-k] N\n");
	return 1;
}

static int pinned_loop(int cpu, long long calls)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "cpu_loop: pinning to CPU %d: %s\n", cpu, strerror(errno));
		return 1;
	}
	for (long long i = 0; i < calls; i++)
		close(-1);
	return 0;
}

int main(int argc, char **argv)
{
	const struct timespec pause = { 0, 100 * 1000 * 1000 };
	long long n, snaps = 0;
	int sig = SIGUSR2, opt, ncpus, status, ret = 0;
	char *end;

	while ((opt = getopt(argc, argv, "s:k")) != -1) {
		switch (opt) {
		case 's':
			snaps = strtoll(optarg, &end, 10);
			if (*end || snaps < 0)
				return usage();
			break;
		case 'k':
			sig = 0;
			break;
		default:
			return usage();
		}
	}
	if (optind + 1 != argc)
		return usage();
	n = strtoll(argv[optind], &end, 10);
	if (*end || n < 0)
		return usage();
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 1)
		ncpus = 1;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "cpu_loop: fork: %s\n", strerror(errno));
			return 1;
		}
		if (!pid)
			_exit(pinned_loop(cpu, n / ncpus + (cpu < n % ncpus)));
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;

	for (long long i = 0; i < snaps; i++) {
		if (kill(getppid(), sig)) {
			fprintf(stderr, "cpu_loop: kill(parent, %d): %s\n", sig, strerror(errno));
			return 1;
		}
		nanosleep(&pause, NULL);
	}
	return ret;
}
