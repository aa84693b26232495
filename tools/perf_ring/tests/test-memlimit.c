// SPDX-License-Identifier: GPL-2.0
/*
 * The limits at scale (memlimit.h): from the figures of a system, whether
 * a recording fits, and what the message names.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "memlimit.h"
#include "tap.h"

static struct scale_sys sys_default(void)
{
	return (struct scale_sys){
		.page = 4096, .open_fds = 7, .nofile_cur = 1024, .nofile_max = 524288,
		.nr_open = 1048576, .paranoid = 2, .mlock_kb = 516, .online_cpus = 64,
		.memlock_cur = 8 << 20, .maps_now = 100, .max_map_count = 65530,
	};
}

static int test_fds(void)
{
	struct scale_sys s = sys_default();
	/* 4 events on 64 CPUs for a process of 1,000 threads */
	struct scale_need n = { .ncpu = 64, .nthr = 1000, .nev = 4, .nsynth = 64 };
	char msg[768] = "";
	u64 want;
	int r;

	r = scale_fds(&s, &n, &want, msg, sizeof(msg));
	CHECK(want == 256000 + 7 + SCALE_FD_RESERVE + 64 * SCALE_FD_PER_SYNTH,
	      "want %llu", (unsigned long long)want);
	CHECK(r == 1, "soft 1024, hard 524288: raise the soft limit, got %d", r);
	n.nthr = 10;
	CHECK(scale_fds(&s, &n, &want, msg, sizeof(msg)) == 1, "2,560 events: raise the soft limit");
	n.nthr = 2;
	CHECK(scale_fds(&s, &n, &want, msg, sizeof(msg)) == 0, "512 events fit in 1024");
	n.nthr = 10000;
	r = scale_fds(&s, &n, &want, msg, sizeof(msg));
	CHECK(r == -EMFILE, "2,560,000 over the hard limit and nr_open: got %d", r);
	CHECK(strstr(msg, "RLIMIT_NOFILE") && strstr(msg, "2560231"), "message: %s", msg);
	s.sys_resource = true;
	n.nthr = 3000;	/* 768,000 */
	CHECK(scale_fds(&s, &n, &want, msg, sizeof(msg)) == 2,
	      "CAP_SYS_RESOURCE, below nr_open: raise the hard limit");
	s.sys_resource = false;
	CHECK(scale_fds(&s, &n, &want, msg, sizeof(msg)) == -EMFILE, "no CAP_SYS_RESOURCE");
	CHECK(strstr(msg, "CAP_SYS_RESOURCE"), "message: %s", msg);
	return 0;
}

static int test_mlock(void)
{
	struct scale_sys s = sys_default();
	struct scale_need n = { .nrings = 64, .ring_bytes = 512 << 10 };
	char msg[768] = "";
	int r;

	CHECK(scale_mlock(&s, &n, msg, sizeof(msg)) == 0, "the default -m on 64 CPUs: %s", msg);
	n.ring_bytes = 4 << 20;
	r = scale_mlock(&s, &n, msg, sizeof(msg));
	CHECK(r == -EPERM, "-m 4M on 64 CPUs: got %d", r);
	/* 64 x (4096 + 4) kB; 516 x 64 = 33024 kB and 8192 kB */
	CHECK(strstr(msg, "262400 kB") && strstr(msg, "33024 kB") && strstr(msg, "8192 kB") &&
	      strstr(msg, "RLIMIT_MEMLOCK") && strstr(msg, "perf_event_mlock_kb"), "message: %s", msg);
	/* (33024 + 8192) kB / 64 - 4 kB = 640 kB: 512 kB */
	CHECK(strstr(msg, "-m 512K fits"), "no fitting -m in: %s", msg);
	s.ipc_lock = true;
	CHECK(scale_mlock(&s, &n, msg, sizeof(msg)) == 0, "CAP_IPC_LOCK: no limit");
	s.ipc_lock = false;
	s.paranoid = -1;
	CHECK(scale_mlock(&s, &n, msg, sizeof(msg)) == 0, "perf_event_paranoid -1: no limit");
	s.paranoid = 2;
	s.memlock_cur = UINT64_MAX;
	CHECK(scale_mlock(&s, &n, msg, sizeof(msg)) == 0, "ulimit -l unlimited");
	return 0;
}

static int test_maps(void)
{
	struct scale_sys s = sys_default();
	struct scale_need n = { .nrings = 1024, .nsb = 1024 };
	char msg[768] = "";

	CHECK(scale_maps(&s, &n, msg, sizeof(msg)) == 0, "1,024 CPUs: %s", msg);
	s.max_map_count = 2000;
	CHECK(scale_maps(&s, &n, msg, sizeof(msg)) == -ENOMEM, "2,048 buffers over 2000");
	CHECK(strstr(msg, "vm.max_map_count") && strstr(msg, "2404"), "message: %s", msg);
	return 0;
}

int main(void)
{
	tap_run("RLIMIT_NOFILE: events x CPUs x threads, raised or named", test_fds);
	tap_run("perf_event_mlock_kb and RLIMIT_MEMLOCK: the buffers, and the -m that fits",
		test_mlock);
	tap_run("vm.max_map_count: one mapping per buffer", test_maps);
	return tap_done();
}
