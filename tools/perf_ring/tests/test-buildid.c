// SPDX-License-Identifier: GPL-2.0
/*
 * Build-ids: ELF notes, the DSOs of MMAP2 records, HEADER_BUILD_ID as perf
 * writes it (struct perf_record_header_build_id, tools/perf/util/header.c
 * write_buildid()), and the cache layout perf record makes.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "buildid.h"
#include "tap.h"

static char tmp[PATH_MAX];

/* a note: namesz 4 "GNU", type 3, desc */
static size_t put_note(char *p, u32 type, const char *name, const u8 *desc, u32 dlen)
{
	Elf64_Nhdr nh = { .n_namesz = strlen(name) + 1, .n_descsz = dlen, .n_type = type };
	size_t n = sizeof(nh);

	memcpy(p, &nh, sizeof(nh));
	memcpy(p + n, name, nh.n_namesz);
	n += (nh.n_namesz + 3) & ~3u;
	memcpy(p + n, desc, dlen);
	return n + ((dlen + 3) & ~3u);
}

static int test_notes(void)
{
	char buf[256] = { 0 };
	u8 id[20], want[20], got = 0;
	size_t n = 0;

	for (int i = 0; i < 20; i++)
		want[i] = 0xa0 + i;
	n += put_note(buf + n, 1, "GNU", (const u8 *)"abcd", 4);	/* ABI tag */
	n += put_note(buf + n, NT_GNU_BUILD_ID, "Linux", want, 20);	/* not GNU */
	CHECK(buildid_from_notes(buf, n, id, &got) == -ENOENT, "no GNU build-id note yet");
	n += put_note(buf + n, NT_GNU_BUILD_ID, "GNU", want, 20);
	CHECK(!buildid_from_notes(buf, n, id, &got) && got == 20 && !memcmp(id, want, 20),
	      "found after two others");
	CHECK(buildid_from_notes(buf, n - 4, id, &got) == -ENOENT, "a cut note is not read");
	return 0;
}

/* The test binary itself: Debian's gcc links with --build-id. */
static int test_elf(void)
{
	u8 id[20], size = 0, k[20], ks = 0;
	int err = buildid_from_elf("/proc/self/exe", id, &size);

	CHECK(!err, "/proc/self/exe: %s", strerror(-err));
	CHECK(size == 20, "sha1 build-id: %u bytes", size);
	CHECK(buildid_from_elf("/proc/self/status", id, &size) == -ENOEXEC, "not ELF");
	CHECK(buildid_from_elf("/nonexistent", id, &size) == -ENOENT, "no file");
	if (!buildid_kernel(k, &ks))
		CHECK(ks == 20, "the kernel's: %u bytes", ks);
	else
		printf("#   no /sys/kernel/notes: the kernel's build-id is not checked\n");
	return 0;
}

static size_t mmap2(char *p, u16 misc, u32 prot, const char *name, const u8 *id)
{
	/* header, pid tid start len pgoff, 24 bytes, prot flags, name */
	size_t nlen = ALIGN_UP(strlen(name) + 1, 8), size = 8 + 32 + 24 + 8 + nlen;
	struct perf_event_header h = { .type = PERF_RECORD_MMAP2, .misc = misc, .size = size };

	memset(p, 0, size);
	memcpy(p, &h, sizeof(h));
	if (id) {
		p[40] = 20;
		memcpy(p + 44, id, 20);
	}
	memcpy(p + 64, &prot, 4);
	strcpy(p + 72, name);
	return size;
}

