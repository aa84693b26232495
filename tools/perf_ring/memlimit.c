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
#include <dirent.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/capability.h>
#include <linux/magic.h>

#include "fail.h"
#include "memlimit.h"
#include "testhooks.h"

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

	if (testhooks()->no_memlimit)
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

/* ---- the limits at scale (memlimit.h) ---- */

static long read_long(const char *path, long dflt)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return dflt;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return dflt;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* this process's open file descriptors, or -1 */
static long count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	long n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

/* this process's mappings, or -1 */
static long count_maps(void)
{
	char buf[65536];
	long n = 0;
	ssize_t r;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	close(fd);
	return n;
}

static u64 rlim_u64(rlim_t v)
{
	return v == RLIM_INFINITY ? UINT64_MAX : (u64)v;
}

int scale_sys_read(struct scale_sys *s)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[2] = { 0 };
	struct rlimit r;

	memset(s, 0, sizeof(*s));
	s->page = sysconf(_SC_PAGESIZE);
	s->open_fds = count_fds();
	if (getrlimit(RLIMIT_NOFILE, &r))
		return -errno;
	s->nofile_cur = rlim_u64(r.rlim_cur);
	s->nofile_max = rlim_u64(r.rlim_max);
	s->nr_open = read_long("/proc/sys/fs/nr_open", 1 << 20);
	if (!syscall(SYS_capget, &h, c)) {
		s->sys_resource = c[CAP_SYS_RESOURCE / 32].effective & (1u << (CAP_SYS_RESOURCE % 32));
		s->ipc_lock = c[CAP_IPC_LOCK / 32].effective & (1u << (CAP_IPC_LOCK % 32));
	}
	s->paranoid = read_long("/proc/sys/kernel/perf_event_paranoid", 2);
	s->mlock_kb = read_long("/proc/sys/kernel/perf_event_mlock_kb", 516);
	s->online_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (getrlimit(RLIMIT_MEMLOCK, &r))
		return -errno;
	s->memlock_cur = rlim_u64(r.rlim_cur);
	s->maps_now = count_maps();
	s->max_map_count = read_long("/proc/sys/vm/max_map_count", 65530);
	return 0;
}

int scale_fds(const struct scale_sys *s, const struct scale_need *n, u64 *want,
	      char *buf, size_t len)
{
	u64 events = (u64)n->ncpu * n->nthr * n->nev;
	int reserve = SCALE_FD_RESERVE + SCALE_FD_PER_SYNTH * (n->nsynth > 0 ? n->nsynth : 1);

	*want = events + (s->open_fds > 0 ? s->open_fds : 0) + reserve;
	if (*want <= s->nofile_cur)
		return 0;
	if (*want <= s->nofile_max)
		return 1;
	if (s->sys_resource && *want <= s->nr_open)
		return 2;
	snprintf(buf, len, "%d event%s x %d CPU%s x %d thread%s need %llu file descriptors "
		 "(%llu for the events, %ld open now, %d for the output and synthesis); RLIMIT_NOFILE "
		 "allows "
		 "%llu (hard limit%s): raise it (ulimit -n %llu, prlimit --nofile=%llu, "
		 "LimitNOFILE= for a service), or record fewer CPUs (-C), threads or events",
		 n->nev, n->nev > 1 ? "s" : "", n->ncpu, n->ncpu > 1 ? "s" : "",
		 n->nthr, n->nthr > 1 ? "s" : "", (unsigned long long)*want,
		 (unsigned long long)events, s->open_fds, reserve,
		 (unsigned long long)s->nofile_max,
		 s->sys_resource ? "; above fs.nr_open, the most it can be raised to" :
				   "; raising it needs CAP_SYS_RESOURCE",
		 (unsigned long long)*want, (unsigned long long)*want);
	return -EMFILE;
}

/* bytes a buffer locks: its pages and the control page */
static u64 locked(const struct scale_sys *s, u64 bytes)
{
	return bytes + s->page;
}

