# SPDX-License-Identifier: GPL-2.0
#
# TAP output of the standalone test scripts (sourced): N tests so far,
# FAIL of them failed.  ok NAME; nok NAME [LINE...] with the lines as
# comments under it; skip NAME REASON; skip_all REASON ends the script
# with a plan of 0 tests.

N=0
FAIL=0

ok()   { N=$((N + 1)); echo "ok $N - $1"; }
nok()  { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
skip() { N=$((N + 1)); echo "ok $N - $1 # SKIP $2"; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
