// The text form in which a device snapshot crosses JNI (once per Rdma.devices() call, not a
// hot path). One record per line, space-separated; documented in docs/architecture.md:
//   device <name> <node-guid, 16 hex digits>
//   port <number> <state> <link-layer> <active-mtu> <max-mtu> <lid>
//   gid <index> <32 hex digits> <type 0=IB 1=RoCEv1 2=RoCEv2>
#pragma once

#include <string>
#include <vector>

#include "transports/verbs/device_info.h"

namespace jrdma {

// Throws RdmaError(kIllegalArgument) for a device name that cannot be encoded (whitespace).
std::string format_devices(const std::vector<DeviceInfo>& devices);

}  // namespace jrdma
