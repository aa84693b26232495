#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end tests of perf-ring against the real perf: every file perf-ring
# writes must be read by 'perf report', 'perf script' and
# 'perf report --stats' without warnings, and --stats must agree with
# 'perf-ring report'.  Prints TAP; exits non-zero on any failure.  Missing
# privileges or tools are a SKIP with the reason.
#
# usage: e2e.sh SCRATCH_DIR   (PERF_RING, CLOSE_LOOP, WATCH_LOOP, CG_TREE,
# CG_TREE_NOFP, CG_TREE_V2 and BPF_SPIN name the binaries)

set -u
W=${1:?scratch dir}
PR=${PERF_RING:?}
CL=${CLOSE_LOOP:?}
HERE=$(cd "$(dirname "$0")" && pwd)
N=0
FAIL=0

ok()   { N=$((N + 1)); echo "ok $N - $1"; }
nok()  { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
# took PART T0: how long a part took (SECONDS since T0), for whoever trims make check.
took() { printf '# %s took %ds\n' "$1" $((SECONDS - $2)); }
# Scratch files are removed when everything passed, kept for a look otherwise.
finish() {
	echo "1..$N"
	if [ "$FAIL" = 0 ]; then cd / && rm -rf "$W"; else echo "# $FAIL of $N failed; files in $W"; fi
	exit $((FAIL != 0))
}

skip_all() { echo "1..0 # SKIP $1"; exit 0; }
[ "$(id -u)" = 0 ] || skip_all "needs root (perf_event_open on tracepoints, tracefs)"
command -v perf >/dev/null || skip_all "perf is not installed (Debian: linux-perf)"
command -v python3 >/dev/null || skip_all "python3 is needed for the sequence checks"
# the interpreter python3 names, found once: a version manager's shim
# (pyenv's is a shell script) costs a shell and a lookup at every start,
# and the sequence checks start one per file they check
PY3=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -x "$PY3" ] || PY3=python3
if [ ! -e /sys/kernel/tracing/events/header_page ] && [ ! -e /sys/kernel/debug/tracing/events/header_page ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		skip_all "tracefs is not mounted and cannot be mounted"
fi

rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1

# Normalized "NAME events: N" lines of perf report --stats / perf-ring report.
norm() { sed -n '/Aggregated stats/,$p' | sed -E 's/\( *[0-9.]+%\)//; s/ +/ /g; s/^ //; s/ $//' | grep -v '^$'; }

# drop_lost_warning FILE: perf's warning about LOST and LOST_SAMPLES records
# taken out of FILE (a tool's stderr), blank lines too; a "Warning:" line
# that heads any other message stays.
drop_lost_warning() {
	awk '/^Warning:$/ { if (held) print "Warning:"; held = 1; next }
	     /^Processed [0-9]+ events and lost [0-9]+ chunks!$/ ||
	     /^Processed [0-9]+ samples and lost [0-9.]+%!$/ { held = 0; next }
	     /^Check IO\/CPU overload!$/ || /^$/ { next }
	     { if (held) print "Warning:"; held = 0; print }
	     END { if (held) print "Warning:" }' "$1" > "$1.kept" && mv "$1.kept" "$1"
}

# perf reads the file without a warning or error, and the counts agree.
# With "lossy", perf's warning about lost records (which the file reports
# correctly) is allowed; nothing else is.
check_file() {
	local f=$1 what=$2 lossy=${3:-} rc
	perf report --stats -i "$f" >stats.out 2>stats.err
	rc=$?
	[ -z "$lossy" ] || drop_lost_warning stats.err
	if [ $rc != 0 ] || grep -qiE 'warn|error|fail|couldn|invalid|unexpected' stats.err stats.out; then
		nok "$what: perf report --stats reads $f" "$(head -5 stats.err)"; return 1
	fi
	"$PR" report -i "$f" >pr.out 2>pr.err || { nok "$what: perf-ring report reads $f" "$(cat pr.err)"; return 1; }
	if ! diff <(norm <stats.out) <(norm <pr.out) >diff.out; then
		nok "$what: perf report --stats agrees with perf-ring report" "$(head -10 diff.out)"; return 1
	fi
	perf script -i "$f" >script.out 2>script.err
	rc=$?
	[ -z "$lossy" ] || drop_lost_warning script.err
	if [ $rc != 0 ] || [ -s script.err ]; then
		nok "$what: perf script decodes $f" "$(head -5 script.err)"; return 1
	fi
	local samples lines
	samples=$(norm <pr.out | awk '/^SAMPLE events:/ {print $3; exit}')
	lines=$(wc -l <script.out)
	if [ "${samples:-0}" != "$lines" ]; then
		nok "$what: perf script prints every sample" "samples $samples, lines $lines"; return 1
	fi
	perf report -i "$f" --stdio >report.out 2>report.err
	rc=$?
	[ -z "$lossy" ] || drop_lost_warning report.err
	if [ $rc != 0 ] || grep -qiE 'warn|error' report.err; then
		nok "$what: perf report reads $f" "$(head -5 report.err)"; return 1
	fi
	ok "$what: perf report, perf script (all $lines samples), --stats agree"
	return 0
}

# 1. streaming, plain and compressed, io_uring and write(2).  The buffers
# are large, but a slow disk can still make the kernel drop records (CI saw
# one PERF_RECORD_LOST with write(2)).  These tests are about the file
# format, so a loss is allowed when the file reports it and perf's count
# agrees with ours; the loss itself is measured by the benchmark.
for mode in "" "-z" "--no-aio" "-z=3 --aio=8" "--mmap-flush=16K"; do
	rm -f s.data
	"$PR" record -m 4M $mode -e 'raw_syscalls:*' -o s.data -- "$CL" 200000 2>rec.err
	rc=$?
	if [ $rc != 0 ]; then nok "record $mode" "exit $rc: $(cat rec.err)"; continue; fi
	check_file s.data "record $mode" lossy || continue
	lost=$(norm <pr.out | awk '/^LOST events:/ {print $3; exit}')
	[ "${lost:-0}" = 0 ] || echo "# record $mode: the kernel dropped records (${lost} LOST records); the file reports them"
	if ! grep -q 'raw_syscalls:sys_enter: NR 3 (ffffffff, ' script.out ||
	   ! grep -q 'raw_syscalls:sys_exit: NR 3 = -9$' script.out; then
		nok "record $mode: raw_syscalls fields decode" "$(grep -m2 'NR 3 ' script.out)"
	fi
	grep -q "\[ perf-ring record: .* events, [0-9]* lost, .*\(io_uring\|write(2)\) \]" rec.err ||
		nok "record $mode: summary line" "$(cat rec.err)"
	case "$mode" in
	*-z*) grep -q -- '->' rec.err || nok "record $mode: compression in summary" "$(cat rec.err)"
	      grep -q 'COMPRESSED events' pr.out || nok "record $mode: COMPRESSED records" ;;
	esac
	case "$mode" in
	*--no-aio*) grep -q 'write(2) \]' rec.err || nok "record $mode: says write(2)" "$(cat rec.err)" ;;
	esac
