/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The largest record an event can make the kernel write into its buffer,
 * worked out from its attributes the way perf_prepare_sample() sizes a
 * sample, and from it the bytes a writer may hold reserved but not yet
 * published in a backward buffer (the flight recorder's snapshot margin).
 */
#ifndef PERF_RING_RECSIZE_H
#define PERF_RING_RECSIZE_H

#include <linux/perf_event.h>
#include "util.h"

/* A record's size is a u16 and records are 8-byte aligned. */
#define RECSIZE_MAX 65528u
/* include/linux/trace_events.h: a tracepoint's raw data, at most */
#define RECSIZE_TRACE_MAX 8192u
/* the recursion contexts (task, softirq, hardirq, NMI): records in flight */
#define RECSIZE_NEST 4u

struct recsize_limits {
	u32 max_stack;		/* kernel.perf_event_max_stack */
	u32 max_ctx;		/* kernel.perf_event_max_contexts_per_stack */
	u32 max_branches;	/* LBR depth (the cpu PMU's caps/branches) */
};

/* The sysctls as they are now (127 and 8 when unreadable); no LBR depth. */
void recsize_limits_read(struct recsize_limits *l);

/*
 * The largest PERF_RECORD_SAMPLE of an event: raw_max bytes of RAW (the
 * u32 size included, 8-aligned; see events_raw_max()), group_nr events in
 * its group (for PERF_SAMPLE_READ with PERF_FORMAT_GROUP).  At most
 * RECSIZE_MAX: the kernel shrinks STACK_USER to fit.
 */
u32 recsize_sample_max(const struct perf_event_attr *a, u32 raw_max, int group_nr,
		       const struct recsize_limits *l);
/*
 * The largest record of any type the event writes into its buffer: its
 * samples, LOST, THROTTLE, and the side-band records its tracking bits ask
 * for.
 */
u32 recsize_event_max(const struct perf_event_attr *a, u32 raw_max, int group_nr,
		      const struct recsize_limits *l);
/*
 * Bytes that writers may hold reserved and unpublished below a backward
 * buffer's head, with records of at most max_rec bytes: one reservation
 * per recursion context, each a record and the PERF_RECORD_LOST the
 * kernel reserves with it (__perf_output_begin()).
 */
u64 recsize_margin(u32 max_rec, u64 sample_type);

#endif
