# SPDX-License-Identifier: GPL-2.0
#
# Every perf tool reads every kind of file perf-ring writes (sourced by
# e2e.sh: its helpers and variables are used here).  A crash, a non-zero
# exit, or an error or warning on stderr fails; perf report --stats may
# warn of lost records only on a file that has LOST records.  perf diff
# runs on pairs of kinds.  The pipe files (-o -) are in e2e-pipe.sh.

MX=3000000		# BASE of the close() calls
# the kinds: a file each
rm -f mx-*.data*
"$PR" record -q -m 4M -e raw_syscalls:sys_enter,cpu-clock -o mx-stream.data -- "$CL" 200000 $MX
"$PR" record -q -m 4M -z -e raw_syscalls:sys_enter,cpu-clock -o mx-z.data -- "$CL" 200000 $MX
"$PR" record -q -m 4M -z -e raw_syscalls:sys_enter,cpu-clock --switch-output=256K -o mx-sw.data -- \
	"$CL" 200000 $MX
mv "$(ls mx-sw.data.* | sort | tail -2 | head -1)" mx-switched.data	# one after a switch
rm -f mx-sw.data.*
# the snapshots: the last 1 MiB, which close-loop's syscalls alone fill in
# 15 ms, often without a sample in user space for annotate; 0.2 s of
# cg-tree after it (user space only) puts some there
tail_cmd="$CL 200000 $MX"
[ -z "${CG_TREE:-}" ] || tail_cmd="$tail_cmd && $CG_TREE 0.2"
"$PR" record -q --overwrite -m 1M -e raw_syscalls:sys_enter,cpu-clock -o mx-snap.data -- sh -c "$tail_cmd"
"$PR" record -q --overwrite -z -m 1M -e raw_syscalls:sys_enter,cpu-clock -o mx-snapz.data -- sh -c "$tail_cmd"
# call chains: frame pointers, and dwarf (user stacks of 8 KiB) with -z,
# in a streaming file and a snapshot; cpu-clock only, a sample a tick
"$PR" record -q -m 4M -g -e cpu-clock -o mx-g.data -- "$CL" 200000 $MX
"$PR" record -q -m 4M -z --call-graph dwarf,8192 -e cpu-clock -o mx-dwarfz.data -- "$CL" 200000 $MX
# (the -g snapshot ends with cg-tree too: close-loop's few cpu-clock
# samples may all be in the kernel, leaving annotate nothing in user space;
# the dwarf one keeps close-loop alone: its 1 MiB holds ~120 samples, and
# with cg-tree after it, annotate found main in the report but no sample)
"$PR" record -q --overwrite -m 1M -g -e cpu-clock -o mx-snapg.data -- sh -c "$tail_cmd"
"$PR" record -q --overwrite -m 1M --call-graph dwarf,8192 -e cpu-clock -o mx-snapdwarf.data -- \
	"$CL" 200000 $MX
KINDS="stream z switched snap snapz g dwarfz snapg snapdwarf"
declare -A lost_of	# LOST records of each kind's file, for perf diff

# tool_ok WHAT: the last tool run (rc, tool.err) went cleanly. perf's
# warning about lost records is allowed where the file has LOST records
# ($lost, from its --stats): a recording on a loaded machine may lose a
# chunk, and every perf tool then says so; nothing else is allowed.
tool_ok() {
	local rc=$1 what=$2
	[ -z "${lost:-}" ] || [ "$lost" = 0 ] || drop_lost_warning tool.err
	if [ "$rc" != 0 ] || grep -qiE 'warn|error|fail|couldn|invalid|segmentation|abort' tool.err; then
		nok "$what" "exit $rc: $(head -4 tool.err)"
		return 1
	fi
	return 0
}

