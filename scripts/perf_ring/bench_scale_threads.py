#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Start-up against the number of threads that exist: perf-ring record
against Debian's perf record, -a and -p, in user-space instructions
(valgrind --tool=callgrind: deterministic for a given system state).

A helper process holds T sleeping threads (T = 0, 1000, 10000; SCALE_THREADS
overrides).  Each tool records sched:sched_process_exit with -B for the
duration of "sleep 0.1", once under callgrind and once natively for the
wall time.  What the threads cost is the run's instructions less the same
run's with T = 0: synthesis, and for -p the per-thread events.  Callgrind
counts the tool's own instructions, not the kernel's work for it (the
/proc reads, perf_event_open): those are the same system calls for both
tools, or fewer for perf-ring (the BPF task iterator).

    python3 scripts/perf_ring/bench_scale_threads.py

writes bench/results/scale-threads.md and scale-threads.png."""

import os
import re
import subprocess
import time

import bench_lib as B

SIZES = [int(x) for x in os.environ.get("SCALE_THREADS", "0 1000 10000").split()]
EVENT = "sched:sched_process_exit"
HOLD = ("import sys, threading, time\n"
        "threading.stack_size(65536)\n"
        "ev = threading.Event()\n"
        "for _ in range(int(sys.argv[1])): threading.Thread(target=ev.wait, daemon=True).start()\n"
        "print('ready', flush=True)\n"
        "time.sleep(3600)\n")


NOTE = """
Not measured: 100,000 threads (the holder's stacks fit, but under
callgrind each tool's -a run then takes minutes, more than this run had),
and -p at 10,000 threads: both tools open each thread's events on every
CPU (perf record -p does so too unless --per-thread), 20,002 file
descriptors here, above this machine's hard RLIMIT_NOFILE (20,000, less
what valgrind keeps), which root cannot raise in this container.
perf-ring says so before it opens anything (the message in the table).
"""
NOTE2 = """
-a: with no extra threads the system has fewer than 400, and perf-ring
lists them from /proc; from 400 it switches to the BPF task iterator
(synth.c, SYNTH_ITER_MIN_THREADS), whose fixed cost (the pass over the
kernel's BTF, loading the program) is in the %s-thread row.  It is paid
once: from %s to %s threads perf-ring adds %s instructions a thread,
perf %s.
"""


def holder(n):
    p = subprocess.Popen(["python3", "-c", HOLD, str(n)], stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        p.kill()
        raise B.Fail("the thread holder did not start %d threads" % n)
    return p


def cmd(tool, mode, pid, out):
    base = [B.PERF_RING if tool == "perf-ring" else "perf", "record", "-B", "-e", EVENT,
            "-o", out]
    target = ["-a"] if mode == "-a" else ["-p", str(pid)]
    return base + target + ["--", "sleep", "0.1"]


def measure(tool, mode, pid):
    out = os.path.join(B.SCRATCH, "scale-threads.data")
    cg = os.path.join(B.SCRATCH, "scale-threads.cg")
    _, rc, _, err = B.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg] +
                          cmd(tool, mode, pid, out), timeout=3000, check=False)
    B.rm(cg)
    m = re.search(r"Collected : (\d+)", err)
    lines = [ln for ln in err.splitlines() if not ln.startswith("==")]
    if rc != 0 or not m:
        return None, None, (lines[-1] if lines else "exit %d" % rc)[:200]
    t = time.perf_counter()
    B.run(cmd(tool, mode, pid, out), timeout=600)
    wall = time.perf_counter() - t
    B.rm(out)
    return int(m.group(1)), wall, ""


def main():
    os.makedirs(B.SCRATCH, exist_ok=True)
    res = {}
    for n in SIZES:
        h = holder(n)
        try:
            for mode in ("-a", "-p"):
                for tool in ("perf-ring", "perf"):
                    B.log("scale-threads: %s %s, %d threads" % (tool, mode, n))
                    res[(tool, mode, n)] = measure(tool, mode, h.pid)
        finally:
            h.kill()
            h.wait()
    rows, dat, goals = [], [], []
    for mode in ("-a", "-p"):
        for n in SIZES:
            r = [mode, "{:,}".format(n)]
            inc = {}
            for tool in ("perf-ring", "perf"):
                ins, wall, why = res[(tool, mode, n)]
                base = res[(tool, mode, SIZES[0])][0]
                if ins is None:
                    r += ["refused: " + why.replace("|", "/"), "", ""]
                    continue
                inc[tool] = ins - base if base is not None else None
                r += ["{:,}".format(ins), "{:,}".format(inc[tool]) if inc[tool] is not None else "",
                      "%.2f" % wall]
            ratio = (inc["perf-ring"] / inc["perf"]) if n and len(inc) == 2 and inc["perf"] else None
            r.append("%.3f" % ratio if ratio is not None else "")
            rows.append(r)
            if n:
                dat.append("%s %d %s %s" % (mode.strip("-"), n,
                                            inc.get("perf-ring", "NaN"), inc.get("perf", "NaN")))
        big = [n for n in SIZES if n]
        lo, hi = big[0], big[-1]
        pr = [res[("perf-ring", mode, n)][0] for n in (SIZES[0], lo, hi)]
        pf = [res[("perf", mode, n)][0] for n in (SIZES[0], hi)]
        if None not in pr and None not in pf:
            ratio = (pr[2] - pr[0]) / (pf[1] - pf[0])
            goals.append(["%s: perf-ring's cost of %s threads <= 0.5x perf's" % (mode, "{:,}".format(hi)),
                          "%.3f" % ratio, "met" if ratio <= 0.5 else "missed"])
            per_lo, per_hi = (pr[1] - pr[0]) / lo, (pr[2] - pr[0]) / hi
            goals.append(["%s: start-up no faster than linear (instructions per thread at %s "
                          "over those at %s; met up to 1.10)" % (mode, "{:,}".format(hi),
                                                                 "{:,}".format(lo)),
                          "%.3f" % (per_hi / per_lo), "met" if per_hi / per_lo <= 1.10 else "missed"])
        else:
            goals.append(["%s: perf-ring <= 0.5x perf at %s threads" % (mode, "{:,}".format(hi)),
                          "", "not measured (a run refused; see the table)"])
    goals.append(["synthesis <= 0.5x perf's at 100,000 threads", "",
                  "not measured (see below)"])
    state = os.path.join(B.STATE, "scale-threads.dat")
    os.makedirs(B.STATE, exist_ok=True)
    with open(state, "w") as f:
        f.write("\n".join(dat) + "\n")
    png = os.path.join(B.ROOT, "bench", "results", "scale-threads.png")
    subprocess.run(["gnuplot"], input="""
set terminal pngcairo size 900,520 font "sans,10" noenhanced
set output "%s"
set title "Cost of the threads that exist at start-up (user-space instructions, callgrind)"
set xlabel "threads on the system"
set ylabel "instructions over the run with no extra threads"
set logscale xy
set key top left
set grid
plot "< grep '^a ' %s" using 2:3 with linespoints title "perf-ring -a", \\
     "< grep '^a ' %s" using 2:4 with linespoints title "perf -a", \\
     "< grep '^p ' %s" using 2:3 with linespoints title "perf-ring -p", \\
     "< grep '^p ' %s" using 2:4 with linespoints title "perf -p"
""" % (png, state, state, state, state), text=True, check=True)
    perf_v = subprocess.run(["perf", "version"], capture_output=True, text=True).stdout.strip()
    text = ("# Start-up against the threads that exist\n\n"
            "Command: `make bench-scale` (scripts/perf_ring/bench_scale_threads.py), "
            "on the host (%s, %d CPUs online; %s).\n\n"
            "Each tool records %s with -B for `sleep 0.1`, under "
            "`valgrind --tool=callgrind` (the tool's own user-space instructions: "
            "deterministic for a given system state), beside a process holding T "
            "sleeping threads.  \"over T=0\" is the run's instructions less the same "
            "run's with no extra threads: what the threads cost (synthesis; with -p "
            "also one event per thread, which perf-ring opens on every CPU).  The "
            "kernel's work for the tools (reading /proc, perf_event_open) is not in "
            "these counts.  Wall time is one native run, on a shared machine: "
            "indicative only.\n\n"
            % (os.uname().release, os.cpu_count(), perf_v, EVENT))
    text += B.md_table(["mode", "threads", "perf-ring, instructions", "over T=0", "wall s",
                        "perf, instructions", "over T=0", "wall s", "perf-ring/perf over T=0"],
                       rows)
    text += "\n![plot](scale-threads.png)\n\n## Goals\n\n"
    text += B.md_table(["goal", "figure", "verdict"], goals, ["---", "---:", "---"])
    text += NOTE
    if None not in [res[(t, "-a", n)][0] for t in ("perf-ring", "perf") for n in SIZES]:
        lo, hi = [n for n in SIZES if n][0], SIZES[-1]
        slope = ["{:,.0f}".format((res[(t, "-a", hi)][0] - res[(t, "-a", lo)][0]) / (hi - lo))
                 for t in ("perf-ring", "perf")]
        text += NOTE2 % ("{:,}".format(lo), "{:,}".format(lo), "{:,}".format(hi), slope[0], slope[1])
    path = os.path.join(B.ROOT, "bench", "results", "scale-threads.md")
    with open(path, "w") as f:
        f.write(text)
    B.log("wrote bench/results/scale-threads.md and scale-threads.png")


B.main(main)
