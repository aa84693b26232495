// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ring record: open the events, map one buffer per CPU, and either
 * stream them to a perf.data file or keep them as a flight recorder and
 * take snapshots.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cmdline.h"
#include "counts.h"
#include "perfdata.h"
#include "ring.h"
#include "synth.h"
#include "tracing.h"
#include "writer.h"

#define CHUNK_SIZE (1u << 20)
#define NR_CHUNKS 16

static volatile sig_atomic_t stop_sig, usr2_pending, child_exited;

static void on_stop(int sig) { stop_sig = sig; }
static void on_usr2(int sig) { (void)sig; usr2_pending = 1; }
static void on_chld(int sig) { (void)sig; child_exited = 1; }

struct efd {
	int fd;
	int ev;
	int ring;
};

struct rec {
	struct record_opts *o;
	struct pf_event *evs;
	int nev;
	int cpus[MAX_CPUS], ncpu;
	pid_t *thr;			/* -1: any task */
	int nthr;
	struct efd *fds;
	int nfds;
	struct ring *rings;
	int nrings;
	struct pollfd *pfd;
	u64 sample_type;
	u32 id_hdr;
	struct idmap idmap;
	struct pbuf synth;		/* kernel map; threads when streaming */
	struct pbuf synth_live;		/* flight recorder: threads, refreshed */
	u64 synth_live_ns;
	struct synth_result synth_res;
	pid_t child;
	int go_fd, err_fd;
	/* the current output file */
	int out_fd;
	char out_path[4096];
	u64 data_off;
	struct writer w;
	bool writer_on;
	struct chunk *cur;
	struct pf_counts cnt;		/* this file */
	u64 *ev_samples;		/* this file, per event */
	/* whole run */
	u64 run_samples, run_lost, run_raw, run_out, run_records;
	u64 run_overwritten;
	int nfiles;
	const char *writer_used;
	int fail;			/* first fatal error, negative errno */
	char fail_msg[512];
	/* flight recorder */
	char *scratch, *snap;
	u64 *cnt_prev;			/* counter values per fd at the last snapshot */
	u64 exp_cum, new_cum, deficit;
	u64 snap_overwritten;		/* for the file being written */
	u64 round_bytes;		/* cnt.bytes at the last FINISHED_ROUND */
	u64 *snap_head;
	u64 run_unique;			/* distinct samples over all snapshots */
	bool *ring_seen;
	u64 *ring_last_head;
};

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void fail(struct rec *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(struct rec *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->fail)
		return;
	r->fail = err ? err : -EIO;
	va_start(ap, fmt);
	vsnprintf(r->fail_msg, sizeof(r->fail_msg), fmt, ap);
	va_end(ap);
}

/* ---- setup ---- */

static void config_attrs(struct rec *r)
{
	struct record_opts *o = r->o;

	r->sample_type = PERF_SAMPLE_ID | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	for (int i = 0; i < r->nev; i++) {
		struct perf_event_attr *a = &r->evs[i].attr;
		bool tp = a->type == PERF_TYPE_TRACEPOINT;

		a->size = sizeof(*a);
		a->disabled = 1;
		a->sample_id_all = 1;
		a->sample_type = r->sample_type | (tp ? PERF_SAMPLE_RAW : 0);
		if (o->period) {
			a->sample_period = o->period;
		} else if (tp || a->config == PERF_COUNT_SW_DUMMY) {
			a->sample_period = 1;
		} else {
			a->freq = 1;
			a->sample_freq = o->freq ? o->freq : 4000;
		}
		if (o->workload) {
			a->inherit = 1;
			a->enable_on_exec = 1;
		} else if (o->npids) {
			a->inherit = 1;
		}
		a->watermark = 1;
		if (o->overwrite) {
			a->write_backward = 1;
			a->wakeup_watermark = o->mmap_bytes / 2;
		} else {
			/* wake early: the reader has 7/8 of the buffer of slack */
			u64 wm = o->mmap_bytes / 8;

			if (o->mmap_flush > wm)
				wm = o->mmap_flush;
			a->wakeup_watermark = wm;
		}
		if (i == 0) {	/* the tracking event */
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
		}
	}
}

