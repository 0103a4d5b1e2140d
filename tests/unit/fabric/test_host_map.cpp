// The host -> Slurm node map: names from `hostname hca` descriptions, a map file that
// overrides or fills in (by GUID or fabric name), unmapped CAs listed, multi-rail hosts, and
// the map file's errors with line and field.
#include <catch2/catch.hpp>

#include "tests/unit/test_fabrics.h"
#include "tests/unit/test_helpers.h"

#include "fabric/diagnostics.h"
#include "fabric/host_map.h"

using namespace ibw::fabric;

namespace host_map_test {

Fabric hosts(const std::vector<std::pair<uint64_t, std::string>>& cas) {
  Fabric f;
  ibw::test_fabric::add(f, 0xa000, NodeType::sw, "leaf001", 36);
  for (const auto& [guid, desc] : cas) ibw::test_fabric::add(f, guid, NodeType::ca, desc, 1);
  f.reindex();
  return f;
}

std::vector<std::string> names(const Fabric& f, const std::vector<uint32_t>& cas) {
  std::vector<std::string> out;
  for (uint32_t i : cas) out.push_back(f.node(i).name);
  return out;
}

}  // namespace host_map_test

using namespace host_map_test;

TEST_CASE("host map: the host name of hostname-hca descriptions only", "[fabric][host_map]") {
  CHECK(host_of_description("node0042 mlx5_0") == "node0042");
  CHECK(host_of_description("gpu-a17.rack3 mlx5_11") == "gpu-a17.rack3");
  CHECK(host_of_description("dgx01 hfi1_0") == "dgx01");
  CHECK_FALSE(host_of_description("MT4123 ConnectX6 Mellanox Technologies"));
  CHECK_FALSE(host_of_description("node0042"));
  CHECK_FALSE(host_of_description("node0042 HCA-1"));
  CHECK_FALSE(host_of_description("node/42 mlx5_0"));
  CHECK_FALSE(host_of_description("leaf001"));
}

TEST_CASE("host map: descriptions - multi-rail hosts - unmapped CAs", "[fabric][host_map]") {
  Fabric f = hosts({{0x1, "node0001 mlx5_0"},
                    {0x2, "node0001 mlx5_1"},
                    {0x3, "node0002 mlx5_0"},
                    {0x4, "MT4123 ConnectX6 Mellanox Technologies"}});
  HostMap m(f, nullptr);
  CHECK(m.mapped().size() == 3);
  CHECK(names(f, m.cas_of("node0001")) ==
        std::vector<std::string>{"node0001 mlx5_0", "node0001 mlx5_1"});
  CHECK(names(f, m.unmapped()) ==
        std::vector<std::string>{"MT4123 ConnectX6 Mellanox Technologies"});
  CHECK(*m.node_of(f.find_guid(0x3)) == "node0002");
  CHECK(m.node_of(f.find_guid(0x4)) == nullptr);
  CHECK(m.node_of(f.find_guid(0xa000)) == nullptr);  // switches are not hosts
  CHECK(m.cas_of("node9").empty());
}

TEST_CASE("host map: a map file overrides and fills in", "[fabric][host_map]") {
  Fabric f = hosts({{0x1, "node0001 mlx5_0"},
                    {0x2, "MT4123 ConnectX6 Mellanox Technologies"},
                    {0x3, "storage01 HCA-1"}});
  HostMapFile file = parse_host_map(ibw::test::join_lines({
                                        "# site inventory",
                                        "0x0000000000000001 gpu001",
                                        "0x2   gpu002  ",
                                        "\"storage01 HCA-1\" stor01",
                                    }),
                                    "hosts.map");
  HostMap m(f, &file);
  CHECK(*m.node_of(f.find_guid(0x1)) == "gpu001");
  CHECK(*m.node_of(f.find_guid(0x2)) == "gpu002");
  CHECK(*m.node_of(f.find_guid(0x3)) == "stor01");
  CHECK(m.unmapped().empty());
  for (const auto& e : m.mapped()) CHECK(e.from_file);
}

TEST_CASE("host map: map file errors name line and field", "[fabric][host_map]") {
  auto diags = ibw::test::errors_of(parse_host_map,
                                    ibw::test::join_lines({
                                        "0x1 gpu001",
                                        "0xZZ gpu002",
                                        "0x1 gpu009",
                                        "\"open quote gpu003",
                                        "node0004",
                                        "node0005 a b",
                                        "node0006 bad/name",
                                    }),
                                    "hosts.map");
  CHECK(ibw::test::keys(diags) ==
        std::vector<std::string>{"2:key", "3:key", "4:key", "5:node", "6:node", "7:node"});
  CHECK(diags[0].file == "hosts.map");
}
