#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: "make run", the main job. Records the bundled close(-1) workload
# with perf-ring in flight-recorder mode (write_backward, read-only mapping)
# with zstd, then shows the recorder's summary, its report of the snapshot,
# and the newest records through Debian's perf script.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bin=$PR_BUILD/tools/perf_ring
out=$PR_BUILD/run
calls=${CALLS:-3000000}
mkdir -p "$out"
[ -x "$bin/perf-ring" ] || pr_die "perf-ring is not built; run 'make tools'"
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true

echo "== perf-ring record --overwrite -z -e 'raw_syscalls:*' -- close-loop $calls (pinned to CPU 0)"
rm -f "$out/flight.data"
taskset -c 0 "$bin/perf-ring" record --overwrite -z -m 64 -e 'raw_syscalls:*' \
	-o "$out/flight.data" -- "$bin/close-loop" "$calls"
echo
echo "== perf-ring report -i build/run/flight.data"
"$bin/perf-ring" report -i "$out/flight.data"
echo
echo "== perf script -i build/run/flight.data | tail -n 5   (the newest records)"
perf script -i "$out/flight.data" 2>/dev/null | tail -n 5
echo
echo "== perf report --stats -i build/run/flight.data | grep -E 'SAMPLE|LOST|COMPRESSED'"
perf report --stats -i "$out/flight.data" 2>/dev/null | grep -E 'SAMPLE|LOST|COMPRESSED' || true
