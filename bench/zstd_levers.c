// SPDX-License-Identifier: GPL-2.0
/*
 * zstd_levers FILE [PARAM=VALUE...]: the records of perf.data FILE's data
 * section fed through perf-ring's compressor (tools/perf_ring/compress.c)
 * at level 1 in pieces of whole records (64 kB unless piece=BYTES), as
 * the reader hands them over, with zstd's advanced parameters set as given
 * (windowLog, hashLog, chainLog, searchLog, minMatch, targetLength,
 * strategy, ldm, literals (ZSTD_c_literalCompressionMode), srcSizeHint,
 * targetCBlockSize, blockSplitter).  unit=BYTES fixes the unit handed to
 * zstd (64000..1048576) instead of following the ratio.  frames=1 ends
 * the zstd frame at the end of each piece (compressing each chunk, or each
 * ring lap, in place as a frame of its own).  litauto=1 leaves the
 * literals to zstd in every frame (perf-ring before compress.c chose them
 * per frame).  perf=1 makes
 * perf record -z's calls instead (perf_push() below), for perf's bytes
 * and instructions on the same input.  Run under valgrind
 * --tool=callgrind --toggle-collect=comp_records (or perf_push) to count
 * the compression's instructions (scripts/perf_ring/bench_scale_zstd.py).
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
	{ "literals", ZSTD_c_literalCompressionMode }, { "srcSizeHint", ZSTD_c_srcSizeHint },
	{ "targetCBlockSize", ZSTD_c_targetCBlockSize },
	{ "blockSplitter", ZSTD_c_useBlockSplitter },
};

/*
 * perf record -z's calls, as perf 6.1 makes them (tools/perf/util/zstd.c,
 * zstd_compress_stream_to_records()): one stream for the recording, set
 * up by ZSTD_initCStream() at the level, and for each piece read from a
 * ring, ZSTD_compressStream() then ZSTD_flushStream() into records of at
 * most 64 kB.  zstd copies the input into its own window.
 */
static __attribute__((noinline)) long perf_push(ZSTD_CStream *z, const void *src, size_t len,
						 char *dst, size_t cap)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t out = 0;

	while (in.pos < in.size) {
		size_t room = cap - out - 8 > 65535 - 8 - 1 ? 65535 - 8 - 1 : cap - out - 8;
		ZSTD_outBuffer o = { dst + out + 8, room, 0 };

		if (ZSTD_isError(ZSTD_compressStream(z, &o, &in)) ||
		    ZSTD_isError(ZSTD_flushStream(z, &o)))
			return -1;
		out += 8 + o.pos;
	}
	return out;
}

/* Pieces of whole records, of at most piece bytes, from pos. */
static size_t next_piece(const unsigned char *d, u64 pos, u64 size, size_t piece)
{
	size_t p = 0;

	if (size - pos <= piece)
		return size - pos;
	for (;;) {
		struct perf_event_header h;

		memcpy(&h, d + pos + p, sizeof(h));
		if (p + h.size > piece || h.size < sizeof(h))
			return p;
		p += h.size;
	}
}

int main(int argc, char **argv)
{
	struct compressor c;
	struct stat st;
	unsigned char *f;
	u64 off, size, nrec = 0, out = 0;
	size_t piece = 64u << 10, unit = 0;
	int perf = 0, frames = 0, litauto = 0;
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

		/* the driver's own: bytes per call, a fixed unit, perf's calls */
		if (!strncmp(argv[i], "piece=", 6)) {
			piece = strtoul(argv[i] + 6, NULL, 0);
			continue;
		}
		if (!strncmp(argv[i], "unit=", 5)) {
			unit = strtoul(argv[i] + 5, NULL, 0);
			continue;
		}
		if (!strcmp(argv[i], "litauto=1")) {
			litauto = 1;
			continue;
		}
		if (!strcmp(argv[i], "frames=1")) {
			frames = 1;
			continue;
		}
		if (!strcmp(argv[i], "perf=1")) {
			perf = 1;
			continue;
		}

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
	dst = malloc(comp_bound(piece) + (piece >> 4) + (1 << 20));
	if (perf) {
		ZSTD_CStream *z = ZSTD_createCStream();

		if (!z || !dst || ZSTD_isError(ZSTD_initCStream(z, 1)))
			return 1;
		for (u64 pos = 0; pos < size;) {
			size_t n = next_piece(f + off, pos, size, piece);
			long o = perf_push(z, f + off + pos, n, dst, comp_bound(piece));

			if (o < 0 || !n)
				return 1;
			out += o;
			pos += n;
		}
		/* perf ends its stream with nothing more: the last flush ended it */
		ZSTD_freeCStream(z);
		printf("zstd_levers records=%llu in=%llu out=%llu\n", (unsigned long long)nrec,
		       (unsigned long long)size, (unsigned long long)out);
		return 0;
	}
	for (u64 pos = 0; pos < size;) {
		size_t n = next_piece(f + off, pos, size, piece);
		long o;

		if (unit)
			c.unit = unit;	/* a fixed unit: no adapting to the ratio */
		o = comp_records(&c, f + off + pos, n, dst, comp_bound(piece),
				 frames || pos + n >= size);
		if (o < 0 || !n)
			return 1;
		out += o;
		pos += n;
		/*
		 * perf-ring before the per-frame literals: zstd's choice in
		 * every frame (a frame ends inside a call only at a unit's
		 * end, after which nothing more is compressed in that call)
		 */
		if (litauto && c.lit_raw) {
			if (ZSTD_isError(ZSTD_CCtx_setParameter(c.cctx, ZSTD_c_literalCompressionMode,
								ZSTD_ps_auto)))
				return 1;
			c.lit_raw = 0;
		}
	}
	printf("zstd_levers records=%llu in=%llu out=%llu\n", (unsigned long long)nrec,
	       (unsigned long long)size, (unsigned long long)out);
	comp_free(&c);
	return 0;
}
