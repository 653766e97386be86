#!/bin/sh
# Inside the test-rxe VM: what one ping-pong hop costs the client in system calls and context
# switches — ib_send_lat (busy and -e) against the Java tool in each poll mode — counted with
# perf stat on the tracepoint raw_syscalls:sys_enter. The Java client is attached after its JIT
# warm-up (when it announces the case), so the counts cover the measured case only; per hop =
# count / iterations (a slight underestimate for Java: the first iterations may precede the attach).
# Server pinned to vCPU 0, client to vCPU 1, as bench/compare. Run with test-rxe/run-in-vm:
#   test-rxe/run-in-vm --topology one -- sh bench/vm-syscalls.sh OUT [SIZE] [ITERATIONS]
set -u
out=${1:?results dir}
size=${2:-64}
iters=${3:-20000}
jar=bench/target/jrdma-bench.jar
ip=10.77.0.1
events=raw_syscalls:sys_enter,context-switches
mkdir -p "$out"

per_hop() { # perf stat output file -> "syscalls/hop switches/hop"
  awk -v n="$iters" '/raw_syscalls:sys_enter/ {s=$1} /context-switches/ {c=$1}
    END {gsub(",", "", s); gsub(",", "", c); printf "%.2f syscalls, %.2f context switches per iteration", s / n, c / n}' "$1"
}

port=18950
for flags in "" "-e"; do
  port=$((port + 1))
  taskset -c 0 ib_send_lat -d rxe0 -x 1 -s "$size" -n "$iters" -p "$port" $flags > "$out/perftest-server$flags.txt" 2>&1 &
  server=$!
  sleep 2
  taskset -c 1 perf stat -x' ' -e "$events" -o "$out/perftest-client$flags.stat" \
    ib_send_lat -d rxe0 -x 1 -s "$size" -n "$iters" -p "$port" $flags "$ip" > "$out/perftest-client$flags.txt" 2>&1
  wait "$server"
  echo "ib_send_lat ${flags:-(busy)} $size B: $(per_hop "$out/perftest-client$flags.stat"); $(grep -E "^ *$size " "$out/perftest-client$flags.txt" | awk '{print "t_typical " $5 " us"}')"
done

for mode in busy adaptive event; do
  port=$((port + 1))
  taskset -c 0 java -jar "$jar" bench --server "$ip:$port" --mode "$mode" > "$out/java-server-$mode.txt" 2>&1 &
  server=$!
  for i in $(seq 1 240); do grep -q "bench server on" "$out/java-server-$mode.txt" && break; sleep 0.5; done
  taskset -c 1 java -jar "$jar" bench --connect "$ip:$port" --local "$ip" --mode "$mode" --tests send_lat \
    --sizes "$size" --lat-iters "$iters" --warmup 0 > "$out/java-client-$mode.txt" 2> "$out/java-client-$mode.err" &
  client=$!
  for i in $(seq 1 400); do grep -q "\[bench\] send_lat" "$out/java-client-$mode.err" && break; sleep 0.5; done
  perf stat -x' ' -e "$events" -o "$out/java-client-$mode.stat" -p "$client" 2>/dev/null &
  stat=$!
  wait "$client"
  kill -INT "$stat" 2>/dev/null; wait "$stat"
  kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
  echo "java $mode $size B: $(per_hop "$out/java-client-$mode.stat"); $(grep -E "^send_lat" "$out/java-client-$mode.txt" | awk '{print "p50 " $4 " us"}')"
done
