#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fill the PRE, POST and UPSTREAM columns, x86_64 and i386, of the test x
kernel matrix in Documentation/dev-tools/perf_ring_selftests.rst from the
console logs of the last "make qemu-check KERNEL=... [ARCH=i386]" runs
(build/images/<K>[-i386]/console-check.log).

Arguments name the columns to fill (pre, post-i386, ...); without any, all
six. A column not named keeps what the document has, so the i386 columns
can be filled from a machine that has only the i386 logs.

A test missing from a log is written as "not run"; the script exits 1 when a
log is missing or a result differs from the "expected on PRE" column."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "Documentation/dev-tools/perf_ring_selftests.rst")
KERNELS = ("pre", "post", "upstream", "pre-i386", "post-i386", "upstream-i386")
RESULT = re.compile(r"^(?:# )+(not )?ok \d+ (\S+)(?: # SKIP (.*))?$")


def results(kernel):
    path = os.path.join(ROOT, "build/images", kernel, "console-check.log")
    with open(path, errors="replace") as f:
        lines = f.read().replace("\r", "").splitlines()
    out = {}
    for line in lines:
        m = RESULT.match(line)
        if not m:
            continue
        failed, name, skip = m.groups()
        if failed:
            out[name] = "FAIL"
        elif skip:
            out[name] = "SKIP " + skip.replace("kernel lacks", "lacks").strip()
        else:
            out[name] = "ok"
    return out


def main(args):
    for k in args:
        if k not in KERNELS:
            print(f"selftest-matrix: {k}: not a column; use {', '.join(KERNELS)}")
            return 2
    fill = args or KERNELS
    res = {}
    bad = 0
    for k in fill:
        try:
            res[k] = results(k)
        except OSError as e:
            # Its column says "not run"; the run fails.
            print(f"selftest-matrix: {e.filename}: {e.strerror}; run make qemu-check first")
            res[k] = {}
            bad = 1
    with open(DOC) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^   \* - (\S+)$", lines[i])
        # A row: test, host, expected on PRE, then one cell per kernel.
        if m and m.group(1) != "test" and i + 2 + len(KERNELS) < len(lines):
            name = m.group(1)
            expected_pre = lines[i + 2].strip()[2:]
            for col, k in enumerate(KERNELS):
                if k not in fill:
                    continue
                got = res[k].get(name, "not run")
                lines[i + 3 + col] = "     - " + got
                want = expected_pre if k.startswith("pre") else "ok"
                if got != want:
                    print(f"selftest-matrix: {name} on {k}: {got}, expected {want}")
                    bad = 1
            i += 3 + len(KERNELS)
            continue
        i += 1
    with open(DOC, "w") as f:
        f.write("\n".join(lines))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
