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

static const struct pf_event *sort_evs;

/* by system, then by place in the list */
static int cmp_sys(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int c = strcmp(sort_evs[x].tp_sys, sort_evs[y].tp_sys);

	return c ? c : (x > y) - (x < y);
}

int tracing_data_build(const struct pf_event *evs, int nr, const char *tfs,
		       struct pbuf *b)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char path[512];
	int *tp, ntp = 0, nsys = 0, err = 0;

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

	/*
	 * Systems, each with its events: the tracepoints sorted by system
	 * (n log n: --recover builds this for the events of a file).
	 */
	tp = malloc((nr > 0 ? nr : 1) * sizeof(*tp));
	if (!tp)
		return -ENOMEM;
	for (int i = 0; i < nr; i++)
		if (evs[i].tp_sys[0])
			tp[ntp++] = i;
	sort_evs = evs;
	qsort(tp, ntp, sizeof(*tp), cmp_sys);
	for (int i = 0; i < ntp; i++)
		if (!i || strcmp(evs[tp[i]].tp_sys, evs[tp[i - 1]].tp_sys))
			nsys++;
	pbuf_u32(b, nsys);
	for (int i = 0, j; i < ntp && !err; i = j) {
		const char *sys = evs[tp[i]].tp_sys;

		for (j = i; j < ntp && !strcmp(evs[tp[j]].tp_sys, sys); j++)
			;
		pbuf_cstr(b, sys);
		pbuf_u32(b, j - i);
		for (int k = i; k < j && !err; k++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", tfs,
				 sys, evs[tp[k]].tp_name);
			err = put_file(b, path, 8);
		}
	}
	free(tp);
	if (err)
		return err;
	pbuf_u32(b, 0);		/* kallsyms: none, perf resolves symbols itself */
	pbuf_u32(b, 0);		/* printk formats: none */
	pbuf_u64(b, 0);		/* saved cmdlines: none */
	return b->err;
}
