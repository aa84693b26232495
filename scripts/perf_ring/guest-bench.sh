#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (QEMU -icount, one vCPU). perf_ring.bench= on the
# kernel command line picks the part:
#   ring (default)  ring_cost in every mode, base first; the host reads the
#                   "ring_cost" lines from the console;
#   recorders       perf record against perf-ring record (needs the
#                   initramfs with perf, GUEST_PERF=1): "rec" lines, then
#                   the cpu-clock profile of perf-ring between PROFILE marks;
#   perfcheck       perf record, perf report --stats and perf script work;
#   rate            the event-rate dimension of the scale benchmark
#                   (guest-rate.sh, make qemu-bench PART=rate);
#   zlong           -z1 of both tools over a long run (guest-rate.sh,
#                   make qemu-bench PART=zlong);
#   scale           the recorders with -a on every vCPU (make qemu-bench
#                   PART=scale, booted with -smp N);
#   snapprof        where perf-ring's snapshot spends its instructions
#                   (make qemu-bench PART=snapprof, -smp N);
#   threads         the recorders' start-up against the threads that
#                   exist (make qemu-bench PART=threads);
#   snapline        perf-ring's snapshot against its bytes, 20 a run
#                   (make qemu-bench PART=snapline, -smp N);
#   boot            nothing: the boot's own cost at -smp N.
calls=${PERF_RING_BENCH_CALLS:-200000}
part=ring
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	perf_ring.calls=*) calls=${arg#perf_ring.calls=} ;;
	perf_ring.bench=*) part=${arg#perf_ring.bench=} ;;
	perf_ring.snapm=*) snapm=${arg#perf_ring.snapm=} ;;
	perf_ring.snapm_list=*) snapm_list=$(echo "${arg#perf_ring.snapm_list=}" | tr , ' ') ;;
	perf_ring.threads=*) thread_counts=$(echo "${arg#perf_ring.threads=}" | tr , ' ') ;;
	esac
done

# Scratch files: a tmpfs of their own (the recorders write their output
# there, as they would to /tmp).
W=/bench/work
mkdir -p "$W" && mount -t tmpfs tmpfs "$W"

# rec_timed and rec_counts: /lib/perf-ring-guest-lib.sh (guest-lib.sh)
. /lib/perf-ring-guest-lib.sh

# need_perf WHAT: whether perf is in the initramfs (GUEST_PERF=1); if not,
# "WHAT: no perf ..." on the console, for the part's parser.
need_perf() {
	[ -x /usr/bin/perf ] && return 0
	echo "$1: no perf in the initramfs (GUEST_PERF=1)"
	return 1
}

# perfcheck: perf's three commands on this kernel, one "perfcheck" line.
perfcheck() {
	need_perf "perfcheck skipped" || return
	cd "$W" || return
	perf record -q -e 'raw_syscalls:*' -o $W/check.data -- close-loop 1000 >$W/check.out 2>&1
	r=$?
	perf report --stats -i $W/check.data >$W/check.stats 2>&1
	s=$?
	n=$(awk '/Aggregated stats/ { a = 1 } a && /SAMPLE events:/ { print $3; exit }' $W/check.stats)
	perf script -i $W/check.data >$W/check.script 2>&1
	c=$?
	lines=$(grep -c 'raw_syscalls:sys_e' $W/check.script)
	echo "perfcheck $(perf --version | tr ' ' _) record=$r stats=$s samples=${n:-0} script=$c script_lines=$lines"
	[ "$r$s$c" = 000 ] || { sed 's/^/# /' $W/check.out $W/check.stats | tail -20; }
	rm -f $W/check.*
}

# rec TOOL MODE FILE [-f PAGES] -- CMD...: one timed run (bench/rec_run.c),
# then the records kept and lost in FILE, as read by perf-ring report.
rec() {
	tool=$1 mode=$2 file=$3
	shift 3
	rm -f "$file"
	rec_timed "$@"
	echo "rec tool=$tool mode=$mode $rec_line $(rec_counts "$file")"
}

