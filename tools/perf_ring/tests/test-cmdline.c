// SPDX-License-Identifier: GPL-2.0
/*
 * record_parse(): perf's option matching rules (parse-options.c) on
 * perf-ring's table: exact names, abbreviations that must not collide
 * with a perf option, --no- forms, bundled switches, "--opt=val" and
 * "--opt val", and usage errors (-EINVAL, exit 129 in cmd_record).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "cgroup.h"
#include "tap.h"

static struct record_opts o;

/* record_parse() on a NULL-terminated list of words after "record" */
static int parse(const char *first, ...)
{
	static char *argv[64];
	va_list ap;
	int argc = 0;

	argv[argc++] = "perf-ring";	/* argv[-1] for record_parse */
	argv[argc++] = "record";
	va_start(ap, first);
	for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	events_free(&o.events);
	free(o.pids);
	o.pids = NULL;
	free(o.delay_ranges);
	o.delay_ranges = NULL;
	return record_parse(argc - 1, argv + 1, &o);
}

/* -D: MS, -1, or perf's ranges of time to enable the events */
static int test_delay_ranges(void)
{
	static const char *const bad[] = {
		"20-10", "10-10", "10-20,15-30", "10-20,20-30", "30-40,10-20", "10-20,",
		",10-20", "10-20,,30-40", "10-20-30", "10-", "-10-20", "a-20", "10-2x", "abc", "-2",
	};

	CHECK(!parse("-D", "100", "--", "true", NULL) && o.delay_ms == 100 && !o.ndelay_ranges,
	      "-D 100");
	CHECK(!parse("-D", "10-20,30-40", "--", "true", NULL) && o.ndelay_ranges == 2 &&
	      o.delay_ms == -1 && o.delay_ranges[0].start == 10 && o.delay_ranges[0].end == 20 &&
	      o.delay_ranges[1].start == 30 && o.delay_ranges[1].end == 40, "-D 10-20,30-40");
	CHECK(!parse("--delay=0-5", "--", "true", NULL) && o.ndelay_ranges == 1 &&
	      o.delay_ranges[0].start == 0 && o.delay_ranges[0].end == 5, "--delay=0-5");
	/* the last -D wins, as perf's */
	CHECK(!parse("-D", "10-20", "-D", "5", "--", "true", NULL) && o.delay_ms == 5 &&
	      !o.ndelay_ranges, "-D 10-20 -D 5");
	/* perf 6.1 takes them without a command too: from the recording's start */
	CHECK(!parse("-a", "-D", "10-20", NULL) && o.ndelay_ranges == 1, "-a -D 10-20");
	CHECK(!parse("-a", "-D", "10", NULL) && o.delay_ms == 10, "-a -D 10");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = parse("-D", bad[i], "--", "true", NULL);

		CHECK(err == -EINVAL, "-D %s: %d, not -EINVAL (perf's 129)", bad[i], err);
	}
	return 0;
}

/* -G A,B,...: one cgroup per event before it, as perf's parse_cgroups() */
static int test_cgroup_list(void)
{
	static const struct {
		const char *list;
		int i;
		const char *name;	/* NULL: none */
	} map[] = {
		{ "a", 0, "a" }, { "a", 3, "a" },		/* one name: every event's */
		{ "a,b", 0, "a" }, { "a,b", 1, "b" },
		{ "a,b", 2, NULL },				/* fewer names: none */
		{ "a,,b", 1, NULL }, { "a,,b", 2, "b" },	/* empty: none */
		{ ",b", 0, NULL }, { "a,", 1, NULL },
	};
	char name[64];
	int fd;

	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		bool has = cgroup_name(map[i].list, map[i].i, name, sizeof(name));

		CHECK(has == !!map[i].name && (!has || !strcmp(name, map[i].name)),
		      "-G %s, event %d: %s, not %s", map[i].list, map[i].i, has ? name : "none",
		      map[i].name ? map[i].name : "none");
	}
	CHECK(parse("-a", "-G", "x", NULL) == -EINVAL, "-G before any -e");
	CHECK(parse("-a", "-e", "cpu-clock", "-G", "no-such-cgroup-here", NULL) == -EINVAL,
	      "-G of a cgroup that does not exist");
	/* the root cgroup ("."), when there is a cgroup mount to open it in */
	fd = cgroup_open(".");
	if (fd < 0) {
		printf("# skipped the valid -G lists: no cgroup2 or perf_event cgroup mount\n");
		return 0;
	}
	close(fd);
	CHECK(!parse("-a", "-e", "cpu-clock", "-e", "task-clock", "-G", ".,.", NULL) &&
	      o.cgroup_nev == 2 && !strcmp(o.cgroup, ".,."), "-G .,. for two events");
	CHECK(!parse("-a", "-e", "cpu-clock", "-e", "task-clock", "-G", ",.", NULL),
	      "-G ,. (an empty name)");
	CHECK(!parse("-a", "-e", "cpu-clock", "-e", "task-clock", "-G", ".", "-e", "dummy",
		     NULL) && o.cgroup_nev == 2, "-G applies to the events before it");
	CHECK(parse("-a", "-e", "cpu-clock", "-G", ".,.", NULL) == -EINVAL,
	      "-G with more names than events");
	CHECK(parse("-a", "-e", "cpu-clock", "-G", ",,", NULL) == -EINVAL,
	      "-G ,, for one event: three names");
	return 0;
}

