#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Start-up against the number of threads that exist: perf-ring record
against Debian's perf record, -a and -p, in user-space instructions
(valgrind --tool=callgrind: deterministic for a given system state).

A helper process (bench/thread_holder.c) holds T sleeping threads (T = 0, 1000, 10000, 100000;
SCALE_THREADS overrides).  For 100,000 threads kernel.pid_max and
vm.max_map_count (two mappings a thread stack) are raised if they are
lower, and set back at the end; -p runs up to SCALE_P_MAX threads (10000):
beyond, both tools would need threads x CPUs descriptors, far above the
hard RLIMIT_NOFILE the 10,000-thread row already meets.  Each tool records sched:sched_process_exit with -B for the
duration of "sleep 0.1", once under callgrind and SCALE_THREAD_ROUNDS
times (5) natively, for the wall time and the CPU time (user and system,
the kernel's work for the tool included; the median of each).  What the threads cost is the run's instructions less the same
run's with T = 0: synthesis, and for -p the per-thread events.  Callgrind
counts the tool's own instructions, not the kernel's work for it (the
/proc reads, perf_event_open): those are the same system calls for both
tools, or fewer for perf-ring (the BPF task iterator).

    python3 scripts/perf_ring/bench_scale_threads.py

writes bench/results/scale-threads.md and scale-threads.png."""

import os
import re
import resource
import subprocess
import time

import bench_lib as B

SIZES = [int(x) for x in os.environ.get("SCALE_THREADS", "0 1000 10000 100000").split()]
P_MAX = int(os.environ.get("SCALE_P_MAX", "10000"))
# native runs of each case, for CPU time (user + system) and wall time
ROUNDS = int(os.environ.get("SCALE_THREAD_ROUNDS", "5"))
EVENT = "sched:sched_process_exit"
# The holder is bench/thread_holder.c (the QEMU threads part's): C threads
# with the smallest stack, started in a loop with nothing to wait for; a
# Python holder took 1.5 to over 10 minutes to start 100,000.
HOLDER_SRC = os.path.join(B.ROOT, "bench", "thread_holder.c")
HOLDER = os.path.join(B.BUILD, "bench", "thread_holder")


NOTE_P = """
-p beyond %s threads is not run: both tools open each thread's events on
every CPU (perf record -p does so too unless --per-thread), threads x CPUs
file descriptors, and %s threads already need more than this machine's
hard RLIMIT_NOFILE (%s, less what valgrind keeps), which root cannot raise
in this container.  perf-ring says so before it opens anything (the
message in the table).
"""
NOTE2 = """
-a: with no extra threads the system has fewer than 400, and perf-ring
lists them from /proc; from 400 it switches to the BPF task iterator
(synth.c, SYNTH_ITER_MIN_THREADS), whose fixed cost (the pass over the
kernel's BTF, loading the program) is in the %s-thread row: there
perf-ring's user-space instructions are more than half perf's (perf's
work for it is in the kernel: its /proc reads, which callgrind does not
count, and which the CPU time does).  It is paid once; instructions a thread
added between the sizes (the knee, if any, is where these grow):

%s"""
# what n threads need, beyond what the system has (0: the default is enough)
SYSCTLS = {"/proc/sys/kernel/pid_max": lambda n: 2 * n + 65536 if n > 10000 else 0,
           "/proc/sys/vm/max_map_count": lambda n: 2 * n + 65536 if n > 10000 else 0}


def raise_sysctls(n):
    """Raise what n threads need; returns what to write back."""
    old = {}
    for path, need in SYSCTLS.items():
        with open(path) as f:
            cur = int(f.read())
        if cur < need(n):
            with open(path, "w") as f:
                f.write(str(need(n)))
            old[path] = cur
            B.log("scale-threads: %s %d -> %d (set back at the end)" % (path, cur, need(n)))
    return old


def restore_sysctls(old):
    for path, v in old.items():
        with open(path, "w") as f:
            f.write(str(v))
        B.log("scale-threads: %s set back to %d" % (path, v))


def build_holder():
    os.makedirs(os.path.dirname(HOLDER), exist_ok=True)
    subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-O2", "-pthread", "-o", HOLDER,
                    HOLDER_SRC], check=True)


def holder(n):
    p = subprocess.Popen([HOLDER, str(n)], stdout=subprocess.PIPE, text=True)
    try:
        ready = p.stdout.readline().strip() == "ready %d" % n
    except BaseException:
        ready = False
        raise
    finally:
        if not ready:
            p.kill()
            p.wait()
    if not ready:
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
        return None, None, None, (lines[-1] if lines else "exit %d" % rc)[:200]
    walls, cpus = [], []
    for _ in range(ROUNDS):
        # the children's CPU time, before and after: the tool and what it
        # waited for (its workload), each run alone
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.Popen(cmd(tool, mode, pid, out), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        try:
            p.wait(timeout=600)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return None, None, None, "timed out natively"
        walls.append(time.perf_counter() - t)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
        B.rm(out)
        if p.returncode:
            return None, None, None, "exit %d natively" % p.returncode
    return int(m.group(1)), B.median(walls), B.median(cpus), ""


def main():
    os.makedirs(B.SCRATCH, exist_ok=True)
    build_holder()
    res = {}
    for n in SIZES:
        old = raise_sysctls(n)
        try:
            h = holder(n)
            try:
                for mode in ("-a", "-p"):
                    for tool in ("perf-ring", "perf"):
                        if mode == "-p" and n > P_MAX:
                            res[(tool, mode, n)] = (None, None, None, "not run: see below")
                            continue
                        B.log("scale-threads: %s %s, %d threads" % (tool, mode, n))
                        res[(tool, mode, n)] = measure(tool, mode, h.pid)
            finally:
                h.kill()
                h.wait()
        finally:
            restore_sysctls(old)
    rows, dat, goals = [], [], []
    for mode in ("-a", "-p"):
        for n in SIZES:
            r = [mode, "{:,}".format(n)]
            inc, cinc = {}, {}
            for tool in ("perf-ring", "perf"):
                ins, wall, cpu, why = res[(tool, mode, n)]
                base, cbase = res[(tool, mode, SIZES[0])][0], res[(tool, mode, SIZES[0])][2]
                if ins is None:
                    r += [("" if why.startswith("not run") else "refused: ") +
                          why.replace("|", "/"), "", "", "", ""]
                    continue
                inc[tool] = ins - base if base is not None else None
                cinc[tool] = cpu - cbase if cbase is not None else None
                r += ["{:,}".format(ins), "{:,}".format(inc[tool]) if inc[tool] is not None else "",
                      "%.2f" % wall, "%.1f" % (cpu * 1e3),
                      "%.1f" % (cinc[tool] * 1e3) if cinc[tool] is not None else ""]
            ratio = (inc["perf-ring"] / inc["perf"]) if n and len(inc) == 2 and inc["perf"] else None
            r.append("%.3f" % ratio if ratio is not None else "")
            cr = (cinc["perf-ring"] / cinc["perf"]) if n and len(cinc) == 2 and cinc["perf"] else None
            r.append("%.3f" % cr if cr is not None else "")
            rows.append(r)
            if n:
                dat.append("%s %d %s %s" % (mode.strip("-"), n,
                                            inc.get("perf-ring", "NaN"), inc.get("perf", "NaN")))
        big = [n for n in SIZES if n and (mode == "-a" or n <= P_MAX)]
        lo, hi = big[0], big[-1]
        pts = []
        for n in big:
            a, b = res[("perf-ring", mode, n)][0], res[("perf", mode, n)][0]
            a0, b0 = res[("perf-ring", mode, SIZES[0])][0], res[("perf", mode, SIZES[0])][0]
            if None not in (a, b, a0, b0) and b != b0:
                pts.append((n, (a - a0) / (b - b0)))
        cpts = []
        for n in big:
            a, b = res[("perf-ring", mode, n)][2], res[("perf", mode, n)][2]
            a0, b0 = res[("perf-ring", mode, SIZES[0])][2], res[("perf", mode, SIZES[0])][2]
            if None not in (a, b, a0, b0) and b > b0:
                cpts.append((n, (a - a0) / (b - b0)))
        if pts:
            goals.append(["%s: perf-ring's cost of the threads <= 0.5x perf's at every point" % mode,
                          ", ".join("%s: %.3f" % ("{:,}".format(n), v) for n, v in pts),
                          "met" if all(v <= 0.5 for _, v in pts) else
                          "missed at " + ", ".join("{:,}".format(n) for n, v in pts if v > 0.5)])
        if cpts:
            goals.append(["%s: the same in CPU time, the kernel's work included (median of %d "
                          "native runs; a shared machine)" % (mode, ROUNDS),
                          ", ".join("%s: %.3f" % ("{:,}".format(n), v) for n, v in cpts),
                          "met" if all(v <= 0.5 for _, v in cpts) else
                          "missed at " + ", ".join("{:,}".format(n) for n, v in cpts if v > 0.5)])
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
    k = [("perf-ring", 0), ("perf", 0), ("perf-ring", 100000), ("perf", 100000)]
    v = [res.get((t, "-a", n), (None,))[0] for t, n in k] if 0 in SIZES else [None]
    if None in v:
        goals.append(["synthesis <= 0.5x perf's at 100,000 threads", "",
                      "not measured (SCALE_THREADS without 0 or 100000, or a run failed)"])
    else:
        r100 = (v[2] - v[0]) / (v[3] - v[1])
        goals.append(["synthesis <= 0.5x perf's at 100,000 threads (-a, over T=0)",
                      "%.3f" % r100, "met" if r100 <= 0.5 else "missed"])
    B.plot("scale-threads", dat,
           "Cost of the threads that exist at start-up (user-space instructions, callgrind)",
           "threads on the system", "instructions over the run with no extra threads",
           """"< grep '^a ' {dat}" using 2:3 with linespoints title "perf-ring -a", \\
     "< grep '^a ' {dat}" using 2:4 with linespoints title "perf -a", \\
     "< grep '^p ' {dat}" using 2:3 with linespoints title "perf-ring -p", \\
     "< grep '^p ' {dat}" using 2:4 with linespoints title "perf -p\"""",
           "set logscale xy\nset key top left")
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
            "these counts; the same runs natively are: *wall s* and *CPU ms* (user and "
            "system time of the tool and what it started, the kernel's work for it "
            "included), each the median of %d runs, on a shared machine.  Every "
            "instruction, the kernel's included, deterministically: "
            "scale-threads-icount.md (QEMU -icount; its kernel has no BPF, so perf-ring "
            "reads /proc there).\n\n"
            % (os.uname().release, os.cpu_count(), perf_v, EVENT, ROUNDS))
    text += B.md_table(["mode", "threads", "perf-ring, instructions", "over T=0", "wall s",
                        "CPU ms", "over T=0", "perf, instructions", "over T=0", "wall s",
                        "CPU ms", "over T=0", "perf-ring/perf over T=0, instructions",
                        "CPU"], rows)
    text += "\n![plot](scale-threads.png)\n\n## Goals\n\n"
    text += B.md_table(["goal", "figure", "verdict"], goals, ["---", "---:", "---"])
    if any(n > P_MAX for n in SIZES):
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        text += NOTE_P % ("{:,}".format(P_MAX), "{:,}".format(P_MAX), "{:,}".format(hard))
    if None not in [res[(t, "-a", n)][0] for t in ("perf-ring", "perf") for n in SIZES]:
        big = [n for n in SIZES if n]
        steps = []
        for lo, hi in zip(big, big[1:]):
            per = [(res[(t, "-a", hi)][0] - res[(t, "-a", lo)][0]) / (hi - lo)
                   for t in ("perf-ring", "perf")]
            steps.append(["{:,} to {:,}".format(lo, hi), "{:,.0f}".format(per[0]),
                          "{:,.0f}".format(per[1]), "%.3f" % (per[0] / per[1])])
        text += NOTE2 % ("{:,}".format(big[0]), B.md_table(
            ["-a, threads", "perf-ring, instructions a thread", "perf", "perf-ring/perf"], steps))
    path = os.path.join(B.ROOT, "bench", "results", "scale-threads.md")
    with open(path, "w") as f:
        f.write(text)
    B.log("wrote bench/results/scale-threads.md and scale-threads.png")


B.main(main)
