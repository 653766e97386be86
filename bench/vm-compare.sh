#!/usr/bin/env bash
# Inside the test-rxe VM (one rxe device, loopback QPs): perftest (busy-polling, and with -e sleeping
# on CQ events for send_lat and read_lat), the native benchmark and the Java tool (busy, adaptive,
# event and caller poll modes) on the same device in the same boot, each server pinned to vCPU 0
# and each client to vCPU 1 (JRDMA_COMPARE_SERVER_CPUS / _CLIENT_CPUS change that). The tools are INTERLEAVED case by case: for every test and size, all
# tools run back to back (in an order that rotates from round to round), so a ratio compares runs
# seconds apart instead of minutes; the machine's drift (perftest alone moved 2x between rounds when
# every tool ran its whole suite in turn) then hits both sides alike. The Java tools are long-lived
# (--cases-from-stdin: the JVM warms up once, then takes one case per line) and are stopped with
# SIGSTOP while other tools run, so a spinning busy-poll loop steals no CPU from them.
# Everything runs JRDMA_COMPARE_ROUNDS times (default 5); raw outputs go to $1/round-N and the table
# (medians and spread) to $1/table.txt. bench/compare runs this.
set -u
out=${1:?results dir}
rounds=${JRDMA_COMPARE_ROUNDS:-5}
sizes=${JRDMA_COMPARE_SIZES:-"8 64 4096 65536 1048576"}
tests=${JRDMA_COMPARE_TESTS:-"send_lat write_lat read_lat send_bw write_bw read_bw"}
modes=${JRDMA_COMPARE_MODES:-"busy adaptive event caller"} # the Java tool's poll modes to run
lat_iters=${JRDMA_COMPARE_LAT_ITERS:-1000}
bw_iters=${JRDMA_COMPARE_BW_ITERS:-1000}
jar=${JRDMA_COMPARE_JAR:-bench/target/jrdma-bench.jar} # another build of the tool: a before/after comparison
native=build/bench/jrdma_native_bench
ip=10.77.0.1
# Which vCPUs the servers and the clients run on (taskset lists). With the default two vCPUs each
# process has one, and its event-loop thread shares it with the thread that waits for the peer;
# with JRDMA_VM_CPUS=4 and "0,1" / "2,3" each process gets a core for its loop.
server_cpus=${JRDMA_COMPARE_SERVER_CPUS:-0}
client_cpus=${JRDMA_COMPARE_CLIENT_CPUS:-1}
mkdir -p "$out"
echo "machine: $(nproc) vCPUs, kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" | tee "$out/machine.txt"
csv_header="test,bytes,iterations,p50_us,p99_us,p999_us,mib_per_s,mmsg_per_s,note"

iterations() { # the same scaling as BenchClient.iterationsFor
  case "$1" in
    *_lat) n=$((16777216 / $2)); [ "$n" -lt 50 ] && n=50; [ "$n" -gt "$lat_iters" ] && n=$lat_iters ;;
    *) n=$((67108864 / $2)); [ "$n" -lt 100 ] && n=100; [ "$n" -gt "$bw_iters" ] && n=$bw_iters ;;
  esac
  echo "$n"
}

# waits until something listens on TCP port $1 (perftest's server exchanges its QP data over TCP)
wait_listening() {
  for _ in $(seq 1 100); do
    ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
    sleep 0.1
  done
  return 1
}

port=18700
run_perftest() { # test size iterations dir [-e]
  port=$((port + 1))
  local name=perftest${5:+-e}
  taskset -c "$server_cpus" "ib_$1" -d rxe0 -x 1 -s "$2" -n "$3" -p "$port" ${5:-} > "$4/$name-server-$1-$2.txt" 2>&1 &
  local server=$!
  wait_listening "$port" || sleep 2
  taskset -c "$client_cpus" "ib_$1" -d rxe0 -x 1 -s "$2" -n "$3" -p "$port" ${5:-} "$ip" > "$4/$name-$1-$2.txt" 2>&1
  sleep 0.2; kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
}

run_native() { # test size dir
  [ -x "$native" ] || return 0
  local rows="$3/native-case.csv"
  taskset -c "$server_cpus,$client_cpus" "$native" --tests "$1" --sizes "$2" --lat-iters "$lat_iters" --bw-iters "$bw_iters" --csv "$rows" \
    >> "$3/native.txt" 2>&1
  [ -f "$3/native.csv" ] || echo "$csv_header" > "$3/native.csv"
  [ -f "$rows" ] && tail -n +2 "$rows" >> "$3/native.csv"
  rm -f "$rows"
}

