# SPDX-License-Identifier: GPL-2.0
#
# perf record's options (sourced by e2e.sh: its helpers and variables are
# used here).  The walk: every option perf record -h lists (perf 6.1), in
# its short and long spelling, given to perf-ring record: none may be
# "unknown" (perf-ring accepts it, or refuses it with perf's words and the
# reason).  Then the attributes some of them set, as perf evlist shows
# them, and the manual's table against the parser's.

if ! perf record -h >ph.out 2>&1; [ "$(grep -c '^ *-' ph.out)" -lt 50 ]; then
	skip "the option walk" "perf record -h lists no options"
else
	# "-x, --long <arg>" / "--long[=<arg>]": the spellings and whether a value follows
	walk_bad= walk_n=0
	while read -r line; do
		short=$(echo "$line" | sed -nE 's/^-([a-zA-Z0-9]),? .*/\1/p; s/^-([a-zA-Z0-9])$/\1/p')
		long=$(echo "$line" | grep -oE -- '--[a-z][a-z0-9-]*' | head -1)
		val=
		echo "$line" | grep -qE -- '^(-[a-zA-Z], )?--[a-z0-9-]+ <' && val=req
		echo "$line" | grep -qE -- '^-[a-zA-Z], --[a-z0-9-]+ <|^-[a-zA-Z] <' && val=req
		for spell in ${short:+-$short} $long; do
			walk_n=$((walk_n + 1))
			if [ -n "$val" ]; then
				"$PR" record "$spell" 1 --dry-run -o walk.data -- true >walk.out 2>walk.err
			else
				"$PR" record "$spell" --dry-run -o walk.data -- true >walk.out 2>walk.err
			fi
			rc=$?
			if grep -qiE "unknown (option|switch)|Ambiguous" walk.err || [ $rc = 139 ] || [ $rc = 134 ]; then
				walk_bad="$walk_bad $spell(exit $rc: $(head -1 walk.err))"
			fi
		done
	done < <(sed -nE 's/^( {4}| {8})(-[a-zA-Z0-9](, --[a-z][a-z0-9-]*)?|--[a-z][a-z0-9-]*)(.*)$/\2\4/p' ph.out |
		 sed -E 's/  +.*//')
	nopt=$(grep -cE '^( {4}| {8})-' ph.out)
	nshort=$(grep -cE '^ {4}-[a-zA-Z0-9]' ph.out)
	if [ -z "$walk_bad" ] && [ "$walk_n" = $((nopt + nshort - $(grep -cE '^ {4}-[a-zA-Z0-9]( |$)' ph.out))) ]; then
		ok "the option walk: $walk_n spellings of perf record -h's $nopt options, none unknown"
	else
		nok "the option walk: no perf record option is unknown ($walk_n spellings)" "$walk_bad"
	fi
fi
expect_fail "an unknown option: perf's usage exit" 129 "unknown option \`bogus'" \
	"$PR" record --bogus -o x.data -- true
expect_fail "--timestam is ambiguous, as in perf" 129 "Ambiguous option: timestam" \
	"$PR" record --timestam -o x.data -- true
expect_fail "-b refused with perf's words and the reason" 255 \
	"doesn't support branch stack sampling" "$PR" record -b -o x.data -- true

# the attributes perf's options set, as perf evlist -v shows them
rm -f attr.data
"$PR" record -e cpu-clock -T -d -P -W --sample-identifier --switch-events --namespaces -k mono \
	--user-regs=AX,BX -o attr.data -- "$CL" 1000 2>attr.err
rc=$?
ev=$(perf evlist -v -i attr.data 2>&1)
st=$(echo "$ev" | grep -o 'sample_type: [A-Z_|]*' | head -1)
miss=
for b in TIME ADDR PERIOD WEIGHT IDENTIFIER DATA_SRC REGS_USER; do
	echo "$st" | grep -qw "$b" || miss="$miss $b"
