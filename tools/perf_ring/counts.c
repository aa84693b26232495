// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"

static int cmp_ent(const void *a, const void *b)
{
	const struct idmap_ent *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/*
 * A sample starts IDENTIFIER, IP, TID, TIME, ADDR, ID (those present, 8
 * bytes each): the id is IDENTIFIER, or else ID.
 */
static void sample_layout(struct idmap *m)
{
	u64 st = m->sample_type;
	u16 off = sizeof(struct perf_event_header);

	m->id_off = m->time_off = 0;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		m->id_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_IP)
		off += 8;
	if (st & PERF_SAMPLE_TID)
		off += 8;
	if (st & PERF_SAMPLE_TIME) {
		m->time_off = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_ADDR)
		off += 8;
	if (!m->id_off && (st & PERF_SAMPLE_ID)) {
		m->id_off = off;
		off += 8;
	}
	m->min_size = off;
}

int idmap_build(struct idmap *m, const u64 *const *ids, const int *nr_ids,
		int nr_events, u64 sample_type)
{
	size_t n = 0, bytes;

	m->v = NULL;
	m->n = 0;
	if (nr_events < 0)
		return -EINVAL;
	/* the counts come from a file: the sum and the product are checked */
	for (int e = 0; e < nr_events; e++) {
		if (nr_ids[e] < 0 || __builtin_add_overflow(n, (size_t)nr_ids[e], &n))
			return -EOVERFLOW;
	}
	if (n > IDMAP_MAX)
		return -E2BIG;
	if (__builtin_mul_overflow(n + 1, sizeof(*m->v), &bytes))
		return -EOVERFLOW;
	m->v = malloc(bytes);
	if (!m->v)
		return -ENOMEM;
	for (int e = 0; e < nr_events; e++)
		for (int k = 0; k < nr_ids[e]; k++)
			m->v[m->n++] = (struct idmap_ent){ ids[e][k], e };
	/*
	 * The kernel hands out ids in increasing order, so one event's,
	 * kept as opened, come sorted: then there is nothing to sort (one
	 * event on a thousand threads: 2,000 ids, half a million
	 * instructions of qsort).
	 */
	for (int i = 1; i < m->n; i++) {
		if (m->v[i - 1].id >= m->v[i].id) {
			qsort(m->v, m->n, sizeof(*m->v), cmp_ent);
			break;
		}
	}
	m->nr_events = nr_events;
	m->sample_type = sample_type;
	sample_layout(m);
	return 0;
}

void idmap_free(struct idmap *m)
{
	free(m->v);
	m->v = NULL;
}

int idmap_find(const struct idmap *m, u64 id)
{
	int lo = 0, hi = m->n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (m->v[mid].id == id)
			return m->v[mid].ev;
		if (m->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return m->nr_events == 1 ? 0 : -1;
}

static u64 rd64(const char *p)
{
	u64 v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * The event of a sample's id.  Samples come in runs from few events (one
 * per CPU and event in a buffer, often alternating, as sys_enter and
 * sys_exit do): two ids seen last are kept before the binary search.
 */
struct id_cache {
	u64 id[2];
	int ev[2];
	int n, next;
};

static int cached_find(struct id_cache *k, const struct idmap *m, u64 id)
{
	int e;

	for (int i = 0; i < k->n; i++)
		if (k->id[i] == id)
			return k->ev[i];
	e = idmap_find(m, id);
	k->id[k->next] = id;
	k->ev[k->next] = e;
	k->next ^= 1;
	if (k->n < 2)
		k->n++;
	return e;
}

/* A sample's time into the walk's span: first, last, and the newest seen. */
static inline void span_add(u64 t, u64 *first, u64 *last, u64 *newest)
{
	if (!*first || t < *first)
		*first = t;
	if (t > *last)
		*last = t;
	if (t > *newest)
		*newest = t;
}

/*
 * The run of whole samples with the usual layout from pos, when nothing
 * is counted per event: size, count and time, nothing else.  Returns
 * where the run ends (pos when there is none) and adds its samples to
 * *n; anything else is left to the general case of counts_walk().
 */
static size_t sample_run(const struct idmap *m, const char *buf, size_t pos, size_t len,
			 u64 *n, u64 *first, u64 *last, u64 *newest)
{
	struct perf_event_header h;
	size_t end = pos;

	/* min_size > the header's size: each turn moves on */
	do {
		memcpy(&h, buf + end, sizeof(h));
		if (h.type != PERF_RECORD_SAMPLE || h.size < m->min_size || end + h.size > len)
			break;
		span_add(rd64(buf + end + m->time_off), first, last, newest);
		end += h.size;
		(*n)++;
	} while (end + sizeof(h) <= len);
	return end;
}

/* A LOST_SAMPLES record's lost, to its event's second count in per_ev. */
static void lost_per_event(u64 *per_ev, const struct idmap *m, const char *rec, u16 size)
{
	u64 st = m->sample_type;
	/*
	 * the id in the sample_id trailer: IDENTIFIER last, else ID before
	 * STREAM_ID and CPU
	 */
	size_t off = size - 8 * ((st & PERF_SAMPLE_IDENTIFIER) ? 1 :
				 !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID) + 1);
	int e = m->nr_events == 1 ? 0 : -1;

	if ((st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) && off >= 16 && off + 8 <= size)
		e = idmap_find(m, rd64(rec + off));
	if (e >= 0)
		per_ev[m->nr_events + e] += rd64(rec + 8);
}

