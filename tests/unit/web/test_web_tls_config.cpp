// web.tls_cert and web.tls_key: both or neither (config/config.cpp), and the files checked by
// web::TlsConfig::load() as the daemon and check-config do, every problem at the line of its
// key in the configuration: unreadable files, a key others may read, a key that does not
// match, an encrypted key, a file that is not PEM. check-config runs the same checks.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "config/config.h"
#include "tests/unit/test_helpers.h"
#include "tests/unit/test_tls_helpers.h"

using namespace ibw;
using namespace ibw::tls_test;

namespace web_tls_config_test {

// Writes DIR/ibwarden.yaml with a web section naming cert and key (lines 3 and 4).
std::string write_config(const SelfSigned& pki, const std::string& cert, const std::string& key) {
  std::string path = pki.dir.file("ibwarden.yaml");
  std::ofstream(path) << "web:\n  listen: 127.0.0.1:0\n  tls_cert: " << cert
                      << "\n  tls_key: " << key << "\nrules: null\n";
  return path;
}

web::TlsFiles files_of(const config::Config& c) {
  return {*c.web.tls_cert, *c.web.tls_key, c.file, c.web.tls_cert_line, c.web.tls_key_line};
}

// The diagnostics of loading the configuration's TLS files; fails when it loads.
std::vector<fabric::Diagnostic> tls_errors(const std::string& config_path) {
  config::Config c = config::load_config(config_path);
  try {
    web::TlsConfig::load(files_of(c));
  } catch (const fabric::InputError& e) {
    return e.diagnostics();
  }
  FAIL("TlsConfig::load did not throw for " << config_path);
  return {};
}

}  // namespace web_tls_config_test

using namespace web_tls_config_test;

TEST_CASE("web tls config: a certificate without a key and the reverse are errors", "[config]") {
  auto errors = [](const std::string& text) {
    return ibw::test::errors_of(config::parse_config, text, "/etc/ibwarden/ibwarden.yaml");
  };
  auto d = errors("web:\n  listen: 127.0.0.1:8443\n  tls_cert: cert.pem\n");
  REQUIRE(ibw::test::keys(d) == std::vector<std::string>{"3:web.tls_key"});
  CHECK(fabric::format_diagnostic(d[0]).rfind("/etc/ibwarden/ibwarden.yaml:3: web.tls_key: ", 0) ==
        0);
  d = errors("web:\n  tls_key: key.pem\n  tls_cert: null\n");
  CHECK(ibw::test::keys(d) == std::vector<std::string>{"2:web.tls_cert"});
  d = errors("web:\n  tls_crt: cert.pem\n");
  REQUIRE(d.size() == 1);
  CHECK(d[0].message.find("did you mean \"tls_cert\"") != std::string::npos);
  // Both: paths relative to the configuration; neither: plain HTTP.
  auto c = config::parse_config("web:\n  tls_cert: tls/cert.pem\n  tls_key: /k/key.pem\n",
                                "/etc/ibwarden/ibwarden.yaml");
  CHECK(c.web.tls_cert == "/etc/ibwarden/tls/cert.pem");
  CHECK(c.web.tls_key == "/k/key.pem");
  CHECK(c.web.tls_cert_line == 2);
  CHECK(c.web.tls_key_line == 3);
  c = config::parse_config("web:\n  tls_cert: null\n  tls_key: null\n", "x.yaml");
  CHECK_FALSE(c.web.tls_cert);
  CHECK_FALSE(c.web.tls_key);
}

TEST_CASE("web tls config: a matching pair loads and names its certificate", "[config]") {
  SelfSigned pki;
  auto c = config::load_config(write_config(pki, "cert.pem", "key.pem"));
  web::TlsConfig tls = web::TlsConfig::load(files_of(c));
  CHECK(tls.native() != nullptr);
  CHECK(tls.subject() == "CN=localhost");
  CHECK(tls.not_after().size() == 20);  // 2027-01-15T08:00:00Z
  CHECK_FALSE(tls.expired());
}

TEST_CASE("web tls config: a key that group or others may read is refused", "[config]") {
  SelfSigned pki;
  std::string config = write_config(pki, "cert.pem", "key.pem");
  for (mode_t mode : {0644, 0604, 0620, 0660}) {
    ::chmod(pki.key.c_str(), mode);
    auto d = tls_errors(config);
    REQUIRE(ibw::test::keys(d) == std::vector<std::string>{"4:web.tls_key"});
    CHECK(fabric::format_diagnostic(d[0]).rfind(config + ":4: web.tls_key: " + pki.key, 0) == 0);
    CHECK(d[0].message.find("chmod 600") != std::string::npos);
  }
}

TEST_CASE("web tls config: a key that is a directory or a FIFO is refused without blocking",
          "[config]") {
  SelfSigned pki;
  std::filesystem::create_directory(pki.dir.file("keydir"));
  REQUIRE(::mkfifo(pki.dir.file("keyfifo").c_str(), 0600) == 0);
  for (const char* name : {"keydir", "keyfifo"}) {
    auto d = tls_errors(write_config(pki, "cert.pem", name));
    REQUIRE(ibw::test::keys(d) == std::vector<std::string>{"4:web.tls_key"});
    CHECK(d[0].message.find("not a regular file") != std::string::npos);
  }
}

