#!/bin/sh
# Inside the test-rxe VM (one boot, one rxe device, loopback queue pairs): the Java tool over
# Soft-RoCE (verbs), over shared memory and over TCP, in the default adaptive mode, interleaved round
# by round — every transport on the same emulated machine, so shared memory vs rxe is a fair ratio
# (docs/performance.md). Usage (host):
#   test-rxe/run-in-vm --topology one -- sh bench/vm-transports.sh [rounds] [adaptive spin us]
# The spin is learned by default (0); a number of microseconds fixes the adaptive loops' ceiling.
set -eu
cd "${JRDMA_REPO:?}"
jar=bench/target/jrdma-bench.jar
rounds=${1:-3}
spin=${2:-0}
for round in $(seq 1 "$rounds"); do
  echo "== round $round"
  for transport in verbs shm tcp; do
    RDMA_ADAPTIVE_SPIN_US=$spin RDMA_TRANSPORT=$transport RDMA_DEVICE=$([ "$transport" = verbs ] && echo rxe0 || true) \
      java -XX:TieredStopAtLevel=1 -jar "$jar" bench --tests send_lat,send_bw --sizes 64,4K,64K --iters 2000 --quiet \
      | grep -E '^(send|write|read)_' | sed "s/^/$transport /"
  done
done
