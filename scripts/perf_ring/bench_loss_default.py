# SPDX-License-Identifier: GPL-2.0
"""Part 11: records lost at the default buffer size, unpinned, with and
without other tasks on the CPUs: what perf-ring's default reader should be.

A buffer is lost into when its reader does not run for as long as the
buffer takes to fill: the close(-1) loop with raw_syscalls:* fills perf's
default 512 KiB in about 1.5 ms.  Unpinned and alone, the reader finds an
idle CPU; with one CPU-bound task per CPU beside it (a build, say), a fair
reader waits for the running task's slice to end, and that is the loss
issue 14 asks about.  The candidates for the default, each run with the
workload placed by the scheduler, "quiet" and "busy" (one `sh` busy loop
per CPU, nice 0, started before and killed after each run):

  perf record                       its default, for reference
  perf-ring                         the default: SCHED_FIFO 1 when permitted
  perf-ring -r 0                    a fair reader with the 100 us slice
  perf-ring -r 0 --reader-slice 0   a fair reader with the kernel's slice
  perf-ring -r 0 -m 2M              a fair reader, a 4x larger buffer

Lost samples are read back from each file (the sum of PERF_RECORD_LOST);
the workload's own run time is kept as the cost to the traced program."""

import os
import signal
import subprocess

from bench_lib import (need, PERF_RING, QUICK, SCRATCH, SYSCALL_EVENTS, close_loop, interleave,
                       log, main, md_table, mean, median, rm, run, save, stats_of, write_md)

N = int(os.environ.get("BENCH_LOSS_CALLS", 300000 if QUICK else 2000000))
ROUNDS = int(os.environ.get("BENCH_LOSS_ROUNDS", 1 if QUICK else 5))
LOADS = ["quiet", "busy"]
TOOLS = [("perf record", ["perf", "record", "-q"]),
         ("perf-ring (default)", [PERF_RING, "record"]),
         ("perf-ring -r 0", [PERF_RING, "record", "-r", "0"]),
         ("perf-ring -r 0 --reader-slice 0", [PERF_RING, "record", "-r", "0",
                                              "--reader-slice", "0"]),
         ("perf-ring -r 0 -m 2M", [PERF_RING, "record", "-r", "0", "-m", "2M"])]

_hogs = []


def hogs_start():
    for _ in range(os.cpu_count()):
        _hogs.append(subprocess.Popen(["sh", "-c", "while :; do :; done"],
                                      start_new_session=True))


def hogs_stop():
    while _hogs:
        p = _hogs.pop()
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def label(load, tool):
    return "%s %s" % (load, tool)


def cases():
    c = []
    for load in LOADS:
        for k, (tool, argv) in enumerate(TOOLS):
            f = os.path.join(SCRATCH, "lossd-%s-%d.data" % (load, k))

            def before(f=f, load=load):
                rm(f)
                if load == "busy":
                    hogs_start()

            def after(out, err, f=f):
                hogs_stop()
                st = stats_of(f)
                rm(f)
                return st
            c.append({"label": label(load, tool),
                      "cmd": argv + ["-e", SYSCALL_EVENTS, "-o", f, "--"] + close_loop(N),
                      "before": before, "after": after})
    return c


def probe():
    """perf-ring -v on a trivial command: what its default reader gets here."""
    f = os.path.join(SCRATCH, "lossd-probe.data")
    _, _, _, err = run([PERF_RING, "record", "-v", "-e", "dummy", "-o", f, "--", "true"])
    rm(f)
    line = [ln for ln in err.splitlines() if "reader: " in ln]
    return line[0].split("reader: ", 1)[1] if line else "(not said)"


def part():
    need("--reader-slice", "the reader's slice")
    # the default's SCHED_FIFO needs root (or CAP_SYS_NICE): say which ran
    reader = probe()
    cs = cases()
    log("loss at the default buffer size: %d close(-1), %d rounds of %d cases; reader: %s" %
        (N, ROUNDS, len(cs), reader))
    try:
        res = interleave(cs, ROUNDS, "loss at the default size", warmup=[close_loop(N)])
    finally:
        hogs_stop()
    rows, data = [], {}
    for load in LOADS:
        for tool, _ in TOOLS:
            r = res[label(load, tool)]
            lost = [d["lost"] for d in r["x"]]
            samples = [d["samples"] for d in r["x"]]
            hit = sum(1 for x in lost if x)
            share = mean([lo / max(lo + s, 1) for lo, s in zip(lost, samples)])
            rows.append([load, tool, "%.0f" % mean(lost), "%d/%d" % (hit, len(lost)),
                         "%d..%d" % (min(lost), max(lost)), "%.3f%%" % (100 * share),
                         "%.2f" % median(r["w"])])
            data[label(load, tool)] = {"lost": lost, "samples": samples, "w": r["w"]}
    text = "## 11. Records lost at the default buffer size, unpinned\n\n"
    text += ("%s close(-1) recorded with `raw_syscalls:*` (about %.1f M samples), each tool's "
             "default buffer (512 KiB a CPU) and writer unless the row says otherwise; the "
             "scheduler places everything. quiet: no busy loops added; busy: one `sh` busy loop "
             "per CPU beside it. %d interleaved rounds. Per row: samples lost per run (mean), "
             "the runs that lost any, the range, the share of samples lost, and the "
             "workload's run time in seconds (median). The reader of the default run: %s.\n\n" %
             (format(N, ","), 2 * N / 1e6, ROUNDS, reader))
    text += md_table(["load", "recorder", "lost", "runs", "range", "share", "workload s"],
                     rows, ["---", "---", "---:", "---:", "---:", "---:", "---:"])
    write_md("loss-default.md", text)
    save("loss_default", {"calls": N, "rounds": ROUNDS, "reader": reader, "runs": data})


if __name__ == "__main__":
    main(part)
