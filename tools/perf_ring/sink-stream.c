// SPDX-License-Identifier: GPL-2.0
/*
 * The streaming sink: forward buffers, read as they fill, into the current
 * file.  A switch closes it and opens the next one (--switch-output).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "sink.h"
#include "sideband.h"
#include "synth.h"
#include "testhooks.h"

struct stream {
	struct sink s;
	struct sideband sb;		/* for the files after a switch */
	struct pollfd *pfd;		/* the rings' and the triggers' */
	int npfd;
	u64 round_bytes;		/* cnt.bytes at the last FINISHED_ROUND */
	/* per ring, of what was read from it */
	u64 *lost;			/* lost, as its LOST records said */
	u64 *newest;			/* the newest record time, any type */
	bool plain;			/* the file has OUTPUT's own name (--control) */
	u64 *ls_prev;			/* per fd: its lost count in earlier files */
	int nls_prev;
};

/*
 * An error while reading.  When the writer failed, the chunk it did not
 * give is the symptom, and closing the file reports the cause.
 */
static int read_err(struct sink *s, int err)
{
	if (err == -EIO && sink_failed(s))
		return err;
	return fail_set(err, "reading the ring buffers: %s", strerror(-err));
}

/* Side-band records counted so far in the current file. */
static u64 nr_sideband(const struct pf_counts *c)
{
	return c->nr[PERF_RECORD_COMM] + c->nr[PERF_RECORD_MMAP] + c->nr[PERF_RECORD_MMAP2] +
	       c->nr[PERF_RECORD_FORK] + c->nr[PERF_RECORD_EXIT];
}

static int drain_ring(struct sink *s, int i, bool all)
{
	struct stream *st = (struct stream *)s;
	struct ring *rg = &s->el->rings[i];
	struct out_file *f = s->out;

	for (;;) {
		u64 avail = ring_fwd_avail(rg), sb;
		size_t room;
		char *dst;
		long n;

		if (!avail || (!all && avail < s->o->mmap_flush))
			return 0;
		dst = out_space(f, sizeof(struct perf_event_header) * 64, &room);
		if (!dst)
			return -EIO;
		/* the one walk over the records is out_commit()'s */
		n = ring_fwd_read_unwalked(rg, dst, room);
		if (n < 0)
			return n;
		if (n == 0) {	/* next record does not fit: new chunk */
			if (!out_space(f, CHUNK_SIZE, &room))
				return -EIO;
			continue;
		}
		sb = nr_sideband(out_counts(f));
		if (out_commit(f, n))
			return -EBADMSG;
		/* rare: a walk only when the chunk held some */
		if (nr_sideband(out_counts(f)) != sb)
			sideband_scan(&st->sb, dst, n);
		if (out_counts(f)->walk_newest > st->newest[i])
			st->newest[i] = out_counts(f)->walk_newest;
	}
}

static int read_one(struct sink *s, int i, bool all)
{
	u64 lost = out_counts(s->out)->lost;
	int err = drain_ring(s, i, all);

	((struct stream *)s)->lost[i] += out_counts(s->out)->lost - lost;
	return err;
}

/*
 * One pass over all buffers.  A FINISHED_ROUND goes out after a pass once
 * ROUND_BYTES were read since the last one (and at the end): perf needs
 * one after complete passes only, and each one costs a zstd flush.
 */
#define ROUND_BYTES (1u << 20)

static int read_round(struct stream *st, bool all)
{
	struct sink *s = &st->s;
	int err;

	for (int i = 0; i < s->el->nrings; i++) {
		err = read_one(s, i, all);
		if (err)
			return err;
	}
	if (out_counts(s->out)->bytes - st->round_bytes < (all ? 1 : ROUND_BYTES))
		return 0;
	/*
	 * A FINISHED_ROUND lets perf sort and flush every record older than
	 * the newest one it had at the previous FINISHED_ROUND: nothing that
	 * old may come after it.  --mmap-flush can leave a little in a
	 * buffer for many passes, so read every buffer out first.
	 */
	if (!all && s->o->mmap_flush > 1) {
		for (int i = 0; i < s->el->nrings; i++) {
			err = read_one(s, i, true);
			if (err)
				return err;
		}
	}
	err = out_emit_round(s->out);
	st->round_bytes = out_counts(s->out)->bytes;
	return err;
}

