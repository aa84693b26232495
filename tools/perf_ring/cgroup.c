// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup.c: -G's cgroups, by name: the list's name for each event and the
 * directory perf_event_open() takes as its pid with PERF_FLAG_PID_CGROUP.
 * The parser checks them with these, the event list opens them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "cgroup.h"
#include "fail.h"

/* -G NAME: NAME under the cgroup2 mount (or cgroup v1's perf_event hierarchy) */
int cgroup_open(const char *name)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[4096], type[64], opts[1024], path[8192];
	int fd;

	if (!f)
		return fail_set(-errno, "-G %s: /proc/self/mounts: %s", name, strerror(errno));
	dir[0] = 0;
	while (fscanf(f, "%255s %4095s %63s %1023s %*d %*d", dev, dir, type, opts) == 4) {
		if (!strcmp(type, "cgroup2") ||
		    (!strcmp(type, "cgroup") && strstr(opts, "perf_event")))
			break;
		dir[0] = 0;
	}
	fclose(f);
	if (!dir[0])
		return fail_set(-ENOENT, "-G %s: no cgroup2 or perf_event cgroup mount", name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail_set(-errno, "no access to cgroup %s: %s", path, strerror(errno));
	return fd;
}

/*
 * -G A,B,...: as perf's parse_cgroups(), the i-th name is the i-th event's
 * (of those defined before -G); one name is every one's; an empty name, or
 * none left, leaves an event without (false).
 */
bool cgroup_name(const char *list, int i, char *buf, size_t size)
{
	const char *p = list;
	size_t len;

	if (!strchr(list, ','))
		i = 0;
	for (; i > 0 && p; i--) {
		p = strchr(p, ',');
		if (p)
			p++;
	}
	if (!p)
		return false;
	len = strcspn(p, ",");
	if (!len || len >= size)
		return false;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return true;
}