# The long-lived Java pairs: mode -> server pid, client pid, command and reply descriptors. Their
# pipes live in the guest's own /tmp (the shared project folder cannot hold FIFOs).
declare -A java_server java_client java_cmd java_reply
fifos=$(mktemp -d)
# Runs "$@" (exec) without the script's ends of the earlier pairs' fifos: a process that kept another
# pair's stdin open would keep that client from ever seeing the end of its input.
without_fifos() {
  local fd
  for fd in "${java_cmd[@]}" "${java_reply[@]}"; do eval "exec $fd>&-"; done
  exec "$@"
}
start_java() { # mode
  local mode=$1
  port=$((port + 1))
  (without_fifos taskset -c "$server_cpus" java ${JRDMA_COMPARE_JAVA_OPTIONS:-} -jar "$jar" bench --server "$ip:$port" --mode "$mode") > "$out/java-$mode-server.log" 2>&1 &
  java_server[$mode]=$!
  for _ in $(seq 1 240); do grep -q "bench server on" "$out/java-$mode-server.log" 2>/dev/null && break; sleep 0.5; done
  if ! grep -q "bench server on" "$out/java-$mode-server.log" 2>/dev/null; then
    echo "[compare] the java $mode server did not start; see $out/java-$mode-server.log" >&2
    exit 1
  fi
  mkfifo "$fifos/$mode.in" "$fifos/$mode.out" || exit 1
  (without_fifos taskset -c "$client_cpus" java ${JRDMA_COMPARE_JAVA_OPTIONS:-} -jar "$jar" bench --connect "$ip:$port" --local "$ip" --mode "$mode" --lat-iters "$lat_iters" \
    --bw-iters "$bw_iters" --tests "$(echo $tests | tr ' ' ',')" --cases-from-stdin) < "$fifos/$mode.in" > "$fifos/$mode.out" 2> "$out/java-$mode-client.log" &
  java_client[$mode]=$!
  # Opened read-write, a FIFO never blocks the open; a client that dies is noticed by read's timeout.
  local cmd reply
  exec {cmd}<> "$fifos/$mode.in"
  exec {reply}<> "$fifos/$mode.out"
  java_cmd[$mode]=$cmd
  java_reply[$mode]=$reply
  local line
  if read -r -t 300 line <&"$reply"; then
    echo "[compare] java $mode: $line" | tee -a "$out/machine.txt" >&2
  else
    echo "[compare] the java $mode client did not start; see $out/java-$mode-client.log" >&2
    exit 1
  fi
  kill -STOP "${java_client[$mode]}" "${java_server[$mode]}"
}

run_java() { # mode test size dir
  local mode=$1 row
  kill -CONT "${java_server[$mode]}" "${java_client[$mode]}"
  echo "$2 $3" >&"${java_cmd[$mode]}"
  if ! read -r -t 900 row <&"${java_reply[$mode]}"; then
    row="$2,$3,0,,,,,,FAILED: no answer from the Java client within 900 s (see java-$mode-client.log)"
  fi
  kill -STOP "${java_client[$mode]}" "${java_server[$mode]}"
  [ -f "$4/java-$mode.csv" ] || echo "$csv_header" > "$4/java-$mode.csv"
  echo "$row" >> "$4/java-$mode.csv"
}

# Waits up to $2 s for process $1 to end; if it does not, its threads go to $3 (jstack) and it is killed.
end_within() {
  local pid=$1 seconds=$2 log=$3
  for _ in $(seq 1 "$seconds"); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "[compare] process $pid did not end within $seconds s: its threads are in $log; killed" >&2
    jstack "$pid" >> "$log" 2>&1 || true
    kill -9 "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
}

stop_java() {
  local mode fd
  for mode in "${!java_cmd[@]}"; do
    kill -CONT "${java_server[$mode]}" "${java_client[$mode]}"
    fd=${java_cmd[$mode]}
    exec {fd}>&-  # end of its stdin: the client finishes
    end_within "${java_client[$mode]}" 60 "$out/java-$mode-client.log"
    kill "${java_server[$mode]}" 2>/dev/null
    end_within "${java_server[$mode]}" 30 "$out/java-$mode-server.log"
  done
}

echo "[compare] starting the Java tools (JIT warm-up)" >&2
for mode in $modes; do start_java "$mode"; done

tools=(perftest perftest-e)
for mode in $modes; do tools+=("java-$mode"); done
tools+=(native)
for round in $(seq 1 "$rounds"); do
  round_dir="$out/round-$round"
  mkdir -p "$round_dir"
  # Rotate the order: in round r the tool at position (r-1) mod (number of tools) runs first.
  first=$(( (round - 1) % ${#tools[@]} ))
  order=("${tools[@]:first}" "${tools[@]:0:first}")
  echo "[compare] round $round of $rounds, order: ${order[*]}" >&2
  for test in $tests; do
    for size in $sizes; do
      n=$(iterations "$test" "$size")
      echo "[compare] round $round: $test $size bytes x $n" >&2
      for tool in "${order[@]}"; do
        case $tool in
          perftest) run_perftest "$test" "$size" "$n" "$round_dir" ;;
          # perftest has no event mode for write_lat ("Events feature not available on WRITE verb")
          perftest-e) case $test in send_lat|read_lat) run_perftest "$test" "$size" "$n" "$round_dir" -e ;; esac ;;
          java-busy) run_java busy "$test" "$size" "$round_dir" ;;
          java-adaptive) run_java adaptive "$test" "$size" "$round_dir" ;;
          java-event) run_java event "$test" "$size" "$round_dir" ;;
          java-caller) run_java caller "$test" "$size" "$round_dir" ;;
          native) run_native "$test" "$size" "$round_dir" ;;
        esac
      done
    done
  done
done
stop_java
java -jar "$jar" compare-report "$out" | tee "$out/table.txt"
