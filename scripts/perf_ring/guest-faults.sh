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
# Every injected failure prints "FAULT_INJECTION: forcing a failure" and a
# stack trace (verbose=2); the host (fault_count.py) counts them by the
# function they landed in and takes them out of the log before
# tap-check.sh looks for splats. At the end kmemleak scans for leaks.
#
# Prints TAP; PERF_RING_FAULT_ROUNDS (default 4) recorder runs per command.
rounds=${PERF_RING_FAULT_ROUNDS:-4}
dbg=/sys/kernel/debug
d=/tmp/faults
mkdir -p $d
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

# faulty CMD...: CMD with fault injection on (the flag is inherited by the
# children it starts).
faulty() { sh -c 'echo 1 > /proc/self/make-it-fail && exec "$@"' faulty "$@"; }

# run_faulty NAME SECONDS CMD...: sets rc (128+ when killed) and leaves the
# output in $d/NAME.out.
run_faulty() {
	name=$1 tmo=$2
	shift 2
	faulty timeout -s KILL "$tmo" "$@" > $d/$name.out 2>&1
	rc=$?
}

echo "TAP version 13"
echo "# fault injection: $attrs, task-filter, verbose=2, $rounds rounds per recorder command"

# ---- the selftests, each with 2% of allocations and copies failing ----
# Their own TAP is not passed on (their asserts fail by design when an
# allocation does): the check is that each ends by itself, not by a signal.
for t in $(cat /selftests/perf_ring/list 2>/dev/null); do
	arm 2 50
	rc=$(cd /selftests/perf_ring && { faulty timeout -s KILL 300 "./$t" > $d/st-$t.out 2>&1; echo $?; })
	nomem=$(grep -c 'Cannot allocate memory\|ENOMEM' $d/st-$t.out)
	fault=$(grep -c 'Bad address\|EFAULT' $d/st-$t.out)
	echo "# selftest $t under faults: exit $rc; $nomem lines name ENOMEM, $fault EFAULT"
	if [ "$rc" -lt 128 ]; then
		ok "selftest $t under faults ends by itself (exit $rc)"
	else
		notok "selftest $t under faults was killed or hung (exit $rc)"
		tail -5 $d/st-$t.out | sed 's/^/#   /'
	fi
done
arm 0 0

# ---- the recorder: each command $rounds times, 5% of calls failing ----
# check_rec NAME FILE: the run ended by itself; a failure names what
# failed; whatever file it left is readable by perf-ring report.
check_rec() {
	name=$1 file=$2
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
		if ! perf-ring report -i "$f" > $d/$name.rep 2>&1; then
			notok "$name: exit $rc left $f, which perf-ring report cannot read"
			tail -3 $d/$name.rep | sed 's/^/#   /'
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
	printf '#!/bin/sh\n[ "$1" != record ] || echo 1 > /proc/self/make-it-fail\nexec /usr/bin/perf-ring "$@"\n' \
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
# The need is the peak of an unlimited run (memory.peak, which counts
# perf-ring, its workload and the file it writes into this tmpfs). Then
# the same run with memory.max 1/8 above that peak and 1/4 below it:
# either it runs, or it stops with a message and leaves a file that
# perf-ring report reads (or none); a file that cannot be read fails.
cg=/sys/fs/cgroup
memcg_run() { # memcg_run NAME MAX: the flight recorder in $cg/pr with memory.max=MAX
	echo "$2" > $cg/pr/memory.max
	rm -f $d/m.data*
	sh -c "echo \$\$ > $cg/pr/cgroup.procs && exec timeout -s KILL 120 \
		perf-ring record --overwrite -z -g -m 64 -e 'raw_syscalls:*' -o $d/m.data \
		-- close-loop 100000" > $d/$1.out 2>&1
	rc=$?
	peak=$(cat $cg/pr/memory.peak 2>/dev/null)
	ooms=$(awk '$1 == "oom_kill" { print $2 }' $cg/pr/memory.events 2>/dev/null)
}
if [ -x /usr/bin/perf-ring ] && mkdir -p $cg 2>/dev/null && mount -t cgroup2 none $cg 2>/dev/null &&
   echo +memory > $cg/cgroup.subtree_control 2>/dev/null && mkdir $cg/pr 2>/dev/null; then
	memcg_run memcg-free max
	need=$peak
	echo "# memcg: unlimited run: exit $rc, memory.peak $need bytes"
	if [ "$rc" -ne 0 ] || [ -z "$need" ]; then
		notok "memcg: the unlimited run failed (exit $rc)"
	else
		rmdir $cg/pr && mkdir $cg/pr	# a fresh memory.peak
		above=$((need + need / 8))
		memcg_run memcg-above $above
		echo "# memcg: memory.max $above (need + 1/8): exit $rc, peak $peak, oom_kill ${ooms:-?}: $(grep -m1 -i 'error\|snapshot\|perf-ring record' $d/memcg-above.out)"
		check_rec memcg-above $d/m.data
		rmdir $cg/pr && mkdir $cg/pr
		below=$((need - need / 4))
		memcg_run memcg-below $below
		echo "# memcg: memory.max $below (need - 1/4): exit $rc, peak $peak, oom_kill ${ooms:-?}: $(grep -m1 -i 'error\|snapshot\|perf-ring record' $d/memcg-below.out)"
		if [ "$rc" -ge 128 ]; then
			# Killed (the OOM killer): no file, or one that reads.
			for f in $d/m.data $d/m.data.*; do
				[ -e "$f" ] || continue
				perf-ring report -i "$f" > $d/memcg-below.rep 2>&1 ||
					{ rc=unreadable; echo "# memcg: $f left behind cannot be read"; }
			done
			if [ "$rc" = unreadable ]; then
				notok "memcg: memory.max $below, 1/4 below the need: killed, with an unreadable file"
			else
				ok "memcg: memory.max $below, 1/4 below the need: killed (oom_kill ${ooms:-?}), no unreadable file"
			fi
		else
			check_rec memcg-below $d/m.data
		fi
	fi
	echo max > $cg/pr/memory.max
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
