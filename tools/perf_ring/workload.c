// SPDX-License-Identifier: GPL-2.0
/* The recorded command: fork, hold, exec, reap (workload.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include "workload.h"

int workload_prepare(struct workload *w, char **argv, bool out_is_stdout)
{
	int go[2], er[2];

	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (w->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);	/* the recorder ignores it; exec keeps that */
		if (out_is_stdout && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		/* the parent learns why through the close-on-exec pipe */
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	w->go_fd = go[1];
	w->err_fd = er[0];
	return 0;
}

int workload_go(struct workload *w)
{
	bool failed = false;
	ssize_t n;
	int e;

	if (write(w->go_fd, "g", 1) != 1)
		failed = true;
	close(w->go_fd);
	/* EOF when exec closed the pipe; an errno when exec failed */
	n = read(w->err_fd, &e, sizeof(e));
	close(w->err_fd);
	if (n == sizeof(e)) {
		failed = true;
		w->exec_errno = e;
	}
	return failed ? -1 : 0;
}

bool workload_reap(struct workload *w)
{
	if (w->pid <= 0)
		return false;
	if (waitpid(w->pid, &w->status, WNOHANG) == w->pid) {
		w->pid = -1;
		return true;
	}
	return false;
}

void workload_wait(struct workload *w, bool stop)
{
	if (w->pid <= 0)
		return;
	if (stop)
		kill(w->pid, SIGTERM);
	waitpid(w->pid, &w->status, 0);
	w->pid = -1;
}

void workload_kill(struct workload *w)
{
	if (w->pid <= 0)
		return;
	kill(w->pid, SIGKILL);
	waitpid(w->pid, NULL, 0);
	w->pid = -1;
}

int workload_exit_code(const struct workload *w)
{
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return 0;
}
