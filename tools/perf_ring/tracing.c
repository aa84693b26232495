// SPDX-License-Identifier: GPL-2.0
/*
 * The TRACING_DATA feature: the format files of the recorded tracepoints,
 * in the layout perf's trace-event-read.c expects, so that perf script can
 * decode their raw fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracing.h"

const char *tracefs_path(void)
{
	static const char *const cand[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};

	for (size_t i = 0; i < ARRAY_SIZE(cand); i++) {
		char p[256];

		snprintf(p, sizeof(p), "%s/events/header_page", cand[i]);
		if (access(p, R_OK) == 0)
			return cand[i];
	}
	return NULL;
}

static int put_file(struct pbuf *b, const char *path, int lenbytes)
{
	char *s;
	size_t len;
	int err = read_text_file(path, &s, &len);

	if (err)
		return err;
	if (lenbytes == 8)
		pbuf_u64(b, len);
	else
		pbuf_u32(b, len);
	pbuf_put(b, s, len);
	free(s);
	return 0;
}

int tracing_data_build(const struct pf_event *evs, int nr, const char *tfs,
		       struct pbuf *b)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char path[512];
	bool done[nr > 0 ? nr : 1];
	int nsys = 0, err;

	if (!tfs)
		return -ENOENT;
	pbuf_put(b, magic, sizeof(magic));
	pbuf_cstr(b, "0.6");
	pbuf_put(b, &(char){ 0 }, 1);			/* little endian */
	pbuf_put(b, &(char){ sizeof(long) }, 1);
	pbuf_u32(b, getpagesize());

	pbuf_cstr(b, "header_page");
	snprintf(path, sizeof(path), "%s/events/header_page", tfs);
	err = put_file(b, path, 8);
	if (err)
		return err;
	pbuf_cstr(b, "header_event");
	snprintf(path, sizeof(path), "%s/events/header_event", tfs);
	err = put_file(b, path, 8);
	if (err)
		return err;

	pbuf_u32(b, 0);		/* no ftrace internal formats */

	/* systems, each with its events */
	memset(done, 0, sizeof(done));
	for (int i = 0; i < nr; i++) {
		bool seen = false;

		if (!evs[i].tp_sys[0])
			continue;
		for (int j = 0; j < i; j++)
			if (evs[j].tp_sys[0] && !strcmp(evs[j].tp_sys, evs[i].tp_sys))
				seen = true;
		if (!seen)
			nsys++;
	}
	pbuf_u32(b, nsys);
	for (int i = 0; i < nr; i++) {
		int cnt = 0;

		if (!evs[i].tp_sys[0] || done[i])
			continue;
		for (int j = i; j < nr; j++)
			if (evs[j].tp_sys[0] && !strcmp(evs[j].tp_sys, evs[i].tp_sys))
				cnt++;
		pbuf_cstr(b, evs[i].tp_sys);
		pbuf_u32(b, cnt);
		for (int j = i; j < nr; j++) {
			if (!evs[j].tp_sys[0] || strcmp(evs[j].tp_sys, evs[i].tp_sys))
				continue;
			done[j] = true;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", tfs,
				 evs[j].tp_sys, evs[j].tp_name);
			err = put_file(b, path, 8);
			if (err)
				return err;
		}
	}
	pbuf_u32(b, 0);		/* kallsyms: none, perf resolves symbols itself */
	pbuf_u32(b, 0);		/* printk formats: none */
	pbuf_u64(b, 0);		/* saved cmdlines: none */
	return b->err;
}
