#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make soak-scale: the duration dimension, on the host, wall clock.

Two recordings of SECONDS each (default 3600; SOAK_SCALE_SECONDS or the
first argument), one after the other:

  stream  perf-ring record -z --switch-output=1G --switch-max-files=3
          -e raw_syscalls:* of a loop of close-loop runs
  flight  perf-ring record --overwrite -z --switch-output=60s (a snapshot
          a minute) -e raw_syscalls:* of the same loop beside a loop that
          starts a short-lived process every 10 ms, whose COMM, MMAP2 and
          EXIT records fill the side-band store and make it compact

perf-ring's RSS (VmRSS) and open file descriptors are sampled every 10 s,
with the load average and whether a snapshot file was open for writing
(its .partial among perf-ring's fds).  A sample that falls on a snapshot
being written holds that file's descriptors and the writer's buffers for
the moment, so growth is measured on the lowest sample of each minute (one
snapshot a minute).  Goals: RSS within 1 MB of its value after the first
minute, the fd count not growing, 0 lost.

--concurrent runs the two recordings at once (both hours in one hour, on a
machine with other work the stream then competes with the flight
recorder's workload too).  The binaries are copied to the scratch
directory first, so that a rebuild during the run does not change them.
Writes bench/results/scale-duration.md, .png and .dat."""

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import threading
import time

import bench_lib as B

EVERY = 10
LOOP = 'while :; do "$0" 1000000 >/dev/null; done'
SPAWN = 'while :; do /bin/true; sleep 0.01; done'
DUR = 0
BIN = {}
STOP = threading.Event()	# set when the harness is stopped: the runs end early


def fd_links(pid):
    """perf-ring's open fds and what they point to."""
    out = []
    d = "/proc/%d/fd" % pid
    for n in os.listdir(d):
        try:
            out.append(os.readlink(os.path.join(d, n)))
        except OSError:
            pass	# closed meanwhile
    return out


def sample(pid, outdir):
    """(VmRSS kB, fds, writing, load1): writing when a file of outdir
    ending in .partial is open, before or after the RSS is read."""
    try:
        a = fd_links(pid)
        with open("/proc/%d/status" % pid) as f:
            rss = int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))
        b = fd_links(pid)
        with open("/proc/loadavg") as f:
            load = float(f.read().split()[0])
    except (OSError, AttributeError):
        return None
    writing = any(t.startswith(outdir + "/") and t.endswith(".partial") for t in a + b)
    return rss, len(a), int(writing), load


def one(name, args, workload):
    d = os.path.realpath(os.path.join(B.SCRATCH, "soak-scale-" + name))
    subprocess.run(["rm", "-rf", d])
    os.makedirs(d)
    cmd = [BIN["perf-ring"], "record"] + args + ["-e", "raw_syscalls:*", "-o",
                                            os.path.join(d, "s.data"), "--"] + workload
    err = open(os.path.join(d, "stderr"), "w+")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    t0, pts = time.time(), []
    try:
        k = 0
        while time.time() - t0 < DUR and p.poll() is None and not STOP.is_set():
            s = sample(p.pid, d)
            if s:
                pts.append((time.time() - t0,) + s)
            if len(pts) % 30 == 1:
                B.log("soak-scale %s: %ds of %d, RSS %s kB, %s fds, load %s" %
                      (name, time.time() - t0, DUR, s[0] if s else "?", s[1] if s else "?",
                       s[3] if s else "?"))
            k += 1	# on a fixed grid: the samples keep their phase to the snapshots
            STOP.wait(max(0, t0 + k * EVERY - time.time()))
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            pass
        # the workload's background loop outlives perf-ring: end the whole
        # group perf-ring leads (start_new_session), which is ours
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    err.seek(0)
    text = err.read()
    err.close()
    # stopped: perf-ring stops the command with SIGTERM and, as perf record,
    # dies by the signal that ended the command, or the one that stopped it
    if p.returncode not in (0, 130, 143, -signal.SIGINT, -signal.SIGTERM):
        raise B.Fail("%s: exit %d\n%s" % (name, p.returncode, text[-500:]))
    m = re.search(r"([\d.]+[kMG]?) events, (\d+) lost", text)
    if not m:	# the table then says "?": the log keeps what perf-ring said
        B.log("soak-scale %s: no summary line in perf-ring's stderr: %s" % (name, text[-300:]))
    files = len([f for f in os.listdir(d) if f.startswith("s.data")])
    subprocess.run(["rm", "-rf", d])
    return pts, (m.group(1) if m else "?"), (int(m.group(2)) if m else None), files, text


