// SPDX-License-Identifier: GPL-2.0
/*
 * zstd_levers FILE [PARAM=VALUE...]: the records of perf.data FILE's data
 * section fed through perf-ring's compressor (tools/perf_ring/compress.c)
 * at level 1 in 64 kB pieces, as the reader hands them over, with zstd's
 * advanced parameters set as given (windowLog, hashLog, chainLog,
 * searchLog, minMatch, targetLength, strategy, ldm).  Run under
 * valgrind --tool=callgrind --toggle-collect=comp_records to count the
 * compression's instructions (scripts/perf_ring/bench_scale_zstd.py).
 *
 * Prints "zstd_levers records=N in=BYTES out=BYTES".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "compress.h"
#include "perfdata.h"

static const struct { const char *name; ZSTD_cParameter p; } params[] = {
	{ "windowLog", ZSTD_c_windowLog }, { "hashLog", ZSTD_c_hashLog },
	{ "chainLog", ZSTD_c_chainLog }, { "searchLog", ZSTD_c_searchLog },
	{ "minMatch", ZSTD_c_minMatch }, { "targetLength", ZSTD_c_targetLength },
	{ "strategy", ZSTD_c_strategy }, { "ldm", ZSTD_c_enableLongDistanceMatching },
};

int main(int argc, char **argv)
{
	struct compressor c;
	struct stat st;
	unsigned char *f;
	u64 off, size, nrec = 0, out = 0;
	char *dst;
	int fd;

	if (argc < 2 || (fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) || st.st_size < 104) {
		fprintf(stderr, "usage: zstd_levers PERF.DATA [PARAM=VALUE...]\n");
		return 2;
	}
	f = malloc(st.st_size);
	if (!f || read(fd, f, st.st_size) != st.st_size)
		return 1;
	close(fd);
	/* perf_file_header: magic, size, attr_size, attrs {offset, size}, data {offset, size} */
	memcpy(&off, f + 40, 8);
	memcpy(&size, f + 48, 8);
	if (memcmp(f, "PERFILE2", 8) || off > (u64)st.st_size || size > st.st_size - off) {
		fprintf(stderr, "%s: not a perf.data file with its data section\n", argv[1]);
		return 1;
	}
	for (u64 pos = 0; pos + 8 <= size;) {
		struct perf_event_header h;

		memcpy(&h, f + off + pos, sizeof(h));
		if (h.size < sizeof(h) || pos + h.size > size)
			break;
		nrec++;
		pos += h.size;
	}
	if (comp_init(&c, 1))
		return 1;
	for (int i = 2; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t k;

		for (k = 0; eq && k < sizeof(params) / sizeof(params[0]); k++)
			if (!strncmp(argv[i], params[k].name, eq - argv[i]) &&
			    strlen(params[k].name) == (size_t)(eq - argv[i]))
				break;
		if (!eq || k == sizeof(params) / sizeof(params[0]) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(c.cctx, params[k].p, atoi(eq + 1)))) {
			fprintf(stderr, "zstd_levers: %s: unknown parameter or value\n", argv[i]);
			return 2;
		}
	}
	dst = malloc(comp_bound(64 << 10));
	for (u64 pos = 0; pos < size;) {
		size_t piece = size - pos < (64u << 10) ? size - pos : 64u << 10;
		long n;

		/* whole records only, as the reader gives them */
		while (piece < size - pos) {
			struct perf_event_header h;
			size_t p = 0;

			for (;;) {
				memcpy(&h, f + off + pos + p, sizeof(h));
				if (p + h.size > piece || h.size < sizeof(h))
					break;
				p += h.size;
			}
			piece = p;
			break;
		}
		n = comp_records(&c, f + off + pos, piece, dst, comp_bound(piece),
				 pos + piece >= size);
		if (n < 0 || !piece)
			return 1;
		out += n;
		pos += piece;
	}
	printf("zstd_levers records=%llu in=%llu out=%llu\n", (unsigned long long)nrec,
	       (unsigned long long)size, (unsigned long long)out);
	comp_free(&c);
	return 0;
}
