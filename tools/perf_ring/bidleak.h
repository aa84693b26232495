/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Does the running kernel leak the MMAP2 build-id flag?  Some kernels set
 * PERF_RECORD_MISC_MMAP_BUILD_ID in the mmap record they share between
 * the events that see one mmap, for the first event that asks for
 * build-ids (attr.build_id), and do not clear it again: every event
 * handed the record after it gets the flag too, over a body that holds
 * the device and inode, not a build-id.  perf record running beside a
 * recorder that asks for build-ids then reads garbage as build-ids (perf
 * 6.1 aborts).  Where that is so, perf-ring does not ask, and reads the
 * build-ids from the files' ELF notes instead.
 */
#ifndef PERF_RING_BIDLEAK_H
#define PERF_RING_BIDLEAK_H

/*
 * Probe it on the calling thread: dummy events without build-ids opened
 * before and after one with them, an executable mapping of a file, and
 * the others' MMAP2 records looked at.  1: it leaks, 0: it does not,
 * -EOPNOTSUPP: the kernel has no attr.build_id (before 5.12), other
 * -errno: the probe could not tell.
 */
int bidleak_probe(void);

#endif
