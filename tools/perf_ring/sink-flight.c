// SPDX-License-Identifier: GPL-2.0
/*
 * The flight-recorder sink: backward overwrite buffers that the kernel
 * keeps writing, snapshots of them (one complete time window each), the
 * count of what was overwritten between two snapshots, and the metadata
 * each snapshot needs to stand alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

#include "fail.h"
#include "prio.h"
#include "sink.h"
#include "sideband.h"
#include "snapshot.h"
#include "synth.h"

struct flight {
	struct sink s;
	struct sideband sb;		/* COMM, MMAP2, FORK, EXIT since the start */
	char *sb_buf;			/* a side-band buffer's records, read */
	u64 sb_lost;			/* side-band records the kernel dropped */
	char *scratch, *snap;		/* one buffer's copy; every buffer's records */
	struct snap_copy *copy;		/* per ring: this snapshot's copy */
	struct snap st;			/* what snapshots carry to the next (snapshot.h) */
};

/*
 * The side-band buffers are read into the store as they fill, and at each
 * snapshot: the COMM, MMAP2, FORK and EXIT records written since the
 * targets started, so that every snapshot names the threads and DSOs of
 * its samples, also of processes that have exited (sideband.h).
 */
static void read_sideband(struct flight *fl)
{
	struct evlist *el = fl->s.el;

	for (int i = 0; i < el->nsb_rings; i++) {
		struct ring *rg = &el->sb_rings[i];
		long n;

		while ((n = ring_fwd_read(rg, fl->sb_buf, SB_RING_BYTES)) > 0) {
			struct pf_counts c = { 0 };

			counts_walk(&c, NULL, &el->idmap, fl->sb_buf, n);
			fl->sb_lost += c.lost;
			sideband_scan(&fl->sb, fl->sb_buf, n);
		}
	}
}

/* The events whose samples are in the snapshot's buffers, and their kinds. */
static struct snap_events flight_events(const struct evlist *el)
{
	struct snap_events ev = {
		.sample_type = el->sample_type, .idmap = &el->idmap, .evs = el->evs,
	};

	for (int e = 0; e < el->nev; e++) {
		if (!role_recorded(el->evs[e].role))
			continue;	/* not in these buffers */
		if (snap_ev_exact(&el->evs[e]))
			ev.have_exact = true;
		else if (el->evs[e].attr.freq)
			ev.have_freq = true;
	}
	return ev;
}

/*
 * The buffers a snapshot is copied into, taken and touched at the start:
 * under a memory limit, pages first touched by a snapshot's copy would be
 * charged at the moment the snapshot is wanted, and a limit lowered
 * meanwhile would meet the OOM killer there.  Touched now, they are in
 * the start's memory check (out_mem_need()) and stay charged.
 */
static int snap_buffers(struct flight *fl)
{
	size_t sz = fl->s.o->mmap_bytes;
	int nrings = fl->s.el->nrings;

	fl->scratch = malloc(sz);
	fl->snap = malloc(sz * nrings);
	fl->copy = calloc(nrings, sizeof(*fl->copy));
	if (!fl->scratch || !fl->snap || !fl->copy ||
	    (!fl->st.rings && snapshot_init(&fl->st, nrings)) || sideband_reserve(&fl->sb))
		return -ENOMEM;
	memset(fl->scratch, 0, sz);
	memset(fl->snap, 0, sz * nrings);
	return 0;
}

/*
 * Every head first, then the copies: each copy holds what its buffer had
 * when the heads were read, so the window ends at one moment for all
 * CPUs.  Copied one after another from their own heads, a buffer copied
 * late would hold records newer than the end of one copied early, and a
 * task that moved between the two would show a hole.
 */
static int copy_buffers(struct flight *fl)
{
	const struct evlist *el = fl->s.el;
	size_t sz = fl->s.o->mmap_bytes;

	memset(fl->copy, 0, el->nrings * sizeof(*fl->copy));
	for (int i = 0; i < el->nrings; i++)
		fl->copy[i].head = ring_head(&el->rings[i]);
	for (int i = 0; i < el->nrings; i++) {
		struct snap_copy *c = &fl->copy[i];
		char *dst = fl->snap + i * sz;
		struct bwd_snap bs;
		long n;

		n = ring_bwd_snapshot(&el->rings[i], fl->scratch, dst, sz,
				      fl->s.o->snapshot_pause, c->head, &bs);
		if (n < 0)
			return (int)n;
		*c = (struct snap_copy){ .data = dst, .len = n, .head = bs.head };
	}
	return 0;
}

