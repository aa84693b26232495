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
#include "sink.h"
#include "sideband.h"
#include "synth.h"

struct flight {
	struct sink s;
	struct sideband sb;		/* COMM, MMAP2, FORK, EXIT since the start */
	char *sb_buf;			/* a side-band buffer's records, read */
	u64 sb_lost;			/* side-band records the kernel dropped */
	char *scratch, *snap;		/* one buffer's copy; every buffer's records */
	u64 *cnt_prev;			/* counter values per fd at the last snapshot */
	u64 *lost_prev;			/* ... and the kernel's lost counts */
	int nprev;			/* fds they cover */
	u64 exp_cum, new_cum, deficit;
	u64 *snap_head;			/* per ring: the head of this snapshot */
	bool *ring_seen;		/* ... taken before */
	u64 *ring_last_head;		/* ... and the head then */
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

/* Sampled with a fixed period: counter / period counts its samples. */
static bool ev_exact(const struct pf_event *ev)
{
	return !ev->attr.freq && ev->attr.sample_period;
}

/*
 * Is this sample of an event whose samples the counters count exactly?
 * Only asked when the run has both kinds.
 */
static bool sample_exact(const struct evlist *el, const char *rec)
{
	u64 st = el->sample_type, id;
	struct perf_event_header h;
	size_t off = sizeof(h);
	int e;

	memcpy(&h, rec, sizeof(h));
	if (!(st & PERF_SAMPLE_IDENTIFIER)) {
		if (!(st & PERF_SAMPLE_ID))
			return false;
		off += 8 * !!(st & PERF_SAMPLE_IP) + 8 * !!(st & PERF_SAMPLE_TID) +
		       8 * !!(st & PERF_SAMPLE_TIME) + 8 * !!(st & PERF_SAMPLE_ADDR);
	}
	if (off + 8 > h.size)
		return false;
	memcpy(&id, rec + off, sizeof(id));
	e = idmap_find(&el->idmap, id);
	return e >= 0 && ev_exact(&el->evs[e]);
}

/*
 * A snapshot: copy every CPU buffer (ring_bwd_snapshot), then keep one
 * complete window of time.  A buffer whose copy does not go back to its
 * first record (it wrapped, or the writes during the copy made the oldest
 * part untrusted) lost everything before its oldest record kept; records
 * of other CPUs older than that would sit next to a hole, so the window
 * starts at the newest of the oldest timestamps of those buffers.
 *
 * What was overwritten since the last snapshot: for events with a fixed
 * period, the counters say how many samples were written, exactly (see
 * Documentation/admin-guide/perf-ring.rst).  For frequency-sampled events
 * they do not, so that part is estimated from bytes per buffer
 * (ring_bwd_overwritten_est()): the head moved down by what was written,
 * and what of it this snapshot does not keep was overwritten.
 */
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
	fl->ring_seen = calloc(nrings, sizeof(bool));
	fl->ring_last_head = calloc(nrings, sizeof(u64));
	fl->snap_head = calloc(nrings, sizeof(u64));
	if (!fl->scratch || !fl->snap || !fl->ring_seen || !fl->ring_last_head ||
	    !fl->snap_head)
		return -ENOMEM;
	memset(fl->scratch, 0, sz);
	memset(fl->snap, 0, sz * nrings);
	return 0;
}

