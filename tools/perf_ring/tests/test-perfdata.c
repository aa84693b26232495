// SPDX-License-Identifier: GPL-2.0
/* perf.data header, attributes and features: write, read back, truncate. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "counts.h"
#include "hostinfo.h"
#include "hotplug.h"
#include "perfdata.h"
#include "tap.h"

static char path[4096];
/* --snapshot-window=whole: the mark written after the features */
static bool whole;
static u64 window_start;

static int write_file(u64 data_size, bool features)
{
	static u64 ids0[] = { 11, 12 }, ids1[] = { 13, 14 };
	struct pf_event evs[2];
	char *argv[] = { "perf-ring", "record", "x" };
	struct pf_meta meta = { .argc = 3, .argv = argv, .first_time = 5, .last_time = 9,
				.comp = { .on = true, .level = 1, .ratio = 30, .mmap_len = 4096 },
				.flight = true, .overwritten = 77, .snapshot = 2,
				.whole = whole, .window_start = window_start };
	u64 feats[PF_FEAT_BITS / 64];
	struct pbuf fb = { 0 };
	char *data;
	int fd;

	memset(evs, 0, sizeof(evs));
	strcpy(evs[0].name, "cpu-clock");
	evs[0].attr.size = sizeof(evs[0].attr);
	evs[0].attr.sample_type = PERF_SAMPLE_ID | PERF_SAMPLE_TIME;
	evs[0].ids = ids0;
	evs[0].nr_ids = 2;
	evs[1] = evs[0];
	strcpy(evs[1].name, "task-clock");
	evs[1].attr.config = 1;
	evs[1].ids = ids1;
	tap_tmpname(path, sizeof(path), "perf-ring-pd");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	CHECK(pf_write_head(fd, evs, 2, 0, NULL) == 0, "head");
	data = calloc(1, data_size);
	for (u64 p = 0; p + 24 <= data_size; p += 24) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 24 };
		u64 t = 100 + p, id = (p / 24) % 2 ? 13 : 11;

		memcpy(data + p, &h, 8);
		memcpy(data + p + 8, &t, 8);
		memcpy(data + p + 16, &id, 8);
	}
	CHECK(pwrite(fd, data, data_size, pf_data_offset(evs, 2)) == (ssize_t)data_size, "data");
	memset(feats, 0, sizeof(feats));
	if (features) {
		CHECK(pf_build_features(evs, 2, &meta, pf_data_offset(evs, 2) + data_size,
					feats, &fb) == 0, "features");
		CHECK(pwrite(fd, fb.p, fb.len, pf_data_offset(evs, 2) + data_size) ==
		      (ssize_t)fb.len, "write features");
	}
	CHECK(pf_write_head(fd, evs, 2, data_size, feats) == 0, "final head");
	pbuf_free(&fb);
	free(data);
	close(fd);
	return 0;
}

