// Test fixture: runs tests/ufm_emulator/ufm_emulator.py as a subprocess (python3, --port 0
// --port-file) in a temporary directory, and talks to its /emulator control API. The
// destructor stops it (SIGTERM, then SIGKILL) even after a failed assertion. Header-only, for
// the Catch2 tests under tests/unit (IBW_SOURCE_DIR: tests/test_paths.h).
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ingest/clock.h"
#include "ingest/ufm/client.h"
#include "tests/test_paths.h"

namespace ibw::test {

inline constexpr const char* kUfmUser = "admin";
inline constexpr const char* kUfmPassword = "s3cret-Passw0rd";
inline constexpr const char* kUfmToken = "tok-6c1f0e2a9b8d4e7f";

class UfmEmulator {
 public:
  // extra: more command-line arguments (e.g. {"--schema", "6.16"}).
  explicit UfmEmulator(std::vector<std::string> extra = {}) {
    char tmpl[] = "/tmp/ibw-ufm-emu-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    std::string port_file = dir_ + "/port";
    std::string log = dir_ + "/emulator.log";
    std::string script = std::string(IBW_SOURCE_DIR) + "/tests/ufm_emulator/ufm_emulator.py";
    std::vector<std::string> argv = {"python3",     script,       "--port",  "0",
                                     "--port-file", port_file,    "--user",  kUfmUser,
                                     "--password",  kUfmPassword, "--token", kUfmToken};
    argv.insert(argv.end(), extra.begin(), extra.end());
    pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      FILE* out = std::freopen(log.c_str(), "w", stderr);
      (void)out;
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      // The system's python3 first: a version-manager shim on PATH can add 0.2 s per start.
      if (access("/usr/bin/python3", X_OK) == 0) execv("/usr/bin/python3", args.data());
      execvp("python3", args.data());
      _exit(127);
    }
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (port_ == 0 && std::chrono::steady_clock::now() < until) {
      std::ifstream in(port_file);
      in >> port_;
      if (port_ == 0) {
        if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
          pid_ = -1;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (port_ == 0) {
      stop();
      throw std::runtime_error("the UFM emulator did not start; see " + log);
    }
    ingest::UfmClientOptions o;
    o.url = base();
    o.api = ingest::UfmApi::plain;
    o.max_attempts = 1;
    o.breaker.failures_to_open = 1000000;
    control_ = std::make_unique<ingest::UfmClient>(o, clock_);
  }
  ~UfmEmulator() {
    stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  UfmEmulator(const UfmEmulator&) = delete;
  UfmEmulator& operator=(const UfmEmulator&) = delete;

  int port() const { return port_; }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }
  const std::string& dir() const { return dir_; }

  // POST /emulator/<what> with a JSON body; the parsed answer (throws on a non-2xx answer).
  nlohmann::json post(const std::string& what,
                      const nlohmann::json& body = nlohmann::json::object()) {
    return parse(control_->post("/emulator/" + what, body.dump()));
  }
  nlohmann::json get(const std::string& what) { return parse(control_->get("/emulator/" + what)); }
  // {"fail": kind, "count": n, ...}
  nlohmann::json fail(const std::string& kind, int count = 1, nlohmann::json more = {}) {
    nlohmann::json body = more.is_object() ? more : nlohmann::json::object();
    body["fail"] = kind;
    body["count"] = count;
    return post("control", body);
  }
  nlohmann::json actions() { return get("actions"); }

  // Client options for this emulator and an API variant, credentials included.
  ingest::UfmClientOptions client_options(ingest::UfmApi api) const {
    ingest::UfmClientOptions o;
    o.url = base();
    o.api = api;
    o.credentials = {kUfmUser, kUfmPassword, kUfmToken};
    o.timeout_ms = 2000;
    o.connect_timeout_ms = 1000;
    o.backoff_initial_us = 1000;
    o.backoff_max_us = 4000;
    return o;
  }

 private:
  static nlohmann::json parse(const ingest::UfmResponse& r) {
    if (!r.ok) throw std::runtime_error("emulator control: " + r.error);
    return r.body.empty() ? nlohmann::json() : nlohmann::json::parse(r.body);
  }
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  std::string dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  ingest::SystemClock clock_;
  std::unique_ptr<ingest::UfmClient> control_;
};

}  // namespace ibw::test
