/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Triggers: each source turns its input into a request on one queue, which
 * the record loop serves.  A trigger does not know what a request does to
 * files or buffers: that is the sink's business (sink.h).
 *
 *   SIGUSR2                 switch (--switch-output=signal)
 *   SIGINT, SIGTERM, SIGHUP stop
 *   timer                   switch every --switch-output=TIME
 *   size                    switch once the sink's progress reaches
 *                           --switch-output=SIZE
 *   control fd or fifo      enable, disable, snapshot (a switch), stop,
 *                           ping, status; each is acknowledged on the ack
 *                           fd.  Without an ack fd, a bad command is said
 *                           on stderr at most once a second, and counted.
 *   event                   switch when --switch-output-event's event
 *                           writes a sample into its own buffers: read
 *                           here, at once, with no signal in between
 *
 * A switch is served --snapshot-delay after it was asked for, and switches
 * asked for closer together than --snapshot-min-interval are merged into
 * one (and counted).
 */
#ifndef PERF_RING_TRIGGER_H
#define PERF_RING_TRIGGER_H

#include <poll.h>
#include <stdbool.h>
#include "ring.h"
#include "util.h"

enum req_kind {
	REQ_SWITCH,		/* streaming: the next file; flight recorder: a snapshot */
	REQ_STOP,		/* end the recording */
	REQ_ENABLE,		/* enable the events */
	REQ_DISABLE,		/* disable them */
};

struct req {
	enum req_kind kind;
	const char *from;	/* the source, for messages */
	u64 ns;			/* when the source saw it (CLOCK_MONOTONIC) */
	u64 due;		/* when to serve it */
	int acks;		/* control commands it answers */
};

#define REQ_QUEUE 32

/*
 * What "status" answers besides what the triggers know themselves (their
 * start, the last switch): the record loop fills it when asked
 * (triggers.status), so that triggers know nothing of files or buffers.
 */
struct ctl_status {
	u64 files;		/* files (snapshots) finished */
	u64 bytes;		/* bytes of them on disk */
	u64 lost;		/* records the kernel dropped */
	u64 overwritten;	/* flight recorder: records overwritten */
	bool snapshots;		/* files are snapshots; overwritten is counted */
	bool ow_estimated;	/* part of overwritten estimated from bytes */
};

struct triggers {
	struct req q[REQ_QUEUE];
	int nq;
	bool on_signal;
	bool stop_queued;
	u64 time_ns, next_time;	/* timer */
	u64 size;		/* size: switch at this progress */
	bool size_queued;
	u64 delay_ns, min_interval_ns;
	u64 last_switch_ns;	/* when the last switch was served */
	char last_path[4096];	/* and the file it finished */
	const char *last_from;	/* and the source that asked for it */
	u64 start_ns;		/* triggers_init(): for the uptime */
	void (*status)(void *ctx, struct ctl_status *st);	/* NULL: none */
	void *status_ctx;
	u64 said_ns;		/* no ack fd: when an error was last said */
	u64 unsaid;		/* ... and the errors not said since */
	int ctl_fd, ack_fd;	/* control: -1 when none */
	bool ctl_fifo;		/* opened here (closed at the end) */
	char line[256];		/* a partial command */
	size_t line_len;
	bool line_long;		/* the current line did not fit: refused */
	const struct time_range *ranges;	/* -D ranges: enable at each start, */
	int nranges, edge;	/* disable at each end; edge: the next of 2 * nranges */
	u64 ranges_t0;
	struct ring *ev_rings;	/* --switch-output-event's buffers */
	int nev_rings;
	char *ev_buf;
	/* counts for the summary */
	u64 switches, merged, dropped, bad_cmds, events;
};

/* What the options ask of the triggers; record.c builds it from its options. */
struct trigger_opts {
	bool on_signal;		/* --switch-output[=signal]: SIGUSR2 switches */
	u64 time_ms;		/* --switch-output=TIME; 0: off */
	u64 size;		/* --switch-output=SIZE, bytes; 0: off */
	u64 delay_ms;		/* --snapshot-delay */
	u64 min_interval_ms;	/* --snapshot-min-interval */
	const char *control;	/* --control=fifo:CTL[,ACK] | fd:CTL[,ACK]; NULL: none */
};

/* Signal handlers and the sources the options ask for; -errno with a message kept (fail.h). */
int triggers_init(struct triggers *t, const struct trigger_opts *o);
/* Watch the trigger events' buffers (evlist.h: trig_rings). */
int triggers_watch(struct triggers *t, struct ring *rings, int n);
/*
 * Turn what the sources saw since the last call into requests.  progress
 * is the sink's count of bytes since its last switch (for the size trigger).
 */
void triggers_poll(struct triggers *t, u64 progress);
/* The oldest request that is due, false when there is none. */
bool triggers_next(struct triggers *t, struct req *r);
/* With stop: every request left, due or not. */
bool triggers_drain(struct triggers *t, struct req *r);
/* A request was served: err, and the file it finished (switch), for the acks. */
void triggers_done(struct triggers *t, const struct req *r, int err, const char *path);
/* How long until the next request falls due, in ms, at most max_ms. */
int triggers_timeout(const struct triggers *t, int max_ms);
/* The fds to wait on (the control fd, the event buffers); returns how many. */
int triggers_pollfds(const struct triggers *t, struct pollfd *pfd, int max);
/*
 * After the wait, with the fds triggers_pollfds() gave and their revents:
 * an event buffer whose tasks have all exited (POLLHUP) is not polled again.
 */
void triggers_revents(struct triggers *t, const struct pollfd *pfd, int n);
void triggers_close(struct triggers *t);
/* The signal that asked to stop, 0 if none did. */
int triggers_stop_signal(void);
/* A SIGCHLD arrived since the start. */
bool triggers_child_exited(void);

/* -D: enable the events ms from now. */
void triggers_enable_at(struct triggers *t, long ms);
/*
 * -D START-END,...: enable the events at each range's start and disable
 * them at its end, in ms from now; ranges is kept (not copied).
 */
void triggers_enable_ranges(struct triggers *t, const struct time_range *ranges, int n);

/*
 * Parse one control command into *kind; -EINVAL if it is not one.  *ping
 * (and *status) are set for the commands the triggers answer themselves;
 * status may be NULL (then "status" is a ping).
 */
int ctl_parse(const char *line, enum req_kind *kind, bool *ping, bool *status);

#endif
