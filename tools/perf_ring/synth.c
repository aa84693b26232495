// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "prio.h"
#include "synth.h"
#include "synth-iter.h"
#include "testhooks.h"

u32 synth_id_hdr_size(u64 st)
{
	u32 n = 0;

	if (st & PERF_SAMPLE_TID)
		n += 8;
	if (st & PERF_SAMPLE_TIME)
		n += 8;
	if (st & PERF_SAMPLE_ID)
		n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (st & PERF_SAMPLE_CPU)
		n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

/* header, body, NUL-terminated string padded to 8, zeroed sample_id */
static void put_rec(struct pbuf *out, u32 type, u16 misc, const void *body,
		    size_t blen, const char *str, u32 id_hdr)
{
	size_t slen = str ? strlen(str) + 1 : 0;
	size_t spad = str ? ALIGN_UP(slen, 8) : 0;
	struct perf_event_header h = {
		.type = type, .misc = misc,
		.size = sizeof(h) + blen + spad + id_hdr,
	};

	pbuf_put(out, &h, sizeof(h));
	pbuf_put(out, body, blen);
	if (str) {
		pbuf_put(out, str, slen);
		pbuf_zero(out, spad - slen);
	}
	pbuf_zero(out, id_hdr);
}

/*
 * The address of kallsyms symbol NAME in the text between p and end, or 0.
 * Lines are "ADDR T NAME" or "ADDR T NAME\t[module]"; the kernel's own
 * symbols come first.
 */
static unsigned long long kallsyms_find(const char *p, const char *end, const char *name)
{
	size_t nl = strlen(name);

	for (const char *q = p; (q = memmem(q, end - q, name, nl)); q += nl) {
		const char *ls = q;

		/* " NAME\n", with the address at the start of its line */
		if (q - p < 3 || q[-1] != ' ' || q[-3] != ' ' || q + nl >= end || q[nl] != '\n')
			continue;
		while (ls > p && ls[-1] != '\n')
			ls--;
		return strtoull(ls, NULL, 16);
	}
	return 0;
}

/*
 * The size of the kernel's text from /proc/iomem's "Kernel code" range
 * (x86: the physical addresses of _text up to _etext), or 0: not there, or
 * the addresses hidden (read without CAP_SYS_ADMIN they are all zero).
 * /proc/kallsyms has _etext only after every text symbol: generating that
 * much of it costs the kernel tens of millions of instructions.
 */
static unsigned long long iomem_text_len(void)
{
	unsigned long long a = 0, b = 0;
	char *txt = NULL, *l;

	if (read_text_file("/proc/iomem", &txt, NULL))
		return 0;
	l = strstr(txt, " : Kernel code\n");
	if (l) {
		while (l > txt && l[-1] != '\n')
			l--;
		if (sscanf(l, " %llx-%llx", &a, &b) != 2 || b <= a)
			a = b = 0;
	}
	free(txt);
	return b > a ? b - a + 1 : 0;
}

int synth_kernel_mmap(struct pbuf *out, u32 id_hdr)
{
	unsigned long long text = 0, etext = 0;
	size_t cap = 1 << 20, len = 0, keep;
	struct { u32 pid, tid; u64 start, len, pgoff; } b;
	char *buf = malloc(cap);
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		int err = fd < 0 ? -errno : -ENOMEM;

		if (fd >= 0)
			close(fd);
		free(buf);
		return err;
	}
	/*
	 * Big reads, searched for the two names as they come: no per-line
	 * parsing of the tens of thousands of lines before _etext, and no
	 * reading up to it when /proc/iomem tells the text's size.  The last
	 * partial line is kept for the next read.
	 */
	for (;;) {
		ssize_t n = read(fd, buf + len, cap - len);
		char *last;

		if (n <= 0)
			break;
		len += n;
		last = memrchr(buf, '\n', len);
		if (!last)
			break;		/* a line longer than the buffer */
		keep = buf + len - (last + 1);
		if (!text) {
			unsigned long long tlen;

			text = kallsyms_find(buf, last + 1, "_text");
			tlen = text ? iomem_text_len() : 0;
			if (tlen)
				etext = text + tlen;
		}
		if (!etext)
			etext = kallsyms_find(buf, last + 1, "_etext");
		if (text && etext)
			break;
		memmove(buf, last + 1, keep);
		len = keep;
	}
	close(fd);
	free(buf);
	if (!text)
		return -ENOENT;	/* restricted kallsyms */
	b.pid = (u32)-1;
	b.tid = 0;
	b.start = text;
	b.len = etext > text ? etext - text : ~0ULL - text;
	b.pgoff = text;
	put_rec(out, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, &b, sizeof(b),
		"[kernel.kallsyms]_text", id_hdr);
	return out->err;
}