recorders() {
	need_perf "rec skipped" || return
	# Nothing random: the same instructions on every boot.
	echo 0 > /proc/sys/kernel/randomize_va_space
	cd "$W" || return
	pages=128
	ev='raw_syscalls:*'
	varied_ev='raw_syscalls:*,sched:sched_switch,sched:sched_wakeup'
	o=$W/rec.data
	perf_rec="perf record -q -m $pages -o $o"
	ring_rec="perf-ring record -q -m $pages -o $o"
	echo "# recorders: $calls close(-1), $pages pages, $(uname -r), $(perf --version)"
	# Warm-up, not reported: first exec of each binary.
	rec warm none $o -- close-loop 1000 >/dev/null
	rec warm perf $o -- $perf_rec -e "$ev" -- close-loop 1000 >/dev/null
	rec warm perf-ring $o -- $ring_rec -e "$ev" -- close-loop 1000 >/dev/null
	# N calls and, for each tool's fixed cost, 0 calls.
	for n in "$calls" 0; do
		rec none "none/$n" $o -- close-loop "$n"
		rec floor "floor/$n" $o -f $pages -- close-loop "$n"
		for m in streaming z1 flight; do
			case $m in
			streaming) opt= ;;
			z1) opt=-z1 ;;
			flight) opt=--overwrite ;;
			esac
			rec perf "$m/$n" $o -- $perf_rec $opt -e "$ev" -- close-loop "$n"
			rec perf-ring "$m/$n" $o -- $ring_rec $opt -e "$ev" -- close-loop "$n"
		done
	done
	# Streaming without the 0.5 s idle flush (PERF_RING_NO_IDLE_FLUSH=1):
	# the flush's cost on the reader's hot path, to the instruction.
	for n in "$calls" 0; do
		rec perf-ring "noflush/$n" $o -- env PERF_RING_NO_IDLE_FLUSH=1 \
			$ring_rec -e "$ev" -- close-loop "$n"
	done
	# -z1 with a buffer large enough that neither tool loses a record at
	# 128 pages' rate: the compressed bytes of the same records.
	rec perf "z1big/$calls" $o -- perf record -q -m 1024 -o $o -z1 -e "$ev" -- close-loop "$calls"
	rec perf-ring "z1big/$calls" $o -- perf-ring record -q -m 1024 -o $o -z1 -e "$ev" -- \
		close-loop "$calls"
	# Call chains (frame pointers), streaming.
	rec perf "g/$calls" $o -- $perf_rec -g -e "$ev" -- close-loop "$calls"
	rec perf-ring "g/$calls" $o -- $ring_rec -g -e "$ev" -- close-loop "$calls"
	# The varied workload: tar of every file in the initramfs through a
	# pipe, syscalls and the scheduler recorded.
	varied='tar -cf - /lib /selftests /usr/bin | cat >/dev/null'
	rec none varied $o -- sh -c "$varied"
	rec perf varied $o -- $perf_rec -e "$varied_ev" -- sh -c "$varied"
	rec perf-ring varied $o -- $ring_rec -e "$varied_ev" -- sh -c "$varied"
	rec perf varied-z1 $o -- $perf_rec -z1 -e "$varied_ev" -- sh -c "$varied"
	rec perf-ring varied-z1 $o -- $ring_rec -z1 -e "$varied_ev" -- sh -c "$varied"

	# Where each tool's instructions go: cpu-clock samples every 20000 ns
	# (instructions) of the whole system while it records, with the loop
	# and without it (what start and exit cost). The profiler runs as
	# "prof", so that its own work is not the recorded perf's.
	ln -sf /usr/bin/perf $W/prof
	for tool in perf-ring perf; do
		rec_cmd=$ring_rec
		[ $tool = perf ] && rec_cmd=$perf_rec
		for m in streaming z1; do
			opt=
			[ $m = z1 ] && opt=-z1
			for n in "$calls" 0; do
				$W/prof record -q -e cpu-clock -c 20000 -a -o $W/prof.data -- \
					$rec_cmd $opt -e "$ev" -- close-loop "$n" >/dev/null 2>&1
				echo "PROFILE_BEGIN $tool $m/$n"
				perf report -i $W/prof.data --stdio -n --no-children \
					--sort comm,dso,sym 2>/dev/null | awk '$1 ~ /%$/ && $2 >= 3'
				echo "PROFILE_END"
				rm -f $W/prof.data $o
			done
		done
	done
}

