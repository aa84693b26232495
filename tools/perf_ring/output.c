// SPDX-License-Identifier: GPL-2.0
/*
 * The output files of a recording: header first, records through the
 * writer (counted on the way), then features and the final header.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "tracing.h"

void rec_fail(struct rec *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->fail)
		return;
	r->fail = err ? err : -EIO;
	va_start(ap, fmt);
	vsnprintf(r->fail_msg, sizeof(r->fail_msg), fmt, ap);
	va_end(ap);
}

void rec_snapshot_name(struct rec *r, char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(buf, len, "%s.%s%03ld", r->o->output, stamp, ts.tv_nsec / 1000000);
	for (int i = 1; access(buf, F_OK) == 0; i++)
		snprintf(buf, len, "%s.%s%03ld-%d", r->o->output, stamp,
			 ts.tv_nsec / 1000000, i);
}

int rec_file_open(struct rec *r, const char *path)
{
	struct writer_opts wo = {
		.aio = r->o->aio, .level = r->o->level,
		.chunk_size = CHUNK_SIZE, .nchunks = NR_CHUNKS,
	};
	int err;

	snprintf(r->out_path, sizeof(r->out_path), "%s", path);
	r->out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (r->out_fd < 0) {
		err = -errno;
		rec_fail(r, err, "cannot create output '%s': %s", path, strerror(errno));
		return err;
	}
	memset(&r->cnt, 0, sizeof(r->cnt));
	r->round_bytes = 0;
	memset(r->ev_samples, 0, r->nev * sizeof(u64));
	r->data_off = pf_data_offset(r->evs, r->nev);
	err = pf_write_head(r->out_fd, r->evs, r->nev, 0, NULL);
	if (err) {
		rec_fail(r, err, "writing the header of '%s': %s", path, strerror(-err));
		return err;
	}
	err = writer_start(&r->w, r->out_fd, r->data_off, &wo);
	if (err) {
		rec_fail(r, err, "starting the writer for '%s': %s", path, strerror(-err));
		return err;
	}
	r->writer_on = true;
	r->cur = NULL;
	return 0;
}

/* Room for len bytes in the current chunk; NULL once the writer failed. */
char *rec_chunk_room(struct rec *r, size_t len)
{
	if (r->cur && r->cur->cap - r->cur->len >= len)
		return r->cur->buf + r->cur->len;
	if (r->cur) {
		writer_put(&r->w, r->cur);
		r->cur = NULL;
	}
	r->cur = writer_get(&r->w);
	if (!r->cur)
		return NULL;
	return r->cur->buf;
}

/* Append whole records to the file; they are counted on the way. */
int rec_emit(struct rec *r, const void *buf, size_t len)
{
	const char *p = buf;

	counts_walk(&r->cnt, r->ev_samples, &r->idmap, buf, len);
	while (len) {
		size_t n = 0;
		char *dst;

		/* cut on record boundaries, at most one chunk at a time */
		while (n < len) {
			struct perf_event_header h;

			memcpy(&h, p + n, sizeof(h));
			if (n + h.size > CHUNK_SIZE)
				break;
			n += h.size;
		}
		dst = rec_chunk_room(r, n);
		if (!dst)
			return -EIO;
		memcpy(dst, p, n);
		r->cur->len += n;
		p += n;
		len -= n;
	}
	return 0;
}

int rec_emit_round(struct rec *r)
{
	struct perf_event_header h = { .type = PF_RECORD_FINISHED_ROUND, .size = sizeof(h) };

	return rec_emit(r, &h, sizeof(h));
}

