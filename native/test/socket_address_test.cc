#include "base/socket_address.h"

#include <gtest/gtest.h>
#include <net/if.h>
#include <netinet/in.h>

#include "base/error.h"

namespace jrdma {
namespace {

TEST(SocketAddress, ParsesIpv4AndIpv6WithTheirPorts) {
  sockaddr_storage v4 = parse_socket_address("127.0.0.1", 7000);
  EXPECT_EQ("127.0.0.1 7000", address_text(reinterpret_cast<sockaddr*>(&v4)));
  sockaddr_storage v6 = parse_socket_address("0:0:0:0:0:0:0:1", 0);
  EXPECT_EQ("::1 0", address_text(reinterpret_cast<sockaddr*>(&v6)));
  EXPECT_EQ(0u, reinterpret_cast<sockaddr_in6*>(&v6)->sin6_scope_id);
}

TEST(SocketAddress, TakesAScopeByInterfaceNameOrIndex) {
  // Java writes the loopback address of an interface-bound lookup as "0:0:0:0:0:0:0:1%lo".
  sockaddr_storage named = parse_socket_address("0:0:0:0:0:0:0:1%lo", 9);
  EXPECT_EQ(if_nametoindex("lo"), reinterpret_cast<sockaddr_in6*>(&named)->sin6_scope_id);
  sockaddr_storage numbered = parse_socket_address("fe80::1%3", 9);
  EXPECT_EQ(3u, reinterpret_cast<sockaddr_in6*>(&numbered)->sin6_scope_id);
}

TEST(SocketAddress, RefusesWhatIsNoAddressNamingIt) {
  auto refused = [](const std::string& text, int port, const std::string& expected) {
    try {
      parse_socket_address(text, port);
      ADD_FAILURE() << text << " was taken";
    } catch (const RdmaError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused("localhost", 1, "not an IP address: localhost");
  refused("10.0.0.1%lo", 1, "not an IP address: 10.0.0.1%lo");  // IPv4 has no scope
  refused("fe80::1%no-such-interface", 1, "no interface 'no-such-interface'");
  refused("::1", 65536, "port out of range: 65536");
}

}  // namespace
}  // namespace jrdma
