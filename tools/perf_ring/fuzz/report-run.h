/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the perf.data harnesses share (fuzz_report.c, fuzz_build.c): the
 * input as a file, a memfd named by /proc/self/fd/N, and the three report
 * commands run on it.
 */
#ifndef PERF_RING_FUZZ_REPORT_RUN_H
#define PERF_RING_FUZZ_REPORT_RUN_H

/* the memfd the harness writes each input to */
extern int fuzz_in_fd;

/* Make the memfds (named after name) and send stdout to /dev/null. */
void fuzz_report_init(const char *name);
/*
 * "report -i IN", "report -i IN --decompress -o /dev/null" and "report -i
 * IN --recover -o MEMFD" (it must truncate its output), on what is in
 * fuzz_in_fd.
 */
void fuzz_report_run(void);

#endif
