// The slurm: section (issue 33): off by default, the example's values, every bad key as
// file:line: key, rest_url refused as not supported, and the node map checked at load.
#include <catch2/catch.hpp>

#include "tests/test_paths.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "config/config.h"
#include "fabric/diagnostics.h"
#include "tests/unit/test_helpers.h"

using ibw::config::Config;
using ibw::config::parse_config;

TEST_CASE("config: slurm is off by default and the example documents its defaults",
          "[config][slurm]") {
  Config c = parse_config("fabric:\n  name: lab\n", "/etc/ibwarden/ibwarden.yaml");
  CHECK_FALSE(c.slurm.enabled);
  CHECK(c.slurm.scontrol == "scontrol");
  CHECK(c.slurm.squeue == "squeue");
  CHECK(c.slurm.drain);
  CHECK(c.slurm.resume);
  CHECK(c.slurm.reason_prefix == "ibwarden");
  CHECK_FALSE(c.slurm.node_map);
  CHECK(c.slurm.clean_window_us == 30LL * 60 * 1'000'000);
  CHECK(c.slurm.max_drains_per_hour == 8);
  CHECK(c.slurm.timeout_us == 10'000'000);
  Config e =
      ibw::config::load_config(std::string(IBW_SOURCE_DIR) + "/config/ibwarden.example.yaml");
  CHECK_FALSE(e.slurm.enabled);
  CHECK(e.slurm.clean_window_us == c.slurm.clean_window_us);
  CHECK(e.slurm.max_drains_per_hour == c.slurm.max_drains_per_hour);
  CHECK(e.slurm.reason_prefix == c.slurm.reason_prefix);
  CHECK(ibw::config::load_slurm_node_map(e).by_name.empty());
}

TEST_CASE("config: a full slurm section", "[config][slurm]") {
  Config c = parse_config(ibw::test::join_lines({
                              "slurm:",
                              "  enabled: true",
                              "  scontrol: /opt/slurm/bin/scontrol",
                              "  squeue: bin/squeue",
                              "  drain: false",
                              "  resume: false",
                              "  reason_prefix: fabric-guard",
                              "  node_map: hosts.map",
                              "  clean_window: 2m",
                              "  max_drains_per_hour: 3",
                              "  timeout: 500ms",
                          }),
                          "/etc/ibwarden/ibwarden.yaml");
  CHECK(c.slurm.enabled);
  CHECK(c.slurm.scontrol == "/opt/slurm/bin/scontrol");
  CHECK(c.slurm.squeue == "/etc/ibwarden/bin/squeue");
  CHECK_FALSE(c.slurm.drain);
  CHECK_FALSE(c.slurm.resume);
  CHECK(c.slurm.reason_prefix == "fabric-guard");
  CHECK(c.slurm.node_map == "/etc/ibwarden/hosts.map");
  CHECK(c.slurm.node_map_line == 8);
  CHECK(c.slurm.clean_window_us == 120'000'000);
  CHECK(c.slurm.max_drains_per_hour == 3);
  CHECK(c.slurm.timeout_us == 500'000);
}

TEST_CASE("config: bad slurm values name file:line and key", "[config][slurm]") {
  auto d = ibw::test::errors_of(parse_config,
                                ibw::test::join_lines({
                                    "slurm:",                         // 1
                                    "  enabled: maybe",               // 2
                                    "  scontrol: scontrol -v",        // 3
                                    "  reason_prefix: \"\"",          // 4
                                    "  clean_window: soon",           // 5
                                    "  max_drains_per_hour: -1",      // 6
                                    "  timeout: 0s",                  // 7
                                    "  rest_url: http://slurm:6820",  // 8
                                    "  resum: true",                  // 9 typo
                                }),
                                "/etc/ibwarden/ibwarden.yaml");
  CHECK(ibw::test::keys(d) ==
        std::vector<std::string>{"2:slurm.enabled", "3:slurm.scontrol", "4:slurm.reason_prefix",
                                 "5:slurm.clean_window", "6:slurm.max_drains_per_hour",
                                 "7:slurm.timeout", "8:slurm.rest_url", "9:slurm.resum"});
  auto rest = ibw::test::find_diag(d, 8, "slurm.rest_url");
  REQUIRE(rest);
  CHECK(rest->message.find("not supported yet") != std::string::npos);
  auto typo = ibw::test::find_diag(d, 9, "slurm.resum");
  REQUIRE(typo);
  CHECK(typo->message.find("did you mean \"resume\"") != std::string::npos);
}

TEST_CASE("config: the slurm node map is loaded and a typo in it fails", "[config][slurm]") {
  auto dir = std::filesystem::temp_directory_path() / ("ibw-slurm-map-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string cfg_file = (dir / "ibwarden.yaml").string();
  std::ofstream(dir / "good.map") << "# hosts\n0x0002c90300000001 node0001\n\"leaf-ca\" node0002\n";
  std::ofstream(dir / "bad.map") << "0x0002c90300000001 node0001\n0xZZ node0002\n";
  auto with_map = [&](const std::string& map) {
    return parse_config("slurm:\n  enabled: true\n  node_map: " + map + "\n", cfg_file);
  };
  auto good = ibw::config::load_slurm_node_map(with_map("good.map"));
  CHECK(good.by_guid.at(0x0002c90300000001ULL) == "node0001");
  CHECK(good.by_name.at("leaf-ca") == "node0002");

  try {
    ibw::config::load_slurm_node_map(with_map("bad.map"));
    FAIL("a bad map line must fail");
  } catch (const ibw::fabric::InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].file == (dir / "bad.map").string());
    CHECK(e.diagnostics()[0].line == 2);
  }
  try {
    ibw::config::load_slurm_node_map(with_map("missing.map"));
    FAIL("a missing map must fail");
  } catch (const ibw::fabric::InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].file == cfg_file);
    CHECK(e.diagnostics()[0].line == 3);
    CHECK(e.diagnostics()[0].field == "slurm.node_map");
  }
  // Off: the map is not read at all.
  auto off = parse_config("slurm:\n  enabled: false\n  node_map: missing.map\n", cfg_file);
  CHECK(ibw::config::load_slurm_node_map(off).by_guid.empty());
  std::filesystem::remove_all(dir);
}

TEST_CASE("config: slurm.jobs_refresh defaults to 30s and a bad one names file:line",
          "[config][slurm]") {
  CHECK(parse_config("slurm:\n  enabled: true\n", "/etc/ibwarden/ibwarden.yaml")
            .slurm.jobs_refresh_us == 30'000'000);
  CHECK(parse_config("slurm:\n  enabled: true\n  jobs_refresh: 5s\n", "/etc/ibwarden/ibwarden.yaml")
            .slurm.jobs_refresh_us == 5'000'000);
  for (const char* bad : {"0s", "often"}) {
    auto d = ibw::test::errors_of(
        parse_config, std::string("slurm:\n  enabled: true\n  jobs_refresh: ") + bad + "\n",
        "/etc/ibwarden/ibwarden.yaml");
    CHECK(ibw::test::keys(d) == std::vector<std::string>{"3:slurm.jobs_refresh"});
  }
}
