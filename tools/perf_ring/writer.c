// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <liburing.h>
#include <linux/perf_event.h>

#include "perfdata.h"
#include "prio.h"
#include "writer.h"

struct wslot {
	char *buf;		/* own buffer (compressed output) */
	size_t cap;
	char *data;		/* what is being written */
	size_t len;
	u64 off;
	struct chunk *chunk;	/* chunk to give back when done (plain) */
	bool busy;
	bool last;		/* the file's last chunk, by hand: the tail goes with it */
};

struct writer {
	int fd;
	u64 start, off;		/* data section start, next write offset */
	struct writer_opts o;
	pthread_t thr;		/* from writer_start() to writer_free(); none in_caller */
	pthread_mutex_t mu;
	/*
	 * One waiter on each: the thread waits on work for a chunk queued,
	 * finishing, go or quit; the reader on room for a free chunk, an
	 * error or done.  Woken only when it is for them, neither wakes
	 * the other for nothing (a system call each, and the recorder's own
	 * syscalls are recorded with -a).
	 */
	pthread_cond_t work, room;
	struct chunk *chunks;
	struct chunk *free_list, *q_head, *q_tail;
	/* every chunk's buffer, and every slot's, in one mapping each (writer_trim()) */
	char *chunk_mem, *slot_mem;
	size_t chunk_mem_len, slot_mem_len;
	/*
	 * One file: finishing asks the thread to write what is queued and
	 * end, done says it has.  Then it waits for the next file (go,
	 * writer_restart()) or to stop (quit, writer_free()).
	 */
	bool finishing, done, go, quit;
	struct compressor comp;
	void *uring;		/* struct io_uring */
	bool use_uring;
	/*
	 * in_caller, the file's last chunk was put (writer_put_last()):
	 * the caller waits for what is written from then on, which is
	 * written by hand rather than handed to io_uring and waited for.
	 */
	bool last;
	/* the file's header, written with the first data (writer_set_head()) */
	const char *head;
	size_t head_len;
	/* what follows the data, written with the last chunk (writer_set_tail()) */
	const char *tail;
	size_t tail_len;
	bool tail_done;
	char uring_err[96];	/* why io_uring is not used */
	struct wslot *slots;
	int nslots, inflight;
	int err;		/* first error, negative errno */
	u64 err_off;		/* file offset of the first failed write */
	u64 raw_bytes, out_bytes, nwrites;
	u64 retries;			/* writes done again by hand (slot_done()) */
	u64 get_wait_ns, comp_ns, write_ns;	/* for -v */
	u64 *cuts;		/* data offsets the data may end at, rising (add_cut()) */
	size_t ncuts, cap_cuts;
};

static void give_back(struct writer *w, struct chunk *c)
{
	pthread_mutex_lock(&w->mu);
	c->len = 0;
	c->out_lo = c->out_hi = 0;
	c->next = w->free_list;
	w->free_list = c;
	pthread_cond_signal(&w->room);
	pthread_mutex_unlock(&w->mu);
}

static void set_err(struct writer *w, int err, u64 off)
{
	pthread_mutex_lock(&w->mu);
	if (!w->err || off < w->err_off) {
		if (!w->err)
			w->err = err;
		w->err_off = off;
	}
	pthread_cond_signal(&w->room);
	pthread_mutex_unlock(&w->mu);
}

/* the user_data of a queue entry turned into a no-op (submit()) */
#define NOP_DATA (~0ULL)

static bool transient(int res)
{
	return res == -ECANCELED || res == -EAGAIN || res == -ENOMEM || res == -EINTR;
}

/*
 * By hand: len bytes of data at off, after the header while that waits
 * for the first data (writer_set_head()), and before the tail when this
 * is the file's last chunk (writer_set_tail()): one pwritev().  The tail
 * is not data: when the write fails, header and data are written again
 * without it, and only their failure is the writer's; the tail is then
 * left to the file's end (a full disk: the data cut back to make room,
 * out-file.c).  A transient failure (slot_done()) is first done again
 * whole (again: this is that second time).
 */
