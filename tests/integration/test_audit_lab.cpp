// Integration: generated fat trees with injected cabling mistakes run on real ibsim + OpenSM;
// the audit must report exactly the injected mistakes, live and from ibnetdiscover output
// (text and --cache), with CSV, YAML and NDT plans.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/integration/lab_expect.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using namespace ibw::lab;
using nlohmann::json;

namespace {

struct Case {
  FatTreeSpec spec;
  Mistakes mistakes;
};

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Runs `ibwarden audit --format json` inside the lab and checks it against the expectation.
void expect_audit(const SimLab& sim, const json& expected, const std::vector<std::string>& args,
                  bool check_cables) {
  std::vector<std::string> argv = {IBW_BINARY, "audit", "--format", "json"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = sim.run(argv);
  std::string cmd;
  for (const auto& a : args) cmd += " " + a;
  INFO("ibwarden audit" << cmd << "\nstderr: " << r.err);
  REQUIRE(r.status == (expected["findings"].empty() ? 0 : 1));
  json actual = json::parse(r.out);
  std::string diff = ibw::test::compare_findings(expected, actual, check_cables);
  INFO(diff);
  CHECK(diff.empty());
  CHECK(actual["summary"]["planned_links"].get<size_t>() > 0);
}

void run_case(const Case& c) {
  Lab lab = make_fat_tree(c.spec);
  inject_mistakes(lab, c.mistakes);
  SimLab sim({to_ibsim_net(lab)});
  std::string d = sim.dir();
  write(d + "/plan.csv", plan_csv(lab));
  write(d + "/plan.yaml", plan_yaml(lab));
  write(d + "/plan.ndt", plan_ndt(lab));
  json expected = json::parse(expected_json(lab));

  auto disc = sim.run({"ibnetdiscover", "--cache", d + "/fabric.cache"});
  REQUIRE(disc.status == 0);
  write(d + "/topology.txt", disc.out);

  // One simulator, every input path: ibnetdiscover text, --cache file and live discovery.
  // NDT plans carry no cable IDs and no speed/width, so a link degraded relative to the
  // plan cannot be seen with them (ibsim cannot train a link below what both ends enable,
  // so the "below both ends" check has nothing to find here; unit tests cover it).
  json expected_ndt = expected;
  auto& ndt_findings = expected_ndt["findings"];
  ndt_findings.erase(std::remove_if(ndt_findings.begin(), ndt_findings.end(),
                                    [](const json& f) { return f["kind"] == "degraded"; }),
                     ndt_findings.end());
  struct Variant {
    std::vector<std::string> args;
    bool cables;  // NDT plans carry no cable IDs
  };
  std::vector<Variant> variants = {
      {{"--plan", d + "/plan.csv", "--topology", d + "/topology.txt"}, true},
      {{"--plan", d + "/plan.yaml", "--topology", d + "/topology.txt"}, true},
      {{"--plan", d + "/plan.ndt", "--topology", d + "/topology.txt"}, false},
      {{"--plan", d + "/plan.csv", "--topology", d + "/fabric.cache"}, true},
      {{"--plan", d + "/plan.csv", "--live"}, true},
      {{"--plan", d + "/plan.ndt", "--live"}, false},
  };
  for (const auto& v : variants)
    expect_audit(sim, v.cables ? expected : expected_ndt, v.args, v.cables);
}

}  // namespace

TEST_CASE("audit: every kind of mistake on a 2-tier fabric", "[integration][audit]") {
  Case c;
  c.spec.leaves = 4, c.spec.spines = 2, c.spec.hosts_per_leaf = 4;
  c.mistakes = {1, 1, 1, 1, 1, 1, 1, false, 3};
  run_case(c);
}

TEST_CASE("audit: several mistakes on a wider 2-tier fabric with parallel links",
          "[integration][audit]") {
  Case c;
  c.spec.leaves = 6, c.spec.spines = 3, c.spec.hosts_per_leaf = 6, c.spec.links_per_pair = 2;
  c.mistakes.swap = 2, c.mistakes.drop = 2, c.mistakes.misplug = 2, c.mistakes.degrade = 1;
  c.mistakes.seed = 7;
  run_case(c);
}

TEST_CASE("audit: 3-tier k-ary fat tree", "[integration][audit]") {
  Case c;
  c.spec.tiers = 3, c.spec.k = 4;
  c.mistakes.swap = 1, c.mistakes.misplug = 1, c.mistakes.drop = 1, c.mistakes.degrade = 1;
  c.mistakes.extra = 1, c.mistakes.seed = 11;
  run_case(c);
}

TEST_CASE("audit: a correctly cabled fabric has no findings", "[integration][audit]") {
  Case c;
  c.spec.leaves = 3, c.spec.spines = 2, c.spec.hosts_per_leaf = 3;
  run_case(c);
}

TEST_CASE("audit: a fabric cabled as two networks is a partition", "[integration][audit]") {
  FatTreeSpec spec;
  spec.leaves = 4, spec.spines = 4, spec.hosts_per_leaf = 3;
  Mistakes m;
  m.partition = true, m.swap = 1, m.seed = 5;
  Lab lab = make_fat_tree(spec);
  inject_mistakes(lab, m);
  REQUIRE(lab.second_view_host >= 0);
  SimLab sim({to_ibsim_net(lab)});
  std::string d = sim.dir();
  write(d + "/plan.csv", plan_csv(lab));
  json expected = json::parse(expected_json(lab));

  // Seen live from one side, the other side is an unreachable island.
  expect_audit(sim, expected, {"--plan", d + "/plan.csv", "--live"}, true);

  // Two ibnetdiscover views, one from each side, merged: two components.
  auto a = sim.run({"ibnetdiscover"});
  auto b = sim.run({"ibnetdiscover"}, lab.nodes[lab.second_view_host].name);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  write(d + "/side-a.txt", a.out);
  write(d + "/side-b.txt", b.out);
  expect_audit(
      sim, expected,
      {"--plan", d + "/plan.csv", "--topology", d + "/side-a.txt", "--topology", d + "/side-b.txt"},
      true);
}

TEST_CASE("audit: opaque switch descriptions are matched through a node-name-map",
          "[integration][audit]") {
  FatTreeSpec spec;
  spec.leaves = 3, spec.spines = 2, spec.hosts_per_leaf = 2, spec.opaque_names = true;
  Mistakes m;
  m.swap = 1, m.misplug = 1, m.seed = 9;
  Lab lab = make_fat_tree(spec);
  inject_mistakes(lab, m);
  SimLab sim({to_ibsim_net(lab)});
  std::string d = sim.dir();
  write(d + "/plan.csv", plan_csv(lab));
  write(d + "/names", node_name_map(lab));
  json expected = json::parse(expected_json(lab));
  expect_audit(sim, expected,
               {"--plan", d + "/plan.csv", "--live", "--node-name-map", d + "/names"}, true);

  // Without the map no switch name in the plan matches: the audit must say so, not pass.
  auto r = sim.run({IBW_BINARY, "audit", "--format", "json", "--plan", d + "/plan.csv", "--live"});
  REQUIRE(r.status == 1);
  CHECK(json::parse(r.out)["summary"]["ok"].get<int>() == 0);
}