static int test_round_trip(void)
{
	struct pf_file f;
	struct idmap m;
	struct pf_counts c;
	u64 per[4] = { 0 };	/* samples, then lost samples, per event */
	const u64 *ids[2];
	int nids[2];
	char *buf;

	if (write_file(24 * 100, true))
		return -1;
	CHECK(pf_open(&f, path) == 0, "open: %s", f.errmsg);
	CHECK(f.nr_evs == 2, "events %d", f.nr_evs);
	CHECK(!strcmp(f.evs[0].name, "cpu-clock") && !strcmp(f.evs[1].name, "task-clock"),
	      "names from EVENT_DESC: %s %s", f.evs[0].name, f.evs[1].name);
	CHECK(f.evs[1].nr_ids == 2 && f.evs[1].ids[1] == 14, "ids");
	CHECK(f.comp.on && f.comp.level == 1 && f.comp.mmap_len == 4096, "HEADER_COMPRESSED");
	CHECK(f.has_sample_time && f.first_time == 5 && f.last_time == 9, "SAMPLE_TIME");
	CHECK(f.has_priv && f.overwritten == 77 && f.snapshot == 2, "perf-ring section");
	CHECK(!f.has_window, "no window mark without --snapshot-window=whole");
	CHECK(pf_has_feat(&f.h, PF_FEAT_HOSTNAME) && pf_has_feat(&f.h, PF_FEAT_CMDLINE),
	      "features set");
	for (int e = 0; e < 2; e++) {
		ids[e] = f.evs[e].ids;
		nids[e] = f.evs[e].nr_ids;
	}
	CHECK(idmap_build(&m, ids, nids, 2, f.evs[0].attr.sample_type) == 0, "idmap");
	buf = malloc(f.h.data.size);
	CHECK(pread(f.fd, buf, f.h.data.size, f.h.data.offset) == (ssize_t)f.h.data.size, "read");
	memset(&c, 0, sizeof(c));
	CHECK(counts_walk(&c, per, &m, buf, f.h.data.size) == 0, "walk");
	CHECK(c.nr[PERF_RECORD_SAMPLE] == 100 && per[0] == 50 && per[1] == 50,
	      "samples %llu: %llu/%llu", (unsigned long long)c.nr[PERF_RECORD_SAMPLE],
	      (unsigned long long)per[0], (unsigned long long)per[1]);
	CHECK(c.first_time == 100 && c.last_time == 100 + 99 * 24, "time span");
	free(buf);
	idmap_free(&m);
	pf_close(&f);
	unlink(path);
	return 0;
}

/*
 * A snapshot of whole buffers: the common window's start, read back
 * along with PERRING1, which stays the last 24 bytes (older readers).
 */
static int test_window_mark(void)
{
	struct pf_file f;
	u64 tail[3];

	whole = true;
	window_start = 123456789012345ULL;
	if (write_file(24 * 10, true))
		return -1;
	whole = false;
	CHECK(pf_open(&f, path) == 0, "open: %s", f.errmsg);
	CHECK(f.has_priv && f.overwritten == 77 && f.snapshot == 2, "perf-ring section");
	CHECK(f.has_window && f.window_start == 123456789012345ULL, "window mark %d %llu",
	      f.has_window, (unsigned long long)f.window_start);
	CHECK(pread(f.fd, tail, sizeof(tail), f.file_size - 24) == sizeof(tail) &&
	      tail[0] == PF_PRIV_MAGIC, "PERRING1 last");
	pf_close(&f);
	unlink(path);
	return 0;
}

static int test_truncated(void)
{
	struct pf_file f;
	int fd;

	if (write_file(24 * 1000, true))
		return -1;
	fd = open(path, O_WRONLY);
	CHECK(ftruncate(fd, 5000) == 0, "truncate");
	close(fd);
	CHECK(pf_open(&f, path) == -EINVAL, "truncated file opened");
	CHECK(strstr(f.errmsg, "truncated"), "message: %s", f.errmsg);
	pf_close(&f);
	unlink(path);
	return 0;
}

static int test_unfinalized(void)
{
	struct pf_file f;
	int fd;

	if (write_file(240, false))
		return -1;
	fd = open(path, O_RDWR);
	/* data size 0, as after a crash before the header was finalized */
	CHECK(pwrite(fd, &(u64){ 0 }, 8, 48) == 8, "zero size");
	close(fd);
	CHECK(pf_open(&f, path) == -EINVAL, "unfinalized file opened");
	CHECK(strstr(f.errmsg, "not finalized"), "message: %s", f.errmsg);
	pf_close(&f);
	unlink(path);
	return 0;
}

/*
 * --recover's reading (pf_open_salvage()): the data runs to the end of
 * the file unless the header's data size ends it before (a snapshot cut
 * short after its data, its feature sections partly written): the
 * features are not walked as records.
 */