TEST_CASE("web tls config: a group-readable key is accepted only when root owns it", "[config]") {
  SelfSigned pki;
  std::string config = write_config(pki, "cert.pem", "key.pem");
  ::chmod(pki.key.c_str(), 0640);
  if (::geteuid() != 0) {  // our own key: never group-readable
    auto d = tls_errors(config);
    REQUIRE(ibw::test::keys(d) == std::vector<std::string>{"4:web.tls_key"});
    CHECK(d[0].message.find("owned by root") != std::string::npos);
    return;
  }
  CHECK_NOTHROW(web::TlsConfig::load(files_of(config::load_config(config))));  // root 0640
  REQUIRE(::chown(pki.key.c_str(), 65534, static_cast<gid_t>(-1)) == 0);       // nobody's key
  auto d = tls_errors(config);
  REQUIRE(ibw::test::keys(d) == std::vector<std::string>{"4:web.tls_key"});
  CHECK(d[0].message.find("owned by root") != std::string::npos);
}

TEST_CASE("web tls config: a key that does not match the certificate is refused", "[config]") {
  SelfSigned pki;
  std::string config = write_config(pki, "cert.pem", "other_key.pem");
  auto d = tls_errors(config);
  REQUIRE(ibw::test::keys(d) == std::vector<std::string>{"4:web.tls_key"});
  CHECK(d[0].message.find("does not match the certificate in " + pki.cert) != std::string::npos);
}

TEST_CASE("web tls config: missing - non-PEM and encrypted files are reported", "[config]") {
  SelfSigned pki;
  // A key where the certificate belongs, and no key file.
  auto d = tls_errors(write_config(pki, "key.pem", "missing.pem"));
  REQUIRE(ibw::test::keys(d) == std::vector<std::string>({"3:web.tls_cert", "4:web.tls_key"}));
  CHECK(ibw::test::find_diag(d, 3, "web.tls_cert")->message.find("no PEM certificate") !=
        std::string::npos);
  CHECK(ibw::test::find_diag(d, 4, "web.tls_key")->message.find("No such file") !=
        std::string::npos);
  // A certificate where the key belongs.
  std::string cert_copy = pki.dir.file("cert_copy.pem");
  std::filesystem::copy_file(pki.cert, cert_copy);
  ::chmod(cert_copy.c_str(), 0600);
  d = tls_errors(write_config(pki, "cert.pem", "cert_copy.pem"));
  REQUIRE(ibw::test::keys(d) == std::vector<std::string>{"4:web.tls_key"});
  CHECK(d[0].message.find("no PEM private key") != std::string::npos);
  // An encrypted key: refused at once, without asking for a passphrase.
  std::string enc = pki.dir.file("enc.pem");
  REQUIRE(std::system(("openssl pkey -in " + pki.key + " -aes256 -passout pass:secret -out " + enc +
                       " 2>/dev/null")
                          .c_str()) == 0);
  ::chmod(enc.c_str(), 0600);
  d = tls_errors(write_config(pki, "cert.pem", "enc.pem"));
  REQUIRE(ibw::test::keys(d) == std::vector<std::string>{"4:web.tls_key"});
  CHECK(d[0].message.find("encrypted") != std::string::npos);
}

TEST_CASE("web tls config: check-config reports a mismatched key at its line", "[config]") {
  SelfSigned pki;
  std::string config = write_config(pki, "cert.pem", "other_key.pem");
  std::vector<std::string> args = {"ibwarden", "check-config", "--config", config};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream err;
  auto* old = std::cerr.rdbuf(err.rdbuf());
  int rc = cli::run_command("check-config", static_cast<int>(argv.size()), argv.data(), 2);
  std::cerr.rdbuf(old);
  CHECK(rc == 2);
  CHECK(err.str().find(config + ":4: web.tls_key: ") != std::string::npos);
  write_config(pki, "cert.pem", "key.pem");
  std::cerr.rdbuf(err.rdbuf());
  std::ostringstream out;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  rc = cli::run_command("check-config", static_cast<int>(argv.size()), argv.data(), 2);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old);
  CHECK(rc == 0);
}

TEST_CASE("web tls config: check-config loads the tokens file and shows its warnings", "[config]") {
  SelfSigned pki;  // only for its temporary directory
  std::string config = pki.dir.file("tokens.yaml");
  std::ofstream(config) << "web:\n  listen: 127.0.0.1:0\n  tokens_file: tokens\nrules: null\n";
  std::vector<std::string> args = {"ibwarden", "check-config", "--config", config};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  auto run = [&](std::string* err_text) {
    std::ostringstream out, err;
    auto* old_out = std::cout.rdbuf(out.rdbuf());
    auto* old_err = std::cerr.rdbuf(err.rdbuf());
    int rc = cli::run_command("check-config", static_cast<int>(argv.size()), argv.data(), 2);
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    *err_text = err.str();
    return rc;
  };
  std::string err;
  CHECK(run(&err) == 2);  // no tokens file: the daemon would not start either
  CHECK(err.find(pki.dir.file("tokens")) != std::string::npos);
  std::ofstream(pki.dir.file("tokens")) << "operator op-token\nmanager x-token-0123456789\n";
  CHECK(run(&err) == 2);
  CHECK(err.find(":2: role: must be viewer, operator or admin") != std::string::npos);
  std::ofstream(pki.dir.file("tokens")) << "operator op-token\n";
  CHECK(run(&err) == 0);
  CHECK(err.find("warning: ") != std::string::npos);
  CHECK(err.find("shorter than 16") != std::string::npos);
  CHECK(err.find("op-token") == std::string::npos);
}
