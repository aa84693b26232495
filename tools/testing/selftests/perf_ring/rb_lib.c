// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers for the perf_ring selftests. See rb_lib.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "../kselftest.h"
#include "rb_lib.h"

static __printf(3, 4) void why_set(char *why, size_t len, const char *fmt, ...);

static void why_set(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* mmap() of a perf buffer fails with EPERM past the locked-memory limits. */
static void mlock_reason(char *why, size_t len, unsigned int data_pages)
{
	why_set(why, len,
		"needs CAP_IPC_LOCK or a larger /proc/sys/kernel/perf_event_mlock_kb for a %u-page perf buffer",
		data_pages);
}

/* ---- run-time scaling ---- */

double rb_scale(void)
{
	const char *s = getenv("PERF_EVENTS_SCALE");
	char *end;
	double v;

	if (!s || !*s)
		return 1.0;
	v = strtod(s, &end);
	if (end == s || v <= 0)
		return 1.0;
	if (v < 0.001)
		v = 0.001;
	if (v > 100)
		v = 100;
	return v;
}

unsigned long rb_scaled(unsigned long n, unsigned long min)
{
	double v = (double)n * rb_scale();

	return v < (double)min ? min : (unsigned long)v;
}

double rb_env_seconds(const char *name, double dflt, double min)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (s && *s) {
		v = strtod(s, &end);
		if (end != s && v > 0)
			return v;
	}
	return dflt < min ? min : dflt;
}

/* ---- attributes and opening ---- */

int rb_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		 int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int rb_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = INT_MIN;

	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MIN;
	fclose(f);
	return v;
}

static void dummy_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->disabled = 1;
	/* Any user may open a user-only software event at paranoid 2. */
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

static int dummy_open(char *why, size_t len)
{
	struct perf_event_attr attr;
	int fd, err;

	dummy_attr(&attr);
	fd = rb_perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = errno;
	if (err == EACCES || err == EPERM) {
		why_set(why, len,
			"needs CAP_PERFMON or perf_event_paranoid<=2 for a user-only software event (perf_event_paranoid=%d)",
			rb_paranoid());
		return -EACCES;
	}
	/* The sysctl exists exactly when the kernel has perf events. */
	if (access("/proc/sys/kernel/perf_event_paranoid", F_OK)) {
		why_set(why, len, "kernel has no perf events (CONFIG_PERF_EVENTS)");
		return -EACCES;
	}
	why_set(why, len, "perf_event_open(dummy): %s", strerror(err));
	return -err;
}

int rb_has_backward(char *why, size_t len)
{
	static int cached = -1;
	struct perf_event_attr attr;
	int fd;

	if (cached == 0)
		why_set(why, len, RB_LACKS_BACKWARD);
	if (cached >= 0)
		return cached;
	/* The same event without the bit must open, or the probe says nothing. */
	fd = dummy_open(why, len);
	if (fd < 0)
		return fd;
	close(fd);

	dummy_attr(&attr);
	attr.write_backward = 1;
	fd = rb_perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		cached = 1;
	} else if (errno == EINVAL) {
		why_set(why, len, RB_LACKS_BACKWARD);
		cached = 0;
	} else {
		why_set(why, len, "perf_event_open(dummy, write_backward): %s",
			strerror(errno));
		return -errno;
	}
	return cached;
}

int rb_has_pause(char *why, size_t len)
{
	static int cached = -1;
	long page = sysconf(_SC_PAGESIZE);
	void *map;
	int fd, err;

	if (cached == 0)
		why_set(why, len, RB_LACKS_PAUSE);
	if (cached >= 0)
		return cached;
	fd = dummy_open(why, len);
	if (fd < 0)
		return fd;
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		err = errno;
		close(fd);
		if (err == EPERM) {
			mlock_reason(why, len, 1);
			return -EACCES;
		}
		why_set(why, len, "mmap of a 1-page perf buffer: %s", strerror(err));
		return -err;
	}
	if (!ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1)) {
		ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
		cached = 1;
	} else if (errno == ENOTTY) {
		why_set(why, len, RB_LACKS_PAUSE);
		cached = 0;
	} else {
		err = errno;
		why_set(why, len, "PERF_EVENT_IOC_PAUSE_OUTPUT: %s", strerror(err));
		munmap(map, 2 * page);
		close(fd);
		return -err;
	}
	munmap(map, 2 * page);
	close(fd);
	return cached;
}

/* ---- tracepoints ---- */

