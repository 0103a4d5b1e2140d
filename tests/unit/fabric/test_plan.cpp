// Cabling plan readers: CSV, YAML, UFM NDT, format detection and strict validation.
#include <catch2/catch.hpp>

#include "tests/unit/test_helpers.h"

#include <algorithm>
#include <string>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/plan.h"
#include "tests/test_paths.h"

using namespace ibw::fabric;

namespace plan_test {

using ibw::test::check_only_diag;
using ibw::test::find_diag;
using ibw::test::join_lines;
using ibw::test::keys;

template <typename Parse>
std::vector<Diagnostic> plan_errors(Parse parse, const std::string& text) {
  return ibw::test::errors_of(parse, text, "plan");
}

const std::string kHeader = "cable_id,a_node,a_port,b_node,b_port";

TEST_CASE("plan CSV: required and optional columns - quoted fields", "[fabric][plan]") {
  Plan p = parse_plan_csv(
      join_lines({
          "# cabling plan for row 1",
          "cable_id,a_node,a_port,b_node,b_port,kind,a_location,b_location,length_m,speed,width",
          "C001,leaf01,1,\"node0042 mlx5_0\",1,host,\"R01, U42\",R01/U10,2.5,NDR,4x",
          "",
          "C002, leaf01 ,33,spine01,1,leaf-spine,,,,hdr,2",
          "\"C\"\"003\",0xb83fd2030080e4a0,34,spine01,2,,,,,,",
      }),
      "plan.csv");
  CHECK(p.file == "plan.csv");
  CHECK(p.format == PlanFormat::csv);
  REQUIRE(p.links.size() == 3);

  const PlannedLink& a = p.links[0];
  CHECK(a.line == 3);
  CHECK(a.cable_id == "C001");
  CHECK(a.a.node == "leaf01");
  CHECK(a.a.port == 1);
  CHECK(a.b.node == "node0042 mlx5_0");
  CHECK(a.b.port == 1);
  CHECK(a.kind == "host");
  CHECK(a.a.location == "R01, U42");
  CHECK(a.b.location == "R01/U10");
  CHECK(a.length_m == Approx(2.5));
  CHECK(a.speed == Speed::ndr);
  CHECK(a.width == 4);

  const PlannedLink& b = p.links[1];
  CHECK(b.line == 5);
  CHECK(b.a.node == "leaf01");  // trimmed
  CHECK(b.a.port == 33);
  CHECK(b.speed == Speed::hdr);
  CHECK(b.width == 2);
  CHECK(b.length_m == 0);
  CHECK(b.a.location.empty());

  const PlannedLink& c = p.links[2];
  CHECK(c.cable_id == "C\"003");
  CHECK(c.a.node == "0xb83fd2030080e4a0");
  CHECK(c.speed == Speed::unknown);
  CHECK(c.width == 0);
}

TEST_CASE("plan CSV: header errors name the column", "[fabric][plan][errors]") {
  auto d = plan_errors(parse_plan_csv, join_lines({kHeader + ",colour", "C1,leaf01,1,h1,1,red"}));
  check_only_diag(d, 1, "colour", "unknown column");

  auto m =
      plan_errors(parse_plan_csv, join_lines({"cable_id,a_node,a_port,b_node", "C1,leaf01,1,h1"}));
  check_only_diag(m, 1, "b_port", "required column missing");
}

TEST_CASE("plan CSV: every bad row is reported at once with its line", "[fabric][plan][errors]") {
  auto d = plan_errors(parse_plan_csv,
                       join_lines({
                           "cable_id,a_node,a_port,b_node,b_port,speed,width,length_m",  // 1
                           "C1,leaf01,x17,node01,1,,,",                                  // 2
                           "C2,leaf01,0,node02,1,,,",                                    // 3
                           "C3,leaf01,256,node03,1,,,",                                  // 4
                           "C4,leaf01,4,node04,1,QDRX,,",                                // 5
                           "C5,leaf01,5,node05,1,,3x,",                                  // 6
                           "C6,leaf01,6,node06,1,,,-1",                                  // 7
                           "C7,leaf01,7,node07,1,,,",                                    // 8
                           "C8,leaf01,7,node08,1,,,",                                    // 9
                           "C9,spine01,1,spine01,2,,,",                                  // 10
                           "C7,leaf01,9,node09,1,,,",                                    // 11
                           "C10,leaf01,10,node10",                                       // 12
                           "C11,leaf01,11,node11,1,NDR,4x,abc",                          // 13
                       }));
  CHECK(keys(d) == std::vector<std::string>{"10:b_node", "11:cable_id", "12:", "13:length_m",
                                            "2:a_port", "3:a_port", "4:a_port", "5:speed",
                                            "6:width", "7:length_m", "9:a_port"});
  const Diagnostic* clash = find_diag(d, 9, "a_port");
  REQUIRE(clash);
  CHECK(clash->message.find("leaf01/7") != std::string::npos);
  CHECK(clash->message.find("cable C7 on line 8") != std::string::npos);
  const Diagnostic* dup = find_diag(d, 11, "cable_id");
  REQUIRE(dup);
  CHECK(dup->message.find("line 8") != std::string::npos);
  const Diagnostic* self = find_diag(d, 10, "b_node");
  REQUIRE(self);
  CHECK(self->message.find("self-link") != std::string::npos);
  const Diagnostic* count = find_diag(d, 12, "");
  REQUIRE(count);
  CHECK(count->message.find("4 fields, header has 8") != std::string::npos);
  CHECK(find_diag(d, 2, "a_port")->message.find("\"x17\"") != std::string::npos);
}

TEST_CASE("plan YAML: cables list with the CSV keys", "[fabric][plan][yaml]") {
  Plan p = parse_plan_yaml(
      join_lines({
          "# plan",
          "cables:",
          "  - cable_id: C001",
          "    a_node: leaf01",
          "    a_port: 1",
          "    b_node: node0042 mlx5_0",
          "    b_port: 1",
          "    speed: NDR",
          "    width: 4x",
          "    a_location: \"R01/U42\"",
          "  - {cable_id: C002, a_node: leaf01, a_port: 33, b_node: spine01, b_port: 1}",
      }),
      "plan.yaml");
  CHECK(p.format == PlanFormat::yaml);
  REQUIRE(p.links.size() == 2);
  CHECK(p.links[0].line == 3);
  CHECK(p.links[0].cable_id == "C001");
  CHECK(p.links[0].b.node == "node0042 mlx5_0");
  CHECK(p.links[0].b.port == 1);
  CHECK(p.links[0].speed == Speed::ndr);
  CHECK(p.links[0].width == 4);
  CHECK(p.links[0].a.location == "R01/U42");
  CHECK(p.links[1].line == 11);
  CHECK(p.links[1].a.port == 33);
  CHECK(p.links[1].b.node == "spine01");
}

TEST_CASE("plan YAML: unknown key - missing key and bad value", "[fabric][plan][yaml][errors]") {
  auto d = plan_errors(parse_plan_yaml, join_lines({
                                            "cables:",             // 1
                                            "  - cable_id: C001",  // 2
                                            "    a_node: leaf01",  // 3
                                            "    a_port: 1",       // 4
                                            "    b_node: node01",  // 5
                                            "    b_port: 1",       // 6
                                            "    colour: red",     // 7
                                            "  - cable_id: C002",  // 8
                                            "    a_node: leaf01",  // 9
                                            "    a_port: 2",       // 10
                                            "    b_node: node02",  // 11
                                            "  - cable_id: C003",  // 12
                                            "    a_node: leaf01",  // 13
                                            "    a_port: x3",      // 14
                                            "    b_node: node03",  // 15
                                            "    b_port: 1",       // 16
                                        }));
  CHECK(keys(d) == std::vector<std::string>{"14:a_port", "7:colour", "8:b_port"});
  const Diagnostic* unknown = find_diag(d, 7, "colour");
  REQUIRE(unknown);
  CHECK(unknown->message.find("unknown key") != std::string::npos);
  CHECK(find_diag(d, 8, "b_port")->message.find("required key missing") != std::string::npos);
}

TEST_CASE("plan NDT: UFM topology export", "[fabric][plan][ndt]") {
  Plan p = parse_plan_ndt(join_lines({
                              "#StartDevice,StartPort,EndDevice,EndPort,LinkType",
                              "leaf01,Port 1,node0042 mlx5_0,Port 1,Host",
                              "leaf01,Port 33,spine01,Port 1,Switch",
                          }),
                          "fabric.ndt");
  CHECK(p.format == PlanFormat::ndt);
  REQUIRE(p.links.size() == 2);
  CHECK(p.links[0].line == 2);
  CHECK(p.links[0].a.node == "leaf01");
  CHECK(p.links[0].a.port == 1);
  CHECK(p.links[0].b.node == "node0042 mlx5_0");
  CHECK(p.links[0].b.port == 1);
  CHECK(p.links[0].kind == "Host");
  CHECK(p.links[0].cable_id == "leaf01/1");
  CHECK(p.links[1].b.port == 1);
  CHECK(p.links[1].cable_id == "leaf01/33");
}

TEST_CASE("plan NDT: bad port names the column and line", "[fabric][plan][ndt][errors]") {
  auto d = plan_errors(parse_plan_ndt, join_lines({
                                           "#StartDevice,StartPort,EndDevice,EndPort,LinkType",
                                           "leaf01,Port 1,node01,Port 1,Host",
                                           "leaf01,Port 2,node02,Port x,Host",
                                           "leaf01,Port 0,node03,Port 1,Host",
                                       }));
  CHECK(keys(d) == std::vector<std::string>{"3:EndPort", "4:StartPort"});
}

TEST_CASE("plan format is detected from the content", "[fabric][plan]") {
  CHECK(detect_plan_format(kHeader + "\nC1,a,1,b,1\n") == PlanFormat::csv);
  CHECK(detect_plan_format("# comment\n\ncables:\n  - cable_id: C1\n") == PlanFormat::yaml);
  CHECK(detect_plan_format("---\nlinks:\n") == PlanFormat::yaml);
  CHECK(detect_plan_format("#StartDevice,StartPort,EndDevice,EndPort,LinkType\n") ==
        PlanFormat::ndt);
  CHECK_FALSE(detect_plan_format("hello world\n"));
  CHECK_FALSE(detect_plan_format(""));

  // A CSV saved with a .yaml name is still read as CSV.
  Plan p = load_plan(std::string(IBW_TEST_DATA) + "/unit/plan-csv-content.yaml");
  CHECK(p.format == PlanFormat::csv);
  REQUIRE(p.links.size() == 2);
  CHECK(p.links[1].cable_id == "C002");
  CHECK(p.links[1].b.node == "node0043 mlx5_0");

  Plan y = parse_plan("cables:\n  - {cable_id: C1, a_node: a, a_port: 1, b_node: b, b_port: 1}\n",
                      "plan.csv");
  CHECK(y.format == PlanFormat::yaml);
  REQUIRE(y.links.size() == 1);

  try {
    parse_plan("just some text\n", "mystery.txt");
    FAIL("parse_plan accepted text of no known format");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].file == "mystery.txt");
    CHECK(e.diagnostics()[0].line == 0);
  }
}

TEST_CASE("plan CSV: a UTF-8 byte order mark (Excel \"CSV UTF-8\") is not part of the header",
          "[fabric][plan][errors]") {
  Plan p = parse_plan("\xEF\xBB\xBF" + kHeader + "\r\nC1,leaf01,1,h1,1\r\n", "excel.csv");
  CHECK(p.format == PlanFormat::csv);
  REQUIRE(p.links.size() == 1);
  CHECK(p.links[0].cable_id == "C1");
  CHECK(p.links[0].b.node == "h1");
}

}  // namespace plan_test
