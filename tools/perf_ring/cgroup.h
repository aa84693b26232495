/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup.h: -G's cgroups by name (cgroup.c).
 */
#ifndef PERF_RING_CGROUP_H
#define PERF_RING_CGROUP_H

#include <stdbool.h>
#include <stddef.h>

/* -G NAME: open its cgroup directory; the fd, or -errno with a message (fail.h). */
int cgroup_open(const char *name);
/* -G LIST: event i's cgroup name into buf; false when it has none. */
bool cgroup_name(const char *list, int i, char *buf, size_t size);

#endif