static int write_parts(struct writer *w, const char *data, size_t len, u64 off, bool last,
		       bool again)
{
	struct iovec iov[3];
	bool tail = last && w->tail_len;
	int n = 0, err;

	if (w->head_len)
		iov[n++] = (struct iovec){ (void *)w->head, w->head_len };
	iov[n++] = (struct iovec){ (void *)data, len };
	if (tail)
		iov[n++] = (struct iovec){ (void *)w->tail, w->tail_len };
	err = pwritev_full(w->fd, iov, n, off - w->head_len);
	if (!err && tail)
		w->tail_done = true;
	else if (err && tail && (again || !transient(err)))
		err = pwritev_full(w->fd, iov, n - 1, off - w->head_len);
	return err;
}

static void slot_done(struct writer *w, struct wslot *s, int res)
{
	/*
	 * io_uring answers ECANCELED when it could not start a worker for the
	 * write (the kernel failed to create the thread), EAGAIN or ENOMEM
	 * when it could not allocate for it; a write(2) to tmpfs answers
	 * ENOMEM when a page could not be had.  None says the file is bad:
	 * the write is done once more by hand, and only an error then stops
	 * the writer.  Not on a pipe, where part of it may have gone out.
	 * The header that went with the first data (submit()) goes again
	 * with it.
	 */
	if (transient(res) && !w->o.stream) {
		w->retries++;
		res = write_parts(w, s->data, s->len, s->off, s->last, true) ?: (int)s->len;
	}
	if (res < 0) {
		set_err(w, res, s->off);
	} else if ((size_t)res < s->len) {
		/* short write: finish it synchronously */
		int err = pwrite_full(w->fd, s->data + res, s->len - res, s->off + res);

		if (err)
			set_err(w, err, s->off);
	}
	if (s->chunk)
		give_back(w, s->chunk);
	s->chunk = NULL;
	s->busy = false;
	w->inflight--;
}

static void reap(struct writer *w, bool wait)
{
	struct io_uring *ring = w->uring;
	struct io_uring_cqe *cqe;

	while (w->inflight) {
		int ret = wait ? io_uring_wait_cqe(ring, &cqe) : io_uring_peek_cqe(ring, &cqe);

		if (ret == -EINTR)
			continue;
		if (ret)
			break;
		if (cqe->user_data == NOP_DATA) {
			io_uring_cqe_seen(ring, cqe);
			continue;	/* not a write: still waiting if we were */
		}
		slot_done(w, &w->slots[cqe->user_data], cqe->res);
		io_uring_cqe_seen(ring, cqe);
		wait = false;
	}
}

static struct wslot *get_slot(struct writer *w)
{
	for (;;) {
		for (int i = 0; i < w->nslots; i++)
			if (!w->slots[i].busy)
				return &w->slots[i];
		reap(w, true);
	}
}

/*
 * The cuts a file keeps: a recording that runs for hours makes millions,
 * and the list must not grow with them.  A write fails, and a cut back
 * starts, at the newest writes (those in flight: at most 2 cuts each, of
 * up to 256 slots), so the newer half is kept exact; a cut back for room
 * for the feature sections walks back from there.  The older half is
 * thinned to every other cut, the oldest kept: each thinning doubles the
 * spacing of the oldest cuts, which only makes a long walk back coarser.
 */
#define CUTS_MAX 16384

static void thin_cuts(struct writer *w)
{
	size_t half = w->ncuts / 2, k = 0;

	for (size_t i = 0; i < half; i += 2)
		w->cuts[k++] = w->cuts[i];
	memmove(w->cuts + k, w->cuts + half, (w->ncuts - half) * sizeof(*w->cuts));
	w->ncuts = k + w->ncuts - half;
}

/*
 * off (from the data start) is a place where the data may end: every
 * record before it is whole, in the file and, compressed, in the
 * decompressed stream.  A cut that cannot be noted (no memory) only
 * makes a cut back go further back.
 */
