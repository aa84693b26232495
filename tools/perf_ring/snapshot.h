/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's snapshot stage: what a snapshot keeps of the
 * copied backward buffers, and what it says about what was overwritten
 * since the one before.  Pure functions over the copies (ring.c makes
 * them: ring_bwd_snapshot()) and a small state of their own, kept from
 * one snapshot to the next; the sink (sink-flight.c) reads the heads,
 * copies, calls these in order and writes the file:
 *
 *   snapshot_window()       what it keeps: the common time window
 *                           (snapshot_cut()), or every buffer whole with
 *                           the window's start as a mark
 *   snapshot_account()      per buffer: where its part of the window
 *                           starts, its new records and bytes, the share
 *                           of each kind of sample in them, and whether
 *                           its copy holds all of them (->complete)
 *   snapshot_counter()      each recorded fd's counter, read after the
 *                           copy, of the buffers whose copy is not
 *                           complete (the sink marks them ->read)
 *   snapshot_overwritten()  the counters' interval (with the deficit
 *                           carried over) and the estimate from bytes
 *
 * Unit-tested against synthetic buffer images (tests/test-snapshot.c).
 */
#ifndef PERF_RING_SNAPSHOT_H
#define PERF_RING_SNAPSHOT_H

#include "counts.h"
#include "ring.h"

/* Per buffer, from one snapshot to the next. */
struct snap_ring {
	u64 last_head;		/* the head the last snapshot was copied at */
	bool seen;		/* a snapshot was taken before (else from head 0) */
	/*
	 * Bytes of the new records copied, and how many of them were
	 * samples of fixed-period [0] and frequency [1] events, over the
	 * snapshots, halved at each one: the share of bytes the overwritten
	 * estimate goes by (ring_bwd_overwritten_est())
	 */
	double est_seen, est_n[2];
	/*
	 * Fixed-period samples new in the snapshots since its counters were
	 * last read: they join the run's new samples when the counters that
	 * made them are read (snapshot_overwritten())
	 */
	u64 unread;
};

/* Per recorded fd: its counter and lost count at the last snapshot. */
struct snap_counter {
	u64 count, lost;
};

struct snap {
	struct snap_ring *rings;
	int nrings;
	/*
	 * Per fd, not per buffer: each fd has its own period, and a CPU that
	 * comes back brings new fds into its old buffer
	 */
	struct snap_counter *ctr;
	int nctr;
	/*
	 * Fixed-period samples over the run: made, as the counters say, and
	 * new in the snapshots; and the shortfall (made less new) at the last
	 * snapshot, the deficit.  A snapshot's interval is what the
	 * shortfall grew by: a sample in the counters but not yet in a copy
	 * counts as overwritten once, and takes itself off the next interval
	 * when it shows up as new
	 */
	u64 exp_cum, new_cum, deficit;
};

/* One buffer's copy in this snapshot: ring_bwd_snapshot()'s output. */
struct snap_copy {
	const char *data;	/* whole records, oldest first */
	u64 len;		/* their bytes */
	u64 head;		/* the head it was copied at */
	/* set by snapshot_account() */
	u64 start;		/* the window starts here: data + start is kept */
	u64 written;		/* bytes written since the last snapshot */
	u64 kept;		/* bytes of them kept */
	u64 new_exact;		/* fixed-period samples of them kept */
	/*
	 * Every record written since the last snapshot is in the copy and
	 * kept: nothing of this buffer was overwritten, and its counters
	 * need not be read (snapshot_account())
	 */
	bool complete;
	bool read;		/* set by the sink: its fds' counters were read */
};

/* What the snapshot functions need to know of the events. */
struct snap_events {
	u64 sample_type;
	const struct idmap *idmap;	/* sample id -> index in evs */
	const struct pf_event *evs;
	/* the buffers hold samples of fixed-period events, of frequency ones */
	bool have_exact, have_freq;
};

/* --snapshot-window: what a snapshot keeps of the copies. */
enum snap_window {
	SNAP_WINDOW_COMMON,	/* one window with no gap on any CPU */
	SNAP_WINDOW_WHOLE,	/* every record of every copy */
};

