// SPDX-License-Identifier: GPL-2.0
/*
 * The seekable perf.data (out-format.h): the header and attributes
 * first, written again with the data size and the feature bitmap when
 * the feature sections follow the data at the end.  Files are created so
 * that a planted link or fifo cannot redirect or block them (safefile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fail.h"
#include "out-format.h"
#include "output.h"
#include "safefile.h"

/*
 * As perf: an existing, non-empty output becomes OUTPUT.old, and when
 * that fails the recording does not start (perf's check_backup()).  Only
 * a regular file is moved: a link or a fifo at the name is not followed.
 * check: only look whether the move can be done.
 */
static int keep_old(const char *path, bool check)
{
	char old[4200];
	struct stat st;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return 0;
	snprintf(old, sizeof(old), "%s.old", path);
	/* perf removes an old perf.data directory; a directory is not removed here */
	if (!lstat(old, &st) && S_ISDIR(st.st_mode))
		return fail_set(-EISDIR, "Can't remove old data: %s (%s)", strerror(EISDIR), old);
	if (check)
		return 0;
	if (rename(path, old))
		return fail_set(-errno, "Can't move data: %s (%s to %s)", strerror(errno), path, old);
	return 0;
}

int out_check(const char *path)
{
	struct safefile sf;
	int err = keep_old(path, true);

	if (err)
		return err;
	/* the directory takes new files */
	err = safefile__create(&sf, path, 0600);
	if (err)
		return fail_set(err, "cannot create output '%s': %s", path, strerror(-err));
	safefile__abort(&sf);
	return 0;
}

/*
 * A PATH.partial found where a snapshot is to be written is a snapshot
 * an earlier recording left (killed while writing it), or something
 * planted: moved aside, never truncated or followed.
 */
static int partial_aside(const char *tmp)
{
	char aside[4200];
	struct stat st;

	if (lstat(tmp, &st))
		return 0;
	out_name_stamped(tmp, aside, sizeof(aside));
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, aside, RENAME_NOREPLACE))
		return fail_set(-errno, "'%s' is left over from an earlier recording and cannot be "
				"moved aside: %s; recover it with 'perf-ring report --recover -i %s -o OUT' "
				"or remove it", tmp, strerror(errno), tmp);
	if (S_ISREG(st.st_mode))
		fprintf(stderr, "perf-ring record: '%s' was left over from an earlier recording: "
			"moved to '%s' ('perf-ring report --recover -i %s -o OUT' makes a file "
			"perf reads)\n", tmp, aside, aside);
	else
		fprintf(stderr, "perf-ring record: '%s' is %s, not a snapshot: moved to '%s'\n",
			tmp, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file", aside);
	return 0;
}

/* path is a time-stamped name (--switch-output, snapshots), not the output's own */
static bool stamped(const struct out_target *t, const char *path)
{
	return strcmp(path, t->o->output);
}

/*
 * The output file: created with O_EXCL|O_NOFOLLOW, else an empty regular
 * file of ours reused; a time-stamped name (switched) that is taken gets
 * -N added, as out_name_stamped() would have.
 */
static int open_output(struct out_target *t, const char *path, char *used, size_t len)
{
	bool st = stamped(t, path);
	int fd;

	snprintf(used, len, "%s", path);
	fd = safefile__open(path, 0600, !st);
	for (int i = 1; fd == -EEXIST && st && i < 1000; i++) {
		snprintf(used, len, "%s-%d", path, i);
		fd = safefile__open(used, 0600, false);
	}
	if (fd == -EEXIST)
		return fail_set(-EEXIST, "cannot create output '%s': it is %s; perf-ring does not "
				"write through links or fifos, nor over other users' files",
				used, safefile__what(used));
	if (fd < 0)
		return fail_set(fd, "cannot create output '%s': %s", used, strerror(-fd));
	return fd;
}

static void partial_name(const struct out_target *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s.partial", t->path);
}

/*
 * A flight-recorder snapshot is written under a temporary name and
 * renamed when finalized, so that a kill while it is written (the OOM
 * killer, say) leaves either a whole file under its name or none: the
 * leftover PATH.partial is for "perf-ring report --recover".
 */
