#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-plot.sh: the PNG plots of make bench, from the data the parts left
# in $BENCH_STATE:
#   overhead.png     the series' table: workload time per case, mean and stddev
#   compression.png  compression ratio against overhead, per level and writer
#   loss.png         records lost against buffer size, perf and perf-ring -z1
# A part that did not run leaves no data, and its plot is skipped.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

state=${BENCH_STATE:-$PR_BUILD/bench/state}
out=${BENCH_OUT:-$PR_ROOT/bench/results}
mkdir -p "$out"

if [ -s "$state/series.dat" ]; then
	gnuplot <<-EOF
	set terminal pngcairo size 900,520 font "sans,10" noenhanced
	set output "$out/overhead.png"
	set title "close(-1) loop recorded with raw_syscalls:* (mean and stddev)"
	set ylabel "workload time, ms"
	set style fill solid 0.6 border -1
	set boxwidth 0.6
	set yrange [0:*]
	set grid ytics
	set xtics rotate by -20 left
	unset key
	plot "$state/series.dat" using 1:3:xtic(2) with boxes lc rgb "#4477aa", \
	     "" using 1:3:4 with yerrorbars lc rgb "black" pt 0
	EOF
	pr_log "bench: wrote ${out#"$PR_ROOT"/}/overhead.png"
fi

if [ -s "$state/compression.dat" ]; then
	# one file per workload and writer: columns level, overhead, ratio
	sel() {
		awk -v w="$1" -v k="$2" '$1 == w && $3 == k { print $2, $4, $5 }' \
			"$state/compression.dat" > "$state/z-$1-$2.dat"
		echo "$state/z-$1-$2.dat"
	}
	cs=$(sel close sync); ci=$(sel close io_uring); ts=$(sel tar sync); ti=$(sel tar io_uring)
	gnuplot <<-EOF
	set terminal pngcairo size 1100,520 font "sans,10" noenhanced
	set output "$out/compression.png"
	set multiplot layout 1,2 title "perf-ring -z 0,1,3,5,8: compression ratio against overhead (labels: -z level)"
	set xlabel "overhead (x the run time without recording)"
	set ylabel "compression ratio (x)"
	set logscale y
	set yrange [0.8:100]
	set grid
	set key top left
	set title "close(-1) loop, raw_syscalls:*"
	plot "$cs" using 2:3 with points pt 7 ps 1.3 lc rgb "#4477aa" title "sync (write(2))", \
	     "$ci" using 2:3 with points pt 5 ps 1.3 lc rgb "#ee6677" title "io_uring", \
	     "$cs" using 2:3:(sprintf("%d", \$1)) with labels offset 0,0.9 tc rgb "#4477aa" notitle, \
	     "$ci" using 2:3:(sprintf("%d", \$1)) with labels offset 0,-0.9 tc rgb "#ee6677" notitle
	set title "tar through a pipe, syscalls and sched"
	plot "$ts" using 2:3 with points pt 7 ps 1.3 lc rgb "#4477aa" title "sync (write(2))", \
	     "$ti" using 2:3 with points pt 5 ps 1.3 lc rgb "#ee6677" title "io_uring", \
	     "$ts" using 2:3:(sprintf("%d", \$1)) with labels offset 0,0.9 tc rgb "#4477aa" notitle, \
	     "$ti" using 2:3:(sprintf("%d", \$1)) with labels offset 0,-0.9 tc rgb "#ee6677" notitle
	unset multiplot
	EOF
	pr_log "bench: wrote ${out#"$PR_ROOT"/}/compression.png"
fi

if [ -s "$state/loss.dat" ]; then
	# columns: placement, KiB per CPU, mean lost: perf, perf-ring, perf-ring --reader-slice 0
	awk '$1 == "pinned"' "$state/loss.dat" > "$state/loss-pinned.dat"
	awk '$1 == "unpinned"' "$state/loss.dat" > "$state/loss-unpinned.dat"
	gnuplot <<-EOF
	set terminal pngcairo size 1100,480 font "sans,10" noenhanced
	set output "$out/loss.png"
	set multiplot layout 1,2 title "close(-1) loop, raw_syscalls:*, -z1: samples lost per run (mean)"
	set xlabel "buffer per CPU, KiB"
	set ylabel "samples lost per run"
	set logscale x 2
	set xrange [384:5461]
	set yrange [0:*]
	set grid
	set key top right
	do for [p in "pinned unpinned"] {
		set title (p eq "pinned" ? "recorder and workload pinned to CPU 0" : "unpinned")
		f = "$state/loss-".p.".dat"
		plot f using 2:3 with linespoints pt 7 lc rgb "#4477aa" title "perf record -z1", \\
		     f using 2:4 with linespoints pt 5 lc rgb "#ee6677" title "perf-ring -z1", \\
		     f using 2:5 with linespoints pt 9 dt 2 lc rgb "#228833" title "perf-ring -z1 --reader-slice 0"
	}
	unset multiplot
	EOF
	pr_log "bench: wrote ${out#"$PR_ROOT"/}/loss.png"
fi
