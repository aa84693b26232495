/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host as the perf.data header features describe it, each appended
 * to b in the feature's layout (perf.data-file-format.txt); a value that
 * cannot be read is written as perf does ("unknown", 0, -1).
 */
#ifndef PERF_RING_HOSTINFO_H
#define PERF_RING_HOSTINFO_H

#include "pbuf.h"
#include "util.h"

/* HEADER_CPUDESC: the "model name" of /proc/cpuinfo */
void hostinfo_cpu_desc(struct pbuf *b);
/* HEADER_CPUID: "vendor,family,model,stepping" */
void hostinfo_cpuid(struct pbuf *b);
/* HEADER_TOTAL_MEM's value: MemTotal in kB, 0 if unknown */
u64 hostinfo_total_mem_kb(void);
/* HEADER_CPU_TOPOLOGY: package, core and die lists, core and package ids */
void hostinfo_topology(struct pbuf *b);
/* HEADER_PMU_MAPPINGS: type and name of each event_source device */
void hostinfo_pmu_mappings(struct pbuf *b);
/* Mount point of tracefs with an events/ directory, or NULL. */
const char *tracefs_path(void);

#endif
