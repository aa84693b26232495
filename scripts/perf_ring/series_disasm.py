#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the sample path's code of two builds of kernel/events/ring_buffer.o.

    series_disasm.py [POST.o UPSTREAM.o]

Without arguments the objects are build/kernel/post and build/kernel/upstream
(PR_BUILD overrides build/): the guest kernels, tinyconfig plus
kernel/configs/perf_ring.config (-Os), that the "make qemu-bench" figures
come from. "make series-sizes" calls it with the objects it builds.

For perf_output_begin_forward() and perf_output_begin_backward(), and every
function of the object that either calls or jumps to (out-of-line helpers such
as perf_output_get_handle.constprop.0), it writes
bench/results/series-begin-forward.diff: a header with, per build, the number
of instructions in each function and the calls it makes; then "diff -u" of
the disassembly (objdump -dr, addresses and the offsets of local jump
targets taken out), POST against UPSTREAM, with all of every function's body
as context, helpers after their first caller.

The counts are static: how many instructions each function has, not how
many run per record. Which of them a record written without loss runs
depends on the branches it takes. Not taking every conditional branch is
not that path: in PRE's perf_output_begin() the no-loss path takes the
branch after the space check. So no per-record count is computed here; the
per-record difference is what "make qemu-bench" measures.

SERIES_DISASM_FUNCS replaces the two entry points (for example
"perf_output_begin" for PRE, which has no other).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PR_BUILD", os.path.join(ROOT, "build"))
RESULTS = os.path.join(ROOT, "bench", "results")
ENTRIES = tuple(os.environ.get("SERIES_DISASM_FUNCS",
                                "perf_output_begin_forward perf_output_begin_backward").split())


def where(obj):
    """An object's name for the results: under build/ or the tree, never an
    absolute path."""
    obj = os.path.abspath(obj)
    for base, prefix in ((BUILD, "build"), (ROOT, "")):
        rel = os.path.relpath(obj, base)
        if not rel.startswith(".."):
            return os.path.join(prefix, rel) if prefix else rel
    return os.environ.get("SERIES_DISASM_WHERE", os.path.basename(obj))

FUNC_RE = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
INSN_RE = re.compile(r"^\s+([0-9a-f]+):\t(.*)$")
RELOC_RE = re.compile(r"^\t+([0-9a-f]+): (R_\S+)\s+(\S+)$")
TARGET_RE = re.compile(r"^\s*([0-9a-f]+) <([^>+]+)(\+0x[0-9a-f]+)?>")


def disassemble(obj):
    """{name: [(addr, text, reloc or None)]} of every function in obj."""
    out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", obj],
                         check=True, capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        if cur is None:
            continue
        m = RELOC_RE.match(line)
        if m and cur:
            a, t, _ = cur[-1]
            cur[-1] = (a, t, m.group(2) + " " + m.group(3))
            continue
        m = INSN_RE.match(line)
        if m:
            text = re.sub(r"\s+", " ", m.group(2).strip())
            cur.append((int(m.group(1), 16), text, None))
        elif not line.strip():
            cur = None
    return funcs


def mnemonic(text):
    parts = text.split()
    # prefixes objdump prints before the instruction
    while parts and parts[0] in ("rep", "repz", "repnz", "repe", "repne", "lock",
                                 "notrack", "bnd", "ds", "cs"):
        parts = parts[1:]
    return parts[0] if parts else ""


def operand(text):
    m = mnemonic(text)
    return text[text.index(m) + len(m):].strip()


def target(text):
    """(address, symbol) of a direct jump or call, or None."""
    m = TARGET_RE.match(operand(text))
    return (int(m.group(1), 16), m.group(2)) if m else None


def callees(funcs, name):
    """Functions of the object that name calls or jumps to directly."""
    out = []
    for _, text, reloc in funcs[name]:
        mn = mnemonic(text)
        if not (mn.startswith("call") or mn.startswith("j")):
            continue
        sym = None
        if reloc:
            sym = re.sub(r"[-+]0x[0-9a-f]+$", "", reloc.split()[1])
        else:
            t = target(text)
            sym = t[1] if t else None
        if sym and sym != name and sym in funcs and sym not in out:
            out.append(sym)
    return out


