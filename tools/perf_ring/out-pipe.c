// SPDX-License-Identifier: GPL-2.0
/*
 * perf's pipe format on standard output (out-format.h): the header,
 * attributes, features and tracing data as records ahead of the data
 * (pf_build_pipe_head()).  Nothing can be written back later, so what
 * only the end knows is left out or sent last.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compress.h"
#include "fail.h"
#include "out-format.h"
#include "output.h"
#include "tracing.h"

static int pipe_open(struct out_target *t, const char *path)
{
	struct pf_meta meta = {
		.argc = t->o->argc, .argv = t->o->argv,
		.tracefs = tracefs_path(),
	};
	struct pbuf b = { 0 };
	int err;

	(void)path;
	snprintf(t->path, sizeof(t->path), "standard output");
	if (isatty(STDOUT_FILENO))
		return fail_set(-EINVAL, "-o -: standard output is a terminal; "
				"redirect it to a file or a pipe (perf script -i -)");
	t->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (t->fd < 0)
		return fail_set(-errno, "standard output: %s", strerror(errno));
	if (t->o->level) {
		meta.comp.on = true;
		meta.comp.level = t->o->level;
		meta.comp.mmap_len = COMP_MMAP_LEN;
	}
	err = pf_build_pipe_head(t->el->evs, t->el->nev, &meta, &b);
	if (!err)
		err = write_full(t->fd, b.p, b.len);
	pbuf_free(&b);
	if (err)
		return fail_set(err, "writing the pipe header to standard output: %s",
				strerror(-err));
	t->data_off = 0;
	return 0;
}

/* The header went out already; the duplicate of standard output is closed. */
static void pipe_undo(struct out_target *t)
{
	close(t->fd);
	t->fd = -1;
}

/*
 * The end of a pipe recording: the build-ids as HEADER_BUILD_ID records
 * (perf's own pipe output has none; perf inject -b adds them the same
 * way).  The data before them is already on its way.
 */
static int pipe_finish(struct out_target *t, struct out_end *e)
{
	struct pbuf b = { 0 };
	int err = 0;

	if (e->werr) {
		err = fail_set(e->werr, "writing to standard output: %s", strerror(-e->werr));
	} else {
		if (e->bids)
			pf_build_pipe_buildids(e->bids, &b);
		err = b.err ?: write_full(t->fd, b.p, b.len);
		pbuf_free(&b);
		if (err)
			fail_set(err, "writing the build-ids to standard output: %s", strerror(-err));
	}
	if (close(t->fd) && !err) {
		err = -errno;
		fail_set(err, "closing '%s': %s", t->path, strerror(errno));
	}
	t->fd = -1;
	return err;
}

const struct out_format out_format_pipe = {
	.name = "pipe",
	.stream = true,
	.to_stdout = true,
	.tracing_in_head = true,
	.open = pipe_open,
	.undo = pipe_undo,
	.finish = pipe_finish,
};
