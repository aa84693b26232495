#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Safe as root on a shared host: a local user who plants links and fifos
# where root's perf-ring creates files, swaps a library during a
# system-wide recording, or points root at their own build-id cache,
# must not make perf-ring write, truncate or create anything outside what
# it was asked to, nor block it.  Prints TAP; exits non-zero on any
# failure.  Missing privileges or tools are a SKIP with the reason.
#
# An unprivileged user is created for the run (and removed).  The kernel's
# own protections (fs.protected_symlinks, protected_fifos,
# protected_regular) are turned off for the run and restored: perf-ring's
# protection must not depend on them.
#
# Each case is a function in a section; run_case runs it with a timeout,
# so that a hang is a failure.  Cases are independent: each has its own
# names in the shared directory.
#
# usage: e2e-security.sh SCRATCH_DIR   (PERF_RING names the binary;
#        CASES=REGEX runs only the matching case functions)

set -u
W=${1:?scratch dir}
PR=${PERF_RING:?}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/tap.sh"
T=20			# seconds a perf-ring command may take before it is a hang

[ "$(id -u)" = 0 ] || skip_all "needs root (the recorder runs as root; a user is created)"
command -v setpriv >/dev/null || skip_all "setpriv is missing (util-linux)"
command -v useradd >/dev/null || skip_all "useradd is missing (passwd)"
# the system's python: root's PATH may lead to a python the user cannot run
PY=/usr/bin/python3
[ -x $PY ] || skip_all "$PY plants the predicted names"
[ -x "$PR" ] || skip_all "PERF_RING=$PR is not a program"

# --- the run's setup: scratch directories, the user, the sysctls --------

U=prsec$$
SYSCTLS="fs.protected_symlinks fs.protected_fifos fs.protected_regular"
declare -A SAVED
cleanup() {
	local k
	for k in "${!SAVED[@]}"; do sysctl -q -w "$k=${SAVED[$k]}" >/dev/null; done
	mountpoint -q "$W/cache" 2>/dev/null && umount "$W/cache"
	id "$U" >/dev/null 2>&1 && userdel "$U" 2>/dev/null
}
finish() {
	echo "1..$N"
	cleanup
	if [ "$FAIL" = 0 ]; then cd / && rm -rf "$W"; else echo "# $FAIL of $N failed; files in $W"; fi
	exit $((FAIL != 0))
}
# only the script itself cleans up, not a subshell it runs in the background
MAIN=$BASHPID
trap '[ "$BASHPID" = "$MAIN" ] && cleanup; exit 1' INT TERM

rm -rf "$W"
mkdir -p "$W" || exit 1
W=$(cd "$W" && pwd)
chmod 755 "$W"
cd "$W" || exit 1
useradd --no-create-home --home-dir "$W/home" --shell /usr/sbin/nologin "$U" 2>useradd.err ||
	skip_all "cannot create a user: $(cat useradd.err)"
G=$(id -g "$U")
for k in $SYSCTLS; do
	v=$(sysctl -n "$k" 2>/dev/null) || continue
	SAVED[$k]=$v
	sysctl -q -w "$k=0" >/dev/null || echo "# cannot set $k=0: the run keeps $v"
done

# pub: a world-writable sticky directory, as /tmp; own: root's own files,
# the victim among them; home, u: the user's
mkdir -p pub own home u
chmod 1777 pub
chown "$U:$G" home u
VICTIM=$W/own/victim
VICTIM_TEXT="root's file, not to be touched $$"
echo "$VICTIM_TEXT" >"$VICTIM"
chmod 644 "$VICTIM"

