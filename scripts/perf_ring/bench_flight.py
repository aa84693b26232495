# SPDX-License-Identifier: GPL-2.0
"""Part 4: flight-recorder snapshots, PAUSE_OUTPUT against pause-free.

The workload runs on CPU 0 and the recorder on CPU 1, so records keep
arriving while a snapshot is taken.  The workload is dd copying /dev/zero
to /dev/null in 256 kB blocks: a steady stream of syscalls, slow enough
(a few hundred thousand records a second) that the 32 MB buffer holds
about a second of them.  The harness sends SIGUSR2, waits for
the recorder's line that names the snapshot file (the latency), waits a
little, and sends the next.  A buffer paused for a snapshot drops the
records that arrive meanwhile, and the kernel writes one PERF_RECORD_LOST
when output resumes; the buffer holds far more than the time between two
snapshots, so that record is still there at the next snapshot.  So the LOST records in snapshot k+1
count what snapshot k's pause cost.

Recorders: perf-ring (pause-free: copy, then check that the head did not
run over the copy), perf-ring --snapshot-pause (PAUSE_OUTPUT around the
copy), perf record --overwrite --switch-output=signal (pauses each buffer
while it reads it)."""

import os
import re
import signal
import subprocess
import threading
import time

from bench_lib import (need, PERF_RING, QUICK, SCRATCH, SYSCALL_EVENTS, Fail, fmt_bytes,
                       log, main, md_table, mean, median, pin, save, stats_of, timed, write_md)

SNAPS = int(os.environ.get("BENCH_FLIGHT_SNAPSHOTS", 3 if QUICK else 10))
REPS = int(os.environ.get("BENCH_FLIGHT_REPS", 1 if QUICK else 3))
# ended by the harness after the snapshots; bounded anyway (a minute or more)
WORKLOAD = ["dd", "if=/dev/zero", "of=/dev/null", "bs=256k", "count=4000000"]
GAP = 0.05			# seconds between a snapshot's line and the next signal
BUF = "32M"
CONFIGS = [
    ("perf-ring, pause-free", [PERF_RING, "record"], []),
    ("perf-ring --snapshot-pause", [PERF_RING, "record"], ["--snapshot-pause"]),
    ("perf record (pauses)", ["perf", "record"], []),
]
LINE = re.compile(r"\[ perf-ring: snapshot (\S+): .*?(\d+) overwritten|\[ perf record: Dump (\S+) \]")


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


def descendants(pid):
    out = []
    for c in children(pid):
        out += [c] + descendants(c)
    return out


