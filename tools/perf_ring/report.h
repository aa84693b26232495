/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one "perf-ring report" run, shared by report.c (the walk,
 * the summary, --decompress) and recover.c (--recover).
 */
#ifndef PERF_RING_REPORT_H
#define PERF_RING_REPORT_H

#include "compress.h"
#include "counts.h"
#include "perfdata.h"

struct rep {
	struct pf_file f;
	struct idmap idmap;
	struct pf_counts outer;		/* as stored in the file */
	struct pf_counts all;		/* outer + decompressed, as perf --stats */
	u64 *per_ev;
	u64 comp_in, comp_out;
	struct decompressor dz;
	bool dz_on;
	char *pend;			/* decompressed bytes not yet a whole record */
	size_t pend_len, pend_cap;
	int out_fd;			/* --decompress */
	u64 out_len;
	bool salvage;			/* --recover: stop at the first bad record */
	u64 good_end;			/* file offset where the sound records end */
	u64 clean_end;			/* ... and no compressed unit is half done */
	u64 clean_first, clean_last;	/* the sample time span up to clean_end */
	char err[256];
};

/* Walk the data section: count, decompress, copy out to out_fd if set. */
int report_walk(struct rep *r);
/*
 * --recover: write to out the records of r's file up to the first one
 * that is not whole, under a new header and feature sections.
 */
int report_recover(struct rep *r, const char *out, int argc, char **argv);

#endif
