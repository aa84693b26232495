// SPDX-License-Identifier: GPL-2.0
/* Trigger sources and the request queue (trigger.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fail.h"
#include "trigger.h"

static volatile sig_atomic_t stop_sig, usr2_pending, child_exited;

static void on_stop(int sig) { stop_sig = sig; }
static void on_usr2(int sig) { (void)sig; usr2_pending = 1; }
static void on_chld(int sig) { (void)sig; child_exited = 1; }

/*
 * The handlers the recording depends on: without SIGCHLD's it would not see
 * its command end, without SIGINT's a ^C would kill it before the file is
 * finished.  A failure is said, not ignored.
 */
static int install_signals(void)
{
	static const struct {
		int sig;
		void (*fn)(int);
		int flags;
	} h[] = {
		{ SIGINT, on_stop, 0 },
		{ SIGTERM, on_stop, 0 },
		{ SIGHUP, on_stop, 0 },
		{ SIGUSR2, on_usr2, SA_RESTART },
		{ SIGCHLD, on_chld, SA_NOCLDSTOP | SA_RESTART },
		{ SIGPIPE, SIG_IGN, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(h); i++) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = h[i].fn;
		sa.sa_flags = h[i].flags;
		if (sigaction(h[i].sig, &sa, NULL))
			return fail_set(-errno, "installing the handler of SIG%s: %s",
					sigabbrev_np(h[i].sig), strerror(errno));
	}
	return 0;
}

/*
 * A fifo is opened read-write, as perf does: the recorder then always
 * holds a writer of its own, so a client that goes away leaves no EOF to
 * spin on, and the next client is served.
 */
static int open_fifo(const char *path, const char *what)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return fail_set(-errno, "--control: cannot open the %s fifo '%s': %s",
				what, path, strerror(errno));
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode)) {
		close(fd);
		return fail_set(-EINVAL, "--control: '%s' is not a fifo (mkfifo it first)", path);
	}
	return fd;
}

static int open_fd(const char *s, const char *what)
{
	long v;
	int fl;

	if (parse_long(s, 0, 1 << 20, &v))
		return fail_set(-EINVAL, "--control: the %s fd '%s' is not a number", what, s);
	fl = fcntl(v, F_GETFL);
	if (fl < 0)
		return fail_set(-EBADF, "--control: the %s fd %ld is not open", what, v);
	if (!strcmp(what, "control") && fcntl(v, F_SETFL, fl | O_NONBLOCK))
		return fail_set(-errno, "--control: fd %ld: %s", v, strerror(errno));
	return v;
}

static int control_open(struct triggers *t, const char *spec)
{
	bool fifo = !strncmp(spec, "fifo:", 5);
	char *dup = strdup(spec + (fifo ? 5 : 3)), *ack;
	int fd;

	if (!dup)
		return -ENOMEM;
	ack = strchr(dup, ',');
	if (ack)
		*ack++ = '\0';
	if (!*dup || (ack && !*ack)) {
		free(dup);
		return fail_set(-EINVAL, "--control=%s: expected %s:CTL[,ACK]", spec,
				fifo ? "fifo" : "fd");
	}
	t->ctl_fifo = fifo;
	fd = fifo ? open_fifo(dup, "control") : open_fd(dup, "control");
	if (fd >= 0) {
		t->ctl_fd = fd;
		if (ack) {
			fd = fifo ? open_fifo(ack, "ack") : open_fd(ack, "ack");
			if (fd >= 0)
				t->ack_fd = fd;
		}
	}
	free(dup);
	return fd < 0 ? fd : 0;
}

int triggers_init(struct triggers *t, const struct trigger_opts *o)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->ctl_fd = t->ack_fd = -1;
	t->start_ns = now_ns();
	t->on_signal = o->on_signal;
	t->time_ns = o->time_ms * 1000000ULL;
	t->next_time = t->time_ns ? now_ns() + t->time_ns : 0;
	t->size = o->size;
	t->delay_ns = o->delay_ms * 1000000ULL;
	t->min_interval_ns = o->min_interval_ms * 1000000ULL;
	err = install_signals();
	if (err)
		return err;
	return o->control ? control_open(t, o->control) : 0;
}

