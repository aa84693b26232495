// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <ctype.h>
#include <dirent.h>
#include <pwd.h>
#include <stddef.h>
#include <time.h>
#include <sys/stat.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "cgroup.h"
#include "fail.h"
#include "prio.h"

static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "perf-ring record: invalid value '%s' for %s: %s\n",
		val ? val : "", opt, why);
	return -EINVAL;
}

static int add_pids(struct record_opts *o, const char *s, const char *opt)
{
	char *dup = strdup(s), *save = NULL, *tok;

	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;

		if (parse_long(tok, 1, 1 << 30, &v)) {
			free(dup);
			return bad(opt, s, "expected process ids");
		}
		pid_t *p = realloc(o->pids, (o->npids + 1) * sizeof(*o->pids));

		if (!p) {
			free(dup);
			return -ENOMEM;
		}
		o->pids = p;
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

/*
 * The option table, as perf's OPT_* table (builtin-record.c) and its
 * parser (tools/lib/subcmd/parse-options.c): each entry has its names, the
 * kind of argument, a handler and what it sets, and how perf-ring supports
 * it.  Matching follows perf's: an exact long name wins; otherwise a
 * prefix of exactly one long name is that option; "--no-NAME" negates
 * NAME, and "--NAME" negates an option named "no-NAME".  A prefix is
 * looked up among perf's own options first, so that an abbreviation perf
 * accepts means here what it means to perf; perf-ring's own options are
 * tried only after that.
 */
struct pstate {
	struct record_opts *o;
	const char *mmap_arg, *flush_arg, *switch_event;
	bool events_given, rt_given, slice_given, group, strict_freq, freq_max;
};

enum { ARG_NONE, ARG_REQ, ARG_OPT };
#define F_NEG	1u	/* an option with an argument that takes --no-NAME */
#define F_HIDE	2u	/* not in -h */

struct ropt {
	struct record_optinfo i;
	int arg;
	unsigned int flags;
	const char *argh;
	int (*fn)(struct pstate *s, const struct ropt *op, const char *arg, bool unset);
	size_t off;		/* opt_bool: the bool in record_opts */
	u64 bits;		/* opt_sample: sample_type bits */
	const char *help;
};

#define FIELD(f) offsetof(struct record_opts, f)

static bool *field_bool(struct pstate *s, const struct ropt *op)
{
	return (bool *)((char *)s->o + op->off);
}

static int opt_bool(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)arg;
	*field_bool(s, op) = !unset;
	return 0;
}

/* a bool of the parser's own state (struct pstate) */
static int opt_pbool(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)arg;
	*(bool *)((char *)s + op->off) = !unset;
	return 0;
}

static int opt_sample(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)arg;
	if (unset)
		s->o->sample_add &= ~op->bits;
	else
		s->o->sample_add |= op->bits;
	return 0;
}

/* An option perf has and perf-ring refuses: perf's words, then why. */
static int opt_refuse(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)arg; (void)unset;
	/*
	 * perf 6.1 fails with -S and --aux-sample here with -EINVAL (no AUX
	 * area event: exit 234), with the others at their open (255)
	 */
	if (op->i.short_name == 'S' || !strcmp(op->i.long_name, "aux-sample"))
		s->o->refuse_exit = 256 - EINVAL;
	fprintf(stderr, "perf-ring record: --%s: %s\n", op->i.long_name, op->i.note);
	return -EOPNOTSUPP;
}

static int opt_branch(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)s; (void)arg; (void)unset;
	fprintf(stderr, "perf-ring record: -%c: PMU Hardware or event type doesn't support "
		"branch stack sampling: %s\n", op->i.short_name,
		hw_pmu_present() ? "perf-ring records software events, tracepoints and "
		"breakpoints, which have no branch stack" : "this machine has no hardware PMU "
		"(branch stacks are a PMU feature: LBR, BRBE)");
	return -EOPNOTSUPP;
}

/* Accepted and, as in Debian's perf 6.1, without effect: say so. */
static int opt_warn(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)arg;
	if (!unset && !s->o->quiet)
		fprintf(stderr, "perf-ring record: warning: --%s: %s\n", op->i.long_name,
			op->i.note);
	return 0;
}

/* Checked as perf checks it, then without effect here (the table says why). */
static int opt_accept(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)s; (void)op; (void)arg; (void)unset;
	return 0;
}

static int opt_event(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	char err[512];
	int ret;

	(void)op; (void)unset;
	ret = events_parse(arg, &s->o->events, err, sizeof(err));
	if (ret)
		fprintf(stderr, "perf-ring record: %s\n", err);
	s->events_given = true;
	/* a misspelt event is a usage error (perf: 129); tracefs out of reach is not */
	return ret == -EACCES || ret == -EPERM || ret == -ENOMEM ? ret : ret ? -EINVAL : 0;
}

static int opt_filter(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	char err[512];
	int ret;

	(void)op; (void)unset;
	ret = events_add_filter(&s->o->events, arg, err, sizeof(err));
	if (ret)
		fprintf(stderr, "perf-ring record: %s\n", err);
	return ret ? -EINVAL : 0;
}

/* perf's exclude_perf(): "common_pid != PID" on the last -e's tracepoints */
static int opt_exclude_perf(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	char f[64];

	(void)arg;
	snprintf(f, sizeof(f), "common_pid != %d", (int)getpid());
	if (!s->o->events.nr_specs) {
		fprintf(stderr, "perf-ring record: --exclude-perf option should follow a -e "
			"tracepoint option\n");
		return -EINVAL;
	}
	return opt_filter(s, op, f, unset);
}

static int opt_str(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)unset;
	*(const char **)((char *)s->o + op->off) = arg;
	return 0;
}

static int opt_pstr(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)unset;
	*(const char **)((char *)s + op->off) = arg;
	return 0;
}

static int opt_count(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	long v;

	(void)op; (void)unset;
	/* 2^62, or LONG_MAX where long has 32 bits */
	if (parse_long(arg, 1, LONG_MAX < (1LL << 62) ? LONG_MAX : (long)(1LL << 62), &v))
		return bad("-c", arg, "expected a positive period");
	s->o->period = v;
	return 0;
}

static int opt_freq(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	long v;

	(void)op; (void)unset;
	s->freq_max = !strcmp(arg, "max");
	if (s->freq_max)
		return 0;
	if (parse_long(arg, 1, 1000000, &v))
		return bad("-F", arg, "expected a frequency in Hz, or max");
	s->o->freq = v;
	return 0;
}

static int opt_cpu(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)op; (void)unset;
	if (parse_cpu_list(arg, s->o->cpu_mask, MAX_CPUS))
		return bad("-C", arg, "expected a CPU list such as 0-3,6");
	s->o->cpu_list_given = true;
	return 0;
}

static int opt_pid(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	bool t = op->i.short_name == 't';

	(void)unset;
	if (s->o->npids && s->o->tids != t) {
		fprintf(stderr, "perf-ring record: -p and -t exclude each other\n");
		return -EINVAL;
	}
	s->o->tids = t;
	return add_pids(s->o, arg, t ? "-t" : "-p");
}