as_user() { setpriv --reuid="$U" --regid="$G" --clear-groups -- "$@"; }
victim_intact() { [ -f "$VICTIM" ] && [ ! -L "$VICTIM" ] && [ "$(tr -d '\0' <"$VICTIM")" = "$VICTIM_TEXT" ]; }
# rec OUT_ERR ARGS...: perf-ring with a timeout; its status in RC (124: hung)
rec() {
	local err=$1
	shift
	timeout -k 2 "$T" "$PR" "$@" >/dev/null 2>"$err"
	RC=$?
}
hung() { [ "$RC" = 124 ] || [ "$RC" = 137 ]; }
# a perf.data file perf-ring reads back
readable() { "$PR" report -i "$1" >/dev/null 2>&1; }
mode_of() { stat -c %a "$1" 2>/dev/null; }

# plant_stamped BASE TARGET [SUFFIX]: as the user, a link to TARGET at
# every name BASE.YYYYmmddHHMMSSmmm[SUFFIX] (local time, as perf-ring names
# switched files) of a window of 3 seconds that starts after the planting
# is done; returns when the window starts (a run started then names its
# file in it)
plant_stamped() {
	as_user $PY - "$@" <<'EOF'
import os, sys, time
base, target = sys.argv[1], sys.argv[2]
suffix = sys.argv[3] if len(sys.argv) > 3 else ""
lead = 2
while True:
    s0 = int(time.time()) + lead
    for s in range(s0, s0 + 3):
        stamp = time.strftime("%Y%m%d%H%M%S", time.localtime(s))
        for ms in range(1000):
            try:
                os.symlink(target, "%s.%s%03d%s" % (base, stamp, ms, suffix))
            except FileExistsError:
                pass
    if time.time() < s0:
        break
    lead *= 2    # slower than the clock (a loaded host): further ahead
time.sleep(s0 - time.time())
EOF
}

# a root recording to read back from (the --decompress and --recover cases)
make_input() {
	"$PR" record -q "$@" -e cpu-clock -o "$IN" -- sleep 0.2 >/dev/null 2>&1
}

# --- outputs: planted links and fifos on every name the recorder makes ---
## outputs

case_output_link() {
	local what="-o NAME, NAME a dangling link planted by the user" t=$W/own/created-o
	as_user ln -s "$t" pub/o.data
	rec o.err record -e cpu-clock -o pub/o.data -- true
	if [ -e "$t" ]; then
		nok "$what: no file created where the link points" "created $(ls -l "$t")"
	elif hung; then
		nok "$what: not blocked" "timed out"
	else
		ok "$what: nothing created through it (exit $RC: $(head -c 160 o.err))"
	fi
}

case_output_fifo() {
	local what="-o NAME, NAME a fifo planted by the user"
	as_user mkfifo pub/p.data
	rec p.err record -e cpu-clock -o pub/p.data -- true
	if hung; then
		nok "$what: not blocked" "perf-ring still in open() after ${T} s"
	else
		ok "$what: not blocked (exit $RC: $(head -c 160 p.err))"
	fi
}

case_switch_links() {
	local what="--switch-output: links planted on every predicted NAME.<stamp>" t=$W/own/created-sw f
	plant_stamped pub/sw.data "$t"
	rec sw.err record --switch-output=signal -e cpu-clock -o pub/sw.data -- sleep 0.2
	f=$(find pub -name 'sw.data.*' -type f | head -1)
	if [ -e "$t" ]; then
		nok "$what: no file created where the links point" "created $(ls -l "$t")"
	elif hung; then
		nok "$what: not blocked" "timed out"
	elif [ "$RC" != 0 ] || [ -z "$f" ] || ! readable "$f"; then
		nok "$what: the recording goes to a free name" "exit $RC, file '${f}': $(head -c 200 sw.err)"
	else
		ok "$what: recorded into $(basename "$f"), nothing through a link"
	fi
}

