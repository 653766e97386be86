#!/usr/bin/env bash
# Inside the test-rxe VM (topology one): two builds of the Java benchmark tool, A and B, in ONE boot,
# alternating run by run (A B, B A, ...) so that both see the same machine, each run a fresh server
# (vCPU 0) and client (vCPU 1) with the JIT warm-up the tool does. For questions like "did this
# change cost latency?", where figures of different boots cannot be compared.
#   test-rxe/run-in-vm --topology one -- bash bench/vm-ab.sh OUT A.jar B.jar
#   AB_ROUNDS (5), AB_TESTS (send_lat,write_lat), AB_SIZES (64), AB_MODE (busy)
set -u
out=${1:?results dir}; a=${2:?jar A}; b=${3:?jar B}
rounds=${AB_ROUNDS:-5}; tests=${AB_TESTS:-send_lat,write_lat}; sizes=${AB_SIZES:-64}; mode=${AB_MODE:-busy}
ip=10.77.0.1; port=18800
mkdir -p "$out"
run() { # label jar round
  port=$((port + 1))
  local tmp; tmp=$(mktemp -d)  # each JVM extracts its own libjrdma.so
  taskset -c 0 java -Djava.io.tmpdir="$tmp" -XX:-UsePerfData -jar "$2" bench --server "$ip:$port" --mode "$mode" \
    > "$out/$1-server-$3.log" 2>&1 &
  local server=$!
  for _ in $(seq 1 240); do grep -q "bench server on" "$out/$1-server-$3.log" 2>/dev/null && break; sleep 0.5; done
  taskset -c 1 java -Djava.io.tmpdir="$tmp" -XX:-UsePerfData -jar "$2" bench --connect "$ip:$port" --local "$ip" \
    --mode "$mode" --tests "$tests" --sizes "$sizes" --csv "$out/$1-$3.csv" > "$out/$1-client-$3.log" 2>&1
  kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
  echo "[ab] round $3: $1 done"
}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then run A "$a" "$r"; run B "$b" "$r"; else run B "$b" "$r"; run A "$a" "$r"; fi
done
# p50 per round, and the median of the per-round ratios B/A
python3 - "$out" "$rounds" <<'PY'
import csv, statistics, sys, os
out, rounds = sys.argv[1], int(sys.argv[2])
def rows(label, r):
    path = os.path.join(out, f"{label}-{r}.csv")
    if not os.path.exists(path): return {}
    return {(x["test"], x["bytes"]): float(x["p50_us"] or x["mib_per_s"] or "nan") for x in csv.DictReader(open(path))}
keys = sorted({k for r in range(1, rounds + 1) for k in rows("A", r)})
lines = []
for k in keys:
    a = [rows("A", r).get(k) for r in range(1, rounds + 1)]
    b = [rows("B", r).get(k) for r in range(1, rounds + 1)]
    ratios = [y / x for x, y in zip(a, b) if x and y]
    lines.append(f"{k[0]:10} {k[1]:>7}  A {' '.join(f'{x:7.1f}' for x in a if x)}  |  B {' '.join(f'{y:7.1f}' for y in b if y)}"
                 f"  |  B/A median {statistics.median(ratios):.2f} (rounds {' '.join(f'{r:.2f}' for r in ratios)})")
text = "\n".join(lines)
print(text)
open(os.path.join(out, "table.txt"), "w").write(text + "\n")
PY
