/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one "perf-ring record" run, shared by the files that make
 * up the command: record.c (setup, streaming, main loop), output.c (the
 * output files) and snapshot.c (the flight recorder).
 */
#ifndef PERF_RING_RECORD_H
#define PERF_RING_RECORD_H

#include <sys/types.h>

#include "cmdline.h"
#include "counts.h"
#include "perfdata.h"
#include "ring.h"
#include "synth.h"
#include "writer.h"

#define CHUNK_SIZE (1u << 20)
#define NR_CHUNKS 16

struct efd {
	int fd;
	int ev;
	int ring;
	int cpu;
	u64 id;
};

/* What the recorder keeps per buffer, beside its mapping (struct ring). */
struct ring_state {
	int cpu;			/* the buffer's CPU */
	u64 lost;			/* lost, as the LOST records read from it said */
	u64 last_time;			/* newest record time read from it, any type */
	bool off;			/* its CPU is offline now */
	u64 off_ns, on_ns;		/* went offline, came back: ns into the run; 0: not */
};

struct rec {
	struct record_opts *o;
	struct pf_event *evs;
	int nev;
	int cpus[MAX_CPUS], ncpu;
	pid_t *thr;			/* -1: any task */
	int nthr;
	struct efd *fds;
	int nfds;
	struct ring *rings;
	int nrings;
	struct pollfd *pfd;
	struct ring_state *rs;		/* per ring */
	struct {			/* CPU hotplug checks */
		u64 t0, checked;
		bool no_mask;		/* the online mask cannot be read */
	} hp;
	u64 sample_type;
	u32 id_hdr;
	struct idmap idmap;
	struct pbuf synth;		/* kernel map; threads when streaming */
	struct pbuf synth_live;		/* flight recorder: threads, refreshed */
	u64 synth_live_ns;
	struct synth_result synth_res;
	pid_t child;
	int go_fd, err_fd;
	/* the current output file */
	int out_fd;
	char out_path[4096];
	u64 data_off;
	struct writer w;
	bool writer_on;
	struct chunk *cur;
	struct pf_counts cnt;		/* this file */
	u64 *ev_samples;		/* this file, per event */
	/* whole run */
	u64 run_samples, run_lost, run_raw, run_out, run_records;
	u64 run_overwritten;
	bool run_ow_estimated;		/* part of it estimated from bytes */
	u64 run_lost_new;		/* flight recorder: records the kernel dropped */
	int nfiles;
	const char *writer_used;
	int fail;			/* first fatal error, negative errno */
	char fail_msg[512];
	/* flight recorder */
	char *scratch, *snap;
	u64 *cnt_prev;			/* counter values per fd at the last snapshot */
	u64 *lost_prev;			/* ... and the kernel's lost counts */
	u64 exp_cum, new_cum, deficit;
	u64 snap_overwritten;		/* for the file being written */
	u64 round_bytes;		/* cnt.bytes at the last FINISHED_ROUND */
	u64 *snap_head;
	u64 run_unique;			/* distinct samples over all snapshots */
	bool *ring_seen;
	u64 *ring_last_head;
};

/* Record the first fatal error and its message (reported once, at the end). */
void rec_fail(struct rec *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* output.c */
void rec_snapshot_name(struct rec *r, char *buf, size_t len);
int rec_file_open(struct rec *r, const char *path);
int rec_file_close(struct rec *r, bool *ok);
int rec_emit(struct rec *r, const void *buf, size_t len);
int rec_emit_round(struct rec *r);
int rec_emit_synth(struct rec *r);
char *rec_chunk_room(struct rec *r, size_t len);

/* snapshot.c */
void rec_refresh_live_synth(struct rec *r, bool force);
int rec_take_snapshot(struct rec *r, const char *path);

#endif
