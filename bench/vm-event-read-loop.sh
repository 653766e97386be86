#!/bin/sh
# Inside the test-rxe VM: repeats the Java tool's event-mode write_lat + read_lat sequence, the case
# where an 8-byte READ once never completed (docs/performance.md), and counts the runs that failed.
#   bench/vm-event-read-loop.sh OUT [RUNS]
set -u
out=${1:?results dir}
runs=${2:-8}
mkdir -p "$out"
failed=0
for r in $(seq 1 "$runs"); do
  JRDMA_BENCH_MODE=event JRDMA_BENCH_PORT=$((18650 + r)) timeout 300 sh bench/run-pinned.sh \
    --tests write_lat,read_lat --sizes 8,64,4096,65536,1048576 --lat-iters 1000 --quiet > "$out/run-$r.txt" 2>&1
  status=$?
  if [ "$status" != 0 ] || grep -q "FAILED" "$out/run-$r.txt"; then
    failed=$((failed + 1))
    echo "run $r: status $status"; grep FAILED "$out/run-$r.txt"
  fi
  grep "^read_lat *8 " "$out/run-$r.txt"
done
echo "event-mode write_lat+read_lat: $failed of $runs runs failed"
