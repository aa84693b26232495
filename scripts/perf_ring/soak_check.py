#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sequence-continuity checker for the flight-recorder soak (soak.sh).

usage: soak_check.py [options] DIR PREFIX WRITER...

Each WRITER is BASE:LIMIT: a close-loop writer issued close(BASE + i) for
i = 0, 1, ... (its sys_enter records carry the sequence number i in args[0])
and never reached LIMIT.  The snapshots are the files DIR/PREFIX.*
(perf-ring names them PREFIX.YYYYmmddHHMMSSmmm).  For every snapshot and
every writer, the writer's records must form one contiguous run of
sequence numbers (no gap, no duplicate) with timestamps that do not go
backwards along it.  A writer that stays on one CPU has all its records
in one buffer, and the run must be in file order.  One that moves (CPU
hotplug takes it off its CPU) has them in several buffers, which perf-ring
writes one after the other and perf sorts by time: then the records from
each CPU must be in order in the file, and together they must make the
run.  From one snapshot to the next, a writer's run
must not start or end earlier (snapshots never go backwards), and the
snapshot numbers perf-ring stores must increase in file-name order.

What the flight recorder may lose is what the kernel overwrote between
two snapshots: the gap between the end of one snapshot's run and the start
of the next one's.  Those are counted, not failed.  The tail of a writer
that stopped before the other can also be missing from the last snapshot:
a snapshot starts at the newest of the oldest records of the wrapped
buffers, so that it is one complete window across CPUs, and the other
writer's buffer wrapped after the first writer's last record.  With
--generated N,N,... (or @FILE holding that), the number of records each
writer issued, the loss is
counted against what was issued, and no snapshot may hold more.

--follow DONEFILE: check snapshots while they are being written (all but
the newest, until DONEFILE exists), and delete each one once checked
unless --keep.  --perf N: also decode every Nth snapshot (and the first
and the last) with 'perf script -F tid,trace' and require the same runs.
--drop-one: corrupt the check on purpose (drop one record of the first
snapshot that has three or more), to show that a violation is caught.
Exit 0 if all is well, 1 on a violation, 2 on a usage or file error.
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import time

PF_MAGIC = 0x32454C4946524550
PRIV_MAGIC = 0x31474E4952524550
FEAT_PERF_RING = 255
SAMPLE = 9
COMPRESSED = 81
NR_CLOSE = 3          # x86_64

ST_IDENT, ST_IP, ST_TID, ST_TIME, ST_ADDR, ST_READ, ST_CALLCHAIN, ST_ID, \
    ST_CPU, ST_PERIOD, ST_STREAM_ID, ST_RAW = (1 << 16, 1, 2, 4, 8, 16, 32,
                                               64, 128, 256, 512, 1024)
ST_KNOWN = (ST_IDENT | ST_IP | ST_TID | ST_TIME | ST_ADDR | ST_ID | ST_CPU |
            ST_PERIOD | ST_STREAM_ID | ST_RAW | ST_CALLCHAIN)


class Bad(Exception):
    pass


class Incomplete(Exception):
    pass


