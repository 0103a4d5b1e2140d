// ibw-fault-osm-events: the events an OpenSM log should have given, for the fault harness
// (scripts/fault-storm.sh). Reads each LOG in the order given (oldest rotated file first) with
// the daemon's own parser and rule (ingest::parse_opensm_line, ingest::to_event) and prints one
// tab-separated line per event: "<ISO time>\t<kind>\t<message>", the three fields
// `ibwarden events --format json` shows, so that tests/fault/check.py can match stored events to
// log lines one for one. What is checked is that the daemon stored each line exactly once
// across kills and rotations, not the parser (the unit tests cover that).
// Usage: ibw-fault-osm-events LOG... (a missing file is an error: exit 1).
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>

#include "ingest/opensm_log.h"
#include "store/record_json.h"

namespace {

// Replaces tabs and newlines so that one event stays one line.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return s;
}

int print_events(const char* path, int64_t reference_us) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "ibw-fault-osm-events: cannot read " << path << "\n";
    return 1;
  }
  ibw::ingest::OsmLogContext ctx{reference_us, 0};
  std::string line;
  while (std::getline(in, line)) {
    auto rec = ibw::ingest::parse_opensm_line(line, ctx);
    if (!rec) continue;
    auto ev = ibw::ingest::to_event(*rec);
    if (!ev) continue;
    std::cout << ibw::store::iso_time(ev->time_us) << '\t' << ev->kind << '\t'
              << one_line(ev->message) << '\n';
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: ibw-fault-osm-events LOG...\n";
    return 2;
  }
  // The daemon resolves the year against its clock; the storm runs minutes, so now will do.
  auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  for (int i = 1; i < argc; ++i)
    if (print_events(argv[i], now_us) != 0) return 1;
  return 0;
}
