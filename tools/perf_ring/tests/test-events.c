// SPDX-License-Identifier: GPL-2.0
/*
 * The -e parser against a made-up sysfs and tracefs: modifiers and the
 * exclude bits they set, pmu/terms/, mem: breakpoints, groups, --filter,
 * and the messages that name what is wrong.  The last test sets a filter
 * on a real tracepoint, where the machine allows it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/hw_breakpoint.h>

#include "events.h"
#include "tap.h"

static char root[512];
static struct ev_list L;
static char err[1024];

static void put(const char *rel, const char *text)
{
	char path[1024], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const char sched_switch_format[] =
	"name: sched_switch\nID: 316\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n\nprint fmt: \"\"\n";

static void make_tree(bool with_cpu)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) || mkdir(root, 0755))
		return;
	put("sys/software/type", "1\n");
	put("sys/tracepoint/type", "2\n");
	put("sys/breakpoint/type", "5\n");
	put("sys/fake/type", "42\n");
	put("sys/fake/format/event", "config:0-7\n");
	put("sys/fake/format/umask", "config:8-15\n");
	put("sys/fake/format/edge", "config:18\n");
	put("sys/fake/format/ldlat", "config1:0-15\n");
	put("sys/fake/format/split", "config2:0-1,8-9\n");
	if (with_cpu)
		put("sys/cpu/type", "4\n");
	put("t/events/header_page", "\n");
	put("t/events/sched/sched_switch/id", "316\n");
	put("t/events/sched/sched_switch/format", sched_switch_format);
	put("t/events/sched/sched_wakeup/id", "317\n");
	put("t/events/sched/sched_wakeup/format",
	    "format:\n\tfield:int common_pid;\n\tfield:pid_t pid;\n");
	put("t/events/dyn/dyn_exec/id", "318\n");
	put("t/events/dyn/dyn_exec/format",
	    "format:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	    "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	    "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n");
	put("t/events/raw_syscalls/sys_enter/id", "21\n");
	put("t/events/raw_syscalls/sys_enter/format", "format:\n\tfield:long id;\n");
	{
		static char sys[600], t[600];

		snprintf(sys, sizeof(sys), "%s/sys", root);
		snprintf(t, sizeof(t), "%s/t", root);
		events_set_roots(sys, t);
	}
}

/* Parse spec into a fresh list: 0 or -errno, message in err. */
static int parse(const char *spec)
{
	events_free(&L);
	err[0] = 0;
	return events_parse(spec, &L, err, sizeof(err));
}

#define FAILS(spec, ...) do {							\
	const char *const want_[] = { __VA_ARGS__ };				\
	CHECK(parse(spec) < 0, "'%s' parsed", spec);				\
	for (size_t i_ = 0; i_ < ARRAY_SIZE(want_); i_++)			\
		CHECK(strstr(err, want_[i_]), "'%s': '%s' not in '%s'", spec, want_[i_], err); \
} while (0)

