#!/bin/sh
# Runs inside the VM: the test-rxe JUnit suite with the console launcher, on the class path that
# the host build wrote (test-rxe/target/vm/classpath.txt). Reports go to test-rxe/target/vm-reports.
# Extra arguments go to the launcher, e.g. --select-method org.jrdma.rxe.DeviceSmokeTest#portsAreActive
set -u
repo=${JRDMA_REPO:?}
target="$repo/test-rxe/target"
for f in "$target/vm/classpath.txt" "$target/vm/junit-console.jar" "$target/test-classes"; do
  [ -e "$f" ] || { echo "junit-suite: missing $f (run mvn -B verify on the host first)"; exit 3; }
done
rm -rf "$target/vm-reports"
selection="--scan-class-path=$target/test-classes"
[ $# -gt 0 ] && selection=""
# C1 only: under TCG the optimizing compiler costs more than it saves in a short suite.
exec java -XX:TieredStopAtLevel=1 -Djrdma.repo="$repo" -jar "$target/vm/junit-console.jar" execute \
  --class-path "$target/test-classes:$(cat "$target/vm/classpath.txt")" \
  $selection "$@" \
  --reports-dir "$target/vm-reports" --details=tree --disable-banner --disable-ansi-colors