static int open_partial(struct out_target *t)
{
	char tmp[sizeof(t->path) + 16];
	int err;

	partial_name(t, tmp, sizeof(tmp));
	/* the name is looked at only when it is taken */
	t->fd = safefile__open(tmp, 0600, false);
	/*
	 * A time-stamped NAME.partial that is taken is another recorder's
	 * with the same -o in the same millisecond, being written, or
	 * something planted: never moved, the snapshot takes NAME-N, as a
	 * taken final name does (rename_to()).
	 */
	if (t->fd == -EEXIST && stamped(t, t->path)) {
		char base[sizeof(t->path)];

		snprintf(base, sizeof(base), "%s", t->path);
		for (int i = 1; t->fd == -EEXIST && i < 1000; i++) {
			if (snprintf(t->path, sizeof(t->path), "%s-%d", base, i) >=
			    (int)sizeof(t->path))
				break;
			partial_name(t, tmp, sizeof(tmp));
			t->fd = safefile__open(tmp, 0600, false);
		}
	}
	if (t->fd == -EEXIST && !stamped(t, t->path)) {
		err = partial_aside(tmp);
		if (err)
			return err;
		t->fd = safefile__open(tmp, 0600, false);
	}
	if (t->fd < 0)
		return fail_set(t->fd, "cannot create '%s': %s%s%s", tmp,
				t->fd == -EEXIST ? "it is " : strerror(-t->fd),
				t->fd == -EEXIST ? safefile__what(tmp) : "",
				t->fd == -EEXIST ? " (put there meanwhile)" : "");
	return 0;
}

/* nothing was recorded into it: no file, rather than one perf cannot open */
static void file_undo(struct out_target *t)
{
	char tmp[sizeof(t->path) + 16];

	partial_name(t, tmp, sizeof(tmp));
	close(t->fd);
	t->fd = -1;
	unlink(t->partial ? tmp : t->path);
}

static int file_open(struct out_target *t, const char *path)
{
	int err;

	snprintf(t->path, sizeof(t->path), "%s", path);
	t->partial = t->o->flight;
	/*
	 * A snapshot's time-stamped name (out_name_stamp()) is taken by a
	 * rename that replaces nothing (rename_to()): only the output's
	 * own name may hold an older recording.
	 */
	err = t->partial && stamped(t, path) ? 0 : keep_old(path, false);
	if (err)
		return err;
	if (t->partial) {
		err = open_partial(t);
		if (err)
			return err;
	} else {
		char used[sizeof(t->path)];

		t->fd = open_output(t, path, used, sizeof(used));
		if (t->fd < 0)
			return t->fd;
		snprintf(t->path, sizeof(t->path), "%s", used);
	}
	t->data_off = pf_data_offset(t->el->evs, t->el->nev);
	/*
	 * A snapshot's header goes with its first data (out_open()), in
	 * one write when there is one: a kill while it is written leaves
	 * a NAME.partial that has its header and attributes for --recover
	 * from the first data on.
	 */
	pbuf_free(&t->head);
	if (t->partial)
		err = pf_build_head(t->el->evs, t->el->nev, 0, NULL, &t->head);
	else
		err = pf_write_head(t->fd, t->el->evs, t->el->nev, 0, NULL);
	if (err) {
		fail_set(err, "writing the header of '%s': %s", path, strerror(-err));
		file_undo(t);
	}
	return err;
}

/*
 * After a failed write, drop any part of it beyond what is known to be
 * on file; then the features.  If they do not fit (ENOSPC), cut the data
 * back to make room for them, to a place where it ends on a whole record:
 * a file without its tracing data cannot be decoded.  Records cut are
 * records lost: the file's error (e->werr) is ENOSPC then.  The feature
 * bitmap written is cleared when they are not on file.
 */
