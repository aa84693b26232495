// SPDX-License-Identifier: GPL-2.0
/* The writer: io_uring and write(2), plain and compressed, and failure. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "perfdata.h"
#include "writer.h"
#include "tap.h"


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

static int run(int aio, int level)
{
	struct writer_opts o = { .aio = aio, .level = level, .chunk_size = 1 << 16, .nchunks = 4 };
	struct writer w;
	char path[4096];
	u64 seq = 0, size, start = 100;
	int fd, err;
	char *back;
	ssize_t n;

	tap_tmpname(path, sizeof(path), "perf-ring-w");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	CHECK(writer_start(&w, fd, start, &o) == 0, "start");
	for (int i = 0; i < 40; i++) {
		struct chunk *c = writer_get(&w);

		CHECK(c, "chunk");
		c->len = fill(c->buf, c->cap, &seq);
		writer_put(&w, c);
	}
	err = writer_finish(&w, &size);
	writer_free(&w);
	CHECK(err == 0, "finish: %d", err);
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
	close(fd);
	unlink(path);
	return 0;
}

static int test_uring(void) { return run(4, 0); }
static int test_write(void) { return run(0, 0); }
static int test_uring_zstd(void) { return run(8, 1); }
static int test_write_zstd(void) { return run(0, 3); }

/* A failing write (read-only fd): the error comes back, size stops before it. */
static int test_failure(void)
{
	struct writer_opts o = { .aio = 2, .level = 0, .chunk_size = 4096, .nchunks = 2 };
	struct writer w;
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
	c = writer_get(&w);
	c->len = fill(c->buf, c->cap, &seq);
	writer_put(&w, c);
	err = writer_finish(&w, &size);
	writer_free(&w);
	CHECK(err == -EBADF, "error %d", err);
	CHECK(size == 0, "size %llu after a failed first write", (unsigned long long)size);
	close(fd);
	unlink(path);
	return 0;
}

int main(void)
{
	tap_run("io_uring writes, in order, complete", test_uring);
	tap_run("write(2) writes", test_write);
	tap_run("io_uring with zstd", test_uring_zstd);
	tap_run("write(2) with zstd level 3", test_write_zstd);
	tap_run("a failed write is reported with the data size before it", test_failure);
	return tap_done();
}
