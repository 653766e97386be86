#!/bin/sh
# Runs inside the VM: the test-rxe JUnit suite with the console launcher, on the class path that
# the host build wrote (test-rxe/target/vm/classpath.txt). Reports go to test-rxe/target/vm-reports.
#   junit-suite.sh [--docker] [launcher arguments]
# Without --docker: every test not tagged "docker", "destroys-topology", "tcp" or "shm" (the contract
# tests over TCP and shared memory, which the host's mvn verify runs), then (when no test is
# selected) the "destroys-topology" tests last, in a JVM of its own (a send into a link outage leaves
# rdma_cm unusable over the link for minutes; deleting the veth pair ends it). With --docker: starts
# a Docker engine in the
# guest (docker-up.sh) and runs the Testcontainers tests (tag "docker") only.
# Extra arguments go to the launcher, e.g. --select-method org.jrdma.rxe.verbs.DeviceSmokeTest#portsAreActive
set -u
repo=${JRDMA_REPO:?}
target="$repo/test-rxe/target"
tags="--exclude-tag=docker --exclude-tag=destroys-topology --exclude-tag=tcp --exclude-tag=shm"
reports="$target/vm-reports/plain"
native_status=0
native_ran=0
if [ "${1:-}" = --native ]; then
  # The native device tests first (ASan build); their result is reported with the suite's.
  shift
  native_ran=1
  sh "$repo/test-rxe/vm/native-device-tests.sh" || native_status=$?
fi
if [ "${1:-}" = --docker ]; then
  shift
  tags="--include-tag=docker"
  reports="$target/vm-reports/docker"
  sh "$repo/test-rxe/vm/docker-up.sh" || exit $?
  # Testcontainers against the guest's engine (rxe-vm.md): no Ryuk, no start-up checks, and
  # localhost as the host because /.dockerenv makes it look for the removed bridge network.
  export DOCKER_HOST=unix:///var/run/docker.sock TESTCONTAINERS_RYUK_DISABLED=true \
    TESTCONTAINERS_CHECKS_DISABLE=true TESTCONTAINERS_HOST_OVERRIDE=localhost
fi
for f in "$target/vm/classpath.txt" "$target/vm/junit-console.jar" "$target/test-classes"; do
  [ -e "$f" ] || { echo "junit-suite: missing $f (run mvn -B verify on the host first)"; exit 3; }
done
rm -rf "$reports"
selection="--scan-class-path=$target/test-classes"
destructive=0
[ "$tags" != "--include-tag=docker" ] && destructive=1
[ $# -gt 0 ] && selection="" && destructive=0
# C1 only: under TCG the optimizing compiler costs more than it saves in a short suite.
# A fixed mmap threshold: glibc otherwise raises it to the size of each large block freed, so that
# the next megabyte-sized allocations come from the heap and stay resident after they are freed —
# which ResourceBaseline would count as memory a test class kept (seen: +95 MiB after
# KeyedTransferTest's 4 MiB values in a fresh JVM, nothing kept by jrdma).
export MALLOC_MMAP_THRESHOLD_=131072
java -XX:TieredStopAtLevel=1 -Djrdma.repo="$repo" -jar "$target/vm/junit-console.jar" execute \
  --class-path "$target/test-classes:$(cat "$target/vm/classpath.txt")" \
  $selection $tags "$@" \
  --reports-dir "$reports" --details=tree --disable-banner --disable-ansi-colors
status=$?
examples_status=0
if [ "$native_ran" = 1 ]; then
  # The examples as separate processes over verbs (the host's mvn verify runs them over TCP and shm);
  # before the topology-destroying tests, which delete the devices. (Netty's test suite over verbs is
  # run on its own, test-rxe/vm/netty-verbs.sh: not yet reliable in the emulation, docs/netty.md.)
  sh "$repo/test-rxe/vm/examples-verbs.sh" || examples_status=$?
fi
# The emulation's health: packets the veth pair dropped (rxe-setup.sh makes it lossless) and any
# kernel warning from rdma_rxe. A test failure next to either is the emulation's (docs/testing.md).
for dev in veth0 veth1; do
  [ -e "/sys/class/net/$dev" ] && echo "junit-suite: $dev dropped rx $(cat /sys/class/net/$dev/statistics/rx_dropped) tx $(cat /sys/class/net/$dev/statistics/tx_dropped)"
done
rxe_errors=$(dmesg 2>/dev/null | grep -c -e "rdma_rxe: Failed" -e "WARNING.*rxe")
echo "junit-suite: rdma_rxe errors and warnings in the kernel log: $rxe_errors"
[ "$rxe_errors" != 0 ] && dmesg 2>/dev/null | grep -e "rdma_rxe: Failed" -e "WARNING.*rxe" | sed 's/^\[[^]]*\] //' | sort | uniq -c | head -5
if [ "$destructive" = 1 ]; then
  rm -rf "$target/vm-reports/destroys-topology"
  java -XX:TieredStopAtLevel=1 -Djrdma.repo="$repo" -jar "$target/vm/junit-console.jar" execute \
    --class-path "$target/test-classes:$(cat "$target/vm/classpath.txt")" \
    --scan-class-path="$target/test-classes" --include-tag=destroys-topology \
    --reports-dir "$target/vm-reports/destroys-topology" --details=tree --disable-banner --disable-ansi-colors
  removal_status=$?
  [ "$status" = 0 ] && status=$removal_status
fi
[ "$status" = 0 ] && [ "$native_status" != 0 ] && status=$native_status
[ "$status" = 0 ] && [ "$examples_status" != 0 ] && status=$examples_status
exit "$status"
