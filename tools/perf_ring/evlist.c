// SPDX-License-Identifier: GPL-2.0
/*
 * The events of a recording and their fds (evlist.h): attributes, opening
 * with perf record's fallbacks and messages, the per-CPU buffers, ids.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "bidleak.h"
#include "cgroup.h"
#include "events.h"
#include "evlist.h"
#include "fail.h"
#include "memlimit.h"
#include "recsize.h"
#include "synth.h"
#include "testhooks.h"

/*
 * PERF_RING_NO_FORMAT_LOST=1 (tests): answer as a kernel before 6.0 does,
 * whose perf_copy_attr() refuses read_format bits from PERF_FORMAT_LOST
 * on with EINVAL, so that the fallback below runs as it would there.
 */
static bool emulate_no_format_lost = false;

/*
 * -G: each event's cgroup directory (-1: none); a CPU-wide event counts
 * only in its cgroup.
 */
static int cgroup_fds[MAX_EVENTS];
static bool cgroups_opened;

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
			       int cgroup_fd)
{
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;

	if (emulate_no_format_lost && (a->read_format & PERF_FORMAT_LOST)) {
		errno = EINVAL;
		return -1;
	}
	if (cgroup_fd >= 0 && pid == -1) {
		pid = cgroup_fd;
		flags |= PERF_FLAG_PID_CGROUP;
	}
	return syscall(__NR_perf_event_open, a, pid, cpu, group_fd, flags);
}

static int cgroups_open(const struct evlist_opts *o)
{
	char name[4096];

	for (int i = 0; i < MAX_EVENTS; i++)
		cgroup_fds[i] = -1;
	for (int i = 0; i < o->cgroup_nev && i < MAX_EVENTS; i++) {
		if (!cgroup_name(o->cgroup, i, name, sizeof(name)))
			continue;
		cgroup_fds[i] = cgroup_open(name);
		if (cgroup_fds[i] < 0)
			return cgroup_fds[i];
	}
	cgroups_opened = true;
	return 0;
}

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
/*
 * A task the caller may not trace: the kernel refuses perf_event_open()
 * on it (EACCES) whatever perf_event_paranoid says, unless the caller has
 * CAP_PERFMON (ptrace_may_access(), PTRACE_MODE_READ_REALCREDS: the same
 * real, effective and saved uid, and a dumpable task).  As perf's
 * evsel__open_strerror(), name that cause rather than the paranoid level.
 */
static bool task_denied_msg(const struct pf_event *ev, int err, pid_t pid, char *buf, size_t len)
{
	char path[64], line[256];
	unsigned int uid[3];
	bool found = false;
	struct stat st;
	FILE *f;

	if (pid <= 0 || geteuid() == 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Uid: %u %u %u", &uid[0], &uid[1], &uid[2]) == 3;
	fclose(f);
	if (!found)
		return false;
	if (uid[0] != getuid() || uid[1] != getuid() || uid[2] != getuid()) {
		snprintf(buf, len, "%.64s: %s: task %d runs as uid %u, not as you (uid %u): recording "
			 "another user's process needs permission to trace it (CAP_PERFMON or "
			 "CAP_SYS_PTRACE, or root), whatever perf_event_paranoid says",
			 ev->name, strerror(err), (int)pid, uid[1], getuid());
		return true;
	}
	/* a task that is not dumpable has its /proc directory owned by root */
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (!stat(path, &st) && st.st_uid != getuid()) {
		snprintf(buf, len, "%.64s: %s: task %d is not dumpable (a set-user-ID program, or "
			 "prctl(PR_SET_DUMPABLE, 0)): recording it needs CAP_PERFMON or "
			 "CAP_SYS_PTRACE, or root", ev->name, strerror(err), (int)pid);
		return true;
	}
	return false;
}

static void open_denied_msg(const struct pf_event *ev, int err, pid_t pid,
			    char *buf, size_t len)
{
	int p = paranoid_level();
	const char *need;

	if (err == EACCES && task_denied_msg(ev, err, pid, buf, len))
		return;
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

/*
 * x86_64's user registers for DWARF unwinding, perf's default
 * (PERF_REGS_MASK in tools/perf/arch/x86/include/perf_regs.h): AX to R15
 * less DS, ES, FS and GS.
 */
#if defined(__aarch64__)
#define CALLGRAPH_REGS_USER 0x1ffffffffULL	/* x0..x30, sp, pc */
#else
#define CALLGRAPH_REGS_USER 0xff0fffULL
#endif

/* -g and --call-graph as perf's evsel__config_callchain() sets them. */
static void config_callchain(struct perf_event_attr *a, const struct evlist_opts *o)
{
	if (!o->callgraph)
		return;
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->kernel_callchains)
		a->exclude_callchain_user = 1;
	if (o->user_callchains)
		a->exclude_callchain_kernel = 1;
	if (o->callgraph == CALLGRAPH_LBR && !a->exclude_user) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
					PERF_SAMPLE_BRANCH_HW_INDEX;
	} else if (o->callgraph == CALLGRAPH_DWARF) {
		/* the user part is unwound from the stack copy, afterwards */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = CALLGRAPH_REGS_USER;
		a->sample_stack_user = o->stack_dump;
		a->exclude_callchain_user = 1;
	}
}