static void add_cut(struct writer *w, u64 off)
{
	if (w->ncuts && w->cuts[w->ncuts - 1] >= off)
		return;
	if (w->ncuts == CUTS_MAX)
		thin_cuts(w);
	if (w->ncuts == w->cap_cuts) {
		size_t cap = w->cap_cuts ? w->cap_cuts * 2 : 1024;
		u64 *n = realloc(w->cuts, cap * sizeof(*n));

		if (!n)
			return;
		w->cuts = n;
		w->cap_cuts = cap;
	}
	w->cuts[w->ncuts++] = off;
}

/* The last cut at or below size (0, the data start, is always one). */
static u64 cut_at_or_before(const struct writer *w, u64 size)
{
	u64 b = 0;

	for (size_t i = 0; i < w->ncuts && w->cuts[i] <= size; i++)
		b = w->cuts[i];
	return b;
}

/* The header alone (writer_set_head()), before the data: 0 or -errno. */
static int write_head(struct writer *w)
{
	u64 off = w->start - w->head_len;
	int err = pwrite_full(w->fd, w->head, w->head_len, off);

	/* as slot_done(): once more by hand */
	if (transient(err)) {
		w->retries++;
		err = pwrite_full(w->fd, w->head, w->head_len, off);
	}
	w->head_len = 0;
	return err;
}

static void submit(struct writer *w, struct wslot *s, char *data, size_t len,
		   struct chunk *c)
{
	s->data = data;
	s->len = len;
	s->off = w->off;
	s->chunk = c;
	s->busy = true;
	s->last = w->last && !w->o.level;
	w->inflight++;
	w->off += len;
	__atomic_store_n(&w->out_bytes, w->out_bytes + len, __ATOMIC_RELAXED);	/* read by writer_out_bytes() */
	w->nwrites++;
	/* handed to io_uring: the header, if it waits for the first data, by hand first */
	if (w->use_uring && !w->last && w->head_len) {
		int err = write_head(w);

		if (err) {
			/* nothing after the header's place is kept: the data is not written */
			set_err(w, err, w->start);
			slot_done(w, s, (int)len);
			return;
		}
	}
	if (w->use_uring && !w->last) {
		struct io_uring *ring = w->uring;
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (!sqe) {
			reap(w, true);
			sqe = io_uring_get_sqe(ring);
		}
		if (sqe) {
			io_uring_prep_write(sqe, w->fd, data, len, s->off);
			io_uring_sqe_set_data64(sqe, s - w->slots);
			if (io_uring_submit(ring) >= 1)
				return;
			/*
			 * Not taken: the kernel could not allocate for it
			 * (EAGAIN, ENOMEM).  The entry stays in the queue and
			 * would go with the next submit, writing a chunk given
			 * back by then, to an fd that may name another file by
			 * then.  It becomes a no-op whose completion is
			 * dropped (reap()), and the write is done by hand.
			 */
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data64(sqe, NOP_DATA);
		}
		/* could not queue: do it by hand */
	}
	{
		u64 t0 = now_ns();
		int ret;

		if (w->o.stream)
			ret = write_full(w->fd, data, len);
		else
			ret = write_parts(w, data, len, s->off, s->last, false);
		w->write_ns += now_ns() - t0;
		slot_done(w, s, ret ?: (int)len);
		w->head_len = 0;
	}
}

/*
 * Records written outside the compressed stream, as they are: the data
 * before one is flushed, then the record is copied.  FINISHED_ROUND, as
 * perf writes it, and LOST.  At zstd's fastest levels the match finder
 * follows a stream of similar samples with a repeat offset of one period
 * of them.  A record that breaks the pattern makes it take a match from
 * far back, and it may keep that far offset as its repeat offset for the
 * rest of the stream, which costs about a byte per sample (the timestamps
 * differ from a far sample in one more byte).  On the close(-1) loop, LOST
 * records inside the stream made lossy recordings 7-13% larger per
 * sample; each FINISHED_ROUND inside it cost about a kilobyte.  Both are
 * rare (one per pass over the buffers, one per overflow of a buffer), and
 * outside the stream each costs its own size and a flush, about 20 bytes.
 */
