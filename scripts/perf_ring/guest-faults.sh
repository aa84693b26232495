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
# Prints TAP; PERF_RING_FAULT_ROUNDS (default 4) recorder runs per command.
rounds=${PERF_RING_FAULT_ROUNDS:-4}
dbg=/sys/kernel/debug
d=$(mktemp -d) || exit 1
n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); echo "not ok $n $*"; }

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
	for a in $attrs; do
		echo "$1" > $dbg/$a/probability
		echo "$2" > $dbg/$a/times
	done
}

# kmemleak: forget what boot left behind, so that the last scan reports
# only what the faulted runs leaked.
kml=$dbg/kmemleak
if [ -w $kml ]; then
	echo scan > $kml
	echo clear > $kml
fi

# run_faulty NAME SECONDS perf-ring ...: perf-ring with the injection on
# from its start; sets rc (128+ when killed) and leaves the output in
# $d/NAME.out.
run_faulty() {
	name=$1 tmo=$2
	shift 2
	sr0=$(sigframes)
	PERF_RING_MAKE_IT_FAIL=1 timeout -s KILL "$tmo" "$@" > $d/$name.out 2>&1
	rc=$?
}
# crashes: the kernel's lines about user programs that crashed so far
crashes() { dmesg | grep -cE 'segfault at|traps: |general protection fault ip'; }

echo "TAP version 13"
echo "# fault injection: $attrs, task-filter, verbose=2, $rounds rounds per recorder command"

# ---- the selftests, each with 2% of allocations and copies failing ----
# Their own TAP is not passed on (their asserts fail by design when an
# allocation does): the check is that each ends by itself, not by a signal.
for t in $(cat /selftests/perf_ring/list 2>/dev/null); do
	c0=$(crashes)
	arm 2 50
	rc=$(cd /selftests/perf_ring && { fail-after-exec 300 "./$t" > $d/st-$t.out 2>&1; echo $?; })
	arm 0 0
	c1=$(crashes)
	nomem=$(grep -c 'Cannot allocate memory\|ENOMEM' $d/st-$t.out)
	fault=$(grep -c 'Bad address\|EFAULT' $d/st-$t.out)
	echo "# selftest $t under faults: exit $rc; $nomem lines name ENOMEM, $fault EFAULT; $((c1 - c0)) crash lines from the kernel"
	if [ "$rc" -lt 128 ]; then
		ok "selftest $t under faults ends by itself (exit $rc)"
	elif [ "$rc" = 139 ] && [ "$c1" = "$c0" ]; then
		ok "selftest $t under faults: SIGSEGV from the kernel after an injected failure (a signal frame), no crash line"
	elif [ "$rc" = 139 ] && [ $((c1 - c0)) = 1 ] &&
	     dmesg | grep 'segfault at' | tail -1 | grep -q 'segfault at ffffffffffffffff '; then
		# A write through MAP_FAILED: an mmap() the injection made
		# fail, returned cleanly as ENOMEM, and not checked by the
		# program. 6.12's kselftest_harness.h does not check the
		# mmap() of a TEST_F's shared metadata in the constructor
		# that registers it (_register_FIXTURE_TEST), before main().
		echo "# $(dmesg | grep 'segfault at' | tail -1)"
		ok "selftest $t under faults: SIGSEGV writing through MAP_FAILED (an mmap() failed with ENOMEM, unchecked in user space), no kernel fault"
	else
		notok "selftest $t under faults was killed, crashed or hung (exit $rc)"
		tail -5 $d/st-$t.out | sed 's/^/#   /'
	fi
done
arm 0 0

# ---- the recorder: each command $rounds times, 5% of calls failing ----
# readable FILE: perf-ring report reads it. A snapshot a kill interrupted
# is FILE.partial, never renamed to its name: not an output file, so it
# only has to be named, and what --recover makes of it is shown.
readable() {
	case $1 in
	*.partial)
		if perf-ring report --recover -i "$1" -o "$1.rec" > "$1.rep" 2>&1 &&
		   perf-ring report -i "$1.rec" >> "$1.rep" 2>&1; then
			echo "# ${1##*/}: --recover rebuilt it, and it reads"
		else
			echo "# ${1##*/}: not a snapshot (never finalized); --recover: $(tail -1 "$1.rep")"
		fi ;;
	*) perf-ring report -i "$1" > "$1.rep" 2>&1 ;;
	esac
}

