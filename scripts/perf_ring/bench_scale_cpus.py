# SPDX-License-Identifier: GPL-2.0
"""make qemu-bench PART=scale: perf record against perf-ring record as the
number of CPUs grows, counted in instructions.

POST built with CONFIG_NR_CPUS=64 (the kernel flavour post-cpus64, make
kernel NR_CPUS=64) boots under QEMU TCG with -icount
shift=0,align=off,sleep=off at -smp 1, 4, 16 and 64, from the initramfs
with perf in it (GUEST_PERF=1), and runs the "scale" part of
guest-bench.sh: each tool with -a, streaming and the flight recorder, the
workload one close(-1) loop pinned to each CPU (bench/cpu_loop.c), CALLS
calls in all; snapshots on SIGUSR2; the recorder's memory; a cpu-clock
profile of start-up. perf record runs with --no-bpf-event in the counted
runs and the profile (its BPF side-band thread would hold every exit for
up to a second the spinner fills with emulated instructions); its default
is counted once, start-up and exit, and its memory is measured with its
defaults. Under -icount the vCPUs run one at a time,
round-robin, so the guest clock still counts instructions (of all vCPUs).
One count boots twice (AGREE, default 4): the two boots must agree within
0.1%. At 64 vCPUs too a boot is deterministic (three boots of 78281e9's
run gave byte-identical consoles); what varies is one run against
another in the same boot (the bare loop's three runs).

Writes bench/results/scale-cpus.md and scale-cpus.png (SCALE_OUT=NAME:
NAME.md and NAME.png instead). Besides both tools' cases, perf-ring's
start-up with one synthesis thread per online CPU (its default before
it took perf's one) is counted in the same boot.
Environment: SCALE_CPUS (default "1 4 16 64"), CALLS (default 400000; the cost per record is from CALLS against CALLS/2 calls),
AGREE (the count booted twice; empty for none), SCALE_TIMEOUT (seconds per
boot, default 14400), REUSE=1 (tables from the last logs), SCALE_KERNEL (the
sentence that says which kernel was booted, for logs from another
build), SCALE_BOOT=1
(only boot each count with nothing run, for the boot's own wall time,
into cpus<N>-boot.log; then REUSE=1 reports it), SCALE_NOTE (a
sentence on how the logs were made, for a run that differs from the
above). A count whose
boot did not finish in time is reported as not run, with the time it ran."""

import os
import re
import subprocess
import sys
import time

import bench_lib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("PR_BUILD", os.path.join(ROOT, "build"))
RAW = os.path.join(BUILD, "qemu-scale")
RES = os.path.join(ROOT, "bench", "results")
CALLS = int(os.environ.get("CALLS", "400000"))
HALF = CALLS // 2	# per record: the runs of CALLS against HALF calls
CPUS = [int(x) for x in os.environ.get("SCALE_CPUS", "1 4 16 64").split()]
AGREE = os.environ.get("AGREE", "4").strip()
TMO = int(os.environ.get("SCALE_TIMEOUT", "14400"))
NR_CPUS = 64
OUT = os.environ.get("SCALE_OUT", "scale-cpus")
MODES = ["streaming", "flight"]
SNAP_PAGES = (16, 64, 128, 256)	# perf-ring's snapshot at -m of these (128: the default)
TOOLS = ["perf", "perf-ring"]
LABEL = {"streaming": "streaming", "flight": "flight recorder"}
PERIOD = 20000		# the start-up profile's cpu-clock period, instructions
# Start-up, by kernel symbol of the recorder's own threads (sampled).
PARTS = [("open", r"perf_event_open|perf_event_alloc|perf_init_event|perf_install_in_context|"
                  r"find_get_context|alloc_perf_context|perf_event_ctx|perf_try_init_event|"
                  r"event_function_call|perf_event_(enable|disable|set_output)|_perf_ioctl|"
                  r"perf_ioctl|perf_event_init_task|account_event|perf_trace_(init|event)|"
                  r"tp_event|perf_trace_event_(reg|init)|ftrace|trace_(event|probe)"),
         ("mmap", r"perf_mmap|rb_alloc|ring_buffer_attach|perf_mmap_|vm_insert|vmf_insert|"
                  r"remap_pfn|alloc_pages|get_page_from_freelist|clear_page|__alloc|"
                  r"rmqueue|prep_new_page|handle_mm_fault|do_.*fault|perf_mmap_close|"
                  r"ring_buffer_put|rb_free|free_pages|__free|free_unref"),
         ("synthesis", r"proc_|seq_|kallsyms|s_show|s_next|update_iter|format_decode|"
                       r"vsnprintf|number|string|pointer|pid_revalidate|d_path|show_map|"
                       r"task_state|render_sigset|getdents|filldir|iterate_dir|"
                       r"show_smap|m_next|m_start|m_show|get_task|lookup|readdir")]
T0 = time.time()


def log(msg):
    print("[%5.0fs] %s" % (time.time() - T0, msg), file=sys.stderr, flush=True)


def die(msg):
    print("qemu-bench scale: " + msg, file=sys.stderr)
    sys.exit(1)


def mem_mb(n):
    """Guest memory: perf's and perf-ring's per-CPU buffers (516 kB each,
    and perf-ring's side-band) for every CPU, the tmpfs with the
    recordings and snapshots, and the initramfs with perf."""
    return 1024 + 48 * n


def boot(n, logf, part="scale"):
    return bench_lib.qemu_boot(part, n, logf, mem_mb(n), TMO, "perf_ring.calls=%d" % CALLS,
                               nr_cpus=NR_CPUS)


def parse(logf, partial=False):
    """rec {(tool, mode): {...}}, snap {(tool, mode): {...}}, mem {(tool,
    mode): {...}}, profiles {"tool mode/0": [lines]}, the # scale line.
    A result whose status is not 0 fails the report, or is left out with
    partial."""
    def failed(line, kv):
        if not partial:
            die("%s: %s" % (os.path.basename(logf), line))

    res, prof, lines = bench_lib.console_results(logf, ["rec", "snap", "mem"], failed)
    head = ""
    for line in lines:
        if line.startswith("# scale:"):
            head = (head + "; " if head else "") + line[2:]
    return res["rec"], res["snap"], res["mem"], prof, head


