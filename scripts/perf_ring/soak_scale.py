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

perf-ring's RSS (VmRSS) and open file descriptors are sampled every 10 s.
Goals: RSS within 1 MB of its value after the first minute, the fd count
flat, 0 lost.  Writes bench/results/scale-duration.md and .png."""

import os
import re
import signal
import subprocess
import sys
import time

import bench_lib as B

DUR = int(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SOAK_SCALE_SECONDS", "3600"))
EVERY = 10
LOOP = 'while :; do "$0" 1000000 >/dev/null; done'
SPAWN = 'while :; do /bin/true; sleep 0.01; done'


def sample(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            rss = int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))
        fds = len(os.listdir("/proc/%d/fd" % pid))
    except (OSError, AttributeError):
        return None
    return rss, fds


def one(name, args, workload):
    d = os.path.join(B.SCRATCH, "soak-scale-" + name)
    subprocess.run(["rm", "-rf", d])
    os.makedirs(d)
    cmd = [B.PERF_RING, "record"] + args + ["-e", "raw_syscalls:*", "-o",
                                            os.path.join(d, "s.data"), "--"] + workload
    err = open(os.path.join(d, "stderr"), "w+")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    t0, pts = time.time(), []
    try:
        while time.time() - t0 < DUR and p.poll() is None:
            s = sample(p.pid)
            if s:
                pts.append((time.time() - t0,) + s)
            if len(pts) % 30 == 1:
                B.log("soak-scale %s: %ds of %d, RSS %s kB, %s fds" %
                      (name, time.time() - t0, DUR, s[0] if s else "?", s[1] if s else "?"))
            time.sleep(EVERY)
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
    if p.returncode not in (0, 130, -signal.SIGINT):
        raise B.Fail("%s: exit %d\n%s" % (name, p.returncode, text[-500:]))
    m = re.search(r"([\d.]+[kM]?) events, (\d+) lost", text)
    files = len([f for f in os.listdir(d) if f.startswith("s.data")])
    subprocess.run(["rm", "-rf", d])
    return pts, (m.group(1) if m else "?"), (int(m.group(2)) if m else None), files, text


def main():
    os.makedirs(B.SCRATCH, exist_ok=True)
    loop = ["sh", "-c", LOOP, B.CLOSE_LOOP]
    runs = [
        ("stream", ["-z", "--switch-output=1G", "--switch-max-files=3"], loop),
        ("flight", ["--overwrite", "-z", "--switch-output=60s"],
         ["sh", "-c", LOOP + " & " + SPAWN, B.CLOSE_LOOP]),
    ]
    rows, goals, dat = [], [], []
    for name, args, wl in runs:
        pts, events, lost, files, _ = one(name, args, wl)
        after = [p for p in pts if p[0] >= 60]
        if not after:
            raise B.Fail("%s: no sample after the first minute" % name)
        base = after[0]
        drss = max(abs(p[1] - base[1]) for p in after)
        fds = sorted(set(p[2] for p in after))
        rows.append([name, " ".join(args), "%d s" % DUR, str(len(pts)), "%d" % base[1],
                     "%d" % max(p[1] for p in after), "%d" % drss,
                     "%d..%d" % (fds[0], fds[-1]), events, str(lost), str(files)])
        goals.append(["%s: RSS within 1 MB (1024 kB) of its value after the first minute" % name,
                      "%d kB" % drss, "met" if drss <= 1024 else "missed"])
        goals.append(["%s: fd count flat after the first minute" % name,
                      "%d..%d" % (fds[0], fds[-1]), "met" if fds[0] == fds[-1] else "missed"])
        goals.append(["%s: lost 0" % name, str(lost), "met" if lost == 0 else "missed"])
        for p in pts:
            dat.append("%s %.0f %d %d" % (name, p[0], p[1], p[2]))
    os.makedirs(B.STATE, exist_ok=True)
    state = os.path.join(B.STATE, "scale-duration.dat")
    with open(state, "w") as f:
        f.write("\n".join(dat) + "\n")
    png = os.path.join(B.ROOT, "bench", "results", "scale-duration.png")
    subprocess.run(["gnuplot"], input="""
set terminal pngcairo size 900,520 font "sans,10" noenhanced
set output "%s"
set title "perf-ring's RSS over a long recording (sampled every %d s)"
set xlabel "seconds"
set ylabel "VmRSS, kB"
set grid
set key bottom right
plot "< grep '^stream ' %s" using 2:3 with lines title "stream, --switch-output=1G --switch-max-files=3", \\
     "< grep '^flight ' %s" using 2:3 with lines title "flight recorder, a snapshot a minute"
""" % (png, EVERY, state, state), text=True, check=True)
    text = ("# Duration: perf-ring over %d s\n\n"
            "Command: `make soak-scale SECONDS=%d` (scripts/perf_ring/soak_scale.py), "
            "on the host (%s), wall clock: this dimension cannot run under icount.  "
            "Each recording takes raw_syscalls:* of a loop of close-loop 1000000 "
            "runs; the flight recorder's also of a loop starting /bin/true every "
            "10 ms, whose side-band records make the side-band store compact.  "
            "perf-ring's VmRSS and open fds sampled every %d s.\n\n"
            % (DUR, DUR, os.uname().release, EVERY))
    text += B.md_table(["run", "options", "length", "samples", "RSS at 1 min, kB",
                        "RSS max after, kB", "largest change after 1 min, kB", "fds after 1 min",
                        "events", "lost", "files left"], rows)
    text += "\n![plot](scale-duration.png)\n\n## Goals\n\n"
    text += B.md_table(["goal", "figure", "verdict"], goals, ["---", "---:", "---"])
    path = os.path.join(B.ROOT, "bench", "results", "scale-duration.md")
    with open(path, "w") as f:
        f.write(text)
    B.log("wrote bench/results/scale-duration.md and scale-duration.png")


B.main(main)
