#!/usr/bin/env bash
# Per-layer CPU profile of benchmark targets (docs/performance/journal/dubbo-path-profile.md).
#
#   benchmark/profile-layers.sh OUT_DIR METHOD TARGET[,TARGET...] [LOAD]   e.g. results/prof existUser dubbo-netty4,dubbo-sluice
#
# LOAD: a thread count of the synchronous workload (default 32) or an async load THREADSxINFLIGHT (e.g. 4x64).
# Runs ./bench.sh --no-build (build the jar first) at LOAD for one method with a JFR recording in the server and
# client JVMs (call timeout 5 s: the machine may be busy; benchmark/layers.jfc, from 30 s after each JVM starts, for 25 s: inside the measurement), and, when
# `perf` is installed, `perf stat` on both JVMs for 20 s from 32 s after the client JVM starts (syscalls by kind,
# context switches, task clock); with PERF=record, `perf record -g` instead (12 s), to be read with
# benchmark/perf-kernel-split.py. Then prints JfrLayers' table for each recording, using the run's throughput.
# Everything goes to OUT_DIR (jfr/, perf-*.txt, layers-*.txt, the benchmark's own files).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$1"; METHOD="$2"; TARGETS="$3"; LOAD="${4:-32}"
if [[ "$LOAD" == *x* ]]; then
  WORKLOAD=(--async "$LOAD" --no-sync); CLIENT_TAG="${LOAD%%x*}tx${LOAD#*x}"
else
  WORKLOAD=(--threads "$LOAD"); CLIENT_TAG="${LOAD}t"
fi
JAR="$ROOT/benchmark/target/sluice-benchmarks.jar"
mkdir -p "$OUT"
EVENTS=task-clock,context-switches,raw_syscalls:sys_enter,syscalls:sys_enter_futex,syscalls:sys_enter_epoll_wait
EVENTS+=,syscalls:sys_enter_epoll_pwait,syscalls:sys_enter_write,syscalls:sys_enter_writev,syscalls:sys_enter_read
EVENTS+=,syscalls:sys_enter_readv,syscalls:sys_enter_sendmsg,syscalls:sys_enter_recvfrom

# The JVMs of this work tree only (other benchmarks may run on the machine): by working directory and main class.
jvm_pid() {
  local pattern="$1" p
  for p in $(pgrep -f "$pattern" || true); do
    if [[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" == "$ROOT" ]]; then echo "$p"; return; fi
  done
}

watch_perf() {
  local target seen=""
  command -v perf >/dev/null || return 0
  for target in ${TARGETS//,/ }; do
    local client="" server="" i
    for i in $(seq 1 600); do
      server="$(jvm_pid "ServerMain $target")"
      client="$(jvm_pid "jmh.runner.ForkedMain")"
      if [[ -n "$server" && -n "$client" && "$client" != "$seen" ]]; then break; fi
      sleep 0.5
    done
    [[ -n "$client" && "$client" != "$seen" ]] || return 0
    seen="$client"
    sleep 32
    if [[ "${PERF:-stat}" == record ]]; then
      perf record -q -e cpu-clock -F 999 -g -p "$server" -o "$OUT/perf-server-$target.data" -- sleep 12 >/dev/null 2>&1 &
      perf record -q -e cpu-clock -F 999 -g -p "$client" -o "$OUT/perf-client-$target.data" -- sleep 12 >/dev/null 2>&1 &
    else
      perf stat -e "$EVENTS" -p "$server" -o "$OUT/perf-server-$target.txt" -- sleep 20 &
      perf stat -e "$EVENTS" -p "$client" -o "$OUT/perf-client-$target.txt" -- sleep 20 &
    fi
    wait
  done
}

uptime > "$OUT/uptime.txt"
watch_perf &
WATCH=$!
"$ROOT/bench.sh" --no-build --client-jvm per-method --targets "$TARGETS" "${WORKLOAD[@]}" --benchmarks "$METHOD" \
  --warmup-iterations 3 --warmup-time 5 --iterations 5 --time 10 --no-gc --timeout 5000 --out "$OUT" \
  --jfr settings=benchmark/layers.jfc,delay=30s,duration=25s | tee "$OUT/bench.txt"
wait "$WATCH" || true
uptime >> "$OUT/uptime.txt"

for target in ${TARGETS//,/ }; do
  ops=$(python3 -c "import json,sys; print(next(r['opsPerMs'] for r in json.load(open('$OUT/summary.json'))['rows'] if r['target']=='$target')*1000)")
  for f in "$OUT"/jfr/server-"$target".jfr "$OUT"/jfr/client-"$target"-"$CLIENT_TAG"-"$METHOD".jfr; do
    name="$(basename "$f" .jfr)"
    java -cp "$JAR" dev.sluice.benchmark.profile.JfrLayers "$f" "$ops" > "$OUT/layers-$name.txt"
    echo "== $name ($ops calls/s)"; head -16 "$OUT/layers-$name.txt"
  done
done
cat "$OUT/uptime.txt"
if compgen -G "$OUT/perf-*.txt" >/dev/null; then python3 "$ROOT/benchmark/perf-per-call.py" "$OUT"; fi
