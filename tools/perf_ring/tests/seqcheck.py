#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read 'perf script -F event,trace' output on stdin and check that the
close(BASE + i) calls of close-loop form one contiguous run.

usage: seqcheck.py BASE COUNT [--ends-at-newest] [--allow-missing N]
Prints "first last n" and exits 1 on a gap, a duplicate or a reorder.
--allow-missing N: gaps of N calls in all are allowed (a streaming file
whose LOST records say N records were dropped); duplicates and reorders
are not."""
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
allow = 0
if '--allow-missing' in sys.argv:
    allow = int(sys.argv[sys.argv.index('--allow-missing') + 1])
missing = seq[-1] - seq[0] + 1 - len(seq)
if bad and allow and all(seq[i] > seq[i - 1] for i in bad) and missing <= allow:
    print("%d calls missing in %d gaps, within the %d the LOST records report" % (missing, len(bad), allow))
    bad = []
if bad:
    i = bad[0]
    print("break after %d: %d" % (seq[i - 1], seq[i]))
    sys.exit(1)
if '--ends-at-newest' in sys.argv and seq[-1] != count - 1:
    print("does not end at the newest call (%d)" % (count - 1))
    sys.exit(1)
