// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_EVENT_IOC_PAUSE_OUTPUT: a paused buffer takes no records, counts the
 * ones it refused as lost (in a PERF_RECORD_LOST after resume and in
 * read() with PERF_FORMAT_LOST), writes again after resume, needs a buffer,
 * and pauses only itself. Run in all four ring modes.
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

FIXTURE(pause) {
	struct rb_tp tp;
	struct rb_ring r, r2;
	unsigned int rec;
};

FIXTURE_VARIANT(pause) {
	bool backward;
	bool overwrite;
};

FIXTURE_VARIANT_ADD(pause, forward_writable) {
	.backward = false, .overwrite = false,
};

FIXTURE_VARIANT_ADD(pause, forward_overwrite) {
	.backward = false, .overwrite = true,
};

FIXTURE_VARIANT_ADD(pause, backward_writable) {
	.backward = true, .overwrite = false,
};

FIXTURE_VARIANT_ADD(pause, backward_overwrite) {
	.backward = true, .overwrite = true,
};

FIXTURE_SETUP(pause)
{
	char why[RB_WHY_LEN] = "";

	self->r.fd = -1;
	self->r2.fd = -1;
	RB_REQUIRE(return, rb_tp_close(&self->tp, why, sizeof(why)), why);
	if (variant->backward)
		RB_NEED_BACKWARD(return);
	RB_NEED_PAUSE(return);
}

FIXTURE_TEARDOWN(pause)
{
	rb_ring_close(&self->r2);
	rb_ring_close(&self->r);
}

static const char *mode_name(const struct _fixture_variant_pause *v)
{
	return rb_mode_name(v->backward, v->overwrite);
}

#define PAUSE_OPEN(statement, ring, pages) do {				\
	struct rb_ring *__r = (ring);					\
	char __why[RB_WHY_LEN] = "";					\
	struct rb_opts __o;						\
	rb_opts_init(&__o, &self->tp);					\
	__o.backward = variant->backward;				\
	__o.writable = !variant->overwrite;				\
	__o.data_pages = (pages);					\
	RB_REQUIRE(statement, rb_ring_open(__r, &__o, __why, sizeof(__why)), __why); \
	self->rec = rb_close_sample_size(__r);				\
} while (0)

/* Walk the whole buffer in its own direction into @rs. */
static long walk_all(const struct rb_ring *r, struct rb_recs *rs,
		     char *why, size_t len)
{
	if (r->backward)
		return rb_walk_backward(r, rb_ring_head(r), rb_recs_push, rs, why, len);
	return rb_walk_forward(r, rb_ring_tail(r), rb_ring_head(r), rb_recs_push,
			       rs, why, len);
}

TEST_F(pause, head_frozen_while_paused)
{
	const unsigned long before = 20, paused = 50;
	__u64 h0, h1, h2;

	PAUSE_OPEN(return, &self->r, 4);
	ASSERT_EQ(0, rb_enable(self->r.fd));
	rb_close_range(0, before);
	h0 = rb_ring_head(&self->r);
	ASSERT_EQ(0, rb_pause(self->r.fd, true));
	h1 = rb_ring_head(&self->r);
	rb_close_range(before, paused);
	h2 = rb_ring_head(&self->r);
	ASSERT_EQ(0, rb_pause(self->r.fd, false));
	ASSERT_EQ(0, rb_disable(self->r.fd));

	ASSERT_EQ(h0, h1);
	ASSERT_EQ(h1, h2);
	ksft_print_msg("%s: data_head stayed at %#llx while %lu records were issued paused\n",
		       mode_name(variant), (unsigned long long)h1, paused);
}

TEST_F(pause, lost_counted_while_paused)
{
	const unsigned long before = 20, paused = 50, after = 20;
	char why[RB_WHY_LEN] = "";
	struct rb_rec v[128];
	struct rb_recs rs = { .v = v, .max = 128 };
	unsigned long samples = 0, nlost = 0, i, s;
	__u64 count, lost, lost_rec = 0;
	long cnt;

	PAUSE_OPEN(return, &self->r, 4);
	ASSERT_EQ(0, rb_enable(self->r.fd));
	rb_close_range(0, before);
	ASSERT_EQ(0, rb_pause(self->r.fd, true));
	rb_close_range(before, paused);
	ASSERT_EQ(0, rb_pause(self->r.fd, false));
	rb_close_range(before + paused, after);
	ASSERT_EQ(0, rb_disable(self->r.fd));

	ASSERT_EQ(0, rb_read_count(self->r.fd, &count, &lost));
	ASSERT_EQ(before + paused + after, count);
	ASSERT_EQ(paused, lost);

	cnt = walk_all(&self->r, &rs, why, sizeof(why));
	ASSERT_GE(cnt, 0) TH_LOG("%s", why);
	for (i = 0; i < rs.n; i++) {
		if (v[i].type == RB_LOST) {
			nlost++;
			lost_rec = v[i].lost;
			continue;
		}
		ASSERT_EQ(RB_SAMPLE, v[i].type);
		ASSERT_TRUE(v[i].has_seq);
		/* In walk order: forward rises, backward falls; the paused ones are gone. */
		s = variant->backward ? before + after - 1 - samples : samples;
		if (s >= before)
			s += paused;
		ASSERT_EQ(s, v[i].seq) TH_LOG("sample %lu", samples);
		samples++;
	}
	ASSERT_EQ(before + after, samples);
	ASSERT_EQ(1UL, nlost);
	ASSERT_EQ(paused, lost_rec);
	ksft_print_msg("%s: %lu issued paused; PERF_RECORD_LOST says %llu, read() %llu;\n",
		       mode_name(variant), paused, (unsigned long long)lost_rec,
		       (unsigned long long)lost);
	ksft_print_msg("the %lu others are all there\n", samples);
}

