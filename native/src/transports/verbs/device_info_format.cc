#include "transports/verbs/device_info_format.h"

#include <cinttypes>
#include <cstdio>

#include "base/error.h"

namespace jrdma {

namespace {

void append_hex(std::string& out, const uint8_t* bytes, std::size_t n) {
  static const char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0xf]);
  }
}

}  // namespace

std::string format_devices(const std::vector<DeviceInfo>& devices) {
  std::string out;
  char line[128];
  for (const DeviceInfo& device : devices) {
    if (device.name.empty() || device.name.find_first_of(" \t\r\n") != std::string::npos) {
      throw RdmaError(ErrorKind::kIllegalArgument, "device name cannot be encoded: '" + device.name + "'");
    }
    std::snprintf(line, sizeof line, " %016" PRIx64 "\n", device.node_guid);
    out += "device " + device.name + line;
    for (const PortInfo& port : device.ports) {
      std::snprintf(line, sizeof line, "port %u %d %d %d %d %u\n", port.number, port.state, port.link_layer,
                    port.active_mtu, port.max_mtu, port.lid);
      out += line;
      for (const GidInfo& gid : port.gids) {
        std::snprintf(line, sizeof line, "gid %u ", gid.index);
        out += line;
        append_hex(out, gid.raw.data(), gid.raw.size());
        std::snprintf(line, sizeof line, " %d\n", static_cast<int>(gid.type));
        out += line;
      }
    }
  }
  return out;
}

}  // namespace jrdma