case_switch_partial_links() {
	local what="--overwrite --switch-output: links on every predicted NAME.<stamp>.partial" t=$W/own/created-fsp f
	plant_stamped pub/fs.data "$t" .partial
	rec fs.err record --overwrite --switch-output=signal -e cpu-clock -o pub/fs.data -- sleep 0.3
	f=$(find pub -name 'fs.data.*' -type f ! -name '*.partial*' | head -1)
	if [ -e "$t" ]; then
		nok "$what: no file created where the links point" "created $(ls -l "$t")"
	elif hung; then
		nok "$what: not blocked" "timed out"
	elif [ -z "$f" ] || ! readable "$f"; then
		nok "$what: the snapshot is written" "exit $RC, file '${f}': $(head -c 200 fs.err)"
	else
		ok "$what: snapshot $(basename "$f") written, nothing through a link"
	fi
}

case_snapshot_fifo() {
	local what="--overwrite -o NAME, NAME a fifo planted by the user"
	as_user mkfifo pub/fl.data
	rec fl.err record --overwrite -e cpu-clock -o pub/fl.data -- sleep 0.2
	if hung; then
		nok "$what: not blocked" "perf-ring still in open() after ${T} s"
	elif [ ! -f pub/fl.data ] || [ -L pub/fl.data ] || ! readable pub/fl.data; then
		nok "$what: the snapshot replaces the fifo" "exit $RC: $(ls -l pub/fl.data) $(head -c 200 fl.err)"
	else
		ok "$what: the snapshot replaces it, not blocked"
	fi
}

case_partial_link() {
	local what="--overwrite -o NAME, NAME.partial a link to root's file"
	as_user ln -s "$VICTIM" pub/fp.data.partial
	rec fp.err record --overwrite -e cpu-clock -o pub/fp.data -- sleep 0.2
	if ! victim_intact; then
		nok "$what: root's file untouched" "now: $(ls -l "$VICTIM"), $(head -c 200 fp.err)"
	elif hung; then
		nok "$what: not blocked" "timed out"
	else
		ok "$what: root's file untouched (exit $RC)"
	fi
	echo "$VICTIM_TEXT" >"$VICTIM"
}

case_old_link() {
	local what="NAME.old a link to root's file, NAME rotated to it"
	"$PR" record -q -e cpu-clock -o pub/ol.data -- true >/dev/null 2>&1
	as_user ln -s "$VICTIM" pub/ol.data.old
	rec ol.err record -e cpu-clock -o pub/ol.data -- true
	if ! victim_intact; then
		nok "$what: root's file untouched" "now: $(ls -l "$VICTIM")"
	elif hung; then
		nok "$what: not blocked" "timed out"
	else
		ok "$what: root's file untouched (exit $RC)"
	fi
	echo "$VICTIM_TEXT" >"$VICTIM"
}

# out_link OPTION NAME [RECORD_ARGS...]: report OPTION -o pub/NAME.data
# with the name a link the user planted to root's file, of an input
# recorded with RECORD_ARGS: root's file is untouched, the output replaces
# the link
out_link() {
	local opt=$1 n=$2 IN=$W/own/$2.data
	local what="report $opt -o NAME, NAME a link to root's file"
	shift 2
	make_input "$@"
	as_user ln -s "$VICTIM" "pub/$n.data"
	rec "$n.err" report "$opt" -i "$IN" -o "pub/$n.data"
	if ! victim_intact; then
		nok "$what: root's file untouched" "now: $(ls -l "$VICTIM")"
	elif [ "$RC" != 0 ] || [ -L "pub/$n.data" ] || ! readable "pub/$n.data"; then
		nok "$what: the output replaces the link" "exit $RC: $(ls -l "pub/$n.data") $(head -c 200 "$n.err")"
	else
		ok "$what: root's file untouched, the output replaces the link"
	fi
	echo "$VICTIM_TEXT" >"$VICTIM"
}

case_decompress_link() { out_link --decompress dz -z; }
case_recover_link() { out_link --recover rc; }

# --- the build-id cache --------------------------------------------------
## build-id cache

KHEX=$(perf buildid-list -k 2>/dev/null || true)

