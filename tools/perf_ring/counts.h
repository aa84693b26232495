/* SPDX-License-Identifier: GPL-2.0 */
/* Counting records per type and samples per event, as perf --stats does. */
#ifndef PERF_RING_COUNTS_H
#define PERF_RING_COUNTS_H

#include "perfdata.h"

struct idmap_ent { u64 id; int ev; };
struct idmap {
	struct idmap_ent *v;
	int n;
	int nr_events;
	u64 sample_type;	/* of the first event: the layout of samples */
	/*
	 * From sample_type, by idmap_build: where a sample's id and time
	 * are, from the start of the record (0: not in samples), and the
	 * least size that holds both.
	 */
	u16 id_off, time_off, min_size;
};

/*
 * The most ids a map holds: 2^24 (16 M ids, 256 MB of map), far above a
 * recording's events times CPUs, far below what overflows its int index.
 */
#define IDMAP_MAX PF_READ_IDS_MAX

/*
 * -EOVERFLOW or -E2BIG when the counts (from a file) are negative or add
 * up to more than IDMAP_MAX, -ENOMEM.
 */
int idmap_build(struct idmap *m, const u64 *const *ids, const int *nr_ids,
		int nr_events, u64 sample_type);
void idmap_free(struct idmap *m);
int idmap_find(const struct idmap *m, u64 id);

/*
 * Walk whole records in buf; per_ev (2 * nr_events entries) counts
 * samples per event, then the LOST_SAMPLES records' lost per event (as
 * perf report --stats shows them).
 */
int counts_walk(struct pf_counts *c, u64 *per_ev, const struct idmap *m,
		const char *buf, size_t len);

/*
 * Timestamp of a record: from the sample, or from the sample_id trailer
 * of other kernel records (sample_id_all).  0 when it has none.
 */
u64 record_time(const char *rec, u64 sample_type);

#endif