/* The comm of a thread: PATH relative to DIRFD. */
static int read_comm_at(int dirfd, const char *path, char *comm, size_t len)
{
	ssize_t n;
	int fd;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* at most TASK_COMM_LEN and a newline: one read holds it all */
	n = read(fd, comm, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	comm[n] = 0;
	comm[strcspn(comm, "\n")] = 0;
	return 0;
}

/*
 * The comm of a thread, through its process's task directory: NAME is
 * the thread's entry there, its tid in decimal, used as it is (a
 * formatted path cost more than the read, per thread).
 */
static int read_comm(int taskfd, const char *name, char *comm, size_t len)
{
	static const char file[] = "/comm";
	size_t n = strlen(name);
	char path[32];

	if (n + sizeof(file) > sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, name, n);
	memcpy(path + n, file, sizeof(file));
	return read_comm_at(taskfd, path, comm, len);
}

static bool task_maps = true;	/* --synth=task: no MMAP2 */
static bool namespaces;		/* --namespaces */

void synth_set_maps(bool on)
{
	task_maps = on;
}

void synth_set_namespaces(bool on)
{
	namespaces = on;
}

/* --call-graph dwarf: the unwinder reads .eh_frame from read-only maps too */
static bool data_maps;

void synth_set_data_maps(bool on)
{
	data_maps = on;
}

/*
 * PROCMAP_QUERY (Linux 6.11+, linux/fs.h): the mappings of a process, one
 * ioctl on /proc/PID/maps each, in binary, filtered by the kernel.  Defined
 * here for older headers; a kernel without it answers ENOTTY (or EINVAL),
 * and the text of /proc/PID/maps is parsed instead from then on.
 */
struct pr_procmap_query {
	u64 size, query_flags, query_addr;
	u64 vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	u32 dev_major, dev_minor, vma_name_size, build_id_size;
	u64 vma_name_addr, build_id_addr;
};
#define PR_PROCMAP_QUERY _IOWR('f', 17, struct pr_procmap_query)
#define PR_PMQ_READ 0x01
#define PR_PMQ_WRITE 0x02
#define PR_PMQ_EXEC 0x04
#define PR_PMQ_SHARED 0x08
#define PR_PMQ_COVERING_OR_NEXT 0x10

static int maps_query = 1;	/* 1: try the ioctl, 0: text only */

void synth_set_maps_text(bool on)
{
	maps_query = !on;
}

struct map2 {
	u32 pid, tid;
	u64 start, len, pgoff;
	u32 maj, min;
	u64 ino, ino_gen;
	u32 prot, flags;
};

/*
 * --proc-map-timeout, as perf: reading a process's maps past this long
 * (default 500 ms) stops after one more map, which is flagged
 * PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT so that perf report can say the
 * maps are incomplete.
 */
static u64 map_timeout_ns = 500000000ULL;

void synth_set_map_timeout(unsigned int ms)
{
	map_timeout_ns = ms * 1000000ULL;
}

/* Is this map the last of a read that took too long (started at t0)? */
static bool map_timed_out(u64 t0, pid_t pid)
{
	if (now_ns() - t0 <= map_timeout_ns)
		return false;
	fprintf(stderr, "perf-ring record: warning: reading /proc/%d/maps timed out; you may "
		"want to increase the time limit by --proc-map-timeout\n", pid);
	return true;
}

static void put_map(struct pbuf *out, struct map2 *b, const char *name, u32 id_hdr,
		    struct synth_result *r, bool last)
{
	put_rec(out, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
		(b->prot & PROT_EXEC ? 0 : PERF_RECORD_MISC_MMAP_DATA) |
		(last ? PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT : 0), b, sizeof(*b),
		*name ? name : "//anon", id_hdr);
	r->nr_mmap2++;
}

/*
 * The gate area ([vsyscall]) is in every process's maps text but is no VMA
 * of its mm, so PROCMAP_QUERY does not see it: it is taken once from our
 * own maps and added after each process's.
 */
static struct { bool read, have; u64 start, end; char name[32]; } gate;

static void read_gate(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");

	gate.read = true;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		char perm[8];
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perm, &n) < 3 || !n ||
		    a < 0xffff800000000000ULL || perm[2] != 'x')
			continue;
		gate.have = true;
		gate.start = a;
		gate.end = b;
		snprintf(gate.name, sizeof(gate.name), "%.*s", (int)strcspn(line + n, "\n"),
			 line + n);
	}
	fclose(f);
}

