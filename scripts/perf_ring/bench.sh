#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: what "make bench" runs, on the host kernel.
#
#   1. the series' table (bench_series.py)
#   2. perf-ring against perf record, and the goals measured side by side
#      (bench_vs_perf.py)
#   3. the compression table (bench_compress.py)
#   4. flight-recorder snapshots, PAUSE_OUTPUT against pause-free
#      (bench_flight.py)
#   5. synthesis of 2,000 threads on 1, 2 and 4 threads (bench_synth.py)
#   6. records lost against buffer size, perf -z1 and perf-ring -z1
#      (bench_loss.py)
#   7. the time from a trigger (signal, control, event) to its snapshot
#      (bench_triggers.py)
#   8. call chains: the overhead of perf-ring -g and --call-graph dwarf
#      against perf record's, paired (bench_callchains.py)
#   9. durable output: the 0.5 s flush against none, paired, and the data
#      on file mid-recording at a low rate (bench_durable.py)
#  10. the flight recorder's window with call chains: bytes per sample and
#      what a 512 KiB buffer holds (bench_window.py)
#  11. records lost at the default buffer size, unpinned, quiet and beside
#      CPU-bound tasks: the default reader against the alternatives
#      (bench_loss_default.py)
#  12. a flight-recorder snapshot against perf record --overwrite at the
#      same -m: records kept, and the hole at the start of perf's
#      (bench_snapshot_window.py; also bench/results/snapshot-window.md)
#
# then the summary with the goals table (bench_report.py) and the plots
# (bench-plot.sh).  Documentation/benchmarks/perf_ring.rst has the method.
#
# QUICK=1: fewer rounds and shorter loops, every part still runs; results go
# to build/bench/quick/ so the committed ones stay.  A full run writes
# bench/results/.  BENCH_PARTS="series synth" runs some parts only (into
# build/bench/partial/ unless BENCH_OUT says otherwise).
# Exits non-zero when a part breaks (a tool fails, an output is
# unreadable); a slow or noisy timing never fails it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PR_ROOT"

S=$PR_ROOT/scripts/perf_ring
export BENCH_T0=$(date +%s)
if [ -n "${QUICK:-}" ] && [ "${QUICK:-}" != 0 ]; then
	export QUICK=1
	export BENCH_OUT=${BENCH_OUT:-$PR_BUILD/bench/quick}
	mode="quick run"
else
	export QUICK=
	if [ -n "${BENCH_PARTS:-}" ]; then	# some parts only: not the committed results
		export BENCH_OUT=${BENCH_OUT:-$PR_BUILD/bench/partial}
	else
		export BENCH_OUT=${BENCH_OUT:-$PR_ROOT/bench/results}
	fi
	mode="full run"
fi
export BENCH_STATE=$PR_BUILD/bench/state
parts=${BENCH_PARTS:-series vs_perf compress flight synth loss triggers callchains durable window loss_default snapshot_window}

# ---- what the parts need ----
for t in perf gnuplot taskset python3 tar; do
	command -v "$t" >/dev/null || pr_die "bench: '$t' is missing (make deps)"
done
[ -x "$PR_BUILD/tools/perf_ring/perf-ring" ] && [ -x "$PR_BUILD/tools/perf_ring/close-loop" ] ||
	pr_die "bench: build/tools/perf_ring/perf-ring or close-loop is missing (make tools)"
