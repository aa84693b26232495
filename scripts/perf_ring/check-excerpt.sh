#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-excerpt.sh NAME COMMAND: the lines of a qemu-check run's console log
# (build/images/NAME/console-check.log) that a result file under
# bench/results keeps, after a header naming COMMAND and the tree: the boot,
# the top-level results, the kselftest programs of the tree, the SKIPs, the
# backward data_head lines, the recorder's guest test, then tap-check.sh's
# summary of the same log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:?usage: check-excerpt.sh NAME COMMAND}
cmd=${2:?usage: check-excerpt.sh NAME COMMAND}
log=$PR_BUILD/images/$name/console-check.log
[ -s "$log" ] || pr_die "$log: no console log (run the qemu-check first)"
tree=$(git -C "$PR_ROOT" rev-parse --short HEAD)
[ -z "$(git -C "$PR_ROOT" status --porcelain -- scripts tools kernel)" ] ||
	tree="$tree with uncommitted changes"

echo "# $cmd (QEMU TCG, 2 vCPUs), $(date -u +%F); excerpt made at perf_ring $tree"
echo "# Lines of build/images/$name/console-check.log, in order: the boot, the top-level results,"
echo "# the perf_events kselftest programs of the tree, the SKIPs, the backward data_head lines,"
echo "# the recorder's guest test; then tap-check.sh's summary."
tr -d '\r' < "$log" | grep -E \
	-e '^PERF_RING_BOOTED' \
	-e '^(not )?ok [0-9]+ ' \
	-e '^# (not )?ok [0-9]+ selftests: perf_events' \
	-e '# SKIP' \
	-e 'data_head' \
	-e ': not run: ' \
	-e '^# (not )?ok [0-9]+ [^s]' \
	-e '^# (# )?(hotplug|1\.\.)' |
	awk '/# SKIP/ || !/^# # (not )?ok [0-9]+ [a-z_]+\.[a-z_]+/' || true
"$PR_ROOT/scripts/perf_ring/tap-check.sh" "qemu-check $name" "$log" 2>&1 | grep '^\[perf_ring\]' || true