/* 0, or -ENOTTY when the kernel has no PROCMAP_QUERY (nothing was put). */
static int synth_maps_query(int fd, pid_t pid, u32 id_hdr, struct pbuf *out,
			    struct synth_result *r)
{
	char name[4096];
	u64 addr = 0, t0 = now_ns();
	bool last = false;

	while (!last) {
		struct pr_procmap_query q = {
			.size = sizeof(q),
			.query_flags = PR_PMQ_COVERING_OR_NEXT | (data_maps ? 0 : PR_PMQ_EXEC),
			.query_addr = addr,
			.vma_name_size = sizeof(name),
			.vma_name_addr = (u64)(unsigned long)name,
		};
		struct map2 b = { 0 };

		if (ioctl(fd, PR_PROCMAP_QUERY, &q)) {
			if (errno == ENOENT)
				break;		/* no mapping at or after addr */
			if (errno == ENOTTY || (errno == EINVAL && !addr))
				return -ENOTTY;
			return 0;		/* gone meanwhile */
		}
		if (!q.vma_name_size)
			name[0] = 0;
		b.pid = b.tid = pid;
		b.start = q.vma_start;
		b.len = q.vma_end - q.vma_start;
		b.pgoff = q.vma_offset;
		b.maj = q.dev_major;
		b.min = q.dev_minor;
		b.ino = q.inode;
		b.prot = (q.vma_flags & PR_PMQ_READ ? PROT_READ : 0) |
			 (q.vma_flags & PR_PMQ_WRITE ? PROT_WRITE : 0) |
			 (q.vma_flags & PR_PMQ_EXEC ? PROT_EXEC : 0);
		b.flags = q.vma_flags & PR_PMQ_SHARED ? MAP_SHARED : MAP_PRIVATE;
		last = map_timed_out(t0, pid);
		put_map(out, &b, name, id_hdr, r, last);
		addr = q.vma_end;
	}
	if (gate.have && !last) {
		struct map2 b = { .pid = pid, .tid = pid, .start = gate.start,
				  .len = gate.end - gate.start, .prot = PROT_EXEC,
				  .flags = MAP_PRIVATE };

		put_map(out, &b, gate.name, id_hdr, r, false);
	}
	return 0;
}

