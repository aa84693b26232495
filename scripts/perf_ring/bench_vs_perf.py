# SPDX-License-Identifier: GPL-2.0
"""Part 2: perf-ring against perf record, side by side in one run.

Same events (raw_syscalls:*), same buffer (128 pages per CPU), same zstd
level, each tool with its default writer; streaming to a file, -z1, and
the flight recorder (--overwrite, one snapshot at exit).  At 128 pages both
tools lose records on the shared CPU, so -z1 is also run with 16 MiB
buffers, where neither loses any and the output bytes compare the same
samples.  Also the kernel-only floor (forward overwrite, nobody reading)
for the flight-recorder goal.  Every output file is read back with perf report
--stats and perf-ring report: SAMPLE records and samples lost."""

import os
import re

from bench_lib import (need, FLOOR, PERF_RING, QUICK, SCRATCH, SYSCALL_EVENTS, close_loop,
                       fmt_bytes, fmt_ratio, interleave, log, main, md_table, mean,
                       paired_ratio, perf_ring_summary, pin, rm, save, stats_of, write_md)

N = int(os.environ.get("BENCH_VS_CALLS", 100000 if QUICK else 1000000))
ROUNDS = int(os.environ.get("BENCH_VS_ROUNDS", 2 if QUICK else 12))
PAGES = "128"
BIG_PAGES = "4096"		# 16 MiB: the -z1 comparison without lost records
Z_BIG = "-z1, 16 MiB buffers"
MODES = [("streaming", [], PAGES), ("-z1", ["-z1"], PAGES),
         ("flight recorder", ["--overwrite"], PAGES), (Z_BIG, ["-z1"], BIG_PAGES)]


def out(name):
    return os.path.join(SCRATCH, name + ".data")


def reader(path, tool):
    def after(o, err):
        d = stats_of(path)
        if tool == "perf-ring":
            d["summary"] = perf_ring_summary(err)["line"]
        rm(path)
        return d
    return after


def cases():
    c = [{"label": "BASE", "cmd": close_loop(N, 0)},
         {"label": "floor", "cmd": pin(0, FLOOR + ["forward-overwrite", PAGES, SYSCALL_EVENTS,
                                                   "--"] + close_loop(N))}]
    for mode, opts, pages in MODES:
        for tool, argv0 in (("perf", ["perf", "record", "-q"]), ("perf-ring", [PERF_RING, "record"])):
            f = out("%s-%s" % (tool, re.sub(r"[^\w-]+", "-", mode)))
            c.append({"label": "%s %s" % (tool, mode),
                      "cmd": pin(0, argv0 + ["-m", pages, "-e", SYSCALL_EVENTS, "-o", f] + opts +
                                 ["--"] + close_loop(N)),
                      "before": lambda f=f: rm(f),
                      "after": reader(f, tool)})
    return c


