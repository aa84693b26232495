#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kselftest.sh [--user USER | --sanitize | --llvm] TARGET...: build and run selftests
# from this tree on the running kernel, with the base tree's lib.mk,
# kselftest.h and kselftest_harness.h (build/linux-base), and fail on any
# "not ok": upstream run_tests exits 0 even then. Log: build/kselftest.log.
# They build against POST's installed uapi headers (post-headers.sh), as
# KHDR_INCLUDES, the way a kselftest builds against its tree's
# "make headers_install".
#
# --user USER runs the installed tests as USER once per perf_event_paranoid
# level in $PARANOID (default "2 1 -1"; the sysctl is restored afterwards),
# log build/kselftest-USER-pLEVEL.log. tracefs is root-only, so the runner
# copies the id and format files of $TRACEPOINTS into the install and points
# PERF_EVENTS_TRACEFS at the copy: what is tested is what perf_event_open()
# allows USER at each level. One more run, at the last level, goes without
# the copy (build/kselftest-USER-notracefs.log). Every test must pass or
# SKIP, and every SKIP must name a reason that holds at that level: a
# privilege the level does not give (or tracefs, in the run without the
# copy), or a feature the kernel lacks.
#
# --llvm builds the tests with LLVM=1 (clang) into build/kselftest-llvm/
# and runs them as root. Log: build/kselftest-llvm.log.
#
# --sanitize builds the tests with ASan and UBSan (-fno-sanitize-recover=all:
# any finding fails the test) into build/kselftest-asan/, apart from the
# normal and the static guest builds, and runs them as root. Log:
# build/kselftest-asan.log; a sanitizer report anywhere in it is a failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

user= sanitize= llvm=
case ${1:-} in
--user) user=${2:?--user needs a user name}; shift 2 ;;
--sanitize) sanitize=1; shift ;;
--llvm) llvm=1; shift ;;
esac
[ $# -gt 0 ] || set -- perf_ring
base=$PR_BUILD/linux-base
"$PR_ROOT/scripts/perf_ring/base.sh" "$base"
[ -d "$base/usr/include/linux" ] || make -s -C "$base" headers >/dev/null
hdr=$("$PR_ROOT/scripts/perf_ring/post-headers.sh")
export KHDR_INCLUDES="-isystem $hdr"

for t in "$@"; do
	[ -d "$PR_ROOT/tools/testing/selftests/$t" ] || pr_die "no selftest directory tools/testing/selftests/$t"
	rsync -a --delete "$PR_ROOT/tools/testing/selftests/$t/" "$base/tools/testing/selftests/$t/"
done
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
mkdir -p "$PR_BUILD"
tap_check() { "$PR_ROOT/scripts/perf_ring/tap-check.sh" "$@"; }

if [ -n "$sanitize" ]; then
	san="-g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
	out=$PR_BUILD/kselftest-asan
	log=$out.log
	pr_log "kselftest: $* built with ASan and UBSan into $out, as root ($(uname -r))"
	: > "$log"
	for t in "$@"; do
		mkdir -p "$out/$t"
		# Straight to the target's lib.mk, with its own OUTPUT: the
		# top-level selftests Makefile would build in the tree.
		make -s -C "$base/tools/testing/selftests/$t" OUTPUT="$out/$t" \
			USERCFLAGS="$san" USERLDFLAGS="-fsanitize=address,undefined" all
		# The runner starts each test under stdbuf, whose LD_PRELOAD
		# library comes before the ASan runtime; it intercepts nothing
		# ASan needs, so the order check is off.
		ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:verify_asan_link_order=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
			make -s -C "$base/tools/testing/selftests/$t" OUTPUT="$out/$t" \
			USERCFLAGS="$san" USERLDFLAGS="-fsanitize=address,undefined" run_tests 2>&1 | tee -a "$log"
	done
	bad=0
	tap_check "kselftest $* under ASan/UBSan" "$log" || bad=1
	if grep -nE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Undefined|Leak)' "$log" >&2; then
		pr_log "kselftest $* under ASan/UBSan: FAIL: sanitizer report in $log"
		bad=1
	fi
	exit $bad
fi

if [ -n "$llvm" ]; then
	out=$PR_BUILD/kselftest-llvm
	log=$out.log
	pr_log "kselftest: $* built with LLVM=1 into ${out#"$PR_ROOT"/}, as root ($(uname -r))"
	: > "$log"
	for t in "$@"; do
		mkdir -p "$out/$t"
		make -C "$base/tools/testing/selftests/$t" LLVM=1 OUTPUT="$out/$t" all 2>&1 | tee -a "$log"
		# The compiler's own words, from each program's .comment.
		for p in $(find "$out/$t" -maxdepth 1 -type f -perm -u+x | sort); do
			printf '%s: %s\n' "${p#"$out"/}" "$(readelf -p .comment "$p" | grep -o 'clang version [^ ]*' | head -n 1)"
		done | tee -a "$log"
		make -s -C "$base/tools/testing/selftests/$t" LLVM=1 OUTPUT="$out/$t" run_tests 2>&1 | tee -a "$log"
	done
	tap_check "kselftest $* built with LLVM=1" "$log"
	exit
