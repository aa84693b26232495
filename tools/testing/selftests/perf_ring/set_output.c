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

#include "rb_harness.h"

FIXTURE(set_output) {
	struct rb_tp tp;
	struct rb_ring a, b;	/* a has the buffer, b is redirected into it */
	struct rb_ring c;	/* same direction as a: the control */
};

FIXTURE_SETUP(set_output)
{
	char why[RB_WHY_LEN] = "";

	self->a.fd = -1;
	self->b.fd = -1;
	self->c.fd = -1;
	RB_REQUIRE(return, rb_tp_close(&self->tp, why, sizeof(why)), why);
}

FIXTURE_TEARDOWN(set_output)
{
	rb_ring_close(&self->c);
	rb_ring_close(&self->b);
	rb_ring_close(&self->a);
}

/* Open @ring on the close() tracepoint; @pages 0 means no buffer. */
#define SO_OPEN(statement, ring, bwd, pages) do {			\
	char __why[RB_WHY_LEN] = "";					\
	struct rb_opts __o;						\
	rb_opts_init(&__o, &self->tp);					\
	__o.backward = (bwd);						\
	__o.data_pages = (pages);					\
	__o.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_RAW; \
	RB_REQUIRE(statement, rb_ring_open((ring), &__o, __why, sizeof(__why)), __why); \
} while (0)

static int set_output(int fd, int target)
{
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, target) ? -errno : 0;
}

TEST_F(set_output, forward_into_backward_einval)
{
	RB_NEED_BACKWARD(return);
	SO_OPEN(return, &self->a, true, 2);
	SO_OPEN(return, &self->b, false, 0);
	SO_OPEN(return, &self->c, true, 0);
	ASSERT_EQ(-EINVAL, set_output(self->b.fd, self->a.fd));
	ASSERT_EQ(0, set_output(self->c.fd, self->a.fd));
	ksft_print_msg("forward event -> backward buffer: EINVAL (backward event: 0)\n");
}

TEST_F(set_output, backward_into_forward_einval)
{
	RB_NEED_BACKWARD(return);
	SO_OPEN(return, &self->a, false, 2);
	SO_OPEN(return, &self->b, true, 0);
	SO_OPEN(return, &self->c, false, 0);
	ASSERT_EQ(-EINVAL, set_output(self->b.fd, self->a.fd));
	ASSERT_EQ(0, set_output(self->c.fd, self->a.fd));
	ksft_print_msg("backward event -> forward buffer: EINVAL (forward event: 0)\n");
}

/*
 * perf_event_open() of an event on the close() tracepoint, in direction
 * @bwd, with its output redirected to @target (PERF_FLAG_FD_OUTPUT):
 * the new fd, or -errno.
 */
static int open_fd_output(const struct rb_tp *tp, bool bwd, int target)
{
	struct perf_event_attr attr;
	struct rb_opts o;
	int fd;

	rb_opts_init(&o, tp);
	o.backward = bwd;
	rb_attr_from_opts(&attr, &o);
	fd = rb_perf_open(&attr, 0, -1, target,
			  PERF_FLAG_FD_CLOEXEC | PERF_FLAG_FD_OUTPUT);
	return fd < 0 ? -errno : fd;
}

static void fd_output_check(struct __test_metadata *_metadata,
			    struct _test_data_set_output *self, bool backward)
{
	int fd;

	SO_OPEN(return, &self->a, backward, 2);
	ASSERT_EQ(-EINVAL, open_fd_output(&self->tp, !backward, self->a.fd));
	fd = open_fd_output(&self->tp, backward, self->a.fd);
	ASSERT_GE(fd, 0) TH_LOG("same direction with PERF_FLAG_FD_OUTPUT: %s",
				strerror(-fd));
	close(fd);
	ksft_print_msg("PERF_FLAG_FD_OUTPUT, %s event -> %s buffer: EINVAL (a %s event: opened)\n",
		       backward ? "forward" : "backward", backward ? "backward" : "forward",
		       backward ? "backward" : "forward");
}

TEST_F(set_output, fd_output_forward_into_backward_einval)
{
	RB_NEED_BACKWARD(return);
	fd_output_check(_metadata, self, true);
}

TEST_F(set_output, fd_output_backward_into_forward_einval)
{
	RB_NEED_BACKWARD(return);
	fd_output_check(_metadata, self, false);
}

static void shared_buffer_check(struct __test_metadata *_metadata,
				struct _test_data_set_output *self, bool backward)
{
	const unsigned long n = 60;
	char why[RB_WHY_LEN] = "";
	struct rb_rec v[2 * 60 + 8];
	struct rb_recs rs = { .v = v, .max = 2 * 60 + 8 };
	unsigned long got[2] = { 0, 0 }, i, k;
	__u64 id[2];
	long cnt;

	SO_OPEN(return, &self->a, backward, 4);
	SO_OPEN(return, &self->b, backward, 0);
	ASSERT_EQ(0, set_output(self->b.fd, self->a.fd));
	ASSERT_EQ(0, ioctl(self->a.fd, PERF_EVENT_IOC_ID, &id[0]));
	ASSERT_EQ(0, ioctl(self->b.fd, PERF_EVENT_IOC_ID, &id[1]));

	ASSERT_EQ(0, rb_enable(self->a.fd));
	ASSERT_EQ(0, rb_enable(self->b.fd));
	rb_close_range(0, n);
	ASSERT_EQ(0, rb_disable(self->b.fd));
	ASSERT_EQ(0, rb_disable(self->a.fd));

	if (backward)
		cnt = rb_walk_backward(&self->a, rb_ring_head(&self->a),
				       rb_recs_push, &rs, why, sizeof(why));
	else
		cnt = rb_walk_forward(&self->a, 0, rb_ring_head(&self->a),
				      rb_recs_push, &rs, why, sizeof(why));
	ASSERT_GE(cnt, 0) TH_LOG("%s", why);
	ASSERT_EQ(2 * n, (unsigned long)cnt);
	for (i = 0; i < rs.n; i++) {
		ASSERT_EQ(RB_SAMPLE, v[i].type);
		ASSERT_TRUE(v[i].id == id[0] || v[i].id == id[1])
			ksft_print_msg("record %lu has id %llu\n", i, (unsigned long long)v[i].id);
		k = v[i].id == id[1];
		/* Each event's records are in order among themselves. */
		ASSERT_EQ(backward ? n - 1 - got[k] : got[k], v[i].seq)
			ksft_print_msg("event %lu, record %lu\n", k, got[k]);
		got[k]++;
	}
	ASSERT_EQ(n, got[0]);
	ASSERT_EQ(n, got[1]);
	ksft_print_msg("%s -> %s: SET_OUTPUT works; %lu records of each event, seq %s in order\n",
		       backward ? "backward" : "forward", backward ? "backward" : "forward",
		       n, backward ? "newest to oldest" : "oldest to newest");
}

TEST_F(set_output, forward_into_forward_records_land)
{
	shared_buffer_check(_metadata, self, false);
}

TEST_F(set_output, backward_into_backward_records_land)
{
	RB_NEED_BACKWARD(return);
	shared_buffer_check(_metadata, self, true);
}

TEST_HARNESS_MAIN