def part():
    need("--overwrite", "the flight recorder")
    need("--compression-level", "compression (-z)")
    cs = cases()
    log("perf-ring vs perf record: %d close(-1), %d rounds of %d cases" % (N, ROUNDS, len(cs)))
    res = interleave(cs, ROUNDS, "perf-ring vs perf", warmup=[close_loop(N, 0)])
    base = res["BASE"]["w"]
    rows, goals = [], {}
    for mode, _, _ in MODES:
        p, r = res["perf " + mode], res["perf-ring " + mode]
        over = paired_ratio(r["w"], p["w"], base)
        wall = paired_ratio(r["t"], p["t"])
        pb = [x["bytes"] for x in p["x"]]
        rb = [x["bytes"] for x in r["x"]]
        ps = [x["samples"] for x in p["x"]]
        rs = [x["samples"] for x in r["x"]]
        pl = [x["lost"] for x in p["x"]]
        rl = [x["lost"] for x in r["x"]]
        bytes_ratio = paired_ratio(rb, pb)
        rows.append([mode, "%.0f" % (mean(p["w"]) * 1e3), "%.0f" % (mean(r["w"]) * 1e3),
                     fmt_ratio(over), over["verdict"], fmt_ratio(wall),
                     fmt_bytes(mean(pb)), fmt_bytes(mean(rb)),
                     "%.0f" % mean(ps), "%.0f" % mean(rs), "%.0f" % mean(pl), "%.0f" % mean(rl)])
        goals[mode] = {"overhead": over, "wall": wall, "bytes": bytes_ratio,
                       "perf_lost": mean(pl), "ring_lost": mean(rl),
                       "perf_bytes": mean(pb), "ring_bytes": mean(rb),
                       "perf_samples": mean(ps), "ring_samples": mean(rs)}
    floor = paired_ratio(res["perf-ring flight recorder"]["w"], res["floor"]["w"], base)
    goals["floor"] = floor
    zb = goals["-z1"]
    per_sample = paired_ratio(
        [x["bytes"] / max(x["samples"], 1) for x in res["perf-ring -z1"]["x"]],
        [x["bytes"] / max(x["samples"], 1) for x in res["perf -z1"]["x"]])
    goals["-z1"]["bytes_per_sample"] = per_sample
    zbig = goals[Z_BIG]

    text = "## 2. perf-ring against perf record\n\n"
    text += ("%s close(-1) recorded with `raw_syscalls:*`, `-m %s` (pages per CPU) for both, "
             "each tool's default writer (perf: write(2); perf-ring: io_uring), output to a "
             "file on %s; %d interleaved rounds, recorder and workload on CPU 0. "
             "The last mode is -z1 again with 16 MiB (4096 pages) per CPU for both, where "
             "neither loses records. "
             "Workload time in ms. overhead ratio = (perf-ring - BASE) / (perf - BASE) per "
             "round, mean [95%% interval]; wall ratio = whole commands. Samples and lost "
             "(the sum of PERF_RECORD_LOST) are read back from each file with `perf report "
             "--stats` and `perf-ring report`. In flight-recorder mode the file is the one "
             "snapshot taken at exit.\n\n" %
             (format(N, ","), PAGES, os.environ.get("BENCH_SCRATCH_FS", "tmpfs"), ROUNDS))
    text += md_table(["mode", "perf ms", "perf-ring ms", "overhead ratio", "verdict",
                      "wall ratio", "perf bytes", "perf-ring bytes", "perf samples",
                      "perf-ring samples", "perf lost", "perf-ring lost"], rows,
                     ["---"] + ["---:"] * 3 + ["---"] + ["---:"] * 7)
    text += ("\nBASE (no recording) %.0f ms; kernel-only floor (forward overwrite, no "
             "reader, the same attributes as perf-ring) %.0f ms.\n\n" %
             (mean(base) * 1e3, mean(res["floor"]["w"]) * 1e3))
    text += md_table(["comparison", "ratio [95% interval]", "verdict"], [
        ["perf-ring flight recorder / floor (overheads)", fmt_ratio(floor), floor["verdict"]],
        ["perf-ring -z1 / perf -z1, output bytes", fmt_ratio(zb["bytes"]), zb["bytes"]["verdict"]],
        ["perf-ring -z1 / perf -z1, bytes per sample", fmt_ratio(per_sample),
         per_sample["verdict"]],
        ["perf-ring -z1 / perf -z1, output bytes, 16 MiB buffers (lost: perf %.0f, "
         "perf-ring %.0f)" % (zbig["perf_lost"], zbig["ring_lost"]), fmt_ratio(zbig["bytes"]),
         zbig["bytes"]["verdict"]],
    ], ["---", "---:", "---"])
    summ = [x.get("summary") for x in res["perf-ring -z1"]["x"]][-1:]
    if summ:
        text += "\nperf-ring's summary line (last -z1 run): `[ perf-ring record: %s ]`\n" % summ[0]
    write_md("vs-perf.md", text)
    save("vs_perf", {"calls": N, "rounds": ROUNDS, "goals": goals,
                     "base_ms": mean(base) * 1e3, "floor_ms": mean(res["floor"]["w"]) * 1e3})


if __name__ == "__main__":
    main(part)
