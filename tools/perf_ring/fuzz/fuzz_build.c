// SPDX-License-Identifier: GPL-2.0
/*
 * Structure-aware libFuzzer harness for perf-ring's perf.data readers.
 *
 * fuzz_report hands the fuzzer's bytes to the reader as they are: most
 * inputs fail the header checks, and the counts and sizes deep in a file
 * (attribute counts, id tables, HEADER_EVENT_DESC entries, feature
 * sections, COMPRESSED records) are rarely reached whole.  Here the bytes
 * are a recipe instead: each field of a file that is read from it (counts,
 * sizes, offsets, types) is taken from the input, and the file is laid out
 * around them as perf lays it out, in perf's file or pipe format, with its
 * zstd frames made of raw and RLE blocks.  Some choices make a field lie
 * (a count beyond its section, overlapping tables, a section outside the
 * file, a frame that decompresses far beyond its size), so that the class
 * of "a size from the file" is what gets explored.  A huge attribute count
 * is laid out as a hole (the memfd is sparse).
 *
 * Each file then goes through "report -i", "report --decompress -o
 * /dev/null" and "report --recover -o MEMFD", as in fuzz_report.c.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata.h"

#include "report-run.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_report_init("fuzz-build");
	return 0;
}

/* The recipe: little-endian numbers from the input, zeros past its end. */
struct src {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct src *s, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++) {
		if (s->n) {
			v |= (uint64_t)*s->p << (8 * i);
			s->p++;
			s->n--;
		}
	}
	return v;
}

static void take_bytes(struct src *s, struct pbuf *b, size_t n)
{
	size_t k = n < s->n ? n : s->n;

	pbuf_put(b, s->p, k);
	pbuf_zero(b, n - k);
	s->p += k;
	s->n -= k;
}

/* the sample_type bits the reader looks at, or anything */
static uint64_t sample_type(struct src *s)
{
	uint64_t v = take(s, 2);

	if (v & 0x8000)
		return take(s, 8);
	return v & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		    PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID |
		    PERF_SAMPLE_PERIOD);
}

static void put_attr(struct src *s, struct pbuf *b, uint32_t size, uint64_t st)
{
	struct perf_event_attr a;
	size_t n;

	memset(&a, 0, sizeof(a));
	a.type = take(s, 1) % 8;
	a.size = take(s, 1) & 1 ? take(s, 2) : size;
	a.config = take(s, 1);
	a.sample_type = st;
	a.sample_id_all = take(s, 1) & 1;
	n = size < sizeof(a) ? size : sizeof(a);
	pbuf_put(b, &a, n);
	pbuf_zero(b, size - n);
}

static void put_pstr(struct src *s, struct pbuf *b)
{
	uint32_t c = take(s, 1);
	uint32_t len = c & 0x80 ? take(s, 4) : (c & 0x3f) * 8;

	pbuf_u32(b, len);
	/* a length that lies: the bytes that are there */
	take_bytes(s, b, len < 512 ? len : 64);
}

/*
 * A zstd frame of raw and RLE blocks (the format needs no library to be
 * written): the decompressed size can be far above the frame's.
 */
static void put_frame(struct src *s, struct pbuf *b, const struct pbuf *inner)
{
	uint32_t nblk = take(s, 1) % 8;
	size_t pos = 0;

	pbuf_u32(b, 0xFD2FB528);
	pbuf_put(b, &(uint8_t){ 0 }, 1);		/* no size, no checksum */
	pbuf_put(b, &(uint8_t){ 7 << 3 }, 1);	/* window 128 KiB */
	for (uint32_t i = 0; i <= nblk; i++) {
		uint32_t c = take(s, 1), h;
		bool last = i == nblk;

		if (c & 1) {	/* RLE: one byte, up to 128 KiB of it */
			uint32_t cnt = (take(s, 3) % (128u << 10)) + 1;

			h = last | 1 << 1 | cnt << 3;
			pbuf_put(b, &h, 3);
			pbuf_put(b, &(uint8_t){ take(s, 1) }, 1);
		} else {	/* raw: the next part of the inner records */
			size_t n = inner->len - pos;

			if (!last && n > 4096)
				n = 4096;
			if (c & 2)	/* a block of the fuzzer's bytes */
				n = take(s, 1);
			h = last | 0 << 1 | (uint32_t)n << 3;
			pbuf_put(b, &h, 3);
			if (c & 2) {
				take_bytes(s, b, n);
			} else if (n) {
				pbuf_put(b, inner->p + pos, n);
				pos += n;
			}
		}
	}
}

