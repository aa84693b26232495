#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest as /usr/bin/perf-ring-guest-test: the recorder on
# the kernel under test. Streaming must work everywhere. The flight recorder
# needs write_backward: on PRE it must refuse with a message naming the
# missing feature and a non-zero exit, elsewhere it must write a snapshot.
# Then CPU 1 goes offline and comes back while perf-ring records (system
# wide, a workload pinned to CPU 1, the flight recorder): the run must go
# on and end with exit 0, the file must hold what was recorded before,
# during and after, and perf-ring must say that the CPU went away.
# Prints a TAP line per check (guest-init.sh nests them) and the plan at
# the end; exit 0 when every check held.
# check, skip and kmsg_until: /lib/perf-ring-guest-lib.sh (guest-lib.sh)
. /lib/perf-ring-guest-lib.sh

# The guest's tmpfs.
d=/tmp
cd "$d" || exit 1
pre=false
# PRE in any flavour: 6.12.118-pre, -pre-debug, -pre-kcsan, -pre-i386.
case "$(uname -r)" in *-pre|*-pre-*) pre=true ;; esac

perf-ring record -q -m 64 -e 'raw_syscalls:*' -o $d/stream.data -- close-loop 20000 \
	> $d/stream.out 2>&1
check "streaming record of close-loop 20000 exits 0" [ $? -eq 0 ]
perf-ring report -i $d/stream.data > $d/stream.rep 2>&1
check "report reads the streaming file" [ $? -eq 0 ]
enter=$(awk '/raw_syscalls:sys_enter stats/ { getline; print $3 }' $d/stream.rep)
lost=$(awk '/^  lost:/ { print $2 }' $d/stream.rep)
# Every close(-1) of the loop is a sys_enter record, unless it was lost.
check "sys_enter records ($enter) + lost ($lost) >= 20000" \
	[ $(( ${enter:-0} + ${lost:-0} )) -ge 20000 ]

perf-ring record -q --overwrite -z -e 'raw_syscalls:*' -o $d/flight.data -- close-loop 20000 \
	> $d/flight.out 2>&1
rc=$?
if $pre; then
	check "PRE: --overwrite fails (exit $rc)" [ $rc -ne 0 ]
	check "PRE: the message names write_backward" grep -q write_backward $d/flight.out
else
	check "--overwrite -z exits 0" [ $rc -eq 0 ]
	perf-ring report -i $d/flight.data > $d/flight.rep 2>&1
	check "report reads the snapshot" [ $? -eq 0 ]
	check "the snapshot holds samples" grep -q 'SAMPLE events' $d/flight.rep
fi

