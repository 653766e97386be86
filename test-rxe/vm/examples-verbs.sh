#!/bin/sh
# Runs inside the VM: the examples (examples/README.md) unchanged over verbs — two push/pull servers
# and three workers, a keyed producer and consumer, a gRPC server and client, each a JVM of its own on rxe0 (the VM has two
# devices, so RDMA_DEVICE names one). Fails unless every worker and the consumer checked what they got.
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
run keyed-producer 10.77.0.1:7100 3 >> "$log" 2>&1 & p=$!
await "keyed-producer publishing" $p || { kill $p 2>/dev/null; exit 1; }
run keyed-consumer 10.77.0.1:7100 3 >> "$log" 2>&1 || status=1
kill $p
run grpc-server 10.77.0.1:7200 >> "$log" 2>&1 & g=$!
await "grpc-server listening" $g || { kill $g 2>/dev/null; exit 1; }
run grpc-client 10.77.0.1:7200 verbs >> "$log" 2>&1 || status=1
kill $g
grep -e "^kv-worker" -e "^keyed-consumer" -e "^grpc-client" "$log"
[ "$(grep -c -e '^kv-worker .*every element = 18.0' -e '^keyed-consumer: step .*CRC-32C checked' \
  -e '^grpc-client: hello, verbs' -e '^grpc-client: streamed 1000 messages in order' "$log")" = 8 ] || status=1
echo "examples-verbs: $([ $status = 0 ] && echo passed || echo FAILED)"
rm -f "$log"
exit $status
