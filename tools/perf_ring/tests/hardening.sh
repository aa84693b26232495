#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hardening a Debian package gets (dpkg-buildflags, hardening=+all),
# read back from a built binary with readelf: a PIE (type DYN), full RELRO
# (GNU_RELRO and BIND_NOW), the stack protector (__stack_chk_fail),
# _FORTIFY_SOURCE (the *_chk functions) and, on x86_64, CET (IBT, SHSTK
# from -fcf-protection, in the objects).  Stack clash protection leaves
# nothing to read back.  Prints TAP; exits non-zero when a flag is missing.
#
# usage: hardening.sh BINARY [TAP_OFFSET]
#   TAP_OFFSET: number the tests from TAP_OFFSET+1 and print no plan
#   (e2e-security.sh includes them in its own plan)

set -u
BIN=${1:?binary}
N=${2:-0}
OFFSET=$N
FAIL=0

ok()  { N=$((N + 1)); echo "ok $N - $1"; }
nok() { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }

if ! command -v readelf >/dev/null; then
	N=$((N + 1)); echo "ok $N - hardening of $(basename "$BIN") # SKIP readelf is missing (binutils)"
	[ "$OFFSET" = 0 ] && echo "1..$N"
	exit 0
fi
name=$(basename "$BIN")
hdr=$(readelf -h "$BIN" 2>&1)
dyn=$(readelf -d "$BIN" 2>&1)
seg=$(readelf -lW "$BIN" 2>&1)
syms=$(readelf -sW --dyn-syms "$BIN" 2>&1)
notes=$(readelf -n "$BIN" 2>&1)

if grep -q 'Type: *DYN' <<<"$hdr"; then
	ok "$name is a PIE (ELF type DYN)"
else
	nok "$name is a PIE (ELF type DYN)" "$(grep 'Type:' <<<"$hdr")"
fi
if grep -q 'GNU_RELRO' <<<"$seg" && grep -qE '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW' <<<"$dyn"; then
	ok "$name has full RELRO (GNU_RELRO, BIND_NOW)"
else
	nok "$name has full RELRO (GNU_RELRO, BIND_NOW)" \
		"$(grep -c GNU_RELRO <<<"$seg") GNU_RELRO segment(s); $(grep -E 'FLAGS' <<<"$dyn" | tr -s ' ')"
fi
if grep -q '__stack_chk_fail' <<<"$syms"; then
	ok "$name calls __stack_chk_fail (-fstack-protector-strong)"
else
	nok "$name calls __stack_chk_fail (-fstack-protector-strong)" "no __stack_chk_fail symbol"
fi
chk=$(grep -oE '__[a-z_]+_chk' <<<"$syms" | grep -v __stack_chk | sort -u)
if [ -n "$chk" ]; then
	ok "$name uses the _FORTIFY_SOURCE functions ($(echo $chk | wc -w): $(echo $chk | cut -d' ' -f1-4))"
else
	nok "$name uses the _FORTIFY_SOURCE functions" "no __*_chk symbol"
fi
# CET: the linker keeps the property only when every input has it, and
# Debian 12's crt1.o has none; so it is read from perf-ring's own objects,
# next to the binary in the build directory
obj=$(dirname "$BIN")/perf-ring.o
if [ "$(uname -m)" = x86_64 ] && [ -f "$obj" ]; then
	if readelf -n "$obj" | grep -q 'x86 feature: IBT, SHSTK'; then
		ok "perf-ring.o is marked for IBT and SHSTK (-fcf-protection)"
	else
		nok "perf-ring.o is marked for IBT and SHSTK (-fcf-protection)" "no IBT, SHSTK property note"
	fi
fi
[ "$OFFSET" = 0 ] && echo "1..$N"
exit $((FAIL != 0))
