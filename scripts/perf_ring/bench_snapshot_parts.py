#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make qemu-bench PART=snapprof: where the instructions of one perf-ring
snapshot go, by part, under QEMU -icount at -smp 1 and 16 (SNAP_CPUS).

Each boot runs guest-bench.sh's snapprof part: perf-ring -a --overwrite
-m 16 with 20 snapshots against the same run with none, profiled with
cpu-clock every 5000 instructions and call graphs (the recorder and its
children only), once as it runs by default and once with --exclude-perf;
and each run's system calls counted by name.  The difference of the two
runs, over 20, is one snapshot; the difference of the two variants is
the kernel recording the recorder's own system calls, which an -a
recording of raw_syscalls:* sees as it sees every other process's.

Writes bench/results/scale-snapshot-parts.md (SNAP_OUT=NAME: NAME.md).
REUSE=1 rebuilds it from the last boots' console logs.
"""

import os
import re
import subprocess
import sys
import time

import bench_lib as B

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("PR_BUILD", os.path.join(ROOT, "build"))
# -m of the recording: SNAP_M pages a CPU (16 by default; the loop before
# the snapshots fills them)
SNAP_M = int(os.environ.get("SNAP_M", "16"))
def loop(n):
    """cpu_loop's calls at n CPUs: enough to fill every CPU's buffer."""
    return max(1000, SNAP_M * 4096 // 200 * n)
RAW = os.path.join(BUILD, "qemu-snapprof" + ("" if SNAP_M == 16 else "-m%d" % SNAP_M))
RES = os.path.join(ROOT, "bench", "results")
CPUS = [int(x) for x in os.environ.get("SNAP_CPUS", "1 16").split()]
OUT = os.environ.get("SNAP_OUT", "scale-snapshot-parts")
NR_CPUS = 64
TMO = 3600
TOP = 15
# Kernel entry points whose call-graph totals (children) name a part.
GROUPS = [
    ("system calls, all (entry_SYSCALL_64)", "entry_SYSCALL_64_after_hwframe"),
    ("of them, the tracepoints' records (perf_tp_event)", "perf_tp_event"),
    ("io_uring's worker: the file's writes (io_wq_worker)", "io_wq_worker"),
    ("page faults (asm_exc_page_fault)", "asm_exc_page_fault"),
    ("timer interrupts (asm_sysvec_apic_timer_interrupt)", "asm_sysvec_apic_timer_interrupt"),
]
T0 = time.time()


def log(msg):
    print("[%5.0fs] %s" % (time.time() - T0, msg), file=sys.stderr, flush=True)


def die(msg):
    print("bench_snapshot_parts: " + msg, file=sys.stderr)
    sys.exit(1)


def boot(n, logf):
    return B.qemu_boot("snapprof", n, logf, 1024 + 48 * n, TMO, "perf_ring.snapm=%d" % SNAP_M,
                       nr_cpus=NR_CPUS)


def parse(logf):
    """{(variant, run, report): {sym: samples}}, {run: {syscall: n}},
    the # line, the profiled runs' status lines, the measured runs."""
    rep, sysc, head, runs, meas, cur = {}, {}, "", {}, {}, None
    with open(logf, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = re.match(r"SNAPPROF_BEGIN (\S+) (\S+) (\S+)", line)
            if m:
                cur = rep.setdefault(m.groups(), {})
                continue
            if line.startswith("SNAPPROF_END"):
                cur = None
                continue
            if cur is not None:
                p = line.split()
                if len(p) >= 4 and p[0].endswith("%"):
                    if p[1].endswith("%"):	# children: Children% Self% Samples [k] sym
                        cur[" ".join(p[4:])] = float(p[0][:-1])
                    else:			# no-children: Overhead% Samples [k] sym
                        cur[p[2] + " " + " ".join(p[3:])] = int(p[1])
                continue
            m = re.match(r"syscalls run=(\S+) (\S+) (\d+)", line)
            if m:
                sysc.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
            elif line.startswith("# snapprof:"):
                head = line[2:]
            elif line.startswith("snapprof variant="):
                kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
                runs[(kv["variant"], kv["run"])] = kv
            elif line.startswith("snapm variant="):
                kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
                meas[(kv["variant"], kv["run"])] = kv
    return rep, sysc, head, runs, meas


def per_snap(samples, per, snaps):
    return samples * per / snaps / 1e6


def measured(n, meas):
    """The measured table: busy instructions, bytes and IPIs per snapshot
    taken (a request that comes while one is written waits, and requests
    that wait together make one snapshot)."""
    md = ["Measured (`rec_run -b`: the guest's busy instructions, every vCPU's; the IPIs "
          "are CAL in /proc/interrupts):", "",
          "| variant | snapshots taken | M instructions per snapshot | bytes per snapshot "
          "| function-call IPIs per snapshot |", "| --- | ---: | ---: | ---: | ---: |"]
    for v, name in (("own", "as it runs"), ("exclude", "`--exclude-perf`")):
        s, ns = meas.get((v, "snap")), meas.get((v, "nosnap"))
        if not s or not ns or s.get("status") != "0" or ns.get("status") != "0":
            die("-smp %d: the measured %s runs are missing or failed" % (n, v))
        k = int(s["files"]) - int(ns["files"])
        if k <= 0:
            die("-smp %d: the %s run took no snapshot" % (n, v))
        md.append("| %s | %d of %s | %.3f | %s | %.1f |" % (
            name, k, s["snaps"], (int(s["busy"]) - int(ns["busy"])) / k / 1e6,
            "{:,.0f}".format((int(s["fbytes"]) - int(ns["fbytes"])) / k),
            (int(s["ipi"]) - int(ns["ipi"])) / k))
    return md + [""]


def section(n, logf):
    rep, sysc, head, runs, meas = parse(logf)
    m = re.search(r"(\d+) snapshots, cpu-clock every (\d+)", head)
    if not m:
        die("-smp %d: the console log %s has no snapprof output" % (n, logf))
    snaps, per = int(m.group(1)), int(m.group(2))
    md = ["## %d CPU%s" % (n, "" if n == 1 else "s"), "", "Guest: `%s`." % head, ""]
    md += measured(n, meas)
    if n > 1:
        return md + syscalls(sysc, snaps)
    if len(rep) != 8 or len(runs) != 4:
        die("-smp %d: the console log %s has no complete profile" % (n, logf))
    for k, r in runs.items():
        if r.get("status") != "0":
            die("-smp %d: the %s %s run failed (status %s)" % (n, k[0], k[1], r.get("status")))
    tot = {(v, r): sum(rep[(v, r, "no-children")].values())
           for v in ("own", "exclude") for r in ("snap", "nosnap")}
    snap = {v: per_snap(tot[(v, "snap")] - tot[(v, "nosnap")], per, snaps)
            for v in ("own", "exclude")}
    nbytes = {v: (int(runs[(v, "snap")]["fbytes"]) - int(runs[(v, "nosnap")]["fbytes"])) / snaps
              for v in ("own", "exclude")}
    md += ["Sampled (the profile; its runs are the measured ones again, under the profiler):", "",
          "| variant | M instructions per snapshot (sampled) | bytes per snapshot |",
          "| --- | ---: | ---: |",
          "| as it runs (`-e 'raw_syscalls:*'` sees perf-ring's own calls) | %.3f | %s |"
          % (snap["own"], "{:,.0f}".format(nbytes["own"])),
          "| `--exclude-perf` (its own calls not recorded) | %.3f | %s |"
          % (snap["exclude"], "{:,.0f}".format(nbytes["exclude"])),
          "| the difference: recording perf-ring's own system calls | %.3f | |"
          % (snap["own"] - snap["exclude"]), ""]

    def children(v, sym):
        d = []
        for r in ("snap", "nosnap"):
            pct = rep[(v, r, "children")].get(sym, 0.0)
            d.append(pct * tot[(v, r)] / 100)
        return per_snap(d[0] - d[1], per, snaps)

    md += ["By part, from the call graphs (a part's samples with everything it called; "
           "the parts overlap where one calls another). M instructions per snapshot:", "",
           "| part | as it runs | --exclude-perf |", "| --- | ---: | ---: |"]
    for name, sym in GROUPS:
        md.append("| %s | %.3f | %.3f |" % (name, children("own", sym),
                                              children("exclude", sym)))
    user = {}
    for v in ("own", "exclude"):
        u = [sum(s for k, s in rep[(v, r, "no-children")].items() if k.startswith("[.]"))
             for r in ("snap", "nosnap")]
        user[v] = per_snap(u[0] - u[1], per, snaps)
    md.append("| user space, perf-ring's own code and libc (self) | %.3f | %.3f |"
              % (user["own"], user["exclude"]))
    md += ["", "The %d functions with the most instructions of their own per snapshot, "
           "`--exclude-perf` (k: kernel, .: user space):" % TOP, "",
           "| function | M per snapshot |", "| --- | ---: |"]
    a, b = rep[("exclude", "snap", "no-children")], rep[("exclude", "nosnap", "no-children")]
    diff = sorted(((per_snap(a.get(k, 0) - b.get(k, 0), per, snaps), k) for k in set(a) | set(b)),
                  reverse=True)
    for v, k in diff[:TOP]:
        md.append("| `%s` | %.3f |" % (k, v))
    return md + [""] + syscalls(sysc, snaps)


def syscalls(sysc, snaps):
    sa, sb = sysc.get("snap", {}), sysc.get("nosnap", {})
    calls = sorted(((sa.get(k, 0) - sb.get(k, 0)) / snaps, k) for k in set(sa) | set(sb))
    calls = [(c, k) for c, k in reversed(calls) if c >= 0.5]
    md = ["perf-ring's system calls per snapshot (`perf stat -e 'syscalls:sys_enter_*'` "
          "of the two runs, as it runs, over %d requests), %.1f in all:"
          % (snaps, sum(c for c, _ in calls)), "",
          "| call | per snapshot |", "| --- | ---: |"]
    md += ["| %s | %.1f |" % (k, c) for c, k in calls]
    return md + [""]


def main():
    os.makedirs(RAW, exist_ok=True)
    md = ["# Scale: where one perf-ring snapshot's instructions go (QEMU -icount)", "",
          "Generated by `make qemu-bench PART=snapprof` (SNAP_CPUS=\"%s\"%s) on %s. POST built "
          "with `CONFIG_NR_CPUS=64` (the kernel of scale-cpus.md), booted under QEMU TCG with "
          "`-icount shift=0,align=off,sleep=off`. In the guest (guest-bench.sh, snapprof): "
          "`perf-ring record -q -a --snapshot-window=whole -m %d --overwrite --switch-output "
          "-e 'raw_syscalls:*' -- cpu_loop -s 20 %s` (20 SIGUSR2, 100 ms apart, after the "
          "loop) against the same with `-k` (kill(ppid, 0) instead: no snapshot), under "
          "`perf record -e cpu-clock -c 5000 -g` of the recorder and its children; the "
          "difference over 20 is one snapshot. -m 16 (the default of this part) keeps the copy "
          "small (64 KiB a CPU), so that what a snapshot costs apart from its bytes shows; a "
          "larger -m (SNAP_M) shows what grows with the bytes. The same two runs with "
          "`--exclude-perf` take out the kernel's recording of perf-ring's own system calls. "
          "Before them, one run under the profiler puts every DSO the runs map into the "
          "build-id cache, as a run after the first on a host finds it. Sampled: a part's "
          "figure is its samples x 5000 / 20, about 0.01 M per sample a snapshot. The profile "
          "is taken at one vCPU only: with more, cpu-clock runs on the guest's shared clock, "
          "which also counts the other vCPUs' instructions while the recorder runs (a first "
          "run at 16 gave negative parts). At every count the same four runs are also "
          "measured whole (busy instructions, `rec_run -b`), with the function-call IPIs "
          "the guest took, and each run's system calls are counted. The cost per snapshot "
          "split into a fixed part and a cost per byte is scale-cpus.md's (its -m line)." % (
              " ".join(map(str, CPUS)), "" if SNAP_M == 16 else ", SNAP_M=%d" % SNAP_M,
              time.strftime("%Y-%m-%d"), SNAP_M,
              " or ".join("%d at %d CPU%s" % (loop(n), n, "" if n == 1 else "s") for n in CPUS)),
          ""]
    if not os.environ.get("REUSE"):
        log("kernel post-cpus64 (CONFIG_NR_CPUS=%d) and its initramfs with perf" % NR_CPUS)
        subprocess.run(["make", "-s", "-C", ROOT, "initramfs", "KERNEL=post",
                        "NR_CPUS=%d" % NR_CPUS], env=dict(os.environ, GUEST_PERF="1"), check=True)
    for n in CPUS:
        logf = os.path.join(RAW, "cpus%d.log" % n)
        if not os.environ.get("REUSE"):
            log("-smp %d: snapprof" % n)
            if not boot(n, logf):
                die("-smp %d did not finish (console: %s)" % (n, logf))
        md += section(n, logf)
    md += ["## Boot wall times (host)", ""]
    md += B.boot_walls("CPUs", [(n, os.path.join(RAW, "cpus%d.log" % n)) for n in CPUS])
    md.append("")
    out = os.path.join(RES, OUT + ".md")
    with open(out, "w") as f:
        f.write("\n".join(md))
    log("wrote %s" % out)


if __name__ == "__main__":
    main()
