# SPDX-License-Identifier: GPL-2.0
"""Part 10: how much shorter a flight recorder's window gets with call chains.

cg-tree (main -> top -> mid -> leaf, 5 user frames) recorded by perf-ring,
streaming, at perf's default 4 kHz, with no chains, -g, --call-graph dwarf
and dwarf,65528.  Bytes per sample come from the data size and the sample
count; the window of a 512 KiB buffer on one CPU is
(512 KiB - margin) / bytes per sample / 4000, the margin being the
snapshot's safety margin for the mode's largest record (perf-ring record
-v prints it).  A dwarf,65528 record needs a 1 MiB buffer."""

import os
import re

from bench_lib import (Fail, PERF_RING, QUICK, SCRATCH, TOOLS, log, main, md_table, rm, run,
                       save, stats_of, write_md)

SECS = "1" if QUICK else "2"
CG = os.path.join(TOOLS, "cg-tree")
CG_NOFP = os.path.join(TOOLS, "cg-tree-nofp")
MODES = [("(none)", CG, [], 512), ("-g", CG, ["-g"], 512),
         ("--call-graph dwarf", CG_NOFP, ["--call-graph", "dwarf"], 512),
         ("--call-graph dwarf,65528", CG_NOFP, ["--call-graph", "dwarf,65528"], 1024)]
MARGIN = re.compile(r"snapshot margin (\d+) bytes")


def part():
    rows, data = [], {}
    for mode, prog, opts, kib in MODES:
        f = os.path.join(SCRATCH, "window.data")
        rm(f)
        # the margin of an overwrite buffer of this size, from -v
        _, _, _, err = run([PERF_RING, "record", "-v", "--overwrite", "-m", "%dK" % kib,
                            "-e", "cpu-clock", "-o", f] + opts + ["--", "true"])
        m = MARGIN.search(err)
        if not m:
            raise Fail("perf-ring record -v does not print the snapshot margin: %s" %
                       err.strip()[-200:])
        margin = int(m.group(1))
        rm(f)
        run([PERF_RING, "record", "-q", "-e", "cpu-clock", "-o", f] + opts +
            ["--", prog, SECS])
        st = stats_of(f)
        size = os.path.getsize(f)
        rm(f)
        # the data section: the file less its header and features is close
        # enough at these sizes; the sample records dominate it
        per = size / max(st["samples"], 1)
        holds = (kib * 1024 - margin) / per
        rows.append([mode, "%.0f" % per, "%.0f" % (1024 * 1024 / per), "%d KiB" % kib,
                     str(margin), "%.0f (%s)" % (holds, fmt_time(holds / 4000))])
        data[mode] = {"bytes_per_sample": per, "margin": margin, "buffer_kib": kib,
                      "holds": holds}
        log("window: %s: %.0f bytes a sample, margin %d" % (mode, per, margin))
    text = "## 10. The flight recorder's window with call chains\n\n"
    text += ("`perf-ring record -q -e cpu-clock MODE -o F -- cg-tree %s` (cg-tree-nofp "
             "for dwarf), streaming; bytes per sample = file size / samples (the header "
             "and features are a few kB of it). The margin is what `perf-ring record -v "
             "--overwrite` prints for that mode and buffer; the buffer holds (size - "
             "margin) / bytes per sample, at perf's default 4 kHz on one CPU.\n\n" % SECS)
    text += md_table(["mode", "bytes/sample", "samples per MiB", "buffer", "margin",
                      "buffer holds (window)"], rows, ["---"] + ["---:"] * 5)
    write_md("window.md", text)
    save("window", data)


def fmt_time(s):
    return "%.1f s" % s if s >= 1 else "%.0f ms" % (s * 1e3)


if __name__ == "__main__":
    main(part)
