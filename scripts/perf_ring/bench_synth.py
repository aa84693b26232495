# SPDX-License-Identifier: GPL-2.0
"""Part 5: synthesis of the threads that already exist.

Spawns PROCS processes of THREADS idle threads (2,000 threads and more),
then, interleaved:
  perf-ring record -a -e dummy --synth-threads K -v   K = 1, 2, 4
      latency = perf-ring's own figure ("synthesized ... in X ms")
  perf record -a -e dummy --num-thread-synthesize=K -- true   K = 1, 2, 4
      latency = its wall time minus that of the same command with
      --synth=no in the same round (perf prints no figure of its own)
and once, perf bench internals synthesize -t (perf's synthesis code timed
in-process, the same function perf record calls).  The threads are ended
afterwards, and on any exit."""

import math
import os
import re
import signal
import subprocess
import time

from bench_lib import (need, ci, verdict, PERF_RING, QUICK, SCRATCH, THREADS, Fail, fmt_ratio, log, main,
                       md_table, mean, median, paired_ratio, rm, run, save, sd, stats_of,
                       write_md)

PROCS = int(os.environ.get("BENCH_SYNTH_PROCS", 20))
PER = int(os.environ.get("BENCH_SYNTH_THREADS", 100))
ROUNDS = int(os.environ.get("BENCH_SYNTH_ROUNDS", 1 if QUICK else 9))
KS = [1, 2, 4]
SYNTH_LINE = re.compile(r"synthesized (\d+) threads of (\d+) processes on (\d+) threads in ([\d.]+) ms")


def nr_threads():
    n = 0
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                n += len(os.listdir("/proc/%s/task" % d))
            except OSError:
                pass
    return n


