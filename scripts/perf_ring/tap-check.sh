#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tap-check.sh NAME LOG: read a guest console log and fail on anything that
# is not a clean run: a missing or short plan, any "not ok" (top level or
# nested), or a kernel splat. Prints one summary line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:?usage: tap-check.sh NAME LOG}
log=${2:?log}
[ -f "$log" ] || pr_die "$name: no console log at $log"
clean=$(tr -d '\r' < "$log")
bad=0

plan=$(grep -m1 -E '^1\.\.[0-9]+$' <<< "$clean" | cut -d. -f3 || true)
if [ -z "$plan" ]; then
	pr_log "$name: FAIL: no TAP plan in the console log"
	bad=1
fi
top=$(grep -cE '^(not )?ok [0-9]+' <<< "$clean" || true)
if [ -n "$plan" ] && [ "$top" -ne "$plan" ]; then
	pr_log "$name: FAIL: plan says $plan results, the log has $top"
	bad=1
fi
fails=$(grep -E '^(# )*not ok [0-9]+' <<< "$clean" | grep -v '# TODO' || true)
if [ -n "$fails" ]; then
	pr_log "$name: FAIL: failed tests:"
	printf '%s\n' "$fails" >&2
	bad=1
fi
splat='(Oops|BUG:|WARNING:|Kernel panic|Call Trace:|general protection fault|UBSAN:|KASAN:|KCSAN:|possible circular locking|INFO: task .* blocked|kernel BUG at|Unable to handle kernel)'
splats=$(grep -E "$splat" <<< "$clean" | grep -v '^#' || true)
if [ -n "$splats" ]; then
	pr_log "$name: FAIL: kernel splat in the console log:"
	printf '%s\n' "$splats" | head -n 20 >&2
	bad=1
fi

ok=$(grep -cE '^ok [0-9]+' <<< "$clean" || true)
skip=$(grep -cE '^ok [0-9]+.*# SKIP' <<< "$clean" || true)
sub_ok=$(grep -cE '^(# )+ok [0-9]+' <<< "$clean" || true)
sub_skip=$(grep -cE '^(# )+ok [0-9]+.*# SKIP' <<< "$clean" || true)
nf=$(grep -cE '^(# )*not ok [0-9]+' <<< "$clean" || true)
pr_log "$name: $((ok - skip)) ok, $skip skipped, $nf not ok at the top level; subtests: $((sub_ok - sub_skip)) ok, $sub_skip skipped"
exit $bad
