// Integration: `ibwarden run` with web.tls_cert and web.tls_key (no simulator: the topology
// comes from an ibnetdiscover file). Stock curl trusting a self-signed certificate made with
// the openssl CLI: HTTPS health, a plain-HTTP request answered 400, a SIGHUP with a key others
// may read rejected (the running server keeps serving), and a SIGHUP after the certificate was
// renewed serving the new one.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/integration/daemon_fixture.h"

using namespace ibw::test;
using namespace std::chrono_literals;

namespace web_tls_daemon_test {

// A new self-signed certificate for 127.0.0.1 in dir/cert.pem and dir/key.pem (mode 0600).
void make_certificate(const std::string& dir, const std::string& name) {
  CmdResult r = run_cmd({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                         "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                         "/CN=" + name, "-addext", "subjectAltName=IP:127.0.0.1", "-keyout",
                         dir + "/key.pem", "-out", dir + "/cert.pem"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  ::chmod((dir + "/key.pem").c_str(), 0600);
}

// The HTTP status curl got (0: no answer, e.g. the certificate was not trusted).
int curl_status(const std::string& url, const std::string& ca) {
  CmdResult r = run_cmd({"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10",
                         "--noproxy", "*", "--cacert", ca, url});
  return r.out.empty() ? 0 : std::stoi(r.out);
}

// The port of the last "web API listening" line.
int listening_port(const std::string& log) {
  std::regex line("\"web API listening\"[^\n]*\"port\":([0-9]+)");
  int port = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
       ++it)
    port = std::stoi((*it)[1]);
  return port;
}

}  // namespace web_tls_daemon_test

using namespace web_tls_daemon_test;

TEST_CASE("web tls daemon: HTTPS - plain HTTP refused - reloads with a bad and a renewed key",
          "[integration][web][tls]") {
  namespace fs = std::filesystem;
  std::string dir = topology_dir("ibw-tls-");
  make_certificate(dir, "first");
  fs::copy_file(dir + "/cert.pem", dir + "/first-ca.pem");
  std::string config = dir + "/ibwarden.yaml";
  // web.tls_key on line 12: the case of a key others may read checks the line it is named at.
  DaemonConfig()
      .set("fabric", "discovery", "topology.txt")
      .set("opensm", "log", "opensm.log")
      .set("counters", "enabled", "false")
      .set("store", "path", "ibwarden.db")
      .set("web", {{"listen", "127.0.0.1:0"}, {"tls_cert", "cert.pem"}, {"tls_key", "key.pem"}})
      .null("rules")
      .write(config);
  std::ofstream(dir + "/opensm.log") << "";
  Daemon d({config, dir, "", dir + "/daemon.log"});
  d.start();
  REQUIRE(d.wait_log("web API listening", 1, 30s));
  INFO(d.log());
  CHECK(d.log().find("\"scheme\":\"https\"") != std::string::npos);
  CHECK(d.log().find("\"tls_subject\":\"CN=first\"") != std::string::npos);
  int port = listening_port(d.log());
  REQUIRE(port > 0);
  std::string https = "https://127.0.0.1:" + std::to_string(port) + "/api/v1/health";
  std::string http = "http://127.0.0.1:" + std::to_string(port) + "/api/v1/health";
  CHECK(curl_status(https, dir + "/cert.pem") == 200);
  CHECK(curl_status(http, dir + "/cert.pem") == 400);
  CHECK(curl_status(https, dir + "/cert.pem") == 200);

  // A key others may read: the reload is rejected, naming the line; the server stays.
  ::chmod((dir + "/key.pem").c_str(), 0644);
  d.signal(SIGHUP);
  REQUIRE(d.wait_log("new configuration rejected", 1, 10s));
  CHECK(d.log().find("ibwarden.yaml:12: web.tls_key: ") != std::string::npos);
  CHECK(curl_status(https, dir + "/first-ca.pem") == 200);

  // A renewed certificate: the reload serves it (on a new port: listen is port 0).
  make_certificate(dir, "second");
  d.signal(SIGHUP);
  REQUIRE(d.wait_log("web API listening", 2, 30s));
  int second = listening_port(d.log());
  REQUIRE(second > 0);
  https = "https://127.0.0.1:" + std::to_string(second) + "/api/v1/health";
  CHECK(curl_status(https, dir + "/cert.pem") == 200);
  CHECK(curl_status(https, dir + "/first-ca.pem") == 0);  // the old certificate is gone
  CHECK(d.log().find("\"tls_subject\":\"CN=second\"") != std::string::npos);
  CHECK(d.stop() == 0);
  fs::remove_all(dir);
}
