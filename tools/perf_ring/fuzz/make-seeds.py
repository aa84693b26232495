#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make-seeds.py {report|build} DIR: seed inputs for the reader fuzzers.

report: perf.data files (for fuzz_report) that reach what a recording
        made by perf-ring rarely holds: many attributes, HEADER_EVENT_DESC
        with entries of every size, feature sections of each kind read
        (COMPRESSED, SAMPLE_TIME, perf-ring's counts), COMPRESSED records
        whose zstd frames are raw and RLE blocks, the pipe format, and
        small versions of the hostile files of e2e-security-readers.sh.
build:  recipes for fuzz_build (fuzz_build.c reads them): pseudo-random
        bytes of a few lengths, so that the fuzzer starts from long inputs.

Deterministic: the same files every run.  Each is at most 64 KiB (the
fuzzers' -max_len).
"""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import hostile as H  # noqa: E402

ST = H.SAMPLE_IP | H.SAMPLE_TID | H.SAMPLE_TIME | H.SAMPLE_ID
FEAT_SAMPLE_TIME = 21
FEAT_PERF_RING = 255
PRIV_MAGIC = 0x31474E4952524550


def base(nev=2, nids=2):
    f = H.File()
    for e in range(nev):
        f.add_event(H.attr(1, e, ST), [100 * e + k for k in range(nids)])
    f.records = b"".join(H.sample(0x1000 + i, 5, 100 + i, (i % nev) * 100) for i in range(8))
    return f


def report_seeds():
    out = {}
    out["plain"] = H.plain()

    f = base()
    f.features[H.FEAT_EVENT_DESC] = H.event_desc(
        [(H.attr(1, 0, ST), "cpu-clock", [0, 1]), (H.attr(1, 1, ST), "task-clock", [100, 101])])
    f.features[FEAT_SAMPLE_TIME] = struct.pack("<QQ", 100, 107)
    f.features[FEAT_PERF_RING] = struct.pack("<QQQ", PRIV_MAGIC, 3, 1)
    out["features"] = f.bytes()

    for sz in (0, 64, 136):
        f = base()
        f.features[H.FEAT_EVENT_DESC] = H.event_desc(
            [(H.attr(1, 0, ST), "e%d" % i, [i]) for i in range(6)], sz)
        out["event-desc-sz%d" % sz] = f.bytes()

    f = base(nev=40, nids=4)
    f.attr_size = H.ATTR_VER0 + 16
    out["attrs-40-ver0"] = f.bytes()

    # compressed: the records in raw blocks, then an RLE block
    f = base()
    inner = b"".join(H.sample(0x2000 + i, 6, 200 + i, 1) for i in range(32))
    frame = H.zstd_frame([inner[:512], inner[512:]])
    f.records = H.compressed(frame) + H.compressed(H.zstd_frame([(0x08, 4112)]))
    f.features[H.FEAT_COMPRESSED] = H.comp_feature(2 << 20)
    out["compressed"] = f.bytes()

    f = base()
    f.records = H.compressed(H.zstd_frame([(0x08, 128 << 10)] * 8))
    f.features[H.FEAT_COMPRESSED] = H.comp_feature(1 << 20)
    out["compressed-rle"] = f.bytes()

    # the pipe format: ATTR records, a FEATURE record, the data
    b = struct.pack("<QQ", H.MAGIC, 16)
    a = H.attr(1, 0, ST)
    b += struct.pack("<IHH", 64, 0, 8 + len(a) + 16) + a + struct.pack("<QQ", 0, 1)
    ed = H.event_desc([(a, "cpu-clock", [0, 1])])
    b += struct.pack("<IHH", 80, 0, 16 + len(ed)) + struct.pack("<Q", H.FEAT_EVENT_DESC) + ed
    b += b"".join(H.sample(0x1000 + i, 5, 100 + i, 1) for i in range(8))
    out["pipe"] = b

    # small hostile files: lying counts in EVENT_DESC, overlapping id tables
    f = base()
    f.features[H.FEAT_EVENT_DESC] = struct.pack("<II", 0xFFFFFFFF, 0) + \
        (struct.pack("<II", 0xFFFFFFF, 0)) * 4
    out["event-desc-lies"] = f.bytes()
    return out


def build_seeds():
    out = {}
    rnd = random.Random(24)
    for n in (16, 64, 256, 1024, 4096, 16384):
        for k in range(3):
            out["recipe-%d-%d" % (n, k)] = bytes(rnd.getrandbits(8) for _ in range(n))
    return out


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("report", "build"):
        sys.exit("usage: make-seeds.py {report|build} DIR")
    seeds = report_seeds() if sys.argv[1] == "report" else build_seeds()
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, data in seeds.items():
        assert len(data) <= 65536, name
        with open(os.path.join(sys.argv[2], "seed-" + name), "wb") as fp:
            fp.write(data)
    print("make-seeds.py: %d %s seeds in %s" % (len(seeds), sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    main()
