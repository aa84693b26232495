// SPDX-License-Identifier: GPL-2.0
/*
 * The side-band store: it keeps COMM/MMAP2/FORK/EXIT records and nothing
 * else, stays within its bound, drops the processes that exited longest
 * ago first, and the oldest records only when that is not enough.
 */
#include <stdlib.h>
#include <string.h>

#include "sideband.h"
#include "tap.h"

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU)

/* A record of type with pid/tid and a sample_id trailer carrying time t. */
static size_t rec(char *buf, u32 type, u32 pid, u32 tid, u64 t, size_t body)
{
	struct perf_event_header h = { .type = type, .size = sizeof(h) + body + 32 };
	u32 v[4] = { pid, pid, tid, tid };
	u64 trailer[4] = { (u64)tid << 32 | pid, t, 1, 0 };

	memset(buf, 0, h.size);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), v, body < sizeof(v) ? body : sizeof(v));
	memcpy(buf + sizeof(h) + body, trailer, sizeof(trailer));
	return h.size;
}

static int pids_in(const struct sideband *sb, u32 pid)
{
	int n = 0;

	for (size_t pos = 0; pos < sb->log.len;) {
		struct perf_event_header h;
		u32 p;

		memcpy(&h, sb->log.p + pos, sizeof(h));
		memcpy(&p, sb->log.p + pos + sizeof(h), sizeof(p));
		n += p == pid;
		pos += h.size;
	}
	return n;
}

static int test_keeps_sideband_only(void)
{
	struct sideband sb;
	char buf[4096];
	size_t n = 0;

	sideband_init(&sb, ST, 1 << 20);
	n += rec(buf + n, PERF_RECORD_COMM, 10, 10, 1, 24);
	n += rec(buf + n, PERF_RECORD_SAMPLE, 10, 10, 2, 24);
	n += rec(buf + n, PERF_RECORD_MMAP2, 10, 10, 3, 96);
	n += rec(buf + n, PERF_RECORD_LOST, 0, 0, 4, 16);
	n += rec(buf + n, PERF_RECORD_EXIT, 10, 10, 5, 24);
	sideband_scan(&sb, buf, n);
	CHECK(sb.added == 3, "added %llu, want 3", (unsigned long long)sb.added);
	CHECK(pids_in(&sb, 10) == 3, "pid 10 has %d records", pids_in(&sb, 10));
	sideband_free(&sb);
	return 0;
}

static int test_exited_go_first(void)
{
	struct sideband sb;
	char buf[512];
	size_t n;
	u64 t = 1;

	/* 8 KiB: pid 1 lives, pids 100.. come and go, oldest exit first */
	sideband_init(&sb, ST, 8192);
	n = rec(buf, PERF_RECORD_COMM, 1, 1, t++, 24);
	sideband_scan(&sb, buf, n);
	for (u32 pid = 100; pid < 200; pid++) {
		n = rec(buf, PERF_RECORD_COMM, pid, pid, t++, 24);
		n += rec(buf + n, PERF_RECORD_MMAP2, pid, pid, t++, 96);
		n += rec(buf + n, PERF_RECORD_EXIT, pid, pid, t++, 24);
		sideband_scan(&sb, buf, n);
		CHECK(sb.log.len <= sb.max, "store at %zu over its bound %zu", sb.log.len, sb.max);
	}
	CHECK(pids_in(&sb, 1) == 1, "the living process was dropped");
	CHECK(pids_in(&sb, 199) == 3, "the newest exited process is missing (%d)", pids_in(&sb, 199));
	CHECK(pids_in(&sb, 100) == 0, "the oldest exited process is still there");
	CHECK(sb.dropped > 0, "nothing counted as dropped");
	sideband_free(&sb);
	return 0;
}

static int test_oldest_go_when_none_exited(void)
{
	struct sideband sb;
	char buf[512];
	size_t n;

	sideband_init(&sb, ST, 4096);
	for (u32 i = 0; i < 200; i++) {
		n = rec(buf, PERF_RECORD_MMAP2, 7, 7, i + 1, 96);
		sideband_scan(&sb, buf, n);
		CHECK(sb.log.len <= sb.max, "store at %zu over its bound %zu", sb.log.len, sb.max);
	}
	CHECK(sb.dropped + pids_in(&sb, 7) == 200, "%llu dropped + %d kept != 200",
	      (unsigned long long)sb.dropped, pids_in(&sb, 7));
	CHECK(pids_in(&sb, 7) > 0, "everything dropped");
	sideband_free(&sb);
	return 0;
}

/*
 * A reserved store is taken once: however many times it fills and
 * compacts, with records up to the largest a header can size, it is never
 * reallocated, so its memory after the first snapshot is its memory for
 * the rest of the recording.
 */