/*
 * Counters: samples generated up to now, less the records the kernel
 * dropped because the buffer was paused (--snapshot-pause): those are
 * lost, not overwritten.  A tracking event's dropped side-band records
 * count there too; they are few, and the difference is clamped at 0.
 * After snapshot_account(): the fds of a buffer whose copy is complete
 * are not read, unless the kernel may have dropped records into it or
 * this is the last snapshot (snapshot.h).
 */
static int read_counters(struct flight *fl, struct snap_result *r, bool last)
{
	const struct evlist *el = fl->s.el;
	bool all = last || fl->s.o->snapshot_pause;

	/* per fd; a CPU that came back brings new fds (evlist_reopen_cpu()) */
	if (snapshot_fds(&fl->st, el->nfds))
		return -ENOMEM;
	for (int i = 0; i < el->nfds; i++) {
		struct snap_copy *c;
		u64 v[2];

		if (!efd_recorded(&el->fds[i]))
			continue;	/* not in the snapshot's buffers */
		c = &fl->copy[el->fds[i].ring];
		if (c->complete && !all)
			continue;
		c->read = true;
		if (evlist_read_count(el, el->fds[i].fd, v))
			continue;	/* keep the previous values */
		snapshot_counter(&fl->st, i, &el->evs[el->fds[i].ev], v, r);
	}
	return 0;
}

/* The file: metadata, each buffer's part of the window, a round. */
static int write_snapshot(struct flight *fl, const char *path, bool *opened)
{
	struct out_file *f = fl->s.out;
	int n = fl->s.el->nrings, err;
	u64 raw = fl->s.synth->len + fl->sb.log.len;

	for (int i = 0; i < n; i++)
		raw += fl->copy[i].len;
	out_expect(f, raw);
	err = out_open(f, path);
	if (err)
		return err;
	*opened = true;
	err = out_emit_synth(f, fl->s.synth, &fl->sb.log);
	if (err)
		return err;
	for (int i = 0; i < n && !err; i++) {
		const struct snap_copy *c = &fl->copy[i];

		err = out_emit(f, c->data + c->start, c->len - c->start);
	}
	return err ?: out_emit_round(f);
}

/* The count of what was overwritten, exact when from the counters only. */
static void overwritten_text(char *buf, size_t len, const struct snap_events *ev,
			     const struct snap_result *r)
{
	if (!ev->have_freq)
		snprintf(buf, len, "%llu overwritten", (unsigned long long)r->interval);
	else if (!ev->have_exact)
		snprintf(buf, len, "~%llu overwritten (estimated from bytes)",
			 (unsigned long long)r->est);
	else
		snprintf(buf, len, "~%llu overwritten (%llu exact, ~%llu estimated from bytes)",
			 (unsigned long long)r->overwritten, (unsigned long long)r->interval,
			 (unsigned long long)r->est);
}

/* -v: the copy's time, and the bytes and samples behind the counts. */
static void report_verbose(const struct flight *fl, const struct snap_events *ev,
			   const struct snap_result *r, u64 copy_ns)
{
	fprintf(stderr, "perf-ring record: snapshot: buffers copied in %.1f us%s\n",
		copy_ns / 1e3, fl->s.o->snapshot_pause ? " (paused)" : "");
	fprintf(stderr, "perf-ring record: snapshot: %llu bytes written since the last "
		"snapshot, %llu of them kept, with %llu fixed-period and %llu "
		"frequency samples",
		(unsigned long long)r->written, (unsigned long long)r->kept,
		(unsigned long long)r->new_exact,
		(unsigned long long)(r->new_all - r->new_exact));
	if (ev->have_exact)
		fprintf(stderr, "; fixed-period samples overwritten: %llu from the "
			"counters, ~%llu from bytes", (unsigned long long)r->interval,
			(unsigned long long)r->est_exact);
	fprintf(stderr, "\n");
}

