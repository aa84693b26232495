# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by e2e.sh: call chains.  cg-tree runs main -> top -> mid -> leaf,
# top, mid and leaf burning 20%, 30% and 50% of its time themselves.  perf
# report must show that tree from perf-ring's file with the same shares as
# from perf record's, for frame pointers (-g) and for DWARF unwinding of a
# binary without them (--call-graph dwarf), and the flight recorder's
# snapshots with chains (records up to 64 KiB with dwarf,65528) must decode.
#
# The shares: each side samples at 4 kHz for 2 s, 5000 to 8000 samples
# (fewer when the machine is busy); a share near 50% then has a standard
# deviation of at most 0.7 points, 1.0 for the difference of two
# recordings.  CG_TOL (default 5 points, 5 standard deviations) is the
# difference allowed.

CG=${CG_TREE:-}
CGN=${CG_TREE_NOFP:-}
CG_TOL=${CG_TOL:-5}

# Like check_file, for files with chains: perf script prints a sample on
# several lines, so -G (no chains) counts the samples; with chains it must
# decode without a message too.
cg_check_file() {
	local f=$1 what=$2 rc samples lines
	perf report --stats -i "$f" >stats.out 2>stats.err
	rc=$?
	if [ $rc != 0 ] || grep -qiE 'warn|error|fail|couldn|invalid|unexpected' stats.err stats.out; then
		nok "$what: perf report --stats reads $f" "$(head -5 stats.err)"; return 1
	fi
	"$PR" report -i "$f" >pr.out 2>pr.err || { nok "$what: perf-ring report reads $f" "$(cat pr.err)"; return 1; }
	if ! diff <(norm <stats.out) <(norm <pr.out) >diff.out; then
		nok "$what: perf report --stats agrees with perf-ring report" "$(head -10 diff.out)"; return 1
	fi
	perf script -G -i "$f" >script.out 2>script.err
	rc=$?
	drop_lost_warning script.err	# a loaded machine may lose a chunk (8 KiB dwarf samples)
	if [ $rc != 0 ] || [ -s script.err ]; then
		nok "$what: perf script -G decodes $f" "$(head -5 script.err)"; return 1
	fi
	samples=$(norm <pr.out | awk '/^SAMPLE events:/ {print $3; exit}')
	lines=$(wc -l <script.out)
	if [ "${samples:-0}" != "$lines" ]; then
		nok "$what: perf script -G prints every sample" "samples $samples, lines $lines"; return 1
	fi
	perf script -i "$f" >chains.out 2>chains.err
	rc=$?
	drop_lost_warning chains.err
	if [ $rc != 0 ] || [ -s chains.err ]; then
		nok "$what: perf script decodes the chains of $f" "$(head -5 chains.err)"; return 1
	fi
	perf report -i "$f" --stdio -g caller >report.out 2>report.err
	rc=$?
	drop_lost_warning report.err
	if [ $rc != 0 ] || grep -qiE 'warn|error' report.err; then
		nok "$what: perf report -g reads $f" "$(head -5 report.err)"; return 1
	fi
	ok "$what: perf report -g, perf script (all $lines samples, with chains), --stats agree"
}

# "leaf 48.4 mid 30.1 top 20.3": the self shares perf report gives.
cg_shares() {
	perf report -i "$1" --stdio --no-children --sort sym -g none 2>/dev/null |
		awk '$NF == "leaf" || $NF == "mid" || $NF == "top" { sub("%", "", $1); s[$NF] = $1 }
		     END { printf "leaf %s mid %s top %s\n", s["leaf"], s["mid"], s["top"] }'
}

# perf report --no-children -g caller: the chain under leaf's entry reads
# main, top, mid, leaf, one frame a line, callers first.
cg_tree() {
	perf report -i "$1" --stdio --no-children -g caller --sort sym 2>/dev/null |
		awk '/\[\.\] leaf$/ { on = 1; seq = ""; next }
		     on && /^$/ { if (seq ~ / main top mid leaf$/) found = 1; on = 0 }
		     on { l = $0; gsub(/[-|]/, " ", l); n = split(l, w, " "); if (n) seq = seq " " w[n] }
		     END { exit !found }'
}

# perf script: samples whose chain reads leaf, mid, top, main (callee
# first), out of the samples in leaf
cg_script_chains() {
	awk 'NF == 0 { if (n && f[1] == "leaf") { all++; if (f[2] == "mid" && f[3] == "top" && f[4] == "main") good++ } n = 0; next }
	     /^[ \t]+[0-9a-f]+ / { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); f[++n] = s }
	     END { printf "%d %d\n", good, all }' "$1"
}

