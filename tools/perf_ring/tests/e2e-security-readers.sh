#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The readers and hostile files: perf-ring report, --recover and
# --decompress on files made to hurt them (hostile.py makes each).  Every
# case runs under ulimit -v and a timeout; what is asked is a clear error
# and a non-zero exit (2; for an allocation that fails, 2 and never
# "wrote"), quickly, and no crash: an exit status of 128 or more (a
# signal) or a timeout fails.  Then report's -f: a file owned by another
# user is refused, as perf refuses it, unless -f.
#
# Standalone: e2e-security-readers.sh SCRATCH_DIR, with PERF_RING naming
# the binary; prints TAP, exits non-zero on a failure.  Sourced (by e2e.sh
# or e2e-security.sh), it uses their ok/nok/skip, $PR and $W.
#
# The limits are for a build without sanitizers (ASan reserves terabytes
# of address space, which ulimit -v refuses).

if ! declare -F ok >/dev/null; then
	set -u
	W=${1:?usage: e2e-security-readers.sh SCRATCH_DIR (PERF_RING names the binary)}
	PR=${PERF_RING:?}
	N=0
	FAIL=0
	ok()   { N=$((N + 1)); echo "ok $N - $1"; }
	nok()  { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
	skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
	SR_STANDALONE=1
	rm -rf "$W"
	mkdir -p "$W" || exit 1
else
	SR_STANDALONE=
fi
SR_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SR=$W/security-readers
rm -rf "$SR"
mkdir -p "$SR" || exit 1

# hrun VMEM_KB SECONDS CMD...: CMD with at most VMEM_KB of address space,
# an 8 MiB stack, files of at most 512 MiB, for at most SECONDS; its
# output in $SR/out, errors in $SR/err, exit status in hrc (124: timeout)
# (the shell's own line about a crash is not wanted: the status says it)
hrun() {
	local vm=$1 t=$2
	shift 2
	{
		(
			ulimit -v "$vm" -s 8192 -f $((512 * 1024)) || exit 99
			exec timeout -k 5 "$t" "$@"
		) >"$SR/out" 2>"$SR/err" </dev/null
		hrc=$?
	} 2>/dev/null
}

# one line of at most 200 characters of FILE, for a diagnostic
line() { head -c 600 "$1" | tr '\n' ' ' | cut -c1-200; }

# refused WHAT WANT_RC PATTERN: the last hrun exited WANT_RC (any of 1..127
# if empty), said PATTERN on stderr, and did not print "wrote"
refused() {
	local what=$1 want=$2 pat=$3
	if [ "$hrc" = 124 ] || [ "$hrc" = 137 ]; then
		nok "$what" "still running at the timeout: $(line "$SR/err")"
	elif [ "$hrc" -ge 128 ]; then
		nok "$what" "crashed: exit $hrc (signal $((hrc - 128))): $(line "$SR/err")"
	elif [ "$hrc" = 0 ] || { [ -n "$want" ] && [ "$hrc" != "$want" ]; }; then
		nok "$what" "exit $hrc, want ${want:-non-zero}: $(line "$SR/err")" "stdout ends: $(tail -2 "$SR/out" | line /dev/stdin)"
	elif ! grep -qE "$pat" "$SR/err"; then
		nok "$what" "exit $hrc without the message /$pat/: $(line "$SR/err")"
	elif grep -q '^wrote ' "$SR/out"; then
		nok "$what" "exit $hrc, but it says: $(grep '^wrote ' "$SR/out")"
	else
		ok "$what (exit $hrc: $(head -1 "$SR/err" | cut -c1-150))"
	fi
}

if ! command -v python3 >/dev/null; then
	skip "readers: hostile files" "python3 is needed to make them"
else
	H="python3 $SR_HERE/hostile.py"
	cd "$SR" || exit 1
	for c in plain many-attrs event-desc zstd-bomb id-overlap big-feature pipe-garbage tp-attrs; do
		$H $c $c.data || nok "readers: hostile.py $c"
	done

	# 1. 800,000 empty attributes in a 64 MB sparse file: the event count
	# sized an array on the stack (SIGSEGV)
	hrun 1048576 30 "$PR" report -i many-attrs.data
	refused "readers: report of 800,000 attributes (sparse 64 MB) is refused" 2 'events'
	hrun 1048576 30 "$PR" report --recover -i many-attrs.data -o many-attrs.rec
	refused "readers: --recover of 800,000 attributes is refused" 2 'events'

	# 2. HEADER_EVENT_DESC of 65536 entries against 131072 ids (2 MB):
	# parsed in O(entries x ids) it takes half a minute or more
	hrun 1048576 10 "$PR" report -i event-desc.data
	if [ "$hrc" = 0 ] && grep -q 'SAMPLE events: *1$' "$SR/out"; then
		ok "readers: a 1 MB EVENT_DESC of 65536 entries over 131072 ids is read in under 10 s"
	else
		nok "readers: a 1 MB EVENT_DESC of 65536 entries over 131072 ids is read in under 10 s" \
			"exit $hrc (124/137: the timeout): $(line "$SR/err")"
	fi

	# 3. a zstd bomb: 1 MB of COMPRESSED records that decompress to 32 GB
	hrun 1048576 10 "$PR" report -i zstd-bomb.data
	refused "readers: report stops a zstd bomb (1 MB -> 32 GB) at once" 2 'zstd bomb'
	hrun 1048576 10 "$PR" report --decompress -i zstd-bomb.data -o zstd-bomb.out
	refused "readers: --decompress stops a zstd bomb, writes no 32 GB" 2 'zstd bomb'
	rm -f zstd-bomb.out

	# 4. standard input: 400 MB of zeros, and a pipe header then zeros;
	# the reader must stop at once, so that the writer gets SIGPIPE
	# (141) instead of having all of it taken into memory
	for src in "head -c 400M /dev/zero" "cat pipe-garbage.data"; do
		{
			(
				ulimit -v 1048576 -s 8192
				$src | timeout 20 "$PR" report -i - >"$SR/out" 2>"$SR/err"
				echo "${PIPESTATUS[*]}" >"$SR/st"
			)
		} 2>/dev/null
		read -r prc hrc <"$SR/st"
		what="readers: report -i - of '$src' fails at once"
		if [ "$prc" != 141 ] && [ "$hrc" -lt 128 ] && [ "$hrc" != 0 ]; then
			nok "$what" "the whole stream was read first (writer exit $prc, reader exit $hrc: $(line "$SR/err"))"
		else
			refused "$what" 2 'bad magic|corrupt record at offset 16'
		fi
	done

	# 5. id tables that overlap: 48 events on one 16 MB table, 768 MB
	# of ids (and a sample-id map twice that) from a 16 MB file
	hrun 1048576 30 "$PR" report -i id-overlap.data
	refused "readers: id tables adding up to 48 times the file are refused" 2 'id tables'

	# 6. an allocation that fails: a 130 MB feature section, copied by
	# --decompress in 350 MB of address space
	hrun 358400 30 "$PR" report --decompress -i big-feature.data -o big-feature.out
	refused "readers: --decompress out of memory exits 2, never 'wrote'" 2 'out of memory|Cannot allocate'
	rm -f big-feature.out

	# 7. --recover names the events from this machine's tracefs: 20000
	# tracepoint attributes, one walk of tracefs each, took hours
	hrun 1048576 20 "$PR" report --recover -i tp-attrs.data -o tp-attrs.rec
	if [ "$hrc" = 0 ] && grep -q "recovered 40 bytes" "$SR/err" &&
	   [ "$(grep -c 'has no name' "$SR/err")" -le 10 ]; then
		ok "readers: --recover of 20000 tracepoint attributes walks tracefs once, warns 10 times"
	else
		refused "readers: --recover of 20000 tracepoint attributes walks tracefs once" 0 '.'
	fi
	rm -f tp-attrs.rec

	# the limits refuse nothing sound
	hrun 1048576 10 "$PR" report -i plain.data
	if [ "$hrc" = 0 ] && grep -q 'cpu-clock stats' "$SR/out"; then
		ok "readers: a sound small file is still read, its event names from EVENT_DESC"
	else
		nok "readers: a sound small file is still read" "exit $hrc: $(line "$SR/err")"
	fi

	# 8. files of another user: refused unless -f, as perf does
	# (util/data.c), by report and by --recover
	if ! id nobody >/dev/null 2>&1 || [ "$(id -u)" = "$(id -u nobody)" ]; then
		skip "readers: report refuses another user's file" "no user 'nobody' to own it"
	elif [ "$(id -u)" != 0 ]; then
		skip "readers: report refuses another user's file" "needs root to give a file to nobody"
	else
		cp plain.data nobody.data && chown nobody nobody.data
		hrun 1048576 10 "$PR" report -i nobody.data
		refused "readers: report refuses a file owned by nobody" 2 \
			'not owned by current user or root \(use -f to override\)'
		hrun 1048576 10 "$PR" report --recover -i nobody.data -o nobody.rec
		refused "readers: --recover refuses a file owned by nobody" 2 \
			'not owned by current user or root \(use -f to override\)'
		# before a byte of it is read: a hostile file of nobody's is
		# refused for its owner, not for what it holds
		cp --sparse=always many-attrs.data nobody-hostile.data && chown nobody nobody-hostile.data
		hrun 1048576 10 "$PR" report -i nobody-hostile.data
		refused "readers: report refuses nobody's hostile file for its owner, before reading it" 2 \
			'not owned by current user or root \(use -f to override\)'
		hrun 1048576 10 "$PR" report -f -i nobody.data
		if [ "$hrc" = 0 ] && grep -qE 'SAMPLE events: +3 ' "$SR/out"; then
			ok "readers: report -f reads a file owned by nobody"
		else
			nok "readers: report -f reads a file owned by nobody" "exit $hrc: $(line "$SR/err")"
		fi
	fi
	cd "$W" || exit 1
fi

if [ -n "$SR_STANDALONE" ]; then
	echo "1..$N"
	if [ "$FAIL" = 0 ]; then rm -rf "$W"; else echo "# $FAIL of $N failed; files in $SR"; fi
	exit $((FAIL != 0))
fi
rm -rf "$SR"
