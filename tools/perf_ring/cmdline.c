// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "prio.h"

enum {
	OPT_MMAP_FLUSH = 1000, OPT_AIO, OPT_NO_AIO, OPT_OVERWRITE,
	OPT_SWITCH_OUTPUT, OPT_SNAPSHOT_PAUSE, OPT_SYNTH_THREADS, OPT_READER_SLICE,
	OPT_SWITCH_MAX_FILES, OPT_TIMESTAMP_FILENAME, OPT_CONTROL, OPT_SNAPSHOT_DELAY,
	OPT_SNAPSHOT_MIN_INTERVAL, OPT_SWITCH_OUTPUT_EVENT,
	OPT_FILTER, OPT_NO_INHERIT, OPT_CALL_GRAPH, OPT_USER_CALLCHAINS, OPT_KERNEL_CALLCHAINS,
	OPT_NO_BUILDID, OPT_NO_BUILDID_CACHE,
};

static const struct option longopts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "output", required_argument, NULL, 'o' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "count", required_argument, NULL, 'c' },
	{ "freq", required_argument, NULL, 'F' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "no-inherit", no_argument, NULL, OPT_NO_INHERIT },
	{ "delay", required_argument, NULL, 'D' },
	{ "compression-level", optional_argument, NULL, 'z' },
	{ "mmap-flush", required_argument, NULL, OPT_MMAP_FLUSH },
	{ "aio", optional_argument, NULL, OPT_AIO },
	{ "no-aio", no_argument, NULL, OPT_NO_AIO },
	{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
	{ "switch-output", optional_argument, NULL, OPT_SWITCH_OUTPUT },
	{ "switch-max-files", required_argument, NULL, OPT_SWITCH_MAX_FILES },
	{ "switch-output-event", required_argument, NULL, OPT_SWITCH_OUTPUT_EVENT },
	{ "timestamp-filename", no_argument, NULL, OPT_TIMESTAMP_FILENAME },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "snapshot-delay", required_argument, NULL, OPT_SNAPSHOT_DELAY },
	{ "snapshot-min-interval", required_argument, NULL, OPT_SNAPSHOT_MIN_INTERVAL },
	{ "snapshot-pause", no_argument, NULL, OPT_SNAPSHOT_PAUSE },
	{ "synth-threads", required_argument, NULL, OPT_SYNTH_THREADS },
	{ "realtime", required_argument, NULL, 'r' },
	{ "reader-slice", required_argument, NULL, OPT_READER_SLICE },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "user-callchains", no_argument, NULL, OPT_USER_CALLCHAINS },
	{ "kernel-callchains", no_argument, NULL, OPT_KERNEL_CALLCHAINS },
	{ "no-buildid", no_argument, NULL, 'B' },
	{ "no-buildid-cache", no_argument, NULL, 'N' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void record_usage(FILE *f)
{
	fprintf(f,
"usage: perf-ring record [options] -- COMMAND [ARGS]\n"
"       perf-ring record [options] -a | -C CPUS | -p PID | -t TID [-- COMMAND [ARGS]]\n"
"\n"
"  -e, --event EVENTS        tracepoints (sys:name, globs), cpu-clock, task-clock,\n"
"                            page-faults, context-switches, dummy, hardware events;\n"
"                            modifiers (:u, :k, :h, :p...), pmu/config=N,period=N/,\n"
"                            mem:ADDR[/LEN][:rwx] breakpoints, groups {a,b}\n"
"      --filter FILTER       tracepoint filter for the tracepoints of the -e before it\n"
"  -o, --output FILE         output file (default perf.data); - writes perf's\n"
"                            pipe format to standard output\n"
"  -m, --mmap-pages N|SIZE   ring buffer per CPU: pages, or size with B/K/M/G\n"
"  -c, --count N             sample period\n"
"  -F, --freq N              sample frequency (Hz) for non-tracepoint events\n"
"  -a, --all-cpus            system wide\n"
"  -C, --cpu LIST            every task on these CPUs\n"
"  -p, --pid PID[,PID...]    existing processes\n"
"  -t, --tid TID[,TID...]    existing threads\n"
"      --no-inherit          tasks they create are not recorded\n"
"  -D, --delay MS            enable the events MS ms after the command starts\n"
"                            (-1: start disabled; --control enable)\n"
"  -z, --compression-level[=N]  zstd, level 1..22 (default 1)\n"
"      --mmap-flush SIZE     smallest chunk read from a buffer (max 1/4 buffer)\n"
"      --aio[=N]             io_uring with N writes in flight (default 4)\n"
"      --no-aio              plain write(2)\n"
"      --overwrite           flight recorder: backward, overwritable buffers\n"
"      --switch-output[=signal|SIZE|TIME]\n"
"                            a new file (streaming) or a snapshot (--overwrite)\n"
"                            on SIGUSR2, every SIZE bytes (B/K/M/G), or every\n"
"                            TIME (s/m/h/d)\n"
"      --switch-output-event EVENT\n"
"                            switch when EVENT (tracepoint, software event,\n"
"                            mem:ADDR breakpoint) occurs in the targets\n"
"      --switch-max-files N  keep the newest N files, delete older ones\n"
"      --timestamp-filename  name the first file by time too (switched files are)\n"
"      --control fifo:CTL[,ACK] | fd:CTL[,ACK]\n"
"                            commands: enable, disable, snapshot, stop, ping, status;\n"
"                            each gets 'ack' (snapshot: 'ack FILE') or\n"
"                            'error: ...' on ACK\n"
"      --snapshot-delay MS   serve a switch or snapshot request MS ms later\n"
"      --snapshot-min-interval MS\n"
"                            merge requests closer than MS ms into one\n"
"      --snapshot-pause      pause the buffers (PAUSE_OUTPUT) while copying\n"
"      --synth-threads N     threads for synthesizing existing threads\n"
"  -r, --realtime PRIO       read the buffers at SCHED_FIFO priority PRIO (1..99);\n"
"                            the writer and the command stay SCHED_OTHER; 0: a\n"
"                            fair reader (default: SCHED_FIFO 1 when permitted)\n"
"      --reader-slice USEC   a fair reader's slice, 100..100000 us (default 100;\n"
"                            0: the kernel's default; Linux 6.12+); implies -r 0\n"
"  -g                        call chains by frame pointers (--call-graph fp)\n"
"      --call-graph fp|dwarf[,SIZE]|lbr\n"
"                            call chains: frame pointers, the user stack (SIZE\n"
"                            bytes, default 8192, at most 65528) and registers\n"
"                            for DWARF unwinding, or last branch records\n"
"      --user-callchains     only user call chains (exclude_callchain_kernel)\n"
"      --kernel-callchains   only kernel call chains (exclude_callchain_user)\n"
"  -B, --no-buildid          no build-ids: not asked of the kernel, not in the file\n"
"  -N, --no-buildid-cache    build-ids in the file, but the DSOs not added to\n"
"                            perf's build-id cache (~/.debug)\n"
"  -q, --quiet / -v, --verbose\n");
}

static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "perf-ring record: invalid value '%s' for %s: %s\n",
		val ? val : "", opt, why);
	return -EINVAL;
}