/* The snapshot's line; a snapshot refused before its file was opened has none. */
static void report_snapshot(const struct flight *fl, const char *path,
			    const struct snap_events *ev, const struct snap_result *r,
			    bool opened, bool whole)
{
	char ow[128], lost[48] = "", win[80] = "";

	if (fl->s.o->quiet || !opened)
		return;
	if (r->lost)
		snprintf(lost, sizeof(lost), ", %llu lost", (unsigned long long)r->lost);
	if (fl->s.o->snapshot_whole && r->t_common)
		snprintf(win, sizeof(win), "; whole buffers, common window from %llu.%09llu",
			 (unsigned long long)(r->t_common / 1000000000ULL),
			 (unsigned long long)(r->t_common % 1000000000ULL));
	else if (fl->s.o->snapshot_whole)
		snprintf(win, sizeof(win), "; whole buffers, none wrapped");
	overwritten_text(ow, sizeof(ow), ev, r);
	/* not all on file (a full disk): what was taken, and that the error follows */
	fprintf(stderr, "[ perf-ring: snapshot %s: %s%llu records, %llu new samples, "
		"%s%s since the last snapshot%s ]\n",
		path, whole ? "" : "not written whole (the error is said at the end): taken ",
		(unsigned long long)out_counts(fl->s.out)->total,
		(unsigned long long)r->new_all, ow, lost, win);
}

/*
 * A snapshot: copy every CPU buffer (ring_bwd_snapshot()), keep one
 * complete window of time, or every buffer whole with the window's start
 * in the file (snapshot_window()), count what is new in it
 * (snapshot_account()), read the counters it needs, write it, and say
 * what was overwritten since the last one (snapshot_overwritten()).
 * last: the recording's end, the events disabled.
 */
static int take_snapshot(struct flight *fl, const char *path, bool last)
{
	struct snap_events ev = flight_events(fl->s.el);
	struct snap_result r = { 0 };
	struct out_snap snap;
	bool opened = false, whole = false;
	u64 copy_ns;
	int err = 0;

	if (!fl->st.rings && snap_buffers(fl))
		return -ENOMEM;
	copy_ns = now_ns();
	err = copy_buffers(fl);
	copy_ns = now_ns() - copy_ns;
	/* after the copy: a copied sample's COMM and MMAP2 are in by now */
	read_sideband(fl);
	if (!err) {
		snapshot_window(fl->copy, fl->s.el->nrings, ev.sample_type,
				fl->s.o->snapshot_whole ? SNAP_WINDOW_WHOLE : SNAP_WINDOW_COMMON,
				&r);
		snapshot_account(&fl->st, &ev, fl->copy, fl->s.el->nrings, &r);
		err = read_counters(fl, &r, last);
	}
	fl->s.lost += r.lost;
	/*
	 * The copy is the reader's, ahead of the workload; writing and
	 * compressing it is a worker's (prio.h), in this thread: the writer
	 * runs in its caller (out_open()).
	 */
	prio_yield();
	if (!err)
		err = write_snapshot(fl, path, &opened);
	snapshot_overwritten(&fl->st, &ev, fl->copy, fl->s.el->nrings, &r);
	fl->s.overwritten += r.overwritten;
	fl->s.ow_estimated |= ev.have_freq;
	fl->s.unique += r.new_all;
	if (err)
		fail_set(err, "snapshot '%s': %s", path, strerror(-err));
	snap = (struct out_snap){
		.overwritten = r.overwritten, .whole = fl->s.o->snapshot_whole,
		.window_start = r.t_common,
	};
	/*
	 * The writer stays for the next snapshot, and its buffers, mapped
	 * apart from the heap, give their pages back at the close
	 * (writer_trim()): between snapshots the recorder holds the copies
	 * it takes at the start and the writer's fixed part.
	 */
	err = out_close(fl->s.out, &snap, &whole) ?: err;
	prio_resume();
	/* the name it took (out_name_stamp()) */
	if (opened)
		snprintf(fl->s.done_path, sizeof(fl->s.done_path), "%s", out_path(fl->s.out));
	report_snapshot(fl, opened ? fl->s.done_path : path, &ev, &r, opened, whole && !err);
	if (fl->s.o->verbose)
		report_verbose(fl, &ev, &r, copy_ns);
	return err;
}

