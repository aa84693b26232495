/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the records go.  The record loop waits, reads and serves requests
 * through this one interface, and two sinks implement it:
 *
 *   streaming (sink-stream.c)       forward buffers read as they fill, into
 *                                   the current file; a switch starts the
 *                                   next file
 *   flight recorder (sink-flight.c) backward overwrite buffers left to the
 *                                   kernel; a switch is a snapshot of them
 *
 * Data flows one way: rings -> sink -> output file (output.h) -> writer.
 */
#ifndef PERF_RING_SINK_H
#define PERF_RING_SINK_H

#include "evlist.h"
#include "output.h"
#include "trigger.h"

struct sink;

/* What the options ask of a sink; record.c builds it from its options. */
struct sink_opts {
	const char *output;	/* -o: the file, or the name the time stamps follow */
	u64 mmap_bytes;		/* data area per buffer */
	u64 mmap_flush;		/* --mmap-flush: the least a streaming read takes */
	/*
	 * Files are named by time (OUTPUT.YYYYmmddHHMMSSmmm) from the first
	 * one on.  With --control alone, only once a switch or snapshot is
	 * asked for: a run that only enables and disables writes OUTPUT, as
	 * perf does.
	 */
	bool stamped;
	bool control;		/* --control */
	bool switching;		/* files switch, or snapshots are asked for */
	bool snapshot_pause;	/* --snapshot-pause */
	bool snapshot_whole;	/* --snapshot-window=whole */
	u64 switch_size;	/* --switch-output=SIZE, bytes; 0: off */
	bool quiet, verbose;
};

struct sink_ops {
	/* Before the targets run: create the output, or check that it can be. */
	int (*start)(struct sink *s);
	/*
	 * Until there is something to read, one of the triggers' fds is
	 * readable, or timeout_ms passed; a signal cuts it short.  The
	 * triggers' revents are left in tfd.  0, or 1 when there was
	 * something to read at once and nothing was polled (the revents
	 * are 0 then, and say nothing), or a negative errno.
	 */
	int (*wait)(struct sink *s, struct pollfd *tfd, int ntfd, int timeout_ms);
	/* Read what is due, keep the metadata fresh. */
	int (*read)(struct sink *s);
	/* Serve a request: REQ_SWITCH; done_path names the file it finished. */
	int (*serve)(struct sink *s, const struct req *r);
	/* Bytes recorded since the last switch, for --switch-output=SIZE. */
	u64 (*progress)(struct sink *s);
	/* The end, the events disabled: save what the buffers hold when keep. */
	void (*finish)(struct sink *s, bool keep);
	void (*free)(struct sink *s);
};

struct sink {
	const struct sink_ops *ops;
	const struct sink_opts *o;
	struct evlist *el;
	struct out_file *out;
	const struct pbuf *synth;	/* what every file starts with */
	char done_path[4096];		/* the file the last switch finished */
	/* for the summary, over the run */
	bool snapshots;			/* files are snapshots; overwritten is counted */
	u64 lost;			/* records the kernel dropped */
	u64 overwritten;
	bool ow_estimated;		/* part of overwritten estimated from bytes */
	u64 unique;			/* distinct samples over the snapshots */
	/* per ring: the newest record time read from it; NULL: not read */
	const u64 *ring_newest;
};

/* o is the caller's, and lives as long as the sink. */
struct sink *sink_stream_new(const struct sink_opts *o, struct evlist *el,
			     struct out_file *out, struct pbuf *synth);
struct sink *sink_flight_new(const struct sink_opts *o, struct evlist *el,
			     struct out_file *out, struct pbuf *synth);

/* The output cannot take more: stop recording. */
static inline bool sink_failed(struct sink *s)
{
	return out_failed(s->out);
}

#endif
