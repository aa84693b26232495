// SPDX-License-Identifier: GPL-2.0
/* The writer: io_uring and write(2), plain and compressed, and failure. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include <dirent.h>
#include <dlfcn.h>
#include <sys/uio.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <stdint.h>
#include <liburing.h>
#include "perfdata.h"
#include "writer.h"
#include "tap.h"

/*
 * io_uring_submit() as liburing's, except that every fail_every-th call
 * fails with -EAGAIN before anything is submitted, as the kernel answers
 * when it cannot allocate a request: the prepared entry stays queued.
 */
static int fail_every, submit_calls, submit_failed;

int io_uring_submit(struct io_uring *ring)
{
	static int (*real)(struct io_uring *);

	if (!real)
		real = (int (*)(struct io_uring *))dlsym(RTLD_NEXT, "io_uring_submit");
	submit_calls++;
	if (fail_every && submit_calls % fail_every == 0) {
		submit_failed++;
		return -EAGAIN;
	}
	return real(ring);
}

/*
 * pwritev() as libc's, except that while fail_pwritev is above 0 each
 * call fails with ENOMEM before writing (tmpfs without a page), and
 * counts down.
 */
static int fail_pwritev;

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	static ssize_t (*real)(int, const struct iovec *, int, off_t);

	if (!real)
		real = (ssize_t (*)(int, const struct iovec *, int, off_t))dlsym(RTLD_NEXT, "pwritev");
	if (fail_pwritev > 0) {
		fail_pwritev--;
		errno = ENOMEM;
		return -1;
	}
	return real(fd, iov, n, off);
}

/*
 * pthread_create() as libc's, except that it fails with EAGAIN while
 * fail_thread is set, and while leave_blocked is set it returns with every
 * signal blocked, as glibc's does when setting the caller's mask back fails.
 */
static int fail_thread, leave_blocked, thread_starts;

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

	if (fail_thread)
		return EAGAIN;
	thread_starts++;
	if (leave_blocked) {
		sigset_t all;

		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
	}
	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
			dlsym(RTLD_NEXT, "pthread_create");
	return real(t, a, fn, arg);
}

static size_t fill(char *p, size_t cap, u64 *seq)
{
	size_t pos = 0;

	while (pos + 64 <= cap) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 64 };

		memcpy(p + pos, &h, 8);
		memcpy(p + pos + 8, seq, 8);
		memset(p + pos + 16, 0x5a, 48);
		(*seq)++;
		pos += 64;
	}
	return pos;
}

/* A file run_files() wrote: its data at start, seq records in order. */
static int check_data(int fd, u64 start, u64 size, int level, u64 seq)
{
	char *back;
	ssize_t n;

	CHECK(size == lseek(fd, 0, SEEK_END) - start, "size %llu", (unsigned long long)size);
	back = malloc(size + 1);
	n = pread(fd, back, size, start);
	CHECK(n == (ssize_t)size, "read back");
	if (level) {
		/* decompress every record and check the sequence */
		ZSTD_DCtx *d = ZSTD_createDCtx();
		char *dec = malloc((40 << 16) + 4096), *p = back;
		size_t dl = 0;

		while (p < back + size) {
			struct perf_event_header h;
			ZSTD_inBuffer in;
			ZSTD_outBuffer ob;

			memcpy(&h, p, 8);
			CHECK(h.type == PF_RECORD_COMPRESSED, "type %u", h.type);
			in = (ZSTD_inBuffer){ p + 8, h.size - 8, 0 };
			ob = (ZSTD_outBuffer){ dec + dl, (40 << 16) + 4096 - dl, 0 };
			while (in.pos < in.size)
				CHECK(!ZSTD_isError(ZSTD_decompressStream(d, &ob, &in)), "zstd");
			dl += ob.pos;
			p += h.size;
		}
		free(back);
		back = dec;
		size = dl - 8;	/* minus the FINISHED_ROUND that ends the frame */
		ZSTD_freeDCtx(d);
	}
	CHECK(size == seq * 64, "data %llu bytes for %llu records", (unsigned long long)size,
	      (unsigned long long)seq);
	for (u64 i = 0; i < seq; i++) {
		u64 v;

		memcpy(&v, back + i * 64 + 8, 8);
		CHECK(v == i, "record %llu holds %llu", (unsigned long long)i, (unsigned long long)v);
	}
	free(back);
	return 0;
}

static size_t heap_in_use(void);