static int test_prefix_collisions(void)
{
	/* --timestamp is perf's -T, not a prefix of --timestamp-filename */
	CHECK(!parse("--timestamp", "--", "true", NULL) && !o.timestamp_filename &&
	      (o.sample_add & PERF_SAMPLE_TIME), "--timestamp");
	CHECK(!parse("--timestamp-f", "-o", "x.data", "--", "true", NULL) && o.timestamp_filename,
	      "--timestamp-f abbreviates --timestamp-filename");
	/* --timestam: timestamp-filename or timestamp-boundary, as perf */
	CHECK(parse("--timestam", "--", "true", NULL) == -EINVAL, "--timestam is ambiguous");
	/* --synt is perf's --synth, not perf-ring's --synth-threads */
	CHECK(!parse("--synt=no", "--", "true", NULL) && !o.synth, "--synt=no");
	CHECK(!parse("--synth", "no", "--", "true", NULL) && !o.synth, "--synth no");
	/* perf's kinds: mmap brings task; no and all end the list */
	CHECK(!parse("--", "true", NULL) && o.synth == RECORD_SYNTH_ALL, "default all");
	CHECK(!parse("--synth=task", "--", "true", NULL) && o.synth == RECORD_SYNTH_TASK,
	      "--synth=task: %u", o.synth);
	CHECK(!parse("--synth=mmap", "--", "true", NULL) &&
	      o.synth == (RECORD_SYNTH_TASK | RECORD_SYNTH_MMAP), "--synth=mmap: %u", o.synth);
	CHECK(!parse("--synth=CGROUP", "--", "true", NULL) && o.synth == RECORD_SYNTH_CGROUP,
	      "--synth=CGROUP: %u", o.synth);
	CHECK(!parse("--synth=cgroup,none,bogus", "--", "true", NULL) && !o.synth,
	      "--synth=cgroup,none,...: %u", o.synth);
	CHECK(parse("--synth=task,bogus", "--", "true", NULL) == -EINVAL, "--synth=task,bogus");
	CHECK(!parse("--", "true", NULL) && o.map_timeout_ms == 500 && !o.tail_synth,
	      "defaults: --proc-map-timeout 500, no --tail-synthesize");
	CHECK(!parse("--proc-map-timeout", "20", "--tail-synthesize", "--", "true", NULL) &&
	      o.map_timeout_ms == 20 && o.tail_synth, "--proc-map-timeout 20 --tail-synthesize");
	CHECK(parse("--proc-map-timeout", "-1", "--", "true", NULL) == -EINVAL,
	      "--proc-map-timeout -1");
	/* one synthesis thread unless asked, as perf's --num-thread-synthesize */
	CHECK(!parse("-a", "--", "true", NULL) && o.synth_threads == 1,
	      "default synthesis threads: %d, perf's is 1", o.synth_threads);
	CHECK(!parse("--num-thread-synthesize", "4", "--", "true", NULL) && o.synth_threads == 4,
	      "--num-thread-synthesize 4: %d", o.synth_threads);
	CHECK(!parse("--synth-threads=3", "--", "true", NULL) && o.synth_threads == 3,
	      "--synth-threads=3: %d", o.synth_threads);
	/* a perf-ring option is found by a prefix only when no perf option has it */
	CHECK(!parse("--reader-s", "200", "--", "true", NULL) && o.reader_slice_us == 200,
	      "--reader-s 200");
	CHECK(parse("--snap", "--", "true", NULL) == -EOPNOTSUPP,
	      "--snap is perf's -S (refused), not --snapshot-delay");
	return 0;
}

