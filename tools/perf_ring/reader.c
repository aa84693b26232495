// SPDX-License-Identifier: GPL-2.0
/* The reader of a perf.data file, strict or salvaging (reader.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "reader.h"

#define RBUF (4u << 20)
/*
 * The decompression buffer is sized from HEADER_COMPRESSED's mmap_len, a
 * number read from the file: bound it, so that a corrupt header cannot ask
 * for gigabytes (a record that yields more fails with ENOBUFS).
 */
#define DECOMP_CAP_MAX (256u << 20)
/*
 * A zstd bomb: a few kilobytes of COMPRESSED records can ask for
 * gigabytes of records (a walk of hours, a --decompress that fills the
 * disk).  Past the first DECOMP_FREE bytes, the decompressed data may be
 * at most DECOMP_RATIO_MAX times the compressed records it came from;
 * perf-ring's own files stay below 100 (zstd on syscall traces).
 */
#define DECOMP_FREE (64ull << 20)
#define DECOMP_RATIO_MAX 1024

/* Returned by unsound() in READ_SALVAGE mode: the walk stops, with success. */
#define READ_STOPPED 1

/*
 * A record that is not whole and sound.  READ_STRICT: the walk fails with
 * err, and the message is kept in fail.h.  READ_SALVAGE: the walk stops
 * here; the first reason goes to stop.why.
 */
static int unsound(struct reader *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int unsound(struct reader *r, int err, const char *fmt, ...)
{
	char msg[sizeof(r->stop.why)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->mode == READ_STRICT)
		return fail_set(err, "%s", msg);
	if (!r->stop.why[0])
		memcpy(r->stop.why, msg, sizeof(msg));
	return READ_STOPPED;
}

static int out_put(struct reader *r, const void *p, size_t n)
{
	int err;

	if (r->out_fd < 0)
		return 0;
	err = write_full(r->out_fd, p, n);
	if (err)
		return fail_set(err, "writing the output: %s", strerror(-err));
	r->out_len += n;
	return 0;
}

/* Records of the decompressed stream: count, and copy out for --decompress. */
static int inner_records(struct reader *r, u64 file_off)
{
	size_t pos = 0;
	int err;

	while (pos + sizeof(struct perf_event_header) <= r->pend_len) {
		struct perf_event_header h;

		memcpy(&h, r->pend + pos, sizeof(h));
		if (h.size < sizeof(h))
			return unsound(r, -EBADMSG,
				       "corrupt record inside the compressed data near file offset %llu",
				       (unsigned long long)file_off);
		if (pos + h.size > r->pend_len)
			break;
		pos += h.size;
	}
	if (pos) {
		counts_walk(&r->all, r->per_ev, &r->idmap, r->pend, pos);
		err = out_put(r, r->pend, pos);
		if (err)
			return err;
		memmove(r->pend, r->pend + pos, r->pend_len - pos);
		r->pend_len -= pos;
	}
	return 0;
}

static int on_compressed(struct reader *r, const char *rec, size_t size, u64 off)
{
	size_t cap = r->f.comp.mmap_len > (1u << 20) ? r->f.comp.mmap_len : (1u << 20);
	long n;

	if (cap > DECOMP_CAP_MAX)
		cap = DECOMP_CAP_MAX;
	if (!r->dz_on) {
		if (decomp_init(&r->dz))
			return unsound(r, -ENOMEM, "out of memory for the zstd decompressor");
		r->dz_on = true;
	}
	/*
	 * What is left of the previous output is part of one record (less
	 * than 64 KiB): room for it and cap once, not a realloc() of the
	 * whole buffer for each record.
	 */
	if (r->pend_cap < r->pend_len + cap) {
		size_t want = (r->pend_len > 65536 ? r->pend_len : 65536) + cap;
		char *np = realloc(r->pend, want);

		if (!np)
			return unsound(r, -ENOMEM,
				       "out of memory for a decompression buffer of %zu bytes", want);
		r->pend = np;
		r->pend_cap = want;
	}
	n = decomp_payload(&r->dz, rec + 8, size - 8, r->pend + r->pend_len, cap);
	if (n <= 0)
		return unsound(r, n ? (int)n : -EBADMSG,
			       "cannot decompress the COMPRESSED record at file offset %llu%s",
			       (unsigned long long)off, n == 0 ? " (it yields no data)" : "");
	r->comp_in += size;
	r->comp_out += n;
	r->pend_len += n;
	if (r->comp_out > DECOMP_FREE && r->comp_out / DECOMP_RATIO_MAX > r->comp_in)
		return unsound(r, -EFBIG,
			       "the COMPRESSED records up to file offset %llu decompress to %llu bytes, "
			       "more than %u times their size (a zstd bomb?)",
			       (unsigned long long)off, (unsigned long long)r->comp_out,
			       DECOMP_RATIO_MAX);
	return inner_records(r, off);
}

/*
 * One whole record of the file at file offset roff: counted, decompressed
 * or copied out.  After it, when no decompressed record is left half done,
 * the file could end here (clean_end).
 */
static int one_record(struct reader *r, const char *rec, u64 roff)
{
	struct perf_event_header h;
	int err;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PF_RECORD_COMPRESSED) {
		err = on_compressed(r, rec, h.size, roff);
		if (!err) {
			r->all.nr[h.type]++;
			r->all.total++;
		}
	} else {
		counts_walk(&r->all, r->per_ev, &r->idmap, rec, h.size);
		err = out_put(r, rec, h.size);
	}
	if (err)
		return err;
	counts_walk(&r->outer, NULL, &r->idmap, rec, h.size);
	if (!r->pend_len) {
		r->clean_end = roff + h.size;
		r->clean_first = r->all.first_time;
		r->clean_last = r->all.last_time;
	}
	return 0;
}