static int test_scan(void)
{
	struct bidset s = { 0 };
	char rec[256];
	u8 id[20];

	memset(id, 0x5a, sizeof(id));
	mmap2(rec, PERF_RECORD_MISC_USER, PROT_READ | PROT_EXEC, "/usr/lib/a.so", NULL);
	bidset_scan_map(&s, rec);
	mmap2(rec, PERF_RECORD_MISC_USER | (1 << 14), PROT_READ | PROT_EXEC, "/usr/bin/b", id);
	bidset_scan_map(&s, rec);
	bidset_scan_map(&s, rec);	/* once per name */
	mmap2(rec, PERF_RECORD_MISC_USER, PROT_READ, "/usr/lib/data", NULL);
	bidset_scan_map(&s, rec);
	mmap2(rec, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, PROT_READ | PROT_EXEC,
	      "/usr/lib/d2", NULL);
	bidset_scan_map(&s, rec);
	mmap2(rec, PERF_RECORD_MISC_USER, PROT_READ | PROT_EXEC, "//anon", NULL);
	bidset_scan_map(&s, rec);
	mmap2(rec, PERF_RECORD_MISC_USER, PROT_READ | PROT_EXEC, "[vdso]", NULL);
	bidset_scan_map(&s, rec);
	CHECK(s.n == 2, "two code DSOs, got %d", s.n);
	CHECK(!strcmp(s.v[0].name, "/usr/lib/a.so") && !s.v[0].size, "a.so, id not known");
	CHECK(!strcmp(s.v[1].name, "/usr/bin/b") && s.v[1].size == 20 && !memcmp(s.v[1].id, id, 20),
	      "b with the kernel's build-id");
	bidset_free(&s);
	return 0;
}

static int test_section(void)
{
	struct bidset s = { 0 };
	struct pbuf b = { 0 };
	u8 id[20];
	struct perf_event_header h;
	u32 pid;

	for (int i = 0; i < 20; i++)
		id[i] = i;
	bidset_add(&s, BUILDID_KERNEL_NAME, id, 20, true);
	bidset_add(&s, "/bin/no-id", NULL, 0, false);		/* left out */
	bidset_add(&s, "/a/very/long/name/of/more/than/sixty/four/bytes/libsomething.so.1", id, 20, false);
	buildid_section(&s, &b);
	CHECK(b.len == 36 + 64 + 36 + 128, "two records: %zu bytes", b.len);
	memcpy(&h, b.p, sizeof(h));
	memcpy(&pid, b.p + 8, 4);
	CHECK(h.type == 0 && h.size == 100 && h.misc == (PERF_RECORD_MISC_KERNEL | (1 << 15)),
	      "kernel record: type %u size %u misc %#x", h.type, h.size, h.misc);
	CHECK(pid == (u32)-1, "host: pid -1");
	CHECK(!memcmp(b.p + 12, id, 20) && b.p[32] == 20 && !b.p[33] && !b.p[34] && !b.p[35],
	      "build-id, size, reserved");
	CHECK(!strcmp(b.p + 36, "[kernel.kallsyms]") && !b.p[99], "name, NUL-padded to 64");
	memcpy(&h, b.p + 100, sizeof(h));
	CHECK(h.size == 36 + 128 && h.misc == (PERF_RECORD_MISC_USER | (1 << 15)),
	      "user record: size %u misc %#x", h.size, h.misc);
	pbuf_free(&b);
	bidset_free(&s);
	return 0;
}

