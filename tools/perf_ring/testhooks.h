/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The switches that tests, benchmarks and the fault runs set in the
 * environment, read here and nowhere else: one place says what a build
 * of perf-ring can be told to do differently from what its options say.
 *
 * They are compiled into every build, not only into test builds, on
 * purpose: each is used on the binary that ships, and a separate build
 * would test something else.  The benchmarks compare the same binary
 * with and without the idle flush (PERF_RING_NO_IDLE_FLUSH), the fault
 * runs inject failures into the static binary the guest runs
 * (PERF_RING_MAKE_IT_FAIL), and the others are documented for users
 * (Documentation/admin-guide/perf-ring.rst).  Unset, none changes
 * anything; each is read once, on first use.
 *
 *   PERF_RING_NO_FORMAT_LOST  answer perf_event_open() as a kernel without
 *                             PERF_FORMAT_LOST does (evlist.c)
 *   PERF_RING_NO_MEMLIMIT     no memory limit checks (memlimit.c)
 *   PERF_RING_NO_IDLE_FLUSH   no 0.5 s flush of a stream at low rates
 *                             (sink-stream.c)
 *   PERF_RING_SYNTH           auto, iter or proc: how the existing
 *                             threads are listed (synth.c)
 *   PERF_RING_MAKE_IT_FAIL    1 or running: the kernel's fault injection
 *                             marks perf-ring's threads (inject_faults())
 *   PERF_RING_BIDLEAK         0 or 1: the kernel leaks the MMAP2 build-id
 *                             flag or not, instead of probing (evlist.c)
 *
 * PERF_RING_TRACEFS is the selftests' (perf_ring_lib.c), not perf-ring's.
 */
#ifndef PERF_RING_TESTHOOKS_H
#define PERF_RING_TESTHOOKS_H

#include <stdbool.h>

struct testhooks {
	bool no_format_lost;
	bool no_memlimit;
	bool no_idle_flush;
	const char *synth;		/* NULL: not set */
	const char *make_it_fail;	/* NULL: not set */
	const char *bidleak;		/* NULL: not set */
};

/* The switches, read from the environment on the first call. */
const struct testhooks *testhooks(void);

/*
 * PERF_RING_MAKE_IT_FAIL: mark perf-ring's threads for the kernel's
 * fault injection at FAULTS_START (mode "1") or FAULTS_RUNNING (mode
 * "running"), and unmark them at FAULTS_OFF.  Nothing when it is unset.
 */
enum faults_at { FAULTS_OFF, FAULTS_START, FAULTS_RUNNING };
void inject_faults(enum faults_at at);

#endif
