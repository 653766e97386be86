#include "transports/verbs/device_info.h"

#include <endian.h>
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/error.h"
#include "transports/verbs/device_context.h"
#include "transports/verbs/device_list.h"

namespace jrdma {

int mtu_enum_to_bytes(int mtu_enum) noexcept {
  switch (mtu_enum) {
    case IBV_MTU_256:
      return 256;
    case IBV_MTU_512:
      return 512;
    case IBV_MTU_1024:
      return 1024;
    case IBV_MTU_2048:
      return 2048;
    case IBV_MTU_4096:
      return 4096;
    default:
      return 0;
  }
}

namespace {

GidType to_gid_type(uint32_t verbs_type) {
  switch (verbs_type) {
    case IBV_GID_TYPE_ROCE_V1:
      return GidType::kRoceV1;
    case IBV_GID_TYPE_ROCE_V2:
      return GidType::kRoceV2;
    default:
      return GidType::kIb;
  }
}

DeviceInfo query_one(ibv_device* device) {
  const std::string name = ibv_get_device_name(device);
  verbs::DeviceContext context(device);

  ibv_device_attr device_attr{};
  if (int rc = ibv_query_device(context.get(), &device_attr); rc != 0) {
    throw_errno("ibv_query_device(" + name + ")", rc);
  }
  DeviceInfo info;
  info.name = name;
  info.node_guid = be64toh(device_attr.node_guid);

  std::size_t gid_capacity = 0;
  for (uint32_t port = 1; port <= device_attr.phys_port_cnt; ++port) {
    ibv_port_attr port_attr{};
    if (int rc = ibv_query_port(context.get(), static_cast<uint8_t>(port), &port_attr); rc != 0) {
      throw_errno("ibv_query_port(" + name + ", port=" + std::to_string(port) + ")", rc);
    }
    PortInfo port_info;
    port_info.number = port;
    port_info.state = port_attr.state;
    port_info.link_layer = port_attr.link_layer;
    port_info.active_mtu = mtu_enum_to_bytes(port_attr.active_mtu);
    port_info.max_mtu = mtu_enum_to_bytes(port_attr.max_mtu);
    port_info.lid = port_attr.lid;
    gid_capacity += port_attr.gid_tbl_len > 0 ? static_cast<std::size_t>(port_attr.gid_tbl_len) : 0;
    info.ports.push_back(std::move(port_info));
  }

  if (gid_capacity > 0) {
    // ibv_query_gid_table returns only the valid entries, each with its type (IB/RoCE v1/v2).
    std::vector<ibv_gid_entry> entries(gid_capacity);
    ssize_t count = ibv_query_gid_table(context.get(), entries.data(), entries.size(), 0);
    if (count < 0) throw_errno("ibv_query_gid_table(" + name + ")", static_cast<int>(-count));
    for (ssize_t i = 0; i < count; ++i) {
      const ibv_gid_entry& entry = entries[static_cast<std::size_t>(i)];
      if (entry.port_num < 1 || entry.port_num > info.ports.size()) continue;  // never index blindly
      GidInfo gid;
      gid.index = entry.gid_index;
      std::memcpy(gid.raw.data(), entry.gid.raw, gid.raw.size());
      gid.type = to_gid_type(entry.gid_type);
      info.ports[entry.port_num - 1].gids.push_back(gid);
    }
  }
  return info;
}

}  // namespace

std::vector<DeviceInfo> query_devices() {
  verbs::DeviceList list;
  std::vector<DeviceInfo> result;
  result.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) result.push_back(query_one(list[i]));
  return result;
}

}  // namespace jrdma
