#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf 6.1 behind perf-ring's command line, for the reference column of the
# security table (Documentation/dev-tools/perf_ring_reliability.rst):
#   PERF_RING=tools/perf_ring/tests/perf-as-perf-ring.sh tools/perf_ring/tests/e2e-security.sh DIR
# record -> perf record; report --decompress -> perf inject; report --recover
# -> none (exit 3); report -i -> perf report --stats.
case $1 in
record) shift; exec perf record "$@" ;;
report)
	shift; in= out= mode=stats
	while [ $# -gt 0 ]; do
		case $1 in
		-i) in=$2; shift ;; -o) out=$2; shift ;;
		--decompress) mode=inject ;; --recover) mode=none ;;
		esac
		shift
	done
	case $mode in
	inject) exec perf inject -i "$in" -o "$out" ;;
	none) echo "perf has no --recover" >&2; exit 3 ;;
	*) exec perf report --stats -i "$in" ;;
	esac ;;
esac
exit 3
