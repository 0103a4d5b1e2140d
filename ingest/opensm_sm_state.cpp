#include "ingest/opensm_sm_state.h"

#include <array>

namespace ibw::ingest {
namespace osm_sm_state_detail {

struct Line {
  std::string_view text;
  SmLogState state;
};

// The exact messages OpenSM 3.3.23 writes (see the header).
constexpr std::array<Line, 6> kLines = {{
    {"Entering DISCOVERING state", SmLogState::discovering},
    {"Entering STANDBY state", SmLogState::standby},
    {"Entering MASTER state", SmLogState::master},
    {"Entering NOTACTIVE state", SmLogState::not_active},
    {"Exiting SM", SmLogState::exiting},
    {"SM port is down", SmLogState::port_down},
}};

constexpr std::string_view kPrefix = "OpenSM state ";

}  // namespace osm_sm_state_detail

std::string_view sm_log_state_name(SmLogState s) {
  switch (s) {
    case SmLogState::discovering:
      return "discovering";
    case SmLogState::standby:
      return "standby";
    case SmLogState::master:
      return "master";
    case SmLogState::not_active:
      return "not_active";
    case SmLogState::exiting:
      return "exiting";
    case SmLogState::port_down:
      return "port_down";
    case SmLogState::none:
      break;
  }
  return "";
}

SmLogState sm_log_state_from_name(std::string_view name) {
  for (const auto& l : osm_sm_state_detail::kLines)
    if (!name.empty() && sm_log_state_name(l.state) == name) return l.state;
  return SmLogState::none;
}

SmLogState sm_log_state_of_text(std::string_view message) {
  while (!message.empty() && (message.back() == ' ' || message.back() == '\t' ||
                              message.back() == '\r' || message.back() == '\n'))
    message.remove_suffix(1);
  for (const auto& l : osm_sm_state_detail::kLines)
    if (message == l.text) return l.state;
  return SmLogState::none;
}

Severity sm_log_state_severity(SmLogState s) {
  return s == SmLogState::exiting || s == SmLogState::port_down || s == SmLogState::not_active
             ? Severity::warning
             : Severity::info;
}

std::string sm_state_message(SmLogState s, std::string_view line) {
  std::string m(osm_sm_state_detail::kPrefix);
  m += sm_log_state_name(s);
  m += ": ";
  m += line;
  return m;
}

SmLogState sm_state_of(const Event& e) {
  using osm_sm_state_detail::kPrefix;
  if (e.kind != kind::sm_state) return SmLogState::none;
  std::string_view m = e.message;
  if (m.substr(0, kPrefix.size()) != kPrefix) return SmLogState::none;
  m.remove_prefix(kPrefix.size());
  return sm_log_state_from_name(m.substr(0, m.find(':')));
}

}  // namespace ibw::ingest