static int add_pids(struct record_opts *o, const char *s, const char *opt)
{
	char *dup = strdup(s), *save = NULL, *tok;

	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (parse_long(tok, 1, 1 << 30, &v)) {
			free(dup);
			return bad(opt, s, "expected process ids");
		}
		o->pids = realloc(o->pids, (o->npids + 1) * sizeof(*o->pids));
		o->pids[o->npids++] = v;
	}
	free(dup);
	return o->npids ? 0 : bad(opt, s, "expected process ids");
}

/*
 * perf's --switch-output: "signal" (also with no value), a size with an
 * upper-case unit B/K/M/G, or a time with a lower-case unit s/m/h/d.
 */
static int switch_output_parse(struct record_opts *o, const char *arg)
{
	static const struct { char unit; u64 mul; } sizes[] = {
		{ 'B', 1 }, { 'K', 1ULL << 10 }, { 'M', 1ULL << 20 }, { 'G', 1ULL << 30 },
	}, times[] = {
		{ 's', 1000 }, { 'm', 60000 }, { 'h', 3600000 }, { 'd', 86400000 },
	};
	size_t n = arg ? strlen(arg) : 0;
	char *end;
	unsigned long long v;

	if (!arg || !strcmp(arg, "signal")) {
		o->switch_signal = true;
		return 0;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (n < 2 || end != arg + n - 1 || errno || !v || arg[0] == '-')
		return bad("--switch-output", arg, "expected signal, a size such as 10M or a time such as 30s");
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		if (arg[n - 1] == sizes[i].unit) {
			if (v > (1ULL << 50) / sizes[i].mul)
				return bad("--switch-output", arg, "size too large");
			o->switch_size = v * sizes[i].mul;
			return 0;
		}
		if (arg[n - 1] == times[i].unit) {
			if (v > (1ULL << 40) / times[i].mul)
				return bad("--switch-output", arg, "time too long");
			o->switch_time_ms = v * times[i].mul;
			return 0;
		}
	}
	return bad("--switch-output", arg, "expected signal, a size such as 10M or a time such as 30s");
}

