// SPDX-License-Identifier: GPL-2.0
/*
 * The snapshot stage against synthetic backward buffer images: two CPU
 * buffers written as the kernel writes them (head moving down), copied as
 * the flight recorder copies them (heads first, then each buffer, rotated
 * and walked by ring.c), then cut, accounted and counted by snapshot.c.
 * Each case checks the exact window (which records of which buffer are
 * kept) and the exact counts: new samples, bytes, the counters' interval,
 * the estimate from bytes.
 *
 * Every record carries a sequence number; timed records are at
 * 1000 + 10 * seq ns.  Samples are 48 bytes, so a wrapped 1 KiB buffer
 * holds its 21 newest (1008 bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "tap.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define RSZ 1024u		/* each buffer */
#define NRING 2
#define NFD 4
#define MAXSEQ 1024		/* records one test writes, at most */
#define S_SIZE 48		/* sample: id, ip (= seq), tid, time, padding */
#define SB_SIZE 64		/* side-band record: seq, padding, sample_id tid, time, id */
#define U_SIZE 16		/* untimed record: seq */
#define PERIOD 1000		/* the fixed-period event's */
#define ID_FIXED 101
#define ID_FREQ 102

struct tring {
	char data[RSZ];
	u64 head;
	char copy[RSZ];
};

struct tfd {
	int ev;			/* 0: fixed period, 1: frequency */
	int ring;		/* the buffer it writes into (its last sample's) */
	u64 count, lost;	/* as the kernel counts them */
	bool unreadable;	/* read() fails: keep the last values */
};

struct rig {
	struct tring r[NRING];
	u64 seq;			/* of the next record */
	int ring_of[MAXSEQ];		/* where each record went */
	struct pf_event evs[2];
	struct idmap idmap;
	struct snap_events ev;
	struct snap st;
	struct snap_copy c[NRING];
	struct tfd fd[NFD];
	int nfds;
	enum snap_window window;	/* --snapshot-window */
	struct snap_result res;
};

static u64 seq_time(u64 seq)
{
	return 1000 + 10 * seq;
}

static struct rig *rig_new(bool have_exact, bool have_freq, int nfds)
{
	static const u64 id0 = ID_FIXED, id1 = ID_FREQ;
	const u64 *ids[2] = { &id0, &id1 };
	const int nids[2] = { 1, 1 };
	struct rig *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->evs[0].attr.sample_period = PERIOD;
	g->evs[1].attr.freq = 1;
	g->evs[1].attr.sample_freq = 4000;
	if (idmap_build(&g->idmap, ids, nids, 2, ST) || snapshot_init(&g->st, NRING)) {
		free(g);
		return NULL;
	}
	g->ev = (struct snap_events){
		.sample_type = ST, .idmap = &g->idmap, .evs = g->evs,
		.have_exact = have_exact, .have_freq = have_freq,
	};
	g->nfds = nfds;
	return g;
}

static void rig_free(struct rig *g)
{
	idmap_free(&g->idmap);
	snapshot_free(&g->st);
	free(g);
}

/* The kernel's backward write: the head moves down, the record goes there. */
static void put(struct rig *g, int ring, const void *rec, u16 len)
{
	struct tring *r = &g->r[ring];

	if (g->seq >= MAXSEQ) {
		fprintf(stderr, "test-snapshot: more than %d records in one test\n", MAXSEQ);
		abort();
	}
	r->head -= len;
	for (u16 i = 0; i < len; i++)
		r->data[(r->head + i) & (RSZ - 1)] = ((const char *)rec)[i];
	g->ring_of[g->seq++] = ring;
}

/* A sample through fd (its event, its counter); dropped: counted, not written. */
static void sample(struct rig *g, int ring, int fd)
{
	struct tfd *f = &g->fd[fd];
	u64 rec[6] = {
		0, f->ev ? ID_FREQ : ID_FIXED, g->seq, 42, seq_time(g->seq), 0,
	};
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = S_SIZE };

	memcpy(rec, &h, sizeof(h));
	f->count += f->ev ? 777 : PERIOD;
	f->ring = ring;
	put(g, ring, rec, S_SIZE);
}

/* Generated while the buffer was paused: the kernel counts it and drops it. */
static void dropped(struct rig *g, int fd)
{
	g->fd[fd].count += g->fd[fd].ev ? 777 : PERIOD;
	g->fd[fd].lost++;
}

