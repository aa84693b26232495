// SPDX-License-Identifier: GPL-2.0
/*
 * Records for the BPF programs that exist before the recording (bpfsyms.h),
 * listed with libbpf.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "bpfsyms.h"

#define KSYM_NAME_MAX 128

static void put_ksymbol(struct pbuf *out, u64 addr, u32 len, const char *name, u32 id_hdr)
{
	size_t n = strlen(name) + 1, padded = ALIGN_UP(n, 8);
	struct {
		struct perf_event_header h;
		u64 addr;
		u32 len;
		u16 ksym_type, flags;
	} r = {
		.h = {
			.type = PERF_RECORD_KSYMBOL,
			.misc = PERF_RECORD_MISC_KERNEL,
			.size = sizeof(r) + padded + id_hdr,
		},
		.addr = addr,
		.len = len,
		.ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF,
	};

	pbuf_put(out, &r, sizeof(r));
	pbuf_put(out, name, n);
	pbuf_zero(out, padded - n + id_hdr);
}

static void put_bpf_event(struct pbuf *out, u32 id, const u8 *tag, u32 id_hdr)
{
	struct {
		struct perf_event_header h;
		u16 type, flags;
		u32 id;
		u8 tag[BPF_TAG_SIZE];
	} r = {
		.h = {
			.type = PERF_RECORD_BPF_EVENT,
			.misc = PERF_RECORD_MISC_KERNEL,
			.size = sizeof(r) + id_hdr,
		},
		.type = PERF_BPF_EVENT_PROG_LOAD,
		.id = id,
	};

	memcpy(r.tag, tag, BPF_TAG_SIZE);
	pbuf_put(out, &r, sizeof(r));
	pbuf_zero(out, id_hdr);
}

/*
 * The kernel's name for a JIT image (bpf_get_prog_name()): "bpf_prog_",
 * the tag in hex, then the function's name.  Without BTF that name is the
 * program's own for a program of one function, and "F" for the functions
 * of a program of several, as perf synthesizes them.
 */
static void prog_name(char *buf, size_t len, const u8 *tag, const char *name,
		      u32 nfuncs)
{
	size_t n = snprintf(buf, len, "bpf_prog_");

	for (int i = 0; i < BPF_TAG_SIZE && n < len; i++)
		n += snprintf(buf + n, len - n, "%02x", tag[i]);
	if (n < len)
		snprintf(buf + n, len - n, "_%s", nfuncs == 1 ? name : "F");
}

/* One program: its functions' addresses, lengths and tags. */
static int synth_prog(int fd, struct pbuf *out, u32 id_hdr, struct bpfsyms_result *res)
{
	struct bpf_prog_info info;
	u32 ilen = sizeof(info), n, nlens, ntags;
	u64 *addrs = NULL;
	u32 *lens = NULL;
	u8 *tags = NULL;
	int err;

	/* first the counts, then the arrays */
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(fd, &info, &ilen);
	if (err)
		return err;
	n = info.nr_jited_ksyms;
	nlens = info.nr_jited_func_lens;
	ntags = info.nr_prog_tags;
	if (!n || nlens != n)
		return 0;	/* not JIT-compiled: its code is not in a sample */
	addrs = calloc(n, sizeof(*addrs));
	lens = calloc(n, sizeof(*lens));
	tags = calloc(ntags ? ntags : 1, BPF_TAG_SIZE);
	err = -ENOMEM;
	if (!addrs || !lens || !tags)
		goto out;
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.jited_ksyms = (u64)(unsigned long)addrs;
	info.nr_jited_func_lens = n;
	info.jited_func_lens = (u64)(unsigned long)lens;
	info.nr_prog_tags = ntags;
	info.prog_tags = (u64)(unsigned long)tags;
	ilen = sizeof(info);
	err = bpf_obj_get_info_by_fd(fd, &info, &ilen);
	if (err)
		goto out;
	for (u32 i = 0; i < n; i++) {
		char name[KSYM_NAME_MAX];
		const u8 *tag = i < ntags ? tags + i * BPF_TAG_SIZE : info.tag;

		prog_name(name, sizeof(name), tag, info.name, n);
		put_ksymbol(out, addrs[i], lens[i], name, id_hdr);
		res->funcs++;
	}
	put_bpf_event(out, info.id, info.tag, id_hdr);
	res->progs++;
out:
	free(addrs);
	free(lens);
	free(tags);
	return err;
}

void bpfsyms_synth(struct pbuf *out, u32 id_hdr, struct bpfsyms_result *res)
{
	u32 id = 0;

	memset(res, 0, sizeof(*res));
	for (;;) {
		int fd, err = bpf_prog_get_next_id(id, &id);

		if (err) {
			if (err != -ENOENT && !res->progs)
				res->err = err;
			return;
		}
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;	/* unloaded meanwhile */
		synth_prog(fd, out, id_hdr, res);
		close(fd);
	}
}
