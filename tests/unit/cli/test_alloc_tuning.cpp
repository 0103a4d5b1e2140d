// cli/alloc_tuning: which GLIBC_TUNABLES ibwarden re-executes itself with.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/alloc_tuning.h"

using ibw::cli::kMallocTunables;
using ibw::cli::tuned_glibc_tunables;

TEST_CASE("alloc tuning: unset tunables get ibwarden's malloc settings", "[cli]") {
  auto v = tuned_glibc_tunables(nullptr, nullptr);
  REQUIRE(v);
  CHECK(*v == kMallocTunables);
  CHECK(v->find("glibc.malloc.hugetlb=1") != std::string::npos);
  CHECK(*tuned_glibc_tunables("", nullptr) == kMallocTunables);
  CHECK(*tuned_glibc_tunables(nullptr, "on") == kMallocTunables);
}

TEST_CASE("alloc tuning: the operator's choices and the off switch are kept", "[cli]") {
  CHECK_FALSE(tuned_glibc_tunables(nullptr, "off"));
  CHECK_FALSE(tuned_glibc_tunables("glibc.malloc.arena_max=2", nullptr));
  // A process that already re-executed sees its own settings and stops there.
  CHECK_FALSE(tuned_glibc_tunables(kMallocTunables, nullptr));
  auto other = tuned_glibc_tunables("glibc.pthread.rseq=0", nullptr);
  REQUIRE(other);
  CHECK(*other == std::string("glibc.pthread.rseq=0:") + kMallocTunables);
}

TEST_CASE("alloc tuning: only the commands that load a whole fabric re-execute", "[cli]") {
  auto heavy = [](std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    return ibw::cli::heavy_command(argv.data());
  };
  CHECK(heavy({"ibwarden", "audit", "--plan", "p.csv"}));
  CHECK(heavy({"ibwarden", "run", "--config", "x.yaml"}));
  CHECK(heavy({"ibwarden", "localize", "--help"}));
  CHECK_FALSE(heavy({"ibwarden", "events", "--since", "1h"}));
  CHECK_FALSE(heavy({"ibwarden", "ports"}));
  CHECK_FALSE(heavy({"ibwarden"}));
}
