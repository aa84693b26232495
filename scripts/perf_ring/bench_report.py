# SPDX-License-Identifier: GPL-2.0
"""Join the parts' sections into bench.md: the machine, the goals of issues 5 and 6
with the measured values, then each part's tables.  A goal whose part did
not run, or broke, is "not measured"."""

import math
import os

from bench_lib import OUT, QUICK, ROOT, STATE, fmt_ratio, load, log, md_table, mean

SECTIONS = ["series.md", "vs-perf.md", "compression.md", "flight.md", "synthesis.md", "loss.md",
            "triggers.md", "callchains.md", "durable.md",
            "window.md", "loss-default.md", "snapshot-window.md"]


def machine():
    m = {}
    try:
        with open(os.path.join(STATE, "machine.env")) as f:
            for ln in f:
                k, _, v = ln.rstrip("\n").partition("=")
                m[k] = v
    except FileNotFoundError:
        pass
    return m


def upper_goal(p, target):
    """Goal "<= target" on a ratio with its interval."""
    if p is None:
        return "not measured"
    if math.isnan(p["lo"]):
        return "met (one run)" if p["ratio"] <= target else "missed (one run)"
    if p["hi"] <= target:
        return "met"
    if p["lo"] > target:
        return "missed"
    if target == 1.0:
        return "no measurable difference"
    return "undecided (interval covers %.2f)" % target


def lower_goal(p, target):
    """Goal ">= target"."""
    if p is None:
        return "not measured"
    if math.isnan(p["lo"]):
        return "met (one run)" if p["ratio"] >= target else "missed (one run)"
    if p["lo"] >= target:
        return "met"
    if p["hi"] < target:
        return "missed"
    return "undecided (interval covers %.2f)" % target


def goals():
    vs = load("vs_perf")
    fl = load("flight")
    sy = load("synth")
    rows = []
    g = vs["goals"] if vs else {}
    for mode in ("streaming", "-z1", "flight recorder"):
        p = g.get(mode, {}).get("overhead")
        v = upper_goal(p, 1.0)
        note = ""
        if p and v.startswith("missed"):
            note = ("perf-ring costs the workload more than perf on the shared CPU; "
                    "wall ratio %s" % fmt_ratio(g[mode]["wall"]))
        rows.append(["perf-ring overhead / perf record, %s" % mode, "<= 1.0",
                     fmt_ratio(p) if p else "-", v, note])
    p = g.get("floor")
    v = upper_goal(p, 1.05)
    rows.append(["flight-recorder overhead / kernel-only floor (RAWOVWRT, no reader)",
                 "<= 1.05", fmt_ratio(p) if p else "-", v,
                 "the floor is a process that only waits; perf-ring also polls and snapshots"
                 if v.startswith("missed") else ""])
    z = g.get("-z1", {})
    p = z.get("bytes")
    v = upper_goal(p, 1.0)
    note = ""
    if p:
        note = "bytes per recorded sample: %s" % fmt_ratio(z["bytes_per_sample"])
        if z["perf_lost"] or z["ring_lost"]:
            note += "; records were lost, so the files hold different samples"
    rows.append(["-z1 output bytes / perf record -z1, 128 pages", "<= 1.0",
                 fmt_ratio(p) if p else "-", v, note])
    zb = g.get("-z1, 16 MiB buffers")
    p = zb["bytes"] if zb else None
    note = ""
    if zb:
        note = "samples lost: perf %.0f, perf-ring %.0f (mean per run)" % (zb["perf_lost"],
                                                                         zb["ring_lost"])
    rows.append(["-z1 output bytes / perf record -z1, 16 MiB buffers (no records lost)",
                 "<= 1.0", fmt_ratio(p) if p else "-", upper_goal(p, 1.0), note])
    for mode in ("streaming", "-z1"):
        m = g.get(mode)
        if not m:
            rows.append(["records lost, %s" % mode, "0", "-", "not measured", ""])
            continue
        if m["perf_lost"] <= 0:
            rows.append(["records lost, %s" % mode, "0 where perf loses some",
                         "perf %.0f, perf-ring %.0f" % (m["perf_lost"], m["ring_lost"]),
                         "n/a: perf lost none", ""])
            continue
        ok = m["ring_lost"] == 0
        rows.append(["records lost, %s" % mode, "0 where perf loses some",
                     "perf %.0f, perf-ring %.0f (mean per run)" % (m["perf_lost"], m["ring_lost"]),
                     "met" if ok else "missed",
                     "" if ok else "perf loses records too: with the recorder and the workload "
                     "pinned to one CPU the reader runs only when the workload is preempted, "
                     "and 128 pages fill in about a millisecond"])
    lo = load("loss")
    if lo:
        runs = lo["runs"]
        pinned = [s for s in lo["sizes"] if "pinned perf -z1 -m " + s in runs]
        best = lo["met"][0] if lo["met"] else None
        where = ", ".join("%s: perf %.0f, perf-ring %.0f" % (
            s, mean(runs["pinned perf -z1 -m " + s]["lost"]),
            mean(runs["pinned perf-ring -z1 -m " + s]["lost"])) for s in pinned)
        rows.append(["records lost, -z1, %s close(-1), a buffer size where perf loses some" %
                     format(lo["calls"], ","), "0",
                     "met at %s" % best if best else "pinned, mean per run: " + where,
                     "met" if best else "missed",
                     ("perf lost records in at least half of %d runs there, perf-ring in none; pinned, "
                      "mean per run: %s" % (lo["rounds"], where)) if best else ""])
    else:
        rows.append(["records lost, -z1, a buffer size where perf loses some", "0", "-",
                     "not measured", ""])
    if fl:
        pf = fl.get("perf record (pauses)")
        pr = fl.get("perf-ring, pause-free")
        if pf and pr:
            pl = sum(pf["lost"]) / max(len(pf["lost"]), 1)
            rl = sum(pr["lost"]) / max(len(pr["lost"]), 1)
            rows.append(["records lost per snapshot (flight recorder)", "0 where perf loses some",
                         "perf %.0f, perf-ring %.0f" % (pl, rl),
                         ("met" if rl == 0 else "missed") if pl > 0 else "n/a: perf lost none",
                         ""])
    else:
        rows.append(["records lost per snapshot (flight recorder)", "0", "-", "not measured", ""])
    p = sy["speedup2"] if sy else None
    v = lower_goal(p, 1.7)
    note = ""
    if p and not v.startswith("met"):
        note = ("perf's own synthesis (perf bench) gets %.2fx from 2 threads on this machine; "
                "2 CPUs, load average %s at the start" %
                (sy["pb_speedup2"], machine().get("load_start", "?")))
    rows.append(["synthesis on 2 threads / 1 (speedup)", ">= 1.7", fmt_ratio(p) if p else "-",
                 v, note])
    return rows


