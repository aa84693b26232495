#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (QEMU -icount, one vCPU) for make qemu-bench
# PART=rate (perf_ring.bench=rate): close(-1) paced by bench/rate_loop.c at
# each rate of perf_ring.rates= (records per second, two records a call;
# 0: unpaced, the kernel's limit), perf_ring.calls= calls per case,
# recorded by perf record and perf-ring record at their default -m, and
# by nobody (the kernel-only floor, bench/rec_run.c -f 128, and the loop
# alone), and each around no calls (its fixed cost, rate=fixed).  One
# "rate" line per case; the host script
# (scripts/perf_ring/bench_scale_rate.py) makes the table.
calls=100000
rates="10000 30000 100000 200000 300000 500000 1000000 0"
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	perf_ring.calls=*) calls=${arg#perf_ring.calls=} ;;
	perf_ring.rates=*) rates=$(echo "${arg#perf_ring.rates=}" | tr , ' ') ;;
	esac
done
W=/bench/work
part=${1:-rate}
if ! [ -x /usr/bin/perf ]; then
	echo "rate skipped: no perf in the initramfs (GUEST_PERF=1)"
	exit 0
fi
echo 0 > /proc/sys/kernel/randomize_va_space
cd "$W" || exit 1
o=$W/rate.data

# rec_timed and rec_counts: /lib/perf-ring-guest-lib.sh (guest-lib.sh)
. /lib/perf-ring-guest-lib.sh

# one TOOL RATE [rec_run options] -- CMD...: one timed case, then the
# records kept and lost in $o as perf-ring report reads them.
one() {
	tool=$1 rate=$2
	shift 2
	rm -f "$o"
	rec_timed "$@"
	# the loop's fields, each as loop_NAME=VALUE
	lline=$(grep '^rate_loop ' $W/rec.err | sed 's/^rate_loop //; s/\([a-z]*\)=/loop_\1=/g')
	echo "rate tool=$tool rate=$rate $rec_line $(rec_counts "$o") $lline"
}

# zlong: -z1 of both tools on close-loop $calls at -m 128 (as the
# recorders part), each around no calls too (the fixed cost), the floor
# and the loop alone: "rate" lines with rate=zlong or rate=fixed.
if [ "$part" = zlong ]; then
	echo "# zlong: $calls close(-1), -z1, -m 128, $(uname -r), $(perf --version)"
	/bench/rec_run -- perf record -q -z1 -m 128 -o $o -e 'raw_syscalls:*' -- close-loop 1000 >/dev/null 2>&1
	/bench/rec_run -- perf-ring record -q -z1 -m 128 -o $o -e 'raw_syscalls:*' -- close-loop 1000 >/dev/null 2>&1
	for n in 0 "$calls"; do
		tag=zlong
		[ "$n" = 0 ] && tag=fixed
		one none $tag -- close-loop "$n"
		one floor $tag -f 128 -- close-loop "$n"
		one perf $tag -- perf record -q -z1 -m 128 -o $o -e 'raw_syscalls:*' -- close-loop "$n"
		one perf-ring $tag -- perf-ring record -q -z1 -m 128 -o $o -e 'raw_syscalls:*' -- close-loop "$n"
	done
	exit 0
fi
echo "# rate: $calls close(-1) per case at $rates records/s, $(uname -r), $(perf --version)"
# Warm-up, not reported: the first exec of each binary.
/bench/rec_run -- perf record -q -o $o -e 'raw_syscalls:*' -- /bench/rate_loop 0 1000 >/dev/null 2>&1
/bench/rec_run -- perf-ring record -q -o $o -e 'raw_syscalls:*' -- /bench/rate_loop 0 1000 >/dev/null 2>&1
# Each tool's fixed cost (start-up and exit): the same command around no calls.
for tool in none floor perf perf-ring perf-ring-r0; do
	case $tool in
	none) one none fixed -- /bench/rate_loop 0 0 ;;
	floor) one floor fixed -f 128 -- /bench/rate_loop 0 0 ;;
	perf) one perf fixed -- perf record -q -o $o -e 'raw_syscalls:*' -- /bench/rate_loop 0 0 ;;
	perf-ring) one perf-ring fixed -- perf-ring record -q -o $o -e 'raw_syscalls:*' -- /bench/rate_loop 0 0 ;;
	perf-ring-r0) one perf-ring-r0 fixed -- perf-ring record -q -r 0 -o $o -e 'raw_syscalls:*' -- \
		/bench/rate_loop 0 0 ;;
	esac
done
for rate in $rates; do
	cps=$((rate / 2))
	loop="/bench/rate_loop $cps $calls"
	one none "$rate" -- $loop
	one floor "$rate" -f 128 -- $loop
	one perf "$rate" -- perf record -q -o $o -e 'raw_syscalls:*' -- $loop
	one perf-ring "$rate" -- perf-ring record -q -o $o -e 'raw_syscalls:*' -- $loop
	# perf-ring's reader is SCHED_FIFO by default; -r 0 reads as perf
	# does, at the scheduler's fair share.
	one perf-ring-r0 "$rate" -- perf-ring record -q -r 0 -o $o -e 'raw_syscalls:*' -- $loop
done
