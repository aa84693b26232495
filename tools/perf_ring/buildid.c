// SPDX-License-Identifier: GPL-2.0
/*
 * Build-ids (buildid.h).  The section format and the cache layout follow
 * perf's tools/perf/util/header.c and build-id.c.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "buildid.h"
#include "safefile.h"

#define NAME_ALIGN 64
#define HOST_KERNEL_ID ((u32)-1)
#ifndef PERF_RECORD_MISC_BUILD_ID_SIZE
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)
#endif
#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

int buildid_from_notes(const char *buf, size_t len, u8 *id, u8 *size)
{
	size_t pos = 0;

	while (pos + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr nh;
		size_t name_at, desc_at, next;

		memcpy(&nh, buf + pos, sizeof(nh));
		name_at = pos + sizeof(nh);
		desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
		next = desc_at + ((nh.n_descsz + 3) & ~3u);
		if (desc_at > len || next > len || next <= pos)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + name_at, "GNU", 4) && nh.n_descsz > 0) {
			*size = nh.n_descsz > BUILD_ID_MAX ? BUILD_ID_MAX : nh.n_descsz;
			memcpy(id, buf + desc_at, *size);
			return 0;
		}
		pos = next;
	}
	return -ENOENT;
}

#define NOTES_MAX (1 << 20)	/* a PT_NOTE segment read is at most this long */

int buildid_from_fd(int fd, u8 *id, u8 *size)
{
	Elf64_Ehdr eh;
	struct stat st;
	int err = -ENOENT;

	/* pread, not mmap: a file cut short meanwhile is an error, not SIGBUS */
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(eh) ||
	    pread_full(fd, &eh, sizeof(eh), 0))
		return -ENOEXEC;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phoff + (u64)eh.e_phnum * sizeof(Elf64_Phdr) > (u64)st.st_size)
		return -ENOEXEC;
	for (int i = 0; i < eh.e_phnum && err == -ENOENT; i++) {
		Elf64_Phdr ph;
		char *buf;

		if (pread_full(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)))
			return -ENOEXEC;
		if (ph.p_type != PT_NOTE || ph.p_filesz > NOTES_MAX ||
		    ph.p_offset > (u64)st.st_size || ph.p_filesz > (u64)st.st_size - ph.p_offset)
			continue;
		buf = malloc(ph.p_filesz ? ph.p_filesz : 1);
		if (!buf)
			return -ENOMEM;
		if (!pread_full(fd, buf, ph.p_filesz, ph.p_offset) &&
		    !buildid_from_notes(buf, ph.p_filesz, id, size))
			err = 0;
		free(buf);
	}
	return err;
}

int buildid_from_elf(const char *path, u8 *id, u8 *size)
{
	/* O_NONBLOCK: a fifo at a library's path does not block the open */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = buildid_from_fd(fd, id, size);
	close(fd);
	return err;
}

int buildid_kernel(u8 *id, u8 *size)
{
	char *buf;
	size_t len;
	int err = read_text_file("/sys/kernel/notes", &buf, &len);

	if (err)
		return err;
	err = buildid_from_notes(buf, len, id, size);
	free(buf);
	return err;
}

/*
 * A file maps thousands of DSOs (bench/results/scale-dsos.md): the set is
 * indexed by a hash of the name, open addressing, at most half full, so
 * that collecting D DSOs costs O(D) compares, not D x D / 2.
 *
 * A snapshot looks each DSO of its maps up by name, twice, and the names
 * are long paths: the hash takes eight bytes a step.  Each step's fold
 * (h ^= h >> 29) brings the product's high bits down for the next
 * multiply, and the last multiply's high half is the hash: every bit of
 * it depends on every byte, so the low bits the index uses do too.
 */
