// SPDX-License-Identifier: GPL-2.0
/*
 * Where records sit in a perf ring buffer, in each of the four modes:
 * forward or backward (write_backward), writable or overwrite (a mapping
 * without PROT_WRITE). Every record carries a sequence number, so every
 * check is exact.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "rb_harness.h"

FIXTURE(ring) {
	struct rb_tp tp;
	struct rb_ring r;
	unsigned int rec;	/* bytes per sample */
};

FIXTURE_VARIANT(ring) {
	bool backward;
	bool overwrite;
};

FIXTURE_VARIANT_ADD(ring, forward_writable) {
	.backward = false, .overwrite = false,
};

FIXTURE_VARIANT_ADD(ring, forward_overwrite) {
	.backward = false, .overwrite = true,
};

FIXTURE_VARIANT_ADD(ring, backward_writable) {
	.backward = true, .overwrite = false,
};

FIXTURE_VARIANT_ADD(ring, backward_overwrite) {
	.backward = true, .overwrite = true,
};

FIXTURE_SETUP(ring)
{
	char why[RB_WHY_LEN] = "";

	self->r.fd = -1;
	RB_REQUIRE(return, rb_tp_close(&self->tp, why, sizeof(why)), why);
	if (variant->backward)
		RB_NEED_BACKWARD(return);
}

FIXTURE_TEARDOWN(ring)
{
	rb_ring_close(&self->r);
}

static const char *mode_name(const struct _fixture_variant_ring *v)
{
	return rb_mode_name(v->backward, v->overwrite);
}

/* Open the close() tracepoint in this variant's mode with @pages of data. */
#define RING_OPEN(statement, pages) do {				\
	char __why[RB_WHY_LEN] = "";					\
	struct rb_opts __o;						\
	rb_opts_init(&__o, &self->tp);					\
	__o.backward = variant->backward;				\
	__o.writable = !variant->overwrite;				\
	__o.data_pages = (pages);					\
	RB_REQUIRE(statement, rb_ring_open(&self->r, &__o, __why, sizeof(__why)), __why); \
	self->rec = rb_close_sample_size(&self->r);			\
} while (0)

/* Record close(BASE + first .. first + n - 1) and stop recording. */
#define RING_RECORD(first, n) do {					\
	ASSERT_EQ(0, rb_enable(self->r.fd));				\
	rb_close_range((first), (n));					\
	ASSERT_EQ(0, rb_disable(self->r.fd));				\
} while (0)

/* Bytes written so far, whichever way the head runs. */
static __u64 head_bytes(const struct rb_ring *r)
{
	__u64 head = rb_ring_head(r);

	return r->backward ? rb_bwd_written(head) : head;
}

