/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event names to perf_event_attr, in perf's syntax: tracepoints (with
 * globs), software and hardware events, modifiers (:u, :k, :h, :p...),
 * pmu/term=value/ terms, mem:ADDR[/LEN][:rwx] breakpoints, groups {a,b},
 * and tracepoint filters.
 */
#ifndef PERF_RING_EVENTS_H
#define PERF_RING_EVENTS_H

#include <linux/perf_event.h>
#include "pbuf.h"
#include "util.h"

/*
 * What an event is for in a recording; evlist_config() sets it, and it
 * decides which buffers the event writes into (evlist.h).
 */
enum ev_role {
	EV_SAMPLE,	/* recorded: into the per-CPU buffers, on while recording */
	EV_TRACKING,	/* a dummy of its own, recorded, on from start to end */
	EV_SIDEBAND,	/* flight recorder: a dummy into forward buffers of its own */
	EV_TRIGGER,	/* --switch-output-event: into the trigger's buffers */
	NR_ROLES
};

/* One event as it goes into the file. */
struct pf_event {
	char name[256];
	struct perf_event_attr attr;
	u64 *ids;
	int nr_ids;
	int ids_room;		/* room for ids in the file's layout (>= nr_ids) */
	char tp_sys[64];	/* set for tracepoints */
	char tp_name[128];
	/*
	 * Set by events_parse() for the event opener (see below):
	 * group_leader is the index in the event list of the leader of
	 * this event's group ({a,b}), its own index for the leader, -1
	 * outside a group; nr_members, on a leader, the size of its group.
	 */
	int group_leader;
	int nr_members;
	char *filter;		/* --filter, for PERF_EVENT_IOC_SET_FILTER */
	u64 term_period;	/* the period= and freq= terms, 0 if not given */
	u64 term_freq;
	enum ev_role role;
	bool tracks;		/* asks for COMM, MMAP2, FORK, EXIT: one event does */
};

#define MAX_EVENTS 256

struct ev_list {
	struct pf_event ev[MAX_EVENTS];
	int nr;
	/*
	 * For --filter: the events_parse() calls that first and last named
	 * each event (an event named twice is kept once).
	 */
	int nr_specs;
	int spec[MAX_EVENTS];
	int first_spec[MAX_EVENTS];
};

/*
 * Add the events named in spec (perf's -e syntax) to l.  On error, a
 * message naming the event and what is wrong with it is written to err.
 */
int events_parse(const char *spec, struct ev_list *l, char *err, size_t errlen);
/*
 * --filter: set (or, given twice, AND) a tracepoint filter on the
 * tracepoints of the last events_parse() call, as perf does.  The field
 * names are checked against the tracepoints' formats; the rest is left to
 * the kernel (events_apply_filter()).
 */
int events_add_filter(struct ev_list *l, const char *filter, char *err, size_t errlen);

/*
 * What the event opener (evlist.c) must do beyond opening e->attr:
 *
 * - groups: open a member with group_fd = the fd of its leader on the
 *   same CPU and thread; events_leader() says which event that is (-1:
 *   open with group_fd -1).  A leader comes before its members in the
 *   list.
 * - filters: events_apply_filter() on every fd of the event, after
 *   perf_event_open() and before the event is enabled.
 * - events_finish_attr() on every event after the record options are
 *   applied to the attribute: period= and freq= terms win over -c/-F, as
 *   in perf, and a breakpoint samples every hit unless -c/-F say otherwise.
 *
 * EVENTS_OPENER_APPLIES lists what the opener does; until it does all
 * three, events_unapplied() refuses the events that need the rest, so that
 * nothing is recorded differently from what was asked (user_period: -c or
 * -F was given).
 */
#define EV_OPENER_GROUPS	1u
#define EV_OPENER_FILTERS	2u
#define EV_OPENER_TERMS		4u
#define EVENTS_OPENER_APPLIES	(EV_OPENER_GROUPS | EV_OPENER_FILTERS | EV_OPENER_TERMS)

int events_leader(const struct pf_event *evs, int i);
/*
 * The HEADER_GROUP_DESC feature (bit 17) as perf writes it, for files
 * with groups of more than one event (events_nr_groups() > 0): without
 * it perf reads the events as ungrouped.
 */
int events_nr_groups(const struct pf_event *evs, int nr);
void events_group_desc(const struct pf_event *evs, int nr, struct pbuf *b);
int events_apply_filter(int fd, const struct pf_event *e, char *err, size_t errlen);
void events_finish_attr(struct pf_event *e, bool user_period);
int events_unapplied(const struct ev_list *l, unsigned int applied, bool user_period,
		     char *err, size_t errlen);

/* Free what events_parse() and events_add_filter() allocated; l is empty after. */
void events_free(struct ev_list *l);

/*
 * The largest RAW part (u32 size and data, 8-aligned) of e's samples; 0
 * when e is no tracepoint.
 */
u32 events_raw_max(const struct pf_event *e);
bool hw_pmu_present(void);
/* Message for a failed perf_event_open() of e. */
void events_open_error(const struct pf_event *e, int errnum, char *buf, size_t len);
/*
 * Fill e (name, attr, tracepoint system and name) from an attribute alone;
 * -ENOENT when no name is known (e->name then describes the attribute).
 */
int events_name_attr(const struct perf_event_attr *a, struct pf_event *e);
/*
 * The same for n events whose attr is set, res[i] its result: tracefs is
 * walked once for all the tracepoints (events_name_attr() walks it once
 * per event: n times the tracepoints of the machine, for n from a file).
 */
int events_name_attrs(struct pf_event *evs, int n, int *res);

/* Tests: look PMUs up under sysfs_devices and tracepoints under tracefs. */
void events_set_roots(const char *sysfs_devices, const char *tracefs);

#endif
