#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-ring --version: the version git describe gave at build time, the
# same from "perf-ring version", and the base version outside git.  TAP.
#
# usage: version.sh MAKEFILE   (PERF_RING names the binary)

set -u
PR=${PERF_RING:?}
MK=${1:?Makefile}
SRC=$(dirname "$MK")
N=0
FAIL=0

check() {	# what, condition, detail on failure
	N=$((N + 1))
	if eval "$2"; then
		echo "ok $N - $1"
	else
		FAIL=1
		echo "not ok $N - $1"
		echo "#   $3"
	fi
}

# The makes below print a version and nothing else.  Run from a recipe
# (make test), they would inherit the caller's MAKEFLAGS: with -jN, its
# jobserver, whose descriptors make does not hand to a recipe that is not a
# $(MAKE) or "+" line; make 4.3 then warns and prints "Entering directory"
# lines in spite of --no-print-directory (make -C DIR -j2 test).  So they
# get only the command line's variables (O=, PERF_RING_VERSION=: what
# follows " -- " in MAKEFLAGS).
case "${MAKEFLAGS-}" in
*" -- "*) export MAKEFLAGS="-- ${MAKEFLAGS#* -- }" ;;
*) unset MAKEFLAGS ;;
esac
unset MFLAGS MAKELEVEL

want=$(make -s --no-print-directory -f "$MK" print-version)
a=$("$PR" --version)
b=$("$PR" version)
check "--version prints 'perf-ring version $want'" '[ "$a" = "perf-ring version $want" ]' "got '$a'"
check "'perf-ring version' prints the same" '[ "$a" = "$b" ]' "got '$b'"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	h=$(git -C "$SRC" rev-parse --short HEAD)
	check "built in git: the version names the commit ($h)" \
		'case "$want" in *"$h"*) true ;; *) false ;; esac' "version '$want'"
fi
nogit=$(cd / && GIT_DIR=/nonexistent GIT_CEILING_DIRECTORIES=/ make -s --no-print-directory -f "$(realpath "$MK")" print-version)
check "outside git: the base version ('$nogit')" '[[ "$nogit" =~ ^[0-9]+\.[0-9]+$ ]]' "got '$nogit'"
echo "1..$N"
exit $FAIL
