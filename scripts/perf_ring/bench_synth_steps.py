# SPDX-License-Identifier: GPL-2.0
"""Synthesis of 2,000 threads: perf-ring against perf's own synthesis code,
one synthesis thread each, and the per-thread cost of each step.

Spawns 20 processes of 100 idle threads (bench_threads.py), then ROUNDS
interleaved rounds of:
  perf bench internals synthesize -t -m 1 -M 1 -i 5   (perf's code, its mean)
  perf-ring record -a -e dummy -v --synth-threads 1   (its own figure; the
      BPF task iterator where it can be used)
  the same with PERF_RING_SYNTH=proc                  (the /proc path)
  bench/synth_steps.c   each step of the methods timed over all of /proc
and writes bench/results/synth-steps.md.  Needs root, perf, make tools, and
a kernel with PROCMAP_QUERY (Linux 6.11+) for the ioctl row and with BTF
and task iterators for the iterator rows (n/a otherwise).  ROUNDS (default
9)."""

import os
import re
import subprocess
import sys
import time

from bench_lib import (BUILD, PERF_RING, THREADS, ROOT, Fail, fmt_ratio, log, mean, median,
                       paired_ratio, run)

ROUNDS = int(os.environ.get("ROUNDS", 9))
PROCS, PER = 20, 100
RES = os.path.join(ROOT, "bench", "results", "synth-steps.md")
SYNTH_LINE = re.compile(r"synthesized (\d+) threads of (\d+) processes on (\d+) threads in "
                        r"([\d.]+) ms(?:, listed by (.*))?")


def perf_bench():
    _, _, out, _ = run(["perf", "bench", "internals", "synthesize", "-t", "-m", "1", "-M", "1",
                        "-i", "5"], timeout=300)
    m = re.search(r"Average synthesis took: ([\d.]+) usec", out)
    if not m:
        raise Fail("perf bench internals synthesize: unexpected output:\n" + out[-400:])
    return float(m.group(1)) / 1e3		# ms


def perf_ring(method):
    """(ms, threads, how the threads were listed) of one perf-ring synthesis"""
    out = os.path.join(BUILD, "synth-steps.data")
    env = dict(os.environ, PERF_RING_SYNTH=method)
    _, _, _, err = run([PERF_RING, "record", "-a", "-e", "dummy", "-v", "--synth-threads", "1",
                        "-o", out, "--", "true"], timeout=120, env=env)
    os.unlink(out)
    m = SYNTH_LINE.search(err)
    if not m:
        raise Fail("perf-ring printed no synthesis line:\n" + err[-400:])
    return float(m.group(4)), int(m.group(1)), (m.group(5) or "?").strip()


