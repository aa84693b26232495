// SPDX-License-Identifier: GPL-2.0
/*
 * Synthesis: the joined buffers do not depend on the number of threads,
 * and the records are well formed (COMM/FORK for each thread, MMAP2 for
 * executable mappings, sample_id trailer of the right size).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "synth.h"
#include "tap.h"

static int test_stable_order(void)
{
	pid_t pids[8];
	struct pbuf a = { 0 }, b = { 0 };
	struct synth_result ra, rb;
	u32 idh = synth_id_hdr_size(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				    PERF_SAMPLE_CPU);
	int n = 0;

	/*
	 * init several times over: stable content, several ranges.  (Not
	 * ourselves: the worker threads would show up in our own task list.)
	 */
	for (int i = 0; i < 8; i++)
		pids[n++] = 1;
	CHECK(synth_threads(pids, n, 1, idh, &a, &ra) == 0, "1 thread");
	CHECK(synth_threads(pids, n, 4, idh, &b, &rb) == 0, "4 threads");
	CHECK(a.len == b.len && !memcmp(a.p, b.p, a.len), "1 and 4 threads differ (%zu/%zu bytes)",
	      a.len, b.len);
	CHECK(ra.nr_comm >= 8 && ra.nr_fork == ra.nr_comm, "counts %llu %llu %llu",
	      (unsigned long long)ra.nr_comm, (unsigned long long)ra.nr_fork,
	      (unsigned long long)ra.nr_mmap2);
	for (size_t pos = 0; pos < a.len;) {
		struct perf_event_header h;

		memcpy(&h, a.p + pos, sizeof(h));
		CHECK(h.size >= 8 + idh && !(h.size & 7) && pos + h.size <= a.len, "record at %zu", pos);
		CHECK(h.type == PERF_RECORD_COMM || h.type == PERF_RECORD_FORK ||
		      h.type == PERF_RECORD_MMAP2, "type %u", h.type);
		pos += h.size;
	}
	pbuf_free(&a);
	pbuf_free(&b);
	return 0;
}

/*
 * The PROCMAP_QUERY ioctl and the text of /proc/PID/maps give the same
 * records, executable maps only and all of them.  (A stopped child: its
 * maps do not change between the two reads, as ours could.)
 */
static int test_maps_query(void)
{
	u32 idh = synth_id_hdr_size(PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	pid_t pid = fork();

	if (pid == 0) {
		raise(SIGSTOP);
		_exit(0);
	}
	CHECK(pid > 0, "fork: %s", strerror(errno));
	waitpid(pid, NULL, WUNTRACED);

	for (int data = 0; data < 2; data++) {
		struct pbuf a = { 0 }, b = { 0 };
		struct synth_result ra, rb;

		synth_set_data_maps(data);
		synth_set_maps_text(true);
		CHECK(synth_threads(&pid, 1, 1, idh, &a, &ra) == 0, "text");
		synth_set_maps_text(false);
		CHECK(synth_threads(&pid, 1, 1, idh, &b, &rb) == 0, "query");
		CHECK(ra.nr_mmap2 == rb.nr_mmap2, "data %d: %llu maps from the text, %llu by query",
		      data, (unsigned long long)ra.nr_mmap2, (unsigned long long)rb.nr_mmap2);
		CHECK(a.len == b.len && !memcmp(a.p, b.p, a.len),
		      "data %d: the records differ (%zu/%zu bytes)", data, a.len, b.len);
		CHECK(ra.nr_mmap2 > 0, "data %d: no maps", data);
		pbuf_free(&a);
		pbuf_free(&b);
	}
	synth_set_data_maps(false);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

static int test_kernel_map(void)
{
	struct pbuf a = { 0 };
	struct perf_event_header h;
	int err = synth_kernel_mmap(&a, 32);

	if (err == -ENOENT || err == -EACCES) {
		printf("# SKIP kernel map: /proc/kallsyms has no _text (restricted)\n");
		return 0;
	}
	CHECK(err == 0, "err %d", err);
	memcpy(&h, a.p, sizeof(h));
	CHECK(h.type == PERF_RECORD_MMAP && h.size == a.len, "record");
	CHECK(memmem(a.p, a.len, "[kernel.kallsyms]_text", 22), "name");
	{
		/* the same _text and _etext as a line-by-line reading */
		FILE *f = fopen("/proc/kallsyms", "r");
		unsigned long long x, text = 0, etext = 0, start, len;
		char t, name[256];

		CHECK(f, "/proc/kallsyms");
		while (fscanf(f, "%llx %c %255s%*[^\n]", &x, &t, name) == 3 && !(text && etext)) {
			if (!strcmp(name, "_text") && !text)
				text = x;
			else if (!strcmp(name, "_etext") && !etext)
				etext = x;
		}
		fclose(f);
		memcpy(&start, a.p + sizeof(h) + 8, 8);
		memcpy(&len, a.p + sizeof(h) + 16, 8);
		CHECK(start == text && len == (etext > text ? etext - text : ~0ULL - text),
		      "start %llx len %llx, kallsyms _text %llx _etext %llx", start, len, text, etext);
	}
	pbuf_free(&a);
	return 0;
}

int main(void)
{
	tap_run("joined synthesis does not depend on the thread count", test_stable_order);
	tap_run("kernel map record", test_kernel_map);
	tap_run("PROCMAP_QUERY and /proc/PID/maps text give the same maps", test_maps_query);
	return tap_done();
}
