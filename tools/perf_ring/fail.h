/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The first fatal error of a command and what failed.  Code deep down
 * records it where the cause is known, returns the negative errno, and the
 * command reports the message once, at the top.
 */
#ifndef PERF_RING_FAIL_H
#define PERF_RING_FAIL_H

/* Keep err (negative errno, 0 means -EIO) and its message, unless an
 * earlier failure was kept.  Returns the error that is kept now. */
int fail_set(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fail_err(void);		/* 0: nothing failed */
const char *fail_msg(void);	/* "" when nothing failed */
/* Forget the failure kept: for a command run again in one process (the fuzzers). */
void fail_reset(void);

#endif
