#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hostile.py CASE OUT: write a hostile perf.data file for the reader tests.

The cases (e2e-security-readers.sh runs them, fuzz/make-seeds.py uses the
builder for seeds):

  many-attrs      64 MB sparse file with 800,000 empty attributes
  event-desc      2 MB: 131072 ids and a 1 MB HEADER_EVENT_DESC of 65536
                  entries whose ids match none (O(entries x ids) to parse)
  zstd-bomb       1 MB of COMPRESSED records that decompress to 32 GB
                  (zstd RLE blocks), HEADER_COMPRESSED asking 256 MB buffers
  id-overlap      sparse file: 48 events whose id tables are one 16 MB table
                  (768 MB of ids from a file of 16 MB)
  big-feature     sparse file with one 130 MB feature section (HOSTNAME):
                  --decompress must allocate it
  pipe-garbage    perf's pipe header, then 8 MB of zeros
  tp-attrs        20000 tracepoint attributes (ids no machine has): --recover
                  looks each up in tracefs
  plain           a small sound file (2 events, 3 samples, EVENT_DESC)

Sparse files are made with truncate: they take no disk space.
"""
import os
import struct
import sys

MAGIC = 0x32454C4946524550  # "PERFILE2"
HEADER_SIZE = 104
ATTR_VER0 = 64
ATTR_SIZE = 136  # sizeof(struct perf_event_attr) in 6.x (VER8)

PERF_RECORD_SAMPLE = 9
RECORD_COMPRESSED = 81
FEAT_HOSTNAME = 3
FEAT_EVENT_DESC = 12
FEAT_COMPRESSED = 27

SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ID = 1 << 0, 1 << 1, 1 << 2, 1 << 6


def attr(type_=1, config=0, sample_type=0, size=ATTR_SIZE):
    """perf_event_attr: type, size, config, sample_period, sample_type, rest 0."""
    b = struct.pack("<IIQQQ", type_, size, config, 1, sample_type)
    return b + bytes(size - len(b))


def pstr(s):
    """perf's string: u32 length (padded to 64), bytes, NULs."""
    raw = s.encode() + b"\0"
    n = (len(raw) + 63) // 64 * 64
    return struct.pack("<I", n) + raw + bytes(n - len(raw))


