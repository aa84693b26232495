#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh FUZZER SECONDS [SEEDS REGRESSIONS]: replay every input in
# REGRESSIONS (default regressions/), then fuzz for SECONDS from the seed
# corpus (SEEDS, a directory of committed inputs; default: perf.data files
# the recorder makes, make-corpus.sh, and the files of make-seeds.py)
# plus the regression inputs.  Prints the executions and crashes; exits non-zero on
# any crash (the input is kept in the artifacts directory it names).
#
# Environment: FUZZ_WORK (default: the fuzzer's directory) holds corpus/
# (seeds), queue/ (what the fuzzer adds) and artifacts/.  FUZZ_ARGS adds
# libFuzzer options.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/../../../scripts/perf_ring/lib.sh"

FUZZER=${1:?usage: run.sh FUZZER SECONDS}
SECONDS_=${2:-600}
SEEDS=${3:-}
REG=${4:-$HERE/regressions}
# the perf.data fuzzer works next to it; one with seeds of its own apart
if [ -n "$SEEDS" ]; then
	WORK=${FUZZ_WORK:-$(dirname "$FUZZER")/$(basename "$FUZZER").work}
else
	WORK=${FUZZ_WORK:-$(dirname "$FUZZER")}
fi

[ -x "$FUZZER" ] || pr_die "no fuzzer at $FUZZER"
case $SECONDS_ in ''|*[!0-9]*) pr_die "bad FUZZ_SECONDS '$SECONDS_'";; esac
mkdir -p "$WORK/queue" "$WORK/artifacts" || exit 1

# 1. Regressions: every committed input must run clean.
regs=("$REG"/*)
nreg=0
if [ -e "${regs[0]}" ]; then
	nreg=${#regs[@]}
	if ! "$FUZZER" -runs=1 "${regs[@]}" >"$WORK/replay.log" 2>&1; then
		grep -E 'ERROR|SUMMARY|Running:' "$WORK/replay.log" | tail -20 >&2
		pr_log "fuzz: regression replay FAILED (log: $WORK/replay.log)"
		exit 1
	fi
fi
pr_log "fuzz: $nreg regression inputs replayed, no crash"

# 2. Seeds from the recorder.
if [ -n "$SEEDS" ]; then
	mkdir -p "$WORK/corpus" && cp "$SEEDS"/* "$WORK/corpus/" || pr_die "cannot copy the seeds in $SEEDS"
else
	if [ ! -d "$WORK/corpus" ] || [ -z "$(ls -A "$WORK/corpus" 2>/dev/null)" ]; then
		"$HERE/make-corpus.sh" "$WORK/corpus" || pr_die "cannot make the seed corpus"
	fi
	# and files with what recordings rarely hold (make-seeds.py)
	python3 "$HERE/make-seeds.py" report "$WORK/corpus" >/dev/null ||
		pr_die "cannot make the structured seeds"
fi

# 3. Fuzz.  libFuzzer stops at the first crash, leak, OOM or timeout.
before=$(ls "$WORK/artifacts" | wc -l)
start=$(date +%s)
# shellcheck disable=SC2086
"$FUZZER" -max_total_time="$SECONDS_" -timeout=25 -rss_limit_mb=2048 \
	-max_len=65536 -close_fd_mask=3 -print_final_stats=1 \
	-artifact_prefix="$WORK/artifacts/" ${FUZZ_ARGS:-} \
	"$WORK/queue" "$WORK/corpus" "$REG" >"$WORK/fuzz.log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$WORK/fuzz.log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$WORK/fuzz.log" | tail -1)
crashes=$(( $(ls "$WORK/artifacts" | wc -l) - before ))
if [ $rc -ne 0 ] && [ $crashes -eq 0 ]; then
	crashes=1
fi
if [ $crashes -ne 0 ]; then
	grep -E '^==[0-9]+==ERROR|SUMMARY|^    #[0-9] |Test unit written' "$WORK/fuzz.log" | head -30 >&2
fi
printf 'fuzz: %s executions in %ss (%s/s), corpus %s inputs, %d crashes (log: %s)\n' \
	"${execs:-?}" "$took" "${rate:-?}" "$(ls "$WORK/queue" | wc -l)" "$crashes" "$WORK/fuzz.log"
[ $crashes -eq 0 ]