static unsigned int name_hash(const char *name)
{
	const u64 k = 0x9e3779b97f4a7c15ULL;	/* 2^64 / golden ratio, odd */
	size_t len = strlen(name);
	u64 h = len * k, w;

	for (; len >= 8; len -= 8, name += 8) {
		memcpy(&w, name, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	for (w = 0; len; len--)		/* the last 0-7 bytes */
		w = w << 8 | (unsigned char)name[len - 1];
	h = (h ^ w) * k;
	h ^= h >> 29;
	return (unsigned int)((h * k) >> 32);
}

static void slot_put(int *slot, int nslot, const char *name, int i)
{
	unsigned int k = name_hash(name) & (nslot - 1);

	while (slot[k])
		k = (k + 1) & (nslot - 1);
	slot[k] = i + 1;
}

/* room in the index for one more: 0, or -ENOMEM */
static int slot_grow(struct bidset *s)
{
	int nslot = s->nslot ? s->nslot * 2 : 128;
	int *slot;

	if (2 * (s->nall + 1) <= s->nslot)
		return 0;
	slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (int i = 0; i < s->nall; i++)
		slot_put(slot, nslot, s->v[i].name, i);
	free(s->slot);
	s->slot = slot;
	s->nslot = nslot;
	return 0;
}

/* The index slot of name, in the set or kept (v[n .. nall)); -1 when neither. */
static int find_slot(const struct bidset *s, const char *name)
{
	struct bidset *m = (struct bidset *)s;	/* the compare count only */

	if (!s->nslot)
		return -1;
	for (unsigned int k = name_hash(name) & (s->nslot - 1); s->slot[k];
	     k = (k + 1) & (s->nslot - 1)) {
		m->compares++;
		if (!strcmp(s->v[s->slot[k] - 1].name, name))
			return (int)k;
	}
	return -1;
}

struct dso_bid *bidset_find(const struct bidset *s, const char *name)
{
	int k = find_slot(s, name);

	return k >= 0 && s->slot[k] <= s->n ? &s->v[s->slot[k] - 1] : NULL;
}

/*
 * A kept name (v[i], i >= n) back in the set: swapped with v[n], the
 * first kept one, and the index told; fresh but for its name.
 */
static struct dso_bid *revive(struct bidset *s, int k)
{
	int i = s->slot[k] - 1, j = s->n;
	struct dso_bid *d;

	if (i != j) {
		struct dso_bid t = s->v[i];
		int kj = find_slot(s, s->v[j].name);

		s->v[i] = s->v[j];
		s->v[j] = t;
		s->slot[kj] = i + 1;
		s->slot[k] = j + 1;
	}
	d = &s->v[j];
	*d = (struct dso_bid){ .name = d->name };
	s->n++;
	return d;
}

struct dso_bid *bidset_add(struct bidset *s, const char *name, const u8 *id, u8 size,
			   bool kernel)
{
	int k = find_slot(s, name);
	struct dso_bid *d = NULL;

	if (k >= 0 && s->slot[k] <= s->n) {
		d = &s->v[s->slot[k] - 1];
	} else if (k >= 0) {
		d = revive(s, k);
		d->kernel = kernel;
	} else {
		if (s->nall == s->cap) {
			int cap = s->cap ? 2 * s->cap : 64;
			struct dso_bid *v = realloc(s->v, cap * sizeof(*v));

			if (!v)
				return NULL;
			s->v = v;
			s->cap = cap;
		}
		if (slot_grow(s))
			return NULL;
		d = &s->v[s->nall];
		memset(d, 0, sizeof(*d));
		d->name = strdup(name);
		if (!d->name)
			return NULL;
		slot_put(s->slot, s->nslot, d->name, s->nall);
		s->nall++;
		/* kept names come after the set: the new one joins it at n */
		k = find_slot(s, name);
		d = revive(s, k);
		d->kernel = kernel;
	}
	if (id && size && !d->size) {
		d->size = size > BUILD_ID_MAX ? BUILD_ID_MAX : size;
		memcpy(d->id, id, d->size);
	}
	return d;
}

void bidset_scan_map(struct bidset *s, const char *rec)
{
	struct perf_event_header h;
	/* MMAP2: pid tid start len pgoff, then 24 bytes, prot flags, name */
	size_t name_at = sizeof(h) + 4 + 4 + 8 + 8 + 8;
	const u8 *id = NULL;
	u8 size = 0;
	u32 prot = PROT_EXEC;
	const char *name;

	memcpy(&h, rec, sizeof(h));
	if (h.misc & PERF_RECORD_MISC_MMAP_DATA)
		return;
	if (h.type == PERF_RECORD_MMAP2) {
		if (h.size < name_at + 24 + 8 + 1)
			return;
		if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			size = (u8)rec[name_at];
			id = (const u8 *)rec + name_at + 4;
		}
		memcpy(&prot, rec + name_at + 24, sizeof(prot));
		name_at += 24 + 8;
	} else if (h.size < name_at + 1) {
		return;
	}
	name = rec + name_at;
	if (!(prot & PROT_EXEC) || name[0] != '/' || name[1] == '/' ||
	    !memchr(name, 0, h.size - name_at))
		return;
	if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return;		/* the kernel's own, added by name */
	bidset_add(s, name, id, size, false);
}

void bidset_reset(struct bidset *s)
{
	s->n = 0;
}

void bidset_free(struct bidset *s)
{
	for (int i = 0; i < s->nall; i++)
		free(s->v[i].name);
	free(s->v);
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

void buildid_section(const struct bidset *s, struct pbuf *out)
{
	for (int i = 0; i < s->n; i++) {
		const struct dso_bid *d = &s->v[i];
		size_t nlen = strlen(d->name), padded = ALIGN_UP(nlen + 1, NAME_ALIGN);
		struct {
			struct perf_event_header h;
			u32 pid;
			u8 id[20];
			u8 size, r1;
			u16 r2;
		} __attribute__((packed)) b;

		if (!d->size)
			continue;
		memset(&b, 0, sizeof(b));
		b.h.misc = (d->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
			   PERF_RECORD_MISC_BUILD_ID_SIZE;
		b.h.size = sizeof(b) + padded;
		b.pid = HOST_KERNEL_ID;
		memcpy(b.id, d->id, d->size);
		b.size = d->size;
		pbuf_put(out, &b, sizeof(b));
		pbuf_put(out, d->name, nlen);
		pbuf_zero(out, padded - nlen);
	}
}

int buildid_cache_dir(char *buf, size_t len)
{
	const char *d = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	if (d && *d)
		snprintf(buf, len, "%s", d);
	else if (home && *home)
		snprintf(buf, len, "%s/.debug", home);
	else
		return -ENOENT;
	/* no trailing '/': the links are made relative to it */
	for (size_t n = strlen(buf); n > 1 && buf[n - 1] == '/'; n--)
		buf[n - 1] = 0;
	return 0;
}

/*
 * The directory rel (relative, '/'-separated) below the directory open
 * at root, made where missing, opened without following a link on the
 * way: a link planted in the cache (another user's HOME) cannot send
 * the files elsewhere.  fd or -errno.
 */
static int dir_below(int root, const char *rel)
{
	char part[PATH_MAX];
	int fd = fcntl(root, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return -errno;
	while (*rel) {
		size_t n = strcspn(rel, "/");
		int next;

		if (n >= sizeof(part)) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(part, rel, n);
		part[n] = 0;
		rel += n;
		rel += strspn(rel, "/");
		if (!n || !strcmp(part, "."))
			continue;
		if (!strcmp(part, "..")) {
			close(fd);
			return -EINVAL;
		}
		if (mkdirat(fd, part, 0755) && errno != EEXIST) {
			int err = -errno;

			close(fd);
			return err;
		}
		next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
	}
	return fd;
}

/* The cache directory itself, made if missing, as perf takes it (links followed). */
static int cache_root(const char *dir)
{
	char p[PATH_MAX];
	int fd;

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Copy at most max bytes (0: to the end) of in to name in dir, under a
 * unique temporary name renamed into place.
 */
static int copy_fd(int in, u64 max, int dir, const char *name, mode_t mode)
{
	char buf[65536];
	struct safefile sf;
	u64 done = 0;
	ssize_t n = 0;
	int err = safefile__createat(&sf, dir, name, mode);

	if (err)
		return err;
	while (!err && (!max || done < max)) {
		size_t want = max && max - done < sizeof(buf) ? max - done : sizeof(buf);

		n = pread(in, buf, want, done);
		if (n <= 0)
			break;
		err = write_full(sf.fd, buf, n);
		done += n;
	}
	if (n < 0 && !err)
		err = -errno;
	if (err) {
		safefile__abort(&sf);
		return err;
	}
	return safefile__commit(&sf, false);
}

/*
 * The file at name as the cache keeps it: only a regular file, opened
 * without following a link or blocking (a fifo, a device), whose own
 * build-id note is the one the mapping had; a hard link to that very
 * file, else a copy bounded by its size.
 */
static int cache_dso(const char *name, const struct dso_bid *d, int dir)
{
	char self[64];
	struct safefile sf;
	u8 id[BUILD_ID_MAX], size = 0;
	struct stat st;
	int in, err;

	in = open(name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	if (fstat(in, &st)) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto out;
	}
	err = buildid_from_fd(in, id, &size);
	if (!err && (size != d->size || memcmp(id, d->id, size)))
		err = -ESTALE;	/* rebuilt or replaced since it was mapped */
	if (err)
		goto out;
	/* the file checked, linked by its descriptor: not whatever the name now holds */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", in);
	err = safefile__createat(&sf, dir, "elf", st.st_mode & 0777);
	if (!err) {
		/* the unique name, taken again by a link to the file checked */
		close(sf.fd);
		sf.fd = -1;
		if (!unlinkat(sf.dir, sf.tmp, 0) &&
		    !linkat(AT_FDCWD, self, sf.dir, sf.tmp, AT_SYMLINK_FOLLOW)) {
			err = safefile__commit(&sf, false);
			goto out;
		}
		safefile__abort(&sf);
	}
	err = copy_fd(in, st.st_size, dir, "elf", st.st_mode & 0777);
out:
	close(in);
	return err;
}

int buildid_cache_add(const char *dir, const struct dso_bid *d)
{
	char hex[2 * BUILD_ID_MAX + 1], path[PATH_MAX], link_[PATH_MAX];
	char target[PATH_MAX + 64], real[PATH_MAX];
	const char *name = d->name;
	int root, fd, err;

	if (!d->size)
		return -ENOENT;
	for (int i = 0; i < d->size; i++)
		sprintf(hex + 2 * i, "%02x", d->id[i]);
	if (!d->kernel) {
		if (!realpath(d->name, real))
			return -errno;
		name = real;
	}
	/* DIR/NAME/HEX: NAME is absolute for files, [kernel.kallsyms] else */
	if (snprintf(path, sizeof(path), "%s/%s", name, hex) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	root = cache_root(dir);
	if (root < 0)
		return root;
	fd = dir_below(root, path);
	if (fd < 0) {
		close(root);
		return fd;
	}
	err = 0;
	if (faccessat(fd, d->kernel ? "kallsyms" : "elf", F_OK, AT_SYMLINK_NOFOLLOW)) {
		if (d->kernel) {
			int in = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);

			err = in < 0 ? -errno : copy_fd(in, 0, fd, "kallsyms", 0644);
			if (in >= 0)
				close(in);
		} else {
			err = cache_dso(name, d, fd);
		}
	}
	close(fd);
	if (err) {
		close(root);
		return err;
	}
	/* DIR/.build-id/HE/X... -> ../../NAME/HEX */
	snprintf(link_, sizeof(link_), ".build-id/%.2s", hex);
	fd = dir_below(root, link_);
	close(root);
	if (fd < 0)
		return fd;
	if (snprintf(target, sizeof(target), "../..%s%s/%s", d->kernel ? "/" : "", name, hex) >=
	    (int)sizeof(target))
		err = -ENAMETOOLONG;
	else if (symlinkat(target, fd, hex + 2) && errno != EEXIST)
		err = -errno;
	close(fd);
	return err;
}
