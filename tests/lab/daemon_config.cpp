#include "tests/lab/daemon_config.h"

#include <fstream>
#include <stdexcept>

namespace ibw::lab {

DaemonConfig::Section& DaemonConfig::section(const std::string& name) {
  for (auto& s : sections_)
    if (s.name == name) return s;
  sections_.push_back({name, false, {}});
  return sections_.back();
}

DaemonConfig& DaemonConfig::set(const std::string& section_name, const std::string& key,
                                const std::string& value) {
  Section& s = section(section_name);
  s.null = false;
  for (auto& [k, v] : s.keys)
    if (k == key) {
      v = value;
      return *this;
    }
  s.keys.emplace_back(key, value);
  return *this;
}

DaemonConfig& DaemonConfig::set(const std::string& section_name,
                                std::initializer_list<std::pair<std::string, std::string>> keys) {
  for (const auto& [key, value] : keys) set(section_name, key, value);
  return *this;
}

DaemonConfig& DaemonConfig::unset(const std::string& section_name, const std::string& key) {
  auto& keys = section(section_name).keys;
  std::erase_if(keys, [&](const auto& kv) { return kv.first == key; });
  return *this;
}

DaemonConfig& DaemonConfig::null(const std::string& section_name) {
  Section& s = section(section_name);
  s.null = true;
  s.keys.clear();
  return *this;
}

std::string DaemonConfig::yaml() const {
  std::string out;
  for (const auto& s : sections_) {
    if (s.null) {
      out += s.name + ": null\n";
      continue;
    }
    out += s.name + ":\n";
    std::string parent;  // of the last dotted key: its siblings share one "parent:" line
    for (const auto& [key, value] : s.keys) {
      auto dot = key.find('.');
      if (dot == std::string::npos) {
        parent.clear();
        out += "  " + key + ": " + value + "\n";
        continue;
      }
      if (key.substr(0, dot) != parent) {
        parent = key.substr(0, dot);
        out += "  " + parent + ":\n";
      }
      out += "    " + key.substr(dot + 1) + ": " + value + "\n";
    }
  }
  return out;
}

const std::string& DaemonConfig::write(const std::string& path) const {
  std::ofstream out(path);
  out << yaml();
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

DaemonConfig sim_config() {
  DaemonConfig c;
  c.set("fabric", "plan", "plan.csv");
  c.set("opensm", {{"log", "opensm.log"}, {"poll", "100ms"}});
  c.set("counters", "interval", "1s");
  c.set("store", "path", "ibwarden.db");
  return c;
}

DaemonConfig live_lab_config() {
  DaemonConfig c = sim_config();
  c.set("fabric", {{"name", "lab"}, {"discovery", "live"}});
  c.set("opensm", "dump_dir", ".");
  c.set("log", "level", "debug");
  return c;
}

DaemonConfig tailing_config(const std::string& poll) {
  DaemonConfig c;
  c.set("fabric", "discovery", "topology.txt");
  c.set("opensm", {{"log", "opensm.log"}, {"poll", poll}, {"read_existing", "true"}});
  c.set("counters", "enabled", "false");
  c.set("store", "path", "ibwarden.db");
  c.null("rules");
  return c;
}

}  // namespace ibw::lab