done
for f in 'context_switch: 1' 'namespaces: 1' 'use_clockid: 1' 'clockid: 1' 'sample_regs_user: 0x3'; do
	echo "$ev" | grep -q "$f" || miss="$miss '$f'"
done
if [ $rc = 0 ] && [ -z "$miss" ] && perf report -i attr.data --stdio >/dev/null 2>&1; then
	ok "-T -d -P -W --sample-identifier --switch-events --namespaces -k mono --user-regs: in the attributes, perf report reads the file"
else
	nok "attributes of perf's options" "exit $rc, missing:$miss" "$st" "$(head -3 attr.err)"
fi
rm -f attr.data
"$PR" record -e cpu-clock -m 3 -o attr.data -- "$CL" 1000 2>attr.err
rc=$?
if [ $rc = 0 ] && grep -q 'rounding mmap pages size to 16K (4 pages)' attr.err; then
	ok "-m 3: rounded up to 4 pages, said as perf says it"
else
	nok "-m 3: rounded up to 4 pages" "exit $rc: $(head -3 attr.err)"
fi

# --per-thread: a buffer per thread (cpu -1, no inherit), beside perf
# record --per-thread on the same work.  A python3 process whose main
# thread and three more spin until a file exists (or for at most SECONDS):
# -p records it from the start of both recorders (its threads exist by
# then) to its exit; a command is recorded without the threads it starts,
# as perf does (no inherit)
cat >pt.py <<'PY'
import os, sys, threading, time
def spin(stop, most):
    t = time.time()
    while time.time() - t < most and not os.path.exists(stop):
        pass
stop, most = sys.argv[1], float(sys.argv[2])
ts = [threading.Thread(target=spin, args=(stop, most)) for _ in range(3)]
for t in ts:
    t.start()
spin(stop, most)
for t in ts:
    t.join()
PY
# the threads with at least 20 samples, by tid
pt_busy() { perf script -i "$1" -F tid 2>/dev/null | tr -d ' ' | sort | uniq -c | awk '$1 >= 20 { print $2 }' | sort -n | paste -sd, ; }
pt_reads() { perf report --stats -i "$1" >/dev/null 2>"$1.stats" && ! grep -qiE 'warn|error|fail' "$1.stats"; }
rm -f pt.stop
python3 pt.py pt.stop 60 &
py=$!
for i in $(seq 100); do
	[ "$(ls /proc/$py/task 2>/dev/null | wc -l)" -ge 4 ] && break
	sleep 0.1
done
rm -f pt.data pt-perf.data
timeout 90 perf record -q --per-thread -p $py -e cpu-clock -o pt-perf.data 2>pt-perf.err &
perfpid=$!
timeout 90 "$PR" record -q -B --per-thread -p $py -e cpu-clock -o pt.data 2>pt.err &
prpid=$!
# once both write samples (perf fails with ESRCH if the process exits
# while it starts), the process ends, and both recorders with it
for i in $(seq 300); do
	[ "$(stat -c %s pt.data 2>/dev/null || echo 0)" -gt 16384 ] &&
		[ "$(stat -c %s pt-perf.data 2>/dev/null || echo 0)" -gt 16384 ] && break
	sleep 0.1
done
touch pt.stop
wait $prpid
rc=$?
wait $perfpid
prc=$?
wait $py 2>/dev/null
a=$(pt_busy pt.data) b=$(pt_busy pt-perf.data)
inh=$(perf evlist -v -i pt.data 2>/dev/null | grep -c 'inherit: 1')
if [ $rc = 0 ] && [ $prc = 0 ] && [ -n "$a" ] && [ "$a" = "$b" ] &&
   [ "$(echo "$a" | tr , '\n' | wc -l)" = 4 ] && [ "$inh" = 0 ] && pt_reads pt.data &&
   pt_reads pt-perf.data; then
	ok "--per-thread -p PID: the threads $a sampled, as by perf record --per-thread beside it; no inherit; perf reads both files"
