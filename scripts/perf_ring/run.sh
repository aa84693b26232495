#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: "make run", the main job. Records the bundled close(-1) workload
# with perf-ring in flight-recorder mode (write_backward, read-only mapping)
# with zstd, then shows the recorder's summary, its report of the snapshot,
# and the newest records through Debian's perf script. Call i of the loop
# is close(1000000 + i), so the first argument of each sys_enter record is
# its sequence number: the snapshot ends at the last call, 0x3d08ff
# (1000000 + 2999999), with nothing missing before it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bin=$PR_BUILD/tools/perf_ring
out=$PR_BUILD/run
calls=${CALLS:-3000000}
mkdir -p "$out"
[ -x "$bin/perf-ring" ] || pr_die "perf-ring is not built; run 'make tools'"
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true

echo "== perf-ring record --overwrite -z -m 64 -e 'raw_syscalls:*' -- close-loop $calls 1000000 (pinned to CPU 0)"
rm -f "$out/flight.data"
taskset -c 0 "$bin/perf-ring" record --overwrite -z -m 64 -e 'raw_syscalls:*' \
	-o "$out/flight.data" -- "$bin/close-loop" "$calls" 1000000
echo
echo "== perf-ring report -i build/run/flight.data"
"$bin/perf-ring" report -i "$out/flight.data"
echo
echo "== perf script -i build/run/flight.data | tail -n 6   (the newest records; the first argument is the sequence number)"
perf script -i "$out/flight.data" 2>/dev/null | tail -n 6
echo
echo "== perf report --stats -i build/run/flight.data | grep -E 'SAMPLE|LOST|COMPRESSED'"
perf report --stats -i "$out/flight.data" 2>/dev/null | grep -E 'SAMPLE|LOST|COMPRESSED' || true
