#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-ring record as a drop-in for perf record: lifetimes, exit statuses,
# side-band while the events are off, pipe output, lost-sample accounting,
# being a good neighbour on the host, and snapshots of whole buffers
# (--snapshot-window=whole, as perf's --overwrite dump).  Each case runs perf record and
# perf-ring record on the same work, one after the other, and applies the
# same verdict to both: perf's result is what perf-ring must match (where
# perf itself fails the verdict, the case says so and is skipped).
# Prints TAP; exits non-zero on any failure.
#
# usage: e2e-dropin.sh SCRATCH_DIR   (PERF_RING, CLOSE_LOOP and CG_TREE
# name the binaries; DROPIN_STRESS_RUNS the -C 0 stress loop's runs,
# default 40, each bounded by 20 s)
#
# While another recorder on the host asks the kernel for build-ids, a
# kernel that leaks the MMAP2 build-id flag (the host's 6.18 does) marks
# perf's own MMAP2 records too: a perf-ring older than the leak probe, run
# by someone else at the same time, can make a perf side fail here.

set -u
W=${1:?scratch dir}
PR=${PERF_RING:?}
CL=${CLOSE_LOOP:?}
CG=${CG_TREE:?}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/tap.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (-a, -C, other users' processes)"
command -v perf >/dev/null || skip_all "perf is not installed (Debian: linux-perf)"
command -v python3 >/dev/null || skip_all "python3 runs the recorders and reads their exit status"

rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1

# run.py [-s SIG -d SECS] [-t LIMIT] -- CMD...: runs CMD, sends SIG after
# SECS, waits at most LIMIT s (default 30), and prints how it ended:
# "exit N", "signal N" (a death by that signal, as Python's -N), or
# "hang" (then it is killed).
cat >run.py <<'PY'
import os, signal, subprocess, sys, time
args = sys.argv[1:]
sig = delay = None
limit = 30.0
while args[0] != '--':
    if args[0] == '-s': sig = getattr(signal, 'SIG' + args[1]); args = args[2:]
    elif args[0] == '-d': delay = float(args[1]); args = args[2:]
    elif args[0] == '-t': limit = float(args[1]); args = args[2:]
    else: sys.exit('run.py: bad option ' + args[0])
p = subprocess.Popen(args[1:], stdin=subprocess.DEVNULL)
t0 = time.time()
if sig:
    time.sleep(delay)
    p.send_signal(sig)
try:
    rc = p.wait(timeout=limit - (time.time() - t0))
except subprocess.TimeoutExpired:
    p.kill(); p.wait()
    print('hang'); sys.exit(0)
print('signal %d' % -rc if rc < 0 else 'exit %d' % rc)
PY
run() { python3 run.py "$@" 2>/dev/null; }

# orphan.py LIFE [FILE]: a child that runs LIFE s and exits; its parent
# never reaps it (a zombie afterwards).  With FILE, its LIFE starts once
# FILE exists (the recorder's output: it is recording), so that a loaded
# machine's slow start does not outlive it.  Sets z to the child's pid
# and orphan_parent to the parent's.
cat >orphan.py <<'PY'
import os, sys, time
life = float(sys.argv[1])
p = os.fork()
if p == 0:
    t = time.time()
    while len(sys.argv) > 2 and not os.path.exists(sys.argv[2]) and time.time() - t < 30:
        time.sleep(0.01)
    t = time.time()
    while time.time() - t < life:
        pass
    os._exit(0)
print(p, flush=True)
time.sleep(60)
PY
orphan() {
	local i
	rm -f orphan.pid
	python3 orphan.py "$@" >orphan.pid &
	orphan_parent=$!
	for i in $(seq 200); do [ -s orphan.pid ] && break; sleep 0.05; done
	z=$(cat orphan.pid)
}

# named FILE: perf report names cg-tree's functions (leaf, mid, top)
named() {
	local s
	s=$(perf report -i "$1" --stdio --comm cg-tree --sort sym 2>/dev/null | grep -v '^#')
	echo "$s" | grep -q ' leaf$' && echo "$s" | grep -q ' mid$' && echo "$s" | grep -q ' top$'
}

# ---- 1. side-band while the events are off: -D MS, -D -1 + enable, -a -D

# dcase NAME OPTS...: both recorders with OPTS -- cg-tree 1; samples of
# cg-tree named by perf report
dcase() {
	local name=$1 p m
	shift
	perf record -q -B "$@" -e cpu-clock -o dp.data -- "$CG" 1 >/dev/null 2>dp.err
	"$PR" record -q "$@" -e cpu-clock -o dr.data -- "$CG" 1 >/dev/null 2>dr.err
	named dp.data && p=named || p=raw
	named dr.data && m=named || m=raw
	if [ $p = raw ]; then
		skip "$name: cg-tree's samples named" "perf's own are not: $(head -2 dp.err)"
	elif [ $m = named ]; then
		ok "$name: cg-tree's samples named (leaf, mid, top), as perf names them"
	else
		nok "$name: cg-tree's samples named, as perf names them" \
			"perf-ring's: $(perf report -i dr.data --stdio --comm cg-tree --sort dso,sym 2>&1 | grep -v '^#' | grep . | head -3)"
	fi
	rm -f dp.data* dr.data*
}
dcase "-D 100" -D 100
dcase "-a -D 100" -a -D 100

# -D -1, then "enable" on the control fifo 0.3 s after the start
rm -f c.fifo a.fifo
mkfifo c.fifo a.fifo
ctl_enable() {
	exec 8<>a.fifo
	( sleep 0.3; echo enable >c.fifo ) &
	"$@" >/dev/null 2>de.err
	wait
	exec 8<&-
}
ctl_enable perf record -q -B -D -1 --control fifo:c.fifo,a.fifo -e cpu-clock -o dp.data -- "$CG" 1
ctl_enable "$PR" record -q -D -1 --control fifo:c.fifo,a.fifo -e cpu-clock -o dr.data -- "$CG" 1
if ! named dp.data; then
	skip "-D -1, control enable: samples named" "perf's own are not"
elif named dr.data; then
	ok "-D -1, then a control 'enable': cg-tree's samples named, as perf names them"
else
	nok "-D -1, then a control 'enable': samples named" \
		"$(perf report -i dr.data --stdio --comm cg-tree --sort dso,sym 2>&1 | grep -v '^#' | grep . | head -3)"
fi
rm -f dp.data* dr.data*

# -D 50-150,250-350: cg-tree (0.45 s) sampled in two windows, in ms after
# its exec (its COMM).  The margins are wide: on a loaded host perf's own
# timers fire tens of ms late.  Verdict: no sample before 20 ms (the events
# start off), a hole of at least 50 ms (off between the windows) that starts
# between 100 and 260 ms, and samples on both sides of it.
cat >windows.py <<'PY'
import subprocess, sys
out = subprocess.run(['perf', 'script', '-i', sys.argv[1], '--show-task-events',
                      '-F', 'comm,tid,time,event'], capture_output=True, text=True).stdout
t0, ts = None, []
for l in out.splitlines():
    f = l.split()
    if 'PERF_RECORD_COMM' in l and 'exec' in l and 'cg-tree' in l:
        t0 = float(f[2].rstrip(':'))
    elif f and f[0] == 'cg-tree' and 'cpu-clock' in l and t0 is not None:
        ts.append((float(f[2].rstrip(':')) - t0) * 1000)
if not ts:
    sys.exit('no cg-tree samples after its exec')
holes = [(a, b) for a, b in zip(ts, ts[1:]) if b - a >= 50 and 100 <= a <= 260]
if ts[0] < 20 or not holes:
    sys.exit('%d samples, the first at %.0f ms, holes of 50 ms or more: %s' %
             (len(ts), ts[0], [(round(a), round(b)) for a, b in zip(ts, ts[1:]) if b - a >= 50]))
PY
perf record -q -B -D 50-150,250-350 -e cpu-clock -o dp.data -- "$CG" 0.45 >/dev/null 2>dp.err
"$PR" record -q -D 50-150,250-350 -e cpu-clock -o dr.data -- "$CG" 0.45 >/dev/null 2>dr.err
if ! pv=$(python3 windows.py dp.data 2>&1); then
	skip "-D 50-150,250-350: samples only in the windows" "perf's own are not: $pv"
elif mv=$(python3 windows.py dr.data 2>&1); then
	ok "-D 50-150,250-350: cg-tree's samples only in the two windows, as perf's"
else
	nok "-D 50-150,250-350: samples only in the windows, as perf's" "perf-ring's: $mv $(head -2 dr.err)"
fi
rm -f dp.data* dr.data*

# bad ranges: perf's usage error (129) for both
for r in 20-10 10-20,15-30 10-20,20-30 30-40,10-20 10-20,; do
	p=$(run -- perf record -q -D "$r" -e cpu-clock -o dp.data -- true)
	m=$(run -- "$PR" record -q -D "$r" -e cpu-clock -o dr.data -- true)
	if [ "$m" = "$p" ]; then
		ok "-D $r: refused, $m, as perf"
	else
		nok "-D $r: refused as perf" "perf: $p, perf-ring: $m"
	fi
done
rm -f dp.data* dr.data*

# ---- 2. lifetimes: -C 0 alone, -p of a process that exits, -p of a zombie

p=$(run -s INT -d 1 -t 20 -- perf record -q -B -C 0 -e cpu-clock -o cp.data)
m=$(run -s INT -d 1 -t 20 -- "$PR" record -q -C 0 -e cpu-clock -o cr.data)
cpus=$(perf script -i cr.data -F cpu 2>/dev/null | tr -d '[] ' | awk '{ print $1 + 0 }' | sort -u | paste -sd,)
if [ "$m" = "$p" ] && [ "$cpus" = 0 ]; then
	ok "-C 0 without a command: records CPU 0 until SIGINT, then ends: $m, as perf"
else
	nok "-C 0 without a command: records CPU 0 until SIGINT" "perf-ring: $m, CPUs '$cpus'; perf: $p"
fi
rm -f cp.data* cr.data*

# a process that runs 3 s and is never reaped by its parent
rm -f pp.data pr.data
orphan 2 pp.data
p=$(python3 run.py -t 40 -- perf record -q -B -e cpu-clock -o pp.data -p "$z" 2>pp.err)
kill $orphan_parent 2>/dev/null
orphan 2 pr.data
t0=$(date +%s%N)
m=$(python3 run.py -t 40 -- "$PR" record -q -e cpu-clock -o pr.data -p "$z" 2>pr.err)
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kill $orphan_parent 2>/dev/null
if [ "$m" = "$p" ] && perf report --stats -i pr.data >/dev/null 2>&1; then
	ok "-p PID that exits (and is not reaped): ends by itself after $ms ms, $m, as perf; the file reads"
else
	nok "-p PID that exits (and is not reaped): ends by itself" "perf-ring: $m after $ms ms: $(tail -2 pr.err)" \
		"perf: $p: $(tail -2 pp.err)"
fi
rm -f pp.data* pr.data* pp.err pr.err

# a zombie already: perf refuses (No such process), and so does perf-ring
orphan 0
sleep 0.3
p=$(run -t 10 -- perf record -q -B -e cpu-clock -o pp.data -p "$z")
m=$(run -t 10 -- "$PR" record -q -e cpu-clock -o pr.data -p "$z")
kill $orphan_parent 2>/dev/null
if [ "$m" != hang ] && [ "$m" != "exit 0" ] && [ "$m" = "$p" ]; then
	ok "-p of a zombie: ends at once with an error, $m as perf"
else
	nok "-p of a zombie: ends at once with perf's error status" "perf-ring: $m; perf: $p"
fi
rm -f pp.data* pr.data*

# ---- 3. no -o, standard output a pipe: perf's pipe format there, nothing else
perf record -q -B -e cpu-clock -- "$CL" 100000 2>/dev/null | cat >pp.out
"$PR" record -q -e cpu-clock -- "$CL" 100000 2>/dev/null | cat >pr.out
pm=$(head -c 8 pp.out) mm=$(head -c 8 pr.out)
if [ "$pm" = PERFILE2 ] && [ "$mm" = PERFILE2 ] && [ ! -e perf.data ] &&
   perf report -i - --stats <pr.out 2>/dev/null | grep -q 'SAMPLE events'; then
	ok "no -o, stdout a pipe: perf's pipe format on stdout and no perf.data, as perf; perf report -i - reads it"
else
	nok "no -o, stdout a pipe: pipe format on stdout" "perf-ring's first bytes '$mm', perf's '$pm'; perf.data: $(ls perf.data 2>&1)"
fi
rm -f pp.out pr.out perf.data perf.data.old

# ---- 4. exit statuses, as perf's (a death by signal is "signal N")
st_case() {
	local what=$1 p m
	shift
	p=$(run "${@//@R@/perf}")
	m=$(run "${@//@R@/$PR}")
	if [ "$m" = "$p" ]; then
		ok "exit status, $what: $m, as perf"
	else
		nok "exit status, $what: as perf" "perf-ring: $m; perf: $p"
	fi
	rm -f st.data*
}
st_case "-a stopped by SIGINT" -s INT -d 1 -- @R@ record -q -B -a -e cpu-clock -o st.data
st_case "-a stopped by SIGTERM" -s TERM -d 1 -- @R@ record -q -B -a -e cpu-clock -o st.data
st_case "SIGINT while it runs a command" -s INT -d 1 -- @R@ record -q -B -e cpu-clock -o st.data -- sleep 5
st_case "a command that does not exist" -- @R@ record -q -B -e cpu-clock -o st.data -- /nonexistent/cmd
st_case "a command killed by SIGSEGV" -- @R@ record -q -B -e cpu-clock -o st.data -- sh -c 'kill -SEGV $$'
st_case "a command that exits 3" -- @R@ record -q -B -e cpu-clock -o st.data -- sh -c 'exit 3'
# a setup that fails: perf's cmd_record() error & 0xff
st_case "a -p process that does not exist" -- @R@ record -q -B -e cpu-clock -o st.data -p 999999999
st_case "a -t thread that does not exist" -- @R@ record -q -B -e cpu-clock -o st.data -t 999999999
st_case "a -C CPU that does not exist" -- @R@ record -q -B -e cpu-clock -o st.data -C 1000 -- true
st_case "an output that cannot be created" -- @R@ record -q -B -e cpu-clock -o /nonexistent/st.data -- true
st_case "-b (no branch stacks here)" -- @R@ record -q -B -b -e cpu-clock -o st.data -- true
st_case "--aux-sample (no AUX area event)" -- @R@ record -q -B --aux-sample -e cpu-clock -o st.data -- true
st_case "a --control fifo that does not exist" -- @R@ record -q -B --control=fifo:/nonexistent/ctl -e cpu-clock -o st.data -- true

# ---- 5. --control with only enable and disable: the output keeps its name
rm -rf ctlname
mkdir ctlname
for r in perf "$PR"; do
	exec 8<>a.fifo
	( sleep 0.3; echo disable >c.fifo; sleep 0.2; echo enable >c.fifo ) &
	$r record -q -B --control fifo:c.fifo,a.fifo -e cpu-clock -o ctlname/$(basename "$r").data -- "$CG" 1 >/dev/null 2>&1
	wait
	exec 8<&-
done
names=$(cd ctlname && ls | paste -sd' ')
if [ "$names" = "perf-ring.data perf.data" ] || [ "$names" = "perf.data perf-ring.data" ]; then
	ok "--control with enable and disable only: -o FILE writes FILE, no stamped name, as perf"
else
	nok "--control with enable and disable only: -o FILE writes FILE" "files: $names"
fi
rm -rf ctlname

# ---- 6. heavy loss reaches perf report's "Total Lost Samples"
lost_of() { perf report -i "$1" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: //p'; }
perf record -q -B -m 1 -e 'raw_syscalls:*' -o lp.data -- "$CL" 200000 >/dev/null 2>&1
"$PR" record -r 0 -m 1 -e 'raw_syscalls:*' -o lr.data -- "$CL" 200000 2>lr.err >/dev/null
pl=$(lost_of lp.data) ml=$(lost_of lr.data)
said=$(sed -n 's/.* events, \([0-9]*\) lost.*/\1/p' lr.err)
if [ "${pl:-0}" = 0 ]; then
	skip "Total Lost Samples" "perf lost nothing with -m 1 here"
elif [ "${ml:-0}" -gt 0 ] && [ "$ml" = "$said" ]; then
	ok "heavy loss: perf report's Total Lost Samples $ml, what perf-ring's summary says (perf's own: $pl)"
elif [ "${said:-0}" = 0 ]; then
	skip "Total Lost Samples" "perf-ring lost nothing with -m 1 this time"
else
	nok "heavy loss: the lost count reaches perf report's Total Lost Samples" \
		"perf report: '$ml'; perf-ring's summary: '$said' lost; perf's file: $pl"
fi
rm -f lp.data* lr.data*

# ---- 7. a good neighbour: perf record beside perf-ring record -a, no -B
"$PR" record -q -a -e cpu-clock -o nb-ring.data -- sleep 4 2>nb-ring.err &
bg=$!
sleep 1.5
perf record -q -e cpu-clock -o nb-perf.data -- "$CL" 300000 >/dev/null 2>nb-perf.err
prc=$?
wait $bg
rrc=$?
perf report -i nb-perf.data --stdio >/dev/null 2>nb-rep.err
rep=$?
perf report -i nb-ring.data --stdio >/dev/null 2>nb-rep2.err
rep2=$?
if [ $prc = 0 ] && [ $rep = 0 ] && [ $rrc = 0 ] && [ $rep2 = 0 ] &&
   ! grep -qiE 'assert|smash|abort' nb-perf.err nb-rep.err nb-rep2.err; then
	ok "perf record beside perf-ring record -a (no -B): both end with 0, both files read by perf report"
else
	nok "perf record beside perf-ring record -a (no -B): both files readable" \
		"perf: exit $prc, report $rep: $(head -2 nb-perf.err nb-rep.err)" \
		"perf-ring: exit $rrc, report $rep2: $(head -2 nb-ring.err nb-rep2.err)"
fi
rm -f nb-*.data* nb-*.err

# the other way round: a recorder that asks for build-ids on a kernel that
# leaks the flag (forced here: a perf-ring told there is no leak) must not
# make perf-ring's own file unreadable: perf-ring drops the leaked flag
if "$PR" record -v -o nb-probe.data -- true 2>&1 | grep -q 'this kernel flags other events'; then
	PERF_RING_BIDLEAK=0 "$PR" record -q -a -e cpu-clock -o nb-asker.data -- sleep 4 2>/dev/null &
	bg=$!
	sleep 1.5
	"$PR" record -q -e cpu-clock -o nb-mine.data -- "$CG" 1 2>nb-mine.err
	wait $bg
	if named nb-mine.data; then
		ok "beside a recorder that asks for build-ids on this leaking kernel: perf-ring's file reads, cg-tree named"
	else
		nok "beside a recorder that asks for build-ids: perf-ring's file reads" \
			"$(perf report -i nb-mine.data --stdio --comm cg-tree --sort sym 2>&1 | grep -v '^#' | grep . | head -3)"
	fi
else
	skip "beside a recorder that asks for build-ids" "perf-ring -v names no MMAP2 build-id flag leak (the kernel does not leak, or this perf-ring has no probe)"
fi
rm -f nb-*.data* nb-*.err

# ---- 8. nothing left behind: sysctls, mounts, the command's limits
host_state() {
	local f
	for f in perf_event_paranoid kptr_restrict perf_event_mlock_kb perf_event_max_sample_rate \
		 perf_event_max_stack perf_event_max_contexts_per_stack perf_cpu_time_max_percent; do
		echo "$f=$(cat /proc/sys/kernel/$f 2>/dev/null)"
	done
	grep -E ' (tracefs|debugfs) ' /proc/mounts | sort
}
host_state >hs.before
"$PR" record -q -e 'raw_syscalls:*' -o hs.data -- "$CL" 10000 2>/dev/null
"$PR" record -q -a -e 'sched:sched_switch' -o hs.data -- sleep 0.5 2>/dev/null
"$PR" record -q --overwrite -a -e cpu-clock -o hs.data -- sleep 0.5 2>/dev/null
"$PR" record -q -a -e 'raw_syscalls:*' -o hk.data 2>/dev/null &
k=$!
sleep 1
kill -KILL $k
wait $k 2>/dev/null
host_state >hs.after
if diff hs.before hs.after >hs.diff; then
	ok "host state unchanged after recordings, one of them killed by SIGKILL ($(wc -l <hs.before) sysctls and mounts)"
else
	nok "host state unchanged after recordings" "$(head -5 hs.diff)"
fi
# the command's resource limits are the caller's
sh -c 'cat /proc/self/limits' >lim.plain
"$PR" record -q -e cpu-clock -o hs.data -- sh -c 'cat /proc/self/limits' >lim.ring 2>/dev/null
if diff lim.plain lim.ring >lim.diff; then
	ok "the command's resource limits under perf-ring are the caller's"
else
	nok "the command's resource limits under perf-ring are the caller's" "$(head -6 lim.diff)"
fi
rm -f hs.* hk.data* lim.*

# ---- 9. synthesis and the clock, as perf: --synth kinds, --all-cgroups,
# --namespaces, --tail-synthesize, -k (each beside perf on the same host)
# synthesized records are the ones at time 0: "TYPE=COUNT ..." (perf's COMM
# of its forked command before the exec, "perf-exec", is not synthesis)
synth_counts() {
	perf script -i "$1" --show-task-events --show-mmap-events --show-namespace-events \
		--show-cgroup-events 2>/dev/null |
		grep -v ' PERF_RECORD_COMM: perf-exec:' |
		sed -nE 's/.* 0\.000000: PERF_RECORD_([A-Z0-9]+).*/\1/p' | sort | uniq -c |
		awk '{ printf "%s=%s ", $2, $1 }'
}
synth_n() { echo "$1" | grep -oE "(^| )$2=[0-9]+" | cut -d= -f2; }
for kind in task mmap no; do
	rm -f sy.data
	perf record -q -B -a --synth=$kind -e cpu-clock -o sy.data -- true 2>/dev/null
	pc=$(synth_counts sy.data)
	rm -f sy.data
	"$PR" record -q -B -a --synth=$kind -e cpu-clock -o sy.data -- true 2>sy.err
	mc=$(synth_counts sy.data)
	# task: COMM and FORK, no MMAP2; mmap: MMAP2 too; no: none of them
	v=ok
	for c in "$pc" "$mc"; do
		comm=$(synth_n "$c" COMM) mm=$(synth_n "$c" MMAP2)
		case $kind in
		task) [ "${comm:-0}" -gt 0 ] && [ -z "$mm" ] || v=bad ;;
		mmap) [ "${comm:-0}" -gt 0 ] && [ "${mm:-0}" -gt 0 ] || v=bad ;;
		no) [ -z "$comm" ] && [ -z "$mm" ] || v=bad ;;
		esac
	done
	if [ $v = ok ]; then
		ok "--synth=$kind -a: the synthesized records of perf's kind (perf-ring: $mc; perf: $pc)"
	else
		nok "--synth=$kind -a: the synthesized records of perf's kind" "perf-ring: $mc" "perf: $pc" "$(tail -2 sy.err)"
	fi
