// SPDX-License-Identifier: GPL-2.0
/* The side-band store (sideband.h). */
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

static int by_time(const void *a, const void *b)
{
	const struct gone *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/* Is pid among the first n of g (the ones to drop)? */
static bool dropping(const struct gone *g, size_t n, u32 pid)
{
	for (size_t i = 0; i < n; i++)
		if (g[i].pid == pid)
			return true;
	return false;
}

/*
 * Make room: down to 3/4 of the bound, first by dropping every record of
 * the processes that exited longest ago, then the oldest records.
 */
static void compact(struct sideband *sb)
{
	size_t target = sb->max / 4 * 3, len = sb->log.len, ng = 0, cut = 0, pos;
	struct gone *g = NULL;
	char *p = sb->log.p, *w;

	for (pos = 0; pos < len;) {
		struct perf_event_header h;

		memcpy(&h, p + pos, sizeof(h));
		if (is_process_exit(p + pos)) {
			struct gone *ng_ = realloc(g, (ng + 1) * sizeof(*g));

			if (!ng_)
				break;
			g = ng_;
			g[ng++] = (struct gone){ rec_pid(p + pos), record_time(p + pos, sb->sample_type) };
		}
		pos += h.size;
	}
	if (ng)
		qsort(g, ng, sizeof(*g), by_time);
	/* how many of the exited to drop: sum their bytes until enough */
	for (size_t n = 1; n <= ng && len > target; n++) {
		size_t freed = 0;

		for (pos = 0; pos < sb->log.len;) {
			struct perf_event_header h;

			memcpy(&h, p + pos, sizeof(h));
			if (rec_pid(p + pos) == g[n - 1].pid)
				freed += h.size;
			pos += h.size;
		}
		len -= freed;
		cut = n;
	}
	w = p;
	for (pos = 0; pos < sb->log.len;) {
		struct perf_event_header h;

		memcpy(&h, p + pos, sizeof(h));
		if (dropping(g, cut, rec_pid(p + pos))) {
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