done

# -r: the reader runs SCHED_FIFO, the writer and the command do not
rm -f rt.data
"$PR" record -r 10 -z -e 'raw_syscalls:*' -o rt.data -- "$CL" 30000000 2>rt.err &
pid=$!
sleep 0.5
cls=$(ps -L -o cls= -p $pid 2>/dev/null | tr -s ' \n' ' ')
wcls=$(ps -o cls= -p "$(pgrep -P $pid)" 2>/dev/null | tr -d ' ')
kill -INT $pid
wait $pid
rc=$?
case "$cls" in
*FF*TS*) if [ "$wcls" = TS ]; then
		check_file rt.data "-r 10: reader SCHED_FIFO, writer and command SCHED_OTHER ($cls/ $wcls)" lossy
	else
		nok "-r 10: the command stays SCHED_OTHER" "command: $wcls"
	fi ;;
*) nok "-r 10: the reader runs SCHED_FIFO, the writer does not" "threads: $cls, exit $rc: $(cat rt.err)" ;;
esac

# no -r: as root the reader runs SCHED_FIFO 1 (prio.c), and -v says so
rm -f rd.data
"$PR" record -v -e 'raw_syscalls:*' -o rd.data -- "$CL" 30000000 2>rd.err &
pid=$!
sleep 0.5
rprio=$(ps -L -o tid=,cls=,rtprio= -p $pid 2>/dev/null | awk -v p=$pid '$1 == p { print $2 "/" $3 }')
cls=$(ps -L -o cls= -p $pid 2>/dev/null | tr -s ' \n' ' ')
wcls=$(ps -o cls= -p "$(pgrep -P $pid)" 2>/dev/null | tr -d ' ')
kill -INT $pid
wait $pid
if [ "$rprio" = FF/1 ] && [ "$wcls" = TS ] && grep -q 'reader: SCHED_FIFO 1 (the default when permitted)' rd.err; then
	case "$cls" in
	*TS*) check_file rd.data "no -r as root: reader SCHED_FIFO 1, writer and command SCHED_OTHER, -v says so" lossy ;;
	*) nok "no -r as root: the writer threads stay SCHED_OTHER" "threads: $cls" ;;
	esac
else
	nok "no -r as root: the reader runs SCHED_FIFO 1 and -v says so" \
		"reader: $rprio, command: $wcls, $(grep 'reader:' rd.err)"
fi

# A SCHED_FIFO reader sharing one CPU with the command must not spin while
# the command exits: a hung-up buffer is always "ready" to poll(), and the
# exiting command, SCHED_OTHER, would get the CPU only when real-time
# throttling steps in (0.95 s of each second).  Timed against a fair reader
# in the same run; both flight recorder and a trigger event buffer too.
wall_of() {
	local t0 t1
	t0=$(date +%s%N)
	taskset -c 0 "$PR" record -q "$@" -o hu.data -- "$CL" 0 >/dev/null 2>hu.err || return 1
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 ))
}
for hm in "" "--overwrite --switch-output-event=syscalls:sys_enter_kill"; do
	fifo=$(wall_of $hm -e 'raw_syscalls:*') && fair=$(wall_of $hm -r 0 -e 'raw_syscalls:*')
	if [ -z "$fifo" ] || [ -z "$fair" ]; then
		nok "one CPU, SCHED_FIFO reader${hm:+ $hm}: records" "$(cat hu.err)"
	elif [ "$fifo" -le $((4 * fair + 250)) ]; then
		ok "one CPU, SCHED_FIFO reader${hm:+ $hm}: the command exits as soon ($fifo ms, fair reader $fair ms)"
	else
		nok "one CPU, SCHED_FIFO reader${hm:+ $hm}: the command exits as soon" "$fifo ms, fair reader $fair ms"
	fi
done
rm -f hu.data* hu.err

