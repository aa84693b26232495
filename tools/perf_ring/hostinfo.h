/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host as the perf.data header features describe it, each appended
 * to b in the feature's layout (perf.data-file-format.txt); a value that
 * cannot be read is written as perf does ("unknown", 0, -1).
 */
#ifndef PERF_RING_HOSTINFO_H
#define PERF_RING_HOSTINFO_H

#include <stdbool.h>
#include <sys/utsname.h>

#include "pbuf.h"
#include "util.h"

/*
 * The host's features, read once for a recording and again only when the
 * online CPUs change (/sys/devices/system/cpu/online, one small file): a
 * snapshot otherwise read /proc/cpuinfo twice and six topology files per
 * CPU, a cost per snapshot that grew with the CPUs and not with the bytes
 * copied.  What else could change meanwhile (the hostname, memory added,
 * a PMU registered by a module) is as it was at the start or at the last
 * CPU that came or went.
 *
 * A recording reads cpu/online anyway (hotplug.h: at once after a
 * uevent, else at least every 100 ms) and passes on what it read
 * (hostinfo_cpus_seen()); a refresh reads the host again only when that
 * differs from what it read itself, and reads no file otherwise (each
 * read is a system call, and a record when perf-ring's own system calls
 * are recorded).  A file closed within the watch's delay after a change
 * (100 ms at most, where no uevent comes) describes the CPUs as they
 * were.  Unwatched, each refresh reads cpu/online and compares.
 */
struct hostinfo {
	bool valid;
	bool watched;		/* hostinfo_cpus_seen() passes on each look */
	bool cpus_changed;	/* the last look differs from online */
	char *online;		/* cpu/online when read, NULL if unreadable */
	struct utsname u;
	u32 nr_conf, nr_online;	/* HEADER_NRCPUS */
	u64 mem_kb;		/* HEADER_TOTAL_MEM: MemTotal in kB, 0 if unknown */
	/* the bodies of HEADER_CPUDESC ("model name"), HEADER_CPUID
	 * ("vendor,family,model,stepping"), HEADER_CPU_TOPOLOGY and
	 * HEADER_PMU_MAPPINGS (type and name of each event_source device) */
	struct pbuf cpudesc, cpuid, topology, pmus;
};

/* Read the host into h, unless h holds it and no CPU came or went: 0 or -ENOMEM. */
int hostinfo_refresh(struct hostinfo *h);
/*
 * cpu/online as the caller's watch read it now; NULL: the watch could not
 * read it, and each refresh reads it.
 */
void hostinfo_cpus_seen(struct hostinfo *h, const char *online);
void hostinfo_free(struct hostinfo *h);
/* Mount point of tracefs with an events/ directory, or NULL. */
const char *tracefs_path(void);

#endif
