#!/bin/sh
# Brings up Soft-RoCE inside the VM (rxe-vm.md has why each step is needed).
#   one: rxe0 on veth0 (10.77.0.1); QPs on the same device talk over loopback.
#   two: rxe0 on veth0 (10.77.0.1) and rxe1 on veth1 (10.77.0.2); policy routing forces the
#        traffic between them across the veth pair, so link-down and netem faults apply.
set -e
topology=${1:-one}
ip link set lo up
# A lossless link, as RoCE fabrics are (PFC): the veth pair drops whatever exceeds the receive
# backlog (1000 packets by default), and Soft-RoCE 6.1's loss recovery is faulty: under drops it
# stalls READs for minutes and can complete a READ as successful without its data, then error the
# queue pair ("WARNING ... rxe_completer", docs/testing.md). Nothing in the product can detect a
# device that reports success for bytes it did not move, so the emulated link must not drop.
sysctl -qw net.core.netdev_max_backlog=100000
ip link add veth0 type veth peer name veth1
ip addr add 10.77.0.1/24 dev veth0
ip link set veth0 up
ip link set veth1 up
# In order, as a RoCE fabric delivers a flow: without packet steering a veth hands each packet to the backlog of the
# CPU that sent it, and the CPUs' backlogs drain independently, so a queue pair's packets sent from two CPUs can
# overtake each other. Soft-RoCE retransmits from whichever CPU runs its timer: a READ request it repeats can then
# arrive after the reader's next SEND — after the owner of the read memory has received DONE and deregistered it —
# and the replayed READ's failed key check moves the responder's queue pair to error with no completion or event
# (kprobe trace in docs/netty.md, 2026-12-07). Steering by flow hash puts each queue pair's packets (one UDP source
# port per queue pair) on one CPU's backlog, in the order they were sent.
cpus=$(grep -c '^processor' /proc/cpuinfo)
rps_mask=$(printf '%x' $(( (1 << cpus) - 1 )))
for dev in veth0 veth1; do
  echo "$rps_mask" > "/sys/class/net/$dev/queues/rx-0/rps_cpus"
done
case "$topology" in
  one)
    rdma link add rxe0 type rxe netdev veth0
    ;;
  two)
    ip addr add 10.77.0.2/24 dev veth1
    for k in all default veth0 veth1; do
      sysctl -qw "net.ipv4.conf.$k.accept_local=1" "net.ipv4.conf.$k.rp_filter=0"
    done
    ip rule add pref 100 lookup local
    ip rule del pref 0 lookup local
    ip rule add pref 10 iif lo from 10.77.0.1 to 10.77.0.2 lookup 101
    ip rule add pref 11 iif lo from 10.77.0.2 to 10.77.0.1 lookup 102
    ip route add 10.77.0.2 dev veth0 src 10.77.0.1 table 101
    ip route add 10.77.0.1 dev veth1 src 10.77.0.2 table 102
    rdma link add rxe0 type rxe netdev veth0
    rdma link add rxe1 type rxe netdev veth1
    ;;
  *)
    echo "rxe-setup: unknown topology '$topology' (one|two)" >&2
    exit 2
    ;;
esac
# Unprivileged users (memlock tests run as nobody) may open the devices.
chmod 666 /dev/infiniband/*
