// SPDX-License-Identifier: GPL-2.0
/*
 * The snapshot stage (snapshot.h): one complete time window out of the
 * copied backward buffers (or every buffer whole, the window's start
 * marked), and the count of what was overwritten between two snapshots.
 *
 * For events with a fixed period, the counters say how many samples were
 * written, exactly (see Documentation/admin-guide/perf-ring.rst).  For
 * frequency-sampled events they do not, so that part is estimated from
 * bytes per buffer (ring_bwd_overwritten_est()): the head moved down by
 * what was written, and what of it this snapshot does not keep was
 * overwritten.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

int snapshot_init(struct snap *st, int nrings)
{
	memset(st, 0, sizeof(*st));
	st->rings = calloc(nrings, sizeof(*st->rings));
	if (!st->rings)
		return -ENOMEM;
	st->nrings = nrings;
	return 0;
}

int snapshot_fds(struct snap *st, int nfds)
{
	struct snap_counter *c;

	if (nfds <= st->nctr)
		return 0;
	c = realloc(st->ctr, nfds * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + st->nctr, 0, (nfds - st->nctr) * sizeof(*c));
	st->ctr = c;
	st->nctr = nfds;
	return 0;
}

void snapshot_free(struct snap *st)
{
	free(st->rings);
	free(st->ctr);
	memset(st, 0, sizeof(*st));
}

static u16 rec_size(const char *rec)
{
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	return h.size;
}

static u16 rec_type(const char *rec)
{
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	return h.type;
}

/* The time of the oldest timed record of a copy, 0 when none has one. */
static u64 oldest_time(const struct snap_copy *c, u64 sample_type)
{
	u64 t = 0;

	for (u64 pos = 0; pos < c->len && !t; pos += rec_size(c->data + pos))
		t = record_time(c->data + pos, sample_type);
	return t;
}

u64 snapshot_cut(const struct snap_copy *c, int n, u64 sample_type)
{
	u64 cut = 0;

	for (int i = 0; i < n; i++) {
		u64 t;

		/* the copy holds everything written since the start */
		if (!c[i].len || c[i].len >= ring_dist(0, c[i].head))
			continue;
		t = oldest_time(&c[i], sample_type);
		if (t > cut)
			cut = t;
	}
	return cut;
}

void snapshot_window(const struct snap_copy *c, int n, u64 sample_type, enum snap_window w,
		     struct snap_result *r)
{
	r->t_common = snapshot_cut(c, n, sample_type);
	r->t_cut = w == SNAP_WINDOW_WHOLE ? 0 : r->t_common;
}

void snapshot_counter(struct snap *st, int i, const struct pf_event *ev, const u64 v[2],
		      struct snap_result *r)
{
	struct snap_counter *b = &st->ctr[i];
	u64 dropped = v[1] - b->lost;

	r->lost += dropped;
	if (snap_ev_exact(ev)) {
		u64 made = (v[0] - b->count) / ev->attr.sample_period;

		r->expected += made > dropped ? made - dropped : 0;
	}
	b->count = v[0];
	b->lost = v[1];
}

/*
 * Is this sample of an event whose samples the counters count exactly?
 * Only asked when the buffers hold both kinds.
 */
static bool sample_exact(const struct snap_events *ev, const char *rec)
{
	u64 st = ev->sample_type, id;
	size_t off = sizeof(struct perf_event_header);
	int e;

	if (!(st & PERF_SAMPLE_IDENTIFIER)) {
		if (!(st & PERF_SAMPLE_ID))
			return false;
		off += 8 * !!(st & PERF_SAMPLE_IP) + 8 * !!(st & PERF_SAMPLE_TID) +
		       8 * !!(st & PERF_SAMPLE_TIME) + 8 * !!(st & PERF_SAMPLE_ADDR);
	}
	if (off + 8 > rec_size(rec))
		return false;
	memcpy(&id, rec + off, sizeof(id));
	e = idmap_find(ev->idmap, id);
	return e >= 0 && snap_ev_exact(&ev->evs[e]);
}

/* Which count a record goes to: 0 fixed-period sample, 1 other sample, -1 none. */
static int sample_kind(const struct snap_events *ev, const char *rec)
{
	if (rec_type(rec) != PERF_RECORD_SAMPLE)
		return -1;
	return ev->have_exact && (!ev->have_freq || sample_exact(ev, rec)) ? 0 : 1;
}