/* perf record's attribute options, on the recorded events */
static void config_options(struct perf_event_attr *a, const struct evlist_opts *o)
{
	if (o->regs_intr) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = o->regs_intr;
	}
	if (o->regs_user) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user |= o->regs_user;
	}
	if (o->all_cgroups)
		a->sample_type |= PERF_SAMPLE_CGROUP;
	if (o->all_kernel)
		a->exclude_user = 1;
	if (o->all_user)
		a->exclude_kernel = 1;
	if (o->clockid_set) {
		a->use_clockid = 1;
		a->clockid = o->clockid;
	}
	a->inherit_stat = o->inherit_stat;
	if (o->no_buffering) {
		a->watermark = 0;
		a->wakeup_events = 1;
	}
	if (o->no_samples) {
		/* -n: the events count; nothing is sampled */
		a->freq = 0;
		a->sample_period = 0;
	}
}

/* ... and on the tracking event, which carries the side-band */
static void config_tracking(struct perf_event_attr *a, const struct evlist_opts *o, bool track)
{
	if (o->clockid_set) {
		a->use_clockid = 1;
		a->clockid = o->clockid;
	}
	if (!track)
		return;
	a->context_switch = o->switch_events;
	a->namespaces = o->namespaces;
	a->cgroup = o->all_cgroups;
	if (o->sample_add & PERF_SAMPLE_ADDR)
		a->mmap_data = 1;	/* -d: data maps name the addresses */
	if (o->no_bpf_event)
		a->ksymbol = a->bpf_event = 0;
}

/*
 * The roles: the events --switch-output-event named are triggers; the
 * dummy added last (record.c) is the flight recorder's side-band event or
 * the tracking dummy; the tracking event is that dummy, else the first.
 */
static void config_roles(struct evlist *el, const struct evlist_opts *o)
{
	bool own = o->overwrite || o->tracking;

	for (int i = 0; i < el->nev; i++) {
		bool trig = i >= o->trig_first && i < o->trig_first + o->trig_nr;

		el->evs[i].role = trig ? EV_TRIGGER : EV_SAMPLE;
		el->evs[i].tracks = false;
	}
	if (own)
		el->evs[el->nev - 1].role = o->overwrite ? EV_SIDEBAND : EV_TRACKING;
	el->evs[own ? el->nev - 1 : 0].tracks = true;
}

const struct pf_event *evlist_tracker(const struct evlist *el)
{
	for (int i = 0; i < el->nev; i++)
		if (el->evs[i].tracks)
			return &el->evs[i];
	return &el->evs[0];
}

bool evlist_has_role(const struct evlist *el, enum ev_role r)
{
	for (int i = 0; i < el->nev; i++)
		if (el->evs[i].role == r)
			return true;
	return false;
}

/* Sampling, and when the event starts and whether children inherit it */
static void config_sample(const struct evlist *el, struct pf_event *ev,
			  const struct evlist_opts *o)
{
	struct perf_event_attr *a = &ev->attr;
	bool tp = a->type == PERF_TYPE_TRACEPOINT;

	a->size = sizeof(*a);
	a->disabled = 1;
	a->sample_id_all = 1;
	a->sample_type = el->sample_type | (tp ? PERF_SAMPLE_RAW : 0);
	if (o->period) {
		a->sample_period = o->period;
	} else if (tp || a->config == PERF_COUNT_SW_DUMMY) {
		a->sample_period = 1;
	} else {
		a->freq = 1;
		a->sample_freq = o->freq ? o->freq : 4000;
	}
	/*
	 * The command's events start at its exec, unless -D holds them
	 * back (the loop enables them then); the tasks a target creates are
	 * recorded too, unless --no-inherit.
	 */
	if (o->wl_target) {
		a->inherit = 1;
		a->enable_on_exec = !o->delay || role_always_on(ev->role);
	} else if (o->npids) {
		a->inherit = 1;
	}
	/*
	 * --per-thread: the kernel refuses to map an inherited event of a
	 * task (cpu -1: the children would all write into one buffer), and
	 * perf record turns inherit off for it too.
	 */
	if (o->no_inherit || o->per_thread)
		a->inherit = 0;
}