static long compress_chunk(struct writer *w, const struct chunk *c, char *dst, size_t cap,
			   size_t *clean)
{
	const char *src = c->buf;
	size_t pos = c->out_lo, seg = 0, out = 0, len = c->len;
	size_t walk_end = c->out_hi < len ? c->out_hi : len;
	long n;

	/* records are walked only where one to take out may be */
	if (!c->out_hi)
		walk_end = pos = len;
	while (pos < walk_end) {
		struct perf_event_header h;

		memcpy(&h, src + pos, sizeof(h));
		if (h.size < sizeof(h) || pos + h.size > len)
			return -EBADMSG;
		if (writer_outside_stream(h.type)) {
			if (pos > seg) {
				n = comp_records(&w->comp, src + seg, pos - seg, dst + out,
						 cap - out, false);
				if (n < 0)
					return n;
				out += n;
			}
			n = comp_flush(&w->comp, dst + out, cap - out);
			if (n < 0)
				return n;
			out += n;
			if (cap - out < h.size)
				return -ENOBUFS;
			memcpy(dst + out, src + pos, h.size);
			out += h.size;
			seg = pos + h.size;
			*clean = out;	/* nothing held back: a cut (add_cut()) */
		}
		pos += h.size;
	}
	if (len > seg) {
		n = comp_records(&w->comp, src + seg, len - seg, dst + out, cap - out, false);
		if (n < 0)
			return n;
		out += n;
	}
	return out;
}

static void write_chunk(struct writer *w, struct chunk *c, bool end)
{
	struct wslot *s;

	if (w->err) {
		if (c)
			give_back(w, c);
		return;
	}
	s = get_slot(w);
	/*
	 * Where the data may be cut (a full disk, room for the features).
	 * Plain, a write holds whole records.  Compressed, the units are
	 * cut regardless of records: the decompressed stream is whole only
	 * where the compressor holds nothing back, at the start of a write
	 * that follows a flush, and after a record written outside the
	 * stream (compress_chunk()), as FINISHED_ROUND is every round.
	 */
	if (!w->o.level || w->comp.len == w->comp.done)
		add_cut(w, w->off - w->start);
	if (w->o.level) {
		static const struct perf_event_header fr = {
			.type = PF_RECORD_FINISHED_ROUND, .size = sizeof(fr),
		};
		long n = 0;
		u64 t0 = now_ns();

		if (c) {
			size_t clean = 0;

			n = compress_chunk(w, c, s->buf, s->cap, &clean);
			w->raw_bytes += c->len;
			give_back(w, c);
			if (n > 0 && clean)
				add_cut(w, w->off - w->start + clean);
		} else if (w->comp.in_frame) {
			/* the frame ends with a FINISHED_ROUND inside it */
			n = comp_records(&w->comp, &fr, sizeof(fr), s->buf, s->cap, end);
			w->raw_bytes += sizeof(fr);
		} else {
			/* the arena's last unit ended the frame: the round as it is */
			memcpy(s->buf, &fr, sizeof(fr));
			n = sizeof(fr);
			w->raw_bytes += sizeof(fr);
		}
		w->comp_ns += now_ns() - t0;
		if (n < 0) {
			set_err(w, (int)n, w->off);
			return;
		}
		if (n)
			submit(w, s, s->buf, n, NULL);
	} else if (c) {
		w->raw_bytes += c->len;
		if (c->len)
			submit(w, s, c->buf, c->len, c);
		else
			give_back(w, c);
	}
}

/*
 * The file's end, everything queued written: with round, a last
 * FINISHED_ROUND, which closes the zstd frame or follows it when the
 * frame is closed already; every write in flight complete.
 */
