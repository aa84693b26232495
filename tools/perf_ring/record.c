// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ring record: set up the events, the sink and the triggers, then run
 * the loop that waits, reads and serves requests until the targets are
 * done or a stop is asked for.
 *
 *   cmdline.c      the options -> struct record_opts
 *   events.c       event names (-e) -> attributes
 *   evlist.c       the events, their fds and one buffer per CPU
 *   recsize.c      record sizes from the attributes
 *   ring.c         reading the kernel's buffers, forward and backward
 *   trigger.c      signals, --switch-output, --control -> requests
 *   sink-stream.c  streaming: read as the buffers fill, into the file
 *   sink-flight.c  flight recorder: snapshots of the backward buffers
 *   snapshot.c     the snapshot's window and counts, over copied buffers
 *   sideband.c     the flight recorder's side-band store
 *   synth.c        records for what existed before (threads, maps)
 *   synth-iter.c   the same from a BPF task iterator
 *   bpfsyms.c      records for the BPF programs loaded before
 *   output.c       the current output file, through the writer
 *   out-file.c     its format: the seekable perf.data (out-format.h)
 *   out-pipe.c     its format: perf's pipe format on standard output
 *   writer.c       the writer thread: compression, io_uring or write(2)
 *   compress.c     zstd, as perf's COMPRESSED records hold it
 *   perfdata.c     the perf.data format: header, attributes, features
 *   pbuf.c         a growable byte buffer
 *   hostinfo.c     the host as the header features describe it
 *   tracing.c      the TRACING_DATA feature (tracepoint formats)
 *   buildid.c      build-ids of the DSOs, and perf's build-id cache
 *   bidleak.c      whether the kernel leaks the MMAP2 build-id flag
 *   cgroup.c       -G's cgroups by name
 *   safefile.c     creating files safely as root (no link, fifo or device)
 *   counts.c       per-type record counts, the sample-id map
 *   hotplug.c      CPUs that go offline and come back
 *   workload.c     the command after "--"
 *   memlimit.c     the memory cgroup's limit
 *   prio.c         the reader's scheduling priority
 *   testhooks.c    the PERF_RING_* test switches, fault injection
 *   fail.c         the first fatal error, reported once at the top
 *   util.c         small I/O and text helpers
 *   version.c      the version string
 *
 * The other commands: report.c, reader.c and recover.c (perf-ring
 * report), ctl.c (perf-ring ctl); perf-ring.c picks the command.  The
 * tests' workloads: close-loop.c, watch-loop.c, cg-tree.c, bpf-spin.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bpfsyms.h"
#include "fail.h"
#include "hotplug.h"
#include "memlimit.h"
#include "prio.h"
#include "sideband.h"
#include "sink.h"
#include "synth.h"
#include "testhooks.h"
#include "workload.h"

static void summary(const struct record_opts *o, const struct sink *s,
		    const struct out_file *out, const struct triggers *tr)
{
	const struct out_totals *t = out_totals(out);
	char ev[32], raw[32], bytes[32];

	if (o->quiet)
		return;
	fmt_count(ev, sizeof(ev), t->samples);
	fmt_bytes(raw, sizeof(raw), t->raw);
	fmt_bytes(bytes, sizeof(bytes), t->out);
	fprintf(stderr, "[ perf-ring record: ");
	if (s->snapshots)
		fprintf(stderr, "%d snapshot%s, ", t->nfiles, t->nfiles == 1 ? "" : "s");
	else if (t->nfiles > 1)
		fprintf(stderr, "%d files, ", t->nfiles);
	/* before Linux 6.0 only the LOST records tell */
	fprintf(stderr, "%s events, %llu lost%s", ev,
		(unsigned long long)(s->el->lost_fmt ? s->lost : t->lost),
		s->el->lost_fmt ? "" : " (from LOST records: no PERF_FORMAT_LOST)");
	if (s->snapshots)
		fprintf(stderr, ", %s%llu overwritten", s->ow_estimated ? "~" : "",
			(unsigned long long)s->overwritten);
	if (s->snapshots && o->verbose)
		fprintf(stderr, " (%llu distinct samples captured)", (unsigned long long)s->unique);
	if (o->level)
		fprintf(stderr, ", %s -> %s (%.1fx)", raw, bytes,
			t->out ? (double)t->raw / t->out : 0.0);
	else
		fprintf(stderr, ", %s", bytes);
	fprintf(stderr, ", %s ]\n", t->writer_used ? t->writer_used : "none");
	if (t->writer_used && strstr(t->writer_used, "unavailable"))
		fprintf(stderr, "perf-ring record: note: %s; used write(2)\n",
			out_uring_err(out));
	if (tr->events)
		fprintf(stderr, "perf-ring record: --switch-output-event: %llu events\n",
			(unsigned long long)tr->events);
	if (tr->merged || tr->dropped || tr->bad_cmds)
		fprintf(stderr, "perf-ring record: requests: %llu served, %llu merged into others "
			"(--snapshot-min-interval, or one pending), %llu dropped, %llu bad "
			"control commands%s\n", (unsigned long long)tr->switches,
			(unsigned long long)tr->merged, (unsigned long long)tr->dropped,
			(unsigned long long)tr->bad_cmds, tr->unsaid ? " (not all shown: at most one "
			"error a second without an ack fd)" : "");
}

