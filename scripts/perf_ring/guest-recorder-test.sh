#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest as /usr/bin/perf-ring-guest-test: the recorder on
# the kernel under test. Streaming must work everywhere. The flight recorder
# needs write_backward: on PRE it must refuse with a message naming the
# missing feature and a non-zero exit, elsewhere it must write a snapshot.
# Exit 0 when every check held.
fail=0
check() { # check DESCRIPTION COMMAND...
	desc=$1
	shift
	if "$@"; then echo "ok: $desc"; else echo "FAILED: $desc"; fail=1; fi
}

# The guest's tmpfs.
d=/tmp
cd "$d" || exit 1
perf-ring record -q -m 64 -e 'raw_syscalls:*' -o $d/stream.data -- close-loop 20000 \
	> $d/stream.out 2>&1
check "streaming record of close-loop 20000 exits 0" [ $? -eq 0 ]
perf-ring report -i $d/stream.data > $d/stream.rep 2>&1
check "report reads the streaming file" [ $? -eq 0 ]
enter=$(awk '/raw_syscalls:sys_enter stats/ { getline; print $3 }' $d/stream.rep)
lost=$(awk '/^  lost:/ { print $2 }' $d/stream.rep)
# Every close(-1) of the loop is a sys_enter record, unless it was lost.
check "sys_enter records ($enter) + lost ($lost) >= 20000" \
	[ $(( ${enter:-0} + ${lost:-0} )) -ge 20000 ]

perf-ring record -q --overwrite -z -e 'raw_syscalls:*' -o $d/flight.data -- close-loop 20000 \
	> $d/flight.out 2>&1
rc=$?
case "$(uname -r)" in
*-pre|*-pre-debug)
	check "PRE: --overwrite fails (exit $rc)" [ $rc -ne 0 ]
	check "PRE: the message names write_backward" grep -q write_backward $d/flight.out
	;;
*)
	check "--overwrite -z exits 0" [ $rc -eq 0 ]
	perf-ring report -i $d/flight.data > $d/flight.rep 2>&1
	check "report reads the snapshot" [ $? -eq 0 ]
	check "the snapshot holds samples" grep -q 'SAMPLE events' $d/flight.rep
	;;
esac
[ $fail -eq 0 ] || { echo "--- recorder output"; cat $d/stream.out $d/flight.out; }
exit $fail