static void write_features(struct out_target *t, struct out_end *e, u64 *features)
{
	struct perf_event_header round = { .type = PF_RECORD_FINISHED_ROUND, .size = sizeof(round) };
	struct pbuf fb = { 0 };
	u64 had = e->data_size;
	bool cut = false;
	int err;

	for (int tries = 0;; tries++) {
		/*
		 * perf takes a data size of 0 for a file never finalized and
		 * reads on to its end, into the feature sections.  When no
		 * data is kept (the first write failed), the data section is
		 * one FINISHED_ROUND, which perf reads as nothing.
		 */
		if (!e->data_size && !pwrite_full(t->fd, &round, sizeof(round), t->data_off))
			e->data_size = sizeof(round);
		if ((e->werr || tries) && ftruncate(t->fd, t->data_off + e->data_size) &&
		    !e->werr)
			e->werr = -errno;
		pbuf_free(&fb);
		err = pf_build_features(t->el->evs, t->el->nev, e->meta, t->data_off + e->data_size,
					features, &fb);
		if (!err)
			err = pwrite_full(t->fd, fb.p, fb.len, t->data_off + e->data_size);
		if (!err || err != -ENOSPC || tries >= 64 || !e->data_size)
			break;
		e->data_size = writer_boundary_before(e->w, e->data_size);
		cut = true;
	}
	pbuf_free(&fb);
	if (cut && !e->werr) {
		e->werr = -ENOSPC;
		fail_set(-ENOSPC, "no room for the feature sections of '%s': %s; its data cut back "
			 "from %llu to %llu bytes, to end on a whole record", t->path,
			 strerror(ENOSPC), (unsigned long long)had,
			 (unsigned long long)e->data_size);
	}
	if (err) {
		if (ftruncate(t->fd, t->data_off + e->data_size)) {
			/* nothing more to do */
		}
		memset(features, 0, PF_FEAT_BITS / 8);
		fprintf(stderr, "perf-ring record: '%s': feature sections not written: %s\n",
			t->path, strerror(-err));
	}
}

/*
 * tmp renamed to name without replacing anything: 0, EEXIST when name
 * is taken, or errno.  Where RENAME_NOREPLACE is not there (a
 * filesystem without it, EINVAL; a kernel before 3.15 or a seccomp
 * filter, ENOSYS or EPERM) the name is looked up first, which leaves a
 * race with whoever puts a file there meanwhile.
 */
static int rename_noreplace(const char *tmp, const char *name)
{
	struct stat st;

	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EPERM)
		return errno;
	if (!lstat(name, &st))
		return EEXIST;
	if (errno != ENOENT)
		return errno;
	return rename(tmp, name) ? errno : 0;
}

/*
 * tmp renamed to path: the output's own name replaced (a link there is
 * replaced, not followed), a time-stamped one never (out_name_stamp()):
 * a name taken gets -N added, as out_name_stamped() would have, and
 * t->path says which.  0 or errno.
 */
static int rename_to(struct out_target *t, const char *tmp)
{
	char base[sizeof(t->path)], name[sizeof(t->path)];
	int err;

	if (!stamped(t, t->path))
		return rename(tmp, t->path) ? errno : 0;
	snprintf(base, sizeof(base), "%s", t->path);
	snprintf(name, sizeof(name), "%s", base);
	for (int i = 1; (err = rename_noreplace(tmp, name)) == EEXIST; i++) {
		if (i == 1000)
			return EEXIST;
		if (snprintf(name, sizeof(name), "%s-%d", base, i) >= (int)sizeof(name))
			return ENAMETOOLONG;
	}
	if (!err)
		snprintf(t->path, sizeof(t->path), "%s", name);
	return err;
}

