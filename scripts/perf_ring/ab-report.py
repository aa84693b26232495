#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ab-report.py: the report of make ab (scripts/perf_ring/ab.sh).

Reads the four console logs (A-1, A-2, B-1, B-2) and the four perf-ring
recordings that ab.sh unpacked next to them, and writes report.md:
instructions per run with their spread, the verdict, perf-ring's symbol
table of A and B with the delta per symbol, and perf diff's table of the
same two recordings beside it, checked against it.
"""

import argparse
import bisect
import math
import os
import re
import subprocess
import sys
from collections import Counter

from bench_lib import mean, sd

LINE = re.compile(r'^AB_(WARM|EMPTY|RUN) i=(\d+) rc=(-?\d+) ns=(\d+) irqs=(-?\d+) out=(\d+)')


def parse_log(path):
    runs = {'WARM': [], 'EMPTY': [], 'RUN': []}
    release = '?'
    notes = []
    with open(path, errors='replace') as f:
        for raw in f:
            line = raw.rstrip('\r\n')
            m = LINE.match(line)
            if m:
                runs[m.group(1)].append({'ns': int(m.group(4)), 'irqs': int(m.group(5)),
                                         'out': m.group(6)})
            elif line.startswith('AB_BEGIN'):
                m = re.search(r'release=(\S+)', line)
                release = m.group(1) if m else '?'
            elif line.startswith('AB_RECORD '):
                notes.append(line[len('AB_RECORD '):])
            elif line.startswith('AB_WARMOUT '):
                runs.setdefault('out', []).append(line[len('AB_WARMOUT '):])
    return runs, release, notes


def tolerance(value):
    """A spread this small is ~0: 10 instructions, or 1 ppm of the value."""
    return max(10.0, value * 1e-6)


def why_spread(boots):
    """Why the runs of one kernel do not repeat exactly, in words."""
    reasons = []
    allruns = [r for b in boots for r in b]
    value = mean([r['ns'] for r in allruns])
    tol = tolerance(value)
    within = max(max(r['ns'] for r in b) - min(r['ns'] for r in b) for b in boots)
    if within > tol:
        irqs = sorted({r['irqs'] for r in allruns})
        outs = {r['out'] for r in allruns}
        # Runs that took the same number of interrupts: do they agree?
        worst = 0
        for k in irqs:
            for b in boots:
                same = [r['ns'] for r in b if r['irqs'] == k]
                if len(same) > 1:
                    worst = max(worst, max(same) - min(same))
        if len(irqs) > 1 and worst <= tol:
            lo = mean([r['ns'] for r in allruns if r['irqs'] == irqs[0]])
            hi = mean([r['ns'] for r in allruns if r['irqs'] == irqs[-1]])
            per = (hi - lo) / (irqs[-1] - irqs[0])
            reasons.append('timer interrupts: runs took %d to %d interrupts (the tick falls at a '
                           'different point of each run); runs with the same count agree to %d '
                           'instructions, each interrupt adds about %.0f' % (irqs[0], irqs[-1], worst, per))
        elif len(outs) > 1:
            reasons.append('the workload is not deterministic: its output differs between runs '
                           '(%d different outputs in %d runs)' % (len(outs), len(allruns)))
        else:
            # Does run i repeat across the boots? Then the guest changes in
            # the same way from run to run: a drift, not noise.
            repeat = all(abs(x['ns'] - y['ns']) <= tol for x, y in zip(boots[0], boots[1]))
            steps = [b[-1]['ns'] - b[1]['ns'] for b in boots if len(b) > 2]
            what = ''
            if len(irqs) > 1:
                what = 'timer interrupts (%d to %d per run) and more: ' % (irqs[0], irqs[-1])
            if repeat:
                reasons.append(what + 'run i of one boot repeats run i of the other to the instruction, '
                               'but the runs of a boot drift (from the second run to the last: %+.0f): '
                               'something in the guest changes from one run to the next the same way '
                               'on every boot; A and B are compared run by run, which cancels it'
                               % (mean(steps) if steps else 0))
            else:
                reasons.append(what + 'runs with the same interrupt count and output still differ by up '
                               'to %d instructions: the workload takes different paths from run to run'
                               % worst)
    bmeans = [mean([r['ns'] for r in b]) for b in boots]
    if abs(bmeans[0] - bmeans[1]) > max(tol, within):
        reasons.append('the two boots differ by more than the runs of one boot: the guest did not '
                       'repeat itself (%.0f instructions between the boots\' means)' % abs(bmeans[0] - bmeans[1]))
    return within, abs(bmeans[0] - bmeans[1]), reasons


# ---- the profile ----------------------------------------------------------

def kallsyms_of(cache):
    """(sorted addresses, names) from the kallsyms in a perf-ring build-id cache."""
    kdir = os.path.join(cache, '[kernel.kallsyms]')
    hexes = os.listdir(kdir) if os.path.isdir(kdir) else []
    if len(hexes) != 1:
        sys.exit('ab-report: %s holds %d kernels, not 1' % (kdir, len(hexes)))
    syms = []
    with open(os.path.join(kdir, hexes[0], 'kallsyms')) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in 'tTwW':
                continue
            a = int(p[0], 16)
            if a:
                syms.append((a, p[2]))
    syms.sort()
    return [a for a, _ in syms], [s for _, s in syms], hexes[0]


def samples_of(data):
    """(event, comm, ip, period) of every sample in a recording, from perf script (no symbols)."""
    r = subprocess.run(['perf', 'script', '-i', data, '-F', 'event,comm,ip,period'],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit('ab-report: perf script -i %s failed:\n%s' % (data, r.stderr))
    out = []
    for line in r.stdout.splitlines():
        m = re.match(r'^\s*(.*?)\s+(\d+)\s+(\S+):\s+([0-9a-f]+)\s*$', line)
        if m:
            out.append((m.group(3), m.group(1), int(m.group(4), 16), int(m.group(2))))
    return out


def profile(d, scale):
    """perf-ring's recording in directory d: instructions and samples per
    symbol over every event, divided by scale (events x runs recorded: each
    event counts every run), and samples per symbol of the first event."""
    addrs, names, bid = kallsyms_of(os.path.join(d, 'ab-cache'))
    ins, cnt, first = Counter(), Counter(), Counter()
    ev0 = None
    for ev, comm, ip, period in samples_of(os.path.join(d, 'ab.data')):
        if ip >= 0xffff800000000000:
            i = bisect.bisect_right(addrs, ip) - 1
            k = names[i] if i >= 0 else '[kernel] unknown'
        else:
            k = '[user] ' + comm
        ins[k] += period / scale
        cnt[k] += 1
        ev0 = ev0 or ev
        if ev == ev0:
            first[k] += 1
    return ins, cnt, first, ev0


PERF_DIFF = re.compile(r'^\s*(?:([\d.]+)%)?\s+(?:([+-][\d.]+)%)?\s+(\S+)\s+\[(\S)\]\s+(\S+)')


def perf_diff(out, a, b):
    cmd = ['perf', '--buildid-dir', os.path.join(out, 'debug'), 'diff', '-s', 'dso,sym', a, b]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=out)
    return r.returncode, r.stdout, r.stderr


def plot_profile(out, name, verdict, keys, ia, ib, per):
    """profile.png: A's and B's instructions per run (or per call) in the
    symbols that changed most, as clustered bars. None without gnuplot."""
    div = per or 1
    dat = os.path.join(out, 'profile.dat')
    with open(dat, 'w') as f:
        f.write('# symbol A B (instructions per %s)\n' % ('call' if per else 'run'))
        for k in keys:
            f.write('"%s" %.3f %.3f\n' % (k.replace('"', "'"), ia[k] / div, ib[k] / div))
    png = os.path.join(out, 'profile.png')
    script = """
