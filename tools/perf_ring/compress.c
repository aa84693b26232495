// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
/* ZSTD_c_stableInBuffer, ZSTD_estimateCStreamSize() */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <linux/perf_event.h>

#include "compress.h"
#include "perfdata.h"

int comp_init(struct compressor *c, int level)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();

	memset(c, 0, sizeof(*c));
	if (!z)
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, level))) {
		ZSTD_freeCCtx(z);
		return -EINVAL;
	}
	/*
	 * An experimental parameter: a libzstd without it copies the input
	 * into its own buffer instead, and the output is as valid.
	 */
	ZSTD_CCtx_setParameter(z, ZSTD_c_stableInBuffer, 1);
	/*
	 * Level 1 matches within 128 kB rather than its default 512 kB: perf
	 * records repeat their neighbours', and the smaller window gave both
	 * fewer instructions per record and fewer bytes
	 * (bench/results/scale-zstd.md).
	 */
	if (level == 1)
		ZSTD_CCtx_setParameter(z, ZSTD_c_windowLog, 17);
	c->arena = pages_alloc(COMP_ARENA);
	if (!c->arena) {
		ZSTD_freeCCtx(z);
		return -ENOMEM;
	}
	c->cctx = z;
	c->level = level;
	c->unit = COMP_UNIT_MIN;
	return 0;
}

void comp_touch(struct compressor *c)
{
	memset(c->arena, 0, COMP_ARENA);
}

void comp_drop(struct compressor *c)
{
	pages_drop(c->arena, COMP_ARENA);
}

int comp_reset(struct compressor *c)
{
	/* the parameters and zstd's workspace stay: a new frame */
	if (ZSTD_isError(ZSTD_CCtx_reset(c->cctx, ZSTD_reset_session_only)))
		return -EINVAL;
	c->in_frame = false;
	c->unit = COMP_UNIT_MIN;
	c->unsafe = 0;
	c->done = c->len = 0;
	c->in_bytes = c->out_bytes = c->nrec = 0;
	/* a new file starts with zstd's choice of literals */
	if (c->lit_raw && c->level == 1)
		ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_literalCompressionMode, ZSTD_ps_auto);
	c->lit_raw = 0;
	c->frame_blocks = c->frame_huf = 0;
	return 0;
}

void comp_free(struct compressor *c)
{
	ZSTD_freeCCtx(c->cctx);
	pages_free(c->arena, COMP_ARENA);
	c->cctx = NULL;
	c->arena = NULL;
}

size_t comp_ctx_need(int level)
{
	return ZSTD_estimateCStreamSize(level);
}

size_t comp_mem_need(int level, size_t raw)
{
	return comp_ctx_need(level) + (raw && raw < COMP_ARENA ? raw : COMP_ARENA);
}

size_t comp_file_bound(size_t len)
{
	/* units, each with a record header, and a frame header/epilogue */
	size_t units = len / (COMP_UNIT_MIN / 2) + 2;

	return ZSTD_compressBound(len) + units * (sizeof(struct perf_event_header) + 64) + 64;
}

size_t comp_bound(size_t len)
{
	return comp_file_bound(len + COMP_UNIT_MAX);	/* and input held short of a unit */
}

/*
 * Walk the zstd blocks of a unit's output (zstd format: 3-byte block
 * headers, bit 0 last block, bits 1-2 type, bits 3-23 size; a compressed
 * block starts with its literals section, whose first byte's bits 0-1 are
 * the literals' type: 0 raw, 1 RLE, 2 Huffman, 3 Huffman with the
 * previous table).  Counts the compressed blocks, those with Huffman
 * literals, and those larger than a record's payload.
 */
struct blk_scan {
	u32 compressed, huf, big;
};

static void scan_blocks(const unsigned char *p, size_t len, bool frame_start,
			struct blk_scan *s)
{
	size_t pos = 0;

