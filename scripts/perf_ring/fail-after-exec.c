// SPDX-License-Identifier: GPL-2.0
/*
 * fail-after-exec SECONDS CMD [ARG...]: run CMD with the kernel's fault
 * injection on for it (/proc/PID/make-it-fail = 1, task-filter) from its
 * first instruction, but not during the exec that starts it.
 *
 * The flag is inherited across fork and exec, so setting it before the
 * exec faults the exec itself, and an exec that fails past its point of no
 * return is killed with SIGSEGV: the failures then never reach the
 * program.  Here CMD is traced (PTRACE_TRACEME), so it stops with SIGTRAP
 * once its exec has succeeded; the flag is set then, and CMD is let go.
 * After SECONDS it is killed.  The exit status is CMD's, or 128 + the
 * signal that ended it (137 for the timeout); 126 when CMD could not be
 * started.  Used by guest-faults.sh for the selftests.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

static pid_t child;

static void on_alarm(int sig)
{
	(void)sig;
	kill(child, SIGKILL);
}

static int set_fail(pid_t pid)
{
	char path[64];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/make-it-fail", (int)pid);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs("1", f) < 0)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int main(int argc, char **argv)
{
	int st, err, secs;

	if (argc < 3 || (secs = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: fail-after-exec SECONDS CMD [ARG...]\n");
		return 2;
	}
	child = fork();
	if (child < 0) {
		perror("fail-after-exec: fork");
		return 126;
	}
	if (!child) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
			perror("fail-after-exec: PTRACE_TRACEME");
			_exit(126);
		}
		execvp(argv[2], argv + 2);
		fprintf(stderr, "fail-after-exec: %s: %s\n", argv[2], strerror(errno));
		_exit(126);
	}
	/* the SIGTRAP of a successful exec, or the end of a failed one */
	if (waitpid(child, &st, 0) < 0) {
		perror("fail-after-exec: waitpid");
		return 126;
	}
	if (!WIFSTOPPED(st))
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	err = set_fail(child);
	if (err)
		fprintf(stderr, "fail-after-exec: /proc/%d/make-it-fail: %s\n", (int)child,
			strerror(-err));
	signal(SIGALRM, on_alarm);
	alarm(secs);
	if (ptrace(PTRACE_DETACH, child, NULL, NULL))
		perror("fail-after-exec: PTRACE_DETACH");
	if (err)
		kill(child, SIGKILL);
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR) {
			perror("fail-after-exec: waitpid");
			return 126;
		}
	if (err)
		return 126;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
