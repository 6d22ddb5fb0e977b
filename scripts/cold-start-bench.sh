#!/usr/bin/env bash
# Times single cold `clustersim run` commands on JDK 17, on JDK 17 with an AppCDS archive, on
# JDK 25 without and with the launcher's ahead-of-time cache, alternating the four, and prints
# every run (wall and CPU seconds, load average) and each one's median. The JVM flags are the
# launcher's. Build the jar and the launcher's cache first (./clustersim --version does both).
#
#   scripts/cold-start-bench.sh REPS SCENARIO [run options...]
#   scripts/cold-start-bench.sh 5 scenarios/llama3-405b-16k-h100.yaml --no-trace
#
# JDK17 and JDK25 name the two JDKs' java (defaults: java on PATH and the Temurin 25 of
# /usr/lib/jvm). The AppCDS archive is made once, by a run of the same command, into /tmp.
# CONFIGS picks configurations (also jdk25+aot+c1: the cache and C1 only). NICE=-15 runs the
# timed commands at that priority (root only), for a machine other work keeps busy.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
reps="$1"
shift
jar="$root/sim-cli/target/clustersim.jar"
jdk17="${JDK17:-java}"
jdk25="${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
flags=(-XX:+UseSerialGC -XX:PretenureSizeThreshold=1m -XX:InitialRAMPercentage=5)
cache="$(ls -t "$root"/sim-cli/target/aot/clustersim-*.aot | head -1)"
# the launcher's cache is made for its copy of the jar beside it (Java 5 class files rewritten)
cache_jar="${cache%.aot}.jar"
[ -f "$cache_jar" ] || cache_jar="$jar"
jsa="/tmp/clustersim-cds-$(cksum < "$jar" | cut -d' ' -f1).jsa"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
[ -f "$jsa" ] || "$jdk17" "${flags[@]}" -XX:ArchiveClassesAtExit="$jsa" -Xlog:cds=off -jar "$jar" run "$@" \
  --summary "$out/s.json" >/dev/null 2>&1
declare -A runs
configs="${CONFIGS:-jdk17 jdk17+cds jdk25 jdk25+aot}"
for i in $(seq "$reps"); do
  for c in $configs; do
    run_jar="$jar"
    case "$c" in jdk25+aot*) run_jar="$cache_jar" ;; esac
    case "$c" in
      jdk17) cmd=("$jdk17" "${flags[@]}") ;;
      jdk17+cds) cmd=("$jdk17" "${flags[@]}" -XX:SharedArchiveFile="$jsa" -Xlog:cds=off) ;;
      jdk25) cmd=("$jdk25" "${flags[@]}") ;;
      jdk25+aot) cmd=("$jdk25" "${flags[@]}" -XX:AOTCache="$cache" -Xlog:aot*=off) ;;
      jdk25+aot+c1) cmd=("$jdk25" "${flags[@]}" -XX:AOTCache="$cache" -Xlog:aot*=off -XX:TieredStopAtLevel=1) ;;
    esac
    load="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -)"
    nice -n "${NICE:-0}" /usr/bin/time -f "%e %U %S" -o "$out/time" "${cmd[@]}" -jar "$run_jar" run "$@" --summary "$out/$c.json" >/dev/null
    read -r wall user sys < "$out/time"
    cpu="$(echo "$user + $sys" | bc)"
    echo "$c run $i: wall $wall s, cpu $cpu s, load $load"
    runs[$c]="${runs[$c]:-} $wall/$cpu"
  done
done
first="${configs%% *}"
for c in $configs; do
  cmp -s "$out/$first.json" "$out/$c.json" || echo "$c: summary differs from $first's"
  w="$(for r in ${runs[$c]}; do echo "${r%/*}"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  p="$(for r in ${runs[$c]}; do echo "${r#*/}"; done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  echo "$c median: wall $w s, cpu $p s"
done
