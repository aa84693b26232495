// SPDX-License-Identifier: GPL-2.0
/*
 * Does the running kernel have write_backward and PAUSE_OUTPUT? On a
 * kernel without them, write_backward=1 is a reserved bit (EINVAL) and
 * PERF_EVENT_IOC_PAUSE_OUTPUT is an unknown ioctl (ENOTTY): the tests skip
 * with that reason. Any other error is a failure. These use a user-only
 * software event, so they also run unprivileged.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>

#include "rb_harness.h"

TEST(write_backward_accepted)
{
	char why[RB_WHY_LEN] = "";
	int has = rb_has_backward(why, sizeof(why));

	if (has == 0 || has == -EACCES)
		SKIP(return, "%s", why);
	ASSERT_EQ(1, has) TH_LOG("%s", why);
	ksft_print_msg("perf_event_open with write_backward=1 succeeds\n");
}

TEST(pause_output_ioctl)
{
	char why[RB_WHY_LEN] = "";
	int has = rb_has_pause(why, sizeof(why));

	if (has == 0 || has == -EACCES)
		SKIP(return, "%s", why);
	ASSERT_EQ(1, has) TH_LOG("%s", why);
	ksft_print_msg("PERF_EVENT_IOC_PAUSE_OUTPUT 1 then 0 on a mapped event succeeds\n");
}

TEST_HARNESS_MAIN
