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
	bool per_thread;	/* --per-thread: a buffer per thread, not per CPU */
	long delay_ms;		/* -D: enable this long after the command starts; -1: never */
	struct time_range *delay_ranges;	/* -D A-B,C-D: enabled in these only */
	int ndelay_ranges;
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
	bool snapshot_whole;	/* --snapshot-window=whole */
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
	/* sample fields and attribute bits perf's options ask for (evlist_config()) */
	u64 sample_add;		/* -d, -P, -W, -R, --phys-data, ... */
	u64 regs_intr;		/* -I: PERF_SAMPLE_REGS_INTR registers */
	u64 regs_user;		/* --user-regs: PERF_SAMPLE_REGS_USER registers */
	u64 branch_type;	/* -b, -j: branch_sample_type */
	int clockid;		/* -k; use_clockid when clockid_set */
	bool clockid_set;
	bool no_samples;	/* -n: count, no samples */
	bool inherit_stat;	/* -s */
	bool switch_events, namespaces, all_cgroups;
	bool all_kernel, all_user;
	bool no_buffering;	/* wake the reader at every sample */
	bool no_bpf_event;
	bool running_time;
	bool dry_run;		/* parse, then exit 0 */
	unsigned int synth;	/* --synth: RECORD_SYNTH_*, what is synthesized at the start */
	bool tail_synth;	/* --tail-synthesize: at the end instead */
	unsigned int map_timeout_ms;	/* --proc-map-timeout, default 500 */
	const char *cgroup;	/* -G A,B,...: each event's cgroup, in order (with -a/-C) */
	int cgroup_nev;		/* the events defined before -G: the ones it applies to */
	u64 max_size;		/* --max-size: stop once the file has this many bytes */
	int refuse_exit;	/* a refused option: perf's exit status with it, 0: 255 */
	char **workload;	/* argv after -- */
	bool wl_target;		/* the command is what is recorded (no -a, -C, -p, -t) */
	int argc;
	char **argv;		/* our own command line, for HEADER_CMDLINE */
};

/* perf's PERF_SYNTH_* (--synth=task,mmap,cgroup; mmap implies task) */
enum {
	RECORD_SYNTH_TASK = 1,		/* COMM, FORK (and NAMESPACES) of existing threads */
	RECORD_SYNTH_MMAP = 2,		/* their MMAP2 */
	RECORD_SYNTH_CGROUP = 4,	/* CGROUP records of existing cgroups (--all-cgroups) */
	RECORD_SYNTH_ALL = 7,
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

/*
 * 0 on success; on error prints "perf-ring record: ..." and returns
 * -errno: -EINVAL for a usage error (perf exits 129 for those:
 * RECORD_USAGE_EXIT), -EOPNOTSUPP for a perf option perf-ring refuses.
 */
int record_parse(int argc, char **argv, struct record_opts *o);
void record_usage(FILE *f);
#define RECORD_USAGE_EXIT 129

/*
 * The option table, for the tests and the manual's table: each entry's
 * names, and how perf-ring supports it (enum record_support).
 */
enum record_support { SUP_PERF, SUP_DIFFERS, SUP_REFUSED, SUP_OWN };
struct record_optinfo {
	char short_name;
	const char *long_name;
	enum record_support support;
	const char *note;	/* how it differs, why refused; NULL for SUP_PERF */
};
int record_nr_options(void);
const struct record_optinfo *record_option(int i);

#endif
