/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the perf_ring selftests: opening events, looking up
 * tracepoints, mapping ring buffers and walking the records in them.
 *
 * Every test carries a sequence number in the records it produces: it calls
 * close(RB_SEQ_BASE + seq) and records syscalls:sys_enter_close with
 * PERF_SAMPLE_RAW, whose "fd" field then holds RB_SEQ_BASE + seq. No real
 * file descriptor is that large, so each close() fails with EBADF and costs
 * only the syscall.
 */
#ifndef RB_LIB_H
#define RB_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/perf_event.h>

#define RB_SEQ_BASE		0x40000000UL
#define RB_SEQ_SPAN		0x10000000UL

/* The two reasons a kernel without the features gives. */
#define RB_LACKS_BACKWARD	"kernel lacks write_backward"
#define RB_LACKS_PAUSE		"kernel lacks PAUSE_OUTPUT"

/* Results of the set-up helpers: 0 is ready, RB_SKIP means "skip, see why". */
#define RB_SKIP			1
#define RB_WHY_LEN		256

/* ---- run-time scaling ---- */
double rb_scale(void);
unsigned long rb_scaled(unsigned long n, unsigned long min);
double rb_env_seconds(const char *name, double dflt, double min);

/* ---- attributes and opening ---- */
int rb_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		 int group_fd, unsigned long flags);
int rb_paranoid(void);

/*
 * Kernel features, probed once with a software dummy event (which any user
 * may open with exclude_kernel). Return 1 when present, 0 when absent (and
 * @why holds the RB_LACKS_* reason), -EACCES when the probe needs a
 * privilege the caller lacks (a reason to skip, in @why), or another
 * negative errno when the probe itself failed (described in @why).
 */
int rb_has_backward(char *why, size_t len);
int rb_has_pause(char *why, size_t len);

/* ---- tracepoints ---- */
struct rb_tp {
	char name[64];		/* "subsys:event" */
	__u64 id;
	unsigned int seq_off;	/* offset of the sequence field in the raw data */
	unsigned int seq_size;
};

/*
 * Look up @sys:@event in tracefs (/sys/kernel/tracing, then
 * /sys/kernel/debug/tracing, or only $PERF_EVENTS_TRACEFS when that is set)
 * and the offset of @field in its format.
 * Returns 0, or RB_SKIP with the reason in @why.
 */
int rb_tp_lookup(const char *sys, const char *event, const char *field,
		 struct rb_tp *tp, char *why, size_t len);
/* syscalls:sys_enter_close, field fd: the carrier of sequence numbers. */
int rb_tp_close(struct rb_tp *tp, char *why, size_t len);

/* ---- ring buffers ---- */
struct rb_ring {
	int fd;
	void *base;
	size_t map_len;
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	__u64 size;		/* bytes of data, a power of two */
	__u64 sample_type;
	unsigned int seq_off;	/* copied from the tracepoint */
	bool backward;
	bool writable;
};

struct rb_opts {
	const struct rb_tp *tp;	/* NULL: software dummy event */
	__u64 sample_type;	/* 0: TID | TIME | RAW */
	__u64 read_format;	/* 0: PERF_FORMAT_LOST */
	bool backward;
	bool writable;		/* PROT_WRITE mapping; false: overwrite mode */
	bool inherit;
	bool enabled;		/* open enabled (default: disabled) */
	unsigned int data_pages;	/* 0: no mapping */
	pid_t pid;		/* 0: this thread */
	int cpu;		/* -1: any */
	__u32 wakeup_watermark;	/* bytes; 0: wake on every record */
};

void rb_opts_init(struct rb_opts *o, const struct rb_tp *tp);
void rb_attr_from_opts(struct perf_event_attr *attr, const struct rb_opts *o);

/*
 * Open the event described by @o and map its buffer. Returns 0, RB_SKIP
 * (missing feature or privilege, reason in @why) or a negative errno
 * (unexpected failure, description in @why).
 */
int rb_ring_open(struct rb_ring *r, const struct rb_opts *o,
		 char *why, size_t len);
/* Map an already open event's buffer. Same results as rb_ring_open(). */
int rb_ring_map(struct rb_ring *r, int fd, unsigned int data_pages,
		bool writable, char *why, size_t len);
void rb_ring_close(struct rb_ring *r);

__u64 rb_ring_head(const struct rb_ring *r);