/*
 * The whole records of buf[0, have), at file offset buf_off: how many
 * bytes they take in *used.  A record that runs past end, or (salvage)
 * has a type of 0 (the zeros of a hole left by a write that never
 * completed) or out of range, is unsound.
 */
static int buf_records(struct reader *r, const char *buf, size_t have, u64 buf_off, u64 end,
		       size_t *used)
{
	size_t pos = 0;
	int err = 0;

	*used = 0;
	while (!err && pos + sizeof(struct perf_event_header) <= have) {
		struct perf_event_header h;
		u64 roff = buf_off + pos;

		memcpy(&h, buf + pos, sizeof(h));
		if (h.size < sizeof(h) || roff + h.size > end ||
		    (r->mode == READ_SALVAGE && (!h.type || h.type >= PF_RECORD_TYPE_MAX)))
			return unsound(r, -EBADMSG,
				       "corrupt record at file offset %llu (type %u, size %u)%s",
				       (unsigned long long)roff, h.type, h.size,
				       roff + h.size > end ? ": runs past the data section" : "");
		if (pos + h.size > have)
			break;
		err = one_record(r, buf + pos, roff);
		if (!err)
			pos += h.size;
	}
	*used = pos;
	return err;
}

static int walk(struct reader *r, char *buf)
{
	u64 off = r->f.h.data.offset, end = off + r->f.h.data.size;
	size_t have = 0, pos = 0;
	u64 buf_off = off;
	int err;

	while (buf_off + have < end || have) {
		u64 want = end - (buf_off + have);

		if (want > RBUF - have)
			want = RBUF - have;
		if (want) {
			err = pread_full(r->f.fd, buf + have, want, buf_off + have);
			if (err)
				return fail_set(err, "reading the data section: %s", strerror(-err));
			have += want;
		}
		err = buf_records(r, buf, have, buf_off, end, &pos);
		if (err)
			return err;
		if (pos == 0 && have == RBUF)
			return -EBADMSG;
		memmove(buf, buf + pos, have - pos);
		have -= pos;
		buf_off += pos;
		if (buf_off + have >= end && have && pos == 0)
			return unsound(r, -EBADMSG, "truncated record at the end of the data");
	}
	r->stop.good_end = end;
	if (r->pend_len)
		return unsound(r, -EBADMSG,
			       "%zu bytes of a partial record at the end of the compressed data",
			       r->pend_len);
	return 0;
}

int reader_walk(struct reader *r, int out_fd)
{
	char *buf = malloc(RBUF);
	int err;

	if (!buf)
		return fail_set(-ENOMEM, "out of memory for the read buffer");
	r->out_fd = out_fd;
	r->clean_end = r->f.h.data.offset;
	err = walk(r, buf);
	free(buf);
	r->out_fd = -1;
	if (err == READ_STOPPED) {
		/*
		 * Back to the last record after which no decompressed record
		 * was left half done: a compressed unit can span several
		 * COMPRESSED records, and the file must not end inside one.
		 */
		r->stop.good_end = r->clean_end;
		err = 0;
	}
	if (err || r->mode != READ_SALVAGE)
		return err;
	/* the sample times: not those of the records decoded past clean_end */
	r->stop.first_time = r->stop.good_end == r->clean_end ? r->clean_first : r->all.first_time;
	r->stop.last_time = r->stop.good_end == r->clean_end ? r->clean_last : r->all.last_time;
	r->stop.dropped = r->f.h.data.offset + r->f.h.data.size - r->stop.good_end;
	r->f.h.data.size = r->stop.good_end - r->f.h.data.offset;
	return 0;
}

static int open_idmap(struct reader *r)
{
	/* on the heap: the number of events comes from the file */
	const u64 **ids = calloc(r->f.nr_evs + 1, sizeof(*ids));
	int *nids = calloc(r->f.nr_evs + 1, sizeof(*nids));
	int err = ids && nids ? 0 : -ENOMEM;

	for (int e = 0; !err && e < r->f.nr_evs; e++) {
		ids[e] = r->f.evs[e].ids;
		nids[e] = r->f.evs[e].nr_ids;
	}
	if (!err)
		err = idmap_build(&r->idmap, ids, nids, r->f.nr_evs,
				  r->f.nr_evs ? r->f.evs[0].attr.sample_type : 0);
	free(ids);
	free(nids);
	if (err)
		return fail_set(err, "building the map of sample ids: %s", strerror(-err));
	return 0;
}

int reader_open(struct reader *r, const char *path, enum read_mode mode, bool force)
{
	bool salvage = mode == READ_SALVAGE;
	int err;

	memset(r, 0, sizeof(*r));
	r->out_fd = -1;
	r->mode = mode;
	if (!force)
		err = pf_open_owned(&r->f, path, salvage);
	else
		err = salvage ? pf_open_salvage(&r->f, path) : pf_open(&r->f, path);
	if (err)
		return fail_set(err, "%s", r->f.errmsg[0] ? r->f.errmsg : strerror(-err));
	err = open_idmap(r);
	if (err)
		return err;
	r->per_ev = calloc(2 * r->f.nr_evs + 1, sizeof(u64));
	return r->per_ev ? 0 : fail_set(-ENOMEM, "%s", strerror(ENOMEM));
}

void reader_close(struct reader *r)
{
	if (r->dz_on)
		decomp_free(&r->dz);
	free(r->pend);
	free(r->per_ev);
	idmap_free(&r->idmap);
	pf_close(&r->f);
	memset(r, 0, sizeof(*r));
	r->f.fd = -1;
	r->out_fd = -1;
}
