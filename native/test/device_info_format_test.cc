#include "transports/verbs/device_info_format.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/error.h"

using jrdma::DeviceInfo;
using jrdma::GidInfo;
using jrdma::GidType;
using jrdma::PortInfo;

TEST(DeviceInfoFormat, EmptyListIsEmptyText) { EXPECT_EQ("", jrdma::format_devices({})); }

TEST(DeviceInfoFormat, EncodesDevicePortsAndGids) {
  DeviceInfo device;
  device.name = "rxe0";
  device.node_guid = 0x0211223344556677ULL;
  PortInfo port;
  port.number = 1;
  port.state = 4;
  port.link_layer = 2;
  port.active_mtu = 1024;
  port.max_mtu = 4096;
  GidInfo gid;
  gid.index = 1;
  gid.raw = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 1};
  gid.type = GidType::kRoceV2;
  port.gids.push_back(gid);
  device.ports.push_back(port);

  EXPECT_EQ(
      "device rxe0 0211223344556677\n"
      "port 1 4 2 1024 4096 0\n"
      "gid 1 00000000000000000000ffff0a4d0001 2\n",
      jrdma::format_devices({device}));
}

TEST(DeviceInfoFormat, RejectsNamesThatWouldBreakTheFormat) {
  DeviceInfo device;
  device.name = "bad name";
  EXPECT_THROW(jrdma::format_devices({device}), jrdma::RdmaError);
  device.name = "";
  EXPECT_THROW(jrdma::format_devices({device}), jrdma::RdmaError);
}

TEST(MtuEnum, MapsVerbsValuesToBytes) {
  EXPECT_EQ(256, jrdma::mtu_enum_to_bytes(1));
  EXPECT_EQ(4096, jrdma::mtu_enum_to_bytes(5));
  EXPECT_EQ(0, jrdma::mtu_enum_to_bytes(0));
  EXPECT_EQ(0, jrdma::mtu_enum_to_bytes(9));
}

TEST(Errors, NameTheErrno) {
  try {
    jrdma::throw_errno("ibv_reg_mr(len=4096)", 12);
    FAIL();
  } catch (const jrdma::RdmaError& e) {
    EXPECT_EQ(12, e.errno_value());
    EXPECT_STREQ("ibv_reg_mr(len=4096) failed: ENOMEM (Cannot allocate memory)", e.what());
  }
}

TEST(Errors, OurErrnoNamesAgreeWithGlibcs) {
  // The library names errnos itself (it loads on glibc 2.28, without strerrorname_np); the tests may
  // use glibc's names to check the table.
  for (int e = 1; e < 134; ++e) {
    const char* glibc = strerrorname_np(e);
    std::string ours = jrdma::errno_name(e);
    if (glibc == nullptr || ours.rfind("errno ", 0) == 0) continue;  // names the table leaves out are numbers
    EXPECT_EQ(glibc, ours) << "errno " << e;
  }
  EXPECT_EQ("ENOMEM", jrdma::errno_name(ENOMEM));
  EXPECT_EQ("EOPNOTSUPP", jrdma::errno_name(EOPNOTSUPP));
  EXPECT_EQ("errno 4095", jrdma::errno_name(4095));
}