/* What the kernel counts of its drops, and when it wakes the reader */
static void config_wakeup(const struct evlist *el, struct pf_event *ev,
			  const struct evlist_opts *o)
{
	struct perf_event_attr *a = &ev->attr;

	/*
	 * The count of records the kernel dropped.  Streaming: a LOST record
	 * reports them only once another record gets written (see
	 * sink-stream.c).  Flight recorder: records dropped while a buffer
	 * was paused are lost, not overwritten (sink-flight.c).
	 */
	a->read_format = el->lost_fmt ? PERF_FORMAT_LOST : 0;
	a->watermark = 1;
	if (ev->role == EV_TRIGGER) {
		/* wake the reader at every sample: it is a trigger */
		a->watermark = 0;
		a->wakeup_events = 1;
	} else if (ev->role == EV_SIDEBAND) {
		a->wakeup_watermark = SB_RING_BYTES / 4;
	} else if (o->overwrite) {
		a->write_backward = 1;
		a->wakeup_watermark = o->mmap_bytes / 2;
	} else {
		/* wake early: the reader has 7/8 of the buffer of slack */
		u64 wm = o->mmap_bytes / 8;

		if (o->mmap_flush > wm)
			wm = o->mmap_flush;
		a->wakeup_watermark = wm;
	}
}

/* The tracking event's side-band records */
static void config_tracker(struct evlist *el, struct perf_event_attr *a,
			   const struct evlist_opts *o)
{
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	/*
	 * build-ids in MMAP2 (Linux 5.12+; evlist_open() drops it where the
	 * kernel refuses it, and the ELF notes are read instead, output.c)
	 */
	a->build_id = !o->no_buildid && !el->bid_leak;
	/* BPF programs loaded and unloaded: names for JIT code */
	a->ksymbol = 1;
	a->bpf_event = 1;
	el->bpf_events = true;
	/* DWARF unwinding reads .eh_frame from the read-only maps */
	if (o->callgraph == CALLGRAPH_DWARF)
		a->mmap_data = 1;
}

void evlist_config(struct evlist *el, const struct evlist_opts *o)
{
	el->o = *o;
	o = &el->o;
	el->sample_type = PERF_SAMPLE_ID | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	/*
	 * Not with -c, as perf record: for a software event or tracepoint
	 * with a fixed period, PERF_SAMPLE_PERIOD makes the kernel write a
	 * sample for every hit, carrying the hit's count as the period
	 * (perf_swevent_event()), and -c N would sample everything.
	 */
	if (!o->period)
		el->sample_type |= PERF_SAMPLE_PERIOD;
	/* -d, -P, -W, -R, --phys-data, --sample-identifier, ... */
	el->sample_type |= o->sample_add;
	emulate_no_format_lost = testhooks()->no_format_lost;
	el->lost_fmt = true;
	/*
	 * build-ids in MMAP2 only where asking for them does not flag other
	 * events' records too (bidleak.h); PERF_RING_BIDLEAK=0|1 (tests)
	 * overrides the probe.
	 */
	if (!o->no_buildid) {
		const char *force = testhooks()->bidleak;

		el->bid_leak = force && (*force == '0' || *force == '1') ? *force - '0' :
			       bidleak_probe();
	}
	synth_set_data_maps(o->callgraph == CALLGRAPH_DWARF);
	config_roles(el, o);
	for (int i = 0; i < el->nev; i++) {
		struct pf_event *ev = &el->evs[i];

		config_sample(el, ev, o);
		config_wakeup(el, ev, o);
		/* period= and freq= terms win over -c/-F, as in perf */
		events_finish_attr(ev, o->period || o->freq);
		if (ev->tracks)
			config_tracker(el, &ev->attr, o);
		if (role_recorded(ev->role)) {
			config_callchain(&ev->attr, o);
			config_options(&ev->attr, o);
		}
		/* switch, namespace, cgroup records: the side-band event's, else the first's */
		config_tracking(&ev->attr, o, o->overwrite ? ev->role == EV_SIDEBAND : i == 0);
	}
	if (o->no_bpf_event)
		el->bpf_events = false;
}

