#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest as /usr/bin/perf-ring-guest-nolost, for
# "make qemu-check KERNEL=post-nolost": a POST kernel whose
# perf_copy_attr() refuses PERF_FORMAT_LOST with EINVAL, as every kernel
# before 6.0 does (scripts/perf_ring/mktree.sh).  perf-ring must find that
# out by itself (PERF_RING_NO_FORMAT_LOST is not set), go on without the
# read format, count what the kernel lost from the LOST records, and say
# so.  The selftests are not run: they ask for PERF_FORMAT_LOST, which
# the series' kernel (6.12) has.
#
# Prints TAP.
d=$(mktemp -d) || exit 1
# ok, notok, readable and reader: /lib/perf-ring-guest-lib.sh (guest-lib.sh)
. /lib/perf-ring-guest-lib.sh

echo "TAP version 13"
if [ ! -x /usr/bin/perf-ring ]; then
	echo "1..1"
	echo "ok 1 fallback # SKIP perf-ring is not in the initramfs"
	exit 0
fi
unset PERF_RING_NO_FORMAT_LOST
fallback='the kernel has no PERF_FORMAT_LOST (before 6.0): lost records are counted from the LOST records'
how='(from LOST records: no PERF_FORMAT_LOST)'

# Streaming with a buffer of two pages: the kernel loses records, and the
# summary's count must be what the file's LOST records add up to.
perf-ring record -v -m 8K -e 'raw_syscalls:sys_enter' -o $d/s.data -- close-loop 100000 \
	> $d/s.out 2>&1
rc=$?
sum=$(grep '^\[ perf-ring record:' $d/s.out)
lost=$(echo "$sum" | sed -n 's/.* \([0-9][0-9]*\) lost .*/\1/p')
echo "# streaming, -m 8K: exit $rc: $(grep -F "$fallback" $d/s.out)"
echo "# $sum"
if [ "$rc" = 0 ] && grep -qF "$fallback" $d/s.out && echo "$sum" | grep -qF "$how"; then
	ok "streaming: perf_event_open's EINVAL for PERF_FORMAT_LOST met, retried without it, and said so (-v and the summary)"
else
	notok "streaming: the fallback was not taken or not reported (exit $rc)"
	tail -5 $d/s.out | sed 's/^/#   /'
fi
perf-ring report -i $d/s.data > $d/s.rep 2>&1
inrec=$(sed -n 's/^ *lost: \([0-9]*\) samples in \([0-9]*\) LOST records/\1 \2/p' $d/s.rep)
echo "# the file: lost ${inrec%% *} samples in ${inrec##* } LOST records; the summary: ${lost:-?} lost"
if [ -z "$lost" ] || [ -z "$inrec" ]; then
	notok "streaming: the summary's lost count and the file's LOST records (summary '${lost:-}', report '${inrec:-}')"
elif [ "$lost" = 0 ]; then
	notok "streaming: no loss with a 2-page buffer under TCG, so the count was not exercised"
elif [ "$lost" != "${inrec%% *}" ]; then
	notok "streaming: the summary says $lost lost, the LOST records add up to ${inrec%% *}"
else
	ok "streaming: $lost lost, the sum of the file's ${inrec##* } LOST records"
fi
if readable $d/s.data; then
	ok "streaming: the file reads in $(reader)"
else
	notok "streaming: the file does not read in $(reader)"
	tail -3 $d/s.data.rep | sed 's/^/#   /'
fi

# The flight recorder: no read format, so the overwritten count comes from
# the sample period (fixed) and the counter's value alone.
perf-ring record --overwrite -m 8K -e syscalls:sys_enter_close -o $d/f.data -- close-loop 100000 \
	> $d/f.out 2>&1
rc=$?
sum=$(grep '^\[ perf-ring record:' $d/f.out)
echo "# flight recorder: exit $rc; $sum"
if [ "$rc" = 0 ] && echo "$sum" | grep -qF "$how" && echo "$sum" | grep -q ' [1-9][0-9]* overwritten' &&
   readable $d/f.data; then
	ok "flight recorder: runs without PERF_FORMAT_LOST, counts what was overwritten, the snapshot reads in $(reader)"
else
	notok "flight recorder without PERF_FORMAT_LOST (exit $rc)"
	tail -5 $d/f.out | sed 's/^/#   /'
fi

# System wide: every CPU's events open without it.
perf-ring record -a -e cpu-clock -c 1000000 -o $d/a.data -- close-loop 20000 > $d/a.out 2>&1
rc=$?
sum=$(grep '^\[ perf-ring record:' $d/a.out)
echo "# -a: exit $rc; $sum"
if [ "$rc" = 0 ] && echo "$sum" | grep -qF "$how" && readable $d/a.data; then
	ok "-a: runs without PERF_FORMAT_LOST and the file reads in $(reader)"
else
	notok "-a without PERF_FORMAT_LOST (exit $rc)"
	tail -5 $d/a.out | sed 's/^/#   /'
fi
echo "1..$n"
