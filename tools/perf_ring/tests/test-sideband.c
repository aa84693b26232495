// SPDX-License-Identifier: GPL-2.0
/*
 * The side-band store: it keeps COMM/MMAP2/FORK/EXIT records and nothing
 * else, stays within its bound, drops the processes that exited longest
 * ago first, and the oldest records only when that is not enough.
 */
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

int main(void)
{
	tap_run("the store keeps COMM, MMAP2, EXIT and nothing else", test_keeps_sideband_only);
	tap_run("full: the processes that exited longest ago go first", test_exited_go_first);
	tap_run("full with no exited process: the oldest records go", test_oldest_go_when_none_exited);
	return tap_done();
}
