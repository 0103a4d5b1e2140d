// YAML plans: the fast block-style scanner and yaml-cpp give the same plan or the same
// diagnostics; what the scanner leaves to yaml-cpp (anchors, aliases, flow style, ...) still
// reads as before; errors name the file, the line and the field.
#include <catch2/catch.hpp>

#include "tests/unit/test_helpers.h"

#include <string>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/plan.h"
#include "fabric/plan_yaml_builder.h"

using namespace ibw::fabric;

namespace plan_yaml_test {

using ibw::test::find_diag;
using ibw::test::join_lines;
using ibw::test::keys;

// Everything a reader gives for a text: each link and node, or each diagnostic.
template <typename Parse>
std::string outcome(Parse parse, const std::string& text) {
  std::string out;
  try {
    Plan p = parse(text, "p.yaml");
    for (const auto& l : p.links)
      out += std::to_string(l.line) + "|" + l.cable_id + "|" + l.a.node + "|" +
             std::to_string(l.a.port) + "|" + l.a.location + "|" + l.b.node + "|" +
             std::to_string(l.b.port) + "|" + l.b.location + "|" + l.kind + "|" +
             std::to_string(l.length_m) + "|" + std::to_string(static_cast<int>(l.speed)) + "|" +
             std::to_string(l.width) + "|" + std::to_string(l.a.node_id) + "|" +
             std::to_string(l.b.node_id) + "\n";
    for (const auto& n : p.nodes) out += n + "\n";
  } catch (const InputError& e) {
    for (const auto& d : e.diagnostics()) out += "ERR " + format_diagnostic(d) + "\n";
  }
  return out;
}

// Whether the fast scanner reads text itself (else it leaves it to yaml-cpp); CHECKs that its
// outcome is yaml-cpp's when it does, and that parse_plan_yaml's always is.
bool agrees(const std::string& text) {
  auto fast = [](std::string_view t, const std::string& f) {
    auto p = plan_yaml::parse_fast(t, f);
    if (!p) throw std::logic_error("left to yaml-cpp");
    return std::move(*p);
  };
  std::string full = outcome(plan_yaml::parse_full, text);
  INFO("text:\n" << text << "yaml-cpp:\n" << full);
  CHECK(outcome(parse_plan_yaml, text) == full);
  try {
    std::string mine = outcome(fast, text);
    CHECK(mine == full);
    return true;
  } catch (const std::logic_error&) {
    return false;
  }
}

const std::string kCable =
    "  - cable_id: C1\n    a_node: leaf01\n    a_port: 1\n"
    "    b_node: node01\n    b_port: 2\n";

TEST_CASE("plan YAML: the block scanner reads plain plans as yaml-cpp does", "[plan][yaml]") {
  const std::vector<std::string> texts = {
      "# plan\ncables:\n" + kCable,
      "cables:\n" + kCable +
          "  - cable_id: C2\n    a_node: leaf01\n    a_port: 2\n"
          "    b_node: node02\n    b_port: 1\n    kind: host\n",
      // what ibw-labgen writes
      "cables:\n  - cable_id: \"C1\"\n    a_node: \"leaf 01\"\n    a_port: 1\n    b_node: "
      "\"n1 mlx5_0\"\n    b_port: 1\n    kind: leaf-spine\n    a_location: \"R1/U42\"\n"
      "    b_location: \"R2/U1\"\n    speed: NDR\n    width: 4x\n",
      "---\nlinks:\n" + kCable,
      "cables:\n- cable_id: C1\n  a_node: a\n  a_port: 1\n  b_node: b\n  b_port: 1\nother: 1\n",
      "- cable_id: C1\n  a_node: a\n  a_port: 1\n  b_node: b\n  b_port: 1\n",
      "cables:\r\n  - cable_id: C1\r\n    a_node: a\r\n    a_port: 1\r\n    b_node: b\r\n"
      "    b_port: 1\r\n",
      "\xEF\xBB\xBF"
      "cables:\n" +
          kCable,
      "cables:\n  -   cable_id: C1 # the first\n      a_node: a#1\n      a_port: 1   \n"
      "      b_node: 'it''s'\n      b_port: 1\n\n      # a comment\n      kind: ''\n",
      "cables:\n  - cable_id: a:b\n    a_node: x[1], y{2}\n    a_port: 1\n    b_node: \"q:  #\"\n"
      "    b_port: 1\n    a_location: http://r1/u2\n    kind:   two  words  \n",
      "cables:\n  - \"cable_id\": C1\n    'a_node': a\n    a_port: 1\n    b_node : b\n"
      "    b_port: 1\n",
      // nulls
      "cables:\n  - cable_id: C1\n    a_node: ~\n    a_port: null\n    b_node: NULL\n    b_port:\n"
      "    kind: Null\n    speed: nULL\n",
      "cables:\n  - cable_id:\n  - cable_id: \"\"\n    ~: x\n    null: y\n",
      // diagnostics
      "version: 2\ncables:\n" + kCable + "    colour: red\n  - cable_id: C1\n    a_port: x\n",
      "cables:\n",
      "cables: none\n",
      "cables:\nlinks:\n" + kCable,
      "links:\n" + kCable + "cables:\n  - cable_id: C9\n",
      "cables:\n" + kCable + kCable,
      "cables:\n  - cable_id: C1\n    a_node: a\n    a_port: 1\n    b_node: a\n    b_port: 1\n",
      "cables:\n  - cable_id: C1\n    cable_id: C2\n    length_m: 0\n    width: 3x\n    speed: "
      "ZDR\n",
      "foo:\nbar: 1\n",
      "cables:\n  - cable_id: C1\n    a_node:\n  - cable_id: C2\n",
  };
  for (const auto& t : texts) {
    INFO("text:\n" << t);
    CHECK(agrees(t));
  }
}

TEST_CASE("plan YAML: other YAML is left to yaml-cpp", "[plan][yaml]") {
  const std::vector<std::string> texts = {
      "",
      "# nothing\n",
      "---\n",
      "cables: [\n",
      "cables:\n  - {cable_id: C1, a_node: a, a_port: 1, b_node: b, b_port: 1}\n",
      "cables: []\n",
      "cables:\n  - cable_id: C1\n    a_node: &n leaf01\n    a_port: 1\n    b_node: b\n"
      "    b_port: 1\n  - cable_id: C2\n    a_node: *n\n    a_port: 2\n    b_node: c\n"
      "    b_port: 1\n",
      "cables:\n  - cable_id: !!str 7\n",
      "cables:\n  - cable_id: |\n      C1\n",
      "cables:\n  - cable_id: C1\n    kind: two\n      lines\n",
      "cables:\n  - cable_id: \"C\\x41\"\n",
      "cables:\n  - cable_id: \"C1\n      C2\"\n",
      "cables:\n  - cable_id: C1\n    kind: B\xC3\xA2timent\n",
      "cables:\n  - cable_id:\tC1\n",
      "cables:\n" + kCable + "---\nnot: read\n",
      "cables:\n" + kCable + "...\n",
      "cables:\n  - cable_id: C1\n    a_node:\n      name: x\n",
      "cables:\n  - cable_id: C1\n    a_node:\n    - x\n",
      "cables:\n  - cable_id: C1\n   a_node: x\n",
      "cables:\n  - cable_id: C1\n     a_node: x\n",
      "cables:\n  - - x\n",
      "cables:\n  - just a string\n",
      "cables:\n  -\n    cable_id: C1\n",
      "  cables:\n" + kCable,
      "cables:\n  - cable_id: C1 : 2\n",
      "cables:\n  - cable_id: C1\n  oops: 1\n",
      "- a: 1\nb: 2\n",
      "%YAML 1.2\n---\ncables:\n" + kCable,
      "cables:\n  - ? cable_id\n    : C1\n",
      "cables:\n  - cable_id: -1\n",
      "cables:\n  - cable_id: \"C1\" x\n",
  };
  for (const auto& t : texts) {
    INFO("text:\n" << t);
    CHECK_FALSE(agrees(t));
  }
}

TEST_CASE("plan YAML: anchors - aliases and flow style still read", "[plan][yaml]") {
  Plan p = parse_plan_yaml(join_lines({
                               "cables:",                                              // 1
                               "  - {cable_id: C1, a_node: &leaf leaf01, a_port: 1,",  // 2
                               "     b_node: n1, b_port: 1}",                          // 3
                               "  - cable_id: C2",                                     // 4
                               "    a_node: *leaf",                                    // 5
                               "    a_port: 2",                                        // 6
                               "    b_node: n2",                                       // 7
                               "    b_port: !!str 1",                                  // 8
                           }),
                           "plan.yaml");
  REQUIRE(p.links.size() == 2);
  CHECK(p.links[0].line == 2);
  CHECK(p.links[0].b.node == "n1");
  CHECK(p.links[1].line == 4);
  CHECK(p.links[1].a.node == "leaf01");
  CHECK(p.links[1].b.port == 1);

  Plan flow = parse_plan_yaml("links: [{cable_id: C1, a_node: a, a_port: 1, b_node: b, b_port: 1}]",
                              "plan.yaml");
  REQUIRE(flow.links.size() == 1);
  CHECK(flow.links[0].b.node == "b");
}

TEST_CASE("plan YAML: errors name the file - line and field", "[plan][yaml][errors]") {
  // An alias stands for its anchored cable, at the anchor's line.
  auto d = ibw::test::errors_of(parse_plan_yaml,
                                join_lines({
                                    "cables:",  // 1
                                    "  - &c1 {cable_id: C1, a_node: a, a_port: 1, b_node: b, "
                                    "b_port: 1}",         // 2
                                    "  - [not, a, map]",  // 3
                                    "  - *c1",            // 4
                                }),
                                "plan.yaml");
  CHECK(keys(d) == std::vector<std::string>{"2:a_port", "2:b_port", "2:cable_id", "3:"});
  CHECK(d[0].file == "plan.yaml");
  CHECK(find_diag(d, 2, "cable_id")->message == "cable ID C1 already used on line 2");

  // The fast scanner's lines, with CRLF line ends and comments in between.
  d = ibw::test::errors_of(parse_plan_yaml,
                           "# plan\r\ncables:\r\n\r\n  - cable_id: C1\r\n    # x\r\n"
                           "    a_node: a/1\r\n    a_port: 0\r\n",
                           "big.yaml");
  CHECK(keys(d) == std::vector<std::string>{"4:b_node", "4:b_port", "6:a_node", "7:a_port"});
  CHECK(d[0].file == "big.yaml");
  CHECK(find_diag(d, 7, "a_port")->message == "\"0\" is not a port number (1-255)");

  d = ibw::test::errors_of(parse_plan_yaml, "cables:\n  - {cable_id: C1\n", "bad.yaml");
  REQUIRE(d.size() == 1);
  CHECK(d[0].file == "bad.yaml");
  CHECK(d[0].line >= 2);
  CHECK(d[0].message.find("YAML syntax error") == 0);
}

}  // namespace plan_yaml_test
