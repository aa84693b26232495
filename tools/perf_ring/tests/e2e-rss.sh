# SPDX-License-Identifier: GPL-2.0
#
# perf-ring's memory over many files (sourced by e2e.sh: its helpers and
# variables are used here); make soak-scale is the hour of each.
#
# The flight recorder: a snapshot every 2 s, beside a loop that starts a
# process every 10 ms (its COMM, MMAP2 and EXIT records fill the side-band
# store and make it compact).  The store is taken whole at the start, and
# each snapshot's writer gives its pages back when it closes.
#
# The stream: -z --switch-output=1M --switch-max-files=3 of a busy
# close(-1) loop, a switch a second or two.  Each file's writer is the
# last one's, buffers and all: freed and taken anew, the buffers came
# back from the heap and the RSS stepped up at some switches for good.
#
# perf-ring's VmRSS stays within 1 MB (the hour's goal) of its value after
# the first third of the run (the hour's first minute); the stream, which
# takes its writer's memory at the start, within 256 KiB (before it kept
# its writer across files, it changed by 1092, 1024 and 1092 kB in three
# runs of this).  The recorder is stopped twice for 3 s in the last two
# thirds, as a loaded machine stops it: its reader then finds full rings
# and its writer larger units.  Memory taken only as far as the largest
# backlog yet steps up then, and stays up: the zstd arena's pages did
# (392, 532 and 784 kB before the writer took them at the start, 16, 32
# and 36 kB after: bench/results/e2e-rss-arena.md).
# A sample that falls on a file being opened or written holds its buffers
# for the moment, so each sample is the lowest of the 2 s that start with
# it.
#
# Its open descriptors do not grow (the hour's "fd count not growing"):
# the lowest count of the last 2 s equals the lowest of the first 2 s,
# from the start for the stream, whose writer is made at the start, and
# from the first snapshot on for the flight recorder, whose writer (and
# its io_uring) the first snapshot makes (FD_FROM=file).  A descriptor
# kept once opened at a file's end (cpu/online, read for each file's
# features, before it was read at the start) showed as one more from the
# stream's first file on.