fi

log=$PR_BUILD/kselftest.log
if [ -z "$user" ]; then
	pr_log "kselftest: $* on the running kernel ($(uname -r))"
	make -s -C "$base/tools/testing/selftests" TARGETS="$*" run_tests 2>&1 | tee "$log"
	tap_check "kselftest $* ($(uname -r))" "$log"
	exit
fi

# The tracepoints the perf_ring selftests look up (pr_tp_lookup()).
TRACEPOINTS=${TRACEPOINTS:-syscalls/sys_enter_close raw_syscalls/sys_enter raw_syscalls/sys_exit}
PARANOID=${PARANOID:-2 1 -1}

# check_skips LOG LEVEL copy|notracefs: every SKIP names a reason that holds
# at LEVEL. A reason that asks for perf_event_paranoid<=N (or =-1) while the
# level already is that low is wrong, and so is one that blames tracefs when
# the copy was given, or does not when it was not.
check_skips() {
	local log=$1 level=$2 mode=$3 bad=0 line why n
	while IFS= read -r line; do
		why=${line#*# SKIP }
		case $why in
		"kernel lacks write_backward" | "kernel lacks PAUSE_OUTPUT") continue ;;
		esac
		if [ "$mode" = copy ]; then
			case $why in
			*tracefs* | *PERF_EVENTS_TRACEFS*) bad=1 ;;
			*perf_event_paranoid* | *CAP_*) ;;
			*) bad=1 ;;
			esac
		else
			case $why in *tracefs*) ;; *) bad=1 ;; esac
		fi
		for n in $(grep -oE 'perf_event_paranoid(<=-?[0-9]+|=-1 for)' <<< "$why" |
			   sed -E 's/.*<=//; s/.*=-1 for/-1/'); do
			[ "$level" -gt "$n" ] || bad=1
		done
		if [ "$bad" = 1 ]; then
			pr_log "kselftest as $user at perf_event_paranoid=$level: FAIL: SKIP reason does not hold: $line"
			return 1
		fi
	done < <(grep -E '^(# )+ok [0-9]+ .* # SKIP ' "$log")
	return 0
}

# Installed outside the checkout: the user may not be able to reach it (a
# checkout under a private home or a 0700 temporary folder).
# tools/perf_ring/tests/privileges.sh sets perf_event_paranoid too: one at
# a time.
exec 9>/run/lock/perf_ring-paranoid.lock
flock -w 900 9 || pr_die "another run held /run/lock/perf_ring-paranoid.lock for 900 s"
inst=$(mktemp -d)
para=/proc/sys/kernel/perf_event_paranoid
old=$(cat "$para")
trap 'echo "$old" > "$para"; rm -rf "$inst"' EXIT
trap 'exit 1' INT TERM HUP
chmod 755 "$inst"
make -s -C "$base/tools/testing/selftests" TARGETS="$*" INSTALL_PATH="$inst/tests" install >/dev/null
for tp in $TRACEPOINTS; do
	src=/sys/kernel/tracing/events/$tp
	[ -r "$src/id" ] || src=/sys/kernel/debug/tracing/events/$tp
	[ -r "$src/id" ] || continue	# the tests then SKIP: no such tracepoint
	mkdir -p "$inst/tracefs/events/$tp"
	cp "$src/id" "$src/format" "$inst/tracefs/events/$tp/"
done
chmod -R a+rX "$inst"

# run_as LEVEL LOG [ENV...]: the installed suite as $user at LEVEL. The
# runner reopens /dev/stdout: give the user a pipe of its own, not root's
# pipe into tee.
run_as() {
	local level=$1 log=$2
	shift 2
	echo "$level" > "$para"
	(cd "$inst/tests" && setpriv --reuid="$user" --regid="$(id -gn "$user")" --clear-groups --inh-caps=-all \
		env "$@" sh -c './run_kselftest.sh 2>&1 | cat') 2>&1 | tee "$log"
}

fail=0
last=
for level in $PARANOID; do
	last=$level
	log=$PR_BUILD/kselftest-$user-p$level.log
	pr_log "kselftest: $* as $user with perf_event_paranoid=$level, tracepoint ids from a copy of tracefs ($(uname -r))"
	run_as "$level" "$log" PERF_EVENTS_TRACEFS="$inst/tracefs"
	tap_check "kselftest $* as $user, perf_event_paranoid=$level" "$log" || fail=1
	check_skips "$log" "$level" copy || fail=1
done
if [ -n "$last" ]; then
	log=$PR_BUILD/kselftest-$user-notracefs.log
	pr_log "kselftest: $* as $user with perf_event_paranoid=$last, no access to tracefs ($(uname -r))"
	run_as "$last" "$log"
	tap_check "kselftest $* as $user, perf_event_paranoid=$last, no tracefs" "$log" || fail=1
	check_skips "$log" "$last" notracefs || fail=1
fi
exit $fail
