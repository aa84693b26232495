// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ring report: summary of a perf.data file (records per type and per
 * event, lost, overwritten, compression, time span), and --decompress to
 * turn a compressed file into a plain one.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compress.h"
#include "report.h"
#include "safefile.h"

#define RBUF (4u << 20)
/*
 * The decompression buffer is sized from HEADER_COMPRESSED's mmap_len, a
 * number read from the file: bound it, so that a corrupt header cannot ask
 * for gigabytes (a record that yields more fails with ENOBUFS).
 */
#define DECOMP_CAP_MAX (256u << 20)
/*
 * A zstd bomb: a few kilobytes of COMPRESSED records can ask for
 * gigabytes of records (a walk of hours, a --decompress that fills the
 * disk).  Past the first DECOMP_FREE bytes, the decompressed data may be
 * at most DECOMP_RATIO_MAX times the compressed records it came from;
 * perf-ring's own files stay below 100 (zstd on syscall traces).
 */
#define DECOMP_FREE (64ull << 20)
#define DECOMP_RATIO_MAX 1024

static int out_put(struct rep *r, const void *p, size_t n)
{
	int err;

	if (r->out_fd < 0)
		return 0;
	err = write_full(r->out_fd, p, n);
	if (err) {
		snprintf(r->err, sizeof(r->err), "writing the output: %s", strerror(-err));
		return err;
	}
	r->out_len += n;
	return 0;
}

/* Records of the decompressed stream: count, and copy out for --decompress. */
static int inner_records(struct rep *r, u64 file_off)
{
	size_t pos = 0;
	int err;

	while (pos + sizeof(struct perf_event_header) <= r->pend_len) {
		struct perf_event_header h;

		memcpy(&h, r->pend + pos, sizeof(h));
		if (h.size < sizeof(h)) {
			snprintf(r->err, sizeof(r->err),
				 "corrupt record inside the compressed data near file offset %llu",
				 (unsigned long long)file_off);
			return -EBADMSG;
		}
		if (pos + h.size > r->pend_len)
			break;
		pos += h.size;
	}
	if (pos) {
		counts_walk(&r->all, r->per_ev, &r->idmap, r->pend, pos);
		err = out_put(r, r->pend, pos);
		if (err)
			return err;
		memmove(r->pend, r->pend + pos, r->pend_len - pos);
		r->pend_len -= pos;
	}
	return 0;
}

static int on_compressed(struct rep *r, const char *rec, size_t size, u64 off)
{
	size_t cap = r->f.comp.mmap_len > (1u << 20) ? r->f.comp.mmap_len : (1u << 20);
	long n;

	if (cap > DECOMP_CAP_MAX)
		cap = DECOMP_CAP_MAX;
	if (!r->dz_on) {
		if (decomp_init(&r->dz)) {
			snprintf(r->err, sizeof(r->err), "out of memory for the zstd decompressor");
			return -ENOMEM;
		}
		r->dz_on = true;
	}
	/*
	 * What is left of the previous output is part of one record (less
	 * than 64 KiB): room for it and cap once, not a realloc() of the
	 * whole buffer for each record.
	 */
	if (r->pend_cap < r->pend_len + cap) {
		size_t want = (r->pend_len > 65536 ? r->pend_len : 65536) + cap;
		char *np = realloc(r->pend, want);

		if (!np) {
			snprintf(r->err, sizeof(r->err),
				 "out of memory for a decompression buffer of %zu bytes", want);
			return -ENOMEM;
		}
		r->pend = np;
		r->pend_cap = want;
	}
	n = decomp_payload(&r->dz, rec + 8, size - 8, r->pend + r->pend_len, cap);
	if (n <= 0) {
		snprintf(r->err, sizeof(r->err),
			 "cannot decompress the COMPRESSED record at file offset %llu%s",
			 (unsigned long long)off, n == 0 ? " (it yields no data)" : "");
		return n ? (int)n : -EBADMSG;
	}
	r->comp_in += size;
	r->comp_out += n;
	r->pend_len += n;
	if (r->comp_out > DECOMP_FREE && r->comp_out / DECOMP_RATIO_MAX > r->comp_in) {
		snprintf(r->err, sizeof(r->err),
			 "the COMPRESSED records up to file offset %llu decompress to %llu bytes, "
			 "more than %u times their size (a zstd bomb?)",
			 (unsigned long long)off, (unsigned long long)r->comp_out, DECOMP_RATIO_MAX);
		return -EFBIG;
	}
	return inner_records(r, off);
}

/*
 * In salvage mode (--recover) the walk stops at the first record that is
 * not whole and sound, and r->good_end says where: everything before it
 * is kept.  Otherwise such a record is an error.
 */
