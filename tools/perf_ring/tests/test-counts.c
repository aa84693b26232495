// SPDX-License-Identifier: GPL-2.0
/*
 * counts_walk: samples of two events (alternating, as sys_enter and
 * sys_exit come), one too short for its layout, side-band and LOST
 * records; per-type and per-event counts, first and last time, the newest
 * time of the walk, lost samples, and a torn record at the end.
 */
#include <errno.h>
#include <string.h>

#include "counts.h"
#include "tap.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static size_t put(char *buf, size_t pos, u32 type, const u64 *v, int n)
{
	struct perf_event_header h = { .type = type, .size = sizeof(h) + 8 * n };

	memcpy(buf + pos, &h, sizeof(h));
	memcpy(buf + pos + sizeof(h), v, 8 * n);
	return pos + h.size;
}

static int test_walk(void)
{
	static const u64 ids_a[] = { 11, 13 }, ids_b[] = { 12, 14 };
	const u64 *ids[] = { ids_a, ids_b };
	const int nids[] = { 2, 2 };
	char buf[8192];
	size_t pos = 0;
	struct idmap m;
	struct pf_counts c;
	u64 per[4] = { 0 };	/* samples, then LOST_SAMPLES' lost, per event */

	CHECK(idmap_build(&m, ids, nids, 2, ST) == 0, "idmap");
	/* 100 samples: id, ip, tid, time, cpu, period; ids 11,12,13,14,... */
	for (int i = 0; i < 100; i++) {
		u64 s[6] = { 11 + i % 4, 0x400000, 7, 1000 + 10 * i, 0, 1 };

		pos = put(buf, pos, PERF_RECORD_SAMPLE, s, 6);
	}
	/* an unknown id, and a sample cut after its id: counted, no time */
	{
		u64 s[6] = { 99, 0, 7, 5, 0, 1 }, cut[1] = { 12 };

		pos = put(buf, pos, PERF_RECORD_SAMPLE, s, 6);
		pos = put(buf, pos, PERF_RECORD_SAMPLE, cut, 1);
	}
	/* LOST: id, lost, then sample_id (tid, time, cpu, identifier) */
	{
		u64 l[6] = { 11, 42, 7, 3000, 0, 11 };

		pos = put(buf, pos, PERF_RECORD_LOST, l, 6);
	}
	/* LOST_SAMPLES: lost, then sample_id (tid, time, cpu, identifier): event b's */
	{
		u64 l[5] = { 5, 0, 0, 0, 14 };

		pos = put(buf, pos, PERF_RECORD_LOST_SAMPLES, l, 5);
	}
	memset(&c, 0, sizeof(c));
	CHECK(counts_walk(&c, per, &m, buf, pos) == 0, "walk");
	CHECK(per[2] == 0 && per[3] == 5 && c.lost_samples == 5, "lost samples per event %llu %llu",
	      (unsigned long long)per[2], (unsigned long long)per[3]);
	CHECK(c.nr[PERF_RECORD_SAMPLE] == 102 && c.nr[PERF_RECORD_LOST] == 1 && c.total == 104,
	      "samples %llu lost records %llu total %llu",
	      (unsigned long long)c.nr[PERF_RECORD_SAMPLE],
	      (unsigned long long)c.nr[PERF_RECORD_LOST], (unsigned long long)c.total);
	CHECK(per[0] == 50 && per[1] == 51, "per event %llu %llu", (unsigned long long)per[0],
	      (unsigned long long)per[1]);
	CHECK(c.first_time == 5 && c.last_time == 1990, "times %llu..%llu",
	      (unsigned long long)c.first_time, (unsigned long long)c.last_time);
	CHECK(c.walk_newest == 3000, "newest %llu", (unsigned long long)c.walk_newest);
	CHECK(c.lost == 42 && c.bytes == pos, "lost %llu bytes %llu", (unsigned long long)c.lost,
	      (unsigned long long)c.bytes);
	/* a second walk adds to the counts; its newest is its own */
	{
		u64 s[6] = { 13, 0, 7, 2500, 0, 1 };
		size_t p2 = put(buf, 0, PERF_RECORD_SAMPLE, s, 6);

		CHECK(counts_walk(&c, per, &m, buf, p2) == 0, "second walk");
		CHECK(per[0] == 51 && c.last_time == 2500 && c.walk_newest == 2500 &&
		      c.first_time == 5, "after the second walk");
	}
	/* a torn record at the end */
	{
		u64 s[6] = { 13, 0, 7, 2600, 0, 1 };
		size_t p3 = put(buf, 0, PERF_RECORD_SAMPLE, s, 6);

		CHECK(counts_walk(&c, per, &m, buf, p3 - 8) == -EBADMSG, "torn record");
	}
	idmap_free(&m);
	return 0;
}

