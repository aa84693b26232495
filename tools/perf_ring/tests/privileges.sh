#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-ring record as an unprivileged user at each perf_event_paranoid level
# in $PARANOID (default "2 1 -1"; the sysctl is restored afterwards):
#
#   software event    -e cpu-clock -c 10000 -- close-loop 10000
#                     works at 2 and below (own process; at 2 in user space
#                     only, the kernel is excluded)
#   tracepoint        -e raw_syscalls:sys_enter -- close-loop 10000
#                     tracefs is root-only, so perf-ring cannot find the
#                     tracepoint at any level: it must say so
#   tracepoint, ids   the same, with a copy of the tracefs files bind-mounted
#   readable          over /sys/kernel/tracing in a private mount namespace:
#                     works at 1 and below (syscall tracepoints are allowed
#                     in one's own tasks), fails at 2 naming the level
#   system wide       -a -e cpu-clock for 3 s: works at 0 and below, fails
#                     at 1 and 2 naming the level
#
# A failure must exit non-zero, not by a signal, and say what it needs; a success
# must leave a file that perf-ring report -f and (as root) perf report -f
# --stats read (-f: the file is nobody's), with the same samples, and at
# least one. A crash (a death by signal) or a sanitizer report is a failure either way. Prints TAP; exits non-zero on
# any failure. Needs root to switch users and set the sysctl.
#
# usage: privileges.sh SCRATCH_DIR   (PERF_RING, CLOSE_LOOP name the
#        binaries; PR_USER the user, default nobody)

set -u
W=${1:?scratch dir}
PR=${PERF_RING:?}
CL=${CLOSE_LOOP:?}
USR=${PR_USER:-nobody}
LEVELS=${PARANOID:-2 1 -1}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (to switch to $USR and set perf_event_paranoid)"
id "$USR" >/dev/null 2>&1 || skip_all "no user $USR"
command -v setpriv >/dev/null || skip_all "setpriv is missing (util-linux)"
command -v perf >/dev/null || skip_all "perf is not installed (Debian: linux-perf)"
para=/proc/sys/kernel/perf_event_paranoid
[ -w "$para" ] || skip_all "$para is not writable"
tfs=/sys/kernel/tracing
[ -e $tfs/events/header_page ] || mount -t tracefs nodev $tfs 2>/dev/null ||
	skip_all "tracefs is not mounted and cannot be mounted"

# kselftest.sh --user sets perf_event_paranoid too: one at a time.
exec 9>/run/lock/perf_ring-paranoid.lock || exit 1
flock -w 900 9 || { echo "not ok 1 - another run held /run/lock/perf_ring-paranoid.lock for 900 s"; exit 1; }

rm -rf "$W"
mkdir -p "$W"
old=$(cat "$para")
# The user may not reach the checkout (a private home): binaries and files
# live in a scratch folder of their own.
tmp=$(mktemp -d)
trap 'echo "$old" > "$para"; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
chmod 755 "$tmp"
cp "$PR" "$tmp/perf-ring"
cp "$CL" "$tmp/close-loop"
mkdir "$tmp/out"
chown "$USR" "$tmp/out"
# The files perf-ring reads to find raw_syscalls:sys_enter and describe it.
copy=$tmp/tracefs
mkdir -p "$copy/events/raw_syscalls/sys_enter"
cp $tfs/events/header_page $tfs/events/header_event "$copy/events/"
cp $tfs/events/raw_syscalls/sys_enter/id $tfs/events/raw_syscalls/sys_enter/format \
	"$copy/events/raw_syscalls/sys_enter/"
chmod -R a+rX "$tmp"
have_ns=1
unshare --mount --propagation private true 2>/dev/null || have_ns=
tfs_root_only=1
setpriv --reuid="$USR" --regid="$(id -gn "$USR")" --clear-groups --inh-caps=-all \
	test -r $tfs/events/header_page && tfs_root_only=

# run NAME [--for SECONDS] [--tracefs-copy] ARGS...: perf-ring record as
# the user, output $tmp/out/NAME.data, stderr in $W/NAME.err; sets rc.
# --for stops it with SIGINT after SECONDS (and kills it 10 s later).
run() {
	local name=$1 stop=() ns=()
	shift
	if [ "$1" = --for ]; then
		stop=(timeout --preserve-status -k 10 -s INT "$2")
		shift 2
	fi
	if [ "$1" = --tracefs-copy ]; then
		ns=(unshare --mount --propagation private sh -c 'mount --bind "$0" "$1" && shift && exec "$@"'
		    "$copy" $tfs)
		shift
	fi
	rm -f "$tmp/out/$name.data"
	"${ns[@]}" "${stop[@]}" setpriv --reuid="$USR" --regid="$(id -gn "$USR")" --clear-groups \
		--inh-caps=-all "$tmp/perf-ring" record -o "$tmp/out/$name.data" "$@" \
		>"$W/$name.out" 2>"$W/$name.err"
	rc=$?
}

# a death by signal (128+N, N <= 64): perf-ring's failed setups exit 255,
# as perf record's, which is none
crashed() {
	[ "$rc" -gt 128 ] && [ "$rc" -le 192 ] && return 0
	grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|Segmentation fault|core dumped' \
		"$W/$1.err"
}

