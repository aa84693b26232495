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
 */
struct hostinfo {
	bool valid;
	char *online;		/* cpu/online when read, NULL if unreadable */
	/*
	 * cpu/online, kept open from the first refresh and read again from
	 * its start: one system call per file, not four (each of them a
	 * record when perf-ring's own syscalls are recorded)
	 */
	int online_fd;
	bool online_open;
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
void hostinfo_free(struct hostinfo *h);	/* h's memory and its descriptor */
/* Mount point of tracefs with an events/ directory, or NULL. */
const char *tracefs_path(void);

#endif
