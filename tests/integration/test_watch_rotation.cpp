// Integration: the daemon tails an OpenSM log that is rotated both ways (rename + new file,
// and copytruncate) while lines, some written in pieces, keep arriving: every line becomes
// exactly one event. No simulator: the topology comes from an ibnetdiscover file.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/integration/daemon_fixture.h"

using nlohmann::json;
using namespace ibw::test;

namespace watch_rotation {

// A trap-129 line (local link integrity) with a distinct microsecond stamp per index.
std::string trap_line(int i) {
  return trap129_line(i, 1, i);
}

size_t trap_events(const std::string& config) {
  json events;
  try {
    events = query_json("events", config);
  } catch (const std::exception&) {
    return 0;  // the daemon has not created its store yet
  }
  size_t n = 0;
  for (const auto& e : events)
    if (e["kind"] == "trap") ++n;
  return n;
}

bool wait_events(const std::string& config, size_t want) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < until) {
    if (trap_events(config) >= want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST_CASE("watch: log rotation by rename and by copytruncate loses and repeats no line",
          "[integration][watch][rotation]") {
  namespace fs = std::filesystem;
  std::string dir = topology_dir("ibw-rot-");
  std::string log = dir + "/opensm.log";
  std::string config = dir + "/ibwarden.yaml";
  ibw::lab::tailing_config().write(config);
  std::ofstream(log) << "";
  Daemon d({config, dir, "", dir + "/daemon.log"});
  d.start();
  REQUIRE(d.wait_log("fabric discovered", 1, std::chrono::seconds(10)));

  int written = 0;
  auto append = [&](int count, bool split_last) {
    std::ofstream out(log, std::ios::app);
    for (int k = 0; k < count; ++k) {
      std::string line = trap_line(written++);
      if (split_last && k == count - 1) {  // a line that arrives in two writes
        out << line.substr(0, 40) << std::flush;
        std::this_thread::sleep_for(std::chrono::milliseconds(120));
        out << line.substr(40);
      } else {
        out << line;
      }
    }
  };

  append(50, true);
  // Rename rotation right after writing: the tailer must drain the old file first.
  fs::rename(log, log + ".1");
  std::ofstream(log) << "";
  append(50, true);
  REQUIRE(wait_events(config, 100));
  fs::rename(log, log + ".2");  // again, with lines still unread in the renamed file
  std::ofstream(log) << "";
  append(30, false);
  REQUIRE(wait_events(config, 130));
  // copytruncate: copy then truncate in place; lines written after it must all be read.
  fs::copy_file(log, log + ".3");
  { std::ofstream trunc(log, std::ios::trunc); }
  append(40, true);
  REQUIRE(wait_events(config, 170));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // nothing extra may follow
  CHECK(trap_events(config) == static_cast<size_t>(written));
  CHECK(d.stop() == 0);
  INFO(d.log());
  fs::remove_all(dir);
}

TEST_CASE("watch: SIGHUP with a bad config keeps the running one - a good one is applied",
          "[integration][watch][reload]") {
  namespace fs = std::filesystem;
  std::string dir = topology_dir("ibw-hup-");
  std::string config = dir + "/ibwarden.yaml";
  std::string good = ibw::lab::tailing_config().yaml();
  std::ofstream(config) << good;
  std::string query = dir + "/query.yaml";  // stays valid while the daemon's file is broken
  std::ofstream(query) << good;
  std::ofstream(dir + "/opensm.log") << trap_line(0);
  Daemon d({config, dir, "", dir + "/daemon.log"});
  d.start();
  REQUIRE(wait_events(query, 1));

  std::ofstream(config) << good << "counterz:\n  interval: 1s\n";  // a typo
  d.signal(SIGHUP);
  REQUIRE(d.wait_log("new configuration rejected", 1, std::chrono::seconds(10)));
  CHECK(d.log().find("counterz") != std::string::npos);  // the log says what is wrong
  std::ofstream(dir + "/opensm.log", std::ios::app) << trap_line(1);
  REQUIRE(wait_events(query, 2));  // still running on the old configuration

  std::ofstream(config) << good << "log:\n  level: debug\n";
  d.signal(SIGHUP);
  REQUIRE(d.wait_log("configuration reloaded", 1, std::chrono::seconds(10)));
  std::ofstream(dir + "/opensm.log", std::ios::app) << trap_line(2);
  REQUIRE(wait_events(query, 3));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(trap_events(query) == 3);  // the reload neither re-read nor skipped lines
  CHECK(d.stop() == 0);
  fs::remove_all(dir);
}

}  // namespace watch_rotation