# HOME: the user's, as with sudo -E or su without -
case_cache_tmp_link() {
	local what="HOME=another user's: a link planted at the cache's temporary kallsyms name"
	local d="$W/home/c1/.debug/[kernel.kallsyms]/$KHEX"
	if [ -z "$KHEX" ]; then skip "$what" "no kernel build-id (perf buildid-list -k)"; return; fi
	as_user mkdir -p "$d"
	as_user ln -s "$VICTIM" "$d/kallsyms.tmp"
	HOME=$W/home/c1 rec c1.err record -e cpu-clock -o own/c1.data -- true
	if ! victim_intact; then
		nok "$what: root's file untouched" "now $(stat -c %s "$VICTIM") bytes: $(head -c 60 "$VICTIM" | tr '\n' ' ')"
	elif hung; then
		nok "$what: not blocked" "timed out"
	elif [ ! -f "$d/kallsyms" ] || [ -L "$d/kallsyms" ]; then
		nok "$what: kallsyms cached as perf does" "$(ls -l "$d") $(head -c 200 c1.err)"
	else
		ok "$what: root's file untouched, kallsyms cached under a unique name"
	fi
	echo "$VICTIM_TEXT" >"$VICTIM"
}

case_cache_dir_link() {
	local what="HOME=another user's: a cache directory replaced by a link to root's directory"
	if [ -z "$KHEX" ]; then skip "$what" "no kernel build-id (perf buildid-list -k)"; return; fi
	mkdir -p own/cdir
	as_user mkdir -p "$W/home/c2/.debug"
	as_user ln -s "$W/own/cdir" "$W/home/c2/.debug/[kernel.kallsyms]"
	HOME=$W/home/c2 rec c2.err record -e cpu-clock -o own/c2.data -- true
	if [ -n "$(ls -A own/cdir)" ]; then
		nok "$what: nothing written in root's directory" "$(find own/cdir | head -5)"
	elif hung; then
		nok "$what: not blocked" "timed out"
	else
		ok "$what: nothing written in root's directory (exit $RC)"
	fi
}

# cache_swap HOW: a system-wide root recording; meanwhile the user starts
# their copy of sleep (its MMAP2 record carries its build-id) and, while
# it runs, replaces it (HOW: devzero, fifo, other).  The cache is a fresh
# tmpfs of its own each time: the host's other programs are cached too (a
# few hundred MB), and a copy of /dev/zero ends in ENOSPC, not a full disk.
cache_mount() {
	mkdir -p cache
	mountpoint -q cache && umount cache
	mount -t tmpfs -o size=1G,mode=755 perf-ring-cache cache 2>/dev/null
}
cache_swap() {
	local how=$1 prog=$W/u/prog-$1 pid watch
	as_user cp /bin/sleep "$prog"
	PERF_BUILDID_DIR=$W/cache/$how timeout -k 2 "$T" "$PR" record -a -e cpu-clock -o "own/sw-$how.data" \
		-- sleep 1.5 >/dev/null 2>"sw-$how.err" &
	pid=$!
	# a copy bigger than the library, seen while it is written (a failed
	# copy is removed at the end)
	: >"seen-$how"
	(
		while kill -0 $pid 2>/dev/null; do
			find "cache/$how/dev" "cache/$how$W/u" -type f -size +"$(($(stat -c %s /bin/sleep) / 1024 + 1))"k \
				2>/dev/null | head -1 >>"seen-$how"
			sleep 0.05
		done
	) &
	watch=$!
	sleep 0.4
	as_user "$prog" 0.6 &
	sleep 0.3
	as_user rm -f "$prog"
	case $how in
	devzero) as_user ln -s /dev/zero "$prog" ;;
	fifo) as_user mkfifo "$prog" ;;
	other) as_user cp /bin/true "$prog" ;;
	esac
	wait $!
	wait $pid
	RC=$?
	wait $watch
}