# recfiles FILE: "files=N fbytes=B" of FILE and the snapshots beside it
# (FILE.<timestamp> from --switch-output), which it then removes.
recfiles() {
	set -- "$1" "$1".*
	nf=0 fb=0
	for f in "$@"; do
		[ -f "$f" ] || continue
		nf=$((nf + 1))
		fb=$((fb + $(wc -c < "$f")))
		rm -f "$f"
	done
	echo "files=$nf fbytes=$fb"
}

# scale: perf record and perf-ring record with -a on every vCPU (booted
# with -smp N by make qemu-bench PART=scale), the workload one close(-1)
# loop pinned to each CPU (/bench/cpu_loop), $calls calls in all. "rec"
# lines as for recorders, "snap" lines for the snapshot runs, "mem" lines
# with the recorder's memory at the end of its workload, and the
# cpu-clock profile of each tool's start-up and exit. The timed runs use
# rec_run -b: with more than one vCPU only the guest's busy instructions,
# all CPUs together, count instructions (bench/rec_run.c).
#
# What a boot costs the host is kept down without changing what is
# counted: perf record runs with --no-bpf-event (perf-record(1)), whose
# side-band thread otherwise holds perf's exit for up to a second of
# poll() timeout, a second the -b spinner must fill with a billion
# emulated instructions; perf's default is measured once ("perf
# bpf-sb/0", start-up and exit with the thread) and reported beside,
# and the memory runs, which have no spinner, use perf's defaults.
# The warm-up runs have no spinner (they are not counted), perf-ring's
# cases run before perf's (a boot that runs out of time still has
# them), and the start-up profile samples the recorder and its children
# only, not every idle vCPU every 20000 instructions.
scale() {
	need_perf "scale skipped" || return
	echo 0 > /proc/sys/kernel/randomize_va_space
	cd "$W" || return
	ev='raw_syscalls:*'
	o=$W/rec.data
	snaps=2
	nobpf=--no-bpf-event
	echo "# scale: $(nproc) CPUs, $calls close(-1) in all, $(uname -r), $(perf --version)," \
		"perf_event_mlock_kb $(cat /proc/sys/kernel/perf_event_mlock_kb)," \
		"RLIMIT_MEMLOCK $(ulimit -l) kB, perf record $nobpf"
	rec warm none $o -- /bench/cpu_loop 1000 >/dev/null
	rec warm perf $o -- perf record -q -a $nobpf -o $o -e "$ev" -- /bench/cpu_loop 1000 >/dev/null
	rec warm perf-ring $o -- perf-ring record -q -a -o $o -e "$ev" -- /bench/cpu_loop 1000 >/dev/null
	# The cost per record is the difference between $calls and $half
	# calls, so that start-up and exit cancel: the streaming runs with
	# buffers that hold each CPU's share of the calls (about 270 bytes a
	# call, both records), so neither tool loses any at any count, the
	# flight recorder with the default buffers, which both halves wrap on
	# every CPU up to 64 (a buffer holds about 2,400 calls), each tool
	# dumping whole buffers at exit (perf-ring --snapshot-window=whole).
	# The 0-call runs, with the default buffers, are the fixed cost.
	half=$((calls / 2))
	big=128
	while [ $((big * 4096)) -lt $((calls / $(nproc) * 270)) ]; do big=$((big * 2)); done
	echo "# scale: per record from $calls and $half calls; streaming -m $big pages for them"
	# The bare loop three times at each count (none/N, none/N-2,
	# none/N-3): with many vCPUs its cost varies from run to run by tens
	# of millions of instructions (forks, migrations, idle entries), as
	# much as 75 per record at 64 CPUs; the report takes the median.
	for n in "$calls" "$half" 0; do
		rec none "none/$n" $o -b -- /bench/cpu_loop "$n"
		rec none "none/$n-2" $o -b -- /bench/cpu_loop "$n"
		rec none "none/$n-3" $o -b -- /bench/cpu_loop "$n"
	done
	for tool in perf-ring perf; do
		topt=
		[ $tool = perf ] && topt=$nobpf
		for n in "$calls" "$half" 0; do
			for m in streaming flight; do
				opt=
				[ $m = streaming ] && [ "$n" != 0 ] && opt="-m $big"
				[ $m = flight ] && opt=--overwrite
				[ $m = flight ] && [ $tool = perf-ring ] && [ "$n" != 0 ] &&
					opt="$opt --snapshot-window=whole"
				rec $tool "$m/$n" $o -b -- $tool record -q -a $topt -o $o $opt -e "$ev" -- \
					/bench/cpu_loop "$n"
			done
		done
	done
	# perf's default, with the BPF side-band thread: start-up and exit.
	rec perf "bpf-sb/0" $o -b -- perf record -q -a -o $o -e "$ev" -- /bench/cpu_loop 0
	# perf-ring's start-up and exit with one synthesis thread per online
	# CPU, its default before it took perf's one.
	for m in streaming flight; do
		opt=
		[ $m = flight ] && opt=--overwrite
		rec perf-ring "$m-synthcpus/0" $o -b -- perf-ring record -q -a -o $o $opt \
			--num-thread-synthesize "$(nproc)" -e "$ev" -- /bench/cpu_loop 0
	done
	# One snapshot's cost: $snaps SIGUSR2 after the loops, against the
	# same run with kill(ppid, 0) in their place. perf-ring copies whole
	# buffers, as perf does (its default cuts them to the common window).
	for tool in perf-ring perf; do
		topt=--snapshot-window=whole
		[ $tool = perf ] && topt=$nobpf
		for k in snap nosnap; do
			kopt=
			[ $k = nosnap ] && kopt=-k
			rm -f $o $o.*
			rec_timed -b -- $tool record -q -a $topt -o $o --overwrite --switch-output \
				-e "$ev" -- /bench/cpu_loop -s $snaps $kopt "$calls"
			echo "snap tool=$tool mode=$k snaps=$snaps $rec_line $(recfiles $o)"
		done
	done
	# perf-ring's snapshot against its bytes at this count: the same
	# runs with -m 16, 64 and 256 pages a CPU (128, the default, above),
	# so that a cost per snapshot shows apart from a cost per byte.
	for pg in 16 64 256; do
		for k in snap nosnap; do
			kopt=
			[ $k = nosnap ] && kopt=-k
			rm -f $o $o.*
			rec_timed -b -- perf-ring record -q -a --snapshot-window=whole -m $pg -o $o \
				--overwrite --switch-output -e "$ev" -- /bench/cpu_loop -s $snaps $kopt "$calls"
			echo "snap tool=perf-ring mode=$k/m$pg snaps=$snaps $rec_line $(recfiles $o)"
		done
	done
	# Memory at the end of the workload, read by the workload's shell from
	# its parent, the recorder: VmRSS, VmHWM, VmLck (mlock), VmPin, and
	# the perf_event mappings (the ring buffers the kernel charges to
	# perf_event_mlock_kb and RLIMIT_MEMLOCK). perf with its defaults:
	# its BPF side-band has a buffer per CPU of its own, and with no
	# spinner here its idle second at exit costs the host nothing.
	for tool in perf-ring perf; do
		for m in streaming flight; do
			opt=
			[ $m = flight ] && opt=--overwrite
			rm -f $o $o.* $W/mem.*
			$tool record -q -a -o $o $opt -e "$ev" -- sh -c "/bench/cpu_loop $calls;
				cat /proc/\$PPID/status > $W/mem.status; cat /proc/\$PPID/maps > $W/mem.maps" \
				>/dev/null 2>$W/mem.err
			st=$?
			awk -v t=$tool -v m=$m -v st=$st '
				FILENAME ~ /status$/ && /^Vm(RSS|HWM|Lck|Pin):/ { v[$1] = $2 }
				FILENAME ~ /maps$/ && /perf_event/ {
					split($1, a, "-"); ring += (("0x" a[2]) - ("0x" a[1])) / 1024; nr++
				}
				END { printf "mem tool=%s mode=%s status=%s rss_kb=%d hwm_kb=%d lck_kb=%d pin_kb=%d ring_kb=%d ring_maps=%d\n",
					t, m, st, v["VmRSS:"], v["VmHWM:"], v["VmLck:"], v["VmPin:"], ring, nr }' \
				$W/mem.status $W/mem.maps
			recfiles $o >/dev/null
		done
	done
	# Where start-up and exit go: cpu-clock every 20000 instructions of
	# the recorder and its children (inherited; not -a, whose idle vCPUs
	# would each take a sample every 20000 instructions).
	ln -sf /usr/bin/perf $W/prof
	for tool in perf-ring perf; do
		topt=
		[ $tool = perf ] && topt=$nobpf
		for m in streaming flight; do
			opt=
			[ $m = flight ] && opt=--overwrite
			$W/prof record -q $nobpf -e cpu-clock -c 20000 -o $W/prof.data -- \
				$tool record -q -a $topt -o $o $opt -e "$ev" -- /bench/cpu_loop 0 >/dev/null 2>&1
			echo "PROFILE_BEGIN $tool $m/0"
			perf report -i $W/prof.data --stdio -n --no-children \
				--sort comm,dso,sym 2>/dev/null | awk '$1 ~ /%$/ && $2 >= 1'
			echo "PROFILE_END"
			rm -f $W/prof.data
			recfiles $o >/dev/null
		done
	done
}