TEST_F(pause, writing_resumes_after_pause)
{
	const unsigned long paused = 30, after = 40;
	char why[RB_WHY_LEN] = "";
	struct rb_rec rec;
	__u64 h1, h2;

	PAUSE_OPEN(return, &self->r, 4);
	ASSERT_EQ(0, rb_enable(self->r.fd));
	ASSERT_EQ(0, rb_pause(self->r.fd, true));
	rb_close_range(0, paused);
	h1 = rb_ring_head(&self->r);
	ASSERT_EQ(0, rb_pause(self->r.fd, false));
	rb_close_range(paused, after);
	ASSERT_EQ(0, rb_disable(self->r.fd));
	h2 = rb_ring_head(&self->r);

	/* The first record after resume carries the LOST record with it. */
	ASSERT_EQ(0ULL, h1);
	ASSERT_EQ(after * self->rec + 24, variant->backward ? rb_bwd_written(h2) : h2);
	ASSERT_EQ(0, rb_parse_newest(&self->r, h2, variant->backward, self->rec,
				     &rec, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(RB_SAMPLE, rec.type);
	ASSERT_EQ(paused + after - 1, rec.seq);
	ksft_print_msg("%s: paused from the start, data_head stayed 0;\n", mode_name(variant));
	ksft_print_msg("after resume: %llu bytes (%lu records + one LOST), newest seq %llu\n",
		       (unsigned long long)(variant->backward ? rb_bwd_written(h2) : h2), after,
		       (unsigned long long)rec.seq);
}

TEST_F(pause, pause_leaves_other_buffers_running)
{
	const unsigned long n = 60;
	char why[RB_WHY_LEN] = "";
	struct rb_rec v[80];
	struct rb_recs rs = { .v = v, .max = 80 };
	__u64 h1, lost1, lost2;
	unsigned long i;
	long cnt;

	PAUSE_OPEN(return, &self->r, 4);
	PAUSE_OPEN(return, &self->r2, 4);
	ASSERT_EQ(0, rb_pause(self->r.fd, true));
	h1 = rb_ring_head(&self->r);
	ASSERT_EQ(0, rb_enable(self->r.fd));
	ASSERT_EQ(0, rb_enable(self->r2.fd));
	rb_close_range(0, n);
	ASSERT_EQ(0, rb_disable(self->r2.fd));
	ASSERT_EQ(0, rb_disable(self->r.fd));

	ASSERT_EQ(h1, rb_ring_head(&self->r));
	ASSERT_EQ(0, rb_read_count(self->r.fd, NULL, &lost1));
	ASSERT_EQ(0, rb_read_count(self->r2.fd, NULL, &lost2));
	ASSERT_EQ(n, lost1);
	ASSERT_EQ(0ULL, lost2);
	cnt = walk_all(&self->r2, &rs, why, sizeof(why));
	ASSERT_GE(cnt, 0) TH_LOG("%s", why);
	ASSERT_EQ(n, (unsigned long)cnt);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(RB_SAMPLE, v[i].type);
		ASSERT_EQ(variant->backward ? n - 1 - i : i, v[i].seq);
	}
	ASSERT_EQ(0, rb_pause(self->r.fd, false));
	ksft_print_msg("%s: with one buffer paused, the other took all %lu records (seq 0..%lu),\n",
		       mode_name(variant), n, n - 1);
	ksft_print_msg("and lost none; the paused one lost %llu\n", (unsigned long long)lost1);
}

TEST(pause_without_buffer_einval)
{
	char why[RB_WHY_LEN] = "";
	struct rb_ring r;
	struct rb_opts o;
	int ret;

	RB_NEED_PAUSE(return);
	/* A software event: no tracepoint privilege needed. */
	rb_opts_init(&o, NULL);
	o.data_pages = 0;
	RB_REQUIRE(return, rb_ring_open(&r, &o, why, sizeof(why)), why);
	ret = rb_pause(r.fd, true);
	rb_ring_close(&r);
	ASSERT_EQ(-EINVAL, ret);
	ksft_print_msg("PAUSE_OUTPUT on an event without a buffer: EINVAL\n");
}

TEST_HARNESS_MAIN
