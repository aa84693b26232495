#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the debug guest as /usr/bin/perf-ring-guest-faults, for
# "make qemu-check KERNEL=post DEBUG=1 FAULTS=1": the selftests and the
# recorder with kernel allocation and user-copy failures injected into the
# tasks that open events and map buffers (failslab, fail_page_alloc and
# fail_usercopy, restricted by task-filter to tasks whose
# /proc/self/make-it-fail is 1).
#
# A faulted run may fail; what it must not do is hang, die by a signal, or
# leave an unreadable file. A recorder run that fails must say what failed.
# perf-ring turns the injection on for itself once it has started
# (PERF_RING_MAKE_IT_FAIL=1), so the failures land in what it does, not in
# the exec that starts it. The selftests are started by fail-after-exec,
# which sets the flag once their exec has succeeded (under ptrace), for
# the same reason: an exec that fails past its point of no return is
# killed by the kernel with SIGSEGV, and the failures never reach the
# test. A SIGSEGV is told apart from a crash of the program by the
# kernel's "segfault at" line, which a crash prints (loglevel 6).
# Every injected failure prints "FAULT_INJECTION: forcing a failure" and a
# stack trace (verbose=2); the host (fault_count.py) counts them by the
# function they landed in and takes them out of the log before
# tap-check.sh looks for splats. At the end kmemleak scans for leaks.
#
# How many failures landed in each run is read from each attribute's
# "times", which the kernel counts down per failure (exact, whatever the
# log buffer keeps); the kernel's crash lines from dmesg (qemu-check boots
# with log_buf_len=8M, so the failures' traces do not push them out).
#
# Prints TAP; PERF_RING_FAULT_ROUNDS (default 4) recorder runs per command
# and per mode (failures from the opening of the events on, and only once
# the recording runs).
rounds=${PERF_RING_FAULT_ROUNDS:-4}
dbg=/sys/kernel/debug
d=$(mktemp -d) || exit 1
# ok, notok, kmsg_until, readable and reader: /lib/perf-ring-guest-lib.sh
# (guest-lib.sh)
. /lib/perf-ring-guest-lib.sh

attrs="failslab fail_page_alloc fail_usercopy"
for a in $attrs; do
	if [ ! -d $dbg/$a ] || [ ! -w /proc/self/make-it-fail ]; then
		echo "1..1"
		echo "ok 1 fault injection # SKIP no $dbg/$a or /proc/self/make-it-fail (CONFIG_FAULT_INJECTION_DEBUG_FS)"
		exit 0
	fi
	echo Y > $dbg/$a/task-filter
	echo 2 > $dbg/$a/verbose
	echo 0 > $dbg/$a/space
	echo 1 > $dbg/$a/interval
done
# Sleeping allocations fail too (perf's buffers are GFP_KERNEL), and
# single pages (a ring buffer is order-0 pages).
echo N > $dbg/failslab/ignore-gfp-wait
echo N > $dbg/fail_page_alloc/ignore-gfp-wait
echo N > $dbg/fail_page_alloc/ignore-gfp-highmem
echo 0 > $dbg/fail_page_alloc/min-order

# arm PERCENT TIMES: each attribute fails PERCENT% of the eligible calls,
# at most TIMES times from now on.
arm() {
	armed=$2
	for a in $attrs; do
		echo "$1" > $dbg/$a/probability
		echo "$2" > $dbg/$a/times
	done
}
# landed: the failures injected since arm, from what is left of each
# attribute's times; sets inj (the total) and inj_by ("failslab 3, ...").
landed() {
	inj=0 inj_by=
	for a in $attrs; do
		k=$((armed - $(cat $dbg/$a/times)))
		inj=$((inj + k))
		inj_by="$inj_by${inj_by:+, }$a $k"
	done
}

# kmemleak: forget what boot left behind, so that the last scan reports
# only what the faulted runs leaked.
kml=$dbg/kmemleak
if [ -w $kml ]; then
	echo scan > $kml
	echo clear > $kml
fi