/* Ring i's LOST record for what the kernel counted past its LOST records. */
static int emit_lost(struct stream *st, int i, const struct efd *first, u64 counted,
		     u64 newest, u32 idh)
{
	struct {
		struct perf_event_header h;
		u64 id, lost;
		char sid[64];
	} rec = { 0 };
	const struct evlist *el = st->s.el;
	u64 *p = (u64 *)rec.sid;

	if (!first || counted <= st->lost[i])
		return 0;
	rec.h.type = PERF_RECORD_LOST;
	rec.h.size = offsetof(typeof(rec), sid) + idh;
	rec.id = first->id;
	rec.lost = counted - st->lost[i];
	/* sample_id: TID, TIME, ID, CPU, in the order of sample_type */
	if (el->sample_type & PERF_SAMPLE_TID) {
		u32 pt[2] = { -1, -1 };

		memcpy(p++, pt, 8);
	}
	if (el->sample_type & PERF_SAMPLE_TIME)
		*p++ = newest;
	if (el->sample_type & PERF_SAMPLE_ID)
		*p++ = first->id;
	if (el->sample_type & PERF_SAMPLE_CPU) {
		u32 cr[2] = { first->cpu, 0 };

		memcpy(p++, cr, 8);
	}
	if (out_emit(st->s.out, &rec, rec.h.size))
		return -EIO;
	st->lost[i] = counted;
	return 0;
}

/*
 * The kernel counts every record it could not write in the event's
 * lost_samples, and reports the loss in a PERF_RECORD_LOST that goes out
 * with the next record written to that buffer.  When the buffer was still
 * full as recording stopped, no record came next: that loss is reported
 * here, after the last read, as the LOST record the kernel would have
 * written (the difference between the events' counts and the buffer's
 * LOST records), so perf and the summary count it.
 */
static int emit_unreported_lost(struct stream *st)
{
	struct sink *s = &st->s;
	const struct evlist *el = s->el;
	u32 idh = synth_id_hdr_size(el->sample_type);
	u64 newest = 0, *counted = calloc(el->nrings ?: 1, sizeof(*counted));
	const struct efd **first = calloc(el->nrings ?: 1, sizeof(*first));
	int err = counted && first ? evlist_rings_lost(el, counted, first) : -ENOMEM;

	if (err == -EOPNOTSUPP)
		err = 0;	/* no PERF_FORMAT_LOST: the LOST records are all there is */
	else if (!err) {
		/*
		 * The records' time: the newest read from any buffer.  A
		 * buffer's own newest can be far older (its CPU went quiet
		 * after the loss), older than what perf sorted and flushed at
		 * an earlier FINISHED_ROUND, and perf would call the record
		 * out of order.
		 */
		for (int i = 0; i < el->nrings; i++)
			if (st->newest[i] > newest)
				newest = st->newest[i];
		for (int i = 0; i < el->nrings && !err; i++)
			err = emit_lost(st, i, first[i], counted[i], newest, idh);
	}
	free(counted);
	free(first);
	return err;
}

/*
 * perf record's PERF_RECORD_LOST_SAMPLES (record__read_lost_samples()):
 * per recorded fd, the records the kernel could not write (its
 * PERF_FORMAT_LOST count), those since the previous file.  perf report
 * sums them into "Total Lost Samples", and --stats per event.  Time 0, as
 * perf writes them: delivered as they come, not sorted.
 */
