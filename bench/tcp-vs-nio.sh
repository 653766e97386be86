#!/bin/sh
# The TCP transport next to plain Java NIO on this host's loopback, interleaved round by round
# (docs/performance.md, "TCP transport vs Java NIO"): jrdma's bench over TCP in the default
# adaptive mode and in event mode (a sleeping loop, as NIO's blocking threads), then `nio`.
#   bench/tcp-vs-nio.sh [rounds] [sizes]      (defaults: 3, 64,4K,64K,1M)
set -eu
jar=$(dirname "$0")/target/jrdma-bench.jar
rounds=${1:-3}
sizes=${2:-64,4K,64K,1M}
for round in $(seq 1 "$rounds"); do
  echo "== round $round"
  for mode in adaptive event; do
    echo "-- jrdma over TCP, $mode mode"
    RDMA_TRANSPORT=tcp java -jar "$jar" bench --tests send_lat,send_bw --sizes "$sizes" --iters 5000 --mode "$mode" --quiet \
      | grep -E '^(send_lat|send_bw) '
  done
  echo "-- plain NIO"
  java -jar "$jar" nio --sizes "$sizes" --iters 5000 | grep -E '^(nio_lat|nio_bw) '
done
