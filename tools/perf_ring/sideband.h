/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The side-band store: the COMM, MMAP, MMAP2, FORK, EXIT, KSYMBOL and
 * BPF_EVENT records of a recording, kept so that every file can stand alone.  A file that starts
 * after a switch, or a snapshot whose buffers lost these records to
 * overwriting long ago, gets them from here and names every thread and
 * DSO its samples need, also of processes that have exited since.
 *
 * The store is bounded.  When it is full, the records of the processes
 * that exited longest ago go first; if that is not enough, the oldest
 * records go.  What was dropped is counted.
 */
#ifndef PERF_RING_SIDEBAND_H
#define PERF_RING_SIDEBAND_H

#include "perfdata.h"

#define SIDEBAND_MAX (4u << 20)

struct sideband {
	struct pbuf log;	/* the records, oldest first */
	u64 sample_type;
	size_t max;
	u64 added, dropped;	/* records */
	u64 work;		/* records visited and pids compared by compaction */
};

void sideband_init(struct sideband *sb, u64 sample_type, size_t max);
/*
 * Take and touch the store's whole bound now: it never grows after, so
 * its memory is the same from the first snapshot to the last.
 */
int sideband_reserve(struct sideband *sb);
/* Is a record of this type kept? */
bool sideband_type(u32 type);
/* Keep the side-band records among the whole records in buf. */
void sideband_scan(struct sideband *sb, const char *buf, size_t len);
void sideband_free(struct sideband *sb);

#endif
