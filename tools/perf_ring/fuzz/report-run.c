// SPDX-License-Identifier: GPL-2.0
/* The input file and the report commands of the perf.data harnesses (report-run.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report-run.h"

int cmd_report(int argc, char **argv);

int fuzz_in_fd = -1;
static int out_fd = -1;
static char in_path[64], out_path[64];

static int memfd(const char *name, const char *what, char *path, size_t len)
{
	char n[64];
	int fd;

	snprintf(n, sizeof(n), "%s%s", name, what);
	fd = memfd_create(n, MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

void fuzz_report_init(const char *name)
{
	int null;

	fuzz_in_fd = memfd(name, ".data", in_path, sizeof(in_path));
	out_fd = memfd(name, "-recovered.data", out_path, sizeof(out_path));
	/* the summary goes to stdout: keep it out of the fuzzer's log */
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
}

static void run(char *a0, char *a1, char *a2, char *a3, char *a4, char *a5)
{
	char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
	int argc = 0;

	while (argv[argc])
		argc++;
	cmd_report(argc, argv);
	fflush(stdout);
}

void fuzz_report_run(void)
{
	char report[] = "report", i[] = "-i", o[] = "-o", dz[] = "--decompress";
	char rc[] = "--recover", null[] = "/dev/null";

	run(report, i, in_path, NULL, NULL, NULL);
	run(report, i, in_path, dz, o, null);
	run(report, i, in_path, rc, o, out_path);
}