def one(name, argv, opts, rep):
    prefix = "flight-%d-%d" % (CONFIGS.index((name, argv, opts)), rep)
    out = os.path.join(SCRATCH, prefix + ".data")
    cmd = pin(1, argv + ["-m", BUF, "-e", SYSCALL_EVENTS, "--overwrite",
                         "--switch-output=signal", "-o", out] + opts +
              ["--"] + pin(0, timed(WORKLOAD)))
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         errors="replace", start_new_session=True)
    lines, cond = [], threading.Condition()
    err_all = []

    def reader():
        for ln in p.stderr:
            err_all.append(ln)
            m = LINE.search(ln)
            if m:
                with cond:
                    lines.append((time.perf_counter(), m.group(1) or m.group(3)))
                    cond.notify_all()
    th = threading.Thread(target=reader, daemon=True)
    th.start()
    lat, files = [], []
    try:
        # ready once the recorder's child has become the workload
        me = os.path.basename(argv[0])[:15]
        t_end = time.time() + 30
        while time.time() < t_end and p.poll() is None:
            if comm(p.pid) == me and any(comm(c) not in ("", me) for c in children(p.pid)):
                break
            time.sleep(0.01)
        time.sleep(0.5)		# let the buffers fill and wrap
        for _ in range(SNAPS):
            if p.poll() is not None:
                break
            with cond:
                seen = len(lines)
                t0 = time.perf_counter()
                os.kill(p.pid, signal.SIGUSR2)
                if not cond.wait_for(lambda: len(lines) > seen, timeout=20):
                    raise Fail("%s: no snapshot line 20 s after SIGUSR2:\n%s" % (name, "".join(err_all[-5:])))
                lat.append(lines[seen][0] - t0)
            time.sleep(GAP)
        # end the loop: the recorder then takes its exit snapshot
        loop = [c for c in descendants(p.pid) if comm(c) == WORKLOAD[0]]
        if not loop:
            raise Fail("%s: the %s workload is gone" % (name, WORKLOAD[0]))
        os.kill(loop[0], signal.SIGTERM)
        rc = p.wait(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, 9)
            p.wait()
    th.join(timeout=5)
    if rc not in (0, 128 + signal.SIGTERM):	# perf passes the workload's status on
        raise Fail("%s exited %d:\n%s" % (name, rc, "".join(err_all[-5:])))
    if len(lat) < SNAPS:
        raise Fail("%s: the recorder ended after %d of %d snapshots" % (name, len(lat), SNAPS))
    files = [f for _, f in lines]
    st = []
    for f in files:
        path = f if os.path.isabs(f) else os.path.join(SCRATCH, f)
        if not os.path.exists(path):
            raise Fail("%s: snapshot file %s is missing" % (name, f))
        st.append(stats_of(path))
        os.unlink(path)
    for f in os.listdir(SCRATCH):
        if f.startswith(prefix):
            os.unlink(os.path.join(SCRATCH, f))
    # file k+1 carries the LOST record of snapshot k's pause
    return {"lat": lat, "lost": [s["lost"] for s in st[1:]], "bytes": [s["bytes"] for s in st],
            "samples": [s["samples"] for s in st]}


def part():
    need("--overwrite", "the flight recorder")
    need("--switch-output", "snapshots on SIGUSR2 (--switch-output=signal)")
    need("--snapshot-pause", "PAUSE_OUTPUT snapshots (--snapshot-pause)")
    log("flight recorder: %d snapshots x %d repetitions x %d recorders" % (SNAPS, REPS, len(CONFIGS)))
    res = {name: {"lat": [], "lost": [], "bytes": [], "samples": []} for name, _, _ in CONFIGS}
    for rep in range(REPS):
        for c in CONFIGS:		# interleaved: A B C A B C
            r = one(*c, rep)
            for k in r:
                res[c[0]][k] += r[k]
            log("flight recorder: %s, repetition %d of %d: median latency %.1f ms, "
                "%d lost" % (c[0], rep + 1, REPS, median(r["lat"]) * 1e3, sum(r["lost"])))
    rows = []
    for name, _, _ in CONFIGS:
        r = res[name]
        lat = [x * 1e3 for x in r["lat"]]
        rows.append([name, len(lat), "%.0f" % mean(r["lost"]), "%d" % max(r["lost"]),
                     "%.1f" % median(lat), "%.1f" % mean(lat), "%.1f" % max(lat),
                     fmt_bytes(mean(r["bytes"])), "%.0f" % mean(r["samples"])])
    text = "## 4. Flight recorder: snapshot with PAUSE_OUTPUT against pause-free\n\n"
    text += ("`%s` on CPU 0 recorded with `raw_syscalls:*`, `--overwrite "
             "--switch-output=signal -m %s`, recorder on CPU 1; %d snapshots per run, %d runs "
             "per recorder (interleaved), a snapshot every %d ms after the previous one "
             "finished. lost per snapshot = samples in the PERF_RECORD_LOST records of the "
             "next snapshot file. latency = SIGUSR2 to the recorder's line naming the "
             "snapshot file.\n\n" % (" ".join(WORKLOAD[:4]), BUF, SNAPS, REPS, GAP * 1e3))
    text += md_table(["recorder", "snapshots", "lost / snapshot", "max lost", "latency median ms",
                      "mean ms", "max ms", "bytes / snapshot", "samples / snapshot"], rows,
                     ["---"] + ["---:"] * 8)
    write_md("flight.md", text)
    save("flight", res)


if __name__ == "__main__":
    main(part)
