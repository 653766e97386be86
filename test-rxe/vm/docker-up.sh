#!/bin/sh
# Runs inside the VM (chrooted into the host root): starts containerd and dockerd on tmpfs state
# and imports the rxe base image, so Testcontainers tests can start containers over rxe.
# The recipe and its costs are in ../shared/design/rxe-vm.md and docs/testing.md.
set -eu
repo=${JRDMA_REPO:?}
base_tar="$repo/test-rxe/target/docker/jrdma-rxe-base.tar"
[ -f "$base_tar" ] || { echo "docker-up: missing $base_tar (test-rxe/run-suite builds it)"; exit 3; }
command -v dockerd >/dev/null || { echo "docker-up: no dockerd (scripts/install-deps --docker)"; exit 3; }

# The kernel asks for modules (overlay, netfilter ...) through /proc/sys/kernel/modprobe, which it
# runs in the VM's initial root: a helper there chroots into the host root and loads from the
# unpacked kernel tree. /run is a tmpfs seen as /host/run from that root.
cat > /run/jrdma-modprobe <<HELPER
#!/bin/sh
exec chroot /host /sbin/modprobe -d $JRDMA_VM_MODULES_ROOT "\$@"
HELPER
chmod 755 /run/jrdma-modprobe
echo /host/run/jrdma-modprobe > /proc/sys/kernel/modprobe
modprobe -d "$JRDMA_VM_MODULES_ROOT" overlay

mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup
mountpoint -q /etc/docker 2>/dev/null || { [ -d /etc/docker ] && mount -t tmpfs tmpfs /etc/docker; } || true

mkdir -p /run/containerd /run/docker-root /run/containerd-root /run/containerd-state
cat > /run/containerd.toml <<CONF
version = 2
root = "/run/containerd-root"
state = "/run/containerd-state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "/run/containerd/containerd.sock"
CONF
# dockerd would start containerd itself but waits only 15 s for it, too little under TCG.
containerd --config /run/containerd.toml > /run/containerd.log 2>&1 &
dockerd --containerd /run/containerd/containerd.sock --data-root /run/docker-root --exec-root /run/docker-exec \
  --pidfile /run/docker.pid --storage-driver overlay2 --iptables=false --ip6tables=false --bridge=none \
  -H unix:///var/run/docker.sock > /run/dockerd.log 2>&1 &

# Each docker CLI call takes > 10 s under TCG: poll the API with curl instead.
waited=0
until curl -sf --unix-socket /var/run/docker.sock http://localhost/_ping > /dev/null 2>&1; do
  if [ "$waited" -ge 240 ]; then
    echo "docker-up: dockerd not ready after ${waited}s; its log:"; tail -n 30 /run/dockerd.log; tail -n 10 /run/containerd.log
    exit 4
  fi
  sleep 2; waited=$((waited + 2))
done
echo "docker-up: dockerd ready after ${waited}s"
# docker import through the API: the tarball becomes jrdma-rxe-base:local.
curl -sf --unix-socket /var/run/docker.sock -X POST -H 'Content-Type: application/x-tar' \
  --data-binary "@$base_tar" 'http://localhost/images/create?fromSrc=-&repo=jrdma-rxe-base&tag=local' > /run/import.log \
  || { echo "docker-up: image import failed"; cat /run/import.log; exit 5; }
echo "docker-up: imported jrdma-rxe-base:local"