def minute_lows(pts, col):
    """For each sample from the end of the first minute whose next minute is
    sampled whole, the lowest value of column col over that minute: a
    minute holds one snapshot, and at most one sample on its write."""
    after = [p for p in pts if p[0] >= 60]
    if not after:
        return []
    return [min(q[col] for q in after if p[0] <= q[0] < p[0] + 60)
            for p in after if p[0] + 60 <= after[-1][0] + EVERY / 2]


def fmt_range(v):
    return "%d..%d" % (min(v), max(v)) if v else "-"


def summarize(name, args, res):
    pts, events, lost, files, _ = res
    after = [p for p in pts if p[0] >= 60]
    rss, fds = minute_lows(pts, 1), minute_lows(pts, 2)
    if not rss:
        raise B.Fail("%s: not a whole minute sampled after the first" % name)
    drss = max(abs(v - rss[0]) for v in rss)
    dfd = max(fds) - fds[0]
    loads = [p[4] for p in pts]
    row = [name, " ".join(args), "%d s" % DUR,
           "%d (%d writing)" % (len(pts), sum(p[3] for p in pts)),
           "%d" % rss[0], fmt_range(rss), "%d" % drss, "%d" % max(p[1] for p in after),
           fmt_range(fds), "%d" % max(p[2] for p in after),
           "%.1f / %.1f / %.1f" % (min(loads), statistics.median(loads), max(loads)),
           events, str(lost), str(files)]
    goals = [
        ["%s: RSS within 1 MB (1024 kB) of its value after the first minute "
         "(the lowest sample of each minute)" % name,
         "%d kB" % drss, "met" if drss <= 1024 else "missed"],
        ["%s: fd count not growing after the first minute (the lowest of each minute)"
         % name, "+%d" % dfd, "met" if dfd <= 0 else "missed"],
        ["%s: lost 0" % name, str(lost), "met" if lost == 0 else "missed"],
    ]
    return row, goals


