#!/usr/bin/env python3
"""Lists C functions longer than a limit (default 100 lines) and files longer
than 1500 lines, the house limits of docs/architecture.md. A function is a
top-level definition: a line starting in column 0 that opens with '{', up to
the '}' in column 0 that closes it. With --uncommented, only functions with no comment just above them.
Usage: long-functions.py [--uncommented] [LIMIT] [DIR...]
"""
import os
import re
import sys

def functions(path):
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    out = []
    for i, line in enumerate(lines):
        if line != '{':
            continue
        # the signature: the lines before, back to one that starts a declaration
        j = i - 1
        while j > 0 and lines[j - 1].strip() and not lines[j - 1].startswith(('}', '#', '/*', ' *', '*/')) \
                and not lines[j - 1].rstrip().endswith((';', '*/')):
            j -= 1
        sig = ' '.join(l.strip() for l in lines[j:i])
        m = re.search(r'(\w+)\s*\(', sig)
        if not m or sig.startswith(('struct', 'enum', 'union', 'static const', 'const')) and '(' not in sig:
            continue
        k = i + 1
        while k < len(lines) and lines[k] != '}':
            k += 1
        # a comment just above the signature says why it is shaped so
        above = lines[j - 1].strip() if j > 0 else ''
        commented = above.endswith('*/') or above.startswith('//')
        out.append((m.group(1), i + 1, k - i + 1, commented))
    return out, len(lines)

def main():
    args = sys.argv[1:]
    bare = '--uncommented' in args
    if bare:
        args.remove('--uncommented')
    limit = int(args.pop(0)) if args and args[0].isdigit() else 100
    dirs = args or ['lib', 'tools', 'rec']
    longf, bigfiles, total = [], [], 0
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if not f.endswith('.c'):
                    continue
                p = os.path.join(root, f)
                fns, n = functions(p)
                total += len(fns)
                if n > 1500:
                    bigfiles.append((n, p))
                for name, line, length, commented in fns:
                    if length > limit and not (bare and commented):
                        longf.append((length, p, line, name))
    for length, p, line, name in sorted(longf, reverse=True):
        print(f'{length:5d} lines  {p}:{line}  {name}')
    for n, p in sorted(bigfiles, reverse=True):
        print(f'{n:5d} lines  {p}  (file)')
    what = ' without a comment above' if bare else ''
    print(f'{len(longf)} of {total} functions over {limit} lines{what}, {len(bigfiles)} files over 1500 lines')

main()