static int test_cache(void)
{
	char dir[PATH_MAX + 16], exe[PATH_MAX], p[3 * PATH_MAX], l[PATH_MAX], hex[41];
	struct dso_bid d = { 0 };
	struct stat a, b;
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s/.debug", tmp);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0, "readlink");
	exe[n] = 0;
	d.name = exe;
	CHECK(!buildid_from_elf(exe, d.id, &d.size), "own build-id");
	for (int i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", d.id[i]);
	CHECK(!buildid_cache_add(dir, &d), "add");
	CHECK(!buildid_cache_add(dir, &d), "add again: nothing to do");
	snprintf(p, sizeof(p), "%s%s/%s/elf", dir, exe, hex);
	CHECK(!stat(p, &a) && !stat(exe, &b) && a.st_size == b.st_size, "%s", p);
	snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	n = readlink(p, l, sizeof(l) - 1);
	CHECK(n > 0, "the link %s", p);
	l[n] = 0;
	snprintf(p, sizeof(p), "../..%s/%s", exe, hex);
	CHECK(!strcmp(l, p), "link to %s, not %s", p, l);
	snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	CHECK(!access(p, R_OK), "resolves: %s", p);
	return 0;
}

/*
 * A set reset between files (a flight recorder's snapshots): the names
 * added again are found with their old strings (no new malloc), fresh
 * (the old build-id gone), and only they are in the set; a new name
 * joins; the section has exactly the set's.  Over 3 rounds of 1,000
 * names, every other one added again.
 */
static int test_reset(void)
{
	struct bidset s = { 0 };
	const u8 id[20] = { 0xab, 0xcd };
	char *old[1000] = { 0 };
	char name[64];

	for (int i = 0; i < 1000; i++) {
		struct dso_bid *d;

		snprintf(name, sizeof(name), "/usr/lib/reset/lib%d.so", i);
		d = bidset_add(&s, name, id, 20, false);
		CHECK(d, "add %s", name);
		old[i] = d->name;
	}
	for (int round = 0; round < 3; round++) {
		struct pbuf b = { 0 };
		int live = 0;

		bidset_reset(&s);
		CHECK(s.n == 0 && !bidset_find(&s, "/usr/lib/reset/lib0.so"), "round %d: empty", round);
		for (int i = round % 2; i < 1000; i += 2) {
			struct dso_bid *d;

			snprintf(name, sizeof(name), "/usr/lib/reset/lib%d.so", i);
			d = bidset_add(&s, name, NULL, 0, i == 4);
			CHECK(d && d->name == old[i] && !d->size && d->kernel == (i == 4),
			      "round %d: %s found again, fresh", round, name);
			live++;
		}
		snprintf(name, sizeof(name), "/usr/lib/reset/new%d.so", round);
		CHECK(bidset_add(&s, name, id, 20, false) && bidset_find(&s, name), "new %s", name);
		live++;
		CHECK(s.n == live, "round %d: %d in the set, want %d", round, s.n, live);
		for (int i = 0; i < 1000; i++) {
			snprintf(name, sizeof(name), "/usr/lib/reset/lib%d.so", i);
			CHECK(!bidset_find(&s, name) == (i % 2 != round % 2),
			      "round %d: %s %s", round, name, bidset_find(&s, name) ? "in" : "not in");
		}
		for (int i = 0; i < s.n; i++)
			CHECK(bidset_find(&s, s.v[i].name) == &s.v[i], "index of %s", s.v[i].name);
		/* only the new name has a build-id: one record */
		buildid_section(&s, &b);
		CHECK(!b.err && b.len == sizeof(struct perf_event_header) + 4 + 20 + 4 + 64,
		      "round %d: section of %zu bytes", round, b.len);
		pbuf_free(&b);
	}
	bidset_free(&s);
	return 0;
}

/* DSO i's name: "/usr/lib/scale/libdsoN.so", or (tail) 23 bytes that differ in the last two */
static void dso_name(char *name, size_t len, int i, bool tail)
{
	static const char al[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

	if (tail)
		snprintf(name, len, "/usr/lib/scale/libdso%c%c", al[i / 62 % 62], al[i % 62]);
	else
		snprintf(name, len, "/usr/lib/scale/libdso%d.so", i);
}

/* names compared to add n DSOs (each twice, as output.c does) and find each */
static unsigned long set_compares(int n, bool tail)
{
	struct bidset s = { 0 };
	char name[64];
	unsigned long c;

	for (int i = 0; i < 2 * n; i++) {
		dso_name(name, sizeof(name), i % n, tail);
		if (!bidset_add(&s, name, NULL, 0, false))
			return 0;
	}
	for (int i = 0; i < n; i++) {
		dso_name(name, sizeof(name), i, tail);
		if (!bidset_find(&s, name) || strcmp(bidset_find(&s, name)->name, name))
			return 0;
	}
	dso_name(name, sizeof(name), n, tail);
	if (s.n != n || bidset_find(&s, name))
		return 0;
	c = s.compares;
	bidset_free(&s);
	return c;
}

/*
 * 20,000 DSOs: a list searched by name compares D x D / 2 names, 100 times
 * more at 10 times the DSOs; the index, about 10 times.
 */
static int test_many_dsos(void)
{
	unsigned long c1 = set_compares(2000, false), c10 = set_compares(20000, false);
	unsigned long ct = set_compares(3000, true);

	CHECK(c1 && c10, "a DSO was lost, found twice or found when absent");
	printf("# 2000 DSOs: %lu names compared; 20000: %lu; ratio %.2f\n", c1, c10,
	       (double)c10 / c1);
	CHECK(c10 < 20 * c1, "names compared grow %.1fx for 10x the DSOs", (double)c10 / c1);
	/*
	 * 80,000 lookups in all (each add twice, each find twice): a hash
	 * that spreads these names (one digit apart) over the index finds
	 * most at the first slot it looks at, at most half full
	 */
	CHECK(c10 < 2 * 80000, "%lu names compared for 80000 lookups", c10);
	/* the hash's low bits depend on the last bytes too (23 bytes: 7 after the last word) */
	CHECK(ct && ct < 2 * 12000, "%lu names compared for 12000 lookups of names that differ "
	      "only in their last two bytes", ct);
	return 0;
}

/*
 * The cache takes a DSO only when the file at its path is a regular file
 * with the mapping's build-id: not a rebuilt file, not a fifo (without
 * blocking on it).
 */
static int test_cache_checks(void)
{
	char dir[PATH_MAX + 16], exe[PATH_MAX], fifo[PATH_MAX + 16], p[3 * PATH_MAX], hex[41];
	struct dso_bid d = { 0 };
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s/.debug-checks", tmp);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0, "readlink");
	exe[n] = 0;
	d.name = exe;
	CHECK(!buildid_from_elf(exe, d.id, &d.size), "own build-id");
	d.id[0] ^= 0xff;	/* the mapping's build-id is not the file's */
	CHECK(buildid_cache_add(dir, &d) == -ESTALE, "a file with another build-id");
	for (int i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", d.id[i]);
	snprintf(p, sizeof(p), "%s%s/%s/elf", dir, exe, hex);
	CHECK(access(p, F_OK) && errno == ENOENT, "%s cached", p);
	snprintf(fifo, sizeof(fifo), "%s/lib-fifo", tmp);
	CHECK(!mkfifo(fifo, 0644), "mkfifo");
	d.name = fifo;
	/* a blocking open would hang here, with no writer */
	CHECK(buildid_cache_add(dir, &d) == -EINVAL, "a fifo");
	CHECK(buildid_from_elf(fifo, d.id, &d.size) == -ENOEXEC, "the build-id of a fifo");
	return 0;
}

int main(void)
{
	char cmd[PATH_MAX + 16];
	int r;

	tap_tmpname(tmp, sizeof(tmp), "buildid");
	if (!mkdtemp(tmp)) {
		perror(tmp);
		return 1;
	}
	tap_run("the GNU build-id note among ELF notes", test_notes);
	tap_run("an ELF file's build-id, and the kernel's", test_elf);
	tap_run("code DSOs from MMAP2 records, the kernel's build-ids kept", test_scan);
	tap_run("HEADER_BUILD_ID records as perf writes them", test_section);
	tap_run("the build-id cache as perf record fills it", test_cache);
	tap_run("20,000 DSOs: names compared grow linearly", test_many_dsos);
	tap_run("a set reset between files: names found again without a malloc, fresh",
		test_reset);
	tap_run("the cache takes only a regular file with the mapping's build-id", test_cache_checks);
	r = tap_done();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd))
		r = 1;
	return r;
}
