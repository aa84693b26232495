/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zstd streaming compression into PERF_RECORD_COMPRESSED records.
 *
 * Input is cut into units of whole records of at most COMP_UNIT bytes;
 * each unit is compressed with a flush and lands in its own COMPRESSED
 * record, so decompressing one record never yields more than COMP_UNIT
 * bytes (perf sizes its decompression buffer from the HEADER_COMPRESSED
 * mmap_len) and never yields nothing (perf 6.1 treats that as an error).
 * One output file is one zstd frame: comp_end() closes it.
 */
#ifndef PERF_RING_COMPRESS_H
#define PERF_RING_COMPRESS_H

#include "util.h"

#define COMP_UNIT 64000u
#define COMP_MMAP_LEN (128u * 1024)	/* advertised in HEADER_COMPRESSED */
#define COMP_REC_MAX 65535u

struct zstd_cctx;
struct compressor {
	void *cctx;		/* ZSTD_CCtx */
	int level;
	bool in_frame;
	u64 in_bytes, out_bytes, nrec;
};

int comp_init(struct compressor *c, int level);
void comp_free(struct compressor *c);
/* Worst-case output size for len bytes of input. */
size_t comp_bound(size_t len);
/*
 * Compress len bytes of whole perf records from src into COMPRESSED
 * records at dst.  With end, the zstd frame is closed after this data.
 * Returns bytes written, or negative errno.
 */
long comp_records(struct compressor *c, const void *src, size_t len,
		  void *dst, size_t dstlen, bool end);

struct decompressor {
	void *dctx;		/* ZSTD_DCtx */
};
int decomp_init(struct decompressor *d);
void decomp_free(struct decompressor *d);
/* Decompress one COMPRESSED payload; returns bytes produced or -errno. */
long decomp_payload(struct decompressor *d, const void *src, size_t len,
		    void *dst, size_t dstlen);

#endif