# snapprof: where the instructions of perf-ring's snapshot go (make
# qemu-bench PART=snapprof, booted with -smp N). perf-ring -a --overwrite
# -m 16 (small buffers: the copy is a small part), 20 snapshots after a
# short loop, against the same run with none (cpu_loop -k), each under
# cpu-clock every 5000 instructions with call graphs, the recorder and
# its children only (its threads, io_uring's worker); then the same two
# with --exclude-perf, whose difference from the first two is the
# kernel recording the recorder's own system calls (raw_syscalls:* with
# -a sees them). "SNAPPROF_BEGIN variant run report" blocks of perf
# report lines, at one vCPU only: with more, cpu-clock runs on the shared
# guest clock and counts the other vCPUs' instructions too. At every
# count, measured: "snapm" lines, the same four runs' busy instructions
# (rec_run -b) and the function-call IPIs the guest took during each
# (CAL in /proc/interrupts); "syscalls" lines, each run's system calls
# by name.
# ipis: function-call interrupts so far, every CPU's
ipis() {
	awk '$1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' \
		/proc/interrupts
}

snapprof() {
	need_perf "snapprof skipped" || return
	echo 0 > /proc/sys/kernel/randomize_va_space
	cd "$W" || return
	ln -sf /usr/bin/perf $W/prof
	o=$W/rec.data
	ev='raw_syscalls:*'
	snaps=20
	per=5000
	# -m: perf_ring.snapm= (default 16); the loop fills the buffers
	# (about 270 bytes a call, both records; cpu_loop splits the calls
	# over the CPUs) before the snapshots
	m=${snapm:-16}
	loop=$((m * 4096 / 200 * $(nproc)))
	[ "$loop" -ge 1000 ] || loop=1000
	echo "# snapprof: $(nproc) CPUs, $snaps snapshots, cpu-clock every $per, -m $m," \
		"cpu_loop $loop, $(uname -r)"
	# First, every DSO the runs below map (the profiler's too) into the
	# build-id cache, which each run then finds there, as a run after
	# the first one on a host does.
	$W/prof record -q --no-bpf-event -e cpu-clock -c $per -o $W/prof.data -- \
		perf-ring record -q -a --overwrite --switch-output -o $o -e "$ev" -- \
		/bench/cpu_loop -s 1 1000 >/dev/null 2>&1
	recfiles $o >/dev/null
	for x in own exclude; do
		xopt=
		[ $x = exclude ] && xopt=--exclude-perf
		for k in snap nosnap; do
			kopt=
			[ $k = nosnap ] && kopt=-k
			i0=$(ipis)
			rec_timed -b -- perf-ring record -q -a --snapshot-window=whole -m $m -o $o \
				--overwrite --switch-output -e "$ev" $xopt -- \
				/bench/cpu_loop -s $snaps $kopt $loop
			echo "snapm variant=$x run=$k snaps=$snaps $rec_line ipi=$(($(ipis) - i0))" \
				"$(recfiles $o)"
			[ "$(nproc)" = 1 ] || continue
			$W/prof record -q --no-bpf-event -e cpu-clock -c $per -g -o $W/prof.data -- \
				perf-ring record -q -a --snapshot-window=whole -m $m -o $o --overwrite \
				--switch-output -e "$ev" $xopt -- /bench/cpu_loop -s $snaps $kopt $loop \
				>/dev/null 2>&1
			echo "snapprof variant=$x run=$k status=$? $(recfiles $o)"
			for c in no-children children; do
				echo "SNAPPROF_BEGIN $x $k $c"
				perf report -i $W/prof.data --stdio -n --$c --sort sym -g none \
					2>/dev/null | awk '$1 ~ /%$/'
				echo "SNAPPROF_END"
			done
			rm -f $W/prof.data
		done
	done
	for k in snap nosnap; do
		kopt=
		[ $k = nosnap ] && kopt=-k
		perf stat -x, -o $W/stat.txt -e 'syscalls:sys_enter_*' -- \
			perf-ring record -q -a --snapshot-window=whole -m $m -o $o --overwrite \
			--switch-output -e "$ev" -- /bench/cpu_loop -s $snaps $kopt $loop \
			>/dev/null 2>&1
		recfiles $o >/dev/null
		awk -F, -v k=$k '$1 > 0 { sub(/^syscalls:sys_enter_/, "", $3); print "syscalls run=" k, $3, $1 }' \
			$W/stat.txt
	done
}

