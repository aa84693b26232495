# SPDX-License-Identifier: GPL-2.0
#
# Sourced in the guest, as /lib/perf-ring-guest-lib.sh, by the scripts
# that judge perf-ring's files there (guest-faults.sh, guest-nolost.sh).

# readable FILE: perf reads it (report --stats and script), or without perf
# in the initramfs perf-ring report; the tools' output goes to FILE.rep.
# perf's count of lost records is allowed: records the kernel dropped are
# reported, not hidden.
readable() {
	if command -v perf > /dev/null; then
		perf report --stats -i "$1" > "$1.rep" 2>&1 &&
		perf script -i "$1" > /dev/null 2>> "$1.rep" &&
		! grep -qiE 'error|invalid|unexpected|corrupt|cannot|failed' "$1.rep"
	else
		perf-ring report -i "$1" > "$1.rep" 2>&1
	fi
}

# reader: what readable uses
reader() { if command -v perf > /dev/null; then echo perf; else echo perf-ring report; fi; }