/* A snapshot written whole takes its name; an earlier error stays the one reported. */
static int rename_partial(struct out_target *t, int err)
{
	char tmp[sizeof(t->path) + 16];
	int rerr, tries = 8;

	partial_name(t, tmp, sizeof(tmp));
	/* the kernel's failures to allocate or copy the names pass */
	while ((rerr = rename_to(t, tmp)) &&
	       (rerr == ENOMEM || rerr == EAGAIN || rerr == EINTR || rerr == EFAULT) &&
	       --tries)
		;
	if (rerr && fail_err()) {
		/* an earlier error is the one reported: say this here */
		fprintf(stderr, "perf-ring record: renaming '%s' to '%s': %s; "
			"the snapshot is whole in '%s'\n", tmp, t->path, strerror(rerr), tmp);
		err = err ?: -rerr;
	} else if (rerr) {
		err = fail_set(-rerr, "renaming '%s' to '%s': %s; the snapshot is whole in '%s'",
			       tmp, t->path, strerror(rerr), tmp);
	}
	/* not renamed: what the snapshot's line and --switch-max-files name is NAME.partial */
	if (rerr && strlen(tmp) < sizeof(t->path))
		memcpy(t->path, tmp, strlen(tmp) + 1);
	return err;
}

/*
 * The feature sections after data_size bytes of data, and over the
 * header waiting for the first data, the final one: a snapshot of one
 * chunk is then one pwritev() (the writer's), not three.
 */
static bool file_seal(struct out_target *t, const struct out_end *e, u64 data_size, bool head)
{
	struct pbuf h = { 0 };
	bool ok;

	t->tail.len = 0;
	t->tail.err = 0;
	if (pf_build_features(t->el->evs, t->el->nev, e->meta, t->data_off + data_size,
			      t->features, &t->tail))
		return false;
	if (!head)
		return true;
	ok = !pf_build_head(t->el->evs, t->el->nev, data_size, t->features, &h) &&
	     h.len == t->head.len;
	if (ok)
		memcpy(t->head.p, h.p, h.len);
	pbuf_free(&h);
	return ok;
}

static int file_finish(struct out_target *t, struct out_end *e)
{
	u64 features[PF_FEAT_BITS / 64] = { 0 };
	bool sealed = e->tail_written && !e->werr && e->data_size == e->sealed_size;
	int err = 0;

	if (e->werr) {
		fail_set(e->werr, "writing '%s': %s; the file keeps the %llu bytes of data written before the failure",
			 t->path, strerror(-e->werr), (unsigned long long)e->data_size);
		/* the records counted but not on file are unknown: recount is in report */
	}
	/* what seal() laid out is on file, behind the data as it is */
	if (sealed)
		memcpy(features, t->features, sizeof(features));
	else
		write_features(t, e, features);
	if (!sealed || !e->head_with_tail)
		err = pf_write_head(t->fd, t->el->evs, t->el->nev, e->data_size, features);
	if (err)
		fail_set(err, "finalizing the header of '%s': %s", t->path, strerror(-err));
	if (close(t->fd) && !err) {
		err = -errno;
		fail_set(err, "closing '%s': %s", t->path, strerror(errno));
	}
	t->fd = -1;
	if (t->partial && !err)
		return rename_partial(t, err);
	if (t->partial) {
		char tmp[sizeof(t->path) + 16];

		/*
		 * The header on file may be seal()'s, for a layout that is not
		 * (its features not written), or the first one: the snapshot
		 * keeps its temporary name, for --recover, never taken for
		 * whole; the snapshot's line names it.
		 */
		partial_name(t, tmp, sizeof(tmp));
		fprintf(stderr, "perf-ring record: the snapshot stays '%s' ('perf-ring report "
			"--recover -i %s -o OUT' makes a file perf reads)\n", tmp, tmp);
		if (strlen(tmp) < sizeof(t->path))
			memcpy(t->path, tmp, strlen(tmp) + 1);
	}
	return err;
}

static int file_rename(struct out_target *t, const char *path)
{
	struct stat a, b;

	if (t->partial)
		return -EINVAL;
	if (fstat(t->fd, &a) || lstat(t->path, &b))
		return -errno;
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return -ESTALE;		/* replaced meanwhile: not ours to move */
	if (renameat2(AT_FDCWD, t->path, AT_FDCWD, path, RENAME_NOREPLACE))
		return -errno;
	snprintf(t->path, sizeof(t->path), "%s", path);
	return 0;
}

const struct out_format out_format_file = {
	.name = "perf.data",
	.open = file_open,
	.undo = file_undo,
	.finish = file_finish,
	.seal = file_seal,
	.rename = file_rename,
};
