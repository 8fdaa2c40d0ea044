#!/usr/bin/env bash
# What a hostile peer's bytes cost a server, Sluice against Dubbo 3.3.6 (docs/reliability.md H35).
#
#   ./hostile.sh                    build, then every attack against SluiceServer, Dubbo with server=sluice, and
#                                   Dubbo with its own netty4 server (decoding bodies on its I/O thread, its
#                                   default, then on its provider pool); a Markdown table on stdout (~10 min)
#   ./hostile.sh dubbo              only the targets named (sluice, adapter, dubbo, dubbo-pool)
#   ./hostile.sh decode-cost        instead: event-loop CPU per request frame on a SluiceServer, a typical call
#                                   against the costliest 8 MiB frames the decoder accepts (LoopDecodeCost, ~2 min)
#   ./hostile.sh --no-build ...     reuse the last build's classes and classpath
#   ./hostile.sh --offline ...      mvn -o
#   HOSTILE_ATTACKS=UNREAD_HEARTBEATS,TRICKLED_BODY ./hostile.sh ...   only these attacks (HostileAttacks.Attack)
#
# Each server runs in a child JVM of its own (dev.sluice.it.reliability.HostileScenario, through the test harness
# IsolatedJvm: a private network namespace where the machine can make one), attacked from inside that JVM over real
# sockets; the attacks and what is measured are described in HostileAttacks. The children's logs, and the table, go
# to results/hostile-<timestamp>/ (git-ignored).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CP_FILE="$ROOT/integration-tests/target/hostile.classpath"
log() { printf '[hostile] %s\n' "$*" >&2; }
die() { printf '[hostile] error: %s\n' "$*" >&2; exit 2; }

build=1
mvn_flags=(-B -q -Dstyle.color=never)
targets=()
main=dev.sluice.it.reliability.HostileCompare
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --offline) mvn_flags+=(-o) ;;
    -h|--help) sed -n '2,18p' "${BASH_SOURCE[0]}"; exit 0 ;;
    sluice|adapter|dubbo|dubbo-pool) targets+=("$arg") ;;
    decode-cost) main=dev.sluice.it.reliability.LoopDecodeCost ;;
    *) die "unknown argument $arg (see --help)" ;;
  esac
done

if [[ $build == 1 ]]; then
  log "building (mvn ${mvn_flags[*]} -pl integration-tests -am verify -DskipTests, then its test classpath)"
  (cd "$ROOT" && mvn "${mvn_flags[@]}" -pl integration-tests -am verify -DskipTests -DskipFuzz \
      dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE") || die "maven build failed"
fi
[[ -f "$CP_FILE" ]] || die "$CP_FILE is missing; run without --no-build"
command -v java >/dev/null || die "java not found"

out="$ROOT/results/hostile-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$out"
{
  echo "# hostile.sh $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p') ($(nproc) cores, $(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p'))"
  echo "Java: $(java -version 2>&1 | head -1)"
  echo
} > "$out/table.md"
cd "$ROOT/integration-tests"
java -Xmx1g -XX:MaxDirectMemorySize=512m -Dsluice.it.logdir="$out" ${HOSTILE_ATTACKS:+-Dhostile.attacks="$HOSTILE_ATTACKS"} \
  -cp "$ROOT/integration-tests/target/test-classes:$(cat "$CP_FILE")" \
  "$main" "${targets[@]+"${targets[@]}"}" | tee -a "$out/table.md"
log "table and child logs in $out"
