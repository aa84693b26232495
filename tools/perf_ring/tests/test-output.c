// SPDX-License-Identifier: GPL-2.0
/*
 * The output through its format seam (out-format.h): each format's file
 * reads back with pf_open(), with every record emitted, and the file
 * format's snapshots are renamed from PATH.partial when whole.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "counts.h"
#include "output.h"
#include "tap.h"

#define NREC 5000

/*
 * pwritev() and pwrite() as libc's, counted from the close on; the calls
 * whose number (from 0, both kinds) is set in fail_mask fail with
 * fail_errno before writing.
 */
static int nwritev, nwrite, ncalls, fail_errno;
static unsigned int fail_mask;

static bool fail_now(void)
{
	if (!(fail_mask & (1u << (ncalls++ & 31))))
		return false;
	errno = fail_errno;
	return true;
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);

	if (!real)
		real = (ssize_t (*)(int, const struct iovec *, int, off_t))dlsym(RTLD_NEXT, "pwritev");
	nwritev++;
	return fail_now() ? -1 : real(fd, iov, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	nwrite++;
	return fail_now() ? -1 : real(fd, buf, len, off);
}

static struct pf_event ev;
static struct evlist el;
static char *argv0[] = { "perf-ring", "record", "-o", "x" };

static int setup(void)
{
	static u64 ids[1] = { 7 };
	const u64 *idv[1] = { ids };
	int nids[1] = { 1 };

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "cpu-clock");
	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.sample_type = PERF_SAMPLE_TIME;
	el.evs = &ev;
	el.nev = 1;
	ev.tracks = true;
	ev.ids = ids;
	ev.nr_ids = 1;
	/* where a sample's time is, for the counts (sample time feature) */
	return idmap_build(&el.idmap, idv, nids, 1, ev.attr.sample_type);
}

/* NREC samples of 24 bytes, times rising */
static char *records(size_t *len)
{
	char *p = calloc(NREC, 24);

	for (int i = 0; p && i < NREC; i++) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 24 };
		u64 t = 1000 + i, pad = i;

		memcpy(p + i * 24, &h, 8);
		memcpy(p + i * 24 + 8, &t, 8);
		memcpy(p + i * 24 + 16, &pad, 8);
	}
	*len = (size_t)NREC * 24;
	return p;
}

/*
 * One file through out_open, out_emit (copies times), out_close; its
 * close's result.  The writes of the close are counted (nwritev, nwrite).
 */
static int write_copies(const struct out_opts *o, const char *path, struct out_file **fp,
			int copies)
{
	struct out_file *f = out_new(o, &el);
	size_t len;
	char *recs = records(&len);
	bool ok = false;
	int err = 0;

	*fp = f;
	if (!f || !recs) {
		free(recs);
		return -ENOMEM;
	}
	err = out_open(f, path);
	for (int i = 0; !err && i < copies; i++)
		err = out_emit(f, recs, len);
	err = err ?: out_emit_round(f);
	free(recs);
	if (err)
		return err;
	nwritev = nwrite = ncalls = 0;
	err = out_close(f, 0, &ok);
	return err ?: (ok ? 0 : -EIO);
}

static int write_one(const struct out_opts *o, const char *path, struct out_file **fp)
{
	return write_copies(o, path, fp, 1);
}

/* Every record back: the samples, and the rounds as the writer put them. */
static int read_back(const char *path, int level, bool pipe)
{
	struct pf_file pf;

	CHECK(pf_open(&pf, path) == 0, "pf_open: %s", pf.errmsg);
	CHECK(pf.pipe == pipe, "%s format", pf.pipe ? "pipe" : "file");
	CHECK(pf.nr_evs == 1 && pf.evs[0].attr.sample_type == PERF_SAMPLE_TIME,
	      "%d events", pf.nr_evs);
	if (!level) {
		/* the pipe's data runs on into its build-id records: none here */
		CHECK(pf.h.data.size >= (u64)NREC * 24 + 8, "data size %llu",
		      (unsigned long long)pf.h.data.size);
	}
	CHECK(pipe || pf.has_comp_feat == !!level, "HEADER_COMPRESSED %d for -z %d",
	      pf.has_comp_feat, level);
	CHECK(pipe || (pf.has_sample_time && pf.first_time == 1000 &&
		       pf.last_time == 1000 + NREC - 1),
	      "sample time %llu..%llu", (unsigned long long)pf.first_time,
	      (unsigned long long)pf.last_time);
	pf_close(&pf);
	return 0;
}

