# SPDX-License-Identifier: GPL-2.0
#
# End-to-end tests of perf's targets and lifetime rules, the exit status,
# durable output and perf's file conventions (sourced by e2e.sh: its
# helpers and variables are used here).

# the command's exit status comes back as perf returns it
for c in "exit 3|3" "kill -SEGV \$\$|139" "true|0"; do
	"$PR" record -q -e cpu-clock -o st.data -- sh -c "${c%%|*}" 2>st.err
	rc=$?
	if [ $rc = "${c#*|}" ]; then
		ok "exit status of 'sh -c \"${c%%|*}\"': $rc, as perf returns it"
	else
		nok "exit status of 'sh -c \"${c%%|*}\"'" "exit $rc, want ${c#*|}: $(cat st.err)"
	fi
done
rm -f st.data st.data.old

# an existing output becomes OUTPUT.old
rm -f old.data old.data.old
"$PR" record -q -e cpu-clock -o old.data -- true
first=$(md5sum <old.data)
"$PR" record -q -e cpu-clock -o old.data -- true
if [ -f old.data.old ] && [ "$(md5sum <old.data.old)" = "$first" ] && [ -s old.data ]; then
	ok "an existing output becomes OUTPUT.old, as in perf"
else
	nok "an existing output becomes OUTPUT.old" "$(ls -l old.data*)"
fi

# SIGKILL 3 s into a 1 kHz single-thread recording: --recover keeps >= 2 s
rm -f kd.data kd-r.data
"$PR" record -e cpu-clock -F 1000 -o kd.data -- sh -c 'while :; do :; done' 2>kd.err &
pid=$!
sleep 3
kill -KILL $pid
wait $pid 2>/dev/null
pkill -f 'while :; do :; done'
"$PR" report --recover -i kd.data -o kd-r.data >/dev/null 2>kd.err
span=$(perf script -i kd-r.data -F time 2>/dev/null | tr -d ' :' | sed -n '1p;$p' | paste -sd' ' |
	awk 'NF == 2 { printf "%.2f", $2 - $1 }')
if [ -n "$span" ] && awk -v s="$span" 'BEGIN { exit !(s >= 2.0) }'; then
	ok "SIGKILL 3 s into a 1 kHz recording: report --recover keeps $span s of samples"
else
	nok "SIGKILL 3 s in: report --recover keeps >= 2 s" "span '$span': $(tail -2 kd.err)"
fi

# targets beside a command, compared with perf recording the same thing:
# close-loop runs pinned to CPU 1 (or the CPU given) throughout
BG_BASE=1234567		# marks this test's close-loop, for pkill -f
bg_start() {
	(while :; do taskset -c "$1" "$CL" 200000 $BG_BASE >/dev/null 2>&1 || exit; done) &
	bg=$!
	sleep 0.2
}
bg_stop() { kill $bg 2>/dev/null; wait $bg 2>/dev/null; pkill -f "^$CL 200000 $BG_BASE"; }
# comm/cpu pairs with at least 5 samples: "comm cpu" per line
pairs() { perf script -i "$1" -F comm,cpu 2>/dev/null | awk '{ n[$1 " " $2]++ } END { for (k in n) if (n[k] >= 5) print k }' | sort; }
cpus() { perf script -i "$1" -F cpu 2>/dev/null | tr -d '[] ' | sort -u | paste -sd,; }
for t in "-a|sleep 2" "-C 1|sleep 1"; do
	opt=${t%%|*} cmd=${t#*|}
	bg_start 1
	"$PR" record -q $opt -e cpu-clock -F 499 -o tg.data -- $cmd 2>tg.err
	rc=$?
	perf record -q $opt -e cpu-clock -F 499 -o tg-perf.data -- $cmd >/dev/null 2>&1
	bg_stop
	a=$(pairs tg.data | grep -c '^close-loop \[001\]')
	b=$(pairs tg-perf.data | grep -c '^close-loop \[001\]')
	ca=$(cpus tg.data) cb=$(cpus tg-perf.data)
	if [ $rc = 0 ] && [ "$a" = 1 ] && [ "$b" = 1 ] && [ "$ca" = "$cb" ]; then
		ok "$opt -- $cmd: close-loop on cpu 1 and CPUs {$ca}, as in perf's recording"
	else
		nok "$opt -- $cmd: the same comms and CPUs as perf" "exit $rc; close-loop/cpu1 $a vs $b; CPUs '$ca' vs '$cb': $(cat tg.err)"
	fi
	check_file tg.data "$opt -- $cmd"
done
# -C 1 alone records CPU 1 only
case $(cpus tg.data) in 001) ok "-C 1 -- CMD: samples on CPU 1 only" ;; *) nok "-C 1 -- CMD: CPU 1 only" "$(cpus tg.data)" ;; esac

# -p PID -- sleep 2: that process for the command's life
bg_start 0
t0=$(date +%s%N)
"$PR" record -q -p $bg -e cpu-clock -o tp.data -- sleep 2 2>tp.err
rc=$?
wall=$(( ($(date +%s%N) - t0) / 1000000 ))
bg_stop
comms=$(perf script -i tp.data -F comm 2>/dev/null | tr -d ' ' | sort -u | paste -sd,)
span=$(perf script -i tp.data -F time 2>/dev/null | tr -d ' :' | sed -n '1p;$p' | paste -sd' ' | awk 'NF == 2 { printf "%.1f", $2 - $1 }')
# The recording lasts the command's life: at least its 2 s, and the
# samples span no more (a starved process may be sampled over less of it).
if [ $rc = 0 ] && [ -n "$comms" ] && ! echo ",$comms," | grep -q ',sleep,' &&
   [ "$wall" -ge 2000 ] && awk -v s="${span:-0}" 'BEGIN { exit !(s > 0 && s <= 2.5) }'; then
	ok "-p PID -- sleep 2: the process ($comms), not the command, for ${span} s of a ${wall} ms recording"