/* perf's -u: the processes of a user (a name or a uid) that exist now */
static int opt_uid(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	struct passwd *pw = getpwnam(arg);
	long uid;
	DIR *d;
	struct dirent *de;
	int n = 0, ret = 0;

	(void)op; (void)unset;
	if (pw)
		uid = pw->pw_uid;
	else if (parse_long(arg, 0, INT_MAX, &uid))
		return bad("--uid", arg, "no such user");
	if (s->o->npids && s->o->tids) {
		fprintf(stderr, "perf-ring record: -u and -t exclude each other\n");
		return -EINVAL;
	}
	d = opendir("/proc");
	if (!d)
		return bad("--uid", arg, "cannot list /proc");
	while (!ret && (de = readdir(d))) {
		struct stat st;
		char path[300];

		if (!isdigit((unsigned char)de->d_name[0]) || atoi(de->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s", de->d_name);
		if (stat(path, &st) || st.st_uid != (uid_t)uid)
			continue;
		ret = add_pids(s->o, de->d_name, "-u");
		n++;
	}
	closedir(d);
	if (!ret && !n)
		return bad("--uid", arg, "the user has no process");
	return ret;
}

/* One "START-END" of -D's ranges, in ms; both plain decimal numbers. */
static int parse_range(const char *tok, struct time_range *r)
{
	const char *dash = strchr(tok, '-');
	char num[32];
	long a, b;

	if (!dash || dash == tok || (size_t)(dash - tok) >= sizeof(num))
		return -EINVAL;
	memcpy(num, tok, dash - tok);
	num[dash - tok] = '\0';
	if (parse_long(num, 0, 3600000, &a) || parse_long(dash + 1, 0, 3600000, &b))
		return -EINVAL;
	r->start = a;
	r->end = b;
	return 0;
}

/*
 * -D MS, -D -1, or as perf's evlist__parse_event_enable_time(): ranges
 * "A-B,C-D,..." of ms from the start in which the events are enabled;
 * each must end after it starts, and start after the one before it ended.
 */
static int opt_delay(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	struct record_opts *o = s->o;
	char *dup, *save = NULL, *tok;
	long v;
	int n = 0;

	(void)op; (void)unset;
	if (!parse_long(arg, -1, 3600000, &v)) {
		o->delay_ms = v;
		o->ndelay_ranges = 0;
		return 0;
	}
	if (!strchr(arg, '-') || arg[strlen(arg) - 1] == ',' || arg[0] == ',' || strstr(arg, ",,"))
		goto bad;
	dup = strdup(arg);
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct time_range r, *p;

		if (parse_range(tok, &r) || r.end <= r.start ||
		    (n && r.start <= o->delay_ranges[n - 1].end)) {
			free(dup);
			goto bad;
		}
		p = realloc(o->delay_ranges, (n + 1) * sizeof(*p));
		if (!p) {
			free(dup);
			return -ENOMEM;
		}
		o->delay_ranges = p;
		o->delay_ranges[n++] = r;
	}
	free(dup);
	o->ndelay_ranges = n;
	o->delay_ms = -1;	/* disabled until the first range starts */
	return 0;
bad:
	return bad("--delay", arg, "expected milliseconds, -1 to start disabled, or ranges "
		   "'START-END,...' in ms, each after the one before");
}

static int opt_level(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	long v = 1;

	(void)op;
	if (arg && parse_long(arg, 1, 22, &v))
		return bad("--compression-level", arg, "expected a level 1..22");
	s->o->level = unset ? 0 : v;
	return 0;
}

static int opt_aio(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	long v = 4;

	(void)op;
	if (arg && parse_long(arg, 1, 256, &v))
		return bad("--aio", arg, "expected 1..256 writes in flight");
	s->o->aio = unset ? 0 : v;
	return 0;
}

static int opt_switch_output(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)op; (void)unset;
	return switch_output_parse(s->o, arg);
}

/* a number in [lo, hi] into an int, u64 or unsigned field (by op->bits: its size) */
static int opt_num(struct pstate *s, const struct ropt *op, const char *arg, bool unset,
		   long lo, long hi, const char *why)
{
	char name[64];
	long v;
	void *f = (char *)s->o + op->off;

	(void)unset;
	snprintf(name, sizeof(name), "--%s", op->i.long_name);
	if (parse_long(arg, lo, hi, &v))
		return bad(name, arg, why);
	if (op->bits == sizeof(u64))
		*(u64 *)f = v;
	else
		*(int *)f = v;
	return 0;
}

static int opt_ms(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	return opt_num(s, op, arg, unset, 0, 3600000, "expected 0..3600000 milliseconds");
}

static int opt_files(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	return opt_num(s, op, arg, unset, 1, 1 << 20, "expected a number of files");
}

static int opt_threads_n(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	return opt_num(s, op, arg, unset, 1, 1024, "expected 1..1024");
}

static int opt_realtime(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	s->rt_given = true;
	return opt_num(s, op, arg, unset, 0, 99, "expected a SCHED_FIFO priority 1..99, or 0");
}

static int opt_slice(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	long v;

	(void)op; (void)unset;
	if (parse_long(arg, 0, 100000, &v) || (v && v < 100))
		return bad("--reader-slice", arg, "expected 0 or 100..100000 microseconds");
	s->o->reader_slice_us = v;
	s->slice_given = true;
	return 0;
}

/* --snapshot-window=common|whole */
static int opt_snapshot_window(struct pstate *s, const struct ropt *op, const char *arg,
			       bool unset)
{
	(void)op; (void)unset;
	if (!strcmp(arg, "common"))
		s->o->snapshot_whole = false;
	else if (!strcmp(arg, "whole"))
		s->o->snapshot_whole = true;
	else
		return bad("--snapshot-window", arg, "expected common or whole");
	return 0;
}

static int opt_control(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)op; (void)unset;
	if (strncmp(arg, "fifo:", 5) && strncmp(arg, "fd:", 3))
		return bad("--control", arg, "expected fifo:CTL[,ACK] or fd:CTL[,ACK]");
	s->o->control = arg;
	return 0;
}

static int opt_g(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)op; (void)arg;
	s->o->callgraph = unset ? CALLGRAPH_NONE : CALLGRAPH_FP;
	return 0;
}

static int opt_callgraph(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	char err[512];
	int ret;

	(void)op;
	if (unset) {
		s->o->callgraph = CALLGRAPH_NONE;
		return 0;
	}
	ret = callgraph_parse(arg, s->o, err, sizeof(err));
	if (ret)
		fprintf(stderr, "perf-ring record: %s\n", err);
	return ret;
}

/*
 * Register names for -I and --user-regs, as perf's x86 and arm64 tables
 * (tools/perf/arch/STAR/util/perf_regs.c): name and PERF_REG_* bit.
 */
