// cli/alloc_tuning: which GLIBC_TUNABLES ibwarden re-executes itself with.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/alloc_tuning.h"

using ibw::cli::kMallocTunables;
using ibw::cli::tuned_glibc_tunables;

TEST_CASE("alloc tuning: unset tunables get ibwarden's malloc settings", "[cli]") {
  const std::string audit = std::string("glibc.malloc.hugetlb=1:") + kMallocTunables;
  auto v = tuned_glibc_tunables(nullptr, nullptr, "audit");
  REQUIRE(v);
  CHECK(*v == audit);
  CHECK(*tuned_glibc_tunables("", nullptr, "audit") == audit);
  CHECK(*tuned_glibc_tunables(nullptr, "on", "localize") == audit);
  // The daemon gets the same heap settings without huge pages.
  auto run = tuned_glibc_tunables(nullptr, nullptr, "run");
  REQUIRE(run);
  CHECK(*run == kMallocTunables);
  CHECK(run->find("hugetlb") == std::string::npos);
  CHECK(run->find("glibc.malloc.trim_threshold=4294967295") != std::string::npos);
}

TEST_CASE("alloc tuning: the operator's choices and the off switch are kept", "[cli]") {
  CHECK_FALSE(tuned_glibc_tunables(nullptr, "off", "run"));
  CHECK_FALSE(tuned_glibc_tunables("glibc.malloc.arena_max=2", nullptr, "audit"));
  // A process that already re-executed sees its own settings and stops there.
  CHECK_FALSE(tuned_glibc_tunables(kMallocTunables, nullptr, "run"));
  CHECK_FALSE(tuned_glibc_tunables(ibw::cli::malloc_tunables("audit").c_str(), nullptr, "audit"));
  auto other = tuned_glibc_tunables("glibc.pthread.rseq=0", nullptr, "run");
  REQUIRE(other);
  CHECK(*other == std::string("glibc.pthread.rseq=0:") + kMallocTunables);
}

TEST_CASE("alloc tuning: only the commands that load a whole fabric re-execute", "[cli]") {
  auto command = [](std::vector<std::string> args) -> std::string {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const char* c = ibw::cli::tuned_command(argv.data());
    return c ? c : "";
  };
  CHECK(command({"ibwarden", "audit", "--plan", "p.csv"}) == "audit");
  CHECK(command({"ibwarden", "run", "--config", "x.yaml"}) == "run");
  CHECK(command({"ibwarden", "localize", "--help"}) == "localize");
  CHECK(command({"ibwarden", "events", "--since", "1h"}).empty());
  CHECK(command({"ibwarden", "ports"}).empty());
  CHECK(command({"ibwarden"}).empty());
}
