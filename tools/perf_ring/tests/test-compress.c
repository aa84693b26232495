// SPDX-License-Identifier: GPL-2.0
/*
 * Compressor round trip, decoding one COMPRESSED record at a time the way
 * perf 6.1 does: each record must yield data (perf fails on an empty
 * one), at most the advertised mmap_len plus the carried remainder, and
 * the concatenation must be the input.  Each output file is its own frame.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "compress.h"
#include "perfdata.h"
#include "tap.h"

static size_t make_records(char *buf, size_t len, unsigned seed, bool random_payload)
{
	size_t pos = 0;
	u64 t = 1000;

	srand(seed);
	while (pos + 128 <= len) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 128 };

		if (rand() % 3 == 0)
			h.size = 88;
		memcpy(buf + pos, &h, 8);
		t += 200 + rand() % 300;
		memcpy(buf + pos + 8, &t, 8);
		for (int i = 16; i < h.size; i++)
			buf[pos + i] = random_payload ? (char)rand() : (char)(i * 7);
		pos += h.size;
	}
	return pos;
}

/* Decode records one by one; out gets the stream. */
static int decode_records(const char *enc, size_t len, char *out, size_t *outlen)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	size_t pos = 0, o = 0;

	while (pos < len) {
		struct perf_event_header h;
		ZSTD_inBuffer in;
		ZSTD_outBuffer ob;

		memcpy(&h, enc + pos, sizeof(h));
		CHECK(h.type == PF_RECORD_COMPRESSED || h.type == PF_RECORD_FINISHED_ROUND,
		      "record type %u", h.type);
		if (h.type == PF_RECORD_FINISHED_ROUND) {
			pos += h.size;
			continue;
		}
		in = (ZSTD_inBuffer){ enc + pos + 8, h.size - 8, 0 };
		ob = (ZSTD_outBuffer){ out + o, COMP_MMAP_LEN, 0 };
		while (in.pos < in.size) {
			size_t r = ZSTD_decompressStream(d, &ob, &in);

			CHECK(!ZSTD_isError(r), "zstd: %s", ZSTD_getErrorName(r));
			CHECK(!(ob.pos == ob.size && in.pos < in.size),
			      "record at %zu decodes to more than mmap_len", pos);
		}
		CHECK(ob.pos > 0, "record at %zu decodes to nothing (perf 6.1 fails)", pos);
		o += ob.pos;
		pos += h.size;
	}
	ZSTD_freeDCtx(d);
	*outlen = o;
	return 0;
}

static int round_trip(bool random_payload, size_t piece)
{
	size_t len = 8u << 20, enclen = 0, declen, pos = 0;
	char *src = malloc(len), *enc = malloc(comp_bound(len) * 2), *dec = malloc(len + COMP_MMAP_LEN);
	struct compressor c;
	long n;
	static const struct perf_event_header fr = { .type = PF_RECORD_FINISHED_ROUND, .size = 8 };

	len = make_records(src, len, 42, random_payload);
	CHECK(comp_init(&c, 1) == 0, "init");
	/* feed in pieces, flushing at some, as the writer does at rounds */
	while (pos < len) {
		size_t k = len - pos < piece ? len - pos : piece;

		n = comp_records(&c, src + pos, k, enc + enclen, comp_bound(k), false);
		CHECK(n >= 0, "comp_records %ld", n);
		enclen += n;
		pos += k;
		if ((pos / piece) % 3 == 0) {
			n = comp_flush(&c, enc + enclen, comp_bound(0));
			CHECK(n >= 0, "flush %ld", n);
			enclen += n;
			memcpy(enc + enclen, &fr, 8);
			enclen += 8;
		}
	}
	/* end of file: a last FINISHED_ROUND closes the frame */
	n = comp_records(&c, &fr, 8, enc + enclen, comp_bound(8), true);
	CHECK(n > 0, "end %ld", n);
	enclen += n;
	CHECK(!c.unsafe, "unsafe split");
	if (decode_records(enc, enclen, dec, &declen))
		return -1;
	/* stream = input records + the final FINISHED_ROUND */
	CHECK(declen == len + 8, "decoded %zu of %zu", declen, len + 8);
	CHECK(!memcmp(dec, src, len), "content differs");
	if (!random_payload)
		CHECK(enclen * 10 < len, "ratio too low: %zu -> %zu", len, enclen);
	comp_free(&c);
	free(src); free(enc); free(dec);
	return 0;
}

static int test_compressible(void) { return round_trip(false, 300000); }
static int test_small_pieces(void) { return round_trip(false, 4096); }
static int test_incompressible(void) { return round_trip(true, 1 << 20); }

