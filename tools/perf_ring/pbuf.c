// SPDX-License-Identifier: GPL-2.0
/* A growable byte buffer; perf-format strings (u32 length, padded). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pbuf.h"

/* perf pads a string to this (perf's NAME_ALIGN) */
#define PF_NAME_ALIGN 64

void pbuf_put(struct pbuf *b, const void *d, size_t n)
{
	if (b->err || !n)	/* nothing to add: b->p may still be NULL */
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

void pbuf_u32(struct pbuf *b, u32 v) { pbuf_put(b, &v, 4); }
void pbuf_u64(struct pbuf *b, u64 v) { pbuf_put(b, &v, 8); }
void pbuf_zero(struct pbuf *b, size_t n) { pbuf_put(b, NULL, n); }
void pbuf_cstr(struct pbuf *b, const char *s) { pbuf_put(b, s, strlen(s) + 1); }

void pbuf_pstr(struct pbuf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	u32 len = ALIGN_UP(n, PF_NAME_ALIGN);

	pbuf_u32(b, len);
	pbuf_put(b, s, n);
	pbuf_zero(b, len - n);
}

void pbuf_free(struct pbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
