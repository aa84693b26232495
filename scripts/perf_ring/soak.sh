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
# SOAK_HOTPLUG=1 (make soak-guest, in the guest): perf-ring records system
# wide (-a), and CPU 1 goes offline for SOAK_HOTPLUG_OFF_MS (default 700)
# every SOAK_HOTPLUG_EVERY seconds (default 5) and comes back.  perf-ring
# must notice every cycle (its summary counts them) and open CPU 1's events
# again into CPU 1's buffer; the same checks apply to every snapshot.  With
# -a every kill(2) on the machine, the SIGUSR2s included, is an event
# trigger, so there are more snapshots than signals.
#
# Exit status: 0 clean, 1 on a violation or a failed recording.
# Environment: SOAK_KEEP=1 keeps the work directory (and the snapshots);
# SOAK_DROP_ONE=1 corrupts the check on purpose (it must then fail);
# SOAK_PERF_EVERY=N cross-checks every Nth snapshot with perf (default 50);
# SOAK_SIGNAL_MS=N sends SIGUSR2 every N ms (default 100);
# SOAK_BIN=DIR takes perf-ring and close-loop from DIR.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"

DUR=${1:-600}
case $DUR in ''|*[!0-9]*|0) pr_die "usage: soak.sh [SECONDS]";; esac
BIN=${SOAK_BIN:-$PR_BUILD/tools/perf_ring}
SIG_MS=${SOAK_SIGNAL_MS:-100}
HP=${SOAK_HOTPLUG:-0}
HP_EVERY=${SOAK_HOTPLUG_EVERY:-5}
HP_OFF_MS=${SOAK_HOTPLUG_OFF_MS:-700}
case $SIG_MS$HP_EVERY$HP_OFF_MS in *[!0-9]*) pr_die "soak: SOAK_SIGNAL_MS, SOAK_HOTPLUG_EVERY and SOAK_HOTPLUG_OFF_MS take whole numbers";; esac
[ "$SIG_MS" -gt 0 ] && [ "$HP_EVERY" -gt 0 ] || pr_die "soak: SOAK_SIGNAL_MS and SOAK_HOTPLUG_EVERY must be above 0"
[ $((HP_OFF_MS)) -lt $((HP_EVERY * 1000)) ] || pr_die "soak: SOAK_HOTPLUG_OFF_MS must be shorter than SOAK_HOTPLUG_EVERY"
# -a for the hotplug soak: a CPU going offline stops the events of its own
# context, which perf-ring must open again (a command's events live in its
# tasks' contexts and are not touched).
rec_scope=
cpu1=/sys/devices/system/cpu/cpu1/online
if [ "$HP" = 1 ]; then
	[ -w $cpu1 ] || pr_die "soak: SOAK_HOTPLUG=1 needs a CPU 1 that can go offline ($cpu1)"
	rec_scope=-a
fi
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
rec_pid= chk_pid= hp_pid=
# bash's clock, as "seconds.microseconds" (no date +%N in busybox)
now_s() { echo "$EPOCHREALTIME"; }

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
	[ -n "$hp_pid" ] && kill -TERM "$hp_pid" 2>/dev/null
	wait 2>/dev/null
	[ "$HP" != 1 ] || echo 1 > $cpu1 2>/dev/null	# leave CPU 1 online
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

hp_note=
[ "$HP" = 1 ] && hp_note=", -a, CPU 1 offline ${HP_OFF_MS} ms every ${HP_EVERY} s"
pr_log "soak: ${DUR}s, writers on CPU 0 and 1, -g -z$hp_note, a snapshot every $SIG_MS ms (SIGUSR2), ~700 ms (control), 1.3 s (event), 7 s (time), 64 MB (size), in $WORK"
mkfifo "$WORK/ctl" "$WORK/ack" || pr_die "soak: mkfifo failed"
start=$(now_s)
(cd "$WORK" && exec "$PR" record $rec_scope --overwrite -g -z -e raw_syscalls:sys_enter \
	--switch-output=signal --switch-output=7s --switch-output=64M --control=fifo:ctl,ack \
	--switch-output-event=syscalls:sys_enter_kill -o soak.data -- sh -c "$cmd") \
	>"$WORK/record.log" 2>&1 &
rec_pid=$!

drop=
[ "${SOAK_DROP_ONE:-0}" = 1 ] && drop=--drop-one
python3 "$HERE/soak_check.py" --follow "$WORK/recorded" --generated "@$WORK/generated" \
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

