#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read 'perf script -F event,trace' output on stdin and check that the
close(BASE + i) calls of close-loop form one contiguous run.

usage: seqcheck.py BASE COUNT [--ends-at-newest]
Prints "first last n" and exits 1 on a gap, a duplicate or a reorder."""
import re
import sys

base, count = int(sys.argv[1]), int(sys.argv[2])
pat = re.compile(r'sys_enter: NR 3 \(([0-9a-f]+),')
seq = []
for line in sys.stdin:
    m = pat.search(line)
    if m:
        v = int(m.group(1), 16)
        if base <= v < base + count:
            seq.append(v - base)
if not seq:
    print("no close(BASE+i) records")
    sys.exit(1)
bad = [i for i in range(1, len(seq)) if seq[i] != seq[i - 1] + 1]
print("first %d last %d n %d breaks %d" % (seq[0], seq[-1], len(seq), len(bad)))
if bad:
    i = bad[0]
    print("break after %d: %d" % (seq[i - 1], seq[i]))
    sys.exit(1)
if '--ends-at-newest' in sys.argv and seq[-1] != count - 1:
    print("does not end at the newest call (%d)" % (count - 1))
    sys.exit(1)