static int take_snapshot(struct flight *fl, const char *path)
{
	struct sink *s = &fl->s;
	struct evlist *el = s->el;
	struct out_file *f = s->out;
	u64 snap_new = 0, snap_new_all = 0, expected = 0, lost_new = 0, t_cut = 0, copy_ns;
	u64 est = 0, est_exact = 0, b_written = 0, b_kept = 0, ow_snap = 0;
	size_t sz = s->o->mmap_bytes;
	bool have_exact = false, have_freq = false, opened = false;
	long *len;
	u64 *heads;
	int err = 0;

	for (int e = 0; e < el->nev; e++) {
		if (e == el->sb_ev || (e >= el->trig_first && e < el->trig_first + el->trig_nr))
			continue;	/* not in these buffers */
		if (ev_exact(&el->evs[e]))
			have_exact = true;
		else if (el->evs[e].attr.freq)
			have_freq = true;
	}

	if (!fl->scratch && snap_buffers(fl))
		return -ENOMEM;
	/* per fd; a CPU that came back brings new fds (evlist_reopen_cpu()) */
	if (fl->nprev < el->nfds) {
		u64 *c = realloc(fl->cnt_prev, el->nfds * sizeof(u64));
		u64 *l = c ? realloc(fl->lost_prev, el->nfds * sizeof(u64)) : NULL;

		if (c)
			fl->cnt_prev = c;
		if (!l)
			return -ENOMEM;
		fl->lost_prev = l;
		memset(c + fl->nprev, 0, (el->nfds - fl->nprev) * sizeof(u64));
		memset(l + fl->nprev, 0, (el->nfds - fl->nprev) * sizeof(u64));
		fl->nprev = el->nfds;
	}
	len = calloc(el->nrings, sizeof(*len));
	heads = calloc(el->nrings, sizeof(*heads));
	if (!len || !heads) {
		free(len);
		free(heads);
		return -ENOMEM;
	}
	/*
	 * Every head first, then the copies: each copy holds what its buffer
	 * had when the heads were read, so the window ends at one moment for
	 * all CPUs.  Copied one after another from their own heads, a buffer
	 * copied late would hold records newer than the end of one copied
	 * early, and a task that moved between the two would show a hole.
	 */
	for (int i = 0; i < el->nrings; i++)
		heads[i] = ring_head(&el->rings[i]);
	copy_ns = now_ns();
	for (int i = 0; i < el->nrings; i++) {
		struct ring *rg = &el->rings[i];
		struct bwd_snap bs;
		char *dst = fl->snap + i * sz;

		len[i] = ring_bwd_snapshot(rg, fl->scratch, dst, sz, s->o->snapshot_pause, heads[i],
					   &bs);
		if (len[i] < 0) {
			err = (int)len[i];
			break;
		}
		fl->snap_head[i] = bs.head;
		/*
		 * The copy does not reach back to the first record written:
		 * the buffer wrapped, or what the kernel wrote during the copy
		 * (and the margin) made its oldest part untrusted.  Either way
		 * its window starts at its oldest record kept.
		 */
		if (bs.bytes < ring_dist(0, bs.head) && len[i] > 0) {
			u64 t = 0;

			for (long pos = 0; pos < len[i] && !t;) {
				struct perf_event_header h;

				memcpy(&h, dst + pos, sizeof(h));
				t = record_time(dst + pos, el->sample_type);
				pos += h.size;
			}
			if (t > t_cut)
				t_cut = t;
		}
	}
	copy_ns = now_ns() - copy_ns;
	/*
	 * After the copy: a copied sample's COMM and MMAP2 were written
	 * before it, so they are in the side-band buffers by now.
	 */
	read_sideband(fl);
	/*
	 * Counters: samples generated up to now, less the records the kernel
	 * dropped because the buffer was paused (--snapshot-pause): those are
	 * lost, not overwritten.  A tracking event's dropped side-band records
	 * count there too; they are few, and the difference is clamped at 0.
	 */
	for (int i = 0; i < el->nfds && !err; i++) {
		struct pf_event *ev = &el->evs[el->fds[i].ev];
		u64 v[2], dropped;

		if (!efd_recorded(&el->fds[i]))
			continue;	/* not in the snapshot's buffers */
		if (evlist_read_count(el, el->fds[i].fd, v))
			continue;	/* keep the previous values */
		dropped = v[1] - fl->lost_prev[i];
		lost_new += dropped;
		if (ev_exact(ev)) {
			u64 made = (v[0] - fl->cnt_prev[i]) / ev->attr.sample_period;

			expected += made > dropped ? made - dropped : 0;
		}
		fl->cnt_prev[i] = v[0];
		fl->lost_prev[i] = v[1];
	}
	s->lost += lost_new;
	if (!err) {
		u64 raw = s->synth->len + fl->sb.log.len;

		for (int i = 0; i < el->nrings; i++)
			raw += len[i] > 0 ? len[i] : 0;
		out_expect(f, raw);
		err = out_open(f, path);
		opened = !err;
	}
	if (!err)
		err = out_emit_synth(f, s->synth, &fl->sb.log);
	for (int i = 0; i < el->nrings && !err; i++) {
		char *p = fl->snap + i * sz;
		/* bytes newer than the previous snapshot's head: at the end */
		u64 new_bytes = ring_dist(fl->ring_seen[i] ? fl->ring_last_head[i] : 0,
					  fl->snap_head[i]);
		long pos = 0, keep = 0;

		/* drop what lies before the window (oldest first, so a prefix) */
		while (pos < len[i]) {
			struct perf_event_header h;
			u64 t = record_time(p + pos, el->sample_type);

			memcpy(&h, p + pos, sizeof(h));
			if (t && t >= t_cut)
				break;
			/* untimed records go with what follows them */
			pos += h.size;
			if (t)
				keep = pos;
		}
		pos = keep;
		{
			struct ring *rg = &el->rings[i];
			/* new records: copied [0], and kept, i.e. from pos on [1] */
			u64 bytes[2] = { 0 }, n[2][2] = { { 0 } };

			for (long q = 0; q < len[i];) {
				struct perf_event_header h;
				int k = -1;

				memcpy(&h, p + q, sizeof(h));
				if ((u64)(len[i] - q) > new_bytes) {
					q += h.size;
					continue;
				}
				if (h.type == PERF_RECORD_SAMPLE)
					k = have_exact && (!have_freq || sample_exact(el, p + q)) ? 0 : 1;
				bytes[0] += h.size;
				if (k >= 0)
					n[0][k]++;
				if (q >= pos) {
					bytes[1] += h.size;
					if (k >= 0)
						n[1][k]++;
				}
				q += h.size;
			}
			snap_new += n[1][0];
			snap_new_all += n[1][0] + n[1][1];
			b_written += new_bytes;
			b_kept += bytes[1];
			/*
			 * The share of each kind in the bytes: this copy's new
			 * records, plus the earlier ones at half weight per
			 * snapshot.  One copy alone holds at most a buffer, and
			 * with small buffers the mix of samples and side-band
			 * records in it varies a lot; the earlier ones steady
			 * it, and still give way when the mix changes.  A copy
			 * with nothing new goes by the earlier ones alone.
			 */
			rg->est_seen = rg->est_seen / 2 + bytes[0];
			rg->est_n[0] = rg->est_n[0] / 2 + n[0][0];
			rg->est_n[1] = rg->est_n[1] / 2 + n[0][1];
			if (have_freq)
				est += ring_bwd_overwritten_est(new_bytes, bytes[1], rg->est_seen,
								rg->est_n[1]);
			if (have_exact)
				est_exact += ring_bwd_overwritten_est(new_bytes, bytes[1],
								      rg->est_seen, rg->est_n[0]);
		}
		fl->ring_seen[i] = true;
		fl->ring_last_head[i] = fl->snap_head[i];
		err = out_emit(f, p + pos, len[i] - pos);
	}
	free(len);
	free(heads);
	if (!err)
		err = out_emit_round(f);
	fl->exp_cum += expected;
	fl->new_cum += snap_new;
	{
		u64 d = fl->exp_cum > fl->new_cum ? fl->exp_cum - fl->new_cum : 0;
		u64 interval = d > fl->deficit ? d - fl->deficit : 0;
		char ow[128], lost[48] = "";

		if (lost_new)
			snprintf(lost, sizeof(lost), ", %llu lost", (unsigned long long)lost_new);
		fl->deficit = d;
		s->overwritten += interval + est;
		ow_snap = interval + est;
		s->ow_estimated |= have_freq;
		s->unique += snap_new_all;
		/* exact when it comes from the counters only */
		if (!have_freq)
			snprintf(ow, sizeof(ow), "%llu overwritten", (unsigned long long)interval);
		else if (!have_exact)
			snprintf(ow, sizeof(ow), "~%llu overwritten (estimated from bytes)",
				 (unsigned long long)est);
		else
			snprintf(ow, sizeof(ow), "~%llu overwritten (%llu exact, ~%llu estimated from bytes)",
				 (unsigned long long)(interval + est), (unsigned long long)interval,
				 (unsigned long long)est);
		/* a snapshot refused before its file was opened has no line */
		if (!s->o->quiet && opened)
			fprintf(stderr, "[ perf-ring: snapshot %s: %llu records, %llu new samples, "
				"%s%s since the last snapshot ]\n",
				path, (unsigned long long)f->cnt.total,
				(unsigned long long)snap_new_all, ow, lost);
		if (s->o->verbose) {
			fprintf(stderr, "perf-ring record: snapshot: buffers copied in %.1f us%s\n",
				copy_ns / 1e3, s->o->snapshot_pause ? " (paused)" : "");
			fprintf(stderr, "perf-ring record: snapshot: %llu bytes written since the last "
				"snapshot, %llu of them kept, with %llu fixed-period and %llu "
				"frequency samples",
				(unsigned long long)b_written, (unsigned long long)b_kept,
				(unsigned long long)snap_new,
				(unsigned long long)(snap_new_all - snap_new));
			if (have_exact)
				fprintf(stderr, "; fixed-period samples overwritten: %llu from the "
					"counters, ~%llu from bytes", (unsigned long long)interval,
					(unsigned long long)est_exact);
			fprintf(stderr, "\n");
		}
	}
	if (err)
		fail_set(err, "snapshot '%s': %s", path, strerror(-err));
	return out_close(f, ow_snap, NULL) ?: err;
}

