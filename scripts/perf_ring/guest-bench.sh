#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (QEMU -icount, one vCPU): ring_cost in every mode,
# base first. The host reads the "ring_cost" lines from the console.
calls=${PERF_RING_BENCH_CALLS:-200000}
for arg in $(cat /proc/cmdline); do
	case "$arg" in perf_ring.calls=*) calls=${arg#perf_ring.calls=} ;; esac
done
echo "# ring_cost: $calls close(-1) per mode on $(uname -r)"
# A first pass warms the page cache and the tracepoint; it is not reported.
/bench/ring_cost forward-overwrite 1000 >/dev/null
for mode in base forward forward-overwrite backward-overwrite base; do
	/bench/ring_cost "$mode" "$calls"
done
