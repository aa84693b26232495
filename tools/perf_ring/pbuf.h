/* SPDX-License-Identifier: GPL-2.0 */
/* A growable byte buffer, and perf's string encoding into one. */
#ifndef PERF_RING_PBUF_H
#define PERF_RING_PBUF_H

#include <stddef.h>
#include "util.h"

/* A growable byte buffer; errors stick in ->err. */
struct pbuf {
	char *p;
	size_t len, cap;
	int err;
};
void pbuf_put(struct pbuf *b, const void *d, size_t n);
void pbuf_u32(struct pbuf *b, u32 v);
void pbuf_u64(struct pbuf *b, u64 v);
void pbuf_zero(struct pbuf *b, size_t n);
void pbuf_cstr(struct pbuf *b, const char *s);	/* bytes + NUL */
void pbuf_pstr(struct pbuf *b, const char *s);	/* perf string: u32 len, padded */
void pbuf_free(struct pbuf *b);

#endif
