#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The control channel under a flood and "status" (Documentation/admin-guide/
# perf-ring-ctl.rst): without an ack fifo a flood of bad commands is said
# at most once a second on stderr and counted in the summary; with one,
# each gets its error ack; "status" answers from the running recorder with
# the counts of the files it finished.  Prints TAP.
#
# usage: e2e-control.sh PERF_RING SCRATCH_DIR [OFFSET]
# OFFSET: number the tests from OFFSET + 1 and print no plan, for a suite
# that runs this one inside its own TAP (e2e-security.sh).

set -u
PR=$(realpath "${1:?perf-ring binary}")
W=${2:?scratch dir}
OFFSET=${3:-0}
N=$OFFSET
FAIL=0
ok()   { N=$((N + 1)); echo "ok $N - $1"; }
nok()  { N=$((N + 1)); FAIL=$((FAIL + 1)); echo "not ok $N - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (system-wide cpu-clock)"; exit 0; }

rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
mkfifo ctl ack

# field KEY LINE: the value of KEY=VALUE in a status line
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

# 1. a flood of 200000 bad lines with no ack fifo
"$PR" record --overwrite -a -m 1M -e cpu-clock --control=fifo:ctl -o fl.data -- sleep 3 2>fl.err &
pid=$!
sleep 0.5
timeout 20 sh -c 'yes bogus | head -n 200000 >ctl'
wait $pid
rc=$?
said=$(grep -c -- '--control: error' fl.err)
if [ $rc = 0 ] && [ "$said" -ge 1 ] && [ "$said" -le 4 ] &&
   grep -q '200000 bad control commands' fl.err && grep -q 'not all shown' fl.err; then
	ok "--control without ack: 200000 bad lines in 3 s said $said times on stderr, all counted in the summary"
else
	nok "--control without ack: a flood is rate-limited and counted" \
		"exit $rc, $said error lines, $(wc -c <fl.err) bytes of stderr: $(tail -2 fl.err | cut -c1-200)"
fi

# 2. with an ack fifo: a bad command's error comes back there, not on stderr
"$PR" record --overwrite -a -m 1M -e cpu-clock --switch-max-files=2 --control=fifo:ctl,ack \
	-o st.data -- sleep 4 2>st.err &
pid=$!
sleep 0.5
exec 7<>ack
timeout 5 sh -c 'echo bogus >ctl'
read -r -t 10 reply <&7
if [[ $reply == "error: unknown command 'bogus'"* ]] && ! grep -q -- '--control: error' st.err; then
	ok "--control with ack: a bad command is answered on the ack fifo ('$reply'), not on stderr"
else
	nok "--control with ack: a bad command is answered on the ack fifo" "reply '$reply': $(tail -2 st.err)"
fi
exec 7<&-

# 3. status, before and after three snapshots of which --switch-max-files=2 keeps two
s0=$("$PR" ctl ctl,ack status 2>&1)
files=()
for i in 1 2 3; do
	files+=("$("$PR" ctl ctl,ack snapshot 2>&1)")
	sleep 0.3
done
s1=$("$PR" ctl ctl,ack status 2>&1)
rc1=$?
kept=$(stat -c %s st.data.* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
if [ "$(field snapshots "$s0")" = 0 ] && [ "$(field last_trigger "$s0")" = none ] &&
   [ $rc1 = 0 ] && [ "$(field snapshots "$s1")" = 3 ] && [ "$(field bytes "$s1")" = "$kept" ] &&
   [ "$(field last_trigger "$s1")" = control ] && [ "$(field bad_commands "$s1")" = 1 ] &&
   [ "$(field last_file "$s1")" = "${files[2]}" ] && [ -n "$(field lost "$s1")" ] &&
   [ -n "$(field overwritten "$s1")" ] && [ "$(field uptime_s "$s1")" -ge 1 ]; then
	ok "ctl status: from 0 snapshots to 3, bytes on disk $kept = the 2 files kept, last trigger and file, uptime"
else
	nok "ctl status answers from the running recorder" "before: '$s0'" "after (exit $rc1): '$s1'" \
		"kept: $kept bytes in $(ls st.data.* 2>/dev/null | wc -l) files; last snapshot '${files[2]}'"
fi
wait $pid

[ "$OFFSET" = 0 ] && echo "1..$N"
if [ "$FAIL" = 0 ]; then cd / && rm -rf "$W"; else echo "# $FAIL of $N failed; files in $W"; fi
exit $((FAIL != 0))
