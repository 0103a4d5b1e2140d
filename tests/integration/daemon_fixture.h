// Runs `ibwarden run` in the background for an integration test (optionally attached to a
// SimLab fabric through umad2sim), and the query commands against its store.
// The destructor stops the daemon (SIGTERM, then SIGKILL) even after a failed assertion.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/lab/daemon_config.h"
#include "tests/test_paths.h"

namespace ibw::test {

using ibw::lab::DaemonConfig;

// The rules file the package ships (config/rules.yaml of this tree).
inline std::string shipped_rules() {
  return std::string(IBW_SOURCE_DIR) + "/config/rules.yaml";
}

// live_lab_config() as the remediation labs run it: the shipped rules, actions in `mode` with
// min_up_links 2, work orders verified after an hour.
inline DaemonConfig remedy_lab_config(const std::string& mode = "enforce") {
  DaemonConfig c = ibw::lab::live_lab_config();
  c.set("rules", "file", shipped_rules());
  c.set("actions", {{"mode", mode}, {"min_up_links", "2"}});
  c.set("workorders", "verify_after", "1h");
  return c;
}

struct DaemonOptions {
  std::string config_path;
  std::string workdir;     // cwd (umad2sim creates ./sys-<pid> there)
  std::string sim_socket;  // IBSIM_SOCKNAME; empty = not attached to a simulator
  std::string log_path;    // daemon stderr
  std::vector<std::pair<std::string, std::string>> env;  // set in the daemon's environment
};

class Daemon {
 public:
  explicit Daemon(DaemonOptions options);
  Daemon(Daemon&& other) noexcept;  // `other` no longer owns the process
  Daemon& operator=(Daemon&&) = delete;
  ~Daemon();
  void start();
  // SIGTERM and wait; returns the exit status.
  int stop();
  bool running() const;
  void signal(int sig) const;
  std::string log() const;
  // Waits until the daemon's log contains pattern `count` times.
  bool wait_log(const std::string& pattern, int count, std::chrono::milliseconds timeout) const;

 private:
  DaemonOptions options_;
  int pid_ = -1;
};

// `d` started, once its log has `pattern` `count` times within `timeout` (REQUIRE):
//   Daemon d = started(w.daemon(), "\"counter sweep\"", 2, 30s);
Daemon started(Daemon d, const std::string& pattern, int count, std::chrono::milliseconds timeout);

// A fresh directory (temp dir/<prefix><pid>) holding topology.txt of a small fat tree (2 leaves,
// 1 spine, 2 hosts per leaf): where a daemon without simulator runs (lab::tailing_config()).
std::string topology_dir(const std::string& prefix);

// An OpenSM log line for trap 129 (local link integrity) from LID 3, stamped `hour`:MM:SS with a
// microsecond field and TID derived from `i`, so that every index gives a distinct event.
std::string trap129_line(int i, int hour, uint64_t tid);

struct CmdResult {
  int status = -1;
  std::string out;
  std::string err;
};
// Runs a command (no simulator) capturing stdout and stderr.
CmdResult run_cmd(const std::vector<std::string>& argv);

// One HTTP request to the daemon's web API with stock curl: status and the body as JSON
// (discarded when not JSON). token "" = none; content_type only with a body.
struct HttpResult {
  int status = 0;
  nlohmann::json body;
};
HttpResult http_call(int port, const std::string& method, const std::string& path,
                     const std::string& token, const std::string& body = "",
                     const std::string& content_type = "application/json");
// The port the daemon logged on "web API listening" (0 when not found).
int web_port(const Daemon& daemon);

// `ibwarden events --config C --format json [extra...]` parsed; throws on a bad exit.
nlohmann::json query_json(const std::string& command, const std::string& config,
                          const std::vector<std::string>& extra = {});

// For wait_query("decisions", ...): at least `n` decisions and none of them still pending (a
// port action's decision is stored as "pending" before its request and completed after it).
inline bool decided(const nlohmann::json& list, size_t n = 1) {
  if (list.size() < n) return false;
  for (const auto& d : list)
    if (d.value("status", "") == "pending") return false;
  return true;
}

// "RULE ACTION STATUS" of a decision, to check in one line.
inline std::string verdict_of(const nlohmann::json& d) {
  return d.value("rule", "") + " " + d.value("action", "") + " " + d.value("status", "");
}

// Polls query_json until pred(result) or timeout; returns the last result.
template <typename Pred>
nlohmann::json wait_query(const std::string& command, const std::string& config,
                          const std::vector<std::string>& extra, Pred pred,
                          std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  nlohmann::json j;
  while (true) {
    j = query_json(command, config, extra);
    if (pred(j) || std::chrono::steady_clock::now() > until) return j;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// The decisions of `config` once at least `n` are stored and none is pending (see decided()),
// or what there is after `timeout`.
inline nlohmann::json wait_decided(const std::string& config, size_t n = 1,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  return wait_query(
      "decisions", config, {}, [n](const nlohmann::json& j) { return decided(j, n); }, timeout);
}

// The one decision of `config`, waited for as wait_decided(config) does; REQUIREs that there is
// exactly one (with the daemon's log in the failure).
nlohmann::json only_decision(const std::string& config, const Daemon& d);

}  // namespace ibw::test