static const struct { const char *name; int bit; } regs[] = {
#if defined(__aarch64__)
	{ "x0", 0 }, { "x1", 1 }, { "x2", 2 }, { "x3", 3 }, { "x4", 4 }, { "x5", 5 },
	{ "x6", 6 }, { "x7", 7 }, { "x8", 8 }, { "x9", 9 }, { "x10", 10 }, { "x11", 11 },
	{ "x12", 12 }, { "x13", 13 }, { "x14", 14 }, { "x15", 15 }, { "x16", 16 },
	{ "x17", 17 }, { "x18", 18 }, { "x19", 19 }, { "x20", 20 }, { "x21", 21 },
	{ "x22", 22 }, { "x23", 23 }, { "x24", 24 }, { "x25", 25 }, { "x26", 26 },
	{ "x27", 27 }, { "x28", 28 }, { "x29", 29 }, { "lr", 30 }, { "sp", 31 }, { "pc", 32 },
#else
	{ "AX", 0 }, { "BX", 1 }, { "CX", 2 }, { "DX", 3 }, { "SI", 4 }, { "DI", 5 },
	{ "BP", 6 }, { "SP", 7 }, { "IP", 8 }, { "FLAGS", 9 }, { "CS", 10 }, { "SS", 11 },
	{ "R8", 16 }, { "R9", 17 }, { "R10", 18 }, { "R11", 19 }, { "R12", 20 },
	{ "R13", 21 }, { "R14", 22 }, { "R15", 23 },
#endif
};

static int regs_parse(const char *opt, const char *arg, u64 *mask)
{
	char *dup, *tok, *save = NULL;
	u64 m = 0;

	if (!arg) {
		for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
			m |= 1ULL << regs[i].bit;
		*mask = m;
		return 0;
	}
	if (!strcmp(arg, "?")) {
		fprintf(stderr, "available registers:");
		for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
			fprintf(stderr, " %s", regs[i].name);
		fprintf(stderr, "\n");
		return -EINVAL;	/* perf lists them, then exits with its usage */
	}
	dup = strdup(arg);
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(regs) && strcasecmp(tok, regs[i].name); i++)
			;
		if (i == ARRAY_SIZE(regs)) {
			fprintf(stderr, "perf-ring record: %s: unknown register %s, check man "
				"page or run %s?\n", opt, tok, opt);
			free(dup);
			return -EINVAL;
		}
		m |= 1ULL << regs[i].bit;
	}
	free(dup);
	*mask = m;
	return 0;
}

static int opt_intr_regs(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)op;
	s->o->regs_intr = 0;
	return unset ? 0 : regs_parse("-I", arg, &s->o->regs_intr);
}

static int opt_user_regs(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)op;
	s->o->regs_user = 0;
	return unset ? 0 : regs_parse("--user-regs", arg, &s->o->regs_user);
}

/* perf's clockid names (parse_clockid()), with or without CLOCK_, any case */
static int opt_clockid(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	static const struct { const char *name; int id; } ids[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME }, { "boottime", CLOCK_BOOTTIME },
		{ "tai", CLOCK_TAI }, { "mono", CLOCK_MONOTONIC }, { "raw", CLOCK_MONOTONIC_RAW },
		{ "real", CLOCK_REALTIME }, { "boot", CLOCK_BOOTTIME },
	};
	const char *n = strncasecmp(arg, "CLOCK_", 6) ? arg : arg + 6;
	long v;

	(void)op;
	s->o->clockid_set = !unset;
	if (unset)
		return 0;
	if (!parse_long(arg, 0, INT_MAX, &v)) {
		s->o->clockid = v;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		if (!strcasecmp(n, ids[i].name)) {
			s->o->clockid = ids[i].id;
			return 0;
		}
	}
	fprintf(stderr, "perf-ring record: unknown clockid %s, check man page\n", arg);
	return -EINVAL;
}

/* perf's parse_synth_opt(): no/none and all end the list; mmap brings task */
static int opt_synth(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	static const struct { const char *name; unsigned int flags; } kinds[] = {
		{ "task", RECORD_SYNTH_TASK },
		{ "mmap", RECORD_SYNTH_TASK | RECORD_SYNTH_MMAP },
		{ "cgroup", RECORD_SYNTH_CGROUP },
	};
	char *dup = strdup(arg), *tok, *save = NULL;
	unsigned int v = 0;
	int ret = 0;

	(void)op; (void)unset;
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (!strcasecmp(tok, "no") || !strcasecmp(tok, "none")) {
			v = 0;
			break;
		}
		if (!strcasecmp(tok, "all")) {
			v = RECORD_SYNTH_ALL;
			break;
		}
		for (i = 0; i < ARRAY_SIZE(kinds) && strcasecmp(tok, kinds[i].name); i++)
			;
		if (i == ARRAY_SIZE(kinds)) {
			fprintf(stderr, "perf-ring record: Invalid synth option: %s\n", tok);
			ret = -EINVAL;
			break;
		}
		v |= kinds[i].flags;
	}
	free(dup);
	s->o->synth = v;
	return ret;
}

static int opt_map_timeout(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	long v;

	(void)op; (void)unset;
	if (parse_long(arg, 0, INT_MAX / 2, &v))
		return bad("--proc-map-timeout", arg, "expected milliseconds");
	s->o->map_timeout_ms = v;
	return 0;
}

/* perf's parse_output_max_size(): a number with B, K, M or G */
static int opt_max_size(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)op; (void)unset;
	if (parse_size(arg, &s->o->max_size))
		return bad("--max-size", arg, "expected a size such as 100M");
	return 0;
}

/*
 * -G A,B,...: as perf's parse_cgroups(), one cgroup per event defined so
 * far, in order (one name: every event's; an empty one: none); more names
 * than events, or a cgroup that cannot be opened, is a usage error.
 */
