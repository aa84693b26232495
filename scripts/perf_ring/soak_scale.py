#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make soak-scale: the duration dimension, on the host, wall clock.

For each tool (--tool: perf-ring, perf for perf record, or both, the
default), two recordings of SECONDS each (default 3600; SOAK_SCALE_SECONDS
or the first argument), one after the other:

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

perf record runs the same options (its --overwrite with --switch-output=60s
is its flight recorder's snapshot a minute).  The host kernel leaks the
MMAP2 build-id flag to other recorders, so perf-ring runs with -B (no
build-ids), whether perf runs beside it or not, to keep runs comparable.

--mmap-pages PAGES gives every recording -m PAGES (MMAP=PAGES in make): a
loop this fast fills a default buffer in milliseconds, and buffers sized
to its rate ride out a longer stall of the reader or the writer.

--run stream or --run flight makes only that recording (each tool's), and
--out NAME writes bench/results/NAME.md, .png and .dat instead of
scale-duration's, from its own --raw directory (build/bench/NAME): a run
of one recorder alone, kept beside the file of both tools.

--concurrent runs the recordings at once (all of them in one hour; on a
machine with other work each then competes with the others' workloads
too).  The binaries are copied to the scratch directory first, so that a
rebuild during the run does not change them.  Each sample is appended to
--raw's TOOL.dat as it is taken, and each recording's stderr, exit and
lost count go to TOOL-RUN.json when it ends; then bench/results/
scale-duration.md, .png and .dat are written from --raw, with both tools'
columns when both have been run.  --report writes them from --raw only
(two tools run by separate invocations)."""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import struct
import subprocess
import threading
import time

import bench_lib as B

EVERY = 10
LOOP = 'while :; do "$0" 1000000 >/dev/null; done'
SPAWN = 'while :; do /bin/true; sleep 0.01; done'
DUR = 0
BIN = {}
RAW = ""	# where the samples and each run's summary are kept as they come
RAW_LOCK = threading.Lock()
TOOLS = ("perf-ring", "perf")
RUNS = ("stream", "flight")
OUT = "scale-duration"	# the result files' name in bench/results
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


def lost_samples(path):
    """The sum of the PERF_RECORD_LOST_SAMPLES records at the top level of
    a perf.data file (the compressed records are stepped over), or None
    when it has none."""
    total, seen = 0, False
    with open(path, "rb") as f:
        h = f.read(104)
        if h[:8] != b"PERFILE2":
            raise ValueError("not a perf.data file")
        off, size = struct.unpack_from("<QQ", h, 40)
        pos, end = off, off + size
        while pos < end:
            f.seek(pos)
            r = f.read(16)
            if len(r) < 8:
                break
            typ, _, n = struct.unpack_from("<IHH", r)
            if n < 8:
                raise ValueError("record of %d bytes at %d" % (n, pos))
            if typ == 13 and len(r) >= 16:	# PERF_RECORD_LOST_SAMPLES
                total += struct.unpack_from("<Q", r, 8)[0]
                seen = True
            pos += n
    return total if seen else None


def keep(tool, name, p):
    """One sample, appended to the raw file at once: a run that is stopped
    or fails at the end keeps what it sampled."""
    with RAW_LOCK, open(os.path.join(RAW, tool + ".dat"), "a") as f:
        f.write("%s %.0f %d %d %d %.2f\n" % ((name,) + p))


def one(tool, name, args, workload):
    # named by this process: a second harness must not remove a running one's files
    d = os.path.realpath(os.path.join(B.SCRATCH, "soak-scale-%d-%s-%s" % (os.getpid(), tool, name)))
    subprocess.run(["rm", "-rf", d])
    os.makedirs(d)
    cmd = [BIN[tool], "record"] + args + ["-e", "raw_syscalls:*", "-o",
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
                keep(tool, name, pts[-1])
            if len(pts) % 30 == 1:
                B.log("soak-scale %s %s: %ds of %d, RSS %s kB, %s fds, load %s" %
                      (tool, name, time.time() - t0, DUR, s[0] if s else "?",
                       s[1] if s else "?", s[3] if s else "?"))
            k += 1	# on a fixed grid: the samples keep their phase to the snapshots
            STOP.wait(max(0, t0 + k * EVERY - time.time()))
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            pass
        # the workload's background loop outlives the recorder: end the
        # whole group the recorder leads (start_new_session), which is ours
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    err.seek(0)
    text = err.read()
    err.close()
    left = sorted(f for f in os.listdir(d) if f.startswith("s.data"))
    # perf record says nothing of what it lost; the file it writes last
    # ends with PERF_RECORD_LOST_SAMPLES, the kernel's count of each
    # event's lost samples over the whole run (PERF_FORMAT_LOST), outside
    # the compressed records, so the file's headers are enough
    final_lost = None
    if left:
        try:
            final_lost = lost_samples(os.path.join(d, left[-1]))
        except (OSError, ValueError, struct.error) as e:
            B.log("soak-scale %s %s: %s unreadable: %s" % (tool, name, left[-1], e))
    with open(os.path.join(RAW, "%s-%s.json" % (tool, name)), "w") as f:
        json.dump({"tool": tool, "run": name, "args": args, "rc": p.returncode,
                   "seconds": pts[-1][0] if pts else 0, "files": len(left),
                   "lost_samples_last_file": final_lost,
                   "stderr": text[-20000:]}, f, indent=1)
    subprocess.run(["rm", "-rf", d])
    # stopped: perf-ring stops the command with SIGTERM and, as perf record,
    # dies by the signal that ended the command, or the one that stopped it
    if p.returncode not in (0, 130, 143, -signal.SIGINT, -signal.SIGTERM):
        raise B.Fail("%s %s: exit %d\n%s" % (tool, name, p.returncode, text[-500:]))


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


def events_lost(tool, res):
    """(events, lost, where the lost count comes from)."""
    if tool == "perf-ring":
        m = re.search(r"([\d.]+[kMG]?) events, (\d+) lost", res["stderr"])
        if not m:
            return "?", None, "no summary line"
        return m.group(1), int(m.group(2)), "perf-ring's summary"
    return "-", res.get("lost_samples_last_file"), "LOST_SAMPLES"


def summarize(tool, name, pts, res):
    after = [p for p in pts if p[0] >= 60]
    rss, fds = minute_lows(pts, 1), minute_lows(pts, 2)
    if not rss:
        raise B.Fail("%s %s: not a whole minute sampled after the first" % (tool, name))
    drss = max(abs(v - rss[0]) for v in rss)
    dfd = max(fds) - fds[0]
    loads = [p[4] for p in pts]
    events, lost, _ = events_lost(tool, res)
    row = [tool, name, " ".join(res["args"]), "%d s" % res["seconds"],
           "%d (%d writing)" % (len(pts), sum(p[3] for p in pts)),
           "%d" % rss[0], fmt_range(rss), "%d" % drss, "%d" % max(p[1] for p in after),
           fmt_range(fds), "%d" % max(p[2] for p in after),
           "%.1f / %.1f / %.1f" % (min(loads), statistics.median(loads), max(loads)),
           events, "?" if lost is None else str(lost), str(res["files"])]
    who = tool if tool == "perf-ring" else "perf record (reference)"
    goals = [
        ["%s, %s: RSS within 1 MB (1024 kB) of its value after the first minute "
         "(the lowest sample of each minute)" % (who, name),
         "%d kB" % drss, "met" if drss <= 1024 else "missed"],
        ["%s, %s: fd count not growing after the first minute (the lowest of each minute)"
         % (who, name), "%+d" % dfd, "met" if dfd <= 0 else "missed"],
        ["%s, %s: lost 0" % (who, name), "?" if lost is None else str(lost),
         "not known" if lost is None else "met" if lost == 0 else "missed"],
    ]
    return row, goals


def copy_binaries(tools):
    d = os.path.join(B.SCRATCH, "soak-scale-%d-bin" % os.getpid())
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for src in (B.PERF_RING, B.CLOSE_LOOP):
        BIN[os.path.basename(src)] = shutil.copy2(src, d)
    BIN["perf"] = shutil.which("perf") or "perf"
    r = subprocess.run(["git", "-C", B.ROOT, "describe", "--always", "--dirty"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "?"


def load_raw(tool):
    """(meta, {run: (samples, result)}) of a tool from RAW, or None."""
    try:
        with open(os.path.join(RAW, tool + "-meta.json")) as f:
            meta = json.load(f)
        with open(os.path.join(RAW, tool + ".dat")) as f:
            lines = [ln.split() for ln in f if ln.strip() and not ln.startswith("#")]
    except FileNotFoundError:
        return None
    runs = {}
    for name in RUNS:
        try:
            with open(os.path.join(RAW, "%s-%s.json" % (tool, name))) as f:
                res = json.load(f)
        except FileNotFoundError:
            continue	# not ended: no summary
        pts = [(float(x[1]), int(x[2]), int(x[3]), int(x[4]), float(x[5]))
               for x in lines if x[0] == name]
        runs[name] = (pts, res)
    return meta, runs


def when(t):
    return time.strftime("%H:%M:%S UTC", time.gmtime(t))


def report():
    """bench/results/OUT.md, .png and .dat from RAW."""
    global EVERY
    have = {t: load_raw(t) for t in TOOLS}
    have = {t: v for t, v in have.items() if v and v[1]}
    if not have:
        raise B.Fail("nothing recorded in %s" % RAW)
    rows, goals, dat = [], [], ["# tool run seconds VmRSS_kB fds writing load1"]
    for name in RUNS:
        for tool in TOOLS:
            if tool not in have or name not in have[tool][1]:
                continue
            EVERY = have[tool][0]["every"]
            pts, res = have[tool][1][name]
            row, g = summarize(tool, name, pts, res)
            rows.append(row)
            goals += g
            for p in pts:
                dat.append("%s %s %.0f %d %d %d %.2f" % ((tool, name) + p))
    results = os.path.join(B.ROOT, "bench", "results")
    state = os.path.join(results, OUT + ".dat")
    with open(state, "w") as f:
        f.write("\n".join(dat) + "\n")
    png = os.path.join(results, OUT + ".png")
    curves = []
    for name, what in (("stream", "stream, --switch-output=1G --switch-max-files=3"),
                       ("flight", "flight recorder, a snapshot a minute")):
        for tool, dash in (("perf-ring", 1), ("perf", 2)):
            if tool in have and name in have[tool][1]:
                curves.append((tool, name, "%s, %s" % (tool, what), dash))
    cmds = {"rss": 4, "fds": 5}
    plots = []
    for what, col in cmds.items():
        plots.append(", \\\n     ".join(
            "\"< grep '^%s %s ' %s\" using 3:%d with lines dt %d lw 1.5 title \"%s\""
            % (t, n, state, col, dash, title) for t, n, title, dash in curves))
    subprocess.run(["gnuplot"], input="""
set terminal pngcairo size 900,760 font "sans,10" noenhanced
set output "%s"
set multiplot layout 2,1
set grid
set key outside bottom center horizontal maxrows 2
set title "RSS of the recorder over a long recording (sampled every %d s)"
set xlabel "seconds from the start of the tool's run"
set ylabel "VmRSS, kB"
plot %s
unset key
set title "open file descriptors of the recorder"
set ylabel "fds"
plot %s
unset multiplot
""" % (png, EVERY, plots[0], plots[1]), text=True, check=True)
    metas = [(t, have[t][0]) for t in TOOLS if t in have]
    how = []
    if len(metas) > 1 and all(m.get("cmd") and m.get("cmd") == metas[0][1].get("cmd") and
                              abs(m["start"] - metas[0][1]["start"]) < 5 for _, m in metas):
        metas = [("both tools", metas[0][1])]	# one invocation ran both
    for t, m in metas:
        how.append("%s: `%s`, started %s%s" % (
            t, m.get("cmd") or "python3 soak_scale.py %d%s --tool %s" % (
                m["seconds"], " --concurrent" if m["concurrent"] else "", t),
            when(m["start"]), ", ended %s" % when(m["end"]) if m.get("end") else ""))
    m0 = metas[0][1]
    text = ("# Duration: perf-ring and perf record over %d s\n\n"
            "Commands (scripts/perf_ring/soak_scale.py; `make soak-scale` runs it): %s; "
            "it writes this file from its samples (or `python3 soak_scale.py --report`).  perf-ring built from %s; %s.  "
            "On the host (%s, %d CPUs), wall clock: this dimension cannot run under "
            "icount.  The machine is shared (other sessions build kernels and boot "
            "QEMU on its 2 cores): the load column is the 1-minute load average "
            "over the run.  "
            "Each recording takes raw_syscalls:* of a loop of close-loop 1000000 "
            "runs; the flight recorder's also of a loop starting /bin/true every "
            "10 ms, whose side-band records make the side-band store compact.  "
            "perf-ring runs with -B: the host kernel leaks the MMAP2 build-id "
            "flag, and perf record aborts beside a recorder that asks for it.  "
            "The recorder's VmRSS and open fds sampled every %d s, with whether "
            "a perf-ring snapshot file was open (\"writing\": its .partial among "
            "the fds; perf writes no .partial, so its count is 0).  A sample that "
            "falls on a snapshot being written holds that file's descriptors and "
            "the writer's buffers for that moment (the peaks), so growth is "
            "measured on the lowest sample of each minute (a minute holds one "
            "snapshot), from the end of the first minute.  Lost: perf-ring's "
            "summary line; for perf record, which prints none, the sum of the "
            "PERF_RECORD_LOST_SAMPLES records that end its last file (the "
            "kernel's count of each event's lost samples over the whole run).  "
            "Samples: %s.dat (tool, run, seconds, VmRSS kB, fds, "
            "writing, load).\n\n"
            % (m0["seconds"], "; ".join(how), m0["built"], m0.get("perf", "perf ?"),
               m0["kernel"], m0["cpus"], EVERY, OUT))
    text += B.md_table(["tool", "run", "options", "length", "samples", "RSS at 1 min, kB",
                        "RSS, lowest of each minute, kB", "largest change, kB",
                        "RSS peak, kB", "fds, lowest of each minute", "fds peak",
                        "load min / median / max", "events", "lost", "files left"],
                       rows, ["---", "---"] + ["---:"] * 13)
    text += "\n![plot](%s.png)\n\n## Goals\n\n" % OUT
    text += ("The goals are perf-ring's; perf record's rows are the same "
             "measures, for reference.\n\n")
    text += B.md_table(["goal", "figure", "verdict"], goals, ["---", "---:", "---"])
    path = os.path.join(results, OUT + ".md")
    with open(path, "w") as f:
        f.write(text)
    B.log("wrote bench/results/%s.md, .png and .dat" % OUT)


def out_name(v):
    """--out: a file name in bench/results, no directory, no extension."""
    if not re.fullmatch(r"scale-[a-z0-9-]+", v):
        raise argparse.ArgumentTypeError("%r: a name such as scale-duration-alone" % v)
    return v


def pages(v):
    """--mmap-pages: a power of two of pages, as -m takes them."""
    try:
        n = int(v)
    except ValueError:
        n = 0
    if n <= 0 or n & (n - 1):
        raise argparse.ArgumentTypeError("%r: a power of two of pages" % v)
    return n


def main():
    global DUR, EVERY, RAW, OUT
    ap = argparse.ArgumentParser(description="make soak-scale: the duration dimension")
    ap.add_argument("seconds", nargs="?", type=int,
                    default=int(os.environ.get("SOAK_SCALE_SECONDS", "3600")))
    ap.add_argument("--concurrent", action="store_true",
                    help="run the recordings at once")
    ap.add_argument("--every", type=int, default=EVERY, help="seconds between samples")
    ap.add_argument("--tool", choices=TOOLS + ("both",), default="both",
                    help="the recorder measured (perf is perf record)")
    ap.add_argument("--run", choices=RUNS + ("both",), default="both",
                    help="the recording made (each tool's)")
    ap.add_argument("--out", default=OUT, type=out_name,
                    help="the result files' name in bench/results")
    ap.add_argument("--raw", help="directory for the samples and each run's summary "
                    "(build/bench/soak-scale, or build/bench/OUT with --out)")
    ap.add_argument("--report", action="store_true",
                    help="only write the result files from --raw")
    ap.add_argument("--mmap-pages", type=pages, metavar="PAGES",
                    help="-m PAGES for every recording: buffers sized to the loop's rate "
                    "(default: each tool's own)")
    a = ap.parse_args()
    DUR, EVERY, OUT = a.seconds, a.every, a.out
    RAW = a.raw or os.path.join(B.BUILD, "bench",
                                "soak-scale" if OUT == "scale-duration" else OUT)
    if a.report:
        report()
        return
    tools = TOOLS if a.tool == "both" else (a.tool,)
    os.makedirs(B.SCRATCH, exist_ok=True)
    os.makedirs(RAW, exist_ok=True)
    built = copy_binaries(tools)
    perf_version = subprocess.run([BIN["perf"], "--version"], capture_output=True,
                                  text=True).stdout.strip()
    for tool in tools:
        for f in [tool + ".dat", tool + "-meta.json"] + ["%s-%s.json" % (tool, n) for n in RUNS]:
            B.rm(os.path.join(RAW, f))
        with open(os.path.join(RAW, tool + "-meta.json"), "w") as f:
            json.dump({"tool": tool, "built": built, "seconds": DUR, "every": EVERY,
                       "concurrent": a.concurrent, "start": time.time(),
                       "cmd": "make soak-scale SECONDS=%d%s TOOL=%s%s%s" % (
                           DUR, " CONCURRENT=1" if a.concurrent else "", a.tool,
                           "" if a.run == "both" else " RUN=" + a.run,
                           "" if OUT == "scale-duration" else " OUT=" + OUT) +
                       (" MMAP=%d" % a.mmap_pages if a.mmap_pages else ""),
                       "kernel": os.uname().release, "cpus": os.cpu_count(),
                       "perf": perf_version}, f, indent=1)
    loop = ["sh", "-c", LOOP, BIN["close-loop"]]
    runs = []
    for tool in tools:
        # the host kernel leaks the MMAP2 build-id flag to other recorders:
        # perf-ring runs with -B so that perf record can run beside it
        xb = ["-B"] if tool == "perf-ring" else []
        if a.mmap_pages:
            xb += ["-m", str(a.mmap_pages)]
        runs += [r for r in (
            (tool, "stream", xb + ["-z", "--switch-output=1G", "--switch-max-files=3"], loop),
            (tool, "flight", xb + ["--overwrite", "-z", "--switch-output=60s"],
             ["sh", "-c", LOOP + " & " + SPAWN, BIN["close-loop"]]),
        ) if a.run in ("both", r[1])]
    if a.concurrent:
        errs = []

        def run(*r):
            try:
                one(*r)
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
        for r in runs:
            one(*r)
    for tool in tools:
        path = os.path.join(RAW, tool + "-meta.json")
        with open(path) as f:
            meta = json.load(f)
        meta["end"] = time.time()
        with open(path, "w") as f:
            json.dump(meta, f, indent=1)
    shutil.rmtree(os.path.dirname(BIN["perf-ring"]), ignore_errors=True)
    B.log("soak-scale: samples and summaries kept in %s" % RAW)
    report()


B.main(main)
