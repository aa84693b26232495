// SPDX-License-Identifier: GPL-2.0
/* The first fatal error of a command (fail.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "fail.h"

static int first_err;
static char first_msg[512];

int fail_set(int err, const char *fmt, ...)
{
	va_list ap;

	if (first_err)
		return first_err;
	first_err = err ? err : -EIO;
	va_start(ap, fmt);
	vsnprintf(first_msg, sizeof(first_msg), fmt, ap);
	va_end(ap);
	return first_err;
}

int fail_err(void)
{
	return first_err;
}

const char *fail_msg(void)
{
	return first_msg;
}

void fail_reset(void)
{
	first_err = 0;
	first_msg[0] = '\0';
}
