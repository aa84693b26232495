# SPDX-License-Identifier: GPL-2.0
"""bench_floor.py MODE PAGES EVENTS -- CMD...: the kernel-only floor.

Opens the events the way perf-ring record does (one per CPU and event,
sample period 1, IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW, inherit,
enable_on_exec, the first event tracking mmap/comm/task, one buffer per CPU
shared through SET_OUTPUT), starts CMD, and waits for it.  Nobody reads the
buffers: what CMD loses in speed is what the kernel alone costs.

MODE: forward-overwrite (read-only mapping, forward writing; RAWOVWRT) or
backward-overwrite (write_backward and a read-only mapping).
EVENTS: comma-separated tracepoints, subsys:name or subsys:* globs."""

import ctypes
import fnmatch
import mmap
import os
import sys

NR_PERF_EVENT_OPEN = 298		# x86_64
PERF_TYPE_TRACEPOINT = 2
PERF_EVENT_IOC_SET_OUTPUT = 0x2405
SAMPLE = (1 << 16) | 1 | 2 | 4 | (1 << 7) | (1 << 8) | (1 << 10)  # IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW
F_DISABLED, F_INHERIT, F_MMAP, F_COMM, F_ENABLE_ON_EXEC, F_TASK = 0, 1, 8, 9, 12, 13
F_WATERMARK, F_SAMPLE_ID_ALL, F_MMAP2, F_COMM_EXEC, F_WRITE_BACKWARD = 14, 18, 23, 24, 27
TRACEFS = ["/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events"]


class Attr(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("config", ctypes.c_uint64), ("sample_period", ctypes.c_uint64),
                ("sample_type", ctypes.c_uint64), ("read_format", ctypes.c_uint64),
                ("flags", ctypes.c_uint64), ("wakeup_watermark", ctypes.c_uint32),
                ("bp_type", ctypes.c_uint32), ("rest", ctypes.c_uint8 * 72)]


def tracepoints(spec):
    root = next((r for r in TRACEFS if os.path.isdir(r)), None)
    if not root:
        sys.exit("bench_floor: no tracefs (mount -t tracefs nodev /sys/kernel/tracing)")
    ids = []
    for item in spec.split(","):
        sub, name = item.split(":", 1)
        for s in sorted(os.listdir(root)):
            if not fnmatch.fnmatch(s, sub) or not os.path.isdir(os.path.join(root, s)):
                continue
            for n in sorted(os.listdir(os.path.join(root, s))):
                idf = os.path.join(root, s, n, "id")
                if fnmatch.fnmatch(n, name) and os.path.exists(idf):
                    with open(idf) as f:
                        ids.append(int(f.read()))
    if not ids:
        sys.exit("bench_floor: no tracepoint matches '%s'" % spec)
    return ids


def main():
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        sys.exit(__doc__)
    mode, pages, events, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[5:]
    if mode not in ("forward-overwrite", "backward-overwrite"):
        sys.exit("bench_floor: bad mode '%s'" % mode)
    ids = tracepoints(events)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_long]
    psize = mmap.PAGESIZE
    size = pages * psize

    rfd, wfd = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(wfd)
        if os.read(rfd, 1) != b"g":
            os._exit(127)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    os.close(rfd)

    fds, maps = [], []
    try:
        for cpu in sorted(os.sched_getaffinity(0) | set(range(os.cpu_count()))):
            ring = -1
            for i, tp in enumerate(ids):
                a = Attr()
                a.type, a.size, a.config = PERF_TYPE_TRACEPOINT, 128, tp
                a.sample_period, a.sample_type = 1, SAMPLE
                fl = [F_DISABLED, F_INHERIT, F_ENABLE_ON_EXEC, F_WATERMARK, F_SAMPLE_ID_ALL]
                if i == 0:
                    fl += [F_MMAP, F_MMAP2, F_COMM, F_COMM_EXEC, F_TASK]
                if mode == "backward-overwrite":
                    fl.append(F_WRITE_BACKWARD)
                a.flags = sum(1 << b for b in fl)
                a.wakeup_watermark = size // 2
                fd = libc.syscall(ctypes.c_long(NR_PERF_EVENT_OPEN), ctypes.byref(a),
                                  ctypes.c_long(child), ctypes.c_long(cpu), ctypes.c_long(-1),
                                  ctypes.c_long(8))	# PERF_FLAG_FD_CLOEXEC
                if fd < 0:
                    e = ctypes.get_errno()
                    sys.exit("bench_floor: perf_event_open (tracepoint %d, cpu %d): %s" %
                             (tp, cpu, os.strerror(e)))
                fds.append(fd)
                if ring < 0:
                    maps.append(mmap.mmap(fd, size + psize, mmap.MAP_SHARED, mmap.PROT_READ))
                    ring = fd
                elif libc.ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring):
                    sys.exit("bench_floor: SET_OUTPUT: %s" % os.strerror(ctypes.get_errno()))
        os.write(wfd, b"g")
        os.close(wfd)
        _, status = os.waitpid(child, 0)
    except BaseException:
        os.kill(child, 9)
        os.waitpid(child, 0)
        raise
    code = os.waitstatus_to_exitcode(status)
    sys.exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