done
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$cg2" ] && mkdir "$cg2/perf-ring-e2e.$$" 2>/dev/null; then
	mkdir "$cg2/perf-ring-e2e.$$/sub"
	for w in perf "$PR"; do
		rm -f acg.data
		"$w" record -q -B -a --all-cgroups -e cpu-clock -o acg.data -- true 2>/dev/null
		perf script -i acg.data --show-cgroup-events 2>/dev/null |
			sed -nE 's/.*PERF_RECORD_CGROUP cgroup: ([0-9]+ .*perf-ring-e2e.*)/\1/p' | sort >acg.$(basename "$w")
	done
	rmdir "$cg2/perf-ring-e2e.$$/sub" "$cg2/perf-ring-e2e.$$"
	if [ "$(wc -l <acg.perf)" = 2 ] && cmp -s acg.perf "acg.$(basename "$PR")"; then
		ok "--all-cgroups -a: the CGROUP records of existing cgroups, as perf's ($(tr '\n' ' ' <acg.perf))"
	else
		nok "--all-cgroups -a: the CGROUP records of existing cgroups, as perf's" \
			"perf-ring: $(tr '\n' ' ' <"acg.$(basename "$PR")")" "perf: $(tr '\n' ' ' <acg.perf)"
	fi
else
	skip "--all-cgroups: CGROUP records of existing cgroups" "no cgroup2 mount to make a cgroup in"