static void put_records(struct src *s, struct pbuf *b, uint64_t st, const uint64_t *ids, int nids,
			int depth);

static void put_record(struct src *s, struct pbuf *b, uint64_t st, const uint64_t *ids, int nids,
		       int depth)
{
	struct perf_event_header h = { 0 };
	size_t at = b->len;
	uint32_t kind = take(s, 1) % 9;

	pbuf_put(b, &h, sizeof(h));
	switch (kind) {
	case 0:
	case 1:		/* a sample laid out as st says */
		h.type = PERF_RECORD_SAMPLE;
		for (int bit = 0; bit < 24; bit++) {
			if (!(st & (1ull << bit)))
				continue;
			if ((1ull << bit) & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
				pbuf_u64(b, nids ? ids[take(s, 1) % nids] : take(s, 1));
			else
				pbuf_u64(b, take(s, 4));
		}
		break;
	case 2:		/* MMAP2 */
		h.type = PERF_RECORD_MMAP2;
		pbuf_zero(b, 8 * 8);
		put_pstr(s, b);
		break;
	case 3:		/* LOST */
		h.type = PERF_RECORD_LOST;
		pbuf_u64(b, take(s, 1));
		pbuf_u64(b, take(s, 8));
		break;
	case 4:		/* COMPRESSED: records or bytes in a frame */
		h.type = PF_RECORD_COMPRESSED;
		if (depth < 1) {
			struct pbuf inner = { 0 };

			put_records(s, &inner, st, ids, nids, depth + 1);
			put_frame(s, b, &inner);
			pbuf_free(&inner);
		} else {
			take_bytes(s, b, take(s, 1));
		}
		break;
	case 5:
		h.type = PF_RECORD_FINISHED_ROUND;
		break;
	case 6:		/* any type, any bytes */
		h.type = take(s, 1);
		take_bytes(s, b, take(s, 1) & ~7u);
		break;
	case 7:		/* COMM */
		h.type = PERF_RECORD_COMM;
		pbuf_u64(b, take(s, 4));
		take_bytes(s, b, 16);
		break;
	default:	/* a header that lies about its size */
		h.type = take(s, 1);
		h.size = take(s, 2);
		memcpy(b->p + at, &h, sizeof(h));
		return;
	}
	h.size = b->len - at;
	if (b->len - at > 65535) {	/* cannot say it: cut */
		b->len = at;
		return;
	}
	if (!b->err)
		memcpy(b->p + at, &h, sizeof(h));
}

static void put_records(struct src *s, struct pbuf *b, uint64_t st, const uint64_t *ids, int nids,
			int depth)
{
	uint32_t n = take(s, 1) % 24;

	for (uint32_t i = 0; i < n && !b->err; i++)
		put_record(s, b, st, ids, nids, depth);
}

static void put_event_desc(struct src *s, struct pbuf *b, uint64_t st, const uint64_t *ids,
			   int nids)
{
	uint32_t c = take(s, 1), nre = c & 0x80 ? take(s, 4) : c % 8;
	uint32_t szs[] = { 0, PERF_ATTR_SIZE_VER0, sizeof(struct perf_event_attr), 4097 };
	uint32_t sz = c & 0x40 ? take(s, 2) : szs[(c >> 3) % 4];

	pbuf_u32(b, nre);
	pbuf_u32(b, sz);
	for (uint32_t i = 0; i < nre && i < 16; i++) {
		uint32_t k = take(s, 1), nr = k & 0x80 ? take(s, 4) : k % 4;

		put_attr(s, b, sz < 4096 ? sz : 64, st);
		pbuf_u32(b, nr);
		put_pstr(s, b);
		for (uint32_t j = 0; j < nr && j < 8; j++)
			pbuf_u64(b, nids && (take(s, 1) & 1) ? ids[take(s, 1) % nids] : take(s, 2));
	}
}

static void put_feature(struct src *s, struct pbuf *b, int feat, uint64_t st, const uint64_t *ids,
			int nids)
{
	switch (feat) {
	case PF_FEAT_EVENT_DESC:
		put_event_desc(s, b, st, ids, nids);
		break;
	case PF_FEAT_COMPRESSED:
		pbuf_u32(b, 0);
		pbuf_u32(b, 1);
		pbuf_u32(b, take(s, 1));
		pbuf_u32(b, take(s, 1));
		pbuf_u32(b, take(s, 1) & 1 ? take(s, 4) : 2u << 20);
		break;
	case PF_FEAT_SAMPLE_TIME:
		pbuf_u64(b, take(s, 4));
		pbuf_u64(b, take(s, 4));
		break;
	case PF_FEAT_PERF_RING:
		pbuf_u64(b, PF_PRIV_MAGIC);
		pbuf_u64(b, take(s, 8));
		pbuf_u64(b, take(s, 8));
		break;
	default:
		put_pstr(s, b);
		break;
	}
}

static const int feats[] = {
	PF_FEAT_TRACING_DATA, PF_FEAT_BUILD_ID, PF_FEAT_HOSTNAME, PF_FEAT_CMDLINE,
	PF_FEAT_EVENT_DESC, PF_FEAT_GROUP_DESC, PF_FEAT_SAMPLE_TIME, PF_FEAT_COMPRESSED,
	PF_FEAT_PERF_RING,
};

#define MAX_EV 8
#define MAX_IDS 8

struct ev {
	uint64_t ids[MAX_IDS];
	int nids;
};

/* perf's pipe format: ATTR, FEATURE and TRACING_DATA records, then the data */
static void build_pipe(struct src *s, struct pbuf *f)
{
	uint64_t st = sample_type(s), all[MAX_EV * MAX_IDS];
	int nev = take(s, 1) % (MAX_EV + 1), nall = 0;

	pbuf_u64(f, PF_MAGIC);
	pbuf_u64(f, PF_PIPE_HEADER_SIZE);
	for (int e = 0; e < nev; e++) {
		struct perf_event_header h = { PF_RECORD_HEADER_ATTR, 0, 0 };
		uint32_t asz = take(s, 1) & 1 ? take(s, 1) * 8 : sizeof(struct perf_event_attr);
		int nids = take(s, 1) % MAX_IDS;
		size_t at = f->len;

		pbuf_put(f, &h, sizeof(h));
		put_attr(s, f, asz, st);
		for (int k = 0; k < nids; k++) {
			all[nall] = take(s, 1);
			pbuf_u64(f, all[nall++]);
		}
		h.size = f->len - at;
		if (!f->err)
			memcpy(f->p + at, &h, sizeof(h));
	}
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		struct perf_event_header h = { PF_RECORD_HEADER_FEATURE, 0, 0 };
		size_t at = f->len;

		if (!(take(s, 1) & 1))
			continue;
		pbuf_put(f, &h, sizeof(h));
		pbuf_u64(f, feats[i]);
		put_feature(s, f, feats[i], st, all, nall);
		h.size = f->len - at;
		if (!f->err)
			memcpy(f->p + at, &h, sizeof(h));
	}
	if (take(s, 1) & 1) {
		struct perf_event_header h = { PF_RECORD_HEADER_TRACING_DATA, 0, 16 };
		uint32_t len = take(s, 1) * 8;

		pbuf_put(f, &h, sizeof(h));
		pbuf_u32(f, take(s, 1) & 1 ? take(s, 4) : len);
		pbuf_u32(f, 0);
		take_bytes(s, f, len);
	}
	put_records(s, f, st, all, nall, 0);
}