case_cache_devzero() {
	local what="record -a: a library swapped for a link to /dev/zero" big
	if ! cache_mount; then skip "$what" "cannot mount a tmpfs for the cache"; return; fi
	cache_swap devzero
	big=$(sort -u seen-devzero | head -3)
	if [ -n "$big" ]; then
		nok "$what: nothing bigger than the library is copied" "seen while recording: $big" "$(head -c 300 sw-devzero.err)"
	elif hung; then
		nok "$what: not blocked" "timed out"
	else
		ok "$what: nothing bigger than the library copied (exit $RC)"
	fi
}

# the cache filled up before it came to the library: the case says nothing
cache_full() {
	if grep -q 'No space left on device' "sw-$1.err" && ! grep -q "prog-$1" "sw-$1.err"; then
		nok "$2: the cache had room to reach the library" "$(head -c 300 "sw-$1.err")"
		return 0
	fi
	return 1
}

case_cache_fifo() {
	local what="record -a: a fifo in place of a deleted library"
	if ! cache_mount; then skip "$what" "cannot mount a tmpfs for the cache"; return; fi
	cache_swap fifo
	if hung; then
		nok "$what: not blocked" "perf-ring still running after ${T} s: $(tail -c 200 sw-fifo.err)"
	elif cache_full fifo "$what"; then
		:
	elif find cache/fifo -type p | grep -q .; then
		nok "$what: no fifo in the cache" "$(find cache/fifo -type p | head -2)"
	else
		ok "$what: not blocked, no fifo cached (exit $RC)"
	fi
}

case_cache_other() {
	local what="record -a: a library replaced by another program" f want got bad=
	if ! cache_mount; then skip "$what" "cannot mount a tmpfs for the cache"; return; fi
	cache_swap other
	# every cached elf must carry the build-id its directory is named by
	while read -r f; do
		want=$(basename "$(dirname "$f")")
		got=$(readelf -n "$f" 2>/dev/null | sed -n 's/.*Build ID: *//p' | head -1)
		[ "$want" = "$got" ] || bad="$bad $f ($got)"
	done < <(find "cache/other$W/u" -name elf 2>/dev/null)
	if [ -n "$bad" ]; then
		nok "$what: the cache keeps only files whose build-id matches" "$bad"
	elif cache_full other "$what"; then
		:
	elif hung; then
		nok "$what: not blocked" "timed out"
	else
		ok "$what: nothing cached under a build-id it does not have (exit $RC)"
	fi
}

# --- modes: data files 0600 whatever the umask ----------------------------
## modes

case_modes() {
	local IN=$W/own/md.data f m
	make_input -z
	(
		umask 000
		"$PR" record -q -e cpu-clock -o pub/m.data -- true
		"$PR" record -q --overwrite -e cpu-clock -o pub/mf.data -- true
		"$PR" record -q --switch-output=signal -e cpu-clock -o pub/ms.data -- true
		"$PR" report --decompress -i "$IN" -o pub/md.data
		"$PR" report --recover -i "$IN" -o pub/mr.data
	) >/dev/null 2>&1
	for f in pub/m.data pub/mf.data "$(ls pub/ms.data.* 2>/dev/null | head -1)" pub/md.data pub/mr.data; do
		m=$(mode_of "$f")
		case $f in
		pub/m.data) what="record -o" ;; pub/mf.data) what="record --overwrite (snapshot)" ;;
		pub/md.data) what="report --decompress -o" ;; pub/mr.data) what="report --recover -o" ;;
		*) what="record --switch-output (NAME.<stamp>)" ;;
		esac
		if [ "$m" = 600 ]; then
			ok "umask 000: $what writes mode 600"
		else
			nok "umask 000: $what writes mode 600" "mode ${m:-none} ($f)"
		fi
	done
}

# --- -o equal to -i ---------------------------------------------------------
## input as output