int counts_walk(struct pf_counts *c, u64 *per_ev, const struct idmap *m,
		const char *buf, size_t len)
{
	struct id_cache k = { .n = 0 };
	u64 st = m->sample_type, first = c->first_time, last = c->last_time, newest = 0;
	u64 nr_sample = 0, bytes = 0, total = 0;
	size_t pos = 0;
	int err = 0;

	while (pos + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		const char *rec = buf + pos;
		u64 t;

		/* whole samples of the usual layout, counted in a run */
		if (!per_ev && m->time_off) {
			u64 n = 0;
			size_t end = sample_run(m, buf, pos, len, &n, &first, &last, &newest);

			if (n) {
				nr_sample += n;
				total += n;
				bytes += end - pos;
				pos = end;
				continue;
			}
		}

		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || pos + h.size > len) {
			err = -EBADMSG;
			break;
		}
		total++;
		bytes += h.size;
		pos += h.size;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= m->min_size) {
			/* the common case: the layout is known, nothing to test */
			nr_sample++;
			if (per_ev) {
				int e = m->id_off ? cached_find(&k, m, rd64(rec + m->id_off)) :
					(m->nr_events == 1 ? 0 : -1);

				if (e >= 0)
					per_ev[e]++;
			}
			if (m->time_off) {
				t = rd64(rec + m->time_off);
				span_add(t, &first, &last, &newest);
			}
			continue;
		}
		if (h.type < PF_RECORD_TYPE_MAX)
			c->nr[h.type]++;
		else
			c->other++;
		if (h.type == PERF_RECORD_SAMPLE) {
			/* shorter than its layout: what fits */
			if (per_ev) {
				int e = m->nr_events == 1 ? 0 : -1;

				if (m->id_off && m->id_off + 8 <= h.size)
					e = idmap_find(m, rd64(rec + m->id_off));
				if (e >= 0)
					per_ev[e]++;
			}
			if (m->time_off && m->time_off + 8 <= h.size) {
				t = rd64(rec + m->time_off);
				span_add(t, &first, &last, &newest);
			}
			continue;
		}
		if (h.type == PERF_RECORD_LOST && h.size >= 24)
			c->lost += rd64(rec + 16);
		else if (h.type == PERF_RECORD_LOST_SAMPLES && h.size >= 16) {
			c->lost_samples += rd64(rec + 8);
			if (per_ev)
				lost_per_event(per_ev, m, rec, h.size);
		}
		else if ((h.type == PERF_RECORD_MMAP2 || h.type == PERF_RECORD_MMAP) && c->on_map)
			c->on_map(c->map_ctx, rec);
		/* perf orders every record by time */
		t = record_time(rec, st);
		if (t > newest)
			newest = t;
	}
	c->nr[PERF_RECORD_SAMPLE] += nr_sample;
	c->total += total;
	c->bytes += bytes;
	c->first_time = first;
	c->last_time = last;
	c->walk_newest = newest;
	if (err)
		return err;
	return pos == len ? 0 : -EBADMSG;
}

u64 record_time(const char *rec, u64 st)
{
	struct perf_event_header h;
	size_t off;

	memcpy(&h, rec, sizeof(h));
	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	if (h.type == PERF_RECORD_SAMPLE) {
		off = sizeof(h);
		if (st & PERF_SAMPLE_IDENTIFIER)
			off += 8;
		if (st & PERF_SAMPLE_IP)
			off += 8;
		if (st & PERF_SAMPLE_TID)
			off += 8;
		return off + 8 <= h.size ? rd64(rec + off) : 0;
	}
	if (h.type >= PF_RECORD_FINISHED_ROUND || h.type == 0)
		return 0;
	/* trailer: TID TIME ID STREAM_ID CPU IDENTIFIER, from the end */
	off = h.size;
	if (st & PERF_SAMPLE_IDENTIFIER)
		off -= 8;
	if (st & PERF_SAMPLE_CPU)
		off -= 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		off -= 8;
	if (st & PERF_SAMPLE_ID)
		off -= 8;
	off -= 8;
	return off >= sizeof(h) && off < h.size ? rd64(rec + off) : 0;
}
