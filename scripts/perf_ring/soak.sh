#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh [SECONDS]: the flight-recorder soak (default 600 s).
#
# Two writers, pinned to CPU 0 and CPU 1, call close(BASE + i) for
# i = 0, 1, 2, ... (close-loop, in chunks, each chunk going on where the
# last one stopped), so every raw_syscalls:sys_enter record of theirs
# carries a sequence number in args[0].  perf-ring records them with
# everything on: call chains (-g), compression (-z) and every trigger kind,
#   perf-ring record --overwrite -g -z -e raw_syscalls:sys_enter
#       --switch-output=signal --switch-output=7s --switch-output=64M
#       --control=fifo:ctl,ack --switch-output-event=syscalls:sys_enter_kill
# and gets a SIGUSR2 every 100 ms, a "snapshot" from a perf-ring ctl client
# about every 700 ms, a kill(2) from a third process of the workload every
# 1.3 s, a timer every 7 s and a size trigger every 64 MB the kernel
# wrote; each writes a snapshot OUTPUT.YYYYmmddHHMMSSmmm.  soak_check.py reads the snapshots while they
# are written (and deletes them once checked): within each snapshot each
# writer's records must be one contiguous run (no gap, duplicate or
# reordering: the flight recorder drops the oldest part, never the middle),
# and runs and snapshot numbers never go backwards.  What overwrite mode
# allows to be lost is what the kernel overwrote between two snapshots; it
# is counted and reported, not failed.  Some snapshots are also decoded with
# Debian's 'perf script' (when installed) and must give the same runs.
#
# Exit status: 0 clean, 1 on a violation or a failed recording.
# Environment: SOAK_KEEP=1 keeps the work directory (and the snapshots);
# SOAK_DROP_ONE=1 corrupts the check on purpose (it must then fail);
# SOAK_PERF_EVERY=N cross-checks every Nth snapshot with perf (default 50).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"

DUR=${1:-600}
case $DUR in ''|*[!0-9]*|0) pr_die "usage: soak.sh [SECONDS]";; esac
BIN=$PR_BUILD/tools/perf_ring
PR=$BIN/perf-ring
CL=$BIN/close-loop
CHUNK=20000				# closes per close-loop run: the writers stop within one
W0=1000000 L0=1000000000		# writer 0: close(W0 + i), W0 + i < L0
W1=1000000000 L1=2147483647		# writer 1

[ "$(id -u)" = 0 ] || pr_die "soak.sh needs root (system-wide tracepoints)"
[ "$(nproc)" -ge 2 ] || pr_die "soak.sh needs two CPUs"
command -v taskset >/dev/null || pr_die "taskset (util-linux) is missing"
command -v python3 >/dev/null || pr_die "python3 is missing"
if [ ! -x "$PR" ] || [ ! -x "$CL" ]; then
	make -s -C "$PR_ROOT/tools/perf_ring" >&2 || pr_die "cannot build perf-ring"
fi
if [ ! -e /sys/kernel/tracing/events/raw_syscalls ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -e /sys/kernel/tracing/events/raw_syscalls ] ||
		pr_die "no raw_syscalls tracepoints (mount tracefs on /sys/kernel/tracing)"
fi

mkdir -p "$PR_BUILD" || exit 1
WORK=$(mktemp -d "$PR_BUILD/soak.XXXXXX") || exit 1
rec_pid= chk_pid=

cleanup() {
	local rc=$?

	trap - EXIT INT TERM HUP
	rm -f "$WORK/run"			# writers stop after their chunk
	if [ -n "$rec_pid" ] && kill -0 "$rec_pid" 2>/dev/null; then
		kill -TERM "$rec_pid" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$rec_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$rec_pid" 2>/dev/null
	fi
	for f in "$WORK"/writer*.pid; do
		[ -s "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
	done
	[ -n "$chk_pid" ] && kill -TERM "$chk_pid" 2>/dev/null
	[ -n "${ctl_pid:-}" ] && kill -TERM "$ctl_pid" 2>/dev/null
	wait 2>/dev/null
	if [ "${SOAK_KEEP:-0}" = 1 ]; then
		pr_log "soak: work directory kept: $WORK"
	else
		rm -rf "$WORK"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'pr_log "soak: interrupted"; exit 130' INT TERM HUP

# The writer: close-loop in chunks while $WORK/run exists, each chunk on
# from where the last one stopped; at the end, how many closes it issued.
cat >"$WORK/writer.sh" <<'EOF'
cl=$1 base=$2 limit=$3 chunk=$4 run=$5 out=$6
echo $$ >"$out.pid"
b=$base
while [ -e "$run" ] && [ $((b + chunk)) -le "$limit" ]; do
	"$cl" "$chunk" "$b" || break
	b=$((b + chunk))
done
echo $((b - base)) >"$out"
EOF
touch "$WORK/run"
WR="$WORK/writer.sh"
# the event trigger: kill -0 (sys_enter_kill) every 1.3 s, counted
cat >"$WORK/kicker.sh" <<'EOF'
run=$1 out=$2 n=0
while [ -e "$run" ]; do
	kill -0 $$ && n=$((n + 1))
	echo $n >"$out"
	sleep 1.3
done
EOF
cmd="taskset -c 0 sh $WR $CL $W0 $L0 $CHUNK $WORK/run $WORK/writer0 &
taskset -c 1 sh $WR $CL $W1 $L1 $CHUNK $WORK/run $WORK/writer1 &
sh $WORK/kicker.sh $WORK/run $WORK/kicks &
touch $WORK/started; wait"

pr_log "soak: ${DUR}s, writers on CPU 0 and 1, -g -z, a snapshot every 100 ms (SIGUSR2), ~700 ms (control), 1.3 s (event), 7 s (time), 64 MB (size), in $WORK"
mkfifo "$WORK/ctl" "$WORK/ack" || pr_die "soak: mkfifo failed"
start=$(date +%s.%N)
(cd "$WORK" && exec "$PR" record --overwrite -g -z -e raw_syscalls:sys_enter \
	--switch-output=signal --switch-output=7s --switch-output=64M --control=fifo:ctl,ack \
	--switch-output-event=syscalls:sys_enter_kill -o soak.data -- sh -c "$cmd") \
	>"$WORK/record.log" 2>&1 &
rec_pid=$!

drop=
[ "${SOAK_DROP_ONE:-0}" = 1 ] && drop=--drop-one
"$HERE/soak_check.py" --follow "$WORK/recorded" --generated "@$WORK/generated" \
	--perf "${SOAK_PERF_EVERY:-50}" $drop "$WORK" soak.data \
	$W0:$L0 $W1:$L1 >"$WORK/check.log" 2>&1 &
chk_pid=$!

# SIGUSR2 only once the workload runs (perf-ring's handler is set by then).
for _ in $(seq 100); do
	[ -e "$WORK/started" ] && break
	kill -0 "$rec_pid" 2>/dev/null || break
	sleep 0.1
done
[ -e "$WORK/started" ] || { cat "$WORK/record.log" >&2; pr_die "soak: the recording did not start"; }

# A control client: "snapshot" about every 700 ms; each ack must name a
# snapshot file.
(
	acks=0 bad=0
	while [ -e "$WORK/run" ] && kill -0 "$rec_pid" 2>/dev/null; do
		f=$("$PR" ctl -t 30 "$WORK/ctl,$WORK/ack" snapshot 2>>"$WORK/ctl.err")
		case $f in soak.data.*) acks=$((acks + 1)) ;; *) [ -e "$WORK/run" ] && bad=$((bad + 1)) ;; esac
		echo "$acks $bad" >"$WORK/ctl.count"
		sleep 0.7
	done
) &
ctl_pid=$!