# the shares of two files agree within CG_TOL points
cg_same_shares() {
	local a=$1 b=$2
	echo "$a $b" | awk -v tol="$CG_TOL" '{
		for (i = 2; i <= 6; i += 2) { d = $i - $(i + 6); if (d < 0) d = -d; if (d > tol || $i == "") bad = 1 }
	} END { exit bad }'
}

# cg_compare WHAT MINE THEIRS OPTS BIN: perf-ring's file against perf's,
# both recorded with OPTS of BIN.  A share is the program's CPU time in a
# function, which the host's other work can move by more than the
# sampling noise above (last seen: perf record's leaf 42.46 against
# perf-ring's 47.77, whose fp and dwarf files gave 47.30 and 47.97): when
# the pair differs, one more pair of recordings decides.
cg_compare() {
	local what=$1 mine=$2 theirs=$3 opts=$4 bin=$5 s1 s2 first=
	s1=$(cg_shares "$mine")
	s2=$(cg_shares "$theirs")
	if cg_tree "$mine" && cg_tree "$theirs" && ! cg_same_shares "$s1" "$s2" &&
	   "$PR" record -q $opts -o "$mine.2" -- "$bin" 2 2>cg.err &&
	   perf record -q $opts -o "$theirs.2" -- "$bin" 2 >/dev/null 2>&1; then
		first=" (a second pair; the first: $s1 against $s2)"
		s1=$(cg_shares "$mine.2")
		s2=$(cg_shares "$theirs.2")
		rm -f "$mine.2" "$theirs.2"
	fi
	if ! cg_tree "$mine"; then
		nok "$what: perf report -g caller shows main -> top -> mid -> leaf" \
			"$(perf report -i "$mine" --stdio --no-children -g caller --sort sym 2>&1 | grep -v '^#' | head -20)"
	elif ! cg_tree "$theirs"; then
		skip "$what: the tree against perf record's" "perf record's own file does not show the tree"
	elif cg_same_shares "$s1" "$s2"; then
		ok "$what: main -> top -> mid -> leaf, self shares $s1 (perf record: $s2, within $CG_TOL points)$first"
	else
		nok "$what: shares within $CG_TOL points of perf record's" "perf-ring: $s1" "perf record: $s2" \
			"${first# }"
	fi
}

if [ -z "$CG" ] || [ -z "$CGN" ]; then
	skip "call chains" "CG_TREE and CG_TREE_NOFP are not set (make e2e builds cg-tree)"