/* read_back(), then the file removed whatever it found */
static int read_back_unlink(const char *path, int level, bool pipe)
{
	int err = read_back(path, level, pipe);

	unlink(path);
	return err;
}

/*
 * A fresh name in the scratch directory, made by mkstemp and then removed
 * so that the output creates it: 0, or -1 with the failed check printed.
 */
static int fresh_name(char *path, size_t size)
{
	int fd;

	tap_tmpname(path, size, "perf-ring-out");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	close(fd);
	unlink(path);
	return 0;
}

/*
 * A file format's output under a fresh name: *fp is the closed file, to
 * free; 0, or -1 with the failed check printed.
 */
static int write_fresh(struct out_opts *o, char *path, size_t size, struct out_file **fp)
{
	int err;

	CHECK(!fresh_name(path, size), "a fresh name");
	o->output = path;
	err = write_one(o, path, fp);
	CHECK(!err, "write: %s", strerror(-err));
	return 0;
}

static int file_format(int level)
{
	struct out_opts o = { .argc = 4, .argv = argv0, .level = level, .no_buildid = true,
			      .quiet = true };
	struct out_file *f;
	char path[4096];

	CHECK(!write_fresh(&o, path, sizeof(path), &f), "the file written");
	CHECK(out_totals(f)->nfiles == 1 && out_totals(f)->samples == NREC,
	      "totals: %d files, %llu samples", out_totals(f)->nfiles,
	      (unsigned long long)out_totals(f)->samples);
	CHECK(!strcmp(out_path(f), path), "path '%s'", out_path(f));
	out_free(f);
	return read_back_unlink(path, level, false);
}

static int test_file(void) { return file_format(0); }
static int test_file_zstd(void) { return file_format(1); }

/* --overwrite: written as PATH.partial, under PATH once whole */
static int test_snapshot(void)
{
	struct out_opts o = { .argc = 4, .argv = argv0, .flight = true, .no_buildid = true,
			      .quiet = true };
	struct out_file *f;
	char path[4096], partial[4200];
	struct stat st;

	CHECK(!write_fresh(&o, path, sizeof(path), &f), "the file written");
	snprintf(partial, sizeof(partial), "%s.partial", path);
	CHECK(out_rename(f, "x") == -EINVAL, "a closed file renamed");
	out_free(f);
	CHECK(lstat(partial, &st) && errno == ENOENT, "'%s' left", partial);
	return read_back_unlink(path, 0, false);
}

/*
 * A snapshot's end is laid out before its last data (seal()): of one
 * chunk, header, data and features go in one pwritev(); of more, the last
 * chunk and the features in one, the header after.  A write that fails
 * leaves the end to be written as before, behind what is on file.
 */
static int snapshot_writes(int copies, unsigned int fails, int err_no, int want_writev,
			   int want_write, bool want_ok, u64 want_size)
{
	struct out_opts o = { .argc = 4, .argv = argv0, .flight = true, .no_buildid = true,
			      .quiet = true };
	struct out_file *f;
	char path[4096], partial[4200];
	struct pf_file pf;
	int err;

	CHECK(!fresh_name(path, sizeof(path)), "a fresh name");
	o.output = path;
	fail_mask = fails;
	fail_errno = err_no;
	err = write_copies(&o, path, &f, copies);
	fail_mask = 0;
	printf("# %d x %d records, calls 0x%x failing with %s: %d pwritev(), %d pwrite(), %s\n",
	       copies, NREC, fails, strerror(err_no), nwritev, nwrite, strerror(-err));
	out_free(f);
	CHECK(!err == want_ok, "close: %s", strerror(-err));
	CHECK(nwritev == want_writev && nwrite == want_write,
	      "%d pwritev() and %d pwrite(), not %d and %d", nwritev, nwrite, want_writev,
	      want_write);
	snprintf(partial, sizeof(partial), "%s.partial", path);
	if (!want_ok)
		rename(partial, path);
	CHECK(pf_open(&pf, path) == 0, "pf_open: %s", pf.errmsg);
	CHECK(pf.h.data.size == want_size, "data size %llu, not %llu",
	      (unsigned long long)pf.h.data.size, (unsigned long long)want_size);
	CHECK(want_size == 8 || (pf.has_sample_time && pf.first_time == 1000 &&
				 pf.last_time == 1000 + NREC - 1),
	      "the features: sample time %llu..%llu", (unsigned long long)pf.first_time,
	      (unsigned long long)pf.last_time);
	pf_close(&pf);
	unlink(path);
	return 0;
}