static void synth_maps(pid_t pid, u32 id_hdr, struct pbuf *out, struct synth_result *r)
{
	char path[64], line[4096];
	u64 t0 = now_ns();
	bool last = false;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (__atomic_load_n(&maps_query, __ATOMIC_RELAXED)) {
		if (synth_maps_query(fd, pid, id_hdr, out, r) != -ENOTTY) {
			close(fd);
			return;
		}
		__atomic_store_n(&maps_query, 0, __ATOMIC_RELAXED);
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return;
	}
	while (!last && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned int maj, min;
		char perm[8];
		int n = 0;
		struct map2 b;
		char *name;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
			   perm, &pgoff, &maj, &min, &ino, &n) < 7)
			continue;
		if (perm[2] != 'x' && !data_maps)
			continue;	/* perf resolves code addresses only */
		name = line + n;
		name[strcspn(name, "\n")] = 0;
		memset(&b, 0, sizeof(b));
		b.pid = b.tid = pid;
		b.start = start;
		b.len = end - start;
		b.pgoff = pgoff;
		b.maj = maj;
		b.min = min;
		b.ino = ino;
		b.prot = (perm[0] == 'r' ? PROT_READ : 0) | (perm[1] == 'w' ? PROT_WRITE : 0) |
			 (perm[2] == 'x' ? PROT_EXEC : 0);
		b.flags = perm[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		last = map_timed_out(t0, pid);
		put_map(out, &b, name, id_hdr, r, last);
	}
	fclose(f);
}

static pid_t parent_of(pid_t pid)
{
	char path[64], *s, *p;
	pid_t pp = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_text_file(path, &s, NULL))
		return 0;
	p = strstr(s, "\nPPid:");
	if (p)
		pp = atoi(p + 6);
	free(s);
	return pp;
}

/*
 * perf's order of the namespaces in a NAMESPACES record (NET_NS_INDEX ...
 * CGROUP_NS_INDEX), each as the device and inode of /proc/TID/ns/NAME.
 * One that cannot be read (a kernel without it, the thread gone) is 0/0.
 */
static const char *const ns_names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };

static void put_namespaces(struct pbuf *out, pid_t pid, pid_t tid, u32 id_hdr)
{
	struct { u32 pid, tid; u64 nr; struct { u64 dev, ino; } ns[ARRAY_SIZE(ns_names)]; } b;
	char path[64];

	memset(&b, 0, sizeof(b));
	b.pid = pid;
	b.tid = tid;
	b.nr = ARRAY_SIZE(ns_names);
	for (size_t i = 0; i < ARRAY_SIZE(ns_names); i++) {
		struct stat st;

		snprintf(path, sizeof(path), "/proc/%d/ns/%s", tid, ns_names[i]);
		if (!stat(path, &st)) {
			b.ns[i].dev = st.st_dev;
			b.ns[i].ino = st.st_ino;
		}
	}
	put_rec(out, PERF_RECORD_NAMESPACES, 0, &b, sizeof(b), NULL, id_hdr);
}

/*
 * FORK, which tells perf how the thread relates to its parent, and COMM;
 * with --namespaces the thread's NAMESPACES between them, as perf.
 */
static void put_thread(struct pbuf *out, pid_t pid, pid_t tid, pid_t ppid, const char *comm,
		       u32 id_hdr, struct synth_result *r)
{
	struct { u32 pid, tid; } cb = { pid, tid };
	struct { u32 pid, ppid, tid, ptid; u64 time; } fb = {
		.pid = pid, .tid = tid,
		.ppid = tid == pid ? ppid : pid,
		.ptid = tid == pid ? ppid : pid,
	};

	put_rec(out, PERF_RECORD_FORK, 0, &fb, sizeof(fb), NULL, id_hdr);
	r->nr_fork++;
	if (namespaces)
		put_namespaces(out, pid, tid, id_hdr);
	put_rec(out, PERF_RECORD_COMM, 0, &cb, sizeof(cb), comm, id_hdr);
	r->nr_comm++;
	r->nr_threads++;
}

static void synth_proc(pid_t pid, u32 id_hdr, struct pbuf *out, struct synth_result *r)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	pid_t ppid = parent_of(pid);
	bool any = false;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return;		/* gone meanwhile */
	while ((de = readdir(d))) {
		char comm[32];
		pid_t tid;

		tid = proc_entry_pid(de->d_name);
		if (tid < 0)
			continue;
		if (read_comm(dirfd(d), de->d_name, comm, sizeof(comm)))
			continue;
		put_thread(out, pid, tid, ppid, comm, id_hdr, r);
		any = true;
	}
	closedir(d);
	if (any) {
		if (task_maps)
			synth_maps(pid, id_hdr, out, r);
		r->nr_procs++;
	}
}

