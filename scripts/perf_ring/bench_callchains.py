# SPDX-License-Identifier: GPL-2.0
"""Part 8: call chains, perf-ring against perf record, paired.

The same workloads recorded by both tools with the same call-chain mode,
interleaved, recorder and workload pinned to CPU 0 (the reader runs only
when the workload is preempted, so what the recorder costs shows in the
workload's time):

- cg-tree -i N (main -> top -> mid -> leaf, a fixed amount of work) with
  cpu-clock at perf's default 4 kHz: -g, and --call-graph dwarf on the copy
  built without frame pointers (8 KiB of stack per sample);
- close(-1) with raw_syscalls:* and -g: a sample with a kernel and a user
  chain at every system call, the stress case; 16 MiB buffers for both so
  that neither loses records.

overhead ratio = (perf-ring - BASE) / (perf - BASE) per round, BASE being
the workload alone in the same round; mean and 95% interval.  Every file is
read back with perf report --stats and perf-ring report."""

import os
import re

from bench_lib import (need, Fail, PERF_RING, QUICK, SCRATCH, TOOLS, close_loop, fmt_bytes,
                       fmt_ratio, interleave, log, main, md_table, mean, paired_ratio, pin,
                       rm, save, stats_of, timed, write_md)

ITER = int(os.environ.get("BENCH_CG_ITER", 2000 if QUICK else 20000))
CALLS = int(os.environ.get("BENCH_CG_CALLS", 100000 if QUICK else 500000))
ROUNDS = int(os.environ.get("BENCH_CG_ROUNDS", 2 if QUICK else 10))
CG = os.path.join(TOOLS, "cg-tree")
CG_NOFP = os.path.join(TOOLS, "cg-tree-nofp")
BIG = "4096"	# pages: 16 MiB per CPU

# mode, workload (base), recorder options
MODES = [
    ("cg-tree, cpu-clock, -g", lambda: timed([CG, "-i", str(ITER)]), ["-g"]),
    ("cg-tree (no frame pointers), cpu-clock, --call-graph dwarf",
     lambda: timed([CG_NOFP, "-i", str(ITER)]), ["--call-graph", "dwarf"]),
    ("close(-1), raw_syscalls:*, -g, 16 MiB", lambda: close_loop(CALLS),
     ["-g", "-e", "raw_syscalls:*", "-m", BIG]),
]


def slug(s):
    return re.sub(r"[^\w]+", "-", s)[:40]


def cases():
    c = []
    for mode, wl, opts in MODES:
        c.append({"label": "BASE " + mode, "cmd": pin(0, wl())})
        for tool, argv0 in (("perf", ["perf", "record", "-q"]), ("perf-ring", [PERF_RING, "record"])):
            f = os.path.join(SCRATCH, "cg-%s-%s.data" % (tool, slug(mode)))
            c.append({"label": "%s %s" % (tool, mode),
                      "cmd": pin(0, argv0 + ["-o", f] + opts + ["--"] + wl()),
                      "before": lambda f=f: rm(f),
                      "after": lambda o, e, f=f: (stats_of(f), rm(f))[0]})
    return c


def part():
    need("--call-graph", "call chains (-g, --call-graph)")
    for b in (CG, CG_NOFP):
        if not os.access(b, os.X_OK):
            raise Fail("%s is missing (make tools)" % b)
    cs = cases()
    log("call chains: cg-tree -i %d, %d close(-1), %d rounds of %d cases" %
        (ITER, CALLS, ROUNDS, len(cs)))
    res = interleave(cs, ROUNDS, "call chains", warmup=[timed([CG, "-i", "100"])])
    rows, data = [], {}
    for mode, _, _ in MODES:
        base = res["BASE " + mode]["w"]
        p, r = res["perf " + mode], res["perf-ring " + mode]
        over = paired_ratio(r["w"], p["w"], base)
        wl = paired_ratio(r["w"], p["w"])
        wall = paired_ratio(r["t"], p["t"])
        ps = [x["samples"] for x in p["x"]]
        rs = [x["samples"] for x in r["x"]]
        pl = [x["lost"] for x in p["x"]]
        rl = [x["lost"] for x in r["x"]]
        pb = [x["bytes"] for x in p["x"]]
        rb = [x["bytes"] for x in r["x"]]
        rows.append([mode, "%.0f" % (mean(base) * 1e3), "%.0f" % (mean(p["w"]) * 1e3),
                     "%.0f" % (mean(r["w"]) * 1e3), fmt_ratio(wl), wl["verdict"], fmt_ratio(over),
                     fmt_ratio(wall), "%.0f" % mean(ps), "%.0f" % mean(rs),
                     "%.0f" % mean(pl), "%.0f" % mean(rl), fmt_bytes(mean(pb)),
                     fmt_bytes(mean(rb))])
        data[mode] = {"overhead": over, "workload": wl, "wall": wall, "base_ms": mean(base) * 1e3,
                      "perf_ms": mean(p["w"]) * 1e3, "ring_ms": mean(r["w"]) * 1e3,
                      "perf_samples": mean(ps), "ring_samples": mean(rs),
                      "perf_lost": mean(pl), "ring_lost": mean(rl)}
    text = "## 8. Call chains: perf-ring against perf record\n\n"
    text += ("Each workload alone (BASE), under `perf record -q OPTS` and under `perf-ring "
             "record OPTS`, interleaved, %d rounds, recorder and workload on CPU 0. "
             "cg-tree -i %d is main -> top -> mid -> leaf, a fixed amount of work, sampled "
             "by cpu-clock at 4 kHz; the close(-1) loop (%s calls) samples every system "
             "call with its kernel and user chain. Times in ms (the workload's own). "
             "workload ratio = perf-ring / perf per round, the workload's time under each "
             "recorder, mean [95%% interval], and its verdict; overhead ratio = (perf-ring - "
             "BASE) / (perf - BASE) per round, which is ill-conditioned where perf's "
             "overhead is not large next to BASE's spread between rounds (a round whose "
             "perf overhead is near 0 dominates the mean); wall ratio = whole commands (perf record's includes its build-id "
             "pass over the file at the end). Samples and lost are read back from the "
             "files.\n\n" % (ROUNDS, ITER, format(CALLS, ",")))
    text += md_table(["mode", "BASE ms", "perf ms", "perf-ring ms", "workload ratio",
                      "verdict", "overhead ratio", "wall ratio", "perf samples", "perf-ring samples",
                      "perf lost", "perf-ring lost", "perf bytes", "perf-ring bytes"], rows,
                     ["---"] + ["---:"] * 4 + ["---"] + ["---:"] * 8)
    write_md("callchains.md", text)
    save("callchains", {"iter": ITER, "calls": CALLS, "rounds": ROUNDS, "modes": data})


if __name__ == "__main__":
    main(part)