/* Two files from two compressors: each decodes with a fresh decoder. */
static int test_frames_alone(void)
{
	size_t len = 1 << 20, declen;
	char *src = malloc(len), *enc = malloc(comp_bound(len)), *dec = malloc(len + COMP_MMAP_LEN);
	static const struct perf_event_header fr = { .type = PF_RECORD_FINISHED_ROUND, .size = 8 };

	len = make_records(src, len, 7, false);
	for (int file = 0; file < 2; file++) {
		struct compressor c;
		long n, e;

		CHECK(comp_init(&c, 3) == 0, "init");
		n = comp_records(&c, src, len, enc, comp_bound(len), false);
		e = comp_records(&c, &fr, 8, enc + n, comp_bound(8), true);
		CHECK(n >= 0 && e > 0, "compress");
		if (decode_records(enc, n + e, dec, &declen))
			return -1;
		CHECK(declen == len + 8 && !memcmp(dec, src, len), "file %d differs", file);
		comp_free(&c);
	}
	free(src); free(enc); free(dec);
	return 0;
}

static int test_end_needs_data(void)
{
	struct compressor c;
	char buf[256];

	CHECK(comp_init(&c, 1) == 0, "init");
	CHECK(comp_records(&c, NULL, 0, buf, sizeof(buf), true) == -EINVAL,
	      "an empty last record would not decode in perf");
	comp_free(&c);
	return 0;
}

/*
 * Records as raw_syscalls writes them: sys_enter and sys_exit in turn,
 * each the same as the one before it of its kind but for the timestamp.
 */
static size_t make_syscall_records(char *buf, size_t len, unsigned seed)
{
	size_t pos = 0;
	u64 t = 1000;

	srand(seed);
	for (int k = 0; pos + 128 <= len; k++) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = k & 1 ? 88 : 128 };

		memcpy(buf + pos, &h, 8);
		t += 600 + rand() % 400;
		memcpy(buf + pos + 8, &t, 8);
		for (int i = 16; i < h.size; i++)
			buf[pos + i] = (char)(i * 7 + h.size);
		pos += h.size;
	}
	return pos;
}

/* Records whose payload is letters from a small alphabet: literals Huffman codes well. */
static size_t make_text_records(char *buf, size_t len, unsigned seed)
{
	size_t pos = 0;

	srand(seed);
	while (pos + 128 <= len) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 128 };

		memcpy(buf + pos, &h, 8);
		for (int i = 8; i < h.size; i++)
			buf[pos + i] = "aaaaaaabbbcd"[rand() % 12];
		pos += h.size;
	}
	return pos;
}

/*
 * Level 1 stores literals raw for the frames after one in which zstd
 * Huffman-coded none, looks again after COMP_LIT_RECHECK of them, and
 * keeps zstd's choice where Huffman pays.  Every frame decodes.
 */
static int literals_per_frame(bool text, int frames, const int *want)
{
	size_t len = 256u << 10, enclen = 0, declen, dlen = 0;
	char *src = malloc(len), *enc = malloc(comp_bound(len) * frames),
	     *dec = malloc(len * frames + COMP_MMAP_LEN), *all = malloc(len * frames);
	struct compressor c;

	CHECK(src && enc && dec && all, "memory");
	CHECK(comp_init(&c, 1) == 0, "init");
	for (int f = 0; f < frames; f++) {
		size_t n = text ? make_text_records(src, len, f + 1) :
				  make_syscall_records(src, len, f + 1);
		long e = comp_records(&c, src, n, enc + enclen, comp_bound(n), true);

		CHECK(e > 0, "frame %d: %ld", f, e);
		enclen += e;
		memcpy(all + dlen, src, n);
		dlen += n;
		CHECK((int)c.lit_raw == want[f], "after frame %d: lit_raw %u, want %d", f,
		      c.lit_raw, want[f]);
	}
	if (decode_records(enc, enclen, dec, &declen))
		return -1;
	CHECK(declen == dlen && !memcmp(dec, all, dlen), "decoded %zu of %zu", declen, dlen);
	/* a new file starts with zstd's choice */
	CHECK(comp_reset(&c) == 0 && c.lit_raw == 0, "reset");
	comp_free(&c);
	free(src); free(enc); free(dec); free(all);
	return 0;
}

static int test_literals_raw_on_syscalls(void)
{
	int want[COMP_LIT_RECHECK + 2];

	/* 1 .. RECHECK raw frames, then one of zstd's choice, then raw again */
	for (int f = 0; f < COMP_LIT_RECHECK; f++)
		want[f] = f + 1;
	want[COMP_LIT_RECHECK] = 0;
	want[COMP_LIT_RECHECK + 1] = 1;
	return literals_per_frame(false, COMP_LIT_RECHECK + 2, want);
}

static int test_literals_huffman_kept(void)
{
	static const int want[3] = { 0, 0, 0 };

	return literals_per_frame(true, 3, want);
}

int main(void)
{
	tap_run("round trip, compressible records, large pieces", test_compressible);
	tap_run("round trip, small pieces and rounds", test_small_pieces);
	tap_run("round trip, incompressible payload", test_incompressible);
	tap_run("each file is a frame that decodes alone", test_frames_alone);
	tap_run("the frame end needs data", test_end_needs_data);
	tap_run("level 1: raw literals after a frame without Huffman, looked at again",
		test_literals_raw_on_syscalls);
	tap_run("level 1: Huffman literals kept where they pay", test_literals_huffman_kept);
	return tap_done();
}