# rss_watch NAME PATTERN MIN_FILES LIMIT_KB perf-ring's arguments...: the
# test, with the samples from the second line of stderr matching PATTERN on
rss_watch() {
	local name=$1 pat=$2 min=$3 limit=$4 rpid rc files r base='' worst=0 n=0 low i j d rss=()
	local fds=() f0 f1
	shift 4
	rm -rf rss
	mkdir rss
	setsid "$PR" record "$@" >rss.out 2>rss.err &
	rpid=$!
	for i in $(seq 100); do
		sleep 0.25
		# a reader that falls behind, as on a loaded machine: stopped
		# twice, late enough for the base to be taken before
		case $i in 65 | 85) kill -STOP "$rpid"; sleep 3; kill -CONT "$rpid" ;; esac
		# descriptors from the start (once it runs: past the first
		# 0.5 s), or from the first file's end
		if [ "$i" -ge 3 ] && { [ "${FD_FROM:-start}" = start ] || grep -q "$pat" rss.err; }; then
			fds+=("$(ls "/proc/$rpid/fd" 2>/dev/null | wc -l)")
		fi
		# from the second file on (before it: start-up, as the soak's first minute)
		[ "$(grep -c "$pat" rss.err)" -ge 2 ] || continue
		r=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$rpid/status" 2>/dev/null)
		[ -z "$r" ] || rss+=("$r")
	done
	kill -INT "$rpid" 2>/dev/null
	wait "$rpid"
	rc=$?
	kill -KILL -- "-$rpid" 2>/dev/null
	files=$(grep -c "$pat" rss.err)
	f0=$(printf '%s\n' "${fds[@]:0:8}" | sort -n | head -1)
	f1=$(printf '%s\n' "${fds[@]: -8}" | sort -n | head -1)
	# the base: the first third of the samples is start-up, as the hour's
	# first minute is (a one-off step there is not growth); a leak across
	# files goes on growing in the other two thirds
	for ((i = ${#rss[@]} / 3; i + 8 <= ${#rss[@]}; i++)); do
		low=${rss[i]}
		for ((j = i + 1; j < i + 8; j++)); do
			[ "${rss[j]}" -ge "$low" ] || low=${rss[j]}
		done
		n=$((n + 1))
		[ -n "$base" ] || base=$low
		d=$((low > base ? low - base : base - low))
		[ "$d" -le "$worst" ] || worst=$d
	done
	echo "# $name RSS: $files files, ${#rss[@]} samples from the second, lowest of each 2 s from the first third on, base ${base:-?} kB (first sample ${rss[0]:-?} kB), largest change $worst kB, peak $(printf '%s\n' "${rss[@]}" | sort -n | tail -1) kB"
	# stopped by SIGINT, perf-ring dies as perf record: by the SIGTERM that
	# stopped the command (143), or the SIGINT (130)
	if [ "$rc" != 0 ] && [ "$rc" != 130 ] && [ "$rc" != 143 ]; then
		nok "$name RSS over $files files" "exit $rc" "$(tail -3 rss.err)"
	elif [ "$n" -lt 40 ] || [ "$files" -lt "$min" ]; then
		nok "$name RSS over files: too few samples ($n) or files ($files)" "$(tail -3 rss.err)"
	elif [ "$worst" -le "$limit" ]; then
		ok "$name RSS over $files files: within $worst kB of its value after the first third"
	else
		nok "$name RSS within $limit kB over $files files" "changed by $worst kB from $base kB" \
			"samples, kB: ${rss[*]}"
	fi
	if [ "${#fds[@]}" -lt 16 ] || [ -z "$f0" ] || [ "$f0" = 0 ]; then
		nok "$name descriptors over $files files: too few samples (${#fds[@]})"
	elif [ "$f1" = "$f0" ]; then
		ok "$name descriptors over $files files: $f0 from the ${FD_FROM:-start} on and at the end"
	else
		nok "$name descriptors over $files files: $f0 at the start, $f1 at the end" \
			"samples: ${fds[*]}"
	fi
	rm -rf rss
}

# shellcheck disable=SC2016 # $0 is the inner shell's
FD_FROM=file rss_watch "flight recorder" '^\[ perf-ring: snapshot ' 6 1024 \
	--overwrite -z --switch-output=2s -e 'raw_syscalls:*' -o rss/s.data -- \
	sh -c 'while :; do "$0" 100000 >/dev/null; done & while :; do /bin/true; sleep 0.01; done' \
	"$CL"
# shellcheck disable=SC2016 # $0 is the inner shell's
rss_watch "stream, --switch-output=1M" '^\[ perf-ring record: switched to ' 8 256 \
	-z --switch-output=1M --switch-max-files=3 -e 'raw_syscalls:*' -o rss/s.data -- \
	sh -c 'while :; do "$0" 1000000 >/dev/null; done' "$CL"

# Descriptors across switches, in steps: the count while the first file
# is being written, and after two SIGUSR2 switches, the same (a file's
# end that opens one for good, as the host's features once did, shows
# here: the stream above switches too soon to see its first file).
fd_switch() {
	local rpid rc n0 n1 files
	rm -rf rss
	mkdir rss
	# shellcheck disable=SC2016 # $0 is the inner shell's
	setsid "$PR" record -q -e 'raw_syscalls:*' --switch-output=signal -o rss/s.data -- \
		sh -c 'while :; do "$0" 100000 >/dev/null; done' "$CL" >rss.out 2>rss.err &
	rpid=$!
	sleep 1
	n0=$(ls "/proc/$rpid/fd" 2>/dev/null | wc -l)
	kill -USR2 "$rpid"
	sleep 1
	kill -USR2 "$rpid"
	sleep 1
	n1=$(ls "/proc/$rpid/fd" 2>/dev/null | wc -l)
	kill -INT "$rpid" 2>/dev/null
	wait "$rpid"
	rc=$?
	kill -KILL -- "-$rpid" 2>/dev/null
	files=$(find rss -name 's.data.*' | wc -l)
	if [ "$rc" != 0 ] && [ "$rc" != 130 ] && [ "$rc" != 143 ]; then
		nok "descriptors across switches" "exit $rc" "$(tail -3 rss.err)"
	elif [ "$files" -lt 2 ] || [ "$n0" = 0 ]; then
		nok "descriptors across switches: $files files, $n0 descriptors" "$(tail -3 rss.err)"
	elif [ "$n0" = "$n1" ]; then
		ok "descriptors across switches: $n0 in the first file and after two switches ($files files)"
	else
		nok "descriptors across switches: $n0 in the first file, $n1 after two switches ($files files)"
	fi
	rm -rf rss
}
fd_switch
