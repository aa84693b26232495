// SPDX-License-Identifier: GPL-2.0
/*
 * Ring buffer reader.
 *
 * Forward (streaming): the kernel publishes data_head after writing a
 * record; we load it with acquire semantics, copy [data_tail, data_head),
 * then store data_tail with release semantics so the kernel does not reuse
 * the space before our copy is done.
 *
 * Backward (flight recorder, read-only mapping): data_head always points
 * at the start of the newest complete record and moves down; older records
 * follow it upward.  The kernel never waits for us, so whatever we copy
 * may be overwritten while we copy it; ring_bwd_valid() works out which
 * part of the copy can still be trusted.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "counts.h"
#include "recsize.h"
#include "ring.h"

int ring_map(struct ring *r, int fd, u64 data_size, bool backward, int cpu)
{
	long pg = sysconf(_SC_PAGESIZE);
	int prot = PROT_READ | (backward ? 0 : PROT_WRITE);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->size = data_size;
	r->backward = backward;
	r->cpu = cpu;
	r->map_len = data_size + pg;
	r->base = mmap(NULL, r->map_len, prot, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->pg = r->base;
	r->data = (char *)r->base + pg;
	return 0;
}

void ring_set_margin(struct ring *r, u64 margin)
{
	r->margin = margin;
}

void ring_revents(struct ring *r, short revents)
{
	if (revents & POLLHUP)
		r->hup = true;
}

u64 ring_pow2_kb(u64 bytes)
{
	u64 kb = 4;

	while (kb << 10 < bytes)
		kb <<= 1;
	return kb;
}

void ring_unmap(struct ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
}

long ring_fwd_copy_img(const char *data, u64 size, u64 tail, u64 head,
		       char *dst, size_t dstlen, u64 *new_tail)
{
	u64 avail = ring_dist(head, tail), n = avail < dstlen ? avail : dstlen;
	u64 off = tail & (size - 1), first = size - off, pos = 0;

	/* one or two bulk copies, then find the last whole record in them */
	if (first >= n) {
		memcpy(dst, data + off, n);
	} else {
		memcpy(dst, data + off, first);
		memcpy(dst + first, data, n - first);
	}
	while (pos + sizeof(struct perf_event_header) <= n) {
		struct perf_event_header h;

		memcpy(&h, dst + pos, sizeof(h));
		if (h.size < sizeof(h) || pos + h.size > avail)
			return -EBADMSG;
		if (pos + h.size > n)
			break;		/* does not fit in dst */
		pos += h.size;
	}
	if (pos == n && n < avail && avail - n < sizeof(struct perf_event_header))
		return -EBADMSG;
	if (n == avail && pos != n)
		return -EBADMSG;	/* published data ends inside a record */
	/* a 32-bit kernel's positions stay below 2^32 (see ring_dist()) */
	*new_tail = (head | tail) >> 32 ? tail + pos : (u32)(tail + pos);
	return pos;
}

long ring_fwd_read(struct ring *r, char *dst, size_t dstlen)
{
	u64 head = ring_head(r), tail = r->pg->data_tail, nt;
	long n;

	if (head == tail)
		return 0;
	n = ring_fwd_copy_img(r->data, r->size, tail, head, dst, dstlen, &nt);
	if (n < 0)
		return n;
	__atomic_store_n(&r->pg->data_tail, nt, __ATOMIC_RELEASE);
	return n;
}

long ring_fwd_read_unwalked(struct ring *r, char *dst, size_t dstlen)
{
	u64 head = ring_head(r), tail = r->pg->data_tail, avail = ring_dist(head, tail);
	u64 off = tail & (r->size - 1), first = r->size - off;

	if (!avail || avail > dstlen)
		return avail ? ring_fwd_read(r, dst, dstlen) : 0;
	if (first >= avail) {
		memcpy(dst, r->data + off, avail);
	} else {
		memcpy(dst, r->data + off, first);
		memcpy(dst + first, r->data, avail - first);
	}
	/* all up to head is read: the kernel may write there again */
	__atomic_store_n(&r->pg->data_tail, head, __ATOMIC_RELEASE);
	return avail;
}

u64 ring_bwd_valid(u64 size, u64 h1, u64 h2, u64 margin)
{
	u64 written = ring_dist(0, h1);	/* head starts at 0 and moves down */
	u64 moved = ring_dist(h1, h2);	/* published while we copied */
	u64 valid = written < size ? written : size;

	/*
	 * Writes during the copy landed in [h2, h1), which is the top end
	 * of our copy [h1, h1 + size).  A record reserved but not yet
	 * published may sit just below h2: margin covers it.
	 */
	if (moved >= size || moved + margin >= size)
		return 0;
	if (valid > size - moved - margin)
		valid = size - moved - margin;
	return valid;
}

u64 ring_bwd_overwritten_est(u64 written, u64 kept, double seen, double n)
{
	if (seen <= 0 || n <= 0 || written <= kept)
		return 0;
	return (u64)((double)(written - kept) * (n / seen) + 0.5);
}

void ring_copy_rotated(const char *data, u64 size, u64 head, char *lin)
{
	u64 off = head & (size - 1), n = ring_dist(0, head);

	/*
	 * Before the head has gone round once, only [head, 0) was ever
	 * written, the first n bytes of the image: the rest is not read, nor
	 * faulted in (a quiet CPU's buffer is mostly that).
	 */
	if (n > size)
		n = size;
	if (n <= size - off) {
		memcpy(lin, data + off, n);
		return;
	}
	memcpy(lin, data + off, size - off);
	memcpy(lin + (size - off), data, n - (size - off));
}