static int list_tids(pid_t pid, pid_t **v, int *n)
{
	int cap = *n;	/* what *v holds: the caller's exact size, at least */
	char path[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t tid = proc_entry_pid(de->d_name), *nv;

		if (tid < 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			nv = realloc(*v, cap * sizeof(**v));
			if (!nv) {
				closedir(d);
				return -ENOMEM;
			}
			*v = nv;
		}
		(*v)[(*n)++] = tid;
	}
	closedir(d);
	return 0;
}

int evlist_targets(struct evlist *el, pid_t pid)
{
	const struct evlist_opts *o = &el->o;

	for (int c = 0; c < MAX_CPUS && !o->per_thread; c++)
		if (o->cpu_mask[c])
			el->cpus[el->ncpu++] = c;
	if (o->per_thread)
		el->cpus[el->ncpu++] = -1;	/* wherever the thread runs */
	el->per_cpu = o->system_wide;
	el->per_thread = o->per_thread;
	el->id_hdr = synth_id_hdr_size(el->sample_type);
	if (!o->npids) {
		el->thr = malloc(sizeof(pid_t));
		if (!el->thr)
			return -ENOMEM;
		el->thr[0] = o->wl_target ? pid : -1;
		el->nthr = 1;
		return 0;
	}
	for (int i = 0; i < o->npids; i++) {
		if (o->tids) {
			char path[64];
			pid_t *v;

			snprintf(path, sizeof(path), "/proc/%d/stat", o->pids[i]);
			if (access(path, F_OK))
				return fail_set(-ESRCH, "-t %d: no such thread", o->pids[i]);
			/* el->thr stays valid until v replaces it */
			v = realloc(el->thr, (el->nthr + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			el->thr = v;
			el->thr[el->nthr++] = o->pids[i];
		} else {
			int err = list_tids(o->pids[i], &el->thr, &el->nthr);

			if (err == -ENOMEM)
				return fail_set(err, "-p %d: listing its threads: %s",
						o->pids[i], strerror(-err));
			if (err)
				return fail_set(-ESRCH, "-p %d: no such process", o->pids[i]);
		}
	}
	return 0;
}

/* Where the events of a role write: their buffers, of what size. */
struct bufset {
	struct ring *rings;
	int *n;
	u64 bytes;
	bool backward;
	const char *article, *adj;	/* "mmap of ARTICLE N kB ADJbuffer" */
	bool hint;		/* an EPERM gets the locked-memory hint */
};

static struct bufset role_bufs(struct evlist *el, enum ev_role r)
{
	switch (r) {
	case EV_SIDEBAND:
		return (struct bufset){ el->sb_rings, &el->nsb_rings, SB_RING_BYTES, false,
					"the", "side-band ", true };
	case EV_TRIGGER:
		return (struct bufset){ el->trig_rings, &el->ntrig_rings, TRIG_RING_BYTES, false,
					"the", "--switch-output-event ", false };
	default:
		return (struct bufset){ el->rings, &el->nrings, el->o.mmap_bytes, el->o.overwrite,
					"a", "", true };
	}
}

/*
 * "cpu N" or "thread N", for messages: formatted only when one is made,
 * not for each of the CPUs x threads opened.
 */
static const char *target_name(char *buf, size_t len, int cpu, pid_t pid)
{
	if (cpu >= 0)
		snprintf(buf, len, "cpu %d", cpu);
	else
		snprintf(buf, len, "thread %d", (int)pid);
	return buf;
}

/*
 * Event e's new fd joins the buffer of its role that out[] names (an index
 * in the role's rings; tracking shares the samples'), or, the first of its
 * role there (-1), gets one of its own that the rest then write into
 * (PERF_EVENT_IOC_SET_OUTPUT).
 */
static int buf_join(struct evlist *el, int fd, int e, int out[NR_ROLES], int cpu, pid_t pid,
		    char *msg, size_t len)
{
	enum ev_role r = el->evs[e].role;
	struct bufset b = role_bufs(el, r);
	char at[32];
	int err;

	out += role_recorded(r) ? EV_SAMPLE : r;
	el->fds[el->nfds++] = (struct efd){
		.fd = fd, .ev = e, .role = r, .cpu = cpu, .ring = *out < 0 ? *b.n : *out,
	};
	if (*out >= 0) {
		if (!ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, b.rings[*out].fd))
			return 0;
		err = -errno;
		snprintf(msg, len, "%s: PERF_EVENT_IOC_SET_OUTPUT on %s: %s",
			 el->evs[e].name, target_name(at, sizeof(at), cpu, pid), strerror(-err));
		return err;
	}
	err = ring_map(&b.rings[*b.n], fd, b.bytes, b.backward, cpu);
	if (err) {
		snprintf(msg, len, "mmap of %s %llu kB %sbuffer on %s: %s%s", b.article,
			 (unsigned long long)b.bytes >> 10, b.adj,
			 target_name(at, sizeof(at), cpu, pid), strerror(-err),
			 err == -EPERM && b.hint ? scale_mlock_hint() : "");
		return err;
	}
	if (role_recorded(r))
		el->pfd[*b.n] = (struct pollfd){ .fd = fd, .events = POLLIN };
	*out = (*b.n)++;
	return 0;
}

static int build_idmap(struct evlist *el);

u32 evlist_max_record(const struct evlist *el, const struct recsize_limits *l)
{
	u32 m = 0;

	for (int e = 0; e < el->nev; e++) {
		const struct pf_event *ev = &el->evs[e];
		int ld = events_leader(el->evs, e);
		u32 r;

		if (!role_recorded(ev->role))
			continue;	/* not in the recorded buffers */
		r = recsize_event_max(&ev->attr, events_raw_max(ev),
				      el->evs[ld >= 0 ? ld : e].nr_members, l);
		if (r > m)
			m = r;
	}
	return m;
}

/* The cpu PMU's LBR depth, 0 without one. */
static u32 lbr_depth(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/caps/branches", "r");
	unsigned int v = 0;

	if (!f)
		return 32;	/* not told: the deepest LBR there is */
	if (fscanf(f, "%u", &v) != 1 || !v)
		v = 32;
	fclose(f);
	return v;
}

/*
 * The flight recorder's snapshot margin (ring_bwd_snapshot()), from the
 * largest record the events can write.  Read once the events are open:
 * the kernel refuses to change perf_event_max_stack and
 * perf_event_max_contexts_per_stack while call-chain events exist.
 */
static int evlist_set_margin(struct evlist *el, const struct evlist_opts *o)
{
	struct recsize_limits l;
	u64 margin;

	recsize_limits_read(&l);
	if (o->callgraph == CALLGRAPH_LBR)
		l.max_branches = lbr_depth();
	el->max_rec = evlist_max_record(el, &l);
	margin = recsize_margin(el->max_rec, el->sample_type);
	el->margin = margin;
	for (int i = 0; i < el->nrings; i++)
		ring_set_margin(&el->rings[i], margin);
	if (o->overwrite && o->verbose)
		fprintf(stderr, "perf-ring record: records of up to %u bytes: snapshot margin %llu bytes\n",
			el->max_rec, (unsigned long long)margin);
	if (o->overwrite && margin > o->mmap_bytes / 2)
		return fail_set(-EINVAL, "--overwrite: records of up to %u bytes need a buffer of "
				"at least %llu kB (-m %lluK) so that a snapshot never shows a "
				"record the kernel is still writing; the buffer is %llu kB",
				el->max_rec, (unsigned long long)ring_pow2_kb(2 * margin),
				(unsigned long long)ring_pow2_kb(2 * margin),
				(unsigned long long)o->mmap_bytes >> 10);
	return 0;
}

/*
 * One change to an event the kernel refused with err, to try again with,
 * as perf's evsel__fallback(): true when something was changed, with what
 * to say once the event opens in msg ("" for nothing).  The kernel's
 * missing features first, newest first, then perf_event_paranoid.  Each
 * change turns its own condition off, so the retries end.
 */
static bool open_fallback(struct evlist *el, struct pf_event *ev, int err, char *msg, size_t len)
{
	msg[0] = 0;
	if (err == EINVAL && el->lost_fmt && !el->nfds) {
		/*
		 * Before Linux 6.0 PERF_FORMAT_LOST is an unknown read_format
		 * bit.  Go without it; the loss is then counted from the LOST
		 * records.  Only the first open can meet this: no fd has it yet.
		 */
		el->lost_fmt = false;
		for (int k = 0; k < el->nev; k++)
			el->evs[k].attr.read_format &= ~PERF_FORMAT_LOST;
		if (el->o.verbose)
			snprintf(msg, len, "the kernel has no PERF_FORMAT_LOST (before 6.0): "
				 "lost records are counted from the LOST records");
		return true;
	}
	if (err == EINVAL && ev->attr.ksymbol) {
		/* before 5.1: no KSYMBOL and BPF_EVENT records */
		ev->attr.ksymbol = 0;
		ev->attr.bpf_event = 0;
		el->bpf_events = false;
		return true;
	}
	if (err == EINVAL && ev->attr.build_id) {
		/* before 5.12: the build-ids come from the ELF notes */
		ev->attr.build_id = 0;
		return true;
	}
	if (user_only_fallback(ev, err)) {
		if (!el->o.quiet)
			snprintf(msg, len, "perf_event_paranoid is %d: recording %.100s in user space only",
				 paranoid_level(), ev->name);
		return true;
	}
	return false;
}

/* the calling thread's id, asked once a thread (evlist.opener) */
static pid_t this_tid(void)
{
	static __thread pid_t tid;

	if (!tid)
		tid = (pid_t)syscall(SYS_gettid);
	return tid;
}

/* Open ev, with the fallbacks; the fd, or -errno. */
static int open_event(struct evlist *el, struct pf_event *ev, pid_t pid, int cpu, int gfd)
{
	char said[2][200];
	int fd, n = 0;

	if (!el->opener)
		el->opener = this_tid();
	else if (el->opener != this_tid())
		el->openers_mixed = true;
	while ((fd = sys_perf_event_open(&ev->attr, pid, cpu, gfd,
					 cgroups_opened && ev - el->evs < MAX_EVENTS ?
					 cgroup_fds[ev - el->evs] : -1)) < 0) {
		char msg[200];

		int en = errno;

		if (!open_fallback(el, ev, en, msg, sizeof(msg)))
			return -en;
		if (msg[0] && n < 2)
			memcpy(said[n++], msg, sizeof(msg));
	}
	for (int i = 0; i < n; i++)
		fprintf(stderr, "perf-ring record: %s\n", said[i]);
	return fd;
}

/* What the kernel refused, and why (to msg). */
static void open_failed(const struct pf_event *ev, int err, int cpu, pid_t pid,
			char *msg, size_t len)
{
	char why[400], at[32];

	if (err == EACCES || err == EPERM)
		open_denied_msg(ev, err, pid, why, sizeof(why));
	else
		events_open_error(ev, err, why, sizeof(why));
	snprintf(msg, len, "%s (%s)", why, target_name(at, sizeof(at), cpu, pid));
}

/*
 * Open every event on one CPU (-1: any) for one task (-1: every task),
 * into the buffers out[] names by role (buf_join()), and keep the ids.
 * A -p/-t thread that has exited meanwhile is skipped.  0, or -errno with
 * the reason in msg.
 */
static int open_target(struct evlist *el, int cpu, pid_t pid, int out[NR_ROLES],
		       char *msg, size_t len)
{
	int lfd[MAX_EVENTS];	/* this target's fds, for groups */
	char at[32], why[400];

	for (int e = 0; e < el->nev; e++) {
		struct pf_event *ev = &el->evs[e];
		int ld = events_leader(el->evs, e), fd, err;
		u64 id;

		fd = open_event(el, ev, pid, cpu, ld >= 0 ? lfd[ld] : -1);
		lfd[e] = fd;
		if (fd == -ESRCH && pid > 0)
			continue;	/* thread exited meanwhile */
		if (fd < 0) {
			open_failed(ev, -fd, cpu, pid, msg, len);
			return fd;
		}
		err = events_apply_filter(fd, ev, why, sizeof(why));
		if (err) {
			close(fd);
			snprintf(msg, len, "%s (%s)", why, target_name(at, sizeof(at), cpu, pid));
			return err;
		}
		err = buf_join(el, fd, e, out, cpu, pid, msg, len);
		if (err)
			return err;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id)) {
			err = -errno;
			snprintf(msg, len, "%s: PERF_EVENT_IOC_ID: %s", ev->name, strerror(-err));
			return err;
		}
		ev->ids[ev->nr_ids++] = id;
		el->fds[el->nfds - 1].id = id;
	}
	return 0;
}