def header(attr_size, attrs, data, features=()):
    bits = [0, 0, 0, 0]
    for f in features:
        bits[f // 64] |= 1 << (f % 64)
    return struct.pack("<QQQ", MAGIC, HEADER_SIZE, attr_size) + \
        struct.pack("<QQQQQQ", attrs[0], attrs[1], data[0], data[1], 0, 0) + \
        struct.pack("<4Q", *bits)


class File:
    """A perf.data file laid out as perf writes it: header, ids, attrs,
    data, feature index, feature sections.  Any field can be overridden
    to lie."""

    def __init__(self):
        self.events = []      # (attr bytes, [ids])
        self.records = b""
        self.features = {}    # bit -> body
        self.attr_size = ATTR_SIZE + 16

    def add_event(self, a, ids):
        self.events.append((a, ids))

    def bytes(self):
        out = bytearray(HEADER_SIZE)
        id_secs = []
        for a, ids in self.events:
            id_secs.append((len(out), 8 * len(ids)))
            out += b"".join(struct.pack("<Q", i) for i in ids)
        attrs_off = len(out)
        for (a, ids), sec in zip(self.events, id_secs):
            body = a[: self.attr_size - 16].ljust(self.attr_size - 16, b"\0")
            out += body + struct.pack("<QQ", *sec)
        data_off = len(out)
        out += self.records
        bits = sorted(self.features)
        idx_off = len(out)
        out += bytes(16 * len(bits))
        for i, b in enumerate(bits):
            struct.pack_into("<QQ", out, idx_off + 16 * i, len(out), len(self.features[b]))
            out += self.features[b]
        out[:HEADER_SIZE] = header(self.attr_size, (attrs_off, len(out[attrs_off:data_off])),
                                   (data_off, len(self.records)), bits)
        return bytes(out)


def sample(ip, tid, time, id_):
    return struct.pack("<IHH", PERF_RECORD_SAMPLE, 0, 40) + struct.pack("<QIIQQ", ip, tid, tid, time, id_)


def event_desc(entries, sz=ATTR_SIZE):
    """entries: (attr bytes, name, [ids])"""
    b = struct.pack("<II", len(entries), sz)
    for a, name, ids in entries:
        b += a[:sz].ljust(sz, b"\0") + struct.pack("<I", len(ids)) + pstr(name)
        b += b"".join(struct.pack("<Q", i) for i in ids)
    return b


def zstd_frame(blocks):
    """A zstd frame of raw (bytes) and RLE ((byte, count)) blocks, 128 KiB
    window, no checksum: what the decompressor takes without a library."""
    out = struct.pack("<I", 0xFD2FB528) + bytes([0x00, 7 << 3])
    for i, blk in enumerate(blocks):
        last = 1 if i == len(blocks) - 1 else 0
        if isinstance(blk, tuple):
            byte, n = blk
            out += struct.pack("<I", last | 1 << 1 | n << 3)[:3] + bytes([byte])
        else:
            out += struct.pack("<I", last | 0 << 1 | len(blk) << 3)[:3] + blk
    return out


def compressed(payload):
    return struct.pack("<IHH", RECORD_COMPRESSED, 0, 8 + len(payload)) + payload


def comp_feature(mmap_len):
    return struct.pack("<5I", 0, 1, 1, 10, mmap_len)


def plain():
    f = File()
    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_ID
    f.add_event(attr(1, 0, st), [10, 11])
    f.add_event(attr(1, 1, st), [20, 21])
    f.records = sample(0x1000, 5, 100, 10) + sample(0x1004, 5, 200, 21) + sample(0x1008, 5, 300, 11)
    f.features[FEAT_EVENT_DESC] = event_desc([(attr(1, 0, st), "cpu-clock", [10, 11]),
                                              (attr(1, 1, st), "task-clock", [20, 21])])
    f.features[FEAT_HOSTNAME] = pstr("hostile")
    return f.bytes()


def write_sparse(path, parts, size):
    """parts: (offset, bytes); the rest of the size is a hole."""
    with open(path, "wb") as fp:
        fp.truncate(size)
        for off, b in parts:
            fp.seek(off)
            fp.write(b)


def many_attrs(path, n=800000):
    asz = ATTR_VER0 + 16
    attrs_off = HEADER_SIZE
    data_off = attrs_off + n * asz
    rec = struct.pack("<IHH", 3, 0, 16) + bytes(8)   # a COMM-sized record
    h = header(asz, (attrs_off, n * asz), (data_off, len(rec)))
    write_sparse(path, [(0, h), (data_off, rec)], max(64 << 20, data_off + len(rec)))


def quadratic_event_desc(path, nids=131072, nentries=65536):
    f = File()
    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_ID
    f.add_event(attr(1, 0, st), list(range(1, nids + 1)))
    f.records = sample(0x1000, 5, 100, 1)
    # entries of 16 bytes: attr size 0, one id (matching nothing), empty name
    body = struct.pack("<II", nentries, 0)
    body += (struct.pack("<II", 1, 0) + struct.pack("<Q", 1 << 62)) * nentries
    f.features[FEAT_EVENT_DESC] = body
    with open(path, "wb") as fp:
        fp.write(f.bytes())


def zstd_bomb(path, nrec=128):
    f = File()
    f.add_event(attr(1, 0, SAMPLE_IP | SAMPLE_TIME), [1])
    # 2048 RLE blocks of 128 KiB of 0x08: 256 MiB of records of type
    # 0x08080808, size 0x0808 (2056 bytes), from 8 KiB of frame
    frame = zstd_frame([(0x08, 128 << 10)] * 2048)
    f.records = compressed(frame) * nrec
    f.features[FEAT_COMPRESSED] = comp_feature(256 << 20)
    with open(path, "wb") as fp:
        fp.write(f.bytes())


def id_overlap(path, nev=48, table=16 << 20):
    asz = ATTR_SIZE + 16
    ids_off = 4096
    attrs_off = ids_off + table
    data_off = attrs_off + nev * asz
    rec = sample(0x1000, 5, 100, 1)
    attrs = b"".join(attr(1, i, SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_ID) +
                     struct.pack("<QQ", ids_off, table) for i in range(nev))
    h = header(asz, (attrs_off, nev * asz), (data_off, len(rec)))
    write_sparse(path, [(0, h), (ids_off, struct.pack("<Q", 1)), (attrs_off, attrs), (data_off, rec)],
                 data_off + len(rec))


def big_feature(path, size=130 << 20):
    f = File()
    f.add_event(attr(1, 0, SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_ID), [1])
    f.records = sample(0x1000, 5, 100, 1)
    f.features[FEAT_HOSTNAME] = b""
    b = bytearray(f.bytes())
    # the one feature section, at the end, made 130 MB long (a hole)
    idx = HEADER_SIZE + 8 + (ATTR_SIZE + 16) + len(f.records)
    off, _ = struct.unpack_from("<QQ", b, idx)
    struct.pack_into("<QQ", b, idx, off, size)
    write_sparse(path, [(0, bytes(b))], off + size)


def tp_attrs(path, n=20000):
    f = File()
    f.attr_size = ATTR_VER0 + 16
    for i in range(n):
        f.add_event(attr(2, (1 << 40) + i, SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_ID,
                         ATTR_VER0), [])
    f.records = sample(0x1000, 5, 100, 1)
    with open(path, "wb") as fp:
        fp.write(f.bytes())


def pipe_garbage(path, n=8 << 20):
    with open(path, "wb") as fp:
        fp.write(struct.pack("<QQ", MAGIC, 16))
        fp.write(bytes(n))


CASES = {
    "many-attrs": many_attrs,
    "event-desc": quadratic_event_desc,
    "zstd-bomb": zstd_bomb,
    "id-overlap": id_overlap,
    "big-feature": big_feature,
    "pipe-garbage": pipe_garbage,
    "tp-attrs": tp_attrs,
    "plain": lambda p: open(p, "wb").write(plain()),
}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        sys.exit("usage: hostile.py {%s} OUT" % "|".join(CASES))
    CASES[sys.argv[1]](sys.argv[2])
