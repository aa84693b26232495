#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ab-guest.sh: the guest side of make ab (scripts/perf_ring/ab.sh), run by
# /init in perf_ring.mode=ab under QEMU -icount on one vCPU. /ab/run holds
# RUN, /ab/conf sets AB_N, AB_PERIODS and AB_REPS. Everything goes to the console:
#
#   AB_WARM/AB_EMPTY/AB_RUN lines   from ab-timer, one per run
#   AB_WARMOUT lines                the first lines RUN printed
#   AB_RUN_FAILED rc=RC             RUN failed; AB_OUT lines hold its output
#   AB_PERF_BEGIN ... AB_PERF_END   base64 of a tar.gz: perf-ring's
#                                   recording of AB_REPS RUNs (a cpu-clock event
#                                   per period of AB_PERIODS, in ns =
#                                   instructions) and the
#                                   kernel's kallsyms in its build-id cache
. /ab/conf
run=$(cat /ab/run)
cd /ab || exit 1
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
echo "AB_BEGIN release=$(uname -r) n=$AB_N periods=$AB_PERIODS"

failed() {
	echo "AB_RUN_FAILED rc=$1 what=$2"
	head -c 8192 /ab/run.out | sed 's/^/AB_OUT /'
	exit 0
}

# The first run fills the page cache and the dentry cache; it is not counted.
/ab/ab-timer WARM 1 /ab/run.out sh -c "$run" || failed $? run
head -n 20 /ab/run.out | head -c 4096 | sed 's/^/AB_WARMOUT /'
# The shell alone: what "sh -c" costs around RUN.
/ab/ab-timer EMPTY "$AB_N" /ab/run.out sh -c : || failed $? empty
/ab/ab-timer RUN "$AB_N" /ab/run.out sh -c "$run" || failed $? run

# One more run under perf-ring: cpu-clock is an hrtimer, and under -icount
# it fires every period instructions, at the same instructions each boot.
# One period alone would sample a tight loop at a few places only (the
# same phase comes back every sample); events of several periods, whose
# interrupts also shift each other, spread the samples over the loop.
rm -rf /ab/ab-cache /ab/ab.data
evs=
for p in $AB_PERIODS; do evs="$evs -e cpu-clock/period=$p/"; done
# RUN AB_REPS times in the one recording: more samples, the same per run.
printf '%s\n' 'run=$(cat /ab/run)' 'i=0' 'while [ "$i" -lt "$1" ]; do' \
	'	sh -c "$run" || exit' '	i=$((i + 1))' 'done' > /ab/ab-reps.sh
# shellcheck disable=SC2086
PERF_BUILDID_DIR=/ab/ab-cache perf-ring record $evs \
	-o /ab/ab.data -- sh /ab/ab-reps.sh "$AB_REPS" > /ab/run.out 2>&1 || failed $? record
grep -i -e lost -e error /ab/run.out | sed 's/^/AB_RECORD /'
perf-ring report -i /ab/ab.data 2>&1 | sed 's/^/AB_REPORT /'
# The host has every user binary; only the kernel's symbols must travel.
(
	cd /ab/ab-cache || exit 1
	for f in * .build-id/*/*; do
		case "$f" in
		'[kernel.kallsyms]'|.build-id) ;;
		.build-id/*) readlink "$f" | grep -q 'kernel.kallsyms' || rm -f "$f" ;;
		*) rm -rf "$f" ;;
		esac
	done
)
echo "AB_PERF_BEGIN"
tar -C /ab -cf - ab.data ab-cache | gzip -1 | base64
echo "AB_PERF_END"
