/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF programs loaded before the recording started: a KSYMBOL record for
 * each of their JIT-compiled functions and a BPF_EVENT record for each
 * program, as the kernel sends for programs loaded while it records
 * (attr.ksymbol, attr.bpf_event), so that perf names samples in JIT code.
 */
#ifndef PERF_RING_BPFSYMS_H
#define PERF_RING_BPFSYMS_H

#include "perfdata.h"

struct bpfsyms_result {
	u32 progs, funcs;
	int err;		/* why none could be listed (-EPERM: no CAP_SYS_ADMIN) */
};

/* Append the records to out, each with an id_hdr-byte sample_id trailer. */
void bpfsyms_synth(struct pbuf *out, u32 id_hdr, struct bpfsyms_result *res);

#endif