# crashes: how many lines the kernel printed so far about user programs
# that crashed; crash_lines: those lines
crash_lines() { dmesg | grep -E 'segfault at|traps: |general protection fault ip'; }
crashes() { crash_lines | wc -l; }
# sigframes: injected failures so far in a signal frame's copy, written at
# delivery (x64_setup_rt_frame) or read back by rt_sigreturn: the kernel
# kills a task whose signal frame it cannot write or read with SIGSEGV,
# any program
sigframes() { dmesg | grep -cE '__do_sys_rt_sigreturn|x64_setup_rt_frame'; }

echo "TAP version 13"
echo "# fault injection: $attrs, task-filter, verbose=2, $rounds rounds per recorder command"

# ---- the selftests, each with 2% of allocations and copies failing ----
# Their own TAP is not passed on (their asserts fail by design when an
# allocation does).  The checks: each ends by itself, not by a signal; a
# run that fails had failures injected into it; no program crashed except
# by a write through MAP_FAILED (below) or a signal frame the kernel could
# not copy; and run again without faults it passes, so the failures left
# nothing behind in the kernel that breaks the next user.
for t in $(cat /selftests/perf_ring/list 2>/dev/null); do
	c0=$(crashes) s0=$(sigframes)
	arm 2 50
	rc=$(cd /selftests/perf_ring && { fail-after-exec 300 "./$t" > $d/st-$t.out 2>&1; echo $?; })
	landed
	arm 0 0
	c1=$(crashes) s1=$(sigframes)
	nomem=$(grep -c 'Cannot allocate memory\|ENOMEM' $d/st-$t.out)
	fault=$(grep -c 'Bad address\|EFAULT' $d/st-$t.out)
	# crash lines of this run that are not a write through MAP_FAILED
	odd=0
	[ "$c1" = "$c0" ] ||
		odd=$(crash_lines | tail -n $((c1 - c0)) | grep -vc 'segfault at ffffffffffffffff ')
	rc2=$(cd /selftests/perf_ring && { timeout -s KILL 300 "./$t" > $d/st-$t.clean 2>&1; echo $?; })
	echo "# selftest $t under faults: exit $rc; $inj injected ($inj_by); $nomem lines name ENOMEM, $fault EFAULT; $((c1 - c0)) crash lines from the kernel ($odd not at MAP_FAILED), $((s1 - s0)) in a signal frame; run again without faults: exit $rc2"
	crash_lines | tail -n $((c1 - c0)) | sed 's/^/#   /'
	if [ "$rc" -ge 128 ] && ! { [ "$rc" = 139 ] && { [ "$s1" != "$s0" ] || [ "$odd" = 0 ]; }; }; then
		notok "selftest $t under faults was killed, crashed or hung (exit $rc)"
		tail -5 $d/st-$t.out | sed 's/^/#   /'
	elif [ "$odd" != 0 ] && [ "$s1" = "$s0" ]; then
		notok "selftest $t under faults: $odd crash(es) not explained by MAP_FAILED or a signal frame"
	elif [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$inj" = 0 ]; then
		notok "selftest $t under faults failed (exit $rc) with no failure injected"
		tail -5 $d/st-$t.out | sed 's/^/#   /'
	elif [ "$rc2" != 0 ] && [ "$rc2" != 4 ]; then
		notok "selftest $t fails without faults after the faulted run (exit $rc2)"
		grep '^not ok' $d/st-$t.clean | head -5 | sed 's/^/#   /'
	else
		how="ends by itself (exit $rc)"
		if [ "$rc" = 139 ] && [ "$s1" != "$s0" ]; then
			how="SIGSEGV from the kernel after an injected failure in a signal frame's copy"
		elif [ "$rc" = 139 ]; then
			# A write through MAP_FAILED: an mmap() the injection made
			# fail, returned cleanly as ENOMEM, and not checked by the
			# program. 6.12's kselftest_harness.h does not check the
			# mmap() of a TEST_F's shared metadata in the constructor
			# that registers it (_register_FIXTURE_TEST), before main().
			how="SIGSEGV writing through MAP_FAILED (an mmap() failed with ENOMEM, unchecked in user space)"
		fi
		ok "selftest $t under faults: $how, $inj failures injected; passes again without faults (exit $rc2)"
	fi
done
arm 0 0

# ---- the recorder: each command $rounds times, 5% of calls failing ----
# Two modes: failures from the opening of the events on
# (PERF_RING_MAKE_IT_FAIL=1: most land in perf_event_open and the buffers'
# mmap, and the run stops before recording), and only once the recording
# runs (=running: the reading loop, the writer's io_uring and writes, the
# snapshots, with 20 snapshot requests sent to the flight recorder).
#

# A death by signal N is exit 128+N (N <= 64); perf-ring's failed setups
# exit as perf record's do (255, 244, 237, 234), which are not.
by_signal() { [ "$1" -gt 128 ] && [ "$1" -le 192 ]; }

# check_rec NAME FILE: the run ended by itself, or was killed by the kernel
# for a signal frame it could not copy; a failure names what failed; every
# file it left reads.  A snapshot a kill interrupted is FILE.partial,
# never renamed to its name: perf-ring report --recover must rebuild it
# into a file that reads, unless it holds less than a perf.data header
# (nothing was written yet).  A run that ended by itself leaves a
# .partial only where it says so: a snapshot it could not rename (whole),
# or one whose header could not be finalized (for --recover).
check_rec() {
	name=$1 file=$2 how=
	if [ "$rc" = 139 ] && [ "$(sigframes)" != "${sr0:-}" ]; then
		how="killed with SIGSEGV by the kernel (an injected failure in the copy of a signal frame)"
	elif by_signal "$rc"; then
		notok "$name: killed by a signal or hung (exit $rc)"
		tail -5 $d/$name.out | sed 's/^/#   /'
		[ ! -s $d/$name.hang ] || sed 's/^/#   /' $d/$name.hang
		return
	elif [ "$rc" -ne 0 ]; then
		# perf-ring's errors are lines of their own, "perf-ring record:
		# ...", the one that ended the run last
		msg=$(grep '^perf-ring record: ' $d/$name.out | tail -1)
		if [ -z "$msg" ]; then
			notok "$name: exit $rc without a message"
			tail -3 $d/$name.out | sed 's/^/#   /'
			return
		fi
		echo "# $name: exit $rc: $msg"
		how="exit $rc with a message"
	else
		how="exit 0"
	fi
	nf=0
	for f in $file $file.*; do
		[ -e "$f" ] || continue
		case $f in *.rec|*.rep) continue ;; esac
		case $f in
		*.partial)
			# ended by itself: only a snapshot it could not rename,
			# said so, and whole
			if ! by_signal "$rc"; then
				if grep -qF "the snapshot is whole in '$f'" $d/$name.out && readable "$f"; then
					echo "# $name: ${f##*/}: not renamed, as perf-ring says, and $(reader) reads it"
					nf=$((nf + 1))
					continue
				fi
				# its header could not be finalized: kept for --recover
				if grep -qF "the snapshot stays '$f'" $d/$name.out &&
				   perf-ring report --recover -i "$f" -o "$f.rec" > "$f.rep" 2>&1 &&
				   readable "$f.rec"; then
					echo "# $name: ${f##*/}: its header not finalized, as perf-ring says; --recover rebuilt it, and $(reader) reads it"
					nf=$((nf + 1))
					continue
				fi
				notok "$name: $how, but left ${f##*/}"
				grep '^perf-ring record: ' $d/$name.out | sed 's/^/#   /'
				return
			fi
			sz=$(wc -c < "$f")
			if [ "$sz" -lt 104 ]; then
				echo "# $name: ${f##*/}: $sz bytes, nothing written yet"
			elif perf-ring report --recover -i "$f" -o "$f.rec" > "$f.rep" 2>&1 &&
			     readable "$f.rec"; then
				echo "# $name: ${f##*/} ($sz bytes): --recover rebuilt it, and $(reader) reads it"
			elif grep -q 'no data after the header: nothing to recover' "$f.rep"; then
				echo "# $name: ${f##*/} ($sz bytes): the header alone, no data yet (--recover: nothing to recover)"
			else
				notok "$name: $how, left ${f##*/} ($sz bytes), which --recover cannot make readable"
				tail -3 "$f.rep" | sed 's/^/#   /'
				return
			fi ;;
		*)
			# killed, a file written in place (streaming) is
			# what --recover is for (the manual)
			if readable "$f"; then
				:
			elif by_signal "$rc" &&
			     perf-ring report --recover -i "$f" -o "$f.rec" > "$f.rep" 2>&1 &&
			     readable "$f.rec"; then
				echo "# $name: ${f##*/}: --recover rebuilt it, and $(reader) reads it"
			elif by_signal "$rc" && grep -q 'no data after the header: nothing to recover' "$f.rep"; then
				echo "# $name: ${f##*/}: killed before any data was written (--recover: nothing to recover)"
			else
				notok "$name: $how, left ${f##*/}, which $(reader) cannot read"
				tail -3 "$f.rep" | sed 's/^/#   /'
				sed 's/^/#   perf-ring: /' $d/$name.out | tail -4
				return
			fi ;;
		esac
		nf=$((nf + 1))
	done
	if [ "$rc" = 0 ] && [ "$nf" = 0 ]; then
		notok "$name: exit 0 and no file"
		return
	fi
	ok "$name: $how, $inj failures injected ($inj_by), $nf file(s), each read by $(reader)"
}