# the reader's slice (prio.c): 100 us for the reader thread only; the
# writer, io_uring's workers and the command keep the kernel's default
slice_of() { awk '/^se\.slice/ { print $NF }' "$1/sched" 2>/dev/null; }
if [ -n "$(slice_of /proc/self)" ]; then
	rm -f sl.data
	"$PR" record -v -r 0 -z -e 'raw_syscalls:*' -o sl.data -- "$CL" 30000000 2>sl.err &
	pid=$!
	sleep 0.5
	reader=$(slice_of /proc/$pid/task/$pid)
	others=
	for t in /proc/$pid/task/* /proc/"$(pgrep -P $pid)"; do
		[ "$t" = /proc/$pid/task/$pid ] && continue
		# a thread that ended meanwhile (an io_uring worker) is left out
		c=$(cat "$t/comm" 2>/dev/null) && sl=$(slice_of "$t") && [ -n "$sl" ] &&
			others="$others$c=$sl "
	done
	kill -INT $pid
	wait $pid
	if grep -q 'reader: fair, slice 100 us$' sl.err; then
		case "$others" in
		*"=100000 "*|*"= "*) nok "--reader-slice: only the reader gets the short slice" \
				"reader: $reader, others:$others" ;;
		*) if [ "$reader" = 100000 ]; then
			check_file sl.data "the reader runs with a 100 us slice, the rest with the default ($others)" lossy
		   else
			nok "--reader-slice: the reader's slice is 100 us" "reader: $reader, $(cat sl.err)"
		   fi ;;
		esac
	elif grep -q 'reader: fair, slice 100 us not supported' sl.err; then
		skip "the reader's slice" "this kernel has no custom slices (before 6.12)"
	else
		nok "--reader-slice: -v says whether the slice was set" "$(cat sl.err)"
	fi
else
	skip "the reader's slice" "no se.slice in /proc/PID/sched (CONFIG_SCHED_DEBUG off or a kernel before 6.6)"
fi

# io_uring unavailable: fall back to write(2) and say so
if [ -w /proc/sys/kernel/io_uring_disabled ]; then
	old=$(cat /proc/sys/kernel/io_uring_disabled)
	echo 2 >/proc/sys/kernel/io_uring_disabled
	"$PR" record -e 'raw_syscalls:*' -o nu.data -- "$CL" 1000 2>nu.err
	rc=$?
	echo "$old" >/proc/sys/kernel/io_uring_disabled
	if [ $rc = 0 ] && grep -q 'write(2), io_uring unavailable \]' nu.err &&
	   grep -q 'io_uring_setup: ' nu.err; then
		check_file nu.data "io_uring disabled: falls back to write(2), says so"
	else
		nok "io_uring disabled: falls back to write(2)" "exit $rc: $(cat nu.err)"
	fi
else
	skip "io_uring unavailable" "no kernel.io_uring_disabled sysctl to turn it off"
fi

# 2. report --decompress gives a plain file with the same records
rm -f z.data plain.data
"$PR" record -m 4M -z -e 'raw_syscalls:*' -o z.data -- "$CL" 100000 2>/dev/null
if "$PR" report -i z.data --decompress -o plain.data >/dev/null 2>dec.err; then
	a=$(perf report --stats -i z.data 2>/dev/null | norm | grep -v 'COMPRESSED\|TOTAL')
	b=$(perf report --stats -i plain.data 2>/dev/null | norm | grep -v 'COMPRESSED\|TOTAL')
	if [ "$a" = "$b" ] && ! perf report --header-only -i plain.data 2>/dev/null | grep -q '# compressed'; then
		ok "report --decompress writes a plain file with the same records"
	else
		nok "report --decompress" "$(diff <(echo "$a") <(echo "$b") | head -5)"
	fi
else
	nok "report --decompress" "$(cat dec.err)"
fi

# 3. flight recorder: three SIGUSR2 snapshots and the final one
BASE=1000000
for z in "" "-z"; do
	rm -f fr.data*
	"$PR" record --overwrite --switch-output=signal $z -e 'raw_syscalls:*' -o fr.data -- \
		"$CL" 3000000 $BASE 2>fr.err &
	pid=$!
	for i in 1 2 3; do sleep 0.4; kill -USR2 $pid 2>/dev/null; done
	wait $pid
	rc=$?
	files=$(ls fr.data.* 2>/dev/null)
	nf=$(echo "$files" | grep -c .)
	if [ $rc != 0 ] || [ "$nf" -lt 3 ]; then
		nok "overwrite $z: snapshots written" "exit $rc, $nf files: $(cat fr.err)"; continue
	fi
	last=$(echo "$files" | tail -1)
	good=0
	for f in $files; do
		# check_file left perf script's output (event and trace among
		# its default fields) in script.out
		check_file "$f" "overwrite $z snapshot $(basename "$f")" || continue
		seq=$("$PY3" "$HERE/seqcheck.py" $BASE 3000000 <script.out \
			$([ "$f" = "$last" ] && echo --ends-at-newest))
		if [ $? = 0 ]; then
			good=$((good + 1))
		elif [ "$seq" = "no close(BASE+i) records" ] && [ "$f" != "$last" ]; then
			# a snapshot taken before the command's first close()
			# (a slow start under load) holds none; the last must
			good=$((good + 1))
		else
			nok "overwrite $z: $f holds one contiguous run" "$seq"
		fi
	done
	if perf script -i "$last" 2>/dev/null | head -1 | grep -q '^ *close-loop '; then
		ok "overwrite $z: the last snapshot names the workload (synthesized COMM)"
	else
		nok "overwrite $z: the last snapshot names the workload" "$(perf script -i "$last" 2>&1 | head -1)"
	fi
	[ $good = "$nf" ] && ok "overwrite $z: $nf snapshots, each one contiguous run of close() sequence numbers, the last ends at the newest"
	# every close() is either in a snapshot or counted as overwritten
	ow=$(sed -n 's/.* \([0-9]*\) overwritten,.*/\1/p' fr.err | tail -1)
	[ -n "$ow" ] && [ "$ow" -gt 0 ] && ok "overwrite $z: counts overwritten records ($ow)" ||
		nok "overwrite $z: overwritten count" "$(tail -2 fr.err)"
