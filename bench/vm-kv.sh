#!/bin/sh
# Inside the test-rxe VM (one rxe device, loopback queue pairs): perftest's ib_write_bw, then the kv
# bench over verbs (push, pull and PushPull next to jrdma's own write ceiling, PushPull also with
# --without-slots: the message path), in one boot, so the figures share one emulated machine
# (docs/performance.md). RDMA_TIMEOUT=18 (about 1 s per try) as the tests use in the VM: the emulated
# responder stalls now and then, and with 16 writes of 4 MiB in flight per writer the default (67 ms,
# 7 tries) ended a run with RETRY_EXC_ERR (docs/configuration.md). Usage (host):
#   test-rxe/run-in-vm --topology one -- sh bench/vm-kv.sh [sizes] [workers] [bytes] [runs]
set -u
cd "${JRDMA_REPO:?}"
jar=bench/target/jrdma-bench.jar
sizes=${1:-64K,4M}
workers=${2:-1,2}
bytes=${3:-8M}
runs=${4:-1}
port=18800
for size in 65536 4194304; do
  port=$((port + 1))
  ib_write_bw -d rxe0 -x 1 -s "$size" -n 200 -p "$port" > /dev/null 2>&1 &
  server=$!
  sleep 2
  echo "== perftest ib_write_bw -s $size"
  ib_write_bw -d rxe0 -x 1 -s "$size" -n 200 -p "$port" 10.77.0.1 2>&1 | grep -E '^ *[0-9]+ +[0-9]+ '
  kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
done
echo "== kv (verbs)"
RDMA_TIMEOUT=${RDMA_TIMEOUT:-18} RDMA_DEVICE=rxe0 java -XX:TieredStopAtLevel=1 -XX:-UsePerfData -jar "$jar" kv --sizes "$sizes" --workers "$workers" \
  --servers 1 --bytes "$bytes" --runs "$runs" 2>&1 | grep -v WARN
echo "== kv (verbs) --without-slots, PushPull"
RDMA_TIMEOUT=${RDMA_TIMEOUT:-18} RDMA_DEVICE=rxe0 java -XX:TieredStopAtLevel=1 -XX:-UsePerfData -jar "$jar" kv --sizes "$sizes" --workers "$workers" \
  --servers 1 --bytes "$bytes" --runs "$runs" --ops pushpull --without-slots 2>&1 | grep -v WARN