/* A timed non-sample record (COMM, MMAP2...) with its sample_id trailer. */
static void side_band(struct rig *g, int ring)
{
	u64 rec[8] = { 0, g->seq, 0, 0, 0, 42, seq_time(g->seq), ID_FIXED };
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .size = SB_SIZE };

	memcpy(rec, &h, sizeof(h));
	put(g, ring, rec, SB_SIZE);
}

/* A record without a time (too short for a sample_id trailer). */
static void untimed(struct rig *g, int ring)
{
	u64 rec[2] = { 0, g->seq };
	struct perf_event_header h = { .type = PERF_RECORD_THROTTLE, .size = U_SIZE };

	memcpy(rec, &h, sizeof(h));
	put(g, ring, rec, U_SIZE);
}

/*
 * The rig most cases start from: two counters, exact counts, and n
 * samples: every k-th (seq k - 1, 2k - 1, ...) into buffer 1 through fd
 * 1, the others into buffer 0 through fd 0.  With have_freq, fd 1 counts
 * the frequency event, whose part is estimated from bytes.
 */
static struct rig *rig_spread(bool have_freq, int n, int k)
{
	struct rig *g = rig_new(true, have_freq, 2);

	if (!g)
		return NULL;
	g->fd[1].ev = have_freq;
	for (int s = 0; s < n; s++)
		sample(g, s % k == k - 1, s % k == k - 1);
	return g;
}

/*
 * Copy buffer i as ring_bwd_snapshot() does, from the head h1 read before.
 * With torn > 0, a writer puts that many samples (through fd) into it
 * halfway through the copy; the copy's oldest part is then untrusted, by
 * what moved and a margin of two samples for records in flight.
 */
static void copy(struct rig *g, int i, u64 h1, int torn, int fd)
{
	struct tring *r = &g->r[i];
	char img[RSZ], rot[RSZ];
	struct bwd_snap bs;
	u64 valid;
	long n;

	memcpy(img, r->data, RSZ / 2);
	for (int k = 0; k < torn; k++)
		sample(g, i, fd);
	memcpy(img + RSZ / 2, r->data + RSZ / 2, RSZ / 2);
	ring_copy_rotated(img, RSZ, h1, rot);
	valid = ring_bwd_valid(RSZ, h1, r->head, torn ? 2 * S_SIZE : 0);
	n = ring_bwd_extract_img(rot, valid, r->copy, RSZ, &bs);
	g->c[i] = (struct snap_copy){ .data = r->copy, .len = n < 0 ? 0 : n, .head = h1 };
}

/*
 * A snapshot, as sink-flight.c takes it: heads, copies, window, accounting,
 * the counters (every fd's with all, as at the last snapshot, else those
 * of the buffers whose copy is not complete), what was overwritten.
 */
static void take_as(struct rig *g, int torn_ring, int torn, int torn_fd, bool all)
{
	u64 h1[NRING];

	memset(&g->res, 0, sizeof(g->res));
	for (int i = 0; i < NRING; i++)
		h1[i] = g->r[i].head;
	for (int i = 0; i < NRING; i++)
		copy(g, i, h1[i], i == torn_ring ? torn : 0, torn_fd);
	snapshot_window(g->c, NRING, ST, g->window, &g->res);
	snapshot_account(&g->st, &g->ev, g->c, NRING, &g->res);
	snapshot_fds(&g->st, g->nfds);
	for (int f = 0; f < g->nfds; f++) {
		struct snap_copy *c = &g->c[g->fd[f].ring];
		u64 v[2] = { g->fd[f].count, g->fd[f].lost };

		if (c->complete && !all)
			continue;
		c->read = true;
		if (!g->fd[f].unreadable)
			snapshot_counter(&g->st, f, &g->evs[g->fd[f].ev], v, &g->res);
	}
	snapshot_overwritten(&g->st, &g->ev, g->c, NRING, &g->res);
}

static void take(struct rig *g, int torn_ring, int torn, int torn_fd)
{
	take_as(g, torn_ring, torn, torn_fd, true);
}

static u64 rec_seq(const char *rec)
{
	struct perf_event_header h;
	u64 seq;

	memcpy(&h, rec, sizeof(h));
	memcpy(&seq, rec + (h.type == PERF_RECORD_SAMPLE ? 16 : 8), sizeof(seq));
	return seq;
}

