/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data file format: header, attribute table, feature sections,
 * and the record types perf's tools add to the kernel's.  The layout is
 * the one in tools/perf/Documentation/perf.data-file-format.txt.
 */
#ifndef PERF_RING_PERFDATA_H
#define PERF_RING_PERFDATA_H

#include <linux/perf_event.h>
#include "events.h"
#include "pbuf.h"
#include "util.h"

#define PF_MAGIC 0x32454c4946524550ULL /* "PERFILE2" */
#define PF_PIPE_HEADER_SIZE 16	/* magic and size: the pipe format's header */

/* Records added by perf's tools (not produced by the kernel). */
enum {
	PF_RECORD_HEADER_ATTR = 64,
	PF_RECORD_HEADER_TRACING_DATA = 66,
	PF_RECORD_HEADER_BUILD_ID = 67,
	PF_RECORD_FINISHED_ROUND = 68,
	PF_RECORD_HEADER_FEATURE = 80,
	PF_RECORD_COMPRESSED = 81,
	PF_RECORD_FINISHED_INIT = 82,
	PF_RECORD_TYPE_MAX = 128,
};

enum pf_feature {
	PF_FEAT_TRACING_DATA = 1,
	PF_FEAT_BUILD_ID = 2,
	PF_FEAT_HOSTNAME = 3,
	PF_FEAT_OSRELEASE = 4,
	PF_FEAT_VERSION = 5,
	PF_FEAT_ARCH = 6,
	PF_FEAT_NRCPUS = 7,
	PF_FEAT_CPUDESC = 8,
	PF_FEAT_CPUID = 9,
	PF_FEAT_TOTAL_MEM = 10,
	PF_FEAT_CMDLINE = 11,
	PF_FEAT_EVENT_DESC = 12,
	PF_FEAT_CPU_TOPOLOGY = 13,
	PF_FEAT_PMU_MAPPINGS = 16,
	PF_FEAT_GROUP_DESC = 17,
	PF_FEAT_SAMPLE_TIME = 21,
	PF_FEAT_CLOCKID = 23,
	PF_FEAT_COMPRESSED = 27,
	PF_FEAT_CLOCK_DATA = 29,
	/*
	 * perf's HEADER_LAST_FEATURE, the end mark of the features in pipe
	 * mode.  perf 6.1 to 6.12 send 32.
	 */
	PF_FEAT_LAST = 32,
	/*
	 * perf-ring's own counts (flight recorder).  Written after the
	 * feature sections with no bit set (pf_build_features()); files from
	 * before that have this bit, which is still read.
	 */
	PF_FEAT_PERF_RING = 255,
	PF_FEAT_BITS = 256,
};

#define PF_COMP_ZSTD 1

struct pf_section {
	u64 offset;
	u64 size;
};

struct pf_header {
	u64 magic;
	u64 size;
	u64 attr_size;
	struct pf_section attrs;
	struct pf_section data;
	struct pf_section event_types;
	u64 features[PF_FEAT_BITS / 64];
};

struct pf_file_attr {
	struct perf_event_attr attr;
	struct pf_section ids;
};

struct pf_comp_info {
	bool on;
	u32 level;
	u32 ratio;
	u32 mmap_len;
};

/* What goes into the feature sections. */
struct hostinfo;
struct pf_meta {
	int argc;
	char **argv;
	u64 first_time, last_time;
	struct pf_comp_info comp;
	const char *tracefs;		/* tracefs mount for TRACING_DATA */
	const struct pbuf *tracing;	/* TRACING_DATA read before, or NULL: read now */
	bool flight;			/* write PF_FEAT_PERF_RING */
	u64 overwritten;		/* records overwritten before this snapshot */
	u64 snapshot;			/* snapshot sequence number */
	bool whole;			/* write PF_PRIV_WIN_MAGIC: buffers kept whole */
	u64 window_start;		/* where the common window starts (0: none wrapped) */
	const struct pbuf *build_ids;	/* HEADER_BUILD_ID's body (buildid.h), or NULL */
	const struct hostinfo *host;	/* the host's features read before, or NULL: read now */
};

#define PF_PRIV_MAGIC 0x31474e4952524550ULL	/* "PERRING1" */
/*
 * A snapshot of whole buffers (--snapshot-window=whole): 16 bytes just
 * before the PERRING1 trailer, this magic and the time where the common
 * window (no gap on any CPU) starts, 0 when no buffer wrapped.  Readers
 * that know PERRING1 only still find it at the end.
 */