/* The tables evlist_open() fills, and the room for the ids. */
static int open_alloc(struct evlist *el, const struct evlist_opts *o)
{
	int maxfds = el->ncpu * el->nthr * el->nev, err;
	int nbufs = el->per_thread ? el->nthr : el->ncpu;
	struct scale_need sn = {
		.ncpu = el->ncpu, .nthr = el->nthr, .nev = el->nev, .nsynth = o->synth_threads,
		.nrings = nbufs, .ring_bytes = o->mmap_bytes,
		.nsb = evlist_has_role(el, EV_SIDEBAND) ? nbufs : 0, .sb_bytes = SB_RING_BYTES,
		.ntrig = evlist_has_role(el, EV_TRIGGER) ? nbufs : 0, .trig_bytes = TRIG_RING_BYTES,
	};

	err = scale_check(&sn, o->verbose);	/* memlimit.h: the limits at scale */
	if (err)
		return err;
	if (o->cgroup && !cgroups_opened && (err = cgroups_open(o)))
		return err;
	el->fds = calloc(maxfds, sizeof(*el->fds));
	el->rings = calloc(nbufs, sizeof(*el->rings));
	el->pfd = calloc(nbufs + 1, sizeof(*el->pfd));	/* + a trigger's fd */
	el->sb_rings = calloc(nbufs, sizeof(*el->sb_rings));
	el->trig_rings = calloc(nbufs, sizeof(*el->trig_rings));
	if (!el->fds || !el->rings || !el->pfd || !el->sb_rings || !el->trig_rings)
		return -ENOMEM;
	for (int e = 0; e < el->nev; e++) {
		/* -a/-C: room for each CPU's events to be opened again 3 times */
		int room = el->ncpu * el->nthr * (el->per_cpu ? 4 : 1);

		el->evs[e].ids = calloc(room, sizeof(u64));
		if (!el->evs[e].ids)
			return -ENOMEM;
		el->evs[e].ids_room = room;
	}
	return 0;
}

