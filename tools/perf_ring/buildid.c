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

int buildid_from_elf(const char *path, u8 *id, u8 *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	struct stat st;
	const char *m;
	const Elf64_Ehdr *eh;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -ENOEXEC;
	}
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	eh = (const Elf64_Ehdr *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff + (u64)eh->e_phnum * sizeof(Elf64_Phdr) > (u64)st.st_size) {
		err = -ENOEXEC;
		goto out;
	}
	for (int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, m + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset + ph.p_filesz > (u64)st.st_size)
			continue;
		if (!buildid_from_notes(m + ph.p_offset, ph.p_filesz, id, size)) {
			err = 0;
			break;
		}
	}
out:
	munmap((void *)m, st.st_size);
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
 */
static unsigned int name_hash(const char *name)
{
	unsigned int h = 2166136261u;	/* FNV-1a */

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
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

	if (2 * (s->n + 1) <= s->nslot)
		return 0;
	slot = calloc(nslot, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (int i = 0; i < s->n; i++)
		slot_put(slot, nslot, s->v[i].name, i);
	free(s->slot);
	s->slot = slot;
	s->nslot = nslot;
	return 0;
}

struct dso_bid *bidset_find(const struct bidset *s, const char *name)
{
	struct bidset *m = (struct bidset *)s;	/* the compare count only */

	if (!s->nslot)
		return NULL;
	for (unsigned int k = name_hash(name) & (s->nslot - 1); s->slot[k];
	     k = (k + 1) & (s->nslot - 1)) {
		struct dso_bid *d = &s->v[s->slot[k] - 1];

		m->compares++;
		if (!strcmp(d->name, name))
			return d;
	}
	return NULL;
}

struct dso_bid *bidset_add(struct bidset *s, const char *name, const u8 *id, u8 size,
			   bool kernel)
{
	struct dso_bid *d = bidset_find(s, name);

	if (!d) {
		if (s->n == s->cap) {
			int cap = s->cap ? 2 * s->cap : 64;
			struct dso_bid *v = realloc(s->v, cap * sizeof(*v));

			if (!v)
				return NULL;
			s->v = v;
			s->cap = cap;
		}
		if (slot_grow(s))
			return NULL;
		d = &s->v[s->n];
		memset(d, 0, sizeof(*d));
		d->name = strdup(name);
		if (!d->name)
			return NULL;
		d->kernel = kernel;
		slot_put(s->slot, s->nslot, d->name, s->n);
		s->n++;
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

void bidset_free(struct bidset *s)
{
	for (int i = 0; i < s->n; i++)
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

static int mkdir_p(char *path)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536], tmp[PATH_MAX + 8];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp", to);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0 && !err)
		err = write_full(out, buf, n);
	if (n < 0 && !err)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, to))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int buildid_cache_add(const char *dir, const struct dso_bid *d)
{
	char hex[2 * BUILD_ID_MAX + 1], path[PATH_MAX], file[PATH_MAX + 16], link_[PATH_MAX];
	char target[PATH_MAX + 64], real[PATH_MAX];
	const char *name = d->name;
	struct stat st;
	int err;

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
	if (snprintf(path, sizeof(path), "%s%s%s/%s", dir, d->kernel ? "/" : "", name, hex) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	err = mkdir_p(path);
	if (err)
		return err;
	snprintf(file, sizeof(file), "%s/%s", path, d->kernel ? "kallsyms" : "elf");
	if (access(file, F_OK)) {
		if (d->kernel)
			err = copy_file("/proc/kallsyms", file, 0644);
		else if (link(name, file) && errno != EEXIST)
			err = stat(name, &st) ? -errno : copy_file(name, file, st.st_mode & 0777);
		if (err)
			return err;
	}
	/* DIR/.build-id/HE/X... -> ../../NAME/HEX */
	snprintf(link_, sizeof(link_), "%s/.build-id/%.2s", dir, hex);
	err = mkdir_p(link_);
	if (err)
		return err;
	snprintf(link_ + strlen(link_), sizeof(link_) - strlen(link_), "/%s", hex + 2);
	if (snprintf(target, sizeof(target), "../..%s%s/%s", d->kernel ? "/" : "", name, hex) >=
	    (int)sizeof(target))
		return -ENAMETOOLONG;
	if (symlink(target, link_) && errno != EEXIST)
		return -errno;
	return 0;
}