long ring_bwd_extract_img(const char *img, u64 valid, char *dst, size_t dstlen,
			  struct bwd_snap *s)
{
	u64 pos = 0, nrec = 0, end;

	s->stop_torn = false;
	/* First pass: find how many whole records lie inside valid. */
	while (pos + sizeof(struct perf_event_header) <= valid) {
		struct perf_event_header h;

		memcpy(&h, img + pos, sizeof(h));
		if (h.size == 0)
			break;			/* never written */
		if (h.size < sizeof(h) || (h.size & 7))
			break;			/* torn: garbage header */
		if (pos + h.size > valid) {
			s->stop_torn = true;
			break;
		}
		pos += h.size;
		nrec++;
	}
	end = pos;
	/* Trim the oldest records if dst is too small. */
	while (end > dstlen) {
		struct perf_event_header h;
		u64 p = 0, last = 0;

		/* drop the last (oldest) record */
		while (p < end) {
			memcpy(&h, img + p, sizeof(h));
			last = p;
			p += h.size;
		}
		end = last;
		nrec--;
	}
	/*
	 * Second pass: emit oldest first, one reservation at a time.  The
	 * kernel reserves a PERF_RECORD_LOST together with the record it
	 * comes with, in one piece, the LOST at the lower address
	 * (__perf_output_begin()): so the walk meets the LOST first, but it
	 * reports what was lost before that record, and its sample_id time
	 * is the record's.  Moving the pair as one piece keeps the LOST in
	 * front of its record, where it belongs in time order.  A LOST whose
	 * record is not kept (cut off at the oldest end) goes alone.
	 */
	{
		u64 out = end;

		pos = 0;
		while (pos < end) {
			u64 len = 0;

			for (;;) {
				struct perf_event_header h;

				memcpy(&h, img + pos + len, sizeof(h));
				len += h.size;
				if (h.type != PERF_RECORD_LOST || pos + len >= end)
					break;
			}
			out -= len;
			memcpy(dst + out, img + pos, len);
			pos += len;
		}
	}
	s->nrec = nrec;
	s->bytes = end;
	return end;
}

#ifndef PERF_EVENT_IOC_PAUSE_OUTPUT
#define PERF_EVENT_IOC_PAUSE_OUTPUT _IOW('$', 9, __u32)
#endif

/*
 * The backward copy's ordering, beside the kernel's (perf_output_put_handle()
 * and __perf_output_begin() in kernel/events/ring_buffer.c):
 *
 *   kernel: the CPU's writers             perf-ring, on another CPU
 *
 *   reserve: rb->head -= size             h1 = LOAD-ACQUIRE ->data_head  (C)
 *   STORE $data at the new head           LOAD $data: copy [h1, h1 + size)
 *   smp_wmb()                    (B)      full fence                     (D)
 *   STORE ->data_head                     h2 = LOAD-ACQUIRE ->data_head
 *
 * (C) pairs with (B), as when reading forward: a record at or above h1 was
 * stored before ->data_head said h1, so the copy's loads see it whole.
 *
 * (A), the kernel's control dependency on ->data_tail, does not exist for
 * an overwrite buffer: the kernel reads nothing the reader writes, and
 * writes on over the bytes being copied.  So (D) pairs with no kernel
 * barrier; it orders the reader's own loads: every byte of the copy is
 * loaded before h2 is.  A record stored during the copy is then either
 * published by h2 (the head moved down by h1 - h2) or reserved and not yet
 * published, at most margin bytes below h2 (recsize_margin(): one record
 * per nesting level).  Those writes land just below h1, which in a
 * wrapped buffer is the top, oldest, end of the copy: ring_bwd_valid()
 * distrusts its last h1 - h2 + margin bytes.
 *
 * That last step takes the writers' stores to become visible in program
 * order across records, as on x86 (TSO): the kernel has no barrier between
 * one record's ->data_head store and the next record's data stores.
 */
long ring_bwd_snapshot(struct ring *r, char *scratch, char *dst, size_t dstlen,
		       bool pause, u64 head, struct bwd_snap *s)
{
	u64 h1, h2, margin, valid;
	long n;

	if (pause && ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1))
		return -errno;
	for (int tries = 0;; tries++) {
		/*
		 * What writers may hold reserved and unpublished just below
		 * h2, from the largest record the events can write (never
		 * cut down: that would let a record being written through)
		 */
		margin = r->margin ? r->margin : recsize_margin(RECSIZE_MAX, 0);
		h1 = tries || head == RING_HEAD_NOW ? ring_head(r) : head;	/* (C) */
		ring_copy_rotated(r->data, r->size, h1, scratch);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);			/* (D) */
		h2 = ring_head(r);
		valid = ring_bwd_valid(r->size, h1, h2, margin);
		if (valid || h1 == 0 || tries >= 8)
			break;
	}
	if (pause)
		ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
	n = ring_bwd_extract_img(scratch, valid, dst, dstlen, s);
	s->head = h1;
	return n;
}

u64 ring_bwd_newest_time(const struct ring *r, u64 sample_type)
{
	u64 head = ring_head(r), off = head & (r->size - 1), t = 0;
	struct perf_event_header h;
	char *rec;

	if (!head)
		return 0;		/* nothing written */
	memcpy(&h, r->data + off, sizeof(h));	/* 8-aligned: never split */
	if (h.size < sizeof(h) || h.size > r->size)
		return 0;
	rec = malloc(h.size);
	if (!rec)
		return 0;
	if (off + h.size <= r->size) {
		memcpy(rec, r->data + off, h.size);
	} else {
		memcpy(rec, r->data + off, r->size - off);
		memcpy(rec + (r->size - off), r->data, h.size - (r->size - off));
	}
	t = record_time(rec, sample_type);
	free(rec);
	return t;
}