	if (frame_start) {
		static const u8 dict_sz[4] = { 0, 1, 2, 4 }, fcs_sz[4] = { 0, 2, 4, 8 };
		u8 d;

		if (len < 5) {
			s->big++;	/* cannot tell: counted as unsafe */
			return;
		}
		d = p[4];	/* after the 4-byte magic */
		pos = 5 + (d & 0x20 ? 0 : 1) + dict_sz[d & 3] + fcs_sz[d >> 6] +
		      ((d >> 6) == 0 && (d & 0x20) ? 1 : 0);
	}
	while (pos + 3 <= len) {
		u32 h = p[pos] | p[pos + 1] << 8 | p[pos + 2] << 16;
		u32 type = (h >> 1) & 3, size = h >> 3;

		if (type == 2) {
			s->compressed++;
			if (pos + 3 < len && (p[pos + 3] & 3) >= 2)
				s->huf++;
			if (size + 3 > COMP_REC_MAX - sizeof(struct perf_event_header))
				s->big++;
		}
		pos += 3 + (type == 1 ? 1 : size);
	}
}

/*
 * zstd's literals: Huffman-coded or raw.  At level 1 zstd counts the
 * literals of each block to decide, and on perf's syscall records (a few
 * timestamp bytes between long matches) Huffman never pays: the counting
 * is about 5% of the compression's instructions for nothing
 * (bench/results/scale-zstd.md).  A parameter changes only between
 * frames, so the choice is per frame, from the frame before: after a
 * frame in which no block had Huffman literals, the next frames store
 * them raw; after COMP_LIT_RECHECK raw frames one goes back to zstd's
 * choice to look again.
 */
static void lit_next_frame(struct compressor *c)
{
	int mode = -1;

	if (c->level != 1)
		return;		/* measured at level 1 only */
	if (!c->lit_raw && c->frame_blocks && !c->frame_huf) {
		mode = ZSTD_ps_disable;
		c->lit_raw = 1;
	} else if (c->lit_raw && ++c->lit_raw > COMP_LIT_RECHECK) {
		mode = ZSTD_ps_auto;
		c->lit_raw = 0;
	}
	c->frame_blocks = c->frame_huf = 0;
	if (mode >= 0 &&
	    ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_literalCompressionMode, mode)))
		c->lit_raw = 0;		/* zstd's choice stays: the output is as valid */
}

/*
 * Compress the arena from done to len, one unit (or the frame end), into
 * one or more records.  zstd reads the input in place, and the arena's
 * start and done are where it left off, as ZSTD_c_stableInBuffer wants.
 */
static long comp_unit(struct compressor *c, char *dst, size_t dstlen, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { c->arena, c->len, c->done };
	size_t out_total = 0, ret;
	int nrec = 0;
	bool frame_start = !c->in_frame;

	do {
		struct perf_event_header h;
		size_t room = dstlen - out_total;
		ZSTD_outBuffer out;

		if (room <= sizeof(h))
			return -ENOBUFS;
		room -= sizeof(h);
		if (room > COMP_REC_MAX - sizeof(h))
			room = COMP_REC_MAX - sizeof(h);
		out = (ZSTD_outBuffer){ dst + out_total + sizeof(h), room, 0 };
		ret = ZSTD_compressStream2(c->cctx, &out, &in, mode);
		if (ZSTD_isError(ret))
			return -EIO;
		if (out.pos) {
			h.type = PF_RECORD_COMPRESSED;
			h.misc = 0;
			h.size = sizeof(h) + out.pos;
			memcpy(dst + out_total, &h, sizeof(h));
			out_total += h.size;
			c->nrec++;
			nrec++;
		}
	} while (ret != 0 || in.pos < in.size);
	c->done = in.pos;
	if (nrec == 1) {
		struct blk_scan b = { 0 };

		scan_blocks((unsigned char *)dst + sizeof(struct perf_event_header),
			    out_total - sizeof(struct perf_event_header), frame_start, &b);
		c->frame_blocks += b.compressed;
		c->frame_huf += b.huf;
	} else if (nrec > 1) {
		/* gather the payloads to walk the blocks */
		unsigned char *tmp = malloc(out_total);
		size_t pos = 0, tl = 0;

		if (tmp) {
			struct blk_scan b = { 0 };

			while (pos < out_total) {
				struct perf_event_header h;

				memcpy(&h, dst + pos, sizeof(h));
				memcpy(tmp + tl, dst + pos + sizeof(h), h.size - sizeof(h));
				tl += h.size - sizeof(h);
				pos += h.size;
			}
			scan_blocks(tmp, tl, frame_start, &b);
			if (b.big)
				c->unsafe++;
			c->frame_blocks += b.compressed;
			c->frame_huf += b.huf;
			free(tmp);
		} else {
			c->frame_huf++;	/* not seen: keep zstd's choice */
		}
	}
	return out_total;
}

