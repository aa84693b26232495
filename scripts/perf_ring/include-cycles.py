#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""include-cycles.py: fail on an import circle between the recorder's files.

A file pair NAME.c/NAME.h is one module.  Module A imports module B when
A.c or A.h includes "B.h".  An import circle (A imports B, B imports ...
imports A) means neither file can be read, tested or replaced alone.  The
script prints every circle it finds (one strongly connected component per
line, with an include that closes it) and exits 1; with none it prints the
module count and exits 0.

usage: include-cycles.py [DIR]    (default: tools/perf_ring)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)\.h"', re.M)


def graph(src):
    mods = {}
    for name in sorted(os.listdir(src)):
        stem, ext = os.path.splitext(name)
        if ext not in ('.c', '.h'):
            continue
        with open(os.path.join(src, name), encoding='utf-8') as f:
            deps = set(INCLUDE.findall(f.read()))
        mods.setdefault(stem, {})
        for d in deps - {stem}:
            mods[stem].setdefault(d, name)
    for deps in list(mods.values()):
        for d in deps:
            mods.setdefault(d, {})
    return mods


def components(mods):
    """Tarjan's strongly connected components, iterative."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in mods:
        if root in index:
            continue
        work = [(root, iter(sorted(mods[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(mods[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else 'tools/perf_ring'
    mods = graph(src)
    bad = [c for c in components(mods) if len(c) > 1]
    for comp in bad:
        edges = ['%s -> %s (%s)' % (a, b, mods[a][b])
                 for a in comp for b in sorted(mods[a]) if b in comp]
        print('import circle: %s: %s' % (' '.join(comp), '; '.join(edges)))
    if bad:
        return 1
    print('%d modules in %s, no import circle' % (len(mods), src))
    return 0


if __name__ == '__main__':
    sys.exit(main())