static int test_modifiers_set_exclude_bits(void)
{
	struct perf_event_attr *a = &L.ev[0].attr;

	CHECK(parse("cpu-clock:u") == 0, "%s", err);
	CHECK(L.nr == 1 && a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	CHECK(!a->exclude_user && a->exclude_kernel && a->exclude_hv, ":u");
	CHECK(!a->exclude_guest && !a->precise_ip, ":u sets nothing else");
	CHECK(!strcmp(L.ev[0].name, "cpu-clock:u"), "name %s", L.ev[0].name);
	CHECK(parse("task-clock:k") == 0 && a->exclude_user && !a->exclude_kernel && a->exclude_hv, ":k");
	CHECK(parse("cpu-clock:uk") == 0 && !a->exclude_user && !a->exclude_kernel && a->exclude_hv, ":uk");
	CHECK(parse("cpu-clock:h") == 0 && a->exclude_user && a->exclude_kernel && !a->exclude_hv, ":h");
	CHECK(parse("page-faults:G") == 0 && !a->exclude_guest && a->exclude_host, ":G");
	CHECK(parse("page-faults:H") == 0 && a->exclude_guest && !a->exclude_host, ":H");
	CHECK(parse("cs:uI") == 0 && a->exclude_idle && a->exclude_kernel, ":uI");
	CHECK(parse("cpu-clock") == 0 && !a->exclude_user && !a->exclude_kernel && !a->exclude_hv, "none");
	return 0;
}

static int test_precise_on_hardware_only(void)
{
	make_tree(true);
	CHECK(parse("cycles:pp") == 0, "%s", err);
	CHECK(L.ev[0].attr.type == PERF_TYPE_HARDWARE && L.ev[0].attr.precise_ip == 2, "pp");
	CHECK(parse("instructions:uppp") == 0 && L.ev[0].attr.precise_ip == 3 &&
	      L.ev[0].attr.exclude_kernel, "uppp");
	FAILS("cycles:pppp", "cycles:pppp", "up to 3");
	make_tree(false);
	FAILS("cycles:p", "no hardware PMU");
	FAILS("cpu-clock:p", "cpu-clock:p", "software event", "precise");
	FAILS("sched:sched_switch:pp", "tracepoint", "precise");
	FAILS("mem:0x1000:w:p", "breakpoint", "precise");
	return 0;
}

static int test_bad_modifier_is_named(void)
{
	FAILS("cpu-clock:z", "cpu-clock:z", "unknown modifier 'z'");
	FAILS("cpu-clock:uq", "unknown modifier 'q'");
	FAILS("cpu-clock:S", "modifier 'S'", "not supported");
	FAILS("cpu-clock:", "empty modifier");
	FAILS("cpu-clock:u:k", "one list of modifiers");
	FAILS("sched:sched_switch:x", "sched:sched_switch:x", "unknown modifier 'x'");
	FAILS("nosuch:u", "'nosuch' is not an event");
	FAILS("sched:nosuch", "no such tracepoint");
	FAILS("sched:sched_switch:u:k", "too many ':'");
	return 0;
}

static int test_tracepoints_with_modifiers_and_globs(void)
{
	CHECK(parse("sched:sched_switch:k") == 0, "%s", err);
	CHECK(L.nr == 1 && L.ev[0].attr.type == PERF_TYPE_TRACEPOINT && L.ev[0].attr.config == 316, "id");
	CHECK(L.ev[0].attr.exclude_user && !L.ev[0].attr.exclude_kernel, ":k");
	CHECK(!strcmp(L.ev[0].tp_sys, "sched") && !strcmp(L.ev[0].tp_name, "sched_switch"), "tp");
	CHECK(!strcmp(L.ev[0].name, "sched:sched_switch:k"), "name %s", L.ev[0].name);
	CHECK(parse("sched:*:u") == 0 && L.nr == 2, "glob: %d %s", L.nr, err);
	CHECK(L.ev[0].attr.config == 316 && L.ev[1].attr.config == 317, "sorted");
	CHECK(!L.ev[1].attr.exclude_user && L.ev[1].attr.exclude_kernel, "modifier on every match");
	CHECK(parse("sched:sched_switch/period=3/") == 0 && L.ev[0].term_period == 3, "terms: %s", err);
	FAILS("sched:sched_switch/config=3/", "term 'config' is for the PMU form");
	return 0;
}

static int test_pmu_terms(void)
{
	struct pf_event *e = &L.ev[0];

	CHECK(parse("software/config=1,period=1000/") == 0, "%s", err);
	CHECK(e->attr.type == 1 && e->attr.config == 1 && e->term_period == 1000 && !e->term_freq, "sw");
	CHECK(!strcmp(e->name, "software/config=1,period=1000/"), "name %s", e->name);
	CHECK(parse("software/config=0x2,freq=99,name=faults/u") == 0, "%s", err);
	CHECK(e->attr.config == 2 && e->term_freq == 99 && !strcmp(e->name, "faults") &&
	      e->attr.exclude_kernel, "freq, name, modifier");
	CHECK(parse("software//:k") == 0 && e->attr.type == 1 && e->attr.exclude_user, "empty terms");
	CHECK(parse("tracepoint/config=316/") == 0, "%s", err);
	CHECK(e->attr.type == PERF_TYPE_TRACEPOINT && !strcmp(e->tp_sys, "sched") &&
	      !strcmp(e->tp_name, "sched_switch"), "tracepoint by id");
	CHECK(parse("fake/event=0x3c,umask=2,edge,ldlat=3,split=0xf/") == 0, "%s", err);
	CHECK(e->attr.type == 42 && e->attr.config == (0x3c | 2 << 8 | 1 << 18), "config %#llx",
	      (unsigned long long)e->attr.config);
	CHECK(e->attr.config1 == 3 && e->attr.config2 == (3 | 3 << 8), "config1/2");
	CHECK(parse("cpu-clock/period=500/,task-clock") == 0 && L.nr == 2 && e->term_period == 500,
	      "symbolic with terms, then a comma: %d %s", L.nr, err);
	CHECK(parse("software/config=0,period=7/,software/config=1/") == 0 && L.nr == 2,
	      "comma inside terms: %d", L.nr);
	FAILS("software/foo=1/", "unknown term 'foo'", "config, config1");
	FAILS("fake/bogus=1/", "unknown term 'bogus'", "event", "umask");
	FAILS("fake/event=0x1ff/", "event=0x1ff", "8 bits");
	FAILS("software/config=abc/", "'abc' is not a number");
	FAILS("software/period=0/", "positive");
	FAILS("software/period=1,freq=2/", "not both");
	FAILS("nosuch/config=1/", "no PMU named 'nosuch'", "software");
	FAILS("tracepoint/config=999/", "no tracepoint has id 999");
	FAILS("software/config=1", "no closing '/'");
	FAILS("cpu-clock/config=1/", "term 'config' is for the PMU form");
	FAILS("software/name/", "needs a value");
	return 0;
}

static int test_breakpoints(void)
{
	struct perf_event_attr *a = &L.ev[0].attr;

	CHECK(parse("mem:0x1000") == 0, "%s", err);
	CHECK(a->type == PERF_TYPE_BREAKPOINT && a->bp_addr == 0x1000 &&
	      a->bp_type == (HW_BREAKPOINT_R | HW_BREAKPOINT_W) && a->bp_len == 4, "default rw/4");
	CHECK(parse("mem:4096:w") == 0 && a->bp_addr == 4096 && a->bp_type == HW_BREAKPOINT_W, "w");
	CHECK(parse("mem:0x1000/8:rw") == 0 && a->bp_len == 8, "/8:rw");
	CHECK(parse("mem:0x1000/2:wr:u") == 0 && a->bp_len == 2 && a->exclude_kernel &&
	      a->bp_type == (HW_BREAKPOINT_R | HW_BREAKPOINT_W), "type and modifiers");
	CHECK(parse("mem:0x1000:k") == 0 && a->exclude_user && a->bp_len == 4, "modifiers alone");
	CHECK(parse("mem:0x401003:x") == 0 && a->bp_type == HW_BREAKPOINT_X &&
	      a->bp_len == sizeof(long), "x: one instruction, no alignment");
	CHECK(parse("mem:0x1000:w,cpu-clock") == 0 && L.nr == 2, "then a comma");
	FAILS("mem:zz", "expected an address");
	FAILS("mem:0x1000/3", "length 3");
	FAILS("mem:0x1002/4:w", "not aligned");
	FAILS("mem:0x1000:ww", "'w' given twice");
	FAILS("mem:0x1000:wx", "not both");
	FAILS("mem:0x1000:w:u:k", "each after one ':'");
	FAILS("mem:0x1000:q", "unknown modifier 'q'");
	FAILS("mem:0x1000x", "unexpected 'x'");
#if defined(__x86_64__) || defined(__i386__)
	FAILS("mem:0x1000:r", "no read-only breakpoints");
#endif
	return 0;
}

static int test_groups(void)
{
	CHECK(parse("{cpu-clock,task-clock},page-faults") == 0, "%s", err);
	CHECK(L.nr == 3 && L.ev[0].group_leader == 0 && L.ev[1].group_leader == 0 &&
	      L.ev[2].group_leader == -1 && L.ev[0].nr_members == 2, "leaders");
	CHECK(events_leader(L.ev, 0) == -1 && events_leader(L.ev, 1) == 0 &&
	      events_leader(L.ev, 2) == -1, "events_leader");
	CHECK(parse("page-faults,{cpu-clock:k,sched:*}:u") == 0, "%s", err);
	CHECK(L.nr == 4 && L.ev[1].group_leader == 1 && L.ev[3].group_leader == 1 &&
	      L.ev[1].nr_members == 3, "glob in a group");
	CHECK(!L.ev[1].attr.exclude_user && !L.ev[1].attr.exclude_kernel, ":k then the group's :u");
	CHECK(!L.ev[2].attr.exclude_user && L.ev[2].attr.exclude_kernel, "group :u on a member");
	CHECK(parse("{software/config=0,period=9/,cpu-clock}") == 0 && L.nr == 2, "terms in a group");
	CHECK(parse("{cpu-clock,cpu-clock}") == 0 && L.nr == 2, "no merging inside a group");
	CHECK(parse("cpu-clock,{cpu-clock}") == 0 && L.nr == 2 && L.ev[1].group_leader == 1,
	      "a group member is not merged with an ungrouped event");
	FAILS("{cpu-clock,{task-clock}}", "do not nest");
	FAILS("{cpu-clock,task-clock", "no closing '}'");
	FAILS("{}", "empty group");
	FAILS("cpu-clock}", "without a '{'");
	FAILS("{cpu-clock}x", "unexpected 'x'");
	FAILS("{cpu-clock}:z", "unknown modifier 'z'");
	FAILS("cpu-clock,", "empty event name");
	FAILS("cpu-clock,,task-clock", "empty event name");
	return 0;
}

static int test_same_event_twice_is_kept_once(void)
{
	CHECK(parse("cpu-clock,cpu-clock") == 0 && L.nr == 1, "twice");
	CHECK(parse("cpu-clock,cpu-clock:u") == 0 && L.nr == 2, "different modifiers");
	CHECK(parse("cpu-clock,software/config=0/") == 0 && L.nr == 1, "the same attr");
	return 0;
}

static int test_filter_follows_its_event(void)
{
	events_free(&L);
	CHECK(events_add_filter(&L, "prev_pid == 1", err, sizeof(err)) < 0 &&
	      strstr(err, "must follow a -e"), "%s", err);
	CHECK(events_parse("cpu-clock", &L, err, sizeof(err)) == 0, "%s", err);
	CHECK(events_parse("sched:sched_switch", &L, err, sizeof(err)) == 0, "%s", err);
	CHECK(events_add_filter(&L, "prev_pid == 1 && next_pid != 0", err, sizeof(err)) == 0,
	      "%s", err);
	CHECK(events_add_filter(&L, "common_pid > 1", err, sizeof(err)) == 0, "%s", err);
	CHECK(!L.ev[0].filter && L.ev[1].filter &&
	      !strcmp(L.ev[1].filter, "(prev_pid == 1 && next_pid != 0) && (common_pid > 1)"),
	      "ANDed: %s", L.ev[1].filter);
	CHECK(events_add_filter(&L, "prev_pidd == 1", err, sizeof(err)) < 0, "typo accepted");
	CHECK(strstr(err, "no field 'prev_pidd'") && strstr(err, "prev_comm") &&
	      strstr(err, "sched:sched_switch"), "%s", err);
	CHECK(events_add_filter(&L, "prev_comm ~ \"ba", err, sizeof(err)) < 0 &&
	      strstr(err, "unterminated"), "%s", err);
	CHECK(events_add_filter(&L, "(prev_pid == 1", err, sizeof(err)) < 0 &&
	      strstr(err, "parentheses"), "%s", err);
	CHECK(events_add_filter(&L, "CPU == 0 && comm == \"x\"", err, sizeof(err)) == 0,
	      "generic fields: %s", err);
	CHECK(events_parse("sched:*", &L, err, sizeof(err)) == 0, "%s", err);
	CHECK(events_add_filter(&L, "common_pid == 7", err, sizeof(err)) == 0, "%s", err);
	CHECK(L.nr == 4 && !strstr(L.ev[1].filter, "common_pid == 7") &&
	      L.ev[2].filter && !strcmp(L.ev[2].filter, "common_pid == 7") &&
	      L.ev[3].attr.config == 316 && !strcmp(L.ev[3].filter, "common_pid == 7"),
	      "every match of the last -e; sched_switch, filtered before, twice");
	CHECK(events_add_filter(&L, "0x10 == common_pid && 12 != pid", err, sizeof(err)) == 0,
	      "numbers are not fields: %s", err);
	/* named again by a later -e and filtered there: recorded twice, as perf would */
	events_free(&L);
	CHECK(events_parse("sched:sched_switch", &L, err, sizeof(err)) == 0, "%s", err);
	CHECK(events_parse("sched:sched_switch", &L, err, sizeof(err)) == 0 && L.nr == 1, "kept once");
	CHECK(events_add_filter(&L, "prev_pid == 1", err, sizeof(err)) == 0, "%s", err);
	CHECK(L.nr == 2 && !L.ev[0].filter && L.ev[1].filter &&
	      L.ev[1].attr.config == 316, "the first without, a copy with the filter");
	CHECK(events_add_filter(&L, "next_pid == 2", err, sizeof(err)) == 0 && L.nr == 2 &&
	      !L.ev[0].filter && !strcmp(L.ev[1].filter, "(prev_pid == 1) && (next_pid == 2)"),
	      "a second filter ANDs onto the copy");
	CHECK(events_parse("sched:sched_wakeup,cpu-clock", &L, err, sizeof(err)) == 0, "%s", err);
	CHECK(events_add_filter(&L, "pid == 1", err, sizeof(err)) < 0 &&
	      strstr(err, "cpu-clock is not a tracepoint"), "%s", err);
	return 0;
}

static int test_unapplied_features_are_refused(void)
{
	CHECK(parse("{cpu-clock,task-clock}") == 0, "%s", err);
	CHECK(events_unapplied(&L, 0, false, err, sizeof(err)) == -EOPNOTSUPP && strstr(err, "groups"),
	      "%s", err);
	CHECK(events_unapplied(&L, EV_OPENER_GROUPS, false, err, sizeof(err)) == 0, "applied");
	CHECK(parse("{cpu-clock}") == 0 && events_unapplied(&L, 0, false, err, sizeof(err)) == 0,
	      "a group of one is no group");
	CHECK(parse("software/config=0,freq=10/") == 0, "%s", err);
	CHECK(events_unapplied(&L, EV_OPENER_GROUPS | EV_OPENER_FILTERS, false, err, sizeof(err)) < 0 &&
	      strstr(err, "freq="), "%s", err);
	CHECK(parse("sched:sched_switch") == 0 &&
	      events_add_filter(&L, "prev_pid == 1", err, sizeof(err)) == 0, "%s", err);
	CHECK(events_unapplied(&L, EV_OPENER_GROUPS | EV_OPENER_TERMS, false, err, sizeof(err)) < 0 &&
	      strstr(err, "--filter"), "%s", err);
	CHECK(parse("mem:0x1000:w") == 0, "%s", err);
	CHECK(events_unapplied(&L, 0, false, err, sizeof(err)) < 0 && strstr(err, "-c 1"), "%s", err);
	CHECK(events_unapplied(&L, 0, true, err, sizeof(err)) == 0, "with -c: %s", err);
	CHECK(events_unapplied(&L, EV_OPENER_TERMS, false, err, sizeof(err)) == 0, "applied: %s", err);
	return 0;
}

static int test_finish_attr(void)
{
	struct pf_event e;

	memset(&e, 0, sizeof(e));
	e.attr.freq = 1;
	e.attr.sample_freq = 4000;
	e.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	e.term_period = 1000;
	events_finish_attr(&e, true);
	CHECK(!e.attr.freq && e.attr.sample_period == 1000 &&
	      e.attr.sample_type == PERF_SAMPLE_IP, "period= wins over -F, no PERIOD");
	e.term_period = 0;
	e.term_freq = 77;
	events_finish_attr(&e, true);
	CHECK(e.attr.freq && e.attr.sample_freq == 77, "freq=");
	memset(&e, 0, sizeof(e));
	e.attr.type = PERF_TYPE_BREAKPOINT;
	e.attr.freq = 1;
	e.attr.sample_freq = 4000;
	events_finish_attr(&e, false);
	CHECK(!e.attr.freq && e.attr.sample_period == 1, "a breakpoint samples every hit");
	e.attr.sample_period = 5;
	events_finish_attr(&e, true);
	CHECK(e.attr.sample_period == 5, "unless -c says otherwise");
	return 0;
}

static int test_group_desc(void)
{
	struct pbuf b = { 0 };
	u32 v[64];

	CHECK(parse("page-faults,{cpu-clock,task-clock},{cs},{sched:*}") == 0, "%s", err);
	CHECK(events_nr_groups(L.ev, L.nr) == 2, "groups of one do not count: %d",
	      events_nr_groups(L.ev, L.nr));
	events_group_desc(L.ev, L.nr, &b);
	/* 2, then per group: the name as a perf string (u32 length, padded), leader, members */
	CHECK(b.len >= 4 && b.len <= sizeof(v), "size %zu", b.len);
	memcpy(v, b.p, b.len);
	{
		u32 n = v[1] / 4;

		CHECK(v[0] == 2 && v[1] % 8 == 0 && v[1] >= 13 && !memcmp(&v[2], "{anon_group}", 13),
		      "first name");
		CHECK(b.len == 4 + 2 * (4 + v[1] + 8), "size %zu", b.len);
		CHECK(v[2 + n] == 1 && v[3 + n] == 2, "cpu-clock leads 2: %u %u", v[2 + n], v[3 + n]);
		CHECK(v[4 + n] == v[1] && v[5 + 2 * n] == 4 && v[6 + 2 * n] == 2,
		      "sched:* at 4 leads 2");
	}
	pbuf_free(&b);
	return 0;
}

/* A real tracepoint: the kernel takes a good filter and refuses a bad one. */
static int test_apply_filter_on_a_real_event(void)
{
	struct ev_list *l = calloc(1, sizeof(*l));
	struct perf_event_attr a;
	int fd, ret;

	events_set_roots(NULL, NULL);
	CHECK(l, "calloc");
	if (events_parse("raw_syscalls:sys_enter", l, err, sizeof(err))) {
		printf("# SKIP: %s\n", err);
		free(l);
		return 0;
	}
	a = l->ev[0].attr;
	a.sample_period = 1;
	a.disabled = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("# SKIP: perf_event_open of raw_syscalls:sys_enter: %s\n", strerror(errno));
		free(l);
		return 0;
	}
	CHECK(events_apply_filter(fd, &l->ev[0], err, sizeof(err)) == 0, "no filter");
	l->ev[0].filter = "id == 3";
	ret = events_apply_filter(fd, &l->ev[0], err, sizeof(err));
	CHECK(ret == 0, "good filter: %s", err);
	close(fd);
	/* a filter is set once per event (EEXIST after that) */
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	CHECK(fd >= 0, "second open: %s", strerror(errno));
	l->ev[0].filter = "id === 3";
	ret = events_apply_filter(fd, &l->ev[0], err, sizeof(err));
	CHECK(ret == -EINVAL && strstr(err, "raw_syscalls:sys_enter: --filter 'id === 3'") &&
	      strstr(err, "refused"), "bad filter: %d %s", ret, err);
	close(fd);
	free(l);
	return 0;
}