def main():
    steps_bin = os.path.join(BUILD, "synth_steps")
    src = os.path.join(ROOT, "tools", "perf_ring")
    subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-O2", "-I", src, "-o", steps_bin,
                    os.path.join(ROOT, "bench", "synth_steps.c"),
                    os.path.join(src, "synth-iter.c"), "-lbpf"], check=True)
    sp = subprocess.Popen(THREADS + [str(PROCS), str(PER)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
    try:
        line = sp.stdout.readline()
        if not line.startswith("ready"):
            raise Fail("bench_threads.py did not start its threads")
        pb, pr, pp, threads, steps, how = [], [], [], [], {}, {}
        for r in range(ROUNDS):
            pb.append(perf_bench())
            ms, n, h = perf_ring("auto")
            pr.append(ms)
            threads.append(n)
            how[h] = how.get(h, 0) + 1
            ms, _, _ = perf_ring("proc")
            pp.append(ms)
            _, _, out, _ = run([steps_bin, "3"], timeout=300)
            for ln in out.splitlines():
                m = re.match(r"step (\S+) ns_per_thread=(\d+)", ln)
                if m:
                    steps.setdefault(m.group(1), []).append(int(m.group(2)))
            log("synthesis round %d of %d: perf %.1f ms, perf-ring %.1f ms (%s), "
                "perf-ring from /proc %.1f ms" % (r + 1, ROUNDS, pb[-1], pr[-1], h, pp[-1]))
    finally:
        sp.stdin.close()
        sp.wait(timeout=60)
    ratio = paired_ratio(pr, pb)
    ratio_proc = paired_ratio(pp, pb)
    load = os.getloadavg()[0]

    def verdict(r):
        return "met" if r["hi"] <= 0.5 else ("missed" if r["lo"] > 0.5 else "undecided")
    desc = {"list": "readdir of /proc and of every /proc/PID/task",
            "comm": "perf-ring: openat(task dir, \"TID/comm\"), one read, close (the task "
                    "readdirs included)",
            "status": "perf: /proc/PID/task/TID/status read to EOF (the task readdirs "
                      "included)",
            "ppid": "perf-ring: /proc/PID/status per process, for the parent",
            "maps-text": "/proc/PID/maps text, stdio and sscanf (perf-ring's fallback; "
                         "perf parses the same text)",
            "maps-query": "perf-ring: PROCMAP_QUERY, executable maps only (Linux 6.11+)",
            "btf-libbpf": "libbpf's btf__load_vmlinux_btf(), not used: for comparison",
            "iter-btf": "perf-ring: task_struct offsets and the iterator's id from "
                        "/sys/kernel/btf/vmlinux, one pass in place",
            "iter-load": "perf-ring: the iterator program loaded, verified and attached",
            "iter-read": "perf-ring: one iterator read to the end, every task of the system",
            "iter-procs": "perf-ring: readdir of /proc alone, the processes",
            "iter-kcomm": "perf-ring: /proc comm of each kernel thread (their full names)"}
    md = ["# Synthesis of 2,000 threads: perf-ring against perf's synthesis", "",
          "Generated by `python3 scripts/perf_ring/bench_synth_steps.py` (ROUNDS=%d) on %s, "
          "Linux %s, load average %.1f at the end. %d processes of %d idle threads "
          "(bench_threads.py), %d threads on the system in all; %d interleaved rounds." %
          (ROUNDS, time.strftime("%Y-%m-%d", time.gmtime()), os.uname().release, load,
           PROCS, PER, median(threads), ROUNDS), "",
          "- perf: `perf bench internals synthesize -t -m 1 -M 1 -i 5`, perf's own synthesis "
          "code, one thread, the mean of its 5 iterations;",
          "- perf-ring: `perf-ring record -a -e dummy -v --synth-threads 1 -- true`, its own "
          "figure (\"synthesized ... in X ms\"), all of it: the BTF lookup, loading the "
          "iterator program, the maps; the threads listed by %s;" %
          "; ".join("%s (%d of %d rounds)" % (k, v, ROUNDS) for k, v in sorted(how.items())),
          "- perf-ring from /proc: the same with `PERF_RING_SYNTH=proc`.", "",
          "| | perf, ms | perf-ring, ms | perf-ring from /proc, ms |",
          "| --- | ---: | ---: | ---: |",
          "| mean | %.1f | %.1f | %.1f |" % (mean(pb), mean(pr), mean(pp)),
          "| median | %.1f | %.1f | %.1f |" % (median(pb), median(pr), median(pp)), "",
          "| comparison | ratio [95% interval] | goal | verdict |",
          "| --- | ---: | --- | --- |",
          "| perf-ring / perf, one thread each | %s | <= 0.50 | %s |" %
          (fmt_ratio(ratio), verdict(ratio)),
          "| perf-ring from /proc / perf | %s | (<= 0.50) | %s |" %
          (fmt_ratio(ratio_proc), verdict(ratio_proc)), "",
          "Per thread of the system, each step on its own (`bench/synth_steps.c`, median "
          "of 3 passes, then the median over the rounds), in microseconds.  The /proc path "
          "is list + comm + ppid + maps-query; the iterator path is iter-btf + iter-load + "
          "iter-read + iter-procs + iter-kcomm + maps-query:", "",
          "| step | us per thread | what |", "| --- | ---: | --- |"]
    for k in ("list", "comm", "status", "ppid", "maps-text", "maps-query", "btf-libbpf",
              "iter-btf", "iter-load", "iter-read", "iter-procs", "iter-kcomm"):
        v = steps.get(k)
        md.append("| %s | %s | %s |" % (k, "%.2f" % (median(v) / 1e3) if v else "n/a",
                                        desc[k]))
    md += ["", "Each round: `bench/results/synth-steps.png`.", ""]
    with open(RES, "w") as f:
        f.write("\n".join(md))
    plot(pb, pr, pp)
    print("\n".join(md))


def plot(pb, pr, pp):
    dat = os.path.join(BUILD, "synth-steps.dat")
    with open(dat, "w") as f:
        for i, (b, r, p) in enumerate(zip(pb, pr, pp)):
            f.write("%d %.2f %.2f %.2f %.2f\n" % (i + 1, b, r, p, b / 2))
    subprocess.run(["gnuplot"], check=True, text=True, input="""
set terminal pngcairo size 900,420 noenhanced
set output '%s'
set title 'Synthesis of %s threads, one synthesis thread, by round'
set xlabel 'round'
set ylabel 'ms'
set yrange [0:*]
set key below
set grid ytics
plot '%s' using 1:2 with linespoints title 'perf (perf bench internals synthesize)', \\
     '' using 1:3 with linespoints title 'perf-ring (BPF task iterator)', \\
     '' using 1:4 with linespoints title 'perf-ring, PERF_RING_SYNTH=proc', \\
     '' using 1:5 with lines dt 2 lc rgb 'black' title 'goal: half of perf'
""" % (RES[:-3] + ".png", "2,000", dat))


if __name__ == "__main__":
    try:
        main()
    except Fail as e:
        print("bench_synth_steps: %s" % e, file=sys.stderr)
        sys.exit(1)
