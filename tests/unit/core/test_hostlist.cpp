// Slurm hostlist expressions: expansion (ranges, padding, several bracket groups, lists),
// its errors with their offsets, the expansion bound, and compression back to ranges.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/hostlist.h"

using ibw::core::compress_hostlist;
using ibw::core::expand_hostlist;
using ibw::core::HostlistError;

namespace hostlist_test {

std::vector<std::string> ok(const std::string& expr) {
  HostlistError e;
  auto names = expand_hostlist(expr, &e);
  INFO(expr << ": " << e.message);
  CHECK(e.message.empty());
  return names;
}

HostlistError bad(const std::string& expr, size_t max_names = 100000) {
  HostlistError e;
  auto names = expand_hostlist(expr, &e, max_names);
  CHECK(names.empty());
  return e;
}

}  // namespace hostlist_test

using namespace hostlist_test;

TEST_CASE("hostlist: ranges keep the written padding", "[core][hostlist]") {
  CHECK(ok("node[001-003]") == std::vector<std::string>{"node001", "node002", "node003"});
  CHECK(ok("n[8-11]") == std::vector<std::string>{"n8", "n9", "n10", "n11"});
  CHECK(ok("n[098-101]") == std::vector<std::string>{"n098", "n099", "n100", "n101"});
  CHECK(ok("gpu[1,3,5-6]x") == std::vector<std::string>{"gpu1x", "gpu3x", "gpu5x", "gpu6x"});
  CHECK(ok("login1") == std::vector<std::string>{"login1"});
  CHECK(ok("node[0001-1024]").size() == 1024);
}

TEST_CASE("hostlist: lists - several groups - duplicates once", "[core][hostlist]") {
  CHECK(ok("a,b[1-2],a") == std::vector<std::string>{"a", "b1", "b2"});
  CHECK(ok("rack[1-2]-gpu[01-02]") ==
        std::vector<std::string>{"rack1-gpu01", "rack1-gpu02", "rack2-gpu01", "rack2-gpu02"});
}

TEST_CASE("hostlist: errors say what and where", "[core][hostlist]") {
  auto e = bad("node[001-003");
  CHECK(e.message == "'[' without a closing ']'");
  CHECK(e.offset == 4);
  e = bad("node[9-1]");
  CHECK(e.message == "range 9-1 runs backwards");
  CHECK(e.offset == 5);
  CHECK(bad("n[1-x]").message == "\"1-x\" is not a number or a range N-M");
  CHECK(bad("a,,b").message == "an empty name");
  CHECK(bad("a,").message == "an empty name");
  CHECK(bad("").message == "no names");
  CHECK(bad("a b").message == "a blank inside the list");
  CHECK(bad("a]").message == "']' without an opening '['");
}

TEST_CASE("hostlist: expansion is bounded", "[core][hostlist]") {
  CHECK(bad("n[1-99999999999]").message == "more than 100000 names");
  CHECK(bad("a[1-100]b[1-100]", 5000).message == "more than 5000 names");
  CHECK(ok("a[1-100]b[1-10]").size() == 1000);
}

TEST_CASE("hostlist: compression folds runs of the same width", "[core][hostlist]") {
  CHECK(compress_hostlist({"node001", "node002", "node003", "node007", "login1"}) ==
        "node[001-003,007],login1");
  CHECK(compress_hostlist({"n9", "n10", "n11"}) == "n[9-11]");
  CHECK(compress_hostlist({"gpu05"}) == "gpu05");
  CHECK(compress_hostlist({"head", "n2", "n1"}) == "head,n[1-2]");
  std::vector<std::string> names = ok("node[0001-0512],node[0600-0601]");
  CHECK(compress_hostlist(names) == "node[0001-0512,0600-0601]");
  CHECK(ok(compress_hostlist(names)) == names);
  CHECK(compress_hostlist(ok("node[0001-1024]")) == "node[0001-1024]");
  CHECK(compress_hostlist({"n1000", "n0999"}) == "n[0999-1000]");
}
