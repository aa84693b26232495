#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# ab-test.sh: make ab's input checks, in seconds and without a kernel. Runs
# scripts/perf_ring/ab.sh against a scratch build directory whose "origin"
# is a tiny git repository standing in for the base (a Makefile saying
# 6.12.118 and one source file), and checks that every bad input is refused
# with a message naming it, non-zero, and before anything is built (no
# build/kernel/ab-* tree appears); and that good input passes the checks.
# Prints TAP.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ab=$here/ab.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail=0
i=0
total=15
echo "TAP version 13"
echo "1..$total"

# A stand-in for build/kernel/origin, tags "base" and "pre".
mkver() { printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\n' "$2" "$3" "$4" > "$1/Makefile"; }
o=$tmp/build/kernel/origin
mkdir -p "$o/fs"
mkver "$o" 6 12 118
echo 'source "fs/Kconfig"' > "$o/Kconfig"
printf 'int a;\nint b;\nint c;\n' > "$o/fs/open.c"
git -C "$o" init -q -b perf_ring .
git -C "$o" add -A
git -C "$o" -c user.name=t -c user.email=t@t commit -q -m base
git -C "$o" tag base
git -C "$o" tag pre

# Patches: one that applies, one that does not, a series of both.
p=$tmp/patches
mkdir -p "$p/good" "$p/bad"
mkpatch() {	# FILE FROM TO: a patch turning line 2 of fs/open.c from FROM to TO
	printf '%s\n' "From: t" "Subject: [PATCH] t" "---" \
		"diff --git a/fs/open.c b/fs/open.c" "--- a/fs/open.c" "+++ b/fs/open.c" \
		"@@ -1,3 +1,3 @@" " int a;" "-int $2;" "+int $3;" " int c;" > "$1"
}
mkpatch "$p/good/0001-b-to-x.patch" b x
mkpatch "$p/good/0002-x-to-y.patch" x y	# applies only after 0001
mkpatch "$p/bad/0001-q-to-r.patch" q r
printf '# two patches\n0001-b-to-x.patch\n0002-x-to-y.patch\n' > "$p/good/series"
printf '0002-x-to-y.patch\n' > "$p/good/series-wrong-order"
printf '0009.patch\n' > "$p/good/series-missing"
echo 'CONFIG_DYNAMIC_DEBUG=y' > "$tmp/frag.config"
echo 'this is not a fragment' > "$tmp/notfrag.config"
t61=$tmp/linux-6.1
mkdir -p "$t61"; mkver "$t61" 6 1 0; touch "$t61/Kconfig"
t125=$tmp/linux-6.12.5
mkdir -p "$t125/fs"; mkver "$t125" 6 12 5; touch "$t125/Kconfig"; printf 'int a;\n' > "$t125/fs/open.c"

# expect NAME RC_WANTED PATTERN VAR=VALUE...: run ab.sh, check its exit and
# that its output matches PATTERN, and that no tree was made.
expect() {
	local what=$1 want=$2 pat=$3 rc ok=1
	shift 3
	i=$((i + 1))
	env -u A -u B -u RUN -u N -u CONFIG -u AB_BIN -u PER -u NAME \
		PR_BUILD="$tmp/build" "$@" "$ab" > "$tmp/out" 2>&1
	rc=$?
	if [ "$want" = 0 ]; then [ "$rc" -eq 0 ] || ok=0
	else [ "$rc" -ne 0 ] || ok=0; fi
	grep -q -E -- "$pat" "$tmp/out" || ok=0
	ls -d "$tmp"/build/kernel/ab-* >/dev/null 2>&1 && ok=0
	if [ "$ok" = 1 ]; then
		echo "ok $i $what"
	else
		echo "not ok $i $what (exit $rc)"
		sed 's/^/# /' "$tmp/out"
		fail=1
	fi
}

expect "no A or B" 1 'A= and B= are both needed' RUN=true A=upstream
expect "no RUN" 1 'RUN= is needed' A=upstream B=pre
expect "unknown kernel name" 1 'B=postt: unknown kernel' A=upstream B=postt RUN=true
expect "N not a number" 1 'N=ten: give a number' A=upstream B=pre RUN=true N=ten
expect "missing fragment" 1 'CONFIG=.*nope.config: no such file' A=upstream B=pre RUN=true CONFIG="$tmp/nope.config"
expect "fragment that is not one" 1 'not a config fragment' A=upstream B=pre RUN=true CONFIG="$tmp/notfrag.config"
expect "AB_BIN not static" 1 'not statically linked' A=upstream B=pre RUN=true AB_BIN=/bin/bash
expect "tree that is not 6.12.y" 1 'a Linux 6.1.0 tree; make ab builds 6.12.y only' A=upstream B="$t61" RUN=true
expect "patch that does not apply, named" 1 'patch 1, .*0001-q-to-r.patch, does not apply' A=upstream B="$p/bad" RUN=true
expect "series whose first patch needs another, named" 1 'patch 1, .*0002-x-to-y.patch, does not apply' A=upstream B="$p/good/series-wrong-order" RUN=true
expect "series naming a missing patch" 1 'names 0009.patch, which is not in' A="$p/good/series-missing" B=pre RUN=true
expect "patch directory with a series: checked, not built" 0 'B = 6.12.118 plus 2 patch\(es\)' A=upstream B="$p/good" RUN=true AB_CHECK_ONLY=1
expect "one patch file with a fragment: checked, not built" 0 'B = 6.12.118 plus 1 patch\(es\) .*with' A=pre B="$p/good/0001-b-to-x.patch" RUN=true CONFIG="$tmp/frag.config" AB_CHECK_ONLY=1
expect "a 6.12.5 tree: accepted with a warning" 0 'warning: B=.* is Linux 6.12.5' A=upstream B="$t125" RUN=true AB_CHECK_ONLY=1

# The checked patches became a commit on the base: fs/open.c says y.
i=$((i + 1))
if [ "$(git -C "$o" show refs/ab/ab-good:fs/open.c 2>/dev/null | sed -n 2p)" = "int y;" ]; then
	echo "ok $i the series applied in order, kept as refs/ab/ab-good"
else
	echo "not ok $i the series applied in order, kept as refs/ab/ab-good"
	fail=1
fi
[ "$i" -eq "$total" ] || { echo "# ran $i tests, planned $total"; fail=1; }
exit $fail
