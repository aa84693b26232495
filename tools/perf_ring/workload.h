/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command perf-ring records (after "--"): forked first, held until
 * the events are ready, then let go to exec.
 */
#ifndef PERF_RING_WORKLOAD_H
#define PERF_RING_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

struct workload {
	pid_t pid;		/* > 0 while it runs and is not reaped */
	int go_fd, err_fd;
	int status;		/* wait status once reaped */
	int exec_errno;		/* why exec failed, 0 if it did not */
};

/*
 * Fork the command; it waits in the child for workload_go().  With
 * out_is_stdout (-o -), its standard output goes to standard error, as
 * under perf, so that it cannot mix with the recording.
 */
int workload_prepare(struct workload *w, char **argv, bool out_is_stdout);
/* Let it exec.  Returns 0, or -1 when it could not start (exec_errno). */
int workload_go(struct workload *w);
/* Reap it if it has exited, without waiting. */
bool workload_reap(struct workload *w);
/* At the end: SIGTERM it first when stop is set, then wait for it. */
void workload_wait(struct workload *w, bool stop);
/* Its exit status as a shell gives it: the code, or 128 + the signal. */
int workload_exit_code(const struct workload *w);
/* Setup failed: kill it and wait. */
void workload_kill(struct workload *w);

#endif
