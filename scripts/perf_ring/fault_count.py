#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the injected failures in a fault-injection guest's console log.

usage: fault_count.py LOG STRIPPED

With verbose=2 every injected failure prints "FAULT_INJECTION: forcing a
failure.", the attribute's settings ("name failslab, interval 1, ...") and
a stack trace (dump_stack: "CPU: ... Comm: ...", "Call Trace:", frames,
"</TASK>"). A failed allocation may also make the kernel print its own
allocation-failure warning (warn_alloc: "page allocation failure" or
"vmalloc error"; pcpu_alloc: "percpu: allocation failed"), with a trace of
its own. This script counts the former by
attribute, by task and by the function the failure landed in (the first
frame of the trace that is not fault-injection or allocator machinery),
counts the latter, and writes the log without these traces to STRIPPED, so
that tap-check.sh still fails on every other splat. A trace whose
"FAULT_INJECTION" line was lost among another CPU's lines is still one
when should_fail is on its stack, and the memory.max runs' OOM-killer
reports ("invoked oom-killer") are counted and taken out too. Lines that are not
part of a trace (the guest's own output, interleaved) are kept.
Exit 0; 2 on a usage or file error.
"""
import collections
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
FRAME = re.compile(r'^\s+(\?\s+)?([A-Za-z0-9_.]+)\+0x[0-9a-f]+/0x[0-9a-f]+')
TRACE_LINE = re.compile(r'^(\s|CPU: |Hardware name: |Call Trace:|name \S+, interval|'
                        r'FAULT_INJECTION: |RIP: |Code: |RSP: |RAX: |RDX: |RBP: |'
                        r'R1[0-5]: |R[89]: |FS: |CS: |CR2: |DR[0-7]: )')
# Frames that are the machinery, not where the failure landed.
MACHINERY = re.compile(
    r'^(dump_stack|dump_stack_lvl|show_stack|fail_dump|should_fail|__should_fail|'
    r'should_failslab|__should_failslab|should_fail_alloc_page|should_fail_usercopy|'
    r'should_fail_ex|slab_pre_alloc_hook|slab_alloc_node|__slab_alloc|kmem_cache_alloc|'
    r'__kmem_cache_alloc|kmalloc|__kmalloc|kmalloc_trace|__kmalloc_cache|kzalloc|'
    r'kvmalloc|__kvmalloc|kmalloc_node|__kmalloc_node|kmalloc_large|__kmalloc_large|'
    r'___kmalloc_large|alloc_pages|__alloc_pages|alloc_pages_noprof|__alloc_pages_noprof|'
    r'alloc_pages_mpol|folio_alloc|__folio_alloc|prepare_alloc_pages|__alloc_frozen|'
    r'alloc_pages_node|__get_free_pages|get_zeroed_page|vmalloc|__vmalloc|'
    r'vzalloc|vmalloc_user|__vmalloc_node|__vmalloc_area_node|vm_area_alloc_pages|'
    r'_copy_from_user|_copy_to_user|copy_from_user|copy_to_user|_inline_copy|'
    r'memdup_user|strndup_user|vmemdup_user|kstrdup|kmemdup|kvzalloc|kcalloc|'
    r'kmem_cache_zalloc|alloc_slab_page|allocate_slab|new_slab|___slab_alloc|'
    r'warn_alloc)')


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    try:
        lines = open(sys.argv[1], errors='replace').read().replace('\r', '').split('\n')
    except OSError as e:
        sys.stderr.write('fault_count.py: %s\n' % e)
        return 2

    by_attr = collections.Counter()
    by_comm = collections.Counter()
    by_site = collections.Counter()
    by_attr_site = collections.Counter()
    in_perf = 0
    warns = 0
    ooms = 0
    kept = []
    held = []               # a trace with no header yet: kept unless it is a fault
    block = None            # None, or 'fault' / 'warn' while inside a trace
    cur = {}

    def close():
        if block == 'maybe':
            if cur.get('failed'):
                cur.setdefault('attr', '(header lost)')
            else:
                kept.extend(held)
                return
        if block in ('fault', 'maybe'):
            site = cur.get('site', '?')
            by_attr[cur.get('attr', '?')] += 1
            by_comm[cur.get('comm', '?')] += 1
            by_site[site] += 1
            by_attr_site[(cur.get('attr', '?'), site)] += 1

    for raw in lines:
        line = TS.sub('', raw)
        if 'FAULT_INJECTION: forcing a failure' in line:
            close()
            block, cur = 'fault', {}
            continue
        if block is None and 'invoked oom-killer' in line:
            block, cur = 'warn', {}
            ooms += 1
            continue
        if block is None and line.startswith('CPU: ') and 'Comm: ' in line:
            block, cur, held = 'maybe', {}, []
        if block is None and ('page allocation failure' in line or 'vmalloc error:' in line or
                              line.startswith('percpu: allocation failed')):
            block, cur = 'warn', {}
            warns += 1
            continue
        if block is None:
            kept.append(raw)
            continue
        if not TRACE_LINE.match(line):
            kept.append(raw)            # the guest's output, interleaved
            continue
        if block == 'maybe':
            held.append(raw)
        m = re.match(r'name (\S+), interval', line)
        if m:
            cur['attr'] = m.group(1)
        m = re.search(r'Comm: (\S+)', line)
        if m:
            cur['comm'] = m.group(1)
        m = FRAME.match(line)
        if m and not m.group(1) and m.group(2).startswith('should_fail'):
            cur['failed'] = True
        if m and not m.group(1) and block in ('fault', 'maybe'):
            fn = m.group(2)
            if 'site' not in cur and not MACHINERY.match(fn):
                cur['site'] = fn
            if 'perf' not in cur and re.match(r'^(perf_|_perf|__perf|rb_|ring_buffer|'
                                              r'perf_mmap|__do_sys_perf|__se_sys_perf|'
                                              r'__x64_sys_perf|inherit_|alloc_perf)', fn):
                cur['perf'] = fn
                in_perf += 1
        if '</TASK>' in line:
            close()
            block, cur, held = None, {}, []
    close()

    with open(sys.argv[2], 'w') as f:
        f.write('\n'.join(kept))

    total = sum(by_attr.values())
    print('fault injection: %d injected failures (%s); %d with a perf function '
          '(perf_*, rb_*, ring_buffer*) on the stack; %d allocation-failure '
          'warnings (warn_alloc, percpu) after them; %d OOM-killer reports (memory.max)'
          % (total, ', '.join('%s %d' % kv for kv in sorted(by_attr.items())) or 'none',
             in_perf, warns, ooms))
    print('fault injection: by task: %s'
          % ', '.join('%s %d' % kv for kv in by_comm.most_common()))
    print('fault injection: where they landed (first frame past the allocator), '
          'count, attribute:')
    for (attr, site), c in sorted(by_attr_site.items(), key=lambda kv: (-kv[1], kv[0])):
        print('  %6d  %-16s %s' % (c, attr, site))
    return 0


if __name__ == '__main__':
    sys.exit(main())