# wait_caught PID: until PID catches SIGUSR2 (SigCgt bit 11), or 10 s, or
# it is gone: a snapshot request sent before would kill it
wait_caught() {
	for _ in $(seq 100); do
		cgt=$(awk '$1 == "SigCgt:" { print $2 }' /proc/$1/status 2>/dev/null)
		[ -n "$cgt" ] || break
		[ $((0x$cgt & 0x800)) = 0 ] || break
		usleep 100000
	done
}

# rec NAME MODE PROB TIMES FILE SNAPS perf-ring ...: perf-ring with the
# injection in MODE (1 or running), PROB% of the eligible calls failing at
# most TIMES times per attribute; SNAPS snapshot requests, 0.2 s apart,
# from 0.5 s on, "snapshot" on the control fifo $d/ctl, every fourth a
# SIGUSR2 instead (a signal frame the injection may fail to copy, and the
# kernel then kills perf-ring: mostly fifo, so that most runs reach their
# snapshots); then checked.
rec() {
	name=$1 mode=$2 file=$5 snaps=$6
	arm "$3" "$4"
	shift 6
	rm -f "$file" "$file".*
	sr0=$(sigframes)
	PERF_RING_MAKE_IT_FAIL=$mode "$@" > $d/$name.out 2>&1 &
	pid=$!
	# after 120 s: where each thread waits (its kernel stack and the
	# system call it is in), then SIGKILL
	rm -f $d/$name.hang
	{
		sleep 120
		for t in /proc/$pid/task/*; do
			echo "task ${t##*/} ($(cat $t/comm)): wchan $(cat $t/wchan), syscall $(cat $t/syscall)"
			sed 's/^/  /' $t/stack
		done > $d/$name.hang
		kill -KILL $pid
	} 2>/dev/null &
	dog=$!
	if [ "$snaps" -gt 0 ]; then
		wait_caught $pid
		usleep 500000
		for k in $(seq "$snaps"); do
			kill -0 $pid 2>/dev/null || break
			if [ $((k % 4)) = 0 ]; then
				kill -USR2 $pid 2>/dev/null
			else
				# an open for writing waits for the reader: bounded
				timeout 2 sh -c "echo snapshot > $d/ctl" 2>/dev/null
			fi
			usleep 200000
		done
	fi
	wait $pid
	rc=$?
	kill $dog 2>/dev/null
	landed
	arm 0 0
	check_rec "$name" "$file"
}

