# SPDX-License-Identifier: GPL-2.0
#
# Sourced in the guest, as /lib/perf-ring-guest-lib.sh, by the scripts
# that judge perf-ring there (guest-faults.sh, guest-nolost.sh,
# guest-recorder-test.sh) and by /init (guest-init.sh) for its TAP lines.

# TAP lines, numbered in n: ok DESCRIPTION, notok DESCRIPTION, skip
# DESCRIPTION REASON, and check DESCRIPTION COMMAND..., ok when COMMAND
# succeeds.  fail becomes 1 at the first notok.
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n $*"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
check() {
	check_desc=$1
	shift
	if "$@"; then ok "$check_desc"; else notok "$check_desc"; fi
}

# kmsg_until MARK AWK-ARGUMENTS...: write MARK to the kernel's log, then
# read /dev/kmsg through awk with those arguments (options and program)
# until awk exits, which it does once it has seen MARK.  Reading
# /dev/kmsg waits at its end for more: once awk has exited, the pipe's
# last reader is closed, and one more record ("MARK read") wakes cat into
# SIGPIPE.  The timeout only bounds a log that lost the mark.
kmsg_until() {
	kmsg_mark=$1
	shift
	echo "<6>$kmsg_mark" > /dev/kmsg
	{ timeout 300 cat /dev/kmsg 2>/dev/null; } | {
		awk "$@"
		exec 0<&-
		echo "<6>$kmsg_mark read" > /dev/kmsg
	}
}

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
