# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by e2e.sh after e2e-callchains.sh (it uses cg_shares): build-ids.
# Every kind of file perf-ring writes (streaming, -z, switched files,
# flight-recorder snapshots) carries HEADER_BUILD_ID for the kernel and the
# program, which perf buildid-list reads and perf archive packs; the DSOs
# go into the build-id cache as perf record puts them there (-N: not), so
# that perf report on a recording of a program that was rebuilt since,
# with a new function in front, still names the functions that ran.
#
# HOME points at scratch directories, so that the caches are the tests' own.

BV1=${CG_TREE:-}
BV2=${CG_TREE_V2:-}

bid_of() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }

# FILE WHAT: perf buildid-list lists the kernel and the program with their
# build-ids, without a message, and perf archive packs the program's
bid_check() {
	local f=$1 what=$2 out
	out=$(HOME=$BH perf buildid-list -i "$f" 2>bl.err)
	if [ $? != 0 ] || [ -s bl.err ]; then
		nok "$what: perf buildid-list -i $f" "$(head -3 bl.err)"; return 1
	fi
	if ! echo "$out" | grep -qx "$BID $BPROG" || ! echo "$out" | grep -qx "$KBID \[kernel.kallsyms\]"; then
		nok "$what: perf buildid-list lists the kernel and the program" "$out"; return 1
	fi
	rm -f "$f.tar.bz2"
	if ! HOME=$BH perf archive "$f" >ar.out 2>&1; then
		nok "$what: perf archive $f" "$(head -3 ar.out)"; return 1
	fi
	if ! tar tjf "$f.tar.bz2" 2>/dev/null | grep -qx ".build-id/${BID:0:2}/${BID:2}"; then
		nok "$what: perf archive packs the program" "$(tar tjf "$f.tar.bz2" 2>&1 | head -5)"; return 1
	fi
	ok "$what: perf buildid-list (kernel, program), perf archive ($(tar tjf "$f.tar.bz2" | grep -c '/elf$\|/kallsyms$') files)"
}

if [ -z "$BV1" ] || [ -z "$BV2" ]; then
	skip "build-ids" "CG_TREE and CG_TREE_V2 are not set (make e2e builds them)"
elif ! command -v readelf >/dev/null || [ -z "$(bid_of "$BV1")" ]; then
	skip "build-ids" "readelf (binutils) is missing, or cg-tree has no build-id note"
elif [ -z "$(perf buildid-list -k 2>/dev/null)" ]; then
	skip "build-ids" "perf cannot read the running kernel's build-id (/sys/kernel/notes)"
