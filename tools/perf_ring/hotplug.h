/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU hotplug during a recording: which buffers' CPUs went offline and
 * came back, kept in each struct ring, and what that did to the events.
 */
#ifndef PERF_RING_HOTPLUG_H
#define PERF_RING_HOTPLUG_H

#include "ring.h"

struct hotplug {
	u64 t0, checked;	/* start of the run, last check */
	int uevent_fd;		/* kernel uevents (NETLINK_KOBJECT_UEVENT), -1: none */
	bool no_mask;		/* the online mask cannot be read */
	bool per_cpu;		/* -a/-C events, which a CPU going offline stops */
	bool backward;		/* flight recorder buffers */
	bool quiet;
	u64 sample_type;
};

/*
 * Listen to the kernel's uevents, so that a CPU that goes offline and
 * comes back between two looks is not missed.  Without them (no netlink
 * in a container, say) the online mask is read alone.
 */
void hotplug_listen(struct hotplug *hp);
/*
 * Read the uevents and the online mask (at most every 100 ms unless
 * force) and say what changed.  A ring whose CPU came back gets back set.
 */
void hotplug_check(struct hotplug *hp, struct ring *rings, int nrings, bool force);
void hotplug_close(struct hotplug *hp);
/* At the end: warn about the holes a CPU going offline left. */
void hotplug_summary(const struct hotplug *hp, const struct ring *rings, int nrings);

#endif
