// SPDX-License-Identifier: GPL-2.0
/*
 * ab-timer TAG N OUT CMD [ARG...]: run CMD N times in the make ab guest and
 * print one line per run on stdout:
 *
 *   AB_<TAG> i=I rc=RC ns=NS irqs=IRQS out=SUM
 *
 * NS is CLOCK_MONOTONIC around fork, exec and wait of CMD, as
 * bench/ring_cost.c times its loop: under QEMU -icount shift=0 the guest
 * clock advances one nanosecond per instruction, so NS counts the
 * instructions the guest ran for CMD, kernel and user. IRQS is the number
 * of interrupts taken in that window (/proc/stat "intr", read outside it).
 * CMD's stdout and stderr go to OUT, truncated each run; SUM is a checksum
 * of what it wrote, so that a workload whose output changes from run to run
 * shows as such. Stops at the first run that fails; exits with 1 then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long irqs(void)
{
	char buf[4096], *p;
	long long v = -1;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		if (strncmp(buf, "intr ", 5))
			continue;
		v = strtoll(buf + 5, &p, 10);
		break;
	}
	fclose(f);
	return v;
}

static unsigned long out_sum(const char *path)
{
	unsigned char buf[4096];
	unsigned long h = 5381;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = h * 33 + buf[i];
	close(fd);
	return h;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *tag, *out;
	char *end;
	long n;

	if (argc < 5) {
		fprintf(stderr, "usage: ab-timer TAG N OUT CMD [ARG...]\n");
		return 2;
	}
	tag = argv[1];
	n = strtol(argv[2], &end, 10);
	out = argv[3];
	if (*end || n < 1) {
		fprintf(stderr, "ab-timer: bad count '%s'\n", argv[2]);
		return 2;
	}
	for (long i = 1; i <= n; i++) {
		long long i0, i1, t0, t1;
		int status, rc;
		pid_t pid;

		i0 = irqs();
		t0 = now_ns();
		pid = fork();
		if (pid < 0) {
			perror("ab-timer: fork");
			return 2;
		}
		if (!pid) {
			int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
				_exit(126);
			close(fd);
			execvp(argv[4], argv + 4);
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR) {
				perror("ab-timer: waitpid");
				return 2;
			}
		t1 = now_ns();
		i1 = irqs();
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		printf("AB_%s i=%ld rc=%d ns=%lld irqs=%lld out=%lu\n",
		       tag, i, rc, t1 - t0, i1 - i0, out_sum(out));
		fflush(stdout);
		if (rc)
			return 1;
	}
	return 0;
}
