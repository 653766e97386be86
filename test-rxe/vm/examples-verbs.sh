#!/bin/sh
# Runs inside the VM: the examples (examples/README.md) unchanged over verbs — two push/pull servers
# and three workers (by addresses, then as a job with a scheduler), a keyed producer and consumer,
# echo, a file by rendezvous, one-sided work in agent memory, a gRPC server and client — each a JVM
# of its own on rxe0 (the VM has two devices, so RDMA_DEVICE names one). Fails unless every worker
# and the consumer checked what they got.
set -u
repo=${JRDMA_REPO:?}
jar="$repo/examples/target/jrdma-examples.jar"
[ -f "$jar" ] || { echo "examples-verbs: missing $jar (run mvn -B verify on the host first)"; exit 3; }
export RDMA_TRANSPORT=verbs RDMA_DEVICE=rxe0
run() { java -XX:TieredStopAtLevel=1 -jar "$jar" "$@"; }
log=$(mktemp)
# Each process says when it listens; wait for that line (bounded), not for a time; a process that
# ended without it ends the wait at once.
await() {
  i=0
  until grep -q "$1" "$log"; do
    i=$((i + 1))
    if [ "$i" -gt 600 ] || ! kill -0 "$2" 2>/dev/null; then
      echo "examples-verbs: no '$1' (the process ended, or 120 s passed)"; cat "$log"; return 1
    fi
    sleep 0.2
  done
}
run kv-server 10.77.0.1:7000 >> "$log" 2>&1 & s0=$!
run kv-server 10.77.0.1:7001 >> "$log" 2>&1 & s1=$!
await "listening on /10.77.0.1:7000" $s0 && await "listening on /10.77.0.1:7001" $s1 || { kill $s0 $s1 2>/dev/null; exit 1; }
status=0
w=""
for r in 0 1 2; do run kv-worker $r 3 10.77.0.1:7000 10.77.0.1:7001 >> "$log" 2>&1 & w="$w $!"; done
for p in $w; do wait $p || status=1; done
kill $s0 $s1
# The same as a job (kv-node, RDMA_KV_*): the workers first, the scheduler last; every node ends by
# itself. Six JVMs start at once on the emulated CPUs: the join may wait far longer than on a host.
job() { RDMA_KV_ROLE=$1 RDMA_KV_SCHEDULER=10.77.0.1:7600 RDMA_KV_NUM_WORKERS=3 RDMA_KV_NUM_SERVERS=2 \
  RDMA_KV_ADDRESS=10.77.0.1 RDMA_KV_JOIN_TIMEOUT_MS=300000 run kv-node >> "$log" 2>&1; }
n=""
for role in worker worker worker server server scheduler; do job $role & n="$n $!"; done
for p in $n; do wait $p || status=1; done
run keyed-producer 10.77.0.1:7100 3 >> "$log" 2>&1 & p=$!
await "keyed-producer publishing" $p || { kill $p 2>/dev/null; exit 1; }
run keyed-consumer 10.77.0.1:7100 3 >> "$log" 2>&1 || status=1
kill $p
run echo-server 10.77.0.1:7300 >> "$log" 2>&1 & e=$!
await "echo-server listening" $e || { kill $e 2>/dev/null; exit 1; }
run echo-client 10.77.0.1:7300 1000 >> "$log" 2>&1 || status=1
kill $e
files=$(mktemp -d)
mkdir "$files/in"
head -c 41955465 /dev/urandom > "$files/weights.bin"  # three 16 MiB messages, the last one short
run file-receiver 10.77.0.1:7400 "$files/in" >> "$log" 2>&1 & f=$!
await "file-receiver listening" $f || { kill $f 2>/dev/null; exit 1; }
run file-sender 10.77.0.1:7400 "$files/weights.bin" >> "$log" 2>&1 || status=1
i=0; until grep -q "^file-receiver: weights.bin" "$log" || [ $i -gt 300 ]; do i=$((i + 1)); sleep 0.2; done
kill $f
cmp -s "$files/weights.bin" "$files/in/weights.bin" || { echo "examples-verbs: the received file differs"; status=1; }
sent=$(grep "^file-sender: weights.bin" "$log" | sed 's/.*sha256 //')
[ -n "$sent" ] && grep -q "^file-receiver: weights.bin, 41955465 bytes, sha256 $sent" "$log" || status=1
rm -rf "$files"
run memory-server 10.77.0.1:7500 >> "$log" 2>&1 & m=$!
await "memory-server listening" $m || { kill $m 2>/dev/null; exit 1; }
run memory-client 10.77.0.1:7500 >> "$log" 2>&1 || status=1
kill $m
run simple-server 10.77.0.1:7600 >> "$log" 2>&1 & q=$!
await "simple-server listening" $q || { kill $q 2>/dev/null; exit 1; }
run simple-client 10.77.0.1:7600 >> "$log" 2>&1 || status=1
kill $q
run grpc-server 10.77.0.1:7200 >> "$log" 2>&1 & g=$!
await "grpc-server listening" $g || { kill $g 2>/dev/null; exit 1; }
run grpc-client 10.77.0.1:7200 verbs >> "$log" 2>&1 || status=1
kill $g
grep -e "^kv-worker" -e "^kv-node" -e "^keyed-consumer" -e "^grpc-client" -e "^echo-client" -e "^file-" -e "^memory-client" \
  -e "^simple-client" "$log"
[ "$(grep -c -e '^kv-worker .*every element = 18.0' -e '^kv-node worker .*every element = 18.0 .*over VERBS' \
  -e '^kv-node scheduler 0: finished' -e '^keyed-consumer: step .*CRC-32C checked' \
  -e '^grpc-client: hello, verbs' -e '^grpc-client: streamed 1000 messages in order' \
  -e '^echo-client: 1000 round trips of 64 B checked' -e '^memory-client: wrote and read back' \
  -e '^simple-client: .* 8 words; head 9 refused .*over VERBS' "$log")" = 15 ] || status=1
echo "examples-verbs: $([ $status = 0 ] && echo passed || echo FAILED)"
rm -f "$log"
exit $status
