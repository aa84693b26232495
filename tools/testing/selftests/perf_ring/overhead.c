// SPDX-License-Identifier: GPL-2.0
/*
 * What recording costs the traced task: the close(-1) loop of the original
 * series, recorded with raw_syscalls:sys_enter and sys_exit (as "perf record
 * -e raw_syscalls:*" does), in four cases:
 *
 *   BASE       nothing recorded
 *   FWD+READER forward writable buffer, a reader thread consuming it
 *   BWD-OVW    backward overwrite buffer (the flight recorder), no reader
 *   FWD-OVW    forward overwrite buffer, no reader
 *
 * The runs are interleaved (round r starts at case r mod 4) and everything
 * is pinned to one CPU, the reader included. Mean, standard deviation and
 * median per call, and ratios, go out as TAP diagnostics. The one assertion
 * is generous and made within this run: the backward overwrite buffer costs
 * at most 1.25 times the forward overwrite buffer. It is taken on the paired
 * runs: each round gives one ratio BWD-OVW / FWD-OVW, and the median of
 * those is asserted (one descheduled run, or load that comes and goes on a
 * shared machine, cannot move it much). The ratios' mean and standard
 * deviation are printed with it.
 *
 * PERF_RING_SCALE scales the loop length (50000 calls at 1.0);
 * PERF_RING_ROUNDS sets the number of interleaved rounds (default 20).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "perf_ring_harness.h"

#define MAX_ROUNDS	100
#define RATIO_LIMIT	1.25

enum { BASE, FWD_READER, BWD_OVW, FWD_OVW, NCASES };

static const char *const case_name[NCASES] = {
	"BASE", "FWD+READER", "BWD-OVW", "FWD-OVW",
};

static const __u64 bench_sample_type =
	PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
	PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;

struct pair {
	struct pr_ring enter;	/* owns the buffer */
	struct pr_ring exit;	/* SET_OUTPUT into it */
	bool open;
};

FIXTURE(overhead) {
	struct pr_tp tp_enter, tp_exit;
	struct pair p[NCASES];
	int cpu;
	int stop;
	unsigned long drained, reader_lost;
	char reader_err[PR_WHY_LEN];
};

FIXTURE_SETUP(overhead)
{
	char why[PR_WHY_LEN] = "";
	int i;

	for (i = 0; i < NCASES; i++) {
		self->p[i].enter.fd = -1;
		self->p[i].exit.fd = -1;
	}
	PR_REQUIRE(pr_tp_lookup("raw_syscalls", "sys_enter", "id", &self->tp_enter,
				why, sizeof(why)), why);
	PR_REQUIRE(pr_tp_lookup("raw_syscalls", "sys_exit", "id", &self->tp_exit,
				why, sizeof(why)), why);
}

FIXTURE_TEARDOWN(overhead)
{
	int i;

	for (i = 0; i < NCASES; i++) {
		pr_ring_close(&self->p[i].exit);
		pr_ring_close(&self->p[i].enter);
	}
}

static int pair_open(struct _test_data_overhead *self, int c, bool backward,
		     bool writable, char *why, size_t len)
{
	struct pair *p = &self->p[c];
	struct pr_opts o;
	int ret;

	pr_opts_init(&o, &self->tp_enter);
	o.sample_type = bench_sample_type;
	o.backward = backward;
	o.writable = writable;
	o.data_pages = 64;
	o.wakeup_watermark = 64 * 4096 / 4;
	ret = pr_ring_open(&p->enter, &o, why, len);
	if (ret)
		return ret;
	o.tp = &self->tp_exit;
	o.data_pages = 0;
	ret = pr_ring_open(&p->exit, &o, why, len);
	if (ret)
		return ret;
	if (ioctl(p->exit.fd, PERF_EVENT_IOC_SET_OUTPUT, p->enter.fd)) {
		snprintf(why, len, "SET_OUTPUT sys_exit -> sys_enter: %s", strerror(errno));
		return -errno;
	}
	p->open = true;
	return 0;
}

static void *reader_main(void *arg)
{
	struct _test_data_overhead *self = arg;
	struct pr_ring *r = &self->p[FWD_READER].enter;
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };

	pr_pin_cpu(self->cpu);
	while (!__atomic_load_n(&self->stop, __ATOMIC_ACQUIRE)) {
		__u64 head, tail;
		long n;

		poll(&pfd, 1, 20);
		head = pr_ring_head(r);
		tail = pr_ring_tail(r);
		if (head == tail)
			continue;
		n = pr_walk_forward(r, tail, head, NULL, NULL, self->reader_err,
				    sizeof(self->reader_err));
		if (n < 0)
			break;
		self->drained += n;
		pr_ring_set_tail(r, head);
	}
	return NULL;
}

static double run_case(struct __test_metadata *_metadata,
		       struct _test_data_overhead *self, int c, unsigned long loops)
{
	struct pair *p = &self->p[c];
	unsigned long i;
	double t0, t1;

