// SPDX-License-Identifier: GPL-2.0
/*
 * The output file of a recording (output.h); the formats are out-file.c
 * and out-pipe.c (out-format.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "buildid.h"
#include "compress.h"
#include "fail.h"
#include "hostinfo.h"
#include "memlimit.h"
#include "out-format.h"
#include "output.h"
#include "tracing.h"

struct out_file {
	struct out_opts o;
	const struct evlist *el;
	const struct out_format *fmt;	/* the open file's, or the last one's */
	struct out_target t;		/* the file as its format sees it */
	bool memfs;			/* on tmpfs: its pages are memory (memlimit.h) */
	bool mem_stop;			/* the memory limit stopped it */
	u64 expect_raw;			/* bytes the next file will hold (0: a stream) */
	struct writer *w;		/* the open file's writer */
	struct writer *spare;		/* the last file's, for the next (out_close()) */
	char uring_err[96];		/* why the last writer did not use io_uring */
	bool on;			/* a file is open */
	struct chunk *cur;
	struct pf_counts cnt;		/* this file */
	struct out_totals tot;		/* every closed file */
	u64 put_ns;			/* when a chunk last went to the writer */
	char **kept;			/* the files kept, oldest first */
	int nkept;
	struct bidset bids;		/* this file's DSOs (its MMAP, MMAP2 records) */
	struct bidset known;		/* every DSO so far: build-ids read, cached */
	bool cache_warned;
	struct pbuf tracing;		/* TRACING_DATA, read by out_prepare() */
	struct hostinfo host;		/* the host's features, for every file */
};

const struct out_format *out_format_for(const char *path)
{
	return path[0] == '-' && !path[1] ? &out_format_pipe : &out_format_file;
}

bool out_streams(const char *path)
{
	return out_format_for(path)->stream;
}

bool out_to_stdout(const char *path)
{
	return out_format_for(path)->to_stdout;
}

void out_name_stamp(const char *base, char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(buf, len, "%s.%s%03ld", base, stamp, ts.tv_nsec / 1000000);
}

void out_name_stamped(const char *base, char *buf, size_t len)
{
	char first[4400];

	out_name_stamp(base, first, sizeof(first));
	snprintf(buf, len, "%s", first);
	for (int i = 1; access(buf, F_OK) == 0; i++)
		snprintf(buf, len, "%s-%d", first, i);
}

/*
 * An MMAP2 record flagged as carrying a build-id although perf-ring did
 * not ask for build-ids: a kernel that leaks the flag (bidleak.h) set it
 * because another recorder on the host asks for them.  Its body holds
 * the device and inode, so the flag goes, or perf would read them as a
 * build-id (perf 6.1 aborts).  Every buffer walked here is perf-ring's
 * own copy: a chunk, the side-band store, the synthesized records.
 */
static void out_on_map(void *ctx, const char *rec)
{
	struct out_file *f = ctx;
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_MMAP2 && (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
	    !evlist_tracker(f->el)->attr.build_id) {
		h.misc &= ~PERF_RECORD_MISC_MMAP_BUILD_ID;
		memcpy((char *)rec, &h, sizeof(h));
	}
	if (!f->o.no_buildid)
		bidset_scan_map(&f->bids, rec);
}

/*
 * The build-ids of this file's DSOs and of the kernel: from the kernel's
 * MMAP2 records where it put them there (attr.build_id), else from the
 * files' ELF notes, read once per run.  Then into perf's build-id cache,
 * once per run, unless --no-buildid-cache.  What has no build-id is left
 * out, as perf leaves it out.
 */
