// SPDX-License-Identifier: GPL-2.0
/*
 * The memory cgroup's limit (memlimit.h).  The cgroup comes from
 * /proc/self/cgroup, its mount from /proc/self/mountinfo; v2 is used when
 * its memory controller is on for this cgroup, else v1's memory hierarchy.
 * Each level from the cgroup up to the mount's root that has the limit's
 * file keeps three open files, re-read with pread() from 0 (cgroup files
 * are generated on each read), limit included: a limit set or lowered
 * while perf-ring records is seen at the next check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "fail.h"
#include "memlimit.h"

#define MAX_LEVELS 16
/* v1 writes "no limit" as the page counter's maximum, about 2^63 */
#define V1_UNLIMITED (1ULL << 62)

struct level {
	char name[256];			/* the cgroup's path below the mount */
	int max_fd, cur_fd, stat_fd;
};

static struct {
	bool on, v2;
	int n;
	struct level lv[MAX_LEVELS];
	char desc[512];
} ml = { .n = 0 };

static int read_u64(int fd, u64 *v, bool *unlimited)
{
	char buf[64];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *end;

	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	if (unlimited)
		*unlimited = !strncmp(buf, "max", 3);
	if (unlimited && *unlimited)
		return 0;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	if (unlimited)
		*unlimited = *v >= V1_UNLIMITED;
	return 0;
}

/* active_file + inactive_file of memory.stat (v1: its total_ lines) */
static u64 reclaimable(int fd)
{
	char buf[8192];
	const char *a = ml.v2 ? "active_file " : "total_active_file ";
	const char *i = ml.v2 ? "inactive_file " : "total_inactive_file ";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	u64 sum = 0;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, a, strlen(a)))
			sum += strtoull(l + strlen(a), NULL, 10);
		else if (!strncmp(l, i, strlen(i)))
			sum += strtoull(l + strlen(i), NULL, 10);
	}
	return sum;
}

/*
 * The cgroup of this process in the hierarchy (v2: "0::PATH"; v1: the line
 * whose controllers name "memory"), and the mount point of that hierarchy
 * with the mount's own root taken off PATH.
 */
static int find_dir(bool v2, char *dir, size_t len, size_t *mnt_len)
{
	char *cg = NULL, *mi = NULL, path[4096] = "";
	int found = 0;

	if (read_text_file("/proc/self/cgroup", &cg, NULL))
		return 0;
	for (char *l = strtok(cg, "\n"); l; l = strtok(NULL, "\n")) {
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char ctl[256];

		if (!c2)
			continue;
		snprintf(ctl, sizeof(ctl), ",%.*s,", (int)(c2 - c1 - 1), c1 + 1);
		if (v2 ? !strncmp(l, "0::", 3) : strstr(ctl, ",memory,") != NULL) {
			snprintf(path, sizeof(path), "%s", c2 + 1);
			break;
		}
	}
	free(cg);
	if (!path[0] || read_text_file("/proc/self/mountinfo", &mi, NULL))
		return 0;
	for (char *l = strtok(mi, "\n"); l && !found; l = strtok(NULL, "\n")) {
		char root[1024], mnt[1024], fstype[64], super[512];
		const char *sep = strstr(l, " - ");
		size_t rl;

		if (!sep || sscanf(l, "%*s %*s %*s %1023s %1023s", root, mnt) != 2 ||
		    sscanf(sep + 3, "%63s %*s %511s", fstype, super) != 2)
			continue;
		if (strcmp(fstype, v2 ? "cgroup2" : "cgroup"))
			continue;
		if (!v2) {
			char opts[520];

			snprintf(opts, sizeof(opts), ",%s,", super);
			if (!strstr(opts, ",memory,"))
				continue;
		}
		/* the cgroup must be at or below the mount's root */
		rl = strcmp(root, "/") ? strlen(root) : 0;
		if (rl && (strncmp(path, root, rl) || (path[rl] && path[rl] != '/')))
			continue;
		snprintf(dir, len, "%s%s", mnt, strcmp(path + rl, "/") ? path + rl : "");
		*mnt_len = strlen(mnt);
		found = 1;
	}
	free(mi);
	return found;
}

static int open_at(const char *dir, const char *name)
{
	char p[4400];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return open(p, O_RDONLY | O_CLOEXEC);
}

/*
 * Every level from dir up to the mount point, itself included (in a
 * container the mount's root is the container's cgroup), that has a limit
 * file, whether it limits now or not.
 */