/*
 * perf's parse_callchain_record(): "fp", "dwarf" with an optional
 * ",SIZE" (bytes, rounded up to 8, at most 65528), "lbr".
 */
int callgraph_parse(const char *arg, struct record_opts *o, char *err, size_t errlen)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

	if (n == 2 && !strncmp(arg, "fp", 2)) {
		o->callgraph = CALLGRAPH_FP;
	} else if (n == 3 && !strncmp(arg, "lbr", 3)) {
		o->callgraph = CALLGRAPH_LBR;
	} else if (n == 5 && !strncmp(arg, "dwarf", 5)) {
		o->callgraph = CALLGRAPH_DWARF;
		o->stack_dump = CALLGRAPH_DWARF_DUMP;
		if (comma) {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(comma + 1, &end, 0);
			if (errno || end == comma + 1 || *end || comma[1] == '-' || !v ||
			    ALIGN_UP(v, 8) > CALLGRAPH_DWARF_DUMP_MAX) {
				snprintf(err, errlen, "--call-graph %s: incorrect stack dump size "
					 "(max %u): %s", arg, CALLGRAPH_DWARF_DUMP_MAX, comma + 1);
				return -EINVAL;
			}
			o->stack_dump = ALIGN_UP(v, 8);
		}
		return 0;
	} else {
		snprintf(err, errlen, "--call-graph %s: unknown mode '%.*s': expected fp, "
			 "dwarf[,SIZE] or lbr", arg, (int)n, arg);
		return -EINVAL;
	}
	if (comma) {
		snprintf(err, errlen, "--call-graph %s: no more arguments needed for %.*s",
			 arg, (int)n, arg);
		return -EINVAL;
	}
	return 0;
}