static void out_build_ids(struct out_file *f, struct pbuf *b)
{
	char dir[4096];
	bool cache = !f->o.no_buildid_cache && !buildid_cache_dir(dir, sizeof(dir));

	if (!bidset_find(&f->known, BUILDID_KERNEL_NAME)) {
		u8 id[BUILD_ID_MAX], size = 0;
		struct dso_bid *k;

		buildid_kernel(id, &size);
		k = bidset_add(&f->known, BUILDID_KERNEL_NAME, size ? id : NULL, size, true);
		if (k)
			k->tried = true;
	}
	bidset_add(&f->bids, BUILDID_KERNEL_NAME, NULL, 0, true);
	for (int i = 0; i < f->bids.n; i++) {
		struct dso_bid *d = &f->bids.v[i];
		struct dso_bid *k = bidset_add(&f->known, d->name, d->size ? d->id : NULL,
					       d->size, d->kernel);

		if (!k)
			continue;
		if (!k->size && !k->tried)
			buildid_from_elf(k->name, k->id, &k->size);
		k->tried = true;
		if (!d->size && k->size) {
			d->size = k->size;
			memcpy(d->id, k->id, k->size);
		}
		if (cache && k->size && !k->cached) {
			int err = buildid_cache_add(dir, k);

			k->cached = true;	/* tried: not again */
			if (err && !f->cache_warned && !f->o.quiet) {
				fprintf(stderr, "perf-ring record: build-id cache %s: %s: %s "
					"(perf report may name the wrong functions after a rebuild)\n",
					dir, k->name, strerror(-err));
				f->cache_warned = true;
			}
		}
	}
	buildid_section(&f->bids, b);
}

/*
 * Memory a file takes while it is written (an upper bound: malloc'd memory
 * counts only once touched).  A stream fills every one of the writer's
 * nchunks chunks, and as many compressed copies as writes are in flight.
 * A file of raw bytes (a snapshot) touches only that much of the chunks,
 * and at most its zstd bound of copies.  Both add zstd's state and, on
 * tmpfs, the file's own pages.
 */
static u64 file_need(const struct out_file *f, u64 raw, int nchunks, bool memfs)
{
	/* a kept writer (f->spare) has zstd's state already, in use */
	u64 ctx = f->spare && f->o.level ? comp_ctx_need(f->o.level) : 0;
	u64 nslots = f->o.aio > 0 ? f->o.aio : 1;
	u64 need;

	if (!raw) {
		need = (u64)nchunks * CHUNK_SIZE;
		if (f->o.level)
			need += ((u64)nchunks < nslots ? (u64)nchunks : nslots) *
				comp_bound(CHUNK_SIZE);
	} else {
		need = raw + (raw / CHUNK_SIZE + 1) * 4096;
		if (f->o.level)
			need += comp_file_bound(raw);
		if (memfs)
			need += f->o.level ? comp_file_bound(raw) : raw;
	}
	if (f->o.level)
		need += comp_mem_need(f->o.level, raw) - ctx;
	return need;
}

u64 out_mem_need(const struct out_file *f, u64 raw)
{
	bool memfs = !out_streams(f->o.output) && memlimit_memfs(f->o.output);

	/* a stream's queue can be as short as two chunks (mem_chunks()) */
	return file_need(f, raw, raw ? NR_CHUNKS : 2, memfs);
}

/*
 * Under a memory limit, the writer's queue (NR_CHUNKS chunks while
 * streaming) is made as short as the room allows, down to two chunks, one
 * filling while the other is written; then the file's need must fit.
 */
static int mem_chunks(struct out_file *f, const char *path, int *nchunks)
{
	char what[sizeof(f->t.path) + 32];
	int64_t room = memlimit_room();

	if (!memlimit_on())
		return 0;
	while (*nchunks > 2 &&
	       (int64_t)(file_need(f, f->expect_raw, *nchunks, f->memfs) + MEMLIMIT_RESERVE) > room)
		(*nchunks)--;
	snprintf(what, sizeof(what), "%s '%s'", f->expect_raw ? "the snapshot" : "the output",
		 path);
	return memlimit_check(file_need(f, f->expect_raw, *nchunks, f->memfs), what);
}

