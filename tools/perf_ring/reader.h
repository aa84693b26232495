/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reader of a perf.data file for "perf-ring report": it opens the
 * file (perfdata.h), walks the records of its data section, counts them
 * (counts.h), decompresses PERF_RECORD_COMPRESSED and, when asked, copies
 * the plain records out (--decompress).
 *
 * Two modes.  READ_STRICT: a record that is not whole and sound is an
 * error, kept in fail.h.  READ_SALVAGE (--recover): the walk stops before
 * it and says where and why (struct read_stop); the records before it
 * are sound, and the walk succeeds.  The reader knows nothing of what its
 * callers (report.c, recover.c) do with the result.
 */
#ifndef PERF_RING_READER_H
#define PERF_RING_READER_H

#include "compress.h"
#include "counts.h"
#include "perfdata.h"

enum read_mode { READ_STRICT, READ_SALVAGE };

/* Where a READ_SALVAGE walk stopped. */
struct read_stop {
	u64 good_end;			/* file offset where the sound records end */
	u64 dropped;			/* the bytes of the data section after it */
	u64 first_time, last_time;	/* the sample time span up to good_end */
	char why[256];			/* the first unsound record; "" when none */
};

struct reader {
	/* the result, for the callers */
	struct pf_file f;		/* READ_SALVAGE: data.size cut to good_end */
	struct pf_counts outer;		/* as stored in the file */
	struct pf_counts all;		/* outer + decompressed, as perf --stats */
	u64 *per_ev;			/* samples per event, then lost per event */
	u64 comp_in, comp_out;		/* COMPRESSED bytes, and what they yield */
	u64 out_len;			/* bytes copied out */
	struct read_stop stop;		/* READ_SALVAGE */
	/* the walk's own */
	enum read_mode mode;
	struct idmap idmap;
	struct decompressor dz;
	bool dz_on;
	char *pend;			/* decompressed bytes not yet a whole record */
	size_t pend_len, pend_cap;
	int out_fd;
	u64 clean_end;			/* no compressed unit is half done up to here */
	u64 clean_first, clean_last;	/* the sample time span up to clean_end */
};

/*
 * Open path ("-": standard input).  force: also a file that neither the
 * caller nor root owns (perf's -f).  -errno with the message in fail.h.
 */
int reader_open(struct reader *r, const char *path, enum read_mode mode, bool force);
/*
 * Walk the data section: count, decompress, and copy the plain records
 * to out_fd unless it is -1.  -errno with the message in fail.h.
 */
int reader_walk(struct reader *r, int out_fd);
/* After reader_open(), whether it succeeded or not. */
void reader_close(struct reader *r);

#endif
