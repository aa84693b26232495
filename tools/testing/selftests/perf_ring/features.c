// SPDX-License-Identifier: GPL-2.0
/*
 * Does the running kernel have the backward ring buffer series? On a
 * kernel without it, write_backward=1 is a reserved bit (EINVAL) and
 * PERF_EVENT_IOC_PAUSE_OUTPUT is an unknown ioctl (ENOTTY): the tests skip
 * with that reason. Any other error is a failure. These use a user-only
 * software event, so they also run unprivileged.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <string.h>

#include "perf_ring_harness.h"

static __u64 bit(unsigned int n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return 1ULL << n;
#else
	return 1ULL << (63 - n);
#endif
}

TEST(attr_flag_word_layout)
{
	struct perf_event_attr attr;

	/* The named bits around write_backward sit where the suite expects. */
	memset(&attr, 0, sizeof(attr));
	attr.inherit = 1;
	ASSERT_EQ(bit(1), *pr_attr_flags_word(&attr));
	memset(&attr, 0, sizeof(attr));
	attr.context_switch = 1;
	ASSERT_EQ(bit(PR_CONTEXT_SWITCH_BIT), *pr_attr_flags_word(&attr));

	/* Setting write_backward through the word touches no named neighbour. */
	memset(&attr, 0, sizeof(attr));
	pr_attr_set_backward(&attr);
	ASSERT_EQ(bit(PR_WRITE_BACKWARD_BIT), *pr_attr_flags_word(&attr));
	ASSERT_EQ(0, (int)attr.context_switch);
	ASSERT_EQ(0, (int)attr.use_clockid);
	ASSERT_EQ(0ULL, attr.read_format);
	ASSERT_EQ(0U, attr.wakeup_events);
	TH_LOG("flags word at offset %zu; context_switch is bit %d, write_backward bit %d",
	       offsetof(struct perf_event_attr, read_format) + sizeof(attr.read_format),
	       PR_CONTEXT_SWITCH_BIT, PR_WRITE_BACKWARD_BIT);
}

TEST(write_backward_accepted)
{
	char why[PR_WHY_LEN] = "";
	int has = pr_has_backward(why, sizeof(why));

	if (has == 0 || has == -EACCES)
		SKIP(return, "%s", why);
	ASSERT_EQ(1, has) TH_LOG("%s", why);
	TH_LOG("perf_event_open with write_backward=1 succeeds");
}

TEST(pause_output_ioctl)
{
	char why[PR_WHY_LEN] = "";
	int has = pr_has_pause(why, sizeof(why));

	if (has == 0 || has == -EACCES)
		SKIP(return, "%s", why);
	ASSERT_EQ(1, has) TH_LOG("%s", why);
	TH_LOG("PERF_EVENT_IOC_PAUSE_OUTPUT 1 then 0 on a mapped event succeeds");
}

TEST_HARNESS_MAIN