/* The pages of [p, p + len) in memory (mincore()), -1 if unknown. */
static long resident_pages(const char *p, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE), n = 0;
	unsigned char vec[256];
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(pg - 1);
	size_t span = (uintptr_t)p + len - a, np = (span + pg - 1) / pg;

	if (np > sizeof(vec) || mincore((void *)a, span, vec))
		return -1;
	for (size_t i = 0; i < np; i++)
		n += vec[i] & 1;
	return n;
}

/*
 * nfiles files, one writer: writer_restart() for each after the first,
 * as a stream's switch does.  Each file whole, and from the second file
 * on nothing more allocated: the writer's buffers are the first file's;
 * each file's header (writer_set_head()) before its data.  With snap, as a flight recorder's snapshots: the writer in its caller
 * (no thread started, for any file), the last chunk put as the last
 * (writer_put_last()) and written by hand, not through io_uring, and
 * after each writer_trim() the pages of the chunk filled last are out of
 * memory, its mapping kept.
 */
static int run_files(int aio, int level, bool touch, int nfiles, bool snap)
{
	struct writer_opts o = { .aio = aio, .level = level, .chunk_size = 1 << 16, .nchunks = 4,
				 .touch = touch, .in_caller = snap };
	struct writer *w = NULL;
	int starts = thread_starts;
	size_t heap = 0;

	for (int f = 0; f < nfiles; f++) {
		char path[4096], *used = NULL;
		u64 seq = 0, size, start = 100 + f;
		int fd, err;

		tap_tmpname(path, sizeof(path), "perf-ring-w");
		fd = mkstemp(path);
		CHECK(fd >= 0, "mkstemp");
		char head[128];

		if (!w)
			CHECK(writer_start(&w, fd, start, &o) == 0, "start");
		else
			CHECK(writer_restart(w, fd, start) == 0, "restart for file %d", f + 1);
		/* a header before the data, with a thread or in the caller */
		memset(head, 'H' + f, sizeof(head));
		writer_set_head(w, head, start);
		int submits = submit_calls;

		for (int i = 0; i < 40; i++) {
			struct chunk *c = writer_get(w);

			CHECK(c, "chunk");
			c->len = fill(c->buf, c->cap, &seq);
			used = c->buf;
			if (snap && i == 39)
				writer_put_last(w, c);
			else
				writer_put(w, c);
		}
		err = writer_finish(w, &size);
		CHECK(err == 0, "finish: %d", err);
		/* plain, one submit a chunk; zstd, at most; nothing after the last */
		CHECK(!snap || !aio || (level ? submit_calls - submits <= 39 :
					submit_calls - submits == 39),
		      "file %d: %d io_uring submits for 40 chunks, the last written by hand",
		      f + 1, submit_calls - submits);
		if (check_data(fd, start, size, level, seq))
			return 1;
		{
			char got[128];

			CHECK(pread(fd, got, start, 0) == (ssize_t)start && !memcmp(got, head, start),
			      "file %d: the header before the data", f + 1);
		}
		if (snap) {
			long before = resident_pages(used, o.chunk_size), after;

			writer_trim(w);
			after = resident_pages(used, o.chunk_size);
			CHECK(before > 0 && after == 0, "file %d: a filled chunk's pages in memory: "
			      "%ld before writer_trim(), %ld after", f + 1, before, after);
		}
		if (f == 1)
			heap = heap_in_use();
		else if (f > 1)
			CHECK(heap_in_use() == heap, "file %d: heap %zu bytes, after the second %zu",
			      f + 1, heap_in_use(), heap);
		close(fd);
		unlink(path);
	}
	writer_free(w);
	CHECK(!snap || thread_starts == starts, "%d threads started", thread_starts - starts);
	return 0;
}

/*
 * Freed before writer_finish() (a failure on the way), with chunks queued
 * (threaded) or in flight (in the caller): it returns, and ASan sees no
 * buffer freed under a write.  In the caller, a writer whose chunks are
 * all the caller's answers NULL rather than waiting for ever.
 */
