/* SPDX-License-Identifier: GPL-2.0 */
/* perf-ring's version, from git describe at build time (see the Makefile). */
#ifndef PERF_RING_VERSION_H
#define PERF_RING_VERSION_H

extern const char perf_ring_version[];

#endif
