# SPDX-License-Identifier: GPL-2.0
#
# Sourced in the guest, as /lib/perf-ring-guest-lib.sh, by the scripts
# that judge perf-ring there (guest-faults.sh, guest-nolost.sh,
# guest-recorder-test.sh), by /init (guest-init.sh) for its TAP lines, and
# by the icount benchmark's (guest-bench.sh, guest-rate.sh) for its timed
# runs.

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

# rec_timed ARGUMENTS...: one run of /bench/rec_run (bench/rec_run.c)
# with ARGUMENTS, its output in $W/rec.out and $W/rec.err, whose last five
# lines are printed as "# " comments when the run did not exit 0.  Sets
# rec_line to rec_run's fields ("ns=T cpu=C idle=I ... status=S").
rec_timed() {
	/bench/rec_run "$@" >"$W/rec.out" 2>"$W/rec.err"
	rec_line=$(grep '^rec_run ' "$W/rec.err")
	rec_line=${rec_line#rec_run }
	case "$rec_line" in *status=0) ;; *) sed 's/^/# /' "$W/rec.err" | tail -5 ;; esac
}

# rec_counts FILE: "samples=N lost=N bytes=N" of the recording FILE as
# perf-ring report reads it (0 each when there is none), then FILE removed.
rec_counts() {
	samples=0 lost=0 bytes=0
	if [ -f "$1" ]; then
		bytes=$(wc -c < "$1")
		perf-ring report -i "$1" >"$W/rec.rep" 2>&1
		samples=$(awk '/Aggregated stats/ { a = 1 } a && /SAMPLE events:/ { print $3; exit }' "$W/rec.rep")
		lost=$(awk '/^  lost:/ { print $2; exit }' "$W/rec.rep")
		rm -f "$1"
	fi
	echo "samples=${samples:-0} lost=${lost:-0} bytes=$bytes"
}