int out_open(struct out_file *f, const char *path)
{
	struct writer_opts wo = {
		.aio = f->o.aio, .level = f->o.level,
		.chunk_size = CHUNK_SIZE, .nchunks = NR_CHUNKS,
	};
	int err;

	f->fmt = out_format_for(path);
	f->memfs = !f->fmt->stream && memlimit_on() && memlimit_memfs(path);
	/*
	 * A stream's last writer has its memory, and in use: nothing to
	 * check.  A snapshot's gave its pages back (writer_trim()): the
	 * snapshot takes them again.
	 */
	err = f->spare && !f->o.flight ? 0 : mem_chunks(f, path, &wo.nchunks);
	f->expect_raw = 0;
	if (err) {
		f->mem_stop = true;
		return err;
	}

	f->put_ns = now_ns();
	memset(&f->cnt, 0, sizeof(f->cnt));
	bidset_reset(&f->bids);
	f->cnt.on_map = out_on_map;
	f->cnt.map_ctx = f;
	err = f->fmt->open(&f->t, path);
	if (err)
		return err;
	wo.stream = f->fmt->stream;
	wo.touch = f->o.switching;
	wo.in_caller = f->o.flight;
	if (f->spare) {
		f->w = f->spare;
		f->spare = NULL;
		err = writer_restart(f->w, f->t.fd, f->t.data_off);
		if (err) {
			writer_free(f->w);
			f->w = NULL;
		}
	} else {
		err = writer_start(&f->w, f->t.fd, f->t.data_off, &wo);
	}
	if (err) {
		fail_set(err, "starting the writer for '%s': %s", f->t.path, strerror(-err));
		f->fmt->undo(&f->t);
		return err;
	}
	/* the header the format left for the first data (out-format.h) */
	if (f->t.head.len)
		writer_set_head(f->w, f->t.head.p, f->t.head.len);
	f->on = true;
	f->cur = NULL;
	return 0;
}

int out_rename(struct out_file *f, const char *path)
{
	if (!f->on || !f->fmt->rename)
		return -EINVAL;
	return f->fmt->rename(&f->t, path);
}

/*
 * A chunk that goes to a file on tmpfs is memory of the cgroup's: under a
 * limit, it must fit before it is written.
 */
static bool mem_put_ok(struct out_file *f)
{
	char what[sizeof(f->t.path) + 32];

	if (!f->memfs || f->mem_stop)
		return !f->mem_stop;
	snprintf(what, sizeof(what), "writing '%s' (on tmpfs)", f->t.path);
	if (memlimit_check(f->o.level ? comp_bound(CHUNK_SIZE) : CHUNK_SIZE, what))
		f->mem_stop = true;
	return !f->mem_stop;
}

char *out_space(struct out_file *f, size_t want, size_t *room)
{
	if (f->mem_stop)
		return NULL;
	if (!f->cur || f->cur->cap - f->cur->len < want) {
		if (f->cur && !mem_put_ok(f))
			return NULL;
		if (f->cur) {
			writer_put(f->w, f->cur);
			f->put_ns = now_ns();
		}
		f->cur = writer_get(f->w);
		if (!f->cur)
			return NULL;
	}
	*room = f->cur->cap - f->cur->len;
	return f->cur->buf + f->cur->len;
}

void out_flush_idle(struct out_file *f, u64 ns)
{
	u64 now;

	if (!f->cur || !f->cur->len)
		return;
	now = now_ns();
	if (now - f->put_ns < ns)
		return;
	writer_put(f->w, f->cur);
	f->cur = NULL;
	f->put_ns = now;
}

int out_commit(struct out_file *f, size_t n)
{
	u64 lost = f->cnt.nr[PERF_RECORD_LOST];
	int err = counts_walk(&f->cnt, NULL, &f->el->idmap, f->cur->buf + f->cur->len, n);

	if (err)
		return err;
	/* a ring holds no FINISHED_ROUND; a LOST the writer takes out */
	if (f->cnt.nr[PERF_RECORD_LOST] != lost)
		chunk_mark_outside(f->cur, f->cur->len, f->cur->len + n);
	f->cur->len += n;
	return 0;
}