/* every short option perf has means here what it means to perf */
static int test_short_options(void)
{
	static const struct { char sh; const char *ln; } perf[] = {
		{ 'a', "all-cpus" }, { 'b', "branch-any" }, { 'B', "no-buildid" },
		{ 'c', "count" }, { 'C', "cpu" }, { 'd', "data" }, { 'D', "delay" },
		{ 'e', "event" }, { 'F', "freq" }, { 'G', "cgroup" }, { 'I', "intr-regs" },
		{ 'i', "no-inherit" }, { 'j', "branch-filter" }, { 'k', "clockid" },
		{ 'm', "mmap-pages" }, { 'N', "no-buildid-cache" }, { 'n', "no-samples" },
		{ 'o', "output" }, { 'P', "period" }, { 'p', "pid" }, { 'q', "quiet" },
		{ 'R', "raw-samples" }, { 'r', "realtime" }, { 'S', "snapshot" },
		{ 's', "stat" }, { 't', "tid" }, { 'T', "timestamp" }, { 'u', "uid" },
		{ 'v', "verbose" }, { 'W', "weight" }, { 'z', "compression-level" },
	};
	int n = record_nr_options();

	for (size_t i = 0; i < ARRAY_SIZE(perf); i++) {
		int k;

		for (k = 0; k < n && record_option(k)->short_name != perf[i].sh; k++)
			;
		CHECK(k < n && record_option(k)->long_name &&
		      !strcmp(record_option(k)->long_name, perf[i].ln),
		      "-%c is not --%s", perf[i].sh, perf[i].ln);
	}
	CHECK(!parse("-i", "--", "true", NULL) && o.no_inherit, "-i is --no-inherit");
	return 0;
}

static int test_table(void)
{
	int n = record_nr_options(), perf = 0;

	for (int i = 0; i < n; i++) {
		const struct record_optinfo *a = record_option(i);

		perf += a->support != SUP_OWN;
		CHECK(a->support == SUP_PERF || a->support == SUP_OWN || (a->note && *a->note),
		      "--%s: a difference or refusal without its reason", a->long_name);
		for (int k = 0; k < n; k++) {
			const struct record_optinfo *b = record_option(k);

			CHECK(k == i || !a->short_name || a->short_name != b->short_name,
			      "-%c twice", a->short_name);
			CHECK(k == i || !a->long_name || !b->long_name ||
			      strcmp(a->long_name, b->long_name), "--%s twice", a->long_name);
			/* an own option's full name must not abbreviate a perf option */
			CHECK(a->support != SUP_OWN || b->support == SUP_OWN || !a->long_name ||
			      !b->long_name || strncmp(b->long_name, a->long_name,
						       strlen(a->long_name)),
			      "--%s is a prefix of perf's --%s", a->long_name, b->long_name);
		}
	}
	CHECK(perf == 81, "%d perf options in the table, perf record 6.1 has 81", perf);
	return 0;
}

static int test_bundles_and_values(void)
{
	CHECK(!parse("-ag", NULL) && o.system_wide && o.callgraph == CALLGRAPH_FP, "-ag");
	CHECK(!parse("-aF99", NULL) && o.system_wide && o.freq == 99, "-aF99: %llu",
	      (unsigned long long)o.freq);
	CHECK(!parse("-F", "99", "-a", NULL) && o.freq == 99, "-F 99");
	CHECK(!parse("--freq=99", "-a", NULL) && o.freq == 99, "--freq=99");
	CHECK(!parse("--freq", "99", "-a", NULL) && o.freq == 99, "--freq 99");
	CHECK(!parse("-o", "x.data", "-a", NULL) && !strcmp(o.output, "x.data"), "-o x.data");
	CHECK(!parse("-ox.data", "-a", NULL) && !strcmp(o.output, "x.data"), "-ox.data");
	/* a required value is the next word, whatever it is (perf's -D -1) */
	CHECK(!parse("-D", "-1", "--", "true", NULL) && o.delay_ms == -1, "-D -1");
	/* an optional value only from the same word: -z 3 is -z, then a command */
	CHECK(!parse("-z", "true", NULL) && o.level == 1 && o.workload &&
	      !strcmp(o.workload[0], "true"), "-z COMMAND");
	CHECK(!parse("-z3", "-a", NULL) && o.level == 3, "-z3");
	CHECK(!parse("-z=3", "-a", NULL) && o.level == 3, "-z=3");
	CHECK(!parse("-m=8", "-a", NULL) && o.mmap_bytes == 8 * (u64)sysconf(_SC_PAGESIZE), "-m=8");
	CHECK(!parse("--compression-level=5", "-a", NULL) && o.level == 5, "--compression-level=5");
	/* the first word that is not an option starts the command */
	CHECK(!parse("sleep", "-a", NULL) && !o.system_wide && o.workload &&
	      !strcmp(o.workload[1], "-a"), "sleep -a");
	CHECK(!parse("-m", "3", "-a", NULL) && o.mmap_bytes == 4 * (u64)sysconf(_SC_PAGESIZE),
	      "-m 3 rounds up to 4 pages: %llu", (unsigned long long)o.mmap_bytes);
	CHECK(!parse("-m", "8,3", "-a", NULL) && o.mmap_bytes == 8 * (u64)sysconf(_SC_PAGESIZE),
	      "-m 8,3");
	return 0;
}

