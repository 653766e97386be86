#!/bin/sh
# The transports without RDMA on this host, interleaved round by round (docs/performance.md,
# "TCP and shared memory vs Java NIO"): jrdma's bench over shared memory and over TCP in the default
# adaptive mode, over TCP in event mode (a sleeping loop, as NIO's blocking threads) and caller-driven
# (the application's thread drives the context: one thread per side, as NIO's), then plain Java NIO
# on loopback (`jrdma-bench nio`).
#   bench/host-transports.sh [rounds] [sizes]      (defaults: 3, 64,4K,64K,1M)
set -eu
jar=$(dirname "$0")/target/jrdma-bench.jar
rounds=${1:-3}
sizes=${2:-64,4K,64K,1M}
run() {  # transport mode tests
  RDMA_TRANSPORT=$1 java -jar "$jar" bench --tests "$3" --sizes "$sizes" --iters 5000 --mode "$2" --quiet \
    | grep -E '^(send|write|read)_' | sed "s/^/$1-$2 /"
}
for round in $(seq 1 "$rounds"); do
  echo "== round $round"
  run shm adaptive send_lat,write_lat,read_lat,send_bw
  run tcp adaptive send_lat,write_lat,read_lat,send_bw
  run tcp event send_lat,send_bw
  run tcp caller send_lat,write_lat,send_bw
  java -jar "$jar" nio --sizes "$sizes" --iters 5000 | grep -E '^(nio_lat|nio_bw) ' | sed 's/^/nio /'
done