/*
 * Without per-event counts, runs of samples take counts_walk's short
 * loop: the same counts, times and errors as the general walk, whatever
 * record breaks the run (a side-band record, a sample too short for its
 * layout, a torn record, a record of size 0).
 */
static int test_walk_runs(void)
{
	static const u64 ids_a[] = { 11 }, ids_b[] = { 12 };
	const u64 *ids[] = { ids_a, ids_b };
	const int nids[] = { 1, 1 };
	char buf[8192];
	struct idmap m;

	CHECK(idmap_build(&m, ids, nids, 2, ST) == 0, "idmap");
	for (int cut = 0; cut < 4; cut++) {
		struct pf_counts a, b;
		u64 per[2] = { 0 };
		size_t pos = 0;
		int ea, eb;

		for (int i = 0; i < 40; i++) {
			u64 s[6] = { 11 + i % 2, 0, 7, 3000 - 10 * i + (i == 20 ? 5000 : 0), 0, 1 };
			u64 comm[3] = { 7, 7, 0x6d6f63 };

			pos = put(buf, pos, PERF_RECORD_SAMPLE, s, i == 30 && cut == 1 ? 2 : 6);
			if (i == 10)
				pos = put(buf, pos, PERF_RECORD_COMM, comm, 3);
		}
		if (cut == 2)
			pos -= 8;		/* torn last record */
		if (cut == 3) {
			struct perf_event_header z = { 0 };

			memcpy(buf + pos, &z, sizeof(z));	/* size 0 */
			pos += sizeof(z);
		}
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		ea = counts_walk(&a, per, &m, buf, pos);
		eb = counts_walk(&b, NULL, &m, buf, pos);
		CHECK(ea == eb && ea == (cut >= 2 ? -EBADMSG : 0), "case %d: errors %d %d", cut, ea, eb);
		CHECK(a.nr[PERF_RECORD_SAMPLE] == b.nr[PERF_RECORD_SAMPLE] &&
		      a.nr[PERF_RECORD_COMM] == b.nr[PERF_RECORD_COMM] && a.total == b.total &&
		      a.bytes == b.bytes, "case %d: counts %llu/%llu records %llu/%llu", cut,
		      (unsigned long long)a.nr[PERF_RECORD_SAMPLE],
		      (unsigned long long)b.nr[PERF_RECORD_SAMPLE], (unsigned long long)a.total,
		      (unsigned long long)b.total);
		CHECK(a.first_time == b.first_time && a.last_time == b.last_time &&
		      a.walk_newest == b.walk_newest, "case %d: times", cut);
		if (cut == 0)
			CHECK(b.nr[PERF_RECORD_SAMPLE] == 40 && b.total == 41 &&
			      b.first_time == 3000 - 390 && b.last_time == 3000 - 200 + 5000,
			      "case 0: %llu samples, %llu..%llu",
			      (unsigned long long)b.nr[PERF_RECORD_SAMPLE],
			      (unsigned long long)b.first_time, (unsigned long long)b.last_time);
	}
	idmap_free(&m);
	return 0;
}

/*
 * Counts that add up past an int (as a file's id tables can say): before
 * the checks, INT_MAX + INT_MAX + 2 wrapped to 0, a one-entry map was
 * allocated and 4 G entries written into it.  The id arrays are never
 * read when the counts are refused: they point at one id.
 */
static int test_idmap_overflow(void)
{
	static const u64 one = 7;
	const u64 *ids[3] = { &one, &one, &one };
	const int wrap[3] = { 0x7fffffff, 0x7fffffff, 2 }, neg[2] = { 1, -1 };
	const int big[1] = { (int)IDMAP_MAX + 1 };
	struct idmap m;
	int err;

	memset(&m, 0, sizeof(m));
	err = idmap_build(&m, ids, wrap, 3, ST);
	CHECK(err == -EOVERFLOW || err == -E2BIG, "counts that wrap: %d", err);
	CHECK(!m.v && !m.n, "nothing allocated on failure");
	err = idmap_build(&m, ids, neg, 2, ST);
	CHECK(err == -EOVERFLOW, "a negative count: %d", err);
	err = idmap_build(&m, ids, big, 1, ST);
	CHECK(err == -E2BIG, "past IDMAP_MAX: %d", err);
	err = idmap_build(&m, ids, (const int[]){ 1 }, 1, ST);
	CHECK(err == 0 && m.n == 1 && idmap_find(&m, 7) == 0, "one id: %d", err);
	idmap_free(&m);
	return 0;
}

int main(void)
{
	tap_run("counts_walk: counts, events, times, lost", test_walk);
	tap_run("counts_walk: runs of samples without per-event counts", test_walk_runs);
	tap_run("idmap_build: counts that overflow are refused", test_idmap_overflow);
	return tap_done();
}