int out_emit(struct out_file *f, const void *buf, size_t len)
{
	const char *p = buf;

	counts_walk(&f->cnt, NULL, &f->el->idmap, buf, len);
	while (len) {
		size_t n = 0, room, lo = 0, hi = 0;
		char *dst;

		/* cut on record boundaries, at most one chunk at a time */
		while (n < len) {
			struct perf_event_header h;

			memcpy(&h, p + n, sizeof(h));
			if (n + h.size > CHUNK_SIZE)
				break;
			if (writer_outside_stream(h.type)) {
				if (!hi)
					lo = n;
				hi = n + h.size;
			}
			n += h.size;
		}
		dst = out_space(f, n, &room);
		if (!dst)
			return -EIO;
		if (hi)
			chunk_mark_outside(f->cur, f->cur->len + lo, f->cur->len + hi);
		memcpy(dst, p, n);
		f->cur->len += n;
		p += n;
		len -= n;
	}
	return 0;
}

int out_emit_round(struct out_file *f)
{
	struct perf_event_header h = { .type = PF_RECORD_FINISHED_ROUND, .size = sizeof(h) };

	return out_emit(f, &h, sizeof(h));
}

/*
 * --switch-max-files: remember the file just closed, and delete the
 * oldest ones beyond the limit.  Only files named by time take part: the
 * plain output name is never deleted.
 */
static void keep_file(struct out_file *f)
{
	char **v;

	if (!f->o.max_files || !strcmp(f->t.path, f->o.output))
		return;
	v = realloc(f->kept, (f->nkept + 1) * sizeof(*v));
	if (!v)
		return;
	f->kept = v;
	f->kept[f->nkept] = strdup(f->t.path);
	if (!f->kept[f->nkept])
		return;
	f->nkept++;
	while (f->nkept > f->o.max_files) {
		if (unlink(f->kept[0]) && errno != ENOENT)
			fprintf(stderr, "perf-ring record: --switch-max-files: cannot delete '%s': %s\n",
				f->kept[0], strerror(errno));
		else if (f->o.verbose)
			fprintf(stderr, "perf-ring record: deleted '%s' (--switch-max-files=%d)\n",
				f->kept[0], f->o.max_files);
		free(f->kept[0]);
		memmove(f->kept, f->kept + 1, (f->nkept - 1) * sizeof(*f->kept));
		f->nkept--;
	}
}

/*
 * The last chunk goes to the writer.  Stopped by the memory limit, it is
 * written only if it fits (tmpfs): the file is then whole up to the
 * chunk before.
 */
static void put_last_chunk(struct out_file *f)
{
	if (!f->cur)
		return;
	if (f->cur->len && (!f->mem_stop || !f->memfs ||
			    memlimit_room() >= (int64_t)(f->cur->len + MEMLIMIT_RESERVE / 2)))
		writer_put_last(f->w, f->cur);
	else
		writer_release(f->w, f->cur);
	f->cur = NULL;
}

/*
 * What follows the data, laid out before the last chunk goes when the
 * writer can write it with that chunk (a snapshot: its writer runs here,
 * uncompressed): the feature sections, and the final header while it
 * waits for the first data.  A snapshot of one chunk is then one
 * pwritev(), header, data and features; of more, the last chunk and the
 * features are one, and the header is written after.
 */
static void seal(struct out_file *f, struct out_end *e)
{
	u64 size;

	if (!f->fmt->seal || !f->cur || !f->cur->len || f->mem_stop)
		return;
	size = writer_size_with(f->w, f->cur);
	if (!size)
		return;
	e->head_with_tail = writer_head_pending(f->w);
	if (!f->fmt->seal(&f->t, e, size, e->head_with_tail)) {
		e->head_with_tail = false;
		return;
	}
	e->sealed_size = size;
	writer_set_tail(f->w, f->t.tail.p, f->t.tail.len);
}