static const char *const tracefs_roots[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

/*
 * PERF_EVENTS_TRACEFS names a directory laid out like tracefs
 * (events/<sys>/<event>/{id,format}) to use instead of it. tracefs is
 * usually readable by root only; a runner that is root can copy the few
 * files an unprivileged run needs, and the run then tests what
 * perf_event_open() allows the user, not who may read tracefs.
 */
static const char *tracefs_override(void)
{
	const char *s = getenv("PERF_EVENTS_TRACEFS");

	return s && *s ? s : NULL;
}

/*
 * What recording the tracepoints the suite uses needs at the current
 * paranoid level, for a reason that has to say more than the missing
 * tracefs access. They are all syscall tracepoints, which the kernel lets
 * any user record with raw samples from their own tasks
 * (TRACE_EVENT_FL_CAP_ANY) once the kernel may be recorded at all:
 * perf_event_paranoid<=1.
 */
static const char *tp_record_needs(int paranoid)
{
	return paranoid > 1 ?
		", and CAP_PERFMON or perf_event_paranoid<=1 to record its raw samples" : "";
}

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	buf[n] = 0;
	close(fd);
	return 0;
}

static int format_field(const char *fmt, const char *field,
			unsigned int *off, unsigned int *size)
{
	const char *p = fmt;
	size_t flen = strlen(field);

	/* Lines read: "\tfield:unsigned int fd;\toffset:16;\tsize:8;\t..." */
	while ((p = strstr(p, "field:")) != NULL) {
		const char *semi = strchr(p, ';');
		const char *name;

		if (!semi)
			break;
		name = semi;
		while (name > p && name[-1] != ' ' && name[-1] != '*')
			name--;
		if ((size_t)(semi - name) == flen && !strncmp(name, field, flen)) {
			const char *o = strstr(semi, "offset:");
			const char *s = strstr(semi, "size:");

			if (!o || !s)
				return -EINVAL;
			*off = strtoul(o + 7, NULL, 10);
			*size = strtoul(s + 5, NULL, 10);
			return 0;
		}
		p = semi;
	}
	return -ENOENT;
}

int rb_tp_lookup(const char *sys, const char *event, const char *field,
		 struct rb_tp *tp, char *why, size_t len)
{
	const char *over = tracefs_override();
	const char *const *roots = over ? &over : tracefs_roots;
	unsigned int i, nroots = over ? 1 : ARRAY_SIZE(tracefs_roots);
	char path[PATH_MAX], buf[4096];
	bool denied = false;
	int ret, para;

	memset(tp, 0, sizeof(*tp));
	snprintf(tp->name, sizeof(tp->name), "%s:%s", sys, event);
	for (i = 0; i < nroots; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id",
			 roots[i], sys, event);
		ret = read_file(path, buf, sizeof(buf));
		if (ret == -EACCES || ret == -EPERM) {
			denied = true;
			continue;
		}
		if (ret)
			continue;
		tp->id = strtoull(buf, NULL, 10);
		snprintf(path, sizeof(path), "%s/events/%s/%s/format",
			 roots[i], sys, event);
		ret = read_file(path, buf, sizeof(buf));
		if (ret) {
			why_set(why, len, "cannot read %s: %s", path, strerror(-ret));
			return ret == -EACCES ? RB_SKIP : ret;
		}
		if (format_field(buf, field, &tp->seq_off, &tp->seq_size) ||
		    (tp->seq_size != 8 && tp->seq_size != 4)) {
			why_set(why, len, "%s has no usable field '%s'", path, field);
			return -EINVAL;
		}
		return 0;
	}
	para = rb_paranoid();
	if (denied)
		why_set(why, len,
			"needs root (or read access to tracefs) to find %s%s (perf_event_paranoid=%d)",
			tp->name, tp_record_needs(para), para);
	else if (over)
		why_set(why, len, "no tracepoint %s in PERF_EVENTS_TRACEFS=%s", tp->name, over);
	else
		why_set(why, len,
			"no tracepoint %s in /sys/kernel/tracing or /sys/kernel/debug/tracing (needs tracefs mounted and CONFIG_FTRACE_SYSCALLS)",
			tp->name);
	return RB_SKIP;
}

int rb_tp_close(struct rb_tp *tp, char *why, size_t len)
{
	return rb_tp_lookup("syscalls", "sys_enter_close", "fd", tp, why, len);
}

/* ---- ring buffers ---- */

void rb_opts_init(struct rb_opts *o, const struct rb_tp *tp)
{
	memset(o, 0, sizeof(*o));
	o->tp = tp;
	o->writable = true;
	o->cpu = -1;
	o->data_pages = 1;
}

