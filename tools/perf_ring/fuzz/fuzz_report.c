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
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "report-run.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_report_init("fuzz-perf");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fuzz_in_fd, 0) || pwrite(fuzz_in_fd, data, size, 0) != (ssize_t)size)
		abort();
	fuzz_report_run();
	return 0;
}