static int opt_cgroup(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	const char *p = arg;
	int n = 0;

	(void)op; (void)unset;
	if (!s->events_given) {
		fprintf(stderr, "perf-ring record: must define events before cgroups\n");
		return -EINVAL;
	}
	for (;;) {
		size_t len = strcspn(p, ",");

		if (++n > s->o->events.nr) {
			fprintf(stderr, "perf-ring record: -G %s: more cgroups than the %d events "
				"before it\n", arg, s->o->events.nr);
			return -EINVAL;
		}
		if (len) {
			char name[4096];
			int fd;

			if (len >= sizeof(name))
				return bad("--cgroup", arg, "a cgroup name too long");
			memcpy(name, p, len);
			name[len] = '\0';
			fd = cgroup_open(name);
			if (fd < 0) {
				fprintf(stderr, "perf-ring record: %s\n", fail_msg());
				return -EINVAL;
			}
			close(fd);
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	s->o->cgroup = arg;
	s->o->cgroup_nev = s->o->events.nr;
	return 0;
}

static int opt_affinity(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)s; (void)op; (void)unset;
	if (strcmp(arg, "node") && strcmp(arg, "cpu"))
		return bad("--affinity", arg, "expected node or cpu");
	return 0;
}

static int opt_vmlinux(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	struct stat st;

	(void)s; (void)op; (void)unset;
	if (stat(arg, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "perf-ring record: Invalid file: %s\n", arg);
		return -EINVAL;
	}
	return 0;
}

static int opt_help(struct pstate *s, const struct ropt *op, const char *arg, bool unset);
static int opt_list(struct pstate *s, const struct ropt *op, const char *arg, bool unset);

#define OPT(sh, ln, sup, kind, fl, ah, fn_, off_, bits_, note_, help_)	\
	{ { sh, ln, sup, note_ }, kind, fl, ah, fn_, off_, bits_, help_ }
#define BOOL(sh, ln, field, help_)	\
	OPT(sh, ln, SUP_PERF, ARG_NONE, 0, NULL, opt_bool, FIELD(field), 0, NULL, help_)
#define SAMPLE(sh, ln, b, help_)	\
	OPT(sh, ln, SUP_PERF, ARG_NONE, 0, NULL, opt_sample, 0, b, NULL, help_)
#define REFUSE(sh, ln, kind, ah, why, help_)	\
	OPT(sh, ln, SUP_REFUSED, kind, 0, ah, opt_refuse, 0, 0, why, help_)
#define DIFFERS(sh, ln, kind, ah, fn_, why, help_)	\
	OPT(sh, ln, SUP_DIFFERS, kind, 0, ah, fn_, 0, 0, why, help_)

static const struct ropt table[] = {
	BOOL('a', "all-cpus", system_wide, "system-wide collection from all CPUs"),
	OPT('b', "branch-any", SUP_REFUSED, ARG_NONE, 0, NULL, opt_branch, 0, 0,
	    "branch stacks are a hardware PMU feature (LBR, BRBE): not on software events, "
	    "tracepoints or breakpoints, and this machine may have no PMU",
	    "sample any taken branches"),
	BOOL('B', "no-buildid", no_buildid, "do not collect buildids in perf.data"),
	OPT('c', "count", SUP_PERF, ARG_REQ, 0, "n", opt_count, 0, 0, NULL, "event period to sample"),
	OPT('C', "cpu", SUP_PERF, ARG_REQ, 0, "cpu", opt_cpu, 0, 0, NULL, "list of cpus to monitor"),
	OPT('d', "data", SUP_PERF, ARG_NONE, 0, NULL, opt_sample, 0,
	    PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC, NULL, "Record the sample addresses"),
	OPT('D', "delay", SUP_PERF, ARG_REQ, 0, "ms", opt_delay, 0, 0, NULL,
	    "ms to wait before starting measurement after program start (-1: start with "
	    "events disabled), or ranges of time to enable events e.g. '-D 10-20,30-40'"),
	OPT('e', "event", SUP_PERF, ARG_REQ, 0, "event", opt_event, 0, 0,
	    "software events, tracepoints, breakpoints (no PMU here for hardware events)",
	    "event selector: software events, tracepoints, mem:ADDR breakpoints, groups {a,b}"),
	OPT('F', "freq", SUP_PERF, ARG_REQ, 0, "freq or 'max'", opt_freq, 0, 0, NULL,
	    "profile at this frequency"),
	OPT('g', NULL, SUP_PERF, ARG_NONE, 0, NULL, opt_g, 0, 0, NULL,
	    "enables call-graph recording (frame pointers)"),
	OPT('G', "cgroup", SUP_PERF, ARG_REQ, 0, "name", opt_cgroup, 0, 0, NULL,
	    "monitor event in cgroup name only"),
	OPT('I', "intr-regs", SUP_PERF, ARG_OPT, 0, "any register", opt_intr_regs, 0, 0, NULL,
	    "sample selected machine registers on interrupt, use '-I?' to list register names"),
	BOOL('i', "no-inherit", no_inherit, "child tasks do not inherit counters"),
	OPT('j', "branch-filter", SUP_REFUSED, ARG_REQ, 0, "branch filter mask", opt_branch, 0, 0,
	    "branch stacks are a hardware PMU feature (LBR, BRBE): not on software events, "
	    "tracepoints or breakpoints, and this machine may have no PMU",
	    "branch stack filter modes"),
	OPT('k', "clockid", SUP_PERF, ARG_REQ, 0, "clockid", opt_clockid, 0, 0, NULL,
	    "clockid to use for events, see clock_gettime()"),
	OPT('m', "mmap-pages", SUP_PERF, ARG_REQ, 0, "pages[,pages]", opt_pstr,
	    offsetof(struct pstate, mmap_arg), 0, "the AUX part is checked; no AUX events here",
	    "number of mmap data pages (or a size with B/K/M/G) and AUX area tracing mmap pages"),
	BOOL('N', "no-buildid-cache", no_buildid_cache, "do not update the buildid cache"),
	BOOL('n', "no-samples", no_samples, "don't sample"),
	OPT('o', "output", SUP_PERF, ARG_REQ, 0, "file", opt_str, FIELD(output), 0, NULL,
	    "output file name; - writes perf's pipe format to standard output"),
	SAMPLE('P', "period", PERF_SAMPLE_PERIOD, "Record the sample period"),
	OPT('p', "pid", SUP_PERF, ARG_REQ, 0, "pid", opt_pid, 0, 0, NULL,
	    "record events on existing process id"),
	BOOL('q', "quiet", quiet, "don't print any warnings or messages"),
	SAMPLE('R', "raw-samples", PERF_SAMPLE_RAW, "collect raw sample records from all opened counters"),
	OPT('r', "realtime", SUP_DIFFERS, ARG_REQ, 0, "n", opt_realtime, FIELD(realtime), 0,
	    "the reader thread runs SCHED_FIFO, the writer and the command do not; 0: a fair "
	    "reader; default SCHED_FIFO 1 when permitted",
	    "read the buffers at this RT SCHED_FIFO priority (0: fair)"),
	REFUSE('S', "snapshot", ARG_OPT, "opts",
	       "No AUX area tracing to snapshot: AUX areas come from hardware tracers (Intel PT, "
	       "CoreSight), none here; the flight recorder's snapshots are --overwrite with "
	       "--switch-output or --control snapshot",
	       "AUX area tracing Snapshot Mode"),
	BOOL('s', "stat", inherit_stat, "per thread counts"),
	OPT('t', "tid", SUP_PERF, ARG_REQ, 0, "tid", opt_pid, 0, 0, NULL,
	    "record events on existing thread id"),
	SAMPLE('T', "timestamp", PERF_SAMPLE_TIME, "Record the sample timestamps (always recorded)"),
	OPT('u', "uid", SUP_PERF, ARG_REQ, 0, "user", opt_uid, 0, 0,
	    "as perf 6.1 (thread_map__new_by_uid()): every thread of the user's processes "
	    "that exist at the start, and what they start",
	    "user to profile"),
	BOOL('v', "verbose", verbose, "be more verbose"),
	SAMPLE('W', "weight", PERF_SAMPLE_WEIGHT, "sample by weight (on special events only)"),
	OPT('z', "compression-level", SUP_PERF, ARG_OPT, 0, "n", opt_level, 0, 0, NULL,
	    "Compress records using specified level (default: 1 - fastest compression, "
	    "22 - greatest compression)"),
	DIFFERS(0, "affinity", ARG_REQ, "node|cpu", opt_affinity,
		"checked, no effect: perf moves its reading thread to each buffer's CPU or node "
		"before it reads it; perf-ring's one reader reads every buffer from where it "
		"runs, as perf's default (sys) does: a move per buffer read would cost a "
		"migration at every wakeup", "Set affinity mask of trace reading thread"),
	OPT(0, "aio", SUP_DIFFERS, ARG_OPT, F_NEG, "n", opt_aio, 0, 0,
	    "io_uring, up to 256 writes in flight (default 4; perf: POSIX AIO, 1..4)",
	    "Use <n> writes in flight (io_uring)"),
	OPT(0, "all-cgroups", SUP_PERF, ARG_NONE, 0, NULL, opt_bool, FIELD(all_cgroups), 0,
	    NULL, "Record cgroup events"),
	BOOL(0, "all-kernel", all_kernel, "Configure all used events to run in kernel space."),
	BOOL(0, "all-user", all_user, "Configure all used events to run in user space."),
	REFUSE(0, "aux-sample", ARG_OPT, "opts",
	       "No AUX area event to sample: AUX areas come from hardware tracers (Intel PT, "
	       "CoreSight), none here", "sample AUX area"),
	OPT(0, "buildid-all", SUP_PERF, ARG_NONE, 0, NULL, opt_accept, 0, 0,
	    "perf-ring's default: every DSO mapped, hit or not",
	    "Record build-id of all DSOs regardless of hits"),
	OPT(0, "buildid-mmap", SUP_PERF, ARG_NONE, 0, NULL, opt_accept, 0, 0,
	    "perf-ring's default (where the kernel allows it)",
	    "Record build-id in map events"),
	OPT(0, "call-graph", SUP_PERF, ARG_REQ, F_NEG, "record_mode[,record_size]", opt_callgraph,
	    0, 0, "lbr needs a hardware PMU", "setup and enables call-graph: fp, dwarf[,SIZE], lbr"),
	DIFFERS(0, "clang-opt", ARG_REQ, "clang options", opt_accept,
		"accepted; they are for BPF scriptlet events (-e prog.c), which perf-ring does not take",
		"options passed to clang when compiling BPF scriptlets"),
	DIFFERS(0, "clang-path", ARG_REQ, "clang path", opt_accept,
		"accepted; it is for BPF scriptlet events (-e prog.c), which perf-ring does not take",
		"clang binary to use for compiling BPF scriptlets"),
	SAMPLE(0, "code-page-size", PERF_SAMPLE_CODE_PAGE_SIZE,
	       "Record the sampled code address (ip) page size"),
	OPT(0, "control", SUP_PERF, ARG_REQ, 0, "fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]",
	    opt_control, 0, 0, "also stop, ping and status",
	    "commands enable, disable, snapshot, stop, ping, status; 'ack' on ACK"),
	SAMPLE(0, "data-page-size", PERF_SAMPLE_DATA_PAGE_SIZE,
	       "Record the sampled data address data page size"),
	OPT(0, "debuginfod", SUP_PERF, ARG_OPT, 0, "debuginfod urls", opt_warn, 0, 0,
	    "debuginfod support requested, but perf-ring is not built with it (as Debian's perf 6.1)",
	    "Enable debuginfod data retrieval"),
	BOOL(0, "dry-run", dry_run, "Parse options then exit"),
	OPT(0, "exclude-perf", SUP_PERF, ARG_NONE, 0, NULL, opt_exclude_perf, 0, 0, NULL,
	    "don't record events from perf-ring itself (a filter on the last -e's tracepoints)"),
	OPT(0, "filter", SUP_PERF, ARG_REQ, 0, "filter", opt_filter, 0, 0, NULL,
	    "tracepoint filter for the tracepoints of the -e before it"),
	OPT(0, "group", SUP_PERF, ARG_NONE, 0, NULL, opt_pbool, offsetof(struct pstate, group), 0, NULL,
	    "put the counters into a counter group"),
	REFUSE(0, "kcore", ARG_NONE, NULL,
	       "kcore is copied into perf's directory output (perf.data/kcore_dir); perf-ring "
	       "writes one file", "copy /proc/kcore"),
	BOOL(0, "kernel-callchains", kernel_callchains, "collect kernel callchains"),
	OPT(0, "max-size", SUP_PERF, ARG_REQ, 0, "size", opt_max_size, 0, 0,
	    "not with --overwrite, whose files are snapshots (bounded by -m)",
	    "Limit the maximum size of the output file"),
	OPT(0, "mmap-flush", SUP_PERF, ARG_REQ, 0, "number", opt_pstr,
	    offsetof(struct pstate, flush_arg), 0, NULL,
	    "Minimal number of bytes that is extracted from mmap data pages (default: 1)"),
	BOOL(0, "namespaces", namespaces, "Record namespaces events"),
	BOOL(0, "no-bpf-event", no_bpf_event, "do not record bpf events"),
	BOOL(0, "no-buffering", no_buffering, "collect data without buffering"),
	OPT(0, "num-thread-synthesize", SUP_PERF, ARG_REQ, 0, "n", opt_threads_n,
	    FIELD(synth_threads), 0, NULL, "number of threads to run for event synthesis"),
	OPT(0, "off-cpu", SUP_PERF, ARG_NONE, 0, NULL, opt_warn, 0, 0,
	    "option is being ignored because perf-ring has no BPF skeleton (as Debian's perf "
	    "6.1: no BUILD_BPF_SKEL=1)", "Enable off-cpu analysis"),
	BOOL(0, "overwrite", overwrite, "use overwrite mode: the flight recorder"),
	OPT(0, "per-thread", SUP_PERF, ARG_NONE, 0, NULL, opt_bool, FIELD(per_thread), 0,
	    "a buffer per thread of a command, -p or -t, no inherit; with -a or -C, perf's "
	    "warning and a CPU-wide recording", "use per-thread mmaps"),
	SAMPLE(0, "phys-data", PERF_SAMPLE_PHYS_ADDR, "Record the sample physical addresses"),
	OPT(0, "proc-map-timeout", SUP_PERF, ARG_REQ, 0, "n", opt_map_timeout, 0, 0, NULL,
	    "per thread proc mmap processing timeout in ms"),
	OPT(0, "running-time", SUP_DIFFERS, ARG_NONE, 0, NULL, opt_bool, FIELD(running_time), 0,
	    "accepted; it is for :S (PERF_SAMPLE_READ) events, which perf-ring does not take",
	    "Record running/enabled time of read (:S) events"),
	SAMPLE(0, "sample-cpu", PERF_SAMPLE_CPU, "Record the sample cpu (always recorded)"),
	SAMPLE(0, "sample-identifier", PERF_SAMPLE_IDENTIFIER, "Record the sample identifier"),
	OPT(0, "strict-freq", SUP_PERF, ARG_NONE, 0, NULL, opt_pbool,
	    offsetof(struct pstate, strict_freq), 0, NULL,
	    "Fail if the specified frequency can't be used"),
	BOOL(0, "switch-events", switch_events, "Record context switch events"),
	OPT(0, "switch-max-files", SUP_PERF, ARG_REQ, 0, "n", opt_files, FIELD(switch_max_files),
	    0, NULL, "Limit number of switch output generated files"),
	OPT(0, "switch-output", SUP_PERF, ARG_OPT, 0, "signal or size[BKMG] or time[smhd]",
	    opt_switch_output, 0, 0, NULL,
	    "Switch output on SIGUSR2 (signal) or at a size or time"),
	OPT(0, "switch-output-event", SUP_PERF, ARG_REQ, 0, "switch output event", opt_pstr,
	    offsetof(struct pstate, switch_event), 0, NULL,
	    "switch output event selector (tracepoint, software event, mem:ADDR)"),
	OPT(0, "synth", SUP_PERF, ARG_REQ, 0, "no|all|task|mmap|cgroup", opt_synth, 0, 0, NULL,
	    "Fine-tune event synthesis: default=all"),
	OPT(0, "tail-synthesize", SUP_DIFFERS, ARG_NONE, 0, NULL, opt_bool, FIELD(tail_synth), 0,
	    "what exists at the end is synthesized after the last file's records, as perf; "
	    "with --switch-output the earlier files start with the side-band log instead "
	    "(perf synthesizes at the end of each), and --overwrite snapshots carry their "
	    "side-band store (perf: always tail with --overwrite)",
	    "synthesize non-sample events at the end of output"),
	DIFFERS(0, "threads", ARG_OPT, "spec", opt_accept,
		"accepted, no effect: one file (perf writes a directory of per-thread files, "
		"HEADER_DIR_FORMAT), read by one reader thread and written by one writer thread "
		"with io_uring, which is perf-ring's design for its rate (perf-ring.rst)",
		"write collected trace data into several data files using parallel threads"),
	OPT(0, "timestamp-boundary", SUP_PERF, ARG_NONE, 0, NULL, opt_accept, 0, 0,
	    "perf-ring's default: HEADER_SAMPLE_TIME is always written",
	    "Record timestamp boundary (time of first/last samples)"),
	BOOL(0, "timestamp-filename", timestamp_filename, "append timestamp to output filename"),
	SAMPLE(0, "transaction", PERF_SAMPLE_TRANSACTION,
	       "sample transaction flags (special events only)"),
	BOOL(0, "user-callchains", user_callchains, "collect user callchains"),
	OPT(0, "user-regs", SUP_PERF, ARG_OPT, 0, "any register", opt_user_regs, 0, 0, NULL,
	    "sample selected machine registers in user space, use '--user-regs=?' to list "
	    "register names"),
	OPT(0, "vmlinux", SUP_DIFFERS, ARG_REQ, 0, "file", opt_vmlinux, 0, 0,
	    "checked, no effect: the kernel's build-id is read from /sys/kernel/notes and "
	    "nothing is resolved while recording; give it to perf report --vmlinux",
	    "vmlinux pathname"),
	/* perf-ring's own */
	OPT(0, "synth-threads", SUP_OWN, ARG_REQ, 0, "n", opt_threads_n, FIELD(synth_threads), 0,
	    NULL, "threads for synthesizing existing threads (--num-thread-synthesize)"),
	OPT(0, "snapshot-delay", SUP_OWN, ARG_REQ, 0, "ms", opt_ms, FIELD(snapshot_delay_ms),
	    sizeof(u64), NULL, "serve a switch or snapshot request MS ms later"),
	OPT(0, "snapshot-min-interval", SUP_OWN, ARG_REQ, 0, "ms", opt_ms,
	    FIELD(snapshot_min_interval_ms), sizeof(u64), NULL,
	    "merge requests closer than MS ms into one"),
	OPT(0, "snapshot-pause", SUP_OWN, ARG_NONE, 0, NULL, opt_bool, FIELD(snapshot_pause), 0,
	    NULL, "pause the buffers (PAUSE_OUTPUT) while copying"),
	OPT(0, "snapshot-window", SUP_OWN, ARG_REQ, 0, "common|whole", opt_snapshot_window, 0, 0,
	    NULL, "what a snapshot keeps: the window with no gap on any CPU (common, the "
	    "default), or every buffer whole with that window's start marked (whole)"),
	OPT(0, "reader-slice", SUP_OWN, ARG_REQ, 0, "usec", opt_slice, 0, 0, NULL,
	    "a fair reader's slice, 100..100000 us (default 100; 0: the kernel's); implies -r 0"),
	OPT('h', "help", SUP_OWN, ARG_NONE, 0, NULL, opt_help, 0, 0, NULL, "show this help"),
	OPT(0, "list-options", SUP_OWN, ARG_NONE, F_HIDE, NULL, opt_list, 0, 0, NULL,
	    "the option table: name, support, note"),
};

int record_nr_options(void)
{
	return ARRAY_SIZE(table);
}

const struct record_optinfo *record_option(int i)
{
	return i >= 0 && i < (int)ARRAY_SIZE(table) ? &table[i].i : NULL;
}

void record_usage(FILE *f)
{
	fprintf(f, "\n Usage: perf-ring record [<options>] [<command>]\n"
		   "    or: perf-ring record [<options>] -- <command> [<options>]\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		const struct ropt *op = &table[i];
		char left[160];
		int n = 0;

		if (op->flags & F_HIDE)
			continue;
		n += snprintf(left + n, sizeof(left) - n, "    %c%c%s", op->i.short_name ? '-' : ' ',
			      op->i.short_name ? op->i.short_name : ' ',
			      op->i.short_name && op->i.long_name ? ", " : "  ");
		if (op->i.long_name)
			n += snprintf(left + n, sizeof(left) - n, "--%s", op->i.long_name);
		if (op->arg == ARG_REQ)
			snprintf(left + n, sizeof(left) - n, " <%s>", op->argh);
		else if (op->arg == ARG_OPT)
			snprintf(left + n, sizeof(left) - n, "[=<%s>]", op->argh);
		if (strlen(left) <= 24)
			fprintf(f, "%-26s%s", left, op->help);
		else
			fprintf(f, "%s\n%26s%s", left, "", op->help);
		if (op->i.support == SUP_REFUSED)
			fprintf(f, " (refused here: see the manual)");
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
}

static int opt_help(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	(void)s; (void)op; (void)arg; (void)unset;
	record_usage(stdout);
	exit(RECORD_USAGE_EXIT);	/* as perf's -h */
}

static int opt_list(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	static const char *const sup[] = { "yes", "differs", "refused", "own" };

	(void)s; (void)op; (void)arg; (void)unset;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		printf("%c\t%s\t%s\t%s\n", table[i].i.short_name ? table[i].i.short_name : '-',
		       table[i].i.long_name ? table[i].i.long_name : "-", sup[table[i].i.support],
		       table[i].i.note ? table[i].i.note : "");
	exit(0);
}

/* ---- the parser: perf's parse-options rules ---- */

struct pctx {
	int argc;
	char **argv;
	int i;		/* argv[i] is the current word */
};

static void usage_error(const char *fmt, const char *a, char c)
{
	fprintf(stderr, "perf-ring record: ");
	if (a)
		fprintf(stderr, fmt, a);
	else
		fprintf(stderr, fmt, c);
	fprintf(stderr, " (see 'perf-ring record -h')\n");
}

static int run_opt(struct pstate *s, const struct ropt *op, const char *arg, bool unset)
{
	return op->fn(s, op, arg, unset);
}

/*
 * Take the option's argument: from "=VAL" (long), the rest of the word
 * (short), or, for a required one, the next word whatever it is.
 * An optional argument is never taken from the next word.
 */
static int get_value(struct pstate *s, struct pctx *c, const struct ropt *op, const char *val,
		     bool unset, bool shrt)
{
	char name[80];

	if (shrt)
		snprintf(name, sizeof(name), "switch `%c'", op->i.short_name);
	else
		snprintf(name, sizeof(name), "option `%s%s'", unset ? "no-" : "", op->i.long_name);
	if (unset && op->arg != ARG_NONE && !(op->flags & F_NEG)) {
		usage_error("%s isn't available", name, 0);
		return -EINVAL;
	}
	if (unset && val) {
		usage_error("%s takes no value", name, 0);
		return -EINVAL;
	}
	if (op->arg == ARG_NONE && val) {
		usage_error("%s takes no value", name, 0);
		return -EINVAL;
	}
	if (op->arg == ARG_REQ && !val && !unset) {
		if (c->i + 1 >= c->argc) {
			usage_error("%s requires a value", name, 0);
			return -EINVAL;
		}
		val = c->argv[++c->i];
	}
	return run_opt(s, op, val, unset);
}

enum { PASS_EXACT, PASS_PERF, PASS_OWN };

/*
 * One pass of perf's parse_long_opt() over the table: PASS_EXACT finds a
 * full name (NAME, no-NAME, or NAME for an option named no-NAME),
 * PASS_PERF and PASS_OWN the options that name abbreviates.
 */
static const struct ropt *match_long(const char *a, size_t len, int pass, bool *unset,
				     const struct ropt **ambiguous)
{
	const struct ropt *found = NULL;

	*ambiguous = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		const char *ln = table[i].i.long_name;
		bool own = table[i].i.support == SUP_OWN, neg = false;
		const char *cand = a;
		size_t cl = len;

		if (!ln || (pass == PASS_PERF && own) || (pass == PASS_OWN && !own))
			continue;
		if (cl > 3 && !strncmp(cand, "no-", 3) && strncmp(ln, "no-", 3)) {
			cand += 3;	/* --no-NAME */
			cl -= 3;
			neg = true;
		} else if (!strncmp(ln, "no-", 3) && strncmp(cand, "no-", 3)) {
			ln += 3;	/* NAME for no-NAME */
			neg = true;
		}
		if (pass == PASS_EXACT) {
			if (strlen(ln) == cl && !strncmp(ln, cand, cl)) {
				*unset = neg;
				return &table[i];
			}
			continue;
		}
		if (cl < strlen(ln) && !strncmp(ln, cand, cl)) {
			if (found)
				*ambiguous = found;
			found = &table[i];
			*unset = neg;
		}
	}
	return found;
}

static int parse_long_word(struct pstate *s, struct pctx *c, const char *a)
{
	const char *eq = strchr(a, '='), *val = eq ? eq + 1 : NULL;
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	const struct ropt *op, *amb = NULL;
	bool unset = false;

	op = match_long(a, len, PASS_EXACT, &unset, &amb);
	if (!op)
		op = match_long(a, len, PASS_PERF, &unset, &amb);
	if (!op && !amb)
		op = match_long(a, len, PASS_OWN, &unset, &amb);
	if (amb) {
		fprintf(stderr, "perf-ring record: Ambiguous option: %.*s (could be --%s or --%s)"
			" (see 'perf-ring record -h')\n", (int)len, a, amb->i.long_name,
			op->i.long_name);
		return -EINVAL;
	}
	if (!op) {
		usage_error("unknown option `%s'", a, 0);
		return -EINVAL;
	}
	return get_value(s, c, op, val, unset, false);
}

static const struct ropt *find_short(char ch)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (table[i].i.short_name == ch)
			return &table[i];
	return NULL;
}