int rec_file_close(struct rec *r, bool *ok)
{
	struct pf_meta meta = {
		.argc = r->o->argc, .argv = r->o->argv,
		.first_time = r->cnt.first_time, .last_time = r->cnt.last_time,
		.tracefs = tracefs_path(),
		.flight = r->o->overwrite,
		.overwritten = r->snap_overwritten,
		.snapshot = r->nfiles + 1,
	};
	u64 features[PF_FEAT_BITS / 64] = { 0 };
	struct pbuf fb = { 0 };
	u64 data_size;
	int werr, err;

	if (!r->writer_on)
		return 0;
	if (r->cur) {
		if (r->cur->len)
			writer_put(&r->w, r->cur);
		else
			writer_release(&r->w, r->cur);
		r->cur = NULL;
	}
	werr = writer_finish(&r->w, &data_size);
	r->writer_on = false;
	r->writer_used = writer_kind(&r->w);
	if (r->o->level) {
		meta.comp.on = true;
		meta.comp.level = r->o->level;
		meta.comp.ratio = r->w.out_bytes ? (r->w.raw_bytes + r->w.out_bytes / 2) / r->w.out_bytes : 0;
		meta.comp.mmap_len = COMP_MMAP_LEN;
	}
	if (werr) {
		rec_fail(r, werr, "writing '%s': %s; the file keeps the %llu bytes of data written before the failure",
		     r->out_path, strerror(-werr), (unsigned long long)data_size);
		/* the records counted but not on file are unknown: recount is in report */
	}
	/*
	 * Drop any partial write beyond what is known to be on file, then
	 * the features.  If they do not fit (ENOSPC), cut the data back one
	 * write at a time (whole records) to make room for them: a file
	 * without its tracing data cannot be decoded.
	 */
	for (int tries = 0;; tries++) {
		if (ftruncate(r->out_fd, r->data_off + data_size) && !werr)
			werr = -errno;
		pbuf_free(&fb);
		err = pf_build_features(r->evs, r->nev, &meta, r->data_off + data_size, features, &fb);
		if (!err)
			err = pwrite_full(r->out_fd, fb.p, fb.len, r->data_off + data_size);
		if (!err || err != -ENOSPC || tries >= 64 || !data_size)
			break;
		data_size = writer_boundary_before(&r->w, data_size);
		fprintf(stderr, "perf-ring record: '%s': no room for the feature sections; "
			"data cut back to %llu bytes\n", r->out_path, (unsigned long long)data_size);
	}
	if (err) {
		if (ftruncate(r->out_fd, r->data_off + data_size)) {
			/* nothing more to do */
		}
		memset(features, 0, sizeof(features));
		fprintf(stderr, "perf-ring record: '%s': feature sections not written: %s\n",
			r->out_path, strerror(-err));
	}
	writer_free(&r->w);
	pbuf_free(&fb);
	err = pf_write_head(r->out_fd, r->evs, r->nev, data_size, features);
	if (err)
		rec_fail(r, err, "finalizing the header of '%s': %s", r->out_path, strerror(-err));
	if (close(r->out_fd) && !err) {
		err = -errno;
		rec_fail(r, err, "closing '%s': %s", r->out_path, strerror(errno));
	}
	r->out_fd = -1;
	r->run_raw += r->w.raw_bytes;
	r->run_out += r->w.out_bytes;
	r->run_samples += r->cnt.nr[PERF_RECORD_SAMPLE];
	/* flight recorder: the kernel's lost counts, read at each snapshot */
	r->run_lost = r->o->overwrite ? r->run_lost_new : r->run_lost + r->cnt.lost;
	r->run_records += r->cnt.total;
	r->nfiles++;
	if (r->o->verbose) {
		fprintf(stderr, "perf-ring record: reader waited %.1f ms for buffers; "
			"writer: compress %.1f ms, write %.1f ms, %llu writes\n",
			r->w.get_wait_ns / 1e6, r->w.comp_ns / 1e6, r->w.write_ns / 1e6,
			(unsigned long long)r->w.nwrites);
		fprintf(stderr, "perf-ring record: %s: %llu records", r->out_path,
			(unsigned long long)r->cnt.total);
		for (int t = 0; t < PF_RECORD_TYPE_MAX; t++)
			if (r->cnt.nr[t])
				fprintf(stderr, ", %s %llu", pf_record_name(t) ?: "?",
					(unsigned long long)r->cnt.nr[t]);
		fprintf(stderr, "\n");
	}
	if (ok)
		*ok = !werr && !err;
	return werr ?: err;
}

int rec_emit_synth(struct rec *r)
{
	struct perf_event_header h = { .type = PF_RECORD_FINISHED_INIT, .size = sizeof(h) };
	int err = 0;

	if (r->synth.len)
		err = rec_emit(r, r->synth.p, r->synth.len);
	if (!err && r->synth_live.len)
		err = rec_emit(r, r->synth_live.p, r->synth_live.len);
	if (!err)
		err = rec_emit(r, &h, sizeof(h));
	return err;
}
