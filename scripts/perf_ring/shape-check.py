#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""shape-check.py: fail when the recorder's files lose the shape issue 25 gave them.

Measured from the sources, nothing compiled:

  - the longest top-level function of every tools/perf_ring/*.c: at most
    120 lines, at most 60 in sink-flight.c (the flight recorder's I/O shell);
  - struct ring (ring.h) has at most 14 fields: it is a mapping;
  - no .c file other than writer.c names a field of struct writer: the
    writer is used through its functions.

A function's length runs from the first line of its declaration to its
closing brace.  A function is a body opened by a "{" alone at column 0
(kernel style); its declaration is the lines above up to a blank line,
a comment's end, a preprocessor line or the end of a statement.

A field of struct writer is named when a name declared of type struct
writer (a variable, a parameter or a member: "struct writer *w",
"struct writer w") is followed by "." or "->" and one of the fields.

PENDING lists the breaches that other branches of the same issue fix; each
entry names what it excuses.  An entry that no longer matches a breach is
an error too, so that the list only shrinks.

usage: shape-check.py [DIR]    (default: tools/perf_ring)
Prints every breach and exits 1; else the figures and exits 0.
"""
import os
import re
import sys

FUNC_MAX = 120
FUNC_MAX_IN = {'sink-flight.c': 60}
RING_FIELDS_MAX = 14

# Breaches still being fixed on other branches: (kind, file, name).
PENDING = {
}

IDENT = re.compile(r'([A-Za-z_]\w*)\s*\(')


def strip(text):
    """The text with comments, strings and character constants blanked,
    line breaks kept, so that braces and names are code only."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + ' ' * (j - i - 2) + c if j - i >= 2 else c)
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(path):
    """(name, first line, length) of every top-level function in path."""
    with open(path, encoding='utf-8') as f:
        raw = f.read().split('\n')
    lines = strip('\n'.join(raw)).split('\n')
    out, depth, i = [], 0, 0
    while i < len(lines):
        line = lines[i]
        if depth == 0 and line.rstrip() == '{':
            start = i
            while start > 0:
                prev = lines[start - 1]
                if (not prev.strip() or raw[start - 1].lstrip().startswith('#') or
                        prev.rstrip().endswith((';', '}')) or
                        raw[start - 1].rstrip().endswith('*/')):
                    break
                start -= 1
            m = IDENT.search(' '.join(lines[start:i]))
            name = m.group(1) if m else '?'
            d, j = 0, i
            while j < len(lines):
                d += lines[j].count('{') - lines[j].count('}')
                if d == 0:
                    break
                j += 1
            out.append((name, start + 1, j - start + 1))
            i = j + 1
            continue
        depth += line.count('{') - line.count('}')
        i += 1
    return out


def struct_body(text, name):
    """The body of "struct name { ... };" in text (comments stripped), or None."""
    m = re.search(r'\bstruct\s+%s\s*\{' % re.escape(name), text)
    if not m:
        return None
    d, j = 1, m.end()
    while j < len(text) and d:
        d += {'{': 1, '}': -1}.get(text[j], 0)
        j += 1
    return text[m.end():j - 1]


def fields(body):
    """The field names of a struct body: one per declarator."""
    names = []
    for decl in body.split(';'):
        decl = re.sub(r'\([^()]*\)|\[[^\]]*\]|:\s*\d+', '', decl).strip()
        if not decl:
            continue
        for part in decl.split(','):
            m = re.search(r'(\w+)\s*$', part.strip())
            if m:
                names.append(m.group(1))
    return names


def sources(src):
    out = {}
    for name in sorted(os.listdir(src)):
        if name.endswith(('.c', '.h')):
            with open(os.path.join(src, name), encoding='utf-8') as f:
                out[name] = strip(f.read())
    return out


def check_functions(src, bad, report):
    longest = (0, '', '')
    for name in sorted(os.listdir(src)):
        if not name.endswith('.c'):
            continue
        limit = FUNC_MAX_IN.get(name, FUNC_MAX)
        for fn, line, n in functions(os.path.join(src, name)):
            if n > longest[0]:
                longest = (n, name, fn)
            if n > limit:
                bad.append((('function', name, fn),
                            '%s:%d: %s() is %d lines, over %d' % (name, line, fn, n, limit)))
    report.append('longest function: %s() in %s, %d lines' % (longest[2], longest[1], longest[0]))


def check_ring(srcs, bad, report):
    body = struct_body(srcs.get('ring.h', ''), 'ring')
    if body is None:
        bad.append((('ring', 'ring.h', 'ring'), 'ring.h: no struct ring'))
        return
    n = len(fields(body))
    if n > RING_FIELDS_MAX:
        bad.append((('ring', 'ring.h', 'ring'),
                    'ring.h: struct ring has %d fields, over %d' % (n, RING_FIELDS_MAX)))
    report.append('struct ring: %d fields' % n)


def check_writer(srcs, bad, report):
    body = None
    for text in srcs.values():
        body = struct_body(text, 'writer')
        if body is not None:
            break
    if body is None:
        bad.append((('writer', '', 'writer'), 'no struct writer'))
        return
    wf = set(fields(body))
    holders = set()
    for text in srcs.values():
        holders.update(re.findall(r'\bstruct\s+writer\s*\*?\s*(?:const\s+)?\*?\s*(\w+)\s*[;,)=\[]',
                                  text))
    use = re.compile(r'\b(%s)\s*(?:\.|->)\s*(%s)\b' %
                     ('|'.join(sorted(holders)) or '$^', '|'.join(sorted(wf))))
    named = 0
    for name, text in srcs.items():
        if not name.endswith('.c') or name == 'writer.c':
            continue
        for ln, line in enumerate(text.split('\n'), 1):
            for m in use.finditer(line):
                named += 1
                bad.append((('writer', name, m.group(2)),
                            '%s:%d: names struct writer\'s field %s (%s)' %
                            (name, ln, m.group(2), m.group(0))))
    report.append('struct writer: %d fields, named outside writer.c %d times' % (len(wf), named))


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else 'tools/perf_ring'
    srcs = sources(src)
    bad, report = [], []
    check_functions(src, bad, report)
    check_ring(srcs, bad, report)
    check_writer(srcs, bad, report)
    failed = False
    seen = set()
    for key, msg in bad:
        if key in PENDING:
            seen.add(key)
            print('pending (%s): %s' % (PENDING[key], msg))
        else:
            failed = True
            print('shape: ' + msg)
    for key in sorted(set(PENDING) - seen):
        failed = True
        print('shape: PENDING entry %s no longer matches a breach: remove it' % (key,))
    for line in report:
        print(line)
    if failed:
        return 1
    print('%s: the shape holds' % src)
    return 0


if __name__ == '__main__':
    sys.exit(main())
