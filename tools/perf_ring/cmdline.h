/* SPDX-License-Identifier: GPL-2.0 */
/* Command line of "perf-ring record". */
#ifndef PERF_RING_CMDLINE_H
#define PERF_RING_CMDLINE_H

#include <stdio.h>
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
	pid_t *pids;		/* -p: processes (every thread); -t: threads */
	int npids;
	bool tids;		/* pids are -t threads, not -p processes */
	bool no_inherit;	/* --no-inherit */
	long delay_ms;		/* -D: enable this long after the command starts; -1: never */
	int level;		/* zstd level, 0 = off */
	int aio;		/* io_uring depth, 0 = write(2) */
	bool overwrite;
	bool switch_signal;	/* --switch-output[=signal]: SIGUSR2 switches */
	u64 switch_size;	/* --switch-output=SIZE, bytes; 0: off */
	u64 switch_time_ms;	/* --switch-output=TIME; 0: off */
	int switch_max_files;	/* --switch-max-files; 0: keep every file */
	bool timestamp_filename;
	const char *control;	/* --control=fifo:CTL[,ACK] | fd:CTL[,ACK] */
	int switch_ev_first;	/* --switch-output-event: its events are */
	int switch_ev_nr;	/* events[first .. first + nr - 1] */
	u64 snapshot_delay_ms;
	u64 snapshot_min_interval_ms;
	bool snapshot_pause;
	int synth_threads;
	int realtime;		/* -r: the reader's SCHED_FIFO priority, 0: fair, -1: 1 if permitted */
	unsigned int reader_slice_us;	/* the reader's EEVDF slice, 0 = default */
	int callgraph;		/* -g, --call-graph: enum record_callgraph */
	u32 stack_dump;		/* --call-graph dwarf,SIZE: user stack bytes */
	bool user_callchains;	/* --user-callchains: exclude_callchain_kernel */
	bool kernel_callchains;	/* --kernel-callchains: exclude_callchain_user */
	bool no_buildid;	/* -B: no build-ids at all */
	bool no_buildid_cache;	/* -N: build-ids in the file, not in ~/.debug */
	bool quiet, verbose;
	char **workload;	/* argv after -- */
	bool wl_target;		/* the command is what is recorded (no -a, -C, -p, -t) */
	int argc;
	char **argv;		/* our own command line, for HEADER_CMDLINE */
};

enum record_callgraph { CALLGRAPH_NONE, CALLGRAPH_FP, CALLGRAPH_DWARF, CALLGRAPH_LBR };

/* perf's default and largest user stack dump for --call-graph dwarf */
#define CALLGRAPH_DWARF_DUMP 8192u
#define CALLGRAPH_DWARF_DUMP_MAX 65528u

/*
 * --call-graph as perf parses it: fp, dwarf[,SIZE], lbr.  0, or -EINVAL
 * with the reason in err.
 */
int callgraph_parse(const char *arg, struct record_opts *o, char *err, size_t errlen);

/* Files are switched or snapshots taken on request: name them by time. */
static inline bool record_switching(const struct record_opts *o)
{
	return o->switch_signal || o->switch_size || o->switch_time_ms || o->control ||
	       o->switch_ev_nr || o->timestamp_filename;
}

/* 0 on success; on error prints "perf-ring record: ..." and returns -errno. */
int record_parse(int argc, char **argv, struct record_opts *o);
void record_usage(FILE *f);

#endif
