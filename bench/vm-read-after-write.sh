#!/bin/sh
# Inside the test-rxe VM: does perftest itself (event mode, -e) lose an RDMA READ right after a
# large RDMA WRITE test (perftest has no event mode for WRITE latency), as the Java tool did in event mode? (open question in docs/performance.md)
#   bench/vm-read-after-write.sh OUT [ROUNDS]
set -u
out=${1:?results dir}
rounds=${2:-8}
ip=10.77.0.1
mkdir -p "$out"
port=18800
stuck=0
for r in $(seq 1 "$rounds"); do
  for t in "write_lat 1048576 50" "read_lat 8 1000"; do
    set -- $t
    port=$((port + 1))
    events=-e; [ "$1" = write_lat ] && events="" # perftest has no event mode for WRITE latency
    timeout 60 taskset -c 0 "ib_$1" $events -d rxe0 -x 1 -s "$2" -n "$3" -p "$port" > "$out/server-$r-$1.txt" 2>&1 &
    server=$!
    sleep 2
    timeout 50 taskset -c 1 "ib_$1" $events -d rxe0 -x 1 -s "$2" -n "$3" -p "$port" "$ip" > "$out/client-$r-$1.txt" 2>&1
    status=$?
    wait "$server"
    if [ "$status" != 0 ]; then
      stuck=$((stuck + 1))
      echo "round $r: ib_$1 $events ($2 bytes) exited with $status"
    fi
  done
  grep -h "^ 8 " "$out/client-$r-read_lat.txt" || true
done
echo "perftest event mode: $stuck of $((rounds * 2)) runs failed or timed out"
