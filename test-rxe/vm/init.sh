#!/bin/busybox sh
# PID 1 of the test-rxe VM. Loads the Soft-RoCE modules, mounts the host's root read-only (9p)
# and the repository read-write at its own path, then runs test-rxe/vm/guest-run.sh chrooted
# into the host root, so the host's JDK, rdma-core and build outputs run unchanged.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

repo=""; results=""
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    jrdma.repo=*) repo="${arg#jrdma.repo=}" ;;
    jrdma.results=*) results="${arg#jrdma.results=}" ;;
  esac
done

fail() { echo "jrdma-vm: FATAL: $*"; poweroff -f; }

for m in $(cat /modules.order); do
  insmod "/modules/$m.ko" || echo "jrdma-vm: insmod $m failed"
done

opts=trans=virtio,version=9p2000.L,msize=262144
# The host root never changes under the VM's feet during a run, so the page cache may keep it.
mount -t 9p -o "$opts,ro,cache=loose" hostroot /host || fail "cannot mount the host root"
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t devtmpfs devtmpfs /host/dev
mkdir -p /host/dev/pts /host/dev/shm 2>/dev/null
mount -t devpts devpts /host/dev/pts
mount -t tmpfs -o size=1g tmpfs /host/dev/shm
mount -t tmpfs -o size=2g tmpfs /host/tmp
mount -t tmpfs -o size=2g tmpfs /host/run
mount -t tmpfs tmpfs /host/var/tmp
# After the tmpfs mounts, so that a repository under /tmp stays visible.
mkdir -p "/host$repo" 2>/dev/null
mount -t 9p -o "$opts" repo "/host$repo" || fail "cannot mount the repository $repo"

echo "JRDMA-VM-BOOTED"
chroot /host /bin/sh "$repo/test-rxe/vm/guest-run.sh" "$results"
echo "jrdma-vm: guest-run ended with status $?"
sync
poweroff -f