static void end_file(struct writer *w, bool round)
{
	if (round && w->o.level && w->comp.in_bytes)
		write_chunk(w, NULL, true);
	if (w->head_len && !w->err) {
		/* no data: the header alone */
		int err = write_head(w);

		if (err)
			set_err(w, err, w->start);
	}
	if (w->use_uring)
		while (w->inflight)
			reap(w, true);
}

/* One file's data, from writer_start() or writer_restart() to writer_finish(). */
static void write_file(struct writer *w)
{
	bool quit = false;

	for (;;) {
		struct chunk *c;

		pthread_mutex_lock(&w->mu);
		if (!w->q_head && !w->finishing && w->inflight) {
			/* nothing new: complete writes, which frees chunks */
			pthread_mutex_unlock(&w->mu);
			reap(w, true);
			continue;
		}
		while (!w->q_head && !w->finishing)
			pthread_cond_wait(&w->work, &w->mu);
		quit = w->quit;
		c = quit ? NULL : w->q_head;
		if (c) {
			w->q_head = c->next;
			if (!w->q_head)
				w->q_tail = NULL;
		}
		pthread_mutex_unlock(&w->mu);
		if (!c)
			break;	/* finishing and nothing queued, or quitting */
		write_chunk(w, c, false);
		if (w->use_uring)
			reap(w, false);
	}
	end_file(w, !quit);
}

/*
 * The thread stays from one file to the next: a stream whose files
 * switch (--switch-output) starts one thread for all of them.
 */
static void *writer_main(void *arg)
{
	struct writer *w = arg;

	/* not ahead of the command, as the reader that created it is */
	prio_worker();
	for (;;) {
		write_file(w);
		pthread_mutex_lock(&w->mu);
		w->done = true;
		pthread_cond_signal(&w->room);
		/* woken by the next file's first chunk or its end, not its start */
		while (!(w->go && (w->q_head || w->finishing)) && !w->quit)
			pthread_cond_wait(&w->work, &w->mu);
		w->go = false;
		if (w->quit) {
			pthread_mutex_unlock(&w->mu);
			return NULL;
		}
		pthread_mutex_unlock(&w->mu);
	}
}

/*
 * What writer_start() took, whether it got all of it or stopped half-way
 * (w was zeroed first: a buffer not taken is NULL).
 */
static void free_buffers(struct writer *w)
{
	if (w->uring) {
		io_uring_queue_exit(w->uring);
		free(w->uring);
		w->uring = NULL;
	}
	comp_free(&w->comp);
	pages_free(w->slot_mem, w->slot_mem_len);
	free(w->slots);
	pages_free(w->chunk_mem, w->chunk_mem_len);
	free(w->chunks);
	w->slots = NULL;
	w->chunks = NULL;
	w->slot_mem = w->chunk_mem = NULL;
}

