// SPDX-License-Identifier: GPL-2.0
/*
 * The largest record from an event's attributes (recsize.h), the flight
 * recorder's margin made of it, and -g/--call-graph as perf parses and
 * configures them.  The expected sizes are worked out by hand from the
 * sample layout in kernel/events/core.c (perf_output_sample()).
 */
#include <errno.h>
#include <string.h>

#include "cmdline.h"
#include "evlist.h"
#include "recsize.h"
#include "tap.h"

static const struct recsize_limits L = { .max_stack = 127, .max_ctx = 8, .max_branches = 32 };

/* perf-ring's own layout: IP TID TIME ID CPU PERIOD */
#define ST_BASE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static int test_plain_sample(void)
{
	struct perf_event_attr a = { .sample_type = ST_BASE, .sample_id_all = 1 };

	/* header 8 + six u64 */
	CHECK(recsize_sample_max(&a, 0, 1, &L) == 56, "got %u", recsize_sample_max(&a, 0, 1, &L));
	/* THROTTLE (time, id, stream_id) with its sample_id (TID TIME ID CPU) is larger */
	CHECK(recsize_event_max(&a, 0, 1, &L) == 8 + 24 + 32, "got %u",
	      recsize_event_max(&a, 0, 1, &L));
	return 0;
}

static int test_frame_pointer_chain(void)
{
	struct perf_event_attr a = { .sample_type = ST_BASE | PERF_SAMPLE_CALLCHAIN };
	struct recsize_limits l = L;

	/* + nr + 127 frames + 8 context markers */
	CHECK(recsize_sample_max(&a, 0, 1, &L) == 56 + 8 * 136, "got %u",
	      recsize_sample_max(&a, 0, 1, &L));
	l.max_stack = 512;
	CHECK(recsize_sample_max(&a, 0, 1, &l) == 56 + 8 * 521, "perf_event_max_stack=512: got %u",
	      recsize_sample_max(&a, 0, 1, &l));
	return 0;
}

static int test_dwarf(void)
{
	struct perf_event_attr a = {
		.sample_type = ST_BASE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			       PERF_SAMPLE_STACK_USER,
		.sample_regs_user = 0xff0fff, .sample_stack_user = 8192,
	};

	/* + abi + 20 registers; + size + 8192 + dyn_size */
	CHECK(recsize_sample_max(&a, 0, 1, &L) == 56 + 8 * 136 + 8 + 160 + 8 + 8192 + 8,
	      "got %u", recsize_sample_max(&a, 0, 1, &L));
	a.sample_stack_user = 65528;
	CHECK(recsize_sample_max(&a, 0, 1, &L) == RECSIZE_MAX,
	      "the kernel shrinks the stack to fit a u16 size: got %u",
	      recsize_sample_max(&a, 0, 1, &L));
	return 0;
}

static int test_tracepoint_and_tracking(void)
{
	struct perf_event_attr a = {
		.sample_type = ST_BASE | PERF_SAMPLE_RAW, .sample_id_all = 1,
		.mmap = 1, .mmap2 = 1, .comm = 1, .task = 1,
	};

	CHECK(recsize_sample_max(&a, 64, 1, &L) == 56 + 64, "got %u",
	      recsize_sample_max(&a, 64, 1, &L));
	CHECK(recsize_sample_max(&a, 0, 1, &L) == RECSIZE_MAX, "RAW of unknown size: got %u",
	      recsize_sample_max(&a, 0, 1, &L));
	/* MMAP2: 8 + 56 + PATH_MAX + sample_id */
	CHECK(recsize_event_max(&a, 64, 1, &L) == 8 + 56 + 4096 + 32, "got %u",
	      recsize_event_max(&a, 64, 1, &L));
	return 0;
}

static int test_read_group_and_branches(void)
{
	struct perf_event_attr a = {
		.sample_type = PERF_SAMPLE_READ,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST,
	};

	/* nr + 3 x (value, id, lost) */
	CHECK(recsize_sample_max(&a, 0, 3, &L) == 8 + 8 + 3 * 24, "got %u",
	      recsize_sample_max(&a, 0, 3, &L));
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	CHECK(recsize_sample_max(&a, 0, 1, &L) == 8 + 24, "got %u", recsize_sample_max(&a, 0, 1, &L));
	a = (struct perf_event_attr){
		.sample_type = PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX,
	};
	/* nr, hw_index, 32 x (from, to, flags) */
	CHECK(recsize_sample_max(&a, 0, 1, &L) == 8 + 16 + 32 * 24, "got %u",
	      recsize_sample_max(&a, 0, 1, &L));
	return 0;
}

static int test_margin(void)
{
	/* four contexts, each a record and the LOST (24 + sample_id) */
	CHECK(recsize_margin(1144, ST_BASE) == 4 * (1144 + 24 + 32), "got %llu",
	      (unsigned long long)recsize_margin(1144, ST_BASE));
	/* a snapshot still trusts half of a 1 MiB buffer with 64 KiB records */
	CHECK(recsize_margin(RECSIZE_MAX, ST_BASE) <= (1u << 20) / 2, "got %llu",
	      (unsigned long long)recsize_margin(RECSIZE_MAX, ST_BASE));
	CHECK(ring_pow2_kb(2 * recsize_margin(RECSIZE_MAX, ST_BASE)) == 1024, "got %llu",
	      (unsigned long long)ring_pow2_kb(2 * recsize_margin(RECSIZE_MAX, ST_BASE)));
	return 0;
}