/*
 * The threads of process PID from the BPF task iterator's list, sorted by
 * tgid with each leader first; the maps as above.  A process the iterator
 * did not see (started since, or hidden from BPF iterators) is read from
 * /proc instead.
 */
static void synth_proc_iter(pid_t pid, const struct synth_task *t, size_t n, u32 id_hdr,
			    struct pbuf *out, struct synth_result *r)
{
	size_t lo = 0, hi = n;
	bool any = false;
	pid_t ppid;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].tgid < (u32)pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || t[lo].tgid != (u32)pid) {
		r->nr_unseen++;
		synth_proc(pid, id_hdr, out, r);
		return;
	}
	/* a thread's real_parent is its leader's: the PPid of /proc/PID/status */
	ppid = t[lo].ptgid;
	for (; lo < n && t[lo].tgid == (u32)pid; lo++) {
		char comm[32];

		if (t[lo].flags & SYNTH_PF_KTHREAD) {
			/*
			 * /proc gives a kernel thread's full name (kworkers
			 * with their workqueue), not task->comm: read it there
			 * as the /proc path does.
			 */
			char path[64];

			snprintf(path, sizeof(path), "/proc/%d/task/%u/comm", pid, t[lo].tid);
			if (read_comm_at(AT_FDCWD, path, comm, sizeof(comm)))
				continue;	/* gone meanwhile */
		} else {
			memcpy(comm, t[lo].comm, sizeof(t[lo].comm));
			comm[sizeof(t[lo].comm) - 1] = 0;
			/* as read_comm() from the text of /proc */
			comm[strcspn(comm, "\n")] = 0;
		}
		put_thread(out, pid, t[lo].tid, ppid, comm, id_hdr, r);
		any = true;
	}
	if (any) {
		if (task_maps)
			synth_maps(pid, id_hdr, out, r);
		r->nr_procs++;
	}
}

struct synth_job {
	const pid_t *pids;
	int from, to;
	u32 id_hdr;
	const struct synth_task *tasks;	/* NULL: /proc only */
	size_t ntasks;
	struct pbuf out;
	struct synth_result res;
};

static void *synth_worker(void *arg)
{
	struct synth_job *j = arg;

	for (int i = j->from; i < j->to; i++) {
		if (j->tasks)
			synth_proc_iter(j->pids[i], j->tasks, j->ntasks, j->id_hdr, &j->out,
					&j->res);
		else
			synth_proc(j->pids[i], j->id_hdr, &j->out, &j->res);
	}
	return NULL;
}

