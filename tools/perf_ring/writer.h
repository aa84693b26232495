/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writer: takes chunks of whole perf records, compresses them when
 * asked, and writes them to the data section of a file with io_uring
 * (several writes in flight) or plain write(2).  It runs on its own thread
 * so that compression and I/O never hold up the ring reader; a snapshot's
 * writer runs in its caller, which waits for the file anyway.
 */
#ifndef PERF_RING_WRITER_H
#define PERF_RING_WRITER_H

#include "compress.h"
#include "perfdata.h"
#include "util.h"

struct chunk {
	char *buf;
	size_t len, cap;
	/*
	 * Whoever fills the chunk marks (chunk_mark_outside()) the bytes that
	 * hold the records writer_outside_stream() names: the compressing
	 * writer walks the records there only.  out_hi == 0: none.
	 */
	size_t out_lo, out_hi;
	struct chunk *next;
};

/* Records from lo to hi (whole ones) may include outside ones. */
static inline void chunk_mark_outside(struct chunk *c, size_t lo, size_t hi)
{
	if (!c->out_hi || lo < c->out_lo)
		c->out_lo = lo;
	if (hi > c->out_hi)
		c->out_hi = hi;
}

/*
 * Records that a compressing writer writes as they are, between the
 * compressed records: FINISHED_ROUND and LOST (writer.c says why).
 */
static inline bool writer_outside_stream(u32 type)
{
	return type == PF_RECORD_FINISHED_ROUND || type == PERF_RECORD_LOST;
}

struct writer_opts {
	int aio;		/* writes in flight with io_uring; 0 = write(2) */
	int level;		/* zstd level, 0 = no compression */
	size_t chunk_size;
	int nchunks;
	bool stream;		/* a pipe: write(2) in order, no offsets, no io_uring */
	bool touch;		/* every chunk's and the zstd arena's pages taken now */
	/*
	 * No thread: writer_put() compresses and submits in the caller, and
	 * writer_finish() completes the writes there.  For a file written
	 * whole while its caller waits (a snapshot): a thread would only
	 * hand each chunk over and back, two wake-ups and their system
	 * calls, with nothing to do meanwhile.  io_uring keeps the writes
	 * in flight as the next chunks are filled.
	 */
	bool in_caller;
};

/* The writer's state is writer.c's: other files hold a pointer and use the functions below. */
struct writer;

/*
 * A writer of the data section of fd, from offset start: *wp, its thread
 * running (none with in_caller).  0 or negative errno, and then nothing is
 * left taken.
 */
int writer_start(struct writer **wp, int fd, u64 start, const struct writer_opts *o);
/*
 * A free chunk, waiting for one if needed; NULL once the writer failed,
 * or, in_caller, when every chunk is the caller's.
 */
struct chunk *writer_get(struct writer *w);
void writer_put(struct writer *w, struct chunk *c);	/* queue for writing */
/*
 * The file's last chunk.  In the caller, it and the frame's end are
 * written at once, by hand: writer_finish() would wait for them anyway,
 * and a write handed to io_uring costs two system calls (submit, wait)
 * and, on tmpfs, a worker's wake-up.
 */
void writer_put_last(struct writer *w, struct chunk *c);
/*
 * Before the file's first writer_put(): its header, the len bytes just
 * before the data (len <= start; a file at offsets, not a pipe), written
 * with the first data in one pwritev() when that is written by hand (a
 * snapshot of one chunk, writer_put_last(); write(2) writers), else by
 * itself just before the first data goes to io_uring, or by
 * writer_finish() when there is no data.  head stays the caller's and
 * unchanged until then.
 */
void writer_set_head(struct writer *w, const void *head, size_t len);
bool writer_head_pending(const struct writer *w);	/* not written yet */
/*
 * In the caller, uncompressed, nothing failed, c not put yet: the data
 * size once c, the file's last chunk, is written; else 0.  Then
 * writer_set_tail() may give what follows that much data (the feature
 * sections), written with c in the same pwritev(), and with the header
 * too while that waits (writer_set_head(): its bytes may be replaced by
 * a header of the same length until then).  tail stays the caller's
 * until writer_finish(), after which writer_tail_written() says whether
 * it is on file (a failed write, a chunk not put: it is not).
 */
u64 writer_size_with(const struct writer *w, const struct chunk *c);
void writer_set_tail(struct writer *w, const void *tail, size_t len);
bool writer_tail_written(const struct writer *w);
void writer_release(struct writer *w, struct chunk *c); /* give back unused */
bool writer_failed(struct writer *w);
/*
 * Write everything queued, close the zstd frame, wait for the I/O.
 * *data_size is the length of the data section that is known to be on
 * file: after a failed write, up to the last place before it where the
 * data ends on a whole record, also in the decompressed stream
 * (writer_boundary_before()).  Returns the first error.  The buffers and
 * the thread stay the writer's until writer_free(), for writer_restart().
 */
int writer_finish(struct writer *w, u64 *data_size);
/*
 * A finished writer writes the next file (fd, its data at start) with the
 * thread, chunks, compressed copies, zstd state and io_uring it has: a
 * recording whose files switch allocates nothing per file and starts no
 * thread.  0 or negative errno (the writer is then as after
 * writer_finish()).
 */
int writer_restart(struct writer *w, int fd, u64 start);
/*
 * After writer_finish(): give back the pages of the chunks, the
 * compressed copies and the compressor's input, keeping their mappings,
 * zstd's context and io_uring (and a thread).  A flight recorder idles
 * between snapshots on no more memory than a writer's fixed part, and
 * the next snapshot takes pages for what it writes only.
 */
void writer_trim(struct writer *w);
const char *writer_kind(const struct writer *w);
/* Why io_uring is not used ("" when it is, or was not asked for). */
const char *writer_uring_err(const struct writer *w);

/* What the writer did: the summary line and -v. */
struct writer_stats {
	u64 raw_bytes, out_bytes;	/* into and out of compression */
	u64 nwrites, retries;		/* retries: writes done again by hand */
	u64 get_wait_ns;		/* writer_get() waiting for a free chunk */
	u64 comp_ns, write_ns;
	u64 ncuts;			/* places the data may be cut at, held now */
};
/*
 * From writer_start() on, also after writer_finish(), until writer_free();
 * while the writer runs, only writer_out_bytes() may be asked.
 */
void writer_get_stats(const struct writer *w, struct writer_stats *s);
/* Bytes written to the file so far; any thread, while the writer runs. */
u64 writer_out_bytes(const struct writer *w);
/*
 * The largest data size below size at which the data ends on a whole
 * record, in the file and, compressed, in the decompressed stream (after
 * a record written outside it, or a flush): where to cut the data to make
 * room.  Uncompressed, every write starts one.
 */
u64 writer_boundary_before(const struct writer *w, u64 size);
/*
 * The writer is gone.  After writer_finish(); before it (a failure on the
 * way), what is queued is not written and what is in flight completes
 * first.  w may be NULL.
 */
void writer_free(struct writer *w);

#endif