/* Check the output location now, not at the first snapshot (out_check()). */
static int flight_start(struct sink *s)
{
	int err = out_check(s->o->output);

	if (err)
		return err;
	if (snap_buffers((struct flight *)s))
		return fail_set(-ENOMEM, "the snapshot buffers (%llu bytes): %s",
				(unsigned long long)s->o->mmap_bytes * (s->el->nrings + 1) +
				SIDEBAND_MAX,
				strerror(ENOMEM));
	return 0;
}

/*
 * The kernel keeps the buffers: there is nothing to read until a request.
 * Only a --switch-output=SIZE trigger needs the heads looked at, and an
 * overwritable buffer wakes no one when it fills: look every 10 ms then,
 * so that a fast writer gets about one file per SIZE; every 50 ms else.
 */
static int flight_wait(struct sink *s, struct pollfd *tfd, int ntfd, int timeout_ms)
{
	int tick = s->o->switch_size ? 10 : 50;

	if (poll(tfd, ntfd, timeout_ms < tick ? timeout_ms : tick) < 0 && errno != EINTR)
		return fail_set(-errno, "waiting: %s", strerror(errno));
	return 0;
}

/* What the kernel wrote since the last snapshot: the heads moved down by it. */
static u64 flight_progress(struct sink *s)
{
	struct flight *fl = (struct flight *)s;
	u64 sum = 0;

	if (!fl->st.rings)
		return 0;	/* not started */
	for (int i = 0; i < s->el->nrings; i++)
		sum += snap_ring_written(&fl->st.rings[i], ring_head(&s->el->rings[i]));
	return sum;
}

static int flight_read(struct sink *s)
{
	read_sideband((struct flight *)s);
	return 0;
}

static int flight_serve(struct sink *s, const struct req *r)
{
	struct flight *fl = (struct flight *)s;
	char path[4096];

	if (r->kind != REQ_SWITCH)
		return 0;
	out_name_stamp(s->o->output, path, sizeof(path));
	snprintf(s->done_path, sizeof(s->done_path), "%s", path);
	return take_snapshot(fl, path, false);
}

static void flight_finish(struct sink *s, bool keep)
{
	char path[4096];

	if (!keep)
		return;
	if (s->o->stamped || out_totals(s->out)->nfiles)
		out_name_stamp(s->o->output, path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s", s->o->output);
	take_snapshot((struct flight *)s, path, true);
}

static void flight_free(struct sink *s)
{
	struct flight *fl = (struct flight *)s;

	if (s->o->verbose || fl->sb_lost || fl->sb.dropped)
		fprintf(stderr, "perf-ring record: side-band: %llu records kept, %llu dropped to "
			"stay within %zu kB, %llu lost by the kernel\n",
			(unsigned long long)fl->sb.added - fl->sb.dropped,
			(unsigned long long)fl->sb.dropped, fl->sb.max >> 10,
			(unsigned long long)fl->sb_lost);
	sideband_free(&fl->sb);
	free(fl->sb_buf);
	free(fl->scratch);
	free(fl->snap);
	free(fl->copy);
	snapshot_free(&fl->st);
	free(fl);
}

static const struct sink_ops flight_ops = {
	.start = flight_start,
	.wait = flight_wait,
	.read = flight_read,
	.serve = flight_serve,
	.progress = flight_progress,
	.finish = flight_finish,
	.free = flight_free,
};

struct sink *sink_flight_new(const struct sink_opts *o, struct evlist *el,
			     struct out_file *out, struct pbuf *synth)
{
	struct flight *fl = calloc(1, sizeof(*fl));

	if (!fl)
		return NULL;
	fl->s = (struct sink){
		.ops = &flight_ops, .o = o, .el = el, .out = out, .synth = synth,
		.snapshots = true,
	};
	sideband_init(&fl->sb, el->sample_type, SIDEBAND_MAX);
	fl->sb_buf = malloc(SB_RING_BYTES);
	if (!fl->sb_buf) {
		free(fl);
		return NULL;
	}
	return &fl->s;
}