/* a thread of its own: not scheduled ahead of the command, as the reader is */
static void *synth_thread(void *arg)
{
	prio_worker();
	return synth_worker(arg);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int all_pids(pid_t **out, int *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int cap = 256;
	pid_t *v = malloc(cap * sizeof(*v));

	*n = 0;
	if (!d || !v) {
		if (d)
			closedir(d);
		free(v);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		pid_t pid = proc_entry_pid(de->d_name);

		if (pid < 0)
			continue;
		if (*n == cap) {
			pid_t *nv = realloc(v, cap * 2 * sizeof(*v));

			if (!nv)
				break;
			v = nv;
			cap *= 2;
		}
		v[(*n)++] = pid;
	}
	closedir(d);
	qsort(v, *n, sizeof(*v), cmp_pid);
	*out = v;
	return 0;
}

static int synth_method = -1;	/* SYNTH_*; -1: from PERF_RING_SYNTH */

int synth_parse_env(void)
{
	const char *e = testhooks()->synth;

	if (!e || !*e || !strcmp(e, "auto"))
		synth_method = SYNTH_AUTO;
	else if (!strcmp(e, "iter"))
		synth_method = SYNTH_ITER;
	else if (!strcmp(e, "proc"))
		synth_method = SYNTH_PROC;
	else {
		fprintf(stderr, "perf-ring: PERF_RING_SYNTH=%s: expected auto, iter or proc\n", e);
		return -EINVAL;
	}
	return 0;
}

void synth_set_method(int method)
{
	synth_method = method;
}

/* tgid, then the leader, then tid: the order of /proc/PID/task */
static int cmp_task(const void *a, const void *b)
{
	const struct synth_task *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if ((x->tid == x->tgid) != (y->tid == y->tgid))
		return x->tid == x->tgid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * Below this many threads on the system, /proc is the faster way: the
 * iterator costs about 5.3 ms however few the tasks (the BTF pass and
 * the program load) and saves about 18.2 us per thread against the comm
 * files, the task readdirs and the parents from /proc
 * (bench/results/synth-steps.md: 1.84 + 0.61 us per thread of 2,146,
 * against 14.98 + 3.58 + 0.82 - 0.62 - 0.26 - 0.34 us), which is even at
 * about 290 threads.  The margin errs towards /proc, which needs no
 * privilege and no BTF.
 */
#define SYNTH_ITER_MIN_THREADS 400

/* all threads of the system (the 4th field of /proc/loadavg), or -1 */
static long nr_threads_now(void)
{
	char buf[128];
	long running, all;

	if (read_small_file("/proc/loadavg", buf, sizeof(buf)) <= 0)
		return -1;
	if (sscanf(buf, "%*s %*s %*s %ld/%ld", &running, &all) != 2)
		return -1;
	return all;
}

/*
 * The BPF task iterator by default for the whole system, where it
 * replaces a readdir of each /proc/PID/task and an open, read and close
 * of each thread's comm; /proc for a list of processes and for systems of
 * few threads.  Either way, the list of processes comes from /proc (or
 * the caller) and the maps from each process's /proc/PID/maps.
 */
static struct synth_task *synth_tasks(const pid_t *pids, size_t *n, struct synth_result *res)
{
	struct synth_task *t = NULL;
	const char *why = "";
	int err;

	if (synth_method < 0 && synth_parse_env())
		synth_method = SYNTH_AUTO;
	if (synth_method == SYNTH_PROC) {
		snprintf(res->how, sizeof(res->how), "/proc (PERF_RING_SYNTH=proc)");
		return NULL;
	}
	if (pids && synth_method == SYNTH_AUTO) {
		snprintf(res->how, sizeof(res->how), "/proc (a list of processes)");
		return NULL;
	}
	if (synth_method == SYNTH_AUTO) {
		long nr = nr_threads_now();

		if (nr >= 0 && nr < SYNTH_ITER_MIN_THREADS) {
			snprintf(res->how, sizeof(res->how), "/proc (%ld threads on the system, "
				 "the BPF task iterator pays off from %d)", nr,
				 SYNTH_ITER_MIN_THREADS);
			return NULL;
		}
	}
	err = synth_iter_tasks(&t, n, &why);
	if (err) {
		snprintf(res->how, sizeof(res->how), "/proc (no BPF task iterator: %s: %s)", why,
			 strerror(-err));
		return NULL;
	}
	qsort(t, *n, sizeof(*t), cmp_task);
	snprintf(res->how, sizeof(res->how), "BPF task iterator");
	return t;
}

int synth_threads(const pid_t *pids, int npids, int nthreads, u32 id_hdr,
		  struct pbuf *out, struct synth_result *res)
{
	pid_t *own = NULL;
	struct synth_job *jobs;
	struct synth_task *tasks;
	size_t ntasks = 0;
	pthread_t *th;
	u64 t0 = now_ns();
	int err = 0;

	memset(res, 0, sizeof(*res));
	tasks = synth_tasks(pids, &ntasks, res);
	if (!pids) {
		err = all_pids(&own, &npids);
		if (err) {
			free(tasks);
			return err;
		}
		pids = own;
	}
	if (maps_query && !gate.read)
		read_gate();	/* before the workers, which only read it */
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > npids)
		nthreads = npids ? npids : 1;
	jobs = calloc(nthreads, sizeof(*jobs));
	th = calloc(nthreads, sizeof(*th));
	if (!jobs || !th) {
		free(jobs);
		free(th);
		free(own);
		free(tasks);
		return -ENOMEM;
	}
	/* contiguous ranges of the sorted pid list: merge order = pid order */
	for (int k = 0; k < nthreads; k++) {
		jobs[k].pids = pids;
		jobs[k].from = (long)npids * k / nthreads;
		jobs[k].to = (long)npids * (k + 1) / nthreads;
		jobs[k].id_hdr = id_hdr;
		jobs[k].tasks = tasks;
		jobs[k].ntasks = ntasks;
	}
	for (int k = 1; k < nthreads; k++)
		if (thread_create(&th[k], synth_thread, &jobs[k]))
			synth_worker(&jobs[k]), th[k] = 0;
	synth_worker(&jobs[0]);
	for (int k = 0; k < nthreads; k++) {
		if (k && th[k])
			pthread_join(th[k], NULL);
		pbuf_put(out, jobs[k].out.p, jobs[k].out.len);
		if (jobs[k].out.err)
			err = jobs[k].out.err;
		pbuf_free(&jobs[k].out);
		res->nr_procs += jobs[k].res.nr_procs;
		res->nr_threads += jobs[k].res.nr_threads;
		res->nr_comm += jobs[k].res.nr_comm;
		res->nr_fork += jobs[k].res.nr_fork;
		res->nr_mmap2 += jobs[k].res.nr_mmap2;
		res->nr_unseen += jobs[k].res.nr_unseen;
	}
	res->ns = now_ns() - t0;
	if (res->nr_unseen) {
		size_t l = strlen(res->how);

		snprintf(res->how + l, sizeof(res->how) - l, " (and /proc for %llu process%s "
			 "it did not list)", (unsigned long long)res->nr_unseen,
			 res->nr_unseen > 1 ? "es" : "");
	}
	free(tasks);
	free(jobs);
	free(th);
	free(own);
	return err ?: out->err;
}

/* The cgroup2 mount: DIR (PATH_MAX bytes), 0 or -ENOENT. */
static int cgroup2_mount(char *dir)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], type[64];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %*s %*d %*d", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