/* The file's totals join the run's; -v says what the writer did. */
static void account(struct out_file *f, const struct writer_stats *ws)
{
	f->tot.raw += ws->raw_bytes;
	f->tot.out += ws->out_bytes;
	f->tot.samples += f->cnt.nr[PERF_RECORD_SAMPLE];
	f->tot.lost += f->cnt.lost;
	f->tot.records += f->cnt.total;
	f->tot.nfiles++;
	if (!f->o.verbose)
		return;
	fprintf(stderr, "perf-ring record: reader waited %.1f ms for buffers; "
		"writer: compress %.1f ms, write %.1f ms, %llu writes, %llu retried\n",
		ws->get_wait_ns / 1e6, ws->comp_ns / 1e6, ws->write_ns / 1e6,
		(unsigned long long)ws->nwrites, (unsigned long long)ws->retries);
	fprintf(stderr, "perf-ring record: %s: %llu records", f->t.path,
		(unsigned long long)f->cnt.total);
	for (int t = 0; t < PF_RECORD_TYPE_MAX; t++)
		if (f->cnt.nr[t])
			fprintf(stderr, ", %s %llu", pf_record_name(t) ?: "?",
				(unsigned long long)f->cnt.nr[t]);
	fprintf(stderr, "\n");
}

int out_close(struct out_file *f, const struct out_snap *snap, bool *ok)
{
	struct pf_meta meta = {
		.argc = f->o.argc, .argv = f->o.argv,
		.first_time = f->cnt.first_time, .last_time = f->cnt.last_time,
		/* the formats were read at the start (out_prepare()), else now */
		.tracefs = f->tracing.len ? NULL : tracefs_path(),
		.tracing = f->tracing.len ? &f->tracing : NULL,
		.flight = f->o.flight,
		.overwritten = snap ? snap->overwritten : 0,
		.whole = snap && snap->whole,
		.window_start = snap ? snap->window_start : 0,
		.snapshot = f->tot.nfiles + 1,
	};
	struct pbuf bids = { 0 };
	struct out_end e = { .meta = &meta, .bids = &bids, .w = f->w };
	struct writer_stats ws;
	int err;

	if (!f->on)
		return 0;
	if (!hostinfo_refresh(&f->host))
		meta.host = &f->host;
	if (!f->o.no_buildid) {
		out_build_ids(f, &bids);
		meta.build_ids = &bids;
	}
	seal(f, &e);
	put_last_chunk(f);
	e.werr = writer_finish(f->w, &e.data_size);
	e.tail_written = e.sealed_size && writer_tail_written(f->w);
	f->on = false;
	f->tot.writer_used = writer_kind(f->w);
	writer_get_stats(f->w, &ws);
	snprintf(f->uring_err, sizeof(f->uring_err), "%s", writer_uring_err(f->w));
	if (f->o.level) {
		meta.comp.on = true;
		meta.comp.level = f->o.level;
		meta.comp.ratio = ws.out_bytes ? (ws.raw_bytes + ws.out_bytes / 2) / ws.out_bytes : 0;
		meta.comp.mmap_len = COMP_MMAP_LEN;
	}
	err = f->fmt->finish(&f->t, &e);
	/*
	 * Cut back (a full disk): the bytes on file, not those handed to the
	 * writer, and the raw bytes in the same proportion (-z's ratio).
	 */
	if (e.werr && e.data_size < ws.out_bytes) {
		ws.raw_bytes = (u64)((double)ws.raw_bytes * e.data_size / ws.out_bytes);
		ws.out_bytes = e.data_size;
	}
	/*
	 * The next file (--switch-output, the next snapshot) takes this
	 * writer as it is, thread, io_uring and buffers: a file costs what
	 * it writes, not a writer's start.  A flight recorder idles between
	 * snapshots: its writer's buffers give their pages back until the
	 * next one (writer_trim()).
	 */
	f->spare = f->w;
	f->w = NULL;
	if (f->o.flight)
		writer_trim(f->spare);
	pbuf_free(&bids);
	account(f, &ws);
	keep_file(f);
	if (ok)
		*ok = !e.werr && !err;
	return e.werr ?: err;
}

