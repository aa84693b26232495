/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output file of a recording, one at a time: the header first, whole
 * records through the writer (counted on the way, as perf --stats counts
 * them), then the features and the final header.  Totals over every file
 * of the run are kept for the summary.
 */
#ifndef PERF_RING_OUTPUT_H
#define PERF_RING_OUTPUT_H

#include "buildid.h"
#include "cmdline.h"
#include "evlist.h"
#include "perfdata.h"
#include "writer.h"

#define CHUNK_SIZE (1u << 20)
#define NR_CHUNKS 16

struct out_totals {
	u64 samples, lost, records;	/* lost: as the LOST records say */
	u64 raw, out;			/* bytes before and after compression */
	int nfiles;
	const char *writer_used;	/* writer_kind() of the last file */
};

struct out_file {
	const struct record_opts *o;
	const struct evlist *el;
	int fd;
	bool pipe;			/* -o -: perf's pipe format on stdout */
	char path[4096];
	bool partial;			/* written as PATH.partial, renamed when whole */
	bool memfs;			/* on tmpfs: its pages are memory (memlimit.h) */
	bool mem_stop;			/* the memory limit stopped it */
	u64 expect_raw;			/* bytes the next file will hold (0: a stream) */
	u64 data_off;
	struct writer w;
	bool on;			/* a file is open */
	struct chunk *cur;
	struct pf_counts cnt;		/* this file */
	struct out_totals tot;		/* every closed file */
	u64 put_ns;			/* when a chunk last went to the writer */
	int max_files;			/* keep at most this many (0: all) */
	char **kept;			/* the files kept, oldest first */
	int nkept;
	struct bidset bids;		/* this file's DSOs (its MMAP, MMAP2 records) */
	struct bidset known;		/* every DSO so far: build-ids read, cached */
	bool cache_warned;
	struct pbuf tracing;		/* TRACING_DATA, read by out_prepare() */
};

/* "-" names standard output, written in perf's pipe format */
static inline bool out_is_pipe(const char *path)
{
	return path[0] == '-' && !path[1];
}

int out_init(struct out_file *f, const struct record_opts *o, const struct evlist *el);
/*
 * Before recording: read the tracepoints' formats from tracefs once, for
 * every file's TRACING_DATA section.  A file of tracepoint samples without
 * them does not decode, so not having them is an error here, at the start,
 * and not a surprise at the end (tracefs unmounted meanwhile, a failed
 * read).  0 or negative errno (fail_set()).
 */
int out_prepare(struct out_file *f);
/*
 * Memory that writing a file of raw bytes of records takes (0: a stream of
 * unknown length), for memlimit_check(); an upper bound.
 */
u64 out_mem_need(const struct out_file *f, u64 raw);
/* The next out_open() writes about raw bytes (a snapshot): its memory check. */
static inline void out_expect(struct out_file *f, u64 raw)
{
	f->expect_raw = raw;
}
/* base.YYYYmmddHHMMSSmmm, with -N added while that exists (perf's rule) */
void out_name_stamped(const char *base, char *buf, size_t len);
/*
 * Before a recording that writes path later (the flight recorder): the
 * directory takes new files, and an existing path could become path.old.
 * 0 or negative errno (fail_set()).
 */
int out_check(const char *path);
int out_open(struct out_file *f, const char *path);
/*
 * The open file takes the name path (which must not exist), if its
 * current name still names it.  0 or -errno; the file keeps its name then.
 */
int out_rename(struct out_file *f, const char *path);
/*
 * Room in the current chunk, at least want bytes of it, else a new chunk;
 * *room is what it has.  NULL once the writer failed.
 */
char *out_space(struct out_file *f, size_t want, size_t *room);
/*
 * Hand the current chunk to the writer if it holds data and none went for
 * ns: at low rates, data then reaches the file at least that often.
 */
void out_flush_idle(struct out_file *f, u64 ns);
/*
 * n bytes of records were put at out_space(): count and keep them.
 * -EBADMSG (and nothing kept) when they are not whole records.
 */
int out_commit(struct out_file *f, size_t n);
/* Append whole records (counted on the way). */
int out_emit(struct out_file *f, const void *buf, size_t len);
int out_emit_round(struct out_file *f);
/* The synthesized records, then FINISHED_INIT. */
int out_emit_synth(struct out_file *f, const struct pbuf *a, const struct pbuf *b);
/*
 * Finish the file: the writer, the features (overwritten: the flight
 * recorder's count for this snapshot), the header.  *ok: all of it is on
 * file.  Returns the first error.
 */
int out_close(struct out_file *f, u64 overwritten, bool *ok);
bool out_failed(struct out_file *f);
/* Bytes of the current file's data so far: compressed as written, else raw. */
u64 out_bytes(struct out_file *f);
void out_free(struct out_file *f);

#endif
