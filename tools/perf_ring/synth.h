/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthesis of COMM, FORK and MMAP2 records for threads that exist before
 * recording starts, and of the kernel map, so that perf can name the
 * command and DSO of every sample.  Work is split over several threads,
 * each filling its own buffer; the buffers are joined in a fixed order so
 * the result does not depend on the number of threads.
 */
#ifndef PERF_RING_SYNTH_H
#define PERF_RING_SYNTH_H

#include <sys/types.h>
#include "perfdata.h"

/* Bytes of the sample_id trailer that non-sample records carry. */
u32 synth_id_hdr_size(u64 sample_type);

int synth_kernel_mmap(struct pbuf *out, u32 id_hdr);

struct synth_result {
	u64 nr_procs, nr_threads, nr_comm, nr_fork, nr_mmap2;
	u64 nr_unseen;		/* processes the BPF task iterator did not list */
	u64 ns;			/* wall time */
	char how[160];		/* which path listed the threads, and why */
};

/*
 * Also synthesize the maps that are not executable (PERF_RECORD_MISC_MMAP_DATA),
 * as the kernel reports them with attr.mmap_data: DWARF unwinding reads
 * .eh_frame_hdr and .eh_frame from them.
 */
void synth_set_data_maps(bool on);

/*
 * perf's --synth kinds: without maps (--synth=task), only COMM and FORK;
 * with namespaces (--namespaces), a NAMESPACES record for each thread
 * too, between its FORK and COMM as perf writes them.
 */
void synth_set_maps(bool on);
void synth_set_namespaces(bool on);

/*
 * --proc-map-timeout MS (perf's default 500): a process whose maps take
 * longer to read gets one more, flagged PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT,
 * and no more; with a warning that names it.
 */
void synth_set_map_timeout(unsigned int ms);

/*
 * --all-cgroups: a CGROUP record (id, path under the mount, "/" for the
 * root) for each cgroup of the cgroup2 hierarchy, whose ids the samples'
 * PERF_SAMPLE_CGROUP carry.  0, or a negative errno (no cgroup2 mount).
 * *nr counts the records.
 */
int synth_cgroups(struct pbuf *out, u32 id_hdr, u64 *nr);

/*
 * Read the maps from the text of /proc/PID/maps even where the kernel has
 * the PROCMAP_QUERY ioctl (Linux 6.11+), which is used by default.
 */
void synth_set_maps_text(bool on);

/*
 * How the threads and their comm are listed (synth.c): SYNTH_AUTO, the
 * BPF task iterator for the whole system when it has 400 threads or more,
 * else /proc, and /proc for a list of processes; SYNTH_ITER, the iterator
 * for all of these; SYNTH_PROC, /proc only.
 * Where the iterator cannot be used (no BTF, no CAP_BPF and CAP_PERFMON,
 * an old kernel, a pid namespace), /proc; synth_result.how says which.
 */
enum { SYNTH_AUTO, SYNTH_ITER, SYNTH_PROC };

void synth_set_method(int method);

/*
 * The method from PERF_RING_SYNTH (auto, iter or proc; unset is auto):
 * 0, or -EINVAL after a message naming the bad value.
 */
int synth_parse_env(void);

/* pids == NULL: every process in /proc.  Appends records to out. */
int synth_threads(const pid_t *pids, int npids, int nthreads, u32 id_hdr,
		  struct pbuf *out, struct synth_result *res);

#endif
