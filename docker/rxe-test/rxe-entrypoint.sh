#!/bin/sh
# Fails early, with a clear message, when the container cannot see an RDMA device.
if [ ! -d /sys/class/infiniband ] || [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
  echo "rxe-test: no RDMA device visible; run with --privileged --network host on a host with rdma_rxe" >&2
  exit 90
fi
exec "$@"
