#!/bin/sh
# Runs inside the VM, chrooted into the host's root, with the repository mounted read-write.
# $1: the run's results directory (inside the repository). It holds env (written by run-in-vm)
# and command.sh; this script writes exit-code there.
results=$1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp/home LANG=C.UTF-8
mkdir -p "$HOME"
. "$results/env"
export JRDMA_VM_INTERACTIVE JRDMA_REPO JAVA_HOME JRDMA_VM_TOPOLOGY JRDMA_VM_MODULES_ROOT JRDMA_VM=1
[ -n "$JAVA_HOME" ] && export PATH="$JAVA_HOME/bin:$PATH"
# /tmp is a tmpfs in the guest, so JVMs need no options to run; extra ones may be asked for.
[ -n "${JRDMA_VM_JAVA_OPTIONS:-}" ] && export JAVA_TOOL_OPTIONS="$JRDMA_VM_JAVA_OPTIONS"

if ! sh "$JRDMA_REPO/test-rxe/vm/rxe-setup.sh" "$JRDMA_VM_TOPOLOGY"; then
  echo "jrdma-vm: Soft-RoCE setup ($JRDMA_VM_TOPOLOGY) failed"
  echo 97 > "$results/exit-code"
  exit 97
fi
echo "JRDMA-VM-READY topology=$JRDMA_VM_TOPOLOGY"
cd "$JRDMA_REPO" || exit 98
if [ "${JRDMA_VM_INTERACTIVE:-0}" = 1 ]; then
  # run-in-vm --shell: the command owns the serial console (the host's terminal).
  setsid -c sh "$results/command.sh" < /dev/ttyS0 > /dev/ttyS0 2>&1
  rc=$?
else
  # The command's output goes to output.log, which the host streams; the console keeps kernel messages.
  sh "$results/command.sh" > "$results/output.log" 2>&1 < /dev/null
  rc=$?
fi
echo "$rc" > "$results/exit-code"
exit "$rc"
