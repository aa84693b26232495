# SPDX-License-Identifier: GPL-2.0
#
# The flight recorder's memory over many snapshots (sourced by e2e.sh: its
# helpers and variables are used here).  A snapshot every 2 s, beside a
# loop that starts a process every 10 ms (its COMM, MMAP2 and EXIT records
# fill the side-band store and make it compact): perf-ring's VmRSS stays
# within 1 MB of its value after the second snapshot.  A sample that falls
# on a snapshot being written holds the writer's buffers for the moment,
# so each sample is the lowest of the 2 s (one snapshot) that start with
# it.  The store is taken whole at the start, and each snapshot's writer
# gives its pages back when it closes (make soak-scale is the hour of this).

rm -rf rss
mkdir rss
# shellcheck disable=SC2016 # $0 is the inner shell's
setsid "$PR" record --overwrite -z --switch-output=2s -e 'raw_syscalls:*' -o rss/s.data -- \
	sh -c 'while :; do "$0" 100000 >/dev/null; done & while :; do /bin/true; sleep 0.01; done' \
	"$CL" >rss.out 2>rss.err &
rpid=$!
rss=()
for _ in $(seq 100); do
	sleep 0.25
	# from the second snapshot on (before it: start-up, as the soak's first minute)
	[ "$(grep -c '^\[ perf-ring: snapshot ' rss.err)" -ge 2 ] || continue
	r=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$rpid/status" 2>/dev/null)
	[ -z "$r" ] || rss+=("$r")
done
kill -INT "$rpid" 2>/dev/null
wait "$rpid"
rc=$?
kill -KILL -- "-$rpid" 2>/dev/null
snaps=$(grep -c '^\[ perf-ring: snapshot ' rss.err)
base='' worst=0 n=0
for ((i = 0; i + 8 <= ${#rss[@]}; i++)); do
	low=${rss[i]}
	for ((j = i + 1; j < i + 8; j++)); do
		[ "${rss[j]}" -ge "$low" ] || low=${rss[j]}
	done
	n=$((n + 1))
	[ -n "$base" ] || base=$low
	d=$((low > base ? low - base : base - low))
	[ "$d" -le "$worst" ] || worst=$d
done
echo "# flight recorder RSS: $snaps snapshots, ${#rss[@]} samples from the second, lowest of each 2 s from ${base:-?} kB, largest change $worst kB, peak $(printf '%s\n' "${rss[@]}" | sort -n | tail -1) kB"
# stopped by SIGINT, perf-ring dies as perf record: by the SIGTERM that
# stopped the command (143), or the SIGINT (130)
if [ "$rc" != 0 ] && [ "$rc" != 130 ] && [ "$rc" != 143 ]; then
	nok "flight recorder RSS over $snaps snapshots" "exit $rc" "$(tail -3 rss.err)"
elif [ "$n" -lt 40 ] || [ "$snaps" -lt 6 ]; then
	nok "flight recorder RSS over snapshots: too few samples ($n) or snapshots ($snaps)" "$(tail -3 rss.err)"
elif [ "$worst" -le 1024 ]; then
	ok "flight recorder RSS over $snaps snapshots 2 s apart: within $worst kB of its value after the second"
else
	nok "flight recorder RSS within 1 MB over $snaps snapshots" "changed by $worst kB from $base kB"
fi
rm -rf rss