else
	nok "-p PID -- sleep 2" "exit $rc, comms '$comms', span '$span', ${wall} ms: $(cat tp.err)"
fi

# -t TID: that thread
bg_start 0
"$PR" record -q -t $bg -e cpu-clock -o tt.data -- sleep 1 2>tt.err
rc=$?
bg_stop
if [ $rc = 0 ] && perf report --stats -i tt.data >/dev/null 2>&1; then
	ok "-t TID -- sleep 1: recorded and readable"
else
	nok "-t TID" "exit $rc: $(cat tt.err)"
fi

# --no-inherit: the command's children are not recorded
"$PR" record -q --no-inherit -e raw_syscalls:sys_enter -o ni.data -- sh -c "$CL 1000" 2>ni.err
n_ni=$(perf script -i ni.data -F comm 2>/dev/null | grep -c close-loop)
"$PR" record -q -e raw_syscalls:sys_enter -o in.data -- sh -c "$CL 1000" 2>>ni.err
n_in=$(perf script -i in.data -F comm 2>/dev/null | grep -c close-loop)
if [ "$n_ni" = 0 ] && [ "$n_in" -ge 1000 ]; then
	ok "--no-inherit: the command's child is not recorded (0 samples; $n_in without it)"
else
	nok "--no-inherit" "close-loop samples: $n_ni with, $n_in without: $(cat ni.err)"
fi

# -D MS: nothing before MS after the start
"$PR" record -q -D 500 -e raw_syscalls:sys_enter -o dl.data -- \
	sh -c "$CL 1000 3000000; sleep 1; $CL 1000 4000000" 2>dl.err
rc=$?
# close(BASE + i) calls in [lo, hi)
in_range() {
	perf script -i dl.data -F trace 2>/dev/null |
		python3 -c 'import re, sys
lo, hi = int(sys.argv[1]), int(sys.argv[2])
print(sum(lo <= int(m.group(1), 16) < hi for m in re.finditer(r"NR 3 \(([0-9a-f]+),", sys.stdin.read())))' "$1" "$2"
}
first=$(in_range 3000000 3001000)
second=$(in_range 4000000 4001000)
if [ $rc = 0 ] && [ "$first" = 0 ] && [ "$second" -ge 1000 ]; then
	ok "-D 500: the calls before 500 ms are not recorded, those after are ($second)"
else
	nok "-D 500" "exit $rc, before: $first, after: $second: $(cat dl.err)"
fi
rm -f ./*.data ./*.data.old

# kernels before 6.0 have no PERF_FORMAT_LOST: forced here, the loss is
# counted from the LOST records, and the summary says so.  Records are
# lost on purpose: an 8 KiB buffer, and a fair reader with the kernel's
# slice on the command's CPU (a SCHED_FIFO one keeps up even then)
rm -f nl.data
# PERF_RING_NO_FORMAT_LOST=1 makes perf-ring's perf_event_open() answer
# EINVAL to read_format with PERF_FORMAT_LOST, as a kernel before 6.0
# does: the retry without it must run (-v says so).
PERF_RING_NO_FORMAT_LOST=1 taskset -c 0 "$PR" record -v -r 0 --reader-slice 0 -m 8K \
	-e raw_syscalls:sys_enter -o nl.data -- "$CL" 300000 2>nl.err
rc=$?
lost=$(sed -n 's/.* \([0-9]*\) lost (from LOST records: no PERF_FORMAT_LOST).*/\1/p' nl.err)
if [ $rc = 0 ] && [ -n "$lost" ] && [ "$lost" -gt 0 ] &&
   grep -q 'the kernel has no PERF_FORMAT_LOST (before 6.0)' nl.err; then
	check_file nl.data "no PERF_FORMAT_LOST: $lost lost, counted from the LOST records and said so" lossy
else
	nok "no PERF_FORMAT_LOST: the fallback" "exit $rc: $(cat nl.err)"
fi
rm -f nl.data
PERF_RING_NO_FORMAT_LOST=1 "$PR" record --overwrite -m 8K -e syscalls:sys_enter_close -o nl.data -- \
	"$CL" 300000 2>nl.err
rc=$?
n=$(sed -n 's/.* \([0-9]*\) events, \([0-9]*\) lost (from LOST records[^,]*, \([0-9]*\) overwritten.*/\1 \2 \3/p' nl.err)
sum=$(echo "$n" | awk 'NF == 3 { print $1 + $2 + $3 }')
if [ $rc = 0 ] && [ -n "$sum" ] && [ "$sum" -ge 300000 ] && [ "$sum" -le 300010 ]; then
	ok "no PERF_FORMAT_LOST, flight recorder: captured + lost + overwritten = $sum close() calls"
else
	nok "no PERF_FORMAT_LOST, flight recorder" "exit $rc, '$n': $(cat nl.err)"
fi
rm -f nl.data*
