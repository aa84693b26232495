# SPDX-License-Identifier: GPL-2.0
"""Shared helpers for the make bench parts: running commands, timing
interleaved rounds, paired ratios with their spread, and Markdown output.

bench.sh sets the environment (BENCH_OUT, BENCH_SCRATCH, BENCH_STATE,
QUICK) and runs one bench_<part>.py per part.  Every part raises Fail when
a tool breaks or an output is unreadable; a timing never fails a part."""

import json
import math
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("PR_BUILD", os.path.join(ROOT, "build"))
TOOLS = os.path.join(BUILD, "tools", "perf_ring")
PERF_RING = os.path.join(TOOLS, "perf-ring")
CLOSE_LOOP = os.path.join(TOOLS, "close-loop")
PY = [sys.executable, "-S", "-E", "-B"]
FLOOR = PY + [os.path.join(HERE, "bench_floor.py")]
THREADS = PY + [os.path.join(HERE, "bench_threads.py")]
QUICK = os.environ.get("QUICK", "") not in ("", "0")
OUT = os.environ.get("BENCH_OUT", os.path.join(BUILD, "bench", "results"))
SCRATCH = os.environ.get("BENCH_SCRATCH", os.path.join(BUILD, "bench", "scratch"))
STATE = os.environ.get("BENCH_STATE", os.path.join(BUILD, "bench", "state"))
T0 = float(os.environ.get("BENCH_T0", time.time()))

# Events of the close(-1) workload, as in the series.
SYSCALL_EVENTS = "raw_syscalls:*"
# The varied workload: a tar of a header tree through a pipe, with
# syscalls and the scheduler recorded.
VARIED_EVENTS = ("raw_syscalls:*,sched:sched_switch,sched:sched_wakeup,"
                 "syscalls:sys_enter_openat")
VARIED_CMD = ["sh", "-c", "tar -cf - -C /usr/include . | cat >/dev/null"]


class Fail(Exception):
    """A part is broken (not slow): the harness exits non-zero."""


