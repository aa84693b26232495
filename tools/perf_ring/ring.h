/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring reader: one perf mmap ring buffer, read forward (streaming,
 * data_tail moves) or backward (flight recorder, read-only mapping).
 * The _img functions work on a plain memory image so that unit tests can
 * feed them synthetic buffers.
 */
#ifndef PERF_RING_RING_H
#define PERF_RING_RING_H

#include <linux/perf_event.h>
#include "util.h"

/*
 * One mapping, written by ring.c alone.  What the readers keep about the
 * records they read is theirs (the stream sink's lost and newest times),
 * the flight recorder's state between snapshots is in snapshot.h, what
 * CPU hotplug did in hotplug.h.
 */
struct ring {
	int fd;
	void *base;
	size_t map_len;
	struct perf_event_mmap_page *pg;
	char *data;
	u64 size;		/* data area, a power of two */
	bool backward;
	/*
	 * backward: bytes writers may hold reserved and unpublished below
	 * the head (recsize_margin()); 0: not set, the largest a record can be
	 */
	u64 margin;
	int cpu;		/* the buffer's CPU */
	/*
	 * poll() said POLLHUP: every task its events followed has exited, so
	 * nothing more will be written.  It is read as before, not polled:
	 * a hung-up fd is always ready, and a reader that polled it would
	 * spin, at SCHED_FIFO keeping the exiting command off the CPU.
	 */
	bool hup;
};

int ring_map(struct ring *r, int fd, u64 data_size, bool backward, int cpu);
/* backward: the bytes that may be in flight below the head (recsize.h) */
void ring_set_margin(struct ring *r, u64 margin);
/* What poll() said of the ring's fd: POLLHUP marks it hung up (hup). */
void ring_revents(struct ring *r, short revents);
/* The smallest power of two KiB at least bytes. */
u64 ring_pow2_kb(u64 bytes);
void ring_unmap(struct ring *r);

static inline u64 ring_head(const struct ring *r)
{
	return __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
}

/*
 * Bytes from ring position b up to a.  data_head is the kernel's unsigned
 * long zero-extended: on a 32-bit kernel it wraps at 2^32 (and a backward
 * head is 2^32 - bytes written).  When neither position has bits above 31
 * the distance is taken modulo 2^32, which on a 64-bit kernel changes
 * nothing for distances below 2^32; a 64-bit kernel's backward head has
 * those bits set.  Exact for any distance below 2^32.
 */
static inline u64 ring_dist(u64 a, u64 b)
{
	return (a | b) >> 32 ? a - b : (u32)(a - b);
}

/* Forward: bytes published and not yet consumed. */
static inline u64 ring_fwd_avail(const struct ring *r)
{
	return ring_dist(ring_head(r), r->pg->data_tail);
}

/*
 * Forward: copy whole records from the ring, starting at data_tail, into
 * dst (at most dstlen bytes), and give the space back to the kernel.
 * Returns bytes copied (0 when empty or when the next record does not fit),
 * or -EBADMSG on a corrupt header.
 */
long ring_fwd_read(struct ring *r, char *dst, size_t dstlen);
/*
 * The same, for a caller that walks every record it gets anyway (and
 * fails on a corrupt one): when all that is published fits in dst, it is
 * copied without a walk, since the kernel publishes whole records only.
 */
long ring_fwd_read_unwalked(struct ring *r, char *dst, size_t dstlen);

/*
 * Image form of the forward copy: records between tail and head in a
 * buffer of size bytes (power of two).  *new_tail is where copying stopped.
 */
long ring_fwd_copy_img(const char *data, u64 size, u64 tail, u64 head,
		       char *dst, size_t dstlen, u64 *new_tail);

/*
 * Backward: how many bytes from h1 upward can be trusted, given the head
 * h1 read before the copy, h2 read after it, and margin bytes that a
 * writer may have reserved but not yet published.
 */
u64 ring_bwd_valid(u64 size, u64 h1, u64 h2, u64 margin);

struct bwd_snap {
	u64 nrec;		/* records extracted */
	u64 bytes;		/* their bytes */
	u64 head;		/* h1 */
	bool stop_torn;		/* walk stopped on a record crossing the limit */
};

/*
 * Backward image walk.  img holds the buffer rotated so that img[0] is the
 * byte at h1 (newest record first); valid bytes of it may be trusted.
 * Whole records are written to dst oldest first (chronological order); a
 * PERF_RECORD_LOST stays just in front of the record the kernel reserved
 * it with, the first one written after the loss.
 * Returns bytes written to dst (at most dstlen), or negative errno.
 */
long ring_bwd_extract_img(const char *img, u64 valid, char *dst, size_t dstlen,
			  struct bwd_snap *s);

/*
 * Records of one kind overwritten in a backward buffer between two
 * snapshots, estimated from bytes.  written: bytes the kernel wrote since
 * the previous snapshot (the previous head minus this one: a backward head
 * moves down by exactly what is written, records of every kind); kept: the
 * bytes of those records that this snapshot keeps.  The other
 * written - kept bytes were overwritten (or cut).  seen bytes of new
 * records, n of them of the kind, give the share: taking the overwritten
 * bytes to hold the kind in the same share of bytes, at the same mean
 * size, they held (written - kept) * n / seen records of it, rounded to
 * the nearest.  0 when seen is 0 (no share to go by).
 */
u64 ring_bwd_overwritten_est(u64 written, u64 kept, double seen, double n);

/*
 * Copy the buffer, rotated so the byte at head comes first, into lin: the
 * bytes written since the start (ring_dist(0, head)), at most the size.
 * What follows them in lin is left as it was.
 */
void ring_copy_rotated(const char *data, u64 size, u64 head, char *lin);

/*
 * Backward snapshot of a live ring: read head, copy, re-read head, keep
 * what can be trusted (see Documentation/admin-guide/perf-ring.rst).  With
 * pause, PERF_EVENT_IOC_PAUSE_OUTPUT is held around the copy.  scratch
 * must hold r->size bytes.  head: the head read before, so that several
 * buffers copied one after another all end at the same moment (the copy
 * holds what was written up to it), or RING_HEAD_NOW.  If what the kernel
 * wrote since leaves nothing to trust, the head is read again.
 */
long ring_bwd_snapshot(struct ring *r, char *scratch, char *dst, size_t dstlen,
		       bool pause, u64 head, struct bwd_snap *s);
/* ring_bwd_snapshot(): read the head there (no head read before) */
#define RING_HEAD_NOW (~0ULL)

/*
 * Backward buffer of a stopped event: the time of its newest record, 0 when
 * it has none (see record_time()).
 */
u64 ring_bwd_newest_time(const struct ring *r, u64 sample_type);

#endif