/*
 * Where the window starts in a copy: its records are oldest first, so
 * what lies before t_cut is a prefix.  Untimed records go with what
 * follows them.
 */
static u64 window_start(const struct snap_copy *c, u64 t_cut, u64 sample_type)
{
	u64 pos = 0, start = 0;

	while (pos < c->len) {
		u64 t = record_time(c->data + pos, sample_type);

		if (t && t >= t_cut)
			break;
		pos += rec_size(c->data + pos);
		if (t)
			start = pos;
	}
	return start;
}

/* The records of one copy newer than the last snapshot: copied [0], kept [1]. */
struct new_recs {
	u64 bytes[2];
	u64 n[2][2];		/* [copied, kept][fixed-period, frequency] */
};

static void count_new(const struct snap_events *ev, const struct snap_copy *c,
		      struct new_recs *nr)
{
	memset(nr, 0, sizeof(*nr));
	/* the newest records are at the end: the last c->written bytes */
	for (u64 q = 0; q < c->len; q += rec_size(c->data + q)) {
		int k;

		if (c->len - q > c->written)
			continue;
		k = sample_kind(ev, c->data + q);
		for (int w = 0; w < 2; w++) {
			if (w && q < c->start)
				break;
			nr->bytes[w] += rec_size(c->data + q);
			if (k >= 0)
				nr->n[w][k]++;
		}
	}
}

void snapshot_account(struct snap *st, const struct snap_events *ev, struct snap_copy *c,
		      int n, struct snap_result *r)
{
	for (int i = 0; i < n; i++) {
		struct snap_ring *sr = &st->rings[i];
		struct new_recs nr;

		c[i].start = window_start(&c[i], r->t_cut, ev->sample_type);
		c[i].written = snap_ring_written(sr, c[i].head);
		count_new(ev, &c[i], &nr);
		c[i].kept = nr.bytes[1];
		c[i].new_exact = nr.n[1][0];
		/* every new record copied, and none before the window's start */
		c[i].complete = c[i].written <= c[i].len && nr.bytes[0] == nr.bytes[1];
		c[i].read = false;
		r->new_exact += nr.n[1][0];
		r->new_all += nr.n[1][0] + nr.n[1][1];
		r->written += c[i].written;
		r->kept += c[i].kept;
		/*
		 * The share of each kind in the bytes: this copy's new
		 * records, plus the earlier ones at half weight per snapshot.
		 * One copy alone holds at most a buffer, and with small
		 * buffers the mix of samples and side-band records in it
		 * varies a lot; the earlier ones steady it, and still give
		 * way when the mix changes.  A copy with nothing new goes by
		 * the earlier ones alone.
		 */
		sr->est_seen = sr->est_seen / 2 + nr.bytes[0];
		sr->est_n[0] = sr->est_n[0] / 2 + nr.n[0][0];
		sr->est_n[1] = sr->est_n[1] / 2 + nr.n[0][1];
		sr->seen = true;
		sr->last_head = c[i].head;
	}
}

void snapshot_overwritten(struct snap *st, const struct snap_events *ev,
			  const struct snap_copy *c, int n, struct snap_result *r)
{
	u64 d, counted = 0;

	for (int i = 0; i < n; i++) {
		struct snap_ring *sr = &st->rings[i];

		/* new samples count against the counters that made them: when read */
		if (c[i].read) {
			counted += sr->unread + c[i].new_exact;
			sr->unread = 0;
		} else {
			sr->unread += c[i].new_exact;
		}
		if (ev->have_freq)
			r->est += ring_bwd_overwritten_est(c[i].written, c[i].kept, sr->est_seen,
							   sr->est_n[1]);
		if (ev->have_exact)
			r->est_exact += ring_bwd_overwritten_est(c[i].written, c[i].kept,
								 sr->est_seen, sr->est_n[0]);
	}
	/*
	 * The counters are read after the copy: a sample written between the
	 * two is counted, not copied, and is new in the next snapshot.  So
	 * the shortfall (made less new) is taken over the run, and each
	 * snapshot is charged what it grew by; the last snapshot, with the
	 * events disabled, makes the total exact.
	 */
	st->exp_cum += r->expected;
	st->new_cum += counted;
	d = st->exp_cum > st->new_cum ? st->exp_cum - st->new_cum : 0;
	r->interval = d > st->deficit ? d - st->deficit : 0;
	st->deficit = d;
	r->overwritten = r->interval + r->est;
}