TEST_F(ring, head_points_at_newest)
{
	const unsigned long n = 100;
	char why[RB_WHY_LEN] = "";
	struct rb_rec rec;
	__u64 head;

	RING_OPEN(return, 4);
	ASSERT_LT(n * self->rec, self->r.size);
	RING_RECORD(0, n);

	head = rb_ring_head(&self->r);
	if (variant->backward) {
		/*
		 * The head runs down from 0 in the kernel's unsigned long,
		 * zero-extended: 2^64 - bytes on a 64-bit kernel (high bits
		 * set), 2^32 - bytes on a 32-bit one (high bits clear), so
		 * its value tells the width. It is at the newest record.
		 */
		__u64 top = head >> 32 ? 0 : 1ULL << 32;

		ASSERT_EQ(top - n * self->rec, head);
		ASSERT_EQ(n * self->rec, rb_bwd_written(head));
	} else {
		ASSERT_EQ(head, n * self->rec);
	}
	ASSERT_EQ(0, rb_parse_newest(&self->r, head, variant->backward, self->rec,
				     &rec, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(RB_SAMPLE, rec.type);
	ASSERT_TRUE(rec.has_seq);
	ASSERT_EQ(n - 1, rec.seq);
	ksft_print_msg("%s: data_head=%#llx after %lu records of %u bytes;\n",
		       mode_name(variant), (unsigned long long)head, n, self->rec);
	ksft_print_msg("the record %s data_head has seq %llu, the newest\n",
		       variant->backward ? "at" : "ending at", (unsigned long long)rec.seq);
}

TEST_F(ring, walk_yields_exact_sequence)
{
	const unsigned long n = 150;
	char why[RB_WHY_LEN] = "";
	struct rb_rec v[160];
	struct rb_recs rs = { .v = v, .max = 160 };
	pid_t tid = syscall(SYS_gettid);
	unsigned long i;
	long cnt;

	RING_OPEN(return, 4);
	ASSERT_LT(n * self->rec, self->r.size);
	RING_RECORD(0, n);

	if (variant->backward)
		cnt = rb_walk_backward(&self->r, rb_ring_head(&self->r),
				       rb_recs_push, &rs, why, sizeof(why));
	else
		cnt = rb_walk_forward(&self->r, rb_ring_tail(&self->r),
				      rb_ring_head(&self->r), rb_recs_push, &rs,
				      why, sizeof(why));
	ASSERT_GE(cnt, 0) TH_LOG("%s", why);
	ASSERT_EQ(n, (unsigned long)cnt);
	for (i = 0; i < n; i++) {
		/* Backward walks newest to oldest; forward oldest to newest. */
		unsigned long want = variant->backward ? n - 1 - i : i;

		ASSERT_EQ(RB_SAMPLE, v[i].type);
		ASSERT_EQ(self->rec, v[i].size);
		ASSERT_TRUE(v[i].has_seq);
		ASSERT_EQ(want, v[i].seq) TH_LOG("record %lu", i);
		ASSERT_EQ((__u32)tid, v[i].tid);
	}
	ksft_print_msg("%s: walked %ld records from %s, seq %llu..%llu, %s, no gap or duplicate\n",
		       mode_name(variant), cnt, variant->backward ? "data_head" : "data_tail",
		       (unsigned long long)v[0].seq, (unsigned long long)v[n - 1].seq,
		       variant->backward ? "newest to oldest" : "oldest to newest");
}

struct seq_check {
	unsigned long next;	/* expected next seq */
	bool down;		/* walking newest to oldest */
	long bad;		/* index of the first record off the sequence */
	long idx;
};

static int check_seq(const struct rb_rec *rec, void *ctx)
{
	struct seq_check *c = ctx;

	if (rec->type != PERF_RECORD_SAMPLE || !rec->has_seq || rec->seq != c->next) {
		c->bad = c->idx;
		return -EILSEQ;
	}
	c->next += c->down ? -1UL : 1UL;
	c->idx++;
	return 0;
}

TEST_F(ring, wrap)
{
	unsigned long n = rb_scaled(5000, 600);
	char why[RB_WHY_LEN] = "";
	struct seq_check c = { 0 };
	__u64 count, lost, head, fit, start;
	long cnt;

	/* A flight recorder is read paused (probe first: the probe closes fds). */
	if (variant->backward && variant->overwrite)
		RB_NEED_PAUSE(return);
	RING_OPEN(return, 1);
	fit = (self->r.size - 1) / self->rec;	/* a writable buffer keeps this many */
	if (n < 8 * fit)
		n = 8 * fit;			/* wrap several times, whatever the page size */

	ASSERT_EQ(0, rb_enable(self->r.fd));
	rb_close_range(0, n);
	if (variant->backward && variant->overwrite) {
		/* Paused, nothing more can land while it is read. */
		ASSERT_EQ(0, rb_pause(self->r.fd, true));
	} else {
		ASSERT_EQ(0, rb_disable(self->r.fd));
	}
	ASSERT_EQ(0, rb_read_count(self->r.fd, &count, &lost));
	ASSERT_EQ(n, count);
	head = rb_ring_head(&self->r);

	if (variant->backward && variant->overwrite) {
		/* Newest at data_head; walking on meets ever older records. */
		c.next = n - 1;
		c.down = true;
		cnt = rb_walk_backward(&self->r, head, check_seq, &c, why, sizeof(why));
		ASSERT_GE(cnt, 0) TH_LOG("record %ld off the sequence (want %lu): %s",
					 c.bad, c.next, why);
		ASSERT_EQ(self->r.size / self->rec, (__u64)cnt);
		ASSERT_EQ(0ULL, lost);
		ksft_print_msg("backward overwrite: %lu records in %llu bytes; paused, read back\n",
			       n, (unsigned long long)self->r.size);
		ksft_print_msg("seq %lu..%lu: the %ld newest, contiguous, up to the last issued\n",
			       n - 1, n - cnt, cnt);
		ASSERT_EQ(0, rb_pause(self->r.fd, false));
		return;
	}
	if (variant->overwrite) {
		/*
		 * Forward overwrite: data_head is the end of the newest record.
		 * The oldest surviving record starts somewhere after
		 * data_head - size, but nothing says where: that position is
		 * in the middle of a record that was partly overwritten, and
		 * walking from it misreads data as headers.
		 */
		ASSERT_EQ(n * self->rec, head);
		ASSERT_EQ(0ULL, lost);
		start = head - self->r.size;
		ASSERT_NE(0ULL, start % self->rec);
		c.next = (start + self->rec - 1) / self->rec;	/* first whole record */
		cnt = rb_walk_forward(&self->r, start, head, check_seq, &c, why, sizeof(why));
		ASSERT_LT(cnt, 0);
		ksft_print_msg("forward overwrite: %lu records of %u bytes into %llu bytes;\n",
			       n, self->rec, (unsigned long long)self->r.size);
		ksft_print_msg("data_head - size = %llu is %llu bytes into a record,\n",
			       (unsigned long long)start,
			       (unsigned long long)(start % self->rec));
		ksft_print_msg("and a walk from there fails: %s\n",
			       cnt == -EILSEQ ? "a record off the sequence" : why);
		ksft_print_msg("forward overwrite: only the newest record (at data_head) found,\n");
		ksft_print_msg("and only because every record here has the same size\n");
		return;
	}

	/* Writable: the buffer fills, keeps the oldest, and counts the rest. */
	ASSERT_EQ(fit * self->rec, head_bytes(&self->r));
	ASSERT_EQ(n - fit, lost);
	if (variant->backward) {
		c.next = fit - 1;
		c.down = true;
		cnt = rb_walk_backward(&self->r, head, check_seq, &c, why, sizeof(why));
	} else {
		c.next = 0;
		cnt = rb_walk_forward(&self->r, 0, head, check_seq, &c, why, sizeof(why));
	}
	ASSERT_GE(cnt, 0) TH_LOG("record %ld off the sequence (want %lu): %s",
				 c.bad, c.next, why);
	ASSERT_EQ(fit, (__u64)cnt);
	ksft_print_msg("%s: %lu records into %llu bytes;\n",
		       mode_name(variant), n, (unsigned long long)self->r.size);
	ksft_print_msg("it holds seq 0..%llu (the oldest) and read() counts %llu lost\n",
		       (unsigned long long)fit - 1, (unsigned long long)lost);
}

TEST_F(ring, overwrite_chosen_by_prot_write)
{
	__u64 count, lost, fit, n;

	RING_OPEN(return, 1);
	fit = (self->r.size - 1) / self->rec;
	n = 4 * fit;
	RING_RECORD(0, n);
	ASSERT_EQ(0, rb_read_count(self->r.fd, &count, &lost));
	ASSERT_EQ(n, count);

	if (variant->overwrite) {
		/* Read-only mapping: the kernel ignores data_tail and overwrites. */
		ASSERT_EQ(0ULL, lost);
		ASSERT_EQ(n * self->rec, head_bytes(&self->r));
	} else {
		/* PROT_WRITE: the kernel honours data_tail and drops what won't fit. */
		ASSERT_EQ(n - fit, lost);
		ASSERT_EQ(fit * self->rec, head_bytes(&self->r));
	}
	ksft_print_msg("%s (%s mapping): %llu records, %llu bytes written, %llu lost\n",
		       mode_name(variant), variant->overwrite ? "read-only" : "PROT_WRITE",
		       (unsigned long long)n, (unsigned long long)head_bytes(&self->r),
		       (unsigned long long)lost);
}

TEST_HARNESS_MAIN
