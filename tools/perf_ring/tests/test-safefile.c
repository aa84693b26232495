// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for safefile.c: what a planted link, fifo or file at a name
 * does to each way of creating it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "safefile.h"
#include "tap.h"

static char tmp[PATH_MAX];
static char victim[PATH_MAX + 16];

#define VICTIM_TEXT "not to be touched\n"

static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int victim_intact(void)
{
	char buf[64] = { 0 };
	int fd = open(victim, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(VICTIM_TEXT) && !strcmp(buf, VICTIM_TEXT);
}

static void name(char *buf, size_t len, const char *base)
{
	snprintf(buf, len, "%s/%s", tmp, base);
	unlink(buf);
}

/* create + commit: a link at the name is replaced, not followed */
static int test_create_replaces_link(void)
{
	char p[PATH_MAX + 32];
	struct safefile sf;
	struct stat st;
	mode_t old = umask(0);

	name(p, sizeof(p), "out-link");
	CHECK(!symlink(victim, p), "symlink: %s", strerror(errno));
	CHECK(!safefile__create(&sf, p, 0600), "create");
	CHECK(write(sf.fd, "new", 3) == 3, "write");
	CHECK(!safefile__commit(&sf, false), "commit");
	umask(old);
	CHECK(victim_intact(), "the link's target was written");
	CHECK(!lstat(p, &st) && S_ISREG(st.st_mode) && st.st_size == 3, "not a 3-byte file");
	CHECK((st.st_mode & 0777) == 0600, "mode %o under umask 0", st.st_mode & 0777);
	return 0;
}

/* noreplace: an existing name is kept, the temporary file removed */
static int test_commit_noreplace(void)
{
	char p[PATH_MAX + 32], t[PATH_MAX + NAME_MAX + 2];
	struct safefile sf;

	name(p, sizeof(p), "out-kept");
	CHECK(!put(p, "old"), "put");
	CHECK(!safefile__create(&sf, p, 0600), "create");
	snprintf(t, sizeof(t), "%s/%s", tmp, sf.tmp);
	CHECK(safefile__commit(&sf, true) == -EEXIST, "commit over an existing name");
	CHECK(access(t, F_OK) && errno == ENOENT, "temporary file %s left", t);
	return 0;
}

/* open: a link, a fifo, a directory are refused (-EEXIST) at once */
static int test_open_refuses(void)
{
	char p[PATH_MAX + 32];

	name(p, sizeof(p), "o-link");
	CHECK(!symlink(victim, p), "symlink");
	CHECK(safefile__open(p, 0600, true) == -EEXIST, "a link to a file");
	CHECK(!strcmp(safefile__what(p), "a symbolic link"), "%s", safefile__what(p));
	name(p, sizeof(p), "o-dangling");
	CHECK(!symlink("/nonexistent/perf-ring-test", p), "symlink");
	CHECK(safefile__open(p, 0600, true) == -EEXIST, "a dangling link");
	name(p, sizeof(p), "o-fifo");
	CHECK(!mkfifo(p, 0666), "mkfifo");
	CHECK(safefile__open(p, 0600, true) == -EEXIST, "a fifo (no reader: must not block)");
	CHECK(!strcmp(safefile__what(p), "a fifo"), "%s", safefile__what(p));
	snprintf(p, sizeof(p), "%s/o-dir", tmp);
	CHECK(!mkdir(p, 0755) || errno == EEXIST, "mkdir");
	CHECK(safefile__open(p, 0600, true) == -EEXIST, "a directory");
	return 0;
}

/* open with reuse: an empty or not regular file of ours is truncated; without, refused */
static int test_open_reuse(void)
{
	char p[PATH_MAX + 32], q[PATH_MAX + 32];
	struct stat st;
	int fd;

	name(p, sizeof(p), "o-mine");
	CHECK(!put(p, "old data"), "put");
	CHECK(safefile__open(p, 0600, false) == -EEXIST, "reused without reuse");
	fd = safefile__open(p, 0600, true);
	CHECK(fd >= 0, "reuse: %s", strerror(-fd));
	CHECK(!fstat(fd, &st) && st.st_size == 0 && (st.st_mode & 0777) == 0600,
	      "size %lld mode %o", (long long)st.st_size, st.st_mode & 0777);
	close(fd);
	/* a second name (a hard link to someone's file) is not ours to truncate */
	name(q, sizeof(q), "o-mine-link");
	CHECK(!link(p, q), "link");
	CHECK(safefile__open(p, 0600, true) == -EEXIST, "a file with two names");
	return 0;
}

static int test_same(void)
{
	char p[PATH_MAX + 32], q[PATH_MAX + 32];
	int fd;

	name(p, sizeof(p), "same");
	name(q, sizeof(q), "same-link");
	CHECK(!put(p, "x"), "put");
	CHECK(!link(p, q), "link");
	fd = open(p, O_RDONLY);
	CHECK(fd >= 0, "open");
	CHECK(safefile__same(p, fd) == 1 && safefile__same(q, fd) == 1, "same file");
	CHECK(safefile__same(victim, fd) == 0, "another file");
	close(fd);
	return 0;
}

/* create_out: /dev/null and a link of our own are written through; a fifo is refused */
static int test_create_out(void)
{
	char p[PATH_MAX + 32], q[PATH_MAX + 32];
	struct safefile sf;
	struct stat st;

	CHECK(!safefile__create_out(&sf, "/dev/null", 0600), "/dev/null");
	CHECK(sf.dir == -1 && write(sf.fd, "x", 1) == 1, "in place");
	CHECK(!safefile__commit(&sf, false), "commit");
	CHECK(!stat("/dev/null", &st) && S_ISCHR(st.st_mode), "/dev/null is still a device");
	name(p, sizeof(p), "co-target");
	CHECK(!put(p, "old data"), "put");
	name(q, sizeof(q), "co-own-link");
	CHECK(!symlink(p, q), "symlink");
	CHECK(!safefile__create_out(&sf, q, 0600), "a link of ours");
	CHECK(write(sf.fd, "new", 3) == 3, "write");
	CHECK(!safefile__commit(&sf, false), "commit");
	CHECK(!lstat(q, &st) && S_ISLNK(st.st_mode), "the link is kept");
	CHECK(!stat(p, &st) && st.st_size == 3, "written through, truncated: %lld bytes",
	      (long long)st.st_size);
	name(p, sizeof(p), "co-fifo");
	CHECK(!mkfifo(p, 0666), "mkfifo");
	CHECK(safefile__create_out(&sf, p, 0600) == -EEXIST, "a fifo");
	return 0;
}

/*
 * In a new process (the umask is read once, at its first file), under a
 * umask that takes 0200 away: both ways of creating still give 0600.
 * Exit 0 when they do.
 */
static int umask_child(const char *dir)
{
	char p[PATH_MAX + 32], q[PATH_MAX + 32];
	struct safefile sf;
	struct stat a, b;
	int fd;

	umask(0277);
	snprintf(p, sizeof(p), "%s/um-open", dir);
	snprintf(q, sizeof(q), "%s/um-create", dir);
	fd = safefile__open(p, 0600, false);
	if (fd < 0 || fstat(fd, &a) || safefile__create(&sf, q, 0600) || safefile__commit(&sf, false) ||
	    stat(q, &b))
		return 2;
	close(fd);
	if ((a.st_mode & 0777) != 0600 || (b.st_mode & 0777) != 0600) {
		fprintf(stderr, "# under umask 0277: open %o, create %o\n", a.st_mode & 0777,
			b.st_mode & 0777);
		return 1;
	}
	return 0;
}

static int test_umask_strips(void)
{
	char p[PATH_MAX + 32];
	struct stat st;
	pid_t pid;
	int fd, status;

	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		execl("/proc/self/exe", "test-safefile", "--umask-child", tmp, (char *)NULL);
		_exit(3);
	}
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "the new process: status %#x", status);
	/* and under a umask that leaves 0600 whole, no fchmod() needed */
	umask(022);
	name(p, sizeof(p), "um-022");
	fd = safefile__open(p, 0600, false);
	CHECK(fd >= 0 && !fstat(fd, &st), "open");
	close(fd);
	CHECK((st.st_mode & 0777) == 0600, "mode %o under umask 022", st.st_mode & 0777);
	return 0;
}