def startup_parts(lines, tool):
    """{part: instructions} of the tool's own samples in a profile."""
    out = {p: 0 for p, _ in PARTS}
    out["other"] = 0
    for ln in lines:
        f = ln.split()
        if len(f) < 6 or not f[0].endswith("%") or f[2] != tool:
            continue
        sym = " ".join(f[5:])
        part = "other"
        if "kernel" in f[3]:
            for p, pat in PARTS:
                if re.search(pat, sym):
                    part = p
                    break
        out[part] += int(f[1]) * PERIOD
    return out


def bare_runs(rec, n):
    """The busy instructions of the bare loop's runs of n calls (none/N,
    none/N-2, none/N-3; one run in logs from before they were three)."""
    return [rec[("none", m)]["busy"] for m in ("none/%d" % n, "none/%d-2" % n, "none/%d-3" % n)
            if ("none", m) in rec]


def bare(rec, n):
    """The bare loop of n calls: the median of its runs."""
    v = sorted(bare_runs(rec, n))
    return v[len(v) // 2]


def per_record(rec, tool, m, base, baseh):
    """Instructions per record, from the runs of CALLS and HALF calls
    (start-up and exit cancel), less the bare loop's difference: per
    record kept (streaming, whose buffers hold every CPU's share) or
    per record the kernel wrote (flight recorder: 2 per call)."""
    a, h = rec[(tool, "%s/%d" % (m, CALLS))], rec[(tool, "%s/%d" % (m, HALF))]
    n = a["samples"] - h["samples"] if m == "streaming" else 2 * (CALLS - HALF)
    return ((a["busy"] - h["busy"]) - (base - baseh)) / max(n, 1)


def figures(r):
    """Per tool and mode: fixed cost, per-record costs, snapshot cost."""
    rec, snap, mem, prof, _ = r
    base, baseh, base0 = (bare(rec, c) for c in (CALLS, HALF, 0))
    out = {"base": base, "base0": base0}
    for tool in TOOLS:
        for m in MODES:
            a, b = rec[(tool, "%s/%d" % (m, CALLS))], rec[(tool, "%s/0" % m)]
            n = a["samples"] if m == "streaming" else 2 * CALLS
            out[(tool, m)] = {
                "cpu": a["busy"], "fixed": b["busy"] - base0,
                "whole": (a["busy"] - base) / max(n, 1),
                "marg": per_record(rec, tool, m, base, baseh),
                "kept": a["samples"], "lost": a["lost"], "bytes": a["bytes"], "wall": a["ns"],
                "mem": mem.get((tool, m), {}),
                "parts": startup_parts(prof.get("%s %s/0" % (tool, m), []), tool)}
        out[(tool, "snap")] = one_snapshot(snap, tool, "")
    for pg in SNAP_PAGES:
        if pg != 128 and ("perf-ring", "snap/m%d" % pg) in snap:
            out[("perf-ring", "snap", pg)] = one_snapshot(snap, "perf-ring", "/m%d" % pg)
    if ("perf-ring", "snap", 16) in out:
        out[("perf-ring", "snap", 128)] = out[("perf-ring", "snap")]
    return out


def one_snapshot(snap, tool, m):
    """One snapshot's instructions and bytes: the run with snaps SIGUSR2
    less the same run without, over snaps."""
    s, ns = snap[(tool, "snap" + m)], snap[(tool, "nosnap" + m)]
    k = s["snaps"]
    return {"cpu": (s["busy"] - ns["busy"]) / k, "bytes": (s["fbytes"] - ns["fbytes"]) / k,
            "files": s["files"], "nofiles": ns["files"], "dns": abs(s["ns"] - ns["ns"])}


def partial_figures(r):
    """The per-record and fixed figures of each tool and mode whose
    counted runs a boot that ran out of time still finished, or None."""
    rec = r[0]
    need = [("none", "none/%d" % c) for c in (CALLS, HALF, 0)]
    if any(k not in rec for k in need):
        return None
    base, baseh, base0 = (bare(rec, c) for c in (CALLS, HALF, 0))
    out = {}
    for tool in TOOLS:
        for m in MODES:
            keys = [(tool, "%s/%d" % (m, c)) for c in (CALLS, HALF, 0)]
            if any(k not in rec for k in keys):
                continue
            a, b = rec[keys[0]], rec[keys[2]]
            out[(tool, m)] = {"fixed": b["busy"] - base0, "kept": a["samples"],
                              "lost": a["lost"], "marg": per_record(rec, tool, m, base, baseh)}
    return out or None


def fmt_m(x):
    return "%.2f" % (x / 1e6)


def main():
    os.makedirs(RAW, exist_ok=True)
    logs = {n: os.path.join(RAW, "cpus%d-1.log" % n) for n in CPUS}
    agree = int(AGREE) if AGREE else None
    if agree is not None and agree not in CPUS:
        die("AGREE=%d is not one of SCALE_CPUS" % agree)
    if not os.environ.get("REUSE"):
        log("kernel post-cpus64 (CONFIG_NR_CPUS=%d) and its initramfs with perf" % NR_CPUS)
        subprocess.run(["make", "-s", "-C", ROOT, "initramfs", "KERNEL=post",
                        "NR_CPUS=%d" % NR_CPUS], env=dict(os.environ, GUEST_PERF="1"), check=True)
        if os.environ.get("SCALE_BOOT"):
            for n in CPUS:
                log("-smp %d: the boot alone (%d MB)" % (n, mem_mb(n)))
                boot(n, os.path.join(RAW, "cpus%d-boot.log" % n), "boot")
            return
        order = [(n, 1) for n in CPUS]
        if agree is not None:
            order.insert(CPUS.index(agree) + 1, (agree, 2))
        for n, run in order:
            lf = os.path.join(RAW, "cpus%d-%d.log" % (n, run))
            log("-smp %d, boot %d (%d calls per case, %d MB)" % (n, run, CALLS, mem_mb(n)))
            if not boot(n, lf):
                log("-smp %d: the guest did not finish within %d s" % (n, TMO))
                if n == max(CPUS):
                    continue
                die("-smp %d did not finish (console: %s)" % (n, lf))
    res, walls, notrun, part = {}, {}, {}, {}
    for n in CPUS:
        wf = logs[n] + ".wall"
        walls[n] = open(wf).read().split() if os.path.exists(wf) else None
        ok = os.path.exists(logs[n]) and walls[n] and walls[n][0] == "0"
        if ok:
            r = parse(logs[n])
            if ("perf-ring", "snap") not in r[1]:
                ok = False
        if not ok:
            notrun[n] = walls[n]
            if os.path.exists(logs[n]):
                pf = partial_figures(parse(logs[n], partial=True))
                if pf:
                    part[n] = pf
            continue
        res[n] = (r, figures(r))
    if not res:
        die("no count finished")
    ran = sorted(res)
    F = {n: res[n][1] for n in ran}

    # Two boots of the same case.
    agree_rows, worst = [], 0.0
    lf2 = os.path.join(RAW, "cpus%d-2.log" % agree) if agree is not None else None
    if lf2 and os.path.exists(lf2) and agree in res:
        r1, r2 = res[agree][0], parse(lf2)
        for key, v in sorted(r1[0].items()):
            if key in r2[0] and v["busy"] and key[0] != "warm":
                d = (r2[0][key]["busy"] - v["busy"]) / v["busy"]
                worst = max(worst, abs(d))
                agree_rows.append("| %s | %s | %s | %s | %+.4f%% |" % (
                    key[0], key[1], fmt_m(v["busy"]), fmt_m(r2[0][key]["busy"]), 100 * d))
        for key, v in sorted(r1[1].items()):
            if key in r2[1]:
                d = (r2[1][key]["busy"] - v["busy"]) / v["busy"]
                worst = max(worst, abs(d))
                agree_rows.append("| %s | snapshot run, %s | %s | %s | %+.4f%% |" % (
                    key[0], key[1], fmt_m(v["busy"]), fmt_m(r2[1][key]["busy"]), 100 * d))

    qv = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                        text=True).stdout.split()[3]
    head = res[ran[0]][0][4]
    bigm = ", ".join("%d CPU%s: %s" % (n, "s" if n > 1 else "", (re.findall(r"-m (\d+ pages)", res[n][0][4]) or ["?"])[0])
                     for n in ran)
    md = ["# Scale: CPUs, perf record against perf-ring record, in instructions (QEMU -icount)",
          "",
          "Generated by `make qemu-bench PART=scale` (CALLS=%d, SCALE_CPUS=\"%s\") on %s%s. "
          "%s booted under QEMU %s TCG with "
          "`-icount shift=0,align=off,sleep=off` and `-smp N`, from the initramfs with perf "
          "in it.%s Under -icount QEMU runs the vCPUs one at a time, round-robin, in one host "
          "thread, and the guest clock advances one nanosecond per instruction of whichever "
          "vCPU runs. A task's CPU time then also counts what the other vCPUs ran while it was "
          "on its CPU, so it is not its instructions once two vCPUs are busy at once. Every "
          "figure here is the guest's busy instructions, all CPUs together, over the "
          "command (`bench/rec_run.c -b`): the guest clock, which counts every vCPU's "
          "instructions and jumps only when all of them are idle, kept from jumping by a "
          "spinner at SCHED_IDLE pinned to the last CPU, whose own instructions (it counts "
          "its iterations of a two-instruction loop) are taken out. They include the "
          "kernel's work on every CPU (writing the records, ticks, kernel threads), the "
          "same in the bare run that is subtracted." % (
              CALLS, " ".join(map(str, CPUS)), time.strftime("%Y-%m-%d", time.gmtime()),
              " (tables rebuilt from the console logs, `REUSE=1`)" if os.environ.get("REUSE")
              else "", os.environ.get("SCALE_KERNEL") or
              "POST built with `CONFIG_NR_CPUS=%d` and `CONFIG_NO_HZ_IDLE=y` (`make kernel "
              "KERNEL=post NR_CPUS=%d`, the same kernel at every count; an idle vCPU stops its "
              "tick, as in distribution kernels: with the periodic tick every idle vCPU took "
              "HZ interrupts a second, counted with the recorder's work in proportion to CPUs "
              "x run time; the previous version of this file, made with it, had negative "
              "costs per record at 64 CPUs)" % (NR_CPUS, NR_CPUS), qv,
              (" **This run:** " + os.environ["SCALE_NOTE"]) if os.environ.get("SCALE_NOTE")
              else ""), "",
          "Workload: `cpu_loop %d` (bench/cpu_loop.c): one child per online CPU, pinned to it "
          "with sched_setaffinity(), %d close(-1) in all, split evenly, so every CPU's buffer "
          "is written and the work is the same at every count. Both tools: `record -q -a -e "
          "'raw_syscalls:*'`, streaming and `--overwrite`. The fixed cost and the memory are "
          "measured with their default buffers (128 data pages, 512 KiB, per CPU: "
          "perf's default for root from perf_event_mlock_kb = 516, perf-ring's documented "
          "default). The cost per record comes from the runs of %d and %d calls, in which "
          "start-up and exit cancel: streaming with buffers that hold each CPU's share of "
          "the calls (`-m`: %s), so that neither tool loses a record at "
          "any count (under -icount one reader on busy vCPUs cannot keep up with the "
          "writers: with the default buffers both tools lost records at 4 and 16 CPUs in "
          "a first run of this method, not kept, and a per kept record figure then "
          "counts something else); the "
          "flight recorder with the default buffers, which both runs wrap on every CPU up "
          "to 64, each tool writing its whole buffers at exit (perf-ring "
          "`--snapshot-window=whole`; its default cuts them to the window all CPUs "
          "share, whose size varies from run to run). perf record with `--no-bpf-event` "
          "(perf-record(1)) in every counted run and in the profile: its BPF side-band "
          "thread polls with a one-second timeout and holds perf's exit until it returns, "
          "a second that the spinner must fill with a billion emulated instructions per "
          "run, the most expensive part of a boot for the host; what the thread costs "
          "perf in instructions is counted once, in *perf's BPF side-band* below, and the "
          "memory columns are perf's defaults, side-band buffers included. Guest: `%s`."
          % (CALLS, CALLS, CALLS, HALF, bigm, head), "",
          "Columns: *fixed* is start-up and exit, the instructions of `record -a -- cpu_loop 0` "
          "less the bare `cpu_loop 0`; *per record* is (instructions with %d calls - with %d "
          "calls) - (the same for the bare loop), divided by the difference of the records "
          "kept (streaming) or by the %s records the kernel wrote for the extra calls "
          "(flight recorder, which keeps only the last buffer's worth). *locked* is the size of the recorder's perf_event mappings: "
          "the buffers, which the kernel counts as locked memory, against the user's "
          "perf_event_mlock_kb x online CPUs first and the rest against RLIMIT_MEMLOCK "
          "(*VmPin*, the part past the user's share); neither tool mlock()s anything else "
          "(VmLck %s). *RSS* is the recorder's VmRSS at the end of the workload (read by "
          "the workload's shell from /proc/$PPID)." % (
              CALLS, HALF, format(2 * (CALLS - HALF), ","),
              "0 kB in every run" if all(F[n][(t, m)]["mem"].get("lck_kb", 0) == 0 for n in ran
                                         for t in TOOLS for m in MODES)
              else "in build/qemu-scale's logs, not 0 in every run"), ""]

    # The main table: both tools side by side.
    md += ["| CPUs | mode | perf fixed, M | perf-ring fixed, M | perf per record | "
           "perf-ring per record | perf kept / lost | perf-ring kept / lost | "
           "perf locked, kB | perf-ring locked, kB | perf VmPin, kB | perf-ring VmPin, kB | "
           "perf RSS, kB | perf-ring RSS, kB |",
           "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
           "---: | ---: |"]
    for n in ran:
        for m in MODES:
            a, b = F[n][("perf", m)], F[n][("perf-ring", m)]
            md.append("| %d | %s | %s | %s | %.1f | %.1f | %d / %d | %d / %d | %s | %s | %s | %s "
                      "| %s | %s |" % (
                          n, LABEL[m], fmt_m(a["fixed"]), fmt_m(b["fixed"]), a["marg"], b["marg"],
                          a["kept"], a["lost"], b["kept"], b["lost"],
                          format(a["mem"].get("ring_kb", 0), ","),
                          format(b["mem"].get("ring_kb", 0), ","),
                          format(a["mem"].get("pin_kb", 0), ","),
                          format(b["mem"].get("pin_kb", 0), ","),
                          format(a["mem"].get("rss_kb", 0), ","),
                          format(b["mem"].get("rss_kb", 0), ",")))
    for n in sorted(notrun):
        w = notrun[n]
        stopped = ("the boot was stopped after %s s" % w[1]) if w else "not booted in this run"
        if n not in part:
            md.append("| %d | not run | %s (no result) | | | | | | | | | | | |" % (n, stopped))
            continue
        for m in MODES:
            a, b = part[n].get(("perf", m)), part[n].get(("perf-ring", m))

            def c(x, f):
                return f(x) if x else "not reached"
            md.append("| %d | %s (partial: %s) | %s | %s | %s | %s | %s | %s | | | | | | |" % (
                n, LABEL[m], stopped, c(a, lambda x: fmt_m(x["fixed"])),
                c(b, lambda x: fmt_m(x["fixed"])), c(a, lambda x: "%.1f" % x["marg"]),
                c(b, lambda x: "%.1f" % x["marg"]),
                c(a, lambda x: "%d / %d" % (x["kept"], x["lost"])),
                c(b, lambda x: "%d / %d" % (x["kept"], x["lost"]))))

    # The bare loop's runs: how much they vary is how far a figure per
    # record can be trusted.
    md += ["", "## The bare loop", "",
           "`cpu_loop N` alone, three runs at each count, millions of instructions; the "
           "medians are subtracted above. *per call* is (median of %d - median of %d) / %d."
           % (CALLS, HALF, CALLS - HALF), "",
           "| CPUs | %d calls | %d calls | 0 calls | per call |" % (CALLS, HALF),
           "| ---: | --- | --- | --- | ---: |"]
    for n in ran:
        rec = res[n][0][0]
        cols = [", ".join(fmt_m(x) for x in bare_runs(rec, c)) for c in (CALLS, HALF, 0)]
        md.append("| %d | %s | %s | %s | %.1f |" % (
            n, cols[0], cols[1], cols[2], (bare(rec, CALLS) - bare(rec, HALF)) / (CALLS - HALF)))
    spans = []
    for n in ran:
        rec = res[n][0][0]
        span = max(max(r) - min(r) for r in (bare_runs(rec, c) for c in (CALLS, HALF)))
        spans.append("%d CPU%s %s M, %.0f per record" % (n, "s" if n > 1 else "", fmt_m(span),
                                                         span / (2 * (CALLS - HALF))))
    md += ["", "How far apart the bare loop's runs of one count are (largest spread, and "
           "that spread over the %s records of the extra calls): %s. A figure per record "
           "cannot be read finer than that at its count; both tools' figures move with the "
           "median (the same subtraction in both columns of a count). Why the bare loop "
           "varies so at 64 vCPUs was not analysed (its 64 forks, migrations and idle "
           "entries are the candidates); more calls per CPU would shrink the spread per "
           "record."
           % (format(2 * (CALLS - HALF), ","), "; ".join(spans))]

    # Start-up parts.
    md += ["", "## Start-up and exit, by part", "",
           "cpu-clock samples every %d instructions of the recorder and its children, "
           "inherited, around `record -a -- cpu_loop 0` (perf under another name, `prof "
           "record -c %d`, not `-a`, whose every idle vCPU would take a sample each period), "
           "the recorder's own threads only, kernel symbols grouped: *open* (perf_event_open and the "
           "tracepoint's set-up), *mmap* (perf_mmap, the buffers' pages and their faults), "
           "*synthesis* (/proc and kallsyms read and formatted), *other* (exec, the "
           "recorder's user space, exit). Millions of instructions; sampled, about 0.02 M "
           "per part." % (PERIOD, PERIOD), "",
           "| CPUs | mode | tool | open | mmap | synthesis | other | total (sampled) | fixed "
           "(measured) |", "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for n in ran:
        for m in MODES:
            for tool in TOOLS:
                p = F[n][(tool, m)]["parts"]
                md.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    n, LABEL[m], tool, fmt_m(p["open"]), fmt_m(p["mmap"]),
                    fmt_m(p["synthesis"]), fmt_m(p["other"]), fmt_m(sum(p.values())),
                    fmt_m(F[n][(tool, m)]["fixed"])))

    # Snapshots.
    md += ["", "## One snapshot", "",
           "`record -a --overwrite --switch-output -- cpu_loop -s 2 %d`: after the loops the "
           "workload sends SIGUSR2 to the recorder twice, 100 ms apart, and each tool writes "
           "its whole buffers to a file of their own (perf-ring with "
           "`--snapshot-window=whole`, as perf does; its default cuts the buffers to the "
           "window all CPUs share, and then walks more than it copies); the same run with `-k` (kill(ppid, 0), "
           "nothing sent) is subtracted. Per snapshot: instructions, and the bytes of the "
           "snapshot files (what was copied out of the buffers)." % CALLS, "",
           "| CPUs | perf, M | perf bytes | perf instr./byte | perf-ring, M | perf-ring bytes "
           "| perf-ring instr./byte |", "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for n in ran:
        a, b = F[n][("perf", "snap")], F[n][("perf-ring", "snap")]
        md.append("| %d | %s | %s | %.2f | %s | %s | %.2f |" % (
            n, fmt_m(a["cpu"]), format(int(a["bytes"]), ","), a["cpu"] / max(a["bytes"], 1),
            fmt_m(b["cpu"]), format(int(b["bytes"]), ","), b["cpu"] / max(b["bytes"], 1)))

    if len(ran) >= 2:
        for tool in TOOLS:
            a, b = fit([F[n][(tool, "snap")]["bytes"] for n in ran],
                       [F[n][(tool, "snap")]["cpu"] for n in ran])
            md.append("")
            md.append("%s, least squares over the counts: %.2f instructions per byte copied "
                      "plus %s M per snapshot%s." % (
                          tool, b, fmt_m(a), " (two counts: any two points are on a line, so "
                          "this cannot tell a fixed cost from a cost per CPU)" if len(ran) == 2
                          else ""))
    md += snapshot_bytes(F, ran)
    if any(F[n][(t, "streaming")]["lost"] for n in ran for t in TOOLS):
        md += ["", "A streaming run that lost records did less work per record written than "
               "one that kept them all (the kernel drops what does not fit, the reader never "
               "copies it), so its figure per kept record is not comparable across counts or "
               "tools: under -icount the vCPUs take turns, and whether a reader keeps up is "
               "not what it would be on a real machine (see below)."]

    # Goals.
    def verdict(ok):
        return "met" if ok else "missed"

    goals = []
    lo, hi = ran[0], ran[-1]
    for m in MODES:
        rn = {n: F[n][("perf-ring", m)]["marg"] for n in ran}
        rn.update({n: part[n][("perf-ring", m)]["marg"] for n in part
                   if ("perf-ring", m) in part[n]})
        pn = {n: F[n][("perf", m)]["marg"] for n in ran}
        pn.update({n: part[n][("perf", m)]["marg"] for n in part if ("perf", m) in part[n]})
        v, pv = list(rn.values()), list(pn.values())
        spread = max(v) / min(v) - 1 if min(v) > 0 else float("inf")
        goals.append("| perf-ring per-record cost, %s, %s CPUs%s: largest / smallest - 1 "
                     "(perf record: %+.1f%% over %s CPUs) | %+.1f%% | within 5%% | %s |" % (
                         LABEL[m], ", ".join(map(str, sorted(rn))),
                         " (partial boots included)" if set(rn) - set(ran) else "",
                         100 * (max(pv) / min(pv) - 1), ", ".join(map(str, sorted(pn))),
                         100 * spread, verdict(spread <= 0.05)))
    fx = {m: {n: F[n][("perf-ring", m)]["fixed"] for n in ran} for m in MODES}
    for m in MODES:
        fx[m].update({n: part[n][("perf-ring", m)]["fixed"] for n in part
                      if ("perf-ring", m) in part[n]})
    if len(fx["streaming"]) < 3:
        goals.append("| perf-ring start-up against CPUs (%s M at %s CPUs) | - | no faster "
                     "than linear | not measured: the shape needs three counts |" % (
                         ", ".join(fmt_m(F[n][("perf-ring", "streaming")]["fixed"]) for n in ran),
                         ", ".join(map(str, ran))))
    # Each count against the smallest, and each step against the one
    # before: a row per count for the two goals in CPUs.
    for m in MODES:
        rn = {n: F[n][("perf-ring", m)]["marg"] for n in ran}
        rn.update({n: part[n][("perf-ring", m)]["marg"] for n in part
                   if ("perf-ring", m) in part[n]})
        ns = sorted(rn)
        for n in ns[1:]:
            d = rn[n] / rn[ns[0]] - 1
            goals.append("| perf-ring per-record cost, %s, %d CPUs against %d (%.1f against "
                         "%.1f instructions) | %+.1f%% | within 5%% | %s |" % (
                             LABEL[m], n, ns[0], rn[n], rn[ns[0]], 100 * d,
                             verdict(abs(d) <= 0.05)))
        ns = sorted(fx[m])
        for i in range(2, len(ns)):
            s1 = (fx[m][ns[i - 1]] - fx[m][ns[i - 2]]) / (ns[i - 1] - ns[i - 2])
            s2 = (fx[m][ns[i]] - fx[m][ns[i - 1]]) / (ns[i] - ns[i - 1])
            goals.append("| perf-ring start-up, %s, %d to %d CPUs: instructions per added "
                         "CPU against %d to %d (%.0f against %.0f) | %.2f | <= 1.25 (no "
                         "faster than linear) | %s |" % (
                             LABEL[m], ns[i - 1], ns[i], ns[i - 2], ns[i - 1], s2, s1,
                             s2 / s1 if s1 > 0 else float("inf"),
                             verdict(s1 > 0 and s2 / s1 <= 1.25)))
        # The same in the recorder's own threads (the start-up profile's
        # total): what the measured figure holds besides them is other
        # vCPUs' work and the bare loop's spread.
        own = {n: sum(F[n][("perf-ring", m)]["parts"].values()) for n in ran}
        ns = sorted(n for n in own if own[n] > 0)
        for i in range(2, len(ns)):
            s1 = (own[ns[i - 1]] - own[ns[i - 2]]) / (ns[i - 1] - ns[i - 2])
            s2 = (own[ns[i]] - own[ns[i - 1]]) / (ns[i] - ns[i - 1])
            goals.append("| perf-ring start-up in its own threads (the profile's total, "
                         "sampled), %s, %d to %d CPUs: instructions per added CPU against "
                         "%d to %d (%.0f against %.0f) | %.2f | <= 1.25 (no faster than "
                         "linear) | %s |" % (
                             LABEL[m], ns[i - 1], ns[i], ns[i - 2], ns[i - 1], s2, s1,
                             s2 / s1 if s1 > 0 else float("inf"),
                             verdict(s1 > 0 and s2 / s1 <= 1.25)))
    ipb = [F[n][("perf-ring", "snap")]["cpu"] / max(F[n][("perf-ring", "snap")]["bytes"], 1)
           for n in ran]
    goals.append("| perf-ring snapshot: instructions per byte copied, largest / smallest - 1, "
                 "%d to %d CPUs (%s) | %+.1f%% | within 10%% (linear in bytes, nothing else) | "
                 "%s |" % (lo, hi, ", ".join("%.2f" % x for x in ipb),
                           100 * (max(ipb) / min(ipb) - 1), verdict(max(ipb) / min(ipb) <= 1.10)))
    # The same goal split in two by the -m runs: the cost per byte is the
    # same at every count, and what is not in the bytes (a file's own
    # cost: its creation, header, writer) stays small beside them.
    sf = snap_fits(F, ran)
    if len(sf) >= 2:
        slopes = [sf[n][1] for n in sorted(sf)]
        goals.append("| perf-ring snapshot: cost per byte (the -m line's slope) at %s CPUs (%s "
                     "instructions), largest / smallest - 1 | %+.1f%% | within 10%% (linear in "
                     "bytes at every count) | %s |" % (
                         ", ".join(str(n) for n in sorted(sf)),
                         ", ".join("%.2f" % x for x in slopes),
                         100 * (max(slopes) / min(slopes) - 1),
                         verdict(max(slopes) / min(slopes) <= 1.10)))
    for n in sorted(sf):
        a, b = sf[n]
        default = F[n][("perf-ring", "snap")]["bytes"]
        share = a / (b * default) if b > 0 and default > 0 else float("inf")
        goals.append("| perf-ring snapshot at %d CPU%s: the part not in the bytes (the -m line "
                     "at 0 bytes, %s M) against the bytes of a default snapshot (%s bytes x "
                     "%.2f) | %.1f%% | within 10%% (nothing else) | %s |" % (
                         n, "" if n == 1 else "s", fmt_m(a), format(int(default), ","), b,
                         100 * share, verdict(share <= 0.10)))
    if agree_rows:
        goals.append("| two boots of -smp %d, largest difference of %d cases | %.4f%% | within "
                     "0.1%% | %s |" % (agree, len(agree_rows), 100 * worst,
                                       verdict(worst <= 0.001)))
    else:
        goals.append("| two boots of the same case | not run | within 0.1% | not measured |")
    md += ["", "![plot](%s.png)" % OUT, "", "## Goals", "", "| goal | value | target | verdict |", "| --- | ---: | --- | --- |"]
    md += goals

    if agree_rows:
        md += ["", "## Two boots of -smp %d" % agree, "",
               "Busy instructions of each case in each boot, millions%s:" % (
                   " (every rec, snap and mem line of the two consoles, wall time, CPU time "
                   "and the spinner's count included, is the same to the digit)"
                   if same_lines(logs[agree], lf2) else ""), "",
               "| tool | case | boot 1 | boot 2 | difference |", "| --- | --- | ---: | ---: | ---: |"]
        md += agree_rows

    md += ["", "## Boot wall times (host)", "",
           "| CPUs | boot | exit | wall time of the boot |", "| ---: | ---: | ---: | ---: |"]
    for n in CPUS:
        for run in (1, 2):
            wf = os.path.join(RAW, "cpus%d-%d.log.wall" % (n, run))
            w = open(wf).read().split() if os.path.exists(wf) else None
            if w or run == 1:
                md.append("| %d | %d | %s | %s |" % (
                    n, run, w[0] if w else "-",
                    "%dm%02ds" % divmod(int(float(w[1])), 60) if w else "not booted"))

    sb = [(n, res[n][0][0].get(("perf", "bpf-sb/0"))) for n in ran]
    sb = [(n, x) for n, x in sb if x]
    if sb:
        md += ["", "## perf's BPF side-band", "",
               "`perf record -a -- cpu_loop 0` with perf's defaults (the side-band thread "
               "for BPF events: a dummy event and a buffer per CPU, and a thread that polls "
               "them with a one-second timeout) against the same with `--no-bpf-event`, as "
               "counted above; busy instructions, the idle wait at exit not among them.", "",
               "| CPUs | default, fixed, M | --no-bpf-event, fixed, M | the side-band, M |",
               "| ---: | ---: | ---: | ---: |"]
        for n, x in sb:
            d = x["busy"] - F[n]["base0"]
            md.append("| %d | %s | %s | %s |" % (n, fmt_m(d), fmt_m(F[n][("perf", "streaming")]["fixed"]),
                                              fmt_m(d - F[n][("perf", "streaming")]["fixed"])))
    md += synth_threads(res, F, ran)
    bt = []
    for n in CPUS:
        wf = os.path.join(RAW, "cpus%d-boot.log.wall" % n)
        if os.path.exists(wf):
            w = open(wf).read().split()
            up = ""
            with open(os.path.join(RAW, "cpus%d-boot.log" % n), errors="replace") as fh:
                for ln in fh:
                    mm = re.search(r"# boot: .* uptime ([0-9.]+) s", ln)
                    if mm:
                        up = mm.group(1)
            bt.append("| %d | %s | %s | %s |" % (n, w[0], up or "-",
                                                 "%dm%02ds" % divmod(int(float(w[1])), 60)))
    if bt:
        md += ["", "## The boot alone", "",
               "Each count booted with nothing run (`SCALE_BOOT=1`, guest-bench.sh's *boot* "
               "part): the guest's uptime when it is up (seconds of guest clock, about "
               "instructions/10^9 under -icount, idle jumps included) and the host's wall "
               "time of the whole boot, from QEMU's start to its exit, on this shared host "
               "(wall time is not a benchmark here; it says what a boot costs to run).", "",
               "| CPUs | exit | guest uptime, s | host wall time |", "| ---: | ---: | ---: | ---: |"]
        md += bt

    md += extrapolation(F, ran)
    md += ["", "## What can be deterministic", "",
           "- CPUs (this file): yes. Under -icount QEMU runs the vCPUs one after another in "
           "one host thread, and every clock the guest reads advances with the instructions "
           "executed, so two boots run the same instructions in the same order (the table of "
           "two boots above). The guest's clock at boot is fixed (`-rtc base=...,clock=vm`) "
           "and address-space randomization is off.",
           "- The sampled start-up profile is deterministic too, but with several vCPUs a "
           "task's cpu-clock runs on the shared clock, so while other vCPUs are busy its "
           "period also counts their instructions, and its parts are an approximation (the "
           "measured *fixed* column is exact).",
           "- Duration (scale-duration.md) cannot be: an hour is wall-clock time on the host, "
           "and RSS over an hour is about what happens in that hour.",
           "- Event rate (the rate at which each tool first loses) cannot be under -icount: "
           "whether the reader keeps up depends on how the host's real time is shared "
           "between the writer and the reader; under -icount both run on the same "
           "instruction clock, one vCPU at a time, so a guest's \"records per second\" is "
           "not the host's. On the host it varies with the machine's load from run to run.",
           "- Threads and DSOs (scale-threads.md, scale-dsos.md) are counted in instructions "
           "under callgrind on the host: deterministic for user space, and the kernel's part "
           "is not in them."]
    os.makedirs(RES, exist_ok=True)
    with open(os.path.join(RES, OUT + ".md"), "w") as f:
        f.write("\n".join(md) + "\n")
    plot(F, ran)
    print("\n".join(md))
    if worst > 0.001:
        log("two boots differ by %.4f%%" % (100 * worst))


def synth_threads(res, F, ran):
    """perf-ring's start-up with one synthesis thread (its default, as
    perf's) against one per online CPU (its default before), same boot."""
    rows = []
    for n in ran:
        rec = res[n][0][0]
        for m in MODES:
            one, cpus = rec.get(("perf-ring", "%s/0" % m)), rec.get(("perf-ring", "%s-synthcpus/0" % m))
            if not one or not cpus:
                continue
            a, b = one["busy"] - F[n]["base0"], cpus["busy"] - F[n]["base0"]
            rows.append("| %d | %s | %s | %.1f | %s | %.1f | %.3f |" % (
                n, LABEL[m], fmt_m(a), one["ns"] / 1e6, fmt_m(b), cpus["ns"] / 1e6,
                b / a if a > 0 else float("inf")))
    if not rows:
        return []
    return ["", "## perf-ring's synthesis threads", "",
            "perf-ring's start-up and exit (*fixed*, as above) with one synthesis thread, "
            "its default now and perf record's (`--num-thread-synthesize`), against the "
            "same run with `--num-thread-synthesize $(nproc)`, one thread per online CPU, "
            "its default before; the same boot and binary. *Guest time* is the run's "
            "CLOCK_MONOTONIC time in the guest, in ms: under -icount the spinner keeps the "
            "clock from jumping, so it is every vCPU's instructions over the run, the "
            "spinner's included (a vCPU that runs while the recorder waits adds to it).", "",
            "| CPUs | mode | one thread, fixed, M | guest time, ms | one per CPU, fixed, M | "
            "guest time, ms | one per CPU / one |",
            "| ---: | --- | ---: | ---: | ---: | ---: | ---: |"] + rows


def same_lines(a, b):
    """Whether two consoles have the same rec, snap and mem lines."""
    def lines(f):
        with open(f, errors="replace") as fh:
            return [x.rstrip("\r\n") for x in fh if x.startswith(("rec ", "snap ", "mem "))]
    return lines(a) == lines(b)


def snap_fits(F, ran):
    """{CPUs: (M instructions per snapshot apart from the bytes, per byte)}:
    the least-squares line through perf-ring's snapshots at each -m, at
    each count that has them."""
    fits = {}
    for n in ran:
        if ("perf-ring", "snap", 16) not in F[n]:
            continue
        pts = [F[n][("perf-ring", "snap", pg)] for pg in SNAP_PAGES]
        fits[n] = fit([x["bytes"] for x in pts], [x["cpu"] for x in pts])
    return fits


def snapshot_bytes(F, ran):
    """perf-ring's snapshot at each -m of SNAP_PAGES, per count: the cost
    per snapshot apart from the cost per byte, at one count of CPUs."""
    have = [n for n in ran if ("perf-ring", "snap", 16) in F[n]]
    if not have:
        return []
    md = ["", "### perf-ring's snapshot against its bytes", "",
          "The same snapshot runs, perf-ring only, with `-m` of %s pages a CPU (128 is "
          "the default, the row above). At one count of CPUs only the bytes change, so "
          "a least-squares line through them splits a cost per snapshot from a cost "
          "per byte." % ", ".join(str(p) for p in SNAP_PAGES), "",
          "| CPUs | -m pages | M instructions | bytes | instr./byte |",
          "| ---: | ---: | ---: | ---: | ---: |"]
    fits = []
    for n in have:
        pts = [(pg, F[n][("perf-ring", "snap", pg)]) for pg in SNAP_PAGES]
        for pg, x in pts:
            md.append("| %d | %d | %s | %s | %.2f |" % (
                n, pg, fmt_m(x["cpu"]), format(int(x["bytes"]), ","),
                x["cpu"] / max(x["bytes"], 1)))
        a, b = fit([x["bytes"] for _, x in pts], [x["cpu"] for _, x in pts])
        fits.append("%d CPU%s: %.2f instructions per byte plus %s M per snapshot" % (
            n, "" if n == 1 else "s", b, fmt_m(a)))
    md += ["", "Least squares at each count: " + "; ".join(fits) + "."]
    # The guest's own work (timers, idle exits) is counted over a run's
    # guest time: where the two runs of a pair differ in time, the
    # difference of their instructions carries it.
    dns = ["%d CPU%s %.2f s" % (n, "" if n == 1 else "s",
                                max(F[n][("perf-ring", "snap", pg)]["dns"] for pg in SNAP_PAGES) / 1e9)
           for n in have]
    md += ["", "The guest time of the two runs of a pair (with and without the snapshots) "
           "differs by up to: " + ", ".join(dns) + ". The guest's background work on every "
           "vCPU (timers, idle exits) is counted over that time, in the difference too: "
           "at 64 vCPUs the bare loop's runs put it at tens of millions of instructions a "
           "guest second, so a count whose pairs differ by a second cannot split its "
           "snapshot's cost into a part per byte and a part per snapshot."]
    return md


def fit(xs, ys):
    """Least squares y = a + b x."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0
    return my - b * mx, b


def kb(x, n):
    """Locked kB per CPU of one run's memory line."""
    return format(int(x["mem"].get("ring_kb", 0) / n), ",")


def extrapolation(F, ran):
    md = ["", "## Against the published figures, and 256 CPUs by extrapolation", ""]
    if len(ran) < 2:
        return md + ["Fewer than two counts ran: no fit."]
    rows = []
    for tool in TOOLS:
        for m in MODES:
            a, b = fit(ran, [F[n][(tool, m)]["fixed"] for n in ran])
            ring = F[ran[-1]][(tool, m)]["mem"].get("ring_kb", 0) / ran[-1]
            rows.append("| %s | %s | %s + %s x CPUs | %s | %s | %s | %s |" % (
                tool, LABEL[m], fmt_m(a), "%.3f M" % (b / 1e6), fmt_m(a + 64 * b),
                fmt_m(a + 256 * b), format(int(ring * 64), ","), format(int(ring * 256), ",")))
    md += ["Start-up fitted as a + b x CPUs (least squares over %s CPUs) and the ring "
           "mappings per CPU at %d CPUs, carried to 64 and 256 CPUs. **Extrapolation, not "
           "measured.**" % (", ".join(map(str, ran)), ran[-1]), "",
           "| tool | mode | start-up and exit, fitted | at 64 CPUs, M instructions | at 256 "
           "CPUs, M instructions | ring mappings at 64 CPUs, kB | at 256 CPUs, kB |",
           "| --- | --- | --- | ---: | ---: | ---: | ---: |"] + rows
    p, r = F[ran[-1]][("perf", "streaming")], F[ran[-1]][("perf-ring", "streaming")]
    md += ["",
           "Seed 003 (perf's multithreaded synthesis, 2017) took perf record's start-up "
           "from 12.74 s to 5.54 s on 272 CPUs (2.3x) by synthesizing on several threads. "
           "That start-up was dominated by the threads that existed, not by the CPUs: "
           "here, at %d CPUs with the few threads of the initramfs, perf-ring's whole "
           "start-up and exit is %.3f of perf record's (%s M against %s M instructions), "
           "on one thread; the threads dimension is scale-threads.md." % (
               ran[-1], r["fixed"] / p["fixed"], fmt_m(r["fixed"]), fmt_m(p["fixed"])),
           "",
           "perf's per-CPU buffer default: as root, perf record takes perf_event_mlock_kb "
           "(516 kB) less the control page, 128 data pages (512 KiB) per buffer; perf-ring "
           "takes the same 128 pages. Measured here at %d CPUs, perf record maps %s kB per "
           "CPU in %s mappings and perf-ring %s kB in %s (streaming; the flight recorder: "
           "perf %s kB, perf-ring %s kB with its side-band buffers). The kernel counts them "
           "against perf_event_mlock_kb x online CPUs per user first and the rest against "
           "RLIMIT_MEMLOCK (VmPin, which CAP_IPC_LOCK lifts): %s kB per CPU past the share "
           "for perf record, %s kB for perf-ring streaming, %s kB for its flight recorder. "
           "By the same per-CPU sizes, a 256-CPU machine would lock %s MB with "
           "perf record and %s MB with perf-ring streaming (extrapolation)." % (
               ran[-1], kb(p, ran[-1]), p["mem"].get("ring_maps", 0),
               kb(r, ran[-1]), r["mem"].get("ring_maps", 0),
               kb(F[ran[-1]][("perf", "flight")], ran[-1]),
               kb(F[ran[-1]][("perf-ring", "flight")], ran[-1]),
               format(int(p["mem"].get("pin_kb", 0) / ran[-1]), ","),
               format(int(r["mem"].get("pin_kb", 0) / ran[-1]), ","),
               format(int(F[ran[-1]][("perf-ring", "flight")]["mem"].get("pin_kb", 0) / ran[-1]), ","),
               "%.0f" % (p["mem"].get("ring_kb", 0) / ran[-1] * 256 / 1024),
               "%.0f" % (r["mem"].get("ring_kb", 0) / ran[-1] * 256 / 1024))]
    return md


def plot(F, ran):
    dat = os.path.join(RAW, "plot.dat")
    with open(dat, "w") as f:
        f.write("# cpus perf-fixed ring-fixed perf-stream ring-stream perf-flight ring-flight "
                "perf-snap ring-snap\n")
        for n in ran:
            f.write("%d %.3f %.3f %.1f %.1f %.1f %.1f %.3f %.3f\n" % (
                n, F[n][("perf", "streaming")]["fixed"] / 1e6,
                F[n][("perf-ring", "streaming")]["fixed"] / 1e6,
                F[n][("perf", "streaming")]["marg"], F[n][("perf-ring", "streaming")]["marg"],
                F[n][("perf", "flight")]["marg"], F[n][("perf-ring", "flight")]["marg"],
                F[n][("perf", "snap")]["cpu"] / 1e6, F[n][("perf-ring", "snap")]["cpu"] / 1e6))
    subprocess.run(["gnuplot"], check=True, text=True, input="""
set terminal pngcairo size 1200,420 noenhanced
set output '%s'
set multiplot layout 1,3 title 'perf record and perf-ring record -a, by CPUs (QEMU -icount, POST)'
set logscale x 2
set xlabel 'vCPUs'
set grid
set key top left
set yrange [0:*]
set title 'start-up and exit, M instructions'
plot '%s' using 1:2 with linespoints title 'perf record', '' using 1:3 with linespoints title 'perf-ring'
set title 'instructions per record, fixed cost removed'
plot '%s' using 1:4 with linespoints title 'perf, streaming', '' using 1:5 with linespoints title 'perf-ring, streaming', \\
     '' using 1:6 with linespoints title 'perf, flight', '' using 1:7 with linespoints title 'perf-ring, flight'
set title 'one snapshot, M instructions'
plot '%s' using 1:8 with linespoints title 'perf record', '' using 1:9 with linespoints title 'perf-ring'
unset multiplot
""" % (os.path.join(RES, OUT + ".png"), dat, dat, dat))


if __name__ == "__main__":
    main()
