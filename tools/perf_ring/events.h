/* SPDX-License-Identifier: GPL-2.0 */
/* Event names to perf_event_attr: tracepoints, software and hardware. */
#ifndef PERF_RING_EVENTS_H
#define PERF_RING_EVENTS_H

#include "perfdata.h"

#define MAX_EVENTS 256

struct ev_list {
	struct pf_event ev[MAX_EVENTS];
	int nr;
};

/*
 * Add the events named in spec (comma-separated: "sys:name" with globs,
 * "cpu-clock", ...) to l.  On error, a message naming the event is
 * written to err.
 */
int events_parse(const char *spec, struct ev_list *l, char *err, size_t errlen);
bool hw_pmu_present(void);
/* Message for a failed perf_event_open() of e. */
void events_open_error(const struct pf_event *e, int errnum, char *buf, size_t len);
/*
 * Fill e (name, attr, tracepoint system and name) from an attribute alone;
 * -ENOENT when no name is known (e->name then describes the attribute).
 */
int events_name_attr(const struct perf_event_attr *a, struct pf_event *e);

#endif