fi
# the namespaces of this shell, as both synthesize them
for w in perf "$PR"; do
	rm -f ns.data
	"$w" record -q -B -a --namespaces -e cpu-clock -o ns.data -- true 2>/dev/null
	perf script -i ns.data --show-namespace-events 2>/dev/null |
		grep -A2 " 0.000000: PERF_RECORD_NAMESPACES $$/$$ " | sed -E 's/^ *[^ ]+ +//' >ns.$(basename "$w")
done
if [ "$(grep -c 'uts: ' ns.perf)" = 1 ] && cmp -s ns.perf "ns.$(basename "$PR")"; then
	ok "--namespaces -a: this shell's NAMESPACES record as perf's ($(grep -o 'mnt: [^,]*' ns.perf))"
else
	nok "--namespaces -a: this shell's NAMESPACES record as perf's" "perf-ring: $(cat "ns.$(basename "$PR")")" "perf: $(cat ns.perf)"
fi
# --tail-synthesize: the synthesized COMM records come after the samples in the file
# the lowest file offset of the records perf script -D prints that match
first_off() {
	perf script -i "$1" -D 2>/dev/null | grep -E "$2" | grep -v ' PERF_RECORD_COMM: perf-exec:' |
		awk '{ print $3 }' | while read -r o; do echo $((o)); done | sort -n | head -1
}
tail_v=
for w in perf "$PR"; do
	rm -f ts.data
	"$w" record -q -B -a --tail-synthesize -e cpu-clock -o ts.data -- "$CL" 200000 2>/dev/null
	s0=$(first_off ts.data ': PERF_RECORD_SAMPLE')
	c0=$(first_off ts.data '^[0-9]+ 0 0x[0-9a-f]+ .*: PERF_RECORD_COMM')
	tail_v="$tail_v $(basename "$w"): first sample at ${s0:-none}, first synthesized COMM at ${c0:-none};"
	[ -n "$s0" ] && [ -n "$c0" ] && [ "$c0" -gt "$s0" ] || tail_v="$tail_v BAD"
