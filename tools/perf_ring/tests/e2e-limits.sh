# SPDX-License-Identifier: GPL-2.0
#
# The limits at scale (sourced by e2e.sh: its helpers and variables are
# used here).  Each limit is set low for one recording only (prlimit,
# setpriv): the recording stops before it opens anything, exit 255 (a
# failed setup, as perf record's), with a message naming the limit and the figure needed, and leaves no file; or,
# when raising the soft limit is enough, it raises it and records.

if ! command -v prlimit >/dev/null || ! command -v setpriv >/dev/null; then
	skip "limits at scale" "prlimit and setpriv (util-linux) are needed"
else
	NOCAP=(setpriv --bounding-set=-sys_resource,-ipc_lock --inh-caps=-sys_resource,-ipc_lock)
	ncpu=$(getconf _NPROCESSORS_ONLN)

	# RLIMIT_NOFILE: 2 events on every CPU, hard limit 30, no CAP_SYS_RESOURCE
	rm -f lim.data
	prlimit --nofile=30:30 "${NOCAP[@]}" "$PR" record -e raw_syscalls:sys_enter \
		-e raw_syscalls:sys_exit -o lim.data -- true >lim.out 2>lim.err
	rc=$?
	need=$(sed -n 's/.* need \([0-9]*\) file descriptors.*/\1/p' lim.err)
	if [ "$rc" = 255 ] && grep -q "RLIMIT_NOFILE allows 30" lim.err && [ -n "$need" ] &&
	   [ "$need" -gt 30 ] && grep -q "ulimit -n $need" lim.err && [ ! -e lim.data ]; then
		ok "RLIMIT_NOFILE 30: stops before recording, names the limit and $need needed"
	else
		nok "RLIMIT_NOFILE 30: stops with a message naming it" "rc $rc" "$(cat lim.err)"
	fi
	# ... and with the limit it named, it records
	prlimit --nofile="$need":"$need" "${NOCAP[@]}" "$PR" record -e raw_syscalls:sys_enter \
		-e raw_syscalls:sys_exit -o lim.data -- true >lim.out 2>lim.err
	rc=$?
	if [ "$rc" = 0 ] && "$PR" report -i lim.data >/dev/null 2>&1; then
		ok "RLIMIT_NOFILE at the figure the message named ($need): records"
	else
		nok "RLIMIT_NOFILE $need: records" "rc $rc" "$(tail -3 lim.err)"
	fi
	# a soft limit short of it, a hard limit above: raised, as perf does
	prlimit --nofile=10:4096 "${NOCAP[@]}" "$PR" record -v -e raw_syscalls:sys_enter \
		-o lim.data -- true >lim.out 2>lim.err
	rc=$?
	if [ "$rc" = 0 ] && grep -q "RLIMIT_NOFILE raised from 10 to 4096" lim.err; then
		ok "RLIMIT_NOFILE soft 10, hard 4096: the soft limit raised to the hard one"
	else
		nok "RLIMIT_NOFILE soft 10: raised" "rc $rc" "$(grep -i nofile lim.err; tail -2 lim.err)"
	fi

	# RLIMIT_MEMLOCK and perf_event_mlock_kb: -m far beyond both, no CAP_IPC_LOCK
	mlock=$(cat /proc/sys/kernel/perf_event_mlock_kb)
	rm -f lim.data
	prlimit --memlock=$((8 << 20)) "${NOCAP[@]}" "$PR" record -m 64M -e raw_syscalls:sys_enter \
		-o lim.data -- true >lim.out 2>lim.err
	rc=$?
	want=$((ncpu * (65536 + 4)))
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le -1 ]; then
		skip "RLIMIT_MEMLOCK: -m 64M" "perf_event_paranoid -1: the kernel does not limit"
	elif [ "$rc" = 255 ] && grep -q "need $want kB locked" lim.err &&
	     grep -q "perf_event_mlock_kb ($mlock kB) x $ncpu online CPUs" lim.err &&
	     grep -q "RLIMIT_MEMLOCK (8192 kB)" lim.err && grep -q -- "-m [0-9]*K fits" lim.err &&
	     [ ! -e lim.data ]; then
		ok "RLIMIT_MEMLOCK 8 MB, -m 64M: stops, names both limits and $want kB needed"
	else
		nok "RLIMIT_MEMLOCK 8 MB, -m 64M: a message naming both limits" "rc $rc" "$(cat lim.err)"
	fi
fi