/*
 * Buffer i's part of the window is exactly the records written to it with
 * sequence numbers lo..hi (none when lo > hi), oldest first.
 */
static int check_window(const struct rig *g, int i, u64 lo, u64 hi)
{
	const struct snap_copy *c = &g->c[i];
	u64 pos = c->start, want = lo;

	CHECK(c->start <= c->len, "buffer %d: window starts at %llu of %llu", i,
	      (unsigned long long)c->start, (unsigned long long)c->len);
	while (pos < c->len) {
		struct perf_event_header h;

		while (want <= hi && g->ring_of[want] != i)
			want++;
		memcpy(&h, c->data + pos, sizeof(h));
		CHECK(want <= hi, "buffer %d: record %llu is after the window's end %llu", i,
		      (unsigned long long)rec_seq(c->data + pos), (unsigned long long)hi);
		CHECK(rec_seq(c->data + pos) == want, "buffer %d: record %llu where %llu belongs",
		      i, (unsigned long long)rec_seq(c->data + pos), (unsigned long long)want);
		want++;
		pos += h.size;
	}
	while (want <= hi && g->ring_of[want] != i)
		want++;
	CHECK(want > hi, "buffer %d: record %llu is missing from the window", i,
	      (unsigned long long)want);
	return 0;
}

#define EQ(field, want) CHECK(g->res.field == (want), #field " %llu, want %llu", \
			      (unsigned long long)g->res.field, (unsigned long long)(want))
#define NONE (~0ULL)		/* an empty window: lo NONE, hi 0 */

/*
 * The window starts at record cut (0: whole buffers, nothing cut); buffer
 * 0 keeps lo0..hi0, buffer 1 lo1..hi1.
 */
static int check_cut(const struct rig *g, u64 cut, u64 lo0, u64 hi0, u64 lo1, u64 hi1)
{
	EQ(t_cut, cut ? seq_time(cut) : 0);
	if (cut)
		EQ(t_common, seq_time(cut));
	return check_window(g, 0, lo0, hi0) || check_window(g, 1, lo1, hi1) ? -1 : 0;
}

/*
 * Wrapped: buffer 0 takes 9 of each 10 samples and wraps; its 21 newest
 * go back to seq 76, so the window starts there, and buffer 1 (complete)
 * keeps only 79, 89, 99.  Then 5 more into buffer 0, and 2 dropped while
 * paused: the counters say 7, the 2 are lost, none overwritten.
 */
static int test_wrapped(void)
{
	struct rig *g = rig_spread(false, 100, 10);

	CHECK(g, "rig");
	take(g, -1, 0, 0);
	if (check_cut(g, 76, 76, 98, 79, 99))
		return -1;
	EQ(new_exact, 24);
	EQ(new_all, 24);
	EQ(written, 100 * S_SIZE);
	EQ(kept, 24 * S_SIZE);
	EQ(expected, 100);
	EQ(interval, 76);	/* 69 overwritten in buffer 0, 7 cut in buffer 1 */
	EQ(est, 0);
	EQ(est_exact, 76);	/* one record size: the bytes say it exactly */
	EQ(overwritten, 76);
	EQ(lost, 0);

	for (int s = 0; s < 5; s++)
		sample(g, 0, 0);
	dropped(g, 0);
	dropped(g, 0);
	take(g, -1, 0, 0);
	if (check_cut(g, 82, 82, 104, 89, 99))
		return -1;
	EQ(new_exact, 5);
	EQ(written, 5 * S_SIZE);
	EQ(kept, 5 * S_SIZE);
	EQ(expected, 5);
	EQ(lost, 2);
	EQ(interval, 0);
	EQ(overwritten, 0);
	rig_free(g);
	return 0;
}

/*
 * test_wrapped's buffers, kept whole (--snapshot-window=whole): buffer 0's
 * 21 newest and all 10 of buffer 1's, where the common window keeps 3 of
 * them; the mark is where the common window starts, seq 76.  Everything
 * kept counts as new, and the counters' interval is what buffer 0 lost to
 * the wrap alone.  The next snapshot goes on from there.
 */