static int emit_lost_samples(struct stream *st)
{
	const struct evlist *el = st->s.el;

	if (!el->lost_fmt)
		return 0;
	if (st->nls_prev < el->nfds) {
		u64 *p = realloc(st->ls_prev, el->nfds * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + st->nls_prev, 0, (el->nfds - st->nls_prev) * sizeof(*p));
		st->ls_prev = p;
		st->nls_prev = el->nfds;
	}
	for (int i = 0; i < el->nfds; i++) {
		const struct efd *f = &el->fds[i];
		struct {
			struct perf_event_header h;
			u64 lost;
			u64 sid[4];
		} rec = { .h.type = PERF_RECORD_LOST_SAMPLES };
		u64 v[2], *p = rec.sid;

		if (!efd_recorded(f) || evlist_read_count(el, f->fd, v) || v[1] <= st->ls_prev[i])
			continue;
		rec.lost = v[1] - st->ls_prev[i];
		st->ls_prev[i] = v[1];
		/* sample_id: TID, TIME, ID, CPU, in the order of sample_type */
		if (el->sample_type & PERF_SAMPLE_TID)
			*p++ = 0;
		if (el->sample_type & PERF_SAMPLE_TIME)
			*p++ = 0;
		if (el->sample_type & PERF_SAMPLE_ID)
			*p++ = f->id;
		if (el->sample_type & PERF_SAMPLE_CPU)
			*p++ = (u32)f->cpu;
		rec.h.size = (char *)p - (char *)&rec;
		if (out_emit(st->s.out, &rec, rec.h.size))
			return -EIO;
	}
	return 0;
}

static int open_file(struct stream *st, const char *path)
{
	struct sink *s = &st->s;
	int err = out_open(s->out, path);

	st->round_bytes = 0;
	/* after a switch, what the earlier files said about the threads */
	return err ?: out_emit_synth(s->out, s->synth, &st->sb.log);
}