def copy_binaries():
    d = os.path.join(B.SCRATCH, "soak-scale-bin")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for src in (B.PERF_RING, B.CLOSE_LOOP):
        BIN[os.path.basename(src)] = shutil.copy2(src, d)
    r = subprocess.run(["git", "-C", B.ROOT, "describe", "--always", "--dirty"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "?"


def main():
    global DUR, EVERY
    ap = argparse.ArgumentParser(description="make soak-scale: the duration dimension")
    ap.add_argument("seconds", nargs="?", type=int,
                    default=int(os.environ.get("SOAK_SCALE_SECONDS", "3600")))
    ap.add_argument("--concurrent", action="store_true",
                    help="run the stream and the flight recording at once")
    ap.add_argument("--every", type=int, default=EVERY, help="seconds between samples")
    a = ap.parse_args()
    DUR, EVERY = a.seconds, a.every
    os.makedirs(B.SCRATCH, exist_ok=True)
    built = copy_binaries()
    loop = ["sh", "-c", LOOP, BIN["close-loop"]]
    runs = [
        ("stream", ["-z", "--switch-output=1G", "--switch-max-files=3"], loop),
        ("flight", ["--overwrite", "-z", "--switch-output=60s"],
         ["sh", "-c", LOOP + " & " + SPAWN, BIN["close-loop"]]),
    ]
    res = {}
    if a.concurrent:
        errs = []

        def run(name, args, wl):
            try:
                res[name] = one(name, args, wl)
            except B.Fail as e:
                errs.append(e)
        th = [threading.Thread(target=run, args=r) for r in runs]
        for t in th:
            t.start()
        try:
            for t in th:
                while t.is_alive():
                    t.join(1)
        except BaseException:
            STOP.set()	# stopped: each run ends its recording
            for t in th:
                t.join()
            raise
        if errs:
            raise errs[0]
    else:
        for name, args, wl in runs:
            res[name] = one(name, args, wl)
    rows, goals, dat = [], [], ["# run seconds VmRSS_kB fds writing load1"]
    for name, args, _ in runs:
        row, g = summarize(name, args, res[name])
        rows.append(row)
        goals += g
        for p in res[name][0]:
            dat.append("%s %.0f %d %d %d %.2f" % ((name,) + p))
    results = os.path.join(B.ROOT, "bench", "results")
    state = os.path.join(results, "scale-duration.dat")
    with open(state, "w") as f:
        f.write("\n".join(dat) + "\n")
    png = os.path.join(results, "scale-duration.png")
    subprocess.run(["gnuplot"], input="""
set terminal pngcairo size 900,520 font "sans,10" noenhanced
set output "%s"
set title "perf-ring's RSS over a long recording (sampled every %d s)"
set xlabel "seconds"
set ylabel "VmRSS, kB"
set y2label "load average (1 min)"
set ytics nomirror
set y2tics
set grid
set key bottom right
plot "< grep '^stream ' %s" using 2:3 with lines title "stream, --switch-output=1G --switch-max-files=3", \\
     "< grep '^flight ' %s" using 2:3 with lines title "flight recorder, a snapshot a minute", \\
     "< grep '^flight ' %s | awk '$5 == 1'" using 2:3 with points pt 7 ps 0.5 title "flight, sample while a snapshot is written", \\
     "< grep '^stream ' %s" using 2:6 axes x1y2 with lines lc rgb "gray" title "load average"
""" % (png, EVERY, state, state, state, state), text=True, check=True)
    how = "at once (--concurrent)" if a.concurrent else "one after the other"
    cmd = "make soak-scale SECONDS=%d%s" % (DUR, " CONCURRENT=1" if a.concurrent else "")
    text = ("# Duration: perf-ring over %d s\n\n"
            "Command: `%s` (scripts/perf_ring/soak_scale.py), perf-ring built from %s, "
            "on the host (%s, %d CPUs), wall clock: this dimension cannot run under icount.  "
            "The two recordings ran %s.  "
            "Each recording takes raw_syscalls:* of a loop of close-loop 1000000 "
            "runs; the flight recorder's also of a loop starting /bin/true every "
            "10 ms, whose side-band records make the side-band store compact.  "
            "perf-ring's VmRSS and open fds sampled every %d s, with the 1-minute "
            "load average of the machine (shared with other work) and whether a "
            "snapshot file was open (\"writing\": its .partial among perf-ring's "
            "fds).  A sample that falls on a snapshot being written holds that "
            "file's descriptors and the writer's buffers for that moment (the "
            "peaks), so growth is measured on the lowest sample of each minute "
            "(a minute holds one snapshot), from the end of the first minute.  "
            "Samples: scale-duration.dat (run, seconds, VmRSS kB, fds, writing, "
            "load).\n\n"
            % (DUR, cmd, built, os.uname().release, os.cpu_count(), how, EVERY))
    text += B.md_table(["run", "options", "length", "samples", "RSS at 1 min, kB",
                        "RSS, lowest of each minute, kB", "largest change, kB",
                        "RSS peak, kB", "fds, lowest of each minute", "fds peak",
                        "load min / median / max", "events", "lost", "files left"], rows)
    text += "\n![plot](scale-duration.png)\n\n## Goals\n\n"
    text += B.md_table(["goal", "figure", "verdict"], goals, ["---", "---:", "---"])
    path = os.path.join(results, "scale-duration.md")
    with open(path, "w") as f:
        f.write(text)
    B.log("wrote bench/results/scale-duration.md, .png and .dat")


B.main(main)
