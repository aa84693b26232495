/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build-ids: the set of DSOs a file maps, with their build-ids (from the
 * kernel's MMAP2 records with attr.build_id, else the ELF notes of the
 * files), written as perf's HEADER_BUILD_ID feature section, and perf's
 * build-id cache (~/.debug) that perf report and perf archive look in.
 */
#ifndef PERF_RING_BUILDID_H
#define PERF_RING_BUILDID_H

#include "perfdata.h"

#define BUILD_ID_MAX 20
#define BUILDID_KERNEL_NAME "[kernel.kallsyms]"

struct dso_bid {
	char *name;
	u8 id[BUILD_ID_MAX];
	u8 size;		/* 0: not known (yet) */
	bool tried;		/* the ELF notes were read (size 0: none) */
	bool kernel;
	bool cached;		/* in the build-id cache */
};

/*
 * v[0 .. n) are the set; v[n .. nall) are names of an earlier use kept
 * by bidset_reset(), found again without a malloc (bidset_add()).
 */
struct bidset {
	struct dso_bid *v;
	int n, nall, cap;
	int *slot;		/* index by name: v's index + 1, 0 empty; nslot a power of 2 */
	int nslot;
	unsigned long compares;	/* names compared by bidset_find(), for the tests */
};

/*
 * The NT_GNU_BUILD_ID note among the ELF notes in buf (a PT_NOTE segment,
 * or /sys/kernel/notes).  0, or -ENOENT.
 */
int buildid_from_notes(const char *buf, size_t len, u8 *id, u8 *size);
/* The build-id of an ELF file (64-bit, native byte order).  0 or -errno. */
int buildid_from_elf(const char *path, u8 *id, u8 *size);
/* The same, of the file open at fd: a regular file only (-ENOEXEC else). */
int buildid_from_fd(int fd, u8 *id, u8 *size);
/* The running kernel's, from /sys/kernel/notes. */
int buildid_kernel(u8 *id, u8 *size);

/* Add name (id may be NULL: not known yet); one entry per name. */
struct dso_bid *bidset_add(struct bidset *s, const char *name, const u8 *id, u8 size,
			   bool kernel);
struct dso_bid *bidset_find(const struct bidset *s, const char *name);
/*
 * An MMAP or MMAP2 record: add its file when it maps code from a file
 * (not //anon, [vdso], [stack], nor a data mapping).
 */
void bidset_scan_map(struct bidset *s, const char *rec);
void bidset_free(struct bidset *s);
/*
 * Empty the set, keeping its names and index for the next use: a flight
 * recorder's snapshots name the same DSOs each time.
 */
void bidset_reset(struct bidset *s);

/*
 * HEADER_BUILD_ID as perf writes it (header.c write_buildid()): per DSO
 * with a known build-id, a struct perf_record_header_build_id (header
 * with misc KERNEL or USER | BUILD_ID_SIZE, pid -1 for the host, the
 * build-id in 20 bytes then its size) and the name, NUL-padded to 64.
 */
void buildid_section(const struct bidset *s, struct pbuf *out);

/* perf's cache directory: $PERF_BUILDID_DIR, else $HOME/.debug. */
int buildid_cache_dir(char *buf, size_t len);
/*
 * Put d into the cache under dir as perf record does: DIR/NAME/HEX/elf
 * (a hard link, else a copy; kallsyms for the kernel, a copy of
 * /proc/kallsyms) and the link DIR/.build-id/HE/X... -> ../../NAME/HEX.
 */
int buildid_cache_add(const char *dir, const struct dso_bid *d);

#endif