/* One cgroup: its id is the kernel's file handle of the directory. */
static void put_cgroup(struct pbuf *out, int dirfd, const char *rel, u32 id_hdr, u64 *nr)
{
	struct { struct file_handle fh; u64 id; } h = { .fh.handle_bytes = sizeof(u64) };
	int mount_id;

	if (name_to_handle_at(dirfd, "", &h.fh, &mount_id, AT_EMPTY_PATH) ||
	    h.fh.handle_bytes != sizeof(u64))
		return;		/* gone meanwhile */
	put_rec(out, PERF_RECORD_CGROUP, 0, &h.id, sizeof(h.id), *rel ? rel : "/", id_hdr);
	(*nr)++;
}

/*
 * Depth first, parents before children, as perf walks the tree; through
 * directory fds (O_NOFOLLOW), so that nothing below the mount is left.
 * REL is the path under the mount, PATH_MAX bytes.
 */
static void walk_cgroups(struct pbuf *out, int fd, char *rel, u32 id_hdr, u64 *nr, int depth)
{
	size_t len = strlen(rel);
	struct dirent *de;
	DIR *d;

	put_cgroup(out, fd, rel, id_hdr, nr);
	if (depth > 64)
		return;		/* the kernel's cgroup.max.depth is far below */
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		int cfd;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + 1 + strlen(de->d_name) >= PATH_MAX)
			continue;
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0)
			continue;
		snprintf(rel + len, PATH_MAX - len, "/%s", de->d_name);
		walk_cgroups(out, cfd, rel, id_hdr, nr, depth + 1);
		rel[len] = 0;
	}
	closedir(d);
}

int synth_cgroups(struct pbuf *out, u32 id_hdr, u64 *nr)
{
	char dir[PATH_MAX], rel[PATH_MAX] = "";
	int fd, err;

	*nr = 0;
	err = cgroup2_mount(dir);
	if (err)
		return err;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	walk_cgroups(out, fd, rel, id_hdr, nr, 0);
	return out->err;
}