# self_out KIND HOW: --KIND with -o the input itself (same) or a hard link to it
self_out() {
	local kind=$1 how=$2 IN=$W/own/self-$1-$2.data out sum
	local what="report --$kind -o $([ "$how" = same ] && echo INPUT || echo 'a hard link to INPUT')"
	if [ "$kind" = decompress ]; then make_input -z; else make_input; fi
	out=$IN
	[ "$how" = link ] && { out=$IN.link; ln "$IN" "$out"; }
	sum=$(md5sum <"$IN")
	rec self.err report --"$kind" -i "$IN" -o "$out"
	if [ "$(md5sum <"$IN")" != "$sum" ]; then
		nok "$what: the input is kept" "exit $RC; input changed: $(head -c 200 self.err)"
	elif [ "$RC" = 0 ]; then
		nok "$what: refused" "exit 0"
	else
		ok "$what: refused, the input kept ($(head -c 120 self.err))"
	fi
}
case_decompress_self() { self_out decompress same; }
case_decompress_hardlink() { self_out decompress link; }
case_recover_self() { self_out recover same; }
case_recover_hardlink() { self_out recover link; }

# --- rotation and leftovers -------------------------------------------------
## rotation

case_old_dir() {
	local what="NAME.old is a directory" sum
	"$PR" record -q -e cpu-clock -o own/od.data -- true >/dev/null 2>&1
	mkdir -p own/od.data.old
	touch own/od.data.old/keep
	sum=$(md5sum <own/od.data)
	rec od.err record -e cpu-clock -o own/od.data -- true
	if [ "$(md5sum <own/od.data)" != "$sum" ]; then
		nok "$what: the previous recording is kept" "exit $RC, overwritten: $(head -c 200 od.err)"
	elif [ "$RC" = 0 ] || ! grep -qE "Can't (remove old|move) data" od.err; then
		nok "$what: the recording stops with perf's message" "exit $RC: $(head -c 200 od.err)"
	else
		ok "$what: stops with perf's message, the previous recording kept ($(head -c 120 od.err))"
	fi
}

case_partial_leftover() {
	local what="a NAME.partial left over from a killed recording" sum kept
	"$PR" record -q -e cpu-clock -o own/lo.data.partial -- sleep 0.2 >/dev/null 2>&1
	sum=$(md5sum <own/lo.data.partial)
	rec lo.err record --overwrite -e cpu-clock -o own/lo.data -- sleep 0.2
	kept=$(for f in own/lo.data.partial*; do [ -f "$f" ] && [ "$(md5sum <"$f")" = "$sum" ] && echo "$f"; done | head -1)
	if [ -z "$kept" ]; then
		nok "$what: kept, not truncated" "exit $RC: $(ls own/lo.data*) $(head -c 200 lo.err)"
	elif ! grep -q -- '--recover' lo.err; then
		nok "$what: the message points at perf-ring report --recover" "$(head -c 300 lo.err)"
	else
		ok "$what: kept as $(basename "$kept"), the message points at --recover"
	fi
}

# --- permissions and errors ---------------------------------------------------
## permissions

case_pid_other_user() {
	local what="-p PID of another user's process, as a user: the error names the cause" pid
	sleep 30 &
	pid=$!
	timeout -k 2 "$T" setpriv --reuid="$U" --regid="$G" --clear-groups -- \
		"$PR" record -e cpu-clock -p "$pid" -o "$W/u/p.data" -- sleep 0.1 >/dev/null 2>pid.err
	RC=$?
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	if [ "$RC" = 0 ]; then
		skip "$what" "the user could record root's process (CAP_PERFMON or paranoid -1?)"
	elif grep -qiE "uid 0|another user|trace it" pid.err; then
		ok "$what ($(head -c 200 pid.err))"
	else
		nok "$what" "$(head -c 300 pid.err)"
	fi
}

# --- hardening --------------------------------------------------------------
## hardening

case_hardening() {
	local out
	out=$("$HERE/hardening.sh" "$PR" "$N")
	echo "$out"
	N=$((N + $(grep -cE '^(not )?ok ' <<<"$out")))
	FAIL=$((FAIL + $(grep -c '^not ok ' <<<"$out")))
}

## control channel