int scale_mlock(const struct scale_sys *s, const struct scale_need *n, char *buf, size_t len)
{
	u64 side = n->nsb * locked(s, n->sb_bytes) + n->ntrig * locked(s, n->trig_bytes);
	u64 need = n->nrings * locked(s, n->ring_bytes) + side;
	u64 user = s->mlock_kb * 1024 * (u64)(s->online_cpus > 0 ? s->online_cpus : 1);
	u64 allowed, fit = 0;
	char hint[96];

	if (s->ipc_lock || s->paranoid <= -1 || s->memlock_cur == UINT64_MAX)
		return 0;
	allowed = user + s->memlock_cur;
	if (need <= allowed)
		return 0;
	/* the largest -m that fits: a power of two pages */
	if (n->nrings && allowed > side && (allowed - side) / n->nrings > (u64)s->page) {
		u64 per = (allowed - side) / n->nrings - s->page;

		for (fit = s->page; fit * 2 <= per; fit *= 2)
			;
		if (fit > per)
			fit = 0;
	}
	if (fit)
		snprintf(hint, sizeof(hint), "-m %lluK fits if no other recording of the user "
			 "locks buffers", (unsigned long long)fit >> 10);
	else
		snprintf(hint, sizeof(hint), "no -m fits: record fewer CPUs (-C)");
	snprintf(buf, len, "the ring buffers need %llu kB locked: %d x (%llu kB, -m, + %ld kB)%s; "
		 "without CAP_IPC_LOCK, at perf_event_paranoid %d, the kernel allows "
		 "perf_event_mlock_kb (%llu kB) x %d online CPUs = %llu kB per user, and "
		 "RLIMIT_MEMLOCK (%llu kB) more per process: %s, or raise "
		 "/proc/sys/kernel/perf_event_mlock_kb or RLIMIT_MEMLOCK (ulimit -l)",
		 (unsigned long long)need >> 10, n->nrings,
		 (unsigned long long)n->ring_bytes >> 10, s->page >> 10,
		 side ? " and the side-band and trigger buffers" : "", s->paranoid,
		 (unsigned long long)s->mlock_kb, s->online_cpus, (unsigned long long)user >> 10,
		 (unsigned long long)s->memlock_cur >> 10, hint);
	return -EPERM;
}

int scale_maps(const struct scale_sys *s, const struct scale_need *n, char *buf, size_t len)
{
	long need = n->nrings + n->nsb + n->ntrig;
	long now = s->maps_now > 0 ? s->maps_now : 0;

	if (now + need + SCALE_MAP_RESERVE <= s->max_map_count)
		return 0;
	snprintf(buf, len, "%ld ring buffers need %ld mappings beside the %ld in use and %d for "
		 "libraries and files; vm.max_map_count is %ld: raise it (sysctl "
		 "vm.max_map_count=%ld) or record fewer CPUs (-C)", need, need, now,
		 SCALE_MAP_RESERVE, s->max_map_count, now + need + SCALE_MAP_RESERVE);
	return -ENOMEM;
}

int scale_check(const struct scale_need *n, bool verbose)
{
	struct scale_sys s;
	char msg[768];
	u64 want;
	int err = scale_sys_read(&s);

	if (err)
		return fail_set(err, "reading the resource limits: %s", strerror(-err));
	err = scale_fds(&s, n, &want, msg, sizeof(msg));
	if (err < 0)
		return fail_set(err, "%s", msg);
	if (err) {
		struct rlimit r = { .rlim_cur = s.nofile_max, .rlim_max = s.nofile_max };

		if (err == 2)
			r.rlim_cur = r.rlim_max = want;
		if (setrlimit(RLIMIT_NOFILE, &r))
			return fail_set(-errno, "raising RLIMIT_NOFILE to %llu for %llu file "
					"descriptors: %s", (unsigned long long)r.rlim_cur,
					(unsigned long long)want, strerror(errno));
		if (verbose)
			fprintf(stderr, "perf-ring record: RLIMIT_NOFILE raised from %llu to %llu "
				"(%llu file descriptors needed)\n",
				(unsigned long long)s.nofile_cur, (unsigned long long)r.rlim_cur,
				(unsigned long long)want);
	}
	err = scale_mlock(&s, n, msg, sizeof(msg));
	if (!err)
		err = scale_maps(&s, n, msg, sizeof(msg));
	return err ? fail_set(err, "%s", msg) : 0;
}

const char *scale_mlock_hint(void)
{
	static char buf[320];
	struct rlimit r = { 0 };

	getrlimit(RLIMIT_MEMLOCK, &r);
	snprintf(buf, sizeof(buf), " (without CAP_IPC_LOCK: perf_event_mlock_kb %ld kB x %ld "
		 "online CPUs per user, shared with the user's other recordings, and "
		 "RLIMIT_MEMLOCK %llu kB per process; see LIMITS AT SCALE in "
		 "perf-ring-record(1))", read_long("/proc/sys/kernel/perf_event_mlock_kb", 516),
		 sysconf(_SC_NPROCESSORS_ONLN), (unsigned long long)rlim_u64(r.rlim_cur) >> 10);
	return buf;
}