static int test_free_unfinished(void)
{
	for (int k = 0; k < 2; k++) {
		struct writer_opts o = { .aio = 4, .chunk_size = 1 << 16, .nchunks = 4,
					 .in_caller = k == 1 };
		struct writer *w;
		char path[4096];
		u64 seq = 0;
		int fd;

		tap_tmpname(path, sizeof(path), "perf-ring-w");
		fd = mkstemp(path);
		CHECK(fd >= 0, "mkstemp");
		CHECK(writer_start(&w, fd, 0, &o) == 0, "start");
		for (int i = 0; i < 3; i++) {
			struct chunk *c = writer_get(w);

			CHECK(c, "chunk %d", i);
			c->len = fill(c->buf, c->cap, &seq);
			writer_put(w, c);
		}
		if (o.in_caller) {
			struct chunk *held[4];
			int n = 0;

			while (n < 4 && (held[n] = writer_get(w)))
				n++;
			CHECK(n == 4 && !writer_get(w), "in the caller, every chunk held: %d, "
			      "then NULL", n);
		}
		writer_free(w);
		close(fd);
		unlink(path);
	}
	return 0;
}

/*
 * The header of a snapshot (writer_set_head()): with no data, written by
 * writer_finish(); with one chunk, written with it by hand, io_uring not
 * used; and when that write fails for want of memory (ENOMEM, done again
 * by hand), both again.
 */
static int test_head(void)
{
	struct writer_opts o = { .aio = 4, .chunk_size = 1 << 16, .nchunks = 4, .in_caller = true };
	char head[64], got[64];
	struct writer *w = NULL;

	memset(head, 'h', sizeof(head));
	for (int f = 0; f < 3; f++) {
		char path[4096];
		u64 seq = 0, size;
		int fd, submits = submit_calls;

		tap_tmpname(path, sizeof(path), "perf-ring-w");
		fd = mkstemp(path);
		CHECK(fd >= 0, "mkstemp");
		CHECK((w ? writer_restart(w, fd, 64) : writer_start(&w, fd, 64, &o)) == 0, "start");
		writer_set_head(w, head, 64);
		if (f) {
			struct chunk *c = writer_get(w);

			CHECK(c, "chunk");
			c->len = fill(c->buf, c->cap, &seq);
			fail_pwritev = f == 2;
			writer_put_last(w, c);
			CHECK(!fail_pwritev, "pwritev() not used");
		}
		CHECK(writer_finish(w, &size) == 0, "finish");
		CHECK(pread(fd, got, 64, 0) == 64 && !memcmp(got, head, 64),
		      "%s: the header on file", f == 2 ? "one chunk, ENOMEM once" :
		      f ? "one chunk" : "no data");
		CHECK(f ? !check_data(fd, 64, size, 0, seq) : size == 0, "the data");
		CHECK(submit_calls == submits, "%d io_uring submits", submit_calls - submits);
		close(fd);
		unlink(path);
	}
	writer_free(w);
	return 0;
}

/* snapshots: the writer in its caller, no thread, its pages back after each file */
static int test_snapshots(void)
{
	return run_files(4, 0, false, 3, true) || run_files(0, 0, false, 3, true) ||
	       run_files(4, 1, false, 3, true);
}

static int run(int aio, int level)
{
	return run_files(aio, level, false, 1, false);
}

/* --switch-output: one writer for every file, zstd's frame new in each */
static int test_restart(void)
{
	return run_files(4, 0, false, 4, false) || run_files(4, 1, true, 4, false) ||
	       run_files(0, 3, false, 3, false);
}

static int test_uring(void) { return run(4, 0); }

/*
 * Submits that fail: each such write must be done by hand, once, and the
 * entry left in the queue must not write anything when a later submit
 * sends it (run() checks every record and the size; a stale write would
 * put a reused chunk at an old offset, or leave a completion too many).
 */
static int test_uring_submit_fails(void)
{
	int err;

	alarm(60);	/* a lost completion would hang in writer_finish() */
	fail_every = 3;
	err = run(4, 0);
	fail_every = 0;
	alarm(0);
	CHECK(submit_failed >= 10, "%d of %d submits failed", submit_failed, submit_calls);
	return err;
}
static int test_write(void) { return run(0, 0); }
static int test_uring_zstd(void) { return run(8, 1); }
static int test_write_zstd(void) { return run(0, 3); }

/*
 * A raw_syscalls-like stream: sys_enter (128 bytes) and sys_exit (88)
 * samples alternating, identical but for the timestamp, and a LOST record
 * every lost_every pairs (none when 0), followed by a gap in time, as the
 * kernel writes them after an overflow.
 */
