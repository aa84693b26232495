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

# HEADER_VERSION as perf writes its own: the bare version number that
# --version prints after "perf version " (perf 6.1: "6.1.187"), here the
# one perf-ring --version prints, in files and in pipe output
pv=$(perf --version | sed -n 's/^perf version //p')
perf record -q -e cpu-clock -o ver-perf.data -- true >/dev/null 2>&1
"$PR" record -q -e cpu-clock -o ver.data -- true 2>/dev/null
"$PR" record -q -e cpu-clock -o - -- true >ver-pipe.data 2>/dev/null
v=$("$PR" --version | sed -n 's/^perf-ring version //p')
hv() { perf report --header-only -i "$1" 2>/dev/null | sed -n 's/^# perf version : //p'; }
h=$(hv ver.data) hp=$(hv ver-pipe.data) href=$(hv ver-perf.data)
if [ "$href" = "$pv" ] && [ -n "$v" ] && [ "$h" = "$v" ] && [ "$hp" = "$v" ] &&
   [[ "$v" =~ ^[0-9]+\.[0-9]+ ]]; then
	ok "HEADER_VERSION: '$h' in files and pipe output, what perf-ring --version prints (perf's own: '$href', as perf --version)"
else
	nok "HEADER_VERSION: perf-ring's version number, as perf writes its own" \
		"file '$h', pipe '$hp', perf-ring --version '$v'; perf's file '$href', perf --version '$pv'"
fi
rm -f ver.data ver-pipe.data ver-perf.data

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

