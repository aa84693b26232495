#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Start-up and build-id collection against the number of DSOs a process
maps: perf-ring record against Debian's perf record, in user-space
instructions (valgrind --tool=callgrind).

bench/dso_holder.c dlopen()s D generated shared libraries (D = 10, 1000,
10000; SCALE_DSOS overrides): one small library built once, copied D times
with a different build-id note each, so every copy is its own DSO.  Each
tool records sched:sched_process_exit of the holder (-p) for "sleep 0.1",
with build-ids (the default; PERF_BUILDID_DIR points at a scratch
directory) and without (-B); the difference is the build-id collection.
perf report --stdio on each tool's file is timed natively (wall clock,
shared machine: indicative).

    python3 scripts/perf_ring/bench_scale_dsos.py

writes bench/results/scale-dsos.md and scale-dsos.png."""

import hashlib
import os
import re
import shutil
import subprocess
import time

import bench_lib as B

SIZES = [int(x) for x in os.environ.get("SCALE_DSOS", "10 1000 10000").split()]
EVENT = "sched:sched_process_exit"
LIB_C = "int scale_dso_fn(int x) { return x * 3 + 1; }\n"


NOTE = """
perf's "build-ids" column is below this method's resolution: perf record
polls while `sleep 0.1` runs, and its instruction count moves by up to
about 15 M from run to run (compare two runs of this script), so the
difference of its two runs is noise; perf-ring's counts repeat to within
0.1%.  No goal row for perf.  perf-ring puts every mapped DSO into the
build-id cache ("cached"), perf only those with samples (none here): most
of perf-ring's build-id instructions at 10,000 DSOs are that cache.
"""


def make_libs(d, n):
    """n copies of one library, each with its own build-id; their paths."""
    os.makedirs(d, exist_ok=True)
    src, proto = os.path.join(d, "lib.c"), os.path.join(d, "proto.so")
    with open(src, "w") as f:
        f.write(LIB_C)
    B.run(["gcc", "-O2", "-shared", "-fPIC", "-Wl,--build-id=sha1", "-o", proto, src])
    out = B.run(["readelf", "-n", proto])[2]
    m = re.search(r"Build ID: ([0-9a-f]{40})", out)
    if not m:
        raise B.Fail("no build-id in the generated library")
    bid = bytes.fromhex(m.group(1))
    data = open(proto, "rb").read()
    if data.count(bid) != 1:
        raise B.Fail("the build-id appears %d times in the library" % data.count(bid))
    paths = []
    for i in range(n):
        p = os.path.join(d, "libscale%05d.so" % i)
        if not os.path.exists(p):
            with open(p, "wb") as f:
                f.write(data.replace(bid, hashlib.sha1(b"scale-dso-%d" % i).digest()))
        paths.append(p)
    return paths


def holder(exe, paths):
    p = subprocess.Popen([exe, "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write("\n".join(paths) + "\n")
    p.stdin.close()
    line = p.stdout.readline().split()
    if line[:1] != ["ready"]:
        p.kill()
        raise B.Fail("dso_holder did not load %d libraries" % len(paths))
    return p


def record(tool, pid, out, nobid):
    return ([B.PERF_RING if tool == "perf-ring" else "perf", "record"] + (["-B"] if nobid else []) +
            ["-e", EVENT, "-p", str(pid), "-o", out, "--", "sleep", "0.1"])


def callgrind(cmd, env):
    cg = os.path.join(B.SCRATCH, "scale-dsos.cg")
    _, rc, _, err = B.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg] + cmd,
                          timeout=3000, check=False, env=env)
    B.rm(cg)
    m = re.search(r"Collected : (\d+)", err)
    if rc or not m:
        raise B.Fail("%s under callgrind: exit %d\n%s" % (cmd[0], rc, err[-400:]))
    return int(m.group(1))


def main():
    os.makedirs(B.SCRATCH, exist_ok=True)
    libdir = os.path.join(B.SCRATCH, "scale-dsos-libs")
    exe = os.path.join(B.SCRATCH, "dso_holder")
    B.run(["gcc", "-O2", "-o", exe, os.path.join(B.ROOT, "bench", "dso_holder.c"), "-ldl"])
    B.log("scale-dsos: generating %d libraries" % max(SIZES))
    paths = make_libs(libdir, max(SIZES))
    res = {}
    for n in SIZES:
        h = holder(exe, paths[:n])
        try:
            for tool in ("perf-ring", "perf"):
                bdir = os.path.join(B.SCRATCH, "scale-dsos-bid-" + tool)
                env = dict(os.environ, PERF_BUILDID_DIR=bdir)
                out = os.path.join(B.SCRATCH, "scale-dsos-%s.data" % tool)
                r = {}
                for nobid in (True, False):
                    shutil.rmtree(bdir, ignore_errors=True)
                    B.log("scale-dsos: %s%s, %d DSOs" % (tool, " -B" if nobid else "", n))
                    r["B" if nobid else "bid"] = callgrind(record(tool, h.pid, out, nobid), env)
                ncache = sum(len(f) for _, _, f in os.walk(bdir)) if os.path.isdir(bdir) else 0
                shutil.rmtree(bdir, ignore_errors=True)
                t = time.perf_counter()
                B.run(["perf", "report", "--stdio", "-i", out], timeout=1200, env=env)
                r["report"] = time.perf_counter() - t
                r["cache"] = ncache
                res[(tool, n)] = r
                B.rm(out)
        finally:
            h.kill()
            h.wait()
    rows, dat = [], []
    for n in SIZES:
        pr, pf = res[("perf-ring", n)], res[("perf", n)]
        rows.append(["{:,}".format(n),
                     "{:,}".format(pr["B"]), "{:,}".format(pr["bid"] - pr["B"]), str(pr["cache"]),
                     "%.2f" % pr["report"],
                     "{:,}".format(pf["B"]), "{:,}".format(pf["bid"] - pf["B"]), str(pf["cache"]),
                     "%.2f" % pf["report"],
                     "%.3f" % (pr["bid"] / pf["bid"])])
        dat.append("%d %d %d %d %d" % (n, pr["B"], pr["bid"] - pr["B"], pf["B"], pf["bid"] - pf["B"]))
    lo, hi = SIZES[0], SIZES[-1]
    goals = []
    for tool in ("perf-ring",):
        a, b = res[(tool, lo)], res[(tool, hi)]
        mid = res[(tool, SIZES[-2])] if len(SIZES) > 2 else a
        # per-DSO cost of the last step against the step before
        s1 = (mid["bid"] - a["bid"]) / (SIZES[-2] - lo) if len(SIZES) > 2 else None
        s2 = (b["bid"] - mid["bid"]) / (hi - SIZES[-2]) if len(SIZES) > 2 else None
        if s1 and s2:
            goals.append(["%s: start-up no faster than linear in DSOs (instructions per DSO "
                          "from %s to %s over those from %s to %s; met up to 1.10)"
                          % (tool, "{:,}".format(SIZES[-2]), "{:,}".format(hi), "{:,}".format(lo),
                             "{:,}".format(SIZES[-2])),
                          "%.2f" % (s2 / s1), "met" if s2 / s1 <= 1.10 else "missed"])
    B.plot("scale-dsos", dat,
           "Recording a process with D DSOs mapped (user-space instructions, callgrind)",
           "DSOs mapped", "instructions",
           """"{dat}" using 1:2 with linespoints title "perf-ring -B", \\
     "{dat}" using 1:($2+$3) with linespoints title "perf-ring with build-ids", \\
     "{dat}" using 1:4 with linespoints title "perf -B", \\
     "{dat}" using 1:($4+$5) with linespoints title "perf with build-ids\"""",
           "set logscale xy\nset key top left")
    perf_v = subprocess.run(["perf", "version"], capture_output=True, text=True).stdout.strip()
    text = ("# Start-up and build-ids against the DSOs mapped\n\n"
            "Command: `make bench-scale` (scripts/perf_ring/bench_scale_dsos.py), on the "
            "host (%s; %s).\n\n"
            "A process (bench/dso_holder.c) has D generated libraries dlopen()ed, each "
            "with its own build-id.  Each tool records %s of it (-p) for `sleep 0.1`, "
            "under `valgrind --tool=callgrind` (the tool's own user-space instructions), "
            "with -B (no build-ids: synthesis and the rest of start-up) and without "
            "(\"build-ids\": the extra instructions of collecting them).  \"cached\": "
            "files the tool put in the build-id cache (PERF_BUILDID_DIR).  perf report: "
            "`perf report --stdio` on the tool's file, one native run, wall seconds "
            "(shared machine: indicative).\n\n" % (os.uname().release, perf_v, EVENT))
    text += B.md_table(["DSOs", "perf-ring -B", "build-ids", "cached", "perf report s",
                        "perf -B", "build-ids", "cached", "perf report s",
                        "perf-ring/perf with build-ids"], rows)
    text += "\n![plot](scale-dsos.png)\n\n## Goals\n\n"
    text += B.md_table(["goal", "figure", "verdict"], goals, ["---", "---:", "---"])
    text += NOTE
    path = os.path.join(B.ROOT, "bench", "results", "scale-dsos.md")
    with open(path, "w") as f:
        f.write(text)
    shutil.rmtree(libdir, ignore_errors=True)
    B.log("wrote bench/results/scale-dsos.md and scale-dsos.png")


B.main(main)
