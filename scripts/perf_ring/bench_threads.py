# SPDX-License-Identifier: GPL-2.0
"""bench_threads.py PROCS THREADS: PROCS processes of THREADS idle threads
each, for the synthesis benchmark.

Prints "ready N" (N threads in all, the processes' main threads included)
once every thread exists, then waits until its standard input closes or it
gets SIGTERM/SIGINT; then every thread and process ends.  The processes
also die with this one (PR_SET_PDEATHSIG), so nothing is left behind."""

import ctypes
import os
import signal
import sys
import threading


def child(nthreads, hold_r, ready_w):
    libc = ctypes.CDLL(None)
    libc.prctl(1, signal.SIGKILL)		# PR_SET_PDEATHSIG
    if os.getppid() == 1:
        os._exit(0)
    threading.stack_size(64 * 1024)
    ts = [threading.Thread(target=os.read, args=(hold_r, 1), daemon=True)
          for _ in range(nthreads)]
    for t in ts:
        t.start()
    os.write(ready_w, b"r")
    for t in ts:
        t.join()			# EOF on hold_r: the spawner is done
    os._exit(0)


def main():
    procs, nthreads = int(sys.argv[1]), int(sys.argv[2])
    hold_r, hold_w = os.pipe()
    ready_r, ready_w = os.pipe()
    pids = []

    def stop(*_):
        raise SystemExit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        for _ in range(procs):
            pid = os.fork()
            if pid == 0:
                os.close(hold_w)
                os.close(ready_r)
                child(nthreads, hold_r, ready_w)
            pids.append(pid)
        os.close(hold_r)
        os.close(ready_w)
        got = 0
        while got < procs:
            b = os.read(ready_r, procs)
            if not b:
                sys.exit("bench_threads: a process died before its threads were up")
            got += len(b)
        print("ready %d" % (procs * (nthreads + 1)), flush=True)
        sys.stdin.read()
    finally:
        os.close(hold_w)			# every thread reads EOF and ends
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


if __name__ == "__main__":
    main()
