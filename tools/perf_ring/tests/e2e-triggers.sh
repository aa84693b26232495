# SPDX-License-Identifier: GPL-2.0
#
# End-to-end tests of the triggers (issue: snapshot triggers, rotation and
# a control channel), sourced by e2e.sh: its helpers (ok, nok, skip,
# check_file, expect_fail) and variables (PR, CL, HERE, PY3) are used here.
#
# Every file a trigger makes must decode alone, hold one contiguous run of
# close(BASE + i) sequence numbers, and resolve comm and DSO for every
# sample, also after a switch and for processes that have exited.

TB=2000000		# BASE of the close(BASE + i) calls
EV='raw_syscalls:sys_enter,cpu-clock'

# resolved FILE: every sample names its command and DSO, and its symbol
# where the DSO has symbols (the kernel, close-loop; not a stripped
# /usr/bin/dash)
UNRESOLVED='^ *:[0-9]+ |\(\[unknown\]\)|\[unknown\] \((\[kernel|.*/close-loop\))'
resolved() {
	perf script -i "$1" -F comm,ip,sym,dso 2>/dev/null >res.out
	local n bad
	n=$(wc -l <res.out)
	bad=$(grep -c -E "$UNRESOLVED" res.out)
	[ "$n" -gt 0 ] && [ "$bad" = 0 ] && return 0
	echo "$bad of $n samples unresolved: $(grep -m2 -E "$UNRESOLVED" res.out)"
	return 1
}

# trig_files WHAT COUNT FILES...: each file decodes alone (perf script,
# report, --stats agreeing with perf-ring report), holds one contiguous
# run of sequence numbers, the runs follow each other, and every sample
# is resolved.  The newest file's run ends at the newest call, unless
# NEWEST=0 (files taken while the command still ran).
trig_files() {
	local what=$1 count=$2 f last prev=-1 msg good=0 n=0 first lastseq lost
	shift 2
	for f in "$@"; do last=$f; done
	for f in "$@"; do
		n=$((n + 1))
		# a file with no sample (the last one after a switch, when the
		# command ended just then): perf report says "no samples", so
		# only perf script must read it
		"$PR" report -i "$f" >trig.pr 2>/dev/null
		if grep -q '^ *SAMPLE events: *0$' trig.pr || ! grep -q '^ *SAMPLE events:' trig.pr; then
			if perf script -i "$f" >/dev/null 2>script.err && [ ! -s script.err ]; then
				good=$((good + 1))
			else
				nok "$what: $(basename "$f"), with no sample, decodes" "$(head -3 script.err)"
			fi
			continue
		fi
		# check_file leaves perf-ring report's output in pr.out and
		# perf script's (its default fields hold event and trace) in
		# script.out: the checks below read them, not another run
		check_file "$f" "$what: $(basename "$f")" lossy || continue
		# streaming: records the kernel dropped (LOST) leave gaps, as many
		lost=$(sed -n 's/^ *lost: \([0-9]*\) samples.*/\1/p' pr.out)
		msg=$("$PY3" "$HERE/seqcheck.py" $TB "$count" <script.out \
			$([ "$f" = "$last" ] && [ "${NEWEST:-1}" = 1 ] && echo --ends-at-newest) \
			$([ "${lost:-0}" -gt 0 ] && echo --allow-missing "$lost"))
		if [ $? != 0 ]; then
			# a file taken before the command's first call (a slow
			# start under load) or between two triggers may hold none;
			# the newest must, when it is to end at the newest call
			if [ "$msg" = "no close(BASE+i) records" ] &&
			   { [ "$f" != "$last" ] || [ "${NEWEST:-1}" = 0 ]; }; then
				good=$((good + 1))
				continue
			fi
			nok "$what: $(basename "$f") holds one contiguous run" "$msg"; continue
		fi
		read -r _ first _ lastseq _ <<<"$(head -1 <<<"$msg")"
		if [ "$lastseq" -lt "$prev" ]; then
			nok "$what: $(basename "$f") comes after the file before it" "last $lastseq < $prev"; continue
		fi
		prev=$lastseq
		msg=$(resolved "$f") || { nok "$what: $(basename "$f") resolves every sample" "$msg"; continue; }
		good=$((good + 1))
	done
	if [ "$n" -gt 0 ] && [ $good = "$n" ]; then
		ok "$what: $n files, each decodes alone, one contiguous run in order$([ "${NEWEST:-1}" = 1 ] &&
			echo ", the newest ends at the newest call"), every sample resolved"
	elif [ "$n" = 0 ]; then
		nok "$what: files written" "none"
	fi
}

