// core::KeyTable and the key walk that the config, the rule files and YAML plans share: the
// "did you mean" hint (fewer than 3 edits, the first of the nearest), the known list in table
// order, repeated keys reported at their own line with their path.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "core/strict_keys.h"

namespace strict_keys_test {

using ibw::core::KeyTable;

struct Problems {
  std::vector<std::tuple<int, std::string, std::string>> seen;
  void add(int line, std::string path, std::string message) {
    seen.emplace_back(line, std::move(path), std::move(message));
  }
};

TEST_CASE("strict keys: unknown names get the nearest known one", "[core][config]") {
  KeyTable t{"lease", "renew", "instance"};
  CHECK(t.find("renew") == 1);
  CHECK(t.find("renw") == -1);
  CHECK(t.nearest("renw") == "renew");
  CHECK(t.nearest("something") == "");
  CHECK(t.unknown_key("leese") ==
        "unknown key (did you mean \"lease\"?); known: lease, renew, instance");
  CHECK(t.unknown_key("zzz") == "unknown key; known: lease, renew, instance");
  CHECK(t.unknown("speed", "HDRR") == "unknown speed \"HDRR\"; known: lease, renew, instance");
  CHECK(KeyTable{"HDR", "NDR"}.unknown("speed", "HDRR") ==
        "unknown speed \"HDRR\" (did you mean \"HDR\"?); known: HDR, NDR");
  CHECK(ibw::core::edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("strict keys: each key of a map is checked once and in order", "[core][config]") {
  YAML::Node map = YAML::Load("lease: 15s\nrenw: 5s\nlease: 20s\ninstance: a\n");
  Problems p;
  std::vector<std::string> read;
  ibw::core::check_keys(map, "ha", KeyTable{"lease", "renew", "instance"}, p,
                        [&](int index, const std::string& path, const YAML::Node& v) {
                          read.push_back(std::to_string(index) + " " + path + "=" + v.Scalar());
                        });
  CHECK(read == std::vector<std::string>{"0 ha.lease=15s", "2 ha.instance=a"});
  REQUIRE(p.seen.size() == 2);
  CHECK(p.seen[0] == std::make_tuple(2, std::string("ha.renw"),
                                     std::string("unknown key (did you mean \"renew\"?); known: "
                                                 "lease, renew, instance")));
  CHECK(p.seen[1] == std::make_tuple(3, std::string("ha.lease"), std::string("key given twice")));
}

}  // namespace strict_keys_test