# threads: what the threads that exist cost each recorder at start-up
# (make qemu-bench PART=threads, -smp 1). For each count of threads held
# by /bench/thread_holder (0: the holder alone), both recorders with -a and then
# with -p on the holder record sched:sched_process_exit around cpu_loop
# 0, measured by rec_run -b (every instruction over the run, the
# kernel's included). perf-ring lists the threads from /proc here: the
# bench kernel has no BPF (CONFIG_BPF_SYSCALL is off), so its BPF task
# iterator is not measured in the guest. "thr" lines: rec_run's figures,
# maxrss the recorder's largest resident set; "thr_skip" when a count
# could not be held. One run of each recorder first, not counted: the
# first run after boot also pays for the tracefs entries it looks up.
thr_run() {
	tool=$1 mode=$2 synth=$3 n=$4
	shift 4
	rm -f "$o"
	case "$synth" in
	-) unset PERF_RING_SYNTH ;;
	*) export PERF_RING_SYNTH="$synth" ;;
	esac
	rec_timed -b -- "$@"
	unset PERF_RING_SYNTH
	echo "thr tool=$tool mode=$mode synth=$synth threads=$n $rec_line $(rec_counts "$o")"
}

threads() {
	need_perf "thr_skip" || return
	echo 0 > /proc/sys/kernel/randomize_va_space
	# room for the largest count: its pids, its tasks, each thread's
	# stack and guard mappings, and -p's events (one fd each)
	echo 4194304 > /proc/sys/kernel/pid_max
	echo 1000000 > /proc/sys/kernel/threads-max
	echo 1000000 > /proc/sys/vm/max_map_count
	ulimit -n 1048576
	cd "$W" || return
	o=$W/rec.data
	ev=sched:sched_process_exit
	nobpf=--no-bpf-event
	echo "# threads: $(nproc) CPUs, $(uname -r), $(perf --version)," \
		"$(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB, RLIMIT_NOFILE $(ulimit -n)"
	thr_run none warm auto 0 /bench/cpu_loop 0 >/dev/null
	thr_run perf-ring warm auto 0 perf-ring record -q -B -a -e "$ev" -o "$o" -- \
		/bench/cpu_loop 0 >/dev/null
	thr_run perf warm - 0 perf record -q -B -a $nobpf -e "$ev" -o "$o" -- \
		/bench/cpu_loop 0 >/dev/null
	for n in ${thread_counts:-0 1000 10000 100000}; do
		# at 0 too, holding none: the process that -p records (the
		# last count's "ready" removed first: the redirection below is
		# the child's, and could come after the first look)
		rm -f "$W/hold.out"
		/bench/thread_holder "$n" >"$W/hold.out" 2>&1 &
		hp=$!
		until grep -qx "ready $n" "$W/hold.out" 2>/dev/null || ! kill -0 "$hp" 2>/dev/null; do
			sleep 1
		done
		if ! grep -qx "ready $n" "$W/hold.out"; then
			echo "thr_skip threads=$n: $(tail -1 "$W/hold.out")"
			continue
		fi
		echo "# threads: $n held, $(awk '{ print $4 }' /proc/loadavg) tasks on the system"
		thr_run none bare auto "$n" /bench/cpu_loop 0
		thr_run perf-ring a auto "$n" perf-ring record -q -B -a -e "$ev" -o "$o" -- \
			/bench/cpu_loop 0
		thr_run perf a - "$n" perf record -q -B -a $nobpf -e "$ev" -o "$o" -- /bench/cpu_loop 0
		# -p: one event per thread of the holder (perf-ring opens each
		# on every CPU, as perf record -p does); not beyond 10,000
		if [ "$n" -le 10000 ]; then
			thr_run perf-ring p auto "$n" perf-ring record -q -B -p "$hp" -e "$ev" -o "$o" -- \
				/bench/cpu_loop 0
			thr_run perf p - "$n" perf record -q -B -p "$hp" $nobpf -e "$ev" -o "$o" -- \
				/bench/cpu_loop 0
		fi
		kill "$hp"
		wait "$hp" 2>/dev/null
	done
}