# 1. --switch-output=signal|SIZE|TIME, streaming and flight recorder, -z or not
for z in "" "-z"; do
	for mode in stream flight; do
		ow=; [ $mode = flight ] && ow=--overwrite
		# signal
		rm -f sw.data*
		"$PR" record $ow $z -m 4M -e "$EV" --switch-output=signal -o sw.data -- \
			"$CL" 1000000 $TB 2>sw.err &
		pid=$!
		for i in 1 2; do sleep 0.3; kill -USR2 $pid 2>/dev/null; done
		wait $pid
		rc=$?
		if [ $rc != 0 ] || [ "$(ls sw.data.* 2>/dev/null | wc -l)" -lt 2 ]; then
			nok "$mode $z --switch-output=signal" "exit $rc: $(tail -3 sw.err)"
		else
			trig_files "$mode $z --switch-output=signal" 1000000 sw.data.*
		fi
		# size: streaming counts the file's bytes (compressed with -z),
		# the flight recorder what the kernel wrote since the last snapshot.
		# 150,000 calls make 4 to 8 files: enough to see the sizes and the
		# order, and each file costs seconds of perf to check.
		size=4M
		[ $mode$z = stream-z ] && size=256K
		rm -f sw.data*
		"$PR" record $ow $z -m 4M -e "$EV" --switch-output=$size -o sw.data -- \
			"$CL" 150000 $TB 2>sw.err
		rc=$?
		nf=$(ls sw.data.* 2>/dev/null | wc -l)
		if [ $rc != 0 ] || [ "$nf" -lt 2 ]; then
			nok "$mode $z --switch-output=$size" "exit $rc, $nf files: $(tail -3 sw.err)"
		else
			trig_files "$mode $z --switch-output=$size" 150000 sw.data.*
		fi
	done
done
# time: one run each, it takes seconds
for mode in stream flight; do
	ow=; [ $mode = flight ] && ow=--overwrite
	rm -f sw.data*
	t0=$(date +%s%N)
	"$PR" record $ow -z -m 4M -e "$EV" --switch-output=1s -o sw.data -- \
		sh -c "$CL 200000 $TB; sleep 2.5" 2>sw.err
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	nf=$(ls sw.data.* 2>/dev/null | wc -l)
	# a file per second of the run, and the last one
	if [ $rc = 0 ] && [ "$nf" -ge $((ms / 1000)) ] && [ "$nf" -le $((ms / 1000 + 2)) ]; then
		ok "$mode -z --switch-output=1s: $nf files in a $ms ms run"
		# every file; the flight recorder's last snapshot still holds the
		# newest call, the last streaming file (the sleep) holds none
		NEWEST=$([ $mode = flight ] && echo 1 || echo 0) \
			trig_files "$mode -z --switch-output=1s" 200000 $(ls sw.data.* | sort)
	else
		nok "$mode -z --switch-output=1s: a file per second" "exit $rc, $nf files in $ms ms: $(tail -3 sw.err)"
	fi
done

