/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events of a recording and their file descriptors: the attributes,
 * one fd per event, CPU and thread, buffers per CPU (or per thread with
 * --per-thread) by role that the other fds there are redirected into
 * (PERF_EVENT_IOC_SET_OUTPUT), the sample ids, and enabling and
 * disabling.  Set up once, before anything runs.
 */
#ifndef PERF_RING_EVLIST_H
#define PERF_RING_EVLIST_H

#include <poll.h>
#include <sys/types.h>

#include "cmdline.h"
#include "counts.h"
#include "recsize.h"
#include "ring.h"

/*
 * What the events need of perf record's options: record.c builds it once
 * from struct record_opts (cmdline.h), and evlist.c reads nothing else.
 */
struct evlist_opts {
	/* sampling: -c, -F, -d -P -W -R ..., -g, -I, --user-regs, -k */
	u64 period, freq;
	u64 sample_add;
	int callgraph;		/* enum record_callgraph */
	u32 stack_dump;
	bool user_callchains, kernel_callchains;
	u64 regs_intr, regs_user;
	int clockid;
	bool clockid_set;
	bool no_samples, inherit_stat, no_buffering, all_kernel, all_user;
	/* the side-band records the tracking event asks for */
	bool switch_events, namespaces, all_cgroups, no_bpf_event, no_buildid;
	/*
	 * Roles: the dummy record.c adds last is the side-band event with
	 * --overwrite, else the tracking dummy (-D, --control: tracking);
	 * evs[trig_first .. trig_first + trig_nr - 1] are the triggers.
	 */
	bool overwrite, tracking;
	int trig_first, trig_nr;
	/* whose events: the CPUs, -a, -p/-t, or the command */
	const bool *cpu_mask;	/* MAX_CPUS */
	bool system_wide;
	const pid_t *pids;
	int npids;
	bool tids;		/* pids are -t threads */
	bool wl_target;		/* the command: its events start at its exec */
	bool delay;		/* -D: ... unless held back */
	bool no_inherit;
	bool per_thread;	/* a buffer per thread (cpu -1), not per CPU */
	const char *cgroup;	/* -G: a list, one per event (or one for all) */
	int cgroup_nev;		/* the events -G applies to: those before it */
	/* buffers */
	u64 mmap_bytes, mmap_flush;
	int synth_threads;	/* for the limits at scale (memlimit.h) */
	bool verbose, quiet;
};

struct efd {
	int fd;
	int ev;			/* index in evs */
	int ring;		/* index in its role's: rings, sb_rings, trig_rings */
	int cpu;
	u64 id;
	enum ev_role role;	/* its event's */
};

/* Does the event write into the recorded buffers (rings)? */
static inline bool role_recorded(enum ev_role r)
{
	return r == EV_SAMPLE || r == EV_TRACKING;
}

/* Is it on from the start to the end, whatever -D, enable and disable do? */
static inline bool role_always_on(enum ev_role r)
{
	return r == EV_TRACKING || r == EV_SIDEBAND;
}

static inline bool efd_recorded(const struct efd *f)
{
	return role_recorded(f->role);
}

struct evlist {
	struct evlist_opts o;	/* evlist_config()'s */
	struct pf_event *evs;
	int nev;
	int cpus[MAX_CPUS], ncpu;
	pid_t *thr;		/* -1: any task */
	int nthr;
	bool per_cpu;		/* -a/-C: the events live in the CPUs' contexts */
	bool per_thread;	/* --per-thread: cpus is {-1}, the buffers are per thread */
	struct efd *fds;
	int nfds;
	struct ring *rings;	/* one per CPU, in cpus[] order (--per-thread: per thread) */
	int nrings;
	struct pollfd *pfd;	/* one per ring, and a spare slot at the end */
	/*
	 * The events' roles (events.h: enum ev_role) choose their buffers:
	 * recorded ones the rings; the flight recorder's side-band dummy,
	 * which carries COMM, MMAP2, FORK and EXIT, small forward buffers of
	 * its own, so that overwriting never takes them (sideband.h); the
	 * --switch-output-event ones forward buffers that the trigger reads
	 * (trigger.h).  The tracking event (tracks: the side-band one, or a
	 * dummy added for -D and --control, else the first) asks for the
	 * side-band records; a dummy or side-band one is on from the start
	 * (the command's exec for a command) to the end, whatever -D,
	 * "enable" and "disable" do to the others: samples taken later need
	 * what happened before.
	 */
	bool enabled;		/* the recorded events are on (evlist_enable()) */
	/*
	 * The thread that opened the events (its id), and whether some
	 * were opened by another: the kernel turns all the events a thread
	 * opened on or off at once (evlist_enable()).
	 */
	pid_t opener;
	bool openers_mixed;
	struct ring *sb_rings;	/* EV_SIDEBAND: one per CPU */
	int nsb_rings;
	struct ring *trig_rings;	/* EV_TRIGGER: one per CPU */
	int ntrig_rings;
	u64 sample_type;	/* shared by every event, RAW aside */
	bool lost_fmt;		/* PERF_FORMAT_LOST: the kernel's lost counts */
	bool bpf_events;	/* the tracking event has attr.ksymbol and bpf_event */
	int bid_leak;		/* bidleak_probe()'s answer; 0: attr.build_id asked for */
	u32 id_hdr;		/* bytes of sample_id on non-sample records */
	struct idmap idmap;
	u32 max_rec;		/* the largest record the recorded events write */
	u64 margin;		/* bytes that may be in flight in a buffer (recsize.h) */
};

