#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kselftest.sh [--user USER] TARGET...: build and run selftests from this
# tree on the running kernel, with the base tree's lib.mk, kselftest.h and
# kselftest_harness.h (build/linux-base), and fail on any "not ok": upstream
# run_tests exits 0 even then.
#
# --user USER runs the installed tests as USER with perf_event_paranoid=2
# (restored afterwards): every test must pass or SKIP naming the privilege
# it lacks.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

user=
if [ "${1:-}" = --user ]; then user=$2; shift 2; fi
[ $# -gt 0 ] || set -- perf_ring
base=$PR_BUILD/linux-base
"$PR_ROOT/scripts/perf_ring/base.sh" "$base"
[ -d "$base/usr/include/linux" ] || make -s -C "$base" headers >/dev/null

for t in "$@"; do
	[ -d "$PR_ROOT/tools/testing/selftests/$t" ] || pr_die "no selftest directory tools/testing/selftests/$t"
	rsync -a --delete "$PR_ROOT/tools/testing/selftests/$t/" "$base/tools/testing/selftests/$t/"
done
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true

log=$PR_BUILD/kselftest${user:+-$user}.log
mkdir -p "$PR_BUILD"
if [ -z "$user" ]; then
	pr_log "kselftest: $* on the running kernel ($(uname -r))"
	make -s -C "$base/tools/testing/selftests" TARGETS="$*" run_tests 2>&1 | tee "$log"
	"$PR_ROOT/scripts/perf_ring/tap-check.sh" "kselftest $* ($(uname -r))" "$log"
	exit
fi

# Installed outside the checkout: the user may not be able to reach it (a
# checkout under a private home or a 0700 temporary folder).
inst=$(mktemp -d)
para=/proc/sys/kernel/perf_event_paranoid
old=$(cat "$para")
trap 'echo "$old" > "$para"; rm -rf "$inst"' EXIT
chmod 755 "$inst"
make -s -C "$base/tools/testing/selftests" TARGETS="$*" INSTALL_PATH="$inst" install >/dev/null
echo 2 > "$para"
pr_log "kselftest: $* as $user with perf_event_paranoid=2 ($(uname -r))"
chmod -R a+rX "$inst"
# The runner reopens /dev/stdout: give the user a pipe of its own, not
# root's pipe into tee.
(cd "$inst" && setpriv --reuid="$user" --regid="$(id -gn "$user")" --clear-groups --inh-caps=-all \
	sh -c './run_kselftest.sh 2>&1 | cat') 2>&1 | tee "$log"
"$PR_ROOT/scripts/perf_ring/tap-check.sh" "kselftest $* as $user" "$log"