/*
 * "status" on the control fd: the counts of the summary so far.  Bytes on
 * disk are those of the files --switch-max-files keeps, else all written.
 */
static void ctl_status(void *ctx, struct ctl_status *st)
{
	const struct sink *s = ctx;
	const struct out_totals *t = out_totals(s->out);

	st->files = t->nfiles;
	st->bytes = out_bytes_kept(s->out);
	st->lost = s->el->lost_fmt ? s->lost : t->lost;
	st->snapshots = s->snapshots;
	st->overwritten = s->overwritten;
	st->ow_estimated = s->ow_estimated;
}

/* -v: where the build-ids come from, and why */
static void buildid_method(const struct evlist *el)
{
	const char *why = el->bid_leak > 0 ?
		"this kernel flags other events' MMAP2 records as carrying build-ids while one "
		"event asks for them, which breaks perf record run beside" :
		el->bid_leak == -EOPNOTSUPP ? "the kernel has no attr.build_id (before 5.12)" :
		el->bid_leak < 0 ? "the MMAP2 build-id probe could not tell" : NULL;

	if (!why && evlist_tracker(el)->attr.build_id)
		fprintf(stderr, "perf-ring record: build-ids: from the kernel's MMAP2 records "
			"(attr.build_id: the kernel flags only the records of the events that ask)\n");
	else
		fprintf(stderr, "perf-ring record: build-ids: from the ELF notes: %s%s%s\n",
			why ? why : "the kernel refused attr.build_id",
			el->bid_leak < 0 && el->bid_leak != -EOPNOTSUPP ? ": " : "",
			el->bid_leak < 0 && el->bid_leak != -EOPNOTSUPP ? strerror(-el->bid_leak) : "");
}

/*
 * What existed before, as perf's --synth asks: the cgroups (with
 * --all-cgroups), and with -a or -p the threads (COMM, FORK, with
 * --namespaces NAMESPACES) and their maps.
 */
static void synth_existing(const struct record_opts *o, const struct evlist *el,
			   struct pbuf *synth)
{
	struct synth_result res = { 0 };
	u64 ncg = 0;
	int err;

	if (o->all_cgroups && (o->synth & RECORD_SYNTH_CGROUP)) {
		err = synth_cgroups(synth, el->id_hdr, &ncg);
		if (err)
			fprintf(stderr, "perf-ring record: warning: Couldn't synthesize cgroup "
				"events: %s\n", strerror(-err));
		else if (o->verbose)
			fprintf(stderr, "perf-ring record: synthesized %llu cgroups\n",
				(unsigned long long)ncg);
	}
	if (o->wl_target || !(o->synth & RECORD_SYNTH_TASK))
		return;
	synth_set_maps(o->synth & RECORD_SYNTH_MMAP);
	synth_set_namespaces(o->namespaces);
	synth_set_map_timeout(o->map_timeout_ms);
	err = synth_threads(o->npids ? o->pids : NULL, o->npids, o->synth_threads,
			    el->id_hdr, synth, &res);
	if (err)
		fprintf(stderr, "perf-ring record: warning: synthesis: %s\n", strerror(-err));
	if (o->verbose)
		fprintf(stderr, "perf-ring record: synthesized %llu threads of %llu processes "
			"on %d threads in %.1f ms, listed by %s\n",
			(unsigned long long)res.nr_threads,
			(unsigned long long)res.nr_procs, o->synth_threads, res.ns / 1e6, res.how);
}

