// SPDX-License-Identifier: GPL-2.0
/*
 * The output file of a recording (output.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "buildid.h"
#include "compress.h"
#include "fail.h"
#include "memlimit.h"
#include "output.h"
#include "safefile.h"
#include "tracing.h"

void out_name_stamped(const char *base, char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(buf, len, "%s.%s%03ld", base, stamp, ts.tv_nsec / 1000000);
	for (int i = 1; access(buf, F_OK) == 0; i++)
		snprintf(buf, len, "%s.%s%03ld-%d", base, stamp,
			 ts.tv_nsec / 1000000, i);
}

/*
 * As perf: an existing, non-empty output becomes OUTPUT.old, and when
 * that fails the recording does not start (perf's check_backup()).  Only
 * a regular file is moved: a link or a fifo at the name is not followed.
 * check: only look whether the move can be done.
 */
static int keep_old(const char *path, bool check)
{
	char old[4200];
	struct stat st;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return 0;
	snprintf(old, sizeof(old), "%s.old", path);
	/* perf removes an old perf.data directory; a directory is not removed here */
	if (!lstat(old, &st) && S_ISDIR(st.st_mode))
		return fail_set(-EISDIR, "Can't remove old data: %s (%s)", strerror(EISDIR), old);
	if (check)
		return 0;
	if (rename(path, old))
		return fail_set(-errno, "Can't move data: %s (%s to %s)", strerror(errno), path, old);
	return 0;
}

int out_check(const char *path)
{
	struct safefile sf;
	int err = keep_old(path, true);

	if (err)
		return err;
	/* the directory takes new files */
	err = safefile__create(&sf, path, 0600);
	if (err)
		return fail_set(err, "cannot create output '%s': %s", path, strerror(-err));
	safefile__abort(&sf);
	return 0;
}

/*
 * A PATH.partial found where a snapshot is to be written is a snapshot
 * an earlier recording left (killed while writing it), or something
 * planted: moved aside, never truncated or followed.
 */
static int partial_aside(const char *tmp)
{
	char aside[4200];
	struct stat st;

	if (lstat(tmp, &st))
		return 0;
	out_name_stamped(tmp, aside, sizeof(aside));
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, aside, RENAME_NOREPLACE))
		return fail_set(-errno, "'%s' is left over from an earlier recording and cannot be "
				"moved aside: %s; recover it with 'perf-ring report --recover -i %s -o OUT' "
				"or remove it", tmp, strerror(errno), tmp);
	if (S_ISREG(st.st_mode))
		fprintf(stderr, "perf-ring record: '%s' was left over from an earlier recording: "
			"moved to '%s' ('perf-ring report --recover -i %s -o OUT' makes a file "
			"perf reads)\n", tmp, aside, aside);
	else
		fprintf(stderr, "perf-ring record: '%s' is %s, not a snapshot: moved to '%s'\n",
			tmp, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file", aside);
	return 0;
}

/*
 * The output file: created with O_EXCL|O_NOFOLLOW, else an empty regular
 * file of ours reused; a time-stamped name (switched) that is taken gets
 * -N added, as out_name_stamped() would have.
 */
