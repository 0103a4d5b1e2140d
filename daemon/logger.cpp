#include "daemon/logger.h"

#include "fabric/json_text.h"
#include "store/record_json.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

namespace ibw::daemon {

using store::event_json;
using store::iso_time;
using store::port_json;

namespace logger_detail {

std::atomic<int> g_level{static_cast<int>(LogLevel::info)};
std::mutex g_mutex;

std::string iso_now() {
  return iso_time(std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warning:
      return "warning";
    default:
      return "error";
  }
}

}  // namespace logger_detail

void set_log_level(std::string_view level) {
  using logger_detail::g_level;
  g_level = level == "debug" ? 0 : level == "warning" ? 2 : level == "error" ? 3 : 1;
}

void log(LogLevel level, std::string_view msg, nlohmann::json fields) {
  if (static_cast<int>(level) < logger_detail::g_level) return;
  nlohmann::ordered_json line;
  line["ts"] = logger_detail::iso_now();
  line["level"] = logger_detail::level_name(level);
  line["msg"] = msg;
  for (auto& [k, v] : fields.items()) line[k] = v;
  std::string text = fabric::json_text(line) + "\n";
  std::lock_guard<std::mutex> lock(logger_detail::g_mutex);
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

void log_event(const ingest::Event& e, int64_t id) {
  log(e.severity >= ingest::Severity::warning ? LogLevel::warning : LogLevel::info, "event",
      {{"id", id},
       {"source", ingest::source_name(e.source)},
       {"kind", e.kind},
       {"node", e.node},
       {"port", e.port},
       {"peer_node", e.peer_node},
       {"peer_port", e.peer_port},
       {"cable_id", e.cable_id},
       {"message", e.message}});
}

}  // namespace ibw::daemon
