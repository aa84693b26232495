#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install PREFIX=DIR: the binary and the manual pages land under
# DIR, man renders the pages without a warning, "man perf-ring-record"
# finds them through DIR's manpath, and every option that --help lists is
# in its page.  TAP; a missing rst2man or man is a SKIP.
#
# usage: install.sh MAKEFILE BUILD_DIR

set -u
MK=$(realpath "${1:?Makefile}")
O=${2:?build dir}
TOP=$(cd "$(dirname "$MK")/../.." && pwd)
N=0
FAIL=0

ok()   { N=$((N + 1)); echo "ok $N - $1"; }
nok()  { N=$((N + 1)); FAIL=1; echo "not ok $N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }

command -v "${RST2MAN:-rst2man}" >/dev/null ||
	skip_all "${RST2MAN:-rst2man} is not installed (Debian: python3-docutils)"
command -v man >/dev/null || skip_all "man is not installed (Debian: man-db)"

D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
if ! make -s -f "$MK" O="$O" install PREFIX="$D/usr" >"$D/install.out" 2>&1; then
	nok "make install PREFIX=..." "$(tail -5 "$D/install.out")"
	echo "1..$N"
	exit 1
fi
if [ -x "$D/usr/bin/perf-ring" ] && "$D/usr/bin/perf-ring" --version | grep -q '^perf-ring version '; then
	ok "make install PREFIX=...: bin/perf-ring runs"
else
	nok "make install PREFIX=...: bin/perf-ring" "$(ls -lR "$D/usr")"
fi

# the options --help lists: -x and --long tokens anywhere in the text
opts() { grep -oE '(^|[ ,/(\[])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[ ,/(\[]//' | sort -u; }

for page in record report ctl; do
	man1=$D/usr/share/man/man1/perf-ring-$page.1
	rst=$TOP/Documentation/admin-guide/perf-ring-$page.rst
	if [ ! -f "$man1" ]; then
		nok "perf-ring-$page.1 installed in share/man/man1" "$(ls -R "$D/usr/share" 2>&1)"
		continue
	fi
	out=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$man1" 2>"$D/man.err")
	rc=$?
	if [ $rc = 0 ] && [ ! -s "$D/man.err" ] && echo "$out" | grep -q '^NAME'; then
		ok "man -l perf-ring-$page.1 renders without warnings ($(echo "$out" | wc -l) lines)"
	else
		nok "man -l perf-ring-$page.1 renders without warnings" "exit $rc" "$(head -5 "$D/man.err")"
	fi
	found=$(MANPATH="$D/usr/share/man" man -w "perf-ring-$page" 2>&1)
	[ "$found" = "$man1" ] && ok "man perf-ring-$page finds the installed page" ||
		nok "man perf-ring-$page finds the installed page" "$found"
	missing=
	for o in $("$D/usr/bin/perf-ring" "$page" --help 2>&1 | opts); do
		grep -qF -- "**$o**" "$rst" || missing="$missing $o"
	done
	[ -z "$missing" ] && ok "perf-ring-$page.rst covers every option of 'perf-ring $page --help'" ||
		nok "perf-ring-$page.rst covers every option of --help" "missing:$missing"
done
echo "1..$N"
exit $FAIL
