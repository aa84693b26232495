// SPDX-License-Identifier: GPL-2.0
/*
 * Synthesis: the joined buffers do not depend on the number of threads,
 * and the records are well formed (COMM/FORK for each thread, MMAP2 for
 * executable mappings, sample_id trailer of the right size).  The BPF
 * task iterator and /proc give the same records.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/btf.h>

#include "synth.h"
#include "synth-iter.h"
#include "util.h"
#include "tap.h"

static int test_stable_order(void)
{
	pid_t pids[8];
	struct pbuf a = { 0 }, b = { 0 };
	struct synth_result ra, rb;
	u32 idh = synth_id_hdr_size(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				    PERF_SAMPLE_CPU);
	int n = 0;

	/*
	 * init several times over: stable content, several ranges.  (Not
	 * ourselves: the worker threads would show up in our own task list.)
	 */
	for (int i = 0; i < 8; i++)
		pids[n++] = 1;
	CHECK(synth_threads(pids, n, 1, idh, &a, &ra) == 0, "1 thread");
	CHECK(synth_threads(pids, n, 4, idh, &b, &rb) == 0, "4 threads");
	CHECK(a.len == b.len && !memcmp(a.p, b.p, a.len), "1 and 4 threads differ (%zu/%zu bytes)",
	      a.len, b.len);
	CHECK(ra.nr_comm >= 8 && ra.nr_fork == ra.nr_comm, "counts %llu %llu %llu",
	      (unsigned long long)ra.nr_comm, (unsigned long long)ra.nr_fork,
	      (unsigned long long)ra.nr_mmap2);
	for (size_t pos = 0; pos < a.len;) {
		struct perf_event_header h;

		memcpy(&h, a.p + pos, sizeof(h));
		CHECK(h.size >= 8 + idh && !(h.size & 7) && pos + h.size <= a.len, "record at %zu", pos);
		CHECK(h.type == PERF_RECORD_COMM || h.type == PERF_RECORD_FORK ||
		      h.type == PERF_RECORD_MMAP2, "type %u", h.type);
		pos += h.size;
	}
	pbuf_free(&a);
	pbuf_free(&b);
	return 0;
}

/*
 * The PROCMAP_QUERY ioctl and the text of /proc/PID/maps give the same
 * records, executable maps only and all of them.  (A stopped child: its
 * maps do not change between the two reads, as ours could.)
 */
