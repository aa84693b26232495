#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""record-options.py: the manual's table of perf record's options.

The table in Documentation/admin-guide/perf-ring-record.rst lists every
option of ``perf record -h`` with perf's meaning (its help text) and
perf-ring's support, which comes from perf-ring's own option table
(``perf-ring record --list-options``), so that the two cannot drift apart.

  record-options.py --write RST   rewrite the table between its markers
                                  (needs perf and perf-ring)
  record-options.py --check RST   the table against perf-ring's table and its
                                  count line against the rows (needs perf-ring)

PERF_RING and PERF name the binaries (default: perf-ring, perf).
"""

import argparse
import os
import re
import subprocess
import sys

BEGIN = ".. BEGIN record-options (scripts/perf_ring/record-options.py --write)"
END = ".. END record-options"
SUPPORT = {"yes": "yes", "differs": "differs", "refused": "refused"}


def perf_ring_table():
    """{(short, long): (support, note)} for perf's options in perf-ring's table."""
    exe = os.environ.get("PERF_RING", "perf-ring")
    out = subprocess.run([exe, "record", "--list-options"], capture_output=True,
                         text=True, check=True).stdout
    t = {}
    for line in out.splitlines():
        short, long_, sup, note = line.split("\t")
        if sup == "own":
            continue
        t[(short if short != "-" else "", long_ if long_ != "-" else "")] = (sup, note)
    return t


def perf_help():
    """[(short, long, meaning)] from perf record -h, in its order."""
    exe = os.environ.get("PERF", "perf")
    p = subprocess.run([exe, "record", "-h"], capture_output=True, text=True)
    rows, cur = [], None
    for line in (p.stdout + p.stderr).splitlines():
        m = re.match(r"^\s{4}(?:-(\w))?(?:, )?\s*(?:--([\w-]+))?(\[?=?\s*<[^>]*>\]?)?\s*(.*)$", line)
        if m and (m.group(1) or m.group(2)) and line.lstrip().startswith("-"):
            cur = [m.group(1) or "", m.group(2) or "", m.group(4).strip()]
            rows.append(cur)
        elif cur is not None and line.strip() and not cur[2]:
            cur[2] = line.strip()
    return [tuple(r) for r in rows]


def esc(s):
    s = re.sub(r"([\\*`|])", r"\\\1", s)
    return re.sub(r"_(\W|$)", r"\\_\1", s)


def opt_name(short, long_):
    names = (["**-%s**" % short] if short else []) + (["**--%s**" % long_] if long_ else [])
    return ", ".join(names)


def count_line(rows):
    n = {k: sum(1 for r in rows if r[2] == k) for k in SUPPORT}
    return ("**%d of %d accepted as perf does, %d refused with a reason**; %d more are "
            "accepted with a difference, named in the table." %
            (n["yes"], len(rows), n["refused"], n["differs"]))


def render(rows):
    out = [BEGIN, "", count_line(rows), ""]
    for short, long_, sup, meaning, note in rows:
        out += [opt_name(short, long_), "    *perf:* " + esc(meaning), "",
                "    *perf-ring:* " + sup + (": " + esc(note) if note else ""), ""]
    return "\n".join(out + [END])


def parse_rst(text):
    """The rows (option, support) and the count line of the table in the manual."""
    body = text[text.index(BEGIN):text.index(END)]
    rows, counts = [], ""
    for line in body.splitlines():
        if line.startswith("**-"):
            rows.append([line])
        elif line.startswith("    *perf-ring:* ") and rows:
            rows[-1].append(line[len("    *perf-ring:* "):])
        elif line.startswith("**") and "accepted" in line:
            counts = line
    return rows, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write")
    ap.add_argument("--check")
    a = ap.parse_args()
    pr = perf_ring_table()
    if a.write:
        rows = []
        for short, long_, meaning in perf_help():
            key = (short, long_)
            if key not in pr:
                sys.exit("perf record's %s is not in perf-ring's table" % opt_name(short, long_))
            rows.append((short, long_, pr[key][0], meaning, pr[key][1]))
        text = open(a.write).read()
        text = text[:text.index(BEGIN)] + render(rows) + text[text.index(END) + len(END):]
        open(a.write, "w").write(text)
        print(count_line(rows))
        return 0
    rows, counts = parse_rst(open(a.check).read())
    bad = []
    seen = set()
    table = []
    for r in rows:
        names = re.findall(r"\*\*--?([\w-]+)\*\*", r[0])
        short = next((n for n in names if len(n) == 1 and "**-%s**" % n in r[0]), "")
        long_ = next((n for n in names if "**--%s**" % n in r[0]), "")
        sup = r[1].split(":")[0] if len(r) > 1 else "(none)"
        seen.add((short, long_))
        if (short, long_) not in pr:
            bad.append("%s: not in perf-ring's table" % r[0])
        elif pr[(short, long_)][0] != sup:
            bad.append("%s: the manual says %s, perf-ring's table %s" %
                       (r[0], sup, pr[(short, long_)][0]))
        table.append((short, long_, sup))
    for key in pr:
        if key not in seen:
            bad.append("%s: in perf-ring's table, not in the manual" % opt_name(*key))
    if counts != count_line(table):
        bad.append("count line '%s', the rows give '%s'" % (counts, count_line(table)))
    for b in bad:
        print("# " + b)
    print("%s: %d rows, %s" % ("FAIL" if bad else "ok", len(rows), count_line(table)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
