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

/* @ret from a pr_* set-up helper: 0 goes on, PR_SKIP skips, else fails. */
#define PR_REQUIRE(ret, why) do {					\
	int __pr_ret = (ret);						\
	if (__pr_ret == PR_SKIP)					\
		SKIP(return, "%s", (why));				\
	ASSERT_EQ(0, __pr_ret) TH_LOG("%s", (why));			\
} while (0)

/* Skip unless the kernel has the feature @probe looks for. */
#define PR_NEED(probe) do {						\
	char __pr_why[PR_WHY_LEN] = "";					\
	int __pr_has = probe(__pr_why, sizeof(__pr_why));		\
	if (__pr_has == 0 || __pr_has == -EACCES)			\
		SKIP(return, "%s", __pr_why);				\
	ASSERT_EQ(1, __pr_has) TH_LOG("%s", __pr_why);			\
} while (0)

#define PR_NEED_BACKWARD()	PR_NEED(pr_has_backward)
#define PR_NEED_PAUSE()		PR_NEED(pr_has_pause)

/*
 * The four ring modes as fixture variants: direction (write_backward)
 * crossed with the mapping (PROT_WRITE or read-only, i.e. overwrite).
 */
#define PR_RING_MODE_VARIANTS(f)					\
	FIXTURE_VARIANT(f) {						\
		bool backward;						\
		bool overwrite;						\
	};								\
	FIXTURE_VARIANT_ADD(f, forward_writable) {			\
		.backward = false, .overwrite = false,			\
	};								\
	FIXTURE_VARIANT_ADD(f, forward_overwrite) {			\
		.backward = false, .overwrite = true,			\
	};								\
	FIXTURE_VARIANT_ADD(f, backward_writable) {			\
		.backward = true, .overwrite = false,			\
	};								\
	FIXTURE_VARIANT_ADD(f, backward_overwrite) {			\
		.backward = true, .overwrite = true,			\
	}

static inline const char *pr_mode_name(bool backward, bool overwrite)
{
	if (backward)
		return overwrite ? "backward overwrite" : "backward writable";
	return overwrite ? "forward overwrite" : "forward writable";
}

#endif /* PERF_RING_HARNESS_H */
