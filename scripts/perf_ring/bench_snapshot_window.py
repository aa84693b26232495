# SPDX-License-Identifier: GPL-2.0
"""Part 12: a flight-recorder snapshot against perf record --overwrite at the same -m.

Two CPUs recorded (-a) with raw_syscalls:sys_enter and a cpu-clock sample
every 100 us, into 16-page (64 KiB) buffers written backward; the work is
uneven on purpose: close-loop on CPU 0 makes a syscall every microsecond or
so, while CPU 1 has its clock samples and what else runs there, so CPU 0's
buffer wraps first and covers the shorter time.  The clock samples tick on
both CPUs whatever runs, so each CPU's oldest one tells where its records
start, within 100 us.  One snapshot is taken with SIGUSR2 (--switch-output)
one second in, while both loads run; then the recording is stopped.

perf record --overwrite writes each buffer whole: every record the
buffers hold, but the busy CPU's records start later than the quiet one's,
so at the start of the file there is a stretch (the hole) with records of
one CPU only.  perf-ring's snapshot starts at the newest of the buffers'
oldest records (one window with no gap on any CPU) and leaves out what lies
before it.  perf-ring with --snapshot-window=whole writes each buffer
whole, as perf does, and marks where that window starts (perf-ring report
prints it).  Measured per file with perf script -F cpu,time,event: the
records kept, the hole = the newest of the CPUs' oldest clock-sample
times less the oldest of them, and for the whole buffers the records from
the mark on.  The recorders take turns, ROUNDS rounds; medians."""

import os
import re
import signal
import statistics
import subprocess
import time

from bench_lib import (CLOSE_LOOP, OUT, PERF_RING, QUICK, SCRATCH, Fail, log, main, md_table,
                       pin, rm, run, save, write_md)

ROUNDS = 3 if QUICK else 7
PAGES = "16"
EVENTS = ["-e", "raw_syscalls:sys_enter", "-e", "cpu-clock/period=100000/"]
BUSY = pin(0, [CLOSE_LOOP, "100000000"])
SNAP_AT = 1.0
TOOLS = ("perf", "perf-ring", "perf-ring-whole")


def work():
    """Both loads at once, as one command for the recorders."""
    return BUSY


def recorder(tool, f):
    common = ["-q", "-B", "-a", "--overwrite", "--switch-output", "-m", PAGES] + EVENTS + \
        ["-o", f]
    exe = "perf" if tool == "perf" else PERF_RING
    if tool == "perf-ring-whole":
        common = ["--snapshot-window=whole"] + common
    return [exe, "record"] + common + ["--"] + work()


def started(p):
    """Wait until the recorder runs its command (its child): its signal handlers are set."""
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        for pid in os.listdir("/proc"):
            try:
                with open("/proc/%s/stat" % pid) as st:
                    f = st.read().rsplit(")", 1)
                if f[0].endswith("(close-loop") and int(f[1].split()[1]) == p.pid:
                    return
            except (OSError, ValueError, IndexError):
                continue
        time.sleep(0.05)
    raise Fail("the recorder did not start its command within 120 s")


