// SPDX-License-Identifier: GPL-2.0
/*
 * sideband_compact N fill|compact: the side-band store (tools/perf_ring/
 * sideband.c) filled with N exited processes (COMM, MMAP2 and EXIT each)
 * to exactly its bound; with "compact", one more record then makes it
 * compact once.  Run under valgrind --tool=callgrind, the difference of
 * the two is the instructions of one compaction
 * (scripts/perf_ring/bench_scale_sideband.py).
 *
 * Prints "sideband n=N added=A dropped=D kept=BYTES".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sideband.h"

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU)

/* a record of TYPE for PID with a BODY-byte body and a sample_id at time T */
static size_t rec(char *buf, u32 type, u32 pid, u64 t, size_t body)
{
	struct perf_event_header h = { .type = type, .size = sizeof(h) + body + 32 };
	u32 v[4] = { pid, pid, pid, pid };
	u64 trailer[4] = { (u64)pid << 32 | pid, t, 1, 0 };

	memset(buf, 0, h.size);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), v, sizeof(v));
	memcpy(buf + sizeof(h) + body, trailer, sizeof(trailer));
	return h.size;
}

static size_t process(char *buf, u32 pid, u64 *t)
{
	size_t m = rec(buf, PERF_RECORD_COMM, pid, (*t)++, 24);

	m += rec(buf + m, PERF_RECORD_MMAP2, pid, (*t)++, 96);
	m += rec(buf + m, PERF_RECORD_EXIT, pid, (*t)++, 24);
	return m;
}

int main(int argc, char **argv)
{
	struct sideband sb;
	char buf[512];
	unsigned long n = argc > 2 ? strtoul(argv[1], NULL, 10) : 0;
	u64 t = 1;
	size_t one;

	if (!n || n > 10000000 || (strcmp(argv[2], "fill") && strcmp(argv[2], "compact"))) {
		fprintf(stderr, "usage: sideband_compact N fill|compact\n");
		return 2;
	}
	one = process(buf, 0, &t);
	sideband_init(&sb, ST, n * one);
	for (u32 pid = 1000; pid < 1000 + n; pid++)
		sideband_scan(&sb, buf, process(buf, pid, &t));
	if (!strcmp(argv[2], "compact"))
		sideband_scan(&sb, buf, rec(buf, PERF_RECORD_COMM, 1, t++, 24));
	printf("sideband n=%lu added=%llu dropped=%llu kept=%zu\n", n,
	       (unsigned long long)sb.added, (unsigned long long)sb.dropped, sb.log.len);
	n = sb.log.len;
	sideband_free(&sb);
	return n ? 0 : 1;
}
