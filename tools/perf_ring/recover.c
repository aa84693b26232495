// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ring report --recover: rebuild a recording that never finalized
 * its file (perf-ring killed by SIGKILL, the machine lost power) or that
 * was cut short (copied while being written, truncated).
 *
 * What such a file has: the header and attribute table, written when the
 * file was opened, then the data as far as the writes got.  What it lacks:
 * the data size in the header (0) and the feature sections, which are
 * written at the end.  Without them perf refuses the file.  A snapshot's
 * NAME.partial may have its final header, written with its data: a data
 * size that fits the file ends the data (pf_open_salvage()).
 *
 * The reader walks the data in its salvage mode (reader.h, READ_SALVAGE)
 * from its start until the first record that is not
 * whole and sound: a size smaller than a header or running past the end
 * of the file, a type of 0 (the zeros of a hole left by a write that never
 * completed) or out of range, or a PERF_RECORD_COMPRESSED that does not
 * decompress.  Everything before it is copied, and the feature sections
 * are built again.  The event names and tracepoint formats come from this
 * machine (tracefs ids), so recover on the machine and boot that recorded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events.h"
#include "fail.h"
#include "recover.h"
#include "safefile.h"
#include "tracing.h"

static int copy_range(int in, u64 in_off, int out, u64 out_off, u64 len)
{
	size_t bsz = 1u << 20;
	char *buf = malloc(bsz);
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (len && !err) {
		size_t n = len < bsz ? len : bsz;

		err = pread_full(in, buf, n, in_off);
		if (!err)
			err = pwrite_full(out, buf, n, out_off);
		in_off += n;
		out_off += n;
		len -= n;
	}
	free(buf);
	return err;
}

static int count_nonzero(const int *v, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += v[i] != 0;
	return k;
}

/*
 * The file's events, named on this machine: the recovered file has no
 * event description of its own.  A warning for each of the first ten
 * that have no name here, then their count.
 */
static int name_events(struct reader *r, struct pf_event *evs)
{
	int nr = r->f.nr_evs, *res = calloc(nr ? nr : 1, sizeof(*res));
	int err;

	if (!res)
		return -ENOMEM;
	for (int e = 0; e < nr; e++)
		evs[e].attr = r->f.evs[e].attr;
	err = events_name_attrs(evs, nr, res);
	for (int e = 0, unnamed = 0; !err && e < nr; e++) {
		if (res[e] && ++unnamed == 11)
			fprintf(stderr, "perf-ring report: warning: more events have no name on "
				"this machine (%d in all)\n", count_nonzero(res, nr));
		if (res[e] && unnamed <= 10)
			fprintf(stderr, "perf-ring report: warning: event %d (type %u, config %llu) "
				"has no name on this machine; it is called '%s'%s\n",
				e, r->f.evs[e].attr.type,
				(unsigned long long)r->f.evs[e].attr.config, evs[e].name,
				r->f.evs[e].attr.type == PERF_TYPE_TRACEPOINT ?
				" and its fields will not decode" : "");
		evs[e].attr = r->f.evs[e].attr;
		evs[e].ids = r->f.evs[e].ids;
		evs[e].nr_ids = r->f.evs[e].nr_ids;
		/* the name in the recovered file is the one found here */
		snprintf(r->f.evs[e].name, sizeof(r->f.evs[e].name), "%s", evs[e].name);
	}
	free(res);
	return err;
}

/*
 * Into fd: the header and attributes, the kept records of r's file, and
 * the feature sections built again; then the header with the data size.
 */
static int write_recovered(struct reader *r, int fd, struct pf_event *evs,
			   const struct pf_meta *m)
{
	int nr = r->f.nr_evs;
	u64 kept = r->f.h.data.size, data_off = pf_data_offset(evs, nr);
	u64 features[PF_FEAT_BITS / 64];
	struct pf_meta meta = *m;
	struct pbuf fb = { 0 };
	int err;

	/* cut at good_end: not the times of the records decoded past it */
	meta.first_time = r->stop.first_time;
	meta.last_time = r->stop.last_time;
	if (r->all.nr[PF_RECORD_COMPRESSED]) {
		/* the level was never written down: 0 says "unknown" */
		meta.comp.on = true;
		meta.comp.ratio = r->comp_in ? (r->comp_out + r->comp_in / 2) / r->comp_in : 0;
		meta.comp.mmap_len = COMP_MMAP_LEN;
	}
	err = pf_write_head(fd, evs, nr, 0, NULL);
	if (!err)
		err = copy_range(r->f.fd, r->f.h.data.offset, fd, data_off, kept);
	if (!err)
		err = pf_build_features(evs, nr, &meta, data_off + kept, features, &fb);
	if (!err)
		err = pwrite_full(fd, fb.p, fb.len, data_off + kept);
	if (!err)
		err = pf_write_head(fd, evs, nr, kept, features);
	pbuf_free(&fb);
	return err;
}

int recover_to(struct reader *r, const char *out, int argc, char **argv)
{
	int nr = r->f.nr_evs;
	struct pf_event *evs = calloc(nr ? nr : 1, sizeof(*evs));
	struct pf_meta meta = { .argc = argc, .argv = argv, .tracefs = tracefs_path() };
	struct safefile sf;
	int err;

	if (!evs)
		return -ENOMEM;
	err = reader_walk(r, -1);
	if (!err && !r->f.h.data.size)
		err = fail_set(-ENODATA, "no whole record to recover%s%.200s",
			       r->stop.why[0] ? ": " : "", r->stop.why);
	if (!err)
		err = name_events(r, evs);
	/* a new file renamed into place at the end, 0600 as perf inject writes */
	if (!err && safefile__same(out, r->f.fd))
		err = fail_set(-EINVAL, "'%s' is the input: recover into a new file", out);
	if (err)
		goto out;
	err = safefile__create_out(&sf, out, 0600);
	if (err) {
		fail_set(err, "cannot create '%s': %s", out, strerror(-err));
		goto out;
	}
	err = write_recovered(r, sf.fd, evs, &meta);
	if (err) {
		safefile__abort(&sf);
		fail_set(err, "writing '%s': %s", out, strerror(-err));
		goto out;
	}
	err = safefile__commit(&sf, false);
	if (err) {
		fail_set(err, "writing '%s': %s", out, strerror(-err));
		goto out;
	}
	fprintf(stderr, "perf-ring report: recovered %llu bytes of data into '%s'",
		(unsigned long long)r->f.h.data.size, out);
	if (r->stop.dropped)
		fprintf(stderr, "; dropped the last %llu bytes (%s)\n",
			(unsigned long long)r->stop.dropped,
			r->stop.why[0] ? r->stop.why : "not whole records");
	else
		fprintf(stderr, "; every record was whole\n");
out:
	free(evs);
	return err;
}