static int test_salvage(void)
{
	struct pf_file f;
	int fd;

	if (write_file(240, true))
		return -1;
	CHECK(pf_open_salvage(&f, path) == 0, "salvage: %s", f.errmsg);
	CHECK(f.h.data.size == 240, "data size %llu: the header's, not the file's",
	      (unsigned long long)f.h.data.size);
	pf_close(&f);
	unlink(path);

	if (write_file(24 * 100, true))
		return -1;
	CHECK(pf_open(&f, path) == 0, "open: %s", f.errmsg);
	fd = open(path, O_WRONLY);
	CHECK(ftruncate(fd, f.h.data.offset + 1000) == 0, "truncate");
	close(fd);
	pf_close(&f);
	CHECK(pf_open_salvage(&f, path) == 0, "salvage: %s", f.errmsg);
	CHECK(f.h.data.size == 1000, "cut inside the data: %llu, to the file's end",
	      (unsigned long long)f.h.data.size);
	pf_close(&f);
	unlink(path);
	return 0;
}

static int test_perf_string(void)
{
	struct pbuf b = { 0 };
	u32 len;

	pbuf_pstr(&b, "abc");
	memcpy(&len, b.p, 4);
	CHECK(len == 64 && b.len == 68, "len %u total %zu", len, b.len);
	CHECK(!memcmp(b.p + 4, "abc", 4), "content");
	pbuf_free(&b);
	return 0;
}

/*
 * The pipe format: what pf_build_pipe_head() writes, pf_open() reads back
 * (events, ids, names, compression), and the data starts after the head;
 * the build-id records at the end are data records of their own type.
 */
static int test_pipe(void)
{
	static u64 ids0[] = { 21, 22 }, ids1[] = { 23 };
	char *argv[] = { "perf-ring", "record", "-o", "-" };
	struct pf_meta meta = { .argc = 4, .argv = argv,
				.comp = { .on = true, .level = 3, .mmap_len = 8192 } };
	struct pbuf head = { 0 }, bids = { 0 }, sec = { 0 };
	struct perf_event_header bh = { .type = 0, .size = 16 };
	struct pf_event evs[2];
	struct pf_file f;
	u64 magic[2];
	char rec[24] = { 0 };
	int fd;

	memset(evs, 0, sizeof(evs));
	strcpy(evs[0].name, "cpu-clock");
	evs[0].attr.size = sizeof(evs[0].attr);
	evs[0].attr.sample_type = PERF_SAMPLE_ID;
	evs[0].ids = ids0;
	evs[0].nr_ids = 2;
	evs[1] = evs[0];
	strcpy(evs[1].name, "page-faults");
	evs[1].attr.config = 2;
	evs[1].ids = ids1;
	evs[1].nr_ids = 1;
	CHECK(pf_build_pipe_head(evs, 2, &meta, &head) == 0, "build");
	memcpy(magic, head.p, sizeof(magic));
	CHECK(magic[0] == PF_MAGIC && magic[1] == 16, "pipe header %llx %llu",
	      (unsigned long long)magic[0], (unsigned long long)magic[1]);
	/* a section of one build-id record, as buildid_section() makes it */
	pbuf_put(&sec, &bh, sizeof(bh));
	pbuf_zero(&sec, 8);
	pf_build_pipe_buildids(&sec, &bids);
	memcpy(&bh, bids.p, sizeof(bh));
	CHECK(bids.len == 16 && bh.type == PF_RECORD_HEADER_BUILD_ID, "build-id record");

	tap_tmpname(path, sizeof(path), "perf-ring-pipe");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	((struct perf_event_header *)rec)->type = PERF_RECORD_SAMPLE;
	((struct perf_event_header *)rec)->size = sizeof(rec);
	CHECK(write(fd, head.p, head.len) == (ssize_t)head.len, "write head");
	CHECK(write(fd, rec, sizeof(rec)) == sizeof(rec), "write data");
	CHECK(write(fd, bids.p, bids.len) == (ssize_t)bids.len, "write build-ids");
	close(fd);
	CHECK(pf_open(&f, path) == 0, "open: %s", f.errmsg);
	CHECK(f.pipe && f.nr_evs == 2, "pipe %d events %d", f.pipe, f.nr_evs);
	CHECK(f.evs[0].nr_ids == 2 && f.evs[0].ids[1] == 22 && f.evs[1].nr_ids == 1 &&
	      f.evs[1].ids[0] == 23, "ids");
	CHECK(!strcmp(f.evs[0].name, "cpu-clock") && !strcmp(f.evs[1].name, "page-faults"),
	      "names '%s' '%s'", f.evs[0].name, f.evs[1].name);
	CHECK(f.evs[1].attr.config == 2, "attr");
	CHECK(f.comp.on && f.comp.level == 3 && f.comp.mmap_len == 8192, "compression");
	CHECK(f.h.data.offset == head.len && f.h.data.size == sizeof(rec) + bids.len,
	      "data at %llu size %llu, head %zu", (unsigned long long)f.h.data.offset,
	      (unsigned long long)f.h.data.size, head.len);
	pf_close(&f);
	unlink(path);
	pbuf_free(&head);
	pbuf_free(&bids);
	pbuf_free(&sec);
	return 0;
}