	if (c != BASE) {
		ASSERT_EQ(0, pr_enable(p->enter.fd));
		ASSERT_EQ(0, pr_enable(p->exit.fd));
	}
	t0 = pr_now();
	for (i = 0; i < loops; i++)
		close(-1);
	t1 = pr_now();
	if (c != BASE) {
		pr_disable(p->exit.fd);
		pr_disable(p->enter.fd);
	}
	return (t1 - t0) * 1e9 / loops;	/* ns per call */
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stats {
	double mean, sd, median;
};

static struct stats stats_of(const double *v, int n)
{
	double s[MAX_ROUNDS], sum = 0, sq = 0;
	struct stats st;
	int i;

	for (i = 0; i < n; i++)
		sum += v[i];
	st.mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (v[i] - st.mean) * (v[i] - st.mean);
	st.sd = n > 1 ? sqrt(sq / (n - 1)) : 0;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	st.median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	return st;
}

TEST_F_TIMEOUT(overhead, close_loop_backward_vs_forward, 600)
{
	unsigned long loops = pr_scaled(50000, 2000);
	int rounds = (int)pr_env_seconds("PERF_RING_ROUNDS", 20, 3);
	double ns[NCASES][MAX_ROUNDS], ratio[MAX_ROUNDS];
	struct stats rs;
	struct stats st[NCASES];
	char why[PR_WHY_LEN] = "";
	bool have_bwd;
	pthread_t reader;
	int cpus[1], r, k, c, ret;
	__u64 lost;

	if (rounds > MAX_ROUNDS)
		rounds = MAX_ROUNDS;
	ASSERT_EQ(1, pr_cpus(cpus, 1));
	self->cpu = cpus[0];
	ASSERT_EQ(0, pr_pin_cpu(self->cpu));

	PR_REQUIRE(pair_open(self, FWD_READER, false, true, why, sizeof(why)), why);
	PR_REQUIRE(pair_open(self, FWD_OVW, false, false, why, sizeof(why)), why);
	ret = pair_open(self, BWD_OVW, true, false, why, sizeof(why));
	have_bwd = ret == 0;
	if (ret && strcmp(why, PR_LACKS_BACKWARD))
		PR_REQUIRE(ret, why);

	ASSERT_EQ(0, pthread_create(&reader, NULL, reader_main, self));
	ksft_print_msg("overhead: %d rounds x %lu close(-1), pinned to cpu %d, cases interleaved\n",
		       rounds, loops, self->cpu);
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < NCASES; k++) {
			c = (r + k) % NCASES;
			if (c == BWD_OVW && !have_bwd)
				continue;
			ns[c][r] = run_case(_metadata, self, c, loops);
		}
	}
	__atomic_store_n(&self->stop, 1, __ATOMIC_RELEASE);
	pthread_join(reader, NULL);
	ASSERT_EQ(0, self->reader_err[0]) TH_LOG("reader: %s", self->reader_err);
	ASSERT_EQ(0, pr_read_count(self->p[FWD_READER].enter.fd, NULL, &lost));

	for (c = 0; c < NCASES; c++) {
		if (c == BWD_OVW && !have_bwd)
			continue;
		st[c] = stats_of(ns[c], rounds);
		ksft_print_msg("overhead: %-10s mean %8.1f ns sd %7.1f ns median %8.1f ns x%.2f\n",
			       case_name[c], st[c].mean, st[c].sd, st[c].median,
			       st[c].median / st[BASE].median);
	}
	ksft_print_msg("overhead: FWD+READER reader consumed %lu records, %llu lost\n",
		       self->drained, (unsigned long long)lost);
	if (!have_bwd)
		SKIP(return, PR_LACKS_BACKWARD);

	for (r = 0; r < rounds; r++)
		ratio[r] = ns[BWD_OVW][r] / ns[FWD_OVW][r];
	rs = stats_of(ratio, rounds);
	ksft_print_msg("overhead: BWD-OVW / FWD-OVW: %.3f of the means, %.3f of the medians\n",
		       st[BWD_OVW].mean / st[FWD_OVW].mean,
		       st[BWD_OVW].median / st[FWD_OVW].median);
	ksft_print_msg("overhead: BWD-OVW / FWD-OVW per round: median %.3f, mean %.3f, sd %.3f\n",
		       rs.median, rs.mean, rs.sd);
	ksft_print_msg("overhead: asserted: median <= %.2f\n", RATIO_LIMIT);
	ksft_print_msg("overhead: BWD-OVW / FWD+READER: %.3f of the means, %.3f of the medians\n",
		       st[BWD_OVW].mean / st[FWD_READER].mean,
		       st[BWD_OVW].median / st[FWD_READER].median);
	ASSERT_LE(rs.median, RATIO_LIMIT);
}

TEST_HARNESS_MAIN
