// A snapshot of the RDMA devices on this host: what Rdma.devices() shows and what device
// selection (configuration) decides on.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace jrdma {

enum class GidType : int { kIb = 0, kRoceV1 = 1, kRoceV2 = 2 };

struct GidInfo {
  uint32_t index = 0;
  std::array<uint8_t, 16> raw{};
  GidType type = GidType::kIb;
};

struct PortInfo {
  uint32_t number = 0;  // 1-based, as in verbs
  int state = 0;        // enum ibv_port_state
  int link_layer = 0;   // IBV_LINK_LAYER_*
  int active_mtu = 0;   // bytes (256..4096), 0 if unknown
  int max_mtu = 0;      // bytes
  uint32_t lid = 0;
  std::vector<GidInfo> gids;
};

struct DeviceInfo {
  std::string name;
  uint64_t node_guid = 0;  // host byte order
  std::vector<PortInfo> ports;
};

// Opens each device briefly and queries it. Throws RdmaError when a device cannot be queried.
std::vector<DeviceInfo> query_devices();

// 256 for IBV_MTU_256 ... 4096 for IBV_MTU_4096, 0 for anything else.
int mtu_enum_to_bytes(int mtu_enum) noexcept;

}  // namespace jrdma
