// The internal event every source produces (OpenSM log, counter poller, UFM) and the store
// keeps. Sources fill what they know; the correlator adds node names, peer and cable from
// the fabric model and the cabling plan.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ibw::ingest {

enum class EventSource : uint8_t { opensm, counters, ufm };
std::string_view source_name(EventSource s);  // "opensm", "counters", "ufm"

enum class Severity : uint8_t { info, warning, error, critical };
std::string_view severity_name(Severity s);  // "info", "warning", "error", "critical"

// Event kinds used across sources (free text is allowed for source-specific ones).
namespace kind {
inline constexpr std::string_view link_down = "link_down";
inline constexpr std::string_view link_up = "link_up";
inline constexpr std::string_view trap = "trap";  // any other SM trap (129-131, 144, 145)
inline constexpr std::string_view subnet_up = "subnet_up";
inline constexpr std::string_view sweep = "sweep";        // heavy sweep / resweep started
inline constexpr std::string_view sm_error = "sm_error";  // OpenSM ERR lines
inline constexpr std::string_view counter_jump = "counter_jump";
inline constexpr std::string_view counter_reset = "counter_reset";
inline constexpr std::string_view port_unresponsive = "port_unresponsive";
// The daemon's route check after an LFT change (daemon/route_check_state.h): a new credit
// loop, OpenSM falling back from its configured routing engine, unreachable LID pairs.
inline constexpr std::string_view credit_loop = "credit_loop";
inline constexpr std::string_view routing_fallback = "routing_fallback";
inline constexpr std::string_view unreachable = "unreachable";
// UFM (source ufm) gives link_down / link_up as above, and its own kinds, defined in
// ingest/ufm/events.h (namespace ufm_kind): port_unhealthy (702), counter_threshold
// (110-121), high_ber (917/918), width_degraded (130), cable (1500-1503), ufm_event (any
// other type) and ufm_storm (a grouped burst, ingest/ufm/storm.h).
}  // namespace kind

struct Event {
  int64_t time_us = 0;  // when it happened (source time), UTC microseconds
  EventSource source = EventSource::opensm;
  std::string kind;
  Severity severity = Severity::info;
  uint64_t node_guid = 0;  // reporting node; 0 when unknown
  int port = 0;            // 0 when the event is about a whole node
  uint16_t lid = 0;        // reporting LID when the source gives one
  int trap_number = 0;     // SM trap/notice number when there is one (128, 129, ...)
  std::string message;     // human-readable, one line

  // Filled by correlation with the fabric model and plan (may stay empty).
  std::string node;  // display name
  std::string peer_node;
  int peer_port = 0;
  uint64_t peer_guid = 0;
  std::string cable_id;

  // Source-specific stable identity for exactly-once storage (e.g. "opensm:<inode>:<offset>").
  std::string dedup_key;
};

}  // namespace ibw::ingest