static void ack(struct triggers *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ack(struct triggers *t, const char *fmt, ...)
{
	char buf[4200];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/*
	 * No ack fd: say an error where the user can see it, but at most once
	 * a second, so that a flood of bad lines cannot flood the log; the
	 * rest are counted, and said with the next one and in the summary.
	 */
	if (t->ack_fd < 0) {
		u64 now = now_ns();

		if (strncmp(buf, "error", 5))
			return;
		if (t->said_ns && now - t->said_ns < 1000000000ULL) {
			t->unsaid++;
			return;
		}
		if (t->unsaid)
			fprintf(stderr, "perf-ring record: --control: %llu more errors not shown "
				"(at most one a second)\n", (unsigned long long)t->unsaid);
		fprintf(stderr, "perf-ring record: --control: %.*s", n, buf);
		t->said_ns = now;
		t->unsaid = 0;
		return;
	}
	/* a full ack pipe (nobody reads it) must not hold the recording up */
	if (write(t->ack_fd, buf, n) < 0 && errno != EAGAIN)
		fprintf(stderr, "perf-ring record: --control: writing the ack: %s\n",
			strerror(errno));
}

static struct req *find(struct triggers *t, enum req_kind kind)
{
	for (int i = 0; i < t->nq; i++)
		if (t->q[i].kind == kind)
			return &t->q[i];
	return NULL;
}

/* Queue a request; a switch may be merged into a pending or recent one. */
static void push(struct triggers *t, enum req_kind kind, const char *from, int acks)
{
	u64 now = now_ns();
	struct req *p;

	if (kind == REQ_SWITCH) {
		p = find(t, REQ_SWITCH);
		if (p) {		/* one is pending: it answers this one too */
			p->acks += acks;
			t->merged++;
			return;
		}
		if (t->min_interval_ns && t->switches &&
		    now - t->last_switch_ns < t->min_interval_ns) {
			t->merged++;	/* the last one stands for it */
			for (int i = 0; i < acks; i++)
				ack(t, "ack %s", t->last_path);
			return;
		}
	}
	if (t->nq == REQ_QUEUE) {
		t->dropped++;
		for (int i = 0; i < acks; i++)
			ack(t, "error: too many requests pending");
		return;
	}
	t->q[t->nq++] = (struct req){
		.kind = kind, .from = from, .ns = now, .acks = acks,
		.due = now + (kind == REQ_SWITCH ? t->delay_ns : 0),
	};
}

void triggers_enable_at(struct triggers *t, long ms)
{
	int nq = t->nq;

	push(t, REQ_ENABLE, "--delay", 0);
	/* push() drops a request when the queue is full: set only one it queued */
	if (t->nq > nq)
		t->q[t->nq - 1].due = now_ns() + ms * 1000000ULL;
}

void triggers_enable_ranges(struct triggers *t, const struct time_range *ranges, int n)
{
	t->ranges = ranges;
	t->nranges = n;
	t->edge = 0;
	t->ranges_t0 = now_ns();
}

/* When the next -D range edge falls due; 0: none left. */
static u64 next_edge(const struct triggers *t)
{
	const struct time_range *r;

	if (t->edge >= 2 * t->nranges)
		return 0;
	r = &t->ranges[t->edge / 2];
	return t->ranges_t0 + (t->edge % 2 ? r->end : r->start) * 1000000ULL;
}

int ctl_parse(const char *line, enum req_kind *kind, bool *ping, bool *status)
{
	static const struct { const char *word; enum req_kind kind; } cmds[] = {
		{ "enable", REQ_ENABLE }, { "disable", REQ_DISABLE },
		{ "snapshot", REQ_SWITCH }, { "stop", REQ_STOP },
	};

	*ping = !strcmp(line, "ping") || !strcmp(line, "status");
	if (status)
		*status = !strcmp(line, "status");
	if (*ping)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (!strcmp(line, cmds[i].word)) {
			*kind = cmds[i].kind;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * "status": one line of KEY=VALUE fields, the last file last (a path may
 * hold spaces).  The counts are those of the files finished so far.
 */
static void status_ack(struct triggers *t)
{
	struct ctl_status st = { 0 };
	u64 now = now_ns();
	char ow[48] = "", last[64] = "last_trigger=none";

	if (t->status)
		t->status(t->status_ctx, &st);
	if (st.snapshots)
		snprintf(ow, sizeof(ow), " overwritten=%s%llu", st.ow_estimated ? "~" : "",
			 (unsigned long long)st.overwritten);
	if (t->switches)
		snprintf(last, sizeof(last), "last_trigger=%s last_trigger_age_s=%llu",
			 t->last_from ? t->last_from : "?",
			 (unsigned long long)((now - t->last_switch_ns) / 1000000000ULL));
	ack(t, "ack uptime_s=%llu %s=%llu bytes=%llu lost=%llu%s bad_commands=%llu %s%s%s",
	    (unsigned long long)((now - t->start_ns) / 1000000000ULL),
	    st.snapshots ? "snapshots" : "files", (unsigned long long)st.files,
	    (unsigned long long)st.bytes, (unsigned long long)st.lost, ow,
	    (unsigned long long)t->bad_cmds, last, t->switches ? " last_file=" : "",
	    t->switches ? t->last_path : "");
}

static void control_line(struct triggers *t, char *line)
{
	enum req_kind kind;
	bool ping, status;
	size_t n = strlen(line);

	while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line)
		return;		/* an empty line asks for nothing */
	if (ctl_parse(line, &kind, &ping, &status)) {
		t->bad_cmds++;
		for (char *c = line; *c; c++)
			if (*c < 0x20 || *c > 0x7e)
				*c = '?';
		ack(t, "error: unknown command '%.64s' (enable, disable, snapshot, stop, ping, "
		    "status)", line);
		return;
	}
	if (status) {
		status_ack(t);
		return;
	}
	if (ping) {
		ack(t, "ack");
		return;
	}
	if (kind == REQ_STOP && t->stop_queued) {
		ack(t, "ack");
		return;
	}
	if (kind == REQ_STOP)
		t->stop_queued = true;
	push(t, kind, "control", 1);
}

static void control_read(struct triggers *t)
{
	char buf[512];
	ssize_t n;

	while ((n = read(t->ctl_fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			char c = buf[i];

			if (c == '\n' || c == '\0') {
				t->line[t->line_len] = '\0';
				if (t->line_long) {
					t->bad_cmds++;
					ack(t, "error: command longer than %zu bytes",
					    sizeof(t->line) - 1);
				} else {
					control_line(t, t->line);
				}
				t->line_len = 0;
				t->line_long = false;
			} else if (t->line_len < sizeof(t->line) - 1) {
				t->line[t->line_len++] = c;
			} else {
				t->line_long = true;
			}
		}
	}
	/* fd: the other end closed it; stop reading, keep recording */
	if (n == 0 && !t->ctl_fifo) {
		close(t->ctl_fd);
		t->ctl_fd = -1;
	}
}

int triggers_watch(struct triggers *t, struct ring *rings, int n)
{
	t->ev_rings = rings;
	t->nev_rings = n;
	if (n && !t->ev_buf) {
		t->ev_buf = malloc(rings[0].size);
		if (!t->ev_buf)
			return -ENOMEM;
	}
	return 0;
}

/* Samples in the trigger events' buffers since the last look. */
static u64 event_samples(struct triggers *t)
{
	u64 n = 0;

	for (int i = 0; i < t->nev_rings; i++) {
		struct ring *rg = &t->ev_rings[i];
		long len;

		while ((len = ring_fwd_read(rg, t->ev_buf, rg->size)) > 0) {
			for (long pos = 0; pos < len;) {
				struct perf_event_header h;

				memcpy(&h, t->ev_buf + pos, sizeof(h));
				n += h.type == PERF_RECORD_SAMPLE;
				pos += h.size;
			}
		}
	}
	return n;
}

void triggers_poll(struct triggers *t, u64 progress)
{
	u64 now = now_ns();

	if (usr2_pending) {
		usr2_pending = 0;
		if (t->on_signal)
			push(t, REQ_SWITCH, "SIGUSR2", 0);
	}
	if (t->time_ns && now >= t->next_time) {
		push(t, REQ_SWITCH, "timer", 0);
		t->next_time = now + t->time_ns;
	}
	if (t->size && progress >= t->size && !t->size_queued) {
		t->size_queued = true;
		push(t, REQ_SWITCH, "size", 0);
	}
	for (u64 e = next_edge(t); e && now >= e; e = next_edge(t)) {
		push(t, t->edge % 2 ? REQ_DISABLE : REQ_ENABLE, "--delay", 0);
		t->edge++;
	}
	if (t->ctl_fd >= 0)
		control_read(t);
	if (t->nev_rings) {
		u64 n = event_samples(t);

		if (n) {
			t->events += n;
			push(t, REQ_SWITCH, "event", 0);
		}
	}
	if (stop_sig && !t->stop_queued) {
		t->stop_queued = true;
		push(t, REQ_STOP, "signal", 0);
	}
}

static bool take(struct triggers *t, struct req *r, bool all)
{
	u64 now = now_ns();

	for (int i = 0; i < t->nq; i++) {
		if (!all && t->q[i].due > now)
			continue;
		*r = t->q[i];
		memmove(&t->q[i], &t->q[i + 1], (t->nq - i - 1) * sizeof(*r));
		t->nq--;
		return true;
	}
	return false;
}

bool triggers_next(struct triggers *t, struct req *r)
{
	return take(t, r, false);
}

bool triggers_drain(struct triggers *t, struct req *r)
{
	return take(t, r, true);
}

void triggers_done(struct triggers *t, const struct req *r, int err, const char *path)
{
	if (r->kind == REQ_SWITCH && !err) {
		t->switches++;
		t->last_switch_ns = now_ns();
		t->size_queued = false;
		t->last_from = r->from;
		snprintf(t->last_path, sizeof(t->last_path), "%s", path ? path : "");
	}
	for (int i = 0; i < r->acks; i++) {
		if (err)
			ack(t, "error: %s", strerror(-err));
		else if (r->kind == REQ_SWITCH)
			ack(t, "ack %s", t->last_path);
		else
			ack(t, "ack");
	}
}

int triggers_timeout(const struct triggers *t, int max_ms)
{
	u64 now = now_ns(), next = 0;

	for (int i = 0; i < t->nq; i++)
		if (!next || t->q[i].due < next)
			next = t->q[i].due;
	if (t->time_ns && (!next || t->next_time < next))
		next = t->next_time;
	if (next_edge(t) && (!next || next_edge(t) < next))
		next = next_edge(t);
	if (!next)
		return max_ms;
	if (next <= now)
		return 0;
	return (next - now) / 1000000 < (u64)max_ms ? (int)((next - now + 999999) / 1000000) : max_ms;
}

int triggers_pollfds(const struct triggers *t, struct pollfd *pfd, int max)
{
	int n = 0;

	if (t->ctl_fd >= 0 && n < max)
		pfd[n++] = (struct pollfd){ .fd = t->ctl_fd, .events = POLLIN };
	/* a hung-up buffer is always ready: left out (fd -1), not polled */
	for (int i = 0; i < t->nev_rings && n < max; i++)
		pfd[n++] = (struct pollfd){ .fd = t->ev_rings[i].hup ? -1 : t->ev_rings[i].fd,
					    .events = POLLIN };
	return n;
}

void triggers_revents(struct triggers *t, const struct pollfd *pfd, int n)
{
	int k = t->ctl_fd >= 0 ? 1 : 0;

	for (int i = 0; i < t->nev_rings && k < n; i++, k++)
		ring_revents(&t->ev_rings[i], pfd[k].revents);
}


void triggers_close(struct triggers *t)
{
	if (t->ctl_fd >= 0 && t->ctl_fifo)
		close(t->ctl_fd);
	if (t->ack_fd >= 0 && t->ctl_fifo)
		close(t->ack_fd);
	t->ctl_fd = t->ack_fd = -1;
	free(t->ev_buf);
	t->ev_buf = NULL;
}

int triggers_stop_signal(void)
{
	return stop_sig;
}

bool triggers_child_exited(void)
{
	return child_exited;
}