int evlist_open(struct evlist *el)
{
	const struct evlist_opts *o = &el->o;
	char msg[512];
	int err;

	err = open_alloc(el, o);
	if (err)
		return err;
	for (int c = 0; c < el->ncpu; c++) {
		int out[NR_ROLES];

		for (int t = 0; t < el->nthr; t++) {
			/* the buffers: one per CPU, or per thread with --per-thread */
			if (!t || el->per_thread)
				memset(out, -1, sizeof(out));
			err = open_target(el, el->cpus[c], el->thr[t], out, msg, sizeof(msg));
			if (err)
				return fail_set(err, "%s", msg);
		}
	}
	if (!el->nfds)
		return fail_set(-ESRCH, "no thread to record (the process exited?)");
	err = evlist_set_margin(el, o);
	if (err)
		return err;
	return build_idmap(el);
}

/* The map from sample ids to events, from every id so far. */
static int build_idmap(struct evlist *el)
{
	const u64 *ids[MAX_EVENTS];
	int nids[MAX_EVENTS];

	for (int e = 0; e < el->nev; e++) {
		ids[e] = el->evs[e].ids;
		nids[e] = el->evs[e].nr_ids;
	}
	idmap_free(&el->idmap);
	return idmap_build(&el->idmap, ids, nids, el->nev, el->sample_type);
}

