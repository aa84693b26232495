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

int idmap_build(struct idmap *m, const u64 *const *ids, const int *nr_ids,
		int nr_events, u64 sample_type)
{
	int n = 0;

	for (int e = 0; e < nr_events; e++)
		n += nr_ids[e];
	m->v = calloc(n + 1, sizeof(*m->v));
	if (!m->v)
		return -ENOMEM;
	m->n = 0;
	for (int e = 0; e < nr_events; e++)
		for (int k = 0; k < nr_ids[e]; k++)
			m->v[m->n++] = (struct idmap_ent){ ids[e][k], e };
	qsort(m->v, m->n, sizeof(*m->v), cmp_ent);
	m->nr_events = nr_events;
	m->sample_type = sample_type;
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

int counts_walk(struct pf_counts *c, u64 *per_ev, const struct idmap *m,
		const char *buf, size_t len)
{
	size_t pos = 0;
	u64 st = m->sample_type, t_any;

	c->walk_newest = 0;
	while (pos + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;

		memcpy(&h, buf + pos, sizeof(h));
		if (h.size < sizeof(h) || pos + h.size > len)
			return -EBADMSG;
		if (h.type < PF_RECORD_TYPE_MAX)
			c->nr[h.type]++;
		else
			c->other++;
		c->total++;
		c->bytes += h.size;
		if (h.type == PERF_RECORD_SAMPLE) {
			size_t off = sizeof(h);
			u64 id = 0, t = 0;
			bool have_id = false, have_t = false;

			if (st & PERF_SAMPLE_IDENTIFIER) {
				id = rd64(buf + pos + off);
				have_id = true;
				off += 8;
			}
			if (st & PERF_SAMPLE_IP)
				off += 8;
			if (st & PERF_SAMPLE_TID)
				off += 8;
			if (st & PERF_SAMPLE_TIME) {
				if (off + 8 <= h.size) {
					t = rd64(buf + pos + off);
					have_t = true;
				}
				off += 8;
			}
			if (st & PERF_SAMPLE_ADDR)
				off += 8;
			if (!have_id && (st & PERF_SAMPLE_ID) && off + 8 <= h.size) {
				id = rd64(buf + pos + off);
				have_id = true;
			}
			if (per_ev) {
				int e = have_id ? idmap_find(m, id) : (m->nr_events == 1 ? 0 : -1);

				if (e >= 0)
					per_ev[e]++;
			}
			if (have_t) {
				if (!c->first_time || t < c->first_time)
					c->first_time = t;
				if (t > c->last_time)
					c->last_time = t;
				if (t > c->walk_newest)
					c->walk_newest = t;
			}
		} else if (h.type == PERF_RECORD_LOST && h.size >= 24) {
			c->lost += rd64(buf + pos + 16);
		} else if (h.type == PERF_RECORD_LOST_SAMPLES && h.size >= 16) {
			c->lost_samples += rd64(buf + pos + 8);
		} else if ((h.type == PERF_RECORD_MMAP2 || h.type == PERF_RECORD_MMAP) && c->on_map) {
			c->on_map(c->map_ctx, buf + pos);
		}
		/* perf orders every record by time: a sample's was read above */
		t_any = h.type == PERF_RECORD_SAMPLE ? 0 : record_time(buf + pos, st);
		if (t_any > c->walk_newest)
			c->walk_newest = t_any;
		pos += h.size;
	}
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
