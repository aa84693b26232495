/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Creating files safely as root in a directory others can write to
 * (/tmp, a shared results directory, another user's home).  A name is
 * never opened through a link, never opened when it is a fifo or a
 * device, and a file is only written over when it is a regular file of
 * ours with one name.  New files get their mode whatever the umask.
 *
 * Two ways:
 *  - safefile__create() + safefile__commit(): the file is written under a
 *    unique name made with O_EXCL in the same directory, then renamed over
 *    the name: whatever was planted there (a link, a fifo) is replaced,
 *    not followed, and the name holds either the old file or the whole
 *    new one.
 *  - safefile__open(): the name itself, for a file written in place while
 *    others may read it (a recording's output): created with
 *    O_EXCL|O_NOFOLLOW, or an existing regular file of ours reused.
 */
#ifndef PERF_RING_SAFEFILE_H
#define PERF_RING_SAFEFILE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct safefile {
	int dir;			/* the directory of the name (-1: written in place) */
	int fd;				/* the new file, open for writing */
	char name[NAME_MAX + 1];	/* its name in dir */
	char tmp[NAME_MAX + 1];		/* the unique name it is written under */
};

/*
 * A new file to become path, open for writing in sf->fd.  0 or -errno
 * (-ENAMETOOLONG, the directory's errors).
 */
int safefile__create(struct safefile *sf, const char *path, mode_t mode);
/* The same, name in the directory open at dir (dir is duplicated). */
int safefile__createat(struct safefile *sf, int dir, const char *name, mode_t mode);
/*
 * Close the file (if sf->fd is still open) and rename it over its name (noreplace: fail with
 * -EEXIST rather than replace anything).  On failure the temporary file
 * is removed.
 */
int safefile__commit(struct safefile *sf, bool noreplace);
/* Close and remove the temporary file. */
void safefile__abort(struct safefile *sf);
/*
 * An output a user names (report --decompress -o, --recover -o):
 * safefile__create() when path is free, a regular file, or a link another
 * user planted (replaced, not followed).  A link of the caller's own
 * (/proc/self/fd/N) and a character device (/dev/null) are written
 * through, in place: only root makes devices, and the caller its own
 * links.  Anything else (a fifo, a directory) is -EEXIST.  Commit and
 * abort as after safefile__create().
 */
int safefile__create_out(struct safefile *sf, const char *path, mode_t mode);

/*
 * path opened for writing, empty: created with O_EXCL|O_NOFOLLOW, else
 * (reuse) an existing regular file owned by the effective user with one
 * link, truncated.  -EEXIST when anything else is there (a link, a fifo,
 * a device, a directory, another user's file), or anything at all without
 * reuse.  fd or -errno.
 */
int safefile__open(const char *path, mode_t mode, bool reuse);
/* 1 when path names the file open at fd (st_dev, st_ino; links followed), else 0. */
int safefile__same(const char *path, int fd);
/*
 * Why safefile__open() refused path (-EEXIST): "a symbolic link",
 * "a fifo", "another user's file", ... for the message.
 */
const char *safefile__what(const char *path);

#endif