int out_emit_synth(struct out_file *f, const struct pbuf *a, const struct pbuf *b)
{
	struct perf_event_header h = { .type = PF_RECORD_FINISHED_INIT, .size = sizeof(h) };
	int err = 0;

	if (a && a->len)
		err = out_emit(f, a->p, a->len);
	if (!err && b && b->len)
		err = out_emit(f, b->p, b->len);
	if (!err)
		err = out_emit(f, &h, sizeof(h));
	return err;
}

struct out_file *out_new(const struct out_opts *o, const struct evlist *el)
{
	struct out_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->o = *o;
	f->el = el;
	f->fmt = out_format_for(o->output);
	f->t = (struct out_target){ .o = &f->o, .el = el, .fd = -1 };
	return f;
}

void out_expect(struct out_file *f, u64 raw)
{
	f->expect_raw = raw;
}

void out_cpus_online(struct out_file *f, const char *online)
{
	hostinfo_cpus_seen(&f->host, online);
}

int out_prepare(struct out_file *f)
{
	const char *tfs = tracefs_path();
	bool tp = false;
	int err;

	/*
	 * The host's features, read now rather than at the first file's
	 * end, where a snapshot's cost would grow with the CPUs.  A failure
	 * here is retried there.
	 */
	hostinfo_refresh(&f->host);
	for (int i = 0; i < f->el->nev; i++)
		if (f->el->evs[i].tp_sys[0])
			tp = true;
	if (!tp || out_format_for(f->o.output)->tracing_in_head)
		return 0;
	err = tracing_data_build(f->el->evs, f->el->nev, tfs, &f->tracing) ?: f->tracing.err;
	if (err) {
		pbuf_free(&f->tracing);
		return fail_set(err, "reading the tracepoint formats from %s: %s",
				tfs ? tfs : "tracefs (not mounted)", strerror(-err));
	}
	return 0;
}

bool out_failed(struct out_file *f)
{
	return f->mem_stop || (f->w && writer_failed(f->w));
}

u64 out_bytes(struct out_file *f)
{
	if (!f->on)
		return 0;
	if (f->o.level)
		return writer_out_bytes(f->w);
	return f->cnt.bytes;
}

bool out_is_open(const struct out_file *f)
{
	return f->on;
}

const char *out_path(const struct out_file *f)
{
	return f->t.path;
}

const struct pf_counts *out_counts(const struct out_file *f)
{
	return &f->cnt;
}

const struct out_totals *out_totals(const struct out_file *f)
{
	return &f->tot;
}

u64 out_bytes_kept(const struct out_file *f)
{
	struct stat sb;
	u64 bytes = 0;

	if (!f->nkept)
		return f->tot.out;
	for (int i = 0; i < f->nkept; i++)
		if (!stat(f->kept[i], &sb))
			bytes += sb.st_size;
	return bytes;
}

const char *out_uring_err(const struct out_file *f)
{
	return f->uring_err;
}

void out_free(struct out_file *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nkept; i++)
		free(f->kept[i]);
	free(f->kept);
	f->kept = NULL;
	f->nkept = 0;
	bidset_free(&f->bids);
	bidset_free(&f->known);
	pbuf_free(&f->tracing);
	pbuf_free(&f->t.head);
	pbuf_free(&f->t.tail);
	hostinfo_free(&f->host);
	writer_free(f->spare);
	free(f);
}
