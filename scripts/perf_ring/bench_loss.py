# SPDX-License-Identifier: GPL-2.0
"""Part 6: records lost against buffer size, perf record -z1 and perf-ring -z1.

Issue 5's goal: 0 records lost at a buffer size where perf record -z loses
some.  The close(-1) loop with raw_syscalls:* writes about 330 MB/s of
records, so a buffer of 512 KiB to 4 MiB per CPU holds 1.5 to 12 ms of
them: whether a recorder loses records is whether its reader runs within
that time, every time.  Each size is run with the recorder and the workload
pinned to CPU 0 (as in part 2: the reader runs only when the workload is
preempted) and unpinned (the scheduler places both).  perf-ring also runs
with --reader-slice 0, the kernel's default slice for its reader, to show
what the short slice (tools/perf_ring/prio.c) is worth.  Both perf-ring
columns run a fair reader (-r 0): as root the default reader is SCHED_FIFO,
and part 11 (bench_loss_default.py) weighs that default.  Lost records are
the sum of PERF_RECORD_LOST, read back from each file; every file is read
by perf report --stats as well."""

import os

from bench_lib import (need, PERF_RING, QUICK, SCRATCH, STATE, SYSCALL_EVENTS, close_loop,
                       interleave, log, main, md_table, mean, pin, rm, save, stats_of,
                       write_md)

N = int(os.environ.get("BENCH_LOSS_CALLS", 1000000 if QUICK else 3000000))
ROUNDS = int(os.environ.get("BENCH_LOSS_ROUNDS", 1 if QUICK else 5))
SIZES = ["512K", "2M"] if QUICK else ["512K", "1M", "2M", "4M"]
PLACES = [("pinned", 0), ("unpinned", None)]
TOOLS = [("perf -z1", ["perf", "record", "-q", "-z1"]),
         ("perf-ring -z1", [PERF_RING, "record", "-z1", "-r", "0"]),
         ("perf-ring -z1 --reader-slice 0", [PERF_RING, "record", "-z1", "--reader-slice", "0"])]


def label(place, tool, size):
    return "%s %s -m %s" % (place, tool, size)


def cases():
    c = []
    for place, cpu in PLACES:
        for size in SIZES:
            for k, (tool, argv) in enumerate(TOOLS):
                f = os.path.join(SCRATCH, "loss-%s-%s-%d.data" % (place, size, k))
                cmd = argv + ["-m", size, "-e", SYSCALL_EVENTS, "-o", f, "--"] + close_loop(N)
                c.append({"label": label(place, tool, size),
                          "cmd": pin(cpu, cmd) if cpu is not None else cmd,
                          "before": lambda f=f: rm(f),
                          "after": lambda o, e, f=f: (stats_of(f), rm(f))[0]})
    return c


def runs(lost):
    """"k/R" runs that lost records, and the range."""
    hit = sum(1 for x in lost if x)
    return "%d/%d" % (hit, len(lost)), "%d..%d" % (min(lost), max(lost))


def part():
    need("--compression-level", "compression (-z)")
    need("--reader-slice", "the reader's slice")
    cs = cases()
    log("records lost against buffer size: %d close(-1), %d rounds of %d cases" %
        (N, ROUNDS, len(cs)))
    res = interleave(cs, ROUNDS, "records lost", warmup=[close_loop(N, 0)])
    data, rows, plot = {}, [], []
    for place, _ in PLACES:
        for size in SIZES:
            row = [place, size]
            pr = []
            for tool, _ in TOOLS:
                x = res[label(place, tool, size)]["x"]
                lost = [d["lost"] for d in x]
                samples = mean([d["samples"] for d in x])
                data[label(place, tool, size)] = {"lost": lost, "samples": samples}
                k, span = runs(lost)
                row += ["%.0f" % mean(lost), k, span]
                pr.append(mean(lost))
            rows.append(row)
            plot.append((place, size, pr))
    # the goal: a size where perf lost records in most runs and perf-ring in none
    met = [(p, s) for p in dict(PLACES) for s in SIZES
           if 2 * sum(1 for x in data[label(p, TOOLS[0][0], s)]["lost"] if x) >= ROUNDS and
           not any(data[label(p, TOOLS[1][0], s)]["lost"])]
    text = "## 6. Records lost against buffer size\n\n"
    most = max(d["samples"] + mean(d["lost"]) for d in data.values())
    text += ("%s close(-1) recorded with `raw_syscalls:*` and -z1 (about %.1f M samples), "
             "each tool's default writer; %d interleaved rounds. pinned: recorder and workload "
             "on CPU 0; unpinned: placed by the scheduler. Per tool: samples lost per run "
             "(mean), the runs that lost any, and the range. perf-ring runs a fair reader (-r 0) "
             "with its default 100 us slice; `--reader-slice 0` leaves the kernel's default "
             "(part 11 compares the SCHED_FIFO default).\n\n" %
             (format(N, ","), most / 1e6, ROUNDS))
    head = ["placement", "-m"]
    for tool, _ in TOOLS:
        head += [tool + " lost", "runs", "range"]
    text += md_table(head, rows, ["---", "---:"] + ["---:", "---:", "---:"] * len(TOOLS))
    if met:
        text += ("\nperf-ring lost no record in any run, and perf record -z1 lost records in "
                 "at least half of the runs, at: %s.\n" % ", ".join("%s -m %s" % m for m in met))
    else:
        text += ("\nNo buffer size had perf record -z1 losing records in at least half of "
                 "the runs and perf-ring in none.\n")
    write_md("loss.md", text)
    with open(os.path.join(STATE, "loss.dat"), "w") as f:
        # placement, size in KiB, mean lost per tool
        for place, size, pr in plot:
            kib = int(size[:-1]) * (1024 if size.endswith("M") else 1)
            f.write("%s %d %s\n" % (place, kib, " ".join("%.0f" % v for v in pr)))
    save("loss", {"calls": N, "rounds": ROUNDS, "sizes": SIZES, "runs": data,
                  "met": ["%s -m %s" % m for m in met]})


if __name__ == "__main__":
    main(part)
