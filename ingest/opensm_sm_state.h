// The state lines of OpenSM's log: what the local OpenSM says about its own SM state. OpenSM
// 3.3 writes them at the SYS level (0x80, always on, no function prefix; recorded on ibsim in
// tests/data/opensm/sm-state-*.log):
//   "Entering DISCOVERING state" / "Entering STANDBY state" / "Entering MASTER state" /
//   "Entering NOTACTIVE state"   (osm_sm_state_mgr.c, at each SM state change)
//   "Exiting SM"                 (osm_opensm.c, a clean stop: SIGTERM, SIGINT)
//   "SM port is down"            (osm_state_mgr.c, the SM's own port lost its link; OpenSM
//                                 then enters DISCOVERING)
// "SM port is up" only precedes the next "Entering ..." line and gives no state. A killed
// OpenSM (SIGKILL, a crash) writes nothing: the log's last state then stays as it was, which
// is one reason the SM watcher trusts SMInfo over MADs, never the log, for "no master".
// Heavy sweeps are the parser's `sweep` records (ingest/opensm_log.h), not states.
//
// The parser (parse_opensm_line_view) gives these lines OsmRecordKind::sm_state and to_event
// makes them events of kind "sm_state" (source opensm) whose message carries the state and
// the line: "OpenSM state master: Entering MASTER state" (sm_state_message / sm_state_of).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/event.h"

namespace ibw::ingest {

namespace kind {
inline constexpr std::string_view sm_state = "sm_state";  // a state line of the OpenSM log
}  // namespace kind

enum class SmLogState : uint8_t {
  none,
  discovering,
  standby,
  master,
  not_active,
  exiting,
  port_down
};

// "discovering", "standby", "master", "not_active", "exiting", "port_down" ("" for none).
std::string_view sm_log_state_name(SmLogState s);
// The state a name gives (as sm_log_state_name writes it); none for any other text.
SmLogState sm_log_state_from_name(std::string_view name);

// The state of a log message (the text after "-> ", trailing blanks ignored): exactly one of
// the lines above, else none.
SmLogState sm_log_state_of_text(std::string_view message);

// Severity of an sm_state event: warning for exiting, port_down and not_active, else info.
Severity sm_log_state_severity(SmLogState s);

// "OpenSM state <name>: <line>", the message of an sm_state event.
std::string sm_state_message(SmLogState s, std::string_view line);
// The state an sm_state event carries (none for other events or other messages).
SmLogState sm_state_of(const Event& e);

}  // namespace ibw::ingest
