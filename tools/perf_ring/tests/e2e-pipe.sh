# SPDX-License-Identifier: GPL-2.0
#
# -o -: perf's pipe format on standard output (sourced by e2e.sh: its
# helpers and variables are used here).
#
# perf 6.1 has bugs of its own with pipe input: report --stats,
# buildid-list and inject stop at the tracing data ("unexpected end of
# event stream"), and with -z report --stats cannot decompress, while
# annotate and data convert crash; diff fails ("failed to process type:
# 9").  perf archive finds no build-ids in perf's own pipe file (perf
# writes none there), where perf-ring's carry them.  Its own pipe files
# show them the same, so every tool runs on perf's pipe file of the same
# recording too:
# where perf's passes, perf-ring's must pass; where perf's fails, the
# test says so and only asks that perf-ring's do no worse.

PX=4000000		# BASE of the close() calls
rm -f px-*.data
for z in "" -z; do
	k=pipe${z#-}
	"$PR" record -q -m 4M $z -e cpu-clock -g -o - -- "$CL" 200000 $PX >px-$k.data 2>px.err ||
		nok "record -o - ${z:-(plain)}: exit status" "$(head -3 px.err)"
	perf record -q -m 4M $z -e cpu-clock -g -o - -- "$CL" 200000 $PX >px-ref$k.data 2>/dev/null
done

# tool_clean RC: the last tool run exited 0 and said nothing alarming
tool_clean() {
	[ "$1" = 0 ] && ! grep -qiE 'warn|error|fail|couldn|invalid|unexpected|segmentation|abort' tool.err
}

# pipe_tool KIND WHAT CMD...: CMD with @F@ for the file, on perf-ring's
# and on perf's pipe file of KIND
pipe_tool() {
	local k=$1 what=$2 mine ref
	shift 2
	# in a subshell that says nothing of a crash: the exit status does
	( "${@//@F@/px-$k.data}" >tool.out 2>tool.err </dev/null; exit $? ) 2>/dev/null
	tool_clean $? && mine=0 || mine=1
	head -c 300 tool.err >tool.mine
	( "${@//@F@/px-ref$k.data}" >/dev/null 2>tool.err </dev/null; exit $? ) 2>/dev/null
	tool_clean $? && ref=0 || ref=1
	if [ $mine = 0 ]; then
		[ $ref = 0 ] && echo "$what" >>pipe.ok || echo "$what (perf's own fails)" >>pipe.ok
	elif [ $ref = 1 ]; then
		echo "$what" >>pipe.both
	else
		nok "perf $what on the -o - file ($k)" "perf's own pipe file passes; perf-ring's: $(head -3 tool.mine)"
	fi
}

for k in pipe pipez; do
	if [ ! -s px-$k.data ] || [ ! -s px-ref$k.data ]; then
		nok "tools on the $k file: recorded" "$(ls -l px-$k.data px-ref$k.data 2>&1)"
		continue
	fi
	rm -f pipe.ok pipe.both
	pipe_tool $k "report --stats" perf report --stats -i @F@
	pipe_tool $k "report -g caller" perf report --stdio -g caller -i @F@
	pipe_tool $k "script" perf script -i @F@
	pipe_tool $k "inject" perf inject -i @F@ -o px-inj.data
	pipe_tool $k "inject -b" perf inject -b -i @F@ -o px-inj.data
	pipe_tool $k "annotate" perf annotate --stdio -i @F@ __close
	pipe_tool $k "buildid-list" perf buildid-list -i @F@
	pipe_tool $k "archive" perf archive @F@
	pipe_tool $k "diff (of the file and itself)" perf diff @F@ @F@
	pipe_tool $k "data convert --to-json" perf data convert --force --to-json px.json -i @F@
	pipe_tool $k "evlist -v" perf evlist -v -i @F@
	[ -s pipe.ok ] && ok "the $k file: perf $(paste -sd, pipe.ok | sed 's/,/, /g') read it cleanly"
	[ -s pipe.both ] && ok "the $k file: perf $(paste -sd, pipe.both | sed 's/,/, /g') fail on perf's own pipe file too (perf 6.1's pipe bugs)"
done

# the samples and the call chains: perf-ring report and perf agree
for k in pipe pipez; do
	[ -s px-$k.data ] || continue
	want=$(perf script -i px-$k.data -F ip 2>/dev/null | grep -c .)
	got=$(perf script -i px-$k.data -F event 2>/dev/null | grep -c 'cpu-clock')
	mine=$("$PR" report -i px-$k.data 2>&1 | awk '/^ *SAMPLE events:/ { print $3; exit }')
	chains=$(perf script -i px-$k.data 2>/dev/null | grep -cE '^\s+[0-9a-f]+ ')
	if [ -n "$mine" ] && [ "$mine" = "$got" ] && [ "$got" -gt 0 ] && [ "$chains" -gt "$got" ]; then
		ok "the $k file: perf-ring report -i counts the $mine samples perf script shows, with $chains chain entries"
	else
		nok "the $k file: perf-ring report -i and perf script agree" "perf-ring $mine, perf script $got samples, $want ips, $chains chain lines"
	fi
done

# a real pipe, both ways: perf-ring into perf, and into perf-ring report
"$PR" record -q -e cpu-clock -o - -- "$CL" 100000 $PX 2>px.err | perf script -i - -F comm,event >px.script 2>tool.err
rc=("${PIPESTATUS[@]}")
n=$(grep -c 'close-loop.*cpu-clock' px.script)
if [ "${rc[0]}" = 0 ] && [ "${rc[1]}" = 0 ] && [ "$n" -gt 0 ] && ! grep -qiE 'warn|error|fail' tool.err; then
	ok "perf-ring record -o - | perf script -i -: $n samples of close-loop"
else
	nok "perf-ring record -o - | perf script -i -" "exit ${rc[*]}, $n samples: $(head -3 px.err tool.err)"
fi
"$PR" record -q -e cpu-clock -o - -- "$CL" 100000 $PX 2>px.err | "$PR" report -i - >px.rep 2>&1
rc=("${PIPESTATUS[@]}")
if [ "${rc[0]}" = 0 ] && [ "${rc[1]}" = 0 ] && grep -qE '^ *SAMPLE events: +[1-9]' px.rep; then
	ok "perf-ring record -o - | perf-ring report -i -: $(awk '/^ *SAMPLE events:/ { print $3; exit }' px.rep) samples"
else
	nok "perf-ring record -o - | perf-ring report -i -" "exit ${rc[*]}: $(head -5 px.rep)"
fi

# the command's standard output goes to standard error, not into the data
# (the text is made by the command: its argv is in the file's cmdline)
"$PR" record -q -e cpu-clock -o - -- sh -c 'echo said-$((6 * 7))' >px-echo.data 2>px.err
if grep -q said-42 px.err && ! grep -aq said-42 px-echo.data &&
   "$PR" report -i px-echo.data >/dev/null 2>&1; then
	ok "-o -: the command's output goes to standard error, the data stays readable"
else
	nok "-o -: the command's output goes to standard error" "$(head -3 px.err)"
fi

# what a stream cannot do is refused before recording
for opt in --overwrite --switch-output=1M --timestamp-filename; do
	"$PR" record -q -e cpu-clock $opt -o - -- true >/dev/null 2>px.err
	rc=$?
	if [ $rc != 0 ] && grep -q -- "${opt%%=*}.*-o -" px.err; then
		ok "-o - with $opt: refused ($(head -1 px.err | cut -c1-90))"
	else
		nok "-o - with $opt: refused" "exit $rc: $(head -2 px.err)"
	fi
done
rm -f px-*.data px.* pipe.ok pipe.both tool.mine