static size_t syscall_stream(char *p, size_t pairs, size_t lost_every, size_t *nlost)
{
	static const unsigned char raw[2][28] = {
		{ 0xbb, 0x01, 0x00, 0x01, 0xb1, 0x06, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		{ 0xba, 0x01, 0x00, 0x01, 0xb1, 0x06, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
		  0xf7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	u64 t = 1000000000ull, tid = 0x000006b1000006b1ull;
	size_t pos = 0;

	srand(3);
	*nlost = 0;
	for (size_t i = 0; i < pairs; i++) {
		for (int exit = 0; exit < 2; exit++) {
			u16 size = exit ? 88 : 128;
			struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };
			u64 f[6] = { exit ? 0xffffffff81005678ull : 0xffffffff81001234ull, tid,
				     t += 200 + rand() % 64, 100 + exit, 0, 1 };
			u32 rs = size - 60;

			memset(p + pos, 0, size);
			memcpy(p + pos, &h, sizeof(h));
			memcpy(p + pos + 8, f, sizeof(f));
			memcpy(p + pos + 56, &rs, sizeof(rs));
			memcpy(p + pos + 60, raw[exit], sizeof(raw[exit]));
			pos += size;
		}
		if (lost_every && i % lost_every == lost_every - 1) {
			struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = 56 };
			u64 f[6] = { 100, 1000, tid, t, 100, 0 };

			memcpy(p + pos, &h, sizeof(h));
			memcpy(p + pos + 8, f, sizeof(f));
			pos += 56;
			t += 300000;
			(*nlost)++;
		}
	}
	return pos;
}

/*
 * Write len bytes of records through a zstd writer; the data section back
 * (with a write error only when keep, as far as the writer says it holds).
 */
static char *write_kept(const char *src, size_t len, u64 *size, bool keep)
{
	struct writer_opts o = { .aio = 0, .level = 1, .chunk_size = 1 << 20, .nchunks = 4 };
	struct writer *w;
	char path[4096], *back;
	size_t pos = 0;
	int fd;

	tap_tmpname(path, sizeof(path), "perf-ring-w");
	fd = mkstemp(path);
	if (fd < 0 || writer_start(&w, fd, 0, &o))
		return NULL;
	while (pos < len) {
		struct chunk *c = writer_get(w);

		if (!c)
			break;
		while (pos < len) {
			struct perf_event_header h;

			memcpy(&h, src + pos, sizeof(h));
			if (c->len + h.size > c->cap)
				break;
			/* as output.c does: the writer walks only what is marked */
			if (writer_outside_stream(h.type))
				chunk_mark_outside(c, c->len, c->len + h.size);
			memcpy(c->buf + c->len, src + pos, h.size);
			c->len += h.size;
			pos += h.size;
		}
		writer_put(w, c);
	}
	if (writer_finish(w, size) && !keep) {
		writer_free(w);
		close(fd);
		unlink(path);
		return NULL;
	}
	writer_free(w);
	back = malloc(*size + 1);
	if (back && pread(fd, back, *size, 0) != (ssize_t)*size) {
		free(back);
		back = NULL;
	}
	close(fd);
	unlink(path);
	return back;
}

static char *write_through(const char *src, size_t len, u64 *size)
{
	return write_kept(src, len, size, false);
}

/*
 * LOST records stay outside the compressed stream, raw and in order, and
 * cost about their own size: inside it, each one could throw zstd's fast
 * match finder off the period of the samples for the rest of the stream
 * (on this stream +29% with a LOST every 1000 pairs).
 */
static int test_lost_outside(void)
{
	size_t pairs = 20000, cap = pairs * 216 + pairs * 56 + 4096, nlost, nplain;
	size_t len, plen, dl = 0, raw_lost = 0;
	char *src = malloc(cap), *plain = malloc(cap), *dec = malloc(cap + 4096);
	char *back, *pback, *p;
	u64 size, psize;
	ZSTD_DCtx *d = ZSTD_createDCtx();

	CHECK(src && plain && dec && d, "alloc");
	len = syscall_stream(src, pairs, 1000, &nlost);
	plen = syscall_stream(plain, pairs, 0, &nplain);
	CHECK(nlost == 20 && nplain == 0, "stream: %zu LOST records", nlost);
	back = write_through(src, len, &size);
	pback = write_through(plain, plen, &psize);
	CHECK(back && pback, "write");
	for (p = back; p < back + size;) {
		struct perf_event_header h;

		memcpy(&h, p, sizeof(h));
		CHECK(h.size >= sizeof(h) && p + h.size <= back + size, "record at %zu", (size_t)(p - back));
		if (h.type == PF_RECORD_COMPRESSED) {
			ZSTD_inBuffer in = { p + 8, h.size - 8, 0 };
			ZSTD_outBuffer ob = { dec + dl, cap + 4096 - dl, 0 };

			while (in.pos < in.size)
				CHECK(!ZSTD_isError(ZSTD_decompressStream(d, &ob, &in)), "zstd");
			CHECK(ob.pos > 0, "a record that decodes to nothing");
			dl += ob.pos;
		} else {
			/* a last FINISHED_ROUND is raw when the frame had ended */
			CHECK(h.type == PERF_RECORD_LOST ||
			      (h.type == PF_RECORD_FINISHED_ROUND && p + h.size == back + size),
			      "record type %u outside the stream", h.type);
			memcpy(dec + dl, p, h.size);
			dl += h.size;
			raw_lost += h.type == PERF_RECORD_LOST;
		}
		p += h.size;
	}
	CHECK(raw_lost == nlost, "%zu of %zu LOST records outside the stream", raw_lost, nlost);
	/* the records in order, then the FINISHED_ROUND that ends the frame */
	CHECK(dl == len + 8 && !memcmp(dec, src, len), "decoded %zu bytes of %zu", dl, len + 8);
	CHECK(size <= psize + nlost * 128,
	      "%llu bytes with %zu LOST records, %llu without", (unsigned long long)size, nlost,
	      (unsigned long long)psize);
	ZSTD_freeDCtx(d);
	free(src); free(plain); free(dec); free(back); free(pback);
	return 0;
}

/*
 * The stream of test_lost_outside() with a FINISHED_ROUND every
 * round_every pairs, as the stream sink puts one in about every
 * megabyte read: rarer than the compressor's units, so that writes can
 * end inside a record of the decompressed stream.
 */
static size_t round_stream(char *p, size_t pairs, size_t round_every)
{
	size_t nlost, len = syscall_stream(p, pairs, 0, &nlost), pos = 0, out = 0, i = 0;
	char *tmp = malloc(len);

	if (!tmp)
		return 0;
	memcpy(tmp, p, len);
	while (pos < len) {
		struct perf_event_header h;

		memcpy(&h, tmp + pos, sizeof(h));
		memcpy(p + out, tmp + pos, h.size);
		out += h.size;
		pos += h.size;
		if (h.size == 88 && ++i % round_every == 0) {
			struct perf_event_header r = { .type = PF_RECORD_FINISHED_ROUND, .size = 8 };

			memcpy(p + out, &r, sizeof(r));
			out += sizeof(r);
		}
	}
	free(tmp);
	return out;
}

/*
 * Decode a data section as perf does: COMPRESSED payloads through one
 * zstd stream, the records outside it as they are.  The bytes decoded,
 * or -1 when the data is not whole records.
 */
static long decode_data(const char *p, u64 size, char *dec, size_t cap)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	size_t dl = 0, at = 0;	/* at: where the last whole record ends */

	for (const char *q = p; q < p + size;) {
		struct perf_event_header h;

		memcpy(&h, q, sizeof(h));
		if (h.size < sizeof(h) || q + h.size > p + size)
			goto bad;
		if (h.type == PF_RECORD_COMPRESSED) {
			ZSTD_inBuffer in = { q + 8, h.size - 8, 0 };
			ZSTD_outBuffer ob = { dec + dl, cap - dl, 0 };

			while (in.pos < in.size)
				if (ZSTD_isError(ZSTD_decompressStream(d, &ob, &in)))
					goto bad;
			dl += ob.pos;
		} else {
			if (at != dl)
				goto bad;	/* a raw record inside a decoded one */
			memcpy(dec + dl, q, h.size);
			dl += h.size;
		}
		q += h.size;
		while (at + sizeof(h) <= dl) {
			memcpy(&h, dec + at, sizeof(h));
			if (h.size < sizeof(h) || at + h.size > dl)
				break;
			at += h.size;
		}
	}
	ZSTD_freeDCtx(d);
	return at == dl ? (long)dl : -1;
bad:
	ZSTD_freeDCtx(d);
	return -1;
}