void rb_attr_from_opts(struct perf_event_attr *attr, const struct rb_opts *o)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (o->tp) {
		attr->type = PERF_TYPE_TRACEPOINT;
		attr->config = o->tp->id;
		attr->sample_type = o->sample_type ? o->sample_type :
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	} else {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_DUMMY;
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		attr->sample_type = o->sample_type;
	}
	attr->sample_period = 1;
	attr->read_format = o->read_format ? o->read_format : PERF_FORMAT_LOST;
	attr->disabled = !o->enabled;
	attr->inherit = o->inherit;
	if (o->wakeup_watermark) {
		attr->watermark = 1;
		attr->wakeup_watermark = o->wakeup_watermark;
	} else {
		attr->wakeup_events = 1;
	}
	if (o->backward)
		attr->write_backward = 1;
}

static int open_errno_reason(const struct rb_opts *o, int err, char *why, size_t len)
{
	char probe[RB_WHY_LEN];

	/*
	 * The kernel's checks, in the order perf_event_open() makes them:
	 * an event that counts in the kernel needs paranoid<=1 (EACCES), a
	 * CPU-wide one paranoid<=0 (EACCES), and raw tracepoint samples
	 * paranoid=-1 (EPERM) unless the tracepoint is one any user may
	 * record in their own tasks, as the syscall tracepoints are.
	 */
	if (err == EACCES || err == EPERM) {
		int para = rb_paranoid();

		if (!o->tp)
			why_set(why, len,
				"needs CAP_PERFMON or perf_event_paranoid<=2 for a user-only software event (perf_event_paranoid=%d)",
				para);
		else if (err == EPERM)
			why_set(why, len,
				"needs CAP_PERFMON or perf_event_paranoid=-1 for raw samples of tracepoint %s (perf_event_paranoid=%d)",
				o->tp->name, para);
		else if (o->pid == -1)
			why_set(why, len,
				"needs CAP_PERFMON or perf_event_paranoid<=0 for a CPU-wide event on tracepoint %s (perf_event_paranoid=%d)",
				o->tp->name, para);
		else
			why_set(why, len,
				"needs CAP_PERFMON or perf_event_paranoid<=1 to record tracepoint %s (perf_event_paranoid=%d)",
				o->tp->name, para);
		return RB_SKIP;
	}
	if (err == EINVAL && o->backward && rb_has_backward(probe, sizeof(probe)) == 0) {
		why_set(why, len, RB_LACKS_BACKWARD);
		return RB_SKIP;
	}
	if (err == EMFILE || err == ENFILE) {
		why_set(why, len, "perf_event_open: %s", strerror(err));
		return -err;
	}
	why_set(why, len, "perf_event_open(%s%s): %s", o->tp ? o->tp->name : "dummy",
		o->backward ? ", write_backward" : "", strerror(err));
	return -err;
}

int rb_ring_map(struct rb_ring *r, int fd, unsigned int data_pages,
		bool writable, char *why, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	int err;

	r->fd = fd;
	r->writable = writable;
	r->map_len = (size_t)(data_pages + 1) * page;
	r->base = mmap(NULL, r->map_len, PROT_READ | (writable ? PROT_WRITE : 0),
		       MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		err = errno;
		r->base = NULL;
		if (err == EPERM) {
			mlock_reason(why, len, data_pages);
			return RB_SKIP;
		}
		why_set(why, len, "mmap of a %u-page %s perf buffer: %s", data_pages,
			writable ? "writable" : "read-only", strerror(err));
		return -err;
	}
	r->pg = r->base;
	r->data = (unsigned char *)r->base + r->pg->data_offset;
	r->size = r->pg->data_size;
	if (!r->pg->data_offset || r->size != (__u64)data_pages * page) {
		/* Kernels before 4.1 have no data_offset/data_size. */
		r->data = (unsigned char *)r->base + page;
		r->size = (__u64)data_pages * page;
	}
	return 0;
}

