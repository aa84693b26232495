# SPDX-License-Identifier: GPL-2.0
"""Part 9: what the durable output costs the recorded program.

perf-ring's streaming writer hands a partly filled chunk to the file when
nothing went out for 0.5 s (sink-stream.c), so that a recorder killed with
SIGKILL loses at most about that.  At high rates a chunk fills first and
the check is one clock read per read round; this part shows that it costs
nothing measurable: the close(-1) loop recorded with raw_syscalls:* (a
record at every system call entry and exit), perf-ring as built against
the same perf-ring with PERF_RING_NO_IDLE_FLUSH=1, interleaved, recorder
and workload on CPU 0.  Also a low rate (a sleep loop, a sample every
millisecond of a busy loop), where the flush runs twice a second: the
file's data after 1.5 s of a 3 s recording shows it.

overhead ratio = (flush - BASE) / (no flush - BASE) per round, mean and
95% interval."""

import os
import subprocess
import time

from bench_lib import (Fail, PERF_RING, QUICK, SCRATCH, SYSCALL_EVENTS, close_loop,
                       fmt_ratio, interleave, log, main, md_table, mean, paired_ratio,
                       pin, rm, save, stats_of, write_md)

CALLS = int(os.environ.get("BENCH_DURABLE_CALLS", 200000 if QUICK else 1000000))
ROUNDS = int(os.environ.get("BENCH_DURABLE_ROUNDS", 2 if QUICK else 12))


def cases():
    wl = close_loop(CALLS)
    c = [{"label": "BASE", "cmd": pin(0, wl)}]
    for label, env in (("flush", []), ("no flush", ["PERF_RING_NO_IDLE_FLUSH=1"])):
        f = os.path.join(SCRATCH, "durable-%s.data" % label.replace(" ", "-"))
        c.append({"label": label,
                  "cmd": pin(0, ["env"] + env + [PERF_RING, "record", "-q", "-e",
                                                 SYSCALL_EVENTS, "-m", "4096", "-o", f,
                                                 "--"] + wl),
                  "before": lambda f=f: rm(f),
                  "after": lambda o, e, f=f: (stats_of(f), rm(f))[0]})
    return c


def low_rate():
    """Bytes of data on file 1.5 s into a 3 s recording at 1 kHz, with and
    without the flush (the data section starts after the header)."""
    out = {}
    for label, env in (("flush", {}), ("no flush", {"PERF_RING_NO_IDLE_FLUSH": "1"})):
        f = os.path.join(SCRATCH, "durable-low.data")
        rm(f)
        p = subprocess.Popen([PERF_RING, "record", "-q", "-e", "cpu-clock", "-F", "1000",
                              "-o", f, "--", "python3", "-S", "-c",
                              "import time\nt = time.time() + 3\nwhile time.time() < t: pass"],
                             env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        size = os.path.getsize(f) if os.path.exists(f) else 0
        p.wait()
        if p.returncode != 0:
            raise Fail("perf-ring record at a low rate exited %d" % p.returncode)
        out[label] = {"mid": size, "end": os.path.getsize(f)}
        rm(f)
    return out


def part():
    cs = cases()
    log("durable output: %d close(-1) calls, %d rounds" % (CALLS, ROUNDS))
    res = interleave(cs, ROUNDS, "durable output")
    base = res["BASE"]["w"]
    on, off = res["flush"], res["no flush"]
    over = paired_ratio(on["w"], off["w"], base)
    low = low_rate()
    lost_on = mean([x["lost"] for x in on["x"]])
    lost_off = mean([x["lost"] for x in off["x"]])
    text = "## 9. Durable output: the cost of the 0.5 s flush\n\n"
    text += ("The close(-1) loop (%s calls) alone (BASE), under `perf-ring record -e %s "
             "-m 4096` as built (flush) and with `PERF_RING_NO_IDLE_FLUSH=1` (no flush), "
             "interleaved, %d rounds, on CPU 0. Times in ms (the workload's own). "
             "overhead ratio = (flush - BASE) / (no flush - BASE) per round, mean [95%% "
             "interval].\n\n" % (format(CALLS, ","), SYSCALL_EVENTS, ROUNDS))
    text += md_table(["BASE ms", "flush ms", "no flush ms", "overhead ratio", "verdict",
                      "lost (flush)", "lost (no flush)"],
                     [["%.0f" % (mean(base) * 1e3), "%.0f" % (mean(on["w"]) * 1e3),
                       "%.0f" % (mean(off["w"]) * 1e3), fmt_ratio(over), over["verdict"],
                       "%.0f" % lost_on, "%.0f" % lost_off]],
                     ["---:"] * 4 + ["---"] + ["---:"] * 2)
    text += ("\nAt a low rate (cpu-clock at 1 kHz on a 3 s busy loop, about 3,000 "
             "samples, less than one 1 MiB chunk): bytes on file 1.5 s in, and at the "
             "end.\n\n")
    text += md_table(["", "at 1.5 s", "at the end"],
                     [[k, str(v["mid"]), str(v["end"])] for k, v in low.items()],
                     ["---", "---:", "---:"])
    write_md("durable.md", text)
    save("durable", {"calls": CALLS, "rounds": ROUNDS, "overhead": over, "low": low})


if __name__ == "__main__":
    main(part)