else
	nok "--per-thread -p PID beside perf record --per-thread" \
		"exit $rc (perf $prc), threads: perf-ring '$a', perf '$b', inherit set on $inh events" \
		"$(head -2 pt.err pt-perf.err pt.data.stats 2>/dev/null)"
fi
rm -f pt.data pt-perf.data
timeout 60 perf record -q --per-thread -e cpu-clock -o pt-perf.data -- python3 pt.py pt.none 1 2>pt-perf.err
prc=$?
timeout 60 "$PR" record -q -B --per-thread -e cpu-clock -o pt.data -- python3 pt.py pt.none 1 2>pt.err
rc=$?
a=$(pt_busy pt.data) b=$(pt_busy pt-perf.data)
if [ $rc = 0 ] && [ $prc = 0 ] && [ -n "$a" ] && [ "$(echo "$a" | tr , '\n' | wc -l)" = 1 ] &&
   [ "$(echo "$b" | tr , '\n' | wc -l)" = 1 ] && pt_reads pt.data && pt_reads pt-perf.data; then
	ok "--per-thread -- CMD: the command's main thread only (no inherit), as perf record --per-thread; perf reads both files"
else
	nok "--per-thread -- CMD beside perf record --per-thread" \
		"exit $rc (perf $prc), threads: perf-ring '$a', perf '$b'" "$(head -2 pt.err pt-perf.err 2>/dev/null)"
fi
rm -f pt.data pt-perf.data pt.py pt.stop
# --per-thread with -a: perf warns and records per CPU (target__validate())
timeout 60 perf record --per-thread -a -e cpu-clock -o pta-perf.data -- sleep 0.3 2>pta-perf.err
prc=$?
timeout 60 "$PR" record -B --per-thread -a -e cpu-clock -o pta.data -- sleep 0.3 2>pta.err
rc=$?
a=$(perf script -i pta.data -F cpu 2>/dev/null | grep -c .)
if [ $rc = $prc ] && [ $rc = 0 ] && grep -q 'SYSTEM/CPU switch overriding PER-THREAD' pta.err &&
		grep -q 'SYSTEM/CPU switch overriding PER-THREAD' pta-perf.err && [ "$a" -gt 0 ]; then
	ok "--per-thread -a: perf's warning, exit 0 as perf, $a samples per CPU that perf reads"
else
	nok "--per-thread -a: perf's warning and a CPU-wide recording" \
		"exit $rc (perf $prc), $a samples" "$(head -3 pta.err pta-perf.err 2>/dev/null)"
fi
rm -f pta.data pta-perf.data pta.err pta-perf.err

# the manual's table against the parser's
if out=$(PERF_RING="$PR" "$HERE/../../../scripts/perf_ring/record-options.py" \
		--check "$HERE/../../../Documentation/admin-guide/perf-ring-record.rst" 2>&1); then
	ok "the manual's option table matches the parser's: $(echo "$out" | tail -1)"
else
	nok "the manual's option table matches the parser's" "$(echo "$out" | head -5)"
fi