/*
 * The held input out as one unit; adapt the unit size to the ratio seen.
 * last ends the frame; so does a unit after which the arena has no room
 * for a whole one more, and the next frame starts at the arena's start.
 */
static long put_unit(struct compressor *c, char *dst, size_t dstlen, bool last)
{
	size_t len = c->len - c->done;
	bool end = last || c->len + COMP_UNIT_MAX > COMP_ARENA;
	long n = comp_unit(c, dst, dstlen, end ? ZSTD_e_end : ZSTD_e_flush);

	if (n < 0)
		return n;
	c->in_frame = !end;
	if (end) {
		c->done = c->len = 0;
		lit_next_frame(c);
	}
	/* next unit: aim for half a record of output at this ratio */
	if (n > 0 && len == c->unit) {
		u64 next = (u64)len * (COMP_REC_MAX / 2) / n;

		if (next < COMP_UNIT_MIN)
			next = COMP_UNIT_MIN;
		if (next > COMP_UNIT_MAX)
			next = COMP_UNIT_MAX;
		c->unit = next;
	}
	return n;
}

long comp_records(struct compressor *c, const void *src, size_t len,
		  void *dst, size_t dstlen, bool end)
{
	const char *s = src;
	size_t pos = 0, out = 0;
	long n;

	if (end && !len && c->len == c->done)
		return -EINVAL;
	c->in_bytes += len;
	while (pos < len || (end && c->len > c->done)) {
		size_t take = c->unit - (c->len - c->done);

		if (take > len - pos)
			take = len - pos;
		/* the one copy: zstd compresses it where it lands */
		memcpy(c->arena + c->len, s + pos, take);
		c->len += take;
		pos += take;
		if (c->len - c->done < c->unit && !(end && pos == len))
			break;		/* wait for more input */
		n = put_unit(c, (char *)dst + out, dstlen - out, end && pos == len);
		if (n < 0)
			return n;
		out += n;
	}
	c->out_bytes += out;
	return out;
}

long comp_flush(struct compressor *c, void *dst, size_t dstlen)
{
	long n;

	if (c->len == c->done)
		return 0;
	n = put_unit(c, dst, dstlen, false);
	if (n > 0)
		c->out_bytes += n;
	return n;
}

int decomp_init(struct decompressor *d)
{
	d->dctx = ZSTD_createDCtx();
	return d->dctx ? 0 : -ENOMEM;
}

void decomp_free(struct decompressor *d)
{
	ZSTD_freeDCtx(d->dctx);
	d->dctx = NULL;
}

long decomp_payload(struct decompressor *d, const void *src, size_t len,
		    void *dst, size_t dstlen)
{
	ZSTD_inBuffer in = { src, len, 0 };
	ZSTD_outBuffer out = { dst, dstlen, 0 };

	while (in.pos < in.size) {
		size_t ret = ZSTD_decompressStream(d->dctx, &out, &in);

		if (ZSTD_isError(ret))
			return -EBADMSG;
		if (out.pos == out.size && in.pos < in.size)
			return -ENOBUFS;
	}
	return out.pos;
}
