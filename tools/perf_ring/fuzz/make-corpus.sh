#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-corpus.sh [DIR]: record a few small perf.data files with perf-ring
# itself, as the seed corpus of fuzz_report.  Default DIR:
# build/tools/perf_ring/fuzz/corpus.  Needs root (or a low
# perf_event_paranoid) and tracefs; what cannot be recorded is skipped
# with a note, and the script fails only if nothing was recorded.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../../../scripts/perf_ring/lib.sh"
BIN=${PERF_RING_BIN:-$PR_BUILD/tools/perf_ring}
PR=${PERF_RING:-$BIN/perf-ring}
CL=${CLOSE_LOOP:-$BIN/close-loop}
DIR=${1:-$PR_BUILD/tools/perf_ring/fuzz/corpus}

[ -x "$PR" ] && [ -x "$CL" ] || pr_die "build perf-ring first (make -C tools/perf_ring)"
if [ ! -e /sys/kernel/tracing/events ] && [ ! -e /sys/kernel/debug/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		pr_log "tracefs is not mounted: tracepoint seeds will be skipped"
fi
mkdir -p "$DIR" || exit 1
work=$(mktemp -d "$DIR/.rec.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

n=0
rec() {	# rec NAME perf-ring-record-args...
	local name=$1
	shift
	if (cd "$work" && "$PR" record -q -o "$name" "$@" >/dev/null 2>&1) &&
	   [ -s "$work/$name" ]; then
		mv "$work/$name" "$DIR/$name"
		n=$((n + 1))
	else
		pr_log "corpus: could not record $name (perf-ring record $*)"
	fi
	rm -f "$work/$name"*
}

rec plain.data -e raw_syscalls:sys_enter -- "$CL" 20 1000000
rec plain-2ev.data -e 'raw_syscalls:*' -- "$CL" 10
rec sw.data -e task-clock,page-faults -- "$CL" 20000
rec z.data -z -e raw_syscalls:sys_enter -- "$CL" 20 1000000
rec z-big.data -z3 -e raw_syscalls:sys_enter -- "$CL" 3000 1000000
rec overwrite.data --overwrite -m 1 -e raw_syscalls:sys_enter -- "$CL" 2000 1000000
rec overwrite-z.data --overwrite -z -m 1 -e raw_syscalls:sys_enter -- "$CL" 2000 1000000
rec no-aio.data --no-aio -e raw_syscalls:sys_exit -- "$CL" 5

# A snapshot taken on SIGUSR2 (files are named OUTPUT.YYYYmmddHHMMSSmmm).
(
	cd "$work" || exit 1
	"$PR" record -q --overwrite -m 1 --switch-output=signal -o snap.data \
		-e raw_syscalls:sys_enter -- sh -c "$CL 2000 1000000; sleep 0.5; $CL 100 2000000" \
		>/dev/null 2>&1 &
	pid=$!
	sleep 0.3
	kill -USR2 $pid 2>/dev/null
	wait $pid
)
i=0
for f in "$work"/snap.data.*; do
	[ -s "$f" ] || continue
	mv "$f" "$DIR/snapshot-$i.data"
	i=$((i + 1))
	n=$((n + 1))
done

[ $n -gt 0 ] || pr_die "corpus: nothing recorded"
pr_log "corpus: $n files in $DIR ($(du -sk "$DIR" | cut -f1) KiB)"
