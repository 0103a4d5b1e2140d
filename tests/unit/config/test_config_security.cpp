// What parse_config notes about secrets and exposure (config/security_checks.cpp): credentials
// in webhook URLs (a password in store.url is an error of its own) and secrets over plain http://
// (check-config refuses them unless the section's allow_insecure_url), impossible listen ports, and
// a web API open to other hosts without tokens or TLS (a warning).
#include <catch2/catch.hpp>

#include "config/config.h"
#include "tests/unit/test_helpers.h"

using namespace ibw;
using ibw::test::join_lines;

namespace config_security_test {

std::vector<std::string> fields(const std::vector<fabric::Diagnostic>& diags) {
  std::vector<std::string> out;
  for (const auto& d : diags) out.push_back(std::to_string(d.line) + ":" + d.field);
  return out;
}

}  // namespace config_security_test

using namespace config_security_test;

TEST_CASE("config security: credentials in URLs and secrets over http are noted", "[config]") {
  auto c = config::parse_config(join_lines({
                                    "workorders:",                                 // 1
                                    "  webhook: http://tickets.example.com/hook",  // 2
                                    "  webhook_secret_env: HOOK_SECRET",           // 3
                                    "ufm:",                                        // 4
                                    "  url: http://10.0.0.5/",                     // 5
                                    "rules: null",
                                }),
                                "c.yaml");
  CHECK(fields(c.insecure) == std::vector<std::string>{"2:workorders.webhook", "5:ufm.url"});
  CHECK(c.insecure[0].message.find("plain http:// to tickets.example.com") != std::string::npos);

  c = config::parse_config(join_lines({
                               "workorders:",
                               "  webhook: https://u:p@tickets.example.com/hook",
                           }),
                           "c.yaml");
  REQUIRE(c.insecure.size() == 1);
  CHECK(c.insecure[0].message.find("user:password@ in the URL") != std::string::npos);

  // Allowed on purpose, over https, or to this host: nothing to note.
  for (const char* text :
       {"workorders:\n  webhook: http://t.example.com/h\n  webhook_secret_env: S\n"
        "  allow_insecure_url: true\nufm:\n  url: http://10.0.0.5/\n  allow_insecure_url: true\n",
        "workorders:\n  webhook: https://t.example.com/h?key=1\n  webhook_secret_env: S\n",
        "workorders:\n  webhook: http://127.0.0.1:9000/h\n  webhook_secret_env: S\n"
        "ufm:\n  url: http://localhost:8080/\n",
        "workorders:\n  webhook: http://t.example.com/h\n"})
    CHECK(config::parse_config(text, "c.yaml").insecure.empty());
}

TEST_CASE("config security: a listen port past 65535 is an error naming the line", "[config]") {
  auto d = test::errors_of(config::parse_config, "web:\n  listen: 127.0.0.1:99999\n", "c.yaml");
  test::check_only_diag(d, 2, "web.listen", "port 99999 is not a TCP port (0 to 65535)");
  CHECK(config::parse_config("web:\n  listen: 127.0.0.1:65535\n", "c.yaml").web.listen ==
        "127.0.0.1:65535");
}

TEST_CASE("config security: a web API open to other hosts without tokens or TLS warns",
          "[config]") {
  auto c = config::parse_config("web:\n  listen: 0.0.0.0:8080\n", "c.yaml");
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].line == 2);
  CHECK(c.warnings[0].message.find("has no tokens_file") != std::string::npos);
  c = config::parse_config("web:\n  listen: :8080\n  tokens_file: /etc/ibwarden/tokens\n",
                           "c.yaml");
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].message.find("without TLS") != std::string::npos);
  CHECK(config::parse_config("web:\n  listen: 127.0.0.1:8080\n", "c.yaml").warnings.empty());
  CHECK(config::parse_config("web:\n  listen: '[::1]:8080'\n", "c.yaml").warnings.empty());
}