else
	# -g: frame pointers, against perf record -g
	rm -f cgfp.data cgfp-perf.data
	if ! "$PR" record -q -g -o cgfp.data -- "$CG" 2 2>cg.err; then
		nok "-g: record" "$(cat cg.err)"
	elif ! perf record -q -g -o cgfp-perf.data -- "$CG" 2 >/dev/null 2>cg.err; then
		nok "-g: perf record -g" "$(cat cg.err)"
	elif cg_check_file cgfp.data "-g"; then
		cg_compare "-g (frame pointers)" cgfp.data cgfp-perf.data -g "$CG"
		read -r good all < <(cg_script_chains chains.out)
		if [ "$all" -gt 0 ] && [ $((good * 100)) -ge $((all * 95)) ]; then
			ok "-g: perf script shows leaf, mid, top, main in $good of $all samples in leaf"
		else
			nok "-g: perf script shows the chains" "$good of $all samples in leaf" "$(head -12 chains.out)"
		fi
		if perf evlist -v -i cgfp.data 2>&1 | grep -q 'sample_type: IP|TID|TIME|CALLCHAIN|ID|CPU|PERIOD,'; then
			ok "-g: CALLCHAIN in the sample type, the rest as without it"
		else
			nok "-g: the sample type" "$(perf evlist -v -i cgfp.data 2>&1)"
		fi
	fi

	# --call-graph fp, spelled out: what -g records.  The same attributes
	# as -g's file, and the same tree with shares within CG_TOL of it
	rm -f cgfp2.data
	if [ ! -s cgfp.data ]; then
		nok "--call-graph fp: beside -g" "no -g file to compare with"
	elif ! "$PR" record -q --call-graph fp -o cgfp2.data -- "$CG" 2 2>cg.err; then
		nok "--call-graph fp: record" "$(cat cg.err)"
	elif cg_check_file cgfp2.data "--call-graph fp"; then
		read -r good all < <(cg_script_chains chains.out)
		s1=$(cg_shares cgfp2.data)
		s2=$(cg_shares cgfp.data)
		ev1=$(perf evlist -v -i cgfp2.data 2>&1)
		ev2=$(perf evlist -v -i cgfp.data 2>&1)
		if [ "$ev1" = "$ev2" ] && cg_tree cgfp2.data && [ "$all" -gt 0 ] &&
		   [ $((good * 100)) -ge $((all * 95)) ] && cg_same_shares "$s1" "$s2"; then
			ok "--call-graph fp: -g's attributes; main -> top -> mid -> leaf in $good of $all samples in leaf, self shares $s1 (-g: $s2, within $CG_TOL points)"
		else
			nok "--call-graph fp: the chains of -g" "attributes: $ev1" "-g's: $ev2" \
				"leaf, mid, top, main in $good of $all samples in leaf; shares $s1, -g's $s2"
		fi
	fi

	# --call-graph dwarf on the binary without frame pointers
	rm -f cgdw.data cgdw-perf.data
	if ! "$PR" record -q --call-graph dwarf -o cgdw.data -- "$CGN" 2 2>cg.err; then
		nok "--call-graph dwarf: record" "$(cat cg.err)"
	elif ! perf record -q --call-graph dwarf -o cgdw-perf.data -- "$CGN" 2 >/dev/null 2>cg.err; then
		nok "--call-graph dwarf: perf record" "$(cat cg.err)"
	elif cg_check_file cgdw.data "--call-graph dwarf"; then
		cg_compare "--call-graph dwarf (no frame pointers)" cgdw.data cgdw-perf.data \
			"--call-graph dwarf" "$CGN"
		ev=$(perf evlist -v -i cgdw.data 2>&1)
		if echo "$ev" | grep -q 'sample_regs_user: 0xff0fff, sample_stack_user: 8192' &&
		   echo "$ev" | grep -q 'exclude_callchain_user: 1'; then
			ok "--call-graph dwarf: perf's registers (0xff0fff) and 8192 bytes of stack"
		else
			nok "--call-graph dwarf: attributes" "$ev"
		fi
	fi
	# frame pointers on the binary without them do not get the tree:
	# the comparison can fail
	rm -f cgbad.data
	if "$PR" record -q -g -o cgbad.data -- "$CGN" 1 2>cg.err && ! cg_tree cgbad.data; then
		ok "-g on a binary without frame pointers does not show the tree (the check can fail)"
	else
		nok "-g on a binary without frame pointers" "the tree check passed or the record failed: $(cat cg.err)"
	fi

	# --user-callchains, --kernel-callchains: perf's exclude bits
	rm -f cgu.data cgk.data
	if "$PR" record -q -g --user-callchains -o cgu.data -- "$CG" 0.2 2>cg.err &&
	   "$PR" record -q -g --kernel-callchains -o cgk.data -- "$CG" 0.2 2>>cg.err &&
	   perf evlist -v -i cgu.data 2>&1 | grep -q 'exclude_callchain_kernel: 1' &&
	   perf evlist -v -i cgk.data 2>&1 | grep -q 'exclude_callchain_user: 1' &&
	   ! perf script -i cgu.data 2>/dev/null | grep -q 'kernel.kallsyms'; then
		ok "--user-callchains, --kernel-callchains: exclude_callchain_kernel, _user; no kernel frames"
	else
		nok "--user-callchains, --kernel-callchains" "$(cat cg.err)" "$(perf evlist -v -i cgu.data 2>&1)"
	fi

	# the flight recorder: snapshots every second, with chains
	for cgmode in "-g" "--call-graph dwarf" "--call-graph dwarf,65528 -m 1M"; do
		rm -f cgfl.data*
		bin=$CG
		[ "$cgmode" = -g ] || bin=$CGN
		# shellcheck disable=SC2086
		if ! "$PR" record -q --overwrite --switch-output=1s $cgmode -o cgfl.data -- "$bin" 3 2>cg.err; then
			nok "--overwrite $cgmode: record" "$(cat cg.err)"
			continue
		fi
		nfl=0
		for f in cgfl.data*; do
			nfl=$((nfl + 1))
			cg_check_file "$f" "--overwrite $cgmode: snapshot $nfl"
		done
		[ "$nfl" -ge 2 ] || nok "--overwrite $cgmode: a snapshot every second" "$(ls cgfl.data*)"
	done
	expect_fail "--overwrite with 64 KiB records in a 512 KiB buffer" 255 "need a buffer of at least 1024 kB (-m 1024K)" \
		"$PR" record --overwrite --call-graph dwarf,65528 -o x.data -- true
	expect_fail "--call-graph with a bad stack size" 129 "incorrect stack dump size (max 65528)" \
		"$PR" record --call-graph dwarf,70000 -o x.data -- true
	if ! ls /sys/bus/event_source/devices/cpu >/dev/null 2>&1; then
		expect_fail "--call-graph lbr without a hardware PMU" 255 "no hardware PMU" \
			"$PR" record --call-graph lbr -o x.data -- true
	else
		skip "--call-graph lbr without a hardware PMU" "this machine has a cpu PMU"
	fi
fi
