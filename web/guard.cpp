#include "web/guard.h"

#include <initializer_list>
#include <utility>

#include "web/metrics.h"

namespace ibw::web {

std::string render_guard_metrics(const GuardStats& s, const std::string& fabric) {
  std::string out;
  std::string base = "fabric=\"" + escape_label(fabric) + "\"";
  auto family = [&](const char* name, const char* type, const char* help) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  };
  auto sample = [&](const char* name, const std::string& labels, int64_t v) {
    out += std::string(name) + "{" + base + labels + "} " + std::to_string(v) + "\n";
  };
  using Reasons = std::initializer_list<std::pair<const char*, GuardStats::Counter>>;
  auto by_reason = [&](const char* name, const char* help, Reasons reasons) {
    family(name, "counter", help);
    for (const auto& [reason, c] : reasons)
      sample(name, std::string(",reason=\"") + reason + "\"", s.get(c));
  };
  family("ibwarden_web_connections", "gauge", "Open web connections.");
  sample("ibwarden_web_connections", "", s.connections.load());
  family("ibwarden_web_streams", "gauge", "Open event streams.");
  sample("ibwarden_web_streams", "", s.streams.load());
  by_reason(
      "ibwarden_web_connections_refused_total", "Connections closed at accept by a cap.",
      {{"total", GuardStats::refused_total}, {"per_address", GuardStats::refused_per_address}});
  by_reason("ibwarden_web_connections_dropped_total", "Connections closed by the server.",
            {{"incomplete", GuardStats::dropped_incomplete},
             {"idle", GuardStats::dropped_idle},
             {"evicted", GuardStats::dropped_evicted},
             {"header_limit", GuardStats::dropped_header_limit},
             {"slow_stream", GuardStats::dropped_slow_stream}});
  by_reason("ibwarden_web_streams_refused_total", "Event streams refused by a cap (429).",
            {{"total", GuardStats::streams_total}, {"per_token", GuardStats::streams_per_token}});
  by_reason("ibwarden_web_requests_refused_total", "Requests refused by a guard.",
            {{"auth_limited", GuardStats::auth_limited},
             {"host", GuardStats::host_refused},
             {"busy", GuardStats::busy}});
  family("ibwarden_web_reserve_served_total", "counter",
         "Health and metrics requests answered on a reserve connection slot.");
  sample("ibwarden_web_reserve_served_total", "", s.get(GuardStats::reserve_served));
  return out;
}

}  // namespace ibw::web