static int list_tids(pid_t pid, pid_t **v, int *n)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		*v = realloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = atoi(de->d_name);
	}
	closedir(d);
	return 0;
}

static int start_workload(struct rec *r)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return -errno;
	r->child = fork();
	if (r->child < 0)
		return -errno;
	if (r->child == 0) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(r->o->workload[0], r->o->workload);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	r->go_fd = go[1];
	r->err_fd = er[0];
	return 0;
}

static int open_events(struct rec *r)
{
	struct record_opts *o = r->o;
	int maxfds = r->ncpu * r->nthr * r->nev;
	int **ids_tmp;

	r->fds = calloc(maxfds, sizeof(*r->fds));
	r->rings = calloc(r->ncpu, sizeof(*r->rings));
	r->pfd = calloc(r->ncpu, sizeof(*r->pfd));
	ids_tmp = NULL;
	(void)ids_tmp;
	if (!r->fds || !r->rings || !r->pfd)
		return -ENOMEM;
	for (int e = 0; e < r->nev; e++) {
		r->evs[e].ids = calloc(r->ncpu * r->nthr, sizeof(u64));
		if (!r->evs[e].ids)
			return -ENOMEM;
	}
	for (int c = 0; c < r->ncpu; c++) {
		int ring_fd = -1;

		for (int t = 0; t < r->nthr; t++) {
			for (int e = 0; e < r->nev; e++) {
				struct pf_event *ev = &r->evs[e];
				int fd = sys_perf_event_open(&ev->attr, r->thr[t], r->cpus[c]);
				u64 id;
				char msg[400];

				if (fd < 0) {
					int en = errno;

					if (en == ESRCH && r->thr[t] > 0)
						continue;	/* thread exited meanwhile */
					events_open_error(ev, en, msg, sizeof(msg));
					fail(r, -en, "%s (cpu %d)", msg, r->cpus[c]);
					return -en;
				}
				r->fds[r->nfds++] = (struct efd){ fd, e, r->nrings };
				if (ring_fd < 0) {
					struct ring *rg = &r->rings[r->nrings];
					int err = ring_map(rg, fd, o->mmap_bytes, o->overwrite);

					if (err) {
						fail(r, err, "mmap of a %llu kB buffer on cpu %d: %s%s",
						     (unsigned long long)o->mmap_bytes >> 10, r->cpus[c],
						     strerror(-err), err == -EPERM ?
						     " (see /proc/sys/kernel/perf_event_mlock_kb)" : "");
						return err;
					}
					r->pfd[r->nrings] = (struct pollfd){ .fd = fd, .events = POLLIN };
					ring_fd = fd;
					r->nrings++;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd)) {
					int en = errno;

					fail(r, -en, "%s: PERF_EVENT_IOC_SET_OUTPUT on cpu %d: %s",
					     ev->name, r->cpus[c], strerror(en));
					return -en;
				}
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id)) {
					int en = errno;

					fail(r, -en, "%s: PERF_EVENT_IOC_ID: %s", ev->name, strerror(en));
					return -en;
				}
				ev->ids[ev->nr_ids++] = id;
			}
		}
	}
	if (!r->nfds) {
		fail(r, -ESRCH, "no thread to record (the process exited?)");
		return -ESRCH;
	}
	{
		const u64 *ids[MAX_EVENTS];
		int nids[MAX_EVENTS];

		for (int e = 0; e < r->nev; e++) {
			ids[e] = r->evs[e].ids;
			nids[e] = r->evs[e].nr_ids;
		}
		return idmap_build(&r->idmap, ids, nids, r->nev, r->sample_type);
	}
}