if [ -x /usr/bin/perf-ring ]; then
	echo "# the recorder's files are read by $(reader)"
	mkfifo $d/ctl
	for mode in 1 running; do
		i=0
		while [ $i -lt "$rounds" ]; do
			i=$((i + 1))
			rec "rec-stream-$mode-$i" $mode 5 10 $d/s.data 0 \
				perf-ring record -q -m 16 -e 'raw_syscalls:*' -o $d/s.data -- close-loop 20000
			rec "rec-flight-$mode-$i" $mode 5 10 $d/f.data 20 \
				perf-ring record -q --overwrite -z -g --switch-output=signal \
				--control=fifo:$d/ctl -e 'raw_syscalls:*' -o $d/f.data -- close-loop 20000
			rec "rec-all-$mode-$i" $mode 5 10 $d/a.data 0 \
				perf-ring record -q -a -e cpu-clock -c 1000000 -o $d/a.data -- close-loop 20000
		done
	done
	# The recorder's guest test, perf-ring record faulted (report is not).
	# Its own checks assert what a recording holds, which an injected
	# failure may rightly prevent: they are shown, not judged.  What is
	# judged: it ends, and run again without faults every check holds.
	mkdir -p $d/bin
	printf '#!/bin/sh\n[ "$1" != record ] || export PERF_RING_MAKE_IT_FAIL=1\nexec /usr/bin/perf-ring "$@"\n' \
		> $d/bin/perf-ring
	chmod +x $d/bin/perf-ring
	arm 1 40
	PATH=$d/bin:$PATH timeout -s KILL 600 /usr/bin/perf-ring-guest-test > $d/guest-test.out 2>&1
	rc=$?
	landed
	arm 0 0
	echo 1 > /sys/devices/system/cpu/cpu1/online 2>/dev/null
	echo "# recorder guest test under faults: exit $rc; $inj failures injected ($inj_by); $(grep -c '^ok' $d/guest-test.out) checks held, $(grep -c '^not ok' $d/guest-test.out) did not"
	# How long the kernel's log takes to read through /dev/kmsg, one
	# record per read, as the guest test reads its hotplug marks.
	t0=$(cut -d' ' -f1 /proc/uptime)
	k=$(kmsg_until "perf_ring_faults log" '/perf_ring_faults log$/ { print NR; exit }')
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "# the kernel's log after it: ${k:-?} lines, read through /dev/kmsg in $(awk "BEGIN { print $t1 - $t0 }") s"
	# Run again without faults, it must pass whole: what the faults did
	# must not reach the next user of the kernel. A recorder the
	# injection killed leaves its command running, as perf would: what
	# the faulted run left is shown, then stopped, so that it does not
	# run beside the clean run's workloads.
	left=$(ps -o pid,ppid,comm | awk 'NR > 1 && $2 != 2 && $1 != 2 && $3 !~ /^(sh|init|ps|awk|perf-ring-guest)/ { printf "%s(%s) ", $3, $1 }')
	echo "# before the clean run, left running: ${left:-nothing}"
	killall -KILL perf-ring close-loop 2>/dev/null
	sleep 1
	timeout -s KILL 600 /usr/bin/perf-ring-guest-test > $d/guest-test.clean 2>&1
	rc2=$?
	echo "# recorder guest test run again without faults: exit $rc2; $(grep -c '^ok' $d/guest-test.clean) checks held, $(grep -c '^not ok' $d/guest-test.clean) did not"
	# the failed checks with the lines before each (their figures)
	grep -B4 '^not ok' $d/guest-test.clean | sed 's/^/#   /'
	if [ $rc -ge 128 ]; then
		notok "recorder guest test under faults was killed or hung (exit $rc)"
	elif [ $rc2 != 0 ] || grep -q '^not ok' $d/guest-test.clean; then
		notok "recorder guest test fails without faults after the faulted run (exit $rc2)"
		grep '^not ok' $d/guest-test.clean | head -5 | sed 's/^/#   /'
	else
		ok "recorder guest test under faults ends by itself (exit $rc, $inj failures injected), and passes again without faults"
	fi