static int open_output(struct out_file *f, const char *path, char *used, size_t len)
{
	bool stamped = strcmp(path, f->o->output);
	int fd;

	snprintf(used, len, "%s", path);
	fd = safefile__open(path, 0600, !stamped);
	for (int i = 1; fd == -EEXIST && stamped && i < 1000; i++) {
		snprintf(used, len, "%s-%d", path, i);
		fd = safefile__open(used, 0600, false);
	}
	if (fd == -EEXIST)
		return fail_set(-EEXIST, "cannot create output '%s': it is %s; perf-ring does not "
				"write through links or fifos, nor over other users' files",
				used, safefile__what(used));
	if (fd < 0)
		return fail_set(fd, "cannot create output '%s': %s", used, strerror(-fd));
	return fd;
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
	if (!f->o->no_buildid)
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
	bool cache = !f->o->no_buildid_cache && !buildid_cache_dir(dir, sizeof(dir));

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
			if (err && !f->cache_warned && !f->o->quiet) {
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
 * -o -: the header, attributes, features and tracing data as records
 * ahead of the data (pf_build_pipe_head()).  Nothing can be written
 * back later, so what only the end knows is left out or sent last.
 */
static int out_open_pipe(struct out_file *f, struct writer_opts *wo)
{
	struct pf_meta meta = {
		.argc = f->o->argc, .argv = f->o->argv,
		.tracefs = tracefs_path(),
	};
	struct pbuf b = { 0 };
	int err;

	if (isatty(STDOUT_FILENO))
		return fail_set(-EINVAL, "-o -: standard output is a terminal; "
				"redirect it to a file or a pipe (perf script -i -)");
	f->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (f->fd < 0)
		return fail_set(-errno, "standard output: %s", strerror(errno));
	if (f->o->level) {
		meta.comp.on = true;
		meta.comp.level = f->o->level;
		meta.comp.mmap_len = COMP_MMAP_LEN;
	}
	err = pf_build_pipe_head(f->el->evs, f->el->nev, &meta, &b);
	if (!err)
		err = write_full(f->fd, b.p, b.len);
	pbuf_free(&b);
	if (err)
		return fail_set(err, "writing the pipe header to standard output: %s",
				strerror(-err));
	wo->stream = true;
	f->data_off = 0;
	return 0;
}

static void partial_name(const struct out_file *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s.partial", f->path);
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
	u64 nslots = f->o->aio > 0 ? f->o->aio : 1;
	u64 need;

	if (!raw) {
		need = (u64)nchunks * CHUNK_SIZE;
		if (f->o->level)
			need += ((u64)nchunks < nslots ? (u64)nchunks : nslots) *
				comp_bound(CHUNK_SIZE);
	} else {
		need = raw + (raw / CHUNK_SIZE + 1) * 4096;
		if (f->o->level)
			need += comp_file_bound(raw);
		if (memfs)
			need += f->o->level ? comp_file_bound(raw) : raw;
	}
	if (f->o->level)
		need += comp_mem_need(f->o->level, raw);
	return need;
}

u64 out_mem_need(const struct out_file *f, u64 raw)
{
	bool memfs = !out_is_pipe(f->o->output) && memlimit_memfs(f->o->output);

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
	char what[sizeof(f->path) + 32];
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
	char tmp[sizeof(f->path) + 16];
	struct writer_opts wo = {
		.aio = f->o->aio, .level = f->o->level,
		.chunk_size = CHUNK_SIZE, .nchunks = NR_CHUNKS,
	};
	int err;

	f->memfs = !out_is_pipe(path) && memlimit_on() && memlimit_memfs(path);
	err = mem_chunks(f, path, &wo.nchunks);
	f->expect_raw = 0;
	if (err) {
		f->mem_stop = true;
		return err;
	}

	f->pipe = out_is_pipe(path);
	snprintf(f->path, sizeof(f->path), "%s", f->pipe ? "standard output" : path);
	f->put_ns = now_ns();
	memset(&f->cnt, 0, sizeof(f->cnt));
	bidset_free(&f->bids);
	f->cnt.on_map = out_on_map;
	f->cnt.map_ctx = f;
	if (f->pipe) {
		err = out_open_pipe(f, &wo);
		if (err)
			return err;
		goto start;
	}
	err = keep_old(path, false);
	if (err)
		return err;
	/*
	 * A flight-recorder snapshot is written under a temporary name and
	 * renamed when finalized, so that a kill while it is written (the OOM
	 * killer, say) leaves either a whole file under its name or none: the
	 * leftover PATH.partial is for "perf-ring report --recover".
	 */
	f->partial = f->o->overwrite;
	partial_name(f, tmp, sizeof(tmp));
	if (f->partial) {
		err = partial_aside(tmp);
		if (err)
			return err;
		f->fd = safefile__open(tmp, 0600, false);
		if (f->fd < 0)
			return fail_set(f->fd, "cannot create '%s': %s%s%s", tmp,
					f->fd == -EEXIST ? "it is " : strerror(-f->fd),
					f->fd == -EEXIST ? safefile__what(tmp) : "",
					f->fd == -EEXIST ? " (put there meanwhile)" : "");
	} else {
		char used[sizeof(f->path)];

		f->fd = open_output(f, path, used, sizeof(used));
		if (f->fd < 0)
			return f->fd;
		snprintf(f->path, sizeof(f->path), "%s", used);
	}
	f->data_off = pf_data_offset(f->el->evs, f->el->nev);
	err = pf_write_head(f->fd, f->el->evs, f->el->nev, 0, NULL);
	if (err) {
		fail_set(err, "writing the header of '%s': %s", path, strerror(-err));
		goto undo;
	}
start:
	err = writer_start(&f->w, f->fd, f->data_off, &wo);
	if (err) {
		fail_set(err, "starting the writer for '%s': %s", f->path, strerror(-err));
		goto undo;
	}
	f->on = true;
	f->cur = NULL;
	return 0;

undo:
	/* nothing was recorded into it: no file, rather than one perf cannot open */
	if (!f->pipe) {
		close(f->fd);
		f->fd = -1;
		unlink(f->partial ? tmp : f->path);
	}
	return err;
}

int out_rename(struct out_file *f, const char *path)
{
	struct stat a, b;

	if (f->pipe || f->partial || !f->on)
		return -EINVAL;
	if (fstat(f->fd, &a) || lstat(f->path, &b))
		return -errno;
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return -ESTALE;		/* replaced meanwhile: not ours to move */
	if (renameat2(AT_FDCWD, f->path, AT_FDCWD, path, RENAME_NOREPLACE))
		return -errno;
	snprintf(f->path, sizeof(f->path), "%s", path);
	return 0;
}

/*
 * A chunk that goes to a file on tmpfs is memory of the cgroup's: under a
 * limit, it must fit before it is written.
 */
static bool mem_put_ok(struct out_file *f)
{
	char what[sizeof(f->path) + 32];

	if (!f->memfs || f->mem_stop)
		return !f->mem_stop;
	snprintf(what, sizeof(what), "writing '%s' (on tmpfs)", f->path);
	if (memlimit_check(f->o->level ? comp_bound(CHUNK_SIZE) : CHUNK_SIZE, what))
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
			writer_put(&f->w, f->cur);
			f->put_ns = now_ns();
		}
		f->cur = writer_get(&f->w);
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
	writer_put(&f->w, f->cur);
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

	if (!f->max_files || !strcmp(f->path, f->o->output))
		return;
	v = realloc(f->kept, (f->nkept + 1) * sizeof(*v));
	if (!v)
		return;
	f->kept = v;
	f->kept[f->nkept] = strdup(f->path);
	if (!f->kept[f->nkept])
		return;
	f->nkept++;
	while (f->nkept > f->max_files) {
		if (unlink(f->kept[0]) && errno != ENOENT)
			fprintf(stderr, "perf-ring record: --switch-max-files: cannot delete '%s': %s\n",
				f->kept[0], strerror(errno));
		else if (f->o->verbose)
			fprintf(stderr, "perf-ring record: deleted '%s' (--switch-max-files=%d)\n",
				f->kept[0], f->max_files);
		free(f->kept[0]);
		memmove(f->kept, f->kept + 1, (f->nkept - 1) * sizeof(*f->kept));
		f->nkept--;
	}
}

/*
 * The end of a pipe recording: the build-ids as HEADER_BUILD_ID records
 * (perf's own pipe output has none; perf inject -b adds them the same
 * way).  The data before them is already on its way.
 */
static int out_close_pipe(struct out_file *f, int werr, const struct pbuf *bids)
{
	struct pbuf b = { 0 };
	int err;

	if (werr)
		return fail_set(werr, "writing to standard output: %s", strerror(-werr));
	pf_build_pipe_buildids(bids, &b);
	err = b.err ?: write_full(f->fd, b.p, b.len);
	pbuf_free(&b);
	if (err)
		fail_set(err, "writing the build-ids to standard output: %s", strerror(-err));
	return err;
}

int out_close(struct out_file *f, u64 overwritten, bool *ok)
{
	struct pf_meta meta = {
		.argc = f->o->argc, .argv = f->o->argv,
		.first_time = f->cnt.first_time, .last_time = f->cnt.last_time,
		.tracefs = tracefs_path(),
		.tracing = f->tracing.len ? &f->tracing : NULL,
		.flight = f->o->overwrite,
		.overwritten = overwritten,
		.snapshot = f->tot.nfiles + 1,
	};
	u64 features[PF_FEAT_BITS / 64] = { 0 };
	struct pbuf fb = { 0 }, bids = { 0 };
	struct perf_event_header round = { .type = PF_RECORD_FINISHED_ROUND, .size = sizeof(round) };
	struct writer_stats ws;
	u64 data_size;
	int werr, err;

	if (!f->on)
		return 0;
	if (!f->o->no_buildid) {
		out_build_ids(f, &bids);
		meta.build_ids = &bids;
	}
	if (f->cur) {
		/*
		 * Stopped by the memory limit, the last chunk is written only
		 * if it fits (tmpfs): the file is then whole up to the chunk
		 * before.
		 */
		if (f->cur->len && (!f->mem_stop || !f->memfs ||
				    memlimit_room() >= (int64_t)(f->cur->len + MEMLIMIT_RESERVE / 2)))
			writer_put(&f->w, f->cur);
		else
			writer_release(&f->w, f->cur);
		f->cur = NULL;
	}
	werr = writer_finish(&f->w, &data_size);
	f->on = false;
	f->tot.writer_used = writer_kind(&f->w);
	writer_get_stats(&f->w, &ws);
	if (f->pipe) {
		err = out_close_pipe(f, werr, &bids);
		pbuf_free(&bids);
		writer_free(&f->w);
		goto closed;
	}
	if (f->o->level) {
		meta.comp.on = true;
		meta.comp.level = f->o->level;
		meta.comp.ratio = ws.out_bytes ? (ws.raw_bytes + ws.out_bytes / 2) / ws.out_bytes : 0;
		meta.comp.mmap_len = COMP_MMAP_LEN;
	}
	if (werr) {
		fail_set(werr, "writing '%s': %s; the file keeps the %llu bytes of data written before the failure",
			 f->path, strerror(-werr), (unsigned long long)data_size);
		/* the records counted but not on file are unknown: recount is in report */
	}
	/*
	 * Drop any partial write beyond what is known to be on file, then
	 * the features.  If they do not fit (ENOSPC), cut the data back one
	 * write at a time (whole records) to make room for them: a file
	 * without its tracing data cannot be decoded.
	 */
	for (int tries = 0;; tries++) {
		/*
		 * perf takes a data size of 0 for a file never finalized and
		 * reads on to its end, into the feature sections.  When no
		 * data is kept (the first write failed), the data section is
		 * one FINISHED_ROUND, which perf reads as nothing.
		 */
		if (!data_size && !pwrite_full(f->fd, &round, sizeof(round), f->data_off))
			data_size = sizeof(round);
		if (ftruncate(f->fd, f->data_off + data_size) && !werr)
			werr = -errno;
		pbuf_free(&fb);
		err = pf_build_features(f->el->evs, f->el->nev, &meta, f->data_off + data_size, features, &fb);
		if (!err)
			err = pwrite_full(f->fd, fb.p, fb.len, f->data_off + data_size);
		if (!err || err != -ENOSPC || tries >= 64 || !data_size)
			break;
		data_size = writer_boundary_before(&f->w, data_size);
		fprintf(stderr, "perf-ring record: '%s': no room for the feature sections; "
			"data cut back to %llu bytes\n", f->path, (unsigned long long)data_size);
	}
	if (err) {
		if (ftruncate(f->fd, f->data_off + data_size)) {
			/* nothing more to do */
		}
		memset(features, 0, sizeof(features));
		fprintf(stderr, "perf-ring record: '%s': feature sections not written: %s\n",
			f->path, strerror(-err));
	}
	writer_free(&f->w);
	pbuf_free(&fb);
	pbuf_free(&bids);
	err = pf_write_head(f->fd, f->el->evs, f->el->nev, data_size, features);
	if (err)
		fail_set(err, "finalizing the header of '%s': %s", f->path, strerror(-err));
closed:
	if (close(f->fd) && !err) {
		err = -errno;
		fail_set(err, "closing '%s': %s", f->path, strerror(errno));
	}
	f->fd = -1;
	if (f->partial && !f->pipe) {
		char tmp[sizeof(f->path) + 16];
		int rerr, tries = 8;

		partial_name(f, tmp, sizeof(tmp));
		/* the kernel's failures to allocate or copy the names pass */
		while ((rerr = rename(tmp, f->path) ? errno : 0) &&
		       (rerr == ENOMEM || rerr == EAGAIN || rerr == EINTR || rerr == EFAULT) &&
		       --tries)
			;
		if (rerr && fail_err()) {
			/* an earlier error is the one reported: say this here */
			fprintf(stderr, "perf-ring record: renaming '%s' to '%s': %s; "
				"the snapshot is whole in '%s'\n", tmp, f->path, strerror(rerr), tmp);
			err = err ?: -rerr;
		} else if (rerr) {
			err = fail_set(-rerr, "renaming '%s' to '%s': %s; the snapshot is whole in '%s'",
				       tmp, f->path, strerror(rerr), tmp);
		}
	}
	f->tot.raw += ws.raw_bytes;
	f->tot.out += ws.out_bytes;
	f->tot.samples += f->cnt.nr[PERF_RECORD_SAMPLE];
	f->tot.lost += f->cnt.lost;
	f->tot.records += f->cnt.total;
	f->tot.nfiles++;
	keep_file(f);
	if (f->o->verbose) {
		fprintf(stderr, "perf-ring record: reader waited %.1f ms for buffers; "
			"writer: compress %.1f ms, write %.1f ms, %llu writes, %llu retried\n",
			ws.get_wait_ns / 1e6, ws.comp_ns / 1e6, ws.write_ns / 1e6,
			(unsigned long long)ws.nwrites, (unsigned long long)ws.retries);
		fprintf(stderr, "perf-ring record: %s: %llu records", f->path,
			(unsigned long long)f->cnt.total);
		for (int t = 0; t < PF_RECORD_TYPE_MAX; t++)
			if (f->cnt.nr[t])
				fprintf(stderr, ", %s %llu", pf_record_name(t) ?: "?",
					(unsigned long long)f->cnt.nr[t]);
		fprintf(stderr, "\n");
	}
	if (ok)
		*ok = !werr && !err;
	return werr ?: err;
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

int out_init(struct out_file *f, const struct record_opts *o, const struct evlist *el)
{
	memset(f, 0, sizeof(*f));
	f->o = o;
	f->el = el;
	f->fd = -1;
	f->max_files = o->switch_max_files;
	return 0;
}

int out_prepare(struct out_file *f)
{
	const char *tfs = tracefs_path();
	bool tp = false;
	int err;

	for (int i = 0; i < f->el->nev; i++)
		if (f->el->evs[i].tp_sys[0])
			tp = true;
	if (!tp || f->pipe || out_is_pipe(f->o->output))
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
	return f->mem_stop || writer_failed(&f->w);
}

u64 out_bytes(struct out_file *f)
{
	if (!f->on)
		return 0;
	if (f->o->level)
		return writer_out_bytes(&f->w);
	return f->cnt.bytes;
}

void out_free(struct out_file *f)
{
	for (int i = 0; i < f->nkept; i++)
		free(f->kept[i]);
	free(f->kept);
	f->kept = NULL;
	f->nkept = 0;
	bidset_free(&f->bids);
	bidset_free(&f->known);
	pbuf_free(&f->tracing);
}