# One SIGUSR2 every 100 ms, on a schedule (so that the time a signal and a
# sleep take does not add up).
signals=0
now_us() { local t=${EPOCHREALTIME/./}; echo $((10#$t)); }
next=$(now_us)
end=$((next + DUR * 1000000))
while [ "$next" -lt "$end" ] && kill -0 "$rec_pid" 2>/dev/null; do
	kill -USR2 "$rec_pid" 2>/dev/null && signals=$((signals + 1))
	next=$((next + 100000))
	wait_us=$((next - $(now_us)))
	[ $wait_us -gt 0 ] && sleep "$(printf '%d.%06d' $((wait_us / 1000000)) $((wait_us % 1000000)))"
done
early=0
[ "$next" -lt "$end" ] && early=1	# the recording ended by itself
rm -f "$WORK/run"
wait "$rec_pid"
rec_rc=$?
rec_pid=
wait "$ctl_pid"
ctl_pid=
read -r acks bad_acks <"$WORK/ctl.count" 2>/dev/null
kicks=$(cat "$WORK/kicks" 2>/dev/null)
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
g0=$(cat "$WORK/writer0" 2>/dev/null) g1=$(cat "$WORK/writer1" 2>/dev/null)
if [ -n "$g0" ] && [ -n "$g1" ]; then
	echo "$g0,$g1" >"$WORK/generated"
else
	: >"$WORK/generated"		# unknown: the writers were killed
fi
touch "$WORK/recorded"
wait "$chk_pid"
chk_rc=$?
chk_pid=
check_end=$(date +%s.%N)

fail=0
summary=$(grep '^\[ perf-ring record:' "$WORK/record.log")
written=$(grep -c '^\[ perf-ring: snapshot ' "$WORK/record.log")
if [ $rec_rc -ne 0 ] || [ -z "$summary" ]; then
	tail -5 "$WORK/record.log" >&2
	pr_log "soak: perf-ring record failed (exit $rec_rc)"
	fail=1
fi
if [ $early = 1 ]; then
	tail -5 "$WORK/record.log" >&2
	pr_log "soak: the recording ended before ${DUR}s (writers out of sequence numbers, or perf-ring died)"
	fail=1
fi
if [ $chk_rc -ne 0 ]; then
	grep -v '^soak check:' "$WORK/check.log" | head -20 >&2
	fail=1
fi
checked=$(sed -n 's/^soak check: \([0-9]*\) snapshots.*/\1/p' "$WORK/check.log")
if [ "${checked:-0}" != "$written" ]; then
	pr_log "soak: perf-ring wrote $written snapshots, ${checked:-0} were checked"
	fail=1
fi
if [ "${acks:-0}" -lt 1 ] || [ "${bad_acks:-1}" -ne 0 ] || [ "${kicks:-0}" -lt 1 ] ||
   ! grep -q -- '--switch-output-event: [1-9]' "$WORK/record.log"; then
	pr_log "soak: control acks ${acks:-?} (bad ${bad_acks:-?}), event triggers ${kicks:-?}: $(tail -2 "$WORK/ctl.err" 2>/dev/null)"
	fail=1
fi
printf 'soak: %.1f s recording (%d SIGUSR2, %s control snapshots acked, %s kill(2) events), checked %.1f s later; writers issued %s + %s closes\n' \
	"$elapsed" "$signals" "${acks:-?}" "${kicks:-?}" "$(echo "$check_end - $start - $elapsed" | bc)" "${g0:-?}" "${g1:-?}"
echo "soak: $summary"
grep '^soak check:' "$WORK/check.log" | sed 's/^soak check:/soak:/'
if [ $fail -ne 0 ]; then
	echo "soak: FAIL"
	exit 1
fi
echo "soak: PASS"