/* -abc: a bundle of switches; a switch with an argument takes the rest */
static int parse_short(struct pstate *s, struct pctx *c, const char *a)
{
	for (; *a; a++) {
		const struct ropt *op = find_short(*a);
		int ret;

		if (!op) {
			usage_error("unknown switch `%c'", NULL, *a);
			return -EINVAL;
		}
		if (op->arg != ARG_NONE) {
			/* -z=3 as -z3: the "=" is not part of the value */
			const char *v = a[1] == '=' ? a + 2 : a + 1;

			return get_value(s, c, op, *v || a[1] == '=' ? v : NULL, false, true);
		}
		ret = get_value(s, c, op, NULL, false, true);
		if (ret)
			return ret;
	}
	return 0;
}

/* perf's parse_options() with PARSE_OPT_STOP_AT_NON_OPTION */
static int parse_words(struct pstate *s, int argc, char **argv, int *first_arg)
{
	struct pctx c = { .argc = argc, .argv = argv, .i = 1 };
	int ret = 0;

	for (; !ret && c.i < argc; c.i++) {
		const char *a = argv[c.i];

		if (a[0] != '-' || !a[1])
			break;
		if (a[1] != '-')
			ret = parse_short(s, &c, a + 1);
		else if (!a[2]) {
			c.i++;
			break;
		} else
			ret = parse_long_word(s, &c, a + 2);
	}
	*first_arg = c.i;
	return ret;
}

