// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder: snapshots of the backward buffers, one complete
 * time window each, and the count of what was overwritten between them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/*
 * Flight recorder: the COMM and MMAP records of the targets were written
 * long before a snapshot and are overwritten by then, so every snapshot
 * carries freshly synthesized ones.  They are refreshed while the targets
 * live (at least every second, and at each snapshot), so the final
 * snapshot, taken after the workload exited, still names it.
 */
void rec_refresh_live_synth(struct rec *r, bool force)
{
	struct pbuf b = { 0 };
	struct synth_result res;
	pid_t child = r->child;
	int err;

	if (!r->o->overwrite || (!force && now_ns() - r->synth_live_ns < 1000000000ULL))
		return;
	if (r->o->workload && child <= 0)
		return;		/* gone: keep the last picture */
	if (r->o->workload)
		err = synth_threads(&child, 1, 1, r->id_hdr, &b, &res);
	else
		err = synth_threads(r->o->npids ? r->o->pids : NULL, r->o->npids,
				    r->o->synth_threads, r->id_hdr, &b, &res);
	r->synth_live_ns = now_ns();
	if (err || !res.nr_threads) {
		pbuf_free(&b);
		return;
	}
	pbuf_free(&r->synth_live);
	r->synth_live = b;
}

/* The event's count and, with PERF_FORMAT_LOST, the records it dropped. */
static int read_counter(int fd, u64 v[2])
{
	return read(fd, v, 2 * sizeof(u64)) == 2 * sizeof(u64) ? 0 : -EIO;
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
static bool sample_exact(const struct rec *r, const char *rec)
{
	u64 st = r->sample_type, id;
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
	e = idmap_find(&r->idmap, id);
	return e >= 0 && ev_exact(&r->evs[e]);
}

/*
 * A snapshot: copy every CPU buffer (ring_bwd_snapshot), then keep one
 * complete window of time.  A buffer that has wrapped lost everything
 * before its oldest record; records of other CPUs older than that would
 * sit next to a hole, so the window starts at the newest of the oldest
 * timestamps of the wrapped buffers.
 *
 * What was overwritten since the last snapshot: for events with a fixed
 * period, the counters say how many samples were written, exactly (see
 * Documentation/admin-guide/perf-ring.rst).  For frequency-sampled events
 * they do not, so that part is estimated from bytes per buffer
 * (ring_bwd_overwritten_est()): the head moved down by what was written,
 * and what of it this snapshot does not keep was overwritten.
 */
int rec_take_snapshot(struct rec *r, const char *path)
{
	u64 snap_new = 0, snap_new_all = 0, expected = 0, lost_new = 0, t_cut = 0, copy_ns;
	u64 est = 0, est_exact = 0, b_written = 0, b_kept = 0;
	size_t sz = r->o->mmap_bytes;
	bool have_exact = false, have_freq = false;
	long *len;
	int err = 0;

	for (int e = 0; e < r->nev; e++) {
		if (ev_exact(&r->evs[e]))
			have_exact = true;
		else if (r->evs[e].attr.freq)
			have_freq = true;
	}

	if (!r->scratch) {
		r->scratch = malloc(sz);
		r->snap = malloc(sz * r->nrings);
		r->cnt_prev = calloc(r->nfds, sizeof(u64));
		r->lost_prev = calloc(r->nfds, sizeof(u64));
		r->ring_seen = calloc(r->nrings, sizeof(bool));
		r->ring_last_head = calloc(r->nrings, sizeof(u64));
		r->snap_head = calloc(r->nrings, sizeof(u64));
		if (!r->scratch || !r->snap || !r->cnt_prev || !r->lost_prev || !r->ring_seen ||
		    !r->ring_last_head || !r->snap_head)
			return -ENOMEM;
	}
	len = calloc(r->nrings, sizeof(*len));
	if (!len)
		return -ENOMEM;
	copy_ns = now_ns();
	for (int i = 0; i < r->nrings; i++) {
		struct ring *rg = &r->rings[i];
		struct bwd_snap s;
		char *dst = r->snap + i * sz;

		len[i] = ring_bwd_snapshot(rg, r->scratch, dst, sz, r->o->snapshot_pause, &s);
		if (len[i] < 0) {
			err = (int)len[i];
			break;
		}
		r->snap_head[i] = s.head;
		/* wrapped: more was written than the buffer holds */
		if (0 - s.head > sz && len[i] > 0) {
			u64 t = 0;

			for (long pos = 0; pos < len[i] && !t;) {
				struct perf_event_header h;

				memcpy(&h, dst + pos, sizeof(h));
				t = record_time(dst + pos, r->sample_type);
				pos += h.size;
			}
			if (t > t_cut)
				t_cut = t;
		}
	}
	copy_ns = now_ns() - copy_ns;
	/*
	 * Counters: samples generated up to now, less the records the kernel
	 * dropped because the buffer was paused (--snapshot-pause): those are
	 * lost, not overwritten.  A tracking event's dropped side-band records
	 * count there too; they are few, and the difference is clamped at 0.
	 */
	for (int i = 0; i < r->nfds && !err; i++) {
		struct pf_event *ev = &r->evs[r->fds[i].ev];
		u64 v[2], dropped;

		if (read_counter(r->fds[i].fd, v))
			continue;	/* keep the previous values */
		dropped = v[1] - r->lost_prev[i];
		lost_new += dropped;
		if (ev_exact(ev)) {
			u64 made = (v[0] - r->cnt_prev[i]) / ev->attr.sample_period;

			expected += made > dropped ? made - dropped : 0;
		}
		r->cnt_prev[i] = v[0];
		r->lost_prev[i] = v[1];
	}
	r->run_lost_new += lost_new;
	if (!err)
		err = rec_file_open(r, path);
	if (!err)
		err = rec_emit_synth(r);
	for (int i = 0; i < r->nrings && !err; i++) {
		char *p = r->snap + i * sz;
		/* bytes newer than the previous snapshot's head: at the end */
		u64 new_bytes = r->ring_seen[i] ? r->ring_last_head[i] - r->snap_head[i]
						: 0 - r->snap_head[i];
		long pos = 0, keep = 0;

		/* drop what lies before the window (oldest first, so a prefix) */
		while (pos < len[i]) {
			struct perf_event_header h;
			u64 t = record_time(p + pos, r->sample_type);

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
			struct ring *rg = &r->rings[i];
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
					k = have_exact && (!have_freq || sample_exact(r, p + q)) ? 0 : 1;
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
		r->ring_seen[i] = true;
		r->ring_last_head[i] = r->snap_head[i];
		err = rec_emit(r, p + pos, len[i] - pos);
	}
	free(len);
	if (!err)
		err = rec_emit_round(r);
	r->exp_cum += expected;
	r->new_cum += snap_new;
	{
		u64 d = r->exp_cum > r->new_cum ? r->exp_cum - r->new_cum : 0;
		u64 interval = d > r->deficit ? d - r->deficit : 0;
		char ow[128], lost[48] = "";

		if (lost_new)
			snprintf(lost, sizeof(lost), ", %llu lost", (unsigned long long)lost_new);
		r->deficit = d;
		r->run_overwritten += interval + est;
		r->run_ow_estimated |= have_freq;
		r->snap_overwritten = interval + est;
		r->run_unique += snap_new_all;
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
		if (!r->o->quiet)
			fprintf(stderr, "[ perf-ring: snapshot %s: %llu records, %llu new samples, "
				"%s%s since the last snapshot ]\n",
				path, (unsigned long long)r->cnt.total,
				(unsigned long long)snap_new_all, ow, lost);
		if (r->o->verbose) {
			fprintf(stderr, "perf-ring record: snapshot: buffers copied in %.1f us%s\n",
				copy_ns / 1e3, r->o->snapshot_pause ? " (paused)" : "");
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
	if (err && !r->fail)
		rec_fail(r, err, "snapshot '%s': %s", path, strerror(-err));
	return rec_file_close(r, NULL) ?: err;
}
