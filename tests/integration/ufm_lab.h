// UfmLab: `ibwarden run` against the UFM emulator, without ibsim. A generated fat tree
// (2 leaves x 4 spines, 2 hosts per leaf; leafNNN ports 1-2 to hosts, 3-6 to spine001-004)
// is written as ibnetdiscover text (fabric.discovery reads it) and as the plan; the emulator
// serves the same fabric from that text (tests/ufm_emulator, server-local time +02:00). The
// OpenSM log is an empty file. Header-only, for tests/integration/test_ufm_*.cpp.
#pragma once

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/store.h"
#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/ufm_emulator/emulator_fixture.h"

namespace ibw::test::ufm_lab {

using nlohmann::json;

struct UfmLabOptions {
  std::string api = "v1";  // v1: credentials from the daemon's environment; v3: a token file
  std::string poll = "200ms";
  std::string mode = "dry-run";
  std::string via = "smp";
  std::string rules;  // rules file text; empty = no rules
  bool telemetry = false;
  std::string counters_interval = "500ms";
  std::vector<std::string> emulator_args;
  bool event_log = false;  // also tail <dir>/ufm-event.log (ufm.event_log)
};

class UfmLab {
 public:
  explicit UfmLab(const UfmLabOptions& o = {}) {
    char tmpl[] = "/tmp/ibw-ufm-lab-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    dir = tmpl;
    lab = ibw::lab::two_tier_lab(2, 4, 2);
    std::ofstream(dir + "/topology.txt") << ibw::lab::to_ibnetdiscover(lab);
    std::ofstream(dir + "/plan.csv") << ibw::lab::plan_csv(lab);
    std::ofstream(dir + "/opensm.log");
    std::vector<std::string> args = {"--topology", dir + "/topology.txt", "--tz-offset", "7200"};
    args.insert(args.end(), o.emulator_args.begin(), o.emulator_args.end());
    emu = std::make_unique<UfmEmulator>(args);
    std::ofstream(dir + "/ufm.token") << kUfmToken << "\n";
    if (!o.rules.empty()) std::ofstream(dir + "/rules.yaml") << o.rules;
    config = dir + "/ibwarden.yaml";
    DaemonConfig c = ibw::lab::live_lab_config();
    c.set("fabric", "discovery", "topology.txt")
        .set("counters",
             {{"enabled", o.telemetry ? "true" : "false"}, {"interval", o.counters_interval}})
        .set("rules", "file", o.rules.empty() ? "null" : "rules.yaml")
        .set("actions", {{"mode", o.mode}, {"via", o.via}, {"min_up_links", "2"}})
        .set("ufm", {{"url", emu->base()},
                     {"api", o.api},
                     {"user_env", "IBW_TEST_UFM_USER"},
                     {"password_env", "IBW_TEST_UFM_PASSWORD"},
                     {"token_file", o.api == "v3" ? "ufm.token" : "null"},
                     {"poll_interval", o.poll},
                     {"timezone", "\"+02:00\""}});
    if (o.telemetry) c.set("ufm", "telemetry.primary", emu->base() + "/csv/metrics");
    if (o.event_log) {
      std::ofstream(dir + "/ufm-event.log");
      c.set("ufm", "event_log", "ufm-event.log");
    }
    c.write(config);
  }
  ~UfmLab() {
    emu.reset();
    std::error_code ec;
    if (!std::getenv("IBW_KEEP_LAB")) std::filesystem::remove_all(dir, ec);
  }
  UfmLab(const UfmLab&) = delete;
  UfmLab& operator=(const UfmLab&) = delete;

  Daemon daemon(const std::string& log_name = "daemon.log") const {
    DaemonOptions d{config, dir, "", dir + "/" + log_name, {}};
    d.env = {{"IBW_TEST_UFM_USER", kUfmUser}, {"IBW_TEST_UFM_PASSWORD", kUfmPassword}};
    return Daemon(d);
  }
  // Events stored from UFM, read straight from the store (no CLI limit). Without `resources`
  // only those of UFM's events (REST or event.log): the emulator raises an alarm for every
  // event that is not Info, and the alarms poll stores those too (ufm_alarm events, and
  // ufm_port high_ber events from the ports poll), which most tests do not count.
  std::vector<ingest::Event> ufm_events(bool resources = false) const {
    auto db = store::Store::open(dir + "/ibwarden.db", /*read_only=*/true);
    store::EventQuery q;
    q.limit = 0;
    std::vector<ingest::Event> out;
    for (auto& s : db->events(q)) {
      if (s.event.source != ingest::EventSource::ufm) continue;
      if (s.event.kind == "incident") continue;  // ibwarden's own, derived from UFM's
      const std::string& key = s.event.dedup_key;
      bool from_resources = key.rfind("ufm_alarm", 0) == 0 || key.rfind("ufm_port:", 0) == 0;
      if (resources || !from_resources) out.push_back(std::move(s.event));
    }
    return out;
  }
  // Polls until pred(ufm_events(resources)) or timeout; returns the last list.
  template <typename Pred>
  std::vector<ingest::Event> wait_events(Pred pred, std::chrono::milliseconds timeout,
                                         bool resources = false) const {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (true) {
      std::vector<ingest::Event> ev;
      try {
        if (std::filesystem::exists(dir + "/ibwarden.db")) ev = ufm_events(resources);
      } catch (const std::exception&) {  // not created yet
      }
      if (pred(ev) || std::chrono::steady_clock::now() > until) return ev;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  // "b83fd20300000001_3": UFM's name of a lab port.
  std::string port_name(const std::string& node, int port) const {
    auto p = emu->post("port", {{"port", node + "/" + std::to_string(port)}});
    return p["name"].get<std::string>();
  }

  std::string dir;
  ibw::lab::Lab lab;
  std::unique_ptr<UfmEmulator> emu;
  std::string config;
};

inline size_t count_kind(const std::vector<ingest::Event>& ev, const std::string& kind) {
  size_t n = 0;
  for (const auto& e : ev) n += e.kind == kind;
  return n;
}

// Log lines (parsed) whose msg is `msg`.
inline std::vector<json> log_lines(const std::string& log, const std::string& msg) {
  std::vector<json> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.value("msg", "") == msg) out.push_back(std::move(j));
  }
  return out;
}

// The emulator's recorded requests to `path` (POST /actions, PUT /app/unhealthy_ports, ...).
inline std::vector<json> recorded(UfmEmulator& emu, const std::string& path) {
  std::vector<json> out;
  for (const auto& a : emu.actions())
    if (a["path"] == path) out.push_back(a);
  return out;
}

}  // namespace ibw::test::ufm_lab
