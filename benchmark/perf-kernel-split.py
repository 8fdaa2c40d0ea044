#!/usr/bin/env python3
"""Splits a `perf record -g -e cpu-clock -p PID` profile of a benchmark JVM into user time and kernel time by what
the kernel was doing (docs/performance/journal/dubbo-path-profile.md). Java frames are not symbolised; only the
kernel's are needed.

    benchmark/perf-kernel-split.py perf-server-dubbo-sluice.data [...]
"""
import collections
import re
import subprocess
import sys


def category(frames):
    text = ' '.join(frames)
    kernel = any('entry_SYSCALL' in f or 'do_syscall_64' in f or 'asm_' in f or 'irq' in f.lower() for f in frames)
    if not kernel:
        return 'user'
    if 'futex' in text:
        return 'kernel: futex (park/unpark, contended locks)'
    if re.search(r'sys_(write|writev|read|readv|sendmsg|recvfrom|sendto|recvmsg)\b|sock_|tcp_|ip_|net_rx|veth', text):
        return 'kernel: socket I/O (incl. softirq)'
    if 'epoll' in text:
        return 'kernel: epoll'
    if 'exit_to_user_mode' in text or 'irqentry_exit' in text:
        return 'kernel: rescheduled at syscall/interrupt exit'
    return 'kernel: other'


def split(path):
    out = subprocess.run(['perf', 'script', '-i', path, '-F', 'comm,tid,ip,sym'], capture_output=True, text=True,
                         check=True).stdout
    counts = collections.Counter()
    for block in out.split('\n\n'):
        lines = [line.strip() for line in block.strip().split('\n') if line.strip()]
        if len(lines) < 2:
            continue
        frames = [line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else '' for line in lines[1:]]
        counts[category(frames)] += 1
    return counts


for p in sys.argv[1:]:
    c = split(p)
    total = sum(c.values())
    print(f'== {p} ({total} samples)')
    for k in sorted(c):
        print(f'   {k:46} {100 * c[k] / total:5.1f}%')