# targets beside a command, compared with perf recording the same thing
# at the same time: close-loop runs pinned to CPU 1 throughout, and
# whatever else the machine runs is in both recordings
BG_BASE=1234567		# marks this test's close-loop, for pkill -f
bg_start() {
	(while :; do taskset -c "$1" "$CL" 200000 $BG_BASE >/dev/null 2>&1 || exit; done) &
	bg=$!
	sleep 0.2
}
bg_stop() { kill $bg 2>/dev/null; wait $bg 2>/dev/null; pkill -f "^$CL 200000 $BG_BASE"; }
cpus() { perf script -i "$1" -F cpu 2>/dev/null | tr -d '[] ' | sort -u | paste -sd,; }
# perf record OPTS... -- sleep SECS in the background, returning once its
# command runs (perf forks it at the start and execs it when it enables
# the events): perf-ring then records beside it, with -B.  While any event
# has attr.build_id, the kernel run here (6.18) marks the MMAP2 records of
# every other event PERF_RECORD_MISC_MMAP_BUILD_ID too, over a body that
# holds no build-id: perf 6.1 then aborts on perf's file ("assertion failed
# at util/build-id.c:1010", a smashed stack).  Comms and CPUs need no
# build-ids.
perf_beside() {
	local i
	perf record -q "$@" >/dev/null 2>tg-perf.err &
	perf_pid=$!
	for i in $(seq 100); do
		pgrep -P $perf_pid -x sleep >/dev/null && return 0
		sleep 0.05
	done
	return 1
}
# tg_compare MINE PERFS: the comms and CPUs of two recordings of the same
# thing at the same time.  Over the time both cover (at least 1 s), every
# comm with >= 5% of the samples in one has >= 1% in the other, and the
# CPUs are the same.  The recorders are left out (each samples the other),
# perf's ":PID" (a task it saw no COMM of: under -C, one that exec'd on
# another CPU) is named as perf-ring names that PID, and comms are cut to
# 15 characters as perf cuts kernel threads' /proc names (kworker/1:1H-kb).
tg_compare() {
	perf script -i "$1" -F comm,pid,cpu,time >tg-a.txt 2>/dev/null
	perf script -i "$2" -F comm,pid,cpu,time >tg-b.txt 2>/dev/null
	python3 - tg-a.txt tg-b.txt <<'PY'
import re, sys
def load(path):
    out = []
    for line in open(path):
        m = re.match(r'\s*(.*?)\s+(-?\d+)\s+\[(\d+)\]\s+([\d.]+):', line)
        if m:
            out.append((float(m[4]), int(m[2]), int(m[3]), m[1][:15]))
    return out
a, b = load(sys.argv[1]), load(sys.argv[2])
if not a or not b:
    print("no samples: %d and %d" % (len(a), len(b))); sys.exit(1)
names = {pid: comm for _, pid, _, comm in a}
lo = max(min(s[0] for s in a), min(s[0] for s in b))
hi = min(max(s[0] for s in a), max(s[0] for s in b))
def shares(ss):
    n = {}
    for t, pid, _, comm in ss:
        if not lo <= t <= hi:
            continue
        if comm == ":%d" % pid:
            comm = names.get(pid, comm)
        if comm in ("perf", "perf-ring") or comm.startswith("iou-wrk-"):
            continue
        n[comm] = n.get(comm, 0) + 1
    tot = sum(n.values()) or 1
    return {c: 100.0 * k / tot for c, k in n.items()}
sa, sb = shares(a), shares(b)
big = sorted({c for c, s in sa.items() if s >= 5} | {c for c, s in sb.items() if s >= 5},
             key=lambda c: -sa.get(c, 0))
ca = sorted({cpu for _, _, cpu, _ in a})
cb = sorted({cpu for _, _, cpu, _ in b})
bad = [c for c in big if sa.get(c, 0) < 1 or sb.get(c, 0) < 1]
desc = ", ".join("%s %.0f%%/%.0f%%" % (c, sa.get(c, 0), sb.get(c, 0)) for c in big)
print("comms (perf-ring/perf) %s over the common %.1f s; CPUs {%s}%s" %
      (desc, hi - lo, ",".join(map(str, ca)),
       "" if ca == cb else " vs {%s}" % ",".join(map(str, cb))))
sys.exit(bool(bad) or ca != cb or hi - lo < 1.0 or "close-loop" not in big)
PY
}
for t in "-a|sleep 2" "-C 1|sleep 2"; do
	opt=${t%%|*} cmd=${t#*|}
	rm -f tg.data tg-perf.data
	bg_start 1
	# shellcheck disable=SC2086
	perf_beside $opt -e cpu-clock -F 499 -o tg-perf.data -- $cmd
	# shellcheck disable=SC2086
	"$PR" record -q -B $opt -e cpu-clock -F 499 -o tg.data -- $cmd 2>tg.err
	rc=$?
	wait $perf_pid
	prc=$?
	bg_stop
	if [ $rc = 0 ] && [ $prc = 0 ] && cmp=$(tg_compare tg.data tg-perf.data); then
		ok "$opt -- $cmd beside perf record $opt: $cmp"
	else
		nok "$opt -- $cmd: the same comms and CPUs as perf's recording beside it" \
			"exit $rc, perf's $prc: ${cmp:-}" "$(cat tg.err tg-perf.err)"
	fi
	check_file tg.data "$opt -- $cmd"
done
# -C 1 alone records CPU 1 only
case $(cpus tg.data) in 001) ok "-C 1 -- CMD: samples on CPU 1 only" ;; *) nok "-C 1 -- CMD: CPU 1 only" "$(cpus tg.data)" ;; esac

