# SPDX-License-Identifier: GPL-2.0
"""Part 1: the series' table.  close(-1) in a loop, recorded with
raw_syscalls:*, in the ring buffer modes of the 2016 series, interleaved,
the recorder and the workload pinned to one CPU; plus the reader on the
other CPU, to show where the series' outliers came from."""

import os

from bench_lib import (FLOOR, QUICK, SYSCALL_EVENTS, close_loop, fmt_ratio, interleave,
                       log, main, md_table, mean, median, paired_ratio, pin, save, sd,
                       write_md, STATE)

N = int(os.environ.get("BENCH_SERIES_CALLS", 200000 if QUICK else 3000000))
ROUNDS = int(os.environ.get("BENCH_SERIES_ROUNDS", 2 if QUICK else 12))
PERF = ["perf", "record", "-q", "-o", "/dev/null", "-e", SYSCALL_EVENTS]

CASES = [
    ("BASE", "no recording", close_loop(N, 0)),
    ("RAWPERF", "perf record: forward buffer, perf reading it",
     pin(0, PERF + ["--"] + close_loop(N))),
    ("WRTBKWRD", "perf record --overwrite: write_backward, read-only mapping",
     pin(0, PERF + ["--overwrite", "--"] + close_loop(N))),
    ("RAWOVWRT", "kernel only: forward, read-only mapping, no reader",
     pin(0, FLOOR + ["forward-overwrite", "128", SYSCALL_EVENTS, "--"] + close_loop(N))),
    ("KBKWRD", "kernel only: write_backward, read-only mapping, no reader",
     pin(0, FLOOR + ["backward-overwrite", "128", SYSCALL_EVENTS, "--"] + close_loop(N))),
    ("RAWPERF, 2 CPUs", "as RAWPERF, perf on CPU 1 and the workload on CPU 0",
     pin(1, PERF + ["--"] + close_loop(N, 0))),
]


def part():
    log("series table: %d close(-1), %d rounds of %d cases" % (N, ROUNDS, len(CASES)))
    res = interleave([{"label": l, "cmd": c} for l, _, c in CASES], ROUNDS, "series table",
                     warmup=[close_loop(N, 0)])
    base = res["BASE"]["w"]
    rows = []
    dat = []
    for i, (label, what, _) in enumerate(CASES):
        w = [x * 1e3 for x in res[label]["w"]]
        t = [x * 1e3 for x in res[label]["t"]]
        over = paired_ratio(res[label]["w"], base)
        rows.append([label, what, "%.1f" % mean(w), "%.1f" % sd(w), len(w), "%.1f" % median(w),
                     "%.1f" % max(w), "%.2f" % (max(w) / median(w)) if median(w) else "-",
                     "-" if label == "BASE" else fmt_ratio(over), "%.1f" % mean(t)])
        dat.append("%d \"%s\" %.3f %.3f" % (i, label, mean(w), sd(w) if len(w) > 1 else 0))
    cmp = [
        ("WRTBKWRD / RAWPERF", paired_ratio(res["WRTBKWRD"]["w"], res["RAWPERF"]["w"], base)),
        ("KBKWRD / RAWOVWRT (backward vs forward, kernel only)",
         paired_ratio(res["KBKWRD"]["w"], res["RAWOVWRT"]["w"], base)),
        ("RAWPERF on 2 CPUs / RAWPERF on 1",
         paired_ratio(res["RAWPERF, 2 CPUs"]["w"], res["RAWPERF"]["w"])),
    ]
    text = "## 1. The series' table: %s close(-1), raw_syscalls:*\n\n" % format(N, ",")
    text += ("Workload time in ms (the loop process from fork to exit, as bash's `time` sees "
             "it), %d interleaved rounds; recorder and workload pinned to CPU 0 except in the "
             "last row. No run is discarded (outlier policy: see the method). "
             "overhead = run time over BASE in the same round, mean [95%% interval]. "
             "wall = the whole command, recorder start-up and exit included.\n\n" % ROUNDS)
    text += md_table(["case", "what", "mean ms", "stddev", "n", "median", "max", "max/median",
                      "x BASE", "wall ms"], rows, ["---", "---"] + ["---:"] * 8)
    text += "\nPaired comparisons, ratio of overheads (run time minus BASE) unless noted:\n\n"
    text += md_table(["comparison", "ratio [95% interval]", "verdict"],
                     [[n, fmt_ratio(p), p["verdict"]] for n, p in cmp], ["---", "---:", "---"])
    sd1, sd2 = sd(res["RAWPERF"]["w"]), sd(res["RAWPERF, 2 CPUs"]["w"])
    text += ("\nSpread: RAWPERF stddev %.1f ms on one CPU, %.1f ms on two (%.1fx).\n" %
             (sd1 * 1e3, sd2 * 1e3, sd2 / sd1 if sd1 == sd1 and sd1 else float("nan")))
    write_md("series.md", text)
    with open(os.path.join(STATE, "series.dat"), "w") as f:
        f.write("\n".join(dat) + "\n")
    save("series", {"calls": N, "rounds": ROUNDS, "res": res,
                    "cmp": {n: p for n, p in cmp}})


if __name__ == "__main__":
    main(part)
