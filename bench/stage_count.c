// SPDX-License-Identifier: GPL-2.0
/*
 * stage_count FILE sep|fused|copy: the reader's staging of a ring read into a
 * chunk, on the records of perf.data FILE's data section, in pieces of
 * whole records of at most 64 kB (a ring read).
 *   sep:   as perf-ring does it: one memcpy of the piece, then one walk
 *          over the copy that counts the records (counts_walk());
 *   fused: one pass that copies each record and counts it as it goes
 *          (the general case still goes to counts_walk());
 *   copy:  the memcpy alone, counting nothing (what one copy costs).
 * Run under valgrind --tool=callgrind --toggle-collect=stage to count the
 * staging's instructions (scripts/perf_ring/bench_scale_zstd.py).
 * Prints "stage_count records=N samples=S first=T last=T" (the counts
 * are 0 with copy).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counts.h"
#include "perfdata.h"

static u64 rd64(const char *p)
{
	u64 v;

	memcpy(&v, p, 8);
	return v;
}

static __attribute__((noinline)) int stage_sep(struct pf_counts *c, const struct idmap *m,
					       char *dst, const char *src, size_t len)
{
	memcpy(dst, src, len);
	return counts_walk(c, NULL, m, dst, len);
}

static __attribute__((noinline)) int stage_copy(char *dst, const char *src, size_t len)
{
	memcpy(dst, src, len);
	return 0;
}

static __attribute__((noinline)) int stage_fused(struct pf_counts *c, const struct idmap *m,
						 char *dst, const char *src, size_t len)
{
	u64 first = c->first_time, last = c->last_time, newest = 0, n = 0;
	size_t pos = 0;

	while (pos + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		u64 t;

		memcpy(&h, src + pos, sizeof(h));
		if (h.type != PERF_RECORD_SAMPLE || h.size < m->min_size || pos + h.size > len)
			break;
		t = rd64(src + pos + m->time_off);
		memcpy(dst + pos, src + pos, h.size);
		if (!first || t < first)
			first = t;
		if (t > last)
			last = t;
		if (t > newest)
			newest = t;
		pos += h.size;
		n++;
	}
	c->nr[PERF_RECORD_SAMPLE] += n;
	c->total += n;
	c->bytes += pos;
	c->first_time = first;
	c->last_time = last;
	c->walk_newest = newest;
	if (pos == len)
		return 0;
	memcpy(dst + pos, src + pos, len - pos);
	return counts_walk(c, NULL, m, dst + pos, len - pos);
}

int main(int argc, char **argv)
{
	struct pf_counts c = { .nr = { 0 } };
	const u64 *ids[1] = { NULL };
	int nids[1] = { 0 }, mode;
	struct idmap m;
	struct stat st;
	char *f, *chunk;
	u64 off, size, aoff, sample_type, nrec = 0;
	int fd;

	if (argc != 3 || (fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) || st.st_size < 104) {
		fprintf(stderr, "usage: stage_count PERF.DATA sep|fused|copy\n");
		return 2;
	}
	mode = !strcmp(argv[2], "fused") ? 1 : !strcmp(argv[2], "copy") ? 2 : 0;
	f = malloc(st.st_size);
	chunk = malloc(1 << 20);
	if (!f || !chunk || read(fd, f, st.st_size) != st.st_size)
		return 1;
	close(fd);
	/* perf_file_header: magic, size, attr_size, attrs {offset, size}, data {offset, size} */
	memcpy(&aoff, f + 24, 8);
	memcpy(&off, f + 40, 8);
	memcpy(&size, f + 48, 8);
	if (memcmp(f, "PERFILE2", 8) || off > (u64)st.st_size || size > st.st_size - off ||
	    aoff + 32 > (u64)st.st_size) {
		fprintf(stderr, "%s: not a perf.data file with its data section\n", argv[1]);
		return 1;
	}
	memcpy(&sample_type, f + aoff + 24, 8);	/* the first attr's */
	if (idmap_build(&m, ids, nids, 1, sample_type))
		return 1;
	for (u64 pos = 0; pos < size;) {
		size_t p = 0;
		int err;

		/* a ring read: whole records, at most 64 kB */
		for (;;) {
			struct perf_event_header h;

			if (pos + p + sizeof(h) > size)
				break;
			memcpy(&h, f + off + pos + p, sizeof(h));
			if (h.size < sizeof(h) || p + h.size > (64u << 10) || pos + p + h.size > size)
				break;
			p += h.size;
			nrec++;
		}
		if (!p)
			return 1;
		if (mode == 2)
			err = stage_copy(chunk, f + off + pos, p);
		else
			err = mode ? stage_fused(&c, &m, chunk, f + off + pos, p) :
				     stage_sep(&c, &m, chunk, f + off + pos, p);
		if (err)
			return 1;
		pos += p;
	}
	printf("stage_count records=%llu samples=%llu first=%llu last=%llu\n",
	       (unsigned long long)nrec, (unsigned long long)c.nr[PERF_RECORD_SAMPLE],
	       (unsigned long long)c.first_time, (unsigned long long)c.last_time);
	idmap_free(&m);
	return 0;
}
