// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the --control command reader (trigger.c): each
 * input arrives on the control pipe in pieces, as a client may write it,
 * and goes through exactly what the record loop runs: triggers_poll()
 * turns it into requests and acks, triggers_next() and triggers_drain()
 * hand them out, triggers_done() answers them.  The acks go to a pipe that
 * is emptied after every piece.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trigger.h"

static int ctl[2], ack[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (pipe2(ctl, O_NONBLOCK | O_CLOEXEC) || pipe2(ack, O_NONBLOCK | O_CLOEXEC))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct triggers *t = calloc(1, sizeof(*t));
	char sink[4096];
	struct req r;
	size_t pos = 0;

	if (!t)
		abort();
	t->ctl_fd = ctl[0];
	t->ack_fd = ack[1];
	/* the first byte picks the delay and merge options */
	if (size) {
		t->delay_ns = (data[0] & 1) ? 1000000000ULL : 0;
		t->min_interval_ns = (data[0] & 2) ? 1000000000ULL : 0;
		data++;
		size--;
	}
	while (pos < size) {
		size_t n = size - pos < 97 ? size - pos : 97;	/* pieces, split anywhere */

		if (write(ctl[1], data + pos, n) != (ssize_t)n)
			abort();
		pos += n;
		triggers_poll(t, 0);
		if (t->nq > REQ_QUEUE)
			abort();
		while (triggers_next(t, &r))
			triggers_done(t, &r, 0, "fuzz.data");
		while (read(ack[0], sink, sizeof(sink)) > 0)
			;
	}
	while (triggers_drain(t, &r))
		triggers_done(t, &r, r.kind == REQ_SWITCH ? -5 : 0, NULL);
	while (read(ack[0], sink, sizeof(sink)) > 0)
		;
	if (t->line_len >= sizeof(t->line))
		abort();
	free(t);
	return 0;
}