/* NREC records of 24 bytes copies times, and a FINISHED_ROUND */
#define WHOLE(copies) ((u64)(copies) * NREC * 24 + 8)

static int test_snapshot_one_write(void)
{
	return snapshot_writes(1, 0, 0, 1, 0, true, WHOLE(1));
}

static int test_snapshot_chunks(void)
{
	/*
	 * 1,200,000 bytes: the first chunk (1 MiB) went with the header as
	 * it filled; at the close, the last with the features, then the
	 * header
	 */
	return snapshot_writes(10, 0, 0, 1, 1, true, WHOLE(10));
}

static int test_snapshot_write_retried(void)
{
	/* ENOMEM (tmpfs without a page): done once more by hand, the end with it */
	return snapshot_writes(1, 1, ENOMEM, 2, 0, true, WHOLE(1));
}

static int test_snapshot_tail_enospc(void)
{
	/*
	 * The disk full where the features go: header and data written
	 * again without them (call 1), the features do not fit (2): the
	 * data cut back to its last boundary, none here, a FINISHED_ROUND
	 * (3), the features (4), the header (5).  The snapshot keeps its
	 * name and reads, and the close says ENOSPC: its records are lost.
	 */
	return snapshot_writes(1, 1u << 0 | 1u << 2, ENOSPC, 2, 4, false, 8);
}

static int test_snapshot_write_failed(void)
{
	/*
	 * EIO, again without the end too: nothing kept; a FINISHED_ROUND
	 * for data, the features and the header written after it
	 */
	return snapshot_writes(1, 3, EIO, 2, 3, false, 8);
}

static int test_snapshot_tail_failed(void)
{
	/* EIO once: header and data written again without the end, which follows them */
	return snapshot_writes(1, 1, EIO, 2, 2, true, WHOLE(1));
}

/*
 * The end's write fails, the data goes again without it, the features
 * go, and then the header's write fails too: the header on file is the
 * one laid out for the end that is not there.  The snapshot keeps its
 * temporary name (for --recover), never its own.
 */
static int test_snapshot_head_failed(void)
{
	struct out_opts o = { .argc = 4, .argv = argv0, .flight = true, .no_buildid = true,
			      .quiet = true };
	char path[4096], partial[4200];
	struct out_file *f;
	struct stat st;
	int err;

	CHECK(!fresh_name(path, sizeof(path)), "a fresh name");
	o.output = path;
	snprintf(partial, sizeof(partial), "%s.partial", path);
	fail_mask = 1u << 0 | 1u << 3;
	fail_errno = EIO;
	err = write_copies(&o, path, &f, 1);
	fail_mask = 0;
	CHECK(err == -EIO, "close: %s", strerror(-err));
	CHECK(nwritev == 2 && nwrite == 2, "%d pwritev(), %d pwrite()", nwritev, nwrite);
	CHECK(!strcmp(out_path(f), partial), "named '%s'", out_path(f));
	out_free(f);
	CHECK(lstat(path, &st) && errno == ENOENT, "'%s' exists", path);
	CHECK(!lstat(partial, &st) && S_ISREG(st.st_mode), "'%s' kept", partial);
	unlink(partial);
	return 0;
}

/*
 * A time-stamped snapshot whose NAME.partial is taken (another recorder
 * with the same -o, in the same millisecond, is writing it): the
 * snapshot takes NAME-1, the other file is left as it is.
 */