/*
 * The disk fills while compressing (ENOSPC; here the file size limit,
 * whose EFBIG the writer takes the same way): the data size it reports
 * must end where perf can stop reading, on a whole record of the
 * decompressed stream, and hold the records in order up to there.  A
 * write ends inside a record when a unit was compressed after the last
 * FINISHED_ROUND of its chunk: perf-ring report then says "bytes of a
 * partial record at the end of the compressed data".  The limit is moved
 * over the whole file, so that it falls after writes of either kind.
 */
static int test_full_disk_zstd(void)
{
	size_t pairs = 40000, cap = pairs * 224 + 4096;
	char *src = malloc(cap), *dec = malloc(cap + 4096), *back;
	struct rlimit old;
	size_t len;
	u64 full, size;
	int cut_inside = 0;

	CHECK(src && dec, "alloc");
	len = round_stream(src, pairs, 6000);	/* a round every 1.3 MB */
	back = write_through(src, len, &full);
	CHECK(back && full, "write the whole stream");
	free(back);
	CHECK(!getrlimit(RLIMIT_FSIZE, &old), "getrlimit");
	signal(SIGXFSZ, SIG_IGN);
	for (int i = 1; i < 24; i++) {
		struct rlimit lim = { full * i / 24, old.rlim_max };
		long dl;

		CHECK(!setrlimit(RLIMIT_FSIZE, &lim), "setrlimit");
		back = write_kept(src, len, &size, true);
		setrlimit(RLIMIT_FSIZE, &old);
		CHECK(back, "a write that stops at %llu bytes", (unsigned long long)lim.rlim_cur);
		CHECK(size <= lim.rlim_cur, "data size %llu beyond the limit %llu",
		      (unsigned long long)size, (unsigned long long)lim.rlim_cur);
		dl = decode_data(back, size, dec, cap + 4096);
		cut_inside += dl < 0;
		CHECK(dl >= 0, "limit %llu: the %llu bytes kept end inside a record",
		      (unsigned long long)lim.rlim_cur, (unsigned long long)size);
		CHECK((size_t)dl <= len && !memcmp(dec, src, dl), "limit %llu: the records differ",
		      (unsigned long long)lim.rlim_cur);
		free(back);
	}
	signal(SIGXFSZ, SIG_DFL);
	CHECK(!cut_inside, "cut inside a record");
	free(src);
	free(dec);
	return 0;
}

