#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: what "make check" runs. Every step runs even when an earlier one
# failed, so one CI log shows everything that is broken; the exit status is
# non-zero when any step failed. Each step's output is streamed, and a table
# of steps, results and times closes the run.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PR_ROOT"

steps=(
	"tools: build the recorder (-Wall -Wextra -Werror)|make tools"
	"tools: no import circle between the recorder's files|python3 scripts/perf_ring/include-cycles.py tools/perf_ring"
	"tools: shape: functions <= 120 lines, struct ring <= 14 fields, struct writer's fields named only in writer.c|python3 scripts/perf_ring/shape-check.py tools/perf_ring"
	"tools: unit tests|make tools-test"
	"tools: unit tests under ASan and UBSan|make tools-asan"
	"make ab: input checks, no kernel build|make ab-test"
	"kselftest on the host kernel, as root|make kselftest TARGETS=perf_ring"
	"kselftest on the host kernel, as nobody (perf_event_paranoid=2, 1, -1)|make kselftest-user TARGETS=perf_ring"
	"kselftest on the host kernel under ASan and UBSan, as root|make kselftest-asan TARGETS=perf_ring"
	"recorder end to end against perf|make tools-e2e"
	"recorder as nobody (perf_event_paranoid=2, 1, -1), also under ASan/UBSan|make tools-privileges"
	"recorder safe as root on a shared host (planted links, fifos, the cache)|make tools-security"
	"fuzz: the readers and the control channel, 30+15+10 s and the regression inputs|make fuzz-smoke"
	"soak: flight recorder, 30 s, snapshots every 100 ms|make soak-host SOAK_SECONDS=30"
	"benchmarks, quick run|make bench QUICK=1"
	"kernel PRE: build|make kernel KERNEL=pre"
	"kernel PRE: boot in QEMU with the selftests|make qemu-check KERNEL=pre"
	"kernel POST: build|make kernel KERNEL=post"
	"series: apply and checkpatch each patch, sparse the whole, the build is POST's (make series-check builds each step)|BUILD_EACH=0 POST_TREE=build/kernel/post POST_LOG=build/images/post/build.log scripts/perf_ring/series-check.sh build/kernel/pre"
	"kernel POST: boot in QEMU with the selftests|make qemu-check KERNEL=post"
	"soak in the POST guest, 30 s, CPU 1 offline and back|make soak-guest KERNEL=post SOAK_SECONDS=30"
)
[ -n "${CHECK_STEPS:-}" ] && mapfile -t steps < <(printf '%s\n' "${steps[@]}" | grep -E "$CHECK_STEPS")

# Each step's output also goes to a log, so the lines that say why a step
# failed can be shown again below the table: a CI excerpt keeps only the end.
logs=$PR_BUILD/check
mkdir -p "$logs"
t_all=$(date +%s)
results=()
failed_logs=()
failed=0
i=0
for s in "${steps[@]}"; do
	i=$((i + 1))
	name=${s%%|*}
	cmd=${s#*|}
	printf '\n==> [%d/%d] %s (%s)\n' "$i" "${#steps[@]}" "$name" "$cmd"
	t0=$(date +%s)
	log=$logs/step-$i.log
	if bash -c "$cmd" 2>&1 | tee "$log"; then
		r=PASS
	else
		r=FAIL
		failed=$((failed + 1))
		failed_logs+=("$name|$log")
	fi
	results+=("$(printf '%-4s %8s  %s' "$r" "$(pr_elapsed "$t0")" "$name")")
	printf '<== %s: %s in %s\n' "$name" "$r" "$(pr_elapsed "$t0")"
done

printf '\nmake check: %d step(s), %d failed, %s in all\n' "${#steps[@]}" "$failed" "$(pr_elapsed "$t_all")"
printf '  %s\n' "${results[@]}"
for f in "${failed_logs[@]}"; do
	printf '\n--- why "%s" failed: its failed tests with what they said, the lines that name a failure, then its last 25 lines\n' "${f%%|*}"
	grep -n -A 6 '^not ok' "${f#*|}" | grep -E '^[0-9]+[:-](not ok|#  )' | head -n 40
	echo '...'
	grep -n -E -i 'fail|error|traceback|not ok|assert' "${f#*|}" | tail -n 25
	echo '...'
	tail -n 25 "${f#*|}"
done
[ "$failed" -eq 0 ]