#define PF_PRIV_WIN_MAGIC 0x314e495747525250ULL	/* "PRRGWIN1" */

/*
 * -k: the events' clock, for HEADER_CLOCKID (its resolution, when known)
 * and HEADER_CLOCK_DATA (the clock and the time of day read together, which
 * perf script -F tod and --clock convert by).  Set once, before the first
 * file's features are built; every file of the run carries it.
 */
void pf_set_clock(int clockid);

/* Offset where the data section starts for this event list. */
u64 pf_data_offset(const struct pf_event *evs, int nr);
/*
 * Write header, id arrays and attributes at offset 0.  features is the
 * feature bitmap (may be NULL for "none yet").
 */
int pf_write_head(int fd, const struct pf_event *evs, int nr, u64 data_size,
		  const u64 *features);
/* The same bytes into *out (a new pbuf); 0 or -ENOMEM. */
int pf_build_head(const struct pf_event *evs, int nr, u64 data_size, const u64 *features,
		  struct pbuf *out);
/* Build all feature sections; fills bitmap and blob placed at off. */
int pf_build_features(const struct pf_event *evs, int nr,
		      const struct pf_meta *meta, u64 off,
		      u64 *features, struct pbuf *out);

/*
 * perf's pipe format: the header and everything before the first data
 * record (attributes, features, tracing data).
 */
int pf_build_pipe_head(const struct pf_event *evs, int nr,
		       const struct pf_meta *meta, struct pbuf *out);
/* A HEADER_BUILD_ID section (buildid_section()) as pipe records. */
void pf_build_pipe_buildids(const struct pbuf *section, struct pbuf *out);

/* Reading. */

/*
 * The reader's limits on counts read from a file, on top of the file's
 * size: events (attributes; perf-ring records at most MAX_EVENTS, perf a
 * few thousand with every tracepoint) and sample ids over all events
 * (counts.h).  A file beyond them is refused, not allocated for.
 */
#define PF_READ_EVENTS_MAX 65536
/* 16 M ids, 256 MB of sample-id map: IDMAP_MAX (counts.h) */
#define PF_READ_IDS_MAX (1u << 24)
struct pf_reader_event {
	char name[256];
	struct perf_event_attr attr;
	u64 *ids;
	int nr_ids;
};

struct pf_file {
	int fd;
	u64 file_size;
	struct pf_header h;
	struct pf_reader_event *evs;
	int nr_evs;
	struct pf_comp_info comp;
	bool pipe;		/* perf's pipe format: no header, data to the end */
	bool has_comp_feat;
	u64 first_time, last_time;
	bool has_sample_time;
	bool has_priv;
	u64 overwritten, snapshot;
	bool has_window;	/* PF_PRIV_WIN_MAGIC: a snapshot of whole buffers */
	u64 window_start;	/* where its common window starts (0: none wrapped) */
	char errmsg[256];
};
int pf_open(struct pf_file *f, const char *path);
/*
 * Open an unfinished or truncated file: the data section runs to the end
 * of the file and the feature sections are ignored (see recover.c).
 */
int pf_open_salvage(struct pf_file *f, const char *path);
/*
 * pf_open() or pf_open_salvage() of a file that the caller or root owns,
 * as perf reads only those without -f: -EPERM for another user's file,
 * before anything of it is read.
 */
int pf_open_owned(struct pf_file *f, const char *path, bool salvage);
void pf_close(struct pf_file *f);
bool pf_has_feat(const struct pf_header *h, int feat);

/* Per-type record counts over a stream of records. */
struct pf_counts {
	u64 nr[PF_RECORD_TYPE_MAX];
	u64 other;		/* types >= PF_RECORD_TYPE_MAX */
	u64 total;
	u64 lost;		/* sum of PERF_RECORD_LOST lost fields */
	u64 lost_samples;	/* sum of PERF_RECORD_LOST_SAMPLES */
	u64 bytes;
	u64 first_time, last_time;
	u64 walk_newest;	/* newest record time of the last counts_walk() */
	/* called with each MMAP and MMAP2 record walked, when set */
	void (*on_map)(void *ctx, const char *rec);
	void *map_ctx;
};

const char *pf_record_name(u32 type);

#endif
