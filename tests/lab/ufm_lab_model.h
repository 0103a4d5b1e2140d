// UfmLabModel: the state behind ibw-ufmlab, a UFM load lab for fabrics of any size (the
// 65,536-endpoint 3-tier fat tree of ibw-labgen has 393,216 linked ports) without ibsim and
// without the Python emulator's cost per port. It serves what ibwarden reads from UFM:
//  - UFM Telemetry (../shared/reference/ufm-api.md §5): CSV (`/csv/metrics`,
//    `/labels/csv/metrics`) and Prometheus text (`/metrics`, `/labels/metrics`), one row /
//    series per up port, the columns of tests/ufm_emulator/telemetry.py plus data and
//    bandwidth counters (21 counters);
//  - UFM REST (§3): GET /app/events (6.17 schema, the last `events_keep` events), /app/alarms
//    (none), /resources/ports, /resources/links, /resources/systems in the emulator's shapes
//    (tests/ufm_emulator/fabric.py).
// Counters move with time: every call of advance() adds traffic (packets, data, xmit wait)
// to every up port in proportion to the time since the previous call, so every scrape sees
// new values; a background share of ports gains a few symbol errors (below any threshold).
// Faults at configurable rates (per minute, Poisson over the elapsed time):
//  - error bursts: a random port gains thousands of symbol errors and some receive errors
//    and link recoveries per second, for `burst_s` seconds;
//  - flaps: a random link goes down (event 329, LinkDowned +1 at both ends, its ports leave
//    the telemetry and read Down in /resources/ports) and comes back after `flap_down_s`
//    (event 328).
// Deterministic for a given seed and call sequence. Not thread-safe: the server serialises
// calls.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tests/lab/fat_tree.h"

namespace ibw::lab {

struct UfmLabOptions {
  double burst_per_min = 2;        // error bursts started per minute
  double burst_s = 120;            // how long a burst lasts
  double flap_per_min = 2;         // link flaps per minute
  double flap_down_s = 5;          // how long a flapped link stays down
  double background_share = 0.01;  // share of ports gaining 1-3 symbol errors per advance()
  size_t events_keep = 10000;      // GET /app/events answers the last this many
  uint32_t seed = 1;
};

inline constexpr size_t kLabCounters = 21;

// Body writer: renderers call it with pieces of at most ~1 MiB, in order.
using LabSink = std::function<void(std::string_view)>;

class UfmLabModel {
 public:
  UfmLabModel(const Lab& lab, const UfmLabOptions& o, int64_t now_us);

  // Moves counters and faults forward to now_us (no-op when not later than the last call).
  void advance(int64_t now_us);

  void telemetry_csv(int64_t now_us, const LabSink& out) const;
  void telemetry_prometheus(int64_t now_us, const LabSink& out) const;
  void events_json(const LabSink& out) const;
  void ports_json(const LabSink& out) const;
  void links_json(const LabSink& out) const;
  void systems_json(const LabSink& out) const;

  size_t port_count() const { return ports_.size(); }
  size_t up_ports() const;
  struct Stats {
    uint64_t bursts = 0, flaps = 0, events = 0, advances = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  struct Port {
    uint32_t node = 0;
    uint16_t number = 0;
    bool up = true;
    uint32_t peer = 0;  // index into ports_
    int64_t down_until_us = 0;
    int64_t burst_until_us = 0;
    std::array<uint64_t, kLabCounters> c{};
  };
  struct Node {
    std::string name;  // NodeDescription
    std::string hex;   // "0x%016x"
    std::string bare;  // "%016x"
    bool is_switch = false;
    int lid = 0;
  };

  void flap(int64_t at_us);
  void add_event(int type, const Port& p, int64_t at_us);
  std::string port_name(const Port& p) const;
  std::string end_text(const Port& p) const;
  void render_port(const Port& p, std::string& out) const;

  UfmLabOptions o_;
  std::vector<Node> nodes_;
  std::vector<Port> ports_;         // linked ports, node order, then port number
  std::vector<uint32_t> link_a_;    // ports_ index of each link's first end (one per link)
  std::deque<std::string> events_;  // rendered JSON objects
  uint64_t next_event_id_ = 1;
  int64_t last_us_ = 0;
  std::mt19937_64 rng_;
  Stats stats_;
};

}  // namespace ibw::lab