/* ---- after the words: what the options mean together ---- */

/*
 * perf's targets: -p/-t, else -a or -C (every task on those CPUs), else
 * the command.  A command beside -a, -C, -p or -t is not recorded itself:
 * it sets how long the recording lasts.
 */
static int finish_targets(struct pstate *s)
{
	struct record_opts *o = s->o;

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
	if (o->per_thread && o->system_wide) {
		/* as perf's target__validate(): the CPU-wide target wins */
		if (!o->quiet)
			fprintf(stderr, "Warning:\nSYSTEM/CPU switch overriding PER-THREAD\n");
		o->per_thread = false;
	}
	o->wl_target = o->workload && !o->system_wide && !o->npids;
	/* -D without a command counts from the recording's start, as perf's */
	if (s->slice_given && o->realtime > 0) {
		fprintf(stderr, "perf-ring record: --reader-slice is a fair reader's, not with "
			"-r %d (SCHED_FIFO)\n", o->realtime);
		return -EINVAL;
	}
	if (s->slice_given && !s->rt_given)
		o->realtime = 0;	/* a slice asked for: a fair reader */
	if (o->cgroup && !o->system_wide) {
		fprintf(stderr, "perf-ring record: cgroup monitoring only available in "
			"system-wide mode (-a or -C)\n");
		return -EINVAL;
	}
	if (o->max_size && o->overwrite) {
		fprintf(stderr, "perf-ring record: --max-size: the flight recorder (--overwrite) "
			"writes snapshots, not a stream; -m bounds them\n");
		return -EINVAL;
	}
	if (o->all_kernel && o->all_user) {
		fprintf(stderr, "perf-ring record: --all-kernel and --all-user exclude each other\n");
		return -EINVAL;
	}
	return 0;
}

