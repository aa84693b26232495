#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The side-band store's compaction, before and after it became log-linear,
in instructions (valgrind --tool=callgrind; deterministic).

bench/sideband_compact.c fills the store with N exited processes to its
bound ("fill"), or does that and then one compaction ("compact"); the
difference of the two is one compaction.  It is linked once with
tools/perf_ring/sideband.c of BASE (default: the commit before the
log-linear compaction) and once with the work tree's.

    python3 scripts/perf_ring/bench_scale_sideband.py [BASE]

writes bench/results/scale-sideband.md."""

import math
import os
import re
import subprocess
import sys
import tempfile

import bench_lib as B

BASE = sys.argv[1] if len(sys.argv) > 1 else "0965f12"
SIZES = [1000, 2000, 5000, 10000, 20000]
SRC = os.path.join(B.ROOT, "tools", "perf_ring")
LIBS = ["-lbpf", "-lelf", "-lz", "-lzstd", "-luring", "-lpthread"]


def build(tmp, name, sideband_dir):
    """The driver linked with the sideband.c of sideband_dir and the rest of
    the built library (make -C tools/perf_ring first)."""
    objs = [os.path.join(B.TOOLS, f) for f in sorted(os.listdir(B.TOOLS))
            if f.endswith(".o") and f not in ("sideband.o", "perf-ring.o", "close-loop.o",
                                              "watch-loop.o", "bpf-spin.o")
            and not f.startswith("cg-tree")]
    sb = os.path.join(tmp, name + "-sideband.o")
    exe = os.path.join(tmp, name)
    inc = ["-I" + sideband_dir, "-I" + SRC]
    B.run(["gcc", "-O2", "-g", "-std=gnu11", "-D_GNU_SOURCE"] + inc +
          ["-c", "-o", sb, os.path.join(sideband_dir, "sideband.c")])
    B.run(["gcc", "-O2", "-g", "-std=gnu11", "-D_GNU_SOURCE"] + inc +
          ["-o", exe, os.path.join(B.ROOT, "bench", "sideband_compact.c"), sb] + objs + LIBS)
    return exe


def instructions(tmp, exe, n, mode):
    out = os.path.join(tmp, "cg.out")
    _, _, so, se = B.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                          exe, str(n), mode], timeout=3600)
    m = re.search(r"Collected : (\d+)", se)
    if not m:
        raise B.Fail("no instruction count from callgrind:\n" + se[-300:])
    os.unlink(out)
    return int(m.group(1)), so.strip()


def main():
    with tempfile.TemporaryDirectory() as tmp:
        old = os.path.join(tmp, "old")
        os.mkdir(old)
        for f in ("sideband.c", "sideband.h"):
            with open(os.path.join(old, f), "w") as fh:
                fh.write(subprocess.check_output(
                    ["git", "-C", B.ROOT, "show", "%s:tools/perf_ring/%s" % (BASE, f)], text=True))
        exes = {"before": build(tmp, "before", old), "after": build(tmp, "after", SRC)}
        rows, res = [], {}
        for n in SIZES:
            row = [str(n)]
            for k in ("before", "after"):
                B.log("scale-sideband: %s, %d processes" % (k, n))
                fill, _ = instructions(tmp, exes[k], n, "fill")
                comp, line = instructions(tmp, exes[k], n, "compact")
                res[(k, n)] = comp - fill
                row += ["{:,}".format(comp - fill), line.split("dropped=")[1].split()[0]]
            row.append("%.2f" % (res[("before", n)] / res[("after", n)]))
            rows.append(row)
    growth = []
    for a, b in zip(SIZES, SIZES[1:]):
        growth.append(["%d -> %d (x%.1f)" % (a, b, b / a),
                       "%.2f" % (res[("before", b)] / res[("before", a)]),
                       "%.2f" % (res[("after", b)] / res[("after", a)])])
    big, small = SIZES[-1], SIZES[0]
    r_after = res[("after", big)] / res[("after", small)]
    lin = big / small
    nlogn = lin * math.log2(big) / math.log2(small)
    text = ("# The side-band store's compaction at scale\n\n"
            "Instructions of one compaction of a store full of N exited processes "
            "(COMM, MMAP2 and EXIT each; the bound is exactly N processes, so one "
            "compaction drops the N/4 that exited first), counted by "
            "`valgrind --tool=callgrind` (deterministic): the run that compacts "
            "once minus the run that only fills.  Before: sideband.c of %s "
            "(each dropped pid summed with a pass over all records, and each record "
            "compared with every dropped pid: O(records x dropped)); after: the "
            "work tree's (the exited pids sorted by pid, their bytes summed in one "
            "pass, each record looked up by binary search: O(records x log exited)).\n\n"
            "Command: `python3 scripts/perf_ring/bench_scale_sideband.py %s` "
            "(after `make -C tools/perf_ring`), driver bench/sideband_compact.c.\n\n"
            % (BASE, BASE))
    text += B.md_table(["processes", "before, instructions", "records dropped",
                        "after, instructions", "records dropped", "before/after"], rows)
    text += "\nGrowth of one compaction's instructions from one size to the next:\n\n"
    text += B.md_table(["size step", "before", "after"], growth)
    text += ("\nGoal: linear or log-linear.  From %d to %d processes (x%.0f) the "
             "compaction's instructions grow x%.1f: %s (n log n grows x%.1f; "
             "met within 10%% of that).  The store's default bound (SIDEBAND_MAX, "
             "4 MiB) holds about 16,000 such processes (264 bytes each).  The unit test tests/test-sideband.c (\"compaction "
             "at 20,000 exited processes\") counts the compaction's steps at 2,000 and "
             "20,000 and fails above x20.\n"
             % (small, big, lin, r_after, "met" if r_after <= nlogn * 1.1 else "missed", nlogn))
    path = os.path.join(B.ROOT, "bench", "results", "scale-sideband.md")
    with open(path, "w") as f:
        f.write(text)
    B.log("wrote bench/results/scale-sideband.md")


B.main(main)