static int test_snapshot_partial_taken(void)
{
	struct out_opts o = { .argc = 4, .argv = argv0, .flight = true, .no_buildid = true,
			      .quiet = true };
	char base[4096], name[4200], other[4300], mine[4300];
	struct out_file *f;
	struct stat a, b;
	size_t len;
	char *recs = records(&len), buf[8];
	bool ok = false;
	int fd, err;

	CHECK(recs, "records");
	CHECK(!fresh_name(base, sizeof(base)), "a fresh name");
	o.output = base;
	snprintf(name, sizeof(name), "%s.20261206000000000", base);
	snprintf(other, sizeof(other), "%s.partial", name);
	fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, "other", 5) == 5 && !fstat(fd, &a), "the other's file");
	close(fd);
	f = out_new(&o, &el);
	CHECK(f, "out_new");
	err = out_open(f, name) ?: out_emit(f, recs, len) ?: out_emit_round(f) ?:
	      out_close(f, 0, &ok);
	free(recs);
	snprintf(mine, sizeof(mine), "%s-1", name);
	CHECK(!err && ok, "snapshot: %s", strerror(-err));
	CHECK(!strcmp(out_path(f), mine), "named '%s', not '%s'", out_path(f), mine);
	out_free(f);
	fd = open(other, O_RDONLY);
	CHECK(fd >= 0 && !fstat(fd, &b) && b.st_ino == a.st_ino && read(fd, buf, 8) == 5 &&
	      !memcmp(buf, "other", 5), "'%s' left as it was", other);
	close(fd);
	unlink(other);
	return read_back_unlink(mine, 0, false);
}

/* -o -: perf's pipe format on standard output, here a file */
static int pipe_format(int level)
{
	struct out_opts o = { .output = "-", .argc = 4, .argv = argv0, .level = level,
			      .no_buildid = true, .quiet = true };
	struct out_file *f = NULL;
	char path[4096];
	int fd, saved, err;

	CHECK(out_streams("-") && out_to_stdout("-") && !out_streams("x.data") &&
	      !out_to_stdout("x.data"), "the format of '-' and of a file");
	tap_tmpname(path, sizeof(path), "perf-ring-out");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	CHECK(saved >= 0 && dup2(fd, STDOUT_FILENO) == STDOUT_FILENO, "stdout to a file");
	err = write_one(&o, "-", &f);
	dup2(saved, STDOUT_FILENO);	/* before any CHECK prints */
	close(saved);
	close(fd);
	CHECK(!err, "write: %s", strerror(-err));
	CHECK(!strcmp(out_path(f), "standard output"), "path '%s'", out_path(f));
	CHECK(out_totals(f)->samples == NREC, "%llu samples",
	      (unsigned long long)out_totals(f)->samples);
	out_free(f);
	return read_back_unlink(path, level, true);
}

static int test_pipe(void) { return pipe_format(0); }
static int test_pipe_zstd(void) { return pipe_format(1); }

int main(void)
{
	if (setup()) {
		printf("Bail out! idmap_build\n");
		return 1;
	}
	tap_run("perf.data: every record, the features, read back", test_file);
	tap_run("perf.data -z: read back, HEADER_COMPRESSED", test_file_zstd);
	tap_run("--overwrite: the snapshot is renamed from PATH.partial when whole",
		test_snapshot);
	tap_run("a snapshot of one chunk: header, data and features in one pwritev()",
		test_snapshot_one_write);
	tap_run("a snapshot of chunks: the last with the features, the header after",
		test_snapshot_chunks);
	tap_run("a snapshot's write that fails with ENOMEM is done again, the end with it",
		test_snapshot_write_retried);
	tap_run("a snapshot's write that fails with EIO once: the data again, the end after",
		test_snapshot_tail_failed);
	tap_run("a snapshot's write that fails with EIO twice: the end written after, readable",
		test_snapshot_write_failed);
	tap_run("a snapshot whose features do not fit: the data cut back, ENOSPC",
		test_snapshot_tail_enospc);
	tap_run("a snapshot whose header cannot be finalized stays NAME.partial",
		test_snapshot_head_failed);
	tap_run("a time-stamped snapshot whose NAME.partial is taken: NAME-1, the other left alone",
		test_snapshot_partial_taken);
	tap_run("-o -: perf's pipe format, read back", test_pipe);
	tap_run("-o - -z: perf's pipe format, read back", test_pipe_zstd);
	return tap_done();
}