# SOAK_HOTPLUG=1: CPU 1 offline and back on a schedule; the number of
# cycles done, failed writes and the longest time perf-ring took to say
# that CPU 1 was back (ms) in $WORK/hotplug.
#
# A CPU going offline takes its -a events along; perf-ring opens them again
# once it sees the CPU back, and until then nothing that runs there is
# recorded.  That hole is the kernel's, not the flight recorder's, so the
# check leaves it out: the kernel moves writer 1 to CPU 0 when CPU 1 goes
# (and lets it run anywhere); it is pinned to CPU 0 there, and back to
# CPU 1 once perf-ring has said that CPU 1 is back (it opens the events
# right after saying so), 0.3 s later.  Its records still move between the
# two CPUs' buffers, which is what the check needs to see.
#
# pin_writer1 CPU: writer 1's shell first (the close-loops it starts
# inherit that), then the close-loop it runs now.
pin_writer1() {
	local sh c ppid
	sh=$(cat "$WORK/writer1.pid" 2>/dev/null) || return 0
	taskset -p -c "$1" "$sh" >/dev/null 2>&1
	for c in /proc/[0-9]*/stat; do
		read -r _ _ _ ppid _ 2>/dev/null <"$c" || continue
		[ "$ppid" = "$sh" ] || continue
		c=${c#/proc/}
		taskset -p -c "$1" "${c%/stat}" >/dev/null 2>&1
	done
}
# A cycle starts only if it ends, and perf-ring has said so, 3 s before the
# recording is stopped: a recording stopped while CPU 1 is offline rightly
# ends with "cpu 1 went offline ... nothing from cpu 1 after that", not
# with the count this check compares.
if [ "$HP" = 1 ]; then
	(
		n=0 err=0 late=0
		ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
		us() { local t=${EPOCHREALTIME/./}; echo $((10#$t)); }
		last=$(( $(us) + DUR * 1000000 - (HP_OFF_MS + 3000) * 1000 ))
		while [ -e "$WORK/run" ]; do
			sleep "$(ms $((HP_EVERY * 1000 - HP_OFF_MS)))"
			[ -e "$WORK/run" ] && [ "$(us)" -lt "$last" ] || break
			if ! echo 0 > $cpu1; then
				err=$((err + 1))
				echo "$n $err $late" >"$WORK/hotplug"
				continue
			fi
			pin_writer1 0
			sleep "$(ms "$HP_OFF_MS")"
			t0=$(us)
			echo 1 > $cpu1 || err=$((err + 1))
			n=$((n + 1))
			# perf-ring's "cpu 1 is back online", up to 20 s
			for _ in $(seq 200); do
				[ "$(grep -c 'cpu 1 is back online' "$WORK/record.log")" -lt $n ] || break
				sleep 0.1
			done
			t=$(( ($(us) - t0) / 1000 ))
			[ $t -le $late ] || late=$t
			sleep 0.3
			pin_writer1 1
			echo "$n $err $late" >"$WORK/hotplug"
		done
	) &
	hp_pid=$!
fi

# One SIGUSR2 every $SIG_MS ms, on a schedule (so that the time a signal and a
# sleep take does not add up).
signals=0
now_us() { local t=${EPOCHREALTIME/./}; echo $((10#$t)); }
next=$(now_us)
end=$((next + DUR * 1000000))
while [ "$next" -lt "$end" ] && kill -0 "$rec_pid" 2>/dev/null; do
	kill -USR2 "$rec_pid" 2>/dev/null && signals=$((signals + 1))
	next=$((next + SIG_MS * 1000))
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
if [ -n "$hp_pid" ]; then
	wait "$hp_pid"
	hp_pid=
	read -r hp_cycles hp_err hp_late <"$WORK/hotplug" 2>/dev/null
fi
read -r acks bad_acks <"$WORK/ctl.count" 2>/dev/null
kicks=$(cat "$WORK/kicks" 2>/dev/null)
elapsed=$(echo "$(now_s) - $start" | bc)
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
check_end=$(now_s)

fail=0
summary=$(grep '^\[ perf-ring record:' "$WORK/record.log" | grep -v '^\[ perf-ring record: cpu ')
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
hp_seen=
if [ "$HP" = 1 ]; then
	# perf-ring's note: "cpu 1 went offline N times (...); its events
	# were opened again each time it came back"
	hp_seen=$(sed -n 's/.*note: cpu 1 went offline \([0-9]*\) times\{0,1\} .*opened again each time.*/\1/p' \
		"$WORK/record.log")
	if [ "${hp_cycles:-0}" -lt 1 ] || [ "${hp_err:-1}" -ne 0 ] || [ "${hp_seen:-0}" != "$hp_cycles" ]; then
		grep 'cpu 1' "$WORK/record.log" | tail -3 >&2
		pr_log "soak: CPU 1 went offline and back ${hp_cycles:-0} times (${hp_err:-?} failed writes); perf-ring counted ${hp_seen:-none} and opened its events again"
		fail=1
	fi
	echo "soak: cpu 1 went offline and came back ${hp_cycles:-0} times; perf-ring counted ${hp_seen:-none} and opened its events again each time; it said that cpu 1 was back at most ${hp_late:-?} ms after it was"
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