done
case $tail_v in
*BAD*) nok "--tail-synthesize -a: the synthesized records after the samples, as perf" "$tail_v" ;;
*) ok "--tail-synthesize -a: the synthesized records after the samples, as perf ($tail_v)" ;;
esac
# -k: HEADER_CLOCKID and HEADER_CLOCK_DATA; perf script -F tod reads the reference time
kv=
for w in perf "$PR"; do
	rm -f k.data
	"$w" record -q -B -k mono -e cpu-clock -o k.data -- "$CL" 100000 2>/dev/null
	h=$(perf report -i k.data --header-only 2>/dev/null)
	tod=$(perf script -i k.data -F tod,time 2>/dev/null | head -1)
	echo "$h" | grep -q '^# clockid: monotonic (1)' && echo "$h" | grep -q '^# clockid frequency: ' &&
		echo "$h" | grep -q '^# reference time: .*(TOD) = .*(monotonic)' &&
		echo "$tod" | grep -qE "^ *$(date +%Y)-[0-9]{2}-[0-9]{2} " || kv="$kv $(basename "$w"): '$tod' $(echo "$h" | grep -i clock | tr '\n' ' ');"
done
if [ -z "$kv" ]; then
	ok "-k mono: HEADER_CLOCKID and CLOCK_DATA as perf's, perf script -F tod shows the time of day"
