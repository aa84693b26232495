// SPDX-License-Identifier: GPL-2.0
/*
 * The triggers: their signal handlers, a failure to install one, and -D
 * with the request queue full.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "fail.h"
#include "trigger.h"
#include "tap.h"

/* sigaction() as libc's, except that it fails with EFAULT for fail_sig */
static int fail_sig;

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*real)(int, const struct sigaction *, struct sigaction *);

	if (sig == fail_sig) {
		errno = EFAULT;
		return -1;
	}
	if (!real)
		real = (int (*)(int, const struct sigaction *, struct sigaction *))
			dlsym(RTLD_NEXT, "sigaction");
	return real(sig, act, old);
}

/* the handlers a recording depends on are in place after triggers_init() */
static int test_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR2, SIGCHLD };
	struct trigger_opts o;
	struct triggers t;
	struct sigaction sa;

	memset(&o, 0, sizeof(o));
	CHECK(triggers_init(&t, &o) == 0, "triggers_init: %s", fail_msg());
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		CHECK(!sigaction(sigs[i], NULL, &sa), "sigaction %d", sigs[i]);
		CHECK(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN,
		      "SIG%s has no handler", sigabbrev_np(sigs[i]));
	}
	CHECK(!sigaction(SIGPIPE, NULL, &sa) && sa.sa_handler == SIG_IGN, "SIGPIPE not ignored");
	triggers_close(&t);
	return 0;
}

/*
 * A handler that cannot be installed (SIGCHLD's: the recording would not
 * see its command end) fails the start, and the message names it.
 */
static int test_sigaction_fails(void)
{
	struct trigger_opts o;
	struct triggers t;
	int err;

	memset(&o, 0, sizeof(o));
	fail_sig = SIGCHLD;
	err = triggers_init(&t, &o);
	fail_sig = 0;
	CHECK(err == -EFAULT, "triggers_init: %d, not -EFAULT", err);
	CHECK(strstr(fail_msg(), "SIGCHLD") && strstr(fail_msg(), strerror(EFAULT)),
	      "message: '%s'", fail_msg());
	return 0;
}

/*
 * -D's request, when the queue is full, is dropped (and counted) like any
 * other: the request queued last keeps its due time.
 */
static int test_enable_at_full(void)
{
	struct trigger_opts o;
	struct triggers t;
	u64 due;

	memset(&o, 0, sizeof(o));
	CHECK(triggers_init(&t, &o) == 0, "triggers_init: %s", fail_msg());
	for (int i = 0; i < REQ_QUEUE; i++)
		triggers_enable_at(&t, 1);
	CHECK(t.nq == REQ_QUEUE, "%d requests queued, not %d", t.nq, REQ_QUEUE);
	due = t.q[REQ_QUEUE - 1].due;
	triggers_enable_at(&t, 3600 * 1000);
	CHECK(t.nq == REQ_QUEUE && t.dropped == 1, "nq %d, dropped %llu", t.nq,
	      (unsigned long long)t.dropped);
	CHECK(t.q[REQ_QUEUE - 1].due == due, "the last queued request's due time was changed");
	triggers_close(&t);
	return 0;
}

/*
 * -D 10-20,30-40: enable at 10 ms, disable at 20, enable at 30, disable at
 * 40; each edge queued once, when it is due (the clock moved by hand).
 */
static int test_enable_ranges(void)
{
	static const struct time_range r[] = { { 10, 20 }, { 30, 40 } };
	static const struct {
		u64 at_ms;
		int nq;		/* requests queued by then */
	} steps[] = { { 0, 0 }, { 9, 0 }, { 10, 1 }, { 15, 1 }, { 35, 3 }, { 40, 4 }, { 1000, 4 } };
	struct trigger_opts o;
	struct triggers t;
	u64 t0;
	int to;

	memset(&o, 0, sizeof(o));
	CHECK(triggers_init(&t, &o) == 0, "triggers_init: %s", fail_msg());
	triggers_enable_ranges(&t, r, 2);
	to = triggers_timeout(&t, 1000);
	CHECK(to > 0 && to <= 10, "timeout %d ms before the first edge, not 1..10", to);
	t0 = t.ranges_t0;
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		/* pretend at_ms have passed since the start (and a bit more) */
		t.ranges_t0 = t0 - (now_ns() - t0) - steps[i].at_ms * 1000000ULL - 100000;
		triggers_poll(&t, 0);
		CHECK(t.nq == steps[i].nq, "at %llu ms: %d requests, not %d",
		      (unsigned long long)steps[i].at_ms, t.nq, steps[i].nq);
	}
	for (int i = 0; i < 4; i++)
		CHECK(t.q[i].kind == (i % 2 ? REQ_DISABLE : REQ_ENABLE) &&
		      !strcmp(t.q[i].from, "--delay"), "request %d: kind %d from %s", i,
		      t.q[i].kind, t.q[i].from);
	CHECK(triggers_timeout(&t, 1000) == 0, "due requests: timeout not 0");
	triggers_close(&t);
	return 0;
}

int main(void)
{
	tap_run("triggers_init installs the handlers of SIGINT, SIGTERM, SIGHUP, SIGUSR2, SIGCHLD, ignores SIGPIPE",
		test_handlers);
	tap_run("a handler that cannot be installed fails the start with its signal named",
		test_sigaction_fails);
	tap_run("-D with the request queue full: dropped, the last queued request unchanged",
		test_enable_at_full);
	tap_run("-D START-END,...: enable at each start, disable at each end, each once",
		test_enable_ranges);
	return tap_done();
}
