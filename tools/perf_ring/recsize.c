// SPDX-License-Identifier: GPL-2.0
/*
 * Record sizes from attributes (recsize.h).  The sample layout and sizes
 * follow perf_output_sample() and perf_prepare_sample() in
 * kernel/events/core.c.
 */
#include <stdio.h>

#include "recsize.h"
#include "synth.h"

#define PATH_MAX_KERNEL 4096u	/* MMAP2's file name, NUL included */
#define KSYM_NAME_LEN 512u

static u32 read_sysctl(const char *path, u32 dflt)
{
	FILE *f = fopen(path, "r");
	unsigned int v;

	if (!f)
		return dflt;
	if (fscanf(f, "%u", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

void recsize_limits_read(struct recsize_limits *l)
{
	l->max_stack = read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127);
	l->max_ctx = read_sysctl("/proc/sys/kernel/perf_event_max_contexts_per_stack", 8);
	l->max_branches = 0;
}

/* perf_event__read_size() */
static u64 read_size(u64 rf, int group_nr)
{
	u64 entry = 8, size = 0, nr = 1;

	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		size += 8;
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		size += 8;
	if (rf & PERF_FORMAT_ID)
		entry += 8;
	if (rf & PERF_FORMAT_LOST)
		entry += 8;
	if (rf & PERF_FORMAT_GROUP) {
		nr = group_nr > 0 ? group_nr : 1;
		size += 8;
	}
	return size + entry * nr;
}

u32 recsize_sample_max(const struct perf_event_attr *a, u32 raw_max, int group_nr,
		       const struct recsize_limits *l)
{
	u64 st = a->sample_type, sz = sizeof(struct perf_event_header);
	static const u64 one_u64 = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
		PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
		PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE;

	sz += 8 * __builtin_popcountll(st & one_u64);
	if (st & PERF_SAMPLE_READ)
		sz += read_size(a->read_format, group_nr);
	/* nr, then at most max_stack frames and max_ctx context markers */
	if (st & PERF_SAMPLE_CALLCHAIN)
		sz += 8 * (1 + (u64)l->max_stack + l->max_ctx);
	if (st & PERF_SAMPLE_RAW)
		sz += raw_max ? raw_max : RECSIZE_MAX;
	/* nr, hw_index, entries of from, to, flags */
	if (st & PERF_SAMPLE_BRANCH_STACK)
		sz += 8 + 8 * !!(a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) +
		      24 * (u64)l->max_branches;
	/* abi, then the registers */
	if (st & PERF_SAMPLE_REGS_USER)
		sz += 8 + 8 * __builtin_popcountll(a->sample_regs_user);
	if (st & PERF_SAMPLE_REGS_INTR)
		sz += 8 + 8 * __builtin_popcountll(a->sample_regs_intr);
	/* size, the stack, dyn_size */
	if (st & PERF_SAMPLE_STACK_USER)
		sz += 8 + ALIGN_UP((u64)a->sample_stack_user, 8) + 8;
	if (st & PERF_SAMPLE_AUX)
		sz += 8 + ALIGN_UP((u64)a->aux_sample_size, 8);
	return sz > RECSIZE_MAX ? RECSIZE_MAX : (u32)sz;
}

u32 recsize_event_max(const struct perf_event_attr *a, u32 raw_max, int group_nr,
		      const struct recsize_limits *l)
{
	u64 m = recsize_sample_max(a, raw_max, group_nr, l), other = 0;
	u32 id = a->sample_id_all ? synth_id_hdr_size(a->sample_type) : 0;

	/* LOST: id, lost; THROTTLE/UNTHROTTLE: time, id, stream_id */
	other = 8 + 24;
	if (a->mmap || a->mmap2 || a->mmap_data)
		other = 8 + 56 + PATH_MAX_KERNEL;	/* MMAP2 */
	if (a->ksymbol && other < 8 + 16 + KSYM_NAME_LEN)
		other = 8 + 16 + KSYM_NAME_LEN;
	if ((a->comm || a->task || a->context_switch || a->namespaces || a->cgroup) &&
	    other < 8 + PATH_MAX_KERNEL + 16)
		other = 8 + PATH_MAX_KERNEL + 16;	/* CGROUP carries a path */
	other += id;
	if (other > m)
		m = other;
	return m > RECSIZE_MAX ? RECSIZE_MAX : (u32)m;
}

u64 recsize_margin(u32 max_rec, u64 sample_type)
{
	u64 lost = 8 + 16 + synth_id_hdr_size(sample_type);

	return RECSIZE_NEST * ((u64)max_rec + lost);
}
