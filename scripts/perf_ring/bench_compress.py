# SPDX-License-Identifier: GPL-2.0
"""Part 3: the compression table, laid out like the 2019 one.

perf-ring record -z 0,1,3,5,8, each with the sync writer (--no-aio) and
with io_uring (--aio), on two workloads: the close(-1) loop with
raw_syscalls:*, and a tar of a header tree through a pipe with syscalls
and the scheduler recorded (more varied records).  perf record -z1, sync
and --aio (POSIX AIO), as reference rows.  Overhead = workload time over
the same round's BASE; ratio = bytes read from the buffers over bytes
written, as the recorder reports it; bytes = the file."""

import os

from bench_lib import (need, PERF_RING, QUICK, SCRATCH, SYSCALL_EVENTS, VARIED_EVENTS, close_loop,
                       fmt_bytes, fmt_ratio, interleave, log, main, md_table, mean,
                       paired_ratio, perf_ring_summary, perf_summary, pin, rm, save,
                       stats_of, timed, write_md, STATE)

N = int(os.environ.get("BENCH_Z_CALLS", 100000 if QUICK else 500000))
ROUNDS = int(os.environ.get("BENCH_Z_ROUNDS", 1 if QUICK else 5))
TREE = "/usr/include/linux" if QUICK else "/usr/include"
if not os.path.isdir(TREE):
    TREE = "/etc"			# a tree every machine has
LEVELS = [0, 1, 3, 5, 8]
WRITERS = [("sync", "--no-aio"), ("io_uring", "--aio")]
WORKLOADS = [
    ("close", "%s close(-1), `%s`" % (format(N, ","), SYSCALL_EVENTS),
     SYSCALL_EVENTS, lambda: close_loop(N)),
    ("tar", "`tar -cf - -C %s . | cat >/dev/null`, `%s`" % (TREE, VARIED_EVENTS),
     VARIED_EVENTS, lambda: timed(["sh", "-c", "tar -cf - -C %s . | cat >/dev/null" % TREE])),
]


def checker(path, tool, first):
    """After a run: the tool's own figures, the file size, and (first round)
    the file read back by perf and perf-ring."""
    def after(o, err):
        d = {"bytes": os.path.getsize(path)}
        if tool == "perf-ring":
            s = perf_ring_summary(err)
            d["ratio"], d["lost"], d["writer"] = s["ratio"] or 1.0, s["lost"], s["writer"]
        else:
            d["ratio"], d["lost"], d["writer"] = perf_summary(err)["ratio"] or 1.0, None, "perf"
        if first[0]:
            st = stats_of(path)
            d["samples"] = st["samples"]
            if d["lost"] is None:
                d["lost"] = st["lost"]
        rm(path)
        return d
    return after


def part():
    need("--compression-level", "compression (-z)")
    need("--aio", "the io_uring writer (--aio)")
    need("--no-aio", "the write(2) writer (--no-aio)")
    first = [True]
    cases = []
    for wl, _, ev, cmd in WORKLOADS:
        cases.append({"label": "%s BASE" % wl, "cmd": pin(0, cmd())})
        rows = [("perf-ring", lv, wn, [PERF_RING, "record"] + (["-z%d" % lv] if lv else []) + [wo])
                for lv in LEVELS for wn, wo in WRITERS]
        rows += [("perf", 1, "sync", ["perf", "record", "-z1"]),
                 ("perf", 1, "POSIX AIO", ["perf", "record", "-z1", "--aio"])]
        for tool, lv, wn, argv in rows:
            label = "%s %s -z%d %s" % (wl, tool, lv, wn)
            f = os.path.join(SCRATCH, label.replace(" ", "_") + ".data")
            cases.append({"label": label, "tool": tool, "wl": wl, "level": lv, "writer": wn,
                          "cmd": pin(0, argv + ["-m", "128", "-e", ev, "-o", f, "--"] + cmd()),
                          "before": lambda f=f: rm(f), "after": checker(f, tool, first)})
    log("compression: %d rounds of %d cases" % (ROUNDS, len(cases)))

    # round 1 reads every file back; the others only time
    warm = [pin(0, cmd()) for _, _, _, cmd in WORKLOADS]
    res = interleave(cases, 1, "compression (files read back)", warmup=warm)
    first[0] = False
    if ROUNDS > 1:
        more = interleave(cases, ROUNDS - 1, "compression")
        for k, v in more.items():
            for f in ("w", "t", "x"):
                res[k][f] += v[f]

    text = "## 3. Compression\n\n"
    text += ("`-m 128` pages per CPU, recorder and workload on CPU 0, %d interleaved rounds "
             "(round 1 also reads every file back with `perf report --stats` and `perf-ring "
             "report`). overhead = workload time over BASE in the same round, mean [95%% "
             "interval]; ratio = bytes read from the ring buffers over bytes written, as the "
             "recorder reports it (perf-ring's summary line, perf's \"ratio is\"); bytes = "
             "the file; lost = samples lost (PERF_RECORD_LOST), mean per run.\n\n" % ROUNDS)
    dat = []
    summary = {}
    for wl, desc, _, _ in WORKLOADS:
        base = res["%s BASE" % wl]["w"]
        text += "### %s\n\nBASE (no recording): %.0f ms.\n\n" % (desc, mean(base) * 1e3)
        rows = []
        for c in cases:
            if c.get("wl") != wl:
                continue
            r = res[c["label"]]
            over = paired_ratio(r["w"], base)
            ratio = mean([x["ratio"] for x in r["x"]])
            nbytes = mean([x["bytes"] for x in r["x"]])
            lost = [x["lost"] for x in r["x"] if x["lost"] is not None]
            writer = r["x"][0]["writer"]
            rows.append([c["tool"], "-z %d" % c["level"], c["writer"], fmt_ratio(over),
                         "%.1f" % ratio, fmt_bytes(nbytes), "%.0f" % mean(lost) if lost else "-",
                         writer])
            if c["tool"] == "perf-ring":
                dat.append("%s %d %s %.4f %.3f" % (wl, c["level"], c["writer"], over["ratio"], ratio))
            summary[c["label"]] = {"overhead": over, "ratio": ratio, "bytes": nbytes}
        text += md_table(["recorder", "level", "writer", "overhead (x)", "ratio (x)", "bytes",
                          "lost", "writer used"], rows,
                         ["---", "---", "---", "---:", "---:", "---:", "---:", "---"]) + "\n"
    write_md("compression.md", text)
    with open(os.path.join(STATE, "compression.dat"), "w") as f:
        f.write("\n".join(dat) + "\n")
    save("compress", {"calls": N, "rounds": ROUNDS, "summary": summary})


if __name__ == "__main__":
    main(part)
