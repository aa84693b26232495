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
#include <sched.h>
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

#include "prio.h"
#include "record.h"

static volatile sig_atomic_t stop_sig, usr2_pending, child_exited;

static void on_stop(int sig) { stop_sig = sig; }
static void on_usr2(int sig) { (void)sig; usr2_pending = 1; }
static void on_chld(int sig) { (void)sig; child_exited = 1; }

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* ---- setup ---- */

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v;

	if (!f)
		return 2;
	if (fscanf(f, "%d", &v) != 1)
		v = 2;
	fclose(f);
	return v;
}

/*
 * perf_event_paranoid>=2 refuses events that count in the kernel. Like perf
 * record, fall back to user space only, for events that have a user space
 * to count in: not tracepoints, which fire in the kernel.
 */
static bool user_only_fallback(struct pf_event *ev, int err)
{
	if ((err != EACCES && err != EPERM) || ev->attr.exclude_kernel ||
	    ev->attr.type == PERF_TYPE_TRACEPOINT || paranoid_level() < 2)
		return false;
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	return true;
}

/*
 * What perf_event_open() refused, for EACCES and EPERM, in the order the
 * kernel checks: an event that counts in the kernel needs paranoid<=1, one
 * on every task of a CPU (pid -1) paranoid<=0 (both EACCES), and raw
 * tracepoint samples paranoid=-1 (EPERM) unless the tracepoint is one any
 * user may record in their own tasks (the syscall tracepoints).
 */
static void open_denied_msg(const struct pf_event *ev, int err, pid_t pid,
			    char *buf, size_t len)
{
	int p = paranoid_level();
	const char *need;

	if (ev->attr.type == PERF_TYPE_TRACEPOINT && err == EPERM)
		need = pid == -1 ?
			"raw tracepoint samples from every task (-a, -C) need CAP_PERFMON (or root) or perf_event_paranoid=-1" :
			"raw samples of this tracepoint need CAP_PERFMON (or root) or perf_event_paranoid=-1";
	else if (pid == -1 && p > 0)
		need = "recording every task on a CPU (-a, -C) needs CAP_PERFMON (or root) or perf_event_paranoid<=0";
	else if (!ev->attr.exclude_kernel && p > 1)
		need = ev->attr.type == PERF_TYPE_TRACEPOINT ?
			"a tracepoint fires in the kernel, and recording the kernel needs CAP_PERFMON (or root) or perf_event_paranoid<=1" :
			"recording the kernel needs CAP_PERFMON (or root) or perf_event_paranoid<=1";
	else
		need = "refused by the kernel's perf_event_open policy (perf_event_paranoid, or a security module); run as root";
	snprintf(buf, len, "%s: %s: %s; perf_event_paranoid is %d", ev->name,
		 strerror(err), need, p);
}