# execd PID...: wait (2 s at most) until each process runs close-loop, so
# that what these cases check is the cgroup filter alone (an exec while
# perf-ring starts is its -a dummy's to record: e2e-targets checks that)
execd() {
	local p n
	for _ in $(seq 100); do
		n=0
		for p; do
			[ "$(cat /proc/$p/comm 2>/dev/null)" = close-loop ] && n=$((n + 1))
		done
		[ $n = $# ] && return 0
		sleep 0.02
	done
}

# -G: only the tasks of the cgroup, beside the same work outside it
cgmnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$cgmnt" ] || ! mkdir -p "$cgmnt/perf-ring-e2e-$$" 2>/dev/null; then
	skip "-G CGROUP" "no cgroup2 mount to make a cgroup in"
else
	cg=perf-ring-e2e-$$
	(echo "$BASHPID" >"$cgmnt/$cg/cgroup.procs" && exec "$CL" 20000000) & inpid=$!
	"$CL" 20000000 & outpid=$!
	execd $inpid $outpid
	rm -f cg.data
	"$PR" record -e cpu-clock -a -G "$cg" -o cg.data -- sleep 1 2>cg.err
	rc=$?
	# the loops run for seconds more than the recording: ended, not waited for
	kill $inpid $outpid 2>/dev/null
	wait $inpid $outpid 2>/dev/null
	rmdir "$cgmnt/$cg"
	pids=$(perf report -i cg.data --stdio --sort pid 2>/dev/null | grep -oE '[0-9]+:close-loop' | cut -d: -f1 | sort -u | tr '\n' ' ')
	if [ $rc = 0 ] && [ "$pids" = "$inpid " ]; then
		ok "-a -G CGROUP: samples of the close-loop in the cgroup ($inpid) only, not of the one beside it"
	else
		nok "-a -G CGROUP: only the cgroup's tasks" "exit $rc, close-loop pids '$pids' (in: $inpid, out: $outpid): $(head -2 cg.err)"
	fi
fi

# -G A,B with two events: as perf's parse_cgroups(), cpu-clock counts in A
# only and task-clock in B only; a third close-loop, outside, in neither
if [ -z "$cgmnt" ] || ! mkdir -p "$cgmnt/perf-ring-e2e-a-$$" "$cgmnt/perf-ring-e2e-b-$$" 2>/dev/null; then
	skip "-G A,B for two events" "no cgroup2 mount to make cgroups in"
else
	ca=perf-ring-e2e-a-$$ cb=perf-ring-e2e-b-$$
	(echo "$BASHPID" >"$cgmnt/$ca/cgroup.procs" && exec "$CL" 20000000) & apid=$!
	(echo "$BASHPID" >"$cgmnt/$cb/cgroup.procs" && exec "$CL" 20000000) & bpid=$!
	"$CL" 20000000 & outpid=$!
	execd $apid $bpid $outpid
	rm -f cg2.data
	"$PR" record -e cpu-clock -e task-clock -a -G "$ca,$cb" -o cg2.data -- sleep 1 2>cg2.err
	rc=$?
	kill $apid $bpid $outpid 2>/dev/null
	wait $apid $bpid $outpid 2>/dev/null
	rmdir "$cgmnt/$ca" "$cgmnt/$cb"
	got=$(perf script -i cg2.data -F comm,pid,event 2>/dev/null | awk '$1 == "close-loop" { print $2 ":" $3 }' |
	      sort -u | tr '\n' ' ')
	if [ $rc = 0 ] && [ "$got" = "$apid:cpu-clock: $bpid:task-clock: " ]; then
		ok "-a -G A,B: cpu-clock in A's close-loop ($apid) only, task-clock in B's ($bpid) only"
	else
		nok "-a -G A,B: an event per cgroup" "exit $rc, close-loop pid:event '$got' (A: $apid, B: $bpid, out: $outpid): $(head -2 cg2.err)"
	fi
fi

# --max-size: stops at the size and the command with it, as perf does
rm -f ms.data
"$PR" record -e cpu-clock -F 20000 --max-size=200K -o ms.data -- "$CL" 200000000 2>ms.err
rc=$?
sz=$(stat -c %s ms.data 2>/dev/null || echo 0)
if [ $rc = 143 ] && grep -q 'perf size limit reached' ms.err && [ "$sz" -ge 204800 ] &&
   [ "$sz" -lt 2097152 ] && perf report -i ms.data --stats >/dev/null 2>&1; then
	ok "--max-size=200K: stopped at $sz bytes, the command with SIGTERM (exit 143, as perf), perf reads the file"
else
	nok "--max-size=200K" "exit $rc, $sz bytes: $(head -3 ms.err)"
fi