set terminal pngcairo size 1100,600 font "sans,10" noenhanced
set output '%s'
set title "make ab: %s\\n%s"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel 'instructions per %s (perf-ring, cpu-clock samples x period)'
set yrange [0:*]
set xtics rotate by -35
set key top right
set grid ytics
set bmargin 12
set rmargin 16
plot '%s' using 2:xtic(1) title 'A', '' using 3 title 'B'
""" % (png, name, verdict, 'call' if per else 'run', dat)
    try:
        r = subprocess.run(['gnuplot'], input=script, text=True, capture_output=True)
    except OSError:
        return None
    if r.returncode:
        sys.stderr.write('ab-report: gnuplot failed, no plot:\n%s' % r.stderr)
        return None
    return 'profile.png'


def main():
    ap = argparse.ArgumentParser()
    for o in ('out', 'name', 'run', 'command', 'build', 'a-label', 'a-what', 'a-tree',
              'b-label', 'b-what', 'b-tree'):
        ap.add_argument('--' + o, required=True)
    ap.add_argument('--n', type=int, required=True)
    ap.add_argument('--periods', required=True)
    ap.add_argument('--reps', type=int, default=1)
    ap.add_argument('--per', type=int)
    args = ap.parse_args()
    out = args.out
    sides = {'A': (args.a_label, args.a_what, args.a_tree), 'B': (args.b_label, args.b_what, args.b_tree)}

    st = {}
    for s in 'AB':
        boots, empties, notes = [], [], []
        release = '?'
        for b in (1, 2):
            runs, release, nt = parse_log(os.path.join(out, '%s-%d.log' % (s, b)))
            if b == 1:
                output = runs.get('out', [])
            if len(runs['RUN']) != args.n:
                sys.exit('ab-report: %s boot %d printed %d runs, not %d' % (s, b, len(runs['RUN']), args.n))
            boots.append(runs['RUN'])
            empties.append(runs['EMPTY'])
            notes += nt
        allns = [r['ns'] for b in boots for r in b]
        within, between, reasons = why_spread(boots)
        st[s] = {'boots': boots, 'value': mean(allns), 'sd': sd(allns), 'within': within,
                 'between': between, 'reasons': reasons, 'release': release, 'notes': notes,
                 'bmeans': [mean([r['ns'] for r in b]) for b in boots],
                 'empty': mean([r['ns'] for b in empties for r in b]),
                 'irqs': sorted({r['irqs'] for b in boots for r in b}), 'output': output}

    va, vb = st['A']['value'], st['B']['value']
    # Run i of boot b of B against run i of boot b of A: whatever changes
    # from run to run in the guest changes alike in both, and cancels.
    pairs = [rb['ns'] - ra['ns'] for b in (0, 1)
             for ra, rb in zip(st['A']['boots'][b], st['B']['boots'][b])]
    d = mean(pairs)
    dspread = max(pairs) - min(pairs)
    se = sd(pairs) / math.sqrt(len(pairs))
    resolution = max(1.0, 3 * se, st['A']['between'], st['B']['between'])
    per = args.per
    L = []
    w = L.append

    def fmt(x, dec=0):
        return '{:,.{}f}'.format(x, dec)

    def perrun(x, dec=1):
        s = fmt(x, 0)
        if per:
            s += ' (%s per call)' % fmt(x / per, 3)
        return s

    w('# make ab: %s' % args.name)
    w('')
    w('Command: `%s`' % args.command)
    w('')
    w('- A: %s; `uname -r` %s' % (sides['A'][1], st['A']['release']))
    w('- B: %s; `uname -r` %s' % (sides['B'][1], st['B']['release']))
    w('- RUN: `sh -c \'%s\'`, timed %d times in each of 2 boots per kernel, after one untimed run; '
      'QEMU TCG with `-icount shift=0,align=off,sleep=off`, one vCPU, where the guest clock '
      'advances one nanosecond per instruction: a time in ns is a count of instructions '
      '(kernel and user, everything the vCPU ran).' % (args.run, args.n))
    w('')
    w('## Verdict')
    w('')
    if abs(d) > resolution:
        verdict = 'A and B differ by %s instructions per run (%+.4f%%)' % (perrun(d), 100 * d / va)
        w('**%s**: B/A = %.6f; resolution %s instructions per run.' % (verdict, vb / va, fmt(resolution)))
    else:
        verdict = 'no difference down to %s instructions per run' % perrun(resolution)
        w('**%s** (B - A = %s, B/A = %.6f).' % (verdict, fmt(d, 1), vb / va))
    w('')
    w('The difference is the mean of %d paired differences, run i of a boot of B minus run i of '
      'the same boot of A; they range over %s instructions (%s to %s). The resolution is the '
      'larger of three standard errors of that mean, the difference between the two boots of '
      'either kernel, and one instruction.' % (len(pairs), fmt(dspread), fmt(min(pairs)), fmt(max(pairs))))
    w('')
    w('## Instructions per run')
    w('')
    w('| kernel | per run | boot 1 | boot 2 | spread within a boot | between boots | `sh -c :` alone |')
    w('| --- | ---: | ---: | ---: | --- | --- | ---: |')
    for s in 'AB':
        x = st[s]
        tol = tolerance(x['value'])
        wi = ('~0 (%s)' % fmt(x['within'])) if x['within'] <= tol else 'not ~0, see below'
        be = ('~0 (%s)' % fmt(x['between'], 1)) if x['between'] <= max(tol, x['within']) else 'not ~0, see below'
        w('| %s %s | %s | %s | %s | %s | %s | %s |' % (
            s, sides[s][0], perrun(x['value']), fmt(x['bmeans'][0], 1), fmt(x['bmeans'][1], 1),
            wi, be, fmt(x['empty'])))
    w('')
    w('B - A: %s instructions per run; B/A = %.6f.' % (perrun(d), vb / va))
    w('')
    for s in 'AB':
        for r in st[s]['reasons']:
            w('- %s: spread not ~0: %s.' % (s, r))
    if st['A']['reasons'] or st['B']['reasons']:
        w('')
        w('A and B are compared run by run (run i of a boot against run i of the same boot), so '
          'whatever of this spread repeats in both kernels cancels; what does not is in the range of '
          'the paired differences above, and sets the resolution.')
        w('')
    for s in 'AB':
        w('RUN\'s output on %s (the untimed first run of boot 1, first lines):' % s)
        w('')
        w('```')
        for l in st[s]['output'] or ['(nothing)']:
            w(l)
        w('```')
        w('')
    w('<details><summary>every run (instructions, interrupts)</summary>')
    w('')
    w('| kernel | boot | runs |')
    w('| --- | --- | --- |')
    for s in 'AB':
        for b in (0, 1):
            w('| %s | %d | %s |' % (s, b + 1, ' '.join('%d/%d' % (r['ns'], r['irqs']) for r in st[s]['boots'][b])))
    w('')
    w('</details>')
    w('')

    # ---- profile ----
    prof = {}
    periods = args.periods.split()
    scale = len(periods) * args.reps
    for s in 'AB':
        prof[s] = (profile(os.path.join(out, s + '-1'), scale), profile(os.path.join(out, s + '-2'), scale))
    w('## Where the difference went: perf-ring\'s profile')
    w('')
    w('RUN %d more times in each boot, in one `perf-ring record` with one cpu-clock event per period '
      '(%s instructions): under -icount each fires every period instructions, so a sample stands '
      'for its period in instructions; each event counts the whole run, so the instructions below '
      'are the sum of periods divided by the events and the runs: per run, with the sampling\'s own '
      'cost in it. One fixed period alone would sample a tight loop at a few '
      'places only; several, whose interrupts shift each other, spread the samples. Kernel samples '
      'are named from the guest\'s own kallsyms (which perf-ring puts in its build-id cache); user '
      'samples are counted by command. Boot 1 of each kernel; boot 2 is compared with it below. '
      'Samples taken while interrupts were disabled land where they are enabled again (skid: '
      'Documentation/benchmarks/perf_ring_ab.rst).' % (args.reps, ', '.join(periods)))
    w('')
    ia, ca, fa, ev0 = prof['A'][0]
    ib, cb, fb, _ = prof['B'][0]
    ta, tb = sum(ia.values()), sum(ib.values())
    keys = sorted(set(ia) | set(ib), key=lambda k: (-abs(ib[k] - ia[k]), -(ia[k] + ib[k]), k))
    w('| symbol | A samples | A instructions | A share | B samples | B instructions | B share | delta, instructions | delta%s | delta, share |'
      % (' per call' if per else ''))
    w('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for k in keys[:25]:
        dk = ib[k] - ia[k]
        w('| %s | %d | %s | %.2f%% | %d | %s | %.2f%% | %+.0f | %s | %+.2f pp |' % (
            k, ca[k], fmt(ia[k]), 100 * ia[k] / ta, cb[k], fmt(ib[k]), 100 * ib[k] / tb,
            dk, ('%+.3f' % (dk / per)) if per else '', 100 * (ib[k] / tb - ia[k] / ta)))
    w('| **total** | %d | %s | 100%% | %d | %s | 100%% | %+.0f | %s | |' % (
        sum(ca.values()), fmt(ta), sum(cb.values()), fmt(tb), tb - ta,
        ('%+.3f' % ((tb - ta) / per)) if per else ''))
    w('')
    moved = [k for k in keys if ia[k] != ib[k]]
    if moved:
        k = moved[0]
        w('Largest change: **%s**, %s instructions per run%s.' % (
            k, fmt(ib[k] - ia[k]), (' (%+.3f per call)' % ((ib[k] - ia[k]) / per)) if per else ''))
    else:
        w('No symbol changed.')
    w('')
    plotted = plot_profile(out, args.name, verdict, keys[:12], ia, ib, per)
    if plotted:
        w('Plot: %s, A\'s and B\'s instructions per %s in the 12 symbols above that '
          'changed most.' % (plotted, 'call' if per else 'run'))
        w('')
    # Functions that only one of the two kernels has: what a patch adds or
    # removes, by name, even those too short to take many samples.
    names = {s: set(kallsyms_of(os.path.join(out, s + '-1', 'ab-cache'))[1]) for s in 'AB'}
    for s, o, c in (('B', 'A', cb), ('A', 'B', ca)):
        only = sorted(names[s] - names[o], key=lambda k: (-c[k], k))
        if only:
            w('Functions only %s has (%d), with their samples in %s\'s recording: %s%s.' % (
                s, len(only), s, ', '.join('%s (%d)' % (k, c[k]) for k in only[:20]),
                ', and %d more' % (len(only) - 20) if len(only) > 20 else ''))
            w('')
    for s in 'AB':
        c1, c2 = prof[s][0][0], prof[s][1][0]
        diff = {k: c2[k] - c1[k] for k in set(c1) | set(c2) if c2[k] != c1[k]}
        if not diff:
            w('- %s: the two boots\' profiles are identical (%d samples, same symbols, same counts).'
              % (s, sum(prof[s][0][1].values())))
        else:
            w('- %s: the two boots\' profiles differ in %d symbols, by at most %s instructions.' % (
                s, len(diff), fmt(max(abs(v) for v in diff.values()))))
    for s in 'AB':
        for n in dict.fromkeys(st[s]['notes']):
            w('- %s: perf-ring said: %s' % (s, n))
    w('')

    # ---- perf diff ----
    rc, pd_out, pd_err = perf_diff(out, os.path.join(out, 'A-1', 'ab.data'), os.path.join(out, 'B-1', 'ab.data'))
    with open(os.path.join(out, 'perf-diff.txt'), 'w') as f:
        f.write(pd_out)
    w('## perf diff of the same two recordings')
    w('')
    w('`perf --buildid-dir debug diff -s dso,sym A-1/ab.data B-1/ab.data`: the build-id cache '
      'holds both kernels\' kallsyms from the guests and the guest\'s binaries, and perf finds '
      'each by the build-id in its recording; whole output in perf-diff.txt. Baseline is A; '
      'Delta is B\'s share minus A\'s.')
    w('')
    rows = [l for l in pd_out.splitlines() if l.strip() and not l.startswith('#')]
    if rc or not rows:
        w('perf diff failed (exit %d) or printed no rows:' % rc)
        w('')
        w('```')
        w(pd_err.strip()[-2000:])
        w('```')
    else:
        # perf diff prints a table per event: show the first one.
        first_tab, inside = [], False
        for l in pd_out.splitlines():
            if l.startswith('# Event '):
                if inside:
                    break
                inside = True
            if inside and (not l.startswith('#') or 'Baseline' in l) and l.strip():
                first_tab.append(l)
        rows = [l for l in first_tab if not l.startswith('#')]
        w('The table of the first event, %s (perf diff prints one per event; all in perf-diff.txt):' % ev0)
        w('')
        w('```')
        for l in first_tab[:26]:
            w(l)
        w('```')
        w('')
        # Check perf diff's baseline shares (its first event) against
        # perf-ring's samples of that event.
        kern = {k: v for k, v in fa.items() if not k.startswith('[')}
        ta = sum(fa.values())
        agree, checked, worst = 0, 0, 0.0
        for l in rows:
            m = PERF_DIFF.match(l)
            if not m or not m.group(1) or m.group(4) != 'k':
                continue
            sym = m.group(5)
            if sym not in kern:
                continue
            checked += 1
            e = abs(float(m.group(1)) - 100 * kern[sym] / ta)
            worst = max(worst, e)
            agree += e < 0.015
        w('Check: perf diff\'s baseline share of %d kernel symbols against perf-ring\'s table: '
          '%d agree to within 0.01 pp (largest gap %.3f pp).' % (checked, agree, worst))
        w('')
        w('perf diff\'s rows are shares of each recording\'s samples, perf-ring\'s table above is '
          'instructions; a symbol the change made more expensive shows in both.')
    w('')
    w('## Limits')
    w('')
    w('Instructions are not cycles: TCG counts instructions and nothing else, so cache misses, '
      'branch mispredictions, TLB misses and memory bandwidth do not show here. A difference in '
      'instructions is real and repeatable; what it costs in time on hardware has to be '
      'measured there. See Documentation/benchmarks/perf_ring_ab.rst.')
    with open(os.path.join(out, 'report.md'), 'w') as f:
        f.write('\n'.join(L) + '\n')
    print('\n'.join(L))
    print('\nverdict: ' + verdict)


if __name__ == '__main__':
    main()