else
	nok "-k mono: HEADER_CLOCKID and CLOCK_DATA as perf's" "$kv"
fi
rm -f sy.data acg.data ns.data ts.data k.data

# ---- 10. -C 0 -- taskset -c 0 CMD, many short runs: each ends with its command
runs=${DROPIN_STRESS_RUNS:-40}
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
	hung=0 bad=
	t0=$(date +%s)
	for i in $(seq "$runs"); do
		timeout -k 2 20 "$PR" record -q -C 0 -e cpu-clock -o sc.data -- taskset -c 0 "$CL" 2000 2>/dev/null
		m=$?
		if [ $m != 0 ]; then
			hung=$((hung + 1))
			bad="$bad run $i: exit $m (124, 137: did not end);"
		fi
	done
	if [ $hung = 0 ]; then
		ok "-C 0 -- taskset -c 0 CMD: $runs runs, each ended with its command ($(( $(date +%s) - t0 )) s)"
	else
		nok "-C 0 -- taskset -c 0 CMD: each run ends with its command" "$hung of $runs did not:$bad"
	fi
	rm -f sc.data*
else
	skip "-C 0 -- taskset -c 0 CMD stress" "no taskset, or CPU 0 not usable"
fi

# ---- 11. --snapshot-window=whole: each buffer whole, as perf's --overwrite
# dump, with the common window's start marked.  CPU 0 is busy with
# syscalls and its buffer wraps first: the other CPUs' older records are
# kept here, and cut from the default (common) snapshot of the same work.
sw_ev="-e raw_syscalls:sys_enter -e cpu-clock/period=100000/"
if [ "$(nproc)" -lt 2 ] || ! taskset -c 0 true 2>/dev/null; then
	skip "--snapshot-window=whole" "one CPU (or no taskset): whole buffers are the common window"