# ---- CPU 1 goes offline while perf-ring records, and comes back ----
#
# Phases: A (both CPUs online), B (CPU 1 offline), C (CPU 1 back). Marks in
# /dev/kmsg bound them: "down" before the offline starts, "off" once it is
# done, "on" before the online starts. printk stamps them with
# local_clock(), the clock of the samples' PERF_SAMPLE_TIME.
cpu1=/sys/devices/system/cpu/cpu1/online
# Marks carry this run's tag: the log can hold an earlier run's marks
# (guest-faults.sh runs this script twice in one boot), and after a fault
# run it holds megabytes of traces, more than a fixed read time covers.
tag=$$ nmark=0
mark() { echo "<6>perf_ring_mark $tag $1" > /dev/kmsg; }
# kmsg_marks: "NAME NS" for each of this run's marks so far, in order,
# up to a new "endN" mark.
kmsg_marks() {
	nmark=$((nmark + 1))
	kmsg_until "perf_ring_mark $tag end$nmark" \
		-F';' -v p="perf_ring_mark $tag " -v e="end$nmark" '
		index($2, p) == 1 {
			k = substr($2, length(p) + 1)
			if (k == e)
				exit
			split($1, a, ",")
			printf "%s %.0f\n", k, a[3] * 1000
		}
		END { if (k != e) print "# no mark " e " of run " p "read back from /dev/kmsg" > "/dev/stderr" }'
}
# marks: set down, off and on (ns) from the latest marks of those names
marks() {
	kmsg_marks > $d/marks
	set -- $(awk '{ t[$1] = $2 } END { printf "%.0f %.0f %.0f\n", t["down"], t["off"], t["on"] }' $d/marks)
	down=$1 off=$2 on=$3
}
# count FILE: per-CPU samples of a plain perf.data file in phase A (a0,
# a1), B (b0, b1) and C (c0, c1), and last1, the time of the last CPU 1
# sample of phase A. Samples are IP|TID|TIME|ID|CPU|...: after the header
# the time is the 4th u64, the CPU the low half of the 6th.
count() {
	set -- "$1" $(hexdump -v -s 40 -n 16 -e '4/4 "%u " "\n"' "$1")
	set -- $(hexdump -v -s $(($2 + $3 * 4294967296)) -n $(($4 + $5 * 4294967296)) \
		-e '2/4 "%u " "\n"' "$1" |
	awk -v off="$off" -v on="$on" '
	left == 0 { type = $1; left = int($2 / 65536) / 8; i = 0 }
	{ i++; left-- }
	type == 9 && i == 4 { t = $1 + $2 * 4294967296 }
	type == 9 && i == 6 {
		c[(t < off ? 0 : t < on ? 2 : 4) + ($1 == 1)]++
		if ($1 == 1 && t < off && t > last) last = t
	}
	END { printf "%d %d %d %d %d %d %.0f\n", c[0], c[1], c[2], c[3], c[4], c[5], last }')
	a0=${1:-0} a1=${2:-0} b0=${3:-0} b1=${4:-0} c0=${5:-0} c1=${6:-0} last1=${7:-0}
}
# show NAME: the counts, into the log
show() {
	echo "# $1: samples on cpu0/cpu1: before $a0/$a1, while cpu 1 is offline $b0/$b1," \
		"after $c0/$c1; the last cpu 1 sample is $(( (last1 - down) / 1000000 )) ms" \
		"after the offline began (it took $(( (off - down) / 1000000 )) ms)"
}
# cycle: phase A, CPU 1 offline, phase B (with SIGUSR2 to $snap_pid
# halfway when set), CPU 1 back online, phase C.
cycle() {
	usleep 1500000
	mark down
	echo 0 > $cpu1 || return 1
	mark off
	usleep 1000000
	[ -z "$snap_pid" ] || kill -USR2 "$snap_pid"
	usleep 1000000
	mark on
	echo 1 > $cpu1 || return 1
	usleep 1500000
}
# cycle3 USEC: CPU 1 goes offline for USEC and comes back, three times;
# marks downK, offK and onK (K = 1..3) bound the phases. USEC 0: back at
# once, an offline far shorter than the 100 ms at which perf-ring reads
# the online mask: only the kernel's uevents tell it.
cycle3() {
	usleep 1000000
	for k in 1 2 3; do
		mark down$k
		echo 0 > $cpu1 || return 1
		mark off$k
		[ "$1" -eq 0 ] || usleep "$1"
		mark on$k
		echo 1 > $cpu1 || return 1
		usleep 1500000
	done
}
# count3 FILE: CPU 1 samples in each interval it was online (on0: before
# the first offline, onK: after the Kth came back) and offline (offK), from
# the marks downK, offK, onK.
count3() {
	local m
	kmsg_marks > $d/marks
	m3=$(awk '{ t[$1] = $2 }
		END { for (k = 1; k <= 3; k++)
			printf "%.0f %.0f %.0f ", t["down" k], t["off" k], t["on" k] }' $d/marks)
	m=$m3
	set -- "$1" $(hexdump -v -s 40 -n 16 -e '4/4 "%u " "\n"' "$1")
	set -- $(hexdump -v -s $(($2 + $3 * 4294967296)) -n $(($4 + $5 * 4294967296)) \
		-e '2/4 "%u " "\n"' "$1" |
	awk -v m="$m" '
	BEGIN { split(m, x, " "); for (k = 1; k <= 3; k++) { dn[k] = x[3 * k - 2]; of[k] = x[3 * k - 1]; on[k] = x[3 * k] } }
	left == 0 { type = $1; left = int($2 / 65536) / 8; i = 0 }
	{ i++; left-- }
	type == 9 && i == 4 { t = $1 + $2 * 4294967296 }
	type == 9 && i == 6 && $1 == 1 {
		if (t < dn[1]) c[0]++
		for (k = 1; k <= 3; k++) {
			if (t >= of[k] && t < on[k]) o[k]++
			if (t >= on[k] && (k == 3 || t < dn[k + 1])) c[k]++
		}
	}
	END { printf "%d %d %d %d %d %d %d\n", c[0], c[1], c[2], c[3], o[1], o[2], o[3] }')
	on0=${1:-0} on1=${2:-0} on2=${3:-0} on3=${4:-0} off1=${5:-0} off2=${6:-0} off3=${7:-0}
}
# perf_cpu3 FILE NAME: perf's own view of the intervals count3 measured
# (its marks in $m3): perf report --sort cpu --time START,STOP for each
# interval in which CPU 1 was online must show CPU 001, and for each in
# which it was offline must not. Needs perf in the initramfs (GUEST_PERF=1).
perf_cpu3() {
	local f=$1 name=$2 k t1 t2 got bad=
	if ! command -v perf >/dev/null; then
		skip "$name: perf report --sort cpu per interval" "no perf in the initramfs (GUEST_PERF=1)"
		return
	fi
	set -- $m3
	# [start, down1), [on1, down2), [on2, down3), [on3, end): online
	for k in 0 1 2 3; do
		case $k in
		0) t1= t2=$1 ;;
		3) t1=$9 t2= ;;
		*) eval "t1=\${$((3 * k))} t2=\${$((3 * k + 1))}" ;;
		esac
		got=$(perf_cpu_share "$f" "$t1" "$t2")
		echo "# $name: perf report --sort cpu, online interval $k: cpu 001 ${got:-absent}"
		[ -n "$got" ] || bad="$bad on$k"
	done
	# [offK, onK): offline
	for k in 1 2 3; do
		eval "t1=\${$((3 * k - 1))} t2=\${$((3 * k))}"
		got=$(perf_cpu_share "$f" "$t1" "$t2")
		[ -z "$got" ] || bad="$bad off$k($got)"
	done
	check "$name: perf report --sort cpu shows cpu 001 in every online interval, never offline${bad:+ (wrong:$bad)}" \
		[ -z "$bad" ]
}
# perf_cpu_share FILE T1 T2: CPU 001's share of the samples between T1 and
# T2 (ns, either empty for open), as perf report --sort cpu prints it
perf_cpu_share() {
	local r=
	[ -z "$2" ] || r=$(($2 / 1000000000)).$(printf %09d $(($2 % 1000000000)))
	r="$r,"
	[ -z "$3" ] || r=$r$(($3 / 1000000000)).$(printf %09d $(($3 % 1000000000)))
	perf report -i "$1" --stdio -q --sort cpu --time "$r" 2>/dev/null |
		awk '$2 == "001" { print $1 }'
}
# record_a NAME: perf-ring records cpu-clock system wide into $d/NAME.data
# (its output in $d/NAME.out) in the background, $pid; returns once the
# file exists: the first online interval starts when perf-ring records,
# which on a slow kernel (KCSAN under TCG) is well after it was started.
record_a() {
	perf-ring record -a -e cpu-clock -c 1000000 -o $d/$1.data > $d/$1.out 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		[ -s $d/$1.data ] && break
		usleep 100000
	done
}
# stop_a: SIGINT to record_a's perf-ring; rc is its exit status (130: -a
# stopped by SIGINT dies by it, as perf record does)
stop_a() {
	kill -INT $pid
	wait $pid
	rc=$?
}
ticks() { # ticks PID: CPU time of PID, in clock ticks
	awk '{ print $14 + $15 }' /proc/$1/stat
}
uptime_ticks() {
	awk '{ printf "%d\n", $1 * 100 }' /proc/uptime
}

