#!/bin/sh
# Inside the VM: the native tests that need a device, from the AddressSanitizer build
# (scripts/native-asan), with JUnit XML in test-rxe/target/vm-reports/native/.
set -u
repo=${JRDMA_REPO:?}
[ -d "$repo/build/asan" ] || { echo "native-device-tests: no build/asan (run scripts/native-asan on the host)"; exit 3; }
mkdir -p "$repo/test-rxe/target/vm-reports/native"
# detect_leaks: the LeakSanitizer part of ASan reports any native allocation still held at exit.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 ctest --test-dir "$repo/build/asan" -L device --output-on-failure \
  --output-junit "$repo/test-rxe/target/vm-reports/native/ctest-device.xml"