static int test_whole(void)
{
	struct rig *g = rig_spread(false, 100, 10);

	CHECK(g, "rig");
	g->window = SNAP_WINDOW_WHOLE;
	take(g, -1, 0, 0);
	EQ(t_common, seq_time(76));
	if (check_cut(g, 0, 76, 98, 9, 99))
		return -1;
	CHECK(g->c[0].start == 0 && g->c[1].start == 0, "whole copies kept");
	EQ(new_exact, 21 + 10);
	EQ(new_all, 21 + 10);
	EQ(written, 100 * S_SIZE);
	EQ(kept, 31 * S_SIZE);
	EQ(expected, 100);
	EQ(interval, 69);	/* overwritten in buffer 0, none cut from buffer 1 */
	EQ(est_exact, 69);
	EQ(overwritten, 69);

	for (int s = 0; s < 5; s++)
		sample(g, 0, 0);
	take(g, -1, 0, 0);
	EQ(t_common, seq_time(82));
	if (check_cut(g, 0, 82, 104, 9, 99))
		return -1;
	EQ(new_exact, 5);
	EQ(kept, 5 * S_SIZE);
	EQ(interval, 0);	/* what the wrap took now was kept before */
	rig_free(g);
	return 0;
}

/*
 * Torn: buffer 0 (50 samples, wrapped) gets 3 more while it is copied.
 * What moved (144 bytes) and the margin (96) leave 784 bytes of the copy
 * trusted: its 16 newest as of the head read before (down to seq 40).
 * The 3 are in the counters but not in the copy: overwritten now, and new
 * in the next snapshot, where the deficit carried takes them back off.
 */
static int test_torn(void)
{
	struct rig *g = rig_spread(false, 60, 6);
	u64 captured, ow;

	CHECK(g, "rig");
	take(g, 0, 3, 0);
	if (check_cut(g, 40, 40, 58, 41, 59))
		return -1;
	EQ(new_exact, 20);
	EQ(written, 60 * S_SIZE);
	EQ(kept, 20 * S_SIZE);
	EQ(expected, 63);
	EQ(interval, 43);
	captured = g->res.new_all;
	ow = g->res.overwritten;

	/* 40 more: 43 new since the head of the copy, the 21 newest kept */
	for (int s = 0; s < 40; s++)
		sample(g, 0, 0);
	take(g, -1, 0, 0);
	if (check_cut(g, 82, 82, 102, NONE, 0))
		return -1;
	EQ(new_exact, 21);
	EQ(written, 43 * S_SIZE);
	EQ(expected, 40);
	EQ(interval, 19);	/* 22 overwritten, 3 of them counted before */
	/* over the run: every sample captured or overwritten, once */
	captured += g->res.new_all;
	ow += g->res.overwritten;
	CHECK(captured + ow == g->seq, "%llu captured, %llu overwritten of %llu",
	      (unsigned long long)captured, (unsigned long long)ow, (unsigned long long)g->seq);
	rig_free(g);
	return 0;
}

/*
 * Fixed-period (even seq) and frequency (odd seq) samples; buffer 1 gets
 * every 8th, all odd.  The counters give the fixed-period part exactly;
 * the frequency part is estimated per buffer from its bytes.
 */
static int test_mixed(void)
{
	struct rig *g = rig_new(true, true, 3);

	CHECK(g, "rig");
	g->fd[1].ev = 1;	/* buffer 0, frequency */
	g->fd[2].ev = 1;	/* buffer 1, frequency */
	for (int s = 0; s < 68; s++)
		sample(g, s % 8 == 7, s % 8 == 7 ? 2 : s % 2);
	g->fd[0].count += PERIOD / 2;	/* counted, not yet a sample */
	take(g, -1, 0, 0);
	if (check_cut(g, 44, 44, 67, 47, 63))
		return -1;
	EQ(new_exact, 12);	/* even 44..66 */
	EQ(new_all, 24);	/* and 9 odd in buffer 0, 3 in buffer 1 */
	EQ(expected, 34);
	EQ(interval, 22);
	EQ(est, 17 + 5);	/* (2880 - 1008) * 9 / 1008; (384 - 144) * 8 / 384 */
	EQ(est_exact, 22);	/* (2880 - 1008) * 12 / 1008, rounded */
	EQ(overwritten, 22 + 22);
	rig_free(g);
	return 0;
}

