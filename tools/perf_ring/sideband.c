// SPDX-License-Identifier: GPL-2.0
/* The side-band store (sideband.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "sideband.h"

void sideband_init(struct sideband *sb, u64 sample_type, size_t max)
{
	memset(sb, 0, sizeof(*sb));
	sb->sample_type = sample_type;
	sb->max = max;
}

/*
 * compact() brings the store under 3/4 of max before a record goes in, so
 * len stays at most max and pbuf_put() never reallocates a store of cap max.
 */
int sideband_reserve(struct sideband *sb)
{
	char *p = realloc(sb->log.p, sb->max);

	if (!p)
		return -ENOMEM;
	memset(p + sb->log.len, 0, sb->max - sb->log.len);
	sb->log.p = p;
	sb->log.cap = sb->max;
	return 0;
}

bool sideband_type(u32 type)
{
	return type == PERF_RECORD_COMM || type == PERF_RECORD_MMAP ||
	       type == PERF_RECORD_MMAP2 || type == PERF_RECORD_FORK ||
	       type == PERF_RECORD_EXIT || type == PERF_RECORD_KSYMBOL ||
	       type == PERF_RECORD_BPF_EVENT;
}

/*
 * The process a record belongs to: the id right after the header, except
 * for the kernel's own (KSYMBOL, BPF_EVENT), which belong to none.
 */
static u32 rec_pid(const char *rec)
{
	struct perf_event_header h;
	u32 pid;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_KSYMBOL || h.type == PERF_RECORD_BPF_EVENT)
		return (u32)-1;
	memcpy(&pid, rec + sizeof(h), sizeof(pid));
	return pid;
}

static bool is_process_exit(const char *rec)
{
	struct perf_event_header h;
	u32 v[4];		/* pid, ppid, tid, ptid */

	memcpy(&h, rec, sizeof(h));
	if (h.type != PERF_RECORD_EXIT || h.size < sizeof(h) + sizeof(v))
		return false;
	memcpy(v, rec + sizeof(h), sizeof(v));
	return v[0] == v[2];
}

struct gone {
	u32 pid;
	u64 t;
};

/* one exited pid: its bytes in the store, and whether they go */
struct victim {
	u32 pid;
	bool drop;
	size_t bytes;
};

static int by_time(const void *a, const void *b)
{
	const struct gone *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int by_pid(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* the entry of pid among the n sorted by pid, or NULL */
static struct victim *victim_of(struct sideband *sb, struct victim *v, size_t n, u32 pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		sb->work++;
		if (v[mid].pid == pid)
			return &v[mid];
		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * Make room: down to 3/4 of the bound, first by dropping every record of
 * the processes that exited longest ago, then the oldest records.
 *
 * Three passes over the records, each looking a record's pid up in the
 * exited pids sorted by pid: O(records x log exited).  The bytes of each
 * exited pid are summed in one pass, so choosing how many to drop is a
 * walk of the exits in time order, not a pass per exit.
 */
static void compact(struct sideband *sb)
{
	size_t target = sb->max / 4 * 3, len = sb->log.len, ng = 0, cap = 0, nv = 0, pos;
	struct gone *g = NULL;
	struct victim *v = NULL, *x;
	char *p = sb->log.p, *w;

	for (pos = 0; pos < len;) {
		struct perf_event_header h;

		memcpy(&h, p + pos, sizeof(h));
		sb->work++;
		if (is_process_exit(p + pos)) {
			if (ng == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct gone *n = realloc(g, nc * sizeof(*g));

				if (!n)
					break;	/* fewer candidates: the oldest records go instead */
				g = n;
				cap = nc;
			}
			g[ng++] = (struct gone){ rec_pid(p + pos), record_time(p + pos, sb->sample_type) };
		}
		pos += h.size;
	}
	if (ng)
		v = malloc(ng * sizeof(*v));
	if (v) {
		/* the distinct exited pids, sorted */
		for (size_t i = 0; i < ng; i++)
			v[i] = (struct victim){ .pid = g[i].pid };
		qsort(v, ng, sizeof(*v), by_pid);
		for (size_t i = 0; i < ng; i++)
			if (!nv || v[nv - 1].pid != v[i].pid)
				v[nv++] = v[i];
		for (pos = 0; pos < len;) {
			struct perf_event_header h;

			memcpy(&h, p + pos, sizeof(h));
			sb->work++;
			x = victim_of(sb, v, nv, rec_pid(p + pos));
			if (x)
				x->bytes += h.size;
			pos += h.size;
		}
		/* the exited go, longest ago first, until enough */
		qsort(g, ng, sizeof(*g), by_time);
		for (size_t i = 0; i < ng && len > target; i++) {
			x = victim_of(sb, v, nv, g[i].pid);
			if (!x->drop) {
				x->drop = true;
				len -= x->bytes;
			}
		}
	}
	w = p;
	for (pos = 0; pos < sb->log.len;) {
		struct perf_event_header h;

		memcpy(&h, p + pos, sizeof(h));
		sb->work++;
		x = victim_of(sb, v, nv, rec_pid(p + pos));
		if (x && x->drop) {
			sb->dropped++;
		} else if (len > target) {
			len -= h.size;	/* still too big: the oldest go */
			sb->dropped++;
		} else {
			memmove(w, p + pos, h.size);
			w += h.size;
		}
		pos += h.size;
	}
	sb->log.len = w - p;
	free(v);
	free(g);
}

void sideband_scan(struct sideband *sb, const char *buf, size_t len)
{
	for (size_t pos = 0; pos + sizeof(struct perf_event_header) <= len;) {
		struct perf_event_header h;

		memcpy(&h, buf + pos, sizeof(h));
		if (h.size < sizeof(h) || pos + h.size > len)
			return;
		if (sideband_type(h.type) && h.size >= sizeof(h) + 8) {
			if (sb->log.len + h.size > sb->max)
				compact(sb);
			pbuf_put(&sb->log, buf + pos, h.size);
			sb->added++;
		}
		pos += h.size;
	}
}

void sideband_free(struct sideband *sb)
{
	pbuf_free(&sb->log);
}
