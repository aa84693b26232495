// SPDX-License-Identifier: GPL-2.0
/*
 * Safe file creation (safefile.h).  Everything is done relative to the
 * opened directory, so that the checks and the creation see the same
 * directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "safefile.h"
#include "util.h"

#define TMP_SUFFIX_LEN 10	/* ".tmpXXXXXX" */

/*
 * The process's umask, from /proc/self/status (umask() cannot read it
 * without setting it, and another thread may create a file meanwhile);
 * perf-ring never changes it.  -1 when it cannot be read.
 */
static int umask_read(void)
{
	char buf[2048];
	unsigned int m;
	const char *p;

	if (read_small_file("/proc/self/status", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "\nUmask:");
	if (!p || sscanf(p + 7, "%o", &m) != 1 || m > 0777)
		return -1;
	return (int)m;
}

/*
 * A file just made with O_CREAT has mode & ~umask: the fchmod() that
 * gives it mode is needed only when the umask takes a bit of mode away
 * (or is unknown).  A flight recorder makes a file a snapshot: the umask
 * is read once.  In a directory with a default ACL the kernel takes the
 * ACL's bits instead of the umask's: the mode can then be narrower than
 * asked (0400 for a default user::r--), never wider, as perf's own files
 * are (it makes no fchmod()).
 */
static bool umask_strips(mode_t mode)
{
	static int um = -2;
	int v = __atomic_load_n(&um, __ATOMIC_RELAXED);

	if (v == -2) {
		v = umask_read();
		__atomic_store_n(&um, v, __ATOMIC_RELAXED);
	}
	return v < 0 || (mode & (mode_t)v);
}

static void split(const char *path, char *dir, size_t dlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dlen, ".");
		*base = path;
	} else if (slash == path) {
		snprintf(dir, dlen, "/");
		*base = slash + 1;
	} else {
		snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
		*base = slash + 1;
	}
}

int safefile__createat(struct safefile *sf, int dir, const char *name, mode_t mode)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(name);
	int err = -EEXIST;

	sf->fd = -1;
	sf->dir = -1;
	if (!n || n > NAME_MAX - TMP_SUFFIX_LEN || strchr(name, '/'))
		return n ? -ENAMETOOLONG : -EINVAL;
	sf->dir = fcntl(dir, F_DUPFD_CLOEXEC, 3);
	if (sf->dir < 0)
		return -errno;
	memcpy(sf->name, name, n + 1);
	/* O_EXCL: an existing name, a link or a fifo among them, is never opened */
	for (int tries = 0; tries < 100 && err == -EEXIST; tries++) {
		unsigned char r[6];

		if (getrandom(r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
			/* no entropy yet: O_EXCL makes a taken name only a retry */
			uint64_t v = (uint64_t)getpid() * 2654435761u + tries;

			memcpy(r, &v, sizeof(r));
		}
		snprintf(sf->tmp, sizeof(sf->tmp), "%s.tmp", name);
		for (int i = 0; i < 6; i++)
			sf->tmp[n + 4 + i] = hex[r[i] & 15];
		sf->tmp[n + TMP_SUFFIX_LEN] = 0;
		sf->fd = openat(sf->dir, sf->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				mode);
		err = sf->fd < 0 ? -errno : 0;
	}
	/* the mode whatever the umask */
	if (!err && umask_strips(mode) && fchmod(sf->fd, mode))
		err = -errno;
	if (err) {
		if (sf->fd >= 0) {
			close(sf->fd);
			unlinkat(sf->dir, sf->tmp, 0);
		}
		close(sf->dir);
		sf->fd = sf->dir = -1;
	}
	return err;
}

int safefile__create(struct safefile *sf, const char *path, mode_t mode)
{
	char dname[PATH_MAX];
	const char *base;
	int dir, err;

	sf->fd = sf->dir = -1;
	if (strlen(path) >= sizeof(dname))
		return -ENAMETOOLONG;
	split(path, dname, sizeof(dname), &base);
	dir = open(dname, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	err = safefile__createat(sf, dir, base, mode);
	close(dir);
	return err;
}

int safefile__create_out(struct safefile *sf, const char *path, mode_t mode)
{
	struct stat st;
	int fd;

	sf->fd = sf->dir = -1;
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return -errno;
		return safefile__create(sf, path, mode);
	}
	if (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && st.st_uid != geteuid()))
		return safefile__create(sf, path, mode);
	if (!S_ISLNK(st.st_mode) && !S_ISCHR(st.st_mode))
		return -EEXIST;
	/* O_NONBLOCK: what the link leads to may have become a fifo */
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENXIO ? -EEXIST : -errno;
	if (fstat(fd, &st) || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)) ||
	    (S_ISREG(st.st_mode) && ftruncate(fd, 0)) || fcntl(fd, F_SETFL, 0)) {
		close(fd);
		return -EEXIST;
	}
	sf->fd = fd;
	sf->tmp[0] = 0;
	snprintf(sf->name, sizeof(sf->name), "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	return 0;
}

int safefile__commit(struct safefile *sf, bool noreplace)
{
	int err = 0;

	if (sf->fd >= 0 && close(sf->fd))
		err = -errno;
	sf->fd = -1;
	if (sf->dir < 0)
		return err;	/* written in place */
	if (!err && renameat2(sf->dir, sf->tmp, sf->dir, sf->name, noreplace ? RENAME_NOREPLACE : 0))
		err = -errno;
	if (err)
		unlinkat(sf->dir, sf->tmp, 0);
	close(sf->dir);
	sf->dir = -1;
	return err;
}

void safefile__abort(struct safefile *sf)
{
	if (sf->fd >= 0)
		close(sf->fd);
	if (sf->dir >= 0) {
		unlinkat(sf->dir, sf->tmp, 0);
		close(sf->dir);
	}
	sf->fd = sf->dir = -1;
}

static bool ours(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == geteuid() && st->st_nlink == 1;
}

int safefile__open(const char *path, mode_t mode, bool reuse)
{
	bool created = true;
	struct stat st;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 && errno == EEXIST && reuse) {
		created = false;
		/* O_NONBLOCK: a fifo put there meanwhile does not block the open */
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return errno == ELOOP || errno == ENXIO || errno == EISDIR ? -EEXIST : -errno;
		if (fstat(fd, &st) || !ours(&st) || ftruncate(fd, 0) ||
		    fcntl(fd, F_SETFL, 0)) {
			close(fd);
			return -EEXIST;
		}
	}
	if (fd < 0)
		return -errno;
	/* a file reused keeps its mode until this */
	if ((!created || umask_strips(mode)) && fchmod(fd, mode)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

int safefile__same(const char *path, int fd)
{
	struct stat a, b;

	return !stat(path, &a) && !fstat(fd, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

const char *safefile__what(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return "gone";
	if (S_ISLNK(st.st_mode))
		return "a symbolic link";
	if (S_ISFIFO(st.st_mode))
		return "a fifo";
	if (S_ISDIR(st.st_mode))
		return "a directory";
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (st.st_uid != geteuid())
		return "another user's file";
	if (st.st_nlink != 1)
		return "a file with other names (hard links)";
	return "a regular file";
}