/*
 * CPU 1 goes offline after the first snapshot: its buffer gets nothing
 * and its fd cannot be read; it is neither new again nor in the window
 * once its records are older than the cut.  It comes back with a new fd
 * (counting from 0) whose samples are new and counted.
 */
static int test_cpu_offline(void)
{
	struct rig *g = rig_spread(false, 40, 4);

	CHECK(g, "rig");
	take(g, -1, 0, 0);
	if (check_cut(g, 12, 12, 38, 15, 39))
		return -1;
	EQ(new_exact, 28);
	EQ(interval, 12);

	g->fd[1].unreadable = true;
	for (int s = 0; s < 30; s++)
		sample(g, 0, 0);
	take(g, -1, 0, 0);
	if (check_cut(g, 49, 49, 69, NONE, 0))
		return -1;
	EQ(new_exact, 21);
	EQ(written, 30 * S_SIZE);
	EQ(expected, 30);
	EQ(interval, 9);

	/* back: the old fd reads again, unchanged; a new one on the same buffer */
	g->fd[1].unreadable = false;
	g->nfds = 3;
	sample(g, 1, 2);
	sample(g, 1, 2);
	sample(g, 0, 0);
	sample(g, 0, 0);
	take(g, -1, 0, 0);
	if (check_cut(g, 51, 51, 73, 70, 71))
		return -1;
	EQ(new_exact, 4);
	EQ(written, 4 * S_SIZE);
	EQ(expected, 4);
	EQ(interval, 0);
	rig_free(g);
	return 0;
}

/*
 * Side-band records (timed) and untimed ones between buffer 1's samples;
 * buffer 0 wraps and sets the cut at seq 34.  Buffer 1's window starts
 * at the untimed record 29, which goes with the sample 35 after it.  The
 * side-band bytes are not samples: the estimate from bytes still comes
 * out at the counters' figure.
 */
static int test_side_band(void)
{
	struct rig *g = rig_new(true, false, 2);

	CHECK(g, "rig");
	g->fd[1].ev = 0;
	for (int s = 0; s < 60; s++) {
		if (s % 6 != 5)
			sample(g, 0, 0);
		else if (s / 6 % 3 == 0)
			side_band(g, 1);
		else if (s / 6 % 3 == 1)
			untimed(g, 1);
		else
			sample(g, 1, 1);
	}
	take(g, -1, 0, 0);
	if (check_cut(g, 34, 34, 58, 29, 59))
		return -1;
	EQ(new_exact, 21 + 2);
	EQ(written, 50 * S_SIZE + 4 * SB_SIZE + 3 * U_SIZE + 3 * S_SIZE);
	EQ(kept, 21 * S_SIZE + 2 * (U_SIZE + S_SIZE + SB_SIZE));
	EQ(expected, 53);
	EQ(interval, 30);	/* 29 overwritten in buffer 0, sample 17 cut from buffer 1 */
	EQ(est_exact, 29 + 1);	/* buffer 1: (448 - 256) * 3 / 448 = 1.3 */
	rig_free(g);
	return 0;
}

/*
 * Both buffers wrapped: the window starts at the newer of their oldest
 * records, so that it is complete on every CPU.  Buffer 1 takes every 4th
 * sample, buffer 0 the rest: buffer 0's 21 newest go back to seq 172,
 * buffer 1's to 119, and the cut is buffer 0's.  Then 60 more into buffer
 * 1 alone: its oldest is 239, later than anything of buffer 0, whose
 * window is empty.
 */
static int test_both_wrapped(void)
{
	struct rig *g = rig_spread(false, 200, 4);

	CHECK(g, "rig");
	take(g, -1, 0, 0);
	if (check_cut(g, 172, 172, 198, 175, 199))
		return -1;
	EQ(new_exact, 21 + 7);
	EQ(written, 200 * S_SIZE);
	EQ(kept, 28 * S_SIZE);
	EQ(expected, 200);
	EQ(interval, 172);	/* 129 overwritten in buffer 0, 43 cut from buffer 1 */
	EQ(overwritten, 172);

	for (int s = 0; s < 60; s++)
		sample(g, 1, 1);
	take(g, -1, 0, 0);
	if (check_cut(g, 239, NONE, 0, 239, 259))
		return -1;
	EQ(new_exact, 21);
	EQ(written, 60 * S_SIZE);
	EQ(kept, 21 * S_SIZE);
	EQ(expected, 60);
	EQ(interval, 39);
	EQ(overwritten, 39);
	rig_free(g);
	return 0;
}

