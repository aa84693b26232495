/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The formats a recording is written in, one file each: out-file.c, the
 * seekable perf.data (a header written again at the end, the feature
 * sections after the data), and out-pipe.c, perf's pipe format on
 * standard output (everything the reader needs ahead of the data, nothing
 * written back).  output.c owns the recording's state (the chunks, the
 * counts, the build-ids, the memory checks, the files kept) and calls a
 * format only to create its output, to lay out or write what goes after
 * the data, and to rename it.  A format sees the file through struct out_target
 * and nothing else of output.c's.  It does not include output.h (the
 * two would import each other): a format reads struct out_opts through
 * output.h, included beside this header.
 *
 * A new format is one more file defining a struct out_format, and its
 * name in out_format_for().
 */
#ifndef PERF_RING_OUT_FORMAT_H
#define PERF_RING_OUT_FORMAT_H

#include <stdbool.h>

#include "pbuf.h"
#include "perfdata.h"
#include "util.h"

struct evlist;
struct out_opts;
struct pbuf;
struct pf_meta;
struct writer;

/* The open output, as its format sees it. */
struct out_target {
	const struct out_opts *o;
	const struct evlist *el;
	int fd;
	char path[4096];	/* its name, as messages give it */
	u64 data_off;		/* where the writer starts */
	bool partial;		/* written under a temporary name (out-file.c) */
	/*
	 * partial: the header that goes before the data, for the writer to
	 * write with the first data (writer_set_head()); empty when written
	 */
	struct pbuf head;
	/* seal(): the feature sections, for the writer to write with the last data */
	struct pbuf tail;
	u64 features[PF_FEAT_BITS / 64];	/* the bits of those in tail */
};

/* What the end of a file knows: the format's last words. */
struct out_end {
	u64 data_size;		/* on file, whole records (writer_finish()) */
	int werr;		/* the writer's first error; the format may add its own */
	struct pf_meta *meta;	/* what goes into the feature sections */
	const struct pbuf *bids;	/* HEADER_BUILD_ID's body, or NULL */
	const struct writer *w;	/* where the data may be cut (writer_boundary_before()) */
	/*
	 * seal() laid out the end for sealed_size bytes of data, and the
	 * writer wrote it with the data (writer_tail_written()).
	 * head_with_tail: the final header was laid out to go with it (the
	 * first was still waiting for the data), so it is on file only when
	 * tail_written is.
	 */
	u64 sealed_size;
	bool tail_written, head_with_tail;
};

struct out_format {
	const char *name;
	/* one stream written in order: no seeking, no renaming, no next file */
	bool stream;
	/* it goes to standard output (a command run beside must not write there) */
	bool to_stdout;
	/* open() reads the tracepoint formats itself (out_prepare() does not) */
	bool tracing_in_head;
	/*
	 * Create the output at path and write what comes before the data:
	 * t->fd, t->path and t->data_off are set.  Nothing is left behind
	 * on a failure.  0 or negative errno (fail_set()).
	 */
	int (*open)(struct out_target *t, const char *path);
	/* After open(), the writer did not start: no output left behind. */
	void (*undo)(struct out_target *t);
	/*
	 * The writer finished: write what follows the data, close t->fd.
	 * e->werr is reported here, once.  Returns the format's own first
	 * error (fail_set()), 0 when all of it is on file.
	 */
	int (*finish)(struct out_target *t, struct out_end *e);
	/*
	 * Before the last data, when the writer can take it
	 * (writer_size_with()): lay out in t->tail what follows data_size
	 * bytes of data and, with head, the header that says so over
	 * t->head (its length unchanged).  false: not laid out, finish()
	 * writes it all.  NULL: never.
	 */
	bool (*seal)(struct out_target *t, const struct out_end *e, u64 data_size, bool head);
	/* The open output takes the name path (out_rename()); NULL: never. */
	int (*rename)(struct out_target *t, const char *path);
};

extern const struct out_format out_format_file, out_format_pipe;

/* The format of an output named path ("-": perf's pipe format on stdout). */
const struct out_format *out_format_for(const char *path);

#endif
