// SPDX-License-Identifier: GPL-2.0
/* Trigger sources and the request queue (trigger.h). */
#include <signal.h>
#include <string.h>

#include "trigger.h"

static volatile sig_atomic_t stop_sig, usr2_pending, child_exited;

static void on_stop(int sig) { stop_sig = sig; }
static void on_usr2(int sig) { (void)sig; usr2_pending = 1; }
static void on_chld(int sig) { (void)sig; child_exited = 1; }

void triggers_init(struct triggers *t, bool on_signal)
{
	struct sigaction sa;

	memset(t, 0, sizeof(*t));
	t->on_signal = on_signal;
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

static void push(struct triggers *t, enum req_kind kind, const char *from)
{
	if (t->tail - t->head == REQ_QUEUE) {
		t->dropped++;
		return;
	}
	t->q[t->tail++ % REQ_QUEUE] = (struct req){ .kind = kind, .from = from, .ns = now_ns() };
}

void triggers_poll(struct triggers *t)
{
	if (usr2_pending) {
		usr2_pending = 0;
		if (t->on_signal)
			push(t, REQ_SWITCH, "SIGUSR2");
	}
	if (stop_sig && !t->stop_queued) {
		t->stop_queued = true;
		push(t, REQ_STOP, strsignal(stop_sig));
	}
}

bool triggers_next(struct triggers *t, struct req *r)
{
	if (t->head == t->tail)
		return false;
	*r = t->q[t->head++ % REQ_QUEUE];
	return true;
}

int triggers_stop_signal(void)
{
	return stop_sig;
}

bool triggers_child_exited(void)
{
	return child_exited;
}