/* Check the output location now, not at the first snapshot. */
static int flight_start(struct sink *s)
{
	const char *path = s->o->output;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	} else if (errno == EEXIST) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	if (fd < 0)
		return fail_set(-errno, "cannot create output '%s': %s", path, strerror(errno));
	if (snap_buffers((struct flight *)s))
		return fail_set(-ENOMEM, "the snapshot buffers (%llu bytes): %s",
				(unsigned long long)s->o->mmap_bytes * (s->el->nrings + 1),
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

	for (int i = 0; i < s->el->nrings; i++) {
		u64 prev = fl->ring_seen && fl->ring_seen[i] ? fl->ring_last_head[i] : 0;

		sum += ring_dist(prev, ring_head(&s->el->rings[i]));
	}
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
	out_name_stamped(s->o->output, path, sizeof(path));
	snprintf(s->done_path, sizeof(s->done_path), "%s", path);
	return take_snapshot(fl, path);
}

static void flight_finish(struct sink *s, bool keep)
{
	char path[4096];

	if (!keep)
		return;
	if (record_switching(s->o))
		out_name_stamped(s->o->output, path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s", s->o->output);
	take_snapshot((struct flight *)s, path);
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
	free(fl->cnt_prev);
	free(fl->lost_prev);
	free(fl->snap_head);
	free(fl->ring_seen);
	free(fl->ring_last_head);
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

struct sink *sink_flight_new(const struct record_opts *o, struct evlist *el,
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
