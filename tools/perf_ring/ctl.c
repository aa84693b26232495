// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ring ctl: a client for a running recorder's --control fifos.  It
 * sends one command, waits for the ack and prints what it says: for
 * "snapshot", the file that holds the snapshot; for "status", the
 * recorder's uptime and counts as KEY=VALUE fields.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "trigger.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: perf-ring ctl [-t SECONDS] CTL[,ACK] COMMAND\n"
		   "  CTL, ACK   the fifos given to perf-ring record --control=fifo:CTL,ACK\n"
		   "  COMMAND    enable, disable, snapshot, stop, ping or status\n"
		   "  -t         how long to wait for the ack (default 30 s)\n"
		   "Prints the snapshot's file for 'snapshot', the recorder's uptime and counts\n"
		   "for 'status'; exits 1 on an error reply or when no ack came in time.\n");
}

static int open_fifo(const char *path, int flags)
{
	struct stat st;
	int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENXIO)
			fprintf(stderr, "perf-ring ctl: no recorder is listening on '%s'\n", path);
		else
			fprintf(stderr, "perf-ring ctl: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode)) {
		fprintf(stderr, "perf-ring ctl: '%s' is not a fifo\n", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* One line from fd within timeout_ms; 0, or -1 with a message. */
static int read_line(int fd, char *buf, size_t len, int timeout_ms, const char *path)
{
	size_t n = 0;
	u64 end = now_ns() + (u64)timeout_ms * 1000000ULL;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		u64 now = now_ns();
		ssize_t r;
		int rc;

		if (now >= end) {
			fprintf(stderr, "perf-ring ctl: no ack on '%s' within %d s\n", path,
				timeout_ms / 1000);
			return -1;
		}
		rc = poll(&p, 1, (end - now) / 1000000 + 1);
		if (rc < 0 && errno != EINTR) {
			fprintf(stderr, "perf-ring ctl: %s\n", strerror(errno));
			return -1;
		}
		if (rc <= 0)
			continue;
		/* a byte at a time: what follows the line is the next client's */
		r = read(fd, buf + n, 1);
		if (r < 0 && errno != EAGAIN && errno != EINTR) {
			fprintf(stderr, "perf-ring ctl: reading '%s': %s\n", path, strerror(errno));
			return -1;
		}
		if (r == 0) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			nanosleep(&ts, NULL);	/* no writer yet */
			continue;
		}
		if (r < 0)
			continue;
		if (buf[n] == '\n' || n + 2 >= len) {
			buf[n] = '\0';
			return 0;
		}
		n++;
	}
}

int cmd_ctl(int argc, char **argv)
{
	char *fifos, *ack, line[4200], drain[256];
	int timeout_ms = 30000, a = 1, cfd, afd = -1;
	enum req_kind kind;
	bool ping, status;
	long v;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "-t")) {
		if (parse_long(argv[2], 1, 86400, &v)) {
			fprintf(stderr, "perf-ring ctl: -t '%s': expected seconds, 1..86400\n", argv[2]);
			return 1;
		}
		timeout_ms = v * 1000;
		a = 3;
	}
	if (argc - a != 2) {
		usage(stderr);
		return 1;
	}
	if (ctl_parse(argv[a + 1], &kind, &ping, &status)) {
		fprintf(stderr, "perf-ring ctl: unknown command '%s' (enable, disable, snapshot, stop, "
			"ping, status)\n", argv[a + 1]);
		return 1;
	}
	fifos = strdup(argv[a]);
	if (!fifos)
		return 1;
	ack = strchr(fifos, ',');
	if (ack)
		*ack++ = '\0';
	if (status && !ack) {
		fprintf(stderr, "perf-ring ctl: status: the answer comes on the ack fifo: give CTL,ACK\n");
		return 1;
	}
	if (ack) {
		afd = open_fifo(ack, O_RDONLY);
		if (afd < 0)
			return 1;
		/* an ack nobody read belongs to an earlier command */
		while (read(afd, drain, sizeof(drain)) > 0)
			;
	}
	cfd = open_fifo(fifos, O_WRONLY);
	if (cfd < 0)
		return 1;
	snprintf(line, sizeof(line), "%s\n", argv[a + 1]);
	if (write(cfd, line, strlen(line)) != (ssize_t)strlen(line)) {
		fprintf(stderr, "perf-ring ctl: writing to '%s': %s\n", fifos, strerror(errno));
		return 1;
	}
	close(cfd);
	if (afd < 0)
		return 0;	/* no ack fifo: nothing to wait for */
	if (read_line(afd, line, sizeof(line), timeout_ms, ack))
		return 1;
	if (!strncmp(line, "ack", 3) && (!line[3] || line[3] == ' ')) {
		if (line[3])
			printf("%s\n", line + 4);
		return 0;
	}
	fprintf(stderr, "perf-ring ctl: %s\n", line);
	return 1;
}