int record_parse(int argc, char **argv, struct record_opts *o)
{
	long pg = sysconf(_SC_PAGESIZE), v;
	const char *mmap_arg = NULL, *flush_arg = NULL, *switch_event = NULL;
	char err[512];
	int c, ret;
	bool events_given = false, rt_given = false, slice_given = false;

	memset(o, 0, sizeof(*o));
	o->output = "perf.data";
	o->aio = 4;
	o->reader_slice_us = READER_SLICE_US;
	o->realtime = -1;	/* SCHED_FIFO 1 when permitted (prio.c) */
	o->synth_threads = sysconf(_SC_NPROCESSORS_ONLN);
	/* argv[-1] is the program name: the command line perf shows */
	o->argc = argc + 1;
	o->argv = argv - 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:o:m:c:F:aC:p:t:D:z::r:gBNqvh", longopts, NULL)) != -1) {
		const char *arg = optarg && *optarg == '=' ? optarg + 1 : optarg;

		switch (c) {
		case 'e':
			ret = events_parse(arg, &o->events, err, sizeof(err));
			if (ret) {
				fprintf(stderr, "perf-ring record: %s\n", err);
				return ret;
			}
			events_given = true;
			break;
		case OPT_FILTER:
			ret = events_add_filter(&o->events, arg, err, sizeof(err));
			if (ret) {
				fprintf(stderr, "perf-ring record: %s\n", err);
				return ret;
			}
			break;
		case 'o':
			o->output = arg;
			break;
		case 'm':
			mmap_arg = arg;
			break;
		case 'c':
			/* 2^62, or LONG_MAX where long has 32 bits */
			if (parse_long(arg, 1, LONG_MAX < (1LL << 62) ? LONG_MAX : (long)(1LL << 62), &v))
				return bad("-c", arg, "expected a positive period");
			o->period = v;
			break;
		case 'F':
			if (parse_long(arg, 1, 1000000, &v))
				return bad("-F", arg, "expected a frequency in Hz");
			o->freq = v;
			break;
		case 'a':
			o->system_wide = true;
			break;
		case 'C':
			if (parse_cpu_list(arg, o->cpu_mask, MAX_CPUS))
				return bad("-C", arg, "expected a CPU list such as 0-3,6");
			o->cpu_list_given = true;
			break;
		case 'p':
		case 't':
			if (o->npids && o->tids != (c == 't')) {
				fprintf(stderr, "perf-ring record: -p and -t exclude each other\n");
				return -EINVAL;
			}
			o->tids = c == 't';
			ret = add_pids(o, arg, c == 't' ? "-t" : "-p");
			if (ret)
				return ret;
			break;
		case OPT_NO_INHERIT:
			o->no_inherit = true;
			break;
		case 'D':
			if (parse_long(arg, -1, 3600000, &v))
				return bad("--delay", arg, "expected milliseconds, or -1 to start disabled");
			o->delay_ms = v;
			break;
		case 'z':
			o->level = 1;
			if (arg && parse_long(arg, 1, 22, &v))
				return bad("--compression-level", arg, "expected a level 1..22");
			if (arg)
				o->level = v;
			break;
		case OPT_MMAP_FLUSH:
			flush_arg = arg;
			break;
		case OPT_AIO:
			o->aio = 4;
			if (arg && parse_long(arg, 1, 256, &v))
				return bad("--aio", arg, "expected 1..256 writes in flight");
			if (arg)
				o->aio = v;
			break;
		case OPT_NO_AIO:
			o->aio = 0;
			break;
		case OPT_OVERWRITE:
			o->overwrite = true;
			break;
		case OPT_SWITCH_OUTPUT:
			ret = switch_output_parse(o, arg);
			if (ret)
				return ret;
			break;
		case OPT_SWITCH_OUTPUT_EVENT:
			switch_event = arg;
			break;
		case OPT_SWITCH_MAX_FILES:
			if (parse_long(arg, 1, 1 << 20, &v))
				return bad("--switch-max-files", arg, "expected a number of files");
			o->switch_max_files = v;
			break;
		case OPT_TIMESTAMP_FILENAME:
			o->timestamp_filename = true;
			break;
		case OPT_CONTROL:
			if (strncmp(arg, "fifo:", 5) && strncmp(arg, "fd:", 3))
				return bad("--control", arg, "expected fifo:CTL[,ACK] or fd:CTL[,ACK]");
			o->control = arg;
			break;
		case OPT_SNAPSHOT_DELAY:
			if (parse_long(arg, 0, 3600000, &v))
				return bad("--snapshot-delay", arg, "expected 0..3600000 milliseconds");
			o->snapshot_delay_ms = v;
			break;
		case OPT_SNAPSHOT_MIN_INTERVAL:
			if (parse_long(arg, 0, 3600000, &v))
				return bad("--snapshot-min-interval", arg,
					   "expected 0..3600000 milliseconds");
			o->snapshot_min_interval_ms = v;
			break;
		case OPT_SNAPSHOT_PAUSE:
			o->snapshot_pause = true;
			break;
		case OPT_SYNTH_THREADS:
			if (parse_long(arg, 1, 1024, &v))
				return bad("--synth-threads", arg, "expected 1..1024");
			o->synth_threads = v;
			break;
		case 'r':
			if (parse_long(arg, 0, 99, &v))
				return bad("--realtime", arg,
					   "expected a SCHED_FIFO priority 1..99, or 0");
			o->realtime = v;
			rt_given = true;
			break;
		case OPT_READER_SLICE:
			if (parse_long(arg, 0, 100000, &v) || (v && v < 100))
				return bad("--reader-slice", arg, "expected 0 or 100..100000 microseconds");
			o->reader_slice_us = v;
			slice_given = true;
			break;
		case 'g':
			o->callgraph = CALLGRAPH_FP;
			break;
		case OPT_CALL_GRAPH:
			ret = callgraph_parse(arg, o, err, sizeof(err));
			if (ret) {
				fprintf(stderr, "perf-ring record: %s\n", err);
				return ret;
			}
			break;
		case OPT_USER_CALLCHAINS:
			o->user_callchains = true;
			break;
		case OPT_KERNEL_CALLCHAINS:
			o->kernel_callchains = true;
			break;
		case 'B':
			o->no_buildid = true;
			break;
		case 'N':
			o->no_buildid_cache = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			record_usage(stdout);
			exit(0);
		default:
			if (optopt && strchr("eomcFCptDr", optopt))
				fprintf(stderr, "perf-ring record: option -%c needs a value\n", optopt);
			else
				fprintf(stderr, "perf-ring record: unknown option '%s'\n",
					argv[optind - 1]);
			record_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		o->workload = &argv[optind];
	}
	/*
	 * perf's targets: -p/-t, else -a or -C (every task on those CPUs),
	 * else the command.  A command beside -a, -C, -p or -t is not
	 * recorded itself: it sets how long the recording lasts.
	 */
	if (o->system_wide && o->npids) {
		fprintf(stderr, "perf-ring record: -a and %s exclude each other\n", o->tids ? "-t" : "-p");
		return -EINVAL;
	}
	if (o->npids && o->cpu_list_given) {
		fprintf(stderr, "perf-ring record: warning: %s overrides -C: every CPU is recorded "
			"(as perf's PID/TID switch overriding CPU)\n", o->tids ? "-t" : "-p");
		o->cpu_list_given = false;
		memset(o->cpu_mask, 0, sizeof(o->cpu_mask));
	}
	if (o->cpu_list_given)
		o->system_wide = true;
	if (!o->workload && !o->npids)
		o->system_wide = true;	/* -a, or -C alone */
	o->wl_target = o->workload && !o->system_wide && !o->npids;
	if (o->delay_ms && !o->workload) {
		fprintf(stderr, "perf-ring record: -D/--delay needs a command: it counts from its start\n");
		return -EINVAL;
	}
	if (slice_given && o->realtime > 0) {
		fprintf(stderr, "perf-ring record: --reader-slice is a fair reader's, not with "
			"-r %d (SCHED_FIFO)\n", o->realtime);
		return -EINVAL;
	}
	if (slice_given && !rt_given)
		o->realtime = 0;	/* a slice asked for: a fair reader */
	if (!events_given) {
		ret = events_parse("cpu-clock", &o->events, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "perf-ring record: %s\n", err);
			return ret;
		}
	}
	/* the trigger events go after the recorded ones (evlist.h) */
	if (switch_event) {
		o->switch_ev_first = o->events.nr;
		ret = events_parse(switch_event, &o->events, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "perf-ring record: --switch-output-event: %s\n", err);
			return ret;
		}
		o->switch_ev_nr = o->events.nr - o->switch_ev_first;
	}
	if (o->switch_max_files && !o->switch_signal && !o->switch_size && !o->switch_time_ms &&
	    !o->control && !o->switch_ev_nr) {
		fprintf(stderr, "perf-ring record: --switch-max-files needs --switch-output "
			"or --control: nothing would switch files\n");
		return -EINVAL;
	}
	/*
	 * A pipe is one stream: there is no second file to switch to, and a
	 * snapshot is a file of its own (perf refuses the same).
	 */
	if (o->output[0] == '-' && !o->output[1]) {
		const char *what = o->overwrite ? "--overwrite (the flight recorder's snapshots)" :
				   o->switch_signal || o->switch_size || o->switch_time_ms ?
				   "--switch-output" : o->switch_ev_nr ? "--switch-output-event" :
				   o->timestamp_filename ? "--timestamp-filename" :
				   o->switch_max_files ? "--switch-max-files" : NULL;

		if (what) {
			fprintf(stderr, "perf-ring record: %s cannot be used with -o - "
				"(pipe output is one stream, not files)\n", what);
			return -EINVAL;
		}
	}
	ret = events_unapplied(&o->events, EVENTS_OPENER_APPLIES, o->period || o->freq,
			       err, sizeof(err));
	if (ret) {
		fprintf(stderr, "perf-ring record: %s\n", err);
		return ret;
	}

	if (o->callgraph == CALLGRAPH_LBR && !hw_pmu_present()) {
		fprintf(stderr, "perf-ring record: --call-graph lbr: this machine has no hardware "
			"PMU (no cpu PMU under /sys/bus/event_source/devices, as in most virtual "
			"machines), so no last branch records; use fp or dwarf\n");
		return -EOPNOTSUPP;
	}
	if (o->user_callchains && o->kernel_callchains) {
		fprintf(stderr, "perf-ring record: --user-callchains and --kernel-callchains "
			"exclude each other: give neither for both\n");
		return -EINVAL;
	}

	/* buffer size: pages (perf's unit) or a size with a suffix */
	o->mmap_bytes = 128 * pg;
	if (mmap_arg) {
		u64 n;

		if (parse_size(mmap_arg, &n) || !n)
			return bad("-m", mmap_arg, "expected pages or a size such as 512K");
		if (mmap_arg[strlen(mmap_arg) - 1] >= '0' && mmap_arg[strlen(mmap_arg) - 1] <= '9')
			n *= pg;
		if (n < (u64)pg || (n & (n - 1)) || n % pg)
			return bad("-m", mmap_arg, "the buffer must be a power of two pages");
		if (n > (1ULL << 32))
			return bad("-m", mmap_arg, "at most 4G per CPU");
		o->mmap_bytes = n;
	}
	o->mmap_flush = 1;
	if (flush_arg) {
		u64 n;

		if (parse_size(flush_arg, &n) || !n)
			return bad("--mmap-flush", flush_arg, "expected a size such as 16K");
		if (n > o->mmap_bytes / 4)
			n = o->mmap_bytes / 4;	/* as perf: at most a quarter */
		o->mmap_flush = n;
	}
	if (!o->cpu_list_given && online_cpus(o->cpu_mask, MAX_CPUS)) {
		fprintf(stderr, "perf-ring record: cannot read the online CPUs\n");
		return -EINVAL;
	}
	return 0;
}