/* One snapshot, all buffers: what the sink prints and saves. */
struct snap_result {
	u64 t_cut;		/* records older than this are dropped */
	u64 t_common;		/* where the common window starts (snapshot_cut()) */
	u64 lost;		/* records the kernel dropped (--snapshot-pause) */
	u64 expected;		/* fixed-period samples made, as the counters say */
	u64 new_exact;		/* new fixed-period samples kept */
	u64 new_all;		/* new samples kept, of every event */
	u64 written, kept;	/* bytes written since the last snapshot, kept */
	u64 interval;		/* fixed-period samples overwritten: the counters */
	u64 est;		/* frequency samples overwritten: from bytes */
	u64 est_exact;		/* fixed-period ones from bytes (a check) */
	u64 overwritten;	/* interval + est: the file's count */
};

/* Sampled with a fixed period: counter / period counts its samples. */
static inline bool snap_ev_exact(const struct pf_event *ev)
{
	return !ev->attr.freq && ev->attr.sample_period;
}

/* Bytes written to a buffer whose head is now head, since the last snapshot. */
static inline u64 snap_ring_written(const struct snap_ring *r, u64 head)
{
	return ring_dist(r->seen ? r->last_head : 0, head);
}

int snapshot_init(struct snap *st, int nrings);
/* Room for the counters of nfds fds (more after a CPU came back). */
int snapshot_fds(struct snap *st, int nfds);
void snapshot_free(struct snap *st);

/*
 * The start of the window: a copy that does not reach back to the first
 * record written to its buffer (it wrapped, or the writes during the copy
 * made its oldest part untrusted) lost everything before its oldest
 * record; records of other buffers older than that would sit next to a
 * hole, so the window starts at the newest of those oldest times.  0: no
 * copy lost anything, everything is kept.
 */
u64 snapshot_cut(const struct snap_copy *c, int n, u64 sample_type);

/*
 * What this snapshot keeps: r->t_common is snapshot_cut(), and r->t_cut
 * the time before which records are dropped: t_common for the common
 * window, 0 for whole buffers (everything copied is kept, and t_common
 * marks where the window with no gap starts).  Before snapshot_account(),
 * which counts what is kept from r->t_cut.
 */
void snapshot_window(const struct snap_copy *c, int n, u64 sample_type, enum snap_window w,
		     struct snap_result *r);

/*
 * Counter i (an fd writing into the buffers) read after the copy: v[0] the
 * count, v[1] the records the kernel dropped (PERF_FORMAT_LOST).  Adds to
 * r->lost and r->expected: the samples made since the counter was last
 * read, less those dropped (lost, not overwritten; clamped at 0).
 *
 * A buffer whose copy is complete lost nothing to overwriting: its fds
 * need not be read, and a read of a counter on another CPU interrupts
 * that CPU (an IPI) for every fd at every snapshot.  The sink reads them
 * anyway where the kernel may drop records (--snapshot-pause) and at the
 * last snapshot, which makes the run's totals exact.
 */
void snapshot_counter(struct snap *st, int i, const struct pf_event *ev, const u64 v[2],
		      struct snap_result *r);

/*
 * Per copy: where the window starts (records before t_cut dropped; an
 * untimed record goes with what follows it), the bytes and samples
 * written since the last snapshot and kept, and whether that is all of
 * them (->complete); the estimator's history and the last head move on.
 * Adds to r.  Before the counters are read (snapshot_counter()).
 */
void snapshot_account(struct snap *st, const struct snap_events *ev, struct snap_copy *c,
		      int n, struct snap_result *r);

/*
 * After snapshot_account() and the counters: what was overwritten since
 * the last snapshot.  Fixed-period samples from the counters: r->expected
 * less the new samples of the buffers whose counters were read (with
 * those of the earlier snapshots that did not read them), less the
 * deficit carried.  Frequency ones estimated from the bytes of each
 * buffer written and not kept.
 */
void snapshot_overwritten(struct snap *st, const struct snap_events *ev,
			  const struct snap_copy *c, int n, struct snap_result *r);

#endif
