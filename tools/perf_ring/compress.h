/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zstd streaming compression into PERF_RECORD_COMPRESSED records.
 *
 * Input is cut into units of a fixed number of bytes, regardless of record
 * boundaries (flushing at record boundaries costs about 5% of the ratio
 * on syscall traces).  Input is copied once, into an arena of COMP_ARENA
 * bytes, and zstd compresses it there in place (ZSTD_c_stableInBuffer):
 * every unit is contiguous with the one before it, so the match finder
 * keeps to its single-segment path, and zstd keeps no input buffer of its
 * own to copy into.  Each unit is compressed and flushed, and its output
 * goes into COMPRESSED records of its own.  A record split over two units
 * is joined again by the reader (perf keeps the remainder of the previous
 * decompressed buffer, and so does perf-ring report).  So:
 *  - decompressing one record never yields more than one unit, which is at
 *    most COMP_UNIT_MAX (perf sizes its decompression buffer from the
 *    mmap_len of HEADER_COMPRESSED, plus the remainder it carries);
 *  - a record must not decompress to nothing (perf 6.1 treats that as an
 *    error).  The unit size follows the ratio seen so far so that a unit's
 *    output fits one record: then the record holds a whole flush.  A unit
 *    of COMP_UNIT_MIN fits a record even when incompressible.  If a
 *    larger unit overflows anyway (the data suddenly stopped compressing),
 *    the output is split; raw blocks decode progressively, and only a
 *    compressed block larger than a record could leave a record that
 *    yields nothing.  comp_records() checks the block headers for that
 *    case and counts it in ->unsafe.
 * When the arena has no room left for another unit, the unit that fills it
 * ends the zstd frame (so the last block of a frame is never empty), and
 * the next unit starts a new frame at the arena's start: zstd decoders,
 * perf's included, go on from one frame to the next in the same stream.
 * Frames never span files: each file decodes on its own.
 * Each output file ends its last frame (the last unit ends it).
 */
#ifndef PERF_RING_COMPRESS_H
#define PERF_RING_COMPRESS_H

#include "util.h"

#define COMP_UNIT_MIN 64000u
#define COMP_UNIT_MAX (1024u * 1024)
#define COMP_MMAP_LEN (2048u * 1024)	/* advertised in HEADER_COMPRESSED */
#define COMP_REC_MAX 65535u
/* input held for zstd to compress in place: a new frame when it is full */
#define COMP_ARENA (2u * COMP_UNIT_MAX)
/* level 1: raw literals for at most this many frames, then zstd looks again */
#define COMP_LIT_RECHECK 8

struct zstd_cctx;
struct compressor {
	void *cctx;		/* ZSTD_CCtx */
	int level;
	bool in_frame;
	size_t unit;		/* current unit size */
	u64 unsafe;		/* see above */
	char *arena;		/* COMP_ARENA bytes of input, compressed in place */
	size_t done;		/* arena bytes given to zstd in this frame */
	size_t len;		/* arena bytes held (done..len: short of a unit) */
	u64 in_bytes, out_bytes, nrec;
	/*
	 * Literals (level 1): lit_raw is 0 while zstd chooses, else the
	 * frames since they went raw; the blocks of the frame so far, and
	 * those with Huffman literals.  See compress.c.
	 */
	u32 lit_raw;
	u32 frame_blocks, frame_huf;
};

int comp_init(struct compressor *c, int level);
/*
 * Take every page of the input arena now.  A frame ends somewhere in the
 * arena's second half, and that point moves with the unit sizes, so its
 * pages are otherwise taken over a long recording, most after the reader
 * has fallen behind: an RSS that steps up for good.
 */
void comp_touch(struct compressor *c);
/*
 * Give the input arena's pages back (comp_reset() follows before the
 * next use): a writer kept between snapshots holds no memory for its
 * input while no file is written.
 */
void comp_drop(struct compressor *c);
/* For the next file: a new frame, with the memory comp_init() took. */
int comp_reset(struct compressor *c);
void comp_free(struct compressor *c);
/*
 * Memory a compressor takes for raw bytes of input (0: a stream): zstd's
 * state for the level and the input arena, as far as it fills.
 */
size_t comp_mem_need(int level, size_t raw);
/* Of that, zstd's state for the level: a writer kept between files holds it. */
size_t comp_ctx_need(int level);
/* Worst-case output size for len bytes of input. */
size_t comp_bound(size_t len);
/* Worst-case output of a whole file (one frame) of len bytes of input. */
size_t comp_file_bound(size_t len);
/*
 * Compress len bytes of perf records from src into COMPRESSED records at
 * dst (at least comp_bound(len) bytes).  Input short of a unit is staged
 * for the next call.  With end, everything staged is written and the zstd
 * frame is closed; end needs len > 0, so that the last record is not
 * empty.  Returns bytes written, or negative errno.
 */
long comp_records(struct compressor *c, const void *src, size_t len,
		  void *dst, size_t dstlen, bool end);

/* Compress and flush whatever is staged (before a FINISHED_ROUND). */
long comp_flush(struct compressor *c, void *dst, size_t dstlen);

struct decompressor {
	void *dctx;		/* ZSTD_DCtx */
};
int decomp_init(struct decompressor *d);
void decomp_free(struct decompressor *d);
/* Decompress one COMPRESSED payload; returns bytes produced or -errno. */
long decomp_payload(struct decompressor *d, const void *src, size_t len,
		    void *dst, size_t dstlen);

#endif