static int stream_start(struct sink *s)
{
	char path[4096];

	if (s->o->stamped && !out_streams(s->o->output))
		out_name_stamped(s->o->output, path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s", s->o->output);
	((struct stream *)s)->plain = s->o->control && !out_streams(s->o->output) &&
				      !s->o->stamped;
	/*
	 * Files that switch start with the side-band store: take its bound
	 * now, so that the memory does not grow as it fills (sideband.h).
	 */
	if (s->o->switching && sideband_reserve(&((struct stream *)s)->sb))
		return fail_set(-ENOMEM, "the side-band store (%u bytes): %s", SIDEBAND_MAX,
				strerror(ENOMEM));
	return open_file((struct stream *)s, path);
}

static int stream_wait(struct sink *s, struct pollfd *tfd, int ntfd, int timeout_ms)
{
	/*
	 * Skip the wait while a buffer is filling faster than we read: when
	 * one holds what poll() would wake up for, the wakeup_watermark.  Not
	 * below --mmap-flush, which read_round() waits for: with a stopped
	 * CPU's buffer short of it, that would spin.
	 */
	const struct sink_opts *o = s->o;
	u64 busy = o->mmap_bytes / 8 > o->mmap_flush ? o->mmap_bytes / 8 : o->mmap_flush;
	struct stream *st = (struct stream *)s;
	int nfd = s->el->nrings, n;

	if (evlist_max_avail(s->el) >= busy)
		return 1;
	/* the rings' slots, then the triggers' */
	if (nfd + ntfd > st->npfd) {
		struct pollfd *p = realloc(st->pfd, (nfd + ntfd) * sizeof(*p));

		if (!p)
			return fail_set(-ENOMEM, "waiting: %s", strerror(ENOMEM));
		st->pfd = p;
		st->npfd = nfd + ntfd;
	}
	memcpy(st->pfd, s->el->pfd, nfd * sizeof(*st->pfd));
	for (int i = 0; i < nfd; i++)
		if (s->el->rings[i].hup)
			st->pfd[i].fd = -1;	/* poll() skips it */
	memcpy(st->pfd + nfd, tfd, ntfd * sizeof(*st->pfd));
	n = poll(st->pfd, nfd + ntfd, timeout_ms < 100 ? timeout_ms : 100);
	if (n < 0 && errno != EINTR)
		return read_err(s, -errno);
	for (int i = 0; n > 0 && i < nfd; i++)
		ring_revents(&s->el->rings[i], st->pfd[i].revents);
	for (int i = 0; i < ntfd; i++)
		tfd[i].revents = n > 0 ? st->pfd[nfd + i].revents : 0;
	return 0;
}

/*
 * Twice a second what was read goes to the file, however slowly
 * it comes: a recorder killed with SIGKILL loses about half a second,
 * and report --recover gets the rest back.
 */
#define DURABLE_NS 500000000ULL

/*
 * PERF_RING_NO_IDLE_FLUSH=1 turns it off: the benchmark (part 9) measures
 * what it costs the recorded program against that.
 */
static u64 durable_ns(void)
{
	return testhooks()->no_idle_flush ? ~0ULL : DURABLE_NS;
}

static int stream_read(struct sink *s)
{
	int err = read_round((struct stream *)s, false);

	if (err)
		return read_err(s, err);
	out_flush_idle(s->out, durable_ns());
	return 0;
}

static int stream_serve(struct sink *s, const struct req *r)
{
	struct stream *st = (struct stream *)s;
	char path[4096];
	int err;

	if (r->kind != REQ_SWITCH)
		return 0;
	err = read_round(st, true);
	if (err)
		return read_err(s, err);
	err = emit_lost_samples(st);
	if (err)
		return read_err(s, err);
	/* the first switch of a --control run: OUTPUT becomes a stamped file too */
	if (st->plain) {
		out_name_stamped(s->o->output, path, sizeof(path));
		err = out_rename(s->out, path);
		if (err)
			fprintf(stderr, "perf-ring record: warning: cannot rename '%s' to '%s': %s\n",
				out_path(s->out), path, strerror(-err));
		st->plain = false;
	}
	snprintf(s->done_path, sizeof(s->done_path), "%s", out_path(s->out));
	err = out_close(s->out, NULL, NULL);
	if (err)
		return err;
	out_name_stamped(s->o->output, path, sizeof(path));
	err = open_file(st, path);
	if (!err && !s->o->quiet)
		fprintf(stderr, "[ perf-ring record: switched to %s ]\n", out_path(s->out));
	return err;
}

static u64 stream_progress(struct sink *s)
{
	return out_bytes(s->out);
}

static void stream_finish(struct sink *s, bool keep)
{
	int err = 0;

	if (keep && !sink_failed(s))
		err = read_round((struct stream *)s, true);
	if (keep && !err && !sink_failed(s))
		err = emit_unreported_lost((struct stream *)s);
	if (keep && !err && !sink_failed(s))
		err = emit_lost_samples((struct stream *)s);
	if (err)
		read_err(s, err);
	out_close(s->out, NULL, NULL);
	s->lost = out_totals(s->out)->lost;
}

static void stream_free(struct sink *s)
{
	struct stream *st = (struct stream *)s;

	sideband_free(&st->sb);
	free(st->pfd);
	free(st->lost);
	free(st->newest);
	free(st->ls_prev);
	free(st);
}

static const struct sink_ops stream_ops = {
	.start = stream_start,
	.wait = stream_wait,
	.read = stream_read,
	.serve = stream_serve,
	.progress = stream_progress,
	.finish = stream_finish,
	.free = stream_free,
};

struct sink *sink_stream_new(const struct sink_opts *o, struct evlist *el,
			     struct out_file *out, struct pbuf *synth)
{
	struct stream *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->lost = calloc(el->nrings ?: 1, sizeof(*st->lost));
	st->newest = calloc(el->nrings ?: 1, sizeof(*st->newest));
	if (!st->lost || !st->newest) {
		free(st->lost);
		free(st->newest);
		free(st);
		return NULL;
	}
	st->s = (struct sink){
		.ops = &stream_ops, .o = o, .el = el, .out = out, .synth = synth,
		.ring_newest = st->newest,
	};
	sideband_init(&st->sb, el->sample_type, SIDEBAND_MAX);
	return &st->s;
}
