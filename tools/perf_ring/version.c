// SPDX-License-Identifier: GPL-2.0
#include "version.h"
#include "version-gen.h"	/* generated: PERF_RING_VERSION */

const char perf_ring_version[] = PERF_RING_VERSION;