static int test_reserved_never_grows(void)
{
	static char buf[70000];
	struct sideband sb;
	const char *p0;
	u64 t = 1;

	/* a quarter of the bound holds the largest record (u16 size) */
	sideband_init(&sb, ST, 256 << 10);
	CHECK(sideband_reserve(&sb) == 0, "reserve failed");
	p0 = sb.log.p;
	CHECK(sb.log.cap == sb.max, "reserved %zu bytes, not the bound %zu", sb.log.cap, sb.max);
	for (u32 i = 0; i < 4000; i++) {
		size_t body = i % 97 == 0 ? 65000 : 24 + (i * 131) % 3000, n;
		u32 pid = 100 + i;

		n = rec(buf, PERF_RECORD_MMAP2, pid, pid, t++, body);
		if (i % 3 == 0)
			n += rec(buf + n, PERF_RECORD_EXIT, pid, pid, t++, 24);
		sideband_scan(&sb, buf, n);
		CHECK(sb.log.p == p0 && sb.log.cap == sb.max,
		      "the store was reallocated at record %u (cap %zu)", i, sb.log.cap);
		CHECK(sb.log.len <= sb.max, "store at %zu over its bound %zu", sb.log.len, sb.max);
	}
	CHECK(sb.dropped > 0, "never full: the test did not compact");
	CHECK(pids_in(&sb, 100 + 3998) == 1, "the newest living process is missing");
	sideband_free(&sb);
	return 0;
}

/*
 * One compaction of a full store of n exited processes (COMM, MMAP2,
 * EXIT each): its work (records visited, pids compared) and, in *gone,
 * how many of the oldest exited processes went.
 */
static int compaction_work(u32 n, u64 *work, u32 *gone)
{
	struct sideband sb;
	char buf[512];
	size_t one = rec(buf, PERF_RECORD_COMM, 0, 0, 0, 24) +
		     rec(buf, PERF_RECORD_MMAP2, 0, 0, 0, 96) +
		     rec(buf, PERF_RECORD_EXIT, 0, 0, 0, 24);
	size_t m;
	u64 t = 1;

	sideband_init(&sb, ST, n * one);
	for (u32 pid = 1000; pid < 1000 + n; pid++) {
		m = rec(buf, PERF_RECORD_COMM, pid, pid, t++, 24);
		m += rec(buf + m, PERF_RECORD_MMAP2, pid, pid, t++, 96);
		m += rec(buf + m, PERF_RECORD_EXIT, pid, pid, t++, 24);
		sideband_scan(&sb, buf, m);
	}
	CHECK(sb.dropped == 0 && sb.work == 0, "compacted before full (%llu dropped)",
	      (unsigned long long)sb.dropped);
	m = rec(buf, PERF_RECORD_COMM, 1, 1, t++, 24);
	sideband_scan(&sb, buf, m);
	CHECK(sb.log.len <= sb.max / 4 * 3 + m, "store at %zu after compaction, bound %zu",
	      sb.log.len, sb.max);
	/* the oldest went, whole processes, and the newest stayed */
	*gone = sb.dropped / 3;
	CHECK(sb.dropped % 3 == 0, "%llu records dropped: a process went in part",
	      (unsigned long long)sb.dropped);
	CHECK(*gone > 0 && *gone < n, "%u of %u exited processes went", *gone, n);
	CHECK(pids_in(&sb, 1000 + *gone - 1) == 0, "pid %u, among the oldest, stayed",
	      1000 + *gone - 1);
	CHECK(pids_in(&sb, 1000 + *gone) == 3, "pid %u went, but not among the oldest",
	      1000 + *gone);
	CHECK(pids_in(&sb, 1000 + n - 1) == 3, "the newest exited process went");
	*work = sb.work;
	sideband_free(&sb);
	return 0;
}

/*
 * The store's default bound holds about 20,000 exited processes.  A
 * compaction that looked each dropped pid up among all records (records x
 * dropped) does 100 times the work at 10 times the size; a linear or
 * log-linear one, about 10 to 15 times.
 */
static int test_compaction_scales(void)
{
	u64 w1, w10;
	u32 g1, g10;

	if (compaction_work(2000, &w1, &g1) || compaction_work(20000, &w10, &g10))
		return -1;
	printf("# compaction: 2000 processes: %llu steps, %u went; 20000: %llu steps, %u went;"
	       " ratio %.2f\n", (unsigned long long)w1, g1, (unsigned long long)w10, g10,
	       (double)w10 / w1);
	CHECK(w10 < 20 * w1, "compaction work grows %.1fx for 10x the processes",
	      (double)w10 / w1);
	return 0;
}

int main(void)
{
	tap_run("the store keeps COMM, MMAP2, EXIT and nothing else", test_keeps_sideband_only);
	tap_run("full: the processes that exited longest ago go first", test_exited_go_first);
	tap_run("full with no exited process: the oldest records go", test_oldest_go_when_none_exited);
	tap_run("a reserved store is never reallocated", test_reserved_never_grows);
	tap_run("compaction at 20,000 exited processes: log-linear work",
		test_compaction_scales);
	return tap_done();
}