# -p PID,PID -- sleep 2: those processes for the command's life, beside
# perf record -p of the same ones.  Two CPU-bound processes pinned to
# CPUs 0 and 1, named by their links; perf's file has no CPU in its
# samples with -p unless asked (--sample-cpu).  Always runnable, each is
# sampled across the whole 2 s however busy the machine: the samples must
# span at least 1.5 s of it, and no more than the recording.
rm -f tp.data tp-perf.data
ln -sf "$CL" pr-spin0
ln -sf "$CL" pr-spin1
taskset -c 0 ./pr-spin0 2000000000 $BG_BASE &
sp0=$!
taskset -c 1 ./pr-spin1 2000000000 $BG_BASE &
sp1=$!
sleep 0.2
perf_beside -p $sp0,$sp1 --sample-cpu -e cpu-clock -F 499 -o tp-perf.data -- sleep 2
t0=$(date +%s%N)
"$PR" record -q -B -p $sp0,$sp1 -e cpu-clock -F 499 -o tp.data -- sleep 2 2>tp.err
rc=$?
wall=$(( ($(date +%s%N) - t0) / 1000000 ))
wait $perf_pid
prc=$?
kill $sp0 $sp1
wait $sp0 $sp1 2>/dev/null
# "comm pid cpu span" per comm, pid and cpu
pspans() {
	perf script -i "$1" -F comm,pid,cpu,time 2>/dev/null | tr -d '[]:' |
		awk '{ k = $1 " " $2 " " $3; if (!(k in a)) a[k] = $4; b[k] = $4 }
		     END { for (k in a) printf "%s %.2f\n", k, b[k] - a[k] }' | sort
}
pa=$(pspans tp.data)
pb=$(pspans tp-perf.data)
want=$(printf 'pr-spin0 %s 000\npr-spin1 %s 001' $sp0 $sp1)
if [ $rc = 0 ] && [ $prc = 0 ] && [ "$(echo "$pa" | cut -d' ' -f1-3)" = "$want" ] &&
   [ "$(echo "$pb" | cut -d' ' -f1-3)" = "$want" ] && [ "$wall" -ge 2000 ] &&
   echo "$pa" | awk -v w="$wall" '{ if ($4 < 1.5 || $4 > w / 1000) bad = 1 } END { exit bad }'; then
	ok "-p PID,PID -- sleep 2 beside perf record -p: pr-spin0 on CPU 0, pr-spin1 on CPU 1 in both, not the command; spans $(echo "$pa" | awk '{ printf "%s ", $4 }')s of a ${wall} ms recording (perf's: $(echo "$pb" | awk '{ printf "%s ", $4 }')s)"
else
	nok "-p PID,PID -- sleep 2: the same comms and CPUs as perf's, sampled for >= 1.5 s" \
		"exit $rc, perf's $prc, ${wall} ms" "perf-ring: $pa" "perf: $pb" "$(cat tp.err tg-perf.err)"
fi

# -t TID: that thread and no other of its process.  Three busy threads of
# one python3 process on CPU 0; -t records the second, -p (the control)
# the whole process, at the same time
taskset -c 0 python3 -c 'import threading
def spin():
    while True:
        pass
for _ in range(2):
    threading.Thread(target=spin, daemon=True).start()
spin()' &
py=$!
for i in $(seq 50); do
	[ "$(ls /proc/$py/task 2>/dev/null | wc -l)" -ge 3 ] && break
	sleep 0.1
done
tid=$(ls /proc/$py/task | sort -n | sed -n 2p)
"$PR" record -q -p $py -e cpu-clock -o tt-p.data -- sleep 1.2 2>tt.err &
ppid=$!
"$PR" record -q -t "$tid" -e cpu-clock -o tt.data -- sleep 1 2>>tt.err
rc=$?
wait $ppid
kill $py
wait $py 2>/dev/null
tids=$(perf script -i tt.data -F tid 2>/dev/null | tr -d ' ' | sort -u | paste -sd,)
nt=$(perf script -i tt.data -F tid 2>/dev/null | grep -c .)
ptids=$(perf script -i tt-p.data -F tid 2>/dev/null | tr -d ' ' | sort -u | grep -c .)
if [ $rc = 0 ] && [ "$tids" = "$tid" ] && [ "$ptids" -ge 3 ]; then
	ok "-t TID -- sleep 1: only thread $tid in its $nt samples (-p of its process beside it: $ptids threads)"
else
	nok "-t TID: only that thread" "exit $rc, -t $tid: tids '$tids'; -p: $ptids threads: $(cat tt.err)"
fi
rm -f pr-spin0 pr-spin1

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

# -p on a process of 300 threads: 300 events a CPU, turned on and off by
# one prctl() each (PR_TASK_PERF_EVENTS_ENABLE/DISABLE), not an ioctl()
# each; the ioctl()s left are two an event (its id, its buffer).  One an
# event more (either way) reaches 3 x events.
python3 -c 'import threading, time
for _ in range(300): threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
print("ready", flush=True); time.sleep(60)' >thr.out 2>&1 &
thr=$!
for _ in $(seq 50); do grep -q ready thr.out && break; sleep 0.1; done
ncpu=$(getconf _NPROCESSORS_ONLN)
perf stat -x, -o thr.stat -e syscalls:sys_enter_ioctl,syscalls:sys_enter_prctl -- \
	"$PR" record -q -B -p $thr -e cpu-clock -o thr.data -- sleep 0.2 2>thr.err
