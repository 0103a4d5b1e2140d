// The integration tests' configuration builder (tests/lab/daemon_config.h): sections and keys in
// the order first named, a key set again keeping its line, null sections, one nesting level,
// and starting points the daemon's own loader reads as meant.
#include <catch2/catch.hpp>

#include "config/config.h"
#include "tests/lab/daemon_config.h"

using ibw::lab::DaemonConfig;

TEST_CASE("daemon config: sections and keys keep the order they were first named", "[lab]") {
  DaemonConfig c;
  c.set("fabric", "discovery", "topology.txt")
      .set("store", "path", "a.db")
      .set("fabric", "plan", "plan.csv")
      .set("store", "path", "b.db")  // again: the same line, the new value
      .null("rules");
  CHECK(
      c.yaml() ==
      "fabric:\n  discovery: topology.txt\n  plan: plan.csv\nstore:\n  path: b.db\nrules: null\n");
  c.set("rules", "file", "rules.yaml").unset("fabric", "discovery").unset("fabric", "absent");
  CHECK(c.yaml() ==
        "fabric:\n  plan: plan.csv\nstore:\n  path: b.db\nrules:\n  file: rules.yaml\n");
  c.null("store");  // its keys go with it
  CHECK(c.yaml() == "fabric:\n  plan: plan.csv\nstore: null\nrules:\n  file: rules.yaml\n");
}

TEST_CASE("daemon config: a dotted key nests one level - siblings share the parent line", "[lab]") {
  DaemonConfig c;
  c.set("ufm", "url", "http://u")
      .set("ufm", "telemetry.primary", "http://p")
      .set("ufm", "telemetry.secondary", "http://s")
      .set("ufm", "event_log", "e.log");
  CHECK(c.yaml() ==
        "ufm:\n  url: http://u\n  telemetry:\n    primary: http://p\n    secondary: http://s\n"
        "  event_log: e.log\n");
  auto cfg = ibw::config::parse_config(c.set("store", "path", "x.db").null("rules").yaml(), "t");
  REQUIRE(cfg.ufm);
  CHECK(cfg.ufm->telemetry.primary == "http://p");
  CHECK(cfg.ufm->telemetry.secondary == "http://s");
  CHECK(cfg.ufm->event_log == "e.log");
}

TEST_CASE("daemon config: the starting points load as the daemon reads them", "[lab]") {
  using namespace ibw::config;
  Config sim = parse_config(ibw::lab::sim_config().null("rules").yaml(), "sim.yaml");
  CHECK(sim.fabric.plan == "plan.csv");
  CHECK(sim.fabric.discovery == "live");  // the default
  CHECK(sim.opensm.log == "opensm.log");
  CHECK(sim.opensm.poll_us == 100'000);
  CHECK(sim.counters.interval_us == 1'000'000);
  CHECK(sim.store.path == "ibwarden.db");

  Config live = parse_config(ibw::lab::live_lab_config().null("rules").yaml(), "live.yaml");
  CHECK(live.fabric.name == "lab");
  CHECK(live.opensm.dump_dir == ".");
  CHECK(live.log.level == "debug");

  Config tail = parse_config(ibw::lab::tailing_config("20ms").yaml(), "tail.yaml");
  CHECK(tail.fabric.discovery == "topology.txt");
  CHECK(tail.opensm.poll_us == 20'000);
  CHECK(tail.opensm.read_existing);
  CHECK_FALSE(tail.counters.enabled);
  CHECK_FALSE(tail.rules.file);
  CHECK_FALSE(tail.rules.defaulted);
}
