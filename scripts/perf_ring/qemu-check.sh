#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# qemu-check.sh KERNEL: boot the kernel with the selftests and check the TAP.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernel=${1:?usage: qemu-check.sh pre|post|upstream}
name=$kernel$(pr_flavour)
log=$PR_BUILD/images/$name/console-check.log
# The selftests scale their loops down under emulation.
export QEMU_APPEND=${QEMU_APPEND:-perf_ring.scale=0.1}
"$PR_ROOT/scripts/perf_ring/qemu-run.sh" "$kernel" check "$log" "${QEMU_TIMEOUT:-900}"
"$PR_ROOT/scripts/perf_ring/tap-check.sh" "qemu-check $name" "$log"
