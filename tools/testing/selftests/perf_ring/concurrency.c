// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency: per-CPU buffers written from up to 8 CPUs while a reader
 * thread runs, with every record checked (header size, type and alignment,
 * the CPU it was written on, and sequence numbers that only rise per
 * writer); and events inherited by child processes, counted exactly.
 *
 * PERF_EVENTS_STRESS_SECONDS sets how long the writers run (default
 * 3 s times PERF_EVENTS_SCALE, at least 0.5 s).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "rb_harness.h"

#define MAX_CPUS	8
#define MAX_WRITERS	8
#define WRITER_SHIFT	24
#define WRITER_MASK	((1UL << WRITER_SHIFT) - 1)
#define WRITER_DONE	(~0UL)

static const __u64 stress_sample_type =
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW;

/* ---- per-CPU writers with a reader ---- */

struct writer {
	pthread_t thread;
	int id, cpu;
	pid_t tid;
	int started;			/* 1: tid known, pinned; -1: could not pin */
	unsigned long issued;
	unsigned long ack;		/* last snapshot generation seen; WRITER_DONE */
	int *stop;
	unsigned long *gen;
};

/* What the checker knows and what it found; one per buffer. */
struct checker {
	int cpu;
	int nwriters;
	const struct writer *w;
	long last[MAX_WRITERS];		/* highest seq seen per writer */
	bool down;			/* walking newest to oldest */
	long snap_newest[MAX_WRITERS];	/* backward: newest per writer, last snapshot */
	long cur_newest[MAX_WRITERS];
	__u64 prev_head;		/* backward: data_head at the last snapshot */
	unsigned long samples, lost_records, lost_sum, snapshots;
	unsigned long fresh;		/* backward: samples no earlier snapshot saw */
	char err[RB_WHY_LEN];
};

struct stress {
	struct rb_ring r[MAX_CPUS];
	struct checker chk[MAX_CPUS];
	struct writer w[MAX_WRITERS];
	int ncpu, nwriters;
	int cpus[MAX_CPUS];
	bool backward;
	int stop;		/* writers stop */
	int done;		/* reader does its last pass and stops */
	int failed;			/* first checker error, by buffer */
	unsigned long gen;		/* snapshot generation, see wait_writers() */
};

static int check_record(const struct rb_rec *rec, void *ctx)
{
	struct checker *c = ctx;
	unsigned long w, j;
	/*
	 * Snapshots of a backward buffer overlap: a record written before the
	 * last snapshot (at or above its data_head) may be seen again. Only
	 * the ones below it are new.
	 */
	bool fresh = !c->down || rb_pos_sub(c->prev_head, rec->pos) > 0;

	if (rec->type == RB_LOST) {
		if (fresh) {
			c->lost_records++;
			c->lost_sum += rec->lost;
		}
		return 0;
	}
	if (rec->type != RB_SAMPLE) {
		snprintf(c->err, sizeof(c->err), "cpu %d: record type %u at %#llx",
			 c->cpu, rec->type, (unsigned long long)rec->pos);
		return -EBADMSG;
	}
	w = rec->seq >> WRITER_SHIFT;
	j = rec->seq & WRITER_MASK;
	if (!rec->has_seq || w >= (unsigned long)c->nwriters) {
		snprintf(c->err, sizeof(c->err),
			 "cpu %d: sample at %#llx carries no sequence number",
			 c->cpu, (unsigned long long)rec->pos);
		return -EBADMSG;
	}
	if (rec->cpu != (__u32)c->cpu || c->w[w].cpu != c->cpu) {
		snprintf(c->err, sizeof(c->err),
			 "cpu %d: writer %lu (pinned to cpu %d) seq %lu has cpu %u",
			 c->cpu, w, c->w[w].cpu, j, rec->cpu);
		return -EBADMSG;
	}
	if (rec->tid != (__u32)c->w[w].tid) {
		snprintf(c->err, sizeof(c->err), "cpu %d: writer %lu seq %lu has tid %u, not %d",
			 c->cpu, w, j, rec->tid, c->w[w].tid);
		return -EBADMSG;
	}
	if (!c->down) {
		if ((long)j <= c->last[w]) {
			snprintf(c->err, sizeof(c->err),
				 "cpu %d: writer %lu seq %lu after %ld: not rising",
				 c->cpu, w, j, c->last[w]);
			return -EILSEQ;
		}
		c->last[w] = j;
	} else {
		/* Within one snapshot, newest to oldest: falling. */
		if (c->last[w] >= 0 && (long)j >= c->last[w]) {
			snprintf(c->err, sizeof(c->err),
				 "cpu %d: writer %lu seq %lu after %ld, walking back: not falling",
				 c->cpu, w, j, c->last[w]);
			return -EILSEQ;
		}
		if (c->last[w] < 0)
			c->cur_newest[w] = j;
		c->last[w] = j;
	}
	c->samples++;
	c->fresh += fresh;
	return 0;
}