# --switch-output-event: the command runs close() 100,000 times, then
# kill -0 (sys_enter_kill, the trigger), twice.  Each file taken at a
# trigger holds one run that ends at the newest call before the trigger.
for z in "" "-z"; do
	for mode in stream flight; do
		ow=; [ $mode = flight ] && ow=--overwrite
		rm -f ev.data*
		"$PR" record $ow $z -m 4M -e "$EV" --switch-output-event=syscalls:sys_enter_kill -o ev.data -- \
			sh -c "$CL 100000 $TB; kill -0 \$\$; sleep 0.3; $CL 100000 $((TB + 1000000)); kill -0 \$\$; sleep 0.3" \
			2>ev.err
		rc=$?
		set -- $(ls ev.data.* 2>/dev/null)
		if [ $rc != 0 ] || [ $# != 3 ]; then
			nok "$mode $z --switch-output-event" "exit $rc, $# files (want 3): $(tail -3 ev.err)"; continue
		fi
		a=$(perf script -i "$1" -F event,trace 2>/dev/null | "$PY3" "$HERE/seqcheck.py" $TB 100000 --ends-at-newest)
		ra=$?
		b=$(perf script -i "$2" -F event,trace 2>/dev/null | "$PY3" "$HERE/seqcheck.py" $((TB + 1000000)) 100000 --ends-at-newest)
		rb=$?
		if [ $ra = 0 ] && [ $rb = 0 ] && resolved "$1" >/dev/null && resolved "$2" >/dev/null &&
		   grep -q -- '--switch-output-event: 2 events' ev.err; then
			ok "$mode $z --switch-output-event: 2 events, 2 files, each ends at the newest call before its event ($a; $b)"
		else
			nok "$mode $z --switch-output-event: each file ends at the newest call before its event" \
				"$a / $b / $(tail -2 ev.err)"
		fi
		check_file "$1" "$mode $z --switch-output-event: the first file" lossy
	done
done
expect_fail "bad input --switch-output-event=nosuch:event" 129 "unknown event 'nosuch:event'" \
	"$PR" record --switch-output-event=nosuch:event -e cpu-clock -o bi.data -- true

# 2. --switch-max-files=3 with at least 6 switches leaves the 3 newest.
# The flight recorder looks at its heads every 10 ms (a snapshot a look
# at most), the stream switches at each wake-up: the flight recorder's
# command runs longer, so that a fast host still makes 6.
for mode in stream flight; do
	ow=; calls=300000
	[ $mode = flight ] && ow=--overwrite && calls=1000000
	rm -f mx.data*
	"$PR" record $ow -v -m 1M -e raw_syscalls:sys_enter --switch-output=256K --switch-max-files=3 \
		-o mx.data -- "$CL" $calls $TB 2>mx.err
	rc=$?
	made=$(grep -c -E 'switched to|perf-ring: snapshot ' mx.err)
	want=$(grep -oE '(switched to|snapshot) mx\.data\.[0-9-]+' mx.err | awk '{print $NF}' | tail -3 | sort)
	have=$(ls mx.data.* 2>/dev/null | sort)
	if [ $rc = 0 ] && [ "$made" -ge 6 ] && [ "$(echo "$have" | wc -l)" = 3 ] && [ "$have" = "$want" ]; then
		ok "$mode --switch-max-files=3: $made files made, the 3 newest kept"
	else
		nok "$mode --switch-max-files=3" "exit $rc, $made made; have: $(echo $have); want: $(echo $want); $(grep -v -E 'switched to|snapshot mx|deleted' mx.err | tail -3)"
	fi
done

# 3. the control channel.  "stop" ends the command with SIGTERM, as perf
# does, so perf-ring returns its status: 143.
ctl_session() {	# MODE Z: 5 snapshots asked for with perf-ring ctl
	local mode=$1 z=$2 ow= acks=0 files
	[ $mode = flight ] && ow=--overwrite
	rm -f ct.data* ctl ack
	mkfifo ctl ack
	"$PR" record $ow $z -m 4M -e "$EV" --control=fifo:ctl,ack -o ct.data -- \
		"$CL" 3000000 $TB 2>ct.err &
	pid=$!
	sleep 0.3
	files=
	for i in 1 2 3 4 5; do
		f=$("$PR" ctl -t 10 ctl,ack snapshot 2>>ct.err) && [ -f "$f" ] && acks=$((acks + 1)) &&
			files="$files $f"
		sleep 0.1
	done
	"$PR" ctl -t 10 ctl,ack stop >/dev/null 2>>ct.err
	wait $pid
	rc=$?
	local nf n
	nf=$(ls ct.data* | wc -l)
	n=$(sed -n 's/.*perf-ring record: \([0-9]*\) snapshots.*/\1/p' ct.err)
	if [ $mode = flight ] && [ $rc = 143 ] && [ $acks = 5 ] && [ "$nf" = 6 ] && [ "$n" = 6 ]; then
		ok "flight $z --control: 5 snapshots asked for, 5 acks naming 5 files, 6 with the final one, summary says 6"
	elif [ $mode = stream ] && [ $rc = 143 ] && [ $acks = 5 ] && [ "$nf" = 6 ] &&
	     grep -q "perf-ring record: 6 files" ct.err; then
		ok "stream $z --control: 5 snapshots switched the file 5 times, 5 acks naming the closed files"
	else
		nok "$mode $z --control: 5 snapshots" "exit $rc, $acks acks, $nf files, summary '$n': $(tail -3 ct.err)"
	fi
	NEWEST=0 trig_files "$mode $z --control snapshot" 3000000 $files
}
for z in "" "-z"; do
	ctl_session flight "$z"
	ctl_session stream "$z"
done

# a bad command: an error on the ack fifo, nothing changes, the next is served
rm -f ct.data* ctl ack
mkfifo ctl ack
"$PR" record --overwrite -m 1M -e "$EV" --control=fifo:ctl,ack -o ct.data -- \
	"$CL" 3000000 $TB 2>ct.err &
pid=$!
sleep 0.3
exec 7<>ack
printf 'snapshot now please\n' >ctl
read -r -t 5 -u 7 reply1
printf '%0300d\n' 0 >ctl
read -r -t 5 -u 7 reply2
f=$("$PR" ctl -t 10 ctl,ack snapshot 2>&1)
"$PR" ctl ctl,ack stop >/dev/null 2>&1
wait $pid
rc=$?
exec 7<&-
case "$reply1|$reply2" in
"error: unknown command 'snapshot now please'"*"|error: command longer than"*)
	if [ $rc = 143 ] && [ -f "$f" ] && [ "$(ls ct.data* | wc -l)" = 2 ] && grep -q '2 bad control commands' ct.err; then
		ok "--control: a malformed and an overlong command get an error ack, change nothing, the next command is served"
	else
		nok "--control: after bad commands" "exit $rc, snapshot '$f', files $(ls ct.data* | wc -l): $(tail -2 ct.err)"
	fi ;;
