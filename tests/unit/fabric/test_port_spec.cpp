// Port notation: NODE/PORT and 0xGUID/PORT.
#include <catch2/catch.hpp>

#include "fabric/model.h"

using namespace ibw::fabric;

TEST_CASE("port notation splits at the last slash", "[fabric][port]") {
  std::string err;
  auto spec = parse_port_spec("node0042 mlx5_0/1", &err);
  REQUIRE(spec);
  CHECK(spec->node == "node0042 mlx5_0");
  CHECK(spec->port == 1);
  CHECK_FALSE(spec->guid);

  auto g = parse_port_spec("0x0002c90200404f80/17", &err);
  REQUIRE(g);
  REQUIRE(g->guid);
  CHECK(*g->guid == 0x0002c90200404f80ULL);
  CHECK(g->port == 17);
}

TEST_CASE("port notation rejects bad input with a reason", "[fabric][port]") {
  std::string err;
  CHECK_FALSE(parse_port_spec("leaf003", &err));
  CHECK(err.find("NODE/PORT") != std::string::npos);
  CHECK_FALSE(parse_port_spec("leaf003/x", &err));
  CHECK(err.find("not a number") != std::string::npos);
  CHECK_FALSE(parse_port_spec("leaf003/256", &err));
  CHECK_FALSE(parse_port_spec("0xZZ/1", &err));
  CHECK(err.find("GUID") != std::string::npos);
}