/* Forward: consume everything from data_tail to data_head. */
static int drain_forward(struct rb_ring *r, struct checker *c)
{
	__u64 head = rb_ring_head(r), tail = rb_ring_tail(r);
	long n;

	if (head == tail)
		return 0;
	n = rb_walk_forward(r, tail, head, check_record, c, c->err[0] ? NULL : c->err,
			    sizeof(c->err));
	if (n < 0)
		return n;
	rb_ring_set_tail(r, head);
	return 0;
}

/*
 * Backward overwrite, one buffer already paused and quiet: walk newest to
 * oldest. Within a snapshot each writer's seq falls; its newest seq never
 * goes back from one snapshot to the next.
 */
static int snapshot_backward(struct rb_ring *r, struct checker *c)
{
	__u64 head = rb_ring_head(r);
	long n;
	int i;

	for (i = 0; i < c->nwriters; i++) {
		c->last[i] = -1;
		c->cur_newest[i] = -1;
	}
	n = rb_walk_backward(r, head, check_record, c,
			     c->err[0] ? NULL : c->err, sizeof(c->err));
	if (n < 0)
		return n;
	c->prev_head = head;
	for (i = 0; i < c->nwriters; i++) {
		if (c->cur_newest[i] < 0)
			continue;
		if (c->cur_newest[i] < c->snap_newest[i]) {
			snprintf(c->err, sizeof(c->err),
				 "cpu %d: writer %d newest seq went back from %ld to %ld",
				 c->cpu, i, c->snap_newest[i], c->cur_newest[i]);
			return -EILSEQ;
		}
		c->snap_newest[i] = c->cur_newest[i];
	}
	c->snapshots++;
	return 0;
}

/*
 * PAUSE_OUTPUT stops new records, but a writer on another CPU may be in the
 * middle of one, and in a backward buffer that record lands on the oldest
 * data the snapshot is about to read. Each record is written inside the
 * writer's own close(), so once every writer has come back from a close()
 * after the pause (it acknowledges the new generation between calls), no
 * record is in flight and every later one sees the pause.
 */
static void wait_writers(struct stress *s)
{
	unsigned long g = __atomic_add_fetch(&s->gen, 1, __ATOMIC_ACQ_REL);
	int k;

	for (k = 0; k < s->nwriters; k++) {
		unsigned long a;

		while ((a = __atomic_load_n(&s->w[k].ack, __ATOMIC_ACQUIRE)) != g &&
		       a != WRITER_DONE)
			sched_yield();
	}
}

/* Pause every buffer, wait out writes in flight, snapshot each, resume. */
static int snapshot_all(struct stress *s)
{
	int i, ret = 0;

	for (i = 0; i < s->ncpu; i++) {
		ret = rb_pause(s->r[i].fd, true);
		if (ret) {
			snprintf(s->chk[i].err, sizeof(s->chk[i].err), "pause: %s",
				 strerror(-ret));
			s->failed = i + 1;
			goto resume;
		}
	}
	wait_writers(s);
	for (i = 0; i < s->ncpu; i++) {
		ret = snapshot_backward(&s->r[i], &s->chk[i]);
		if (ret) {
			s->failed = i + 1;
			break;
		}
	}
resume:
	for (i = 0; i < s->ncpu; i++)
		rb_pause(s->r[i].fd, false);
	return ret;
}

