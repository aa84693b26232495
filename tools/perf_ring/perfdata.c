// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writing and reading: the header, the attribute table and the
 * feature sections.  Record data itself is produced elsewhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "perfdata.h"
#include "events.h"
#include "hostinfo.h"
#include "tracing.h"
#include "version.h"

/*
 * An event's room for ids in the file: ids_room when set, so that ids
 * added while a file is written (a CPU that came back) fit before its
 * data, which must not move.
 */
static int id_slots(const struct pf_event *e)
{
	return e->ids_room > e->nr_ids ? e->ids_room : e->nr_ids;
}

static u64 ids_size(const struct pf_event *evs, int nr)
{
	u64 n = 0;

	for (int i = 0; i < nr; i++)
		n += (u64)id_slots(&evs[i]) * sizeof(u64);
	return n;
}

u64 pf_data_offset(const struct pf_event *evs, int nr)
{
	return sizeof(struct pf_header) + ids_size(evs, nr) +
	       (u64)nr * sizeof(struct pf_file_attr);
}

int pf_write_head(int fd, const struct pf_event *evs, int nr, u64 data_size,
		  const u64 *features)
{
	struct pbuf b = { 0 };
	int err = pf_build_head(evs, nr, data_size, features, &b);

	if (!err)
		err = pwrite_full(fd, b.p, b.len, 0);
	pbuf_free(&b);
	return err;
}

int pf_build_head(const struct pf_event *evs, int nr, u64 data_size, const u64 *features,
		  struct pbuf *out)
{
	struct pbuf b = { 0 };
	struct pf_header h;
	u64 off = sizeof(h);
	int err;

	memset(&h, 0, sizeof(h));
	h.magic = PF_MAGIC;
	h.size = sizeof(h);
	h.attr_size = sizeof(struct pf_file_attr);
	h.attrs.offset = sizeof(h) + ids_size(evs, nr);
	h.attrs.size = (u64)nr * sizeof(struct pf_file_attr);
	h.data.offset = pf_data_offset(evs, nr);
	h.data.size = data_size;
	if (features)
		memcpy(h.features, features, sizeof(h.features));

	pbuf_put(&b, &h, sizeof(h));
	for (int i = 0; i < nr; i++) {
		pbuf_put(&b, evs[i].ids, evs[i].nr_ids * sizeof(u64));
		pbuf_zero(&b, (id_slots(&evs[i]) - evs[i].nr_ids) * sizeof(u64));
	}
	for (int i = 0; i < nr; i++) {
		struct pf_file_attr fa;

		memset(&fa, 0, sizeof(fa));
		fa.attr = evs[i].attr;
		fa.ids.offset = off;
		fa.ids.size = evs[i].nr_ids * sizeof(u64);
		off += id_slots(&evs[i]) * sizeof(u64);
		pbuf_put(&b, &fa, sizeof(fa));
	}
	err = b.err;
	if (err) {
		pbuf_free(&b);
		return err;
	}
	*out = b;
	return 0;
}

/* ---- feature sections ---- */

/* -k (pf_set_clock()): as perf's record__init_clock() takes it */
static struct {
	bool set;
	u32 clockid;
	u64 res_ns, tod_ns, clockid_ns;
} pf_clock;

