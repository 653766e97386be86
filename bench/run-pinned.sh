#!/bin/sh
# Runs the Java benchmark as two processes, the server pinned to CPU 0 and the client to CPU 1,
# busy-polling, over the device whose address is $JRDMA_BENCH_IP (default 10.77.0.1, the test VM's
# rxe0). Extra arguments go to the client (e.g. --sizes 8,4K --csv out.csv).
set -u
jar=${JRDMA_BENCH_JAR:-bench/target/jrdma-bench.jar}
ip=${JRDMA_BENCH_IP:-10.77.0.1}
port=${JRDMA_BENCH_PORT:-18600}
mode=${JRDMA_BENCH_MODE:-busy}
log=$(mktemp)
taskset -c 0 java -jar "$jar" bench --server "$ip:$port" --mode "$mode" > "$log" 2>&1 &
server=$!
# The server prints its address once it listens.
for i in $(seq 1 120); do grep -q "bench server on" "$log" && break; sleep 0.5; done
if ! grep -q "bench server on" "$log"; then echo "the benchmark server did not start:"; cat "$log"; kill "$server"; exit 1; fi
taskset -c 1 java -jar "$jar" bench --connect "$ip:$port" --local "$ip" --mode "$mode" "$@"
status=$?
kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
rm -f "$log"
exit "$status"
