/* SPDX-License-Identifier: GPL-2.0 */
/* What the stand-alone benchmark programs in bench/ share. */
#ifndef PERF_RING_BENCH_H
#define PERF_RING_BENCH_H

#include <errno.h>
#include <stdio.h>

/*
 * The id of tracepoint "system/name" from tracefs (or its debugfs mount):
 * the id, -ENOENT when neither has it, -EINVAL when the file is not a number.
 */
static inline int bench_tracepoint_id(const char *name)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events",
	};
	char path[256];

	for (unsigned int i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		FILE *f;
		int id;

		snprintf(path, sizeof(path), "%s/%s/id", roots[i], name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%d", &id) != 1)
			id = -EINVAL;
		fclose(f);
		return id;
	}
	return -ENOENT;
}

#endif
