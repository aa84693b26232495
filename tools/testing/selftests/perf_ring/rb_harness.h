/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Glue between rb_lib and kselftest_harness.h: turn the helpers'
 * results into SKIP (missing feature or privilege, with the reason) or a
 * failed assertion (anything unexpected). Includes the harness itself.
 */
#ifndef RB_HARNESS_H
#define RB_HARNESS_H

#include "../kselftest_harness.h"

#include "rb_lib.h"

/* Record types as the unsigned values the decoder stores. */
#define RB_SAMPLE	((__u32)PERF_RECORD_SAMPLE)
#define RB_LOST		((__u32)PERF_RECORD_LOST)

/*
 * @ret from a rb_* set-up helper: 0 goes on, RB_SKIP skips the test with
 * the reason, anything else fails it. @statement is what SKIP() runs
 * after marking the test skipped: "return" in FIXTURE_SETUP(), TEST_F()
 * and TEST() bodies, and in helpers that return void.
 */
#define RB_REQUIRE(statement, ret, why) do {				\
	int __rb_ret = (ret);						\
	const char *__rb_why = (why);					\
	if (__rb_ret == RB_SKIP)					\
		SKIP(statement, "%s", __rb_why);			\
	ASSERT_EQ(0, __rb_ret) TH_LOG("%s", __rb_why);			\
} while (0)

/* Skip (then run @statement) unless the kernel has what @probe tests. */
#define RB_NEED(statement, probe) do {					\
	char __rb_why[RB_WHY_LEN] = "";					\
	int __rb_has = probe(__rb_why, sizeof(__rb_why));		\
	if (__rb_has == 0 || __rb_has == -EACCES)			\
		SKIP(statement, "%s", __rb_why);			\
	ASSERT_EQ(1, __rb_has) TH_LOG("%s", __rb_why);			\
} while (0)

#define RB_NEED_BACKWARD(statement)	RB_NEED(statement, rb_has_backward)
#define RB_NEED_PAUSE(statement)	RB_NEED(statement, rb_has_pause)

/*
 * The four ring modes are fixture variants of ring_layout and pause:
 * direction (write_backward) crossed with the mapping (PROT_WRITE or
 * read-only, i.e. overwrite).
 */
static inline const char *rb_mode_name(bool backward, bool overwrite)
{
	if (backward)
		return overwrite ? "backward overwrite" : "backward writable";
	return overwrite ? "forward overwrite" : "forward writable";
}

#endif /* RB_HARNESS_H */