static void add_levels(char *dir, size_t mnt_len)
{
	const char *fmax = ml.v2 ? "memory.max" : "memory.limit_in_bytes";
	const char *fcur = ml.v2 ? "memory.current" : "memory.usage_in_bytes";

	while (strlen(dir) >= mnt_len && ml.n < MAX_LEVELS) {
		struct level *l = &ml.lv[ml.n];
		bool unl = true;
		u64 v;
		char *slash;

		l->max_fd = open_at(dir, fmax);
		if (l->max_fd >= 0 && !read_u64(l->max_fd, &v, &unl)) {
			l->cur_fd = open_at(dir, fcur);
			l->stat_fd = open_at(dir, "memory.stat");
			if (l->cur_fd >= 0) {
				snprintf(l->name, sizeof(l->name), "%s", dir + mnt_len);
				ml.n++;
				l = NULL;
			}
		}
		if (l) {
			if (l->max_fd >= 0)
				close(l->max_fd);
		}
		slash = strrchr(dir, '/');
		if (strlen(dir) == mnt_len || !slash)
			break;
		*slash = '\0';
	}
}

int memlimit_init(void)
{
	char dir[4096];
	size_t mnt_len;

	if (getenv("PERF_RING_NO_MEMLIMIT"))
		return 0;
	/* v2, when this cgroup has the memory controller (memory.current) */
	if (find_dir(true, dir, sizeof(dir), &mnt_len)) {
		int fd = open_at(dir, "memory.current");

		if (fd >= 0) {
			close(fd);
			ml.v2 = true;
			add_levels(dir, mnt_len);
		}
	}
	if (!ml.v2 && find_dir(false, dir, sizeof(dir), &mnt_len))
		add_levels(dir, mnt_len);
	ml.on = ml.n > 0;
	return 0;
}

bool memlimit_on(void)
{
	return ml.on;
}

/*
 * The room at one level; *max and *cur for messages.  memory.stat is long
 * and slow to generate, so the reclaimable page cache is read only when
 * the limit less the usage is short of want.
 */
static int64_t level_room(const struct level *l, int64_t want, u64 *max, u64 *cur)
{
	int64_t room;
	bool unl;

	if (read_u64(l->max_fd, max, &unl) || unl || read_u64(l->cur_fd, cur, NULL))
		return INT64_MAX;
	room = (int64_t)*max - (int64_t)*cur;
	if (room < want && l->stat_fd >= 0)
		room += (int64_t)reclaimable(l->stat_fd);
	return room;
}

static int64_t room_at(int64_t want, int *which, u64 *max, u64 *cur)
{
	int64_t room = INT64_MAX;

	for (int i = 0; i < ml.n; i++) {
		u64 m = 0, c = 0;
		int64_t r = level_room(&ml.lv[i], want, &m, &c);

		if (r < room) {
			room = r;
			*which = i;
			*max = m;
			*cur = c;
		}
	}
	return room;
}

int64_t memlimit_room(void)
{
	u64 max, cur;
	int which;

	return ml.on ? room_at(INT64_MAX, &which, &max, &cur) : INT64_MAX;
}

int memlimit_check(u64 need, const char *what)
{
	char b_need[32], b_cur[32], b_room[32];
	int which = 0;
	u64 max = 0, cur = 0;
	int64_t room;

	if (!ml.on)
		return 0;
	room = room_at(need + MEMLIMIT_RESERVE, &which, &max, &cur);
	if (room >= (int64_t)(need + MEMLIMIT_RESERVE))
		return 0;
	fmt_bytes(b_need, sizeof(b_need), need + MEMLIMIT_RESERVE);
	fmt_bytes(b_cur, sizeof(b_cur), cur);
	fmt_bytes(b_room, sizeof(b_room), room > 0 ? room : 0);
	return fail_set(-ENOMEM, "%s may need up to %s more memory, but cgroup %s has %s left "
			"(%s %llu bytes, %s in use): stopped before the OOM killer would; "
			"raise the limit%s", what, b_need, ml.lv[which].name[0] ? ml.lv[which].name : "/",
			b_room, ml.v2 ? "memory.max" : "memory.limit_in_bytes",
			(unsigned long long)max, b_cur, " or record less (-m, -z, fewer events)");
}

bool memlimit_memfs(const char *path)
{
	char dir[4096];
	struct statfs sf;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (statfs(dir, &sf))
		return false;
	/*
	 * f_type is a signed word, an int on i386, where RAMFS_MAGIC (above
	 * INT_MAX) reads negative: compare the magic's 32 bits.
	 */
	return (unsigned int)sf.f_type == TMPFS_MAGIC ||
	       (unsigned int)sf.f_type == RAMFS_MAGIC;
}

const char *memlimit_describe(void)
{
	char b_cur[32], b_room[32];
	int which = 0;
	u64 max = 0, cur = 0;
	int64_t room;

	if (!ml.on)
		return "";
	room = room_at(INT64_MAX, &which, &max, &cur);
	if (room == INT64_MAX)
		return "";		/* no level limits now */
	fmt_bytes(b_cur, sizeof(b_cur), cur);
	fmt_bytes(b_room, sizeof(b_room), room > 0 ? room : 0);
	snprintf(ml.desc, sizeof(ml.desc), "cgroup %s: %s %llu bytes, %s in use, %s free",
		 ml.lv[which].name[0] ? ml.lv[which].name : "/",
		 ml.v2 ? "memory.max" : "memory.limit_in_bytes", (unsigned long long)max,
		 b_cur, b_room);
	return ml.desc;
}
