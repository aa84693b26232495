// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include "prio.h"
#include "synth.h"

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

int synth_kernel_mmap(struct pbuf *out, u32 id_hdr)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long text = 0, etext = 0, a;
	char t, name[256];
	struct { u32 pid, tid; u64 start, len, pgoff; } b;

	if (!f)
		return -errno;
	while (fscanf(f, "%llx %c %255s%*[^\n]", &a, &t, name) == 3) {
		if (!strcmp(name, "_text"))
			text = a;
		else if (!strcmp(name, "_etext"))
			etext = a;
		if (text && etext)
			break;
	}
	fclose(f);
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

static int read_comm(pid_t pid, pid_t tid, char *comm, size_t len)
{
	char path[64], *s;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	err = read_text_file(path, &s, NULL);
	if (err)
		return err;
	s[strcspn(s, "\n")] = 0;
	snprintf(comm, len, "%s", s);
	free(s);
	return 0;
}

/* --call-graph dwarf: the unwinder reads .eh_frame from read-only maps too */
static bool data_maps;

void synth_set_data_maps(bool on)
{
	data_maps = on;
}

static void synth_maps(pid_t pid, u32 id_hdr, struct pbuf *out, struct synth_result *r)
{
	char path[64], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned int maj, min;
		char perm[8];
		int n = 0;
		struct {
			u32 pid, tid;
			u64 start, len, pgoff;
			u32 maj, min;
			u64 ino, ino_gen;
			u32 prot, flags;
		} b;
		char *name;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
			   perm, &pgoff, &maj, &min, &ino, &n) < 7)
			continue;
		if (perm[2] != 'x' && !data_maps)
			continue;	/* perf resolves code addresses only */
		name = line + n;
		name[strcspn(name, "\n")] = 0;
		if (!*name)
			name = "//anon";
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
		put_rec(out, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER |
			(perm[2] == 'x' ? 0 : PERF_RECORD_MISC_MMAP_DATA), &b, sizeof(b),
			name, id_hdr);
		r->nr_mmap2++;
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
		struct { u32 pid, tid; } cb;
		struct { u32 pid, ppid, tid, ptid; u64 time; } fb;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = atoi(de->d_name);
		if (read_comm(pid, tid, comm, sizeof(comm)))
			continue;
		/* FORK tells perf how the thread relates to its parent */
		fb.pid = pid;
		fb.tid = tid;
		fb.ppid = tid == pid ? ppid : pid;
		fb.ptid = tid == pid ? ppid : pid;
		fb.time = 0;
		put_rec(out, PERF_RECORD_FORK, 0, &fb, sizeof(fb), NULL, id_hdr);
		r->nr_fork++;
		cb.pid = pid;
		cb.tid = tid;
		put_rec(out, PERF_RECORD_COMM, 0, &cb, sizeof(cb), comm, id_hdr);
		r->nr_comm++;
		r->nr_threads++;
		any = true;
	}
	closedir(d);
	if (any) {
		synth_maps(pid, id_hdr, out, r);
		r->nr_procs++;
	}
}

struct synth_job {
	const pid_t *pids;
	int from, to;
	u32 id_hdr;
	struct pbuf out;
	struct synth_result res;
};

static void *synth_worker(void *arg)
{
	struct synth_job *j = arg;

	for (int i = j->from; i < j->to; i++)
		synth_proc(j->pids[i], j->id_hdr, &j->out, &j->res);
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
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (*n == cap) {
			pid_t *nv = realloc(v, cap * 2 * sizeof(*v));

			if (!nv)
				break;
			v = nv;
			cap *= 2;
		}
		v[(*n)++] = atoi(de->d_name);
	}
	closedir(d);
	qsort(v, *n, sizeof(*v), cmp_pid);
	*out = v;
	return 0;
}

int synth_threads(const pid_t *pids, int npids, int nthreads, u32 id_hdr,
		  struct pbuf *out, struct synth_result *res)
{
	pid_t *own = NULL;
	struct synth_job *jobs;
	pthread_t *th;
	u64 t0 = now_ns();
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (!pids) {
		err = all_pids(&own, &npids);
		if (err)
			return err;
		pids = own;
	}
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
		return -ENOMEM;
	}
	/* contiguous ranges of the sorted pid list: merge order = pid order */
	for (int k = 0; k < nthreads; k++) {
		jobs[k].pids = pids;
		jobs[k].from = (long)npids * k / nthreads;
		jobs[k].to = (long)npids * (k + 1) / nthreads;
		jobs[k].id_hdr = id_hdr;
	}
	for (int k = 1; k < nthreads; k++)
		if (pthread_create(&th[k], NULL, synth_thread, &jobs[k]))
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
	}
	res->ns = now_ns() - t0;
	free(jobs);
	free(th);
	free(own);
	return err ?: out->err;
}