/* The body of feature FEAT in features built at offset 0, or NULL. */
static const char *feat_body(const struct pbuf *fb, const u64 *feats, int feat, u64 *size)
{
	int k = 0;
	struct pf_section sec;

	if (!(feats[feat / 64] & (1ULL << (feat % 64))))
		return NULL;
	for (int b = 0; b < feat; b++)
		k += !!(feats[b / 64] & (1ULL << (b % 64)));
	memcpy(&sec, fb->p + k * sizeof(sec), sizeof(sec));
	*size = sec.size;
	return fb->p + sec.offset;
}

/* -k: HEADER_CLOCKID and HEADER_CLOCK_DATA as perf writes them, only with -k */
static int test_clock(void)
{
	struct pf_event ev;
	char *argv[] = { "perf-ring" };
	struct pf_meta meta = { .argc = 1, .argv = argv };
	u64 feats[PF_FEAT_BITS / 64], res, size = 0, tod, ref;
	struct pbuf fb = { 0 };
	struct timespec now;
	const char *b;
	u32 v[2];

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "cpu-clock");
	ev.attr.size = sizeof(ev.attr);
	CHECK(pf_build_features(&ev, 1, &meta, 0, feats, &fb) == 0, "features");
	CHECK(!feat_body(&fb, feats, PF_FEAT_CLOCKID, &size) &&
	      !feat_body(&fb, feats, PF_FEAT_CLOCK_DATA, &size), "clock features without -k");
	pbuf_free(&fb);

	pf_set_clock(CLOCK_MONOTONIC);
	clock_gettime(CLOCK_MONOTONIC, &now);
	CHECK(pf_build_features(&ev, 1, &meta, 0, feats, &fb) == 0, "features with -k");
	b = feat_body(&fb, feats, PF_FEAT_CLOCKID, &size);
	CHECK(b && size == 8, "HEADER_CLOCKID: %s, %llu bytes", b ? "set" : "missing",
	      (unsigned long long)size);
	memcpy(&res, b, 8);
	CHECK(res >= 1 && res <= 1000000000, "resolution %llu ns", (unsigned long long)res);
	b = feat_body(&fb, feats, PF_FEAT_CLOCK_DATA, &size);
	CHECK(b && size == 24, "HEADER_CLOCK_DATA: %s, %llu bytes", b ? "set" : "missing",
	      (unsigned long long)size);
	memcpy(v, b, 8);
	memcpy(&tod, b + 8, 8);
	memcpy(&ref, b + 16, 8);
	CHECK(v[0] == 1 && v[1] == CLOCK_MONOTONIC, "version %u clockid %u", v[0], v[1]);
	CHECK(ref <= (u64)now.tv_sec * 1000000000ULL + now.tv_nsec &&
	      ref + 60000000000ULL > (u64)now.tv_sec * 1000000000ULL + now.tv_nsec,
	      "reference time %llu against now", (unsigned long long)ref);
	CHECK(tod > 1500000000ULL * 1000000000ULL, "time of day %llu", (unsigned long long)tod);
	pbuf_free(&fb);
	return 0;
}

