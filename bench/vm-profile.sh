#!/bin/sh
# Inside the test-rxe VM: profiles one Java benchmark case with perf (cpu-clock sampling, the only
# event TCG offers) — server pinned to vCPU 0, client to vCPU 1, busy-poll — next to perftest's
# run of the same case, and writes per-process reports to $1. JIT-compiled frames are named through
# the JVM's perf map (-XX:+DumpPerfMapAtExit). Run it with test-rxe/run-in-vm (docs/testing.md).
#
#   bench/vm-profile.sh OUT [TEST] [SIZE] [ITERATIONS]
set -u
out=${1:?results dir}
test=${2:-send_lat}
size=${3:-64}
iters=${4:-20000}
jar=bench/target/jrdma-bench.jar
ip=10.77.0.1
mode=${JRDMA_BENCH_MODE:-busy}
mkdir -p "$out"
cat /proc/kallsyms > "$out/kallsyms" # for reading the data on the host: perf report --kallsyms
jvm="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer"

report() { # $1 = perf data, $2 = report prefix; the second half of the run only (JIT warm by then)
  r="perf report -i $1 --no-children -g none --stdio --time 50%-100%"
  { $r --sort comm; $r --sort dso; } 2>/dev/null | grep -v '^#' | grep -v '^$' > "$2-threads.txt"
  $r --sort comm,dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' | head -80 > "$2-sym.txt"
}

echo "[profile] perftest ib_$test $size x $iters" >&2
taskset -c 0 perf record -q --timestamp-boundary -e cpu-clock -F 2000 -g -o "$out/perftest-server.data" \
  "ib_$test" -d rxe0 -x 1 -s "$size" -n "$iters" -p 18900 > "$out/perftest-server.txt" 2>&1 &
server=$!
sleep 3
taskset -c 1 perf record -q --timestamp-boundary -e cpu-clock -F 2000 -g -o "$out/perftest-client.data" \
  "ib_$test" -d rxe0 -x 1 -s "$size" -n "$iters" -p 18900 "$ip" > "$out/perftest-client.txt" 2>&1
wait "$server"
report "$out/perftest-server.data" "$out/perftest-server"
report "$out/perftest-client.data" "$out/perftest-client"

echo "[profile] jrdma java ($mode) $test $size x $iters" >&2
taskset -c 0 perf record -q --timestamp-boundary -e cpu-clock -F 2000 -g -o "$out/java-server.data" \
  java $jvm -jar "$jar" bench --server "$ip:18901" --mode "$mode" > "$out/java-server.txt" 2>&1 &
server=$!
for i in $(seq 1 120); do grep -q "bench server on" "$out/java-server.txt" && break; sleep 0.5; done
taskset -c 1 perf record -q --timestamp-boundary -e cpu-clock -F 2000 -g -o "$out/java-client.data" \
  java $jvm -jar "$jar" bench --connect "$ip:18901" --local "$ip" --mode "$mode" --tests "$test" --sizes "$size" \
  --lat-iters "$iters" --bw-iters "$iters" > "$out/java-client.txt" 2>&1
# perf forwards SIGINT to the JVM, which exits normally and writes its perf map.
kill -INT "$server" 2>/dev/null; pkill -INT -f "bench --server" 2>/dev/null; wait "$server"
cp /tmp/perf-*.map "$out/" 2>/dev/null
report "$out/java-server.data" "$out/java-server"
report "$out/java-client.data" "$out/java-client"
cat "$out/java-client.txt"
for f in "$out"/*-threads.txt; do echo "== $f"; head -24 "$f"; done
