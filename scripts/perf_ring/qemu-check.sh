#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-check.sh KERNEL: boot the kernel with the selftests and check the TAP.
# KERNEL: pre, post, upstream, post-pN, post-nolost.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: qemu-check.sh pre|post|upstream|post-pN|post-nolost}
name=$kernel$(pr_flavour)
log=$PR_BUILD/images/$name/console-check.log
# The selftests scale their loops down under emulation.
export QEMU_APPEND=${QEMU_APPEND:-perf_ring.scale=0.1}
# KCSAN watches one access in thousands: give the pause/resume stress time
# to race (kernel/controls/README), with and without the planted bug.
case $(pr_flavour) in
-kcsan*) QEMU_APPEND="$QEMU_APPEND perf_ring.pause_stress=${PAUSE_STRESS_SECONDS:-20}" ;;
esac
[ "${CONTROL:-}" != 1 ] || [ -n "$(pr_flavour)" ] ||
	pr_die "CONTROL=1: the negative controls are for DEBUG=1 (KASAN) or DEBUG=kcsan"
# FAULTS=1 (debug flavour): the fault-injection run (guest-faults.sh).
# loglevel=6 shows each failure's "FAULT_INJECTION" line, so that
# fault_count.py can count the failures and take their traces out of the
# log before tap-check.sh looks for splats.  log_buf_len: the failures'
# traces (about 50 lines each) must not push out of the kernel's log the
# crash lines that the guest reads back with dmesg.
if [ "${FAULTS:-}" = 1 ]; then
	case $(pr_flavour) in
	-debug) ;;
	*) pr_die "FAULTS=1 needs the debug kernel (DEBUG=1) and no CONTROL" ;;
	esac
	log=$PR_BUILD/images/$name/console-faults.log
	QEMU_APPEND="$QEMU_APPEND perf_ring.faults=1 loglevel=6 log_buf_len=8M"
	"$PR_ROOT/scripts/perf_ring/qemu-run.sh" "$kernel" check "$log" "${QEMU_TIMEOUT:-1800}"
	"$PR_ROOT/scripts/perf_ring/fault_count.py" "$log" "$log.stripped" |
		tee "$PR_BUILD/images/$name/faults-summary.txt"
	"$PR_ROOT/scripts/perf_ring/tap-check.sh" "qemu-check $name FAULTS=1" "$log.stripped"
	exit
fi
# KERNEL=post-nolost (no PERF_FORMAT_LOST, as before 6.0): the recorder's
# fallback (guest-nolost.sh) instead of the selftests, which need it.
if [ "$kernel" = post-nolost ]; then
	QEMU_APPEND="$QEMU_APPEND perf_ring.nolost=1"
	log=$PR_BUILD/images/$name/console-nolost.log
fi
"$PR_ROOT/scripts/perf_ring/qemu-run.sh" "$kernel" check "$log" "${QEMU_TIMEOUT:-900}"
"$PR_ROOT/scripts/perf_ring/tap-check.sh" "qemu-check $name" "$log"
