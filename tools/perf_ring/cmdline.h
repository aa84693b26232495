/* SPDX-License-Identifier: GPL-2.0 */
/* Command line of "perf-ring record". */
#ifndef PERF_RING_CMDLINE_H
#define PERF_RING_CMDLINE_H

#include <sys/types.h>
#include "events.h"

struct record_opts {
	struct ev_list events;
	const char *output;
	u64 mmap_bytes;		/* data area per CPU */
	u64 mmap_flush;
	u64 period;		/* -c */
	u64 freq;		/* -F */
	bool system_wide;
	bool cpu_mask[MAX_CPUS];
	bool cpu_list_given;
	pid_t *pids;
	int npids;
	int level;		/* zstd level, 0 = off */
	int aio;		/* io_uring depth, 0 = write(2) */
	bool overwrite;
	bool switch_signal;
	bool snapshot_pause;
	int synth_threads;
	int realtime;		/* -r: the reader's SCHED_FIFO priority, 0 = off */
	unsigned int reader_slice_us;	/* the reader's EEVDF slice, 0 = default */
	bool quiet, verbose;
	char **workload;	/* argv after -- */
	int argc;
	char **argv;		/* our own command line, for HEADER_CMDLINE */
};

/* 0 on success; on error prints "perf-ring record: ..." and returns -errno. */
int record_parse(int argc, char **argv, struct record_opts *o);
void record_usage(FILE *f);

#endif