static int test_call_graph_parse(void)
{
	struct record_opts o;
	char err[256];

	memset(&o, 0, sizeof(o));
	CHECK(!callgraph_parse("fp", &o, err, sizeof(err)) && o.callgraph == CALLGRAPH_FP, "fp");
	CHECK(!callgraph_parse("dwarf", &o, err, sizeof(err)) && o.callgraph == CALLGRAPH_DWARF &&
	      o.stack_dump == 8192, "dwarf: %u", o.stack_dump);
	CHECK(!callgraph_parse("dwarf,4000", &o, err, sizeof(err)) && o.stack_dump == 4000, "4000");
	CHECK(!callgraph_parse("dwarf,4001", &o, err, sizeof(err)) && o.stack_dump == 4008,
	      "rounded up to 8: %u", o.stack_dump);
	CHECK(!callgraph_parse("dwarf,65528", &o, err, sizeof(err)) && o.stack_dump == 65528, "max");
	CHECK(callgraph_parse("dwarf,65529", &o, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "max 65528"), "too large: %s", err);
	CHECK(callgraph_parse("dwarf,0", &o, err, sizeof(err)) == -EINVAL, "zero");
	CHECK(callgraph_parse("dwarf,", &o, err, sizeof(err)) == -EINVAL, "empty size");
	CHECK(callgraph_parse("dwarf,4k", &o, err, sizeof(err)) == -EINVAL, "suffix");
	CHECK(callgraph_parse("fp,8", &o, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "no more arguments"), "fp,8: %s", err);
	CHECK(!callgraph_parse("lbr", &o, err, sizeof(err)) && o.callgraph == CALLGRAPH_LBR, "lbr");
	CHECK(callgraph_parse("dwarf8", &o, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "unknown mode"), "dwarf8: %s", err);
	return 0;
}

/* evlist_config() sets what perf's evsel__config_callchain() sets. */
static int config(const char *cg, bool user, bool kernel, struct perf_event_attr *out)
{
	static struct pf_event ev[2];
	struct evlist el;
	struct record_opts o;
	struct evlist_opts eo;
	char err[256];

	memset(&el, 0, sizeof(el));
	memset(&o, 0, sizeof(o));
	memset(ev, 0, sizeof(ev));
	ev[0].attr.type = PERF_TYPE_SOFTWARE;
	ev[0].attr.config = PERF_COUNT_SW_CPU_CLOCK;
	ev[0].group_leader = -1;
	el.evs = ev;
	el.nev = 1;
	o.mmap_bytes = 512 << 10;
	if (cg && callgraph_parse(cg, &o, err, sizeof(err)))
		return -1;
	eo = (struct evlist_opts){
		.mmap_bytes = o.mmap_bytes, .callgraph = o.callgraph, .stack_dump = o.stack_dump,
		.user_callchains = user, .kernel_callchains = kernel, .cpu_mask = o.cpu_mask,
	};
	evlist_config(&el, &eo);
	*out = ev[0].attr;
	return 0;
}

static int test_config_like_perf(void)
{
	struct perf_event_attr a;

	CHECK(!config(NULL, false, false, &a), "config");
	CHECK(!(a.sample_type & PERF_SAMPLE_CALLCHAIN), "no -g, no chains");
	CHECK(!config("fp", false, false, &a), "config");
	CHECK((a.sample_type & PERF_SAMPLE_CALLCHAIN) && !a.exclude_callchain_user &&
	      !a.exclude_callchain_kernel && !(a.sample_type & PERF_SAMPLE_STACK_USER), "fp");
	CHECK(!config("dwarf", false, false, &a), "config");
	CHECK((a.sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				PERF_SAMPLE_STACK_USER)) == (PERF_SAMPLE_CALLCHAIN |
	      PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER) && a.exclude_callchain_user &&
	      a.sample_stack_user == 8192 && a.mmap_data, "dwarf");
#if defined(__x86_64__)
	CHECK(a.sample_regs_user == 0xff0fff, "perf's x86_64 mask: %llx",
	      (unsigned long long)a.sample_regs_user);
#endif
	CHECK(!config("fp", true, false, &a), "config");
	CHECK(a.exclude_callchain_kernel && !a.exclude_callchain_user, "--user-callchains");
	CHECK(!config("fp", false, true, &a), "config");
	CHECK(!a.exclude_callchain_kernel && a.exclude_callchain_user, "--kernel-callchains");
	/*
	 * Nothing else changes: what counts.c reads (IP TID TIME ADDR ID,
	 * record_time()) comes before READ and CALLCHAIN in the record
	 * (perf_output_sample()), whatever the bits' order
	 */
	CHECK((a.sample_type & ~(u64)PERF_SAMPLE_CALLCHAIN) ==
	      (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
	       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD), "prefix %llx",
	      (unsigned long long)a.sample_type);
	return 0;
}

int main(void)
{
	tap_run("a sample without chains: header and six u64", test_plain_sample);
	tap_run("frame-pointer chains: perf_event_max_stack frames and context markers",
		test_frame_pointer_chain);
	tap_run("dwarf: registers and the user stack, capped at a u16 record", test_dwarf);
	tap_run("tracepoint RAW and the tracking records", test_tracepoint_and_tracking);
	tap_run("READ with groups, and branch stacks", test_read_group_and_branches);
	tap_run("the snapshot margin: four contexts of record and LOST", test_margin);
	tap_run("--call-graph parsed as perf parses it", test_call_graph_parse);
	tap_run("-g, dwarf and --user/--kernel-callchains set perf's attributes",
		test_config_like_perf);
	return tap_done();
}