done

# the flight recorder's count, paused or not: each close() is captured,
# overwritten or lost (dropped while paused), and counted once.  The loop
# makes 3,000,000 close() calls, plus the dynamic loader's few.
for sp in "" "--snapshot-pause"; do
	rm -f fc.data*
	"$PR" record --overwrite --switch-output=signal $sp -v -m 1M -e syscalls:sys_enter_close \
		-o fc.data -- "$CL" 3000000 2>fc.err &
	pid=$!
	for i in 1 2 3; do sleep 0.4; kill -USR2 $pid 2>/dev/null; done
	wait $pid
	rc=$?
	n=$(sed -n 's/.* \([0-9]*\) lost, \([0-9]*\) overwritten (\([0-9]*\) distinct samples captured).*/\1 \2 \3/p' fc.err)
	sum=$(echo "$n" | awk 'NF == 3 { print $1 + $2 + $3 }')
	if [ $rc = 0 ] && [ -n "$sum" ] && [ "$sum" -ge 3000000 ] && [ "$sum" -le 3000010 ]; then
		ok "overwrite ${sp:-(no pause)}: lost + overwritten + captured = $sum close() calls (lost, overwritten, captured: $n)"
	else
		nok "overwrite ${sp:-(no pause)}: every close() counted once" "exit $rc, sum '$sum': $(tail -2 fc.err)"
	fi
	rm -f fc.data*
done

# frequency-sampled events in the flight recorder: what was overwritten is
# estimated from the bytes the kernel wrote, and says so
rm -f fq.data
"$PR" record --overwrite -m 64K -e cpu-clock -F 10000 -o fq.data -- "$CL" 3000000 2>fq.err
rc=$?
if [ $rc = 0 ] && grep -q "~[0-9]* overwritten (estimated from bytes) since the last snapshot" fq.err &&
   grep -q ", ~[0-9]* overwritten," fq.err; then
	check_file fq.data "overwrite, cpu-clock -F 10000: the overwritten count is marked as an estimate"
else
	nok "overwrite, cpu-clock: estimated overwritten count" "exit $rc: $(cat fq.err)"
fi

# 4. system wide and -p, with synthesis; SIGINT ends the recording cleanly
rm -f a.data
"$PR" record -a --synth-threads=2 -e cpu-clock -o a.data 2>a.err &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
# as perf: the SIGINT is raised again at the exit (130)
if [ $rc = 130 ]; then
	check_file a.data "-a, stopped by SIGINT" &&
	if perf report -i a.data --stdio --sort comm,dso 2>/dev/null | grep -v '^#' | grep -q 'kernel.kallsyms\|libc'; then
		ok "-a: perf report resolves commands and DSOs"
	else
		nok "-a: perf report resolves commands and DSOs" "$(perf report -i a.data --stdio --sort comm,dso 2>&1 | head -15)"
	fi
else
	nok "-a stopped by SIGINT dies by it (130), as perf" "exit $rc: $(cat a.err)"
fi
(while :; do "$CL" 1000; sleep 0.05; done) &
spid=$!
sleep 0.2
rm -f p.data
"$PR" record -p $spid -e 'raw_syscalls:*,context-switches' -o p.data 2>p.err &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
kill $spid 2>/dev/null
if [ $rc = 143 ]; then
	check_file p.data "-p PID, stopped by SIGTERM" &&
	if perf script -i p.data --show-task-events 2>/dev/null | grep -q "PERF_RECORD_COMM: .*:$spid/$spid"; then
		ok "-p: the existing process is synthesized (COMM)"
	else
		nok "-p: the existing process is synthesized (COMM)"
	fi
else
	nok "-p PID, stopped by SIGTERM: dies by it (143), as perf" "exit $rc: $(cat p.err)"
fi

# 5. bad input and faults
expect_fail() {	# what, expected exit, pattern, command...
	local what=$1 code=$2 pat=$3
	shift 3
	"$@" >f.out 2>f.err
	local rc=$?
	if [ $rc = "$code" ] && grep -q -- "$pat" f.err; then ok "$what: exit $rc, '$(grep -m1 -- "$pat" f.err)'"
	else nok "$what" "exit $rc (want $code): $(cat f.err | head -3)"; fi
}
expect_fail "unknown event" 129 "unknown event 'nosuch'" "$PR" record -e nosuch -o x.data -- true
expect_fail "unknown tracepoint" 129 "no such tracepoint" "$PR" record -e 'nosys:*' -o x.data -- true
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	expect_fail "hardware event without a PMU" 129 "cycles: no hardware PMU on this machine; try cpu-clock" \
		"$PR" record -e cycles -o x.data -- true
else
	skip "hardware event without a PMU" "this machine has a PMU"
fi
# usage errors exit 129, as perf's usage_with_options()
expect_fail "bad -m" 129 "invalid value 'x' for -m" "$PR" record -m x -o x.data -- true
expect_fail "bad -z level" 129 "invalid value '50' for --compression-level" "$PR" record -z=50 -o x.data -- true
expect_fail "bad -r" 129 "invalid value '100' for --realtime" "$PR" record -r 100 -o x.data -- true
expect_fail "-r PRIO with --reader-slice" 129 "not with -r 3" "$PR" record -r 3 --reader-slice 200 -o x.data -- true
expect_fail "bad --reader-slice" 129 "invalid value '50' for --reader-slice" "$PR" record --reader-slice 50 -o x.data -- true
expect_fail "bad --mmap-flush" 129 "invalid value '1Q' for --mmap-flush" "$PR" record --mmap-flush=1Q -o x.data -- true
expect_fail "unwritable output" 255 "cannot create output '/nonexistent/x.data'" \
	"$PR" record -e 'raw_syscalls:*' -o /nonexistent/x.data -- true
