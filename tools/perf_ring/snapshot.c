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

static u64 read_counter(int fd)
{
	u64 v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * A snapshot: copy every CPU buffer (ring_bwd_snapshot), then keep one
 * complete window of time.  A buffer that has wrapped lost everything
 * before its oldest record; records of other CPUs older than that would
 * sit next to a hole, so the window starts at the newest of the oldest
 * timestamps of the wrapped buffers.
 */
int rec_take_snapshot(struct rec *r, const char *path)
{
	u64 snap_new = 0, expected = 0, t_cut = 0, copy_ns;
	size_t sz = r->o->mmap_bytes;
	long *len;
	int err = 0;

	if (!r->scratch) {
		r->scratch = malloc(sz);
		r->snap = malloc(sz * r->nrings);
		r->cnt_prev = calloc(r->nfds, sizeof(u64));
		r->ring_seen = calloc(r->nrings, sizeof(bool));
		r->ring_last_head = calloc(r->nrings, sizeof(u64));
		r->snap_head = calloc(r->nrings, sizeof(u64));
		if (!r->scratch || !r->snap || !r->cnt_prev || !r->ring_seen ||
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
	/* counters: samples generated up to now */
	for (int i = 0; i < r->nfds && !err; i++) {
		struct pf_event *ev = &r->evs[r->fds[i].ev];
		u64 v = read_counter(r->fds[i].fd);

		if (!ev->attr.freq && ev->attr.sample_period)
			expected += (v - r->cnt_prev[i]) / ev->attr.sample_period;
		r->cnt_prev[i] = v;
	}
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
		for (long q = pos; q < len[i];) {
			struct perf_event_header h;

			memcpy(&h, p + q, sizeof(h));
			if ((u64)(len[i] - q) <= new_bytes && h.type == PERF_RECORD_SAMPLE)
				snap_new++;
			q += h.size;
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

		r->deficit = d;
		r->run_overwritten += interval;
		r->snap_overwritten = interval;
		r->run_unique += snap_new;
		if (!r->o->quiet)
			fprintf(stderr, "[ perf-ring: snapshot %s: %llu records, %llu new samples, "
				"%llu overwritten since the last snapshot ]\n",
				path, (unsigned long long)r->cnt.total,
				(unsigned long long)snap_new, (unsigned long long)interval);
		if (r->o->verbose)
			fprintf(stderr, "perf-ring record: snapshot: buffers copied in %.1f us%s\n",
				copy_ns / 1e3, r->o->snapshot_pause ? " (paused)" : "");
	}
	if (err && !r->fail)
		rec_fail(r, err, "snapshot '%s': %s", path, strerror(-err));
	return rec_file_close(r, NULL) ?: err;
}