static int test_maps_query(void)
{
	u32 idh = synth_id_hdr_size(PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	pid_t pid = fork();

	if (pid == 0) {
		raise(SIGSTOP);
		_exit(0);
	}
	CHECK(pid > 0, "fork: %s", strerror(errno));
	waitpid(pid, NULL, WUNTRACED);

	for (int data = 0; data < 2; data++) {
		struct pbuf a = { 0 }, b = { 0 };
		struct synth_result ra, rb;

		synth_set_data_maps(data);
		synth_set_maps_text(true);
		CHECK(synth_threads(&pid, 1, 1, idh, &a, &ra) == 0, "text");
		synth_set_maps_text(false);
		CHECK(synth_threads(&pid, 1, 1, idh, &b, &rb) == 0, "query");
		CHECK(ra.nr_mmap2 == rb.nr_mmap2, "data %d: %llu maps from the text, %llu by query",
		      data, (unsigned long long)ra.nr_mmap2, (unsigned long long)rb.nr_mmap2);
		CHECK(a.len == b.len && !memcmp(a.p, b.p, a.len),
		      "data %d: the records differ (%zu/%zu bytes)", data, a.len, b.len);
		CHECK(ra.nr_mmap2 > 0, "data %d: no maps", data);
		pbuf_free(&a);
		pbuf_free(&b);
	}
	synth_set_data_maps(false);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

/*
 * A process of named threads with a child process of its own, both
 * waiting: the names, parents and maps are known and do not change while
 * the two methods read them.
 */
static const char *const thread_names[] = {
	"synth-a", "fifteen-chars-x", "nl\nafter", "",
};
#define NTHREADS ((int)(sizeof(thread_names) / sizeof(thread_names[0])))

static void *named_thread(void *arg)
{
	prctl(PR_SET_NAME, arg);
	pause();
	return NULL;
}

/* the child's pid, its child's in *grandchild; -1 on failure */
static pid_t start_named(pid_t *grandchild)
{
	int fd[2];
	pid_t pid, gc = -1;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		close(fd[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		gc = fork();
		if (gc == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			prctl(PR_SET_NAME, "synth-grandkid");
			pause();
			_exit(0);
		}
		prctl(PR_SET_NAME, "synth-leader");
		for (int i = 0; i < NTHREADS; i++)
			if (pthread_create(&t, NULL, named_thread, (void *)thread_names[i]))
				_exit(1);
		/* the names are set when each thread's own comm file says so */
		for (int i = 0; i < 2000; i++) {
			char path[64], buf[64];
			int n = 0;
			DIR *d = opendir("/proc/self/task");
			struct dirent *de;

			while (d && (de = readdir(d))) {
				FILE *f;

				if (!isdigit((unsigned char)de->d_name[0]))
					continue;
				snprintf(path, sizeof(path), "/proc/self/task/%d/comm",
					 atoi(de->d_name));
				f = fopen(path, "r");
				if (f && fgets(buf, sizeof(buf), f) &&
				    strncmp(buf, "synth-leader", 12))
					n++;
				if (f)
					fclose(f);
			}
			if (d)
				closedir(d);
			if (n == NTHREADS)
				break;
			usleep(1000);
		}
		if (write(fd[1], &gc, sizeof(gc)) != sizeof(gc))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fd[1]);
	if (pid < 0 || read(fd[0], &gc, sizeof(gc)) != sizeof(gc)) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = -1;
	}
	close(fd[0]);
	*grandchild = gc;
	return pid;
}

/* the records of buf whose pid is in pids[], each as its own string */
struct recs {
	char **r;
	size_t *len;
	int n;
};

static int cmp_rec(const void *a, const void *b, void *arg)
{
	const struct recs *rs = arg;
	int i = *(const int *)a, j = *(const int *)b;
	size_t l = rs->len[i] < rs->len[j] ? rs->len[i] : rs->len[j];
	int c = memcmp(rs->r[i], rs->r[j], l);

	return c ?: (rs->len[i] > rs->len[j]) - (rs->len[i] < rs->len[j]);
}

static int pick(const struct pbuf *b, const pid_t *pids, int npids, struct recs *rs)
{
	rs->n = 0;
	rs->r = calloc(b->len / 8 + 1, sizeof(*rs->r));
	rs->len = calloc(b->len / 8 + 1, sizeof(*rs->len));
	if (!rs->r || !rs->len)
		return -1;
	for (size_t pos = 0; pos + 12 <= b->len;) {
		struct perf_event_header h;
		u32 pid;

		memcpy(&h, b->p + pos, sizeof(h));
		if (h.size < 12 || pos + h.size > b->len)
			return -1;
		memcpy(&pid, b->p + pos + sizeof(h), 4);	/* first in each body */
		for (int i = 0; i < npids; i++)
			if (pid == (u32)pids[i]) {
				rs->r[rs->n] = b->p + pos;
				rs->len[rs->n++] = h.size;
			}
		pos += h.size;
	}
	return 0;
}

/* the records of both, sorted, are the same: 0, or the first difference */
static int same_recs(const struct pbuf *a, const struct pbuf *b, const pid_t *pids, int npids,
		     char *msg, size_t mlen)
{
	struct recs ra, rb;
	int *ia = NULL, *ib = NULL, ret = -1;

	if (pick(a, pids, npids, &ra) || pick(b, pids, npids, &rb)) {
		snprintf(msg, mlen, "a malformed record");
		goto out;
	}
	if (ra.n != rb.n) {
		snprintf(msg, mlen, "%d records by the iterator, %d from /proc", ra.n, rb.n);
		goto out;
	}
	ia = calloc(ra.n + 1, sizeof(int));
	ib = calloc(rb.n + 1, sizeof(int));
	if (!ia || !ib)
		goto out;
	for (int i = 0; i < ra.n; i++)
		ia[i] = ib[i] = i;
	qsort_r(ia, ra.n, sizeof(int), cmp_rec, &ra);
	qsort_r(ib, rb.n, sizeof(int), cmp_rec, &rb);
	for (int i = 0; i < ra.n; i++) {
		const char *x = ra.r[ia[i]], *y = rb.r[ib[i]];
		struct perf_event_header h;

		if (ra.len[ia[i]] == rb.len[ib[i]] && !memcmp(x, y, ra.len[ia[i]]))
			continue;
		memcpy(&h, x, sizeof(h));
		snprintf(msg, mlen, "record %d of %d differs (iterator: type %u, %u bytes; "
			 "comm \"%.16s\" / \"%.16s\")", i, ra.n, h.type, h.size,
			 h.type == PERF_RECORD_COMM ? x + 16 : "", h.type == PERF_RECORD_COMM ?
			 y + 16 : "");
		goto out;
	}
	ret = 0;
out:
	free(ra.r);
	free(ra.len);
	free(rb.r);
	free(rb.len);
	free(ia);
	free(ib);
	return ret;
}

/* kthreadd and the kernel threads whose /proc name is longer than comm */
static int kernel_threads(pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	out[n++] = 2;
	while (d && (de = readdir(d)) && n < max) {
		char path[64], comm[64] = "", st[512];
		FILE *f;
		int fd;
		ssize_t len;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		/* field 4 of stat: the parent, 2 for kernel threads */
		snprintf(path, sizeof(path), "/proc/%d/stat", atoi(de->d_name));
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, st, sizeof(st) - 1);
		close(fd);
		if (len <= 0)
			continue;
		st[len] = 0;
		if (!strstr(st, ") S 2 ") && !strstr(st, ") I 2 "))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", atoi(de->d_name));
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		/* a kworker's name changes with its work: not stable enough */
		if (strlen(comm) > 16 && strncmp(comm, "kworker/", 8))
			out[n++] = atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * The BPF task iterator and /proc synthesize the same COMM, FORK and MMAP2
 * records: for a list of processes, and for the whole system, where the
 * records of the known processes are compared (the rest of the system
 * changes between the two).  Named threads, a name with a newline (cut
 * there, as /proc's text is read), a child's parent, kernel threads with
 * names longer than comm.
 */
static int test_iter_vs_proc(void)
{
	u32 idh = synth_id_hdr_size(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID);
	pid_t gc, pid = start_named(&gc), pids[40];
	struct pbuf a = { 0 }, b = { 0 };
	struct synth_result ra, rb;
	char msg[256];
	int np = 2, ret = -1;

	CHECK(pid > 0 && gc > 0, "cannot start the named threads");
	pids[0] = pid;
	pids[1] = gc;
	synth_set_method(SYNTH_ITER);
	if (synth_threads(pids, np, 1, idh, &a, &ra) || strcmp(ra.how, "BPF task iterator")) {
		printf("# SKIP iterator: %s\n", ra.how);
		ret = 0;
		goto out;
	}
	synth_set_method(SYNTH_PROC);
	if (synth_threads(pids, np, 1, idh, &b, &rb) || strncmp(rb.how, "/proc", 5)) {
		printf("#   /proc: %s\n", rb.how);
		goto out;
	}
	if (ra.nr_threads != NTHREADS + 2 || rb.nr_threads != NTHREADS + 2) {
		printf("#   %llu threads by the iterator, %llu from /proc, %d started\n",
		       (unsigned long long)ra.nr_threads, (unsigned long long)rb.nr_threads,
		       NTHREADS + 2);
		goto out;
	}
	if (same_recs(&a, &b, pids, np, msg, sizeof(msg))) {
		printf("#   a list of processes: %s\n", msg);
		goto out;
	}
	/* the newline cut the name as /proc's text does */
	if (!memmem(a.p, a.len, "nl\0", 3) || memmem(a.p, a.len, "after", 5)) {
		printf("#   the name with a newline is not cut at it\n");
		goto out;
	}
	pbuf_free(&a);
	pbuf_free(&b);

	np += kernel_threads(pids + np, 40 - np);
	synth_set_method(SYNTH_ITER);
	if (synth_threads(NULL, 0, 2, idh, &a, &ra) || strncmp(ra.how, "BPF task iterator", 17)) {
		printf("#   the whole system: %s\n", ra.how);
		goto out;
	}
	synth_set_method(SYNTH_PROC);
	if (synth_threads(NULL, 0, 2, idh, &b, &rb)) {
		printf("#   the whole system from /proc failed\n");
		goto out;
	}
	if (same_recs(&a, &b, pids, np, msg, sizeof(msg))) {
		printf("#   the whole system, %d processes compared: %s\n", np, msg);
		goto out;
	}
	printf("# %d processes compared, %llu threads on the system by the iterator\n", np,
	       (unsigned long long)ra.nr_threads);
	ret = 0;
out:
	synth_set_method(SYNTH_AUTO);
	pbuf_free(&a);
	pbuf_free(&b);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return ret;
}

static int test_kernel_map(void)
{
	struct pbuf a = { 0 };
	struct perf_event_header h;
	int err = synth_kernel_mmap(&a, 32);

	if (err == -ENOENT || err == -EACCES) {
		printf("# SKIP kernel map: /proc/kallsyms has no _text (restricted)\n");
		return 0;
	}
	CHECK(err == 0, "err %d", err);
	memcpy(&h, a.p, sizeof(h));
	CHECK(h.type == PERF_RECORD_MMAP && h.size == a.len, "record");
	CHECK(memmem(a.p, a.len, "[kernel.kallsyms]_text", 22), "name");
	{
		/* the same _text and _etext as a line-by-line reading */
		FILE *f = fopen("/proc/kallsyms", "r");
		unsigned long long x, text = 0, etext = 0, start, len;
		char t, name[256];

		CHECK(f, "/proc/kallsyms");
		while (fscanf(f, "%llx %c %255s%*[^\n]", &x, &t, name) == 3 && !(text && etext)) {
			if (!strcmp(name, "_text") && !text)
				text = x;
			else if (!strcmp(name, "_etext") && !etext)
				etext = x;
		}
		fclose(f);
		memcpy(&start, a.p + sizeof(h) + 8, 8);
		memcpy(&len, a.p + sizeof(h) + 16, 8);
		CHECK(start == text && len == (etext > text ? etext - text : ~0ULL - text),
		      "start %llx len %llx, kallsyms _text %llx _etext %llx", start, len, text, etext);
	}
	pbuf_free(&a);
	return 0;
}

/* Records of TYPE in a synthesized buffer: how many, and the first. */
static int count_type(const struct pbuf *a, u32 type, const char **first)
{
	struct perf_event_header h;
	int n = 0;

	*first = NULL;
	for (size_t pos = 0; pos + sizeof(h) <= a->len; pos += h.size) {
		memcpy(&h, a->p + pos, sizeof(h));
		if (h.size < sizeof(h))
			return -1;
		if (h.type == type && !n++)
			*first = a->p + pos;
	}
	return n;
}

/*
 * perf's --synth kinds and its options on synthesis: task without maps,
 * --namespaces (a NAMESPACES record per thread, as /proc/TID/ns says),
 * --proc-map-timeout (0: one map, flagged, then no more).
 */
static int test_kinds(void)
{
	pid_t pid = getpid();
	struct synth_result r;
	struct pbuf a = { 0 };
	struct perf_event_header h;
	const char *rec;
	struct stat st;
	u64 v[4];

	synth_set_method(SYNTH_PROC);
	synth_set_maps(false);
	CHECK(synth_threads(&pid, 1, 1, 16, &a, &r) == 0, "task only");
	CHECK(count_type(&a, PERF_RECORD_COMM, &rec) >= 1 &&
	      count_type(&a, PERF_RECORD_FORK, &rec) >= 1, "COMM and FORK");
	CHECK(count_type(&a, PERF_RECORD_MMAP2, &rec) == 0 && r.nr_mmap2 == 0,
	      "--synth=task: %d MMAP2", count_type(&a, PERF_RECORD_MMAP2, &rec));
	CHECK(count_type(&a, PERF_RECORD_NAMESPACES, &rec) == 0, "no NAMESPACES by default");
	pbuf_free(&a);

	synth_set_namespaces(true);
	CHECK(synth_threads(&pid, 1, 1, 16, &a, &r) == 0, "with namespaces");
	CHECK(count_type(&a, PERF_RECORD_NAMESPACES, &rec) == (int)r.nr_threads,
	      "a NAMESPACES record per thread: %d for %llu",
	      count_type(&a, PERF_RECORD_NAMESPACES, &rec), (unsigned long long)r.nr_threads);
	memcpy(&h, rec, sizeof(h));
	CHECK(h.size == sizeof(h) + 16 + 7 * 16 + 16, "size %u", h.size);
	memcpy(v, rec + sizeof(h), 16);
	CHECK((v[0] & 0xffffffff) == (u64)pid && v[1] == 7, "pid %llu, %llu namespaces",
	      (unsigned long long)(v[0] & 0xffffffff), (unsigned long long)v[1]);
	/* entry 5 is mnt, as perf orders them */
	memcpy(v, rec + sizeof(h) + 16 + 5 * 16, 16);
	CHECK(!stat("/proc/self/ns/mnt", &st) && v[0] == st.st_dev && v[1] == st.st_ino,
	      "mnt: %llu/%llx", (unsigned long long)v[0], (unsigned long long)v[1]);
	synth_set_namespaces(false);
	pbuf_free(&a);

	synth_set_maps(true);
	synth_set_map_timeout(0);
	CHECK(synth_threads(&pid, 1, 1, 16, &a, &r) == 0, "map timeout 0");
	CHECK(count_type(&a, PERF_RECORD_MMAP2, &rec) == 1, "--proc-map-timeout 0: %d MMAP2",
	      count_type(&a, PERF_RECORD_MMAP2, &rec));
	memcpy(&h, rec, sizeof(h));
	CHECK(h.misc & PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT, "flagged: misc %#x", h.misc);
	pbuf_free(&a);
	synth_set_map_timeout(500);
	CHECK(synth_threads(&pid, 1, 1, 16, &a, &r) == 0, "map timeout 500");
	CHECK(count_type(&a, PERF_RECORD_MMAP2, &rec) > 1, "500 ms: every map");
	pbuf_free(&a);
	synth_set_method(-1);
	return 0;
}

/* --all-cgroups: the cgroup2 tree, the root "/" first, ids as the kernel's handles */
static int test_cgroups(void)
{
	struct pbuf a = { 0 };
	struct perf_event_header h;
	const char *rec;
	u64 n = 0, id;
	int err = synth_cgroups(&a, 8, &n);

	if (err == -ENOENT) {
		printf("# SKIP cgroups: no cgroup2 mount\n");
		return 0;
	}
	CHECK(err == 0 && n >= 1, "err %d, %llu cgroups", err, (unsigned long long)n);
	CHECK(count_type(&a, PERF_RECORD_CGROUP, &rec) == (int)n, "one record each");
	memcpy(&h, rec, sizeof(h));
	memcpy(&id, rec + sizeof(h), 8);
	CHECK(!strcmp(rec + sizeof(h) + 8, "/") && h.size == sizeof(h) + 8 + 8 + 8,
	      "the root first: '%s', %u bytes", rec + sizeof(h) + 8, h.size);
	CHECK(id != 0, "root id %llu", (unsigned long long)id);
	pbuf_free(&a);
	return 0;
}

/*
 * BTF built here, type by type, for the parser of the kernel's BTF: the
 * names it looks for, where they are and what is around them.
 */
#define BB_INFO(kind, kflag, vlen) ((uint32_t)(kflag) << 31 | (uint32_t)(kind) << 24 | (vlen))
#define BB_INT_BITS(bits) (bits)	/* encoding 0, offset 0 */

struct btf_build {
	unsigned char types[8192];
	char strs[512];
	uint32_t tlen, slen, n;
	uint32_t need_end;	/* where the last type the parser needs ends in types */
};

static uint32_t bb_str(struct btf_build *bb, const char *s)
{
	uint32_t off = bb->slen;

	if (!bb->slen) {		/* offset 0: the empty string */
		bb->strs[0] = 0;
		bb->slen = off = 1;
	}
	if (!*s)
		return 0;
	/* each string once, as in the kernel's BTF */
	for (uint32_t o = 1; o < bb->slen; o += strlen(bb->strs + o) + 1)
		if (!strcmp(bb->strs + o, s))
			return o;
	strcpy(bb->strs + off, s);
	bb->slen += strlen(s) + 1;
	return off;
}

/* a type of KIND with VLEN and SIZE_OR_TYPE, then EXTRA bytes after it: its id */
static uint32_t bb_type(struct btf_build *bb, const char *name, int kind, int vlen, bool kflag,
			uint32_t size_or_type, const void *extra, size_t extra_len)
{
	struct btf_type t = {
		.name_off = bb_str(bb, name),
		.info = BB_INFO(kind, kflag, vlen),
		.size = size_or_type,
	};

	memcpy(bb->types + bb->tlen, &t, sizeof(t));
	if (extra_len)
		memcpy(bb->types + bb->tlen + sizeof(t), extra, extra_len);
	bb->tlen += sizeof(t) + extra_len;
	return ++bb->n;
}

static uint32_t bb_int(struct btf_build *bb, const char *name, int bytes)
{
	uint32_t enc = BB_INT_BITS(bytes * 8);

	return bb_type(bb, name, BTF_KIND_INT, 0, false, bytes, &enc, sizeof(enc));
}

/*
 * The blob: header, strings, then the first TLEN bytes of the types, in
 * a buffer of exactly that size, so that a read past the cut types is a
 * read past the buffer, which ASan sees (make tools-asan); its size in
 * *len.  The types start 4-byte aligned, as the parser requires.
 */
static void *bb_blob(const struct btf_build *bb, uint32_t tlen, size_t *len)
{
	uint32_t toff = (bb->slen + 3) & ~3u;
	struct btf_header h = {
		.magic = BTF_MAGIC, .version = BTF_VERSION, .hdr_len = sizeof(h),
		.type_off = toff, .type_len = tlen, .str_off = 0, .str_len = bb->slen,
	};
	unsigned char *b = calloc(1, sizeof(h) + toff + tlen);

	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), bb->strs, bb->slen);
	memcpy(b + sizeof(h) + toff, bb->types, tlen);
	*len = sizeof(h) + toff + tlen;
	return b;
}

/* bit offsets of pid, tgid, flags, comm and real_parent in the test's task_struct */
#define BB_PID 0
#define BB_TGID 32
#define BB_FLAGS 64
#define BB_COMM 128
#define BB_PARENT 512

/*
 * task_struct and its member types, the FUNC, and a 96-type filler
 * around them (more than the parser's index stride of 64).  ORDER: 0
 * the struct's member types first, 1 the FUNC before the member types
 * and 70 types between (found by a walk that goes on later, across a
 * stride), 2 the FUNC and an unknown kind after all of it, 3 an unknown
 * kind before the FUNC.  The member pid
 * sits in an anonymous union, as in some kernels' layouts.
 */
static uint32_t bb_task(struct btf_build *bb, int order)
{
	uint32_t t_int, t_char, t_arr, t_ptr, t_union, t_task, t_func, proto;
	struct btf_array arr;
	struct btf_member um[1], tm[5];

	bb_type(bb, "task_struct", BTF_KIND_FWD, 0, false, 0, NULL, 0);	/* no members: skipped */
	for (int i = 0; i < 96; i++)
		bb_int(bb, i % 2 ? "filler" : "", 8);
	if (order == 3)
		bb_type(bb, "", 31, 0, false, 0, NULL, 0);
	/* ids are known before the types are written: the struct refers forward */
	t_task = bb->n + 1;
	/* order 1: the FUNC and its FUNC_PROTO come between the struct and its members */
	t_int = t_task + (order == 1 ? 3 + 70 : 1);
	t_char = t_int + 1;
	t_arr = t_char + 1;
	t_ptr = t_arr + 1;
	t_union = t_ptr + 1;
	tm[0] = (struct btf_member){ .name_off = bb_str(bb, ""), .type = t_union, .offset = BB_PID };
	tm[1] = (struct btf_member){ .name_off = bb_str(bb, "tgid"), .type = t_int,
				     .offset = BB_TGID };
	tm[2] = (struct btf_member){ .name_off = bb_str(bb, "flags"), .type = t_int,
				     .offset = BB_FLAGS };
	tm[3] = (struct btf_member){ .name_off = bb_str(bb, "comm"), .type = t_arr,
				     .offset = BB_COMM };
	tm[4] = (struct btf_member){ .name_off = bb_str(bb, "real_parent"), .type = t_ptr,
				     .offset = BB_PARENT };
	bb_type(bb, "task_struct", BTF_KIND_STRUCT, 5, false, 128, tm, sizeof(tm));
	if (order == 1) {
		proto = bb->n + 2;
		t_func = bb_type(bb, "bpf_iter_task", BTF_KIND_FUNC, 0, false, proto, NULL, 0);
		bb_type(bb, "", BTF_KIND_FUNC_PROTO, 0, false, t_int, NULL, 0);
		for (int i = 0; i < 70; i++)
			bb_int(bb, "filler", 8);
	}
	bb_int(bb, "int", 4);
	bb_int(bb, "char", 1);
	arr = (struct btf_array){ .type = t_char, .index_type = t_int, .nelems = 16 };
	bb_type(bb, "", BTF_KIND_ARRAY, 0, false, 0, &arr, sizeof(arr));
	bb_type(bb, "", BTF_KIND_PTR, 0, false, t_task, NULL, 0);
	um[0] = (struct btf_member){ .name_off = bb_str(bb, "pid"), .type = t_int, .offset = 0 };
	bb_type(bb, "", BTF_KIND_UNION, 1, false, 4, um, sizeof(um));
	bb->need_end = bb->tlen;
	for (int i = 0; i < 96; i++)
		bb_int(bb, "filler", 8);
	if (order != 1) {
		t_func = bb_type(bb, "bpf_iter_task", BTF_KIND_FUNC, 0, false, bb->n + 2, NULL,
				 0);
		bb->need_end = bb->tlen;
		bb_type(bb, "", BTF_KIND_FUNC_PROTO, 0, false, t_int, NULL, 0);
	}
	if (order == 2)
		bb_type(bb, "", 31, 0, false, 0, NULL, 0);
	return t_func;
}

static int test_btf_parse(void)
{
	struct btf_build bb;
	struct synth_iter_btf b;
	const char *why;
	size_t len;
	void *blob;
	uint32_t func;
	int err;

	for (int order = 0; order < 4; order++) {
		memset(&bb, 0, sizeof(bb));
		func = bb_task(&bb, order);
		blob = bb_blob(&bb, bb.tlen, &len);
		memset(&b, 0xff, sizeof(b));
		why = NULL;
		err = synth_iter_btf_parse(blob, len, &b, &why);
		if (order == 3) {
			CHECK(err == -EINVAL && why && strstr(why, "type kind"),
			      "an unknown kind before the FUNC: %d, %s", err, why ? why : "-");
		} else {
			CHECK(err == 0, "order %d: %d, %s", order, err, why ? why : "-");
			CHECK(b.attach_id == func, "order %d: attach id %u, not %u", order,
			      b.attach_id, func);
			CHECK(b.off_pid == BB_PID / 8 && b.off_tgid == BB_TGID / 8 &&
			      b.off_flags == BB_FLAGS / 8 && b.off_comm == BB_COMM / 8 &&
			      b.off_parent == BB_PARENT / 8,
			      "order %d: offsets %u %u %u %u %u", order, b.off_pid, b.off_tgid,
			      b.off_flags, b.off_comm, b.off_parent);
		}
		/*
		 * The types cut at every 4-byte boundary: an error while what
		 * the parser needs is not all there, the same result once it
		 * is, never a read past the cut.
		 */
		for (uint32_t cut = 0; cut < bb.tlen; cut += 4) {
			struct synth_iter_btf c;
			size_t clen;
			void *cb = bb_blob(&bb, cut, &clen);

			err = synth_iter_btf_parse(cb, clen, &c, &why);
			free(cb);
			if (order == 3 || cut < bb.need_end)
				CHECK(err < 0, "order %d, types cut at %u: %d", order, cut, err);
			else
				CHECK(err == 0 && !memcmp(&b, &c, sizeof(b)),
				      "order %d, types cut at %u: %d", order, cut, err);
		}
		CHECK(synth_iter_btf_parse(blob, len - 1, &b, &why) == -EINVAL,
		      "order %d: the blob one byte short", order);
		((struct btf_header *)blob)->str_len--;
		err = synth_iter_btf_parse(blob, len, &b, &why);
		CHECK(err == -EINVAL && strstr(why, "NUL"), "order %d: strings cut: %d", order, err);
		free(blob);
	}
	/* no such names at all: said so, and no anonymous type taken for them */
	memset(&bb, 0, sizeof(bb));
	bb_int(&bb, "int", 4);
	bb_type(&bb, "", BTF_KIND_STRUCT, 0, false, 0, NULL, 0);
	bb_type(&bb, "", BTF_KIND_FUNC, 0, false, 0, NULL, 0);
	blob = bb_blob(&bb, bb.tlen, &len);
	err = synth_iter_btf_parse(blob, len, &b, &why);
	free(blob);
	CHECK(err == -ENOENT && strstr(why, "bpf_iter_task"), "no names: %d, %s", err, why);
	/* a struct that is its own anonymous member: the work is bounded */
	memset(&bb, 0, sizeof(bb));
	{
		struct btf_member self[64];

		for (int i = 0; i < 64; i++)
			self[i] = (struct btf_member){ .name_off = 0, .type = 1, .offset = 0 };
		bb_type(&bb, "task_struct", BTF_KIND_STRUCT, 64, false, 8, self, sizeof(self));
		bb_type(&bb, "bpf_iter_task", BTF_KIND_FUNC, 0, false, 0, NULL, 0);
	}
	blob = bb_blob(&bb, bb.tlen, &len);
	err = synth_iter_btf_parse(blob, len, &b, &why);
	free(blob);
	CHECK(err == -ENOENT, "a struct that holds itself: %d, %s", err, why);
	return 0;
}

/* /proc entries: pids and tids only, every other name refused */
static int test_proc_entry_pid(void)
{
	static const struct {
		const char *name;
		int pid;
	} t[] = {
		{ "1", 1 }, { "4194304", 4194304 }, { "2147483647", 2147483647 },
		{ "2147483648", -1 }, { "99999999999999999999", -1 }, { "", -1 },
		{ "self", -1 }, { "thread-self", -1 }, { "12a", -1 }, { "-1", -1 },
		{ " 1", -1 }, { "1 ", -1 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK(proc_entry_pid(t[i].name) == t[i].pid, "'%s': %d, not %d", t[i].name,
		      proc_entry_pid(t[i].name), t[i].pid);
	return 0;
}

int main(void)
{
	tap_run("joined synthesis does not depend on the thread count", test_stable_order);
	tap_run("kernel map record", test_kernel_map);
	tap_run("--synth=task, --namespaces and --proc-map-timeout as perf's", test_kinds);
	tap_run("--all-cgroups: CGROUP records of the cgroup2 tree", test_cgroups);
	tap_run("PROCMAP_QUERY and /proc/PID/maps text give the same maps", test_maps_query);
	tap_run("the BPF task iterator and /proc give the same records", test_iter_vs_proc);
	tap_run("the kernel's BTF: the two names, member offsets, bad and cut types",
		test_btf_parse);
	tap_run("/proc entry names: pids only", test_proc_entry_pid);
	return tap_done();
}
