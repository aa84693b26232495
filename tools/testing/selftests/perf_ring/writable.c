// SPDX-License-Identifier: GPL-2.0
/*
 * A forward buffer mapped with PROT_WRITE: the kernel writes only into the
 * space between data_head and data_tail. A full buffer drops records and
 * counts them; space comes back, to the byte, when the reader moves
 * data_tail on.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_harness.h"

FIXTURE(writable) {
	struct rb_tp tp;
	struct rb_ring r;
	unsigned int rec;
	__u64 fit;		/* records that fit in an empty buffer */
};

FIXTURE_SETUP(writable)
{
	char why[RB_WHY_LEN] = "";
	struct rb_opts o;

	self->r.fd = -1;
	RB_REQUIRE(return, rb_tp_close(&self->tp, why, sizeof(why)), why);
	rb_opts_init(&o, &self->tp);
	o.data_pages = 1;
	RB_REQUIRE(return, rb_ring_open(&self->r, &o, why, sizeof(why)), why);
	self->rec = rb_close_sample_size(&self->r);
	/* One byte always stays free, so a full buffer is not an empty one. */
	self->fit = (self->r.size - 1) / self->rec;
}

FIXTURE_TEARDOWN(writable)
{
	rb_ring_close(&self->r);
}

struct seq_check {
	unsigned long next;
	long bad;
	long idx;
};

static int check_rising(const struct rb_rec *rec, void *ctx)
{
	struct seq_check *c = ctx;

	if (rec->type != RB_SAMPLE || !rec->has_seq || rec->seq != c->next) {
		c->bad = c->idx;
		return -EILSEQ;
	}
	c->next++;
	c->idx++;
	return 0;
}

TEST_F(writable, full_buffer_loses_and_counts)
{
	const unsigned long n = 300;
	char why[RB_WHY_LEN] = "";
	struct seq_check c = { 0 };
	struct rb_rec lostrec, rec;
	__u64 lost, head;
	long cnt;

	ASSERT_EQ(0, rb_enable(self->r.fd));
	rb_close_range(0, n);
	ASSERT_EQ(0, rb_read_count(self->r.fd, NULL, &lost));
	head = rb_ring_head(&self->r);
	ASSERT_EQ(self->fit * self->rec, head);
	ASSERT_EQ(n - self->fit, lost);
	cnt = rb_walk_forward(&self->r, 0, head, check_rising, &c, why, sizeof(why));
	ASSERT_EQ((long)self->fit, cnt) TH_LOG("record %ld: %s", c.bad, why);

	/* Consume everything; the next record brings the LOST count along. */
	rb_ring_set_tail(&self->r, head);
	rb_close_seq(n);
	ASSERT_EQ(0, rb_disable(self->r.fd));
	ASSERT_EQ(0, rb_parse(&self->r, head, rb_ring_head(&self->r), &lostrec,
			      why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(RB_LOST, lostrec.type);
	ASSERT_EQ(n - self->fit, lostrec.lost);
	ASSERT_EQ(0, rb_parse(&self->r, head + lostrec.size, rb_ring_head(&self->r),
			      &rec, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(RB_SAMPLE, rec.type);
	ASSERT_EQ(n, rec.seq);
	ASSERT_EQ(head + lostrec.size + self->rec, rb_ring_head(&self->r));
	ksft_print_msg("%lu records into %llu bytes: kept seq 0..%llu, read() lost=%llu;\n",
		       n, (unsigned long long)self->r.size, (unsigned long long)self->fit - 1,
		       (unsigned long long)lost);
	ksft_print_msg("after the tail moved, PERF_RECORD_LOST(%llu) then seq %lu\n",
		       (unsigned long long)lostrec.lost, n);
}

TEST_F(writable, data_tail_returns_space)
{
	const unsigned long m = 10;
	char why[RB_WHY_LEN] = "";
	struct seq_check c;
	__u64 lost, h1, h2;
	long cnt;

	ASSERT_EQ(0, rb_enable(self->r.fd));
	rb_close_range(0, self->fit);
	h1 = rb_ring_head(&self->r);
	ASSERT_EQ(self->fit * self->rec, h1);
	/* Full: less than one record of space is left before data_tail. */
	ASSERT_LT(self->r.size - h1, (__u64)self->rec + 1);

	/* The reader consumes the m oldest records: exactly m more fit. */
	rb_ring_set_tail(&self->r, m * self->rec);
	rb_close_range(self->fit, m);
	h2 = rb_ring_head(&self->r);
	ASSERT_EQ(0, rb_read_count(self->r.fd, NULL, &lost));
	ASSERT_EQ(0ULL, lost);
	ASSERT_EQ(h1 + m * self->rec, h2);
	c = (struct seq_check){ .next = self->fit };
	cnt = rb_walk_forward(&self->r, h1, h2, check_rising, &c, why, sizeof(why));
	ASSERT_EQ((long)m, cnt) TH_LOG("record %ld: %s", c.bad, why);

	/* And not one more. */
	rb_close_seq(self->fit + m);
	ASSERT_EQ(0, rb_disable(self->r.fd));
	ASSERT_EQ(h2, rb_ring_head(&self->r));
	ASSERT_EQ(0, rb_read_count(self->r.fd, NULL, &lost));
	ASSERT_EQ(1ULL, lost);
	ksft_print_msg("full at %llu records; data_tail moved by %lu records,\n",
		       (unsigned long long)self->fit, m);
	ksft_print_msg("exactly %lu more were written (seq %llu..%llu) and the next one was lost\n",
		       m, (unsigned long long)self->fit, (unsigned long long)self->fit + m - 1);
}

TEST_HARNESS_MAIN
