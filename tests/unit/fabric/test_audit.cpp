// Cabling audit: small fabrics built in code against small plans; one physical mistake must
// give exactly one finding of the right kind, with the cables and ports a technician needs.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fabric/audit.h"
#include "fabric/diagnostics.h"
#include "fabric/model.h"
#include "fabric/node_name_map.h"
#include "fabric/plan.h"
#include "tests/unit/fabric/test_net.h"

using namespace ibw::fabric;

namespace audit_test {

struct Net : ibw::test_net::NetBase {
  uint32_t sw(const std::string& name) { return add_node(NodeType::sw, name, 36); }
  uint32_t ca(const std::string& name) { return add_node(NodeType::ca, name, 1); }
  Port& port(uint32_t n, int p) { return *fab.node(n).port(p); }
  const Fabric& done() {
    apply_node_names(fab, nullptr);
    return fab;
  }
};

// leaf01 (0), spine01 (1), h1 (2), h2 (3); each test adds the links it needs.
struct Base : Net {
  uint32_t leaf = sw("leaf01"), spine = sw("spine01"), h1 = ca("h1"), h2 = ca("h2");
  void as_planned() {
    link(leaf, 1, h1, 1);
    link(leaf, 2, h2, 1);
    link(leaf, 33, spine, 1);
  }
};

const char* const kBaseRows[] = {"C1,leaf01,1,h1,1", "C2,leaf01,2,h2,1", "C3,leaf01,33,spine01,1"};

Plan make_plan(std::vector<std::string> rows,
               const std::string& header = "cable_id,a_node,a_port,b_node,b_port") {
  std::string text = header + "\n";
  for (const auto& r : rows) text += r + "\n";
  return parse_plan_csv(text, "plan.csv");
}

Plan base_plan(std::vector<std::string> extra = {}) {
  std::vector<std::string> rows(std::begin(kBaseRows), std::end(kBaseRows));
  rows.insert(rows.end(), extra.begin(), extra.end());
  return make_plan(rows);
}

// The single finding of a result (fails the test when there is not exactly one).
const Finding& only(const AuditResult& r) {
  REQUIRE(r.findings.size() == 1);
  return r.findings[0];
}

size_t kind_count(const AuditResult& r, FindingKind k) {
  return r.summary.by_kind[static_cast<size_t>(k)];
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

using Ends = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;
Ends ends(const std::vector<LinkEnds>& v) {
  Ends out;
  for (const auto& e : v) out.emplace_back(e.a, e.b);
  return out;
}

TEST_CASE("audit: a fabric cabled as planned has no findings", "[fabric][audit]") {
  Base n;
  n.as_planned();
  AuditResult r = run_audit(base_plan(), n.done());
  CHECK(r.findings.empty());
  CHECK(r.summary.planned_links == 3);
  CHECK(r.summary.found_links == 3);
  CHECK(r.summary.ok == 3);
  for (size_t k = 0; k < kFindingKinds; ++k) CHECK(r.summary.by_kind[k] == 0);
}

TEST_CASE("audit: planned link with both ends present but unconnected is missing",
          "[fabric][audit]") {
  Base n;
  n.link(n.leaf, 1, n.h1, 1);
  n.link(n.leaf, 33, n.spine, 1);
  AuditResult r = run_audit(base_plan(), n.done());
  const Finding& f = only(r);
  CHECK(f.kind == FindingKind::missing);
  CHECK(f.cables == Strings{"C2"});
  CHECK(ends(f.planned) == Ends{{"leaf01/2", "h2/1"}});
  CHECK(f.found.empty());
  CHECK(contains(f.advice, "cable C2 between leaf01/2 and h2/1 is not up"));
  CHECK(r.summary.ok == 2);
  CHECK(r.summary.found_links == 2);
  CHECK(kind_count(r, FindingKind::missing) == 1);
}

TEST_CASE("audit: a missing link whose port is disabled says so", "[fabric][audit]") {
  Base n;
  n.link(n.leaf, 1, n.h1, 1);
  n.link(n.leaf, 33, n.spine, 1);
  n.port(n.leaf, 2).present = true;
  n.port(n.leaf, 2).phys_state = kPhysDisabled;
  AuditResult r = run_audit(base_plan(), n.done());
  const Finding& f = only(r);
  CHECK(f.kind == FindingKind::missing);
  CHECK(f.advice.find("leaf01/2 is administratively disabled") == 0);

  Base polling;  // an empty port that is merely polling gets the cable advice
  polling.link(polling.leaf, 1, polling.h1, 1);
  polling.link(polling.leaf, 33, polling.spine, 1);
  polling.port(polling.leaf, 2).phys_state = 2;
  AuditResult rp = run_audit(base_plan(), polling.done());
  CHECK(only(rp).advice.find("is not up") != std::string::npos);
}

TEST_CASE("audit: far end in a free port of the same switch is miswired", "[fabric][audit]") {
  Base n;
  n.link(n.leaf, 1, n.h1, 1);
  n.link(n.leaf, 5, n.h2, 1);  // planned leaf01/2
  n.link(n.leaf, 33, n.spine, 1);
  AuditResult r = run_audit(base_plan(), n.done());
  const Finding& f = only(r);
  CHECK(f.kind == FindingKind::miswired);
  CHECK(f.cables == Strings{"C2"});
  CHECK(ends(f.planned) == Ends{{"leaf01/2", "h2/1"}});
  CHECK(ends(f.found) == Ends{{"h2/1", "leaf01/5"}});
  CHECK(contains(f.advice, "move cable C2 from leaf01/5 to leaf01/2"));
  CHECK(r.summary.ok == 2);
}

TEST_CASE("audit: two cables with swapped far ends give one swapped finding", "[fabric][audit]") {
  Base n;
  n.link(n.leaf, 1, n.h2, 1);
  n.link(n.leaf, 2, n.h1, 1);
  n.link(n.leaf, 33, n.spine, 1);
  AuditResult r = run_audit(base_plan(), n.done());
  const Finding& f = only(r);
  CHECK(f.kind == FindingKind::swapped);
  CHECK(f.cables == Strings{"C1", "C2"});
  CHECK(ends(f.planned) == Ends{{"leaf01/1", "h1/1"}, {"leaf01/2", "h2/1"}});
  CHECK(ends(f.found) == Ends{{"leaf01/1", "h2/1"}, {"leaf01/2", "h1/1"}});
  CHECK(contains(f.advice, "cables C1 and C2 are swapped"));
  CHECK(kind_count(r, FindingKind::swapped) == 1);
  CHECK(r.summary.ok == 1);
}

TEST_CASE("audit: link between free ports of planned nodes is unexpected", "[fabric][audit]") {
  Base n;
  n.as_planned();
  n.link(n.leaf, 34, n.spine, 2);
  AuditResult r = run_audit(base_plan(), n.done());
  const Finding& f = only(r);
  CHECK(f.kind == FindingKind::unexpected);
  CHECK(f.cables.empty());
  CHECK(f.planned.empty());
  CHECK(ends(f.found) == Ends{{"leaf01/34", "spine01/2"}});
  CHECK(r.summary.ok == 3);
  CHECK(r.summary.found_links == 4);
}

TEST_CASE("audit: degraded links against the plan and against enabled rates", "[fabric][audit]") {
  Base n;
  n.as_planned();
  auto set = [&](uint32_t node, int p, int width, Speed speed) {
    n.port(node, p).width_active = static_cast<uint8_t>(width);
    n.port(node, p).speed_active = speed;
  };
  const std::string header = "cable_id,a_node,a_port,b_node,b_port,speed,width";
  Plan plan = make_plan(
      {"C1,leaf01,1,h1,1,NDR,4x", "C2,leaf01,2,h2,1,NDR,4x", "C3,leaf01,33,spine01,1,,"}, header);

  SECTION("width below the plan") {
    set(n.leaf, 1, 1, Speed::ndr);
    set(n.h1, 1, 1, Speed::ndr);
    set(n.leaf, 2, 4, Speed::ndr);  // C2 as planned: not reported
    set(n.h2, 1, 4, Speed::ndr);
    AuditResult r = run_audit(plan, n.done());
    const Finding& f = only(r);
    CHECK(f.kind == FindingKind::degraded);
    CHECK(f.cables == Strings{"C1"});
    CHECK(ends(f.planned) == Ends{{"leaf01/1", "h1/1"}});
    CHECK(ends(f.found) == Ends{{"leaf01/1", "h1/1"}});
    CHECK(contains(f.advice, "runs at 1xNDR, expected 4xNDR (the plan)"));
    CHECK(contains(f.advice, "reseat cable C1"));
    CHECK(r.summary.ok == 2);
  }
  SECTION("speed below the plan") {
    set(n.leaf, 2, 4, Speed::hdr);
    set(n.h2, 1, 4, Speed::hdr);
    AuditResult r = run_audit(plan, n.done());
    const Finding& f = only(r);
    CHECK(f.kind == FindingKind::degraded);
    CHECK(f.cables == Strings{"C2"});
    CHECK(contains(f.advice, "runs at 4xHDR, expected 4xNDR (the plan)"));
    CHECK(kind_count(r, FindingKind::degraded) == 1);
  }
  SECTION("width below what both ends have enabled, no plan rate") {
    for (auto [node, p] : {std::pair{n.leaf, 33}, std::pair{n.spine, 1}}) {
      set(node, p, 2, Speed::ndr);
      n.port(node, p).width_enabled = 4;
      n.port(node, p).speed_enabled = Speed::ndr;
    }
    AuditResult r = run_audit(plan, n.done());
    const Finding& f = only(r);
    CHECK(f.kind == FindingKind::degraded);
    CHECK(f.cables == Strings{"C3"});
    CHECK(contains(f.advice, "runs at 2xNDR, expected 4xNDR (what both ends have enabled)"));
  }
}

TEST_CASE("audit: a discovered node the plan does not know", "[fabric][audit]") {
  Base n;
  n.as_planned();
  uint32_t stray = n.ca("stray");
  n.link(n.leaf, 6, stray, 1);
  AuditResult r = run_audit(base_plan(), n.done());
  const Finding& f = only(r);
  CHECK(f.kind == FindingKind::unknown_node);
  CHECK(f.cables.empty());
  CHECK(ends(f.found) == Ends{{"stray/1", "leaf01/6"}});
  CHECK(contains(f.advice, "CA stray (GUID 0x0002c90300001004, 1 link(s)) is not in the plan"));
  CHECK(r.summary.ok == 3);
}

TEST_CASE("audit: undiscovered nodes: single-link host - spine - dead leaf - island",
          "[fabric][audit]") {
  Base n;
  n.as_planned();

  SECTION("absent host with one planned link is missing") {
    AuditResult r = run_audit(base_plan({"C4,leaf01,3,h9,1"}), n.done());
    const Finding& f = only(r);
    CHECK(f.kind == FindingKind::missing);
    CHECK(f.cables == Strings{"C4"});
    CHECK(ends(f.planned) == Ends{{"leaf01/3", "h9/1"}});
    CHECK(f.found.empty());
    CHECK(contains(f.advice, "h9 was not discovered"));
    CHECK(r.summary.ok == 3);
    CHECK(r.summary.planned_links == 4);
  }
  SECTION("absent leaf with hosts behind it is one partition: the leaf's uplinks are the cut") {
    AuditResult r = run_audit(
        base_plan({"C10,leaf02,1,spine01,2", "C11,leaf02,2,h5,1", "C12,leaf02,3,h6,1"}), n.done());
    const Finding& f = only(r);
    CHECK(f.kind == FindingKind::partition);
    CHECK(f.cables == Strings{"C10"});
    CHECK(ends(f.planned) == Ends{{"leaf02/1", "spine01/2"}});
    CHECK(contains(f.advice, "3 planned nodes (leaf02 and the hosts behind them) are unreachable"));
    CHECK(kind_count(r, FindingKind::missing) == 0);
    CHECK(r.summary.ok == 3);
  }
  SECTION("absent spine whose neighbours are up is one missing_node") {
    AuditResult r = run_audit(base_plan({"C30,leaf01,34,spine02,1"}), n.done());
    const Finding& f = only(r);
    CHECK(f.kind == FindingKind::missing);  // one planned link: reported as the missing cable
    AuditResult r2 =
        run_audit(base_plan({"C30,leaf01,34,spine02,1", "C31,leaf01,35,spine02,2"}), n.done());
    const Finding& g = only(r2);
    CHECK(g.kind == FindingKind::missing_node);
    CHECK(g.cables == Strings{"C30", "C31"});
    CHECK(contains(g.advice, "node spine02 (2 planned links) was not discovered"));
  }
  SECTION("unreachable group of switches is one partition") {
    AuditResult r = run_audit(base_plan({"C20,leaf03,1,leaf04,1", "C21,leaf03,2,spine01,3",
                                         "C22,leaf04,2,spine01,4", "C23,leaf03,3,h7,1"}),
                              n.done());
    const Finding& f = only(r);
    CHECK(f.kind == FindingKind::partition);
    CHECK(f.cables == Strings{"C21", "C22"});
    CHECK(ends(f.planned) == Ends{{"leaf03/2", "spine01/3"}, {"leaf04/2", "spine01/4"}});
    CHECK(contains(f.advice, "3 planned nodes (leaf03, leaf04 and the hosts behind them)"));
    CHECK(kind_count(r, FindingKind::missing) == 0);
    CHECK(kind_count(r, FindingKind::missing_node) == 0);
  }
}

TEST_CASE("audit: a fabric in two disconnected parts is one partition", "[fabric][audit]") {
  Net n;
  uint32_t la = n.sw("leafA"), lb = n.sw("leafB"), ha = n.ca("hA"), hb = n.ca("hB");
  n.link(la, 1, ha, 1);
  n.link(lb, 1, hb, 1);
  Plan plan = make_plan(
      {"C1,leafA,1,hA,1", "C2,leafB,1,hB,1", "C3,leafA,10,leafB,10", "C4,leafA,11,leafB,11"});
  AuditResult r = run_audit(plan, n.done());
  const Finding& f = only(r);
  CHECK(f.kind == FindingKind::partition);
  CHECK(f.cables == Strings{"C3", "C4"});
  CHECK(ends(f.planned) == Ends{{"leafA/10", "leafB/10"}, {"leafA/11", "leafB/11"}});
  CHECK(f.found.empty());
  CHECK(contains(f.advice,
                 "the discovered fabric is split: 2 nodes (leafB) form a separate network"));
  CHECK(contains(f.advice, "connect them with the 2 planned cable(s) listed"));
  CHECK(kind_count(r, FindingKind::missing) == 0);
  CHECK(r.summary.ok == 2);
  CHECK(r.summary.found_links == 2);
}

TEST_CASE("audit: a plan name shared by two nodes is an input error", "[fabric][audit][errors]") {
  Net n;
  uint32_t leaf = n.sw("leaf01"), a = n.ca("mlx5_0"), b = n.ca("mlx5_0");
  n.link(leaf, 1, a, 1);
  n.link(leaf, 2, b, 1);
  Plan plan = make_plan({"C1,leaf01,1,mlx5_0,1"});
  try {
    run_audit(plan, n.done());
    FAIL("run_audit accepted an ambiguous node name");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].line == 2);
    CHECK(e.diagnostics()[0].field == "b_node");
  }
}

}  // namespace audit_test