else
	for w in common whole; do
		# shellcheck disable=SC2086
		"$PR" record -q -B -a --overwrite --snapshot-window=$w -m 16 $sw_ev -o sw-$w.data \
			-- taskset -c 0 "$CL" 300000 2>sw-$w.err
		echo $? >sw-$w.rc
	done
	nc=$(perf script -i sw-common.data -F cpu,time,event 2>/dev/null | grep -c .)
	nw=$(perf script -i sw-whole.data -F cpu,time,event 2>sw-ps.err | grep -c .)
	perf report -i sw-whole.data --stdio >sw-pr.out 2>&1
	prc=$?
	mark=$("$PR" report -i sw-whole.data 2>&1 |
		sed -n 's/.*common window (no gap on any CPU) starts at \([0-9]*\.[0-9]*\) (perf report --time .*/\1/p')
	if [ "$(cat sw-common.rc sw-whole.rc)" != "$(printf '0\n0')" ]; then
		nok "--snapshot-window=whole: the recordings end well" \
			"exit $(cat sw-common.rc) common, $(cat sw-whole.rc) whole: $(tail -2 sw-whole.err)"
	elif [ $prc != 0 ] || [ "$nw" = 0 ] || ! grep -q '^# Samples: ' sw-pr.out; then
		nok "--snapshot-window=whole: perf report and perf script read the file" \
			"perf report exit $prc, $nw samples: $(head -2 sw-ps.err) $(grep -m2 -i error sw-pr.out)"
	elif [ -z "$mark" ]; then
		nok "--snapshot-window=whole: perf-ring report gives the common window's start" \
			"$("$PR" report -i sw-whole.data 2>&1 | head -8 | tr '\n' ' ')"
	else
		# perf script prints microseconds: before = older than the mark's microsecond
		m_us=${mark%???}
		nb=$(perf script -i sw-whole.data -F time 2>/dev/null | tr -d ' :' |
			awk -v m="$m_us" '$1 + 0 < m + 0' | grep -c .)
		na=$(perf script -i sw-whole.data -F time --time "$mark," 2>/dev/null | grep -c .)
		if [ "$nw" -gt "$nc" ] && [ "$nb" -gt 0 ] && [ "$na" -gt 0 ] &&
		   [ $((nb + na)) -le "$nw" ]; then
			ok "--snapshot-window=whole: perf reads it; $nw samples against $nc in the common window's snapshot, $nb of them before the mark ($mark), $na from it (perf script --time $mark,)"
		else
			nok "--snapshot-window=whole: more samples than the common window, the mark inside" \
				"whole $nw, common $nc, before the mark $nb, from it $na (mark $mark)"
		fi
	fi
fi
"$PR" record -q --snapshot-window=whole -e cpu-clock -o sw-x.data -- true 2>/dev/null
rc=$?
[ $rc = 129 ] && ok "--snapshot-window=whole without --overwrite: a usage error (129)" ||
	nok "--snapshot-window=whole without --overwrite: a usage error (129)" "exit $rc"
rm -f sw-*.data* sw-*.err sw-*.rc sw-*.out

echo "1..$N"
if [ "$FAIL" = 0 ]; then cd / && rm -rf "$W"; else echo "# $FAIL of $N failed; files in $W"; fi
exit $((FAIL != 0))