for k in $KINDS; do
	f=mx-$k.data
	if [ ! -s "$f" ]; then
		nok "tools on the $k file: recorded" "no $f"
		continue
	fi
	bad=0
	# --stats: perf's warning about lost records only where the file
	# has LOST records (it says so itself)
	perf report --stats -i "$f" >stats.out 2>tool.err
	rc=$?
	samples=$(awk '/^ *SAMPLE events:/ { print $3; exit }' stats.out)
	lost=$(awk '/^ *LOST events:/ { print $3; exit }' stats.out)
	lost_of[$k]=$lost
	tool_ok $rc "perf report --stats on the $k file" || bad=1
	perf report --stdio -i "$f" >tool.out 2>tool.err; tool_ok $? "perf report on the $k file" || bad=1
	perf script -i "$f" >tool.out 2>tool.err; tool_ok $? "perf script on the $k file" || bad=1
	perf inject -i "$f" -o inj.data 2>tool.err; tool_ok $? "perf inject on the $k file" || bad=1
	perf report --stats -i inj.data >tool.out 2>tool.err; tool_ok $? "perf report on inject's output of the $k file" || bad=1
	perf inject -b -i "$f" -o injb.data 2>tool.err; tool_ok $? "perf inject -b on the $k file" || bad=1
	# annotate a user symbol (the kernel's need a vmlinux): main, when
	# the file has samples there, else the user symbol with the most (a
	# snapshot's last 1 MiB may hold none in main, or in libc's __close).
	# Samples of its own (--no-children): with call chains, perf report
	# lists main for its callees' samples, and annotate finds none in it.
	perf report --stdio --no-children -i "$f" --sort sym 2>/dev/null >syms.out
	if grep -q '\[\.\] main$' syms.out; then
		perf annotate --stdio -i "$f" main >tool.out 2>tool.err
		tool_ok $? "perf annotate main on the $k file" && ! grep -qE 'Disassembly of (close-loop|cg-tree)' tool.out &&
			{ nok "perf annotate main on the $k file: disassembles close-loop or cg-tree" "$(head -3 tool.out)"; bad=1; }
	else
		usym=$(awk '$2 == "[.]" { print $3; exit }' syms.out)
		if [ -z "$usym" ]; then
			nok "perf annotate on the $k file" "no sample in user space to annotate"; bad=1
		else
			perf annotate --stdio -i "$f" "$usym" >tool.out 2>tool.err
			tool_ok $? "perf annotate $usym on the $k file" &&
				! grep -q 'Disassembly of' tool.out &&
				{ nok "perf annotate $usym on the $k file: no disassembly" "$(head -3 tool.out)"; bad=1; }
		fi
	fi
	perf buildid-list -i "$f" >tool.out 2>tool.err; tool_ok $? "perf buildid-list on the $k file" || bad=1
	# perf archive packs the DSOs with samples: at least one
	nar=0; rm -f "$f.tar.bz2"
	perf archive "$f" >tool.out 2>tool.err
	tool_ok $? "perf archive on the $k file" &&
		{ nar=$(tar tjf "$f.tar.bz2" 2>/dev/null | grep -c '^\.build-id/../[0-9a-f]*$')
		  [ "$nar" -ge 1 ] || { nok "perf archive on the $k file: packs the DSOs" "$(head -3 tool.out)"; bad=1; }; } ||
		bad=1
	rm -f mx.json
	perf data convert --to-json mx.json -i "$f" >/dev/null 2>tool.err
	tool_ok $? "perf data convert --to-json on the $k file" &&
		{ n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["samples"]))' mx.json 2>&1)
		  [ "$n" = "$samples" ] || { nok "perf data convert --to-json on the $k file: every sample" "$n of $samples"; bad=1; }; } ||
		bad=1
	perf evlist -v -i "$f" >tool.out 2>tool.err
	first=raw_syscalls:sys_enter
	case $k in g|dwarfz|snapg|snapdwarf) first=cpu-clock ;; esac
	tool_ok $? "perf evlist -v on the $k file" && ! grep -q "^$first: " tool.out &&
		{ nok "perf evlist -v on the $k file lists the events" "$(head -3 tool.out)"; bad=1; }
	# the chains: perf script shows more than one frame per sample
	case $k in g|dwarfz|snapg|snapdwarf)
		frames=$(perf script -i "$f" 2>/dev/null | grep -cE '^\s+[0-9a-f]+ ')
		[ "$frames" -gt "$samples" ] ||
			{ nok "perf script on the $k file shows the call chains" "$frames frames for $samples samples"; bad=1; }
	esac
	[ $bad = 0 ] && ok "the $k file ($samples samples${lost:+, $lost LOST records}): perf report, report --stats, script, inject, inject -b, annotate, buildid-list, archive ($nar build-ids), data convert --to-json, evlist -v"
done

# perf diff of two recordings: a non-empty table (both events, or the
# call-chain files' cpu-clock)
for pair in "stream z" "snap snapz" "stream snap" "stream switched" "g snapg" "dwarfz snapdwarf" "g dwarfz"; do
	set -- $pair
	lost=${lost_of[$1]:-}${lost_of[$2]:-}
	perf diff "mx-$1.data" "mx-$2.data" >tool.out 2>tool.err
	if tool_ok $? "perf diff $1 $2" && grep -q '^# Baseline' tool.out &&
	   [ "$(grep -cE '^ +[0-9.]+%' tool.out)" -ge 2 ]; then
		ok "perf diff of the $1 and $2 files: a table with $(grep -cE '^ +[0-9.]+%' tool.out) rows"
	else
		nok "perf diff of the $1 and $2 files: a non-empty table" "$(head -8 tool.out)"
	fi
done
rm -f mx-*.data* inj.data injb.data mx.json stats.out