/*
 * The host's features, read once for a recording: the file's bytes are
 * those of a read now, a second refresh keeps what was read (nothing is
 * read again), and a change of the online CPUs reads it all again.
 */
static int test_host_cached(void)
{
	struct pf_event ev;
	char *argv[] = { "perf-ring" };
	struct pf_meta meta = { .argc = 1, .argv = argv };
	u64 feats[PF_FEAT_BITS / 64], feats2[PF_FEAT_BITS / 64];
	struct pbuf now = { 0 }, cached = { 0 };
	struct hostinfo h = { 0 };
	u64 mem_kb;

	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "cpu-clock");
	ev.attr.size = sizeof(ev.attr);
	CHECK(hostinfo_refresh(&h) == 0 && h.valid, "the host read");
	CHECK(h.topology.len > 4 && h.cpuid.len && h.cpudesc.len && h.nr_conf >= 1,
	      "topology %zu bytes, cpuid %zu, cpudesc %zu, %u CPUs", h.topology.len,
	      h.cpuid.len, h.cpudesc.len, h.nr_conf);
	CHECK(pf_build_features(&ev, 1, &meta, 0, feats, &now) == 0, "features, host read now");
	meta.host = &h;
	CHECK(pf_build_features(&ev, 1, &meta, 0, feats2, &cached) == 0, "features, host kept");
	CHECK(!memcmp(feats, feats2, sizeof(feats)), "the same feature bits");
	CHECK(now.len == cached.len && !memcmp(now.p, cached.p, now.len),
	      "the same bytes: %zu read now, %zu kept", now.len, cached.len);
	mem_kb = h.mem_kb;
	h.mem_kb = 1;		/* a mark: a read would write MemTotal over it */
	CHECK(hostinfo_refresh(&h) == 0 && h.mem_kb == 1, "kept while no CPU came or went");
	free(h.online);
	h.online = strdup("0-4095");	/* as if the online CPUs had changed */
	CHECK(hostinfo_refresh(&h) == 0 && h.valid && h.mem_kb == mem_kb &&
	      (!h.online || strcmp(h.online, "0-4095")),
	      "read again after a change of the online CPUs: '%s', %llu kB",
	      h.online ? h.online : "(unreadable)", (unsigned long long)h.mem_kb);
	pbuf_free(&cached);
	CHECK(pf_build_features(&ev, 1, &meta, 0, feats2, &cached) == 0, "features, host read again");
	CHECK(now.len == cached.len && !memcmp(now.p, cached.p, now.len),
	      "the same bytes again: %zu read now, %zu read again", now.len, cached.len);
	hostinfo_free(&h);
	pbuf_free(&now);
	pbuf_free(&cached);
	return 0;
}

/* "online" holds mask, as cpu/online would */
static void set_mask(int fd, const char *mask)
{
	if (ftruncate(fd, 0) || pwrite(fd, mask, strlen(mask), 0) != (ssize_t)strlen(mask))
		perror("memfd");
}

/*
 * A recording's hotplug watch reads cpu/online at each look and passes it
 * on; a watched hostinfo reads the host again when that differs from
 * what it read itself, and only then.
 */
