// SPDX-License-Identifier: GPL-2.0
/* The MMAP2 build-id flag leak probe (bidleak.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "bidleak.h"
#include "ring.h"

#define PROBE_RING_BYTES 4096u

static int open_dummy(bool build_id)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
		.sample_period = 1, .exclude_kernel = 1, .exclude_hv = 1,
		.mmap = 1, .mmap2 = 1, .build_id = build_id,
	};

	return syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* 1: an MMAP2 record of the probe's mapping carries the flag, 0: not, -ENOENT: none seen */
static int flag_seen(struct ring *rg, char *buf, size_t len)
{
	int seen = -ENOENT;
	long n;

	while ((n = ring_fwd_read(rg, buf, len)) > 0) {
		for (long pos = 0; pos + (long)sizeof(struct perf_event_header) <= n;) {
			struct perf_event_header h;

			memcpy(&h, buf + pos, sizeof(h));
			if (h.size < sizeof(h) || pos + h.size > n)
				break;
			if (h.type == PERF_RECORD_MMAP2)
				seen = (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) ? 1 : (seen < 0 ? 0 : seen);
			pos += h.size;
		}
	}
	return seen;
}

int bidleak_probe(void)
{
	struct ring r[3] = { 0 };
	int fd[3] = { -1, -1, -1 }, err = 0, res = -ENOENT, file = -1;
	static char buf[PROBE_RING_BYTES];
	void *map;

	/*
	 * The kernel hands an mmap record to a task's events in list order,
	 * which puts new events first: one without build-ids on each side of
	 * the one with them sees the record after it, whichever the order.
	 */
	fd[0] = open_dummy(false);
	fd[1] = open_dummy(true);
	if (fd[1] < 0 && errno == EINVAL)
		err = -EOPNOTSUPP;	/* no attr.build_id: nothing to leak */
	fd[2] = open_dummy(false);
	if (err || fd[0] < 0 || fd[1] < 0 || fd[2] < 0) {
		err = err ?: -errno;
		goto out;
	}
	/* each with a buffer: the kernel writes (and flags) only into one */
	for (int i = 0; i < 3 && !err; i++)
		err = ring_map(&r[i], fd[i], PROBE_RING_BYTES, false, -1);
	if (err)
		goto out;
	/* an executable mapping of a file with a build-id: perf-ring itself */
	file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (file < 0) {
		err = -errno;
		goto out;
	}
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, file, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	munmap(map, 4096);
	for (int i = 0; i < 3; i += 2) {
		int s = flag_seen(&r[i], buf, sizeof(buf));

		if (s > res)
			res = s;
	}
	err = res;
out:
	if (file >= 0)
		close(file);
	for (int i = 0; i < 3; i++)
		if (r[i].base)
			ring_unmap(&r[i]);
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return err;
}