/* A failing write (read-only fd): the error comes back, size stops before it. */
static int test_failure(void)
{
	struct writer_opts o = { .aio = 2, .level = 0, .chunk_size = 4096, .nchunks = 2 };
	struct writer *w;
	char path[4096];
	u64 seq = 0, size;
	int fd, err;
	struct chunk *c;

	tap_tmpname(path, sizeof(path), "perf-ring-w");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	close(fd);
	fd = open(path, O_RDONLY);
	CHECK(writer_start(&w, fd, 0, &o) == 0, "start");
	c = writer_get(w);
	c->len = fill(c->buf, c->cap, &seq);
	writer_put(w, c);
	err = writer_finish(w, &size);
	writer_free(w);
	CHECK(err == -EBADF, "error %d", err);
	CHECK(size == 0, "size %llu after a failed first write", (unsigned long long)size);
	close(fd);
	unlink(path);
	return 0;
}

/* bytes malloc() has handed out and not had back, mmap'd blocks included */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/*
 * writer_start() failing at its last step (no thread) gives back what it
 * took: chunks, compression buffers and context, the io_uring.
 */
static int test_start_fails(void)
{
	struct writer_opts o = { .aio = 2, .level = 3, .chunk_size = 1 << 20, .nchunks = 4 };
	struct writer *w;
	size_t m0, m1;
	int f0, f1, err;

	m0 = heap_in_use();
	f0 = open_fds();
	fail_thread = 1;
	err = writer_start(&w, 1, 0, &o);
	fail_thread = 0;
	m1 = heap_in_use();
	f1 = open_fds();
	CHECK(err == -EAGAIN, "writer_start: %d, not -EAGAIN", err);
	CHECK(m1 < m0 + 4096, "%zu bytes still taken after the failed start (before %zu, after %zu)",
	      m1 - m0, m0, m1);
	CHECK(f1 == f0, "%d open files after the failed start, %d before", f1, f0);
	return 0;
}