static void enable_all(struct rec *r, bool on)
{
	for (int i = 0; i < r->nfds; i++)
		ioctl(r->fds[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* ---- output files ---- */

static void snapshot_name(struct rec *r, char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(buf, len, "%s.%s%03ld", r->o->output, stamp, ts.tv_nsec / 1000000);
	for (int i = 1; access(buf, F_OK) == 0; i++)
		snprintf(buf, len, "%s.%s%03ld-%d", r->o->output, stamp,
			 ts.tv_nsec / 1000000, i);
}

static int file_open(struct rec *r, const char *path)
{
	struct writer_opts wo = {
		.aio = r->o->aio, .level = r->o->level,
		.chunk_size = CHUNK_SIZE, .nchunks = NR_CHUNKS,
	};
	int err;

	snprintf(r->out_path, sizeof(r->out_path), "%s", path);
	r->out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (r->out_fd < 0) {
		err = -errno;
		fail(r, err, "cannot create output '%s': %s", path, strerror(errno));
		return err;
	}
	memset(&r->cnt, 0, sizeof(r->cnt));
	r->round_bytes = 0;
	memset(r->ev_samples, 0, r->nev * sizeof(u64));
	r->data_off = pf_data_offset(r->evs, r->nev);
	err = pf_write_head(r->out_fd, r->evs, r->nev, 0, NULL);
	if (err) {
		fail(r, err, "writing the header of '%s': %s", path, strerror(-err));
		return err;
	}
	err = writer_start(&r->w, r->out_fd, r->data_off, &wo);
	if (err) {
		fail(r, err, "starting the writer for '%s': %s", path, strerror(-err));
		return err;
	}
	r->writer_on = true;
	r->cur = NULL;
	return 0;
}

/* Room for len bytes in the current chunk; NULL once the writer failed. */
static char *chunk_room(struct rec *r, size_t len)
{
	if (r->cur && r->cur->cap - r->cur->len >= len)
		return r->cur->buf + r->cur->len;
	if (r->cur) {
		writer_put(&r->w, r->cur);
		r->cur = NULL;
	}
	r->cur = writer_get(&r->w);
	if (!r->cur)
		return NULL;
	return r->cur->buf;
}

/* Append whole records to the file; they are counted on the way. */
static int emit(struct rec *r, const void *buf, size_t len)
{
	const char *p = buf;

	counts_walk(&r->cnt, r->ev_samples, &r->idmap, buf, len);
	while (len) {
		size_t n = 0;
		char *dst;

		/* cut on record boundaries, at most one chunk at a time */
		while (n < len) {
			struct perf_event_header h;

			memcpy(&h, p + n, sizeof(h));
			if (n + h.size > CHUNK_SIZE)
				break;
			n += h.size;
		}
		dst = chunk_room(r, n);
		if (!dst)
			return -EIO;
		memcpy(dst, p, n);
		r->cur->len += n;
		p += n;
		len -= n;
	}
	return 0;
}

static int emit_round(struct rec *r)
{
	struct perf_event_header h = { .type = PF_RECORD_FINISHED_ROUND, .size = sizeof(h) };

	return emit(r, &h, sizeof(h));
}

static int file_close(struct rec *r, bool *ok)
{
	struct pf_meta meta = {
		.argc = r->o->argc, .argv = r->o->argv,
		.first_time = r->cnt.first_time, .last_time = r->cnt.last_time,
		.tracefs = tracefs_path(),
		.flight = r->o->overwrite,
		.overwritten = r->snap_overwritten,
		.snapshot = r->nfiles + 1,
	};
	u64 features[PF_FEAT_BITS / 64] = { 0 };
	struct pbuf fb = { 0 };
	u64 data_size;
	int werr, err;

	if (!r->writer_on)
		return 0;
	if (r->cur) {
		if (r->cur->len)
			writer_put(&r->w, r->cur);
		else
			writer_release(&r->w, r->cur);
		r->cur = NULL;
	}
	werr = writer_finish(&r->w, &data_size);
	r->writer_on = false;
	r->writer_used = writer_kind(&r->w);
	if (r->o->level) {
		meta.comp.on = true;
		meta.comp.level = r->o->level;
		meta.comp.ratio = r->w.out_bytes ? (r->w.raw_bytes + r->w.out_bytes / 2) / r->w.out_bytes : 0;
		meta.comp.mmap_len = COMP_MMAP_LEN;
	}
	if (werr) {
		fail(r, werr, "writing '%s': %s; the file keeps the %llu bytes of data written before the failure",
		     r->out_path, strerror(-werr), (unsigned long long)data_size);
		/* the records counted but not on file are unknown: recount is in report */
	}
	/*
	 * Drop any partial write beyond what is known to be on file, then
	 * the features.  If they do not fit (ENOSPC), cut the data back one
	 * write at a time (whole records) to make room for them: a file
	 * without its tracing data cannot be decoded.
	 */
	for (int tries = 0;; tries++) {
		if (ftruncate(r->out_fd, r->data_off + data_size) && !werr)
			werr = -errno;
		pbuf_free(&fb);
		err = pf_build_features(r->evs, r->nev, &meta, r->data_off + data_size, features, &fb);
		if (!err)
			err = pwrite_full(r->out_fd, fb.p, fb.len, r->data_off + data_size);
		if (!err || err != -ENOSPC || tries >= 64 || !data_size)
			break;
		data_size = writer_boundary_before(&r->w, data_size);
		fprintf(stderr, "perf-ring record: '%s': no room for the feature sections; "
			"data cut back to %llu bytes\n", r->out_path, (unsigned long long)data_size);
	}
	if (err) {
		if (ftruncate(r->out_fd, r->data_off + data_size)) {
			/* nothing more to do */
		}
		memset(features, 0, sizeof(features));
		fprintf(stderr, "perf-ring record: '%s': feature sections not written: %s\n",
			r->out_path, strerror(-err));
	}
	writer_free(&r->w);
	pbuf_free(&fb);
	err = pf_write_head(r->out_fd, r->evs, r->nev, data_size, features);
	if (err)
		fail(r, err, "finalizing the header of '%s': %s", r->out_path, strerror(-err));
	if (close(r->out_fd) && !err) {
		err = -errno;
		fail(r, err, "closing '%s': %s", r->out_path, strerror(errno));
	}
	r->out_fd = -1;
	r->run_raw += r->w.raw_bytes;
	r->run_out += r->w.out_bytes;
	r->run_samples += r->cnt.nr[PERF_RECORD_SAMPLE];
	r->run_lost += r->cnt.lost;
	r->run_records += r->cnt.total;
	r->nfiles++;
	if (r->o->verbose) {
		fprintf(stderr, "perf-ring record: reader waited %.1f ms for buffers; "
			"writer: compress %.1f ms, write %.1f ms, %llu writes\n",
			r->w.get_wait_ns / 1e6, r->w.comp_ns / 1e6, r->w.write_ns / 1e6,
			(unsigned long long)r->w.nwrites);
		fprintf(stderr, "perf-ring record: %s: %llu records", r->out_path,
			(unsigned long long)r->cnt.total);
		for (int t = 0; t < PF_RECORD_TYPE_MAX; t++)
			if (r->cnt.nr[t])
				fprintf(stderr, ", %s %llu", pf_record_name(t) ?: "?",
					(unsigned long long)r->cnt.nr[t]);
		fprintf(stderr, "\n");
	}
	if (ok)
		*ok = !werr && !err;
	return werr ?: err;
}

/*
 * Flight recorder: the COMM and MMAP records of the targets were written
 * long before a snapshot and are overwritten by then, so every snapshot
 * carries freshly synthesized ones.  They are refreshed while the targets
 * live (at least every second, and at each snapshot), so the final
 * snapshot, taken after the workload exited, still names it.
 */
static void refresh_live_synth(struct rec *r, bool force)
{
	struct pbuf b = { 0 };
	struct synth_result res;
	pid_t child = r->child;
	int err;

	if (!r->o->overwrite || (!force && now_ns() - r->synth_live_ns < 1000000000ULL))
		return;
	if (r->o->workload && child <= 0)
		return;		/* gone: keep the last picture */
	if (r->o->workload)
		err = synth_threads(&child, 1, 1, r->id_hdr, &b, &res);
	else
		err = synth_threads(r->o->npids ? r->o->pids : NULL, r->o->npids,
				    r->o->synth_threads, r->id_hdr, &b, &res);
	r->synth_live_ns = now_ns();
	if (err || !res.nr_threads) {
		pbuf_free(&b);
		return;
	}
	pbuf_free(&r->synth_live);
	r->synth_live = b;
}

static int emit_synth(struct rec *r)
{
	struct perf_event_header h = { .type = PF_RECORD_FINISHED_INIT, .size = sizeof(h) };
	int err = 0;

	if (r->synth.len)
		err = emit(r, r->synth.p, r->synth.len);
	if (!err && r->synth_live.len)
		err = emit(r, r->synth_live.p, r->synth_live.len);
	if (!err)
		err = emit(r, &h, sizeof(h));
	return err;
}

/* ---- streaming ---- */

static int drain_ring(struct rec *r, struct ring *rg, bool all)
{
	for (;;) {
		u64 avail = ring_fwd_avail(rg);
		char *dst;
		long n;

		if (!avail || (!all && avail < r->o->mmap_flush))
			return 0;
		if (!r->cur || r->cur->cap - r->cur->len < sizeof(struct perf_event_header) * 64) {
			dst = chunk_room(r, CHUNK_SIZE);
			if (!dst)
				return -EIO;
		}
		n = ring_fwd_read(rg, r->cur->buf + r->cur->len, r->cur->cap - r->cur->len);
		if (n < 0)
			return n;
		if (n == 0) {	/* next record does not fit: new chunk */
			if (!chunk_room(r, CHUNK_SIZE))
				return -EIO;
			continue;
		}
		counts_walk(&r->cnt, r->ev_samples, &r->idmap, r->cur->buf + r->cur->len, n);
		r->cur->len += n;
	}
}

/*
 * One pass over all buffers.  A FINISHED_ROUND goes out after a pass once
 * ROUND_BYTES were read since the last one (and at the end): perf needs
 * one after complete passes only, and each one costs a zstd flush.
 */
#define ROUND_BYTES (1u << 20)

static int read_round(struct rec *r, bool all)
{
	int err;

	for (int i = 0; i < r->nrings; i++) {
		err = drain_ring(r, &r->rings[i], all);
		if (err)
			return err;
	}
	if (r->cnt.bytes - r->round_bytes >= (all ? 1 : ROUND_BYTES)) {
		err = emit_round(r);
		r->round_bytes = r->cnt.bytes;
		return err;
	}
	return 0;
}

/* Bytes waiting in the fullest buffer. */
static u64 max_avail(struct rec *r)
{
	u64 m = 0;

	for (int i = 0; i < r->nrings; i++) {
		u64 a = ring_fwd_avail(&r->rings[i]);

		if (a > m)
			m = a;
	}
	return m;
}

/* ---- flight recorder ---- */

static u64 read_counter(int fd)
{
	u64 v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * A snapshot: copy every CPU buffer (ring_bwd_snapshot), then keep one
 * complete window of time.  A buffer that has wrapped lost everything
 * before its oldest record; records of other CPUs older than that would
 * sit next to a hole, so the window starts at the newest of the oldest
 * timestamps of the wrapped buffers.
 */
static int take_snapshot(struct rec *r, const char *path)
{
	u64 snap_new = 0, expected = 0, t_cut = 0, copy_ns;
	size_t sz = r->o->mmap_bytes;
	long *len;
	int err = 0;

	if (!r->scratch) {
		r->scratch = malloc(sz);
		r->snap = malloc(sz * r->nrings);
		r->cnt_prev = calloc(r->nfds, sizeof(u64));
		r->ring_seen = calloc(r->nrings, sizeof(bool));
		r->ring_last_head = calloc(r->nrings, sizeof(u64));
		r->snap_head = calloc(r->nrings, sizeof(u64));
		if (!r->scratch || !r->snap || !r->cnt_prev || !r->ring_seen ||
		    !r->ring_last_head || !r->snap_head)
			return -ENOMEM;
	}
	len = calloc(r->nrings, sizeof(*len));
	if (!len)
		return -ENOMEM;
	copy_ns = now_ns();
	for (int i = 0; i < r->nrings; i++) {
		struct ring *rg = &r->rings[i];
		struct bwd_snap s;
		char *dst = r->snap + i * sz;

		len[i] = ring_bwd_snapshot(rg, r->scratch, dst, sz, r->o->snapshot_pause, &s);
		if (len[i] < 0) {
			err = (int)len[i];
			break;
		}
		r->snap_head[i] = s.head;
		/* wrapped: more was written than the buffer holds */
		if (0 - s.head > sz && len[i] > 0) {
			u64 t = 0;

			for (long pos = 0; pos < len[i] && !t;) {
				struct perf_event_header h;

				memcpy(&h, dst + pos, sizeof(h));
				t = record_time(dst + pos, r->sample_type);
				pos += h.size;
			}
			if (t > t_cut)
				t_cut = t;
		}
	}
	copy_ns = now_ns() - copy_ns;
	/* counters: samples generated up to now */
	for (int i = 0; i < r->nfds && !err; i++) {
		struct pf_event *ev = &r->evs[r->fds[i].ev];
		u64 v = read_counter(r->fds[i].fd);

		if (!ev->attr.freq && ev->attr.sample_period)
			expected += (v - r->cnt_prev[i]) / ev->attr.sample_period;
		r->cnt_prev[i] = v;
	}
	if (!err)
		err = file_open(r, path);
	if (!err)
		err = emit_synth(r);
	for (int i = 0; i < r->nrings && !err; i++) {
		char *p = r->snap + i * sz;
		/* bytes newer than the previous snapshot's head: at the end */
		u64 new_bytes = r->ring_seen[i] ? r->ring_last_head[i] - r->snap_head[i]
						: 0 - r->snap_head[i];
		long pos = 0, keep = 0;

		/* drop what lies before the window (oldest first, so a prefix) */
		while (pos < len[i]) {
			struct perf_event_header h;
			u64 t = record_time(p + pos, r->sample_type);

			memcpy(&h, p + pos, sizeof(h));
			if (t && t >= t_cut)
				break;
			/* untimed records go with what follows them */
			pos += h.size;
			if (t)
				keep = pos;
		}
		pos = keep;
		for (long q = pos; q < len[i];) {
			struct perf_event_header h;

			memcpy(&h, p + q, sizeof(h));
			if ((u64)(len[i] - q) <= new_bytes && h.type == PERF_RECORD_SAMPLE)
				snap_new++;
			q += h.size;
		}
		r->ring_seen[i] = true;
		r->ring_last_head[i] = r->snap_head[i];
		err = emit(r, p + pos, len[i] - pos);
	}
	free(len);
	if (!err)
		err = emit_round(r);
	r->exp_cum += expected;
	r->new_cum += snap_new;
	{
		u64 d = r->exp_cum > r->new_cum ? r->exp_cum - r->new_cum : 0;
		u64 interval = d > r->deficit ? d - r->deficit : 0;

		r->deficit = d;
		r->run_overwritten += interval;
		r->snap_overwritten = interval;
		r->run_unique += snap_new;
		if (!r->o->quiet)
			fprintf(stderr, "[ perf-ring: snapshot %s: %llu records, %llu new samples, "
				"%llu overwritten since the last snapshot ]\n",
				path, (unsigned long long)r->cnt.total,
				(unsigned long long)snap_new, (unsigned long long)interval);
		if (r->o->verbose)
			fprintf(stderr, "perf-ring record: snapshot: buffers copied in %.1f us%s\n",
				copy_ns / 1e3, r->o->snapshot_pause ? " (paused)" : "");
	}
	if (err && !r->fail)
		fail(r, err, "snapshot '%s': %s", path, strerror(-err));
	return file_close(r, NULL) ?: err;
}

/* ---- main ---- */

static void summary(struct rec *r)
{
	char ev[32], raw[32], out[32];

	if (r->o->quiet)
		return;
	fmt_count(ev, sizeof(ev), r->run_samples);
	fmt_bytes(raw, sizeof(raw), r->run_raw);
	fmt_bytes(out, sizeof(out), r->run_out);
	fprintf(stderr, "[ perf-ring record: ");
	if (r->o->overwrite)
		fprintf(stderr, "%d snapshot%s, ", r->nfiles, r->nfiles == 1 ? "" : "s");
	else if (r->nfiles > 1)
		fprintf(stderr, "%d files, ", r->nfiles);
	fprintf(stderr, "%s events, %llu lost", ev, (unsigned long long)r->run_lost);
	if (r->o->overwrite)
		fprintf(stderr, ", %llu overwritten", (unsigned long long)r->run_overwritten);
	if (r->o->overwrite && r->o->verbose)
		fprintf(stderr, " (%llu distinct samples captured)", (unsigned long long)r->run_unique);
	if (r->o->level)
		fprintf(stderr, ", %s -> %s (%.1fx)", raw, out,
			r->run_out ? (double)r->run_raw / r->run_out : 0.0);
	else
		fprintf(stderr, ", %s", out);
	fprintf(stderr, ", %s ]\n", r->writer_used ? r->writer_used : "none");
	if (r->writer_used && strstr(r->writer_used, "unavailable"))
		fprintf(stderr, "perf-ring record: note: %s; used write(2)\n", r->w.uring_err);
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_NOCLDSTOP | SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static bool workload_done(struct rec *r, int *status)
{
	if (r->child <= 0)
		return false;
	if (waitpid(r->child, status, WNOHANG) == r->child) {
		r->child = -1;
		return true;
	}
	return false;
}

static bool targets_alive(const struct record_opts *o)
{
	for (int i = 0; i < o->npids; i++)
		if (kill(o->pids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	struct rec r;
	int err, status = 0, exit_code = 0;
	bool wl_failed = false;
	int wl_errno = 0;

	err = record_parse(argc, argv, &o);
	if (err)
		return 1;
	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.evs = o.events.ev;
	r.nev = o.events.nr;
	r.out_fd = -1;
	r.child = -1;
	r.ev_samples = calloc(r.nev, sizeof(u64));
	for (int c = 0; c < MAX_CPUS; c++)
		if (o.cpu_mask[c])
			r.cpus[r.ncpu++] = c;
	config_attrs(&r);
	install_signals();

	if (o.workload) {
		err = start_workload(&r);
		if (err) {
			fprintf(stderr, "perf-ring record: cannot fork the workload: %s\n", strerror(-err));
			return 1;
		}
		r.thr = malloc(sizeof(pid_t));
		r.thr[0] = r.child;
		r.nthr = 1;
	} else if (o.npids) {
		for (int i = 0; i < o.npids; i++) {
			err = list_tids(o.pids[i], &r.thr, &r.nthr);
			if (err) {
				fprintf(stderr, "perf-ring record: -p %d: no such process\n", o.pids[i]);
				return 1;
			}
		}
	} else {
		r.thr = malloc(sizeof(pid_t));
		r.thr[0] = -1;
		r.nthr = 1;
	}

	err = open_events(&r);
	if (err)
		goto out_early;

	/* synthesized records: kernel map, then existing threads */
	r.id_hdr = synth_id_hdr_size(r.sample_type);
	if (synth_kernel_mmap(&r.synth, r.id_hdr) && o.verbose)
		fprintf(stderr, "perf-ring record: no kernel map (kallsyms restricted)\n");
	if (!o.workload && !o.overwrite) {
		err = synth_threads(o.npids ? o.pids : NULL, o.npids, o.synth_threads, r.id_hdr,
				    &r.synth, &r.synth_res);
		if (err)
			fprintf(stderr, "perf-ring record: warning: synthesis: %s\n", strerror(-err));
		if (o.verbose)
			fprintf(stderr, "perf-ring record: synthesized %llu threads of %llu processes "
				"on %d threads in %.1f ms\n",
				(unsigned long long)r.synth_res.nr_threads,
				(unsigned long long)r.synth_res.nr_procs, o.synth_threads,
				r.synth_res.ns / 1e6);
	}

	if (!o.overwrite) {
		char path[4096];

		if (o.switch_signal)
			snapshot_name(&r, path, sizeof(path));
		else
			snprintf(path, sizeof(path), "%s", o.output);
		err = file_open(&r, path);
		if (err)
			goto out_early;
		err = emit_synth(&r);
	} else {
		/* check the output location now, not at the first snapshot */
		char path[4096];
		int fd;

		snprintf(path, sizeof(path), "%s", o.output);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0) {
			close(fd);
			unlink(path);
		} else if (errno == EEXIST) {
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd >= 0)
				close(fd);
		}
		if (fd < 0) {
			fail(&r, -errno, "cannot create output '%s': %s", path, strerror(errno));
			err = r.fail;
			goto out_early;
		}
	}

	/* go */
	if (o.workload) {
		int e;
		ssize_t n;

		if (write(r.go_fd, "g", 1) != 1)
			wl_failed = true;
		close(r.go_fd);
		n = read(r.err_fd, &e, sizeof(e));
		close(r.err_fd);
		if (n == sizeof(e)) {
			wl_failed = true;
			wl_errno = e;
		}
	} else {
		enable_all(&r, true);
	}
	refresh_live_synth(&r, true);

	while (!err && !wl_failed) {
		if (stop_sig)
			break;
		if (r.child > 0 && child_exited && workload_done(&r, &status))
			break;
		if (o.npids && !targets_alive(&o))
			break;		/* every -p process has exited */
		if (!o.overwrite) {
			/* skip the wait while a buffer is filling faster than we read */
			int n = max_avail(&r) >= o.mmap_bytes / 8 ? 0 : poll(r.pfd, r.nrings, 100);

			if (n < 0 && errno != EINTR) {
				err = -errno;
				break;
			}
			err = read_round(&r, false);
			if (err)
				break;
			if (writer_failed(&r.w))
				break;
			if (usr2_pending && o.switch_signal) {
				char path[4096];

				usr2_pending = 0;
				err = read_round(&r, true);
				if (!err)
					err = file_close(&r, NULL);
				if (err)
					break;
				snapshot_name(&r, path, sizeof(path));
				err = file_open(&r, path);
				if (!err)
					err = emit_synth(&r);
				if (!err && !o.quiet)
					fprintf(stderr, "[ perf-ring record: switched to %s ]\n", path);
			}
		} else {
			struct timespec ts = { 0, 50 * 1000 * 1000 };

			nanosleep(&ts, NULL);
			refresh_live_synth(&r, false);
			if (usr2_pending && o.switch_signal) {
				char path[4096];

				usr2_pending = 0;
				snapshot_name(&r, path, sizeof(path));
				refresh_live_synth(&r, true);
				err = take_snapshot(&r, path);
			}
		}
	}

	/* stop: no new records, then read what is left */
	enable_all(&r, false);
	if (r.child > 0 && (stop_sig || err || writer_failed(&r.w))) {
		kill(r.child, SIGTERM);
		waitpid(r.child, &status, 0);
		r.child = -1;
	} else if (r.child > 0) {
		waitpid(r.child, &status, 0);
		r.child = -1;
	}
	if (!o.overwrite) {
		if (!err && !writer_failed(&r.w))
			err = read_round(&r, true);
		if (err == -EIO && writer_failed(&r.w))
			err = 0;	/* reported by file_close */
		if (err)
			fail(&r, err, "reading the ring buffers: %s", strerror(-err));
		file_close(&r, NULL);
	} else if (!err && !wl_failed) {
		char path[4096];

		if (o.switch_signal)
			snapshot_name(&r, path, sizeof(path));
		else
			snprintf(path, sizeof(path), "%s", o.output);
		take_snapshot(&r, path);
	}

	summary(&r);
	if (wl_failed) {
		fprintf(stderr, "perf-ring record: workload failed to start: '%s': %s\n",
			o.workload[0], strerror(wl_errno ? wl_errno : EIO));
		exit_code = 127;
	} else if (r.fail) {
		fprintf(stderr, "perf-ring record: %s\n", r.fail_msg);
		exit_code = 2;
	} else if (stop_sig && o.workload) {
		fprintf(stderr, "perf-ring record: interrupted by %s; workload stopped, '%s' is complete up to here\n",
			strsignal(stop_sig), o.overwrite ? "snapshot" : o.output);
		exit_code = 128 + stop_sig;
	} else if (o.workload && WIFEXITED(status) && WEXITSTATUS(status) && !o.quiet) {
		fprintf(stderr, "perf-ring record: note: workload exited with status %d\n",
			WEXITSTATUS(status));
	}
	return exit_code;

out_early:
	if (r.child > 0) {
		kill(r.child, SIGKILL);
		waitpid(r.child, NULL, 0);
	}
	if (r.writer_on)
		file_close(&r, NULL);
	fprintf(stderr, "perf-ring record: %s\n", r.fail_msg[0] ? r.fail_msg : strerror(-err));
	return 1;
}
