#!/usr/bin/env python3
"""Per-call rates from the `perf stat` files that benchmark/profile-layers.sh writes (20 s windows), using the
run's throughput from summary.json: CPU µs, context switches and syscalls by kind per call.

    benchmark/perf-per-call.py OUT_DIR
"""
import glob
import json
import re
import sys

WINDOW_SECONDS = 20
out_dir = sys.argv[1]
rates = {r['target']: r['opsPerMs'] * 1000 for r in json.load(open(out_dir + '/summary.json'))['rows']}
for path in sorted(glob.glob(out_dir + '/perf-*.txt')):
    role, target = re.search(r'perf-(client|server)-(.*)\.txt', path).groups()
    if target not in rates:
        continue
    calls = rates[target] * WINDOW_SECONDS
    values = {}
    for line in open(path):
        m = re.match(r'\s*([\d,.]+)\s+(?:msec\s+)?(\S+)', line)
        if m and not line.strip().startswith('#'):
            try:
                values[m.group(2)] = float(m.group(1).replace(',', ''))
            except ValueError:
                pass
    cols = [f'{role:6} {target:13} calls/s {rates[target]:8.0f}',
            f"cpu {values.get('task-clock', 0) * 1000 / calls:6.1f} µs"]
    for key, label in [('context-switches', 'cs'), ('raw_syscalls:sys_enter', 'syscalls'),
                       ('syscalls:sys_enter_futex', 'futex'), ('syscalls:sys_enter_epoll_wait', 'epoll_wait'),
                       ('syscalls:sys_enter_write', 'write'), ('syscalls:sys_enter_writev', 'writev'),
                       ('syscalls:sys_enter_read', 'read')]:
        cols.append(f'{label} {values.get(key, 0) / calls:5.2f}')
    print('  '.join(cols))
