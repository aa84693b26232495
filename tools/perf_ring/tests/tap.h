/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP output for the unit tests. */
#ifndef PERF_RING_TAP_H
#define PERF_RING_TAP_H

#include <stdio.h>
#include <stdlib.h>

/* Scratch files go to $PERF_RING_TMP (the build directory), else to ".". */
static inline void tap_tmpname(char *buf, size_t len, const char *stem)
{
	const char *d = getenv("PERF_RING_TMP");

	snprintf(buf, len, "%s/%s-XXXXXX", d && *d ? d : ".", stem);
}

static int tap_n, tap_fail;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("#   %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__);					\
		printf("\n");						\
		return -1;						\
	}								\
} while (0)

static inline void tap_run(const char *name, int (*fn)(void))
{
	int r = fn();

	tap_n++;
	if (r)
		tap_fail++;
	printf("%s %d - %s\n", r ? "not ok" : "ok", tap_n, name);
	fflush(stdout);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_fail)
		printf("# %d of %d failed\n", tap_fail, tap_n);
	return tap_fail ? 1 : 0;
}

#endif
