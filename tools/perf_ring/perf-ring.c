// SPDX-License-Identifier: GPL-2.0
/* perf-ring: record through perf ring buffers into perf.data; report. */
#include <stdio.h>
#include <string.h>

#include "version.h"

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_ctl(int argc, char **argv);

static void usage(FILE *f)
{
	fprintf(f, "usage: perf-ring record [options] -- COMMAND | -a | -p PID\n"
		   "       perf-ring report [-f] [-i FILE] [--decompress -o OUT | --recover -o OUT]\n"
		   "       perf-ring ctl [-t SECONDS] CTL[,ACK] COMMAND\n"
		   "       perf-ring --version\n"
		   "See 'perf-ring record --help'.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ctl"))
		return cmd_ctl(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("perf-ring version %s\n", perf_ring_version);
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "perf-ring: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 1;
}