static void config_attrs(struct rec *r)
{
	struct record_opts *o = r->o;

	r->sample_type = PERF_SAMPLE_ID | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	/*
	 * Not with -c, as perf record: for a software event or tracepoint
	 * with a fixed period, PERF_SAMPLE_PERIOD makes the kernel write a
	 * sample for every hit, carrying the hit's count as the period
	 * (perf_swevent_event()), and -c N would sample everything.
	 */
	if (!o->period)
		r->sample_type |= PERF_SAMPLE_PERIOD;
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
		/*
		 * The count of records the kernel dropped.  Streaming: a LOST
		 * record reports them only once another record gets written
		 * (see emit_unreported_lost()).  Flight recorder: records
		 * dropped while a buffer was paused are lost, not overwritten
		 * (rec_take_snapshot()).
		 */
		a->read_format = PERF_FORMAT_LOST;
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

	r->fds = calloc(maxfds, sizeof(*r->fds));
	r->rings = calloc(r->ncpu, sizeof(*r->rings));
	r->pfd = calloc(r->ncpu, sizeof(*r->pfd));
	r->rs = calloc(r->ncpu, sizeof(*r->rs));
	if (!r->fds || !r->rings || !r->pfd || !r->rs)
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

				if (fd < 0 && user_only_fallback(ev, errno)) {
					fd = sys_perf_event_open(&ev->attr, r->thr[t], r->cpus[c]);
					if (fd >= 0 && !o->quiet)
						fprintf(stderr, "perf-ring record: perf_event_paranoid is %d: "
							"recording %s in user space only\n",
							paranoid_level(), ev->name);
				}
				if (fd < 0) {
					int en = errno;

					if (en == ESRCH && r->thr[t] > 0)
						continue;	/* thread exited meanwhile */
					if (en == EACCES || en == EPERM)
						open_denied_msg(ev, en, r->thr[t], msg, sizeof(msg));
					else
						events_open_error(ev, en, msg, sizeof(msg));
					rec_fail(r, -en, "%s (cpu %d)", msg, r->cpus[c]);
					return -en;
				}
				/* the first event of a CPU gets the buffer, the rest join it */
				r->fds[r->nfds++] = (struct efd){
					.fd = fd, .ev = e, .ring = ring_fd < 0 ? r->nrings : r->nrings - 1,
				};
				if (ring_fd < 0) {
					struct ring *rg = &r->rings[r->nrings];
					int err = ring_map(rg, fd, o->mmap_bytes, o->overwrite);

					if (err) {
						rec_fail(r, err, "mmap of a %llu kB buffer on cpu %d: %s%s",
						     (unsigned long long)o->mmap_bytes >> 10, r->cpus[c],
						     strerror(-err), err == -EPERM ?
						     " (see /proc/sys/kernel/perf_event_mlock_kb)" : "");
						return err;
					}
					r->pfd[r->nrings] = (struct pollfd){ .fd = fd, .events = POLLIN };
					r->rs[r->nrings].cpu = r->cpus[c];
					ring_fd = fd;
					r->nrings++;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd)) {
					int en = errno;

					rec_fail(r, -en, "%s: PERF_EVENT_IOC_SET_OUTPUT on cpu %d: %s",
					     ev->name, r->cpus[c], strerror(en));
					return -en;
				}
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id)) {
					int en = errno;

					rec_fail(r, -en, "%s: PERF_EVENT_IOC_ID: %s", ev->name, strerror(en));
					return -en;
				}
				ev->ids[ev->nr_ids++] = id;
				r->fds[r->nfds - 1].id = id;
				r->fds[r->nfds - 1].cpu = r->cpus[c];
			}
		}
	}
	if (!r->nfds) {
		rec_fail(r, -ESRCH, "no thread to record (the process exited?)");
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


/* ---- streaming ---- */

static int drain_ring(struct rec *r, int i, bool all)
{
	struct ring *rg = &r->rings[i];

	for (;;) {
		u64 avail = ring_fwd_avail(rg);
		char *dst;
		long n;

		if (!avail || (!all && avail < r->o->mmap_flush))
			return 0;
		if (!r->cur || r->cur->cap - r->cur->len < sizeof(struct perf_event_header) * 64) {
			dst = rec_chunk_room(r, CHUNK_SIZE);
			if (!dst)
				return -EIO;
		}
		n = ring_fwd_read(rg, r->cur->buf + r->cur->len, r->cur->cap - r->cur->len);
		if (n < 0)
			return n;
		if (n == 0) {	/* next record does not fit: new chunk */
			if (!rec_chunk_room(r, CHUNK_SIZE))
				return -EIO;
			continue;
		}
		counts_walk(&r->cnt, r->ev_samples, &r->idmap, r->cur->buf + r->cur->len, n);
		if (r->cnt.walk_newest > r->rs[i].last_time)
			r->rs[i].last_time = r->cnt.walk_newest;
		r->cur->len += n;
	}
}

/*
 * One pass over all buffers.  A FINISHED_ROUND goes out after a pass once
 * ROUND_BYTES were read since the last one (and at the end): perf needs
 * one after complete passes only, and each one costs a zstd flush.
 */
#define ROUND_BYTES (1u << 20)

static int read_one(struct rec *r, int i, bool all)
{
	u64 lost = r->cnt.lost;
	int err = drain_ring(r, i, all);

	r->rs[i].lost += r->cnt.lost - lost;
	return err;
}

static int read_round(struct rec *r, bool all)
{
	int err;

	for (int i = 0; i < r->nrings; i++) {
		err = read_one(r, i, all);
		if (err)
			return err;
	}
	if (r->cnt.bytes - r->round_bytes < (all ? 1 : ROUND_BYTES))
		return 0;
	/*
	 * A FINISHED_ROUND lets perf sort and flush every record older than
	 * the newest one it had at the previous FINISHED_ROUND: nothing that
	 * old may come after it.  --mmap-flush can leave a little in a
	 * buffer for many passes, so read every buffer out first.
	 */
	if (!all && r->o->mmap_flush > 1) {
		for (int i = 0; i < r->nrings; i++) {
			err = read_one(r, i, true);
			if (err)
				return err;
		}
	}
	err = rec_emit_round(r);
	r->round_bytes = r->cnt.bytes;
	return err;
}

/*
 * The kernel counts every record it could not write in the event's
 * lost_samples, and reports the loss in a PERF_RECORD_LOST that goes out
 * with the next record written to that buffer.  When the buffer was still
 * full as recording stopped, no record came next: that loss is reported
 * here, after the last read, as the LOST record the kernel would have
 * written (the difference between the events' counts and the buffer's
 * LOST records), so perf and the summary count it.
 */
static int emit_unreported_lost(struct rec *r)
{
	u32 idh = synth_id_hdr_size(r->sample_type);
	u64 newest = 0;

	/*
	 * The records' time: the newest read from any buffer.  A buffer's own
	 * newest can be far older (its CPU went quiet after the loss), older
	 * than what perf sorted and flushed at an earlier FINISHED_ROUND, and
	 * perf would call the record out of order.
	 */
	for (int i = 0; i < r->nrings; i++)
		if (r->rs[i].last_time > newest)
			newest = r->rs[i].last_time;

	for (int i = 0; i < r->nrings; i++) {
		struct {
			struct perf_event_header h;
			u64 id, lost;
			char sid[64];
		} rec = { 0 };
		u64 counted = 0, v[2], *p = (u64 *)rec.sid;
		const struct efd *first = NULL;

		for (int f = 0; f < r->nfds; f++) {
			if (r->fds[f].ring != i)
				continue;
			if (read(r->fds[f].fd, v, sizeof(v)) != sizeof(v))
				return -errno ?: -EIO;
			counted += v[1];
			if (!first)
				first = &r->fds[f];
		}
		if (!first || counted <= r->rs[i].lost)
			continue;
		rec.h.type = PERF_RECORD_LOST;
		rec.h.size = offsetof(typeof(rec), sid) + idh;
		rec.id = first->id;
		rec.lost = counted - r->rs[i].lost;
		/* sample_id: TID, TIME, ID, CPU, in the order of sample_type */
		if (r->sample_type & PERF_SAMPLE_TID) {
			u32 pt[2] = { -1, -1 };

			memcpy(p++, pt, 8);
		}
		if (r->sample_type & PERF_SAMPLE_TIME)
			*p++ = newest;
		if (r->sample_type & PERF_SAMPLE_ID)
			*p++ = first->id;
		if (r->sample_type & PERF_SAMPLE_CPU) {
			u32 cr[2] = { first->cpu, 0 };

			memcpy(p++, cr, 8);
		}
		if (rec_emit(r, &rec, rec.h.size))
			return -EIO;
		r->rs[i].lost = counted;
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

/* ---- CPU hotplug ---- */

/*
 * A CPU that goes offline takes the events of its own context along
 * (perf_event_exit_cpu -> __perf_event_exit_context): -a and -C events are
 * scheduled out and detached, left OFF, neither in error nor hung up, so
 * poll() and read() do not tell.  They stay off when the CPU comes back.
 * The per-CPU events of a command or of -p live in the tasks' contexts:
 * they are not touched, and count again once a task runs on the CPU.
 * Either way the buffer stays mapped and what it holds is read as usual.
 * So the online mask is read, at most every 100 ms, to say what happened.
 */
#define HOTPLUG_CHECK_NS 100000000ULL

static bool cpu_events(const struct rec *r)
{
	return !r->o->workload && !r->o->npids;
}

/* Backward buffer of a stopped event: the time of its newest record. */
static u64 bwd_newest_time(const struct rec *r, const struct ring *rg)
{
	u64 head = ring_head(rg), off = head & (rg->size - 1), t = 0;
	struct perf_event_header h;
	char *rec;

	if (!head)
		return 0;		/* nothing written */
	memcpy(&h, rg->data + off, sizeof(h));	/* 8-aligned: never split */
	if (h.size < sizeof(h) || h.size > rg->size)
		return 0;
	rec = malloc(h.size);
	if (!rec)
		return 0;
	if (off + h.size <= rg->size) {
		memcpy(rec, rg->data + off, h.size);
	} else {
		memcpy(rec, rg->data + off, rg->size - off);
		memcpy(rec + (rg->size - off), rg->data, h.size - (rg->size - off));
	}
	t = record_time(rec, r->sample_type);
	free(rec);
	return t;
}

static void hotplug_check(struct rec *r, bool force)
{
	bool online[MAX_CPUS] = { false };
	u64 now = now_ns();
	double s = (now - r->hp.t0) / 1e9;

	if (r->hp.no_mask || (!force && now - r->hp.checked < HOTPLUG_CHECK_NS))
		return;
	r->hp.checked = now;
	if (online_cpus(online, MAX_CPUS)) {
		r->hp.no_mask = true;
		return;
	}
	for (int i = 0; i < r->nrings; i++) {
		struct ring_state *st = &r->rs[i];
		int cpu = st->cpu;

		if (!online[cpu] && !st->off) {
			st->off = true;
			st->off_ns = now - r->hp.t0 ?: 1;
			st->on_ns = 0;
			if (r->o->overwrite && cpu_events(r))
				st->last_time = bwd_newest_time(r, &r->rings[i]);
			if (!r->o->quiet)
				fprintf(stderr, "[ perf-ring record: cpu %d went offline (%.1f s): %s ]\n",
					cpu, s, cpu_events(r) ?
					"the kernel stopped its events; what its buffer holds is kept" :
					"the recorded tasks run on the other CPUs");
		} else if (online[cpu] && st->off) {
			st->off = false;
			st->on_ns = now - r->hp.t0 ?: 1;
			if (!r->o->quiet)
				fprintf(stderr, "[ perf-ring record: cpu %d is back online (%.1f s): %s ]\n",
					cpu, s, cpu_events(r) ?
					"its events stay off, the kernel does not restart them" :
					"the recorded tasks' events count there again");
		}
	}
}

/*
 * At the end: a CPU that went offline.  For -a/-C the recording has a hole
 * from then on (a warning, also with -q); the exit status stays 0, as the
 * file holds everything that was recorded.
 */
static void hotplug_summary(struct rec *r)
{
	for (int i = 0; i < r->nrings; i++) {
		char back[64] = " and was still offline at the end", last[80] = "";
		struct ring_state *st = &r->rs[i];
		int cpu = st->cpu;

		if (!st->off_ns || (!cpu_events(r) && r->o->quiet))
			continue;
		if (st->on_ns)
			snprintf(back, sizeof(back), ", came back at %.1f s", st->on_ns / 1e9);
		if (st->last_time)
			snprintf(last, sizeof(last), " (its last record is at %llu.%06llu)",
				 (unsigned long long)(st->last_time / 1000000000ULL),
				 (unsigned long long)(st->last_time % 1000000000ULL / 1000));
		if (cpu_events(r))
			fprintf(stderr, "perf-ring record: warning: cpu %d went offline at %.1f s%s; "
				"its events stayed off from then on, so the recording has nothing "
				"from cpu %d after that%s\n",
				cpu, st->off_ns / 1e9, back, cpu, last);
		else
			fprintf(stderr, "perf-ring record: note: cpu %d went offline at %.1f s%s; "
				"the recorded tasks ran on the other CPUs meanwhile\n",
				cpu, st->off_ns / 1e9, back);
	}
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
		fprintf(stderr, ", %s%llu overwritten", r->run_ow_estimated ? "~" : "",
			(unsigned long long)r->run_overwritten);
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
	const char *slice_note;
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

	/*
	 * This thread, the reader, is scheduled ahead of the rest (prio.c):
	 * a buffer the kernel fills faster than it is read loses records, and
	 * a reader that waits for a CPU is the usual reason.  -r makes it
	 * SCHED_FIFO, else it asks for a short fair slice.  The command was
	 * forked before, and the writer and synthesis threads undo it
	 * (prio_worker()).  Before the output is created, so that a refusal
	 * of -r leaves no file.
	 */
	err = prio_reader(o.realtime, o.reader_slice_us, &slice_note);
	if (err) {
		rec_fail(&r, err, "-r %d: cannot run SCHED_FIFO: %s%s", o.realtime,
			 strerror(-err), err == -EPERM ?
			 " (needs root or CAP_SYS_NICE, and an RLIMIT_RTPRIO that allows it)" : "");
		goto out_early;
	}
	if (o.verbose && !o.realtime && o.reader_slice_us)
		fprintf(stderr, "perf-ring record: reader slice %u us: %s\n", o.reader_slice_us,
			slice_note ? slice_note : "set");

	if (!o.overwrite) {
		char path[4096];

		if (o.switch_signal)
			rec_snapshot_name(&r, path, sizeof(path));
		else
			snprintf(path, sizeof(path), "%s", o.output);
		err = rec_file_open(&r, path);
		if (err)
			goto out_early;
		err = rec_emit_synth(&r);
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
			rec_fail(&r, -errno, "cannot create output '%s': %s", path, strerror(errno));
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
	rec_refresh_live_synth(&r, true);
	r.hp.t0 = r.hp.checked = now_ns();

	while (!err && !wl_failed) {
		if (stop_sig)
			break;
		if (r.child > 0 && child_exited && workload_done(&r, &status))
			break;
		if (o.npids && !targets_alive(&o))
			break;		/* every -p process has exited */
		if (!o.overwrite) {
			/*
			 * Skip the wait while a buffer is filling faster than we
			 * read: when one holds what poll() would wake up for, the
			 * wakeup_watermark.  Not below --mmap-flush, which
			 * read_round() waits for: with a stopped CPU's buffer
			 * short of it, that would spin.
			 */
			u64 busy = o.mmap_bytes / 8 > o.mmap_flush ? o.mmap_bytes / 8 : o.mmap_flush;
			int n = max_avail(&r) >= busy ? 0 : poll(r.pfd, r.nrings, 100);

			if (n < 0 && errno != EINTR) {
				err = -errno;
				break;
			}
			hotplug_check(&r, false);
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
					err = rec_file_close(&r, NULL);
				if (err)
					break;
				rec_snapshot_name(&r, path, sizeof(path));
				err = rec_file_open(&r, path);
				if (!err)
					err = rec_emit_synth(&r);
				if (!err && !o.quiet)
					fprintf(stderr, "[ perf-ring record: switched to %s ]\n", path);
			}
		} else {
			struct timespec ts = { 0, 50 * 1000 * 1000 };

			nanosleep(&ts, NULL);
			hotplug_check(&r, false);
			rec_refresh_live_synth(&r, false);
			if (usr2_pending && o.switch_signal) {
				char path[4096];

				usr2_pending = 0;
				rec_snapshot_name(&r, path, sizeof(path));
				rec_refresh_live_synth(&r, true);
				err = rec_take_snapshot(&r, path);
			}
		}
	}

	/* stop: no new records, then read what is left */
	enable_all(&r, false);
	hotplug_check(&r, true);
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
		if (!err && !writer_failed(&r.w))
			err = emit_unreported_lost(&r);
		if (err == -EIO && writer_failed(&r.w))
			err = 0;	/* reported by file_close */
		if (err)
			rec_fail(&r, err, "reading the ring buffers: %s", strerror(-err));
		rec_file_close(&r, NULL);
	} else if (!err && !wl_failed) {
		char path[4096];

		if (o.switch_signal)
			rec_snapshot_name(&r, path, sizeof(path));
		else
			snprintf(path, sizeof(path), "%s", o.output);
		rec_take_snapshot(&r, path);
	}

	summary(&r);
	hotplug_summary(&r);
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
		rec_file_close(&r, NULL);
	fprintf(stderr, "perf-ring record: %s\n", r.fail_msg[0] ? r.fail_msg : strerror(-err));
	return 1;
}