rc=$?
kill $thr 2>/dev/null; wait $thr 2>/dev/null
nio=$(awk -F, '$3 == "syscalls:sys_enter_ioctl" { print $1 }' thr.stat)
npr=$(awk -F, '$3 == "syscalls:sys_enter_prctl" { print $1 }' thr.stat)
nev=$((300 * ncpu))
if [ ! -s thr.stat ] || ! grep -q sys_enter_ioctl thr.stat; then
	skip "-p on 300 threads: events on and off at once" "perf stat cannot count syscalls:sys_enter_ioctl: $(head -2 thr.stat thr.err)"
elif [ $rc = 0 ] && [ -n "$nio" ] && [ "$nio" -lt $((3 * nev)) ] && [ "${npr:-0}" -ge 2 ] &&
     perf report --stats -i thr.data >/dev/null 2>&1; then
	# the threads sleep: no samples, which perf report (not --stats) refuses
	ok "-p on 300 threads ($nev events): $nio ioctl() calls, $npr prctl(): on and off at once"
else
	nok "-p on 300 threads: events on and off at once" \
		"exit $rc, $nio ioctl() for $nev events (want < $((3 * nev))), prctl $npr: $(cat thr.err)"
fi
rm -f thr.data thr.out thr.stat thr.err

# -a: the side-band records (a dummy event, as perf record -a's) start
# before the threads are read from /proc, so that a task that execs or
# maps while they are read is still named in the file; the sampled
# events start after.  Seen in the order of perf-ring's system calls:
# each dummy's PERF_EVENT_IOC_ENABLE before the first /proc/PID read.
for ow in "" --overwrite; do
	what="-a${ow:+ $ow}: the side-band on before /proc is read"
	if ! command -v strace >/dev/null; then
		skip "$what" "no strace (make deps installs it)"
		continue
	fi
	PERF_RING_SYNTH=proc strace -f -qq -o sb.trace -e trace=perf_event_open,ioctl,openat \
		"$PR" record -q -a $ow -e cpu-clock -o sb.data -- true 2>sb.err
	rc=$?
	# dummies opened, of them enabled, the line of the last first
	# enable, the line of the first /proc/PID read
	order=$(awk '
		/perf_event_open\(.*config=PERF_COUNT_SW_DUMMY.*comm=1/ { sub(/.*= /, ""); dummy[$0] = 1; nd++ }
		/ioctl\([0-9]+, PERF_EVENT_IOC_ENABLE/ {
			fd = $0; sub(/.*ioctl\(/, "", fd); sub(/,.*/, "", fd)
			if ((fd in dummy) && !(fd in on)) { on[fd] = NR; non++; last = NR }
		}
		/openat\(.*"\/proc\/[0-9]+\/(status|task|comm|stat|maps)"/ && !proc { proc = NR }
		END { print nd + 0, non + 0, last + 0, proc + 0 }' sb.trace)
	set -- $order
	if [ $rc = 0 ] && [ "$1" -gt 0 ] && [ "$2" = "$1" ] && [ "$4" -gt "$3" ]; then
		ok "$what ($1 dummies, each enabled by system call $3 of the trace, /proc/PID first read at $4)"
	else
		nok "$what" "exit $rc; $1 dummies, $2 enabled, the last at line $3, first /proc/PID at line $4" \
			"$(tail -2 sb.err)"
	fi
done
rm -f sb.trace sb.data sb.err

# 256 events with -a: as perf record accepts them (it adds its dummy as a
# 257th), the table's last slot is not taken by the dummy; the first
# event tracks then.
ev=$(for i in $(seq 256); do printf 'cpu-clock/period=%d/,' $((1000000 + i)); done)
"$PR" record -q -a -e "${ev%,}" -o e256.data -- sleep 0.1 2>e256.err
rc=$?
nev=$(perf evlist -i e256.data 2>/dev/null | grep -c cpu-clock)
if [ $rc = 0 ] && [ "$nev" = 256 ]; then
	ok "-a with 256 events: recorded, $nev events in the header"
else
	nok "-a with 256 events" "exit $rc, $nev events in the header: $(tail -2 e256.err)"
fi
rm -f e256.data e256.err