int main(int argc, char **argv)
{
	char cmd[PATH_MAX + 16], abs_[PATH_MAX];
	int r;

	if (argc == 3 && !strcmp(argv[1], "--umask-child"))
		return umask_child(argv[2]);

	tap_tmpname(tmp, sizeof(tmp), "safefile");
	if (!mkdtemp(tmp)) {
		perror(tmp);
		return 1;
	}
	/* absolute: the links made below name their targets by it */
	if (!realpath(tmp, abs_)) {
		perror(tmp);
		return 1;
	}
	memcpy(tmp, abs_, sizeof(tmp));
	snprintf(victim, sizeof(victim), "%s/victim", tmp);
	if (put(victim, VICTIM_TEXT)) {
		perror(victim);
		return 1;
	}
	tap_run("create + commit: a link at the name is replaced, not followed; 0600 under umask 0",
		test_create_replaces_link);
	tap_run("commit without replacing: an existing name is kept, no temporary file left",
		test_commit_noreplace);
	tap_run("open: a link, a dangling link, a fifo, a directory are refused at once",
		test_open_refuses);
	tap_run("open: only a regular file of ours with one name is reused, truncated",
		test_open_reuse);
	tap_run("create_out: /dev/null and our own link written through, a fifo refused",
		test_create_out);
	tap_run("same: the file behind a name and its hard links, by st_dev/st_ino", test_same);
	tap_run("a new file is 0600 under umask 0277 (a new process) and 022",
		test_umask_strips);
	r = tap_done();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd))
		r = 1;
	return r;
}