# a flood of bad commands: at most one line a second without an ack fifo,
# each answered on the ack fifo with one; status from the running recorder
case_control_flood() {
	local out
	out=$("$HERE/e2e-control.sh" "$PR" "$W/control" "$N")
	echo "$out"
	N=$((N + $(grep -cE '^(not )?ok ' <<<"$out")))
	FAIL=$((FAIL + $(grep -c '^not ok ' <<<"$out")))
}

## readers (hostile files)

# report, --recover and --decompress on files made to hurt them, and -f
case_readers() {
	. "$HERE/e2e-security-readers.sh"
}

# the name a snapshot takes (after the cases above, whose numbers
# perf_ring_reliability.rst's table gives)
case_switch_final_links() {
	local what="--overwrite --switch-output: links on every predicted NAME.<stamp>" t=$W/own/created-fsf f l
	plant_stamped pub/ff.data "$t"
	rec ff.err record --overwrite --switch-output=signal -e cpu-clock -o pub/ff.data -- sleep 0.3
	f=$(find pub -name 'ff.data.*-1' -type f | head -1)
	l=$(find pub -name 'ff.data.*' -type l | wc -l)
	if [ -e "$t" ]; then
		nok "$what: no file created where the links point" "created $(ls -l "$t")"
	elif hung; then
		nok "$what: not blocked" "timed out"
	elif [ -z "$f" ] || ! readable "$f"; then
		nok "$what: the snapshot is written under NAME.<stamp>-1" \
			"exit $RC, $(find pub -name 'ff.data.*' -type f | head -3): $(head -c 200 ff.err)"
	elif [ "$l" -lt 3000 ] || [ ! -L "${f%-1}" ]; then
		nok "$what: the links are left as they were" "$l links; ${f%-1}: $(ls -ld "${f%-1}")"
	else
		ok "$what: snapshot $(basename "$f") written, the $l links left alone"
	fi
	# the same where the filesystem cannot rename without replacing
	# (renameat2 RENAME_NOREPLACE answers EINVAL, as on NFS): looked up
	# first, and the snapshot's line names the file it took
	what="$what, no RENAME_NOREPLACE"
	cat >"$W/nr.c" <<'SHIM'
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
int renameat2(int od, const char *o, int nd, const char *n, unsigned int flags)
{
	if (flags & 1) {
		errno = EINVAL;
		return -1;
	}
	return syscall(SYS_renameat2, od, o, nd, n, flags);
}
SHIM
	if ! cc -shared -fPIC -o "$W/nr.so" "$W/nr.c" 2>"$W/nr.err"; then
		skip "$what" "no C compiler for the shim: $(head -c 200 "$W/nr.err")"
		return
	fi
	plant_stamped pub/fn.data "$t"
	LD_PRELOAD=$W/nr.so rec fn.err record --overwrite --switch-output=signal -e cpu-clock \
		-o pub/fn.data -- sleep 0.3
	f=$(find pub -name 'fn.data.*-1' -type f | head -1)
	l=$(find pub -name 'fn.data.*' -type l | wc -l)
	if [ -e "$t" ] || hung || [ -z "$f" ] || ! readable "$f" || [ "$l" -lt 3000 ]; then
		nok "$what: the snapshot is NAME.<stamp>-1, the links left" \
			"exit $RC, $l links, $(find pub -name 'fn.data.*' -type f | head -3): $(head -c 300 fn.err)"
	elif ! grep -q "snapshot pub/fn.data.[0-9]*-1:" fn.err; then
		nok "$what: the snapshot's line names the file it took" "$(head -c 300 fn.err)"
	else
		ok "$what: snapshot $(basename "$f") written and named, the $l links left alone"
	fi
}

# --- run --------------------------------------------------------------------

# in the order they are written
for c in $(grep -oE '^case_[a-z0-9_]+\(\)' "$0" | tr -d '()'); do
	[ -n "${CASES:-}" ] && ! grep -qE "$CASES" <<<"$c" && continue
	echo "# $c"
	$c
done
finish