def closure(funcs, names):
    """names, then the functions of the object they reach by calls and
    jumps, each after its first caller."""
    order = []

    def visit(n):
        if n not in funcs or n in order:
            return
        order.append(n)
        for c in callees(funcs, n):
            if c not in names:
                visit(c)
    for n in names:
        visit(n)
    return order


def strip(funcs, name):
    """The body without addresses, so that two builds compare line by line."""
    lines = []
    for _, text, reloc in funcs[name]:
        t = re.sub(r"^(\S+(?: \S+)?\s+)[0-9a-f]+ <([^>+]+)\+0x[0-9a-f]+>",
                   r"\1<\2+local>", text)
        t = re.sub(r"^(\S+\s+)[0-9a-f]+ <([^>]+)>", r"\1<\2>", t)
        lines.append(t + ("\t# " + reloc if reloc else ""))
    return lines


def main():
    if len(sys.argv) == 3:
        objs = {"POST": sys.argv[1], "UPSTREAM": sys.argv[2]}
    elif len(sys.argv) == 1:
        objs = {k.upper(): os.path.join(BUILD, "kernel", k, "kernel/events/ring_buffer.o")
                for k in ("post", "upstream")}
    else:
        sys.exit(__doc__)
    for k, o in objs.items():
        if not os.path.isfile(o):
            sys.exit("series_disasm: %s: no %s (build that kernel first)" % (k, o))

    funcs = {k: disassemble(o) for k, o in objs.items()}
    order = {k: closure(f, ENTRIES) for k, f in funcs.items()}
    names = []
    for k in objs:
        for n in order[k]:
            if n not in names:
                names.append(n)

    head = ["# perf_output_begin_forward() and perf_output_begin_backward(), with the",
            "# functions of ring_buffer.o that they call, in two builds: POST against",
            "# UPSTREAM. Made by scripts/perf_ring/series_disasm.py (make series-disasm,",
            "# and make series-sizes) from objdump -dr --no-show-raw-insn; addresses and",
            "# the offsets of local jump targets taken out.",
            "# Objects: " + ", ".join("%s %s" % (k, where(o)) for k, o in objs.items()),
            "#",
            "# Instructions per function (static count), and what each calls:"]
    for k in objs:
        for n in order[k]:
            calls = []
            for _, text, reloc in funcs[k][n]:
                if mnemonic(text).startswith("call"):
                    t = target(text)
                    sym = re.sub(r"[-+]0x[0-9a-f]+$", "", reloc.split()[1]) if reloc else (t[1] if t else "indirect")
                    calls.append(sym)
            head.append("#   %-8s %-40s %4d%s" % (k, n, len(funcs[k][n]),
                        ("  calls " + ", ".join(calls)) if calls else ""))
    tmp = {}
    for k in objs:
        lines = []
        for n in names:
            lines.append("%s:" % n)
            lines += ["\t" + l for l in strip(funcs[k], n)] if n in funcs[k] else ["\t(not in this build)"]
            lines.append("")
        tmp[k] = lines
    import difflib
    diff = difflib.unified_diff(tmp["POST"], tmp["UPSTREAM"], "POST", "UPSTREAM",
                                n=max(len(tmp["POST"]), len(tmp["UPSTREAM"])), lineterm="")
    os.makedirs(RESULTS, exist_ok=True)
    fdiff = os.path.join(RESULTS, "series-begin-forward.diff")
    with open(fdiff, "w") as f:
        f.write("\n".join(head) + "\n")
        for line in diff:
            f.write(line.rstrip() + "\n" if line.strip() else line.rstrip(" ") + "\n")
    print("[perf_ring] series-disasm: wrote %s" % os.path.relpath(fdiff, ROOT),
          file=sys.stderr)


if __name__ == "__main__":
    main()