else
	ok "recorder under faults # SKIP perf-ring is not in the initramfs"
fi

# ---- memory limits: perf-ring inside a cgroup v2 with memory.max ----
# What perf-ring needs is found by bisection: 8 halvings between 0 and
# 16 MiB find the smallest memory.max (to 1/256 of that) at which the run
# still exits 0.  An unlimited run's memory.peak (perf-ring, its workload
# and the file it writes into this tmpfs, which the cgroup is charged for)
# is printed beside it: perf-ring asks for what it may need at most, which
# is more than it takes when the data compresses well.  Every bisection
# run is checked as well.  The
# run at that limit (just above the need) and at the last one that failed
# (just below) are the checked ones: either it runs, or it stops with a
# message and leaves a file that perf-ring report reads (or none).  perf-ring
# checks its cgroup's room before it takes memory (memlimit.c), so the OOM
# killer must not end it at either limit.
cg=/sys/fs/cgroup
# memcg_run NAME MAX: the flight recorder in a fresh $cg/pr with
# memory.max=MAX; sets rc, peak and ooms.
memcg_run() {
	for _ in $(seq 50); do
		[ -d $cg/pr ] || break
		rmdir $cg/pr 2>/dev/null && break
		usleep 100000		# exiting io_uring workers keep it busy
	done
	mkdir $cg/pr || { rc=255; return; }
	echo "$2" > $cg/pr/memory.max
	rm -f $d/m.data*
	sh -c "echo \$\$ > $cg/pr/cgroup.procs && exec timeout -s KILL 120 \
		perf-ring record --overwrite -z -g -m 64 -e 'raw_syscalls:*' -o $d/m.data \
		-- close-loop 100000" > $d/$1.out 2>&1
	rc=$?
	peak=$(cat $cg/pr/memory.peak 2>/dev/null)
	ooms=$(awk '$1 == "oom_kill" { print $2 }' $cg/pr/memory.events 2>/dev/null)
}
# memcg_check NAME MAX: the checks of a run at the limit MAX
memcg_check() {
	msg=$(grep -m1 -i 'error\|cannot\|fail\|memory\|killed\|perf-ring record:' $d/$1.out)
	echo "# $1: memory.max $2: exit $rc, peak $peak, oom_kill ${ooms:-?}: $msg"
	if [ "$rc" -ge 128 ]; then
		for f in $d/m.data $d/m.data.*; do
			[ -e "$f" ] || continue
			case $f in *.rec|*.rep) continue ;; esac
			echo "# $1: left ${f##*/}"
		done
		notok "$1: memory.max $2: killed (exit $rc, oom_kill ${ooms:-?}): no message"
	else
		inj=0 inj_by="memory.max only"
		check_rec "$1" $d/m.data
	fi
}
# memcg_lowered: a limit set during a flight recording (none at its
# start: perf-ring reads the limits at each check).  One snapshot, then
# memory.max down to memory.current plus 600 KiB (room for
# the reading loop's 512 KiB reserve, not for a snapshot's two 1 MiB
# chunks at least), then a second snapshot request: perf-ring must stop,
# refusing it before opening its file (or at the reading loop's next
# check), with exit 2 and the message, no OOM kill, and the first
# snapshot must read.
memcg_lowered() {
	for _ in $(seq 50); do
		[ -d $cg/pr ] || break
		rmdir $cg/pr 2>/dev/null && break
		usleep 100000
	done
	mkdir $cg/pr || { notok "memcg-lowered: cannot create $cg/pr"; return; }
	rm -f $d/l.data*
	sh -c "echo \$\$ > $cg/pr/cgroup.procs && exec perf-ring record --overwrite -z -m 64 \
		-e 'raw_syscalls:*' --switch-output=signal -o $d/l.data -- close-loop 1000000000" \
		> $d/memcg-lowered.out 2>&1 &
	pid=$!
	wait_caught $pid
	kill -USR2 $pid
	first=
	for _ in $(seq 100); do
		first=$(sed -n 's/^\[ perf-ring: snapshot \([^:]*\): .*/\1/p' $d/memcg-lowered.out | head -1)
		[ -z "$first" ] || break
		usleep 100000
	done
	used=$(cat $cg/pr/memory.current)
	lim=$((used + (600 << 10)))
	echo $lim > $cg/pr/memory.max
	kill -USR2 $pid
	# refused, it ends by itself; else it is stopped after 10 s
	{ sleep 10; kill -INT $pid; sleep 50; kill -KILL $pid; } 2>/dev/null &
	dog=$!
	wait $pid
	rc=$?
	kill $dog 2>/dev/null
	ooms=$(awk '$1 == "oom_kill" { print $2 }' $cg/pr/memory.events)
	left=$(cd $d && ls l.data* 2>/dev/null | tr '\n' ' ')
	msg=$(grep -m1 'may need up to' $d/memcg-lowered.out)
	echo "# memcg-lowered: $used bytes in use, memory.max lowered to $lim; exit $rc, oom_kill ${ooms:-?}, left: $left; $msg"
	if [ "$rc" = 2 ] && [ "${ooms:-1}" = 0 ] && [ -n "$first" ] &&
	   echo "$msg" | grep -q "may need up to .* more memory, but cgroup .* left" &&
	   [ "$left" = "${first##*/} " ] && [ "$(grep -c '^\[ perf-ring: snapshot ' $d/memcg-lowered.out)" = 1 ]; then
		if readable "$first"; then
			ok "memcg-lowered: the next snapshot is refused with the message, exit 2, no OOM kill; the first one is read by $(reader)"
		else
			notok "memcg-lowered: the first snapshot does not read"
			tail -3 "$first.rep" | sed 's/^/#   /'
		fi
	else
		notok "memcg-lowered: the next snapshot is refused, exit 2, the first kept (exit $rc, oom_kill ${ooms:-?}, first '$first', left '$left')"
		tail -3 $d/memcg-lowered.out | sed 's/^/#   /'
	fi
}
if [ -x /usr/bin/perf-ring ] && mkdir -p $cg 2>/dev/null && mount -t cgroup2 none $cg 2>/dev/null &&
   echo +memory > $cg/cgroup.subtree_control 2>/dev/null; then
	memcg_run memcg-free max
	need=$peak
	echo "# memcg: unlimited run: exit $rc, memory.peak $need bytes"
	if [ "$rc" -ne 0 ] || [ -z "$need" ]; then
		notok "memcg: the unlimited run failed (exit $rc)"
	else
		lo=0 hi=$((16 << 20))
		for _ in 1 2 3 4 5 6 7 8; do
			mid=$(( (lo + hi) / 2 / 4096 * 4096 ))
			memcg_run memcg-step $mid
			echo "# memcg: bisection: memory.max $mid: exit $rc, peak $peak, oom_kill ${ooms:-?}"
			[ "$rc" -lt 128 ] || notok "memcg: bisection: memory.max $mid: killed (exit $rc, oom_kill ${ooms:-?})"
			if [ "$rc" -eq 0 ]; then hi=$mid; else lo=$mid; fi
		done
		echo "# memcg: perf-ring needs between $lo and $hi bytes of memory.max (unlimited peak $need)"
		memcg_run memcg-above $hi
		memcg_check memcg-above $hi
		memcg_run memcg-below $lo
		memcg_check memcg-below $lo
	fi
	memcg_lowered
	rmdir $cg/pr 2>/dev/null
else
	ok "memcg # SKIP no cgroup v2 memory controller (CONFIG_MEMCG) or no perf-ring"
fi

# ---- leaks ----
if [ -w $kml ]; then
	# kmemleak reports objects older than 5 s that nothing points to;
	# two scans, as its documentation advises, to settle.
	sleep 6
	echo scan > $kml
	sleep 1
	echo scan > $kml
	leaks=$(grep -c '^unreferenced object' $kml)
	echo "# kmemleak: $leaks unreferenced object(s)"
	if [ "$leaks" -eq 0 ]; then
		ok "kmemleak: no leak after the faulted runs"
	else
		notok "kmemleak: $leaks leak(s) after the faulted runs"
		head -40 $kml | sed 's/^/#   /'
	fi
else
	ok "kmemleak # SKIP no $kml (CONFIG_DEBUG_KMEMLEAK)"
fi
echo "1..$n"