# sigframes: injected failures so far in a signal frame's copy, written at
# delivery (x64_setup_rt_frame) or read back by rt_sigreturn: the kernel
# kills a task whose signal frame it cannot write or read with SIGSEGV,
# any program
sigframes() { dmesg | grep -cE '__do_sys_rt_sigreturn|x64_setup_rt_frame'; }

# check_rec NAME FILE: the run ended by itself; a failure names what
# failed; whatever file it left is readable by perf-ring report.
check_rec() {
	name=$1 file=$2
	if [ "$rc" = 139 ] && [ "$(sigframes)" != "${sr0:-}" ]; then
		ok "$name: killed with SIGSEGV by the kernel: the failure was injected into the copy of a signal frame (delivery or rt_sigreturn)"
		return
	fi
	if [ "$rc" -ge 128 ]; then
		notok "$name: killed by a signal or hung (exit $rc)"
		tail -5 $d/$name.out | sed 's/^/#   /'
		return
	fi
	if [ "$rc" -ne 0 ]; then
		msg=$(grep -m1 -i 'error\|cannot\|can.t\|fail\|refus\|denied\|invalid\|memory\|address' $d/$name.out)
		if [ -z "$msg" ]; then
			notok "$name: exit $rc without a message"
			tail -3 $d/$name.out | sed 's/^/#   /'
			return
		fi
		echo "# $name: exit $rc: $msg"
	fi
	for f in $file $file.*; do
		[ -e "$f" ] || continue
		case $f in *.rec|*.rep) continue ;; esac
		if ! readable "$f"; then
			notok "$name: exit $rc left $f, which perf-ring report cannot read"
			tail -3 "$f.rep" | sed 's/^/#   /'
			return
		fi
	done
	ok "$name: exit $rc, no hang, any file it left is readable"
}

if [ -x /usr/bin/perf-ring ]; then
	i=0
	while [ $i -lt "$rounds" ]; do
		i=$((i + 1))
		arm 5 10
		rm -f $d/s.data*
		run_faulty "rec-stream-$i" 120 perf-ring record -q -m 16 -e 'raw_syscalls:*' \
			-o $d/s.data -- close-loop 2000
		arm 0 0
		check_rec "rec-stream-$i" $d/s.data

		arm 5 10
		rm -f $d/f.data*
		run_faulty "rec-flight-$i" 120 perf-ring record -q --overwrite -z -g \
			-e 'raw_syscalls:*' -o $d/f.data -- close-loop 2000
		arm 0 0
		check_rec "rec-flight-$i" $d/f.data

		arm 5 10
		rm -f $d/a.data*
		run_faulty "rec-all-$i" 120 perf-ring record -q -a -e cpu-clock -c 1000000 \
			-o $d/a.data -- close-loop 2000
		arm 0 0
		check_rec "rec-all-$i" $d/a.data
	done
	# The recorder's guest test, perf-ring record faulted (report is not):
	# it may fail its checks, it must end.
	mkdir -p $d/bin
	printf '#!/bin/sh\n[ "$1" != record ] || export PERF_RING_MAKE_IT_FAIL=1\nexec /usr/bin/perf-ring "$@"\n' \
		> $d/bin/perf-ring
	chmod +x $d/bin/perf-ring
	arm 1 40
	PATH=$d/bin:$PATH timeout -s KILL 600 /usr/bin/perf-ring-guest-test > $d/guest-test.out 2>&1
	rc=$?
	arm 0 0
	echo 1 > /sys/devices/system/cpu/cpu1/online 2>/dev/null
	echo "# recorder guest test under faults: exit $rc; $(grep -c '^ok' $d/guest-test.out) checks held, $(grep -c '^not ok' $d/guest-test.out) did not"
	if [ $rc -lt 128 ]; then
		ok "recorder guest test under faults ends by itself (exit $rc)"
	else
		notok "recorder guest test under faults was killed or hung (exit $rc)"
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
		check_rec "$1" $d/m.data
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
