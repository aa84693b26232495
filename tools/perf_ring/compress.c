// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
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
	c->cctx = z;
	c->level = level;
	return 0;
}

void comp_free(struct compressor *c)
{
	ZSTD_freeCCtx(c->cctx);
	c->cctx = NULL;
}

size_t comp_bound(size_t len)
{
	/* units, each with a record header, and a frame header/epilogue */
	size_t units = len / (COMP_UNIT / 2) + 2;

	return ZSTD_compressBound(len) + units * (sizeof(struct perf_event_header) + 64) + 64;
}

/* Compress one unit (or the frame end) into one or more records. */
static long comp_unit(struct compressor *c, const char *src, size_t len,
		      char *dst, size_t dstlen, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { src, len, 0 };
	size_t out_total = 0;
	size_t ret;

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
		}
	} while (ret != 0 || in.pos < in.size);
	return out_total;
}

long comp_records(struct compressor *c, const void *src, size_t len,
		  void *dst, size_t dstlen, bool end)
{
	const char *s = src;
	size_t pos = 0, out = 0;

	while (pos < len) {
		size_t unit = 0;
		bool last;
		long n;

		/* whole records up to COMP_UNIT (a single larger record alone) */
		while (pos + unit < len) {
			struct perf_event_header h;

			memcpy(&h, s + pos + unit, sizeof(h));
			if (h.size < sizeof(h) || pos + unit + h.size > len)
				return -EBADMSG;
			if (unit && unit + h.size > COMP_UNIT)
				break;
			unit += h.size;
		}
		last = end && pos + unit == len;
		n = comp_unit(c, s + pos, unit, (char *)dst + out, dstlen - out,
			      last ? ZSTD_e_end : ZSTD_e_flush);
		if (n < 0)
			return n;
		c->in_frame = !last;
		out += n;
		pos += unit;
	}
	c->in_bytes += len;
	c->out_bytes += out;
	return out;
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