def log(msg):
    d = int(time.time() - T0)
    sys.stderr.write("[perf_ring] bench %dm%02ds: %s\n" % (d // 60, d % 60, msg))
    sys.stderr.flush()


def pin(cpu, cmd):
    return ["taskset", "-c", str(cpu)] + list(cmd)


def timed(cmd):
    """cmd run under bash's time: the workload's own run time, from fork to
    exit, goes to stderr as one line "S.mmm" (see workload_time)."""
    return ["bash", "-c", 'TIMEFORMAT=%3R; time "$@"', "timed"] + list(cmd)


_WL_TIME = re.compile(r"^(\d+\.\d{3})$", re.M)


def workload_time(err):
    m = _WL_TIME.findall(err)
    if not m:
        raise Fail("no workload time on stderr:\n" + err[-300:])
    return float(m[-1])


def close_loop(n, cpu=None):
    cmd = timed([CLOSE_LOOP, str(n)])
    return pin(cpu, cmd) if cpu is not None else cmd


def varied(cpu=None):
    cmd = timed(VARIED_CMD)
    return pin(cpu, cmd) if cpu is not None else cmd


def sh_quote(cmd):
    return " ".join(c if re.match(r"^[\w@%+=:,./*-]+$", c) else "'%s'" % c.replace("'", "'\\''")
                    for c in cmd)


def run(cmd, timeout=600, check=True, env=None):
    """Run cmd in its own process group; return (seconds, rc, out, err)."""
    t = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, errors="replace", start_new_session=True, env=env)
    except OSError as e:
        raise Fail("cannot run %s: %s (make tools?)" % (cmd[0], e.strerror))
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise Fail("timed out after %ds: %s" % (timeout, sh_quote(cmd)))
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    dt = time.perf_counter() - t
    if check and p.returncode != 0:
        tail = "\n".join((err or "").strip().splitlines()[-5:])
        raise Fail("exit %d: %s\n%s" % (p.returncode, sh_quote(cmd), tail))
    return dt, p.returncode, out, err


def rm(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def clean_scratch(prefix):
    for f in os.listdir(SCRATCH):
        if f.startswith(prefix):
            rm(os.path.join(SCRATCH, f))


_HELP = []


def need(option, feature):
    """Fail, naming the feature, when perf-ring record does not have option."""
    if not _HELP:
        _, _, out, err = run([PERF_RING, "record", "--help"], check=False)
        _HELP.append(out + err)
    # perf's parse-options lists a negatable option once, without its --no- form
    names = [option] + (["--" + option[5:]] if option.startswith("--no-") else [])
    if not any(n in _HELP[0] for n in names):
        raise Fail("perf-ring lacks %s: 'perf-ring record --help' lists no %s" % (feature, option))


# ---- reading recorder output ----

_PR_SUMMARY = re.compile(r"\[ perf-ring record: (.*) \]")


def perf_ring_summary(err):
    """The fields of perf-ring's closing line: lost, raw, out, ratio, writer."""
    m = None
    for m in _PR_SUMMARY.finditer(err):
        pass
    if not m:
        raise Fail("perf-ring printed no summary line:\n" + err[-500:])
    s = m.group(1)
    d = {"line": s}
    x = re.search(r"(\d+) lost", s)
    d["lost"] = int(x.group(1)) if x else None
    x = re.search(r"\(([\d.]+)x\)", s)
    d["ratio"] = float(x.group(1)) if x else None
    d["writer"] = s.rsplit(",", 1)[-1].strip()
    return d


def perf_summary(err):
    """perf record's closing lines: compression ratio if any."""
    d = {}
    x = re.search(r"ratio is ([\d.]+)", err)
    d["ratio"] = float(x.group(1)) if x else None
    return d


def stats_of(path, timeout=300):
    """Read a perf.data file with perf itself (perf report --stats) and with
    perf-ring report: SAMPLE records, and samples lost (the sum of the
    PERF_RECORD_LOST records).  A file perf cannot read fails the part."""
    _, rc, out, err = run(["perf", "report", "--stats", "-i", path], timeout=timeout, check=False)
    if rc != 0 or "Aggregated stats" not in out:
        raise Fail("perf report --stats cannot read %s (exit %d): %s" %
                   (os.path.basename(path), rc, (err or out).strip()[-300:]))
    if re.search(r"(?i)couldn't decompress|failed to process|corrupt", err):
        raise Fail("perf report --stats on %s: %s" % (os.path.basename(path), err.strip()[-300:]))
    agg = out.split("Aggregated stats", 1)[1]
    m = re.search(r"SAMPLE events:\s+(\d+)", agg)
    samples = int(m.group(1)) if m else 0
    _, rc, out2, err2 = run([PERF_RING, "report", "-i", path], timeout=timeout, check=False)
    m = re.search(r"lost: (\d+) samples in (\d+) LOST", out2)
    if rc != 0 or not m:
        raise Fail("perf-ring report cannot read %s (exit %d): %s" %
                   (os.path.basename(path), rc, (err2 or out2).strip()[-300:]))
    return {"samples": samples, "lost": int(m.group(1)), "lost_records": int(m.group(2)),
            "bytes": os.path.getsize(path)}


# ---- a guest's console log (make qemu-bench) ----

def console_results(logf, kinds, bad_status):
    """What guest-bench.sh printed on a guest's console, in logf:
    (results, profiles, lines).  results {kind: {(tool, mode): {field:
    int}}} holds each line "KIND tool=T mode=M field=V ..." of kinds (the
    first words wanted) with its whole-number fields; a line whose status=
    is not 0 goes to bad_status(line, fields) and is not kept.  profiles
    {"TOOL MODE": [lines]} holds what stands between "PROFILE_BEGIN TOOL
    MODE" and "PROFILE_END"; lines, every other line, for a part's own
    (perfcheck, "# scale:")."""
    res = {k: {} for k in kinds}
    starts = tuple(k + " tool=" for k in kinds)
    prof, rest, cur = {}, [], None
    with open(logf, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if cur is not None:
                if line.startswith("PROFILE_END"):
                    cur = None
                else:
                    prof[cur].append(line)
                continue
            if line.startswith("PROFILE_BEGIN"):
                cur = " ".join(line.split()[1:])
                prof[cur] = []
            elif line.startswith(starts):
                kv = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
                if kv.get("status") != "0":
                    bad_status(line, kv)
                    continue
                res[line.split()[0]][(kv["tool"], kv["mode"])] = {
                    k: int(v) for k, v in kv.items() if re.fullmatch(r"-?\d+", v)}
            else:
                rest.append(line)
    return res, prof, rest


def qemu_boot(part, smp, logf, mem_mb, tmo, append="", nr_cpus=64):
    """One boot of POST (built with CONFIG_NR_CPUS=nr_cpus) under -icount
    at -smp smp with perf in the initramfs, running guest-bench.sh's part;
    the console in logf, and "EXIT WALL_SECONDS" in logf.wall.  Whether
    the guest finished."""
    env = dict(os.environ, GUEST_PERF="1", NR_CPUS=str(nr_cpus), BENCH_SMP=str(smp),
               QEMU_MEM="%dM" % mem_mb,
               QEMU_APPEND=("perf_ring.bench=%s %s" % (part, append)).strip())
    t = time.time()
    r = subprocess.run([os.path.join(HERE, "qemu-run.sh"), "post", "bench", logf, str(tmo)],
                       env=env, stdout=subprocess.DEVNULL)
    with open(logf + ".wall", "w") as f:
        f.write("%d %.0f\n" % (r.returncode, time.time() - t))
    return r.returncode == 0


def boot_walls(head, boots):
    """A Markdown table of the boots' exits and wall times, from what
    qemu_boot() left beside each console: boots is [(label, logf)]."""
    md = ["| %s | exit | wall time of the boot |" % head, "| ---: | ---: | ---: |"]
    for label, logf in boots:
        try:
            with open(logf + ".wall") as f:
                rc, wall = f.read().split()
            md.append("| %s | %s | %dm%02ds |" % (label, rc, int(float(wall)) // 60,
                                                 int(float(wall)) % 60))
        except (OSError, ValueError):
            md.append("| %s | ? | not recorded |" % label)
    return md


# ---- interleaved rounds ----

def interleave(cases, rounds, what, timeout=600, warmup=()):
    """Run every case once per round, in the same order each round (ABAB...).

    cases: list of dicts with "label", "cmd", and optionally "before" (a
    callable run before the command, untimed), "after" (a callable taking
    (out, err) and returning a dict of extra values, untimed).
    Every command runs a timed() workload: "w" is the workload's own run
    time, "t" the wall time of the whole command (recorder start and end
    included).
    Returns {label: {"w": [s...], "t": [s...], "x": [extra dicts...]}}."""
    res = {c["label"]: {"w": [], "t": [], "x": []} for c in cases}
    for cmd in warmup:		# page cache, first-exec costs: untimed
        run(cmd, timeout=timeout)
    t_part = time.time()
    for r in range(rounds):
        for c in cases:
            if c.get("before"):
                c["before"]()
            dt, _, out, err = run(c["cmd"], timeout=timeout)
            extra = c["after"](out, err) if c.get("after") else {}
            res[c["label"]]["t"].append(dt)
            res[c["label"]]["w"].append(workload_time(err))
            res[c["label"]]["x"].append(extra)
        done = r + 1
        eta = (time.time() - t_part) / done * (rounds - done)
        log("%s: round %d of %d done (about %ds left)" % (what, done, rounds, eta))
    return res


# ---- statistics ----

# two-sided 95% Student t quantiles by degrees of freedom
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365,
        8: 2.306, 9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def t95(df):
    if df <= 0:
        return float("inf")
    for k in sorted(_T95):
        if df <= k:
            return _T95[k]
    return 1.960


def mean(v):
    return sum(v) / len(v) if v else float("nan")


def sd(v):
    if len(v) < 2:
        return float("nan")
    m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def median(v):
    s = sorted(v)
    n = len(s)
    if not n:
        return float("nan")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def ci(v):
    """Mean and 95% interval of the mean."""
    m = mean(v)
    if len(v) < 2:
        return m, float("nan"), float("nan")
    h = t95(len(v) - 1) * sd(v) / math.sqrt(len(v))
    return m, m - h, m + h


def paired_ratio(a, b, base=None):
    """Per-round ratios a_i / b_i (or of overheads (a_i - base_i) / (b_i - base_i)),
    summarized as mean and 95% interval."""
    if base is None:
        r = [x / y for x, y in zip(a, b) if y]
    else:
        r = [(x - z) / (y - z) for x, y, z in zip(a, b, base) if y != z]
    m, lo, hi = ci(r)
    return {"ratio": m, "lo": lo, "hi": hi, "n": len(r), "verdict": verdict(m, lo, hi)}


def verdict(m, lo, hi, target=1.0):
    if math.isnan(lo):
        return "too few runs for a verdict"
    if lo <= target <= hi:
        return "no measurable difference"
    return "lower" if hi < target else "higher"


def fmt_ratio(p):
    if math.isnan(p["lo"]):
        return "%.3f" % p["ratio"]
    return "%.3f [%.3f, %.3f]" % (p["ratio"], p["lo"], p["hi"])


def fmt_bytes(n):
    if n is None:
        return "-"
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= f:
            return "%.1f %s" % (n / f, unit)
    return "%d B" % n


def md_table(head, rows, align=None):
    align = align or ["---"] + ["---:"] * (len(head) - 1)
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines) + "\n"


def plot(name, lines, title, xlabel, ylabel, curves, settings="", dat_dir=None):
    """The samples (lines) in DIR/name.dat (STATE unless dat_dir), plotted
    into bench/results/name.png by gnuplot: curves is the argument of its
    plot command, with {dat} for the data file; settings, more "set"
    lines.  Returns the .dat's path."""
    d = dat_dir or STATE
    os.makedirs(d, exist_ok=True)
    dat = os.path.join(d, name + ".dat")
    with open(dat, "w") as f:
        f.write("\n".join(lines) + "\n")
    png = os.path.join(ROOT, "bench", "results", name + ".png")
    script = ('set terminal pngcairo size 900,520 font "sans,10" noenhanced\n'
              'set output "%s"\nset title "%s"\nset xlabel "%s"\nset ylabel "%s"\n'
              'set grid\n%s\nplot %s\n'
              % (png, title, xlabel, ylabel, settings, curves.replace("{dat}", dat)))
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return dat


# ---- results shared between parts ----

def save(part, data):
    os.makedirs(STATE, exist_ok=True)
    with open(os.path.join(STATE, part + ".json"), "w") as f:
        json.dump(data, f, indent=1)


def load(part):
    try:
        with open(os.path.join(STATE, part + ".json")) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def write_md(name, text):
    """A part's section; bench_report.py joins them into bench.md."""
    os.makedirs(STATE, exist_ok=True)
    with open(os.path.join(STATE, "section-" + name), "w") as f:
        f.write(text)


def main(fn):
    """Run a part; exit 1 with the reason when it breaks."""
    def stop(sig, _):
        raise SystemExit(128 + sig)	# unwinds: every child group is killed on the way
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, stop)
    os.makedirs(SCRATCH, exist_ok=True)
    try:
        fn()
    except Fail as e:
        log("FAILED: %s" % e)
        sys.exit(1)