/*
 * A buffer whose CPU started writing late holds everything it got: its
 * oldest record is no hole, and does not move the cut.
 */
static int test_late_start(void)
{
	struct rig *g = rig_new(true, false, 2);

	CHECK(g, "rig");
	for (int s = 0; s < 45; s++)
		sample(g, s >= 40, s >= 40);
	take(g, -1, 0, 0);
	if (check_cut(g, 19, 19, 39, 40, 44))
		return -1;
	EQ(new_exact, 26);
	EQ(interval, 19);
	rig_free(g);
	return 0;
}

/* Nothing written since the last snapshot: nothing new, nothing overwritten. */
static int test_idle(void)
{
	struct rig *g = rig_spread(true, 45, 3);

	CHECK(g, "rig");
	take(g, -1, 0, 0);
	take(g, -1, 0, 0);
	EQ(written, 0);
	EQ(new_all, 0);
	EQ(expected, 0);
	EQ(interval, 0);
	EQ(est, 0);
	EQ(t_cut, seq_time(13));	/* buffer 0's oldest, as before */
	CHECK(snap_ring_written(&g->st.rings[0], g->r[0].head) == 0, "written since");
	rig_free(g);
	return 0;
}

/*
 * Counters read only where a buffer's copy is not complete.  Snapshot 1:
 * 5 samples in each buffer, none wrapped: no counter read, none
 * overwritten.  Then 40 more into buffer 0 (it wraps: its 21 newest are
 * copied) and 2 into buffer 1.  Snapshot 2 reads buffer 0's counter only:
 * 45 made since it was last read (never), against 5 + 21 new: 19
 * overwritten, as when both are read.  The last snapshot reads both:
 * buffer 1's 7, all new in the two before, nothing overwritten.
 */
static int test_counters_unread(void)
{
	struct rig *g = rig_spread(false, 10, 2);

	CHECK(g, "rig");
	take_as(g, -1, 0, 0, false);
	CHECK(g->c[0].complete && g->c[1].complete, "snapshot 1: copies complete: %d %d",
	      g->c[0].complete, g->c[1].complete);
	CHECK(!g->c[0].read && !g->c[1].read, "snapshot 1: a counter read");
	EQ(new_exact, 10);
	EQ(expected, 0);
	EQ(interval, 0);
	for (int s = 0; s < 40; s++)
		sample(g, 0, 0);
	sample(g, 1, 1);
	sample(g, 1, 1);
	take_as(g, -1, 0, 0, false);
	CHECK(!g->c[0].complete && g->c[1].complete, "snapshot 2: copies complete: %d %d",
	      g->c[0].complete, g->c[1].complete);
	CHECK(g->c[0].read && !g->c[1].read, "snapshot 2: read %d %d", g->c[0].read,
	      g->c[1].read);
	EQ(new_exact, 23);
	EQ(expected, 45);
	EQ(interval, 19);
	take_as(g, -1, 0, 0, true);
	EQ(new_exact, 0);
	EQ(expected, 7);
	EQ(interval, 0);
	/* the run's shortfall: the 19 overwritten, nothing owed by an unread counter */
	CHECK(g->st.deficit == 19, "deficit %llu", (unsigned long long)g->st.deficit);
	rig_free(g);
	return 0;
}

int main(void)
{
	tap_run("wrapped buffer: the window starts at its oldest record", test_wrapped);
	tap_run("whole buffers: more kept than the common window, its start marked",
		test_whole);
	tap_run("a copy torn by a concurrent writer: the trusted part, the deficit carried",
		test_torn);
	tap_run("fixed-period and frequency samples: counters and bytes", test_mixed);
	tap_run("a CPU that went offline and came back", test_cpu_offline);
	tap_run("both buffers wrapped: the cut is the newer of their oldest records",
		test_both_wrapped);
	tap_run("a buffer that starts late does not move the cut", test_late_start);
	tap_run("side-band and untimed records interleaved", test_side_band);
	tap_run("a snapshot with nothing new", test_idle);
	tap_run("counters read only for buffers whose copy is not complete: the same counts",
		test_counters_unread);
	return tap_done();
}
