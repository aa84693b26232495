// SPDX-License-Identifier: GPL-2.0
/*
 * The test switches (testhooks.h): the environment read once, and the
 * fault injection of the debug guest's fault runs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testhooks.h"
#include "util.h"

static struct testhooks hooks;
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void hooks_read(void)
{
	hooks.no_format_lost = getenv("PERF_RING_NO_FORMAT_LOST") != NULL;
	hooks.no_memlimit = getenv("PERF_RING_NO_MEMLIMIT") != NULL;
	hooks.no_idle_flush = getenv("PERF_RING_NO_IDLE_FLUSH") != NULL;
	hooks.synth = getenv("PERF_RING_SYNTH");
	hooks.make_it_fail = getenv("PERF_RING_MAKE_IT_FAIL");
	hooks.bidleak = getenv("PERF_RING_BIDLEAK");
}

const struct testhooks *testhooks(void)
{
	pthread_once(&hooks_once, hooks_read);
	return &hooks;
}

/*
 * PERF_RING_MAKE_IT_FAIL (the debug guest's fault injection, with
 * task-filter): "1" lets the kernel's injected failures hit perf-ring from
 * the opening of its events on, "running" only once the recording runs
 * (the reading loop, the writer, the snapshots).  Every thread of
 * perf-ring's is marked (threads started later inherit the mark), not the
 * command, which is forked before, and not the exec that started
 * perf-ring.  It is off again for the final report, so that the message
 * saying what failed is not itself lost to an injected failure of its
 * write.
 *
 * The make-it-fail files of the threads marked, kept open: turning the
 * injection off must not depend on allocations (opening files) that the
 * injection may fail.  Threads started later inherit the mark; they are
 * gone (joined) or idle by the final report.
 */
static int mark_fd[64];
static int mark_nfd;

static int mark_tasks(void)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;
	int err = 0;

	if (!dir)
		return -errno;
	/* every file opened first: once this thread is marked, opens may fail */
	while ((de = readdir(dir)) && mark_nfd < (int)ARRAY_SIZE(mark_fd)) {
		char path[sizeof(de->d_name) + 32];
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/make-it-fail", de->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			err = -errno;
		else
			mark_fd[mark_nfd++] = fd;
	}
	closedir(dir);
	for (int i = 0; i < mark_nfd; i++)
		if (pwrite(mark_fd[i], "1", 1, 0) != 1 && errno != ESRCH)
			err = -errno;
	return err;
}

static int unmark_tasks(void)
{
	int err = 0;

	for (int i = 0; i < mark_nfd; i++) {
		/* the write may itself be failed by the injection: try again */
		int tries = 8;

		while (pwrite(mark_fd[i], "0", 1, 0) != 1 && errno != ESRCH && --tries)
			;
		if (!tries)
			err = -errno;	/* ESRCH: that thread is gone */
		close(mark_fd[i]);
	}
	mark_nfd = 0;
	return err;
}

void inject_faults(enum faults_at at)
{
	const char *mode = testhooks()->make_it_fail;
	int err;

	if (!mode || (at != FAULTS_OFF && (at == FAULTS_RUNNING) != !strcmp(mode, "running")))
		return;
	err = at == FAULTS_OFF ? unmark_tasks() : mark_tasks();
	if (err)
		fprintf(stderr, "perf-ring record: PERF_RING_MAKE_IT_FAIL: /proc/self/task/*/make-it-fail: %s\n",
			strerror(-err));
}