int writer_start(struct writer **wp, int fd, u64 start, const struct writer_opts *o)
{
	struct writer *w = calloc(1, sizeof(*w));
	int err;

	*wp = NULL;
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->start = w->off = start;
	w->o = *o;
	if (o->stream)
		w->o.aio = 0;	/* io_uring writes at offsets */
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->room, NULL);
	err = -ENOMEM;
	w->chunks = calloc(o->nchunks, sizeof(*w->chunks));
	w->chunk_mem_len = (size_t)o->nchunks * o->chunk_size;
	w->chunk_mem = pages_alloc(w->chunk_mem_len);
	if (!w->chunks || !w->chunk_mem)
		goto fail;
	/*
	 * The queue takes a chunk more each time the writer falls further
	 * behind than ever (load on the machine): over a long recording the
	 * RSS would step up a chunk at a time, to all of them.  A recording
	 * whose files switch runs long: it takes them all now, as the memory
	 * check counted them (output.c).
	 */
	if (o->touch)
		memset(w->chunk_mem, 0, w->chunk_mem_len);
	for (int i = 0; i < o->nchunks; i++) {
		w->chunks[i].buf = w->chunk_mem + (size_t)i * o->chunk_size;
		w->chunks[i].cap = o->chunk_size;
		w->chunks[i].next = w->free_list;
		w->free_list = &w->chunks[i];
	}
	w->nslots = w->o.aio > 0 ? w->o.aio : 1;
	w->slots = calloc(w->nslots, sizeof(*w->slots));
	if (!w->slots)
		goto fail;
	if (o->level) {
		err = comp_init(&w->comp, o->level);
		if (err)
			goto fail;
		if (o->touch)
			comp_touch(&w->comp);
		err = -ENOMEM;
		w->slot_mem_len = (size_t)w->nslots * comp_bound(o->chunk_size);
		w->slot_mem = pages_alloc(w->slot_mem_len);
		if (!w->slot_mem)
			goto fail;
		for (int i = 0; i < w->nslots; i++) {
			w->slots[i].cap = comp_bound(o->chunk_size);
			w->slots[i].buf = w->slot_mem + i * w->slots[i].cap;
		}
	}
	if (w->o.aio > 0) {
		struct io_uring *ring = calloc(1, sizeof(*ring));

		err = -ENOMEM;
		if (!ring)
			goto fail;
		err = io_uring_queue_init(w->o.aio * 2, ring, 0);
		if (err) {
			snprintf(w->uring_err, sizeof(w->uring_err),
				 "io_uring_setup: %s", strerror(-err));
			free(ring);
		} else {
			w->uring = ring;
			w->use_uring = true;
		}
	}
	if (!o->in_caller) {
		err = thread_create(&w->thr, writer_main, w);
		if (err) {
			err = -err;
			goto fail;
		}
	}
	*wp = w;
	return 0;

fail:
	free_buffers(w);
	free(w);
	return err;
}

int writer_restart(struct writer *w, int fd, u64 start)
{
	int err;

	/*
	 * The buffers as writer_start() left them, and the counts at zero;
	 * the thread waits in writer_main() and sees them after the lock.
	 */
	pthread_mutex_lock(&w->mu);
	w->fd = fd;
	w->start = w->off = start;
	w->free_list = w->q_head = w->q_tail = NULL;
	for (int i = 0; i < w->o.nchunks; i++) {
		w->chunks[i].len = 0;
		w->chunks[i].out_lo = w->chunks[i].out_hi = 0;
		w->chunks[i].next = w->free_list;
		w->free_list = &w->chunks[i];
	}
	for (int i = 0; i < w->nslots; i++) {
		w->slots[i].chunk = NULL;
		w->slots[i].busy = false;
	}
	w->inflight = 0;
	w->finishing = w->done = w->last = false;
	w->head_len = w->tail_len = 0;
	w->tail_done = false;
	w->err = 0;
	w->err_off = 0;
	w->raw_bytes = w->out_bytes = w->nwrites = w->retries = 0;
	w->get_wait_ns = w->comp_ns = w->write_ns = 0;
	w->ncuts = 0;
	err = w->o.level ? comp_reset(&w->comp) : 0;
	if (err) {
		w->done = true;	/* as after writer_finish() */
	} else {
		w->go = true;	/* the thread wakes at writer_put() or writer_finish() */
	}
	pthread_mutex_unlock(&w->mu);
	return err;
}

void writer_trim(struct writer *w)
{
	pages_drop(w->chunk_mem, w->chunk_mem_len);
	pages_drop(w->slot_mem, w->slot_mem_len);
	if (w->o.level)
		comp_drop(&w->comp);
}

struct chunk *writer_get(struct writer *w)
{
	struct chunk *c;
	u64 t0 = now_ns();

	pthread_mutex_lock(&w->mu);
	while (!w->free_list && !w->err) {
		if (w->o.in_caller) {
			/*
			 * A chunk not free is in flight, or the caller's: with
			 * none in flight, none will come back
			 */
			if (!w->inflight) {
				pthread_mutex_unlock(&w->mu);
				return NULL;
			}
			pthread_mutex_unlock(&w->mu);
			reap(w, true);
			pthread_mutex_lock(&w->mu);
			continue;
		}
		pthread_cond_wait(&w->room, &w->mu);
	}
	w->get_wait_ns += now_ns() - t0;
	c = w->err ? NULL : w->free_list;
	if (c) {
		w->free_list = c->next;
		c->len = 0;
		c->out_lo = c->out_hi = 0;
		c->next = NULL;
	}
	pthread_mutex_unlock(&w->mu);
	return c;
}

