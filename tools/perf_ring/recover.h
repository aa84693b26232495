/* SPDX-License-Identifier: GPL-2.0 */
/* perf-ring report --recover (recover.c): the reader's salvage mode, written out. */
#ifndef PERF_RING_RECOVER_H
#define PERF_RING_RECOVER_H

#include "reader.h"

/*
 * Walk r (opened READ_SALVAGE) and write to out its records up to the
 * first one that is not whole, under a new header and feature sections.
 * -errno with the message in fail.h.
 */
int recover_to(struct reader *r, const char *out, int argc, char **argv);

#endif
