// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_EVENT_IOC_SET_OUTPUT between the two write directions: an event
 * that writes backward and one that writes forward cannot share a buffer
 * (EINVAL both ways), while two events of one direction can, and then the
 * records of both land, whole and in order, in the one buffer. The same
 * rule holds when perf_event_open() redirects the new event's output with
 * PERF_FLAG_FD_OUTPUT.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "perf_ring_harness.h"

FIXTURE(set_output) {
	struct pr_tp tp;
	struct pr_ring a, b;	/* a has the buffer, b is redirected into it */
	struct pr_ring c;	/* same direction as a: the control */
};

FIXTURE_SETUP(set_output)
{
	char why[PR_WHY_LEN] = "";

	self->a.fd = -1;
	self->b.fd = -1;
	self->c.fd = -1;
	PR_REQUIRE(pr_tp_close(&self->tp, why, sizeof(why)), why);
}

FIXTURE_TEARDOWN(set_output)
{
	pr_ring_close(&self->c);
	pr_ring_close(&self->b);
	pr_ring_close(&self->a);
}

/* Open @ring on the close() tracepoint; @pages 0 means no buffer. */
#define SO_OPEN(ring, bwd, pages) do {					\
	char __why[PR_WHY_LEN] = "";					\
	struct pr_opts __o;						\
	pr_opts_init(&__o, &self->tp);					\
	__o.backward = (bwd);						\
	__o.data_pages = (pages);					\
	__o.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_RAW; \
	PR_REQUIRE(pr_ring_open((ring), &__o, __why, sizeof(__why)), __why); \
} while (0)

static int set_output(int fd, int target)
{
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, target) ? -errno : 0;
}

TEST_F(set_output, forward_into_backward_einval)
{
	PR_NEED_BACKWARD();
	SO_OPEN(&self->a, true, 2);
	SO_OPEN(&self->b, false, 0);
	SO_OPEN(&self->c, true, 0);
	ASSERT_EQ(-EINVAL, set_output(self->b.fd, self->a.fd));
	ASSERT_EQ(0, set_output(self->c.fd, self->a.fd));
	TH_LOG("forward event -> backward buffer: EINVAL (a backward event -> the same buffer: 0)");
}

TEST_F(set_output, backward_into_forward_einval)
{
	PR_NEED_BACKWARD();
	SO_OPEN(&self->a, false, 2);
	SO_OPEN(&self->b, true, 0);
	SO_OPEN(&self->c, false, 0);
	ASSERT_EQ(-EINVAL, set_output(self->b.fd, self->a.fd));
	ASSERT_EQ(0, set_output(self->c.fd, self->a.fd));
	TH_LOG("backward event -> forward buffer: EINVAL (a forward event -> the same buffer: 0)");
}

/*
 * perf_event_open() of an event on the close() tracepoint, in direction
 * @bwd, with its output redirected to @target (PERF_FLAG_FD_OUTPUT):
 * the new fd, or -errno.
 */
static int open_fd_output(const struct pr_tp *tp, bool bwd, int target)
{
	struct perf_event_attr attr;
	struct pr_opts o;
	int fd;

	pr_opts_init(&o, tp);
	o.backward = bwd;
	pr_attr_from_opts(&attr, &o);
	fd = pr_perf_open(&attr, 0, -1, target,
			  PERF_FLAG_FD_CLOEXEC | PERF_FLAG_FD_OUTPUT);
	return fd < 0 ? -errno : fd;
}

static void fd_output_check(struct __test_metadata *_metadata,
			    struct _test_data_set_output *self, bool backward)
{
	int fd;

	SO_OPEN(&self->a, backward, 2);
	ASSERT_EQ(-EINVAL, open_fd_output(&self->tp, !backward, self->a.fd));
	fd = open_fd_output(&self->tp, backward, self->a.fd);
	ASSERT_GE(fd, 0) TH_LOG("same direction with PERF_FLAG_FD_OUTPUT: %s",
				strerror(-fd));
	close(fd);
	TH_LOG("PERF_FLAG_FD_OUTPUT, %s event -> %s buffer: EINVAL (a %s event: opened)",
	       backward ? "forward" : "backward", backward ? "backward" : "forward",
	       backward ? "backward" : "forward");
}

TEST_F(set_output, fd_output_forward_into_backward_einval)
{
	PR_NEED_BACKWARD();
	fd_output_check(_metadata, self, true);
}

TEST_F(set_output, fd_output_backward_into_forward_einval)
{
	PR_NEED_BACKWARD();
	fd_output_check(_metadata, self, false);
}

static void shared_buffer_check(struct __test_metadata *_metadata,
				struct _test_data_set_output *self, bool backward)
{
	const unsigned long n = 60;
	char why[PR_WHY_LEN] = "";
	struct pr_rec v[2 * 60 + 8];
	struct pr_recs rs = { .v = v, .max = 2 * 60 + 8 };
	unsigned long got[2] = { 0, 0 }, i, k;
	__u64 id[2];
	long cnt;

	SO_OPEN(&self->a, backward, 4);
	SO_OPEN(&self->b, backward, 0);
	ASSERT_EQ(0, set_output(self->b.fd, self->a.fd));
	ASSERT_EQ(0, ioctl(self->a.fd, PERF_EVENT_IOC_ID, &id[0]));
	ASSERT_EQ(0, ioctl(self->b.fd, PERF_EVENT_IOC_ID, &id[1]));

	ASSERT_EQ(0, pr_enable(self->a.fd));
	ASSERT_EQ(0, pr_enable(self->b.fd));
	pr_close_range(0, n);
	ASSERT_EQ(0, pr_disable(self->b.fd));
	ASSERT_EQ(0, pr_disable(self->a.fd));

	if (backward)
		cnt = pr_walk_backward(&self->a, pr_ring_head(&self->a),
				       pr_recs_push, &rs, why, sizeof(why));
	else
		cnt = pr_walk_forward(&self->a, 0, pr_ring_head(&self->a),
				      pr_recs_push, &rs, why, sizeof(why));
	ASSERT_GE(cnt, 0) TH_LOG("%s", why);
	ASSERT_EQ(2 * n, (unsigned long)cnt);
	for (i = 0; i < rs.n; i++) {
		ASSERT_EQ(PR_SAMPLE, v[i].type);
		ASSERT_TRUE(v[i].id == id[0] || v[i].id == id[1])
			TH_LOG("record %lu has id %llu", i, (unsigned long long)v[i].id);
		k = v[i].id == id[1];
		/* Each event's records are in order among themselves. */
		ASSERT_EQ(backward ? n - 1 - got[k] : got[k], v[i].seq)
			TH_LOG("event %lu, record %lu", k, got[k]);
		got[k]++;
	}
	ASSERT_EQ(n, got[0]);
	ASSERT_EQ(n, got[1]);
	TH_LOG("%s -> %s: SET_OUTPUT works; %lu records of each event, seq %s in order",
	       backward ? "backward" : "forward", backward ? "backward" : "forward",
	       n, backward ? "newest to oldest" : "oldest to newest");
}

TEST_F(set_output, forward_into_forward_records_land)
{
	shared_buffer_check(_metadata, self, false);
}

TEST_F(set_output, backward_into_backward_records_land)
{
	PR_NEED_BACKWARD();
	shared_buffer_check(_metadata, self, true);
}

TEST_HARNESS_MAIN
