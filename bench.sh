#!/usr/bin/env bash
# Sluice vs Dubbo benchmark (dubbo-benchmark's UserService workload, JMH).
#
#   ./bench.sh                      default comparison of the fastjson2 targets (existUser, listUser; threads 32, 1; ~14 min)
#   ./bench.sh --targets hessian2   the same for the hessian2 targets (dubbo-benchmark's hessian-lite variant)
#   ./bench.sh --targets peers      the same for Dubbo Triple and grpc-java beside dubbo-netty4 and sluice (~14 min)
#   ./bench.sh --async --no-sync    the async workload (1x64, 4x64, 32x8 calls in flight per thread)
#   ./bench.sh --smoke              CI check: every target and the async path, 1 x 1 s, throughput only (~3 min)
#   ./bench.sh --full               dubbo-benchmark settings: 3 x 10 s warm-up, 3 x 10 s measurement, 32 threads
#   ./bench.sh --threads 1,8,32,128 --targets dubbo-netty4,dubbo-sluice
#   ./bench.sh --observe            also record every JVM with sluice.jfc; the report adds write-batches.svg
#   ./bench.sh --targets sluice,overhead   sluice vs sluice+jfr vs sluice+metrics: what observing costs
#   ./bench.sh --list               targets and whether they can run here
#   ./bench.sh --help               all options of dev.sluice.benchmark.Runner
#
# Wrapper-only options: --no-build (reuse benchmark/target/sluice-benchmarks.jar), --offline (mvn -o),
# --no-netns (run in the host network; needs a non-loopback IPv4 address on this machine).
#
# Real Dubbo consumers are very slow on a machine whose only interface is lo (docs/wire-format.md §10.1), so by
# default the server and client JVMs run in a private network namespace with a veth pair carrying 10.253.0.1, an
# address that exists only inside that namespace: no benchmark traffic can leave the machine. Maven runs outside.
# Results go to results/<timestamp>/ (git-ignored).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JAR="$ROOT/benchmark/target/sluice-benchmarks.jar"
NS_ADDR=10.253.0.1

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 2; }

run_runner() {
  cd "$ROOT"
  exec java -Xmx512m -XX:+UseSerialGC -cp "$JAR" dev.sluice.benchmark.Runner "$@"
}

# Runs the Runner from a private copy of the jar, so a rebuild of benchmark/ during a run (this work tree is shared)
# cannot pull classes from under the server and client JVMs.
run_copy() {
  local dir status=0
  dir="$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")"
  trap 'rm -rf "$dir"' EXIT
  cp "$JAR" "$dir/sluice-benchmarks.jar"
  cd "$ROOT"
  java -Xmx512m -XX:+UseSerialGC -cp "$dir/sluice-benchmarks.jar" dev.sluice.benchmark.Runner "$@" || status=$?
  exit "$status"
}

# ---- second stage: inside the private network namespace -------------------------------------------------------
if [[ "${SLUICE_BENCH_IN_NETNS:-}" == 1 ]]; then
  ip link set lo up
  ip link add sl0 type veth peer name sl1
  ip addr add "$NS_ADDR/32" dev sl0
  ip link set sl0 up
  ip link set sl1 up
  export SLUICE_BENCH_NETNS="private namespace, veth sl0/sl1, $NS_ADDR"
  run_copy --host "$NS_ADDR" "$@"
fi

# ---- first stage: build, then re-exec inside a namespace ------------------------------------------------------
build=1
netns=auto
mvn_flags=(-B -q -DskipTests -Dstyle.color=never)
pass=()
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --no-netns) netns=no ;;
    --offline) mvn_flags+=(-o) ;;
    -h|--help|--list|--report) build=0; pass+=("$arg") ;;
    *) pass+=("$arg") ;;
  esac
done

if [[ $build == 1 ]]; then
  log "building benchmark/target/sluice-benchmarks.jar (mvn ${mvn_flags[*]} -pl benchmark -am package)"
  (cd "$ROOT" && mvn "${mvn_flags[@]}" -pl benchmark -am package) || die "maven build failed"
fi
[[ -f "$JAR" ]] || die "$JAR is missing; run without --no-build"
command -v java >/dev/null || die "java not found"

export SLUICE_BENCH_GIT_REV="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || echo -dirty)"

has_host_ipv4() {
  ip -o -4 addr show up 2>/dev/null | awk '$2 != "lo" {found=1} END {exit !found}'
}

for arg in "${pass[@]+"${pass[@]}"}"; do
  case "$arg" in -h|--help|--list|--report) run_runner "${pass[@]}" ;; esac
done

if [[ $netns == auto ]]; then
  if [[ $EUID -eq 0 ]]; then unshare_flags=(-n); else unshare_flags=(-r -n); fi
  if command -v unshare >/dev/null && command -v ip >/dev/null && unshare "${unshare_flags[@]}" true 2>/dev/null; then
    log "running in a private network namespace (unshare ${unshare_flags[*]}), server address $NS_ADDR"
    exec unshare "${unshare_flags[@]}" env SLUICE_BENCH_IN_NETNS=1 bash "$ROOT/bench.sh" "${pass[@]+"${pass[@]}"}"
  fi
  has_host_ipv4 || die "cannot create a network namespace (unshare ${unshare_flags[*]} failed) and this machine has no non-loopback IPv4 address; a Dubbo consumer would be unusably slow"
  log "cannot create a network namespace; using this machine's own non-loopback address"
fi
has_host_ipv4 || die "--no-netns: this machine has no non-loopback IPv4 address; a Dubbo consumer would be unusably slow"
export SLUICE_BENCH_NETNS=no
run_copy "${pass[@]+"${pass[@]}"}"