/* a thread started by writer_start() leaves the caller's signal mask as it was */
static int test_start_keeps_sigmask(void)
{
	struct writer_opts o = { .aio = 0, .level = 0, .chunk_size = 4096, .nchunks = 2 };
	struct writer *w;
	sigset_t before, after;
	u64 size;
	int fd = open("/dev/null", O_WRONLY), err, differ = 0;

	CHECK(fd >= 0, "/dev/null");
	pthread_sigmask(SIG_SETMASK, NULL, &before);
	leave_blocked = 1;
	err = writer_start(&w, fd, 0, &o);
	leave_blocked = 0;
	pthread_sigmask(SIG_SETMASK, NULL, &after);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	CHECK(err == 0, "writer_start: %d", err);
	CHECK(writer_finish(w, &size) == 0, "writer_finish");
	writer_free(w);
	close(fd);
	for (int sig = 1; sig < NSIG; sig++)
		differ += sigismember(&before, sig) != sigismember(&after, sig);
	CHECK(!differ, "%d signals blocked or not unlike before; SIGCHLD %s, SIGINT %s", differ,
	      sigismember(&after, SIGCHLD) ? "blocked" : "not blocked",
	      sigismember(&after, SIGINT) ? "blocked" : "not blocked");
	return 0;
}

/*
 * A long recording makes a cut per write: the list of them stays bounded,
 * the newest are exact (a failed write is one of the newest), and an old
 * one is still a place between records.
 */
static int test_cuts_bounded(void)
{
	struct writer_opts o = { .aio = 0, .level = 0, .chunk_size = 4096, .nchunks = 4 };
	const u64 n = 100000, rec = 64;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = rec };
	struct writer_stats st;
	struct writer *w;
	char path[4096];
	u64 size = 0, b;
	int fd, err;

	tap_tmpname(path, sizeof(path), "perf-ring-w");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	err = writer_start(&w, fd, 0, &o);
	CHECK(!err, "writer_start: %s", strerror(-err));
	for (u64 i = 0; i < n; i++) {
		struct chunk *c = writer_get(w);

		CHECK(c, "no chunk at write %llu", (unsigned long long)i);
		memset(c->buf, 0, rec);
		memcpy(c->buf, &h, sizeof(h));
		c->len = rec;
		writer_put(w, c);
	}
	err = writer_finish(w, &size);
	writer_get_stats(w, &st);
	CHECK(!err && size == n * rec, "finish %d, %llu bytes", err, (unsigned long long)size);
	CHECK(st.nwrites == n, "%llu writes", (unsigned long long)st.nwrites);
	CHECK(st.ncuts <= 16384, "%llu cuts held after %llu writes", (unsigned long long)st.ncuts,
	      (unsigned long long)n);
	b = writer_boundary_before(w, size);
	CHECK(b == size - rec, "newest cut %llu, not %llu", (unsigned long long)b,
	      (unsigned long long)(size - rec));
	b = writer_boundary_before(w, size - 1000 * rec);
	CHECK(b == size - 1001 * rec, "cut 1000 writes back %llu", (unsigned long long)b);
	b = writer_boundary_before(w, 10 * rec + 1);
	CHECK(b <= 10 * rec && b % rec == 0, "old cut %llu", (unsigned long long)b);
	writer_free(w);
	close(fd);
	return 0;
}

int main(void)
{
	tap_run("io_uring writes, in order, complete", test_uring);
	tap_run("write(2) writes", test_write);
	tap_run("io_uring submits that fail (EAGAIN): written by hand, the queued entry harmless",
		test_uring_submit_fails);
	tap_run("io_uring with zstd", test_uring_zstd);
	tap_run("write(2) with zstd level 3", test_write_zstd);
	tap_run("LOST records outside the compressed stream, at their own cost", test_lost_outside);
	tap_run("one writer restarted for each of several files: each whole, nothing allocated anew",
		test_restart);
	tap_run("snapshots: one writer in its caller, no thread, its pages given back after each",
		test_snapshots);
	tap_run("a snapshot's header: alone without data, with the only chunk in one write",
		test_head);
	tap_run("a writer freed before its file's end returns; in the caller, no chunk: NULL",
		test_free_unfinished);
	tap_run("a cut per write over 100,000 writes: the list bounded, the newest exact",
		test_cuts_bounded);
	tap_run("a failed write is reported with the data size before it", test_failure);
	tap_run("zstd, the disk full: the data kept ends on a whole record", test_full_disk_zstd);
	tap_run("a start that fails at its thread gives back its buffers and io_uring",
		test_start_fails);
	tap_run("a thread start that leaves every signal blocked (glibc's failed restore): the mask is set back",
		test_start_keeps_sigmask);
	return tap_done();
}
