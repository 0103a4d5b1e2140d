// The store: and ha: sections (issue 17): backend, PostgreSQL URL and password source, leader
// leases. Every wrong combination fails at load with the line and key; the password is never
// taken from the config text.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "config/config.h"
#include "config/store_checks.h"
#include "config/store_spec.h"
#include "fabric/diagnostics.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::config;
using ibw::fabric::Diagnostic;
using ibw::fabric::InputError;

namespace config_store_test {

const char* kFile = "/etc/ibwarden/ibwarden.yaml";

std::vector<Diagnostic> errors(const std::string& text) {
  return ibw::test::errors_of(parse_config, text, kFile);
}

bool has(const std::vector<Diagnostic>& d, int line, const std::string& field,
         const std::string& words) {
  for (const auto& x : d)
    if (x.line == line && x.field == field && x.message.find(words) != std::string::npos)
      return true;
  return false;
}

TEST_CASE("config store: sqlite stays the default and postgres takes url and ha", "[config]") {
  Config c = parse_config("rules: null\n", kFile);
  CHECK(c.store.backend == "sqlite");
  CHECK_FALSE(c.ha.enabled);
  c = parse_config(
      "rules: null\nfabric:\n  name: east\nstore:\n  backend: postgres\n"
      "  url: postgresql://ibwarden@db1/ibwarden\n  password_env: IBW_PG\n"
      "ha:\n  lease: 20s\n  renew: 4s\n",
      kFile);
  CHECK(c.store.backend == "postgres");
  CHECK(c.store.url == "postgresql://ibwarden@db1/ibwarden");
  CHECK(c.store.password_env == "IBW_PG");
  CHECK(c.ha.enabled);
  CHECK(c.ha.lease_us == 20'000'000);
  CHECK(c.ha.renew_us == 4'000'000);
  // Two daemons on one host have different configs: the default name tells them apart.
  CHECK(c.ha.instance == default_instance(kFile));
  CHECK(c.ha.instance.find(":/etc/ibwarden/ibwarden.yaml") != std::string::npos);
  c = parse_config(
      "rules: null\nstore:\n  backend: postgres\n  url: host=/run/pg dbname=ibw\n"
      "ha:\n  instance: node7\n",
      kFile);
  CHECK(c.ha.instance == "node7");
  CHECK(c.ha.lease_us == 15'000'000);
  CHECK(c.ha.renew_us == 5'000'000);
}

TEST_CASE("config store: wrong combinations fail at load with line and key", "[config]") {
  auto d = errors("rules: null\nstore:\n  backend: postgres\n");
  CHECK(has(d, 3, "store.url", "required with backend postgres"));
  d = errors("rules: null\nstore:\n  backend: postgres\n  path: x.db\n  url: postgresql:///x\n");
  CHECK(has(d, 4, "store.path", "backend postgres uses store.url"));
  d = errors("rules: null\nstore:\n  url: postgresql:///x\n");
  CHECK(has(d, 3, "store.url", "is for backend postgres"));
  d = errors("rules: null\nstore:\n  backend: postgres\n  url: postgresql://u:secret@db/x\n");
  CHECK(has(d, 4, "store.url", "password does not belong in the URL"));
  d = errors("rules: null\nstore:\n  backend: postgres\n  url: host=db password=secret\n");
  CHECK(has(d, 4, "store.url", "password does not belong in the URL"));
  d = errors(
      "rules: null\nstore:\n  backend: postgres\n  url: postgresql:///x\n"
      "  password_file: /etc/pw\n  password_env: PW\n");
  CHECK(has(d, 6, "store.password_file", "not both"));
  d = errors("rules: null\nstore:\n  backend: mysql\n");
  CHECK(has(d, 3, "store.backend", "sqlite"));
  d = errors("rules: null\nha:\n  lease: 15s\n");
  CHECK(has(d, 3, "ha", "need store.backend postgres"));
  d = errors(
      "rules: null\nstore:\n  backend: postgres\n  url: postgresql:///x\n"
      "ha:\n  lease: 5s\n  renew: 5s\n");
  CHECK(has(d, 6, "ha.renew", "shorter than ha.lease"));
  d = errors(
      "rules: null\nstore:\n  backend: postgres\n  url: postgresql:///x\nha:\n  leese: 5s\n");
  CHECK(has(d, 6, "ha.leese", ""));
}

TEST_CASE("config store: the password comes from the file or the variable", "[config]") {
  auto dir = std::filesystem::temp_directory_path() / ("ibw-pw-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "pw") << "s3cret\n";
  std::string base =
      "rules: null\nfabric:\n  name: west\nstore:\n  backend: postgres\n"
      "  url: postgresql:///ibw\n";
  Config c = parse_config(base + "  password_file: " + (dir / "pw").string() + "\n",
                          (dir / "c.yaml").string());
  ibw::core::StoreSpec s = ibw::config::store_spec(c);
  CHECK(s.backend == "postgres");
  CHECK(s.fabric == "west");
  CHECK(s.password == "s3cret");  // the trailing newline of the file is not part of it
  c = parse_config(base + "  password_env: IBW_TEST_PG_PW\n", (dir / "c.yaml").string());
  ::unsetenv("IBW_TEST_PG_PW");
  try {
    ibw::config::store_spec(c);
    FAIL("an unset variable must fail");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().at(0).field == "store.password_env");
  }
  ::setenv("IBW_TEST_PG_PW", "from-env", 1);
  CHECK(ibw::config::store_spec(c).password == "from-env");
  ::unsetenv("IBW_TEST_PG_PW");
  std::filesystem::remove_all(dir);
}

}  // namespace config_store_test