#define SB_RING_BYTES (64u << 10)
/* The tracking event (the one with tracks set). */
const struct pf_event *evlist_tracker(const struct evlist *el);
/* Does any event have role r? */
bool evlist_has_role(const struct evlist *el, enum ev_role r);
#define TRIG_RING_BYTES (16u << 10)

/*
 * Attributes for the options: sampling, read format, buffer direction.
 * With --overwrite the last event must be a dummy: it becomes the
 * side-band event.
 */
void evlist_config(struct evlist *el, const struct evlist_opts *o);
/*
 * Whose events to open: the command's (pid), -p's or -t's threads, or
 * every task on the CPUs (-a, -C).  -ESRCH (with the message kept, fail.h)
 * when a -p process or -t thread does not exist.
 */
int evlist_targets(struct evlist *el, pid_t pid);
/*
 * The largest record the recorded events (not the side-band or trigger
 * ones) can write, with the kernel's limits l.
 */
u32 evlist_max_record(const struct evlist *el, const struct recsize_limits *l);
/*
 * Open, map a buffer per CPU, redirect, read the ids, and set the buffers'
 * snapshot margin from the largest record (-EINVAL when an --overwrite
 * buffer is too small for it).
 */
int evlist_open(struct evlist *el);
/*
 * Enable or disable the recorded events; one that is always on
 * (role_always_on()) stays on.  On, for -a, -C, -p, -t, the kernel may
 * turn them all on in one call (prctl(), evlist.c).
 */
void evlist_enable(struct evlist *el, bool on);
/* The tracking event of its own on: once, at the start, for -a, -C, -p, -t. */
void evlist_track(struct evlist *el);
/*
 * At the end: every event off, the tracking one last; when the kernel
 * turns them all off in one call (prctl(), evlist.c), in the order they
 * were opened: each target's tracking event after its recorded ones.
 */
void evlist_stop(struct evlist *el);
/*
 * -p, -t: every task recorded has exited (each recorded fd reports
 * POLLHUP, as perf record sees it), also when they are zombies that
 * nobody reaps.
 */
bool evlist_tasks_gone(const struct evlist *el);
/*
 * -a/-C: a CPU came back online, and the kernel does not restart the
 * events it took down.  Open them again on that CPU, into its buffers
 * (PERF_EVENT_IOC_SET_OUTPUT), with new ids that the file's header will
 * carry, and enable them.  Returns how many were opened, or -errno:
 * -ENOSPC when a streamed file has no room left for more ids (3 more per
 * CPU on average; the flight recorder's snapshots have no such limit).
 */
int evlist_reopen_cpu(struct evlist *el, int cpu);
/*
 * The records the kernel dropped in each ring, summed over its events'
 * PERF_FORMAT_LOST counts, into lost[nrings]; first[i] is ring i's first
 * event (NULL for a ring no recorded event writes to).
 * -EOPNOTSUPP without PERF_FORMAT_LOST (before Linux 6.0).
 */
int evlist_rings_lost(const struct evlist *el, u64 *lost, const struct efd **first);
/*
 * An event's count and, with PERF_FORMAT_LOST, the records it dropped
 * (else v[1] is 0).
 */
int evlist_read_count(const struct evlist *el, int fd, u64 v[2]);
/* Bytes waiting in the fullest forward buffer. */
u64 evlist_max_avail(const struct evlist *el);

#endif
