# SPDX-License-Identifier: GPL-2.0
#
# Under a memory cgroup's limit (sourced by e2e.sh: its helpers and
# variables are used here).  perf-ring must either run, or stop with a
# message and leave no file or a readable one; the OOM killer must never
# end it.  The limit perf-ring needs is found by bisection, then it runs
# just above it and just below it.  Output goes to a tmpfs, whose pages
# the cgroup is charged for, as in a container.
#
# cgroup v2 when its root offers the memory controller, else v1's memory
# hierarchy; neither writable is a SKIP.

MCG=
if [ -w /sys/fs/cgroup/cgroup.subtree_control ] &&
   grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null &&
   echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	MCG=/sys/fs/cgroup/perf-ring-e2e.$$ MCG_V=2
elif [ -w /sys/fs/cgroup/memory/cgroup.procs ]; then
	MCG=/sys/fs/cgroup/memory/perf-ring-e2e.$$ MCG_V=1
fi
MT=$W/memlimit-tmpfs

# mcg_run LIMIT CMD...: CMD in a fresh cgroup whose limit is LIMIT bytes;
# sets mrc (its exit status) and mooms (OOM kills in the cgroup).
mcg_run() {
	local lim=$1
	shift
	rmdir "$MCG" 2>/dev/null
	mkdir "$MCG" || { mrc=255; mooms=?; return; }
	if [ "$MCG_V" = 2 ]; then
		echo "$lim" >"$MCG/memory.max"
	else
		echo "$lim" >"$MCG/memory.limit_in_bytes"
	fi
	rm -f "$MT"/*
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$MCG" "$@" >mcg.out 2>mcg.err
	mrc=$?
	if [ "$MCG_V" = 2 ]; then
		mooms=$(awk '$1 == "oom_kill" { print $2 }' "$MCG/memory.events")
	else
		mooms=$(awk '$1 == "oom_kill" { print $2 }' "$MCG/memory.oom_control")
	fi
	# the cgroup goes once its last task is gone
	for _ in $(seq 50); do rmdir "$MCG" 2>/dev/null && break; sleep 0.1; done
}

if [ -z "$MCG" ]; then
	skip "memory limit" "no writable memory cgroup (v2 memory controller or v1 memory hierarchy)"
elif ! mkdir -p "$MT" || ! mount -t tmpfs -o size=256m perf-ring-e2e "$MT"; then
	skip "memory limit" "cannot mount a tmpfs"
else
	FLIGHT=("$PR" record --overwrite -z -g -m 64 -e 'raw_syscalls:*' -o "$MT/m.data" -- "$CL" 100000)
	# mcg_judge LIMIT: the run either went through with a snapshot that
	# reads, or stopped with the message and left nothing unreadable.
	# Sets judged to "ran", "stopped" or what was wrong.
	mcg_judge() {
		local left
		left=$(ls "$MT")
		if [ "$mrc" = 0 ] && [ -e "$MT/m.data" ] && "$PR" report -i "$MT/m.data" >/dev/null 2>&1; then
			judged=ran
		elif { [ "$mrc" = 2 ] || [ "$mrc" = 255 ]; } &&
		     grep -q "may need up to .* more memory, but cgroup .* left" mcg.err &&
		     { [ -z "$left" ] || "$PR" report -i "$MT/$left" >/dev/null 2>&1; }; then
			judged=stopped
		else
			judged="$1 bytes: exit $mrc, OOM kills ${mooms:-?}, left: ${left:-nothing}: $(head -2 mcg.err | tr '\n' ' ')"
		fi
	}
	# The smallest limit, to 1/256 of 16 MiB, at which the flight
	# recorder exits 0.  Where exactly is not fixed: page cache charged
	# to the cgroup or not moves it by some kB from run to run.  So every
	# run is judged, and the runs just above and just below are shown.
	lo=0 hi=$((16 << 20)) bad= nstop=0
	mcg_run $hi "${FLIGHT[@]}"
	if [ "$mrc" != 0 ]; then
		nok "memory limit: the flight recorder runs under 16 MiB" "exit $mrc: $(head -3 mcg.err)"
	else
		for _ in 1 2 3 4 5 6 7 8; do
			mid=$(( (lo + hi) / 2 / 4096 * 4096 ))
			mcg_run $mid "${FLIGHT[@]}"
			mcg_judge $mid
			case $judged in
			ran) hi=$mid ;;
			stopped) lo=$mid nstop=$((nstop + 1)) ;;
			*) lo=$mid bad="$bad; $judged" ;;
			esac
		done
		echo "# memory limit: the flight recorder needs between $lo and $hi bytes (cgroup v$MCG_V)"
		for lim in $hi $lo; do
			mcg_run $lim "${FLIGHT[@]}"
			mcg_judge $lim
			case $judged in
			ran) ok "memory limit: at $lim bytes the flight recorder runs and its snapshot reads" ;;
			stopped) nstop=$((nstop + 1))
				 ok "memory limit: at $lim bytes it stops with a message: '$(grep -m1 'may need' mcg.err | cut -c1-150)...'" ;;
			*) nok "memory limit: at $lim bytes" "$judged" ;;
			esac
		done
		if [ -n "$bad" ]; then
			nok "memory limit: the bisection's runs" "${bad#; }"
		elif [ "$nstop" = 0 ]; then
			nok "memory limit: no run stopped with the message" "every limit tried was enough, or none was"
		else
			ok "memory limit: 10 runs from 16 MiB down to $lo bytes: none killed, $nstop stopped with the message"
		fi
	fi
	# Streaming into the tmpfs until the limit: perf-ring stops itself,
	# and the file reads up to there.
	mcg_run $((8 << 20)) "$PR" record -e 'raw_syscalls:*' -o "$MT/s.data" -- "$CL" 1000000
	if [ "$mrc" = 2 ] && grep -q "(on tmpfs) may need up to" mcg.err; then
		ok "memory limit: streaming into tmpfs stops at the limit: exit 2, '$(grep -m1 'may need' mcg.err | cut -c1-100)...'"
		check_file "$MT/s.data" "memory limit: the stream cut at the limit"
	else
		nok "memory limit: streaming into tmpfs stops at the limit" \
			"exit $mrc, OOM kills $mooms: $(head -3 mcg.err)"
	fi
	# A limit set during a flight recording: a snapshot is taken with no
	# limit, then memory.max comes down to what the cgroup uses plus 600 KiB
	# (room for the reading loop's 512 KiB reserve, not for a snapshot
	# with zstd's state), and a second snapshot is asked for.  perf-ring
	# must stop, refusing that one before it opens its file (or at the
	# reading loop's next check), with exit 2 and the message, stop its
	# command, and keep the first snapshot as it was.  Not refused, it is
	# stopped after 10 s, and the test fails.
	rmdir "$MCG" 2>/dev/null
	if mkdir "$MCG"; then
		if [ "$MCG_V" = 2 ]; then
			mlim=$MCG/memory.max muse=$MCG/memory.current
		else
			mlim=$MCG/memory.limit_in_bytes muse=$MCG/memory.usage_in_bytes
		fi
		# no limit at the start: perf-ring must see the one set later
		rm -f "$MT"/*
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$MCG" "$PR" record --overwrite -z \
			-m 64 -e 'raw_syscalls:*' --switch-output=signal -o "$MT/m.data" \
			-- "$CL" 1000000000 >mcg.out 2>mcg.err &
		mpid=$!
		sleep 1
		kill -USR2 $mpid
		first=
		for _ in $(seq 100); do
			first=$(sed -n 's/^\[ perf-ring: snapshot \([^:]*\): .*/\1/p' mcg.err | head -1)
			[ -z "$first" ] || break
			sleep 0.1
		done
		used=$(cat "$muse")
		echo $((used + (600 << 10))) >"$mlim"
		kill -USR2 $mpid
		{ sleep 10; kill -INT $mpid; } 2>/dev/null &
		mdog=$!
		wait $mpid
		mrc=$?
		kill $mdog 2>/dev/null
		if [ "$MCG_V" = 2 ]; then
			mooms=$(awk '$1 == "oom_kill" { print $2 }' "$MCG/memory.events")
		else
			mooms=$(awk '$1 == "oom_kill" { print $2 }' "$MCG/memory.oom_control")
		fi
		left=$(cd "$MT" && ls | tr '\n' ' ')
		echo "# memory limit set mid-recording: $used bytes in use, limit $((used + (600 << 10))); exit $mrc, OOM kills $mooms, left: $left"
		if [ "$mrc" = 2 ] && [ "${mooms:-1}" = 0 ] &&
		   grep -q "may need up to .* more memory, but cgroup .* left" mcg.err &&
		   [ -n "$first" ] && [ "$left" = "${first##*/} " ] &&
		   [ "$(grep -c '^\[ perf-ring: snapshot ' mcg.err)" = 1 ]; then
			ok "memory limit set mid-recording: the next snapshot is refused, exit 2, '$(grep -m1 'may need' mcg.err | cut -c1-90)...'"
			check_file "$first" "memory limit set mid-recording: the snapshot taken before"
		else
			nok "memory limit set mid-recording: the next snapshot is refused, exit 2, the first one kept" \
				"exit $mrc, OOM kills $mooms, first '$first', left '$left': $(tail -3 mcg.err)"
		fi
		for _ in $(seq 50); do rmdir "$MCG" 2>/dev/null && break; sleep 0.1; done
	else
		nok "memory limit set mid-recording" "cannot create $MCG"
	fi

	# Between snapshots a flight recorder's memory does not grow (the
	# snapshot buffers and the side-band store are taken at its start,
	# a snapshot checks for itself): the cgroup's files are read once a
	# second, not at each of its 20 wake-ups a second, and the uevent
	# socket at each look at the CPU mask (every 100 ms) or when poll()
	# says it holds something.  Ratios to the wake-ups (poll) of one run,
	# counted by perf stat: pread64 1.5 and recvfrom 0.5 a wake-up here,
	# 4.3 and 1.0 before (by hand).  -a for the uevents, which a command
	# alone does not listen to; without it for the reads, which -a's
	# build-ids add to.
	mcg_run $((1 << 30)) perf stat -x, -o idle.stat -e syscalls:sys_enter_poll,syscalls:sys_enter_pread64 \
		-- "$PR" record -q --overwrite -e cpu-clock -o "$MT/idle.data" -- sleep 3
	polls=$(awk -F, '$3 == "syscalls:sys_enter_poll" { print $1 }' idle.stat 2>/dev/null)
	preads=$(awk -F, '$3 == "syscalls:sys_enter_pread64" { print $1 }' idle.stat 2>/dev/null)
	mcg_run $((1 << 30)) perf stat -x, -o idle.stat -e syscalls:sys_enter_poll,syscalls:sys_enter_recvfrom \
		-- "$PR" record -q -a --overwrite -e cpu-clock -o "$MT/idle.data" -- sleep 3
	apolls=$(awk -F, '$3 == "syscalls:sys_enter_poll" { print $1 }' idle.stat 2>/dev/null)
	recvs=$(awk -F, '$3 == "syscalls:sys_enter_recvfrom" { print $1 }' idle.stat 2>/dev/null)
	what="a flight recorder between snapshots, under a limit"
	if ! grep -q sys_enter_poll idle.stat 2>/dev/null; then
		skip "$what" "perf stat cannot count syscalls:sys_enter_poll: $(head -2 idle.stat mcg.err)"
	elif ! [[ "$preads" =~ ^[0-9]+$ && "$recvs" =~ ^[0-9]+$ ]]; then
		nok "$what" "perf stat did not count pread64 and recvfrom: '$preads' '$recvs'" \
			"$(head -3 idle.stat)"
	elif [ "$mrc" = 0 ] && [ "${polls:-0}" -ge 20 ] && [ "${apolls:-0}" -ge 20 ] &&
	     awk -v p="$preads" -v n="$polls" -v r="$recvs" -v a="$apolls" \
		'BEGIN { exit !(p / n < 2.5 && r / a < 0.75) }'; then
		ok "$what: $preads pread64 in $polls wake-ups, $recvs recvfrom in $apolls with -a"
	else
		nok "$what: under 2.5 pread64 and 0.75 recvfrom a wake-up" \
			"exit $mrc; $preads pread64 in $polls wake-ups; $recvs recvfrom in $apolls with -a" \
			"$(tail -2 mcg.err)"
	fi
	rm -f "$MT"/* idle.stat
	umount "$MT"
fi
