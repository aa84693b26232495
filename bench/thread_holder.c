// SPDX-License-Identifier: GPL-2.0
/*
 * thread_holder N: start N threads that sleep, print "ready N" and sleep
 * until killed: a process holding N threads, whose synthesis the threads
 * part of the icount benchmark measures (guest-bench.sh, make qemu-bench
 * PART=threads).  Each thread has the smallest stack the C library allows,
 * so that 100,000 fit in the guest.  Exits 1 with the reason when a
 * thread cannot be started (threads-max, pid_max, max_map_count, memory).
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	char *end = NULL;
	long n = argc == 2 ? strtol(argv[1], &end, 10) : -1;
	int err;

	if (n < 0 || !end || end == argv[1] || *end) {
		fprintf(stderr, "usage: thread_holder N\n");
		return 2;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (long i = 0; i < n; i++) {
		pthread_t t;

		err = pthread_create(&t, &attr, sleeper, NULL);
		if (err) {
			fprintf(stderr, "thread_holder: thread %ld of %ld: %s\n", i + 1, n,
				strerror(err));
			return 1;
		}
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
}
