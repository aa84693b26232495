/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output file of a recording, one at a time: what its format puts
 * before the data, whole records through the writer (counted on the way,
 * as perf --stats counts them), then what the format puts after them.
 * The formats are out-format.h's.  Totals over every file of the run are
 * kept for the summary.
 */
#ifndef PERF_RING_OUTPUT_H
#define PERF_RING_OUTPUT_H

#include "buildid.h"
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

/* What the output needs of the command line, built once (record.c). */
struct out_opts {
	const char *output;	/* -o as given: "-" is perf's pipe format on stdout */
	int argc;		/* the command line, for HEADER_CMDLINE */
	char **argv;
	int level;		/* -z: zstd level, 0: not compressed */
	int aio;		/* --aio: writes in flight with io_uring */
	bool flight;		/* --overwrite: snapshots, each written as PATH.partial first */
	bool no_buildid, no_buildid_cache;
	bool quiet, verbose;
	int max_files;		/* --switch-max-files: keep at most this many (0: all) */
	bool switching;		/* a stream whose files switch: its writer's chunks touched at the start */
};

/* The output of a recording: its state is output.c's, used through the functions below. */
struct out_file;

/*
 * Whether the output named path is one stream (perf's pipe format): no
 * seeking, no switching to a next file, no renaming; and whether it goes
 * to standard output.
 */
bool out_streams(const char *path);
bool out_to_stdout(const char *path);

/* NULL when out of memory.  o is copied. */
struct out_file *out_new(const struct out_opts *o, const struct evlist *el);
/*
 * Before recording: read the tracepoints' formats from tracefs once, for
 * every file's TRACING_DATA section.  A file of tracepoint samples without
 * them does not decode, so not having them is an error here, at the start,
 * and not a surprise at the end (tracefs unmounted meanwhile, a failed
 * read).  0 or negative errno (fail_set()).
 */
int out_prepare(struct out_file *f);
/*
 * cpu/online as the caller's watch read it now (NULL: it could not): the
 * next file's features read the CPUs again only when that differs from
 * what they read last (hostinfo.h).
 */
void out_cpus_online(struct out_file *f, const char *online);
/*
 * Memory that writing a file of raw bytes of records takes (0: a stream of
 * unknown length), for memlimit_check(); an upper bound.
 */
u64 out_mem_need(const struct out_file *f, u64 raw);
/* The next out_open() writes about raw bytes (a snapshot): its memory check. */
void out_expect(struct out_file *f, u64 raw);
/* base.YYYYmmddHHMMSSmmm, with -N added while that exists (perf's rule) */
void out_name_stamped(const char *base, char *buf, size_t len);
/*
 * base.YYYYmmddHHMMSSmmm, not looked up: for a snapshot, renamed onto
 * its name at the end without replacing anything, with -N added then if
 * the name is taken (out_path() names the file written).
 */
void out_name_stamp(const char *base, char *buf, size_t len);
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
/* A flight-recorder snapshot's own figures, for perf-ring's trailer (perfdata.h). */
struct out_snap {
	u64 overwritten;	/* records overwritten since the last snapshot */
	bool whole;		/* --snapshot-window=whole: every buffer kept whole */
	u64 window_start;	/* then: where the common window starts (0: none wrapped) */
};

/*
 * Finish the file: the writer, the features (snap: the flight recorder's
 * figures for this snapshot, or NULL), the header.  *ok: all of it is on
 * file.  Returns the first error.
 */
int out_close(struct out_file *f, const struct out_snap *snap, bool *ok);
bool out_failed(struct out_file *f);
/* Bytes of the current file's data so far: compressed as written, else raw. */
u64 out_bytes(struct out_file *f);
/* A file is open (out_open() done, out_close() not yet). */
bool out_is_open(const struct out_file *f);
/* The current file's name, or the last one's ("standard output" for -o -). */
const char *out_path(const struct out_file *f);
/* The current file's record counts so far. */
const struct pf_counts *out_counts(const struct out_file *f);
/* Every closed file's. */
const struct out_totals *out_totals(const struct out_file *f);
/* Bytes on disk: of the files --switch-max-files keeps, else all written. */
u64 out_bytes_kept(const struct out_file *f);
/* Why io_uring was not used by the last file's writer ("" when it was). */
const char *out_uring_err(const struct out_file *f);
void out_free(struct out_file *f);	/* f may be NULL */

#endif
