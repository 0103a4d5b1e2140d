// What the web server's guards did, for /metrics (web/server.h counts, web/api.h renders):
// connections refused or dropped by the caps and timeouts, event streams refused, requests
// limited for failed logins or refused for their Host header, and requests served on the
// reserve slots. Counters only go up (Prometheus counters); two gauges say how many
// connections and streams are open now. Thread-safe (atomics); owned by the Api.
//
// Families (each series labelled fabric="NAME" first):
//   ibwarden_web_connections                      open connections now (gauge)
//   ibwarden_web_streams                          open event streams now (gauge)
//   ibwarden_web_connections_refused_total{reason}  closed at accept: total | per_address
//   ibwarden_web_connections_dropped_total{reason}  closed by the server: incomplete (no whole
//                                                 request within request_timeout), idle
//                                                 (keep-alive past keepalive_timeout),
//                                                 evicted (idle, to make room for a new one),
//                                                 header_limit (431), slow_stream
//   ibwarden_web_streams_refused_total{reason}    429 to GET /stream: total | per_token
//   ibwarden_web_requests_refused_total{reason}   auth_limited (429 after failed logins) |
//                                                 host (421: Host not an address, no tokens) |
//                                                 busy (503 on a reserve slot)
//   ibwarden_web_reserve_served_total             health/metrics answered on a reserve slot
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace ibw::web {

class GuardStats {
 public:
  enum Counter {
    refused_total,
    refused_per_address,
    dropped_incomplete,
    dropped_idle,
    dropped_evicted,
    dropped_header_limit,
    dropped_slow_stream,
    streams_total,
    streams_per_token,
    auth_limited,
    host_refused,
    busy,
    reserve_served,
    kCounters
  };
  void add(Counter c) { counters_[c].fetch_add(1, std::memory_order_relaxed); }
  int64_t get(Counter c) const { return counters_[c].load(std::memory_order_relaxed); }
  std::atomic<int64_t> connections{0};
  std::atomic<int64_t> streams{0};

 private:
  std::array<std::atomic<int64_t>, kCounters> counters_{};
};

// The families above as Prometheus text, every series labelled fabric="<fabric>" first.
std::string render_guard_metrics(const GuardStats& s, const std::string& fabric);

}  // namespace ibw::web