def parse(path, writers):
    """Return (snapshot number or None, overwritten or None, samples,
    {writer index: [(seq, time), ...]}) for one perf.data file."""
    with open(path, 'rb') as f:
        b = f.read()
    if len(b) < 104:
        raise Incomplete('%d bytes, shorter than a header' % len(b))
    (magic, hsize, attr_size, a_off, a_size, d_off, d_size) = \
        struct.unpack_from('<7Q', b, 0)
    if magic != PF_MAGIC or hsize != 104:
        raise Bad('not a perf.data file')
    if d_size == 0 or d_off + d_size > len(b):
        raise Incomplete('data section not finalized')
    feats = struct.unpack_from('<4Q', b, 72)
    snap = over = None
    # perf-ring's counts: the last 24 bytes of the file, after every
    # section (older files: the section of feature bit 255).
    if len(b) >= d_off + d_size + 24:
        m, ov, sn = struct.unpack_from('<3Q', b, len(b) - 24)
        if m == PRIV_MAGIC:
            snap, over = sn, ov
    if snap is None and feats[3] >> 63:
        nfeat = sum(bin(x).count('1') for x in feats)
        idx = d_off + d_size + (nfeat - 1) * 16
        s_off, s_size = struct.unpack_from('<2Q', b, idx)
        if s_size >= 24:
            m, ov, sn = struct.unpack_from('<3Q', b, s_off)
            if m == PRIV_MAGIC:
                snap, over = sn, ov
    # sample layout, from the first attribute (all events share it here)
    if a_size < attr_size:
        raise Bad('no attributes')
    st = struct.unpack_from('<Q', b, a_off + 24)[0]
    if st & ~ST_KNOWN:
        raise Bad('unexpected sample_type %#x' % st)
    runs = {}
    nsamples = [0]
    lo = [w[0] for w in writers]
    hi = [w[1] for w in writers]
    unpack_q = struct.Struct('<Q').unpack_from
    # -z: the payloads of the PERF_RECORD_COMPRESSED records, in file
    # order, are one zstd stream of records; they are checked after the
    # plain records (a snapshot is either all compressed or all plain).
    zdata = []
    walk(b, d_off, d_off + d_size, st, lo, hi, runs, nsamples, zdata, unpack_q)
    if zdata:
        z = subprocess.run(['zstd', '-dcq'], input=b''.join(zdata),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        if z.returncode != 0:
            raise Bad('compressed records do not decompress: %s'
                      % z.stderr.decode(errors='replace').strip())
        walk(z.stdout, 0, len(z.stdout), st, lo, hi, runs, nsamples, None, unpack_q)
    return snap, over, nsamples[0], runs


def walk(b, pos, end, st, lo, hi, runs, nsamples, zdata, unpack_q):
    """Append each writer's (seq, time, cpu) from the records in b[pos:end]."""
    where = 'decompressed data' if zdata is None else 'data section'
    while pos + 8 <= end:
        rtype, _misc, size = struct.unpack_from('<IHH', b, pos)
        if size < 8 or pos + size > end:
            raise Bad('corrupt record at offset %d of the %s' % (pos, where))
        if rtype == COMPRESSED:
            if zdata is None:
                raise Bad('a compressed record inside compressed data')
            zdata.append(b[pos + 8:pos + size])
        elif rtype == SAMPLE:
            nsamples[0] += 1
            o = pos + 8
            t = cpu = None
            if st & ST_IDENT:
                o += 8
            if st & ST_IP:
                o += 8
            if st & ST_TID:
                o += 8
            if st & ST_TIME:
                t = unpack_q(b, o)[0]
                o += 8
            for bit in (ST_ADDR, ST_ID, ST_STREAM_ID, ST_CPU, ST_PERIOD):
                if st & bit:
                    if bit == ST_CPU:
                        cpu = struct.unpack_from('<I', b, o)[0]
                    o += 8
            if st & ST_CALLCHAIN:
                o += 8 + 8 * unpack_q(b, o)[0]
            if st & ST_RAW:
                rsize = struct.unpack_from('<I', b, o)[0]
                raw = o + 4
                if rsize >= 24 and raw + 24 <= pos + size:
                    nr, a0 = struct.unpack_from('<qQ', b, raw + 8)
                    if nr == NR_CLOSE:
                        for w in range(len(lo)):
                            if lo[w] <= a0 < hi[w]:
                                runs.setdefault(w, []).append((a0 - lo[w], t, cpu))
                                break
        pos += size
    if pos != end:
        raise Bad('%d stray bytes at the end of the %s' % (end - pos, where))


def perf_runs(path, writers):
    """The writers' sequence numbers as Debian's perf script decodes them."""
    out = subprocess.run(['perf', 'script', '-F', 'tid,trace', '-i', path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True, check=False).stdout
    pat = re.compile(r'NR 3 \(([0-9a-f]+),')
    runs = {}
    for line in out.splitlines():
        m = pat.search(line)
        if not m:
            continue
        v = int(m.group(1), 16)
        for w, (lo, hi) in enumerate(writers):
            if lo <= v < hi:
                runs.setdefault(w, []).append(v - lo)
                break
    return runs


class Checker:
    def __init__(self, args, writers):
        self.a = args
        self.writers = writers
        self.nw = len(writers)
        self.snapshots = 0
        self.records = 0
        self.samples = 0
        self.violations = []
        self.last_name = None
        self.last_snap = None
        self.first = [None] * self.nw      # previous snapshot's run, per writer
        self.last = [None] * self.nw
        self.covered = [-1] * self.nw      # newest sequence number seen
        self.distinct = [0] * self.nw
        self.gaps = [0] * self.nw          # overwritten between snapshots
        self.overwritten = 0               # perf-ring's own count
        self.dropped = False
        self.perf_checked = 0
        self.moved = 0                     # writer runs from several CPUs

    def bad(self, msg):
        self.violations.append(msg)
        if len(self.violations) <= 20:
            print('VIOLATION: ' + msg, flush=True)

    def check(self, path):
        name = os.path.basename(path)
        snap, over, nsamples, runs = parse(path, self.writers)
        self.snapshots += 1
        self.samples += nsamples
        if over is not None:
            self.overwritten += over
        if snap is not None and self.last_snap is not None and snap <= self.last_snap:
            self.bad('%s: snapshot number %d after %d' % (name, snap, self.last_snap))
        if snap is not None:
            self.last_snap = snap
        if self.a.drop_one and not self.dropped:
            for w in runs:
                if len(runs[w]) >= 3:
                    del runs[w][len(runs[w]) // 2]
                    self.dropped = True
                    print('(--drop-one: dropped one record of writer %d in %s)'
                          % (w, name), flush=True)
                    break
        for w in range(self.nw):
            run = runs.get(w, [])
            if not run:
                continue        # a window may hold none of a writer's records
            self.records += len(run)
            run = self.check_run(name, w, run)
            seqs = [s for s, _, _ in run]
            f, l = seqs[0], seqs[-1]
            if self.first[w] is not None and (f < self.first[w] or l < self.last[w]):
                self.bad('%s: writer %d: run %d..%d goes back from %d..%d' %
                         (name, w, f, l, self.first[w], self.last[w]))
            if f > self.covered[w] + 1:
                self.gaps[w] += f - self.covered[w] - 1
            if l > self.covered[w]:
                self.distinct[w] += l - max(f - 1, self.covered[w])
                self.covered[w] = l
            self.first[w], self.last[w] = f, l
        if self.a.perf and (self.snapshots == 1 or self.snapshots % self.a.perf == 0
                            or self.a.final):
            self.cross_check(path, runs)

    def check_run(self, name, w, run):
        """Check one writer's records of one snapshot, in file order; return
        them in sequence order."""
        cpus = set(c for _, _, c in run)
        if len(cpus) > 1:
            # each CPU's records in order, then all of them by number
            for c in sorted(cpus):
                sub = [r for r in run if r[2] == c]
                for i in range(1, len(sub)):
                    if sub[i][0] <= sub[i - 1][0]:
                        kind = 'duplicate' if sub[i][0] == sub[i - 1][0] else 'reordered'
                        self.bad('%s: writer %d: cpu %d: %s: %d then %d' %
                                 (name, w, c, kind, sub[i - 1][0], sub[i][0]))
                        return sorted(run)
            run = sorted(run)
        where = ' (from cpus %s)' % ','.join(str(c) for c in sorted(cpus)) \
            if len(cpus) > 1 else ''
        for i in range(1, len(run)):
            if run[i][0] != run[i - 1][0] + 1:
                kind = ('duplicate' if run[i][0] == run[i - 1][0] else
                        'reordered' if run[i][0] < run[i - 1][0] else 'gap')
                if where and run[i][1] is not None and run[i - 1][1] is not None:
                    where += ', times %.6f and %.6f' % (run[i - 1][1] / 1e9, run[i][1] / 1e9)
                self.bad('%s: writer %d: %s: %d then %d%s' %
                         (name, w, kind, run[i - 1][0], run[i][0], where))
                break
            if run[i][1] is not None and run[i - 1][1] is not None and \
               run[i][1] < run[i - 1][1]:
                self.bad('%s: writer %d: time goes backwards at %d%s' %
                         (name, w, run[i][0], where))
                break
        self.moved += len(cpus) > 1
        return run

    def cross_check(self, path, runs):
        pr = perf_runs(path, self.writers)
        self.perf_checked += 1
        for w in range(self.nw):
            # perf orders by time, which for a good run is by number
            mine = sorted(s for s, _, _ in runs.get(w, []))
            theirs = pr.get(w, [])
            if mine != theirs:
                self.bad('%s: writer %d: perf script sees %d records (%s..%s), '
                         'the checker %d (%s..%s)' %
                         (os.path.basename(path), w, len(theirs),
                          theirs[0] if theirs else '-', theirs[-1] if theirs else '-',
                          len(mine), mine[0] if mine else '-', mine[-1] if mine else '-'))


def snapshot_files(d, prefix):
    pat = re.compile(re.escape(prefix) + r'\.\d{17}(-\d+)?$')
    return sorted(f for f in os.listdir(d) if pat.match(f))


def main():
    ap = argparse.ArgumentParser(description='flight-recorder soak checker')
    ap.add_argument('dir')
    ap.add_argument('prefix')
    ap.add_argument('writers', nargs='+', help='BASE:LIMIT')
    ap.add_argument('--follow', metavar='DONEFILE')
    ap.add_argument('--keep', action='store_true')
    ap.add_argument('--generated', metavar='N,N,...|@FILE')
    ap.add_argument('--perf', type=int, default=0, metavar='N')
    ap.add_argument('--drop-one', action='store_true')
    a = ap.parse_args()
    a.final = False
    try:
        writers = [tuple(int(x) for x in w.split(':')) for w in a.writers]
    except ValueError:
        ap.error('a writer is BASE:LIMIT')
    if a.perf and subprocess.run(['sh', '-c', 'command -v perf'],
                                 stdout=subprocess.DEVNULL).returncode:
        print('perf not found: no perf script cross-check')
        a.perf = 0
    c = Checker(a, writers)
    t0 = time.time()
    done = not a.follow
    while True:
        if a.follow and not done and os.path.exists(a.follow):
            done = True
        files = snapshot_files(a.dir, a.prefix)
        todo = files if done else files[:-1]
        for i, f in enumerate(todo):
            path = os.path.join(a.dir, f)
            a.final = done and i == len(todo) - 1
            try:
                c.check(path)
            except Incomplete as e:
                if done:
                    c.bad('%s: %s' % (f, e))
                else:
                    break           # still being written: next round
            except (Bad, struct.error) as e:
                c.bad('%s: %s' % (f, e))
            except OSError as e:
                print('soak_check: %s: %s' % (f, e), file=sys.stderr)
                return 2
            if not a.keep:
                os.unlink(path)
            c.last_name = f
        if done:
            break
        time.sleep(0.05)

    gen = None
    if a.generated:
        g = a.generated
        if g.startswith('@'):
            with open(g[1:]) as f:
                g = f.read().strip()
        gen = [int(x) for x in g.split(',')] if g else None   # empty: unknown
        for w in range(c.nw if gen else 0):
            if w < len(gen) and c.covered[w] > gen[w] - 1:
                c.bad('writer %d: a snapshot holds record %d, the writer issued '
                      'only %d' % (w, c.covered[w], gen[w]))
    if c.snapshots == 0:
        c.bad('no snapshots')
    for w in range(c.nw):
        if c.covered[w] < 0:
            c.bad('writer %d: no records in any snapshot' % w)
    seen = sum(x + 1 for x in c.covered)
    issued = sum(gen) if gen else seen
    distinct = sum(c.distinct)
    print('soak check: %d snapshots, %d samples, %d writer records checked, '
          '%d distinct of %d issued; not captured (overwritten, allowed): %d '
          '= %d between snapshots + %d after the last one; perf-ring counted '
          '%d overwritten (all samples); perf script cross-checked %d '
          'snapshots; %d writer runs came from more than one CPU; '
          '%d violations; %.1f s' %
          (c.snapshots, c.samples, c.records, distinct, issued,
           issued - distinct, sum(c.gaps), issued - seen, c.overwritten,
           c.perf_checked, c.moved, len(c.violations), time.time() - t0))
    return 1 if c.violations else 0


if __name__ == '__main__':
    sys.exit(main())