/* The kernel map, the BPF programs loaded before, and what synth_existing() adds. */
static void synth_start(const struct record_opts *o, const struct evlist *el,
			struct pbuf *synth)
{
	if (synth_kernel_mmap(synth, el->id_hdr) && o->verbose)
		fprintf(stderr, "perf-ring record: no kernel map (kallsyms restricted)\n");
	if (el->bpf_events) {
		struct bpfsyms_result br;

		bpfsyms_synth(synth, el->id_hdr, &br);
		if (o->verbose && br.err)
			fprintf(stderr, "perf-ring record: cannot list the BPF programs loaded "
				"before (%s): their JIT code has no names\n", strerror(-br.err));
		else if (o->verbose)
			fprintf(stderr, "perf-ring record: %u BPF programs loaded before, "
				"%u functions\n", br.progs, br.funcs);
	}
	synth_existing(o, el, synth);
}

static bool targets_alive(const struct record_opts *o)
{
	for (int i = 0; i < o->npids; i++)
		if (kill(o->pids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

/*
 * -p, -t: done when they are gone, or have all exited and are zombies
 * that their parent has not reaped (kill() still finds those): then every
 * recorded fd reports POLLHUP, which is what perf record waits for.
 * Looked at every 50 ms at most.
 */
static bool targets_gone(const struct record_opts *o, const struct evlist *el, u64 *last)
{
	if (!targets_alive(o))
		return true;
	if (now_ns() - *last < 50000000)
		return false;
	*last = now_ns();
	return evlist_tasks_gone(el);
}

/* Serve one request; a switch goes to the sink. */
static int serve(struct triggers *t, struct sink *s, struct evlist *el, const struct req *r)
{
	int err = 0;

	if (r->kind == REQ_SWITCH && out_streams(s->o->output)) {
		/* one stream, nothing to switch to: refuse, and go on */
		triggers_done(t, r, -EOPNOTSUPP, NULL);
		if (!s->o->quiet)
			fprintf(stderr, "perf-ring record: %s: no snapshot with -o - "
				"(pipe output is one stream)\n", r->from);
		return 0;
	}
	if (r->kind == REQ_SWITCH) {
		s->done_path[0] = '\0';
		err = s->ops->serve(s, r);
		if (!err && !s->o->quiet && s->o->verbose)
			fprintf(stderr, "perf-ring record: %s: switch after %.1f ms\n", r->from,
				(now_ns() - r->ns) / 1e6);
	} else if (r->kind == REQ_ENABLE || r->kind == REQ_DISABLE) {
		evlist_enable(el, r->kind == REQ_ENABLE);
	}
	triggers_done(t, r, err, s->done_path);
	return err;
}

/*
 * Serve what the triggers asked for and is due, oldest first.  Returns 1
 * when one asked to stop, else 0 or the sink's error.
 */
static int serve_requests(struct triggers *t, struct sink *s, struct evlist *el)
{
	struct req r;
	int err;

	triggers_poll(t, s->ops->progress(s));
	while (triggers_next(t, &r)) {
		if (r.kind == REQ_STOP) {
			triggers_done(t, &r, 0, NULL);
			return 1;
		}
		err = serve(t, s, el, &r);
		if (err)
			return err;
	}
	return 0;
}

/*
 * -a/-C: the events of a CPU that came back, opened again into its buffer.
 * A failure is said, and the recording goes on without that CPU.
 */
static void reopen_back(const struct record_opts *o, struct evlist *el, struct hotplug *hp)
{
	int cpu, n;

	while ((cpu = hotplug_next_back(hp)) >= 0) {
		n = evlist_reopen_cpu(el, cpu);
		if (n < 0) {
			hotplug_reopen_failed(hp, cpu, n);
			fprintf(stderr, "perf-ring record: warning: cpu %d: opening its events again "
				"failed: %s\n", cpu, strerror(-n));
		} else if (o->verbose) {
			fprintf(stderr, "perf-ring record: cpu %d: %d events opened again, their ids "
				"go into the header\n", cpu, n);
		}
	}
}

/*
 * --tail-synthesize, as perf: what synthesis writes at the start (the
 * kernel map, the BPF programs, the cgroups, the threads and their maps)
 * is taken as the recording ends and written after its records.  perf
 * report then meets the samples of threads that existed before without
 * their COMM and MMAP2 yet, as with perf's file.
 */
static int tail_synthesize(const struct record_opts *o, const struct evlist *el,
			   struct sink *s)
{
	struct pbuf tail = { 0 };
	int err;

	synth_start(o, el, &tail);
	err = tail.err ?: out_emit(s->out, tail.p, tail.len);
	pbuf_free(&tail);
	return err;
}

/*
 * The loop: wait, read, serve, until the targets are done (not at all when
 * the command could not start).  Requests still pending then are served
 * at once, so that every one asked for is answered.  Then stop the events
 * and let the sink save what is left.
 */
static int record_loop(const struct record_opts *o, struct evlist *el, struct sink *s,
		       struct triggers *trig, struct workload *wl, struct hotplug *hp,
		       bool run)
{
	struct pollfd tfd[MAX_CPUS + 1];
	struct req r;
	u64 mem_ns = 0, gone_ns = 0;
	int err = 0, ntfd, uev, skipped;
	bool limit = false;	/* --max-size reached */

	while (run) {
		err = serve_requests(trig, s, el);
		if (err)
			break;
		if (triggers_child_exited() && workload_reap(wl))
			break;
		if (!o->workload && o->npids && targets_gone(o, el, &gone_ns))
			break;		/* every -p process (-t thread) has exited */
		ntfd = triggers_pollfds(trig, tfd, ARRAY_SIZE(tfd) - 1);
		uev = hp->uevent_fd >= 0 ? ntfd : -1;
		if (uev >= 0)
			tfd[ntfd++] = (struct pollfd){ .fd = hp->uevent_fd, .events = POLLIN };
		skipped = s->ops->wait(s, tfd, ntfd, triggers_timeout(trig, 100));
		if (skipped < 0) {
			err = skipped;
			break;
		}
		triggers_revents(trig, tfd, ntfd);
		/* the uevents when poll() found some, or did not look */
		hotplug_check(hp, el->rings, el->nrings, false,
			      uev >= 0 && (skipped || tfd[uev].revents));
		out_cpus_online(s->out, hotplug_online(hp));
		reopen_back(o, el, hp);
		err = s->ops->read(s);
		if (err || sink_failed(s))
			break;
		if (o->max_size && s->ops->progress(s) >= o->max_size) {
			fprintf(stderr, "[ perf-ring record: perf size limit reached (%llu KB), "
				"stopping session ]\n",
				(unsigned long long)(s->ops->progress(s) >> 10));
			limit = true;	/* as perf: the command is stopped too */
			break;
		}
		/*
		 * What grows as it runs (side-band, the kernel's own) still
		 * fits; looked at every 10 ms at most, off the hot path.  The
		 * flight recorder's memory is all taken at its start (the
		 * snapshot buffers, the side-band store) and a snapshot looks
		 * for itself: once a second between snapshots (each look is a
		 * read of each limited cgroup level's files).
		 */
		if (memlimit_on() && now_ns() - mem_ns >= (o->overwrite ? 1000000000 : 10000000)) {
			mem_ns = now_ns();
			err = memlimit_check(0, "recording");
			if (err)
				break;
		}
	}
	while (triggers_drain(trig, &r)) {
		if (err >= 0 && r.kind == REQ_SWITCH && !sink_failed(s))
			err = serve(trig, s, el, &r) ?: err;
		else
			triggers_done(trig, &r, err < 0 && r.kind == REQ_SWITCH ? err : 0, NULL);
	}
	/* stop: no new records; the sink reads what is left */
	evlist_stop(el);
	hotplug_check(hp, el->rings, el->nrings, true, true);
	out_cpus_online(s->out, hotplug_online(hp));
	/* asked to stop (a signal, or "stop"): the command is stopped too, as perf does */
	workload_wait(wl, triggers_stop_signal() || err != 0 || sink_failed(s) || limit);
	if (o->tail_synth && !o->overwrite && run && err >= 0 && !sink_failed(s))
		err = tail_synthesize(o, el, s);
	s->ops->finish(s, run && err >= 0);
	return err < 0 ? err : 0;
}

/*
 * Die by sig, as perf record does at its exit (record__sig_exit()), with
 * no core file for the signals that would write one: the command's crash
 * is the command's, not perf-ring's.  128 + sig if it could not.
 */
static int exit_by_signal(int sig)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;

	fflush(NULL);
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

/* What the events need of the options (evlist.h), built once. */
static void evlist_opts_of(const struct record_opts *o, struct evlist_opts *eo)
{
	*eo = (struct evlist_opts){
		.period = o->period, .freq = o->freq, .sample_add = o->sample_add,
		.callgraph = o->callgraph, .stack_dump = o->stack_dump,
		.user_callchains = o->user_callchains, .kernel_callchains = o->kernel_callchains,
		.regs_intr = o->regs_intr, .regs_user = o->regs_user,
		.clockid = o->clockid, .clockid_set = o->clockid_set,
		.no_samples = o->no_samples, .inherit_stat = o->inherit_stat,
		.no_buffering = o->no_buffering, .all_kernel = o->all_kernel,
		.all_user = o->all_user, .switch_events = o->switch_events,
		.namespaces = o->namespaces, .all_cgroups = o->all_cgroups,
		.no_bpf_event = o->no_bpf_event, .no_buildid = o->no_buildid,
		.overwrite = o->overwrite,
		/*
		 * A tracking dummy of its own for streaming: -D and --control
		 * turn the recorded events off for a while, and what happens
		 * meanwhile (an exec, an mmap) must still be recorded, as perf
		 * record's tracking dummy does.  -a and -C too: the dummy is on
		 * before the threads are synthesized from /proc (record_open()),
		 * so that a task that execs or maps while they are read, before
		 * the events start, is still named; perf record -a adds its
		 * dummy for the same reason.
		 */
		.tracking = o->delay_ms || o->control || o->system_wide,
		.trig_first = o->switch_ev_first, .trig_nr = o->switch_ev_nr,
		.cpu_mask = o->cpu_mask, .system_wide = o->system_wide,
		.pids = o->pids, .npids = o->npids, .tids = o->tids,
		.wl_target = o->wl_target, .delay = o->delay_ms != 0,
		.no_inherit = o->no_inherit, .per_thread = o->per_thread, .cgroup = o->cgroup,
		.cgroup_nev = o->cgroup_nev,
		.mmap_bytes = o->mmap_bytes, .mmap_flush = o->mmap_flush,
		.synth_threads = o->synth_threads, .verbose = o->verbose, .quiet = o->quiet,
	};
}

/* What the output takes of the options (output.h). */
static struct out_opts out_options(const struct record_opts *o)
{
	return (struct out_opts){
		.output = o->output, .argc = o->argc, .argv = o->argv,
		.level = o->level, .aio = o->aio, .flight = o->overwrite,
		.no_buildid = o->no_buildid, .no_buildid_cache = o->no_buildid_cache,
		.quiet = o->quiet, .verbose = o->verbose, .max_files = o->switch_max_files,
		.switching = !o->overwrite && record_switching(o),
	};
}

/*
 * A setup that failed exits as perf record's does: cmd_record()'s error &
 * 0xff, which is 255 (-1) for most (an event that cannot be opened, a -t
 * thread or a -p zombie, an output that cannot be created), 244 (-ENOMEM)
 * for a -p process that does not exist (no thread map can be made), 237
 * (-ENODEV) for a -C CPU that does not exist.
 */
#define SETUP_EXIT 255

static int setup_exit(const struct record_opts *o, int err)
{
	char path[64];

	if (err == -ESRCH && o->npids && !o->tids)
		for (int i = 0; i < o->npids; i++) {
			snprintf(path, sizeof(path), "/proc/%d", o->pids[i]);
			if (access(path, F_OK))
				return 256 - ENOMEM;
		}
	if (o->cpu_list_given)
		for (int c = 0; c < MAX_CPUS; c++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", c);
			if (o->cpu_mask[c] && access(path, F_OK))
				return 256 - ENODEV;
		}
	return SETUP_EXIT;
}

/*
 * One recording, from the options to the exit code.  The steps of
 * cmd_record() fill it in order: setup, open, run, finish (or abort).
 */
struct record {
	struct record_opts o;
	/* each module's options, built from o once */
	struct evlist_opts eo;
	struct out_opts oo;
	struct trigger_opts trig_opts;
	struct sink_opts sink_opts;
	struct evlist el;
	struct workload wl;
	struct out_file *out;
	struct pbuf synth;
	struct triggers trig;
	bool trig_on;		/* triggers_init() ran: triggers_close() at the end */
	struct sink *s;
	struct hotplug hp;
	bool wl_failed;		/* the command could not start */
	int setup_exit;		/* a setup failure's exit, when not setup_exit()'s */
};

/* The flight recorder's side-band event, or the tracking dummy (evlist.h). */
static int record_add_dummy(struct record *rec)
{
	struct record_opts *o = &rec->o;
	char msg[256];

	if (!o->overwrite && !rec->eo.tracking)
		return 0;
	/*
	 * -a and -C alone do without it when the events fill the table:
	 * the first one tracks then, as before the dummy, and perf's
	 * limit (none) is not undercut.
	 */
	if (o->events.nr == MAX_EVENTS && !o->overwrite && !o->delay_ms && !o->control) {
		rec->eo.tracking = false;
		return 0;
	}
	rec->setup_exit = SETUP_EXIT;
	if (o->events.nr == MAX_EVENTS)
		return fail_set(-E2BIG, "%s: at most %d events",
				o->overwrite ? "--overwrite" : o->delay_ms ? "-D" : "--control",
				MAX_EVENTS - 1);
	if (events_parse("dummy", &o->events, msg, sizeof(msg)))
		return fail_set(-EINVAL, "%s", msg);
	rec->setup_exit = 0;
	return 0;
}

/* What the triggers take of the options (trigger.h). */
static struct trigger_opts trigger_options(const struct record_opts *o)
{
	return (struct trigger_opts){
		.on_signal = o->switch_signal, .time_ms = o->switch_time_ms,
		.size = o->switch_size, .delay_ms = o->snapshot_delay_ms,
		.min_interval_ms = o->snapshot_min_interval_ms, .control = o->control,
	};
}

/* What a sink takes of the options (sink.h). */
static struct sink_opts sink_options(const struct record_opts *o)
{
	return (struct sink_opts){
		.output = o->output, .mmap_bytes = o->mmap_bytes, .mmap_flush = o->mmap_flush,
		.stamped = o->switch_signal || o->switch_size || o->switch_time_ms ||
			   o->switch_ev_nr || o->timestamp_filename,
		.control = o->control, .snapshot_pause = o->snapshot_pause,
		.snapshot_whole = o->snapshot_whole,
		.switching = record_switching(o),
		.switch_size = o->switch_size, .quiet = o->quiet, .verbose = o->verbose,
	};
}

/* Setup: the events configured, the output, the triggers, the command forked. */
static int record_setup(struct record *rec)
{
	struct record_opts *o = &rec->o;
	int err;

	evlist_opts_of(o, &rec->eo);
	rec->oo = out_options(o);
	rec->trig_opts = trigger_options(o);
	rec->sink_opts = sink_options(o);
	err = record_add_dummy(rec);
	if (err)
		return err;
	rec->el.evs = o->events.ev;
	rec->el.nev = o->events.nr;
	evlist_config(&rec->el, &rec->eo);
	if (o->clockid_set)
		pf_set_clock(o->clockid);	/* -k: HEADER_CLOCKID and CLOCK_DATA */
	rec->out = out_new(&rec->oo, &rec->el);
	if (!rec->out)
		return -ENOMEM;
	err = triggers_init(&rec->trig, &rec->trig_opts);
	rec->trig_on = true;
	if (err) {
		/* perf: a --control it cannot open is a usage error */
		rec->setup_exit = RECORD_USAGE_EXIT;
		return err;
	}
	if (o->workload) {
		err = workload_prepare(&rec->wl, o->workload, out_to_stdout(o->output));
		if (err) {
			rec->setup_exit = SETUP_EXIT;
			return fail_set(err, "cannot fork the workload: %s", strerror(-err));
		}
	}
	return 0;
}

/*
 * Under a memory cgroup's limit, what the recording will take must
 * fit now, before any file or the command: the first file (for the
 * flight recorder a snapshot of every buffer, and the copies it is
 * taken into).  Past the limit, the OOM killer would end perf-ring
 * with no word, in the middle of a file.
 */
static int record_mem_check(struct record *rec)
{
	const struct record_opts *o = &rec->o;
	u64 bufs, store, need;

	memlimit_init();
	if (!memlimit_on())
		return 0;
	/*
	 * The side-band store is taken whole at the start by the flight
	 * recorder and by files that switch; what it holds goes into a
	 * later file, whose own check counts it (out_open()).
	 */
	store = o->overwrite || record_switching(o) ? SIDEBAND_MAX : 0;
	bufs = (u64)o->mmap_bytes * rec->el.nrings;
	need = (o->overwrite ? out_mem_need(rec->out, bufs + rec->synth.len) + bufs + o->mmap_bytes :
			       out_mem_need(rec->out, 0)) + store;
	if (o->verbose && memlimit_describe()[0])
		fprintf(stderr, "perf-ring record: memory: %s; about %llu bytes to take\n",
			memlimit_describe(), (unsigned long long)need);
	return memlimit_check(need, "recording");
}

/*
 * Open: the events and their buffers, what every file starts with, the
 * sink, the reader's priority; then the output is created.
 */
static int record_open(struct record *rec)
{
	const struct record_opts *o = &rec->o;
	struct evlist *el = &rec->el;
	const char *reader_prio;
	int err;

	inject_faults(FAULTS_START);
	err = evlist_targets(el, rec->wl.pid) ?: evlist_open(el);
	if (err)
		return err;
	if (o->verbose && !o->no_buildid)
		buildid_method(el);
	hotplug_init(&rec->hp, &(struct hotplug_opts){
		.per_cpu = el->per_cpu, .backward = o->overwrite, .quiet = o->quiet,
		.sample_type = el->sample_type,
	});
	err = triggers_watch(&rec->trig, el->trig_rings, el->ntrig_rings);
	if (err)
		return err;

	/*
	 * Synthesized records: the kernel map, and with -a or -p the threads
	 * that exist now (a command's are seen as it starts).  What happens
	 * later comes from the kernel's side-band records, which start
	 * before the threads are read, so that what changes while they are
	 * read is recorded too (the same task twice is harmless: the
	 * kernel's record comes after the synthesized one).  A command's
	 * start at its exec.  With --tail-synthesize, at the end instead
	 * (the flight recorder's snapshots carry their side-band store
	 * either way).
	 */
	if (!o->wl_target)
		evlist_track(el);
	if (!o->tail_synth || o->overwrite)
		synth_start(o, el, &rec->synth);
	rec->s = o->overwrite ? sink_flight_new(&rec->sink_opts, el, rec->out, &rec->synth) :
				sink_stream_new(&rec->sink_opts, el, rec->out, &rec->synth);
	if (!rec->s)
		return -ENOMEM;
	rec->trig.status = ctl_status;
	rec->trig.status_ctx = rec->s;

	/*
	 * This thread, the reader, is scheduled ahead of the rest (prio.c):
	 * a buffer the kernel fills faster than it is read loses records, and
	 * a reader that waits for a CPU is the usual reason.  It runs
	 * SCHED_FIFO (-r PRIO, or priority 1 by default when permitted), else
	 * with a short fair slice.  The command was forked before, and the
	 * writer and synthesis threads undo it (prio_worker()).  Before the
	 * output is created, so that a refusal of -r leaves no file.
	 */
	err = prio_reader(o->realtime, o->reader_slice_us, &reader_prio);
	if (err)
		return fail_set(err, "-r %d: cannot run SCHED_FIFO: %s%s", o->realtime,
				strerror(-err), err == -EPERM ?
				" (needs root or CAP_SYS_NICE, and an RLIMIT_RTPRIO that allows it)" : "");
	if (o->verbose)
		fprintf(stderr, "perf-ring record: reader: %s\n", reader_prio);
	err = record_mem_check(rec);
	if (err)
		return err;
	return out_prepare(rec->out) ?: rec->s->ops->start(rec->s);
}

/*
 * Run: go, and the loop until the targets are done.  The command's own
 * events start at its exec (enable_on_exec); those of -a, -C, -p and -t
 * before it starts, so that a command beside them is seen from its
 * start.  -D holds them back.  Returns the loop's error.
 */
static int record_run(struct record *rec)
{
	const struct record_opts *o = &rec->o;
	struct evlist *el = &rec->el;
	int err;

	/*
	 * What the side-band recorded while the threads were read
	 * (record_open()) is taken now, so that its buffer (the flight
	 * recorder's is small) has room for the command's exec.  An error
	 * is the sink's: its next read, the loop's first, meets it again.
	 */
	if (!o->wl_target)
		rec->s->ops->read(rec->s);
	if (!o->wl_target && !o->delay_ms)
		evlist_enable(el, true);
	el->enabled = !o->delay_ms;	/* a command's: at its exec */
	if (o->workload)
		rec->wl_failed = workload_go(&rec->wl) != 0;
	if (o->ndelay_ranges)
		triggers_enable_ranges(&rec->trig, o->delay_ranges, o->ndelay_ranges);
	else if (o->delay_ms > 0)
		triggers_enable_at(&rec->trig, o->delay_ms);
	rec->hp.t0 = rec->hp.checked = now_ns();
	if (el->per_cpu)
		hotplug_listen(&rec->hp);

	inject_faults(FAULTS_RUNNING);
	err = record_loop(o, el, rec->s, &rec->trig, &rec->wl, &rec->hp, !rec->wl_failed);
	inject_faults(FAULTS_OFF);
	return err;
}

/* What every way out of cmd_record() releases. */
static void record_free(struct record *rec)
{
	if (rec->s)
		rec->s->ops->free(rec->s);
	rec->s = NULL;
	if (rec->out)
		out_free(rec->out);
	rec->out = NULL;
	pbuf_free(&rec->synth);
	hotplug_close(&rec->hp);
	if (rec->trig_on)
		triggers_close(&rec->trig);
	rec->trig_on = false;
}

/*
 * The exit as perf record's: a command that could not start is
 * 255; else a signal is raised again as perf-ring exits, so that the
 * caller sees a death by it: the one that killed the command (after
 * a stop that is the SIGTERM sent to it), else the one that stopped
 * the recording.  Otherwise the command's exit code; 2 when the
 * recording failed.
 */
static int record_finish(struct record *rec, int err)
{
	const struct record_opts *o = &rec->o;
	const struct workload *wl = &rec->wl;
	int stop_sig = triggers_stop_signal(), raise_sig = 0, exit_code = 0;

	summary(o, rec->s, rec->out, &rec->trig);
	hotplug_summary(&rec->hp, rec->el.rings, rec->el.nrings, rec->s->ring_newest);
	if (err < 0 && !fail_err())
		fail_set(err, "recording: %s", strerror(-err));
	if (rec->wl_failed) {
		fprintf(stderr, "perf-ring record: workload failed to start: '%s': %s\n",
			o->workload[0], strerror(wl->exec_errno ? wl->exec_errno : EIO));
		exit_code = 255;
	} else if (fail_err()) {
		fprintf(stderr, "perf-ring record: %s\n", fail_msg());
		exit_code = 2;
	} else {
		if (o->workload && WIFSIGNALED(wl->status))
			raise_sig = WTERMSIG(wl->status);
		else if (stop_sig)
			raise_sig = stop_sig;
		if (o->workload && WIFEXITED(wl->status))
			exit_code = WEXITSTATUS(wl->status);
		if (stop_sig && o->workload)
			fprintf(stderr, "perf-ring record: interrupted by %s; workload stopped, '%s' is complete up to here\n",
				strsignal(stop_sig), o->overwrite ? "snapshot" : o->output);
		else if (o->workload && (exit_code || raise_sig) && !o->quiet)
			fprintf(stderr, "perf-ring record: note: workload %s %d\n",
				raise_sig ? "was killed by signal" : "exited with status",
				raise_sig ? raise_sig : exit_code);
	}
	record_free(rec);
	return raise_sig ? exit_by_signal(raise_sig) : exit_code;
}

/* A failure before the run: the command killed, no file left half made. */
static int record_abort(struct record *rec, int err)
{
	int code = rec->setup_exit ? rec->setup_exit : setup_exit(&rec->o, err);

	workload_kill(&rec->wl);
	if (rec->out && out_is_open(rec->out))
		out_close(rec->out, NULL, NULL);
	inject_faults(FAULTS_OFF);
	fprintf(stderr, "perf-ring record: %s\n", fail_msg()[0] ? fail_msg() : strerror(-err));
	record_free(rec);
	return code;
}

int cmd_record(int argc, char **argv)
{
	struct record rec = { .wl = { .pid = -1 }, .hp = { .uevent_fd = -1, .online_fd = -1 } };
	int err;

	err = record_parse(argc, argv, &rec.o);
	if (err)
		/* perf's usage exit; a refused option exits as perf fails with it */
		return err == -EINVAL ? RECORD_USAGE_EXIT : rec.o.refuse_exit ? rec.o.refuse_exit :
			SETUP_EXIT;
	if (rec.o.dry_run)
		return 0;
	if (synth_parse_env())
		return SETUP_EXIT;
	err = record_setup(&rec) ?: record_open(&rec);
	if (err)
		return record_abort(&rec, err);
	err = record_run(&rec);
	return record_finish(&rec, err);
}