/* --group: the recorded events in one group, unless -e made groups */
static void finish_group(struct record_opts *o)
{
	struct pf_event *e = o->events.ev;

	for (int i = 0; i < o->events.nr; i++)
		if (e[i].group_leader >= 0)
			return;
	for (int i = 0; i < o->events.nr; i++)
		e[i].group_leader = 0;
	e[0].nr_members = o->events.nr;
}

static int finish_events(struct pstate *s)
{
	struct record_opts *o = s->o;
	char err[512];
	int ret;

	if (!s->events_given) {
		ret = events_parse("cpu-clock", &o->events, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "perf-ring record: %s\n", err);
			return ret;
		}
	}
	if (s->group && o->events.nr > 1)
		finish_group(o);
	/* the trigger events go after the recorded ones (evlist.h) */
	if (s->switch_event) {
		o->switch_ev_first = o->events.nr;
		ret = events_parse(s->switch_event, &o->events, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "perf-ring record: --switch-output-event: %s\n", err);
			return -EINVAL;
		}
		o->switch_ev_nr = o->events.nr - o->switch_ev_first;
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
	return 0;
}

static int finish_switching(struct record_opts *o)
{
	if (o->snapshot_whole && !o->overwrite) {
		fprintf(stderr, "perf-ring record: --snapshot-window=whole needs --overwrite: "
			"only the flight recorder takes snapshots\n");
		return -EINVAL;
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
	return 0;
}

/* perf's "rounding mmap pages size to 16K (4 pages)" */
static void say_rounded(u64 bytes, long pg)
{
	static const char units[] = "BKMG";
	u64 v = bytes;
	int u = 0;

	while (u < 3 && v >= 1024 && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	fprintf(stderr, "rounding mmap pages size to %llu%c (%llu pages)\n",
		(unsigned long long)v, units[u], (unsigned long long)(bytes / pg));
}

/* pages (perf's unit) or a size with B/K/M/G, rounded up to a power of two pages */
static int mmap_size(const char *opt, const char *arg, long pg, bool quiet, u64 *out)
{
	u64 n, r;

	if (parse_size(arg, &n) || !n)
		return bad(opt, arg, "expected pages or a size such as 512K");
	if (arg[strlen(arg) - 1] >= '0' && arg[strlen(arg) - 1] <= '9') {
		if (n > (1ULL << 32) / pg)
			return bad(opt, arg, "at most 4G per CPU");
		n *= pg;
	}
	if (n > (1ULL << 32))
		return bad(opt, arg, "at most 4G per CPU");
	for (r = pg; r < n; r <<= 1)
		;
	if (r != n && !quiet)
		say_rounded(r, pg);
	*out = r;
	return 0;
}

static int finish_sizes(struct pstate *s)
{
	struct record_opts *o = s->o;
	long pg = sysconf(_SC_PAGESIZE);
	int ret;

	o->mmap_bytes = 128 * pg;
	if (s->mmap_arg) {
		char data[64];
		const char *comma = strchr(s->mmap_arg, ',');
		u64 aux;

		snprintf(data, sizeof(data), "%.*s", comma ? (int)(comma - s->mmap_arg) : 63,
			 s->mmap_arg);
		/* "-m ,AUX" leaves the data size at its default, as perf */
		if (data[0]) {
			ret = mmap_size("-m", data, pg, o->quiet, &o->mmap_bytes);
			if (ret)
				return ret;
		}
		/* AUX pages: checked and rounded as perf does; no AUX event here uses them */
		if (comma && (ret = mmap_size("-m", comma + 1, pg, o->quiet, &aux)))
			return ret;
	}
	o->mmap_flush = 1;
	if (s->flush_arg) {
		u64 n;

		if (parse_size(s->flush_arg, &n) || !n)
			return bad("--mmap-flush", s->flush_arg, "expected a size such as 16K");
		if (n > o->mmap_bytes / 4)
			n = o->mmap_bytes / 4;	/* as perf: at most a quarter */
		o->mmap_flush = n;
	}
	return 0;
}

/*
 * -F max and the kernel's limit, as perf's record__config_freq(): above
 * perf_event_max_sample_rate, -F is lowered to it with a warning, or
 * refused with --strict-freq.
 */
static int finish_freq(struct pstate *s)
{
	struct record_opts *o = s->o;
	char *text = NULL;
	size_t len;
	long max;

	if (!s->freq_max && !o->freq)
		return 0;
	if (read_text_file("/proc/sys/kernel/perf_event_max_sample_rate", &text, &len) ||
	    parse_long(strtok(text, "\n") ?: "", 1, INT_MAX, &max)) {
		free(text);
		if (!s->freq_max)
			return 0;
		fprintf(stderr, "perf-ring record: -F max: cannot read "
			"/proc/sys/kernel/perf_event_max_sample_rate\n");
		return -EINVAL;
	}
	free(text);
	if (s->freq_max) {
		o->freq = max;
		if (!o->quiet)
			fprintf(stderr, "info: Using a maximum frequency rate of %ld Hz\n", max);
		return 0;
	}
	if (o->freq <= (u64)max)
		return 0;
	if (s->strict_freq) {
		fprintf(stderr, "perf-ring record: error: Maximum frequency rate (%ld Hz) exceeded. "
			"Please use -F freq option with lower value or consider tweaking "
			"/proc/sys/kernel/perf_event_max_sample_rate.\n", max);
		return -EINVAL;
	}
	if (!o->quiet)
		fprintf(stderr, "warning: Maximum frequency rate (%ld Hz) exceeded, throttling "
			"from %llu Hz to %ld Hz.\n The limit can be raised via "
			"/proc/sys/kernel/perf_event_max_sample_rate.\n The kernel will lower it "
			"when perf's interrupts take too long.\n Use --strict-freq to disable this "
			"throttling, refusing to record.\n", max, (unsigned long long)o->freq, max);
	o->freq = max;
	return 0;
}

int record_parse(int argc, char **argv, struct record_opts *o)
{
	struct pstate s = { .o = o };
	int first, ret;

	memset(o, 0, sizeof(*o));
	o->aio = 4;
	o->reader_slice_us = READER_SLICE_US;
	o->realtime = -1;	/* SCHED_FIFO 1 when permitted (prio.c) */
	/*
	 * One synthesis thread, as perf record's --num-thread-synthesize.
	 * One per online CPU made start-up grow faster than the CPUs
	 * (bench/results/scale-cpus.md): each thread is a clone, a stack
	 * guard (mprotect) and a stack given back at its exit (madvise),
	 * and the last two flush the TLB of every CPU where another thread
	 * of the process runs at that moment.
	 */
	o->synth_threads = 1;
	o->synth = RECORD_SYNTH_ALL;
	o->map_timeout_ms = 500;	/* perf's DEFAULT_PROC_MAP_PARSE_TIMEOUT */
	/* argv[-1] is the program name: the command line perf shows */
	o->argc = argc + 1;
	o->argv = argv - 1;

	ret = parse_words(&s, argc, argv, &first);
	if (ret)
		return ret;
	if (first < argc)
		o->workload = &argv[first];
	/* no -o: perf's pipe format when standard output is a pipe or fifo, as perf */
	if (!o->output) {
		struct stat st;

		o->output = !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode) ? "-" : "perf.data";
	}
	ret = finish_targets(&s);
	if (!ret)
		ret = finish_events(&s);
	if (!ret)
		ret = finish_switching(o);
	if (!ret)
		ret = finish_sizes(&s);
	if (!ret)
		ret = finish_freq(&s);
	if (ret)
		return ret;
	if (!o->cpu_list_given && online_cpus(o->cpu_mask, MAX_CPUS)) {
		fprintf(stderr, "perf-ring record: cannot read the online CPUs\n");
		return -EINVAL;
	}
	return 0;
}