static void *reader_main(void *arg)
{
	struct stress *s = arg;
	struct pollfd pfd[MAX_CPUS];
	bool last = false;
	int i, ret;

	for (i = 0; i < s->ncpu; i++) {
		pfd[i].fd = s->r[i].fd;
		pfd[i].events = POLLIN;
	}
	while (!last) {
		last = __atomic_load_n(&s->done, __ATOMIC_ACQUIRE);
		if (s->backward) {
			usleep(2000);
			if (snapshot_all(s))
				return NULL;
			continue;
		}
		poll(pfd, s->ncpu, 10);
		for (i = 0; i < s->ncpu; i++) {
			ret = drain_forward(&s->r[i], &s->chk[i]);
			if (ret) {
				s->failed = i + 1;
				return NULL;
			}
		}
	}
	return NULL;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	unsigned long base = (unsigned long)w->id << WRITER_SHIFT;
	unsigned long j = 0;

	w->tid = syscall(SYS_gettid);
	if (rb_pin_cpu(w->cpu)) {
		__atomic_store_n(&w->started, -1, __ATOMIC_RELEASE);
		return NULL;
	}
	/* The tid is published before the first record (see the start wait). */
	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED) && j < WRITER_MASK) {
		rb_close_seq(base | j);
		j++;
		/* Between two records: nothing of ours is being written now. */
		__atomic_store_n(&w->ack, __atomic_load_n(w->gen, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	__atomic_store_n(&w->issued, j, __ATOMIC_RELEASE);
	__atomic_store_n(&w->ack, WRITER_DONE, __ATOMIC_RELEASE);
	return NULL;
}

FIXTURE(stress) {
	struct rb_tp tp;
	struct stress *s;
};

FIXTURE_VARIANT(stress) {
	bool backward;
};

/* A streaming reader consumes a forward writable buffer as it fills. */
FIXTURE_VARIANT_ADD(stress, forward_writable) {
	.backward = false,
};

/* A flight recorder snapshots backward overwrite buffers while they fill. */
FIXTURE_VARIANT_ADD(stress, backward_overwrite) {
	.backward = true,
};

FIXTURE_SETUP(stress)
{
	char why[RB_WHY_LEN] = "";
	struct stress *s;
	int i;

	s = calloc(1, sizeof(*s));
	ASSERT_TRUE(!!s);
	self->s = s;
	for (i = 0; i < MAX_CPUS; i++)
		s->r[i].fd = -1;
	RB_REQUIRE(return, rb_tp_close(&self->tp, why, sizeof(why)), why);
	if (variant->backward) {
		RB_NEED_BACKWARD(return);
		RB_NEED_PAUSE(return);
	}
}

FIXTURE_TEARDOWN(stress)
{
	int i;

	if (!self->s)
		return;
	for (i = 0; i < MAX_CPUS; i++)
		rb_ring_close(&self->s->r[i]);
	free(self->s);
}

TEST_F_TIMEOUT(stress, percpu_writers_with_reader, 90)
{
	double secs = rb_env_seconds("PERF_EVENTS_STRESS_SECONDS", 3.0 * rb_scale(), 0.5);
	struct stress *s = self->s;
	unsigned long issued = 0, samples = 0, lost = 0, lost_recs = 0, snaps = 0;
	unsigned long fresh = 0;
	__u64 count_sum = 0;
	pthread_t reader;
	int i, k;

	s->backward = variant->backward;
	s->ncpu = rb_cpus(s->cpus, MAX_CPUS);
	ASSERT_GT(s->ncpu, 0);
	if (s->ncpu < 2)
		ksft_print_msg("only %d CPU available: the writers share it\n", s->ncpu);
	s->nwriters = s->ncpu < 2 ? 2 : s->ncpu;

	for (i = 0; i < s->ncpu; i++) {
		char why[RB_WHY_LEN] = "";
		struct rb_opts o;

		rb_opts_init(&o, &self->tp);
		o.sample_type = stress_sample_type;
		o.backward = variant->backward;
		o.writable = !variant->backward;
		o.inherit = true;	/* the writer threads come later */
		o.enabled = true;
		o.cpu = s->cpus[i];
		o.data_pages = 16;
		o.wakeup_watermark = 16 * 4096 / 4;
		RB_REQUIRE(return, rb_ring_open(&s->r[i], &o, why, sizeof(why)), why);
		s->chk[i].cpu = s->cpus[i];
		s->chk[i].nwriters = s->nwriters;
		s->chk[i].w = s->w;
		s->chk[i].down = variant->backward;
		for (k = 0; k < MAX_WRITERS; k++) {
			s->chk[i].last[k] = -1;
			s->chk[i].snap_newest[k] = -1;
		}
	}

	/* Writers first: the reader checks tids, so they must be known. */
	s->stop = 0;
	for (k = 0; k < s->nwriters; k++) {
		s->w[k].id = k;
		s->w[k].cpu = s->cpus[k % s->ncpu];
		s->w[k].stop = &s->stop;
		s->w[k].gen = &s->gen;
		ASSERT_EQ(0, pthread_create(&s->w[k].thread, NULL, writer_main, &s->w[k]));
	}
	for (k = 0; k < s->nwriters; k++) {
		while (!__atomic_load_n(&s->w[k].started, __ATOMIC_ACQUIRE))
			sched_yield();
		ASSERT_EQ(1, s->w[k].started) TH_LOG("writer %d could not pin to cpu %d",
						     k, s->w[k].cpu);
	}
	ASSERT_EQ(0, pthread_create(&reader, NULL, reader_main, s));

	usleep((useconds_t)(secs * 1e6));
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	for (k = 0; k < s->nwriters; k++)
		pthread_join(s->w[k].thread, NULL);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	pthread_join(reader, NULL);

	if (s->failed)
		ksft_print_msg("%s\n", s->chk[s->failed - 1].err);
	ASSERT_EQ(0, s->failed);

	for (k = 0; k < s->nwriters; k++) {
		ASSERT_NE(0UL, s->w[k].issued);
		issued += s->w[k].issued;
	}
	for (i = 0; i < s->ncpu; i++) {
		__u64 count, l;

		ASSERT_EQ(0, rb_read_count(s->r[i].fd, &count, &l));
		count_sum += count;
		lost += l;
		samples += s->chk[i].samples;
		lost_recs += s->chk[i].lost_sum;
		snaps += s->chk[i].snapshots;
		fresh += s->chk[i].fresh;
		ksft_print_msg("cpu %d: %llu counted, %lu samples checked, %llu lost (LOST: %lu)\n",
			       s->cpus[i], (unsigned long long)count, s->chk[i].samples,
			       (unsigned long long)l, s->chk[i].lost_sum);
	}
	/* Every close() was counted, on the CPU its writer was pinned to. */
	ASSERT_EQ(issued, count_sum);
	/* Each LOST record was counted once; some may still wait to go out. */
	ASSERT_LE(lost_recs, lost);
	ASSERT_GT(samples, 0UL);
	ASSERT_LE(fresh, issued - lost);
	if (!variant->backward) {
		/* A streaming reader sees every record that was not lost. */
		ASSERT_EQ(issued, samples + lost);
		ksft_print_msg("forward writable, %d writers on %d CPUs for %.1f s:\n",
			       s->nwriters, s->ncpu, secs);
		ksft_print_msg("%lu issued = %lu read + %lu lost; every header valid,\n",
			       issued, samples, lost);
		ksft_print_msg("every cpu/tid right, seq rising per writer\n");
	} else {
		ASSERT_GT(snaps, 0UL);
		ksft_print_msg("backward overwrite, %d writers, %d CPUs, %.1f s: %lu issued,\n",
			       s->nwriters, s->ncpu, secs, issued);
		ksft_print_msg("%lu snapshots checked %lu records (%lu new), all whole,\n",
			       snaps, samples, fresh);
		ksft_print_msg("seq falling within each and the newest never going back;\n");
		ksft_print_msg("%lu lost while paused, %lu of them reported in LOST records\n",
			       lost, lost_recs);
	}
}

/* ---- inherited events in child processes ---- */

#define CHILDREN 4

struct child_check {
	int cpu;
	pid_t pid[CHILDREN];
	unsigned long m;
	unsigned char *seen[CHILDREN];	/* one byte per seq: how often seen */
	unsigned long samples;
	char err[RB_WHY_LEN];
};

static int check_child_record(const struct rb_rec *rec, void *ctx)
{
	struct child_check *c = ctx;
	unsigned long k, j;

	if (rec->type != RB_SAMPLE || !rec->has_seq) {
		snprintf(c->err, sizeof(c->err), "cpu %d: unexpected record type %u",
			 c->cpu, rec->type);
		return -EBADMSG;
	}
	k = rec->seq >> WRITER_SHIFT;
	j = rec->seq & WRITER_MASK;
	if (k >= CHILDREN || j >= c->m || rec->pid != (__u32)c->pid[k]) {
		snprintf(c->err, sizeof(c->err), "cpu %d: seq %#llx from pid %u fits no child",
			 c->cpu, (unsigned long long)rec->seq, rec->pid);
		return -EBADMSG;
	}
	if (c->seen[k][j]++) {
		snprintf(c->err, sizeof(c->err), "child %lu seq %lu seen twice", k, j);
		return -EILSEQ;
	}
	c->samples++;
	return 0;
}

FIXTURE(inherit) {
	struct rb_tp tp;
	struct rb_ring r[MAX_CPUS];
	int ncpu;
	int cpus[MAX_CPUS];
};

FIXTURE_SETUP(inherit)
{
	char why[RB_WHY_LEN] = "";
	int i;

	for (i = 0; i < MAX_CPUS; i++)
		self->r[i].fd = -1;
	RB_REQUIRE(return, rb_tp_close(&self->tp, why, sizeof(why)), why);
	self->ncpu = rb_cpus(self->cpus, MAX_CPUS);
	ASSERT_GT(self->ncpu, 0);
}

FIXTURE_TEARDOWN(inherit)
{
	int i;

	for (i = 0; i < MAX_CPUS; i++)
		rb_ring_close(&self->r[i]);
}

TEST_F_TIMEOUT(inherit, children_counted_exactly, 90)
{
	unsigned long m = rb_scaled(2000, 200), total = CHILDREN * m;
	struct child_check c = { .m = m };
	unsigned long samples = 0;
	unsigned int pages = 1;
	__u64 count_sum = 0, lost_sum = 0;
	int i, k, alive = CHILDREN, status;

	/* Each buffer can hold every record, so nothing may be lost. */
	while ((__u64)pages * 4096 < total * 64 + 4096 && pages < 256)
		pages *= 2;
	for (k = 0; k < CHILDREN; k++) {
		c.seen[k] = calloc(m, 1);
		ASSERT_TRUE(!!c.seen[k]);
	}
	for (i = 0; i < self->ncpu; i++) {
		char why[RB_WHY_LEN] = "";
		struct rb_opts o;

		rb_opts_init(&o, &self->tp);
		o.inherit = true;
		o.enabled = true;
		o.cpu = self->cpus[i];
		o.data_pages = pages;
		RB_REQUIRE(return, rb_ring_open(&self->r[i], &o, why, sizeof(why)), why);
	}

	for (k = 0; k < CHILDREN; k++) {
		pid_t pid = fork();

		ASSERT_GE(pid, 0);
		if (pid == 0) {
			rb_close_range((unsigned long)k << WRITER_SHIFT, m);
			_exit(0);
		}
		c.pid[k] = pid;
	}
	/* Drain while the children run, so the buffers never fill. */
	while (alive > 0) {
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid > 0) {
			ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
			alive--;
		} else if (pid == 0) {
			usleep(1000);
		}
		ASSERT_GE(pid, 0);
		for (i = 0; i < self->ncpu; i++) {
			__u64 head = rb_ring_head(&self->r[i]);
			long n;

			c.cpu = self->cpus[i];
			n = rb_walk_forward(&self->r[i], rb_ring_tail(&self->r[i]), head,
					    check_child_record, &c, c.err[0] ? NULL : c.err,
					    sizeof(c.err));
			ASSERT_GE(n, 0) TH_LOG("%s", c.err);
			rb_ring_set_tail(&self->r[i], head);
		}
	}
	for (i = 0; i < self->ncpu; i++) {
		__u64 count, lost;

		ASSERT_EQ(0, rb_disable(self->r[i].fd));
		ASSERT_EQ(0, rb_read_count(self->r[i].fd, &count, &lost));
		count_sum += count;
		lost_sum += lost;
	}
	samples = c.samples;
	for (k = 0; k < CHILDREN; k++) {
		unsigned long j;

		for (j = 0; j < m; j++)
			ASSERT_EQ(1, c.seen[k][j]) TH_LOG("child %d seq %lu", k, j);
		free(c.seen[k]);
	}
	ASSERT_EQ(0ULL, lost_sum);
	ASSERT_EQ(total, count_sum);
	ASSERT_EQ(total, samples);
	ksft_print_msg("%d children x %lu close() on %d per-CPU inherited events (%u pages):\n",
		       CHILDREN, m, self->ncpu, pages);
	ksft_print_msg("read() counts %llu, %lu samples, each (child, seq) once, 0 lost\n",
		       (unsigned long long)count_sum, samples);
}

TEST_HARNESS_MAIN