/* Room for one more set of ids: a streamed file's is fixed (-ENOSPC). */
static int ids_room(struct evlist *el)
{
	/*
	 * A streamed file's data starts after the ids' room, fixed when the
	 * file was opened: no more ids than that.  The flight recorder lays
	 * out each snapshot when it writes it, and no snapshot is open here
	 * (take_snapshot() opens and closes its file), so its room grows.
	 */
	for (int e = 0; e < el->nev; e++) {
		struct pf_event *ev = &el->evs[e];
		u64 *ids;

		if (ev->nr_ids < ev->ids_room)
			continue;
		if (!el->o.overwrite)
			return -ENOSPC;		/* no room left in the header */
		ids = realloc(ev->ids, 2 * ev->ids_room * sizeof(u64));
		if (!ids)
			return -ENOMEM;
		ev->ids = ids;
		ev->ids_room *= 2;
	}
	return 0;
}

/* The index of cpu's buffer among n rings, -1: none. */
static int cpu_ring(const struct ring *rings, int n, int cpu)
{
	for (int i = 0; i < n; i++)
		if (rings[i].cpu == cpu)
			return i;
	return -1;
}

int evlist_reopen_cpu(struct evlist *el, int cpu)
{
	int out[NR_ROLES] = {
		[EV_SAMPLE] = cpu_ring(el->rings, el->nrings, cpu), [EV_TRACKING] = -1,
		[EV_SIDEBAND] = cpu_ring(el->sb_rings, el->nsb_rings, cpu),
		[EV_TRIGGER] = cpu_ring(el->trig_rings, el->ntrig_rings, cpu),
	};
	int first = el->nfds, err, err2;
	char msg[512];
	struct efd *v;

	if (!el->per_cpu || out[EV_SAMPLE] < 0)
		return 0;
	/* every buffer of the CPU is there: the fds join them, none is mapped */
	if ((evlist_has_role(el, EV_SIDEBAND) && out[EV_SIDEBAND] < 0) ||
	    (evlist_has_role(el, EV_TRIGGER) && out[EV_TRIGGER] < 0))
		return -EINVAL;
	err = ids_room(el);
	if (err)
		return err;
	v = realloc(el->fds, (el->nfds + el->nev) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	el->fds = v;
	err = open_target(el, cpu, -1, out, msg, sizeof(msg));
	if (err && el->o.verbose)
		fprintf(stderr, "perf-ring record: cpu %d: %s\n", cpu, msg);
	err2 = build_idmap(el);
	if (err || err2)
		return err ?: err2;
	/* the new events start now if the rest run, the always-on ones always */
	for (int n = first; n < el->nfds; n++)
		if (el->enabled || role_always_on(el->fds[n].role))
			ioctl(el->fds[n].fd, PERF_EVENT_IOC_ENABLE, 0);
	return el->nfds - first;
}

/*
 * Every event this thread opened, turned on or off by the kernel in one
 * call (prctl PR_TASK_PERF_EVENTS_ENABLE/DISABLE walks the events a task
 * owns): -p on 1,000 threads of a 2-CPU machine opens 2,000 events, and
 * an ioctl() each costs a system call (bench/results/scale-threads.md).
 * Only when this thread opened every event of the list, and it keeps no
 * other open (bidleak.c closes its probes).  A seccomp filter may refuse
 * the prctl(): then one ioctl() each, as before.
 */
static bool all_at_once(const struct evlist *el, int how)
{
	return el->nfds > 1 && el->opener == this_tid() && !el->openers_mixed &&
	       !prctl(how, 0, 0, 0, 0);
}

/*
 * On, for -a, -C, -p, -t: the always-on events are on already
 * (evlist_track()), and the kernel's enable of all is theirs too.  A
 * command's always-on events start at its exec: one ioctl() each for
 * the others.  Off: the always-on ones stay on, one ioctl() each for the
 * others (a control's disable; the end is evlist_stop()).
 */
void evlist_enable(struct evlist *el, bool on)
{
	el->enabled = on;
	if (on && !el->o.wl_target && all_at_once(el, PR_TASK_PERF_EVENTS_ENABLE))
		return;
	for (int i = 0; i < el->nfds; i++)
		if (!role_always_on(el->fds[i].role))
			ioctl(el->fds[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

void evlist_track(struct evlist *el)
{
	for (int i = 0; i < el->nfds; i++)
		if (role_always_on(el->fds[i].role))
			ioctl(el->fds[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

void evlist_stop(struct evlist *el)
{
	el->enabled = false;
	if (all_at_once(el, PR_TASK_PERF_EVENTS_DISABLE))
		return;
	evlist_enable(el, false);
	for (int i = 0; i < el->nfds; i++)
		if (role_always_on(el->fds[i].role))
			ioctl(el->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

bool evlist_tasks_gone(const struct evlist *el)
{
	struct pollfd *p;
	bool gone = true;
	int n;

	if (el->per_cpu || !el->nfds)
		return false;
	p = calloc(el->nfds, sizeof(*p));
	if (!p)
		return false;
	for (int i = 0; i < el->nfds; i++)
		p[i] = (struct pollfd){ .fd = el->fds[i].fd };
	/* POLLHUP is reported whatever events asks for */
	n = poll(p, el->nfds, 0);
	for (int i = 0; n > 0 && i < el->nfds; i++)
		if (!(p[i].revents & POLLHUP))
			gone = false;
	free(p);
	return n > 0 && gone;
}

int evlist_rings_lost(const struct evlist *el, u64 *lost, const struct efd **first)
{
	u64 v[2];

	if (!el->lost_fmt)
		return -EOPNOTSUPP;
	for (int i = 0; i < el->nrings; i++) {
		lost[i] = 0;
		first[i] = NULL;
	}
	/* One pass over the fds, not one per ring: CPUs x events, not CPUs^2. */
	for (int f = 0; f < el->nfds; f++) {
		const struct efd *e = &el->fds[f];

		if (e->ring < 0 || e->ring >= el->nrings || !efd_recorded(e))
			continue;
		if (read(e->fd, v, sizeof(v)) != sizeof(v))
			return -errno ?: -EIO;
		lost[e->ring] += v[1];
		if (!first[e->ring])
			first[e->ring] = e;
	}
	return 0;
}

int evlist_read_count(const struct evlist *el, int fd, u64 v[2])
{
	size_t n = el->lost_fmt ? 2 * sizeof(u64) : sizeof(u64);

	v[1] = 0;
	return read(fd, v, n) == (ssize_t)n ? 0 : -EIO;
}

u64 evlist_max_avail(const struct evlist *el)
{
	u64 m = 0;

	for (int i = 0; i < el->nrings; i++) {
		u64 a = ring_fwd_avail(&el->rings[i]);

		if (a > m)
			m = a;
	}
	return m;
}