*) nok "--control: bad commands get an error ack" "got '$reply1' and '$reply2'" ;;
esac

# a control fifo whose writer went away: no end, no spin, the next writer is served
rm -f ct.data* ctl ack
mkfifo ctl ack
"$PR" record --overwrite -m 1M -e cpu-clock --control=fifo:ctl,ack -o ct.data -- sleep 2.5 2>ct.err &
pid=$!
sleep 0.3
exec 8>ctl; exec 8>&-		# a writer comes and goes
sleep 1
t=$(awk '{print $14 + $15}' /proc/$pid/stat 2>/dev/null)
f=$("$PR" ctl -t 10 ctl,ack snapshot 2>&1)
wait $pid
rc=$?
hz=$(getconf CLK_TCK)
if [ $rc = 0 ] && [ -f "$f" ] && [ -n "$t" ] && [ "$t" -lt $((hz / 5)) ]; then
	ok "--control: a writer that went away ends nothing and spins nothing ($t ticks of CPU in 1.3 s); the next is served"
else
	nok "--control: a writer that went away" "exit $rc, snapshot '$f', CPU ticks '$t': $(tail -2 ct.err)"
fi

# --control=fd: with perf's fd form
rm -f ct.data* ctl ack
mkfifo ctl ack
exec 5<>ctl 6<>ack
"$PR" record --overwrite -m 1M -e cpu-clock --control=fd:5,6 -o ct.data -- sleep 1.5 2>ct.err &
pid=$!
sleep 0.3
echo snapshot >&5
read -r -t 5 -u 6 reply
wait $pid
rc=$?
exec 5<&- 6<&-
f=${reply#ack }
if [ $rc = 0 ] && [ -f "$f" ] && [ "$(ls ct.data* | wc -l)" = 2 ]; then
	ok "--control=fd:5,6: snapshot acked with its file ($f)"
else
	nok "--control=fd:5,6" "exit $rc, reply '$reply': $(tail -2 ct.err)"
fi

# every trigger at once: SIGUSR2, a control snapshot and the event, with
# --switch-max-files=3, both modes, -z or not
for z in "" "-z"; do
	for mode in stream flight; do
		ow=; [ $mode = flight ] && ow=--overwrite
		rm -f cb.data* ctl ack
		mkfifo ctl ack
		"$PR" record $ow $z -m 4M -e "$EV" --switch-output=signal --control=fifo:ctl,ack \
			--switch-output-event=syscalls:sys_enter_kill --switch-max-files=3 -o cb.data -- \
			sh -c "$CL 100000 $TB; kill -0 \$\$; sleep 0.6; $CL 100000 $((TB + 100000)); sleep 0.6" 2>cb.err &
		pid=$!
		sleep 0.3
		kill -USR2 $pid
		f=$("$PR" ctl -t 10 ctl,ack snapshot 2>>cb.err)
		wait $pid
		rc=$?
		nf=$(ls cb.data.* 2>/dev/null | wc -l)
		made=$(grep -c -E 'switched to|perf-ring: snapshot ' cb.err)
		# two or three switches (the control request may merge into the
		# signal's), and the first file or the final snapshot
		if [ $rc = 0 ] && [ -n "$f" ] && [ "$nf" = 3 ] && [ "$made" -ge 2 ] &&
		   grep -q -- '--switch-output-event: 1 events' cb.err; then
			ok "$mode $z: SIGUSR2, control and event triggers together, --switch-max-files=3 keeps 3"
			NEWEST=0 trig_files "$mode $z: every trigger at once" 200000 $(ls cb.data.* | sort)
		else
			nok "$mode $z: every trigger at once" "exit $rc, ack '$f', $nf files kept, $made made: $(tail -3 cb.err)"
		fi
	done
done
rm -f ctl ack

# 4. --snapshot-delay and --snapshot-min-interval
rm -f dl.data* ctl ack
mkfifo ctl ack
"$PR" record --overwrite -v -m 4M -e "$EV" --control=fifo:ctl,ack --snapshot-delay=300 \
	--snapshot-min-interval=1000 -o dl.data -- "$CL" 3000000 $TB 2>dl.err &
pid=$!
sleep 0.3
t0=$(date +%s%N)
f1=$("$PR" ctl ctl,ack snapshot)
t1=$(date +%s%N)
f2=$("$PR" ctl ctl,ack snapshot)
f3=$("$PR" ctl ctl,ack snapshot)
"$PR" ctl ctl,ack stop >/dev/null
wait $pid
rc=$?
ms=$(( (t1 - t0) / 1000000 ))
if [ $rc = 143 ] && [ "$ms" -ge 300 ] && [ -f "$f1" ] && [ "$f1" = "$f2" ] && [ "$f2" = "$f3" ] &&
   grep -q '2 merged' dl.err; then
	ok "--snapshot-delay=300: acked after $ms ms; --snapshot-min-interval=1000: 3 requests, 1 snapshot, 2 merged and counted"
else
	nok "--snapshot-delay, --snapshot-min-interval" "exit $rc, $ms ms, files '$f1' '$f2' '$f3': $(tail -3 dl.err)"
fi
[ -f "$f1" ] && NEWEST=0 trig_files "--snapshot-delay=300" 3000000 "$f1"

# 5. a snapshot holds a process that started and exited before it,
# resolved by name and DSO (its COMM and MMAP2 were overwritten in the
# buffer long before; the side-band store keeps them)
rm -f ex.data* ctl ack
mkfifo ctl ack
"$PR" record --overwrite -m 64K -e "$EV" --control=fifo:ctl,ack -o ex.data -- \
	sh -c "$CL 200000 $TB; sleep 1.5" 2>ex.err &
pid=$!
for i in $(seq 50); do pgrep -f "^$CL 200000 $TB" >/dev/null && break; sleep 0.05; done
while pgrep -f "^$CL 200000 $TB" >/dev/null; do sleep 0.05; done
sleep 0.2
f=$("$PR" ctl -t 10 ctl,ack snapshot)
wait $pid
if [ -f "$f" ] && perf script -i "$f" -F comm 2>/dev/null | grep -q close-loop &&
   msg=$(resolved "$f"); then
	ok "a snapshot after close-loop exited names it and its DSOs ($(grep -c close-loop res.out) samples)"
else
	nok "a snapshot after close-loop exited resolves it" "${msg:-no close-loop samples}: $(tail -2 ex.err)"
fi

# 6. bad input: a clear error and a non-zero exit before anything is recorded
# (usage errors exit 129, as perf's, and so does a --control that cannot be opened)
for bad in "--switch-output=10X|129|expected signal, a size" "--switch-output=0s|129|expected signal, a size" \
	   "--switch-output=-5M|129|expected signal, a size" \
	   "--control=fifo:nonexistent-fifo|129|cannot open the control fifo" \
	   "--control=pipe:x|129|expected fifo:CTL" "--control=fd:99|129|fd 99 is not open" \
	   "--switch-max-files=3|129|--switch-max-files needs --switch-output"; do
	opt=${bad%%|*}
	code=${bad#*|}
	code=${code%%|*}
	rm -f bi.data*
	expect_fail "bad input $opt" "$code" "${bad##*|}" "$PR" record $opt -e cpu-clock -o bi.data -- true
	[ -e bi.data ] && nok "bad input $opt: no file" "bi.data exists"
done
touch notafifo
expect_fail "bad input --control=fifo:FILE" 129 "is not a fifo" \
	"$PR" record --control=fifo:notafifo -e cpu-clock -o bi.data -- true
expect_fail "perf-ring ctl: no recorder" 1 "no recorder is listening" "$PR" ctl ctl,ack snapshot
expect_fail "perf-ring ctl: unknown command" 1 "unknown command 'shapshot'" "$PR" ctl ctl,ack shapshot
rm -f ctl ack notafifo