static int stop_or_fail(struct rep *r, int err)
{
	if (!r->salvage)
		return err;
	/*
	 * Back to the last record after which no decompressed record was
	 * left half done: a compressed unit can span several COMPRESSED
	 * records, and the file must not end inside one.
	 */
	r->good_end = r->clean_end;
	return 0;
}

int report_walk(struct rep *r)
{
	u64 off = r->f.h.data.offset, end = off + r->f.h.data.size;
	char *buf = malloc(RBUF);
	size_t have = 0;
	u64 buf_off = off;
	int err = 0;

	if (!buf) {
		snprintf(r->err, sizeof(r->err), "out of memory for the read buffer");
		return -ENOMEM;
	}
	r->clean_end = off;
	while (buf_off + have < end || have) {
		size_t pos = 0;
		u64 want = end - (buf_off + have);

		if (want > RBUF - have)
			want = RBUF - have;
		if (want) {
			err = pread_full(r->f.fd, buf + have, want, buf_off + have);
			if (err) {
				snprintf(r->err, sizeof(r->err), "reading the data section: %s",
					 strerror(-err));
				break;
			}
			have += want;
		}
		while (pos + sizeof(struct perf_event_header) <= have) {
			struct perf_event_header h;
			u64 roff = buf_off + pos;

			memcpy(&h, buf + pos, sizeof(h));
			if (h.size < sizeof(h) || roff + h.size > end ||
			    (r->salvage && (!h.type || h.type >= PF_RECORD_TYPE_MAX))) {
				snprintf(r->err, sizeof(r->err),
					 "corrupt record at file offset %llu (type %u, size %u)%s",
					 (unsigned long long)roff, h.type, h.size,
					 roff + h.size > end ? ": runs past the data section" : "");
				err = stop_or_fail(r, -EBADMSG);
				goto out;
			}
			if (pos + h.size > have)
				break;
			if (h.type == PF_RECORD_COMPRESSED) {
				err = on_compressed(r, buf + pos, h.size, roff);
				if (!err) {
					r->all.nr[h.type]++;
					r->all.total++;
				}
			} else {
				counts_walk(&r->all, r->per_ev, &r->idmap, buf + pos, h.size);
				err = out_put(r, buf + pos, h.size);
			}
			if (err) {
				err = stop_or_fail(r, err);
				goto out;
			}
			counts_walk(&r->outer, NULL, &r->idmap, buf + pos, h.size);
			pos += h.size;
			if (!r->pend_len) {
				r->clean_end = roff + h.size;
				r->clean_first = r->all.first_time;
				r->clean_last = r->all.last_time;
			}
		}
		if (pos == 0 && have == RBUF) {
			err = -EBADMSG;
			break;
		}
		memmove(buf, buf + pos, have - pos);
		have -= pos;
		buf_off += pos;
		if (buf_off + have >= end && have && pos == 0) {
			snprintf(r->err, sizeof(r->err), "truncated record at the end of the data");
			err = stop_or_fail(r, -EBADMSG);
			goto out;
		}
	}
	r->good_end = end;
	if (!err && r->pend_len) {
		snprintf(r->err, sizeof(r->err), "%zu bytes of a partial record at the end of the compressed data",
			 r->pend_len);
		err = stop_or_fail(r, -EBADMSG);
	}
out:
	free(buf);
	return err;
}

static void print_time(u64 t)
{
	printf("%llu.%06llu", (unsigned long long)(t / 1000000000ULL),
	       (unsigned long long)(t % 1000000000ULL / 1000));
}

static void print_summary(struct rep *r, const char *path)
{
	char b1[32], b2[32];

	printf("perf-ring report: %s\n", path);
	printf("  events: %d\n", r->f.nr_evs);
	fmt_bytes(b1, sizeof(b1), r->f.h.data.size);
	if (r->comp_in) {
		u64 plain = r->f.h.data.size - r->comp_in + r->comp_out;

		fmt_bytes(b2, sizeof(b2), plain);
		char lvl[16] = "unknown";

		if (r->f.comp.level)
			snprintf(lvl, sizeof(lvl), "%u", r->f.comp.level);
		printf("  data: %s on file, %s uncompressed (%.1fx, zstd level %s)\n",
		       b1, b2, (double)plain / r->f.h.data.size, lvl);
	} else {
		printf("  data: %s\n", b1);
	}
	if (r->all.last_time) {
		printf("  time span: ");
		print_time(r->all.first_time);
		printf(" .. ");
		print_time(r->all.last_time);
		printf(" (%.6f s)\n", (r->all.last_time - r->all.first_time) / 1e9);
	}
	printf("  lost: %llu samples in %llu LOST records\n",
	       (unsigned long long)r->all.lost,
	       (unsigned long long)r->all.nr[PERF_RECORD_LOST]);
	if (r->f.has_priv)
		printf("  overwritten: %llu records since the previous snapshot (flight recorder snapshot %llu)\n",
		       (unsigned long long)r->f.overwritten, (unsigned long long)r->f.snapshot);
	printf("\nAggregated stats:\n");
	printf("%16s events: %10llu\n", "TOTAL", (unsigned long long)r->all.total);
	for (int t = 0; t < PF_RECORD_TYPE_MAX; t++) {
		if (!r->all.nr[t])
			continue;
		printf("%16s events: %10llu  (%4.1f%%)\n", pf_record_name(t) ?: "UNKNOWN",
		       (unsigned long long)r->all.nr[t], 100.0 * r->all.nr[t] / r->all.total);
	}
	for (int e = 0; e < r->f.nr_evs; e++) {
		u64 lost = r->per_ev[r->f.nr_evs + e];

		if (!r->per_ev[e])
			continue;	/* as perf report --stats (--skip-empty) */
		printf("%s stats:\n", r->f.evs[e].name);
		printf("%16s events: %10llu\n", "SAMPLE", (unsigned long long)r->per_ev[e]);
		if (lost)
			printf("%16s events: %10llu\n", "LOST_SAMPLES", (unsigned long long)lost);
	}
}