def main():
    m = machine()
    text = "# make bench: perf_ring on the host kernel\n\n"
    text += ("Generated by `make bench%s` on %s. %s\n\n" %
             (" QUICK=1" if QUICK else "", m.get("date", "?"),
              "A QUICK run: few rounds and short loops, to exercise the harness; "
              "its timings mean little." if QUICK else
              "Method: Documentation/benchmarks/perf_ring.rst."))
    text += md_table(["machine", ""], [
        ["CPU", "%s, %s CPUs, %s" % (m.get("cpu", "?"), m.get("ncpu", "?"), m.get("mem", "?"))],
        ["virtualization", m.get("virt", "?")],
        ["kernel", m.get("kernel", "?")],
        ["perf", m.get("perf", "?")],
        ["tree (perf-ring built)", "%s (%s)" % (m.get("tree", "?"), m.get("perf_ring_built", "?"))],
        ["perf_event_paranoid", m.get("paranoid", "?")],
        ["output files on", m.get("scratch_fs", "?")],
        ["load average at start / end", "%s / %s" % (m.get("load_start", "?"), m.get("load_end", "?"))],
    ], ["---", "---"])
    if m.get("failed"):
        text += "\n**Parts that broke in this run: %s.**\n" % m["failed"]
    text += "\n## Goals (issues 5 and 6), measured side by side in this run\n\n"
    text += ("Ratios are means of per-round ratios with their 95% interval. A goal is met when "
             "the interval lies on the right side of it; where the interval covers 1.0 the "
             "verdict is \"no measurable difference\".\n\n")
    text += md_table(["comparison", "goal", "measured", "verdict", "what limits it / note"],
                     goals(), ["---", "---", "---:", "---", "---"])
    for s in SECTIONS:
        p = os.path.join(STATE, "section-" + s)
        if os.path.exists(p):
            with open(p) as f:
                text += "\n" + f.read()
        else:
            text += "\n## %s\n\nNot measured in this run (the part did not run or broke).\n" % s
    if os.path.exists(os.path.join(OUT, "analysis.md")) and not QUICK:
        text += "\nDiscussion of these results: [analysis.md](analysis.md).\n"
    text += "\nPlots: [overhead.png](overhead.png), [compression.png](compression.png), [loss.png](loss.png).\n"
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "bench.md"), "w") as f:
        f.write(text)
    log("wrote %s" % os.path.relpath(os.path.join(OUT, "bench.md"), ROOT))


if __name__ == "__main__":
    main()