def snapshot(tool, f):
    """The recorder's first snapshot, taken with SIGUSR2 while both loads run."""
    p = subprocess.Popen(recorder(tool, f), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        started(p)
        time.sleep(SNAP_AT)
        p.send_signal(signal.SIGUSR2)
        deadline = time.time() + 60
        snaps = []
        while time.time() < deadline and not snaps:
            time.sleep(0.2)
            snaps = sorted(x for x in os.listdir(SCRATCH)
                           if x.startswith(os.path.basename(f) + "."))
        time.sleep(0.5)		# written whole: the recorders rename it into place
        p.send_signal(signal.SIGINT)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        try:		# the loads, should the stop not have reached them
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if not snaps:
        raise Fail("%s: no snapshot 60 s after SIGUSR2: %s" % (tool, p.stderr.read()[-300:]))
    return os.path.join(SCRATCH, snaps[0])


def clean(f):
    for x in os.listdir(SCRATCH):
        if x == os.path.basename(f) or x.startswith(os.path.basename(f) + "."):
            rm(os.path.join(SCRATCH, x))


def window_mark(f):
    """Where the common window of a whole-buffer snapshot starts (s), as perf-ring report says."""
    _, _, out, _ = run([PERF_RING, "report", "-i", f], timeout=300)
    m = re.search(r"common window \(no gap on any CPU\) starts at ([0-9.]+)", out)
    if not m:
        raise Fail("%s: perf-ring report names no common window: %s" % (f, out[-300:]))
    return m.group(1)


def measure(f, mark=None, need=2):
    """{cpu: [n, oldest clock sample, newest, n from mark]} of the samples in f (seconds).

    A whole buffer always holds clock samples of both CPUs (NEED 2).  perf-ring's
    one window spans about a millisecond: when the quiet CPU's timer did not fire
    inside it (the host took that vCPU away for longer), that CPU has records
    without a clock sample or none at all, which is what the window is for, so
    the window asks for one CPU with clock samples (NEED 1).  The oldest time is
    None for a CPU without clock samples; hole() leaves it out."""
    _, _, out, _ = run(["perf", "script", "-i", f, "-F", "cpu,time,event"], timeout=300)
    per = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3 or not parts[0].startswith("["):
            continue
        cpu, t = int(parts[0].strip("[]")), float(parts[1].rstrip(":"))
        e = per.setdefault(cpu, [0, None, t, 0])
        # perf script prints microseconds: the mark's microsecond counts as in
        e[3] += mark is not None and t >= float(mark[:mark.index(".") + 7])
        e[0] += 1
        if parts[2].startswith("cpu-clock") and (e[1] is None or t < e[1]):
            e[1] = t
        e[2] = max(e[2], t)
    clocked = [c for c, e in per.items() if e[1] is not None]
    if len(clocked) < need:
        raise Fail("%s: clock samples of %d CPU(s), expected %d" % (f, len(clocked), need))
    return per


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def part():
    res = {t: [] for t in TOOLS}
    load0 = loadavg()
    for r in range(ROUNDS):
        for tool in TOOLS[r % 3:] + TOOLS[:r % 3]:
            f = os.path.join(SCRATCH, "snapwin.data")
            clean(f)
            snap = snapshot(tool, f)
            mark = window_mark(snap) if tool == "perf-ring-whole" else None
            try:
                per = measure(snap, mark, 1 if tool == "perf-ring" else 2)
            except Fail as e:
                raise Fail("%s round %d: %s" % (tool, r + 1, e))
            clean(f)
            oldest = [per[c][1] for c in per if per[c][1] is not None]
            newest = [per[c][2] for c in per]
            row = {"records": sum(per[c][0] for c in per),
                   "per_cpu": {str(c): per[c][0] for c in sorted(per)},
                   "hole_ms": (max(oldest) - min(oldest)) * 1e3,
                   "span_ms": (max(newest) - min(oldest)) * 1e3}
            if mark is not None:
                row["from_mark"] = sum(per[c][3] for c in per)
            res[tool].append(row)
            log("snapshot window: %s round %d: %d records %s, hole %.2f ms, span %.2f ms" %
                (tool, r + 1, row["records"], row["per_cpu"], row["hole_ms"], row["span_ms"]))

    def med(tool, key):
        return statistics.median(x[key] for x in res[tool])

    def med_cpu(tool, cpu):
        return statistics.median(x["per_cpu"].get(cpu, 0) for x in res[tool])

    def from_mark(x, tool):
        return x["from_mark"] if tool == "perf-ring-whole" else \
            x["records"] if tool == "perf-ring" else "-"

    rows = []
    for tool, how in (("perf", "perf record --overwrite: each buffer whole"),
                      ("perf-ring", "perf-ring --overwrite: one window"),
                      ("perf-ring-whole", "perf-ring --overwrite --snapshot-window=whole: "
                       "each buffer whole, the window's start marked")):
        fm = "-" if tool == "perf" else \
            "%.0f" % statistics.median(from_mark(x, tool) for x in res[tool])
        rows.append([how, "%.0f" % med(tool, "records"), "%.0f" % med_cpu(tool, "0"),
                     "%.0f" % med_cpu(tool, "1"), "%.2f" % med(tool, "span_ms"),
                     "%.2f" % med(tool, "hole_ms"), fm])
    cmd = ("`RECORDER record -q -B -a --overwrite --switch-output -m %s %s -o F -- "
           "taskset -c 0 close-loop %s`, SIGUSR2 %.1f s after the command started, then "
           "SIGINT" % (PAGES, " ".join(EVENTS), BUSY[-1], SNAP_AT))
    text = "## 12. A flight-recorder snapshot against perf record --overwrite\n\n"
    text += ("%s, RECORDER perf (6.1), perf-ring, and perf-ring with --snapshot-window=whole "
             "(given first), taking turns, %d rounds each; medians. "
             "The snapshot is the one SIGUSR2 asks for, while the command runs. Records are "
             "the samples in the file, both events (`perf script -F cpu,time,event`); the span runs from the oldest record to "
             "the newest; the hole is the time at the start of the span with records of "
             "one CPU only (the newest of the CPUs' oldest clock-sample times less the "
             "oldest, so within 100 us; a CPU with no clock sample in perf-ring's one "
             "window, whose timer did not fire within it, is left out of it), where the busier CPU's buffer had already been "
             "overwritten (CPU 0's, unless other work on the machine made CPU 1 the busier). "
             "From the mark: the records at or after the start of the common window, as "
             "`perf-ring report` gives it for the whole buffers (perf script's times are in "
             "microseconds: the mark's microsecond counts as in); for the one window, all "
             "of its records. "
             "Each column's median is taken on its own.\n\n" %
             (cmd, ROUNDS))
    text += ("Load average %s at the start, %s at the end (the machine is shared: the "
             "rates vary, so do the windows; the shape holds in every round, see each round "
             "below).\n\n" % (load0, loadavg()))
    text += md_table(["recorder", "records kept", "CPU 0", "CPU 1", "span (ms)",
                      "hole (ms)", "from the mark"], rows, ["---"] + ["---:"] * 6)
    text += "\nEach round:\n\n"
    text += md_table(["round", "recorder", "records kept", "CPU 0", "CPU 1", "span (ms)",
                      "hole (ms)", "from the mark"],
                     [[i + 1, tool, x["records"], x["per_cpu"].get("0", 0),
                       x["per_cpu"].get("1", 0), "%.2f" % x["span_ms"], "%.2f" % x["hole_ms"],
                       from_mark(x, tool)]
                      for i in range(ROUNDS) for tool in TOOLS
                      for x in [res[tool][i]]], ["---:", "---"] + ["---:"] * 6)
    write_md("snapshot-window.md", text)
    save("snapshot_window", res)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "snapshot-window.md"), "w") as f:
        f.write("# " + text.split("\n", 1)[0][3:] + "\n\nCommand: `python3 "
                "scripts/perf_ring/bench_snapshot_window.py` (or `BENCH_PARTS=snapshot_window "
                "make bench`), run in the tree of the commit that adds this file.\n\n" +
                text.split("\n", 2)[2])


if __name__ == "__main__":
    main(part)