void pf_set_clock(int clockid)
{
	struct timespec res, ts;
	struct timeval tod;

	pf_clock.set = true;
	pf_clock.clockid = clockid;
	pf_clock.res_ns = clock_getres(clockid, &res) ? 0 :
			  (u64)res.tv_sec * 1000000000ULL + res.tv_nsec;
	/* the two reference times back to back, time of day first, as perf */
	gettimeofday(&tod, NULL);
	if (clock_gettime(clockid, &ts)) {
		pf_clock.set = false;	/* the events could not use it either */
		return;
	}
	pf_clock.tod_ns = (u64)tod.tv_sec * 1000000000ULL + (u64)tod.tv_usec * 1000;
	pf_clock.clockid_ns = (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Features that are not written at all in this run. */
static bool feat_off(int f)
{
	return (f == PF_FEAT_CLOCKID && !(pf_clock.set && pf_clock.res_ns)) ||
	       (f == PF_FEAT_CLOCK_DATA && !pf_clock.set);
}

static int build_feature(int feat, const struct pf_event *evs, int nr,
			 const struct pf_meta *meta, struct pbuf *b)
{
	const struct hostinfo *h = meta->host;

	switch (feat) {
	case PF_FEAT_TRACING_DATA:
		if (!meta->tracing)
			return tracing_data_build(evs, nr, meta->tracefs, b);
		pbuf_put(b, meta->tracing->p, meta->tracing->len);
		break;
	case PF_FEAT_GROUP_DESC:
		events_group_desc(evs, nr, b);
		break;
	case PF_FEAT_BUILD_ID:
		pbuf_put(b, meta->build_ids->p, meta->build_ids->len);
		break;
	case PF_FEAT_HOSTNAME:
		pbuf_pstr(b, h->u.nodename);
		break;
	case PF_FEAT_OSRELEASE:
		pbuf_pstr(b, h->u.release);
		break;
	case PF_FEAT_VERSION:
		/*
		 * As perf writes it: the bare version number its --version
		 * prints ("6.1.187"), here perf-ring's ("1.0-g2928293").
		 */
		pbuf_pstr(b, perf_ring_version);
		break;
	case PF_FEAT_ARCH:
		pbuf_pstr(b, h->u.machine);
		break;
	case PF_FEAT_NRCPUS:
		pbuf_u32(b, h->nr_conf);
		pbuf_u32(b, h->nr_online);
		break;
	case PF_FEAT_CPUDESC:
		pbuf_put(b, h->cpudesc.p, h->cpudesc.len);
		break;
	case PF_FEAT_CPUID:
		pbuf_put(b, h->cpuid.p, h->cpuid.len);
		break;
	case PF_FEAT_TOTAL_MEM:
		pbuf_u64(b, h->mem_kb);
		break;
	case PF_FEAT_CMDLINE:
		pbuf_u32(b, meta->argc);
		for (int i = 0; i < meta->argc; i++)
			pbuf_pstr(b, meta->argv[i]);
		break;
	case PF_FEAT_EVENT_DESC:
		pbuf_u32(b, nr);
		pbuf_u32(b, sizeof(struct perf_event_attr));
		for (int i = 0; i < nr; i++) {
			pbuf_put(b, &evs[i].attr, sizeof(evs[i].attr));
			pbuf_u32(b, evs[i].nr_ids);
			pbuf_pstr(b, evs[i].name);
			pbuf_put(b, evs[i].ids, evs[i].nr_ids * sizeof(u64));
		}
		break;
	case PF_FEAT_CPU_TOPOLOGY:
		pbuf_put(b, h->topology.p, h->topology.len);
		break;
	case PF_FEAT_PMU_MAPPINGS:
		pbuf_put(b, h->pmus.p, h->pmus.len);
		break;
	case PF_FEAT_SAMPLE_TIME:
		pbuf_u64(b, meta->first_time);
		pbuf_u64(b, meta->last_time);
		break;
	case PF_FEAT_COMPRESSED:
		/* the version: perf writes 0 (header.env.comp_ver is never set) */
		pbuf_u32(b, 0);
		pbuf_u32(b, PF_COMP_ZSTD);
		pbuf_u32(b, meta->comp.level);
		pbuf_u32(b, meta->comp.ratio);
		pbuf_u32(b, meta->comp.mmap_len);
		break;
	case PF_FEAT_CLOCKID:
		pbuf_u64(b, pf_clock.res_ns);
		break;
	case PF_FEAT_CLOCK_DATA:
		/* perf's version 1: clockid, then the two reference times */
		pbuf_u32(b, 1);
		pbuf_u32(b, pf_clock.clockid);
		pbuf_u64(b, pf_clock.tod_ns);
		pbuf_u64(b, pf_clock.clockid_ns);
		break;
	case PF_FEAT_PERF_RING:
		pbuf_u64(b, PF_PRIV_MAGIC);
		pbuf_u64(b, meta->overwritten);
		pbuf_u64(b, meta->snapshot);
		break;
	default:
		return -EINVAL;
	}
	return b->err;
}

/*
 * meta with its host: the one it holds, or the host read now into *now
 * (hostinfo_free() it after).  NULL: out of memory.
 */
static const struct pf_meta *with_host(const struct pf_meta *meta, struct pf_meta *m,
				       struct hostinfo *now)
{
	if (meta->host)
		return meta;
	if (hostinfo_refresh(now))
		return NULL;
	*m = *meta;
	m->host = now;
	return m;
}

static int features_of(const struct pf_event *evs, int nr,
		       const struct pf_meta *meta, u64 off,
		       u64 *features, struct pbuf *out)
{
	static const int order[] = {
		PF_FEAT_TRACING_DATA, PF_FEAT_BUILD_ID, PF_FEAT_HOSTNAME, PF_FEAT_OSRELEASE,
		PF_FEAT_VERSION, PF_FEAT_ARCH, PF_FEAT_NRCPUS, PF_FEAT_CPUDESC,
		PF_FEAT_CPUID, PF_FEAT_TOTAL_MEM, PF_FEAT_CMDLINE,
		PF_FEAT_EVENT_DESC, PF_FEAT_CPU_TOPOLOGY, PF_FEAT_PMU_MAPPINGS, PF_FEAT_GROUP_DESC,
		PF_FEAT_SAMPLE_TIME, PF_FEAT_CLOCKID, PF_FEAT_COMPRESSED, PF_FEAT_CLOCK_DATA,
	};
	/* the bodies one after another; feature i's from start[i] to start[i + 1] */
	struct pbuf body = { 0 };
	size_t start[ARRAY_SIZE(order) + 1];
	int feats[ARRAY_SIZE(order)];
	int n = 0, err = 0;
	bool has_tp = false;
	u64 pos;

	memset(features, 0, PF_FEAT_BITS / 8);
	for (int i = 0; i < nr; i++)
		if (evs[i].tp_sys[0])
			has_tp = true;

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		size_t at = body.len;
		int f = order[i];

		if (f == PF_FEAT_TRACING_DATA && !has_tp)
			continue;
		if (f == PF_FEAT_COMPRESSED && !meta->comp.on)
			continue;
		if (f == PF_FEAT_BUILD_ID && (!meta->build_ids || !meta->build_ids->len))
			continue;
		if (f == PF_FEAT_SAMPLE_TIME && !meta->last_time)
			continue;
		if (f == PF_FEAT_GROUP_DESC && !events_nr_groups(evs, nr))
			continue;
		if (feat_off(f))
			continue;
		err = build_feature(f, evs, nr, meta, &body);
		if (err) {
			/* a feature we cannot build is left out, not fatal */
			body.len = at;
			body.err = 0;
			if (f == PF_FEAT_TRACING_DATA)
				fprintf(stderr, "perf-ring: warning: tracing data: %s; "
					"tracepoint fields will not decode\n", strerror(-err));
			err = 0;
			continue;
		}
		start[n] = at;
		feats[n++] = f;
	}
	start[n] = body.len;

	/* The section index comes first, in bit order, then the bodies. */
	pos = off + (u64)n * sizeof(struct pf_section);
	for (int i = 0; i < n; i++) {
		struct pf_section s = { pos, start[i + 1] - start[i] };

		pbuf_put(out, &s, sizeof(s));
		pos += s.size;
		features[feats[i] / 64] |= 1ULL << (feats[i] % 64);
	}
	pbuf_put(out, body.p, body.len);
	pbuf_free(&body);
	/*
	 * perf-ring's own counts go last, after every section and in none:
	 * perf reads sections through the feature bits only, and a bit it
	 * does not know made perf inject 6.1 crash (it looks up a writer for
	 * every bit set).  perf-ring report finds them at the end of the file.
	 */
	if (meta->flight) {
		struct pbuf priv = { 0 };

		if (meta->whole) {
			pbuf_u64(out, PF_PRIV_WIN_MAGIC);
			pbuf_u64(out, meta->window_start);
		}
		build_feature(PF_FEAT_PERF_RING, evs, nr, meta, &priv);
		pbuf_put(out, priv.p, priv.len);
		pbuf_free(&priv);
	}
	return out->err;
}

int pf_build_features(const struct pf_event *evs, int nr,
		      const struct pf_meta *meta, u64 off,
		      u64 *features, struct pbuf *out)
{
	struct hostinfo now = { 0 };
	struct pf_meta m;
	const struct pf_meta *mh = with_host(meta, &m, &now);
	int err = mh ? features_of(evs, nr, mh, off, features, out) : -ENOMEM;

	hostinfo_free(&now);
	return err;
}

/*
 * perf's pipe format (perf.data-file-format.txt, "Pipe-mode data"): a
 * 16-byte header, then everything the file format keeps in its header
 * travels as records ahead of the data: one HEADER_ATTR per event (its
 * attribute and ids), one HEADER_FEATURE per feature, a HEADER_FEATURE
 * with feat_id PF_FEAT_LAST as the end mark, and HEADER_TRACING_DATA
 * followed by the tracing data itself.  Records in this part need not be
 * 8-byte aligned (perf's are not).  What is only known at the end (the
 * samples' time span) is left out; build-ids go at the end as records
 * (pf_build_pipe_buildids()).
 */
static int pipe_head_of(const struct pf_event *evs, int nr,
			const struct pf_meta *meta, struct pbuf *out)
{
	static const int order[] = {
		PF_FEAT_HOSTNAME, PF_FEAT_OSRELEASE, PF_FEAT_VERSION, PF_FEAT_ARCH,
		PF_FEAT_NRCPUS, PF_FEAT_CPUDESC, PF_FEAT_CPUID, PF_FEAT_TOTAL_MEM,
		PF_FEAT_CMDLINE, PF_FEAT_EVENT_DESC, PF_FEAT_CPU_TOPOLOGY,
		PF_FEAT_PMU_MAPPINGS, PF_FEAT_GROUP_DESC, PF_FEAT_CLOCKID, PF_FEAT_COMPRESSED,
		PF_FEAT_CLOCK_DATA,
	};
	struct perf_event_header h;
	bool has_tp = false;

	pbuf_u64(out, PF_MAGIC);
	pbuf_u64(out, PF_PIPE_HEADER_SIZE);
	for (int i = 0; i < nr; i++) {
		/* perf finds the ids after attr.size bytes of attribute */
		struct perf_event_attr a = evs[i].attr;

		if (!a.size || a.size > sizeof(a))
			a.size = sizeof(a);
		h.type = PF_RECORD_HEADER_ATTR;
		h.misc = 0;
		h.size = sizeof(h) + a.size + evs[i].nr_ids * sizeof(u64);
		pbuf_put(out, &h, sizeof(h));
		pbuf_put(out, &a, a.size);
		pbuf_put(out, evs[i].ids, evs[i].nr_ids * sizeof(u64));
		if (evs[i].tp_sys[0])
			has_tp = true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		struct pbuf body = { 0 };
		int f = order[i];

		if (f == PF_FEAT_COMPRESSED && !meta->comp.on)
			continue;
		if (f == PF_FEAT_GROUP_DESC && !events_nr_groups(evs, nr))
			continue;
		if (feat_off(f))
			continue;
		if (build_feature(f, evs, nr, meta, &body) || body.len + 16 > 0xffff) {
			pbuf_free(&body);	/* left out, as in a file */
			continue;
		}
		h.type = PF_RECORD_HEADER_FEATURE;
		h.misc = 0;
		h.size = 16 + body.len;
		pbuf_put(out, &h, sizeof(h));
		pbuf_u64(out, f);
		pbuf_put(out, body.p, body.len);
		pbuf_free(&body);
	}
	h.type = PF_RECORD_HEADER_FEATURE;
	h.misc = 0;
	h.size = 16;
	pbuf_put(out, &h, sizeof(h));
	pbuf_u64(out, PF_FEAT_LAST);
	if (has_tp) {
		struct pbuf td = { 0 };
		int err = tracing_data_build(evs, nr, meta->tracefs, &td);

		if (err) {
			fprintf(stderr, "perf-ring: warning: tracing data: %s; "
				"tracepoint fields will not decode\n", strerror(-err));
		} else {
			u32 len = ALIGN_UP(td.len, 8);

			h.type = PF_RECORD_HEADER_TRACING_DATA;
			h.misc = 0;
			h.size = 16;
			pbuf_put(out, &h, sizeof(h));
			pbuf_u32(out, len);
			pbuf_zero(out, 4);
			pbuf_put(out, td.p, td.len);
			pbuf_zero(out, len - td.len);
		}
		pbuf_free(&td);
	}
	return out->err;
}

int pf_build_pipe_head(const struct pf_event *evs, int nr,
		       const struct pf_meta *meta, struct pbuf *out)
{
	struct hostinfo now = { 0 };
	struct pf_meta m;
	const struct pf_meta *mh = with_host(meta, &m, &now);
	int err = mh ? pipe_head_of(evs, nr, mh, out) : -ENOMEM;

	hostinfo_free(&now);
	return err;
}

void pf_build_pipe_buildids(const struct pbuf *section, struct pbuf *out)
{
	size_t pos = 0;

	while (pos + sizeof(struct perf_event_header) <= section->len) {
		struct perf_event_header h;

		memcpy(&h, section->p + pos, sizeof(h));
		if (h.size < sizeof(h) || pos + h.size > section->len)
			break;
		h.type = PF_RECORD_HEADER_BUILD_ID;
		pbuf_put(out, &h, sizeof(h));
		pbuf_put(out, section->p + pos + sizeof(h), h.size - sizeof(h));
		pos += h.size;
	}
}

/* ---- reading ---- */

bool pf_has_feat(const struct pf_header *h, int feat)
{
	return h->features[feat / 64] & (1ULL << (feat % 64));
}

/*
 * The small fields of the attribute table and of HEADER_EVENT_DESC, read
 * at increasing offsets: 64 KiB at a time, not one pread() each (a table
 * of 65536 attributes is 65536 system calls otherwise).
 */
struct rdbuf {
	int fd;
	u64 file_size;
	u64 base;
	size_t len;
	char buf[1 << 16];
};

static void rd_init(struct rdbuf *r, int fd, u64 file_size)
{
	r->fd = fd;
	r->file_size = file_size;
	r->base = 0;
	r->len = 0;
}

static int rd_get(struct rdbuf *r, void *dst, size_t n, u64 off)
{
	size_t want;
	int err;

	if (off >= r->base && off - r->base <= r->len && r->len - (off - r->base) >= n) {
		memcpy(dst, r->buf + (off - r->base), n);
		return 0;
	}
	want = sizeof(r->buf);
	if (off < r->file_size && r->file_size - off < want)
		want = r->file_size - off;
	if (n > sizeof(r->buf) || off >= r->file_size || want < n)
		return pread_full(r->fd, dst, n, off);
	err = pread_full(r->fd, r->buf, want, off);
	if (err) {
		r->len = 0;
		return err;
	}
	r->base = off;
	r->len = want;
	memcpy(dst, r->buf, n);
	return 0;
}

static int read_pstr(struct rdbuf *rd, u64 *off, u64 end, char *dst, size_t dlen)
{
	u32 len;
	char *tmp;
	int err;

	if (*off > end || end - *off < 4)
		return -EINVAL;
	err = rd_get(rd, &len, 4, *off);
	if (err)
		return err;
	if (len > 65536 || end - *off - 4 < len)
		return -EINVAL;
	tmp = malloc(len + 1);
	if (!tmp)
		return -ENOMEM;
	err = rd_get(rd, tmp, len, *off + 4);
	if (!err) {
		tmp[len] = 0;
		snprintf(dst, dlen, "%s", tmp);
	}
	free(tmp);
	*off += 4 + len;
	return err;
}

struct id_ev {
	u64 id;
	int ev;
};

static int cmp_id_ev(const void *a, const void *b)
{
	const struct id_ev *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/*
 * HEADER_EVENT_DESC: per entry an attribute, a count of ids, a name and
 * the ids.  An entry names the event that has its first id; the ids are
 * sorted once, so that the section is read in n log n whatever its
 * counts say.  Every count is checked against the section's end before
 * it moves the offset.
 */
static int read_event_desc(struct pf_file *f, u64 off, u64 end)
{
	struct id_ev *map = NULL;
	size_t nmap = 0, total = 0;
	struct rdbuf *rd;
	u32 nre, sz;
	int err;

	if (off > end || end - off < 8)
		return -EINVAL;
	rd = malloc(sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	rd_init(rd, f->fd, f->file_size);
	err = rd_get(rd, &nre, 4, off);
	if (!err)
		err = rd_get(rd, &sz, 4, off + 4);
	off += 8;
	/* an entry takes at least 8 bytes (ids count and name length) */
	if (!err && ((nre && sz > 4096) || nre > (end - off) / 8))
		err = -EINVAL;
	if (err) {
		free(rd);
		return err;
	}
	for (int e = 0; e < f->nr_evs; e++)
		total += f->evs[e].nr_ids;
	if (nre && total) {
		map = malloc(total * sizeof(*map));
		if (!map) {
			free(rd);
			return -ENOMEM;
		}
		for (int e = 0; e < f->nr_evs; e++)
			for (int k = 0; k < f->evs[e].nr_ids; k++)
				map[nmap++] = (struct id_ev){ f->evs[e].ids[k], e };
		qsort(map, nmap, sizeof(*map), cmp_id_ev);
	}
	for (u32 i = 0; i < nre; i++) {
		struct perf_event_attr attr;
		u32 nr_ids;
		char name[256];

		memset(&attr, 0, sizeof(attr));
		err = -EINVAL;
		if (end - off < (u64)sz + 4)
			break;
		err = rd_get(rd, &attr, sz < sizeof(attr) ? sz : sizeof(attr), off);
		if (err)
			break;
		off += sz;
		err = rd_get(rd, &nr_ids, 4, off);
		if (err)
			break;
		off += 4;
		err = read_pstr(rd, &off, end, name, sizeof(name));
		if (err)
			break;
		err = -EINVAL;
		if ((u64)nr_ids * 8 > end - off)
			break;
		err = 0;
		if (nr_ids) {
			struct id_ev key = { 0 }, *hit = NULL;

			err = rd_get(rd, &key.id, 8, off);
			if (err)
				break;
			if (map)
				hit = bsearch(&key, map, nmap, sizeof(*map), cmp_id_ev);
			if (hit)
				snprintf(f->evs[hit->ev].name, sizeof(f->evs[hit->ev].name), "%s", name);
		} else if (i < (u32)f->nr_evs && !f->evs[i].name[0]) {
			snprintf(f->evs[i].name, sizeof(f->evs[i].name), "%s", name);
		}
		off += (u64)nr_ids * 8;
	}
	free(map);
	free(rd);
	return err;
}

/* Whether [off, off + size) leaves the file; off + size may wrap. */
static bool pf_outside(u64 off, u64 size, u64 file_size)
{
	return size > file_size || off > file_size - size;
}

/*
 * salvage: the header's data size and feature sections are not trusted
 * (a recording killed before it finalized the file has a data size of 0
 * and no features; a truncated one has sections beyond its end): the data
 * section is taken to run to the end of the file, and no feature is read.
 */
/* perf-ring's counts (PF_PRIV_MAGIC, overwritten, snapshot) at off, if there. */
static int read_priv(struct pf_file *f, u64 off)
{
	u64 v[3];
	int err = pread_full(f->fd, v, sizeof(v), off);

	if (err || v[0] != PF_PRIV_MAGIC)
		return err;
	f->has_priv = true;
	f->overwritten = v[1];
	f->snapshot = v[2];
	return 0;
}

/* A snapshot of whole buffers' mark (PF_PRIV_WIN_MAGIC, start) at off, if there. */
static int read_window(struct pf_file *f, u64 off)
{
	u64 v[2];
	int err = pread_full(f->fd, v, sizeof(v), off);

	if (err || v[0] != PF_PRIV_WIN_MAGIC)
		return err;
	f->has_window = true;
	f->window_start = v[1];
	return 0;
}

/*
 * Room for one more event in f->evs, doubling (a pipe-format file adds
 * them one record at a time), up to PF_READ_EVENTS_MAX.
 */
static int evs_grow(struct pf_file *f, int *room)
{
	struct pf_reader_event *v;
	int n;

	if (f->nr_evs < *room)
		return 0;
	if (f->nr_evs >= PF_READ_EVENTS_MAX) {
		snprintf(f->errmsg, sizeof(f->errmsg), "more than %d events", PF_READ_EVENTS_MAX);
		return -E2BIG;
	}
	n = *room ? *room * 2 : 8;
	if (n > PF_READ_EVENTS_MAX)
		n = PF_READ_EVENTS_MAX;
	v = realloc(f->evs, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->evs = v;
	*room = n;
	return 0;
}

/*
 * One HEADER_ATTR record of a pipe-format file: an event and its ids.
 * *total counts the ids of all events so far (bounded by PF_READ_IDS_MAX).
 */
static int pipe_attr(struct pf_file *f, u64 off, u32 size, int *room, u64 *total)
{
	struct pf_reader_event *e;
	struct perf_event_attr attr;
	u32 asz;
	int err;

	if (size < 16)
		return -EINVAL;
	/* attr.type and attr.size */
	memset(&attr, 0, sizeof(attr));
	err = pread_full(f->fd, &attr, 8, off + 8);
	if (err)
		return err;
	asz = attr.size;
	if (asz < PERF_ATTR_SIZE_VER0 || 8 + asz > size || (size - 8 - asz) % 8)
		return -EINVAL;
	err = evs_grow(f, room);
	if (err)
		return err;
	e = &f->evs[f->nr_evs];
	memset(e, 0, sizeof(*e));
	err = pread_full(f->fd, &e->attr, asz < sizeof(e->attr) ? asz : sizeof(e->attr), off + 8);
	if (err)
		return err;
	e->nr_ids = (size - 8 - asz) / 8;
	*total += e->nr_ids;
	if (*total > PF_READ_IDS_MAX) {
		snprintf(f->errmsg, sizeof(f->errmsg), "more than %u sample ids", PF_READ_IDS_MAX);
		return -E2BIG;
	}
	e->ids = calloc(e->nr_ids + 1, 8);
	if (!e->ids)
		return -ENOMEM;
	f->nr_evs++;
	return pread_full(f->fd, e->ids, e->nr_ids * 8, off + 8 + asz);
}

/*
 * perf's pipe format (pf_build_pipe_head()): the records ahead of the
 * data say what the file header says, and the data runs to the end of
 * the file.  Only what the reader needs is taken from them.
 */
static int open_pipe(struct pf_file *f)
{
	u64 off = PF_PIPE_HEADER_SIZE, total = 0;
	int err = 0, room = 0;

	f->pipe = true;
	while (off + sizeof(struct perf_event_header) <= f->file_size) {
		struct perf_event_header h;
		u64 feat, end;

		err = pread_full(f->fd, &h, sizeof(h), off);
		if (err)
			return err;
		end = off + h.size;
		if (h.size < sizeof(h) || end > f->file_size) {
			snprintf(f->errmsg, sizeof(f->errmsg),
				 "corrupt record at offset %llu of the pipe header",
				 (unsigned long long)off);
			return -EINVAL;
		}
		if (h.type == PF_RECORD_HEADER_ATTR) {
			err = pipe_attr(f, off, h.size, &room, &total);
			if (err == -EINVAL)
				snprintf(f->errmsg, sizeof(f->errmsg),
					 "corrupt attribute record at offset %llu",
					 (unsigned long long)off);
		} else if (h.type == PF_RECORD_HEADER_FEATURE && h.size >= 16) {
			err = pread_full(f->fd, &feat, 8, off + 8);
			if (!err && feat == PF_FEAT_EVENT_DESC && read_event_desc(f, off + 16, end)) {
				snprintf(f->errmsg, sizeof(f->errmsg), "corrupt event description");
				err = -EINVAL;
			} else if (!err && feat == PF_FEAT_COMPRESSED && h.size >= 16 + 20) {
				u32 v[5];

				err = pread_full(f->fd, v, sizeof(v), off + 16);
				f->has_comp_feat = true;
				f->comp.on = true;
				f->comp.level = v[2];
				f->comp.ratio = v[3];
				f->comp.mmap_len = v[4];
			}
		} else if (h.type == PF_RECORD_HEADER_TRACING_DATA && h.size >= 12) {
			u32 len;

			err = pread_full(f->fd, &len, 4, off + 8);
			end += len;
			if (!err && end > f->file_size) {
				snprintf(f->errmsg, sizeof(f->errmsg),
					 "truncated inside the tracing data");
				err = -EINVAL;
			}
		} else {
			break;	/* the first data record */
		}
		if (err)
			return err;
		off = end;
	}
	f->h.magic = PF_MAGIC;
	f->h.data.offset = off;
	f->h.data.size = f->file_size - off;
	for (int i = 0; i < f->nr_evs; i++)
		if (!f->evs[i].name[0])
			snprintf(f->evs[i].name, sizeof(f->evs[i].name), "event%d(type %u config %#llx)",
				 i, f->evs[i].attr.type, (unsigned long long)f->evs[i].attr.config);
	return 0;
}

/*
 * Standard input as a stream is checked as it comes: the magic in its
 * first 8 bytes, then, in perf's pipe format, each record's header as it
 * is reached, so that anything but a perf.data stream fails at once
 * instead of being held in memory first.  In the file format (a header
 * and sections at offsets), the header is checked.
 */
struct stream_check {
	int fd;			/* the copy, read back at offsets */
	u64 pos;		/* bytes copied */
	u64 next;		/* pipe format: offset of the next record header */
	bool pipe;
	char *errmsg;
	size_t errlen;
};

static int stream_check(struct stream_check *c)
{
	u64 head[2];
	int err;

	if (c->pos < 8)
		return 0;
	if (!c->next) {
		err = pread_full(c->fd, head, c->pos < 16 ? 8 : 16, 0);
		if (err)
			return err;
		if (head[0] != PF_MAGIC) {
			snprintf(c->errmsg, c->errlen, "bad magic (not a perf.data stream)");
			return -EINVAL;
		}
		if (c->pos < 16)
			return 0;
		if (head[1] != PF_PIPE_HEADER_SIZE && head[1] != sizeof(struct pf_header)) {
			snprintf(c->errmsg, c->errlen, "unsupported header size");
			return -EINVAL;
		}
		c->pipe = head[1] == PF_PIPE_HEADER_SIZE;
		c->next = head[1];
	}
	/* the headers of the records that start in the bytes copied so far */
	while (c->pipe && c->next + 12 <= c->pos) {
		struct perf_event_header h;
		u64 at = c->next;
		u32 len = 0;

		err = pread_full(c->fd, &h, sizeof(h), at);
		if (!err && h.type == PF_RECORD_HEADER_TRACING_DATA && h.size >= 12)
			err = pread_full(c->fd, &len, 4, at + 8);
		if (err)
			return err;
		if (h.size < sizeof(h)) {
			snprintf(c->errmsg, c->errlen,
				 "corrupt record at offset %llu of the stream (size %u)",
				 (unsigned long long)at, h.size);
			return -EINVAL;
		}
		/* the tracing data follows its record */
		c->next = at + h.size + len;
	}
	return 0;
}

static int open_stdin(char *errmsg, size_t errlen)
{
	char buf[1 << 16];
	struct stat st;
	struct stream_check c = { .errmsg = errmsg, .errlen = errlen };
	int fd, err;
	ssize_t n;

	/* a file on standard input is read where it is */
	if (!fstat(STDIN_FILENO, &st) && S_ISREG(st.st_mode)) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	/* a stream is copied into an anonymous file, to be read at offsets */
	fd = memfd_create("perf-ring-stdin", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	c.fd = fd;
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto fail;
		}
		err = write_full(fd, buf, n);
		if (err)
			goto fail;
		c.pos += n;
		err = stream_check(&c);
		if (err)
			goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

/*
 * owned: perf's rule (util/data.c): a file that neither the caller nor
 * root owns is refused, before a byte of it is read.  Standard input is
 * whatever the caller gave.
 */
/* The fd of path ("-": standard input), checked as pf_open_owned() says. */
static int open_fd(struct pf_file *f, const char *path, bool owned)
{
	struct stat st;
	int err;

	f->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) :
		open_stdin(f->errmsg, sizeof(f->errmsg));
	if (f->fd < 0) {
		err = f->fd == -1 ? -errno : f->fd;
		if (!f->errmsg[0])
			snprintf(f->errmsg, sizeof(f->errmsg), "%s", strerror(-err));
		return err;
	}
	if (fstat(f->fd, &st)) {
		err = -errno;
		snprintf(f->errmsg, sizeof(f->errmsg), "%s", strerror(errno));
		return err;
	}
	if (owned && strcmp(path, "-") && st.st_uid && st.st_uid != geteuid()) {
		snprintf(f->errmsg, sizeof(f->errmsg),
			 "file not owned by current user or root (use -f to override)");
		return -EPERM;
	}
	f->file_size = st.st_size;
	return 0;
}

/*
 * The header of a seekable file: its sizes, and its sections inside the
 * file.  salvage: the data runs to the end of the file, no features.
 */
static int read_header(struct pf_file *f, bool salvage)
{
	int err;

	if (f->file_size < sizeof(f->h)) {
		snprintf(f->errmsg, sizeof(f->errmsg),
			 "file is %llu bytes, shorter than a perf.data header",
			 (unsigned long long)f->file_size);
		return -EINVAL;
	}
	err = pread_full(f->fd, &f->h, sizeof(f->h), 0);
	if (err)
		return err;
	if (f->h.magic != PF_MAGIC) {
		snprintf(f->errmsg, sizeof(f->errmsg), "bad magic (not a perf.data file)");
		return -EINVAL;
	}
	if (f->h.size != sizeof(f->h) || f->h.attr_size < PERF_ATTR_SIZE_VER0 + 16 ||
	    f->h.attr_size > 4096) {
		snprintf(f->errmsg, sizeof(f->errmsg), "unsupported header size");
		return -EINVAL;
	}
	if (pf_outside(f->h.attrs.offset, f->h.attrs.size, f->file_size) ||
	    f->h.attrs.size % f->h.attr_size) {
		snprintf(f->errmsg, sizeof(f->errmsg), "attribute section is outside the file");
		return -EINVAL;
	}
	if (salvage) {
		if (f->h.data.offset > f->file_size) {
			snprintf(f->errmsg, sizeof(f->errmsg),
				 "truncated inside the attributes: nothing to recover");
			return -EINVAL;
		}
		/*
		 * A header's data size that fits the file is the data's end:
		 * what follows is feature sections (a snapshot's, written
		 * with its data in one pwritev(), cut short by a kill after
		 * the data went).  0, or beyond the end: the data runs to it.
		 */
		if (!f->h.data.size || f->h.data.size > f->file_size - f->h.data.offset)
			f->h.data.size = f->file_size - f->h.data.offset;
		memset(f->h.features, 0, sizeof(f->h.features));
		if (!f->h.data.size) {
			snprintf(f->errmsg, sizeof(f->errmsg),
				 "no data after the header: nothing to recover");
			return -ENODATA;
		}
	}
	if (f->h.data.size == 0) {
		snprintf(f->errmsg, sizeof(f->errmsg),
			 "data size is 0: the recording was not finalized (killed?); "
			 "'perf-ring report --recover -i FILE -o OUT' rebuilds it");
		return -EINVAL;
	}
	if (pf_outside(f->h.data.offset, f->h.data.size, f->file_size)) {
		snprintf(f->errmsg, sizeof(f->errmsg),
			 "truncated: data section ends at %llu, file is %llu bytes "
			 "('perf-ring report --recover' keeps the whole records)",
			 (unsigned long long)(f->h.data.offset + f->h.data.size),
			 (unsigned long long)f->file_size);
		return -EINVAL;
	}
	return 0;
}

/* The attribute table and the id tables it points to. */
static int read_attrs(struct pf_file *f)
{
	u64 ids_total = 0;
	struct rdbuf *rd;
	int err = 0;

	if (f->h.attrs.size / f->h.attr_size > PF_READ_EVENTS_MAX) {
		snprintf(f->errmsg, sizeof(f->errmsg), "%llu events: more than %d",
			 (unsigned long long)(f->h.attrs.size / f->h.attr_size), PF_READ_EVENTS_MAX);
		return -E2BIG;
	}
	f->nr_evs = f->h.attrs.size / f->h.attr_size;
	f->evs = calloc(f->nr_evs ? f->nr_evs : 1, sizeof(*f->evs));
	rd = malloc(sizeof(*rd));
	if (!f->evs || !rd) {
		free(rd);
		return -ENOMEM;
	}
	rd_init(rd, f->fd, f->file_size);
	for (int i = 0; i < f->nr_evs; i++) {
		struct pf_reader_event *e = &f->evs[i];
		u64 off = f->h.attrs.offset + i * f->h.attr_size;
		u64 asz = f->h.attr_size - sizeof(struct pf_section);
		struct pf_section ids;

		err = rd_get(rd, &e->attr, asz < sizeof(e->attr) ? asz : sizeof(e->attr), off);
		if (!err)
			err = rd_get(rd, &ids, sizeof(ids), off + asz);
		if (err)
			break;
		if (pf_outside(ids.offset, ids.size, f->file_size) || ids.size > (1 << 24)) {
			snprintf(f->errmsg, sizeof(f->errmsg), "id table of event %d is outside the file", i);
			err = -EINVAL;
			break;
		}
		/*
		 * Tables may overlap in a hostile file: their sum is bounded
		 * by the file's size, and by the id map's limit.
		 */
		ids_total += ids.size;
		if (ids_total > f->file_size || ids_total / 8 > PF_READ_IDS_MAX) {
			snprintf(f->errmsg, sizeof(f->errmsg),
				 "id tables add up to more than the file (event %d)", i);
			err = -EINVAL;
			break;
		}
		e->nr_ids = ids.size / 8;
		e->ids = calloc(e->nr_ids + 1, 8);
		err = e->ids ? pread_full(f->fd, e->ids, ids.size, ids.offset) : -ENOMEM;
		if (err)
			break;
	}
	free(rd);
	return err;
}

/* What the reader takes from feature section b, at s (inside the file). */
static int read_feature(struct pf_file *f, int b, const struct pf_section *s)
{
	int err = 0;

	if (b == PF_FEAT_EVENT_DESC) {
		if (read_event_desc(f, s->offset, s->offset + s->size)) {
			snprintf(f->errmsg, sizeof(f->errmsg), "corrupt event description");
			return -EINVAL;
		}
	} else if (b == PF_FEAT_COMPRESSED && s->size >= 20) {
		u32 v[5];

		err = pread_full(f->fd, v, sizeof(v), s->offset);
		if (err)
			return err;
		f->has_comp_feat = true;
		f->comp.on = true;
		f->comp.level = v[2];
		f->comp.ratio = v[3];
		f->comp.mmap_len = v[4];
	} else if (b == PF_FEAT_SAMPLE_TIME && s->size >= 16) {
		u64 t[2];

		err = pread_full(f->fd, t, sizeof(t), s->offset);
		if (err)
			return err;
		f->has_sample_time = true;
		f->first_time = t[0];
		f->last_time = t[1];
	} else if (b == PF_FEAT_PERF_RING && s->size >= 24) {
		err = read_priv(f, s->offset);
	}
	return err;
}

/* The feature sections after the data, and perf-ring's counts. */
static int read_features(struct pf_file *f)
{
	u64 nfeat = 0, fidx = 0, feat_total = 0;
	int err;

	for (int b = 0; b < PF_FEAT_BITS; b++)
		if (pf_has_feat(&f->h, b))
			nfeat++;
	if (f->h.data.offset + f->h.data.size + nfeat * sizeof(struct pf_section) > f->file_size) {
		snprintf(f->errmsg, sizeof(f->errmsg), "feature sections are missing (truncated file)");
		return -EINVAL;
	}
	for (int b = 0; b < PF_FEAT_BITS; b++) {
		struct pf_section s;

		if (!pf_has_feat(&f->h, b))
			continue;
		err = pread_full(f->fd, &s, sizeof(s),
				 f->h.data.offset + f->h.data.size + fidx++ * sizeof(s));
		if (err)
			return err;
		if (pf_outside(s.offset, s.size, f->file_size)) {
			snprintf(f->errmsg, sizeof(f->errmsg),
				 "feature %d lies outside the file (truncated)", b);
			return -EINVAL;
		}
		/* sections do not overlap: together they fit in the file */
		feat_total += s.size;
		if (feat_total > f->file_size) {
			snprintf(f->errmsg, sizeof(f->errmsg),
				 "feature sections add up to more than the file (feature %d)", b);
			return -EINVAL;
		}
		err = read_feature(f, b, &s);
		if (err)
			return err;
	}
	/* perf-ring's counts at the end of the file (pf_build_features()) */
	if (!f->has_priv && f->file_size >= 24 &&
	    f->file_size - 24 >= f->h.data.offset + f->h.data.size)
		err = read_priv(f, f->file_size - 24);
	/* and before them, a snapshot of whole buffers' mark */
	if (!err && f->has_priv && f->file_size >= 40 &&
	    f->file_size - 40 >= f->h.data.offset + f->h.data.size)
		err = read_window(f, f->file_size - 40);
	return err;
}

static int open_file(struct pf_file *f, const char *path, bool salvage, bool owned)
{
	u64 head[2];
	int err;

	memset(f, 0, sizeof(*f));
	err = open_fd(f, path, owned);
	if (err)
		return err;
	if (f->file_size >= sizeof(head) && !pread_full(f->fd, head, sizeof(head), 0) &&
	    head[0] == PF_MAGIC && head[1] == PF_PIPE_HEADER_SIZE)
		return open_pipe(f);
	err = read_header(f, salvage) ?: read_attrs(f) ?: read_features(f);
	if (err)
		return err;
	for (int i = 0; i < f->nr_evs; i++)
		if (!f->evs[i].name[0])
			snprintf(f->evs[i].name, sizeof(f->evs[i].name), "event%d(type %u config %#llx)",
				 i, f->evs[i].attr.type, (unsigned long long)f->evs[i].attr.config);
	return 0;
}

int pf_open(struct pf_file *f, const char *path)
{
	return open_file(f, path, false, false);
}

int pf_open_salvage(struct pf_file *f, const char *path)
{
	return open_file(f, path, true, false);
}

int pf_open_owned(struct pf_file *f, const char *path, bool salvage)
{
	return open_file(f, path, salvage, true);
}

void pf_close(struct pf_file *f)
{
	for (int i = 0; i < f->nr_evs; i++)
		free(f->evs[i].ids);
	free(f->evs);
	if (f->fd >= 0)
		close(f->fd);
	f->evs = NULL;
	f->fd = -1;
}

const char *pf_record_name(u32 type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK", [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX", [PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL", [PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	};
	/* perf's own record types, from PERF_RECORD_HEADER_ATTR (64) on */
	static const char *const user[] = {
		"ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID", "FINISHED_ROUND",
		"ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
		"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND",
		"EVENT_UPDATE", "TIME_CONV", "FEATURE", "COMPRESSED", "FINISHED_INIT",
	};

	if (type < ARRAY_SIZE(names) && names[type])
		return names[type];
	if (type >= PF_RECORD_HEADER_ATTR && type - PF_RECORD_HEADER_ATTR < ARRAY_SIZE(user))
		return user[type - PF_RECORD_HEADER_ATTR];
	return NULL;
}