if [ "$(nproc)" -lt 2 ] || [ ! -w $cpu1 ]; then
	for t in "system wide" "pinned workload" "flight recorder"; do
		skip "cpu hotplug: $t" "no second CPU that can go offline"
	done
else
	# System wide, cpu-clock every 1 ms on each CPU. The large
	# --mmap-flush leaves CPU 1's records in its buffer until the end of
	# the run, long after the CPU went away: they must reach the file.
	t0=$(uptime_ticks)
	perf-ring record -a -e cpu-clock -c 1000000 --mmap-flush 128K -o $d/hp-a.data \
		> $d/hp-a.out 2>&1 &
	pid=$!
	snap_pid=
	check "hotplug -a: cpu 1 goes offline and comes back" cycle
	used=$(ticks $pid) all=$(( $(uptime_ticks) - t0 ))
	kill -INT $pid
	wait $pid
	rc=$?
	check "hotplug -a: perf-ring ends by the SIGINT, as perf record -a does (exit $rc)" [ $rc -eq 130 ]
	check "hotplug -a: perf-ring does not spin ($used of $all ticks)" [ $((used * 2)) -lt $all ]
	perf-ring report -i $d/hp-a.data > $d/hp-a.rep 2>&1
	check "hotplug -a: report reads the file" [ $? -eq 0 ]
	marks
	count $d/hp-a.data
	show "hotplug -a"
	check "hotplug -a: samples on both CPUs before the offline" [ $a0 -gt 0 -a $a1 -gt 0 ]
	check "hotplug -a: cpu 1's unread records up to the offline are in the file" \
		[ $last1 -ge $((down - 50000000)) ]
	check "hotplug -a: cpu 0 only while cpu 1 is offline" [ $b0 -gt 0 -a $b1 -eq 0 ]
	check "hotplug -a: cpu 0 samples after cpu 1 is back" [ $c0 -gt 0 ]
	check "hotplug -a: cpu 1 samples after it came back ($c1: perf-ring opened its events again)" \
		[ $c1 -gt 0 ]
	check "hotplug -a: perf-ring says that cpu 1 went offline" \
		grep -q 'cpu 1 went offline' $d/hp-a.out

	# Three times offline and back: every interval in which CPU 1 was
	# online has its samples, and none while it was offline.
	record_a hp-3
	check "hotplug -a x3: cpu 1 goes offline and comes back three times" cycle3 700000
	stop_a
	check "hotplug -a x3: perf-ring ends by the SIGINT, as perf record -a does (exit $rc)" [ $rc -eq 130 ]
	perf-ring report -i $d/hp-3.data > $d/hp-3.rep 2>&1
	check "hotplug -a x3: report reads the file" [ $? -eq 0 ]
	count3 $d/hp-3.data
	echo "# hotplug -a x3: cpu 1 samples online $on0, $on1, $on2, $on3; offline $off1, $off2, $off3"
	check "hotplug -a x3: cpu 1 samples in every interval it was online" \
		[ $on0 -gt 0 -a $on1 -gt 0 -a $on2 -gt 0 -a $on3 -gt 0 ]
	check "hotplug -a x3: none while it was offline" [ $((off1 + off2 + off3)) -eq 0 ]
	check "hotplug -a x3: perf-ring says its events were opened again" \
		grep -q 'went offline 3 times.*opened again' $d/hp-3.out
	perf_cpu3 $d/hp-3.data "hotplug -a x3"

	# The same with offlines as short as the kernel makes them: the
	# 100 ms mask check alone would miss most of them.
	record_a hp-q
	check "hotplug -a quick: cpu 1 goes offline and straight back three times" cycle3 0
	stop_a
	check "hotplug -a quick: perf-ring ends by the SIGINT, as perf record -a does (exit $rc)" [ $rc -eq 130 ]
	count3 $d/hp-q.data
	set -- $m3
	echo "# hotplug -a quick: offline for $((($3 - $2) / 1000000)), $((($6 - $5) / 1000000))," \
		"$((($9 - $8) / 1000000)) ms (from done to the online's start);" \
		"cpu 1 samples online $on0, $on1, $on2, $on3"
	check "hotplug -a quick: perf-ring saw all three offlines and opened the events again" \
		grep -q 'went offline 3 times.*opened again' $d/hp-q.out
	check "hotplug -a quick: cpu 1 samples in every interval it was online" \
		[ $on0 -gt 0 -a $on1 -gt 0 -a $on2 -gt 0 -a $on3 -gt 0 ]

	# A workload pinned to CPU 1, slow enough to keep the file small. Its
	# per-CPU events belong to its tasks, not to the CPU; the kernel moves
	# it to CPU 0 when CPU 1 goes away.
	rm -f $d/stop
	perf-ring record -e raw_syscalls:sys_enter -o $d/hp-w.data -- taskset -c 1 \
		sh -c "while [ ! -e $d/stop ]; do close-loop 50; usleep 50000; done" \
		> $d/hp-w.out 2>&1 &
	pid=$!
	check "hotplug workload: cpu 1 goes offline and comes back" cycle
	touch $d/stop
	wait $pid
	rc=$?
	check "hotplug workload: perf-ring exits 0 (exit $rc)" [ $rc -eq 0 ]
	perf-ring report -i $d/hp-w.data > $d/hp-w.rep 2>&1
	check "hotplug workload: report reads the file" [ $? -eq 0 ]
	marks
	count $d/hp-w.data
	show "hotplug workload"
	check "hotplug workload: samples on cpu 1 before the offline" [ $a1 -gt 0 ]
	check "hotplug workload: on cpu 0 only while cpu 1 is offline" [ $b0 -gt 0 -a $b1 -eq 0 ]
	check "hotplug workload: samples after cpu 1 is back" [ $((c0 + c1)) -gt 0 ]
	check "hotplug workload: perf-ring says that cpu 1 went offline" \
		grep -q 'cpu 1 went offline' $d/hp-w.out

	if $pre; then
		skip "hotplug flight recorder" "kernel lacks write_backward"
	else
		# A snapshot (SIGUSR2) while CPU 1 is offline, the last one
		# (SIGINT) after it came back.
		rm -f $d/hp-f.data.*
		nall=$(grep -c '^processor' /proc/cpuinfo)	# online, whatever the affinity
		perf-ring record --overwrite --switch-output=signal -a -e cpu-clock -c 1000000 \
			-o $d/hp-f.data > $d/hp-f.out 2>&1 &
		pid=$!
		snap_pid=$pid
		check "hotplug flight: cpu 1 goes offline and comes back" cycle
		snap_pid=
		kill -INT $pid
		wait $pid
		rc=$?
		check "hotplug flight: perf-ring ends by the SIGINT, as perf record -a does (exit $rc)" [ $rc -eq 130 ]
		set -- $(ls $d/hp-f.data.* 2>/dev/null)
		check "hotplug flight: two snapshots ($#)" [ $# -eq 2 ]
		s1=$1 s2=$2
		perf-ring report -i "$s1" > $d/hp-f1.rep 2>&1 &&
			perf-ring report -i "$s2" > $d/hp-f2.rep 2>&1
		check "hotplug flight: report reads both snapshots" [ $? -eq 0 ]
		marks
		count "$s1"
		show "hotplug flight, snapshot while cpu 1 is offline"
		check "hotplug flight: that snapshot holds cpu 1 samples from before the offline" \
			[ $a1 -gt 0 -a $b1 -eq 0 ]
		check "hotplug flight: ... and cpu 0 samples from while it is offline" [ $b0 -gt 0 ]
		count "$s2"
		show "hotplug flight, last snapshot"
		check "hotplug flight: the last snapshot holds cpu 0 samples after cpu 1 is back" \
			[ $c0 -gt 0 -a $b1 -eq 0 ]
		check "hotplug flight: perf-ring says that cpu 1 went offline" \
			grep -q 'cpu 1 went offline' $d/hp-f.out
		# the header's CPUs, read again when perf-ring's hotplug
		# watch sees another mask (hostinfo.h)
		if command -v perf >/dev/null; then
			on1=$(perf report --header-only -i "$s1" 2>/dev/null |
				sed -n 's/^# nrcpus online : //p')
			on2=$(perf report --header-only -i "$s2" 2>/dev/null |
				sed -n 's/^# nrcpus online : //p')
			check "hotplug flight: the header says $((nall - 1)) CPUs online while cpu 1 is offline ($on1)" \
				[ "$on1" = $((nall - 1)) ]
			check "hotplug flight: ... and $nall after it came back ($on2)" [ "$on2" = "$nall" ]
		else
			skip "hotplug flight: the header's online CPUs" "no perf in the initramfs (GUEST_PERF=1)"
			skip "hotplug flight: ... after cpu 1 came back" "no perf in the initramfs (GUEST_PERF=1)"
		fi
	fi
	# whatever happened, leave CPU 1 online
	echo 1 > $cpu1 2>/dev/null
fi
echo "1..$n"
[ $fail -eq 0 ] || {
	echo "--- recorder output"
	cat $d/stream.out $d/flight.out $d/hp-*.out 2>/dev/null
}
exit $fail
