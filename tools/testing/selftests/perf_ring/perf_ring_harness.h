/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Glue between perf_ring_lib and kselftest_harness.h: turn the helpers'
 * results into SKIP (missing feature or privilege, with the reason) or a
 * failed assertion (anything unexpected). Includes the harness itself.
 */
#ifndef PERF_RING_HARNESS_H
#define PERF_RING_HARNESS_H

/*
 * The harness macros expand into this file's functions: TEST() wrappers
 * take a variant argument they do not use, and TEST_F() wrappers keep
 * locals around setjmp() that gcc reports as clobbered although they are
 * not used after the longjmp. Those two warnings are off for the test
 * files; perf_ring_lib.c builds with everything on. The harness
 * header itself has an unused handler argument too.
 */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

#include "../kselftest_harness.h"

#include "perf_ring_lib.h"

/* Record types as the unsigned values the decoder stores. */
#define PR_SAMPLE	((__u32)PERF_RECORD_SAMPLE)
#define PR_LOST		((__u32)PERF_RECORD_LOST)

/*
 * A skip from inside a helper or a macro: the harness's own way out of a
 * test (the longjmp() a failed ASSERT takes), with the test marked skipped
 * rather than failed. Valid in FIXTURE_SETUP() and TEST_F() bodies.
 */
#define PR_SKIP_OUT(reason) SKIP(longjmp(_metadata->env, 1), "%s", (reason))

/* @ret from a pr_* set-up helper: 0 goes on, PR_SKIP skips, else fails. */
#define PR_REQUIRE(ret, why) do {					\
	int __pr_ret = (ret);						\
	const char *__pr_why = (why);					\
	if (__pr_ret == PR_SKIP)					\
		PR_SKIP_OUT(__pr_why);					\
	ASSERT_EQ(0, __pr_ret) TH_LOG("%s", __pr_why);			\
} while (0)

/* Skip unless the kernel has the feature @probe looks for. */
#define PR_NEED(probe) do {						\
	char __pr_why[PR_WHY_LEN] = "";					\
	int __pr_has = probe(__pr_why, sizeof(__pr_why));		\
	if (__pr_has == 0 || __pr_has == -EACCES)			\
		PR_SKIP_OUT(__pr_why);					\
	ASSERT_EQ(1, __pr_has) TH_LOG("%s", __pr_why);			\
} while (0)

#define PR_NEED_BACKWARD()	PR_NEED(pr_has_backward)
#define PR_NEED_PAUSE()		PR_NEED(pr_has_pause)

/*
 * The four ring modes are fixture variants of ring_layout and pause:
 * direction (write_backward) crossed with the mapping (PROT_WRITE or
 * read-only, i.e. overwrite).
 */
static inline const char *pr_mode_name(bool backward, bool overwrite)
{
	if (backward)
		return overwrite ? "backward overwrite" : "backward writable";
	return overwrite ? "forward overwrite" : "forward writable";
}

#endif /* PERF_RING_HARNESS_H */
