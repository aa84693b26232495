/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Triggers: each source turns its input into a request on one queue, which
 * the record loop serves.  A trigger does not know what a request does to
 * files or buffers: that is the sink's business (sink.h).
 *
 * Sources today: SIGUSR2 (a switch, with --switch-output=signal) and
 * SIGINT/SIGTERM/SIGHUP (stop).
 */
#ifndef PERF_RING_TRIGGER_H
#define PERF_RING_TRIGGER_H

#include <stdbool.h>
#include "util.h"

enum req_kind {
	REQ_SWITCH,		/* streaming: the next file; flight recorder: a snapshot */
	REQ_STOP,		/* end the recording */
};

struct req {
	enum req_kind kind;
	const char *from;	/* the source, for messages */
	u64 ns;			/* when the source saw it (CLOCK_MONOTONIC) */
};

#define REQ_QUEUE 32

struct triggers {
	struct req q[REQ_QUEUE];
	unsigned int head, tail;
	u64 dropped;		/* requests that found the queue full */
	bool on_signal;		/* --switch-output=signal */
	bool stop_queued;
};

/* Install the signal handlers; SIGUSR2 asks for a switch when on_signal. */
void triggers_init(struct triggers *t, bool on_signal);
/* Turn what the sources saw since the last call into requests. */
void triggers_poll(struct triggers *t);
/* The oldest request, false when there is none. */
bool triggers_next(struct triggers *t, struct req *r);
/* The signal that asked to stop, 0 if none did. */
int triggers_stop_signal(void);
/* A SIGCHLD arrived since the start. */
bool triggers_child_exited(void);

#endif