static int test_negation(void)
{
	CHECK(!parse("--no-aio", "-a", NULL) && o.aio == 0, "--no-aio");
	CHECK(!parse("--aio=8", "-a", NULL) && o.aio == 8, "--aio=8");
	CHECK(!parse("-i", "--inherit", "-a", NULL) && !o.no_inherit, "--inherit undoes -i");
	CHECK(!parse("-B", "--buildid", "-a", NULL) && !o.no_buildid, "--buildid undoes -B");
	CHECK(!parse("-a", "--no-all-cpus", "-p", "1", NULL) && !o.system_wide,
	      "--no-all-cpus");
	CHECK(!parse("-g", "--no-call-graph", "-a", NULL) && o.callgraph == CALLGRAPH_NONE,
	      "--no-call-graph");
	CHECK(parse("--no-output", "-a", NULL) == -EINVAL, "--no-output isn't available");
	CHECK(parse("--no-aio=3", "-a", NULL) == -EINVAL, "--no-aio=3 takes no value");
	return 0;
}

static int test_usage_errors(void)
{
	CHECK(parse("--bogus", NULL) == -EINVAL, "--bogus");
	CHECK(parse("-Y", NULL) == -EINVAL, "-Y");
	CHECK(parse("-o", NULL) == -EINVAL, "-o without a value");
	CHECK(parse("--all-cpus=1", NULL) == -EINVAL, "--all-cpus=1");
	CHECK(parse("-m", "x", "-a", NULL) == -EINVAL, "-m x");
	CHECK(parse("-k", "nosuchclock", "-a", NULL) == -EINVAL, "-k nosuchclock");
	CHECK(!parse("-k", "CLOCK_MONOTONIC_RAW", "-a", NULL) && o.clockid_set, "-k CLOCK_MONOTONIC_RAW");
	CHECK(parse("--synth=bogus", "-a", NULL) == -EINVAL, "--synth=bogus");
	CHECK(parse("--user-regs=NOPE", "-a", NULL) == -EINVAL, "--user-regs=NOPE");
	CHECK(parse("-a", "-p", "1", NULL) == -EINVAL, "-a with -p");
	CHECK(parse("--exclude-perf", "-a", NULL) == -EINVAL, "--exclude-perf before any -e");
	/* --snapshot-window: common or whole, whole only for the flight recorder */
	CHECK(!parse("--overwrite", "--snapshot-window=whole", "-a", "-o", "x.data", NULL) && o.snapshot_whole,
	      "--snapshot-window=whole");
	CHECK(!parse("--overwrite", "--snapshot-window", "common", "-a", "-o", "x.data",
		     NULL) &&
	      !o.snapshot_whole, "--snapshot-window common");
	CHECK(parse("--snapshot-window=whole", "-a", "-o", "x.data", NULL) == -EINVAL,
	      "--snapshot-window=whole without --overwrite");
	CHECK(parse("--overwrite", "--snapshot-window=all", "-a", "-o", "x.data", NULL) == -EINVAL,
	      "--snapshot-window=all");
	/* a perf option perf-ring cannot do: refused, not unknown */
	CHECK(parse("-b", "-a", NULL) == -EOPNOTSUPP, "-b");
	CHECK(parse("--aux-sample", "-a", NULL) == -EOPNOTSUPP, "--aux-sample");
	return 0;
}

static int test_sample_fields(void)
{
	CHECK(!parse("-d", "-P", "-W", "--phys-data", "--sample-identifier", "-a", NULL) &&
	      o.sample_add == (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_WEIGHT | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_IDENTIFIER),
	      "sample_add %#llx", (unsigned long long)o.sample_add);
#if defined(__x86_64__)
	CHECK(!parse("--user-regs=AX,ip", "-I", "-a", NULL) &&
	      o.regs_user == ((1ULL << 0) | (1ULL << 8)) && o.regs_intr == 0xff0fffULL,
	      "regs %#llx %#llx", (unsigned long long)o.regs_user,
	      (unsigned long long)o.regs_intr);
#endif
	return 0;
}

int main(void)
{
	/* the messages of the refusals and errors are expected: keep them out of TAP */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	tap_run("prefixes: exact names win, no abbreviation collides with perf's", test_prefix_collisions);
	tap_run("short options: perf's meaning (-i is --no-inherit)", test_short_options);
	tap_run("the table: 81 perf options, unique names, reasons given", test_table);
	tap_run("bundles -ag, -F99, --opt=val and --opt val, optional values", test_bundles_and_values);
	tap_run("--no-NAME and NAME for no-NAME", test_negation);
	tap_run("usage errors: -EINVAL (exit 129); refusals: -EOPNOTSUPP", test_usage_errors);
	tap_run("sample fields and registers", test_sample_fields);
	tap_run("-D MS, -1, and perf's ranges START-END,... with its errors", test_delay_ranges);
	tap_run("-G A,B,...: a cgroup per event, as perf's parse_cgroups()", test_cgroup_list);
	return tap_done();
}