/*
 * A sample's RAW part: the u32 size and the fields, 8-aligned, when every
 * field has a fixed size; PERF_MAX_TRACE_SIZE when one is dynamic.
 */
static int test_raw_max_from_the_format(void)
{
	CHECK(!parse("sched:sched_switch"), "%s", err);
	CHECK(events_raw_max(&L.ev[0]) == 64, "fields end at 60: 4 + 60 is 64 aligned, got %u",
	      events_raw_max(&L.ev[0]));
	CHECK(!parse("dyn:dyn_exec"), "%s", err);
	CHECK(events_raw_max(&L.ev[0]) == 8192, "__data_loc: got %u", events_raw_max(&L.ev[0]));
	CHECK(!parse("cpu-clock"), "%s", err);
	CHECK(events_raw_max(&L.ev[0]) == 0, "no tracepoint, no RAW");
	return 0;
}

int main(void)
{
	tap_tmpname(root, sizeof(root), "events");
	if (!mkdtemp(root)) {
		perror(root);
		return 1;
	}
	make_tree(false);
	tap_run("modifiers set the exclude bits as perf does", test_modifiers_set_exclude_bits);
	tap_run("a tracepoint's largest RAW from its format", test_raw_max_from_the_format);
	tap_run("precise (:p) on hardware events only", test_precise_on_hardware_only);
	tap_run("a bad modifier is named", test_bad_modifier_is_named);
	tap_run("tracepoints take modifiers, globs and terms", test_tracepoints_with_modifiers_and_globs);
	tap_run("pmu/terms/: config, format fields, period, freq, name", test_pmu_terms);
	tap_run("mem:ADDR[/LEN][:rwx] breakpoints", test_breakpoints);
	tap_run("groups {a,b} and their modifiers", test_groups);
	tap_run("an event named twice is kept once", test_same_event_twice_is_kept_once);
	tap_run("--filter applies to the tracepoints of the -e before it", test_filter_follows_its_event);
	tap_run("what the opener does not apply yet is refused", test_unapplied_features_are_refused);
	tap_run("events_finish_attr: terms and breakpoint periods", test_finish_attr);
	tap_run("HEADER_GROUP_DESC as perf writes it", test_group_desc);
	tap_run("events_apply_filter on a real tracepoint", test_apply_filter_on_a_real_event);
	events_free(&L);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			printf("# could not remove %s\n", root);
	}
	return tap_done();
}