/*
 * perf's file format: header, id tables, attributes, data, feature index,
 * feature sections.  Returns the size of the hole that follows the first
 * *head bytes of f (a huge attribute table), 0 for none.
 */
static uint64_t build_file(struct src *s, struct pbuf *f, size_t *head)
{
	struct pf_header h;
	struct ev evs[MAX_EV];
	uint64_t st = sample_type(s), all[MAX_EV * MAX_IDS];
	uint32_t c = take(s, 1), nev = c % (MAX_EV + 1), nall = 0;
	uint32_t asizes[] = { PERF_ATTR_SIZE_VER0 + 16, 128 + 16, sizeof(struct perf_event_attr) + 16,
			      (uint32_t)take(s, 2) };
	uint32_t asz = asizes[take(s, 1) % 4];
	uint64_t ids_off[MAX_EV], hole = 0;
	struct pbuf data = { 0 }, idx = { 0 }, body = { 0 };
	int nf = 0;

	memset(&h, 0, sizeof(h));
	h.magic = PF_MAGIC;
	h.size = sizeof(h);
	h.attr_size = asz;
	pbuf_zero(f, sizeof(h));
	for (uint32_t e = 0; e < nev; e++) {
		evs[e].nids = take(s, 1) % MAX_IDS;
		ids_off[e] = f->len;
		for (int k = 0; k < evs[e].nids; k++) {
			evs[e].ids[k] = take(s, 1);
			all[nall++] = evs[e].ids[k];
			pbuf_u64(f, evs[e].ids[k]);
		}
	}
	h.attrs.offset = f->len;
	for (uint32_t e = 0; e < nev; e++) {
		struct pf_section ids = { ids_off[e], evs[e].nids * 8 };
		uint32_t k = take(s, 1);

		if (k & 0x80) {		/* an id table that lies or overlaps */
			ids.offset = k & 0x40 ? take(s, 4) : ids_off[0];
			ids.size = take(s, 4);
		}
		if (asz >= 16) {
			put_attr(s, f, asz - 16, st);
			pbuf_put(f, &ids, sizeof(ids));
		}
	}
	h.attrs.size = f->len - h.attrs.offset;
	if (c & 0x80) {
		/* a huge count of empty attributes: a hole after the table */
		hole = (take(s, 2) * 16ull) * (asz ? asz : 1);
		h.attrs.size += hole;
	}
	put_records(s, &data, st, all, nall, 0);
	h.data.offset = f->len + hole;
	h.data.size = data.len;
	c = take(s, 1);
	if (c == 0xfe)
		h.data.size = take(s, 4);
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
		if (take(s, 1) & 1) {
			h.features[feats[i] / 64] |= 1ull << (feats[i] % 64);
			nf++;
		}
	if (c == 0xfd)		/* a bit for which no section follows */
		h.features[take(s, 1) % 4] |= 1ull << (take(s, 1) % 64);
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		struct pf_section sec;
		size_t at = body.len;

		if (!pf_has_feat(&h, feats[i]))
			continue;
		put_feature(s, &body, feats[i], st, all, nall);
		sec.offset = h.data.offset + data.len + nf * sizeof(sec) + at;
		sec.size = body.len - at;
		if (take(s, 1) == 0xff) {	/* a section that lies */
			sec.offset = take(s, 4);
			sec.size = take(s, 4);
		}
		pbuf_put(&idx, &sec, sizeof(sec));
	}
	if (!f->err)
		memcpy(f->p, &h, sizeof(h));
	/* the hole is made by the caller: here, what follows it */
	*head = f->len;
	pbuf_put(f, data.p, data.len);
	pbuf_put(f, idx.p, idx.len);
	pbuf_put(f, body.p, body.len);
	/* the rest of the input: bytes at the end of the file */
	take_bytes(s, f, s->n);
	pbuf_free(&data);
	pbuf_free(&idx);
	pbuf_free(&body);
	return hole;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src s = { data, size };
	struct pbuf f = { 0 };
	uint64_t hole = 0;
	size_t head = 0;

	if (take(&s, 1) % 4 == 0) {
		build_pipe(&s, &f);
		head = f.len;
	} else {
		hole = build_file(&s, &f, &head);
	}
	if (f.err) {
		pbuf_free(&f);
		return 0;
	}
	if (ftruncate(fuzz_in_fd, 0) || ftruncate(fuzz_in_fd, f.len + hole) ||
	    pwrite(fuzz_in_fd, f.p, head, 0) != (ssize_t)head ||
	    pwrite(fuzz_in_fd, f.p + head, f.len - head, head + hole) != (ssize_t)(f.len - head))
		abort();
	pbuf_free(&f);
	fuzz_report_run();
	return 0;
}
