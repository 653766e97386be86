#!/bin/sh
# Inside the test-rxe VM (one rxe device, loopback QPs): perftest, the native benchmark and the
# Java tool on the same device in the same boot, each server pinned to vCPU 0 and each client to
# vCPU 1. Everything runs JRDMA_COMPARE_ROUNDS times (default 3; the event-mode Java run only in
# the first round), because single runs on a shared, emulated machine vary by tens of percent; the
# table gives medians. Raw outputs go to $1/round-N; bench/compare runs this.
set -u
out=${1:?results dir}
rounds=${JRDMA_COMPARE_ROUNDS:-3}
sizes=${JRDMA_COMPARE_SIZES:-"8 64 4096 65536 1048576"}
lat_iters=${JRDMA_COMPARE_LAT_ITERS:-1000}
bw_iters=${JRDMA_COMPARE_BW_ITERS:-1000}
jar=bench/target/jrdma-bench.jar
ip=10.77.0.1
mkdir -p "$out"
echo "machine: $(nproc) vCPUs, kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" | tee "$out/machine.txt"

iterations() { # the same scaling as BenchClient.iterationsFor
  case "$1" in
    *_lat) n=$((16777216 / $2)); [ "$n" -lt 50 ] && n=50; [ "$n" -gt "$lat_iters" ] && n=$lat_iters ;;
    *) n=$((67108864 / $2)); [ "$n" -lt 100 ] && n=100; [ "$n" -gt "$bw_iters" ] && n=$bw_iters ;;
  esac
  echo "$n"
}

port=18700
for round in $(seq 1 "$rounds"); do
  round_dir="$out/round-$round"
  mkdir -p "$round_dir"
  echo "[compare] round $round of $rounds" >&2
  for test in send_lat write_lat read_lat send_bw write_bw read_bw; do
    for size in $sizes; do
      n=$(iterations "$test" "$size")
      port=$((port + 1))
      echo "[compare] perftest ib_$test $size bytes x $n" >&2
      taskset -c 0 "ib_$test" -d rxe0 -x 1 -s "$size" -n "$n" -p "$port" > "$round_dir/perftest-server-$test-$size.txt" 2>&1 &
      server=$!
      sleep 2
      taskset -c 1 "ib_$test" -d rxe0 -x 1 -s "$size" -n "$n" -p "$port" "$ip" > "$round_dir/perftest-$test-$size.txt" 2>&1
      sleep 0.5; kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
    done
  done

  java_sizes=$(echo $sizes | tr ' ' ',')
  modes="busy"; [ "$round" = 1 ] && modes="event busy"
  for mode in $modes; do
    port=$((port + 1))
    echo "[compare] jrdma java ($mode)" >&2
    taskset -c 0 java -jar "$jar" bench --server "$ip:$port" --mode "$mode" > "$round_dir/java-$mode-server.txt" 2>&1 &
    server=$!
    sleep 8
    taskset -c 1 java -jar "$jar" bench --connect "$ip:$port" --local "$ip" --mode "$mode" --sizes "$java_sizes" \
      --lat-iters "$lat_iters" --bw-iters "$bw_iters" --csv "$round_dir/java-$mode.csv" --quiet > "$round_dir/java-$mode.txt" 2>&1
    kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
  done

  if [ -x build/bench/jrdma_native_bench ]; then
    echo "[compare] jrdma native" >&2
    taskset -c 0,1 build/bench/jrdma_native_bench --sizes "$java_sizes" --lat-iters "$lat_iters" --bw-iters "$bw_iters" \
      --csv "$round_dir/native.csv" > "$round_dir/native.txt" 2>&1
  fi
done
java -jar "$jar" compare-report "$out" | tee "$out/table.txt"
