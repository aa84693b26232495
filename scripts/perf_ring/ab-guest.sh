#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ab-guest.sh: the guest side of make ab (scripts/perf_ring/ab.sh), run by
# /init in perf_ring.mode=ab under QEMU -icount on one vCPU. /ab/run holds
# RUN, /ab/conf sets AB_N and AB_PERIOD. Everything goes to the console:
#
#   AB_WARM/AB_EMPTY/AB_RUN lines   from ab-timer, one per run
#   AB_WARMOUT lines                the first lines RUN printed
#   AB_RUN_FAILED rc=RC             RUN failed; AB_OUT lines hold its output
#   AB_PERF_BEGIN ... AB_PERF_END   base64 of a tar.gz: perf-ring's
#                                   recording of one RUN (cpu-clock, period
#                                   AB_PERIOD ns = instructions) and the
#                                   kernel's kallsyms in its build-id cache
. /ab/conf
run=$(cat /ab/run)
cd /tmp || exit 1
# Address-space randomisation would give each run its own page layout and
# so its own count of page faults and page-table pages; the A/B wants runs
# that repeat.
echo 0 > /proc/sys/kernel/randomize_va_space
# Until the TSC is verified (a second or so after boot) hrtimers run off
# the tick, and cpu-clock would sample once a tick, every 4,000,000
# instructions. Wait for high resolution mode, on every kernel alike.
i=0
until grep -q 'hres_active.*: 1' /proc/timer_list 2>/dev/null || [ $i -ge 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep -q 'hres_active.*: 1' /proc/timer_list 2>/dev/null ||
	echo "AB_RECORD high resolution timers are not active: cpu-clock samples once a tick"
echo "AB_BEGIN release=$(uname -r) n=$AB_N period=$AB_PERIOD"

failed() {
	echo "AB_RUN_FAILED rc=$1 what=$2"
	head -c 8192 /tmp/ab.out | sed 's/^/AB_OUT /'
	exit 0
}

# The first run fills the page cache and the dentry cache; it is not counted.
/ab/ab-timer WARM 1 /tmp/ab.out sh -c "$run" || failed $? run
head -n 20 /tmp/ab.out | head -c 4096 | sed 's/^/AB_WARMOUT /'
# The shell alone: what "sh -c" costs around RUN.
/ab/ab-timer EMPTY "$AB_N" /tmp/ab.out sh -c : || failed $? empty
/ab/ab-timer RUN "$AB_N" /tmp/ab.out sh -c "$run" || failed $? run

# One more run under perf-ring: cpu-clock is an hrtimer, and under -icount
# it fires every AB_PERIOD instructions, at the same instructions each boot.
rm -rf /tmp/ab-cache /tmp/ab.data
PERF_BUILDID_DIR=/tmp/ab-cache perf-ring record -e cpu-clock -c "$AB_PERIOD" \
	-o /tmp/ab.data -- sh -c "$run" > /tmp/ab.out 2>&1 || failed $? record
grep -i -e lost -e error /tmp/ab.out | sed 's/^/AB_RECORD /'
perf-ring report -i /tmp/ab.data 2>&1 | sed 's/^/AB_REPORT /'
# The host has every user binary; only the kernel's symbols must travel.
(
	cd /tmp/ab-cache || exit 1
	for f in * .build-id/*/*; do
		case "$f" in
		'[kernel.kallsyms]'|.build-id) ;;
		.build-id/*) readlink "$f" | grep -q 'kernel.kallsyms' || rm -f "$f" ;;
		*) rm -rf "$f" ;;
		esac
	done
)
echo "AB_PERF_BEGIN"
tar -C /tmp -cf - ab.data ab-cache | gzip -1 | base64
echo "AB_PERF_END"