[ "$(nproc)" -ge 2 ] || pr_die "bench: needs 2 CPUs (one row runs the recorder on another CPU)"
if [ ! -d /sys/kernel/tracing/events ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		pr_die "bench: tracefs is not mounted and cannot be (run as root)"
fi
[ -d /sys/kernel/tracing/events/raw_syscalls ] ||
	pr_die "bench: the kernel has no raw_syscalls tracepoints"
# The real interpreter, not a version-manager shim: the floor recorder's
# start-up is part of what is timed.
PY=$(python3 -c 'import sys; print(sys.executable)')

# ---- scratch space, cleaned up on exit and on signals ----
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	scratch=$(mktemp -d /dev/shm/perf_ring-bench.XXXXXX)
else
	mkdir -p "$PR_BUILD/bench"
	scratch=$(mktemp -d "$PR_BUILD/bench/scratch.XXXXXX")
fi
export BENCH_SCRATCH=$scratch
export BENCH_SCRATCH_FS=$(stat -f -c %T "$scratch")
part_pid=
cleanup() {
	if [ -n "$part_pid" ]; then
		kill -TERM "$part_pid" 2>/dev/null
		wait "$part_pid" 2>/dev/null
	fi
	rm -rf "$scratch"
}
on_signal() {
	pr_log "bench: interrupted, cleaning up"
	cleanup
	trap - EXIT
	exit 130
}
trap cleanup EXIT
trap on_signal INT TERM HUP

rm -rf "$BENCH_STATE"
mkdir -p "$BENCH_STATE" "$BENCH_OUT"

# ---- the machine, for the results ----
{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "mode=$mode"
	echo "cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "ncpu=$(nproc)"
	echo "mem=$(awk '/^MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)"
	echo "kernel=$(uname -r)"
	virt=$(systemd-detect-virt 2>/dev/null || true)
	grep -qw hypervisor /proc/cpuinfo && virt="${virt:+$virt, }virtual machine (CPU flag hypervisor)"
	echo "virt=${virt:-none detected}"
	echo "perf=$(perf version 2>/dev/null)"
	echo "paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)"
	echo "scratch_fs=$(stat -f -c %T "$scratch")"
	tree=$(git -C "$PR_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
	if [ -n "$(git -C "$PR_ROOT" status --porcelain -- tools/perf_ring 2>/dev/null)" ]; then
		tree="$tree, tools/perf_ring with uncommitted changes"
	fi
	echo "tree=$tree"
	echo "perf_ring_built=$(date -u -r "$PR_BUILD/tools/perf_ring/perf-ring" '+%Y-%m-%d %H:%M UTC')"
	echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$BENCH_STATE/machine.env"

pr_log "bench: $mode, parts: $parts (load $(cut -d' ' -f1-3 /proc/loadavg))"
failed=()
summary=()
for p in $parts; do
	[ -f "$S/bench_$p.py" ] || pr_die "bench: no part '$p'"
	t0=$(date +%s)
	pr_log "bench: part $p"
	( cd "$S" && exec "$PY" -E -B "bench_$p.py" ) &
	part_pid=$!
	if wait "$part_pid"; then r=PASS; else r=FAIL; failed+=("$p"); fi
	part_pid=
	summary+=("$(printf '%-4s %8s  %s' "$r" "$(pr_elapsed "$t0")" "$p")")
	rm -rf "${scratch:?}"/*
done
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$BENCH_STATE/machine.env"
echo "failed=${failed[*]}" >> "$BENCH_STATE/machine.env"

# A broken full run does not replace the committed results.
if [ "${#failed[@]}" -gt 0 ] && [ "$BENCH_OUT" = "$PR_ROOT/bench/results" ]; then
	export BENCH_OUT=$PR_BUILD/bench/failed
	mkdir -p "$BENCH_OUT"
	pr_log "bench: parts failed; this run's report goes to ${BENCH_OUT#"$PR_ROOT"/}"
fi
( cd "$S" && "$PY" -E -B bench_report.py ) || failed+=("report")
"$S/bench-plot.sh" || failed+=("plots")

printf '\nmake bench (%s): %s in all\n' "$mode" "$(pr_elapsed "$BENCH_T0")"
printf '  %s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
	pr_log "bench: FAILED: ${failed[*]} (see the messages above)"
	exit 1
fi
pr_log "bench: results in ${BENCH_OUT#"$PR_ROOT"/}"