else
	BH=$W/bidhome
	BPROG=$W/bid/cg-tree
	KBID=$(perf buildid-list -k 2>/dev/null)
	rm -rf "$BH" "$W/bid"
	mkdir -p "$BH" "$W/bid"
	cp "$BV1" "$BPROG"
	BID=$(bid_of "$BPROG")

	# streaming, -z
	for mode in "" "-z"; do
		rm -f bid.data
		# shellcheck disable=SC2086
		if HOME=$BH "$PR" record -q $mode -o bid.data -- "$BPROG" 0.5 2>bid.err; then
			bid_check bid.data "build-ids, record $mode"
		else
			nok "build-ids: record $mode" "$(cat bid.err)"
		fi
	done
	# attr.build_id only where the kernel does not flag other events'
	# MMAP2 records too (bidleak.h); -v says which way was taken
	HOME=$BH "$PR" record -v -o bidv.data -- true 2>bidv.err
	how=$(sed -n 's/^perf-ring record: build-ids: //p' bidv.err)
	asked=$(perf evlist -v -i bidv.data 2>&1 | grep -c 'build_id: 1')
	case "$how:$asked" in
	"from the kernel's MMAP2 records"*:1)
		ok "build-ids: the kernel is asked for them in MMAP2 (attr.build_id), as -v says" ;;
	"from the ELF notes: this kernel flags"*:0)
		ok "build-ids: not asked of this kernel, which flags other events' MMAP2 records too; -v says so" ;;
	"from the ELF notes"*:0)
		skip "build-ids: attr.build_id" "$how" ;;
	*)	nok "build-ids: -v says where they come from, and attr.build_id agrees" \
			"-v: '$how'; events with build_id: 1: $asked" ;;
	esac
	rm -f bidv.data bidv.data.old
	# the cache, as perf record fills it
	link=$BH/.debug/.build-id/${BID:0:2}/${BID:2}
	if [ "$(bid_of "$link/elf")" = "$BID" ] &&
	   [ "$(readlink "$link")" = "../..$BPROG/$BID" ] &&
	   [ -s "$BH/.debug/.build-id/${KBID:0:2}/${KBID:2}/kallsyms" ]; then
		ok "build-ids: the program and the kernel's symbols in the cache, laid out as perf's"
	else
		nok "build-ids: the cache" "$(cd "$BH" && find .debug | head -20)"
	fi
	rm -rf "$W/bidhome-n" && mkdir -p "$W/bidhome-n"
	if HOME=$W/bidhome-n "$PR" record -q -N -o bidn.data -- "$BPROG" 0.2 2>bid.err &&
	   [ ! -e "$W/bidhome-n/.debug" ] &&
	   HOME=$W/bidhome-n perf buildid-list -i bidn.data 2>/dev/null | grep -qx "$BID $BPROG"; then
		ok "build-ids: -N writes them in the file, not in the cache"
	else
		nok "build-ids: -N" "$(cat bid.err)" "$(ls -a "$W/bidhome-n")"
	fi
	if HOME=$W/bidhome-n "$PR" record -q -B -o bidb.data -- "$BPROG" 0.2 2>bid.err &&
	   ! perf evlist -v -i bidb.data 2>&1 | grep -q 'build_id' &&
	   ! HOME=$W/bidhome-n perf buildid-list -i bidb.data 2>/dev/null | grep -qE '^[0-9a-f]{40} '; then
		ok "build-ids: -B: none asked for, none written"
	else
		nok "build-ids: -B" "$(cat bid.err)" "$(HOME=$W/bidhome-n perf buildid-list -i bidb.data 2>&1)"
	fi

	# switched files and flight-recorder snapshots, compressed: each one
	rm -f bsw.data*
	if HOME=$BH "$PR" record -q -z --switch-output=1s -o bsw.data -- "$BPROG" 2.5 2>bid.err; then
		for f in bsw.data.*; do bid_check "$f" "build-ids, -z --switch-output=1s, $f"; done
	else
		nok "build-ids: --switch-output" "$(cat bid.err)"
	fi
	rm -f bfl.data*
	if HOME=$BH "$PR" record -q -z --overwrite --switch-output=1s -o bfl.data -- "$BPROG" 2.5 2>bid.err; then
		for f in bfl.data.*; do bid_check "$f" "build-ids, --overwrite -z snapshot $f"; done
	else
		nok "build-ids: --overwrite snapshots" "$(cat bid.err)"
	fi

	# -p: the program's MMAP2 is synthesized from /proc, without a build-id:
	# it comes from the ELF notes
	rm -f bidp.data
	"$BPROG" 2 &
	bpid=$!
	sleep 0.3
	if HOME=$BH "$PR" record -q -p $bpid -o bidp.data 2>bid.err; then
		bid_check bidp.data "build-ids, -p (synthesized maps: from the ELF notes)"
	else
		nok "build-ids: -p" "$(cat bid.err)"
	fi
	wait $bpid

	# a rebuild: record v1, replace it by v2 (a new function in front),
	# and report on the old recording
	rm -f bold.data bold-n.data
	rm -rf "$W/bidhome-c" && mkdir -p "$W/bidhome-c"
	HOME=$BH "$PR" record -q -o bold.data -- "$BPROG" 1 2>bid.err &&
		HOME=$W/bidhome-c "$PR" record -q -N -o bold-n.data -- "$BPROG" 1 2>>bid.err ||
		nok "build-ids: record before the rebuild" "$(cat bid.err)"
	rm -f "$BPROG"
	cp "$BV2" "$BPROG"
	if [ "$(bid_of "$BPROG")" = "$BID" ]; then
		nok "build-ids: the rebuilt program has a build-id of its own" "$BID"
	else
		s_old=$(HOME=$BH cg_shares bold.data)
		s_nc=$(HOME=$W/bidhome-c cg_shares bold-n.data)
		if echo "$s_old" | awk '{ exit !($2 > 35 && $4 > 15 && $6 > 8) }'; then
			ok "build-ids: after a rebuild with a new function in front, perf report names what ran ($s_old)"
		else
			nok "build-ids: perf report after a rebuild" "with the cache: $s_old" \
				"$(HOME=$BH perf report -i bold.data --stdio --no-children --sort dso,sym 2>&1 | grep -v '^#' | head -8)"
		fi
		if echo "$s_nc" | awk '{ exit !($2 > 35 && $4 > 15 && $6 > 8) }'; then
			nok "build-ids: without the cache the rebuild is noticed (the check can fail)" "$s_nc"
		else
			ok "build-ids: without the cache (-N) perf report cannot name them ($s_nc): the check can fail"
		fi
	fi
fi
