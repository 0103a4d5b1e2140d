// DaemonConfig: the ibwarden YAML configuration of a lab or integration test, built by named
// section instead of written by hand. Sections come out in the order first named, keys in the
// order set (a key set again keeps its place), so a test that checks a line number can rely on
// it. Values are written as given: quote them where YAML needs it. A dotted key ("telemetry.
// primary") nests one level. Two starting points cover what most tests run.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace ibw::lab {

class DaemonConfig {
 public:
  // `key: value` under section.
  DaemonConfig& set(const std::string& section, const std::string& key, const std::string& value);
  // Several keys of one section, in this order.
  DaemonConfig& set(const std::string& section,
                    std::initializer_list<std::pair<std::string, std::string>> keys);
  // Drops key from section (nothing when absent).
  DaemonConfig& unset(const std::string& section, const std::string& key);
  // `section: null` (e.g. rules: null): the section's keys are dropped.
  DaemonConfig& null(const std::string& section);
  std::string yaml() const;
  // Writes yaml() to path and returns path.
  const std::string& write(const std::string& path) const;

 private:
  struct Section {
    std::string name;
    bool null = false;
    std::vector<std::pair<std::string, std::string>> keys;
  };
  Section& section(const std::string& name);
  std::vector<Section> sections_;
};

// A daemon on a simulated fabric (SimLab) in its directory: plan.csv, OpenSM's log polled every
// 100 ms, counters every second, the store in ibwarden.db.
DaemonConfig sim_config();
// sim_config() as the remediation labs run it: fabric "lab" discovered live, OpenSM's dumps in
// the directory, debug log.
DaemonConfig live_lab_config();
// A daemon without a simulator: topology.txt, opensm.log read from its start and polled every
// `poll`, no counters, no rules, the store in ibwarden.db.
DaemonConfig tailing_config(const std::string& poll = "50ms");

}  // namespace ibw::lab