int rb_ring_open(struct rb_ring *r, const struct rb_opts *o,
		 char *why, size_t len)
{
	struct perf_event_attr attr;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	rb_attr_from_opts(&attr, o);
	r->sample_type = attr.sample_type;
	r->backward = o->backward;
	r->writable = o->writable;
	r->seq_off = o->tp ? o->tp->seq_off : 0;

	fd = rb_perf_open(&attr, o->pid, o->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return open_errno_reason(o, errno, why, len);
	r->fd = fd;
	if (!o->data_pages)
		return 0;
	ret = rb_ring_map(r, fd, o->data_pages, o->writable, why, len);
	if (ret) {
		close(fd);
		r->fd = -1;
	}
	return ret;
}

void rb_ring_close(struct rb_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

__u64 rb_ring_head(const struct rb_ring *r)
{
	/* Pairs with the kernel's store of data_head after the data. */
	return __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
}

__u64 rb_ring_tail(const struct rb_ring *r)
{
	return __atomic_load_n(&r->pg->data_tail, __ATOMIC_RELAXED);
}

void rb_ring_set_tail(struct rb_ring *r, __u64 tail)
{
	/* All reads of the data happen before the kernel may reuse it. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
}

void rb_ring_copy(const struct rb_ring *r, __u64 pos, void *dst, size_t len)
{
	__u64 off = pos & (r->size - 1);
	size_t first = len;

	if (off + len > r->size)
		first = r->size - off;
	memcpy(dst, r->data + off, first);
	if (first < len)
		memcpy((char *)dst + first, r->data, len - first);
}

int rb_enable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) ? -errno : 0;
}

int rb_disable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) ? -errno : 0;
}

int rb_pause(int fd, bool pause)
{
	return ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0) ? -errno : 0;
}

int rb_read_count(int fd, __u64 *count, __u64 *lost)
{
	__u64 v[2];

	if (read(fd, v, sizeof(v)) != sizeof(v))
		return -errno ? -errno : -EIO;
	if (count)
		*count = v[0];
	if (lost)
		*lost = v[1];
	return 0;
}

/* ---- records ---- */

#define RB_KNOWN_SAMPLE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

unsigned int rb_sample_size(__u64 st, unsigned int raw_bytes)
{
	unsigned int n = sizeof(struct perf_event_header);

	n += 8 * !!(st & PERF_SAMPLE_IDENTIFIER);
	n += 8 * !!(st & PERF_SAMPLE_IP);
	n += 8 * !!(st & PERF_SAMPLE_TID);
	n += 8 * !!(st & PERF_SAMPLE_TIME);
	n += 8 * !!(st & PERF_SAMPLE_ID);
	n += 8 * !!(st & PERF_SAMPLE_CPU);
	n += 8 * !!(st & PERF_SAMPLE_PERIOD);
	if (st & PERF_SAMPLE_RAW)
		n += (sizeof(__u32) + raw_bytes + 7) & ~7U;
	return n;
}

unsigned int rb_close_sample_size(const struct rb_ring *r)
{
	/* sys_enter_close: the sequence field is the last one in the entry. */
	return rb_sample_size(r->sample_type, r->seq_off + 8);
}

static __u64 get_u64(const struct rb_ring *r, __u64 pos)
{
	__u64 v;

	rb_ring_copy(r, pos, &v, sizeof(v));
	return v;
}

int rb_parse(const struct rb_ring *r, __u64 pos, __u64 end,
	     struct rb_rec *rec, char *why, size_t len)
{
	struct perf_event_header h;
	__u64 p, st = r->sample_type;

	memset(rec, 0, sizeof(*rec));
	rec->pos = pos;
	if (end - pos < sizeof(h)) {
		why_set(why, len, "record header at %#llx runs past the end %#llx",
			(unsigned long long)pos, (unsigned long long)end);
		return -EBADMSG;
	}
	rb_ring_copy(r, pos, &h, sizeof(h));
	rec->type = h.type;
	rec->misc = h.misc;
	rec->size = h.size;
	if (h.size < sizeof(h) || h.size % 8 || h.size > r->size) {
		why_set(why, len, "record at %#llx: bad size %u (type %u)",
			(unsigned long long)pos, h.size, h.type);
		return -EBADMSG;
	}
	if (h.type == 0 || h.type >= PERF_RECORD_MAX) {
		why_set(why, len, "record at %#llx: bad type %u (size %u)",
			(unsigned long long)pos, h.type, h.size);
		return -EBADMSG;
	}
	if (h.size > end - pos) {
		why_set(why, len, "record at %#llx (type %u, size %u) runs past %#llx",
			(unsigned long long)pos, h.type, h.size,
			(unsigned long long)end);
		return -EBADMSG;
	}
	p = pos + sizeof(h);
	if (h.type == PERF_RECORD_LOST) {
		if (h.size < sizeof(h) + 16) {
			why_set(why, len, "LOST record at %#llx too short (%u)",
				(unsigned long long)pos, h.size);
			return -EBADMSG;
		}
		rec->id = get_u64(r, p);
		rec->lost = get_u64(r, p + 8);
		return 0;
	}
	if (h.type != PERF_RECORD_SAMPLE)
		return 0;
	if (st & ~RB_KNOWN_SAMPLE) {
		why_set(why, len, "sample_type %#llx not understood by the walker",
			(unsigned long long)st);
		return -EBADMSG;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		rec->id = get_u64(r, p);
		p += 8;
	}
	if (st & PERF_SAMPLE_IP)
		p += 8;
	if (st & PERF_SAMPLE_TID) {
		__u32 pt[2];

		rb_ring_copy(r, p, pt, sizeof(pt));
		rec->pid = pt[0];
		rec->tid = pt[1];
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		rec->time = get_u64(r, p);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		rec->id = get_u64(r, p);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		__u32 c[2];

		rb_ring_copy(r, p, c, sizeof(c));
		rec->cpu = c[0];
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD)
		p += 8;
	if (st & PERF_SAMPLE_RAW) {
		__u32 raw;
		__u64 fd = 0;

		rb_ring_copy(r, p, &raw, sizeof(raw));
		if (rb_sample_size(st, raw) != h.size) {
			why_set(why, len,
				"sample at %#llx: size %u does not match sample_type %#llx with %u raw bytes",
				(unsigned long long)pos, h.size,
				(unsigned long long)st, raw);
			return -EBADMSG;
		}
		if (r->seq_off + 8 <= raw) {
			rb_ring_copy(r, p + 4 + r->seq_off, &fd, sizeof(fd));
			if (fd >= RB_SEQ_BASE && fd < RB_SEQ_BASE + RB_SEQ_SPAN) {
				rec->seq = fd - RB_SEQ_BASE;
				rec->has_seq = true;
			}
		}
	} else if (p - pos != h.size) {
		why_set(why, len, "sample at %#llx: size %u, expected %llu",
			(unsigned long long)pos, h.size,
			(unsigned long long)(p - pos));
		return -EBADMSG;
	}
	return 0;
}

int rb_parse_newest(const struct rb_ring *r, __u64 head, bool backward,
		    __u32 rec_size, struct rb_rec *rec, char *why, size_t len)
{
	/* backward: data_head is the start of the newest record; forward, its end */
	__u64 newest = backward ? head : head - rec_size;

	return rb_parse(r, newest, newest + rec_size, rec, why, len);
}

/* Parse the record at pos, bounded by end, and hand it to fn. */
static int rb_visit(const struct rb_ring *r, __u64 pos, __u64 end,
		    struct rb_rec *rec, rb_rec_fn fn, void *ctx,
		    char *why, size_t len)
{
	int ret = rb_parse(r, pos, end, rec, why, len);

	if (ret || !fn)
		return ret;
	return fn(rec, ctx);
}

long rb_walk_forward(const struct rb_ring *r, __u64 from, __u64 to,
		     rb_rec_fn fn, void *ctx, char *why, size_t len)
{
	struct rb_rec rec;
	long n = 0;
	int ret;

	if (to - from > r->size) {
		why_set(why, len, "span %#llx..%#llx is larger than the buffer",
			(unsigned long long)from, (unsigned long long)to);
		return -EBADMSG;
	}
	while (from != to) {
		ret = rb_visit(r, from, to, &rec, fn, ctx, why, len);
		if (ret)
			return ret;
		from += rec.size;
		n++;
	}
	return n;
}

long rb_walk_backward(const struct rb_ring *r, __u64 head,
		      rb_rec_fn fn, void *ctx, char *why, size_t len)
{
	__u64 end = head + r->size, pos = head;
	struct perf_event_header h;
	struct rb_rec rec;
	long n = 0;
	int ret;

	while (end - pos >= sizeof(h)) {
		rb_ring_copy(r, pos, &h, sizeof(h));
		if (h.size == 0)
			break;			/* never written */
		if (h.size > end - pos)
			break;			/* tail overwritten by newer data */
		ret = rb_visit(r, pos, end, &rec, fn, ctx, why, len);
		if (ret)
			return ret;
		pos += rec.size;
		n++;
	}
	return n;
}

int rb_recs_push(const struct rb_rec *rec, void *ctx)
{
	struct rb_recs *rs = ctx;

	if (rs->n >= rs->max)
		return -ENOSPC;
	rs->v[rs->n++] = *rec;
	return 0;
}

/* ---- workload ---- */

void rb_close_range(unsigned long first, unsigned long count)
{
	unsigned long i;

	for (i = 0; i < count; i++)
		rb_close_seq(first + i);
}

int rb_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int rb_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int i, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return n;
}

double rb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
