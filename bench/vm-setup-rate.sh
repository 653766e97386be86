#!/bin/sh
# Inside the test-rxe VM: how fast connections are set up over verbs — jrdma (jrdma-bench scale: a burst of
# channels between two contexts of one JVM, each connect through rdma_cm, queue pair, handshake and credits)
# against a raw rdma_cm program on the same device (cmtime from rdmacm-utils: N connections of bare queue
# pairs, all requested at once). Both over rxe0 loopback; ROUNDS rounds, interleaved; jrdma runs two bursts
# (the first warms the JIT up: read the second). Run with test-rxe/run-in-vm:
#   test-rxe/run-in-vm --topology two -- sh bench/vm-setup-rate.sh OUT [CHANNELS] [ROUNDS]
# (JRDMA_SCALE_ARGS: more options for jrdma-bench scale, e.g. "--connecting 100"; JRDMA_SETUP_JAR: another build's
# bench jar, to compare builds in one boot; RDMA_* variables pass through).
set -u
out=${1:?results dir}
n=${2:-100}
rounds=${3:-3}
jar=${JRDMA_SETUP_JAR:-bench/target/jrdma-bench.jar}
ip=10.77.0.1
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  port=$((19700 + round))
  cmtime -b "$ip" -p "$port" > "$out/cmtime-server-$round.txt" 2>&1 &
  server=$!
  sleep 1
  start=$(date +%s%N)
  cmtime -s "$ip" -b "$ip" -p "$port" -c "$n" > "$out/cmtime-$round.txt" 2>&1
  end=$(date +%s%N)
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  echo "round $round cmtime: $n connections, whole run $(( (end - start) / 1000000 )) ms"
  cat "$out/cmtime-$round.txt"
  RDMA_TRANSPORT=verbs RDMA_DEVICE=rxe0 java -XX:TieredStopAtLevel=1 -jar "$jar" scale --channels "$n,$n" --seconds 1 ${JRDMA_SCALE_ARGS:-} \
    > "$out/jrdma-$round.txt" 2>&1
  echo "round $round jrdma:"
  cat "$out/jrdma-$round.txt"
done
