#!/bin/sh
# Runs inside the VM: Netty's test suite over jrdma-netty on verbs (docs/netty.md) — the servers'
# event loops on rxe0 (10.77.0.1), the clients' on rxe1. The host's mvn verify runs it over TCP and
# shared memory. Reports go to test-rxe/target/vm-reports/netty. test-rxe/run-suite runs it in its own boot
# (suite "netty"); on its own, or with tests selected (--select-class, --select-method):
#   test-rxe/run-in-vm --topology two --timeout 1500 --results test-rxe/target/nettyvm -- sh test-rxe/vm/netty-verbs.sh
set -u
repo=${JRDMA_REPO:?}
target="$repo/netty/target"
for f in "$target/vm/classpath.txt" "$target/classes" "$target/test-classes" "$repo/test-rxe/target/vm/junit-console.jar"; do
  [ -e "$f" ] || { echo "netty-verbs: missing $f (run mvn -B verify on the host first)"; exit 3; }
done
reports="$repo/test-rxe/target/vm-reports/netty"
selection="--scan-class-path=$target/test-classes"
[ $# -gt 0 ] && selection=""  # tests selected: --select-class, --select-method
rm -rf "$reports"
# JRDMA_RXE_TRACE=1: kernel probes on rxe's responder error path (docs/netty.md, "a queue pair in error with no
# event"): every move of a queue pair to error with the kernel stack that made it, every failed re-check of a
# memory key (a READ, or a READ replayed for a duplicate request, that finds its region gone), every
# deregistration and every replayed READ's resource lookup. Printed with each dump and at the end.
rxe_trace=/sys/kernel/tracing
if [ "${JRDMA_RXE_TRACE:-0}" = 1 ]; then
  [ -d "$rxe_trace/events" ] || mount -t tracefs nodev "$rxe_trace" || echo "netty-verbs: no tracefs"
  if grep -q rxe_qp_error "$rxe_trace/kprobe_events" 2>/dev/null; then
    echo > "$rxe_trace/trace"  # set up by an earlier run in this boot: only its records go
    echo "netty-verbs: rxe trace on"
  elif [ -w "$rxe_trace/kprobe_events" ]; then
    {
      echo 'p:rxe_qp_error rdma_rxe:rxe_qp_error qp=%di'
      echo 'p:rxe_recheck rdma_rxe:rxe_recheck_mr qp=%di rkey=%si:x32'
      echo 'r:rxe_recheck_ret rdma_rxe:rxe_recheck_mr mr=$retval'
      echo 'r:rxe_find_resource rdma_rxe:find_resource res=$retval'
      echo 'p:rxe_dereg rdma_rxe:rxe_dereg_mr mr=%di'
    } > "$rxe_trace/kprobe_events"
    echo 'mr == 0' > "$rxe_trace/events/kprobes/rxe_recheck_ret/filter"
    echo stacktrace > "$rxe_trace/events/kprobes/rxe_qp_error/trigger"
    echo 16384 > "$rxe_trace/buffer_size_kb"
    for e in rxe_qp_error rxe_recheck_ret rxe_find_resource rxe_dereg; do echo 1 > "$rxe_trace/events/kprobes/$e/enable"; done
    echo "netty-verbs: rxe trace on"
  fi
fi
rxe_trace_tail() {
  [ "${JRDMA_RXE_TRACE:-0}" = 1 ] && [ -r "$rxe_trace/trace" ] || return 0
  grep -v '^#' "$rxe_trace/trace" | grep -B 40 -A 12 'rxe_qp_error\|rxe_recheck_ret' | tail -n 200 | sed 's/^/netty-verbs: trace: /'
  echo "netty-verbs: trace: $(grep -c rxe_dereg "$rxe_trace/trace") deregistrations, $(grep -c rxe_find_resource "$rxe_trace/trace") resource lookups"
}
# A test that runs past JRDMA_NETTY_DESCRIBE_AFTER seconds (default 60) prints the state of its loops' channels
# (StallReport: writes in flight, reads waiting, each jrdma channel's counters), every 120 s while it runs.
java -XX:TieredStopAtLevel=1 -Djrdma.netty.transports=verbs -Djrdma.netty.log=${JRDMA_NETTY_LOG:-DEBUG} -Djrdma.netty.address=10.77.0.1 \
  -Djrdma.netty.describeAfter=${JRDMA_NETTY_DESCRIBE_AFTER:-60} \
  -Djrdma.netty.serverDevice=rxe0 -Djrdma.netty.clientDevice=rxe1 \
  -jar "$repo/test-rxe/target/vm/junit-console.jar" execute \
  --class-path "$target/test-classes:$target/classes:$(cat "$target/vm/classpath.txt")" \
  $selection "$@" \
  --reports-dir "$reports" --details=tree --disable-banner --disable-ansi-colors &
pid=$!
# rxe's counters that tell a slow run from a stuck one: retransmissions (each waits the ACK timeout, about
# 4 s with the suite's timeout(20)), sequence errors, receiver-not-ready NAKs. Printed with each thread dump
# and at the end.
rxe_counters() {
  for port in /sys/class/infiniband/rxe*/ports/1/hw_counters; do
    [ -d "$port" ] || continue
    printf 'netty-verbs: %s:' "$(echo "$port" | cut -d/ -f5)"
    for c in "$port"/*; do
      v=$(cat "$c" 2>/dev/null) || continue
      [ "$v" != 0 ] && printf ' %s=%s' "$(basename "$c")" "$v"
    done
    echo
  done
  # Packets the kernel dropped before rxe saw them (the second column of each CPU's line, hex): a retransmission
  # with none dropped here was lost (or answered late) inside rxe.
  dropped=0
  while read -r _ d _; do dropped=$((dropped + 0x$d)); done < /proc/net/softnet_stat
  echo "netty-verbs: softnet dropped=$dropped"
  # The queue pairs' states (a stalled run's channels ended with a queue pair in error and no connection-manager
  # event on its side: which QP, in which state) and what the kernel said lately (rxe logs its errors there).
  rdma res show qp 2>/dev/null | sed 's/^/netty-verbs: qp: /' | tail -n 40 || true
  dmesg 2>/dev/null | tail -n 20 | sed 's/^/netty-verbs: kernel: /' || true
  rxe_trace_tail
}
# A test that hangs shows where: the JVM's threads after JRDMA_NETTY_DUMP_AFTER seconds (default 600) and
# every 120 s after that, while it runs.
(
  waited=0
  next=${JRDMA_NETTY_DUMP_AFTER:-600}
  while kill -0 "$pid" 2>/dev/null; do
    sleep 10
    waited=$((waited + 10))
    if [ "$waited" -ge "$next" ]; then
      echo "netty-verbs: still running after ${waited}s; the threads:"
      rxe_counters
      "${JAVA_HOME:+$JAVA_HOME/bin/}jcmd" "$pid" Thread.print 2>&1 | grep -v '^"\(GC\|G1\|C1\|C2\|VM\|Common-Cleaner\|Signal\|Finalizer\|Reference\|Notification\|Service\|Attach\)' || true
      next=$((next + 120))
    fi
  done
) &
wait "$pid"
status=$?
rxe_counters
exit $status
