# SPDX-License-Identifier: GPL-2.0
"""Part 7: the time from a trigger to its snapshot, for each kind of trigger.

The flight recorder (--overwrite -m 4M, raw_syscalls:*) records a small
Python workload on CPU 0 that writes close() calls in a loop and, when the
harness asks it on its stdin, makes one kill(0, 0) call; the recorder runs
on CPU 1.  The harness starts a trigger and times until the recorder has
written the snapshot:

  signal   kill(SIGUSR2) to the recorder (--switch-output=signal)
  control  "snapshot" written to the --control fifo; perf-ring ctl's way
  event    the workload's kill(0, 0), a sys_enter_kill sample in the
           --switch-output-event buffer, read by the recorder at once

"Written" is the recorder's line naming the snapshot (printed once the
records are out, before the header is finished), for every kind, and for
control also the ack, which comes once the file is complete.  For the
event trigger the time starts when the harness asks the workload, so it
includes the workload's wake-up (a pipe read: tens of microseconds)."""

import os
import re
import select
import signal
import subprocess
import sys
import threading
import time

from bench_lib import (need, PERF_RING, QUICK, SCRATCH, SYSCALL_EVENTS, Fail, log, main,
                       md_table, mean, median, pin, save, sd, write_md)

N = int(os.environ.get("BENCH_TRIGGER_N", 5 if QUICK else 30))
GAP = 0.1
LINE = re.compile(r"\[ perf-ring: snapshot (\S+): ")
# close() in a loop; a line on stdin makes one kill(0, 0)
WORKLOAD = [sys.executable, "-S", "-c", """
import os, select, sys
while True:
    r, _, _ = select.select([0], [], [], 0)
    if r:
        if not os.read(0, 64):
            break
        os.kill(0, 0)
    for i in range(200):
        try:
            os.close(1000000)
        except OSError:
            pass
"""]
KINDS = ["signal", "control", "event"]


def one(kind):
    out = os.path.join(SCRATCH, "trig-%s.data" % kind)
    ctl = os.path.join(SCRATCH, "trig-ctl")
    ack = os.path.join(SCRATCH, "trig-ack")
    for f in (ctl, ack):
        if os.path.exists(f):
            os.unlink(f)
    opts = {"signal": ["--switch-output=signal"],
            "control": ["--control=fifo:%s,%s" % (ctl, ack)],
            "event": ["--switch-output-event=syscalls:sys_enter_kill"]}[kind]
    if kind == "control":
        os.mkfifo(ctl)
        os.mkfifo(ack)
    cmd = pin(1, [PERF_RING, "record", "--overwrite", "-m", "4M", "-e", SYSCALL_EVENTS,
                  "-o", out] + opts + ["--"] + pin(0, WORKLOAD))
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, errors="replace",
                         start_new_session=True)
    lines, cond, err_all = [], threading.Condition(), []

    def reader():
        for ln in p.stderr:
            err_all.append(ln)
            if LINE.search(ln):
                with cond:
                    lines.append(time.perf_counter())
                    cond.notify_all()
    th = threading.Thread(target=reader, daemon=True)
    th.start()
    lat, lat_ack = [], []
    cfd = afd = None
    try:
        time.sleep(0.8)			# started, buffers filled
        if kind == "control":
            cfd = os.open(ctl, os.O_WRONLY | os.O_NONBLOCK)
            afd = os.open(ack, os.O_RDONLY | os.O_NONBLOCK)
        for _ in range(N):
            if p.poll() is not None:
                break
            with cond:
                seen = len(lines)
                t0 = time.perf_counter()
                if kind == "signal":
                    os.kill(p.pid, signal.SIGUSR2)
                elif kind == "control":
                    os.write(cfd, b"snapshot\n")
                else:
                    p.stdin.write("x\n")
                    p.stdin.flush()
                if not cond.wait_for(lambda: len(lines) > seen, timeout=20):
                    raise Fail("%s: no snapshot 20 s after the trigger:\n%s" % (kind, "".join(err_all[-5:])))
                lat.append(lines[seen] - t0)
            if kind == "control":
                buf = b""
                while not buf.endswith(b"\n"):
                    r, _, _ = select.select([afd], [], [], 20)
                    if not r:
                        raise Fail("control: no ack in 20 s")
                    buf += os.read(afd, 4096)
                if not buf.startswith(b"ack "):
                    raise Fail("control: ack '%s'" % buf.decode(errors="replace").strip())
                lat_ack.append(time.perf_counter() - t0)
            time.sleep(GAP)
        p.stdin.close()			# the workload ends, the recorder takes its last snapshot
        rc = p.wait(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, 9)
            p.wait()
        for fd in (cfd, afd):
            if fd is not None:
                os.close(fd)
    th.join(timeout=5)
    if rc != 0:
        raise Fail("%s: perf-ring exited %d:\n%s" % (kind, rc, "".join(err_all[-5:])))
    if len(lat) < N:
        raise Fail("%s: %d snapshots of %d" % (kind, len(lat), N))
    for f in os.listdir(SCRATCH):
        if f.startswith("trig-"):
            os.unlink(os.path.join(SCRATCH, f))
    return lat, lat_ack


def part():
    need("--switch-output-event", "snapshots on an event (--switch-output-event)")
    need("--control", "the control channel (--control)")
    log("triggers: %d snapshots per kind: %s" % (N, ", ".join(KINDS)))
    res, rows = {}, []
    for kind in KINDS:
        lat, lat_ack = one(kind)
        ms = [x * 1e3 for x in lat]
        res[kind] = {"lat_ms": ms, "ack_ms": [x * 1e3 for x in lat_ack]}
        rows.append([kind, len(ms), "%.2f" % median(ms), "%.2f" % mean(ms), "%.2f" % sd(ms),
                     "%.2f" % min(ms), "%.2f" % max(ms),
                     "%.2f" % median(res[kind]["ack_ms"]) if lat_ack else "-"])
        log("triggers: %s: median %.2f ms" % (kind, median(ms)))
    text = "## 7. From a trigger to its snapshot\n\n"
    text += ("Flight recorder, `--overwrite -m 4M -e %s`, recorder on CPU 1, a Python loop of "
             "close() calls on CPU 0; %d snapshots per trigger kind, %d ms apart. Time from the "
             "trigger (SIGUSR2 sent; `snapshot` written to the control fifo; the harness asking "
             "the workload for its `kill(0, 0)`, the `--switch-output-event`) to the recorder's "
             "line naming the snapshot; for control also to the ack, sent once the file is "
             "complete. Each snapshot copies and writes 2 x 4 MiB of buffers.\n\n"
             % (SYSCALL_EVENTS, N, GAP * 1e3))
    text += md_table(["trigger", "snapshots", "median ms", "mean ms", "sd ms", "min ms", "max ms",
                      "ack median ms"], rows, ["---"] + ["---:"] * 7)
    write_md("triggers.md", text)
    save("triggers", res)


if __name__ == "__main__":
    main(part)