static int test_host_watched(void)
{
	struct hostinfo h = { 0 };
	struct hotplug hp;
	int fd = memfd_create("online", MFD_CLOEXEC);
	char host[4096];
	u64 mem_kb;

	CHECK(fd >= 0, "memfd: %s", strerror(errno));
	hotplug_init(&hp, &(struct hotplug_opts){ .quiet = true });
	CHECK(hp.online_fd >= 0 && hotplug_online(&hp), "cpu/online opened and read at the start");
	snprintf(host, sizeof(host), "%s", hotplug_online(&hp));
	close(hp.online_fd);
	hp.online_fd = fd;	/* the kept descriptor, read from its start each look */
	set_mask(fd, "0-1023\n");
	hotplug_check(&hp, NULL, 0, true, true);
	CHECK(!strcmp(hotplug_online(&hp), "0-1023\n"), "a look: '%s'", hotplug_online(&hp));
	set_mask(fd, "0,2\n");
	hotplug_check(&hp, NULL, 0, false, true);
	CHECK(!strcmp(hotplug_online(&hp), "0-1023\n"), "within 100 ms of the last: no look");
	set_mask(fd, "0-1100\n");	/* beyond MAX_CPUS: the watch stops looking */
	hotplug_check(&hp, NULL, 0, true, true);
	CHECK(hp.no_mask && !hotplug_online(&hp), "a mask it cannot parse: none passed on");
	hotplug_close(&hp);
	CHECK(hp.online_fd == -1 && !hotplug_online(&hp), "closed, nothing read after");

	CHECK(hostinfo_refresh(&h) == 0 && h.valid && h.online && !strcmp(h.online, host),
	      "the host read: '%s'", h.online ? h.online : "(none)");
	mem_kb = h.mem_kb;
	h.mem_kb = 1;		/* a mark: a read would write MemTotal over it */
	hostinfo_cpus_seen(&h, host);
	CHECK(hostinfo_refresh(&h) == 0 && h.mem_kb == 1, "the watch saw what was read: nothing read");
	/*
	 * The watch saw CPU 1 gone; the host read again finds it back (it
	 * came back for a moment); the watch's next look sees it gone again,
	 * its mask as at its look before: still not what the host read, so
	 * the next refresh reads cpu/online again.
	 */
	hostinfo_cpus_seen(&h, "0\n");
	CHECK(h.cpus_changed, "the watch saw another mask: to be read again");
	CHECK(hostinfo_refresh(&h) == 0 && !h.cpus_changed && h.mem_kb == 1 &&
	      !strcmp(h.online, host), "read: cpu/online as it was, the rest kept");
	hostinfo_cpus_seen(&h, "0\n");
	CHECK(h.cpus_changed, "the same look again, still not what was read: to be read again");
	free(h.online);
	h.online = strdup("0-4095\n");	/* as if the read had found another mask */
	CHECK(hostinfo_refresh(&h) == 0 && h.valid && h.mem_kb == mem_kb,
	      "cpu/online changed: the host read again (%llu kB)", (unsigned long long)h.mem_kb);
	h.mem_kb = 1;
	hostinfo_cpus_seen(&h, NULL);
	CHECK(hostinfo_refresh(&h) == 0 && h.mem_kb == 1,
	      "the watch cannot read: cpu/online read here, as it was: the rest kept");
	hostinfo_free(&h);
	return 0;
}

int main(void)
{
	tap_run("header, attributes and features round trip", test_round_trip);
	tap_run("--snapshot-window=whole: the mark before PERRING1", test_window_mark);
	tap_run("a truncated file is refused with a message", test_truncated);
	tap_run("an unfinalized file is refused with a message", test_unfinalized);
	tap_run("--recover reads the data to the header's data size when it fits, else to the end",
		test_salvage);
	tap_run("perf strings are padded to 64 bytes", test_perf_string);
	tap_run("the pipe format is read back", test_pipe);
	tap_run("-k: HEADER_CLOCKID and HEADER_CLOCK_DATA as perf's", test_clock);
	tap_run("the host's features read once, again when the online CPUs change",
		test_host_cached);
	tap_run("watched: the host's features read again when the watch's look differs from them",
		test_host_watched);
	return tap_done();
}