/*
 * data_head is the kernel's ring position, an unsigned long, zero-extended
 * into the __u64: on a 32-bit kernel it wraps at 2^32, and after n bytes a
 * backward buffer's head is 2^32 - n, not 2^64 - n. Positions are therefore
 * compared modulo 2^32, which is exact on a kernel of either width for
 * positions less than 2^31 apart (a buffer and its margins are far less).
 */
static inline long rb_pos_sub(__u64 a, __u64 b)
{
	return (__s32)(__u32)(a - b);
}

/* Bytes written into a backward buffer whose data_head is @head. */
static inline __u64 rb_bwd_written(__u64 head)
{
	/* A 64-bit kernel's backward head has high bits set once it moved. */
	return head >> 32 ? -head : (__u32)-(__u32)head;
}

__u64 rb_ring_tail(const struct rb_ring *r);
void rb_ring_set_tail(struct rb_ring *r, __u64 tail);
void rb_ring_copy(const struct rb_ring *r, __u64 pos, void *dst, size_t len);

int rb_enable(int fd);
int rb_disable(int fd);
int rb_pause(int fd, bool pause);

/* read() with PERF_FORMAT_LOST: the event count and its lost samples. */
int rb_read_count(int fd, __u64 *count, __u64 *lost);

/* ---- records ---- */
struct rb_rec {
	__u64 pos;		/* position in the ring (data_head units) */
	__u32 type;
	__u16 misc;
	__u16 size;
	__u32 pid, tid;
	__u32 cpu;
	__u64 time;
	__u64 id;
	__u64 seq;		/* samples: fd - RB_SEQ_BASE */
	bool has_seq;		/* the fd lies in [BASE, BASE + SPAN) */
	__u64 lost;		/* PERF_RECORD_LOST */
};

/* Size of one sample of @sample_type with a raw payload of @raw_bytes. */
unsigned int rb_sample_size(__u64 sample_type, unsigned int raw_bytes);
/* Size of one sys_enter_close sample in this ring. */
unsigned int rb_close_sample_size(const struct rb_ring *r);

/*
 * Decode and check the record at @pos, which must fit before @end.
 * Returns 0, or -EBADMSG with the problem in @why: a header that is not
 * 8-byte aligned in size, an unknown type, a size past @end, or a sample
 * whose layout does not match the ring's sample_type.
 */
int rb_parse(const struct rb_ring *r, __u64 pos, __u64 end,
	     struct rb_rec *rec, char *why, size_t len);

/*
 * rb_parse() the newest record of a buffer holding records of @rec_size
 * bytes, from its data_head @head: in a @backward buffer the record that
 * starts there, else the one that ends there.
 */
int rb_parse_newest(const struct rb_ring *r, __u64 head, bool backward,
		    __u32 rec_size, struct rb_rec *rec, char *why, size_t len);

typedef int (*rb_rec_fn)(const struct rb_rec *rec, void *ctx);

/*
 * Forward walk from @from to @to (tail to head). Every record must be
 * whole. Returns the number of records, or a negative errno: -EBADMSG for
 * a bad record, or whatever @fn returned when it stopped the walk.
 */
long rb_walk_forward(const struct rb_ring *r, __u64 from, __u64 to,
		     rb_rec_fn fn, void *ctx, char *why, size_t len);
/*
 * Backward walk from @head (the newest record) towards older ones, over at
 * most one buffer length. The walk ends at a zero header (never written) or
 * at a record that runs past head + size (its end was overwritten by newer
 * records): that is the end of the data, not an error.
 */
long rb_walk_backward(const struct rb_ring *r, __u64 head,
		      rb_rec_fn fn, void *ctx, char *why, size_t len);

/* Collect records into an array (the walk fails with -ENOSPC past @max). */
struct rb_recs {
	struct rb_rec *v;
	size_t n, max;
};

int rb_recs_push(const struct rb_rec *rec, void *ctx);

/* ---- workload ---- */
static inline void rb_close_seq(unsigned long seq)
{
	close((int)(RB_SEQ_BASE + seq));
}

void rb_close_range(unsigned long first, unsigned long count);

/* Pin the calling thread to @cpu. Returns 0 or -errno. */
int rb_pin_cpu(int cpu);
/* The CPUs this process may run on, up to @max of them; returns how many. */
int rb_cpus(int *cpus, int max);
double rb_now(void);

#endif /* RB_LIB_H */