void writer_put(struct writer *w, struct chunk *c)
{
	if (w->o.in_caller) {
		write_chunk(w, c, false);
		if (w->use_uring)
			reap(w, false);
		return;
	}
	pthread_mutex_lock(&w->mu);
	c->next = NULL;
	if (w->q_tail)
		w->q_tail->next = c;
	else
		w->q_head = c;
	w->q_tail = c;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->mu);
}

void writer_set_head(struct writer *w, const void *head, size_t len)
{
	w->head = head;
	w->head_len = len;
}

bool writer_head_pending(const struct writer *w)
{
	return w->head_len != 0;
}

u64 writer_size_with(const struct writer *w, const struct chunk *c)
{
	if (!w->o.in_caller || w->o.level || w->o.stream || w->last ||
	    __atomic_load_n(&w->err, __ATOMIC_RELAXED))
		return 0;
	return w->off - w->start + c->len;
}

void writer_set_tail(struct writer *w, const void *tail, size_t len)
{
	w->tail = tail;
	w->tail_len = len;
}

bool writer_tail_written(const struct writer *w)
{
	return w->tail_done;
}

void writer_put_last(struct writer *w, struct chunk *c)
{
	if (w->o.in_caller)
		w->last = true;
	writer_put(w, c);
}

void writer_release(struct writer *w, struct chunk *c)
{
	give_back(w, c);
}

bool writer_failed(struct writer *w)
{
	return __atomic_load_n(&w->err, __ATOMIC_RELAXED) != 0;
}

int writer_finish(struct writer *w, u64 *data_size)
{
	if (w->o.in_caller) {
		end_file(w, true);
		w->done = true;
	}
	pthread_mutex_lock(&w->mu);
	w->finishing = true;
	pthread_cond_signal(&w->work);
	while (!w->done)
		pthread_cond_wait(&w->room, &w->mu);
	pthread_mutex_unlock(&w->mu);

	/* on an error, what is on file before the failed write, cut whole */
	*data_size = w->err ? cut_at_or_before(w, w->err_off - w->start) : w->off - w->start;
	return w->err;
}

const char *writer_kind(const struct writer *w)
{
	if (w->use_uring)
		return "io_uring";
	if (w->o.aio > 0)
		return "write(2), io_uring unavailable";
	return "write(2)";
}

const char *writer_uring_err(const struct writer *w)
{
	return w->uring_err;
}

void writer_get_stats(const struct writer *w, struct writer_stats *s)
{
	*s = (struct writer_stats){
		.raw_bytes = w->raw_bytes, .out_bytes = w->out_bytes,
		.nwrites = w->nwrites, .retries = w->retries, .ncuts = w->ncuts,
		.get_wait_ns = w->get_wait_ns, .comp_ns = w->comp_ns, .write_ns = w->write_ns,
	};
}

u64 writer_out_bytes(const struct writer *w)
{
	return __atomic_load_n(&w->out_bytes, __ATOMIC_RELAXED);
}

u64 writer_boundary_before(const struct writer *w, u64 size)
{
	return size ? cut_at_or_before(w, size - 1) : 0;
}

void writer_free(struct writer *w)
{
	if (!w)
		return;
	/*
	 * Freed before writer_finish() (a failure on the way): what is
	 * queued is not written, what is in flight completes before its
	 * buffers go
	 */
	pthread_mutex_lock(&w->mu);
	w->finishing = w->quit = true;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->mu);
	if (!w->o.in_caller)
		pthread_join(w->thr, NULL);
	else if (w->use_uring)
		while (w->inflight)
			reap(w, true);
	free_buffers(w);
	free(w->cuts);
	free(w);
}