# snapline: perf-ring's snapshot against its bytes, in the steady state
# (make qemu-bench PART=snapline, -smp N). For each -m (perf_ring.snapm_list=,
# default 16 64 128 256 pages a CPU), a loop that fills every CPU's buffer,
# then 20 snapshots of the whole buffers 100 ms apart, against the same
# run with none (cpu_loop -k): "snapline" lines of rec_run -b's busy
# instructions and the snapshot files. Twenty snapshots a run, so that
# what only a run's first snapshot pays (its chunks' first page faults)
# weighs a twentieth. One run first puts every DSO into the build-id cache.
snapline() {
	echo 0 > /proc/sys/kernel/randomize_va_space
	cd "$W" || return
	o=$W/rec.data
	ev='raw_syscalls:*'
	snaps=20
	echo "# snapline: $(nproc) CPUs, $snaps snapshots a run, $(uname -r)"
	perf-ring record -q -a --overwrite --switch-output -o $o -e "$ev" -- \
		/bench/cpu_loop -s 1 1000 >/dev/null 2>&1
	recfiles $o >/dev/null
	for m in ${snapm_list:-16 64 128 256}; do
		# about 270 bytes a call, both records; cpu_loop splits the
		# calls over the CPUs
		loop=$((m * 4096 / 200 * $(nproc)))
		[ "$loop" -ge 1000 ] || loop=1000
		for k in snap nosnap; do
			kopt=
			[ $k = nosnap ] && kopt=-k
			rec_timed -b -- perf-ring record -q -a --snapshot-window=whole -m $m -o $o \
				--overwrite --switch-output -e "$ev" -- \
				/bench/cpu_loop -s $snaps $kopt $loop
			echo "snapline m=$m run=$k snaps=$snaps loop=$loop $rec_line $(recfiles $o)"
		done
	done
}

case "$part" in
boot)
	# The boot alone: how long -smp N takes to come up under -icount
	# (the host times qemu-run.sh); the guest's uptime is instructions.
	echo "# boot: $(nproc) CPUs up, uptime $(cut -d' ' -f1 /proc/uptime) s"
	;;
scale) scale ;;
snapprof) snapprof ;;
threads) threads ;;
snapline) snapline ;;
recorders)
	perfcheck
	recorders
	;;
perfcheck) perfcheck ;;
rate | zlong) sh /bench/guest-rate.sh "$part" ;;
*)
	echo "# ring_cost: $calls close(-1) per mode on $(uname -r)"
	# A first pass warms the page cache and the tracepoint; it is not reported.
	/bench/ring_cost forward-overwrite 1000 >/dev/null
	for mode in base forward forward-overwrite backward-overwrite base; do
		/bench/ring_cost "$mode" "$calls"
	done
	;;
esac
