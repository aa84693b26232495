// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for perf-ring's perf.data reader and decompressor.
 *
 * cmd_report() takes a path, so each input is written to a memfd and
 * handed over as /proc/self/fd/N: the bytes go through exactly the code
 * that "perf-ring report -i FILE" runs (pf_open, the record walk, the
 * record counts, the zstd decompressor), and then through
 * "perf-ring report --decompress -o OUT", which also rewrites the header
 * and copies the feature sections, and "perf-ring report --recover -o
 * OUT", which walks the data as far as it is sound and builds the feature
 * sections again.  --decompress writes to /dev/null, --recover to a
 * second memfd (it must truncate its output).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int cmd_report(int argc, char **argv);

static int mfd = -1, ofd = -1;
static char path[64], opath[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null;

	(void)argc;
	(void)argv;
	mfd = memfd_create("fuzz-perf.data", MFD_CLOEXEC);
	if (mfd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	ofd = memfd_create("fuzz-recovered.data", MFD_CLOEXEC);
	if (ofd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(opath, sizeof(opath), "/proc/self/fd/%d", ofd);
	/* the summary goes to stdout: keep it out of the fuzzer's log */
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	return 0;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char report[] = "report", i[] = "-i", o[] = "-o", dz[] = "--decompress";
	char rc[] = "--recover";
	char out[] = "/dev/null";

	if (ftruncate(mfd, 0) || pwrite(mfd, data, size, 0) != (ssize_t)size)
		abort();
	run(report, i, path, NULL, NULL, NULL);
	run(report, i, path, dz, o, out);
	run(report, i, path, rc, o, opath);
	return 0;
}
