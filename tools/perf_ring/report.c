// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ring report: summary of a perf.data file (records per type and per
 * event, lost, overwritten, compression, time span), and --decompress to
 * turn a compressed file into a plain one.  The file is read by reader.c;
 * --recover is recover.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail.h"
#include "reader.h"
#include "recover.h"
#include "safefile.h"

static void print_time(u64 t)
{
	printf("%llu.%06llu", (unsigned long long)(t / 1000000000ULL),
	       (unsigned long long)(t % 1000000000ULL / 1000));
}

static void print_summary(const struct reader *r, const char *path)
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
	/* --snapshot-window=whole: the time is in perf's --time syntax */
	if (r->f.has_window && r->f.window_start)
		printf("  window: whole buffers; the common window (no gap on any CPU) starts at "
		       "%llu.%09llu (perf report --time %llu.%09llu,)\n",
		       (unsigned long long)(r->f.window_start / 1000000000ULL),
		       (unsigned long long)(r->f.window_start % 1000000000ULL),
		       (unsigned long long)(r->f.window_start / 1000000000ULL),
		       (unsigned long long)(r->f.window_start % 1000000000ULL));
	else if (r->f.has_window)
		printf("  window: whole buffers; none wrapped, all of it has no gap\n");
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

/* The events as the file describes them, for a header written again. */
static struct pf_event *file_events(const struct reader *r)
{
	struct pf_event *evs = calloc(r->f.nr_evs ? r->f.nr_evs : 1, sizeof(*evs));

	if (!evs) {
		fail_set(-ENOMEM, "out of memory for %d events", r->f.nr_evs);
		return NULL;
	}
	for (int e = 0; e < r->f.nr_evs; e++) {
		snprintf(evs[e].name, sizeof(evs[e].name), "%s", r->f.evs[e].name);
		evs[e].attr = r->f.evs[e].attr;
		evs[e].ids = r->f.evs[e].ids;
		evs[e].nr_ids = r->f.evs[e].nr_ids;
	}
	return evs;
}

/*
 * The feature sections of r's file but HEADER_COMPRESSED, to fd after
 * the data that ends at data_end: their index, then their bodies.  feats
 * gets the bits of those copied.
 */
static int copy_features(const struct reader *r, int fd, u64 data_end, u64 *feats)
{
	struct pbuf idx = { 0 }, body = { 0 };
	u64 fidx = 0;
	int nf = 0, err = 0;

	memcpy(feats, r->f.h.features, PF_FEAT_BITS / 8);
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
		if (!tmp)
			return fail_set(-ENOMEM, "out of memory for feature %d (%llu bytes)", b,
					(unsigned long long)s.size);
		err = pread_full(r->f.fd, tmp, s.size, s.offset);
		ns.offset = data_end + nf * sizeof(ns) + body.len;
		ns.size = s.size;
		pbuf_put(&idx, &ns, sizeof(ns));
		pbuf_put(&body, tmp, s.size);
		free(tmp);
		/* a section that did not fit is an error, not a short file */
		if (!err && (idx.err || body.err))
			err = fail_set(-ENOMEM, "out of memory copying feature %d (%llu bytes)", b,
				       (unsigned long long)s.size);
	}
	if (!err)
		err = write_full(fd, idx.p, idx.len);
	if (!err)
		err = write_full(fd, body.p, body.len);
	pbuf_free(&idx);
	pbuf_free(&body);
	return err;
}

/* --decompress: r's file with its records plain, as a new file out. */
static int decompress_to(struct reader *r, const char *out)
{
	struct pf_event *evs = file_events(r);
	u64 feats[PF_FEAT_BITS / 64], data_off;
	struct safefile sf;
	int err;

	if (!evs)
		return fail_err();
	data_off = pf_data_offset(evs, r->f.nr_evs);
	/* a new file renamed into place at the end, 0600 as perf inject writes */
	if (safefile__same(out, r->f.fd))
		err = fail_set(-EINVAL, "'%s' is the input: decompress into a new file", out);
	else if ((err = safefile__create_out(&sf, out, 0600)))
		fail_set(err, "cannot create '%s': %s", out, strerror(-err));
	if (err) {
		free(evs);
		return err;
	}
	err = pf_write_head(sf.fd, evs, r->f.nr_evs, 0, NULL);
	if (!err && lseek(sf.fd, data_off, SEEK_SET) < 0)
		err = -errno;
	if (!err)
		err = reader_walk(r, sf.fd);
	if (!err)
		err = copy_features(r, sf.fd, data_off + r->out_len, feats);
	if (!err)
		err = pf_write_head(sf.fd, evs, r->f.nr_evs, r->out_len, feats);
	if (err) {
		fail_set(err, "writing '%s': %s", out, strerror(-err));
		safefile__abort(&sf);
	} else if ((err = safefile__commit(&sf, false))) {
		fail_set(err, "writing '%s': %s", out, strerror(-err));
	}
	free(evs);
	return err;
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
	struct reader r;
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
	fail_reset();
	err = reader_open(&r, in, recover ? READ_SALVAGE : READ_STRICT, force);
	if (err) {
		fprintf(stderr, "perf-ring report: %s: %s\n", in,
			fail_msg()[0] ? fail_msg() : strerror(-err));
		reader_close(&r);
		return 2;
	}
	if (decompress)
		err = decompress_to(&r, out);
	else if (recover)
		err = recover_to(&r, out, argc, argv);
	else
		err = reader_walk(&r, -1);
	if (recover && !err) {
		/* the summary is of what OUT holds, read back as report reads it */
		reader_close(&r);
		err = reader_open(&r, out, READ_STRICT, true) ?: reader_walk(&r, -1);
		in = out;
	}
	if (!decompress || !err)
		print_summary(&r, in);
	if (decompress && !err)
		printf("\nwrote %s: %llu bytes of plain data\n", out, (unsigned long long)r.out_len);
	if (err)
		fprintf(stderr, "perf-ring report: %s: %s\n", in,
			fail_msg()[0] ? fail_msg() : strerror(-err));
	reader_close(&r);
	return err ? 2 : 0;
}
