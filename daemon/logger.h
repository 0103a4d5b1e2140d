// Structured logging: one JSON object per line on stderr (journald keeps stderr lines), with
// ts, level, msg and any extra fields. Thread-safe. Secrets must never be passed in.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ingest/event.h"

namespace ibw::daemon {

enum class LogLevel { debug = 0, info, warning, error };

void set_log_level(std::string_view level);  // "debug" | "info" | "warning" | "error"
void log(LogLevel level, std::string_view msg, nlohmann::json fields = nlohmann::json::object());
// One line per stored event: msg "event" with the event's fields.
void log_event(const ingest::Event& e, int64_t id);

}  // namespace ibw::daemon