static int decompress_to(struct rep *r, const char *out)
{
	struct safefile sf;
	struct pf_event *evs = calloc(r->f.nr_evs ? r->f.nr_evs : 1, sizeof(*evs));
	int err;

	if (!evs) {
		snprintf(r->err, sizeof(r->err), "out of memory for %d events", r->f.nr_evs);
		return -ENOMEM;
	}
	for (int e = 0; e < r->f.nr_evs; e++) {
		snprintf(evs[e].name, sizeof(evs[e].name), "%s", r->f.evs[e].name);
		evs[e].attr = r->f.evs[e].attr;
		evs[e].ids = r->f.evs[e].ids;
		evs[e].nr_ids = r->f.evs[e].nr_ids;
	}
	/* a new file renamed into place at the end, 0600 as perf inject writes */
	if (safefile__same(out, r->f.fd)) {
		snprintf(r->err, sizeof(r->err), "'%s' is the input: decompress into a new file", out);
		free(evs);
		return -EINVAL;
	}
	err = safefile__create_out(&sf, out, 0600);
	if (err) {
		snprintf(r->err, sizeof(r->err), "cannot create '%s': %s", out, strerror(-err));
		free(evs);
		return err;
	}
	r->out_fd = sf.fd;
	err = pf_write_head(r->out_fd, evs, r->f.nr_evs, 0, NULL);
	if (!err && lseek(r->out_fd, pf_data_offset(evs, r->f.nr_evs), SEEK_SET) < 0)
		err = -errno;
	if (!err)
		err = report_walk(r);
	if (!err) {
		/* copy the feature sections, without HEADER_COMPRESSED */
		u64 feats[PF_FEAT_BITS / 64];
		struct pbuf idx = { 0 }, body = { 0 };
		u64 fidx = 0, data_end = pf_data_offset(evs, r->f.nr_evs) + r->out_len;
		int nf = 0;

		memcpy(feats, r->f.h.features, sizeof(feats));
		feats[PF_FEAT_COMPRESSED / 64] &= ~(1ULL << (PF_FEAT_COMPRESSED % 64));
		for (int b = 0; b < PF_FEAT_BITS; b++)
			if (feats[b / 64] & (1ULL << (b % 64)))
				nf++;
		for (int b = 0; b < PF_FEAT_BITS && !err; b++) {
			struct pf_section s, ns;
			char *tmp;

			if (!pf_has_feat(&r->f.h, b))
				continue;
			err = pread_full(r->f.fd, &s, sizeof(s),
					 r->f.h.data.offset + r->f.h.data.size + fidx++ * sizeof(s));
			if (err || b == PF_FEAT_COMPRESSED)
				continue;
			tmp = malloc(s.size + 1);
			if (!tmp) {
				snprintf(r->err, sizeof(r->err),
					 "out of memory for feature %d (%llu bytes)", b,
					 (unsigned long long)s.size);
				err = -ENOMEM;
				break;
			}
			err = pread_full(r->f.fd, tmp, s.size, s.offset);
			ns.offset = data_end + nf * sizeof(ns) + body.len;
			ns.size = s.size;
			pbuf_put(&idx, &ns, sizeof(ns));
			pbuf_put(&body, tmp, s.size);
			free(tmp);
			/* a section that did not fit is an error, not a short file */
			if (!err && (idx.err || body.err)) {
				snprintf(r->err, sizeof(r->err),
					 "out of memory copying feature %d (%llu bytes)", b,
					 (unsigned long long)s.size);
				err = -ENOMEM;
			}
		}
		if (!err)
			err = write_full(r->out_fd, idx.p, idx.len);
		if (!err)
			err = write_full(r->out_fd, body.p, body.len);
		if (!err)
			err = pf_write_head(r->out_fd, evs, r->f.nr_evs, r->out_len, feats);
		if (err && !r->err[0])
			snprintf(r->err, sizeof(r->err), "writing '%s': %s", out, strerror(-err));
		pbuf_free(&idx);
		pbuf_free(&body);
	}
	if (!err) {
		err = safefile__commit(&sf, false);
		if (err)
			snprintf(r->err, sizeof(r->err), "writing '%s': %s", out, strerror(-err));
	} else {
		safefile__abort(&sf);
	}
	r->out_fd = -1;
	free(evs);
	return err;
}

