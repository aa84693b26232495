/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU hotplug during a recording: which buffers' CPUs went offline and
 * came back, kept per CPU here, and what that did to the events.
 */
#ifndef PERF_RING_HOTPLUG_H
#define PERF_RING_HOTPLUG_H

#include "ring.h"

/* What happened to one CPU during the recording. */
struct hp_cpu {
	bool off;		/* offline now */
	u64 off_ns, on_ns;	/* went offline, came back: ns into the run; 0: not */
	int cycles;		/* times it went offline */
	bool back;		/* came back since the recorder last looked */
	int reopen_err;		/* -a/-C: opening its events again failed (-errno) */
	u64 last_time;		/* flight recorder: its buffer's newest record then */
};

struct hotplug {
	u64 t0, checked;	/* start of the run, last check */
	int uevent_fd;		/* kernel uevents (NETLINK_KOBJECT_UEVENT), -1: none */
	int online_fd;		/* cpu/online, read from its start at each look; -1: none */
	bool no_mask;		/* the online mask cannot be read */
	bool per_cpu;		/* -a/-C events, which a CPU going offline stops */
	bool backward;		/* flight recorder buffers */
	bool quiet;
	u64 sample_type;
	int nback;		/* CPUs with back set */
	struct hp_cpu cpu[MAX_CPUS];	/* by CPU number */
	char online[4096];	/* cpu/online as the last look read it; "": not read */
};

/* What the recording asks of the hotplug watch; record.c builds it. */
struct hotplug_opts {
	bool per_cpu;		/* -a/-C events, which a CPU going offline stops */
	bool backward;		/* flight recorder buffers */
	bool quiet;
	u64 sample_type;	/* of the events: where a record's time is */
};

/*
 * No CPU seen going offline yet, no uevents listened to; cpu/online
 * opened and read, then read again from its start at each look.
 */
void hotplug_init(struct hotplug *hp, const struct hotplug_opts *o);
/*
 * Listen to the kernel's uevents, so that a CPU that goes offline and
 * comes back between two looks is not missed.  Without them (no netlink
 * in a container, say) the online mask is read alone.
 */
void hotplug_listen(struct hotplug *hp);
/*
 * Read the uevents and the online mask (at most every 100 ms unless
 * force, at once after a uevent about any CPU) and say what changed for
 * the CPUs of the rings.  uevents: poll() found the uevent socket
 * readable; it is read then, with force, and at each look at the mask
 * (a wait skipped while the buffers are busy polls nothing).
 */
void hotplug_check(struct hotplug *hp, const struct ring *rings, int nrings, bool force,
		   bool uevents);
/*
 * -a/-C: a CPU that came back since the last call, whose events the
 * recorder opens again (evlist_reopen_cpu()); -1 when there is none.
 */
int hotplug_next_back(struct hotplug *hp);
/*
 * cpu/online as the last look read it (the header's description of the
 * CPUs is read again when it differs from what that read: hostinfo.h),
 * or NULL when it could not be read or parsed (the watch no longer looks:
 * no_mask).
 */
const char *hotplug_online(const struct hotplug *hp);
/* Opening the events of a CPU that came back failed (-errno): for the summary. */
void hotplug_reopen_failed(struct hotplug *hp, int cpu, int err);
void hotplug_close(struct hotplug *hp);
/*
 * At the end: warn about the holes a CPU going offline left.  newest: per
 * ring, the newest record time read from it (NULL: not read as it came).
 */
void hotplug_summary(const struct hotplug *hp, const struct ring *rings, int nrings,
		     const u64 *newest);

#endif