def perf_ring_synth(k, check):
    out = os.path.join(SCRATCH, "synth-pr.data")
    rm(out)
    p = subprocess.Popen([PERF_RING, "record", "-a", "-e", "dummy", "-v", "--synth-threads",
                          str(k), "-o", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, errors="replace", start_new_session=True)
    got, err = None, []
    try:
        for ln in p.stderr:
            err.append(ln)
            m = SYNTH_LINE.search(ln)
            if m:
                got = m
                break
        p.send_signal(signal.SIGINT)
        rest, _ = p.communicate(timeout=60)
        err.append(rest or "")
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    if not got:
        raise Fail("perf-ring record -a --synth-threads %d printed no synthesis line:\n%s" %
                   (k, "".join(err)[-400:]))
    # stopped by SIGINT, -a ends as perf record does: by that signal
    if p.returncode not in (0, -signal.SIGINT):
        raise Fail("perf-ring record -a --synth-threads %d exited %d:\n%s" %
                   (k, p.returncode, "".join(err)[-400:]))
    if int(got.group(3)) != k:
        raise Fail("perf-ring ran synthesis on %s threads, asked for %d" % (got.group(3), k))
    if check:
        st = stats_of(out)
        if st["bytes"] < 1000:
            raise Fail("perf-ring -a output is nearly empty")
    rm(out)
    return float(got.group(4)) / 1e3, int(got.group(1))


def perf_record(k):
    """Seconds from starting perf record to its workload's exec: perf sets
    up, synthesizes, then lets the workload run.  (Its wall time is no use:
    perf's exit waits up to a second for a side-band thread's poll.)"""
    out = os.path.join(SCRATCH, "synth-perf.data")
    opt = ["--synth=no"] if k == 0 else ["--num-thread-synthesize=%d" % k]
    t0 = time.time()
    _, _, so, _ = run(["perf", "record", "-q", "-a", "-e", "dummy", "-o", out] + opt +
                      ["--", "date", "+%s.%N"], timeout=120)
    rm(out)
    try:
        return float(so.split()[-1]) - t0
    except (IndexError, ValueError):
        raise Fail("perf record's workload printed no time: %r" % so[-100:])


def perf_bench():
    _, _, out, _ = run(["perf", "bench", "internals", "synthesize", "-t", "-m", "1", "-M",
                        str(max(KS)), "-i", str(max(ROUNDS, 3) * 2)], timeout=300)
    res = {}
    for m in re.finditer(r"synthesis threads: (\d+)\s+Average synthesis took: ([\d.]+) usec "
                         r"\(\+- ([\d.]+) usec\)", out):
        res[int(m.group(1))] = (float(m.group(2)) / 1e6, float(m.group(3)) / 1e6)	# s
    if not all(k in res for k in KS):
        raise Fail("perf bench internals synthesize: unexpected output:\n" + out[-400:])
    return res


def part():
    need("--synth-threads", "multithreaded synthesis (--synth-threads)")
    before = nr_threads()
    log("synthesis: spawning %d processes x %d threads (%d threads on the system now)" %
        (PROCS, PER, before))
    sp = subprocess.Popen(THREADS + [str(PROCS), str(PER)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = sp.stdout.readline()
        if not line.startswith("ready"):
            raise Fail("bench_threads.py did not start its threads")
        total = nr_threads()
        if total - before < 2000:
            raise Fail("only %d new threads" % (total - before))
        log("synthesis: %d threads on the system; %d rounds" % (total, ROUNDS))
        pr = {k: [] for k in KS}
        pf = {k: [] for k in [0] + KS}
        seen = []
        for r in range(ROUNDS):
            for k in KS:
                t, n = perf_ring_synth(k, r == 0)
                pr[k].append(t)
                seen.append(n)
            for k in [0] + KS:
                pf[k].append(perf_record(k))
            log("synthesis: round %d of %d done" % (r + 1, ROUNDS))
        pb = perf_bench()
    finally:
        sp.stdin.close()
        try:
            sp.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(sp.pid, signal.SIGKILL)
            sp.wait()
    time.sleep(0.2)
    log("synthesis: threads ended (%d threads on the system)" % nr_threads())

    pf_lat = {k: [x - y for x, y in zip(pf[k], pf[0])] for k in KS}
    speed2 = paired_ratio(pr[1], pr[2])
    vs, rows = {}, []
    for k in KS:
        m, lo, hi = ci(pr[k])
        rel_pr = (hi - m) / m if len(pr[k]) > 1 else float("nan")
        bm, be = pb[k]
        rel_pb = 1.96 * be / bm
        r = m / bm
        h = r * math.sqrt(rel_pr ** 2 + rel_pb ** 2)
        vs[k] = {"ratio": r, "lo": r - h, "hi": r + h, "n": len(pr[k]),
                 "verdict": verdict(r, r - h, r + h)}
        rows.append([k, "%.1f [%.1f, %.1f]" % (m * 1e3, lo * 1e3, hi * 1e3),
                     fmt_ratio(paired_ratio(pr[1], pr[k])),
                     "%.1f ± %.1f" % (bm * 1e3, be * 1e3), "%.2f" % (pb[1][0] / bm),
                     "%.1f ± %.1f" % (mean(pf_lat[k]) * 1e3,
                                      sd(pf_lat[k]) * 1e3 if len(pf_lat[k]) > 1 else 0)])
    text = "## 5. Synthesis\n\n"
    text += ("%d threads on the system during the run (%d processes of %d idle threads "
             "spawned by the benchmark, %d threads before; perf-ring synthesized %d). "
             "%d interleaved rounds; times in ms.\n\n"
             "- perf-ring: its own figure for the synthesis (`perf-ring record -a -e dummy "
             "--synth-threads K -v`), mean [95%% interval]; speedup = per-round ratio 1 "
             "thread / K threads.\n"
             "- perf bench: `perf bench internals synthesize -t`, perf's synthesis code (the "
             "function `perf record --num-thread-synthesize` calls) timed in-process, mean ± "
             "its standard error.\n"
             "- perf record: the time from starting `perf record -a -e dummy "
             "--num-thread-synthesize=K -- date` to the workload's exec (perf synthesizes "
             "before it lets the workload run), minus the same with `--synth=no` in the same "
             "round, mean ± stddev. perf's start-up varies by more than the synthesis "
             "costs, so this column is a sanity check only.\n\n" %
             (total, PROCS, PER, before, median(seen), ROUNDS))
    text += md_table(["K", "perf-ring ms", "perf-ring speedup 1/K", "perf bench ms",
                      "perf bench speedup 1/K", "perf record ms (to exec)"], rows)
    text += ("\nperf-ring against perf's synthesis (perf bench), same K: ratio of means, "
             "interval from both spreads:\n\n")
    text += md_table(["K", "perf-ring / perf [95% interval]", "verdict"],
                     [[k, fmt_ratio(vs[k]), vs[k]["verdict"]] for k in KS], ["---", "---:", "---"])
    write_md("synthesis.md", text)
    save("synth", {"total": total, "pr": pr, "pf": pf, "pb": {str(k): v for k, v in pb.items()},
                   "speedup2": speed2, "pb_speedup2": pb[1][0] / pb[2][0],
                   "vs": {str(k): v for k, v in vs.items()}})


if __name__ == "__main__":
    main(part)