static int rep_open(struct rep *r, const char *path, bool salvage, bool force)
{
	const u64 **ids;
	int *nids, err;

	memset(r, 0, sizeof(*r));
	r->out_fd = -1;
	r->salvage = salvage;
	if (!force)
		err = pf_open_owned(&r->f, path, salvage);
	else
		err = salvage ? pf_open_salvage(&r->f, path) : pf_open(&r->f, path);
	if (err)
		return err;
	/* on the heap: the number of events comes from the file */
	ids = calloc(r->f.nr_evs + 1, sizeof(*ids));
	nids = calloc(r->f.nr_evs + 1, sizeof(*nids));
	err = ids && nids ? 0 : -ENOMEM;
	for (int e = 0; !err && e < r->f.nr_evs; e++) {
		ids[e] = r->f.evs[e].ids;
		nids[e] = r->f.evs[e].nr_ids;
	}
	if (!err)
		err = idmap_build(&r->idmap, ids, nids, r->f.nr_evs,
				  r->f.nr_evs ? r->f.evs[0].attr.sample_type : 0);
	free(ids);
	free(nids);
	if (err) {
		snprintf(r->f.errmsg, sizeof(r->f.errmsg), "building the map of sample ids: %s",
			 strerror(-err));
		return err;
	}
	r->per_ev = calloc(2 * r->f.nr_evs + 1, sizeof(u64));
	return r->per_ev ? 0 : -ENOMEM;
}

static void rep_close(struct rep *r)
{
	if (r->dz_on)
		decomp_free(&r->dz);
	free(r->pend);
	free(r->per_ev);
	idmap_free(&r->idmap);
	pf_close(&r->f);
	memset(r, 0, sizeof(*r));
	r->f.fd = -1;
}

static void report_usage(FILE *f)
{
	fprintf(f, "usage: perf-ring report [-f] [-i FILE] [--decompress -o OUT | --recover -o OUT]\n");
}

int cmd_report(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "decompress", no_argument, NULL, 'd' },
		{ "recover", no_argument, NULL, 'r' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in = "perf.data", *out = NULL;
	bool decompress = false, recover = false, force = false;
	struct rep r;
	int c, err;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:o:fh", lo, NULL)) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'o': out = optarg; break;
		case 'd': decompress = true; break;
		case 'r': recover = true; break;
		case 'f': force = true; break;
		case 'h': report_usage(stdout); return 0;
		default:
			fprintf(stderr, "perf-ring report: unknown option '%s'\n", argv[optind - 1]);
			report_usage(stderr);
			return 1;
		}
	}
	if ((decompress || recover) && !out) {
		fprintf(stderr, "perf-ring report: --%s needs -o OUT\n",
			decompress ? "decompress" : "recover");
		return 1;
	}
	if (decompress && recover) {
		fprintf(stderr, "perf-ring report: --decompress and --recover go one at a time\n");
		return 1;
	}
	err = rep_open(&r, in, recover, force);
	if (err) {
		fprintf(stderr, "perf-ring report: %s: %s\n", in,
			r.f.errmsg[0] ? r.f.errmsg : strerror(-err));
		rep_close(&r);
		return 2;
	}
	if (decompress)
		err = decompress_to(&r, out);
	else if (recover)
		err = report_recover(&r, out, argc, argv);
	else
		err = report_walk(&r);
	if (recover && !err) {
		/* the summary is of what OUT holds, read back as report reads it */
		rep_close(&r);
		err = rep_open(&r, out, false, true);
		if (!err)
			err = report_walk(&r);
		in = out;
	}
	if (!decompress || !err)
		print_summary(&r, in);
	if (decompress && !err)
		printf("\nwrote %s: %llu bytes of plain data\n", out, (unsigned long long)r.out_len);
	if (err)
		fprintf(stderr, "perf-ring report: %s: %s\n", in,
			r.err[0] ? r.err : r.f.errmsg[0] ? r.f.errmsg : strerror(-err));
	rep_close(&r);
	return err ? 2 : 0;
}