# expect_ok NAME WHAT: the run succeeded and its file reads back.
expect_ok() {
	local name=$1 what=$2 f=$tmp/out/$1.data a b
	if crashed "$name" || [ "$rc" != 0 ]; then
		nok "$what: works" "exit $rc: $(head -3 "$W/$name.err")"; return
	fi
	if ! "$tmp/perf-ring" report -f -i "$f" >"$W/$name.report" 2>&1; then
		nok "$what: perf-ring report reads the file" "$(head -3 "$W/$name.report")"; return
	fi
	if ! perf report -f --stats -i "$f" >"$W/$name.stats" 2>"$W/$name.stats.err" ||
	   grep -qiE 'warn|error|fail|invalid' "$W/$name.stats.err"; then
		nok "$what: perf report --stats reads the file" "$(head -3 "$W/$name.stats.err")"; return
	fi
	a=$(awk '/SAMPLE events:/ {print $3; exit}' "$W/$name.report")
	b=$(awk '/SAMPLE events:/ {print $3; exit}' "$W/$name.stats")
	if [ -z "$a" ] || [ "$a" != "$b" ] || [ "$a" = 0 ]; then
		nok "$what: samples recorded, perf agrees" "perf-ring report: ${a:-none}, perf: ${b:-none}"; return
	fi
	ok "$what: works, $a samples; perf-ring report and perf report --stats read it"
}

# expect_fail NAME WHAT PATTERN: a clean failure whose message matches.
expect_fail() {
	local name=$1 what=$2 pat=$3 msg
	msg=$(grep -m1 'perf-ring record: ' "$W/$name.err")
	if crashed "$name"; then
		nok "$what: fails cleanly" "exit $rc: $(head -3 "$W/$name.err")"
	elif [ "$rc" = 0 ]; then
		nok "$what: fails" "exit 0; expected a message matching '$pat'"
	elif ! grep -qE -- "$pat" <<<"$msg"; then
		nok "$what: says why" "exit $rc: $msg" "expected: $pat"
	else
		ok "$what: exit $rc, \"${msg#perf-ring record: }\""
	fi
}

for level in $LEVELS; do
	echo "$level" > "$para"
	echo "# perf_event_paranoid=$level, as $USR"

	run sw$level -e cpu-clock -c 10000 -- "$tmp/close-loop" 10000
	if [ "$level" -le 2 ]; then
		expect_ok sw$level "paranoid $level: -e cpu-clock on a workload"
		if [ "$level" = 2 ] && ! grep -q 'in user space only' "$W/sw$level.err"; then
			nok "paranoid 2: says the kernel is left out" "$(cat "$W/sw$level.err")"
		fi
	else
		expect_fail sw$level "paranoid $level: -e cpu-clock on a workload" 'perf_event_paranoid'
	fi

	if [ -n "$tfs_root_only" ]; then
		run tp$level -e raw_syscalls:sys_enter -- "$tmp/close-loop" 10000
		expect_fail tp$level "paranoid $level: -e raw_syscalls:sys_enter, tracefs root-only" \
			'cannot read tracefs.*needs root'
	else
		skip "paranoid $level: -e raw_syscalls:sys_enter, tracefs root-only" "$USR can read tracefs here"
	fi

	if [ -n "$have_ns" ]; then
		run tpc$level --tracefs-copy -e raw_syscalls:sys_enter -- "$tmp/close-loop" 10000
		if [ "$level" -le 1 ]; then
			expect_ok tpc$level "paranoid $level: -e raw_syscalls:sys_enter, tracefs readable"
		else
			expect_fail tpc$level "paranoid $level: -e raw_syscalls:sys_enter, tracefs readable" \
				'Permission denied: .*perf_event_paranoid<=1; perf_event_paranoid is '"$level"
		fi
	else
		skip "paranoid $level: -e raw_syscalls:sys_enter, tracefs readable" "no mount namespaces (unshare)"
	fi

	# -a records until SIGINT, and then dies by it (130), as perf does.
	run a$level --for 3 -a -e cpu-clock
	[ "$rc" = 130 ] && ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' \
		"$W/a$level.err" && rc=0
	if [ "$level" -le 0 ]; then
		expect_ok a$level "paranoid $level: -a (system wide)"
	else
		expect_fail a$level "paranoid $level: -a (system wide)" \
			'Permission denied: .*\(-a, -C\).*perf_event_paranoid<=0; perf_event_paranoid is '"$level"
	fi
done

# The reader: SCHED_FIFO 1 by default only when permitted, else fair and
# -v says why; an explicit -r PRIO is refused, naming what it needs.
run prio -v -e cpu-clock -c 10000 -- "$tmp/close-loop" 10000
expect_ok prio "no -r as $USR: records with a fair reader"
grep -q 'reader: SCHED_FIFO not permitted, fair' "$W/prio.err" ||
	nok "no -r as $USR: -v says SCHED_FIFO was not permitted" "$(grep reader "$W/prio.err")"
run prio_r -r 1 -e cpu-clock -c 10000 -- "$tmp/close-loop" 10000
expect_fail prio_r "-r 1 as $USR" 'cannot run SCHED_FIFO.*CAP_SYS_NICE'

echo "$old" > "$para"
echo "1..$N"
if [ "$FAIL" = 0 ]; then rm -rf "$W"; else echo "# $FAIL of $N failed; output in $W"; fi
exit $((FAIL != 0))
