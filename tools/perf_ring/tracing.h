/* SPDX-License-Identifier: GPL-2.0 */
/* tracefs access and the TRACING_DATA feature. */
#ifndef PERF_RING_TRACING_H
#define PERF_RING_TRACING_H

#include "events.h"
#include "hostinfo.h"	/* tracefs_path(): the tracefs to read */
#include "pbuf.h"

/* Build the TRACING_DATA body (version 0.6) for the tracepoints in evs. */
int tracing_data_build(const struct pf_event *evs, int nr, const char *tracefs,
		       struct pbuf *out);

#endif