expect_fail "workload that cannot start" 255 "workload failed to start: '/nonexistent/cmd'" \
	"$PR" record -e 'raw_syscalls:*' -o wl.data -- /nonexistent/cmd
perf report --stats -i wl.data >/dev/null 2>&1 && ok "the file of a failed workload is readable" ||
	nok "the file of a failed workload is readable"

# ENOSPC: a small tmpfs
mkdir -p small
if mount -t tmpfs -o size=3m tmpfs small 2>/dev/null; then
	for z in "" "-z"; do
		rm -f small/*
		expect_fail "ENOSPC while recording $z" 2 "No space left on device" \
			"$PR" record $z -e 'raw_syscalls:*' -o small/full.data -- "$CL" 3000000
		check_file small/full.data "ENOSPC $z: perf reads what was written" lossy || cp small/full.data enospc-failed$z.data
	done
	umount small
	# Room for the header alone: the first write fails and no data is
	# kept.  A data size of 0 would make perf read the feature sections
	# as records; the file must read as empty.
	if mount -t tmpfs -o size=4k tmpfs small 2>/dev/null; then
		expect_fail "ENOSPC at the first write" 2 "keeps the 0 bytes of data" \
			"$PR" record -e cpu-clock -o small/full.data -- "$CL" 200000
		if perf report --stats -i small/full.data >stats.out 2>stats.err &&
		   ! grep -qiE 'error|unexpected|fail|invalid' stats.err &&
		   perf script -i small/full.data >script.out 2>script.err && [ ! -s script.out ] &&
		   ! grep -qiE 'error|unexpected|fail|invalid' script.err; then
			ok "ENOSPC at the first write: perf report --stats and perf script read the file, with no samples"
		else
			nok "ENOSPC at the first write: perf reads the file" "$(head -3 stats.err script.err)"
		fi
		umount small
	fi
	# A snapshot that does not fit: its line says it is not on file
	# whole, and the summary's size is what is on file, not what was
	# taken (it said 1.0 MB of a 4.6 kB file).
	if mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
		"$PR" record --overwrite -m 1M -e raw_syscalls:sys_enter -o small/fl.data -- \
			"$CL" 100000 2>fl.err
		rc=$?
		fsize=$(stat -c %s small/fl.data 2>/dev/null || echo 0)
		said=$(grep -o '[0-9.]* [kMG]*B, [^]]* \]$' fl.err | awk '{
			sub(/,/, "", $2)
			m = $2 == "kB" ? 1e3 : $2 == "MB" ? 1e6 : $2 == "GB" ? 1e9 : 1
			printf "%d", $1 * m }')
		if [ $rc = 2 ] && grep -q '^\[ perf-ring: snapshot .*: not written whole' fl.err &&
		   [ -n "$said" ] && [ "$said" -le "$fsize" ] && perf report --stats -i small/fl.data >/dev/null 2>&1; then
			ok "ENOSPC in a snapshot: its line says so, the summary says $said bytes of a $fsize-byte file, perf reads it"
		else
			nok "ENOSPC in a snapshot: its line says so, the summary the bytes on file" \
				"exit $rc, summary $said bytes, file $fsize bytes: $(cat fl.err)"
		fi
		umount small
	fi
else
	skip "ENOSPC while recording" "cannot mount a tmpfs"
fi

# The writer's thread cannot be created (RLIMIT_NPROC, as a user id that
# runs nothing else, so that nothing started meanwhile takes the count: the
# processes allowed are perf-ring and its command): a
# message, exit 1, and no file left behind with a header perf cannot open.
if command -v setpriv >/dev/null && mkdir -p nproc && chmod 777 nproc; then
	rm -f nproc/*
	nu=$((3900000000 + $$))
	nn=$(ps -u $nu --no-headers | wc -l)
	setpriv --reuid=$nu --regid=65534 --clear-groups bash -c \
		"ulimit -u $((nn + 2)); exec \"\$0\" record -e cpu-clock -o nproc/s.data -- \"\$1\" 100000" \
		"$PR" "$CL" >nproc.out 2>nproc.err
	rc=$?
	if grep -q "starting the writer for 'nproc/s.data': Resource temporarily unavailable" nproc.err; then
		if [ "$rc" = 255 ] && [ -z "$(ls nproc)" ]; then
			ok "no thread for the writer (RLIMIT_NPROC): exit 255, '$(grep -m1 'starting the writer' nproc.err)', no file left"
		else
			nok "no thread for the writer (RLIMIT_NPROC): exit 1 and no file" "exit $rc, left: $(ls nproc)"
		fi
	else
		skip "no thread for the writer (RLIMIT_NPROC)" "the limit did not land on the writer's thread: exit $rc, $(head -2 nproc.err | tr '\n' ' ')"
	fi
fi

# SIGINT, SIGTERM during a workload: interrupted, the workload stopped,
# the file complete up to there; as perf, perf-ring then dies by the
# SIGTERM that stopped the workload (143)
for sig in INT TERM; do
	rm -f term.data
	"$PR" record -e 'raw_syscalls:*' -o term.data -- "$CL" 100000000 2>term.err &
	pid=$!
	sleep 1
	kill -$sig $pid
	wait $pid
	rc=$?
	if [ $rc = 143 ] && grep -q "interrupted by .*; workload stopped" term.err; then
		check_file term.data "SIG$sig during a workload (exit $rc)" lossy
	else
		nok "SIG$sig during a workload" "exit $rc: $(cat term.err)"
	fi
done

# a loss left unreported on a CPU that went quiet: the workload fills CPU
# 0's one-page buffer, then runs on CPU 1 only.  The LOST record perf-ring
# writes at the end must not be older than what perf already sorted and
# flushed ("out of order events"); before the fix 4 runs of 5 were.
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null && taskset -c 1 true 2>/dev/null; then
	rm -f mig.data
	if "$PR" record -m 1 -e 'raw_syscalls:*' -o mig.data -- \
		taskset -c 1 sh -c "taskset -c 0 '$CL' 200000; '$CL' 300000" 2>mig.err; then
		check_file mig.data "a loss on a CPU gone quiet: the LOST written at the end is in order" lossy
	else
		nok "a loss on a CPU gone quiet" "$(cat mig.err)"
	fi
else
	skip "a loss on a CPU gone quiet" "needs taskset and CPUs 0 and 1"
fi

# a workload that exits at once: a complete file with its few records; a
# failing one is noted, and the recording itself succeeded
rm -f quick.data
if "$PR" record -e 'raw_syscalls:*' -o quick.data -- true 2>quick.err; then
	check_file quick.data "workload exiting at once"
else
	nok "workload exiting at once" "$(cat quick.err)"
fi
rm -f quick.data
"$PR" record -e 'raw_syscalls:*' -o quick.data -- false 2>quick.err
rc=$?
if [ $rc = 1 ] && grep -q "note: workload exited with status 1" quick.err; then
	check_file quick.data "workload failing at once (noted, its exit status 1 returned)"
else
	nok "workload failing at once" "exit $rc: $(cat quick.err)"
fi

# a buffer mmap that would fail: a normal user over perf_event_mlock_kb and
# a 64 kB RLIMIT_MEMLOCK (root is exempt through CAP_IPC_LOCK).  perf-ring
# sees it before it opens anything (LIMITS AT SCALE in perf-ring-record(1))
# and names both limits; nothing has been recorded, so no file is left.
para=/proc/sys/kernel/perf_event_paranoid
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null && [ -w $para ]; then
	oldp=$(cat $para)
	nd=$(mktemp -d)
	chmod 777 "$nd"
	echo 1 >$para
	(ulimit -l 64 && exec setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups \
		--inh-caps=-all "$PR" record -m 4M -e cpu-clock -o "$nd/m.data" -- "$CL" 1000) >f.out 2>f.err
	rc=$?
	echo "$oldp" >$para
	if [ $rc = 255 ] && grep -q "need $(($(getconf _NPROCESSORS_ONLN) * 4100)) kB locked" f.err &&
	   grep -q "perf_event_mlock_kb" f.err && grep -q "RLIMIT_MEMLOCK (64 kB)" f.err &&
	   [ ! -e "$nd/m.data" ]; then
		ok "failed buffer mmap: exit 1, '$(head -1 f.err)', no file left"
	else
		nok "failed buffer mmap" "exit $rc: $(cat f.err)" "$(ls -l "$nd")"
	fi
	rm -rf "$nd"
else
	skip "failed buffer mmap" "needs the nobody user, setpriv and a writable perf_event_paranoid"
fi

# SIGKILL: nothing runs at exit, so the header keeps a data size of 0 and
# the features are missing; perf refuses the file.  perf-ring report says
# so, and --recover rebuilds it from the whole records on file.
for z in "" "-z"; do
	rm -f kill.data kill-r.data
	"$PR" record $z -e 'raw_syscalls:*' -o kill.data -- "$CL" 100000000 2>kill.err &
	pid=$!
	sleep 1
	kids=$(pgrep -P $pid)
	kill -KILL $pid
	wait $pid 2>/dev/null
	kill $kids 2>/dev/null
	expect_fail "SIGKILL $z: report names the unfinished file" 2 "the recording was not finalized" \
		"$PR" report -i kill.data
	if "$PR" report --recover -i kill.data -o kill-r.data >rec.out 2>rec.err &&
	   grep -q "recovered [0-9]* bytes of data into 'kill-r.data'" rec.err; then
		check_file kill-r.data "SIGKILL $z: report --recover, then perf reads" lossy
	else
		nok "SIGKILL $z: report --recover" "$(cat rec.err)"
	fi
done

# report on truncated and corrupt files
"$PR" record -e 'raw_syscalls:*' -o good.data -- "$CL" 10000 2>/dev/null
head -c 50 good.data >t1.data
head -c 20000 good.data >t2.data
cp good.data t3.data
printf '\x09\x00\x00\x00\x00\x00\x03\x00' | dd of=t3.data bs=1 seek=$(perf report --header-only -i good.data 2>/dev/null | awk '/data offset/ {print $5}') conv=notrunc 2>/dev/null
expect_fail "report: file shorter than a header" 2 "shorter than a perf.data header" "$PR" report -i t1.data
expect_fail "report: truncated file" 2 "truncated" "$PR" report -i t2.data
expect_fail "report: corrupt record" 2 "corrupt record at file offset" "$PR" report -i t3.data
expect_fail "report: missing file" 2 "No such file" "$PR" report -i nonexistent.data
head -c "$(perf report --header-only -i good.data 2>/dev/null | awk '/data offset/ {print $5}')" good.data >t0.data
expect_fail "report --recover: nothing to recover" 2 "nothing to recover" \
	"$PR" report --recover -i t0.data -o t0-r.data
expect_fail "report --recover: not into its input" 2 "is the input" \
	"$PR" report --recover -i t2.data -o t2.data
if "$PR" report --recover -i t2.data -o t2-r.data >/dev/null 2>rec.err &&
   grep -q "dropped the last" rec.err; then
	check_file t2-r.data "report --recover of a truncated file keeps the whole records"
else
	nok "report --recover of a truncated file" "$(cat rec.err)"
fi


# 6. perf's event syntax: modifiers, pmu/terms/, mem: breakpoints, and the
# features the event opener may not apply yet (groups, --filter, period=)
WL=${WATCH_LOOP:-}
# :u and :k: the exclude bits perf evlist shows, and samples from one side only
for m in u k; do
	rm -f mod.data
	if ! "$PR" record -e cpu-clock:$m -F 4000 -o mod.data -- "$CL" 1000000 2>mod.err; then
		nok "cpu-clock:$m records" "$(cat mod.err)"; continue
	fi
	check_file mod.data "cpu-clock:$m" || continue
	ev=$(perf evlist -v -i mod.data 2>&1)
	perf script -i mod.data -F ip,dso >dso.out 2>&1
	total=$(wc -l <dso.out)
	kern=$(grep -c 'kernel.kallsyms' dso.out)
	case $m in
	u) want="exclude_kernel: 1, exclude_hv: 1"; good=$([ "$kern" = 0 ] && echo y) ;;
	k) want="exclude_user: 1, exclude_hv: 1"; good=$([ "$kern" = "$total" ] && echo y) ;;
	esac
	if [ "$total" -gt 100 ] && [ "$good" = y ] && echo "$ev" | grep -q "^cpu-clock:$m: .*$want"; then
		ok "cpu-clock:$m: perf evlist -v shows '$want'; $kern of $total samples in the kernel"
	else
		nok "cpu-clock:$m: exclude bits and samples" "$ev" "$kern of $total samples in the kernel"
	fi
done

# pmu/terms/: software/config=N/ is that software event; tracepoint/config=ID/
# is that tracepoint, with its fields decoded
rm -f pmu.data
if "$PR" record -e 'software/config=2/:u' -o pmu.data -- "$CL" 1000 2>pmu.err &&
   check_file pmu.data "software/config=2/:u"; then
	ev=$(perf evlist -v -i pmu.data 2>&1)
	if echo "$ev" | grep -q '^software/config=2/:u: type: 1, .*config: 0x2, .*exclude_kernel: 1'; then
		ok "software/config=2/:u: perf evlist -v shows type 1, config 2, exclude_kernel"
	else
		nok "software/config=2/:u: attributes" "$ev"
	fi
fi
tfs=/sys/kernel/tracing
[ -e $tfs/events/header_page ] || tfs=/sys/kernel/debug/tracing
id=$(cat $tfs/events/raw_syscalls/sys_enter/id)
rm -f pmu.data
if "$PR" record -e "tracepoint/config=$id/" -o pmu.data -- "$CL" 1000 2>pmu.err &&
   check_file pmu.data "tracepoint/config=$id/ (raw_syscalls:sys_enter)"; then
	n=$(grep -c 'NR 3 (ffffffff, ' script.out)
	if [ "$n" = 1000 ]; then
		ok "tracepoint/config=$id/: perf script decodes the fields of all 1000 close(-1)"
	else
		nok "tracepoint/config=$id/: fields decode" "$n of 1000: $(head -2 script.out)"
	fi
fi

# mem:ADDR/8:w on a global that watch-loop writes 1000 times
if [ -x "$WL" ]; then
	addr=$("$WL" --addr)
	rm -f bp.data
	# whether this machine's breakpoints fire at all: perf's own count
	hits=$(perf stat -x, -e "mem:$addr/8:w" -- "$WL" 1000 2>&1 >/dev/null | awk -F, '/mem:/ {print $1; exit}')
	if "$PR" record -c 1 -e "mem:$addr/8:w" -o bp.data -- "$WL" 1000 2>bp.err; then
		ev=$(perf evlist -v -i bp.data 2>&1)
		if echo "$ev" | grep -q "type: 5, .*bp_type: 2, { bp_addr, config1 }: $addr, { bp_len, config2 }: 0x8"; then
			ok "mem:$addr/8:w: perf evlist -v shows type 5, bp_type 2 (w), the address, length 8"
		else
			nok "mem:$addr/8:w: attributes" "$ev"
		fi
		case "${hits:-0}" in
		0|"<not counted>"|"<not supported>")
			# perf report refuses a file without samples; --stats and script read it
			if perf report --stats -i bp.data >/dev/null 2>stats.err && [ ! -s stats.err ] &&
			   perf script -i bp.data >/dev/null 2>script.err && [ ! -s script.err ]; then
				skip "mem:$addr/8:w: a sample per write" "hardware breakpoints do not fire on this machine: perf stat counts '${hits:-nothing}' for 1000 writes (a hypervisor without debug registers)"
			else
				nok "mem:$addr/8:w: perf reads the file" "$(cat stats.err script.err | head -3)"
			fi ;;
		*)
			if check_file bp.data "mem:$addr/8:w"; then
				# the 1000 of the loop, and the kernel's (elf_load()
				# clears the rest of the page at exec, after the events
				# are enabled): as many as perf stat counts
				n=$(wc -l <script.out)
				k=$(grep -c 'kallsyms' script.out)
				[ "$n" = "$hits" ] && [ $((n - k)) = 1000 ] &&
					ok "mem:$addr/8:w: a sample for each of the 1000 writes and the kernel's $k at exec ($n, as perf stat counts)" ||
					nok "mem:$addr/8:w: a sample per write" "$n samples ($k in the kernel), perf stat $hits"
			fi ;;
		esac
	else
		nok "mem:$addr/8:w records" "$(cat bp.err)"
	fi
else
	skip "mem: breakpoints" "WATCH_LOOP is not set (make e2e builds watch-loop)"
fi

# what is wrong is named
expect_fail "cpu-clock:u is not a tracepoint; a bad modifier is named" 129 "cpu-clock:z: unknown modifier 'z'" \
	"$PR" record -e cpu-clock:z -o x.data -- true
expect_fail "precise (:p) on a software event" 129 "cpu-clock:pp: precise sampling (:p) is a feature of hardware PMU events" \
	"$PR" record -e cpu-clock:pp -o x.data -- true
expect_fail "unknown term" 129 "unknown term 'conf' for PMU 'software'" \
	"$PR" record -e 'software/conf=1/' -o x.data -- true
expect_fail "unknown PMU" 129 "no PMU named 'softwear'" \
	"$PR" record -e 'softwear/config=1/' -o x.data -- true
expect_fail "breakpoint length" 129 "mem:0x1000/3: length 3" \
	"$PR" record -e 'mem:0x1000/3' -o x.data -- true
expect_fail "a filter's unknown field" 129 "syscalls:sys_enter_close has no field 'fdd'" \
	"$PR" record -e syscalls:sys_enter_close --filter 'fdd == 3' -o x.data -- true
expect_fail "a filter on a software event" 129 "cpu-clock is not a tracepoint" \
	"$PR" record -e cpu-clock --filter 'fd == 3' -o x.data -- true

# groups, --filter and period=: recorded as asked, or refused by a perf-ring
# whose event opener does not apply them yet (a SKIP with its message)
not_applied() { grep -q 'does not apply them when it opens the events yet' "$1"; }
BASE=1000000
rm -f flt.data
"$PR" record -e syscalls:sys_enter_close --filter "fd >= $BASE && fd < $((BASE + 10))" \
	-o flt.data -- "$CL" 1000 $BASE 2>flt.err
rc=$?
if [ $rc != 0 ] && not_applied flt.err; then
	skip "--filter on a tracepoint" "$(head -1 flt.err)"
elif [ $rc = 0 ] && check_file flt.data "--filter"; then
	all=$(wc -l <script.out)
	n=$(grep -c 'sys_enter_close: fd: 0x000f42[0-9a-f][0-9a-f]' script.out)
	[ "$all" = 10 ] && [ "$n" = 10 ] &&
		ok "--filter 'fd >= $BASE && fd < $((BASE + 10))': exactly those 10 of 1000 close() calls" ||
		nok "--filter: 10 of 1000 close() calls" "$all samples, $n in range: $(head -3 script.out)"
else
	nok "--filter" "exit $rc: $(cat flt.err)"
fi
rm -f grp.data
"$PR" record -e '{cpu-clock,task-clock}' -o grp.data -- "$CL" 100000 2>grp.err
rc=$?
if [ $rc != 0 ] && not_applied grp.err; then
	skip "groups {a,b}" "$(head -1 grp.err)"
elif [ $rc = 0 ] && check_file grp.data "{cpu-clock,task-clock}"; then
	if perf report --header-only -i grp.data 2>&1 | grep -q '^# group: {cpu-clock,task-clock}'; then
		ok "{cpu-clock,task-clock}: perf report --header-only shows the group"
	else
		nok "{cpu-clock,task-clock}: the group in the header" "$(perf report --header-only -i grp.data 2>&1 | grep -i group)"
	fi
else
	nok "groups {a,b}" "exit $rc: $(cat grp.err)"
fi
rm -f per.data
"$PR" record -e 'cpu-clock/period=2000000/' -o per.data -- "$CL" 1000000 2>per.err
rc=$?
if [ $rc != 0 ] && not_applied per.err; then
	skip "the period= term" "$(head -1 per.err)"
elif [ $rc = 0 ] && check_file per.data "cpu-clock/period=2000000/"; then
	ev=$(perf evlist -v -i per.data 2>&1)
	if echo "$ev" | grep -q 'sample_period, sample_freq }: 2000000,' && ! echo "$ev" | grep -q 'freq: 1'; then
		ok "cpu-clock/period=2000000/: perf evlist -v shows the period, not a frequency"
	else
		nok "cpu-clock/period=2000000/: attributes" "$ev"
	fi
else
	nok "the period= term" "exit $rc: $(cat per.err)"
fi

took "e2e.sh's own cases" 0
# The parts, each sourced here (its helpers and variables are e2e.sh's):
#   targets     perf's targets and lifetime, exit status, durable output, OUTPUT.old
#   tools       every perf tool on every kind of file
#   pipe        -o -: perf's pipe format, into perf and perf-ring report
#   bpf         JIT-compiled BPF code: KSYMBOL and BPF_EVENT records
#   callchains  -g, --call-graph dwarf, in streaming and flight-recorder files
#   buildids    in every kind of file, perf's cache, perf archive, a rebuild
#   triggers    switches, snapshots, rotation, the control channel
#   memlimit    under a memory cgroup's limit: a message, never the OOM killer
#   limits      the limits at scale: RLIMIT_NOFILE, RLIMIT_MEMLOCK, each with a message
#   rss         the RSS over many files: flight recorder snapshots, a switching stream
#   options     perf record's options: the walk of perf record -h, attributes, the table
for e2e_part in targets tools pipe bpf callchains buildids triggers memlimit limits rss options; do
	t_part=$SECONDS
	. "$HERE/e2e-$e2e_part.sh"
	took "e2e-$e2e_part.sh" "$t_part"
done

finish
